"""Ascension's rules as numba functions over one game's state vector (layout: state.py).

Every rule of ../shared/ascension/RULES.md lives here once, cited by its A-number. The batch
kernel and the single-game API both drive `setup` and `apply_action`; bots read the same rule
functions (`pawn_moves`, `place_is_legal`) on their own view of the board (view.py), whose
square blocks share the state's offsets.

The game advances from decision to decision: `apply_action` applies one choice of the current
seat, then `settle` plays every step that needs no choice (a skipped piece phase, a forced
bivouac stay, a block, the turn order of A44) until the next decision or the end.
"""
import numpy as np
from numba import njit

from sim.core.jit import njit_noalloc
from sim.core.rng import mulberry32_step, scale_draw
from sim.games.ascension.rules import (
    C_BIVOUAC_OPTIONAL, C_CORNER_MAY_WAIT, C_CORNER_OF, C_CORNER_PLACE_ANYONE,
    C_CORNER_SAFE_ALWAYS, C_EXTRA_BLOCK_PERMANENT, C_EXTRA_TURNS, C_FLIP_IN_PLACE,
    C_JOKER_ENABLED, C_JOKER_EXTRA_MOVE, C_JOKER_RETIRE, C_LAST_PAWN_WINS, C_MATTRESS_FROM,
    C_MAX_STACK, C_MAX_TURNS, C_N_PLAYERS, C_P_SHAPES, C_P_SYMBOL, C_PARTNERSHIP, C_PAWN_PINS,
    C_PILLAR_BAR_HIDDEN_SPECIAL, C_PILLAR_PIECE_MOVABLE, C_PRIV_RECLAIMABLE, C_PRIV_TRANSFER,
    C_RESERVE_NEUTRAL, C_RESERVE_SHAPED, C_SHAPE_OF, C_SPRING_FULL_TURN, PRIV_EARLIEST, PRIV_NONE)
from sim.games.ascension.state import (
    B_H, B_KNOWN, B_P_SQ, B_P_UP, B_PAWN_ON, B_SHAPES, B_STACK, B_STACK_N, B_SYMBOL, B_VERSION,
    CORNER_BIT, CORNERS, CUBE, END_ALL_ELIMINATED, END_CAP, END_WIN, G_BONUS_PENDING, G_CURRENT,
    G_CURSOR, G_DECISIONS, G_END_REASON, G_EXTRA_CHECK, G_FIRST_SUMMIT_SEAT, G_FIRST_SUMMIT_TURN,
    G_HELD, G_HELD_ORIGIN, G_HELD_WAS_UP, G_JOKER_REMOVALS, G_JOKER_SQ, G_JOKER_STATE, G_N_PLAYERS,
    G_OVER, G_PHASE, G_PIECE_SKIPS, G_PILLAR_RAISES, G_PRIV_DEAD, G_PRIV_LOSSES, G_PRIV_PASSES,
    G_PRIVILEGED, G_REVEALS, G_SEED, G_SEQ, G_STAY_OK, G_TALLEST_STACK, G_TURN_COUNT, G_TURN_KIND,
    G_WINNER, HALF, JOKER_BOARD, JOKER_BOX, JOKER_GONE, JOKER_HAND, JOKER_DECLINE, JOKER_ID,
    MAX_PLAYERS, MAX_STACK_CAP, N_CUBES, N_PIECES, N_SQUARES, NB, ORIGIN_JOKER, ORIGIN_NEUTRAL,
    ORIGIN_SHAPED, P_HEIGHT, P_KIND, PHASE_JOKER, PHASE_ORIGIN, PHASE_PAWN, PHASE_PLACE,
    PHASE_SPRING, PHASE_TURN_END, PILLAR, PILLAR_BASE, RACE_ASCENT, RACE_DESCENT, RACE_SUMMIT,
    S_ACTIVE, S_BIV, S_BLOCKS, S_EVER_SUMMIT, S_LEFT_CORNER, S_LOCK, S_LOST_PRIV, S_PAWN_SQ,
    S_RES_NEUTRAL, S_RES_SHAPED, S_SUMMIT, S_SUMMIT_SEQ, STATE_SIZE, STAY, SYM_BIVOUAC, SYM_CABLE,
    SYM_CHASM, SYM_DRAGON, SYM_LADDER, SYM_MATTRESS, SYM_SPRING, T_BEST_HEIGHT, T_BIVOUAC_STAYS,
    T_BLOCK_ASCENT, T_BLOCK_DESCENT, T_BLOCK_SUMMIT, T_BONUS_TURNS, T_CABLE_RIDES, T_CHASM_DENIALS,
    T_CORNER_WAITS, T_ELIM_RACE, T_ELIM_TURN, T_EXTRA_TURNS, T_FACE_UP_PLACEMENTS,
    T_FIRST_BLOCK_RACE, T_FIRST_SUMMIT_TURN, T_HALF_PLACED, T_JOKER_PLACED, T_LADDER_CLIMBS,
    T_MATTRESS_DROPS, T_PAWN_MOVES, T_PIECE_MOVES, T_PILLAR_RAISES, T_PRIV_GAINED, T_REVEALS_OWN,
    T_SPRING_STEPS, T_SUMMIT_ARRIVALS, T_TURNS, TURN_BONUS, TURN_EXTRA, TURN_NORMAL)

# --- small readers --------------------------------------------------------------------------

@njit_noalloc(inline="always")
def is_corner(s):
    return s == 0 or s == 8 or s == 72 or s == 80


@njit_noalloc(inline="always")
def top_piece(st, s):
    n = st[B_STACK_N + s]
    return st[B_STACK + s * MAX_STACK_CAP + n - 1] if n > 0 else -1


@njit_noalloc(inline="always")
def seat_bit(p):
    return 1 << p


