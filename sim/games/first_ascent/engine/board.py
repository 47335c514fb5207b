"""The board: which hexes a climber may reach and what they show (F8-F14, F30).
"""
import numpy as np

from sim.core.bits import trailing_zeros
from sim.core.jit import njit_noalloc
from sim.games.first_ascent.data import BM_FACE_UP_START, BM_SUMMIT, N_HEX, T_B_NEIGH
from sim.games.first_ascent.engine.common import board_mask, n_players
from sim.games.first_ascent.state import G_HEADWALL_UP, G_SIDE, SEAT_FIELDS, S_HEX, S_ROUTE_MASK


@njit_noalloc
def hex_face_up(st, t, h):
    """F13/F14: rows 1-3 are face up from the start; the Headwall once revealed."""
    if (board_mask(st, t, BM_FACE_UP_START) >> h) & 1:
        return True
    return st[G_HEADWALL_UP] != 0 and h > 0


@njit_noalloc
def legal_destinations(st, t, seat):
    """F30: neighbour, not on the own route, not occupied (except summits), face up."""
    h = st[S_HEX + seat * SEAT_FIELDS]
    mask = t[T_B_NEIGH + N_HEX * st[G_SIDE] + h] & ~st[S_ROUTE_MASK + seat * SEAT_FIELDS]
    mask &= ~np.int64(1)                       # F9: nobody returns to hex 0
    summits = board_mask(st, t, BM_SUMMIT)
    P = n_players(st)
    for q in range(P):
        if q != seat:
            o = st[S_HEX + q * SEAT_FIELDS]
            if o > 0 and not (summits >> o) & 1:
                mask &= ~(np.int64(1) << o)
    out = np.int64(0)
    m = mask
    while m:
        low = m & -m
        x = trailing_zeros(low)
        if hex_face_up(st, t, x):
            out |= low
        m ^= low
    return out


@njit_noalloc
def climbed_by_others(st, seat, h):
    """F32a: N = the other players whose route contains hex h."""
    n = 0
    for q in range(n_players(st)):
        if q != seat and (st[S_ROUTE_MASK + q * SEAT_FIELDS] >> h) & 1:
            n += 1
    return n
