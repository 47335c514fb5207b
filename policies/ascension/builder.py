"""Decisions of the goal-directed Ascension bots, on the staircase plan (staircase.py).

Piece move (two stages, A14-A17): at the origin decision the bot plans the whole move on its
view and commits to the origin; at the place decision it has seen the face (A15), re-plans on
the board with the piece lifted and picks the destination.
- `build`: fix the first square of its own plan whose target height differs from its height
  (under pawn_pins_stack=false the pawn's own square is one: D3 lets a piece slide under it):
  raise it with a piece of the right height (a half-cube for an odd gap: its reserve, or a
  half-cube on the board), or lower it by taking its top. Pieces are taken from squares off its
  plan and away from its pawn, preferring plan squares that stand too high.
- `block` (RULES.md §7 blocker): the move after which the target has the fewest legal moves
  after its own best single repair, among moves that take a top off, or put a piece on, one of
  the target's neighbours (or the pillar, when the target waits next to it).
Pawn move: the legal square with the least cost to go; ties by the most legal moves from there.

No piece move of theirs leaves their own pawn without a step it had when the turn began, where
another move would do (`_move_strands`, `_placement_strands`; at the place decision the step
is read with the piece back on its origin, so a placement that gives back what the lift took is
preferred): that is a block of their own making at the pawn phase (A38, D14: self-inflicted
blocks count). §7's
stair builder breaks its ties by the pawn's mobility; a move that strands the pawn is the
extreme case, and before this guard it was 20% of the hybrid's blocks and 41-64% of the stair
builder's (results/ASCENSION.md Q4).
"""

import numpy as np

from policies.ascension.board import (
    chebyshev, copy_board, edit_reaches, held_piece, lift_top, orientation_shows, origin_piece,
    placement_ok, placing_strands_own_pawn, post_repair_mobility, put_on, restore,
    strands_own_pawn)
from policies.ascension.staircase import (
    INF, MEMO_PIECES, MEMO_ROW, W_BLOCK_MEMO, W_PLAN, W_PLAN_AT, W_PLAN_G, W_SCRATCH_FRESH, W_STASH,
    W_TARGET_STASH, candidate_costs, climb_distance_within, extract_plan, goal_square,
    plan_costs, standing_cost)
from sim.core.jit import njit_noalloc
from sim.core.rng import stream_below
from sim.games.ascension.engine import count_pawn_moves, is_partner
from sim.games.ascension.rules import C_N_PLAYERS, C_PAWN_PINS
from sim.games.ascension.state import (
    B_H, B_PAWN_ON, B_SYMBOL, CUBE, G_CURRENT, G_DECISIONS, G_PRIVILEGED, JOKER, JOKER_DECLINE,
    SYM_CABLE, SYM_LADDER, SYM_MATTRESS, SYM_SPRING, N_SQUARES, NB, ORIGIN_JOKER,
    ORIGIN_NEUTRAL, ORIGIN_SHAPED, PILLAR, S_ACTIVE, S_PAWN_SQ, S_SUMMIT, STAY)
from sim.games.ascension.view import V_HELD_ORIGIN, V_MOVABLE, V_TOP_H

_NO_MOVE = -1


@njit_noalloc
def plan_for(ctx, seat):
    """Cost to go for seat on its view's board (the search writes only past the board's copy in
    ctx.work, so none is needed); returns (climb distance, plan length)."""
    b = ctx.board
    d = plan_costs(b, ctx.config, seat, ctx.work, top_heights(ctx), ctx.legal, 0)
    n = extract_plan(b, ctx.config, seat, ctx.work) if d < INF else 0
    return d, n


@njit_noalloc(inline="always")
def top_heights(ctx):
    # inlined: without numba's runtime a function may not return a view of its argument
    return ctx.board[V_TOP_H:V_TOP_H + N_SQUARES]


@njit_noalloc
def stash(ctx, dest, n_plan):
    """Remember the destination chosen with the origin, for the next decision (the place
    decision). Keyed by the decision count: ctx.work starts zeroed in every game. An origin
    decision stashes a build or a target, never both: the other key is cleared (-1 matches
    no decision count), so a place decision reads only what its own origin decided."""
    ctx.work[W_STASH] = ctx.board[G_DECISIONS] + 1
    ctx.work[W_STASH + 1] = dest
    ctx.work[W_STASH + 2] = n_plan
    ctx.work[W_TARGET_STASH] = -1


