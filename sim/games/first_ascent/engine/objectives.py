"""Shared objectives (F59-F62, F88-F103, F129).
"""
import numpy as np

from sim.core.bits import popcount, trailing_zeros
from sim.core.jit import njit_noalloc
from sim.games.first_ascent.data import (
    BM_HEADWALL, BM_NORTH, BM_ROW, BM_SOUTH, N_HEX, SO_A, SO_B, SO_C, SO_D, SO_E, SO_FIELDS,
    SO_KIND, SO_POINTS, T_P_SHADE, T_P_TYPE, T_P_VALUE, T_SO, T_SO_BGA_TILES)
from sim.games.first_ascent.engine.common import (
    K_ALL_TYPES, K_ELITIST, K_GRAND_TRAVERSE, K_PERMANENT, K_PER_HEADWALL, K_PER_PITCH, K_RIDGE,
    K_TYPE_COUNT, TRIFECTA, add_score, board_mask)
from sim.games.first_ascent.rules import C_PERM_OBJ_BGA, C_TRIFECTA_BGA
from sim.games.first_ascent.state import (
    G_SHARED, SEAT_FIELDS, S_ELITIST_LOST, S_OBJ_DONE, S_PERM, S_ROUTE, S_ROUTE_MASK, S_ROUTE_N,
    S_SC_SHARED, TILE, T_SHARED_POINTS)


@njit_noalloc
def route_tiles(st, seat):
    m = np.int64(0)
    base = seat * SEAT_FIELDS
    for i in range(st[S_ROUTE_N + base]):
        m |= np.int64(1) << st[TILE + st[S_ROUTE + base + i]]
    return m


@njit_noalloc
def score_objective(st, seat, so, points):
    add_score(st, seat, S_SC_SHARED, points)
    st[T_SHARED_POINTS + seat * 17 + so] += points


@njit_noalloc(inline="always")
def counts_for_type_objective(t, so, tile):
    """F92-F97 + Decision 7: whether a pitch tile counts toward type objective `so`: a tile of
    its type, and The Trifecta for every type objective (switch trifecta_objectives=
    bga_crack_only: BGA's tile list, where The Trifecta is a crack)."""
    if t[C_TRIFECTA_BGA] != 0:
        return (t[T_SO_BGA_TILES + so] >> tile) & 1 != 0
    return t[T_P_TYPE + tile] == t[T_SO + SO_FIELDS * so + SO_A] or tile == TRIFECTA


@njit_noalloc
def type_count(st, t, seat, so):
    """F92-F97: the tiles on the seat's route that count toward type objective `so`."""
    n = 0
    m = route_tiles(st, seat)
    while m:
        low = m & -m
        k = trailing_zeros(low)
        m ^= low
        if counts_for_type_objective(t, so, k):
            n += 1
    return n


@njit_noalloc
def update_shared_objectives(st, t, seat, h):
    base = seat * SEAT_FIELDS
    tile = st[TILE + h]
    for i in range(3):
        so = st[G_SHARED + i]
        at = T_SO + SO_FIELDS * so
        kind = t[at + SO_KIND]
        points = t[at + SO_POINTS]
        done = (st[S_OBJ_DONE + base] >> so) & 1
        if kind == K_PER_PITCH:                                  # F90, F91
            if (t[at + SO_A] >> t[T_P_SHADE + tile]) & 1:
                score_objective(st, seat, so, points)
        elif kind == K_PER_HEADWALL:                             # F101
            if (board_mask(st, t, BM_HEADWALL) >> h) & 1:
                score_objective(st, seat, so, points)
        elif kind == K_ELITIST:                                  # F61
            if t[T_P_VALUE + tile] == t[at + SO_A] and st[S_ELITIST_LOST + base] == 0:
                st[S_ELITIST_LOST + base] = 1
                score_objective(st, seat, so, -points)
        elif done == 0:
            met = False
            if kind == K_RIDGE:                                  # F88, F89
                ridge = board_mask(st, t, BM_NORTH if t[at + SO_A] == 0 else BM_SOUTH)
                met = popcount(st[S_ROUTE_MASK + base] & ridge) >= t[at + SO_B]
            elif kind == K_TYPE_COUNT:                           # F92-F97
                met = type_count(st, t, seat, so) >= t[at + SO_B]
            elif kind == K_GRAND_TRAVERSE:                       # F98
                met = has_traverse(st, t, st[S_ROUTE_MASK + base], t[at + SO_A])
            elif kind == K_ALL_TYPES:                            # F99
                met = all_types_met(st, t, seat, t[at + SO_A], t[at + SO_B])
            if met:
                st[S_OBJ_DONE + base] |= 1 << so
                score_objective(st, seat, so, points)


@njit_noalloc
def has_traverse(st, t, route_mask, run):
    for r in range(6):
        row = board_mask(st, t, BM_ROW + r)
        streak = 0
        for h in range(1, N_HEX):
            if (row >> h) & 1:
                if (route_mask >> h) & 1:
                    streak += 1
                    if streak >= run:
                        return True
                else:
                    streak = 0
    return False


@njit_noalloc
def all_types_met(st, t, seat, types_mask, trifecta_fills):
    tiles = route_tiles(st, seat)
    have = 0
    m = tiles
    while m:
        low = m & -m
        k = trailing_zeros(low)
        m ^= low
        have |= 1 << t[T_P_TYPE + k]
    missing = popcount(types_mask & ~have)
    if missing == 0:
        return True
    return missing == 1 and trifecta_fills != 0 and (tiles >> TRIFECTA) & 1


@njit_noalloc
def check_permanent_objectives(st, t, seat):
    """F51, F62, F102-F103: Stonemaster and Off-Width Aficionado after the grants."""
    base = seat * SEAT_FIELDS
    for i in range(3):
        so = st[G_SHARED + i]
        at = T_SO + SO_FIELDS * so
        if t[at + SO_KIND] != K_PERMANENT or (st[S_OBJ_DONE + base] >> so) & 1:
            continue
        a = st[S_PERM + base + t[at + SO_A]]
        b = st[S_PERM + base + t[at + SO_C]]
        if t[C_PERM_OBJ_BGA] != 0:
            met = a + b >= t[at + SO_E]
        else:
            met = a >= t[at + SO_B] and b >= t[at + SO_D]
        if met:
            st[S_OBJ_DONE + base] |= 1 << so
            score_objective(st, seat, so, t[at + SO_POINTS])
