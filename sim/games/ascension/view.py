"""What a seat may see: the hidden-information protocol of RULES.md §1.8.

A bot never receives the game state. It receives a view: an int64 vector of VIEW_END words whose
public blocks sit at the state's own offsets (globals, seats, tallies, and the per-square
stack size, height, shown shapes, shown symbol and pawn), so that the engine's rule functions
(`pawn_moves`, `step_is_legal`, `destination_open`, `place_is_legal`) run on it unchanged.

Piece ids are never in a view: the cubes' ids would give away their faces (the ids map to
faces, and A3's permutation is the hidden part of the game). The stack and piece blocks are
replaced by per-square facts about the top piece, with its face given only if the seat knows
it (`known`, A15; face up: known to all). The game seed and the locks (piece ids) are blanked;
A12's result is given per square (V_MOVABLE) and each lock as a slot (V_LOCK_SLOT).

    offset                 per square s (81 each)
    V_TOP_KIND + s         -1 empty, 0 cube, 1 half-cube, 2 joker
    V_TOP_UP + s           1 face up
    V_TOP_H + s            height of the top piece (1 or 2), 0 if empty
    V_FACE_SHAPES + s      the top's drawn shapes if this seat knows its face, else -1
    V_FACE_SYMBOL + s      the top's drawn symbol if known, else -1 (a known neutral cube: 0, 0)
    V_MOVABLE + s          A12: this seat may move the top of s
    V_UNDER_SHAPES + s     what s would show once its top is lifted (shapes, symbol)
    V_UNDER_SYMBOL + s
    V_HELD_*               the piece in hand during the place decision: kind, height, drawn
                           shapes and symbol (the mover has looked, A15), former orientation,
                           origin square (-1 from the reserve or the hand), and which seats
                           have looked at it (V_HELD_SEATS)

    V_SLOT + k             every piece on the board, square by square and bottom to top (the
                           stack sizes say where a square's pieces start): its kind, orientation
                           and, if this seat knows it, its drawn face; and which seats know it
                           (slot_info). Below the top a piece shows nothing, but a player who
                           watched the whole game knows what lies where, and a search needs it
    V_LOCK_SLOT + q        A12(d): the slot of seat q's locked piece, LOCK_HELD for the piece
                           in hand, -1 for none
    V_PIECE_SLOTS_GIVEN    1: the two blocks above are given (0: zeroed, piece_slots=False)

`remember=False` builds the view of a seat that forgets what it has seen: it knows only the
faces that are up and the piece in its hand (to measure what memory is worth, §6 Q10).
`piece_slots=False` leaves the per-piece block out (V_SLOT to VIEW_END read 0): it is a
third of the view's cost, and only a search's sampler reads it, so the kernel builds it only
for a bot registered with `reads_piece_slots` (the default). Each slot's view flags
(VIEW_REMEMBERS, VIEW_PIECE_SLOTS) say which view its bot is handed.

The kernel keeps each seat's last view and builds the next on it (build_view's ON_LAST): past
VIEW_END it keeps what that build reads (every square's stack version, B_VERSION, and the
locks that bind the seat), and builds again only the squares that changed since.

`sample_state` is the inverse a search needs: a full game state that this seat cannot tell
from the real one, with the faces it does not know dealt from the cubes it has not seen.
"""
import numpy as np
from numba import njit

from sim.core.jit import copy_into, njit_noalloc
from sim.core.rng import stream_below
from sim.games.ascension.engine import (hidden_face_barred_from_pillar, lock_against,
                                        locked_by_others, reserve_group, shows, top_is_movable,
                                        top_piece)
from sim.games.ascension.rules import C_P_SHAPES, C_P_SYMBOL
from sim.games.ascension.state import (
    B_KNOWN, B_P_SQ, B_P_UP, B_PAWN_ON, B_STACK, B_STACK_N, B_VERSION, CORNER_BIT, CUBE,
    G_HELD, G_HELD_ORIGIN, G_HELD_WAS_UP, G_N_PLAYERS, G_SEED, HALF, MAX_PLAYERS, MAX_STACK_CAP,
    N_CUBES, N_PIECES, N_SQUARES, P_HEIGHT, P_KIND, PILLAR, RECORD_SIZE, S_LOCK, S_RES_NEUTRAL,
    S_RES_SHAPED, STATE_SIZE)