@njit_noalloc
def stash_target(ctx, target):
    """Remember whom the origin decision blocked (-1: no one, it explored), for the place
    decision. Under its own key: a place decision that does not block then finds no build
    stashed for it, and plans afresh (the build stash it would find otherwise is the game's
    last build, of another decision and often another seat: the seats share ctx.work)."""
    ctx.work[W_TARGET_STASH] = ctx.board[G_DECISIONS] + 1
    ctx.work[W_TARGET_STASH + 1] = target
    ctx.work[W_STASH] = -1                  # see stash


@njit_noalloc
def stashed_target(ctx):
    """The target stashed at this turn's origin decision, -2 if there is none."""
    if ctx.work[W_TARGET_STASH] == ctx.board[G_DECISIONS]:
        return ctx.work[W_TARGET_STASH + 1]
    return -2


@njit_noalloc
def plan_places(work, n):
    """Index the plan's first n squares: work[W_PLAN_AT + s] is then the first place of square
    s among them (-1: none), so that a decision that asks of every legal move whether its
    square is on the plan reads one word, not the plan."""
    work[W_PLAN_AT:W_PLAN_AT + N_SQUARES] = -1
    for i in range(n - 1, -1, -1):
        work[W_PLAN_AT + work[W_PLAN + i]] = i


@njit_noalloc
def legal_has(legal, n_legal, code):
    """Is `code` among legal[:n_legal]? (Legal actions are increasing: legal_actions.)"""
    lo = 0
    hi = n_legal
    while lo < hi:
        mid = (lo + hi) >> 1
        if legal[mid] < code:
            lo = mid + 1
        else:
            hi = mid
    return lo < n_legal and legal[lo] == code


@njit_noalloc(inline="always")
def _reaches(ctx, origin, dest):
    """Whether a move from origin to dest can change this seat's pawn's moves (edit_reaches):
    asked first, so that most candidates cost two comparisons."""
    view = ctx.board
    pawn = view[S_PAWN_SQ + ctx.seat]
    return pawn >= 0 and (edit_reaches(view, pawn, origin) or edit_reaches(view, pawn, dest))


@njit_noalloc(inline="always")
def _new_decision(ctx):
    """Called by each decision that may ask a strand check: the board block of ctx.work is not yet a
    copy of this decision's view (an earlier decision's, or another imagined world's, may be
    there)."""
    ctx.work[W_SCRATCH_FRESH] = 0


@njit_noalloc(inline="always")
def _scratch(ctx):
    """ctx.work's board block as a copy of the view, made once a decision, on the first move
    within the pawn's reach. It stays one for the whole decision: each decision that asks marks
    it stale first (_new_decision), and after the copy only the strand checks touch the block,
    putting back their edits (the plan's search writes past it). Inlined: without numba's
    runtime a function may not return its argument."""
    if ctx.work[W_SCRATCH_FRESH] == 0:
        copy_board(ctx.board, ctx.work)
        ctx.work[W_SCRATCH_FRESH] = 1
    return ctx.work


@njit_noalloc
def _move_strands(ctx, origin, dest):
    """board.strands_own_pawn, on the decision's copy of the view (_scratch), for the move of
    origin's piece onto dest (-1: nowhere yet) as the origin decision plans it: face down if a
    cube, showing its shapes if a half-cube (as _piece_fits places it). Asked only of a move
    within the pawn's reach."""
    if not _reaches(ctx, origin, dest):
        return False
    view = ctx.board
    h, kind, fshp, fsym, was_up = origin_piece(view, ctx.config, ctx.seat, origin)
    up = 0 if kind == CUBE else 1
    allowed, shp, sym = orientation_shows(kind, fshp if fshp >= 0 else 0,
                                          fsym if fsym >= 0 else 0, was_up, up)
    return strands_own_pawn(_scratch(ctx), view, ctx.config, ctx.seat, origin, h, dest, h, shp,
                            sym)


