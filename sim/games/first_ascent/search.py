"""What a search bot (policies/first_ascent/mcts.py) needs of First Ascent besides the engine:
a fresh hidden world for an imagined game, and an estimate of a position.

Hidden from a seat (F25): the other hands, Summit Beta tokens and personal objectives; and from
everyone: the order of the asset deck, of the Portaledge piles (whose kinds nobody sees), of the
climbing deck and of the Summit Beta supply, the tiles still face down (only their value shows,
F13: any tile of that value's pool that is not showing elsewhere) and the engine's three random
streams. `hide_future` deals all of these again from the searching seat's own stream. It first pools each kind of unknown thing as counts or in a sorted
order, so the world it deals depends only on what the seat may know and on its stream, never on
the real hidden values (tests/first_ascent/test_fa_mcts.py, the no-peeking test).

One exception, argued: when the search decides during another seat's Climb-phase turn (a
technique on that seat's climbing card, say), that seat's hand stays as it is, because the
engine is in the middle of that seat's turn and may hold some of its hand cards committed to a
pitch (attempt_climb keeps its payment across the asks of a climb); dealing that hand again
could take cards the engine then spends. Such decisions are rare and small.
"""
from numba import njit

from sim.core.jit import njit_noalloc
from sim.core.layout import layout
from sim.core.rng import stream_below
from sim.games.first_ascent.data import (
    N_HEX, N_KINDS, N_PERSONAL, N_SB, T_B_GROUP_HEX, T_B_GROUP_NHEX, T_B_POOL, T_B_POOL_N,
    T_KIND_TYPE)
from sim.games.first_ascent.engine.board import hex_face_up
from sim.games.first_ascent.state import (
    CDECK, DECK, G_CDECK_POS, G_DECK_N, G_N_WINNERS, G_OVER, G_PLAYERS, G_RNG, G_RNG_DRAW,
    G_RNG_RISK, G_SB_N, G_SIDE, G_WINNER, HAND, MAX_PLAYERS, PILE, PILE_CAP, PILE_N, SB_SUPPLY,
    SEAT_FIELDS, S_PERSONAL, S_SB, S_SCORE, TILE)

N_CLIMBING_CARDS = 70
LEAD_SCALE = 10.0       # points of lead worth a value of 0.75 (scores run to about 40-70)
# hide_future's working vectors (it runs inside the engine's ask, so it may not allocate)
_HIDE, HIDE_SCRATCH = layout([
    ("pool", N_KINDS), ("of_type", N_KINDS), ("hand_n", MAX_PLAYERS),
    ("sb_pool", N_SB), ("sb_n", MAX_PLAYERS), ("free_po", N_PERSONAL), ("free_tiles", 16)])
H_POOL, H_OF_TYPE, H_HAND_N, H_SB_POOL, H_SB_N, H_FREE_PO, H_FREE_TILES = _HIDE.values()


@njit_noalloc
def _deal_from_counts(pool, kinds_of, stream):
    """One card drawn uniformly from the counts `pool` (restricted to kinds where
    kinds_of[kind] is true); removes it and returns its kind (0 if none is left)."""
    total = 0
    for k in range(1, N_KINDS):
        if kinds_of[k]:
            total += pool[k]
    if total == 0:
        return 0
    r = stream_below(stream, total)
    for k in range(1, N_KINDS):
        if kinds_of[k]:
            if r < pool[k]:
                pool[k] -= 1
                return k
            r -= pool[k]
    return 0


@njit_noalloc
def _shuffle_sorted(st, lo, n, stream):
    """st[lo:lo+n] put in sorted order (forgetting the real one), then shuffled."""
    for i in range(1, n):                       # insertion sort: n is at most 70
        v = st[lo + i]
        j = i - 1
        while j >= 0 and st[lo + j] > v:
            st[lo + j + 1] = st[lo + j]
            j -= 1
        st[lo + j + 1] = v
    for i in range(n - 1, 0, -1):
        j = stream_below(stream, i + 1)
        a = st[lo + i]
        st[lo + i] = st[lo + j]
        st[lo + j] = a


