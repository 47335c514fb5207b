"""Constructed First Ascent states for rule tests: a quiet game with empty hands, routes and
tiles set by hand, and small readers of hands, boards and legal turn codes."""

import numpy as np

from fa_helpers import clear_cards, logged, new_game
from sim.games.first_ascent import engine
from sim.games.first_ascent.data import N_KINDS
from sim.games.first_ascent.state import (
    BOARD_UP, CDECK, G_CDECK_POS, G_SHARED, HAND, ROUTE_MAX, S_ELITIST_LOST, S_HEX, S_OBJ_DONE,
    S_PERM, S_PERM_GAINED, S_PSYCH, S_ROUTE, S_ROUTE_MASK, S_ROUTE_N, S_SB, S_SC_PERSONAL,
    S_SC_PITCH, S_SC_SETS, S_SC_SHARED, S_SC_SPIDER, S_SC_SUMMIT, S_SCORE, S_TECH, S_WATER,
    SEAT_FIELDS, T_SHARED_POINTS, TILE)

GEAR, FACE, CRACK, SLAB = 0, 1, 2, 3
P_SLAB, P_ROOF, P_CORNER, P_ARETE, P_FLAKE, P_CRACK = 0, 1, 2, 3, 4, 5
TRIFECTA = 36
HARD_TILE = 43          # gear 2, crack 3, water 1, psych 2: unclimbable with an empty hand
BENIGN_CARD = 5         # Wild berries: A +2 water all / B +1 water self, no cost


# === helpers ================================================================================

def F(field, seat):
    return field + seat * SEAT_FIELDS


def blank(players=2, chars=None, rules=None, seed=3, water=4, psych=4, knobs=()):
    """A set-up game with empty hands, boards, tokens and scores, fixed tracks, quiet shared
    objectives (the two ridges + Grand Traverse) and a benign next climbing card."""
    chars = chars or (4, 6, 4, 6, 4)[:players]
    st, t = new_game(players, chars, seed, rules, knobs)
    for s in range(players):
        clear_cards(st, s)
        st[F(S_WATER, s)] = water
        st[F(S_PSYCH, s)] = psych
        st[F(S_SB, s)] = 0
        st[F(S_PERM, s):F(S_PERM, s) + 4] = 0
        st[F(S_TECH, s):F(S_TECH, s) + 5] = 0
        for f in (S_SCORE, S_SC_PITCH, S_SC_SUMMIT, S_SC_SHARED, S_SC_SETS, S_SC_SPIDER,
                  S_SC_PERSONAL, S_OBJ_DONE, S_PERM_GAINED, S_ELITIST_LOST):
            st[F(f, s)] = 0
        st[T_SHARED_POINTS + s * 17:T_SHARED_POINTS + (s + 1) * 17] = 0
    st[G_SHARED:G_SHARED + 3] = (1, 2, 9)
    set_all_cards(st, BENIGN_CARD)
    return st, t


def set_all_cards(st, card):
    """Every climbing card still to be drawn is `card` (constructed states only)."""
    st[CDECK + st[G_CDECK_POS]:CDECK + 70] = card


def set_route(st, seat, hexes):
    st[F(S_ROUTE, seat):F(S_ROUTE, seat) + ROUTE_MAX] = 0
    mask = 0
    for i, h in enumerate(hexes):
        st[F(S_ROUTE, seat) + i] = h
        mask |= 1 << h
    st[F(S_ROUTE_N, seat)] = len(hexes)
    st[F(S_ROUTE_MASK, seat)] = mask
    st[F(S_HEX, seat)] = hexes[-1] if hexes else 0


def tiles(st, mapping):
    for h, tile in mapping.items():
        st[TILE + h] = tile


def row1_hard(st):
    """Desert row 1 (hexes 1-8) all unclimbable unless overridden."""
    tiles(st, {h: HARD_TILE for h in range(1, 9)})


def hand(st, seat, kind):
    return int(st[HAND + seat * N_KINDS + kind])


def hand_total(st, seat):
    return int(st[HAND + seat * N_KINDS:HAND + (seat + 1) * N_KINDS].sum())


def up(st, seat, kind):
    return int(st[BOARD_UP + seat * N_KINDS + kind])


def bits(mask):
    return [h for h in range(64) if (int(mask) >> h) & 1]


def legal_turn(st, t, seat):
    buf = np.zeros(640, np.int64)
    n = engine.turn_legal(st, t, seat, buf, np.zeros(engine.CLIMB_OPTIONS_BUFFER, np.int64))
    return [int(x) for x in buf[:n]]


def shortfall(st, t, seat, h):
    plan = np.zeros(engine.PLAN_SIZE, np.int64)
    return int(engine.plan_payment(st, t, seat, h, plan, True))


def decisions(ag, st, kind):
    return [row for row in logged(ag, st) if row[1] == kind]
