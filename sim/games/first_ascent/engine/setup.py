"""Setting up a game (F15-F24).
"""
import numpy as np
from numba import njit

from sim.core.jit import njit_noalloc
from sim.games.first_ascent.data import (
    CH_START_PSYCH, CH_START_SB, CH_START_WATER, N_HEX, N_KINDS, SETUP_PORTALEDGE, SO_FIELDS,
    SO_KIND, SO_POINTS, T_B_FIXED, T_B_GROUP_HEX, T_B_GROUP_NHEX, T_B_POOL, T_B_POOL_N,
    T_HAND_BY_SEAT, T_KIND_COUNT, T_KIND_TYPE, T_SETUP, T_SO)
from sim.games.first_ascent.engine.common import (
    K_ELITIST, ch, n_players, rand_below, shuffle_range)
from sim.games.first_ascent.engine.objectives import score_objective
from sim.games.first_ascent.engine.supply import (
    draw_cards, draw_summit_beta, give_summit_beta, spread_single_type)
from sim.games.first_ascent.rules import C_N_PLAYERS
from sim.core.seeding import game_stream_seed
from sim.games.first_ascent.state import (
    CDECK, DECK, G_DECK_N, G_ELITIST_START, G_PLAYERS, G_RNG, G_RNG_DRAW, G_RNG_RISK, G_ROUND,
    G_SB_N, G_SEED, G_SHARED,
    G_SIDE, MAX_PLAYERS, PILE, PILE_CAP, PILE_N, SB_SUPPLY, SEAT_FIELDS, SPREAD, SPREAD_LAST,
    S_CHAR, S_PERSONAL, S_PSYCH, S_WATER, TILE)


@njit(cache=True)
def setup(st, t, seed, characters):
    """A new game. `characters`: the character id of each seat (Decision 16: assigned);
    0 for every seat draws players+1 boards with a random side and deals them at random."""
    st[:] = 0
    P = t[C_N_PLAYERS]
    st[G_PLAYERS] = P
    st[G_SIDE] = 0 if P <= 3 else 1                               # F1, F15
    st[G_SEED] = seed
    st[G_RNG] = seed & 0xFFFFFFFF
    st[G_RNG_RISK] = game_stream_seed(seed, 1)
    st[G_RNG_DRAW] = game_stream_seed(seed, 2)
    st[G_ROUND] = 1
    side = st[G_SIDE]
    # F16: tiles
    for h in range(N_HEX):
        st[TILE + h] = t[T_B_FIXED + N_HEX * side + h]
    pool = np.zeros(16, np.int64)
    for v in range(1, 6):
        g = 6 * side + v
        npool = t[T_B_POOL_N + g]
        for i in range(npool):
            pool[i] = t[T_B_POOL + 16 * g + i]
        for i in range(npool - 1, 0, -1):
            j = rand_below(st, i + 1)
            a = pool[i]
            pool[i] = pool[j]
            pool[j] = a
        for i in range(t[T_B_GROUP_NHEX + g]):
            st[TILE + t[T_B_GROUP_HEX + 16 * g + i]] = pool[i]
    # F17: asset cards, Portaledge
    n = 0
    for k in range(1, N_KINDS):
        for _ in range(t[T_KIND_COUNT + k]):
            st[DECK + n] = k
            n += 1
    st[G_DECK_N] = n
    shuffle_range(st, DECK, n)
    for a in range(4):
        for _ in range(t[T_SETUP + SETUP_PORTALEDGE]):
            i = st[G_DECK_N] - 1
            while i >= 0 and t[T_KIND_TYPE + st[DECK + i]] != a:
                i -= 1
            k = st[DECK + i]
            for j in range(i, st[G_DECK_N] - 1):
                st[DECK + j] = st[DECK + j + 1]
            st[G_DECK_N] -= 1
            st[PILE + a * PILE_CAP + st[PILE_N + a]] = k
            st[PILE_N + a] += 1
    # F18: the Spread (the last card goes to the bottom, the deck is shuffled)
    for s in range(4):
        st[G_DECK_N] -= 1
        st[SPREAD + s] = st[DECK + st[G_DECK_N]]
        st[SPREAD_LAST] = s
    while spread_single_type(st, t) >= 0:
        last = st[SPREAD_LAST]
        k = st[SPREAD + last]
        for j in range(st[G_DECK_N], 0, -1):
            st[DECK + j] = st[DECK + j - 1]
        st[DECK] = k
        st[G_DECK_N] += 1
        shuffle_range(st, DECK, st[G_DECK_N])
        st[G_DECK_N] -= 1
        st[SPREAD + last] = st[DECK + st[G_DECK_N]]
    # F19: climbing deck, Summit Beta supply
    for i in range(70):
        st[CDECK + i] = i + 1
    shuffle_range(st, CDECK, 70)
    for i in range(12):
        st[SB_SUPPLY + i] = i + 1
    st[G_SB_N] = 12
    shuffle_range(st, SB_SUPPLY, 12)
    # F20: shared objectives
    ids = np.arange(1, 17)
    for i in range(3):
        j = i + rand_below(st, 16 - i)
        a = ids[i]
        ids[i] = ids[j]
        ids[j] = a
        st[G_SHARED + i] = ids[i]
    # F22: characters
    chosen = np.zeros(MAX_PLAYERS, np.int64)
    if characters[0] == 0:
        boards = np.arange(1, 7)
        for i in range(P + 1):
            j = i + rand_below(st, 6 - i)
            a = boards[i]
            boards[i] = boards[j]
            boards[j] = a
        offered = np.zeros(6, np.int64)
        for i in range(P + 1):
            offered[i] = 2 * boards[i] - 1 + rand_below(st, 2)
        for seat in range(P - 1, -1, -1):                        # reverse seat order
            j = rand_below(st, seat + 2)
            chosen[seat] = offered[j]
            offered[j] = offered[seat + 1]
    else:
        for seat in range(P):
            chosen[seat] = characters[seat]
    for seat in range(P):
        base = seat * SEAT_FIELDS
        st[S_CHAR + base] = chosen[seat]
        st[S_WATER + base] = ch(st, t, seat, CH_START_WATER)
        st[S_PSYCH + base] = ch(st, t, seat, CH_START_PSYCH)
    for seat in range(P):
        for _ in range(ch(st, t, seat, CH_START_SB)):
            give_summit_beta(st, seat, draw_summit_beta(st, t))
    # F23: personal objectives
    po = np.arange(1, 13)
    for i in range(12 - 1, 0, -1):
        j = rand_below(st, i + 1)
        a = po[i]
        po[i] = po[j]
        po[j] = a
    for seat in range(P):
        st[S_PERSONAL + seat * SEAT_FIELDS] = po[2 * seat]
        st[S_PERSONAL + seat * SEAT_FIELDS + 1] = po[2 * seat + 1]
    # F20: The Elitist is scored up front
    for i in range(3):
        so = st[G_SHARED + i]
        if t[T_SO + SO_FIELDS * so + SO_KIND] == K_ELITIST:
            st[G_ELITIST_START] = 1
            for seat in range(P):
                score_objective(st, seat, so, t[T_SO + SO_FIELDS * so + SO_POINTS])


@njit_noalloc
def deal_starting_hands(st, t, ag):
    """F24, F120: seats in order take 5/5/6/7/8 cards from the Spread or the deck."""
    for seat in range(n_players(st)):
        draw_cards(st, t, ag, seat, t[T_HAND_BY_SEAT + seat], False)