V_TOP_KIND = B_STACK
V_TOP_UP = B_STACK + N_SQUARES
V_TOP_H = B_STACK + 2 * N_SQUARES
V_FACE_SHAPES = B_STACK + 3 * N_SQUARES
V_FACE_SYMBOL = B_STACK + 4 * N_SQUARES
V_MOVABLE = B_STACK + 5 * N_SQUARES
V_UNDER_SHAPES = B_STACK + 6 * N_SQUARES
V_UNDER_SYMBOL = B_STACK + 7 * N_SQUARES
V_HELD_KIND = B_STACK + 8 * N_SQUARES
V_HELD_H = V_HELD_KIND + 1
V_HELD_SHAPES = V_HELD_KIND + 2
V_HELD_SYMBOL = V_HELD_KIND + 3
V_HELD_WAS_UP = V_HELD_KIND + 4
V_HELD_ORIGIN = V_HELD_KIND + 5
V_HELD_SEATS = V_HELD_KIND + 6
V_SLOT = V_HELD_KIND + 7
V_LOCK_SLOT = V_SLOT + N_PIECES
V_PIECE_SLOTS_GIVEN = V_LOCK_SLOT + MAX_PLAYERS
VIEW_END = V_PIECE_SLOTS_GIVEN + 1
assert VIEW_END <= STATE_SIZE
LOCK_HELD = -2

# what a policy slot's bot is handed (the kernel's slot_views): a view that remembers the faces
# it has seen; the per-piece block
VIEW_REMEMBERS, VIEW_PIECE_SLOTS = 1, 2

# slot_info: bit 0 face known to this seat, bit 1 face up, bits 2-3 kind, bits 4-7 drawn shapes,
# bits 8-10 drawn symbol (both 0 unless known), bits 16.. the seats that know the face (A15)
SLOT_KNOWN, SLOT_UP, SLOT_KIND_SHIFT, SLOT_SHAPES_SHIFT, SLOT_SYMBOL_SHIFT, SLOT_SEATS_SHIFT = \
    1, 2, 2, 4, 8, 16


@njit_noalloc
def face_known(st, seat, remember, x):
    """Does seat know piece x's face? A half-cube's and the joker's always show, a face-up
    cube's too; a face-down cube's if the seat has looked at it (A15) and remembers."""
    return P_KIND[x] != CUBE or st[B_P_UP + x] != 0 or \
        (remember != 0 and (st[B_KNOWN + x] >> seat) & 1 != 0)


@njit_noalloc
def slot_info(st, t, seat, remember, x):
    """What a seat knows of board piece x (the layout above). A seat that has forgotten a face
    is not among the seats that know it, so that a search deals that cube again."""
    up = st[B_P_UP + x] != 0
    seats = st[B_KNOWN + x]
    kind = P_KIND[x]
    info = (SLOT_UP if up else 0) | (kind << SLOT_KIND_SHIFT)
    known = face_known(st, seat, remember, x)
    # without branches: whether this seat knows a face is a coin flip to the processor
    face = SLOT_KNOWN | (t[C_P_SHAPES + x] << SLOT_SHAPES_SHIFT) | \
        (t[C_P_SYMBOL + x] << SLOT_SYMBOL_SHIFT)
    info |= face * known
    seats &= ~((1 - known) << seat)
    return info | (seats << SLOT_SEATS_SHIFT)


# build_view's `build`: the view built whole (WHOLE); built whole, with what the next build
# on it reads kept past VIEW_END (WHOLE_KEPT); built on the seat's last view, kept so
# (ON_LAST). What is kept, [VIEW_END, VIEW_KEPT_END): every square's stack version, and the
# piece each seat's lock keeps this seat from moving (engine.lock_against), when it was built
WHOLE, WHOLE_KEPT, ON_LAST = 0, 1, 2
V_KEPT_VERSION = VIEW_END
V_KEPT_LOCK = V_KEPT_VERSION + N_SQUARES
VIEW_KEPT_END = V_KEPT_LOCK + MAX_PLAYERS
KERNEL_VIEWS_SIZE = MAX_PLAYERS * VIEW_KEPT_END     # the kernel's buffer: a view per seat