@njit_noalloc
def _lift_took_last_step(ctx):
    """At a place decision: whether the lift of the piece in hand took the own pawn's last step
    (board.placing_strands_own_pawn with no destination in the pawn's reach). Worked out once a
    decision: every placement out of the pawn's reach then strands it alike, so only those
    within reach are asked one by one (_placement_strands)."""
    view = ctx.board
    if not _reaches(ctx, view[V_HELD_ORIGIN], -1):
        return False
    return placing_strands_own_pawn(_scratch(ctx), view, ctx.config, ctx.seat, -1, 0, 0, 0)


@njit_noalloc(one_copy=True)
def _placement_strands(ctx, code, piece, joker, lift_took):
    """Whether putting the piece in hand down as placement `code` strands the own pawn:
    board.placing_strands_own_pawn, which reads the step the pawn had with the piece back on
    its origin (so a placement that gives back the step its lift took is preferred); for the
    joker (A57), placed once the move is over, board.strands_own_pawn on the board as it
    stands. A placement out of the pawn's reach strands it as the lift left it (`lift_took`,
    _lift_took_last_step; False for the joker); one within reach is asked on the decision's
    copy of the view (_scratch). `piece`: (height, kind, shapes, symbol, was face up)."""
    view = ctx.board
    dest = code >> 1
    if not _reaches(ctx, -1, dest):
        return lift_took
    h, kind, fshp, fsym, was_up = piece
    allowed, shp, sym = orientation_shows(kind, fshp, fsym, was_up, code & 1)
    b = _scratch(ctx)
    if joker:
        return strands_own_pawn(b, view, ctx.config, ctx.seat, -1, 0, dest, h, shp, sym)
    return placing_strands_own_pawn(b, view, ctx.config, ctx.seat, dest, h, shp, sym)


@njit_noalloc(inline="always")
def _leaves_a_step(ctx, k, placing, piece, lift_took):
    """Whether legal action k leaves the own pawn a step: an origin's lift, or a placement of
    the piece in hand (the joker declined, code 2 x N_SQUARES, always does)."""
    code = ctx.legal[k]
    if placing:
        return code >= 2 * N_SQUARES or not _placement_strands(ctx, code, piece, False,
                                                               lift_took)
    return not _move_strands(ctx, code, -1)


@njit_noalloc(one_copy=True)
def _uniform_leaving_a_step(ctx, placing, piece, lift_took):
    """A legal action drawn uniformly among those that leave the own pawn a step
    (_leaves_a_step), or among all where none or every one does: then the same draw as
    without the guard."""
    n_safe = 0
    for k in range(ctx.n_legal):
        if _leaves_a_step(ctx, k, placing, piece, lift_took):
            n_safe += 1
    if n_safe == 0 or n_safe == ctx.n_legal:
        return ctx.legal[stream_below(ctx.stream, ctx.n_legal)]
    j = stream_below(ctx.stream, n_safe)
    for k in range(ctx.n_legal):
        if _leaves_a_step(ctx, k, placing, piece, lift_took):
            if j == 0:
                return ctx.legal[k]
            j -= 1
    return ctx.legal[0]                                    # not reached


_NO_PIECE = (0, 0, 0, 0, 0)


@njit_noalloc
def explore_origin(ctx):
    """An exploring origin decision (strategic.EXPLORE): uniform among the origins whose lift
    leaves the own pawn a step (_uniform_leaving_a_step)."""
    _new_decision(ctx)
    return _uniform_leaving_a_step(ctx, False, _NO_PIECE, False)


@njit_noalloc
def _gain(need, h):
    """How much closer a plan square gets to its target when it changes by h hu."""
    return abs(need) - abs(need - h)


@njit_noalloc
def _harmless_origin(ctx, pawn, legal_origins, n_origins):
    """A movable board top off the plan (plan_places has indexed it) and away from the own
    pawn, far from the pillar; -1 if none."""
    best = -1
    best_score = -1
    ties = 0
    for i in range(n_origins):
        o = legal_origins[i]
        if o >= N_SQUARES or ctx.work[W_PLAN_AT + o] >= 0:
            continue
        if pawn >= 0 and chebyshev(o, pawn) <= 1 or _move_strands(ctx, o, -1):
            continue                            # the last: a pawn on a cable car (A31)
        score = chebyshev(o, PILLAR)
        if score > best_score:
            best_score = score
            best = o
            ties = 1
        elif score == best_score:
            ties += 1
            if stream_below(ctx.stream, ties) == 0:
                best = o
    return best


