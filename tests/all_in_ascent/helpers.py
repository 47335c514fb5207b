"""Shared helpers for the All-In Ascent rule tests (RULES.md v0.4.0).

Everything here is written from RULES.md, not from the engine: a pure-Python mulberry32
(R5-R7) to force dice and to recompute setup/clearing draws, and small setters that edit a
`Game`'s state vector through the offsets of state.py.
"""
import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from sim.games.all_in_ascent import state as S
from sim.games.all_in_ascent.game import (Buy, Climb, EndTurn, Game, IllegalActionError,
                                          Milestone, Rest, Train)

__all__ = ["Buy", "Climb", "EndTurn", "Game", "IllegalActionError", "Milestone", "Rest", "Train",
           "S", "AREAS", "STATS", "TIERS", "DATA", "PyRng", "state_for_dice", "pget", "pset",
           "set_stats", "set_training", "give", "owns", "put_route", "set_milestone",
           "force_dice", "climb", "attempt_milestone", "route", "card", "INC", "MASK",
           "reference_dice", "stats_of", "end_round_now"]

AREAS = ("bouldering", "topRope", "leadClimbing")
STATS = ("strength", "technique", "focus", "flexibility")
TIERS = ("beginner", "intermediate", "expert")
MASK = 0xFFFFFFFF
INC = 0x6D2B79F5

DATA_PATH = (Path(__file__).resolve().parents[2] / "sim" / "games" / "all_in_ascent" / "data"
             / "data-v0.4.0.json")
DATA = json.loads(DATA_PATH.read_text())


def route(name):
    """(area, data dict) of a route, looked up by name in the JSON data."""
    for area in AREAS:
        for r in DATA["ROUTES"][area]:
            if r["name"] == name:
                return area, r
    raise KeyError(name)


def card(name):
    for c in DATA["GEAR_SHOP"]:
        if c["name"] == name:
            return c
    raise KeyError(name)


# --- a pure-Python mulberry32, written from R5-R7 --------------------------------------------

def mb_step(s):
    s = (s + INC) & MASK
    t = s
    t = ((t ^ (t >> 15)) * (t | 1)) & MASK
    t = t ^ ((t + (((t ^ (t >> 7)) * (t | 61)) & MASK)) & MASK)
    return s, (t ^ (t >> 14)) & MASK


class PyRng:
    def __init__(self, state):
        self.s = int(state) & MASK
        self.draws = 0

    def next(self):
        self.s, k = mb_step(self.s)
        self.draws += 1
        return k / 2**32

    def roll_die(self):
        return int(np.floor(self.next() * 6)) + 1

    def pick(self, lst):
        return lst[int(np.floor(self.next() * len(lst)))]

    def shuffle(self, lst):
        a = list(lst)
        for i in range(len(a) - 1, 0, -1):
            j = int(np.floor(self.next() * (i + 1)))
            a[i], a[j] = a[j], a[i]
        return a

    def pick_n(self, lst, n):
        return self.shuffle(lst)[:min(n, len(lst))]


@lru_cache(maxsize=None)
def state_for_dice(dice):
    """A mulberry32 state whose next len(dice) rollDie() are exactly `dice` (tuple)."""
    dice = tuple(int(d) for d in dice)
    s0 = 1
    while True:
        r = PyRng(s0)
        if all(r.roll_die() == d for d in dice):
            return s0
        s0 += 1


# --- state setters (offsets from state.py) ----------------------------------------------------

def _off(seat, field):
    return S.player_offset(seat) + getattr(S, "P_" + field.upper())


def pget(game, seat, field):
    return int(game.state[_off(seat, field)])


def pset(game, seat, **fields):
    for k, v in fields.items():
        game.state[_off(seat, k)] = v


def set_stats(game, seat, values):
    for i, v in enumerate(values):
        game.state[_off(seat, "stats") + i] = v


def set_training(game, seat, values):
    for i, v in enumerate(values):
        game.state[_off(seat, "training") + i] = v


def give(game, seat, *names):
    for n in names:
        game.state[_off(seat, "gear")] |= 1 << game.rules.card_id(n)


def owns(game, seat, name):
    return bool((int(game.state[_off(seat, "gear")]) >> game.rules.card_id(name)) & 1)


def put_route(game, name, slot=0):
    """Show route `name` in visible slot `slot` of its area (swapping, so no duplicates)."""
    rid = game.rules.route_id(name)
    area = AREAS.index(game.rules.route_areas[rid])
    base = S.G_VISIBLE + area * S.MAX_VISIBLE
    n = int(game.state[S.G_N_VISIBLE + area])
    row = [int(x) for x in game.state[base:base + n]]
    if rid in row:
        j = row.index(rid)
        row[j], row[slot] = row[slot], row[j]
    else:
        row[slot] = rid
    game.state[base:base + n] = row
    return AREAS[area], slot


def set_milestone(game, tier, name):
    game.state[S.G_MILESTONES + TIERS.index(tier)] = game.rules.route_id(name)


def force_dice(game, dice):
    game.state[S.G_RNG] = state_for_dice(tuple(dice))


def climb(game, name, dice, slot=0):
    """Show `name`, force the next dice, climb it with the current player; return the attempt."""
    area, slot = put_route(game, name, slot)
    force_dice(game, dice)
    return game.step(Climb(area, slot))


def attempt_milestone(game, tier, name, dice):
    set_milestone(game, tier, name)
    force_dice(game, dice)
    return game.step(Milestone(tier))


# --- plain-Python references (written from RULES.md, independent of the engine) ---------------

def reference_dice(route, character, gear, own_die=False):
    """R50 for a data route: (effects as (stat index, modifier), dice rolled, Power Tap die
    rolled, Decoder re-roll fires). `own_die`: the rulebook's Sprinter (switch
    sprinter_extra_die=off), whose focus nerf rolls one die more than max(2, route effects)."""
    effects = [(STATS.index(e["stat"]), int(e["modifier"])) for e in route["rollEffect"]]
    n = max(2, len(effects))
    if character == "sprinter":
        effects.append((2, 1))
        n = n + 1 if own_die else max(2, len(effects))
    tag = route["tag"]
    power_tap = tag == "Dynamic" and "Power Tap Belt" in gear
    reroll = tag == "Pinch/Crimp" and "Crimp Sequence Decoder" in gear
    return effects, n + (1 if power_tap else 0), power_tap, reroll


def stats_of(att):
    return [att["effective_stats"][s] for s in STATS]


def end_round_now(game):
    for seat in range(len(game.characters)):
        pset(game, seat, time=0)
    # the current player ends its (empty) turn: everyone is out of time, the round ends (R67)
    pset(game, game.current_seat, time=1)
    game.step(S.END_TURN)
