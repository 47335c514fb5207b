"""The goal-directed Ascension bots of RULES.md §7: `stair-builder`, `blocker`, `hybrid`, and
`stair-builder-forgetful` (the stair builder with a view that forgets hidden faces, §6 Q10).

All share builder.py (staircase plan, piece and pawn moves). They differ in the piece move:
- stair-builder: builds its own staircase (builder.build_origin / build_place);
- blocker: targets the leader (a seat with summit status, else the least climb distance)
  with the move that leaves it fewest legal moves after its best repair; builds when no
  move lowers that;
- hybrid: builds, and blocks an opponent whose climb distance is at least `k` below its own,
  or a privileged opponent on its way down.

Parameters: [k] (hybrid only).
"""
import numpy as np

from policies.ascension.builder import (
    block_move, build_origin, build_origin_on_plan, build_place, climb_distances,
    explore_origin, is_rival, leader_of, pawn_decision, stash_target, stashed_target)
from policies.ascension.staircase import W_DISTANCES
from policies.mcts import N_SEARCH_PARAMS
from sim.core.jit import njit_noalloc
from sim.core.policies import compiled_on_use, register
from sim.core.rng import stream_uniform
from sim.games.ascension.policy_api import POLICY_SIGNATURE, WORK_SIZE, PolicyContext
from sim.games.ascension.rules import C_N_PLAYERS
from sim.games.ascension.state import (
    G_CURRENT, G_PHASE, G_PRIVILEGED, MAX_PLAYERS, PHASE_JOKER, PHASE_ORIGIN, PHASE_PLACE,
    S_ACTIVE, S_SUMMIT)
from sim.games.ascension.view import VIEW_END, WHOLE, build_view

HYBRID_PARAMS = (2.0,)
# every bot here reads its view's tops only, never the per-piece block (view.py), which
# spares building it: in the kernel (registered so) and in the search's rollouts (rollout)
READS_PIECE_SLOTS = False
EXPLORE = 0.1


@njit_noalloc
def build_decision(ctx):
    if ctx.phase == PHASE_ORIGIN:
        if stream_uniform(ctx.stream) < EXPLORE:
            return explore_origin(ctx)
        return build_origin(ctx)
    if ctx.phase == PHASE_PLACE:
        return build_place(ctx, False)
    if ctx.phase == PHASE_JOKER:
        return build_place(ctx, True)
    return pawn_decision(ctx)


@register("ascension", "stair-builder", reads_piece_slots=READS_PIECE_SLOTS)
@compiled_on_use(POLICY_SIGNATURE, noalloc=True)
def stair_builder(ctx):
    """Greedy on its own staircase plan (§7), remembering every face it has seen."""
    return build_decision(ctx)


@register("ascension", "stair-builder-forgetful", remembers=False, family="stair-builder",
          reads_piece_slots=READS_PIECE_SLOTS)
@compiled_on_use(POLICY_SIGNATURE, noalloc=True)
def stair_builder_forgetful(ctx):
    """The stair builder, forgetting hidden faces as soon as it puts a piece down."""
    return build_decision(ctx)


@njit_noalloc
def block_or_build(ctx, target, n_plan):
    """Origin decision: block `target` if a move hurts it, else build on the own plan (already
    in W_PLAN, length n_plan). The choice is stashed for the place decision."""
    if target >= 0:
        code = block_move(ctx, target, False)
        if code >= 0:
            stash_target(ctx, target)
            return code
    if stream_uniform(ctx.stream) < EXPLORE:
        stash_target(ctx, -1)
        return explore_origin(ctx)
    return build_origin_on_plan(ctx, n_plan)


@njit_noalloc
def place_after(ctx):
    """Place decision of the blocker and the hybrid: finish the move begun at the origin."""
    target = stashed_target(ctx)
    if target >= 0:
        code = block_move(ctx, target, True)
        if code >= 0:
            return code
    return build_place(ctx, False)


@njit_noalloc
def choose_target(ctx, distances, hybrid_k):
    """The blocker's leader (hybrid_k < 0), or the hybrid's target: a privileged descender, or
    the opponent at least k piece moves closer to its goal; -1 for none."""
    if hybrid_k < 0:
        return leader_of(ctx, distances)
    view = ctx.board
    own = distances[ctx.seat]
    target = -1
    for q in range(ctx.config[C_N_PLAYERS]):
        if not is_rival(ctx.config, ctx.seat, q) or not view[S_ACTIVE + q]:
            continue
        if view[G_PRIVILEGED] == q and view[S_SUMMIT + q]:
            return q
        if distances[q] >= 0 and distances[q] + hybrid_k <= own:
            if target < 0 or distances[q] < distances[target]:
                target = q
    return target


@njit_noalloc
def strategic_decision(ctx, hybrid_k):
    if ctx.phase == PHASE_ORIGIN:
        distances = ctx.work[W_DISTANCES:W_DISTANCES + MAX_PLAYERS]
        n_plan = climb_distances(ctx, distances, hybrid_k)
        return block_or_build(ctx, choose_target(ctx, distances, hybrid_k), n_plan)
    if ctx.phase == PHASE_PLACE:
        return place_after(ctx)
    return build_decision(ctx)


@register("ascension", "blocker", family="stair-builder",
          reads_piece_slots=READS_PIECE_SLOTS)
@compiled_on_use(POLICY_SIGNATURE, noalloc=True)
def blocker(ctx):
    """Targets the leader with the move that leaves it fewest moves after its best repair."""
    return strategic_decision(ctx, -1.0)


@register("ascension", "hybrid", params=HYBRID_PARAMS, family="stair-builder",
          reads_piece_slots=READS_PIECE_SLOTS)
@compiled_on_use(POLICY_SIGNATURE, noalloc=True)
def hybrid(ctx):
    """Builds; blocks an opponent k piece moves closer to its goal, or a privileged descender."""
    return strategic_decision(ctx, ctx.params[0])


# A search's scratch (policies/mcts.py `work`) for `rollout`: the bots' memory, then a view.
ROLLOUT_WORK_SIZE = WORK_SIZE + VIEW_END


@njit_noalloc(first_class=True)   # called by address (policies/mcts.py rollout_value)
def rollout(st, t, legal, n, stream, params, work):
    """`hybrid` for whichever seat moves, on that seat's view of the search's imagined state,
    with k after the search's own parameters: a search's rollout bot (policies/mcts.py).
    `work` holds the bots' memory (zeroed by the caller once per search) and the view. An
    answer that is not legal (none is expected) becomes the first legal action, since a
    search steps its rollouts without the kernel's check."""
    seat = st[G_CURRENT]
    view = work[WORK_SIZE:ROLLOUT_WORK_SIZE]
    build_view(st, t, seat, True, view, READS_PIECE_SLOTS, WHOLE)
    ctx = PolicyContext(view, np.int64(seat), st[G_PHASE], legal, np.int64(n), t, stream,
                        params[N_SEARCH_PARAMS:], work[:WORK_SIZE])
    action = strategic_decision(ctx, params[N_SEARCH_PARAMS])
    for i in range(n):
        if legal[i] == action:
            return action
    return legal[0]
