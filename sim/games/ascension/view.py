"""What a seat may see: the hidden-information protocol of RULES.md §1.8.

A bot never receives the game state. It receives a view: an int64 vector of STATE_SIZE whose
public blocks sit at the state's own offsets (globals, seats, tallies, and the per-square
stack size, height, shown shapes, shown symbol and pawn), so that the engine's rule functions
(`pawn_moves`, `step_is_legal`, `destination_open`, `place_is_legal`) run on it unchanged.

Piece ids are never in a view: the cubes' ids would give away their faces (the ids map to
faces, and A3's permutation is the hidden part of the game). The stack and piece blocks are
replaced by per-square facts about the top piece, with its face given only if the seat knows
it (`known`, A15; face up: known to all). The game seed and the locks (piece ids) are blanked;
A12's result is given per square instead (V_MOVABLE).

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
                           origin square (-1 from the reserve or the hand)

`remember=False` builds the view of a seat that forgets what it has seen: it knows only the
faces that are up and the piece in its hand (to measure what memory is worth, §6 Q10).
"""
from numba import njit

from sim.games.ascension.engine import piece_is_movable, shows, top_piece
from sim.games.ascension.rules import C_P_SHAPES, C_P_SYMBOL
from sim.games.ascension.state import (
    B_KNOWN, B_P_UP, B_STACK, B_STACK_N, CORNER_BIT, CUBE, G_HELD, G_HELD_ORIGIN, G_HELD_WAS_UP,
    G_SEED, MAX_PLAYERS, MAX_STACK_CAP, N_SQUARES, P_HEIGHT, P_KIND, RECORD_SIZE, S_LOCK)

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
VIEW_END = V_HELD_KIND + 6
assert VIEW_END <= B_STACK + N_SQUARES * MAX_STACK_CAP


@njit(cache=True)
def build_view(st, t, seat, remember, view):
    """Write seat's view of game st into view (same length as the state)."""
    bit = 1 << seat
    view[:RECORD_SIZE] = st[:RECORD_SIZE]
    view[G_SEED] = 0
    view[G_HELD] = -1
    for q in range(MAX_PLAYERS):
        view[S_LOCK + q] = -1
    view[RECORD_SIZE:B_STACK] = st[RECORD_SIZE:B_STACK]     # stack sizes, H, shown faces, pawns
    for s in range(N_SQUARES):
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
        if P_KIND[x] != CUBE or up or (remember and (st[B_KNOWN + x] & bit)):
            view[V_FACE_SHAPES + s] = t[C_P_SHAPES + x]
            view[V_FACE_SYMBOL + s] = t[C_P_SYMBOL + x] if P_KIND[x] == CUBE else \
                shows(t, x, 1)[1]
        else:
            view[V_FACE_SHAPES + s] = -1
            view[V_FACE_SYMBOL + s] = -1
        view[V_MOVABLE + s] = 1 if piece_is_movable(st, t, seat, s) else 0
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
    else:
        view[V_HELD_KIND] = -1
        view[V_HELD_H] = 0
        view[V_HELD_SHAPES] = 0
        view[V_HELD_SYMBOL] = 0
        view[V_HELD_WAS_UP] = 0
        view[V_HELD_ORIGIN] = -1
    view[VIEW_END:] = 0