@njit_noalloc
def build_view(st, t, seat, remember, view, piece_slots, build):
    """Write seat's view of game st into view[:VIEW_END], and zero the rest of a longer
    view (but what is kept there). The kernel hands its bots view[:VIEW_END] only. Without
    `piece_slots`, the per-piece block is zeros (the module text).
    `build` (WHOLE, WHOLE_KEPT, ON_LAST above): ON_LAST builds on `view`, which holds this
    seat's last view of this game, built with the same `remember` and `piece_slots` and
    not WHOLE: the squares whose facts may have changed since (squares_changed) are built
    again, the others stand; the public blocks, the piece in hand and the per-piece block
    are built whole. Most squares stand as they stood at a bot's last decision: the kernel
    builds its views so. (Only on a game's own states: a search's imagined states change
    stacks without counting versions, and are built WHOLE.)"""
    locked_low, locked_high = locked_by_others(st, t, seat)
    todo_low, todo_high = -1, -1                       # the squares to build, as bits
    if build == ON_LAST:
        todo_low, todo_high = squares_changed(st, t, seat, view)
    # element by element: a slice copy between two arrays numba cannot prove apart allocates
    for i in range(B_STACK):     # globals, seats, stack sizes, H, shown faces, pawns
        view[i] = st[i]
    view[G_SEED] = 0
    view[G_HELD] = -1
    for q in range(MAX_PLAYERS):
        view[S_LOCK + q] = -1
    for s in range(N_SQUARES):
        if ((todo_low >> s) if s < 64 else (todo_high >> (s - 64))) & 1 == 0:
            continue
        x = top_piece(st, s)
        if x < 0:
            view[V_TOP_KIND + s] = -1
            view[V_TOP_UP + s] = 0
            view[V_TOP_H + s] = 0
            view[V_FACE_SHAPES + s] = 0
            view[V_FACE_SYMBOL + s] = 0
            view[V_MOVABLE + s] = 0
            view[V_UNDER_SHAPES + s] = CORNER_BIT[s]
            view[V_UNDER_SYMBOL + s] = 0
            continue
        up = st[B_P_UP + x]
        view[V_TOP_KIND + s] = P_KIND[x]
        view[V_TOP_UP + s] = up
        view[V_TOP_H + s] = P_HEIGHT[x]
        if face_known(st, seat, remember, x):
            view[V_FACE_SHAPES + s] = t[C_P_SHAPES + x]
            view[V_FACE_SYMBOL + s] = t[C_P_SYMBOL + x] if P_KIND[x] == CUBE else \
                shows(t, x, 1)[1]
        else:
            view[V_FACE_SHAPES + s] = -1
            view[V_FACE_SYMBOL + s] = -1
        view[V_MOVABLE + s] = 1 if top_is_movable(st, t, s, locked_low, locked_high) else 0
        n = st[B_STACK_N + s]
        if n >= 2:
            y = st[B_STACK + s * MAX_STACK_CAP + n - 2]
            shp, sym = shows(t, y, st[B_P_UP + y])
            view[V_UNDER_SHAPES + s] = shp
            view[V_UNDER_SYMBOL + s] = sym
        else:
            view[V_UNDER_SHAPES + s] = CORNER_BIT[s]
            view[V_UNDER_SYMBOL + s] = 0
    x = st[G_HELD]
    if x >= 0:
        view[V_HELD_KIND] = P_KIND[x]
        view[V_HELD_H] = P_HEIGHT[x]
        view[V_HELD_SHAPES] = t[C_P_SHAPES + x]
        view[V_HELD_SYMBOL] = t[C_P_SYMBOL + x]
        view[V_HELD_WAS_UP] = st[G_HELD_WAS_UP]
        view[V_HELD_ORIGIN] = st[G_HELD_ORIGIN]
        view[V_HELD_SEATS] = st[B_KNOWN + x]
    else:
        view[V_HELD_KIND] = -1
        view[V_HELD_H] = 0
        view[V_HELD_SHAPES] = 0
        view[V_HELD_SYMBOL] = 0
        view[V_HELD_WAS_UP] = 0
        view[V_HELD_ORIGIN] = -1
        view[V_HELD_SEATS] = 0
    tail = VIEW_END
    if build != WHOLE:
        for s in range(N_SQUARES):
            view[V_KEPT_VERSION + s] = st[B_VERSION + s]
        for q in range(MAX_PLAYERS):
            view[V_KEPT_LOCK + q] = lock_against(st, t, seat, q)     # -1 for a seat not playing
        tail = VIEW_KEPT_END
    view[tail:] = 0
    if not piece_slots:
        # zeroed, not left as it was: the caller's buffer may have held another view
        view[V_SLOT:VIEW_END] = 0
        return
    # each seat's lock (A12(d)) as a slot: none, the held piece, or its place in stack order
    for q in range(MAX_PLAYERS):
        view[V_LOCK_SLOT + q] = LOCK_HELD if st[S_LOCK + q] >= 0 and \
            st[S_LOCK + q] == st[G_HELD] else -1
    k = 0
    for s in range(N_SQUARES):
        base = B_STACK + s * MAX_STACK_CAP
        for i in range(st[B_STACK_N + s]):
            x = st[base + i]
            view[V_SLOT + k] = slot_info(st, t, seat, remember, x)
            for q in range(MAX_PLAYERS):
                if st[S_LOCK + q] == x:
                    view[V_LOCK_SLOT + q] = k
            k += 1
    view[V_SLOT + k:V_LOCK_SLOT] = 0
    view[V_PIECE_SLOTS_GIVEN] = 1