@njit_noalloc
def _piece_fits(ctx, origin, s):
    """Can the origin's piece (default orientation) be placed on s once the origin is
    lifted? Asked of the view itself, where the origin still holds it: a placement on s reads
    square s alone (A21-A27: place_is_legal), and one on the origin's own square is refused
    (placement_ok), so lifting the origin first would change no answer."""
    view = ctx.board
    t = ctx.config
    _, kind, fshp, fsym, was_up = origin_piece(view, t, ctx.seat, origin)
    up = 0 if kind == CUBE else 1
    allowed, shp, sym = orientation_shows(kind, fshp if fshp >= 0 else 0,
                                          fsym if fsym >= 0 else 0, was_up, up)
    return allowed and placement_ok(view, t, ctx.seat, shp, sym, s, origin)


@njit_noalloc
def build_origin(ctx):
    """Origin decision of `build`: the origin of the move that fixes the plan's first wrong
    square (see the module text); a harmless origin when the plan needs nothing."""
    dist, n = plan_for(ctx, ctx.seat)
    return build_origin_on_plan(ctx, n)


@njit_noalloc
def build_origin_on_plan(ctx, n):
    """build_origin with the plan (length n) already in W_PLAN/W_PLAN_G."""
    _new_decision(ctx)
    view = ctx.board
    t = ctx.config
    seat = ctx.seat
    work = ctx.work
    pawn = view[S_PAWN_SQ + seat]
    legal = ctx.legal
    n_legal = ctx.n_legal
    plan_places(work, n)
    for i in range(n):
        s = work[W_PLAN + i]
        need = work[W_PLAN_G + i] - view[B_H + s]
        if need == 0:
            continue
        if need < 0:
            # lower: take the top of s itself, if this seat may (for an odd drop under a cube
            # this is the first of two moves: the plan's cost counts both)
            if i == 0 and not own_square_change_ok(view, work, n, -view[V_TOP_H + s]):
                continue
            if view[V_MOVABLE + s] and legal_has(legal, n_legal, s):
                dest = _raise_target(ctx, n, view[V_TOP_H + s], i)
                if not _move_strands(ctx, s, dest):
                    stash(ctx, dest, n)
                    return s
            continue
        # raise: a half-cube for an odd gap, a cube otherwise (or a half if no cube fits)
        want = 1 if need % 2 == 1 else 2
        best = -1
        best_score = -1e300
        ties = 0
        for k in range(n_legal):
            o = legal[k]
            if o == ORIGIN_JOKER:
                continue
            h, kind, fshp, fsym, was_up = origin_piece(view, t, seat, o)
            if _gain(need, h) <= 0 or (i == 0 and not own_square_change_ok(view, work, n, h)):
                continue
            j = work[W_PLAN_AT + o] if o < N_SQUARES else -1
            if j == 0 and not own_square_change_ok(view, work, n, -h):
                continue                                   # the own square (D3): see there
            if o < N_SQUARES:
                if j >= 0 and not (view[B_H + o] > work[W_PLAN_G + j] and
                                   _gain(work[W_PLAN_G + j] - view[B_H + o], -h) > 0):
                    continue                               # would break the plan
                if pawn >= 0 and chebyshev(o, pawn) <= 1 and j < 0:
                    continue
            score = 10.0 * (h == want)
            if j >= 0:
                score += 5.0                               # a plan square that stands too high
            if o == ORIGIN_NEUTRAL or o == ORIGIN_SHAPED:
                score += 2.0 if want == 1 else 0.0
            if h == 2 and (fsym == SYM_LADDER or fsym == SYM_SPRING) and not was_up:
                score += 3.0                # a cube it remembers as a ladder or spring (§7)
            if o < N_SQUARES:
                score += 3.0 * chebyshev(o, PILLAR)        # take from the rim, not the stairs
            # whether the piece fits is asked only of an origin that would tie or lead: one
            # below the best so far changes nothing either way (and draws nothing)
            if score < best_score - 1e-9 or not _piece_fits(ctx, o, s) or \
                    _move_strands(ctx, o, s):
                continue
            if score > best_score + 1e-9:
                best_score = score
                best = o
                ties = 1
            elif abs(score - best_score) <= 1e-9:
                ties += 1
                if stream_below(ctx.stream, ties) == 0:
                    best = o
        if best >= 0:
            stash(ctx, s, n)
            return best
    o = _harmless_origin(ctx, pawn, legal, n_legal)
    if o < 0:
        o = explore_origin(ctx)              # the same draw where no origin strands the pawn
    h = origin_piece(view, t, seat, o)[0]
    stash(ctx, _raise_target(ctx, n, h, -1), n)
    return o


