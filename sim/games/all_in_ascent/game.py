"""One All-In Ascent game from Python: the same rule functions as the batch kernel.

    game = Game(seed=1, characters=["technician", "sprinter"])
    game.legal_actions()          # [EndTurn(), Rest(), Train('Grip Board'), ...]
    game.step(Climb("bouldering", 0))
    game.as_dict(), game.is_over, game.winner, game.transcript

Actions are small values that say what they do; their numeric code is an implementation
detail (state.py). `step` refuses an illegal action and says why.
"""
from dataclasses import dataclass

import numpy as np

from sim.core.bot_exceptions import raising_bot_exceptions
from sim.core.rng import to_uint32
from sim.core.seeding import policy_streams
from sim.core.single_game import Action, IllegalActionError, SingleGame
from sim.games.all_in_ascent import engine as E
from sim.games.all_in_ascent import state as S
from sim.games.all_in_ascent.data import AREAS, CHARACTER_KEYS, STATS, TIERS
from sim.games.all_in_ascent.kernel import (
    END_POLICY_ERROR, MAX_SLOTS, play_game)
from sim.games.all_in_ascent.memory import WORK_SIZE
from sim.games.all_in_ascent.rules import PackedRules, check_game_can_end, default_rules
from sim.games.all_in_ascent.transcript import Transcript

LOCATION_NAMES = ("lobby", "rest", "gearShop") + AREAS
# A 45-round game has at most about 2,200 actions (every action but endTurn and the Route
# Reader's once-per-round redistribution costs time).
MAX_API_ACTIONS = 100_000


@dataclass(frozen=True)
class EndTurn(Action):
    text = "end turn"


@dataclass(frozen=True)
class Rest(Action):
    text = "rest"


@dataclass(frozen=True)
class Train(Action):
    station: str
    text = "train at {station}"


@dataclass(frozen=True)
class Climb(Action):
    area: str
    slot: int
    text = "climb {area} slot {slot}"


@dataclass(frozen=True)
class Milestone(Action):
    tier: str
    text = "attempt the {tier} milestone"


@dataclass(frozen=True)
class Buy(Action):
    card: str
    text = "buy {card}"


@dataclass(frozen=True)
class Redistribute(Action):
    """The Route Reader moves `points` from one stat to another until the round ends (switch
    route_reader_redistribution)."""
    source: str
    target: str
    points: int
    text = "move {points} points from {source} to {target} this round"


_REASONS = {
    E.ILLEGAL_GAME_OVER: "the game is over",
    E.ILLEGAL_UNKNOWN_ACTION: "there is no such action",
    E.ILLEGAL_NO_TIME: "not enough time left this round",
    E.ILLEGAL_NO_ENDURANCE: "not enough endurance",
    E.ILLEGAL_OCCUPIED: "that section is full (R32-R36)",
    E.ILLEGAL_NO_ACCESS: "the player lacks the access gear for that area (R26)",
    E.ILLEGAL_NO_ROUTE: "no route is shown in that slot",
    E.ILLEGAL_ALREADY_TRIED: "the player already attempted that route this round (R46)",
    E.ILLEGAL_FREE_SOLO: "the Free Solo's stats do not meet the route's base requirements (R28)",
    E.ILLEGAL_MILESTONE_DONE: "the player already completed that milestone",
    E.ILLEGAL_NO_CARD: "that card is not for sale now",
    E.ILLEGAL_OWNED: "the player already owns that card",
    E.ILLEGAL_NO_XP: "not enough spendable XP (R64)",
    E.ILLEGAL_LEVEL: "the player's level is below the card's prerequisite level",
    E.ILLEGAL_PREREQUISITE: "the player lacks a prerequisite card",
    E.ILLEGAL_NO_REDISTRIBUTION: "the rules have no redistribution (switch "
                                 "route_reader_redistribution is off)",
    E.ILLEGAL_NOT_ROUTE_READER: "only the Route Reader redistributes stat points",
    E.ILLEGAL_REDISTRIBUTED: "the Route Reader already redistributed this round",
    E.ILLEGAL_REDISTRIBUTION_POINTS: "more points than the passive allows or than the stat has",
}