@njit_noalloc(inline="always")
def all_seats_mask():
    return (1 << MAX_PLAYERS) - 1


@njit_noalloc(inline="always")
def shows(t, x, up):
    """(shapes, symbol) that piece x shows when lying with orientation `up` (§1.4, A36)."""
    kind = P_KIND[x]
    if kind == CUBE:
        if up:
            return t[C_P_SHAPES + x], t[C_P_SYMBOL + x]
        return 0, 0
    if kind == HALF:
        return t[C_P_SHAPES + x], 0
    return 0, SYM_DRAGON


@njit_noalloc(inline="always")
def is_drawn(t, x):
    """A cube with a drawn face (shapes or a symbol); neutral cubes have none (§1.3)."""
    return P_KIND[x] == CUBE and (t[C_P_SHAPES + x] != 0 or t[C_P_SYMBOL + x] != 0)


@njit_noalloc
def refresh_square(st, t, s):
    """Recompute the cached shown shapes and symbol of square s from its top (§1.4, D10)."""
    x = top_piece(st, s)
    if x < 0:
        st[B_SHAPES + s] = CORNER_BIT[s]
        st[B_SYMBOL + s] = 0
    else:
        shp, sym = shows(t, x, st[B_P_UP + x])
        st[B_SHAPES + s] = shp
        st[B_SYMBOL + s] = sym


@njit_noalloc
def push_piece(st, t, s, x, up):
    n = st[B_STACK_N + s]
    st[B_STACK + s * MAX_STACK_CAP + n] = x
    st[B_STACK_N + s] = n + 1
    st[B_VERSION + s] += 1
    st[B_H + s] += P_HEIGHT[x]
    st[B_P_SQ + x] = s
    st[B_P_UP + x] = up
    refresh_square(st, t, s)


@njit_noalloc
def pop_piece(st, t, s):
    n = st[B_STACK_N + s] - 1
    x = st[B_STACK + s * MAX_STACK_CAP + n]
    st[B_STACK + s * MAX_STACK_CAP + n] = -1
    st[B_STACK_N + s] = n
    st[B_VERSION + s] += 1
    st[B_H + s] -= P_HEIGHT[x]
    refresh_square(st, t, s)
    return x


@njit_noalloc(inline="always")
def is_partner(t, p, q):
    return t[C_PARTNERSHIP] != 0 and (p & 1) == (q & 1)


@njit_noalloc
def next_active_after(st, s):
    """A53: the first active seat among s+1, ..., s+N (mod N); s itself last. -1 if none."""
    n = st[G_N_PLAYERS]
    for k in range(1, n + 1):
        q = (s + k) % n
        if st[S_ACTIVE + q]:
            return q
    return -1


@njit_noalloc
def race_phase(st, p):
    """Where a pawn is in its race, for block statistics: ascent, on the summit, descent."""
    if st[S_PAWN_SQ + p] == PILLAR:
        return RACE_SUMMIT
    return RACE_DESCENT if st[S_SUMMIT + p] else RACE_ASCENT


# --- placement (A12-A27, A55-A56, A59) --------------------------------------------------------

@njit_noalloc
def destination_open(b, t, p, d):
    """The checks of A21-A24 that do not depend on the piece: no pawn (A21), the stack cap
    (A24, A55; the pillar has its own limit in A27), no joker on top (A22), and the shape gate
    (A23, with D10's bare corner and the corner_place_anyone switch). `b` is a state or a view."""
    if t[C_PAWN_PINS] and b[B_PAWN_ON + d] >= 0:
        return False
    if d != PILLAR and b[B_STACK_N + d] >= t[C_MAX_STACK]:
        return False
    if b[B_SYMBOL + d] == SYM_DRAGON:                      # A22: only the joker shows a dragon
        return False
    g = b[B_SHAPES + d]
    if t[C_CORNER_PLACE_ANYONE] and is_corner(d) and b[B_STACK_N + d] == 0:
        g = 0
    if g != 0 and (g & t[C_SHAPE_OF + p]) == 0:
        return False
    return True


@njit_noalloc
def place_is_legal(b, t, p, shp, sym, d):
    """A20-A27 for a piece that shows (shp, sym) as placed, on destination d (the origin test
    of A20/A56 is the caller's). The state must already have the piece lifted (A56)."""
    return destination_open(b, t, p, d) and shown_piece_fits(b, shp, sym, d)


@njit_noalloc
def shown_piece_fits(b, shp, sym, d):
    """A25-A27, the checks of a placement that depend on what the piece shows as placed."""
    if is_corner(d) and (shp & CORNER_BIT[d]) == 0:        # A25, A26
        return False
    if d == PILLAR and (b[B_STACK_N + d] > 0 or shp != 0 or sym != 0):   # A27
        return False
    return True


@njit_noalloc
def orientation_is_legal(t, x, up, was_up):
    """A16: may held piece x go down with orientation `up` (its former one: was_up)?"""
    if P_KIND[x] == CUBE:
        if not is_drawn(t, x) and up:                      # a neutral cube has no face
            return False
        if was_up and up:                                  # a shown face is hidden again
            return False
        return True
    return up != 0                                         # halves and the joker lie face up


@njit_noalloc
def _held_piece_place_is_legal(st, t, x, up, shp, sym, d, origin, was_up):
    """held_destinations' placement test of held piece x (lifted, A56) at d, the part left
    once orientation_is_legal holds for `up` and destination_open for d (it tests neither):
    A20 and A56's turn-over, A25-A27 for what it shows (shp, sym), and A59."""
    if d == origin:                                        # A20; A56: a real turn-over only
        if not t[C_FLIP_IN_PLACE] or P_KIND[x] != CUBE or not is_drawn(t, x) or \
                up == was_up:
            return False
    if not shown_piece_fits(st, shp, sym, d):
        return False
    if d == PILLAR and P_KIND[x] == CUBE and not up and hidden_face_barred_from_pillar(t, x):
        return False
    return True