@njit_noalloc
def own_square_change_ok(view, work, n, change):
    """Whether the plan (length n) may change the own pawn's square, its first, by `change` hu.
    Under pawn_pins_stack=false pieces may be slid under the pawn or taken from under it (D3),
    and the search plans so. But the pawn must move in the same turn (A28), so such a move is
    worth making only as the one that lets it step onto the plan's next square now: it takes
    the square to its target exactly, and the next square needs nothing. Anything else leaves
    the pawn where no step may be legal: before this check, 23% of the hybrid's turns with such
    a move ended in a block (A38), against 2% of its other turns."""
    if n < 2:
        return False
    s = work[W_PLAN]
    nxt = work[W_PLAN + 1]
    return work[W_PLAN_G] - view[B_H + s] == change and work[W_PLAN_G + 1] == view[B_H + nxt]


@njit_noalloc
def _raise_target(ctx, n, h, skip):
    """The first plan square (not index skip) that a piece of height h brings closer to its
    target; -1 if none."""
    work = ctx.work
    for i in range(n):
        if i == skip:
            continue
        s = work[W_PLAN + i]
        need = work[W_PLAN_G + i] - ctx.board[B_H + s]
        if need > 0 and _gain(need, h) > 0 and \
                (i > 0 or own_square_change_ok(ctx.board, work, n, h)):
            return s
    return -1


@njit_noalloc(one_copy=True)
def build_place(ctx, joker):
    """Place decision of `build`: the plan square the held piece brings closest to its
    target (first on the plan first); else a harmless square, far from the pillar (onto the
    pillar when descending, to slow the climbers)."""
    _new_decision(ctx)
    view = ctx.board
    seat = ctx.seat
    work = ctx.work
    h, kind, fshp, fsym, was_up = held_piece(view)
    if joker:                                              # A57: the joker after the move
        h, kind = 1, JOKER
    piece = (h, kind, fshp, fsym, was_up)
    lift_took = False if joker else _lift_took_last_step(ctx)
    pawn = view[S_PAWN_SQ + seat]
    legal = ctx.legal
    n_legal = ctx.n_legal
    if not joker and work[W_STASH] == view[G_DECISIONS]:
        # the plan made at the origin decision (W_PLAN still holds it)
        n = work[W_STASH + 2]
        dest = work[W_STASH + 1]
        if dest >= 0:
            want = 2 * dest + (0 if kind == CUBE else 1)
            if kind == CUBE and _reveal_helps(view, fsym, was_up) and \
                    legal_has(legal, n_legal, want + 1) and \
                    not _placement_strands(ctx, want + 1, piece, joker, lift_took):
                return want + 1
            if legal_has(legal, n_legal, want) and \
                    not _placement_strands(ctx, want, piece, joker, lift_took):
                return want
    else:
        dist, n = plan_for(ctx, seat)
    for i in range(n):
        s = work[W_PLAN + i]
        need = work[W_PLAN_G + i] - view[B_H + s]
        if need <= 0 or _gain(need, h) <= 0 or \
                (i == 0 and not own_square_change_ok(view, work, n, h)):
            continue
        c = 2 * s + (0 if kind == CUBE else 1)
        if legal_has(legal, n_legal, c) and \
                not _placement_strands(ctx, c, piece, joker, lift_took):
            if kind == CUBE and _reveal_helps(view, fsym, was_up) and \
                    legal_has(legal, n_legal, c + 1) and \
                    not _placement_strands(ctx, c + 1, piece, joker, lift_took):
                return c + 1
            return c
    descending = view[S_SUMMIT + seat] != 0
    plan_places(work, n)
    best = -1
    best_score = -1e300
    ties = 0
    for k in range(ctx.n_legal):
        c = legal[k]
        if c >= 2 * N_SQUARES:
            continue
        if kind == CUBE and (c & 1):
            continue                                       # keep faces hidden
        d = c >> 1
        if work[W_PLAN_AT + d] >= 0 or (pawn >= 0 and chebyshev(d, pawn) <= 1) or \
                _placement_strands(ctx, c, piece, joker, lift_took):
            continue                            # the last: a pawn on a cable car (A31)
        score = 1.0 * chebyshev(d, PILLAR)
        if descending and d == PILLAR:
            score = 100.0
        if score > best_score:
            best_score = score
            best = c
            ties = 1
        elif score == best_score:
            ties += 1
            if stream_below(ctx.stream, ties) == 0:
                best = c
    if joker:
        return JOKER_DECLINE
    if best >= 0:
        return best
    # the last resort (the joker declined above): uniform among the placements that leave the
    # own pawn a step
    return _uniform_leaving_a_step(ctx, True, piece, lift_took)