@njit_noalloc
def squares_changed(st, t, seat, view):
    """The squares whose facts in seat's view may differ from its last view (`view`, built
    with what it keeps), as bits of two words (squares 0-63, 64-80). A square's facts read
    its stack (the top, the piece under it, what they show, and for the top whether this
    seat knows its face: it learns a face only by picking the piece, A15, or seeing it
    placed face up, both stack changes), the pawn on it (A12(b)) and other seats' locks
    (A12(d)). So: the squares whose stack version (push_piece and pop_piece count it, a
    trial lift too) or pawn changed, and those of the pieces a changed lock names, before
    and now (a piece in the hand names the square it left: built again for nothing)."""
    # without branches, the processor compares many squares at once
    low = 0
    for s in range(64):
        low |= np.int64((st[B_VERSION + s] != view[V_KEPT_VERSION + s]) |
                        (st[B_PAWN_ON + s] != view[B_PAWN_ON + s])) << s
    high = 0
    for s in range(64, N_SQUARES):
        high |= np.int64((st[B_VERSION + s] != view[V_KEPT_VERSION + s]) |
                         (st[B_PAWN_ON + s] != view[B_PAWN_ON + s])) << (s - 64)
    for q in range(MAX_PLAYERS):
        now = lock_against(st, t, seat, q)
        before = view[V_KEPT_LOCK + q]
        if now == before:
            continue
        for x in (before, now):
            s = st[B_P_SQ + x] if x >= 0 else -1     # -1 a reserve, -2 the box: no square
            if 0 <= s < 64:
                low |= 1 << s
            elif s >= 64:
                high |= 1 << (s - 64)
    return low, high


@njit_noalloc
def _take_piece(t, used, kind, shapes, symbol):
    """The lowest unused piece id of this kind and drawn face (pieces with the same face are
    interchangeable to the rules)."""
    for x in range(N_PIECES):
        if not used[x] and P_KIND[x] == kind and t[C_P_SHAPES + x] == shapes and \
                t[C_P_SYMBOL + x] == symbol:
            used[x] = True
            return x
    return -1


@njit_noalloc
def deal_pillar_cube(t, cubes, n, at, stream):
    """A59 (bar): a face-down cube on the pillar shows no symbol, and every seat knows it. Given
    cubes[:n] dealt in a uniform order with cubes[at] the one dealt face down onto the pillar,
    returns the index to swap it with: `at` itself if that cube may lie there, else one drawn
    uniformly from the cubes that may. The result is uniform over the orders that put such a
    cube there: each such order is reached from itself and from each of the n1 orders with a
    barred cube there and the chosen one elsewhere, so with chance (1 + n1 / n0) / n! each
    (n0, n1: cubes allowed and barred). -1 if none of the cubes may lie there."""
    if not hidden_face_barred_from_pillar(t, cubes[at]):
        return at
    allowed = 0
    for i in range(n):
        if not hidden_face_barred_from_pillar(t, cubes[i]):
            allowed += 1
    if allowed == 0:
        return -1
    k = stream_below(stream, allowed)
    for i in range(n):
        if not hidden_face_barred_from_pillar(t, cubes[i]):
            if k == 0:
                return i
            k -= 1
    return -1