@njit_noalloc
def hidden_face_barred_from_pillar(t, x):
    """A59 (bar): cube x may not go face down on the pillar, its true face being a symbol. So
    under bar every seat knows that a face-down cube on the pillar shows no symbol when turned
    up (the pillar starts bare, A2, and a cube that stays put, A59, was already there); the
    search's sampler deals by this."""
    return t[C_PILLAR_BAR_HIDDEN_SPECIAL] != 0 and t[C_P_SYMBOL + x] != 0


@njit_noalloc
def held_destinations(st, t, p, x, origin, was_up, out, first_only=False):
    """Legal (destination, orientation) codes 2*d + up for held piece x, increasing (A17).
    With first_only, returns 1 at the first one without writing `out`. What depends on the
    orientation alone (A16, what the piece shows) is read once, and what on the square
    alone (destination_open) once a square."""
    down_ok = orientation_is_legal(t, x, 0, was_up)
    up_ok = orientation_is_legal(t, x, 1, was_up)
    shp_down, sym_down = shows(t, x, 0)
    shp_up, sym_up = shows(t, x, 1)
    n = 0
    for d in range(N_SQUARES):
        if not destination_open(st, t, p, d):              # A21-A24
            continue
        # the two orientations written out: a loop over them measured 1-2% slower games
        if down_ok and _held_piece_place_is_legal(st, t, x, 0, shp_down, sym_down, d, origin,
                                                 was_up):
            if first_only:
                return 1
            out[n] = 2 * d
            n += 1
        if up_ok and _held_piece_place_is_legal(st, t, x, 1, shp_up, sym_up, d, origin,
                                               was_up):
            if first_only:
                return 1
            out[n] = 2 * d + 1
            n += 1
    return n


@njit_noalloc(inline="always")
def square_top_may_move(t, s):
    """A12(e): the pillar's top piece stays put unless the switch pillar_piece_movable is on."""
    return s != PILLAR or t[C_PILLAR_PIECE_MOVABLE] != 0


assert N_PIECES <= 128                  # locked_by_others: a piece id is a bit of two words


@njit_noalloc(inline="always")
def lock_against(st, t, p, q):
    """A12(d): the piece seat q's lock keeps seat p from moving (an active other seat's, not a
    partner's); -1 if none."""
    x = st[S_LOCK + q]
    if x >= 0 and q != p and st[S_ACTIVE + q] and not is_partner(t, p, q):
        return x
    return -1


@njit_noalloc
def locked_by_others(st, t, p):
    """A12(d): the pieces that other seats' locks keep seat p from moving (lock_against), as a
    set of piece ids: the bits of two words, ids 0-63 and 64 on. Read once for a sweep over
    the squares (top_is_movable), not once a square."""
    low = 0
    high = 0
    for q in range(st[G_N_PLAYERS]):
        x = lock_against(st, t, p, q)
        if 0 <= x < 64:
            low |= 1 << x
        elif x >= 64:
            high |= 1 << (x - 64)
    return low, high


@njit_noalloc
def top_is_movable(st, t, s, locked_low, locked_high):
    """A12: may a seat move the top piece of square s? `locked_low`, `locked_high`: that seat's
    locked_by_others."""
    x = top_piece(st, s)
    if x < 0 or x == JOKER_ID:                             # (a) a top exists; (c) not the joker
        return False
    if t[C_PAWN_PINS] and st[B_PAWN_ON + s] >= 0:          # (b)
        return False
    if not square_top_may_move(t, s):                      # (e)
        return False
    locked = locked_low >> x if x < 64 else locked_high >> (x - 64)
    return locked & 1 == 0                                 # (d) other seats' locks


@njit_noalloc
def _plain_open(st, t, p, d):
    """A plain piece (face down or neutral) may go on d: open, not a corner, and the pillar only
    when bare (A25, A27; A59's hidden faces are ignored for pickability)."""
    if is_corner(d):
        return False
    if d == PILLAR and st[B_STACK_N + d] > 0:
        return False
    return destination_open(st, t, p, d)


@njit_noalloc
def _shown_open(st, t, p, d, shp):
    """A piece showing shapes `shp` or a symbol may go on d (A25, A27)."""
    if d == PILLAR:
        return False
    if is_corner(d) and (shp & CORNER_BIT[d]) == 0:
        return False
    return destination_open(st, t, p, d)


@njit_noalloc
def origin_is_pickable(st, t, p, origin):
    """A14: the origin has a legal destination in its default orientation (cubes face down),
    so pickability never depends on hidden faces."""
    if origin < N_SQUARES:
        x = top_piece(st, origin)
        if t[C_FLIP_IN_PLACE] and P_KIND[x] == CUBE and st[B_P_UP + x]:
            # A56: a face-up cube may be turned face down on its own square; test it lifted.
            pop_piece(st, t, origin)
            ok = _plain_open(st, t, p, origin)
            push_piece(st, t, origin, x, 1)
            if ok:
                return True
        if P_KIND[x] == HALF and t[C_P_SHAPES + x] != 0:
            shp = t[C_P_SHAPES + x]
            for d in range(N_SQUARES):
                if d != origin and _shown_open(st, t, p, d, shp):
                    return True
            return False
        for d in range(N_SQUARES):
            if d != origin and _plain_open(st, t, p, d):
                return True
        return False
    if origin == ORIGIN_NEUTRAL:
        for d in range(N_SQUARES):
            if _plain_open(st, t, p, d):
                return True
        return False
    shp = t[C_SHAPE_OF + p] if origin == ORIGIN_SHAPED else 0
    for d in range(N_SQUARES):
        if _shown_open(st, t, p, d, shp):
            return True
    return False


