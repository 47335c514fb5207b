"""Scratch-board edits the Ascension bots use to try a move on their own view.

A bot copies its view's square blocks into ctx.work (`copy_board`), lifts a top (`lift_top`,
using the view's V_UNDER_* to know what shows below), puts a piece down (`put_on`) and puts
things back (`restore`); the engine's own rule functions (count_pawn_moves, place_is_legal)
then read the edited copy, so a bot's idea of a legal move is the rules' idea. Also: what an
origin offers (`origin_piece`, from the view: the face only if the seat knows it) and what a
piece shows in an orientation (A16), the blocker's 1-ply repair test, and whether a piece move
would leave the mover's own pawn without a step (`strands_own_pawn`, `placing_strands_own_pawn`).
"""

from sim.core.jit import njit_noalloc
from sim.games.ascension.engine import (
    count_pawn_moves, place_is_legal, protected_on_corner, square_top_may_move, step_is_legal)
from sim.games.ascension.rules import C_PAWN_PINS, C_SHAPE_OF
from sim.games.ascension.state import (
    B_H, B_PAWN_ON, B_SHAPES, B_STACK, B_STACK_N, B_SYMBOL, CUBE, HALF, JOKER, N_SQUARES, NB,
    ORIGIN_JOKER, ORIGIN_NEUTRAL, ORIGIN_SHAPED, S_BIV, S_PAWN_SQ, SYM_CABLE, SYM_DRAGON)
from sim.games.ascension.view import (
    V_FACE_SHAPES, V_FACE_SYMBOL, V_HELD_H, V_HELD_KIND, V_HELD_ORIGIN, V_HELD_SHAPES,
    V_HELD_SYMBOL, V_HELD_WAS_UP, V_TOP_H, V_TOP_KIND, V_TOP_UP, V_UNDER_SHAPES,
    V_UNDER_SYMBOL)


