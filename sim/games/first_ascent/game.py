"""One First Ascent game from Python: the same numba code as the batch kernel.

    game = FirstAscentGame(seed=1, players=4, characters=["rope_gun", "phil", ...])
    game.play(["random"] * 4)
    game.result()            # per-seat scores, their parts, winners
    game.replay_text()       # every decision, in order, in words
    game.transcript_jsonl()

The engine asks the policies at every choice (engine.ask); this API records each decision
(seat, decision, chosen code, number of legal codes, round, context) and decodes it.
"""
import json

import numpy as np

from sim.core.bot_exceptions import raising_bot_exceptions
from sim.games.first_ascent import state as S
from sim.games.first_ascent.batch import character_ids, policy_slots
from sim.games.first_ascent.data import (CHARACTER_KEYS, CLIMBING_NAMES, KIND_NAMES,
                                         PITCH_NAMES, SB_NAMES, SHARED_NAMES,
                                         ASSET_TYPES, TECHNIQUES)
from sim.games.first_ascent.kernel import engine_value, play_one
from sim.games.first_ascent.rules import FirstAscentRules, build_rules

MAX_LOG = 50_000
SOURCES = ("hand", "board (face down)", "board (face up)")


class FirstAscentGame:
    def __init__(self, seed, players=4, characters="random", rules: FirstAscentRules = None):
        self.rules = rules or build_rules(players)
        self.players = self.rules.players
        self.seed = int(seed) & 0xFFFFFFFF
        self.characters = character_ids(characters, self.players)
        self.state = None
        self.log = None
        self.policies = None

    def play(self, seat_policies, params=None):
        names = list(seat_policies)
        if len(names) != self.players:
            raise ValueError(f"{len(names)} seat policies for {self.players} players")
        distinct = list(dict.fromkeys(names))
        fns, slot_params = policy_slots(distinct, params)
        seat_slots = np.zeros(S.MAX_PLAYERS, np.int64)
        for seat, n in enumerate(names):
            seat_slots[seat] = distinct.index(n)
        st = np.zeros(S.STATE_SIZE, np.int64)
        log = np.zeros((MAX_LOG, 6), np.int64)
        engine = engine_value(self.rules.tables, fns)
        with raising_bot_exceptions(distinct):
            play_one(st, self.rules.tables, np.int64(self.seed), self.characters, fns,
                     seat_slots, slot_params, log, engine)
        self.state, self.policies = st, names
        self.log = log[:min(int(st[S.G_DECISIONS]), MAX_LOG)]
        return self.result()

    # --- reading the outcome -----------------------------------------------------------
    def won_seats(self):
        """The seats that won: a remaining tie is shared (F63), so G_WINNER is a seat mask."""
        mask = int(self.state[S.G_WINNER])
        return [seat for seat in range(self.players) if mask >> seat & 1]

    @property
    def end_reason(self):
        return S.END_REASON_NAMES[int(self.state[S.G_END_REASON])]

    def seat_value(self, field, seat):
        return int(self.state[field + seat * S.SEAT_FIELDS])

    def result(self):
        st = self.state
        seats = []
        for seat in range(self.players):
            v = lambda f: self.seat_value(f, seat)   # noqa: E731
            seats.append({
                "seat": seat, "policy": self.policies[seat],
                "character": CHARACTER_KEYS[v(S.S_CHAR)],
                "score": v(S.S_SCORE),
                "parts": {"pitches": v(S.S_SC_PITCH), "summits": v(S.S_SC_SUMMIT),
                          "shared": v(S.S_SC_SHARED), "sets": v(S.S_SC_SETS),
                          "spider_stick": v(S.S_SC_SPIDER), "personal": v(S.S_SC_PERSONAL)},
                "route": [int(h) for h in st[S.S_ROUTE + seat * S.SEAT_FIELDS:
                                            S.S_ROUTE + seat * S.SEAT_FIELDS + v(S.S_ROUTE_N)]],
                "permanent_gained": v(S.S_PERM_GAINED),
                "won": bool((st[S.G_WINNER] >> seat) & 1),
            })
        return {"seed": self.seed, "players": self.players, "rounds": int(st[S.G_ROUND]),
                "end_reason": S.END_REASON_NAMES[int(st[S.G_END_REASON])],
                "shared_objectives": [SHARED_NAMES[int(st[S.G_SHARED + i])] for i in range(3)],
                "seats": seats}

    def describe(self, decision, code, context):
        """A decision's chosen code in words."""
        st = self.state
        if decision == S.D_TURN:
            if code == S.A_REST:
                return "rest"
            if code >= S.A_PLAY_SB:
                return f"play {SB_NAMES[code - S.A_PLAY_SB]}"
            if code >= S.A_TRADE:
                g, p = divmod(code - S.A_TRADE, 4)
                return f"trade 3 {ASSET_TYPES[g]} cards for a {ASSET_TYPES[p]} Portaledge card"
            verb, h = ("risk", code - S.A_RISK) if code >= S.A_RISK else ("climb", code)
            return f"{verb} hex {h} ({PITCH_NAMES[int(st[S.TILE + h])]})"
        if decision == S.D_OPTION:
            cards = [context % 100, context // 100]
            if code == S.A_PASS:
                return "pass the climbing card" + "".join(
                    f" {CLIMBING_NAMES[c]}" for c in cards if c)
            jesus = " with Jesus Piece" if code >= S.WITH_JESUS else ""
            code %= S.WITH_JESUS
            return f"climbing card {CLIMBING_NAMES[cards[code // 2]]}: option " \
                   f"{'AB'[code % 2]}{jesus}"
        if decision == S.D_OPPONENT:
            return f"opponent: seat {code + 1}"
        if decision in (S.D_PILE,):
            return f"Portaledge pile {ASSET_TYPES[code]}"
        if decision == S.D_TECHNIQUE:
            return f"technique {TECHNIQUES[code]}"
        if decision == S.D_CARD:
            if code == S.A_STOP:
                return "stop"
            return f"{KIND_NAMES[code % 64]} from {SOURCES[code // 64]}"
        if decision == S.D_STEAL:
            return f"take {KIND_NAMES[code % 64]} from seat {code // 256 + 1}'s " \
                   f"{SOURCES[(code % 256) // 64]}"
        if decision == S.D_REQ_TOKEN:
            h, a = divmod(code, 4)
            return f"{ASSET_TYPES[a]} requirement token on hex {h}"
        if decision == S.D_DRAW:
            return "draw from the deck" if code == S.DRAW_DECK else f"take Spread card {code}"
        if decision == S.D_REST:
            return {S.REST_WATER: "+1 water", S.REST_PSYCH: "+1 psych"}.get(
                code, f"a {ASSET_TYPES[code % 4]} Portaledge card")
        if decision == S.D_SB_KEEP:
            return f"keep {SB_NAMES[code]}"
        if decision == S.D_PERMANENT:
            return "no more permanent tokens" if code == S.PERM_STOP else \
                f"permanent {ASSET_TYPES[code]} token"
        if decision == S.D_CHALKBAG:
            return "reroll with Lucky Chalkbag" if code else "keep the roll"
        if decision == S.D_SB_WINDOW:
            return "go on" if code == S.A_CONTINUE else f"play {SB_NAMES[code - S.A_PLAY_SB]}"
        if decision == S.D_DISCARD_PICK:
            return f"take {KIND_NAMES[code]} from the discard pile"
        return str(code)

    def transcript(self):
        rows = []
        for seat, decision, code, n, rnd, ctx in self.log:
            rows.append({"round": int(rnd), "seat": int(seat),
                         "decision": S.DECISION_NAMES[int(decision)], "code": int(code),
                         "legal": int(n), "text": self.describe(int(decision), int(code),
                                                                int(ctx))})
        return rows

    def transcript_jsonl(self):
        lines = [json.dumps({"header": {"game": "first-ascent", "seed": self.seed,
                                        "rules": self.rules.as_dict(),
                                        "policies": self.policies}})]
        lines += [json.dumps(r) for r in self.transcript()]
        lines.append(json.dumps({"result": self.result()}))
        return "\n".join(lines) + "\n"

    def replay_text(self):
        res = self.result()
        out = [f"First Ascent, seed {self.seed}, {self.players} players, shared objectives: "
               f"{', '.join(res['shared_objectives'])}"]
        for s in res["seats"]:
            out.append(f"  seat {s['seat'] + 1}: {s['character']} ({s['policy']})")
        last_round = 0
        for r in self.transcript():
            if r["round"] != last_round:
                last_round = r["round"]
                out.append(f"-- round {last_round}")
            out.append(f"  seat {r['seat'] + 1} {r['decision']:<18} {r['text']}"
                       + ("" if r["legal"] > 1 else "  (only choice)"))
        out.append(f"end: {res['end_reason']} after {res['rounds']} rounds")
        for s in res["seats"]:
            parts = ", ".join(f"{k} {v}" for k, v in s["parts"].items())
            out.append(f"  seat {s['seat'] + 1} {s['character']:<20} {s['score']:3d} points "
                       f"({parts}){'  WINNER' if s['won'] else ''}")
        return "\n".join(out) + "\n"