@njit_noalloc
def pickable_origins(st, t, p, out, first_only=False):
    """A12-A14: the origins seat p may pick, increasing; returns how many.

    A plain piece is pickable iff some other square is open to plain pieces, so the open
    squares are counted once (not once per origin), and kept as bits for the test of the
    origin's own square (but with first_only, whose count may stop early): this is the hot
    path of every turn."""
    n_plain = 0
    n_shown = 0                      # open to a non-corner shown piece (symbol or foreign shape)
    plain_low = 0                    # the squares open to a plain piece (_plain_open), as bits
    plain_high = 0                   # of two words (squares 0-63, 64-80), read by the origins
    for d in range(N_SQUARES):
        if is_corner(d):
            continue
        if destination_open(st, t, p, d):
            if d != PILLAR:
                n_shown += 1
            if d != PILLAR or st[B_STACK_N + d] == 0:
                n_plain += 1
                if d < 64:
                    plain_low |= 1 << d
                else:
                    plain_high |= 1 << (d - 64)
        if first_only and n_plain >= 2:
            # whether one origin is pickable reads the counts only as "n_plain less one square
            # > 0" and "n_shown > 0", and two open squares (one not the pillar) settle both
            break
    n = 0
    locked_low, locked_high = locked_by_others(st, t, p)
    for s in range(N_SQUARES):
        if not top_is_movable(st, t, s, locked_low, locked_high):
            continue
        x = top_piece(st, s)
        ok = False
        if (P_KIND[x] == HALF and t[C_P_SHAPES + x] != 0) or \
                (t[C_FLIP_IN_PLACE] and st[B_P_UP + x]):
            ok = origin_is_pickable(st, t, p, s)
        else:
            if first_only:
                # the sweep above stopped early, so its bits may not reach s
                own = 1 if _plain_open(st, t, p, s) else 0
            else:
                own = (plain_low >> s if s < 64 else plain_high >> (s - 64)) & 1
            ok = n_plain - own > 0
        if ok:
            if first_only:
                return 1
            out[n] = s
            n += 1
    if st[S_RES_SHAPED + p] > 0 and origin_is_pickable(st, t, p, ORIGIN_SHAPED):   # A13
        if first_only:
            return 1
        out[n] = ORIGIN_SHAPED
        n += 1
    if st[S_RES_NEUTRAL + p] > 0 and n_plain > 0:
        if first_only:
            return 1
        out[n] = ORIGIN_NEUTRAL
        n += 1
    # A13, A41, A43 (in any later turn: the arrival turn's piece phase is over when the joker
    # reaches the hand). A57/D26: with joker_extra_move the joker is placed only straight after the
    # ordinary piece move (PHASE_JOKER), "never before it": it is then not an origin.
    if st[G_PRIVILEGED] == p and st[G_JOKER_STATE] == JOKER_HAND and n_shown > 0 \
            and not t[C_JOKER_EXTRA_MOVE]:
        if first_only:
            return 1
        out[n] = ORIGIN_JOKER
        n += 1
    return n


# --- pawn moves (A28-A32, A51) ---------------------------------------------------------------

@njit_noalloc
def step_is_legal(b, t, p, s, d):
    """A29-A30 for a step of seat p's pawn from s to a neighbour d (b: a state or a view)."""
    if b[B_PAWN_ON + d] >= 0:                                   # (a)
        return False
    if is_corner(d) and d != t[C_CORNER_OF + p]:                # (b)
        return False
    sym_d = b[B_SYMBOL + d]
    if sym_d == SYM_CHASM:                                      # (c)
        return False
    g = b[B_SHAPES + d]
    if g != 0 and (g & t[C_SHAPE_OF + p]) == 0:                 # (d)
        return False
    delta = b[B_H + d] - b[B_H + s]                             # (e) A30
    sym_s = b[B_SYMBOL + s]
    up = 2 if sym_s == SYM_LADDER else 1
    down = 1
    if t[C_MATTRESS_FROM]:
        if sym_s == SYM_MATTRESS:
            down = 2
    elif sym_d == SYM_MATTRESS:
        down = 2
    return -down <= delta <= up


@njit_noalloc
def pawn_moves(b, t, p, s, out):
    """A32: the legal pawn moves of seat p's pawn on s (steps A29, then cable rides A31/A51),
    increasing. Returns how many. `b` is a state or a view (same square offsets)."""
    n = 0
    for k in range(8):
        d = NB[s, k]
        if d < 0:
            break
        if step_is_legal(b, t, p, s, d):
            out[n] = d
            n += 1
    if b[B_SYMBOL + s] == SYM_CABLE:                            # A31, A51
        for d in range(N_SQUARES):
            if d != s and b[B_SYMBOL + d] == SYM_CABLE and b[B_PAWN_ON + d] < 0:
                seen = False
                for i in range(n):
                    if out[i] == d:
                        seen = True
                if not seen:
                    j = n                                       # keep the list increasing
                    while j > 0 and out[j - 1] > d:
                        out[j] = out[j - 1]
                        j -= 1
                    out[j] = d
                    n += 1
    return n


@njit_noalloc
def count_pawn_moves(b, t, p, s):
    """How many legal moves (A32) the pawn on s has; used by blocks (A38) and by bots.
    pawn_moves lists the same set; this loop is kept apart because the blocking bots call it
    thousands of times a turn and a count needs no output array."""
    n = 0
    for k in range(8):
        d = NB[s, k]
        if d < 0:
            break
        if step_is_legal(b, t, p, s, d):
            n += 1
    if b[B_SYMBOL + s] == SYM_CABLE:
        for d in range(N_SQUARES):
            if d != s and b[B_SYMBOL + d] == SYM_CABLE and b[B_PAWN_ON + d] < 0:
                counted = False                     # already counted as a legal step
                for k in range(8):
                    if NB[s, k] == d:
                        counted = step_is_legal(b, t, p, s, d)
                if not counted:
                    n += 1
    return n