@njit_noalloc(inline="always")
def chebyshev(a, b):
    return max(abs(a // 9 - b // 9), abs(a % 9 - b % 9))


@njit_noalloc
def copy_board(view, b):
    """The view's square blocks (and globals/seats) into scratch b[0:B_STACK]."""
    for i in range(B_STACK):     # a slice copy would allocate (numba's overlap guard)
        b[i] = view[i]


@njit_noalloc
def lift_top(b, view, s, h):
    """Scratch edit: take the top (height h) off s; returns the saved (H, shapes, symbol, n)."""
    saved = (b[B_H + s], b[B_SHAPES + s], b[B_SYMBOL + s], b[B_STACK_N + s])
    b[B_H + s] -= h
    b[B_SHAPES + s] = view[V_UNDER_SHAPES + s]
    b[B_SYMBOL + s] = view[V_UNDER_SYMBOL + s]
    b[B_STACK_N + s] -= 1
    return saved


@njit_noalloc
def put_on(b, d, h, shp, sym):
    saved = (b[B_H + d], b[B_SHAPES + d], b[B_SYMBOL + d], b[B_STACK_N + d])
    b[B_H + d] += h
    b[B_SHAPES + d] = shp
    b[B_SYMBOL + d] = sym
    b[B_STACK_N + d] += 1
    return saved


@njit_noalloc
def restore(b, s, saved):
    b[B_H + s] = saved[0]
    b[B_SHAPES + s] = saved[1]
    b[B_SYMBOL + s] = saved[2]
    b[B_STACK_N + s] = saved[3]


@njit_noalloc
def origin_piece(view, t, seat, origin):
    """(height, kind, known shapes, known symbol, was face up) of what an origin offers; the
    face is -1 when this seat does not know it."""
    if origin == ORIGIN_SHAPED:
        return 1, HALF, t[C_SHAPE_OF + seat], 0, 1
    if origin == ORIGIN_NEUTRAL:
        return 1, HALF, 0, 0, 1
    if origin == ORIGIN_JOKER:
        return 1, JOKER, 0, SYM_DRAGON, 1
    return (view[V_TOP_H + origin], view[V_TOP_KIND + origin], view[V_FACE_SHAPES + origin],
            view[V_FACE_SYMBOL + origin], view[V_TOP_UP + origin])


@njit_noalloc
def held_piece(view):
    return (view[V_HELD_H], view[V_HELD_KIND], view[V_HELD_SHAPES], view[V_HELD_SYMBOL],
            view[V_HELD_WAS_UP])


@njit_noalloc
def orientation_shows(kind, shapes, symbol, was_up, up):
    """What the piece would show placed with `up` (A16): (allowed, shapes, symbol)."""
    if kind == CUBE:
        if not up:
            return True, 0, 0
        if was_up or shapes < 0 or (shapes == 0 and symbol == 0):
            return False, 0, 0
        return True, shapes, symbol
    if not up:
        return False, 0, 0
    if kind == JOKER:
        return True, 0, SYM_DRAGON
    return True, shapes, 0


@njit_noalloc
def placement_ok(b, t, seat, shp, sym, d, origin):
    if d == origin:
        return False
    return place_is_legal(b, t, seat, shp, sym, d)


@njit_noalloc(inline="always")
def _moves_after_edit(b, t, target, s, n, whole, others):
    """The target's moves (pawn on s) once neighbour n is edited: `others`, its moves but the
    step onto n as they were, plus that step now; counted `whole` on a cable car."""
    if whole:
        return count_pawn_moves(b, t, target, s)
    return others + (1 if step_is_legal(b, t, target, s, n) else 0)


@njit_noalloc
def post_repair_mobility(b, view, t, target, locked_sq):
    """The target's legal-move count after its best single repair (§7 blocker's 1-ply).

    Repairs: take the top off a neighbour (not the piece just moved, locked by A12d), or put a
    half-cube (+1) or a cube (+2, face down) on a neighbour that is open to it; under the
    switch pawn_pins_stack=false (D3) the same on the target's own square, under its pawn.
    A repair on neighbour n changes only the step onto n (A29-A30 read the two squares of a
    step), so the count after it is the count before, less that step as it was, plus that
    step as it is; only a pawn on a cable car (A31), whose rides count every other cable car
    the edit may show or hide, is counted again whole."""
    s = b[S_PAWN_SQ + target]
    best = count_pawn_moves(b, t, target, s)
    before = best
    if not t[C_PAWN_PINS]:
        # before the neighbours, whose loop stops at 2: a count is then cut short the same
        # way whichever repair reaches 2 first, and two moves' counts compare
        best = max(best, _own_square_repair(b, view, t, target, s, locked_sq))
    whole = b[B_SYMBOL + s] == SYM_CABLE
    for k in range(8):
        n = NB[s, k]
        if n < 0:
            break
        if best >= 2:
            return best
        others = before - (1 if step_is_legal(b, t, target, s, n) else 0)
        # lower
        if b[B_STACK_N + n] > 0 and n != locked_sq and b[B_PAWN_ON + n] < 0 \
                and b[B_SYMBOL + n] != SYM_DRAGON and square_top_may_move(t, n):
            h = view[V_TOP_H + n] if view[V_TOP_H + n] > 0 else 2
            saved = lift_top(b, view, n, h)
            m = _moves_after_edit(b, t, target, s, n, whole, others)
            restore(b, n, saved)
            if m > best:
                best = m
        # raise by 1 or 2 with a plain piece
        if place_is_legal(b, t, target, 0, 0, n):
            for h in (1, 2):
                saved = put_on(b, n, h, 0, 0)
                m = _moves_after_edit(b, t, target, s, n, whole, others)
                restore(b, n, saved)
                if m > best:
                    best = m
    return best


@njit_noalloc
def _own_square_repair(b, view, t, target, s, locked_sq):
    """The target's most legal moves after a repair of its own square s, under
    pawn_pins_stack=false (D3: a piece may be taken from under its pawn, A12(b), or slid under
    it, A21): every step leaves s, so each is counted whole."""
    best = 0
    if b[B_STACK_N + s] > 0 and s != locked_sq and b[B_SYMBOL + s] != SYM_DRAGON \
            and square_top_may_move(t, s):
        h = view[V_TOP_H + s] if view[V_TOP_H + s] > 0 else 2
        saved = lift_top(b, view, s, h)
        best = max(best, count_pawn_moves(b, t, target, s))
        restore(b, s, saved)
    if place_is_legal(b, t, target, 0, 0, s):
        for h in (1, 2):
            saved = put_on(b, s, h, 0, 0)
            best = max(best, count_pawn_moves(b, t, target, s))
            restore(b, s, saved)
    return best


@njit_noalloc(inline="always")
def edit_reaches(b, pawn, sq):
    """Whether an edit of square sq can change the moves of the pawn on `pawn`: a step reads
    only its two squares (A29-A30), but a pawn on a cable car rides to any other (A31)."""
    return 0 <= sq < N_SQUARES and (chebyshev(sq, pawn) <= 1 or b[B_SYMBOL + pawn] == SYM_CABLE)


@njit_noalloc(inline="always")
def _blockable(b, t, seat):
    """Whether no legal move would block this seat's pawn at its pawn phase (A38): it is not
    staying on a bivouac (A35) and not protected on its corner (A39)."""
    return b[S_BIV + seat] == 0 and not protected_on_corner(b, t, seat)


@njit_noalloc
def _moves_with_piece_on(b, t, seat, pawn, d, h, shp, sym):
    """The pawn's legal-move count once a piece of h hu showing (shp, sym) is put on d (-1:
    nothing is put); b is left as it was."""
    if d < 0:
        return count_pawn_moves(b, t, seat, pawn)
    saved = put_on(b, d, h, shp, sym)
    moves = count_pawn_moves(b, t, seat, pawn)
    restore(b, d, saved)
    return moves


@njit_noalloc
def strands_own_pawn(b, view, t, seat, origin, lift_h, dest, h, shp, sym):
    """Whether this piece move would block the mover at its own pawn phase (A38): its pawn has a
    legal move now and none once the top (lift_h hu) is taken off `origin` (a reserve or the
    piece in hand: no square, nothing lifted) and a piece of h hu showing (shp, sym) is put on
    `dest` (-1: nowhere yet). A pawn staying on a bivouac (A35) or protected on its corner
    (A39) is never blocked. b is a scratch copy of the view's board; it is left as it was.
    Only an edit within reach of the pawn is counted, so most moves cost no count."""
    pawn = b[S_PAWN_SQ + seat]
    if pawn < 0 or not (edit_reaches(b, pawn, origin) or edit_reaches(b, pawn, dest)) or \
            not _blockable(b, t, seat) or count_pawn_moves(b, t, seat, pawn) == 0:
        return False                    # the last: no step to lose, nothing this move blocks
    lifted = 0 <= origin < N_SQUARES
    saved = (0, 0, 0, 0)
    if lifted:
        saved = lift_top(b, view, origin, lift_h)
    stranded = _moves_with_piece_on(b, t, seat, pawn, dest, h, shp, sym) == 0
    if lifted:
        restore(b, origin, saved)
    return stranded


@njit_noalloc
def placing_strands_own_pawn(b, view, t, seat, dest, h, shp, sym):
    """strands_own_pawn at a place decision, for putting the piece in hand (h hu, showing
    (shp, sym)) on dest (-1: on no square within the pawn's reach, so the count is the one the
    lift left). The piece came off its origin at this turn's origin decision, so the
    step the pawn had is read on the board as the turn found it: with the piece back on its
    origin, showing what it showed there (§1.4: a face-down cube nothing, a half-cube its
    shapes). So a lift that took the last step is answered by a placement that gives one back,
    where one does. b is a scratch copy of the view's board; it is left as it was."""
    pawn = b[S_PAWN_SQ + seat]
    if pawn < 0:
        return False
    origin = view[V_HELD_ORIGIN]
    origin_reaches = edit_reaches(b, pawn, origin)
    if not (origin_reaches or edit_reaches(b, pawn, dest)) or not _blockable(b, t, seat):
        return False
    back, back_shp, back_sym = -1, 0, 0
    if origin_reaches:
        back = origin
        kind = view[V_HELD_KIND]                   # what it showed there: engine.shows
        back_sym = SYM_DRAGON
        if kind == CUBE:
            back_sym = 0
            if view[V_HELD_WAS_UP]:
                back_shp, back_sym = view[V_HELD_SHAPES], view[V_HELD_SYMBOL]
        elif kind == HALF:
            back_shp, back_sym = view[V_HELD_SHAPES], 0
    if _moves_with_piece_on(b, t, seat, pawn, back, view[V_HELD_H], back_shp, back_sym) == 0:
        return False                    # no step to lose: the lift took it, or it had none
    return _moves_with_piece_on(b, t, seat, pawn, dest, h, shp, sym) == 0
