"""`random` and `random-safe` (RULES.md §7): the invariant and crash-test players."""

from policies.ascension.board import (
    copy_board, held_piece, lift_top, orientation_shows, origin_piece, placement_ok, put_on,
    restore)
from sim.core.jit import njit_noalloc
from sim.core.policies import compiled_on_use, register
from sim.core.rng import stream_below
from sim.games.ascension.engine import count_pawn_moves, protected_on_corner
from sim.games.ascension.policy_api import POLICY_SIGNATURE
from sim.games.ascension.state import (
    N_SQUARES, PHASE_ORIGIN, PHASE_PLACE, PHASE_SPRING, S_BIV, S_PAWN_SQ, STAY)


@register("ascension", "random", reads_piece_slots=False)
@compiled_on_use(POLICY_SIGNATURE, noalloc=True)
def random_policy(ctx):
    """Uniform origin, uniform placement, uniform pawn move; the spring step half the time."""
    if ctx.phase == PHASE_SPRING:
        if stream_below(ctx.stream, 2) == 0:
            return STAY
        if ctx.n_legal > 1:
            return ctx.legal[stream_below(ctx.stream, ctx.n_legal - 1)]   # STAY is last
        return STAY
    return ctx.legal[stream_below(ctx.stream, ctx.n_legal)]


@njit_noalloc
def _pawn_is_safe(b, t, seat):
    """After its own piece move the pawn is not blocked (A38): it has a move, or a bivouac
    stay is pending, or it is protected on its own corner (A39)."""
    s = b[S_PAWN_SQ + seat]
    if b[S_BIV + seat]:
        return True
    if protected_on_corner(b, t, seat):
        return True
    return count_pawn_moves(b, t, seat, s) > 0


@register("ascension", "random-safe", reads_piece_slots=False)
@compiled_on_use(POLICY_SIGNATURE, noalloc=True)
def random_safe_policy(ctx):
    """`random`, rejecting piece moves after which its own pawn would be blocked (unless all
    are)."""
    view = ctx.board
    t = ctx.config
    seat = ctx.seat
    b = ctx.work
    if ctx.phase == PHASE_ORIGIN:
        copy_board(view, b)
        safe = 0
        chosen = -1
        for i in range(ctx.n_legal):
            o = ctx.legal[i]
            h, kind, fshp, fsym, was_up = origin_piece(view, t, seat, o)
            lifted = o < N_SQUARES
            saved_o = (0, 0, 0, 0)
            if lifted:
                saved_o = lift_top(b, view, o, h)
            ok = False
            up = 0 if kind == 0 else 1                  # default orientation (A14)
            allowed, shp, sym = orientation_shows(kind, fshp if fshp >= 0 else 0,
                                                  fsym if fsym >= 0 else 0, was_up, up)
            for d in range(N_SQUARES):
                if ok:
                    break
                if allowed and placement_ok(b, t, seat, shp, sym, d, o):
                    saved_d = put_on(b, d, h, shp, sym)
                    ok = _pawn_is_safe(b, t, seat)
                    restore(b, d, saved_d)
            if lifted:
                restore(b, o, saved_o)
            if ok:
                safe += 1
                if stream_below(ctx.stream, safe) == 0:
                    chosen = o
        if chosen >= 0:
            return chosen
        return ctx.legal[stream_below(ctx.stream, ctx.n_legal)]
    if ctx.phase == PHASE_PLACE:
        copy_board(view, b)
        h, kind, fshp, fsym, was_up = held_piece(view)
        safe = 0
        chosen = -1
        for i in range(ctx.n_legal):
            code = ctx.legal[i]
            allowed, shp, sym = orientation_shows(kind, fshp, fsym, was_up, code & 1)
            saved_d = put_on(b, code >> 1, h, shp, sym)
            ok = _pawn_is_safe(b, t, seat)
            restore(b, code >> 1, saved_d)
            if ok:
                safe += 1
                if stream_below(ctx.stream, safe) == 0:
                    chosen = code
        if chosen >= 0:
            return chosen
        return ctx.legal[stream_below(ctx.stream, ctx.n_legal)]
    return random_policy(ctx)