@njit_noalloc
def protected_on_corner(st, t, p):
    """A39 (switch corner_safe_always, D12): the own corner keeps the pawn from a block."""
    if st[S_PAWN_SQ + p] != t[C_CORNER_OF + p]:
        return False
    return t[C_CORNER_SAFE_ALWAYS] != 0 or st[S_LEFT_CORNER + p] == 0


# --- setup (A1-A8) -----------------------------------------------------------------------------

# the squares A3 deals the cubes onto, in order: every square but the corners and the pillar
FREE_SQUARES = np.array([s for s in range(N_SQUARES) if s not in CORNERS and s != PILLAR],
                        np.int64)
assert FREE_SQUARES.shape[0] == N_CUBES


@njit_noalloc
def setup(st, t, seed):
    """A fresh game from its seed; plays on to the first decision. The only chance in the game
    is A3's permutation: a Fisher-Yates shuffle driven by mulberry32(seed), i = 75 .. 1,
    j = floor(u * (i + 1))."""
    n_players = t[C_N_PLAYERS]
    st[:] = 0
    st[B_STACK:B_STACK + N_SQUARES * MAX_STACK_CAP] = -1
    st[B_PAWN_ON:B_PAWN_ON + N_SQUARES] = -1
    st[G_N_PLAYERS] = n_players
    st[G_SEED] = seed
    st[G_PRIVILEGED] = -1                                       # A5
    st[G_JOKER_STATE] = JOKER_BOX if t[C_JOKER_ENABLED] else JOKER_GONE
    st[G_JOKER_SQ] = -1
    st[G_WINNER] = -1
    st[G_HELD] = -1
    st[G_HELD_ORIGIN] = -1
    st[G_EXTRA_CHECK] = -1
    st[G_FIRST_SUMMIT_SEAT] = -1
    st[G_FIRST_SUMMIT_TURN] = -1
    for s in range(N_SQUARES):
        refresh_square(st, t, s)
    st[B_H + PILLAR] = PILLAR_BASE                              # A2
    # A3: a uniformly random permutation of the 76 cubes onto the free squares, face down. The
    # permutation is shuffled where it is dealt, in the free squares' bottom slots (cube f in
    # the f-th free square's to begin with): no array of its own, so nothing to allocate
    for f in range(N_CUBES):
        st[B_STACK + FREE_SQUARES[f] * MAX_STACK_CAP] = f
    rng = seed & 0xFFFFFFFF
    for i in range(N_CUBES - 1, 0, -1):
        rng, k = mulberry32_step(rng)
        j = scale_draw(k, i + 1)
        a = B_STACK + FREE_SQUARES[i] * MAX_STACK_CAP
        b = B_STACK + FREE_SQUARES[j] * MAX_STACK_CAP
        st[a], st[b] = st[b], st[a]
    for f in range(N_CUBES):
        s = FREE_SQUARES[f]
        x = st[B_STACK + s * MAX_STACK_CAP]
        st[B_STACK + s * MAX_STACK_CAP] = -1
        push_piece(st, t, s, x, 0)
    for x in range(N_PIECES):
        if P_KIND[x] != CUBE:
            st[B_KNOWN + x] = all_seats_mask()                  # §1.4: halves are public
            st[B_P_UP + x] = 1
            st[B_P_SQ + x] = -2                                 # out of play unless dealt (A4)
    for p in range(MAX_PLAYERS):
        st[S_LOCK + p] = -1                                     # A7
        st[S_PAWN_SQ + p] = -1
        st[S_SUMMIT_SEQ + p] = -1
        st[T_FIRST_SUMMIT_TURN + p] = -1
        st[T_ELIM_RACE + p] = -1
        st[T_ELIM_TURN + p] = -1
        st[T_FIRST_BLOCK_RACE + p] = -1
    for p in range(n_players):
        corner = t[C_CORNER_OF + p]
        group = reserve_group(t, p)
        st[S_ACTIVE + p] = 1
        st[S_PAWN_SQ + p] = corner                              # A6
        st[B_PAWN_ON + corner] = p
        st[S_RES_SHAPED + p] = t[C_RESERVE_SHAPED]              # A4 and the reserve knobs
        st[S_RES_NEUTRAL + p] = t[C_RESERVE_NEUTRAL]
        for j in range(t[C_RESERVE_SHAPED]):
            st[B_P_SQ + group + j] = -1
        for j in range(t[C_RESERVE_NEUTRAL]):
            st[B_P_SQ + group + 2 + j] = -1
    st[G_CURSOR] = n_players - 1                                # A8
    st[G_PHASE] = PHASE_TURN_END
    settle(st, t)


# --- the turn (A9-A11), blocks (A38-A39), summit and privileges (A40-A44, A49, A54) -----------

@njit_noalloc
def end_game(st, winner, reason):
    st[G_OVER] = 1
    st[G_WINNER] = winner
    st[G_END_REASON] = reason


@njit_noalloc
def begin_turn(st, t, p, kind):
    """A10: the cap check, then the turn counter; then the piece phase, or A14's skip."""
    if st[G_TURN_COUNT] == t[C_MAX_TURNS]:                     # A10, A47
        end_game(st, -1, END_CAP)
        return
    st[G_TURN_COUNT] += 1
    st[G_CURRENT] = p
    st[G_TURN_KIND] = kind
    st[T_TURNS + p] += 1
    if kind == TURN_EXTRA:
        st[T_EXTRA_TURNS + p] += 1
    elif kind == TURN_BONUS:
        st[T_BONUS_TURNS + p] += 1
    if has_pickable_origin(st, t, p):
        st[G_PHASE] = PHASE_ORIGIN
    else:                                                       # A14, A58
        st[S_LOCK + p] = -1
        st[G_PIECE_SKIPS] += 1
        enter_pawn_phase(st, t, p)