@njit_noalloc
def hide_future(st, t, seat, stream, keep_seat, scratch):
    """Deal again, from `stream`, everything `seat` cannot know (module docstring); the hand of
    `keep_seat` (-1: none) stays. scratch: HIDE_SCRATCH int64, zeroed here."""
    for i in range(HIDE_SCRATCH):
        scratch[i] = 0
    pool = scratch[H_POOL:H_POOL + N_KINDS]
    of_type = scratch[H_OF_TYPE:H_OF_TYPE + N_KINDS]
    hand_n = scratch[H_HAND_N:H_HAND_N + MAX_PLAYERS]
    sb_pool = scratch[H_SB_POOL:H_SB_POOL + N_SB]
    sb_n = scratch[H_SB_N:H_SB_N + MAX_PLAYERS]
    free_po = scratch[H_FREE_PO:H_FREE_PO + N_PERSONAL]
    free = scratch[H_FREE_TILES:H_FREE_TILES + 16]
    players = st[G_PLAYERS]
    # asset cards: the deck, the Portaledge piles and the re-dealt hands are one unknown pool
    n_deck = st[G_DECK_N]
    for i in range(n_deck):
        pool[st[DECK + i]] += 1
    for typ in range(4):
        for i in range(st[PILE_N + typ]):
            pool[st[PILE + typ * PILE_CAP + i]] += 1
    for q in range(players):
        if q != seat and q != keep_seat:
            for k in range(1, N_KINDS):
                hand_n[q] += st[HAND + q * N_KINDS + k]
                pool[k] += st[HAND + q * N_KINDS + k]
                st[HAND + q * N_KINDS + k] = 0
    for typ in range(4):                        # each pile keeps its size and its type
        for k in range(1, N_KINDS):
            of_type[k] = 1 if t[T_KIND_TYPE + k] == typ else 0
        for i in range(st[PILE_N + typ]):
            st[PILE + typ * PILE_CAP + i] = _deal_from_counts(pool, of_type, stream)
    for k in range(1, N_KINDS):
        of_type[k] = 1
    for q in range(players):                    # each hand keeps its size
        for _ in range(hand_n[q]):
            st[HAND + q * N_KINDS + _deal_from_counts(pool, of_type, stream)] += 1
    for i in range(n_deck):                     # the rest, in a random order
        st[DECK + i] = _deal_from_counts(pool, of_type, stream)
    # Summit Beta tokens: the supply and the other seats' tokens (each keeps its count)
    for i in range(st[G_SB_N]):
        sb_pool[st[SB_SUPPLY + i]] = 1
    for q in range(players):
        if q != seat:
            for sb in range(1, N_SB):
                if (st[S_SB + q * SEAT_FIELDS] >> sb) & 1:
                    sb_pool[sb] = 1
                    sb_n[q] += 1
            st[S_SB + q * SEAT_FIELDS] = 0
    n_free = 0
    for sb in range(1, N_SB):
        n_free += sb_pool[sb]
    for q in range(players):
        for _ in range(sb_n[q]):
            r = stream_below(stream, n_free)
            for sb in range(1, N_SB):
                if sb_pool[sb]:
                    if r == 0:
                        sb_pool[sb] = 0
                        st[S_SB + q * SEAT_FIELDS] |= 1 << sb
                        n_free -= 1
                        break
                    r -= 1
    k = 0
    for sb in range(1, N_SB):
        if sb_pool[sb]:
            st[SB_SUPPLY + k] = sb
            k += 1
    _shuffle_sorted(st, SB_SUPPLY, st[G_SB_N], stream)
    # personal objectives: the others' from the ones this seat does not hold (F23)
    for po in range(1, N_PERSONAL):
        free_po[po] = 1
    free_po[st[S_PERSONAL + seat * SEAT_FIELDS]] = 0
    free_po[st[S_PERSONAL + seat * SEAT_FIELDS + 1]] = 0
    free_po[0] = 0
    n_free = 0
    for po in range(1, N_PERSONAL):
        n_free += free_po[po]
    for q in range(players):
        if q == seat:
            continue
        for i in range(2):
            r = stream_below(stream, n_free)
            for po in range(1, N_PERSONAL):
                if free_po[po]:
                    if r == 0:
                        free_po[po] = 0
                        st[S_PERSONAL + q * SEAT_FIELDS + i] = po
                        n_free -= 1
                        break
                    r -= 1
    # the climbing cards not yet drawn
    pos = st[G_CDECK_POS]
    _shuffle_sorted(st, CDECK + pos, N_CLIMBING_CARDS - pos, stream)
    # face-down tiles (F13, F16): each face-down hex of value v gets a tile drawn from value v's
    # pool less the tiles showing anywhere; the pool is the packed table, not the real deal
    side = st[G_SIDE]
    for v in range(1, 6):
        g = 6 * side + v
        n_free = 0
        for i in range(t[T_B_POOL_N + g]):          # the table lists each pool in one order
            tile = t[T_B_POOL + 16 * g + i]
            shown = False
            for h in range(1, N_HEX):
                if st[TILE + h] == tile and hex_face_up(st, t, h):
                    shown = True
                    break
            if not shown:
                free[n_free] = tile
                n_free += 1
        for i in range(t[T_B_GROUP_NHEX + g]):
            h = t[T_B_GROUP_HEX + 16 * g + i]
            if hex_face_up(st, t, h):
                continue
            j = stream_below(stream, n_free)
            st[TILE + h] = free[j]
            n_free -= 1
            free[j] = free[n_free]
    # the engine's own streams
    st[G_RNG] = stream_below(stream, 1 << 32)
    st[G_RNG_RISK] = stream_below(stream, 1 << 32)
    st[G_RNG_DRAW] = stream_below(stream, 1 << 32)


@njit(cache=True)
def evaluate(st, t, values):
    """Each seat's value of the position in [0, 1]: once the game is over 1 for every winner
    (a shared win counts for each, as in the reports) and 0 for the others; before, its score
    over the best other seat's, squashed (0.5 for a tie)."""
    players = st[G_PLAYERS]
    for p in range(values.shape[0]):
        values[p] = 0.0
    if st[G_OVER] != 0:
        for p in range(players):
            if (st[G_WINNER] >> p) & 1 and st[G_N_WINNERS] > 0:
                values[p] = 1.0
        return
    best, runner_up, leader = -1e18, -1e18, -1
    for p in range(players):
        score = float(st[S_SCORE + p * SEAT_FIELDS])
        if score > best:
            best, runner_up, leader = score, best, p
        elif score > runner_up:
            runner_up = score
    for p in range(players):
        lead = float(st[S_SCORE + p * SEAT_FIELDS]) - (runner_up if p == leader else best)
        values[p] = 0.5 + 0.5 * lead / (abs(lead) + LEAD_SCALE)