def character_id(key):
    if key not in CHARACTER_KEYS:
        raise ValueError(f"unknown character {key!r}; characters: {', '.join(CHARACTER_KEYS)}")
    return CHARACTER_KEYS.index(key)


def check_characters(characters):
    """R10: 1-4 distinct character keys."""
    if not 1 <= len(characters) <= S.MAX_PLAYERS:
        raise ValueError(f"a game has 1 to 4 players (R10), got {len(characters)}")
    if len(set(characters)) != len(characters):
        raise ValueError(f"characters must be distinct (R10, R74), got {', '.join(characters)}")
    return np.array([character_id(c) for c in characters] +
                    [-1] * (S.MAX_PLAYERS - len(characters)), np.int64)


class Game(SingleGame):
    layout = S

    def __init__(self, seed, characters, rules: PackedRules = None, record=True):
        self.rules = rules or default_rules()
        self.tables = self.rules.tables
        self.characters = list(characters)
        ids = check_characters(self.characters)
        # as the batch API refuses it (protocol.build_rules): a game that can never end
        check_game_can_end(self.rules.config, len(self.characters))
        self.seed = to_uint32(seed)
        self.state = S.new_state()
        self._trace = S.new_trace()
        self._legal = np.zeros(S.N_ACTIONS, np.int64)
        E.setup(self.state, self.tables, np.int64(self.seed), ids, np.int64(len(self.characters)))
        self.transcript = Transcript(self) if record else None

    # --- actions ------------------------------------------------------------------------------
    def action_code(self, action):
        r = self.rules
        if isinstance(action, (int, np.integer)):
            return int(action)
        if isinstance(action, EndTurn):
            return S.END_TURN
        if isinstance(action, Rest):
            return S.REST
        if isinstance(action, Train):
            if action.station not in r.station_names:
                raise IllegalActionError(f"{action}: no station {action.station!r}; stations: "
                                         f"{', '.join(r.station_names)}")
            return S.TRAIN + r.station_names.index(action.station)
        if isinstance(action, Climb):
            if action.area not in AREAS or not 0 <= action.slot < S.MAX_VISIBLE:
                raise IllegalActionError(f"{action}: areas are {', '.join(AREAS)} and slots "
                                         f"0..{S.MAX_VISIBLE - 1}")
            return S.CLIMB + AREAS.index(action.area) * S.MAX_VISIBLE + action.slot
        if isinstance(action, Milestone):
            if action.tier not in TIERS:
                raise IllegalActionError(f"{action}: tiers are {', '.join(TIERS)}")
            return S.MILESTONE + TIERS.index(action.tier)
        if isinstance(action, Buy):
            if action.card not in r.card_names:
                raise IllegalActionError(f"{action}: no card {action.card!r}")
            card = r.card_id(action.card)
            for k in range(int(self.state[S.G_N_ROTATION])):
                if self.state[S.G_ROTATION + k] == card:
                    return S.BUY_ROTATION + k
            access = list(self.rules.named.access_cards)
            if card in access:
                return S.BUY_ACCESS + access.index(card)
            raise IllegalActionError(f"{action}: {action.card} is not in the shop rotation now "
                                     f"(rotation: {', '.join(self.rotation_names())})")
        if isinstance(action, Redistribute):
            if action.source not in STATS or action.target not in STATS or \
                    action.source == action.target or \
                    not 1 <= action.points <= S.MAX_REDISTRIBUTION:
                raise IllegalActionError(f"{action}: two different stats of {', '.join(STATS)} "
                                         f"and 1..{S.MAX_REDISTRIBUTION} points")
            return E.redistribution_action(STATS.index(action.source),
                                           STATS.index(action.target), action.points)
        raise TypeError(f"not an action: {action!r}")

    def action_value(self, code):
        r = self.rules
        code = int(code)
        if code == S.END_TURN:
            return EndTurn()
        if code == S.REST:
            return Rest()
        if code < S.CLIMB:
            return Train(r.station_names[code - S.TRAIN])
        if code < S.MILESTONE:
            area, slot = divmod(code - S.CLIMB, S.MAX_VISIBLE)
            return Climb(AREAS[area], slot)
        if code < S.BUY_ROTATION:
            return Milestone(TIERS[code - S.MILESTONE])
        if code >= S.REDISTRIBUTE:
            source, target, points = E.redistribution_move(code)
            return Redistribute(STATS[source], STATS[target], int(points))
        card = int(E.shop_card(self.state, self.tables, code))
        return Buy(r.card_names[card]) if card >= 0 else None

    def legal_codes(self):
        n = E.legal_actions(self.state, self.tables, self._legal)
        return [int(a) for a in self._legal[:n]]

    def legal_actions(self):
        return [self.action_value(a) for a in self.legal_codes()]

    def why_illegal(self, action):
        """None if the action is legal now, else the reason in words."""
        code = self.action_code(action)
        reason = int(E.illegal_reason(self.state, self.tables, code))
        return None if reason == E.OK else _REASONS[reason]

    def step(self, action):
        code = self.action_code(action)
        reason = int(E.illegal_reason(self.state, self.tables, code))
        if reason != E.OK:
            shown = self.action_value(code) if 0 <= code < S.N_ACTIONS else code
            raise IllegalActionError(
                f"illegal action {shown} for seat {self.current_seat} "
                f"({self.characters[self.current_seat]}): {_REASONS[reason]}")
        before = self.state.copy()
        if code == S.END_TURN:
            n = E.legal_actions(self.state, self.tables, self._legal)
            E.note_turn_end(self.state, np.int64(code), self._legal, np.int64(n))
        E.apply_action(self.state, self.tables, np.int64(code), self._trace)
        if self.transcript is not None:
            return self.transcript.add_action(before, self.state, self._trace)
        return None

    def play(self, policies, params=None, max_actions=0, policy_seed=None):
        """Play to the end with registered policies: a name for all seats or one per seat.

        The policies choose in numba, with the kernel's own game loop, on a copy of this game;
        then every chosen action is applied here through `step`, one by one (and recorded in
        the transcript). Policies never draw from the game's stream, so the copy and this game
        see the same dice. Each seat's policy stream is seeded from (game seed, seat).
        `max_actions` stops after that many actions (the game stays open here); `policy_seed`
        replaces the game seed as the seed of the policies' streams."""
        for code in self._policy_actions(policies, params, max_actions or MAX_API_ACTIONS,
                                         policy_seed):
            self.step(code)
        return self

    def suggest(self, policies, params=None, policy_seed=None):
        """The action the current seat's policy would take now, without taking it.

        A policy's stream is seeded from (game seed, seat), not from the moves so far, so for a
        policy that draws random numbers this is its first draw, not necessarily what `play`
        would choose at this point of a game."""
        return self.action_value(self._policy_actions(policies, params, 1, policy_seed)[0])

    def _policy_actions(self, policies, params, limit, policy_seed=None):
        names = [policies] * len(self.characters) if isinstance(policies, str) else list(policies)
        if len(names) != len(self.characters):
            raise ValueError(f"{len(names)} policies for {len(self.characters)} seats")
        if self.is_over:
            return []
        fns, slot_params, seat_slots = policy_slots(names, params)
        streams = policy_streams(np.int64(self.seed if policy_seed is None else
                                          to_uint32(policy_seed)), S.MAX_PLAYERS)
        actions = np.zeros(limit, np.int64)
        shadow = self.state.copy()
        with raising_bot_exceptions(list(dict.fromkeys(names))):
            n = play_game(shadow, self.tables, fns, seat_slots, slot_params, streams,
                          np.zeros(S.N_ACTIONS, np.int64), S.new_trace(),
                          np.zeros(WORK_SIZE, np.int64), np.int64(limit), actions)
        if int(shadow[S.G_END_REASON]) == END_POLICY_ERROR:
            seat = int(shadow[S.G_CURRENT])
            raise RuntimeError(f"policy {names[seat]} (seat {seat}) returned an illegal action "
                               f"after {n} actions")
        return [int(a) for a in actions[:min(n, limit)]]

    # --- views --------------------------------------------------------------------------------
    @property
    def round(self):
        return int(self.state[S.G_ROUND])

    def route_name(self, rid):
        return self.rules.route_names[rid]

    def visible_names(self, area):
        a = AREAS.index(area) if isinstance(area, str) else area
        n = int(self.state[S.G_N_VISIBLE + a])
        return [self.route_name(int(r)) for r in
                self.state[S.G_VISIBLE + a * S.MAX_VISIBLE:S.G_VISIBLE + a * S.MAX_VISIBLE + n]]

    def rotation_names(self):
        n = int(self.state[S.G_N_ROTATION])
        return [self.rules.card_names[int(g)] for g in self.state[S.G_ROTATION:S.G_ROTATION + n]]

    def milestone_names(self):
        return [self.route_name(int(r)) for r in self.state[S.G_MILESTONES:S.G_MILESTONES + 3]]

    def player_dict(self, seat, state=None):
        st = self.state if state is None else state
        b = S.player_offset(seat)
        gear = int(st[b + S.P_GEAR])
        return {
            "seat": seat,
            "character": CHARACTER_KEYS[int(st[b + S.P_CHARACTER])],
            "level": int(st[b + S.P_LEVEL]),
            "xp": int(st[b + S.P_XP]),
            "spendable_xp": int(E.spendable_xp(st, self.tables, seat)),
            "endurance": int(st[b + S.P_ENDURANCE]),
            "max_endurance": int(st[b + S.P_MAX_ENDURANCE]),
            "stats": {s: int(st[b + S.P_STATS + i]) for i, s in enumerate(STATS)},
            "training": {s: int(st[b + S.P_TRAINING + i]) for i, s in enumerate(STATS)},
            "time": int(st[b + S.P_TIME]),
            "beta_boost": bool(st[b + S.P_BETA]),
            "location": self.location_name(int(st[b + S.P_LOCATION])),
            "gear": [n for g, n in enumerate(self.rules.card_names) if (gear >> g) & 1],
            "milestones": [tier for i, tier in enumerate(TIERS) if (st[b + S.P_DONE] >> i) & 1],
            **({"belay_station": int(st[b + S.P_BELAY_STATION])}
               if self.rules.config.top_rope_stations else {}),
            **({"stat_shift": {s: int(st[b + S.P_REDIST + i]) for i, s in enumerate(STATS)},
                "redistributed_this_round": bool(st[b + S.P_REDIST_USED])}
               if self.rules.config.switch("route_reader_redistribution") else {}),
        }

    def location_name(self, loc):
        if loc >= S.STATION_LOC:
            return self.rules.station_names[loc - S.STATION_LOC]
        return LOCATION_NAMES[loc]

    def as_dict(self):
        return {
            "seed": self.seed,
            "round": self.round,
            "current_seat": self.current_seat,
            "belayers": int(self.state[S.G_BELAYERS]),
            "clearing_token": int(self.state[S.G_TOKEN]),
            "rng_state": int(self.state[S.G_RNG]),
            "milestones": dict(zip(TIERS, self.milestone_names())),
            "visible": {area: self.visible_names(area) for area in AREAS},
            "shop": self.rotation_names(),
            "players": [self.player_dict(s) for s in range(len(self.characters))],
            "over": self.is_over,
            "winner": self.winner,
            "end_reason": self.end_reason,
        }


def policy_slots(names, params=None):
    """Per-seat policy names -> (padded function tuple, slot parameter matrix, seat -> slot)."""
    from sim.core.policies import policy_slots as slots
    from sim.games.all_in_ascent.policy_api import MAX_POLICY_PARAMS
    distinct = list(dict.fromkeys(names))
    fns, slot_params, _ = slots("all-in-ascent", distinct, MAX_SLOTS, MAX_POLICY_PARAMS, params)
    seat_slots = np.zeros(S.MAX_PLAYERS, np.int64)
    for seat, n in enumerate(names):
        seat_slots[seat] = distinct.index(n)
    return fns, slot_params, seat_slots