@njit_noalloc
def has_pickable_origin(st, t, p):
    return pickable_origins(st, t, p, st[:0], True) > 0   # first_only never writes `out`


@njit_noalloc
def enter_pawn_phase(st, t, p):
    """A28, A35, A38, A39: the pawn moves, stays, or is blocked."""
    s = st[S_PAWN_SQ + p]
    if st[S_BIV + p]:                                           # A35
        st[S_BIV + p] = 0
        if t[C_BIVOUAC_OPTIONAL] and count_pawn_moves(st, t, p, s) > 0:
            st[G_STAY_OK] = 1                                   # D23: move or stay
            st[G_PHASE] = PHASE_PAWN
        else:
            st[T_BIVOUAC_STAYS + p] += 1
            st[G_PHASE] = PHASE_TURN_END
        return
    _tally_chasm_denials(st, t, p, s)
    if count_pawn_moves(st, t, p, s) == 0:
        if protected_on_corner(st, t, p):                      # A39
            st[G_PHASE] = PHASE_TURN_END
        else:
            block(st, t, p)                                     # A38
            st[G_PHASE] = PHASE_TURN_END                        # A11: the turn ends here
        return
    st[G_STAY_OK] = 1 if (t[C_CORNER_MAY_WAIT] and s == t[C_CORNER_OF + p]) else 0   # D13
    st[G_PHASE] = PHASE_PAWN


@njit_noalloc
def _tally_chasm_denials(st, t, p, s):
    """Statistics only: neighbours a shown chasm keeps the pawn from, i.e. steps A29 would
    allow but for the chasm (§6 Q5)."""
    for k in range(8):
        d = NB[s, k]
        if d < 0:
            break
        if st[B_SYMBOL + d] == SYM_CHASM:
            st[B_SYMBOL + d] = 0                                # as if it showed nothing
            if step_is_legal(st, t, p, s, d):
                st[T_CHASM_DENIALS + p] += 1
            st[B_SYMBOL + d] = SYM_CHASM


@njit_noalloc
def block(st, t, p):
    """A38: a block; A42 when the privileged seat is blocked; elimination at the second."""
    race = race_phase(st, p)
    if st[S_BLOCKS + p] == 0:
        st[T_FIRST_BLOCK_RACE + p] = race
    if race == RACE_ASCENT:
        st[T_BLOCK_ASCENT + p] += 1
    elif race == RACE_SUMMIT:
        st[T_BLOCK_SUMMIT + p] += 1
    else:
        st[T_BLOCK_DESCENT + p] += 1
    st[S_BLOCKS + p] += 1                                       # 1.
    st[S_BIV + p] = 0
    if st[S_SUMMIT + p]:                                        # 2. (D15)
        st[S_SUMMIT + p] = 0
        if st[G_PRIVILEGED] == p:
            lose_privileges(st, t, p)
    s = st[S_PAWN_SQ + p]
    if st[S_BLOCKS + p] >= 2:                                   # 3. elimination
        st[S_ACTIVE + p] = 0
        st[B_PAWN_ON + s] = -1
        st[S_PAWN_SQ + p] = -1
        st[S_LOCK + p] = -1
        st[T_ELIM_RACE + p] = race
        st[T_ELIM_TURN + p] = st[G_TURN_COUNT]
        if t[C_LAST_PAWN_WINS] and st[G_N_PLAYERS] > 1:         # D32 switch
            left = 0
            last = -1
            for q in range(st[G_N_PLAYERS]):
                if st[S_ACTIVE + q]:
                    left += 1
                    last = q
            if left == 1:
                end_game(st, last, END_WIN)
        return
    corner = t[C_CORNER_OF + p]                                 # 4. back to the own corner
    if s != corner:
        st[B_PAWN_ON + s] = -1
        st[B_PAWN_ON + corner] = p
        st[S_PAWN_SQ + p] = corner


@njit_noalloc
def remove_joker_from_board(st, t):
    """A42 step 2, A49: the joker comes off; a pawn on it stays, 1 hu lower (A37, A50)."""
    s = st[G_JOKER_SQ]
    x = pop_piece(st, t, s)
    st[B_P_SQ + x] = -2
    st[G_JOKER_SQ] = -1
    st[G_JOKER_REMOVALS] += 1
    for q in range(MAX_PLAYERS):
        if st[S_LOCK + q] == JOKER_ID:                          # A12(d), A49
            st[S_LOCK + q] = -1


@njit_noalloc
def lose_privileges(st, t, f):
    """A42: the privileged seat f loses the extra turns and the joker; a new holder by
    privilege_transfer (D29)."""
    st[G_PRIV_LOSSES] += 1
    if st[G_JOKER_STATE] == JOKER_BOARD:
        remove_joker_from_board(st, t)
    if st[G_JOKER_STATE] != JOKER_GONE:
        st[G_JOKER_STATE] = JOKER_GONE if t[C_JOKER_RETIRE] else JOKER_BOX
    st[S_LOST_PRIV + f] = 1
    st[G_PRIVILEGED] = -1
    mode = t[C_PRIV_TRANSFER]
    if mode == PRIV_NONE:
        st[G_PRIV_DEAD] = 1
    elif mode == PRIV_EARLIEST:
        best = -1
        for q in range(st[G_N_PLAYERS]):
            if not st[S_ACTIVE + q] or not st[S_SUMMIT + q]:
                continue
            if not t[C_PRIV_RECLAIMABLE] and st[S_LOST_PRIV + q]:
                continue
            if best < 0 or st[S_SUMMIT_SEQ + q] < st[S_SUMMIT_SEQ + best]:
                best = q
        if best >= 0:
            st[G_PRIV_PASSES] += 1
            grant_privileges(st, best)