@njit_noalloc
def _reveal_helps(view, symbol, was_up):
    """§7 information policy, for a cube going onto its own plan: show a ladder or a spring
    (they speed its climb), a mattress on the way down; keep everything else hidden."""
    if was_up:
        return False                                       # A16: it must go face down
    if symbol == SYM_LADDER or symbol == SYM_SPRING:
        return True
    return symbol == SYM_MATTRESS and view[S_SUMMIT + view[G_CURRENT]] != 0


@njit_noalloc
def pawn_decision(ctx):
    """Pawn or spring decision: least cost to go; then the most legal moves from there.
    The score, 4 x cost less at most 2, is what lets candidate_costs leave the dearest
    candidate without its cost, and spares counting the moves from a square whose cost alone
    puts it behind the best so far (no tie, no draw)."""
    if ctx.n_legal == 1:
        # forced: the choice below would make it with no draw (a draw needs a tie), so the
        # search is skipped (a fifth of stair-builder's pawn decisions)
        return ctx.legal[0]
    view = ctx.board
    t = ctx.config
    seat = ctx.seat
    work = ctx.work
    copy_board(view, work)
    stay = ctx.legal[ctx.n_legal - 1] == STAY
    n_squares = ctx.n_legal - (1 if stay else 0)
    candidate_costs(work, t, seat, work, top_heights(ctx), ctx.legal, n_squares, stay)
    s = view[S_PAWN_SQ + seat]
    goal = goal_square(work, t, seat)
    best = ctx.legal[0]
    best_score = 1e300
    ties = 0
    for i in range(ctx.n_legal):
        d = ctx.legal[i]
        if d == goal:
            return d                                       # the summit or the win (A40, A45)
        score = 1.0 * standing_cost(work, t, work, s if d == STAY else d)
        if score * 4.0 - 2.0 > best_score + 1e-9:
            continue              # not even the most moves from there reach the best so far
        if d == STAY:
            m = count_pawn_moves(work, t, seat, s)
        else:
            work[B_PAWN_ON + s] = -1
            work[B_PAWN_ON + d] = seat
            work[S_PAWN_SQ + seat] = d
            m = count_pawn_moves(work, t, seat, d)
            work[B_PAWN_ON + d] = -1
            work[B_PAWN_ON + s] = seat
            work[S_PAWN_SQ + seat] = s
        score = score * 4.0 - min(m, 2)
        if score < best_score - 1e-9:
            best_score = score
            best = d
            ties = 1
        elif abs(score - best_score) <= 1e-9:
            ties += 1
            if stream_below(ctx.stream, ties) == 0:
                best = d
    return best