@njit(cache=True)
def sample_state(view, t, seat, stream, st):
    """Write into st a game state that `seat`, whose view this is, cannot tell from the real
    one: the public blocks as they are, every piece it knows where it is, and the cubes it has
    not seen (face down, face unknown) dealt onto the remaining slots in a uniformly random
    order drawn from `stream` (A3's shuffle is uniform, and the seat has learned nothing of
    those cubes since, but for A59: under bar the pillar's face-down cube shows no symbol).
    Pieces of the same kind and face are interchangeable to the rules, so
    a known piece gets the lowest free id of its face. Returns False if the view does not fit
    the piece set (a view not built by build_view), or lacks the per-piece block (a bot that
    samples registered without reads_piece_slots: the kernel ends its game as a policy
    error)."""
    if view[V_PIECE_SLOTS_GIVEN] != 1:
        return False
    copy_into(st[:B_STACK], view[:B_STACK])
    st[B_STACK:] = 0
    st[B_STACK:B_STACK + N_SQUARES * MAX_STACK_CAP] = -1
    used = np.zeros(N_PIECES, np.bool_)
    for x in range(N_PIECES):
        st[B_P_SQ + x] = -2                          # out of play unless placed below
        if P_KIND[x] != CUBE:
            st[B_P_UP + x] = 1
            st[B_KNOWN + x] = (1 << MAX_PLAYERS) - 1      # §1.4: halves are public
    # each seat's reserve half-cubes (A4), lowest ids first, as the engine's pick takes them
    for p in range(view[G_N_PLAYERS]):
        group = reserve_group(t, p)
        for first, count in ((group, view[S_RES_SHAPED + p]),
                             (group + 2, view[S_RES_NEUTRAL + p])):
            if count > 2:
                return False
            for x in range(first, first + count):
                used[x] = True
                st[B_P_SQ + x] = -1
    # the piece in the mover's hand (A15: it has looked)
    held = -1
    kind = view[V_HELD_KIND]
    if kind >= 0:
        origin = view[V_HELD_ORIGIN]
        if kind == HALF and origin < 0:
            group = reserve_group(t, seat)
            held = group if view[V_HELD_SHAPES] != 0 else group + 2
            if st[B_P_SQ + held] != -1:
                return False
        else:
            held = _take_piece(t, used, kind, view[V_HELD_SHAPES], view[V_HELD_SYMBOL])
            if held < 0:
                return False
            st[B_P_SQ + held] = origin if origin >= 0 else -2
            if kind == CUBE:
                st[B_P_UP + held] = view[V_HELD_WAS_UP]
                st[B_KNOWN + held] = view[V_HELD_SEATS] | (1 << seat)
    st[G_HELD] = held
    # the board: known pieces now, the unseen cubes' slots noted
    slot_piece = np.full(N_PIECES, -1, np.int64)
    unknown_slot = np.empty(N_PIECES, np.int64)
    n_unknown = 0
    on_pillar = -1                                 # the pillar's unseen cube in that list
    k = 0
    for s in range(N_SQUARES):
        for i in range(view[B_STACK_N + s]):
            info = view[V_SLOT + k]
            if s == PILLAR and not info & SLOT_KNOWN:
                on_pillar = n_unknown
            if info & SLOT_KNOWN:
                x = _take_piece(t, used, (info >> SLOT_KIND_SHIFT) & 3,
                                (info >> SLOT_SHAPES_SHIFT) & 15, (info >> SLOT_SYMBOL_SHIFT) & 7)
                if x < 0:
                    return False
                slot_piece[k] = x
            else:
                unknown_slot[n_unknown] = k
                n_unknown += 1
            k += 1
    # the unseen cubes in a random order (Fisher-Yates over the seat's own stream)
    pool = np.empty(N_CUBES, np.int64)
    n_pool = 0
    for x in range(N_CUBES):
        if not used[x]:
            pool[n_pool] = x
            n_pool += 1
    if n_pool != n_unknown:
        return False
    for i in range(n_pool - 1, 0, -1):
        j = stream_below(stream, i + 1)
        pool[i], pool[j] = pool[j], pool[i]
    if on_pillar >= 0:                                                   # A59
        j = deal_pillar_cube(t, pool, n_pool, on_pillar, stream)
        if j < 0:
            return False
        pool[on_pillar], pool[j] = pool[j], pool[on_pillar]
    for i in range(n_unknown):
        slot_piece[unknown_slot[i]] = pool[i]
    k = 0
    for s in range(N_SQUARES):
        base = B_STACK + s * MAX_STACK_CAP
        for i in range(view[B_STACK_N + s]):
            x = slot_piece[k]
            info = view[V_SLOT + k]
            st[base + i] = x
            st[B_P_SQ + x] = s
            st[B_P_UP + x] = 1 if info & SLOT_UP else 0
            st[B_KNOWN + x] = info >> SLOT_SEATS_SHIFT
            k += 1
    for q in range(MAX_PLAYERS):
        slot = view[V_LOCK_SLOT + q]
        st[S_LOCK + q] = held if slot == LOCK_HELD else (slot_piece[slot] if slot >= 0 else -1)
    return True