@njit_noalloc
def grant_privileges(st, q):
    st[G_PRIVILEGED] = q
    st[T_PRIV_GAINED + q] += 1
    if st[G_JOKER_STATE] == JOKER_BOX:
        st[G_JOKER_STATE] = JOKER_HAND


@njit_noalloc
def summit_arrival(st, t, p):
    """A40."""
    st[S_SUMMIT + p] = 1
    st[S_EVER_SUMMIT + p] = 1
    st[S_SUMMIT_SEQ + p] = st[G_SEQ]
    st[G_SEQ] += 1
    st[T_SUMMIT_ARRIVALS + p] += 1
    if st[T_FIRST_SUMMIT_TURN + p] < 0:
        st[T_FIRST_SUMMIT_TURN + p] = st[G_TURN_COUNT]
    if st[G_FIRST_SUMMIT_SEAT] < 0:
        st[G_FIRST_SUMMIT_SEAT] = p
        st[G_FIRST_SUMMIT_TURN] = st[G_TURN_COUNT]
    if st[G_PRIVILEGED] == -1 and not st[G_PRIV_DEAD] and \
            (t[C_PRIV_RECLAIMABLE] or not st[S_LOST_PRIV + p]):
        grant_privileges(st, p)


@njit_noalloc
def move_pawn(st, t, p, d, main):
    """Move seat p's pawn to d and land (A33). Returns True if the spring step of A34 is open."""
    s = st[S_PAWN_SQ + p]
    delta = st[B_H + d] - st[B_H + s]
    adjacent = False
    for k in range(8):
        if NB[s, k] == d:
            adjacent = True
    if not adjacent or (st[B_SYMBOL + s] == SYM_CABLE and st[B_SYMBOL + d] == SYM_CABLE
                        and not step_is_legal(st, t, p, s, d)):
        st[T_CABLE_RIDES + p] += 1
    elif delta == 2:
        st[T_LADDER_CLIMBS + p] += 1
    elif delta == -2:
        st[T_MATTRESS_DROPS + p] += 1
    st[T_PAWN_MOVES + p] += 1
    if s == t[C_CORNER_OF + p]:
        st[S_LEFT_CORNER + p] = 1                               # A39 switch
    st[B_PAWN_ON + s] = -1
    st[B_PAWN_ON + d] = p
    st[S_PAWN_SQ + p] = d                                       # A33 step 1
    if st[B_H + d] > st[T_BEST_HEIGHT + p]:
        st[T_BEST_HEIGHT + p] = st[B_H + d]
    if d == PILLAR and not st[S_SUMMIT + p]:                    # 2. A40
        summit_arrival(st, t, p)
    if d == t[C_CORNER_OF + p] and st[S_SUMMIT + p]:            # 3. A45
        end_game(st, p, END_WIN)                                # A11: nothing after
        return False
    sym = st[B_SYMBOL + d]
    if sym == SYM_BIVOUAC:                                      # 4. A35
        st[S_BIV + p] = 1
    if sym == SYM_SPRING and main:                              # 5. A34
        if t[C_SPRING_FULL_TURN]:
            if st[G_TURN_KIND] != TURN_BONUS:                   # D21: a bonus earns no bonus
                st[G_BONUS_PENDING] = 1
            return False
        return count_pawn_moves(st, t, p, d) > 0
    return False


@njit_noalloc
def settle(st, t):
    """Play the turn order (A44, A53, A54) until a decision is pending or the game is over."""
    while st[G_OVER] == 0 and st[G_PHASE] == PHASE_TURN_END:
        st[G_STAY_OK] = 0
        if st[G_BONUS_PENDING]:                                 # D21 full_turn: before A44
            st[G_BONUS_PENDING] = 0
            begin_turn(st, t, st[G_CURRENT], TURN_BONUS)
            continue
        x = st[G_EXTRA_CHECK]
        if x >= 0:                                              # A44 after a normal turn of x
            st[G_EXTRA_CHECK] = -1
            f = st[G_PRIVILEGED]
            if t[C_EXTRA_TURNS] and f >= 0 and f != x and st[S_ACTIVE + f]:
                suppress = st[S_EVER_SUMMIT + x] if t[C_EXTRA_BLOCK_PERMANENT] \
                    else st[S_SUMMIT + x]
                if not suppress and next_active_after(st, x) != f:
                    begin_turn(st, t, f, TURN_EXTRA)
                    continue
        x = next_active_after(st, st[G_CURSOR])
        if x < 0:                                               # A46
            end_game(st, -1, END_ALL_ELIMINATED)
            return
        st[G_CURSOR] = x
        st[G_EXTRA_CHECK] = x
        begin_turn(st, t, x, TURN_NORMAL)


# --- decisions ------------------------------------------------------------------------------

@njit_noalloc
def legal_actions(st, t, out):
    """The current seat's legal choices for the pending decision, increasing; returns how many."""
    p = st[G_CURRENT]
    phase = st[G_PHASE]
    if phase == PHASE_ORIGIN:
        return pickable_origins(st, t, p, out)
    if phase == PHASE_PLACE:
        return held_destinations(st, t, p, st[G_HELD], st[G_HELD_ORIGIN], st[G_HELD_WAS_UP], out)
    if phase == PHASE_JOKER:
        n = held_destinations(st, t, p, JOKER_ID, -1, 1, out)
        out[n] = JOKER_DECLINE                                  # after every placement code
        return n + 1
    n = pawn_moves(st, t, p, st[S_PAWN_SQ + p], out)
    if phase == PHASE_SPRING or st[G_STAY_OK]:
        out[n] = STAY
        n += 1
    return n