@njit_noalloc
def climb_distances(ctx, out, hybrid_k):
    """The climb distances the target choice reads (strategic.choose_target): -1 for an
    inactive seat; the own seat's exact (INF if none), its plan left in W_PLAN; returns the
    plan's length. An opponent's is exact where it can be chosen and INF where it cannot: the
    hybrid (hybrid_k >= 0) targets one at most own - k away, the nearest first, and the
    blocker (hybrid_k < 0) the nearest; both take a seat with summit status first (the
    hybrid: a privileged one), and then read no distance at all. So each opponent's search
    stops at the bound its distance must meet to matter, and none runs where no distance
    can."""
    view = ctx.board
    seat = ctx.seat
    n_players = ctx.config[C_N_PLAYERS]
    d, n = plan_for(ctx, seat)
    summit_target = False
    for q in range(n_players):
        out[q] = -1
        if is_rival(ctx.config, seat, q) and view[S_ACTIVE + q] and view[S_SUMMIT + q]:
            if hybrid_k < 0 or view[G_PRIVILEGED] == q:
                summit_target = True
    out[seat] = d
    most = INF                      # the dearest opponent distance that can still matter
    if summit_target:
        most = -1
    elif hybrid_k >= 0 and d - hybrid_k < INF:
        # the largest distance e with e + k <= d, tested as choose_target tests it: floor(d - k)
        # can be one off where the float sums round (a k of 2**-51)
        most = np.int64(np.floor(d - hybrid_k)) if d - hybrid_k >= 0 else np.int64(-1)
        while most + 1 + hybrid_k <= d:
            most += 1
        while most >= 0 and not (most + hybrid_k <= d):
            most -= 1
    for q in range(n_players):
        if not is_rival(ctx.config, seat, q) or not view[S_ACTIVE + q]:
            continue
        out[q] = climb_distance_within(view, ctx.config, q, ctx.work, top_heights(ctx), most)
        if out[q] < INF:
            most = out[q] - 1       # only a strictly nearer one is chosen over it
    return n


@njit_noalloc(one_copy=True)
def block_move(ctx, target, placing):
    """The §7 blocker's piece move against `target`; _NO_MOVE if no candidate lowers the
    target's post-repair mobility. Returns an origin (placing=False) or a placement code."""
    view = ctx.board
    t = ctx.config
    seat = ctx.seat
    b = ctx.work
    copy_board(view, b)
    ts = view[S_PAWN_SQ + target]
    if ts < 0:
        return _NO_MOVE
    base = post_repair_mobility(b, view, t, target, -1)
    best_score = base
    best = _NO_MOVE
    if placing:
        h, kind, fshp, fsym, was_up = held_piece(view)
        for k in range(ctx.n_legal):
            c = ctx.legal[k]
            if c >= 2 * N_SQUARES:
                continue
            d = c >> 1
            if chebyshev(d, ts) > 1:
                continue            # the target's own square is legal under D3's variant only
            allowed, shp, sym = orientation_shows(kind, fshp, fsym, was_up, c & 1)
            m = _mobility_with_piece_on(b, view, t, target, d, h, shp, sym)
            if m < best_score and \
                    not placing_strands_own_pawn(b, view, t, seat, d, h, shp, sym):
                best_score = m
                best = c
        return best
    # The target's count once a piece is on its neighbour d reads the board only at the
    # target's square and the target's neighbours (A29-A30, post_repair_mobility), unless the
    # target stands on a cable car, whose rides read every square (A31). An origin over 2
    # squares away, or a reserve, leaves those as they are, so a piece (its height and what it
    # shows) needs counting on each neighbour once, whichever origin offers it
    keep_counts = b[B_SYMBOL + ts] != SYM_CABLE
    n_kept = 0
    for k in range(ctx.n_legal):
        o = ctx.legal[k]
        h, kind, fshp, fsym, was_up = origin_piece(view, t, seat, o)
        if o < N_SQUARES and chebyshev(o, ts) <= 1:
            # take the top off one of the target's neighbours (or, legal under
            # pawn_pins_stack=false only, D3, from under the target's pawn)
            saved = lift_top(b, view, o, h)
            m = post_repair_mobility(b, view, t, target, -1)
            restore(b, o, saved)
            if m < best_score and not strands_own_pawn(b, view, t, seat, o, h, -1, 0, 0, 0):
                best_score = m
                best = o
        elif o >= N_SQUARES or chebyshev(o, ts) > 2:
            # put this piece (face down, or as it shows) on a neighbour
            up = 0 if kind == CUBE else 1
            allowed, shp, sym = orientation_shows(kind, fshp if fshp >= 0 else 0,
                                                  fsym if fsym >= 0 else 0, was_up, up)
            if not allowed:
                continue
            kept = -1                   # where this piece's counts are kept (-1: nowhere)
            if keep_counts:
                signature = (sym * 65536 + shp) * 4 + h
                for i in range(n_kept):
                    if b[W_BLOCK_MEMO + MEMO_ROW * i] == signature:
                        kept = W_BLOCK_MEMO + MEMO_ROW * i + 1
                if kept < 0 and n_kept < MEMO_PIECES:
                    b[W_BLOCK_MEMO + MEMO_ROW * n_kept] = signature
                    kept = W_BLOCK_MEMO + MEMO_ROW * n_kept + 1
                    for j in range(8):
                        b[kept + j] = -1
                    n_kept += 1
            saved_o = (0, 0, 0, 0)
            if o < N_SQUARES:
                saved_o = lift_top(b, view, o, h)
            for j in range(8):
                d = NB[ts, j]
                if d < 0:
                    break
                if not placement_ok(b, t, seat, shp, sym, d, o):
                    continue
                if kept >= 0 and b[kept + j] >= 0:
                    m = b[kept + j]
                else:
                    m = _mobility_with_piece_on(b, view, t, target, d, h, shp, sym)
                    if kept >= 0:
                        b[kept + j] = m
                if m < best_score and \
                        not _lifted_move_strands(b, view, t, seat, o, saved_o, h, d, shp, sym):
                    best_score = m
                    best = o
            # under pawn_pins_stack=false (D3, A21) also under the target's pawn itself
            if not t[C_PAWN_PINS] and placement_ok(b, t, seat, shp, sym, ts, o):
                m = _mobility_with_piece_on(b, view, t, target, ts, h, shp, sym)
                if m < best_score and \
                        not _lifted_move_strands(b, view, t, seat, o, saved_o, h, ts, shp, sym):
                    best_score = m
                    best = o
            if o < N_SQUARES:
                restore(b, o, saved_o)
    return best


