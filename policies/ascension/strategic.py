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
from numba import njit

from policies.ascension.builder import (
    block_move, build_origin, build_place, climb_distances, leader_of, pawn_decision)
from policies.registry import register
from sim.core.rng import stream_below, stream_uniform
from sim.games.ascension.policy_api import POLICY_SIGNATURE
from sim.games.ascension.rules import C_N_PLAYERS
from sim.games.ascension.state import (
    G_PRIVILEGED, MAX_PLAYERS, PHASE_JOKER, PHASE_ORIGIN, PHASE_PLACE, S_ACTIVE, S_SUMMIT)

HYBRID_PARAMS = (2.0,)
EXPLORE = 0.1


@njit(cache=True)
def build_decision(ctx):
    if ctx.phase == PHASE_ORIGIN:
        if stream_uniform(ctx.stream) < EXPLORE:
            return ctx.legal[stream_below(ctx.stream, ctx.n_legal)]
        return build_origin(ctx)
    if ctx.phase == PHASE_PLACE:
        return build_place(ctx, False)
    if ctx.phase == PHASE_JOKER:
        return build_place(ctx, True)
    return pawn_decision(ctx)


@register("ascension", "stair-builder")
@njit(POLICY_SIGNATURE, cache=True)
def stair_builder(ctx):
    """Greedy on its own staircase plan (§7), remembering every face it has seen."""
    return build_decision(ctx)


@register("ascension", "stair-builder-forgetful", remembers=False)
@njit(POLICY_SIGNATURE, cache=True)
def stair_builder_forgetful(ctx):
    """The stair builder, forgetting hidden faces as soon as it puts a piece down."""
    return build_decision(ctx)


@njit(cache=True)
def block_or_build(ctx, target):
    if target >= 0 and (ctx.phase == PHASE_ORIGIN or ctx.phase == PHASE_PLACE):
        code = block_move(ctx, target, ctx.phase == PHASE_PLACE)
        if code >= 0:
            return code
    return build_decision(ctx)


@register("ascension", "blocker")
@njit(POLICY_SIGNATURE, cache=True)
def blocker(ctx):
    """Targets the leader with the move that leaves it fewest moves after its best repair."""
    if ctx.phase != PHASE_ORIGIN and ctx.phase != PHASE_PLACE:
        return build_decision(ctx)
    distances = np.empty(MAX_PLAYERS, np.int64)
    climb_distances(ctx, distances)
    return block_or_build(ctx, leader_of(ctx, distances))


@register("ascension", "hybrid", params=HYBRID_PARAMS)
@njit(POLICY_SIGNATURE, cache=True)
def hybrid(ctx):
    """Builds; blocks an opponent k piece moves closer to its goal, or a privileged descender."""
    if ctx.phase != PHASE_ORIGIN and ctx.phase != PHASE_PLACE:
        return build_decision(ctx)
    view = ctx.board
    distances = np.empty(MAX_PLAYERS, np.int64)
    climb_distances(ctx, distances)
    own = distances[ctx.seat]
    target = -1
    for q in range(ctx.config[C_N_PLAYERS]):
        if q == ctx.seat or not view[S_ACTIVE + q]:
            continue
        if view[G_PRIVILEGED] == q and view[S_SUMMIT + q]:
            target = q
            break
        if distances[q] >= 0 and distances[q] + ctx.params[0] <= own:
            if target < 0 or distances[q] < distances[target]:
                target = q
    return block_or_build(ctx, target)