@njit_noalloc
def pick(st, t, p, origin):
    """A15: commit to an origin; a cube's face becomes known to the mover. The piece is lifted
    so that A20-A27 are tested without it (A56)."""
    if origin < N_SQUARES:
        x = pop_piece(st, t, origin)
        st[G_HELD_WAS_UP] = st[B_P_UP + x]
        st[G_HELD_ORIGIN] = origin
    else:
        st[G_HELD_ORIGIN] = -1
        st[G_HELD_WAS_UP] = 1
        if origin == ORIGIN_JOKER:
            x = JOKER_ID
        else:
            group = reserve_group(t, p)
            first = group if origin == ORIGIN_SHAPED else group + 2
            x = first if st[B_P_SQ + first] == -1 else first + 1
    if P_KIND[x] == CUBE:
        st[B_KNOWN + x] |= seat_bit(p)
    st[G_HELD] = x
    return x


@njit_noalloc(inline="always")
def corner_index(corner):
    """Which corner (0-3, clockwise from top left) a corner square is."""
    if corner == 0:
        return 0
    if corner == 8:
        return 1
    if corner == 80:
        return 2
    return 3


@njit_noalloc(inline="always")
def reserve_group(t, p):
    """The first id of seat p's four reserve half-cubes (A4): the two of its shape, then the
    two neutral ones; group k is the k-th corner's (state.py's piece table)."""
    return N_CUBES + 4 * corner_index(t[C_CORNER_OF + p])


@njit_noalloc
def place(st, t, p, x, d, up):
    """A17: put the held piece on d; lock it; reveal it if face up."""
    origin = st[G_HELD_ORIGIN]
    push_piece(st, t, d, x, up)
    st[G_HELD] = -1
    st[T_PIECE_MOVES + p] += 1
    if P_KIND[x] == CUBE and up:
        st[B_KNOWN + x] = all_seats_mask()
        st[T_FACE_UP_PLACEMENTS + p] += 1
        sym = t[C_P_SYMBOL + x]
        if sym != 0:
            st[G_REVEALS + sym] += 1
            st[T_REVEALS_OWN + p] += 1
    if origin < 0:
        if x == JOKER_ID:
            st[G_JOKER_STATE] = JOKER_BOARD
            st[G_JOKER_SQ] = d
            st[T_JOKER_PLACED + p] += 1
        elif t[C_P_SHAPES + x] != 0:
            st[S_RES_SHAPED + p] -= 1
            st[T_HALF_PLACED + p] += 1
        else:
            st[S_RES_NEUTRAL + p] -= 1
            st[T_HALF_PLACED + p] += 1
    if d == PILLAR:
        st[G_PILLAR_RAISES] += 1
        st[T_PILLAR_RAISES + p] += 1
    if st[B_STACK_N + d] > st[G_TALLEST_STACK]:
        st[G_TALLEST_STACK] = st[B_STACK_N + d]


@njit_noalloc
def apply_action(st, t, action):
    """Apply the current seat's choice (one of legal_actions), then settle."""
    p = st[G_CURRENT]
    phase = st[G_PHASE]
    st[G_DECISIONS] += 1
    if phase == PHASE_ORIGIN:
        x = pick(st, t, p, action)
        if held_destinations(st, t, p, x, st[G_HELD_ORIGIN], st[G_HELD_WAS_UP], st[:0],
                             True) == 0:
            # A59: a cube picked for a barred pillar with nowhere else to go stays put (A58)
            if st[G_HELD_ORIGIN] >= 0:
                push_piece(st, t, st[G_HELD_ORIGIN], x, st[G_HELD_WAS_UP])
            st[G_HELD] = -1
            st[S_LOCK + p] = -1
            st[G_PIECE_SKIPS] += 1
            enter_pawn_phase(st, t, p)
        else:
            st[G_PHASE] = PHASE_PLACE
    elif phase == PHASE_PLACE:
        x = st[G_HELD]
        place(st, t, p, x, action >> 1, action & 1)
        st[S_LOCK + p] = x                                      # A17, A12(d)
        if t[C_JOKER_EXTRA_MOVE] and x != JOKER_ID and st[G_PRIVILEGED] == p and \
                st[G_JOKER_STATE] == JOKER_HAND and \
                held_destinations(st, t, p, JOKER_ID, -1, 1, st[:0], True) > 0:
            st[G_PHASE] = PHASE_JOKER                           # A57
        else:
            enter_pawn_phase(st, t, p)
    elif phase == PHASE_JOKER:
        if action != JOKER_DECLINE:
            st[G_HELD_ORIGIN] = -1
            place(st, t, p, JOKER_ID, action >> 1, 1)           # A57: lock keeps naming x
        enter_pawn_phase(st, t, p)
    elif phase == PHASE_PAWN:
        if action == STAY:
            if st[S_PAWN_SQ + p] == t[C_CORNER_OF + p] and t[C_CORNER_MAY_WAIT]:
                st[T_CORNER_WAITS + p] += 1
            else:
                st[T_BIVOUAC_STAYS + p] += 1
            st[G_PHASE] = PHASE_TURN_END
        elif move_pawn(st, t, p, action, True):
            st[G_PHASE] = PHASE_SPRING                          # A34
        else:
            st[G_PHASE] = PHASE_TURN_END
    else:                                                       # PHASE_SPRING
        if action != STAY:
            st[T_SPRING_STEPS + p] += 1
            move_pawn(st, t, p, action, False)                  # A34, A52
        st[G_PHASE] = PHASE_TURN_END
    if st[G_OVER] == 0 and st[G_PHASE] == PHASE_TURN_END:
        settle(st, t)


@njit(cache=True)
def new_state():
    return np.zeros(STATE_SIZE, np.int64)