@njit_noalloc
def _lifted_move_strands(b, view, t, seat, o, saved_o, h, d, shp, sym):
    """strands_own_pawn for moving o's piece (h hu) onto d, asked while o is lifted on b
    (saved_o: what lift_top saved, for an origin on the board): b is put back as it was, asked,
    and lifted again (it needs the board before the move, to know whether the pawn had a
    step). Asked only of a move that would be the best so far."""
    if o < N_SQUARES:
        restore(b, o, saved_o)
    stranded = strands_own_pawn(b, view, t, seat, o, h, d, h, shp, sym)
    if o < N_SQUARES:
        lift_top(b, view, o, h)
    return stranded


@njit_noalloc
def _mobility_with_piece_on(b, view, t, target, d, h, shp, sym):
    """post_repair_mobility once a piece of h hu showing (shp, sym) is put on d, where it is
    locked for the target's repair (A12(d)); the board is left as it was."""
    saved = put_on(b, d, h, shp, sym)
    m = post_repair_mobility(b, view, t, target, d)
    restore(b, d, saved)
    return m


@njit_noalloc(inline="always")
def is_rival(t, seat, q):
    """A seat the blocker and the hybrid may target: another seat, and not the partner under
    the switch partnership (A48: partners win together)."""
    return q != seat and not is_partner(t, seat, q)


@njit_noalloc
def leader_of(ctx, distances):
    """§7: a seat with summit status (the privileged one first), else the least distance."""
    best = -1
    for q in range(ctx.config[C_N_PLAYERS]):
        if is_rival(ctx.config, ctx.seat, q) and ctx.board[S_ACTIVE + q] and \
                ctx.board[S_SUMMIT + q]:
            return q
    best_d = INF
    for q in range(ctx.config[C_N_PLAYERS]):
        if is_rival(ctx.config, ctx.seat, q) and distances[q] >= 0 and distances[q] < best_d:
            best_d = distances[q]
            best = q
    return best

