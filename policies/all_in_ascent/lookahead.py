"""`lookahead`: try candidate actions in imagined continuations and keep the best.

For each of up to k candidate actions (the tuned planner's choice first, then other legal
actions in an order drawn from this policy's own stream), it plays M continuations of `depth`
actions from a copy of the state, every seat played by the planner with the tuned knobs of its
character, and scores the end of each: 1 for a win of its seat, 0 for another seat's win,
otherwise its milestone and stat lead over the best opponent, squashed into (0, 1).

No peeking: in the real game everything still hidden (dice, route refreshes, shop draws) comes
from the game's RNG state. Each copy gets a fresh RNG state drawn from this policy's own stream,
so its dice are imagined, never the real game's future. Two states that differ only in the
game's RNG state get the same decision from the same policy stream (tested).

params: 0 k (candidates), 1 M (continuations per candidate), 2 depth (actions per continuation),
3 margin (another candidate replaces the planner's choice only if its mean value is higher by
this much: a few noisy continuations should not overrule a good default), then the five
characters' planner knobs (tuned.py's layout) for the continuations.
"""
import numpy as np
from numba import njit

from policies.all_in_ascent.planner import N_PLANNER_KNOBS, plan
from policies.all_in_ascent.tuned import load_tuned, tuned_vector
from sim.core.jit import copy_into
from sim.core.policies import compiled_on_use, register
from sim.core.rng import stream_below
from sim.games.all_in_ascent.engine import apply_action, legal_actions, pbase
from sim.games.all_in_ascent.policy_api import POLICY_SIGNATURE, PolicyContext
from sim.games.all_in_ascent.search import outcome_value
from sim.games.all_in_ascent.state import (
    G_CURRENT, G_OVER, G_RNG, N_ACTIONS, P_CHARACTER, STATE_SIZE, TRACE_SIZE)

# k=2, M=2, depth 40: measured against `tuned` (4 players, 400 games each, seats alternated,
# master seed 77) it wins +24 points [+14, +34] more often at 41 games/s; k=4, M=4, depth 120
# wins +42 [+33, +51] at 4.7 games/s. The default is the budget a 20,000-game ladder can afford;
# pass a larger one through the parameters.
LOOKAHEAD_BUDGET = (2.0, 2.0, 40.0, 0.15)
N_BUDGET = len(LOOKAHEAD_BUDGET)
LOOKAHEAD_DEFAULTS = LOOKAHEAD_BUDGET + tuple(tuned_vector(load_tuned()))


@njit(cache=True)
def knobs_of(st, seat, knobs):
    c = st[pbase(seat) + P_CHARACTER]
    return knobs[c * N_PLANNER_KNOBS:(c + 1) * N_PLANNER_KNOBS]


@njit(cache=True)
def rollout(st, t, seat, first_action, depth, imagined_rng, knobs, work, legal, trace,
            policy_work):
    """Play `first_action` then `depth` planner actions on `work`, a copy of st whose RNG state
    is `imagined_rng`; return the value for `seat`. `policy_work`: the planner's work memory
    (the real decision's ctx.work: the planner keeps nothing in it between decisions)."""
    copy_into(work, st)
    work[G_RNG] = imagined_rng
    apply_action(work, t, first_action, trace)
    streams = np.zeros(1, np.uint64)   # the planner draws nothing; its context needs a stream
    for _ in range(depth):
        if work[G_OVER] != 0:
            break
        n = legal_actions(work, t, legal)
        mover = work[G_CURRENT]
        params = knobs_of(work, mover, knobs)
        ctx = PolicyContext(work, np.int64(mover), legal, np.int64(n), t, streams, params,
                            policy_work)
        apply_action(work, t, plan(ctx, params), trace)
    return outcome_value(work, seat)


@register("all-in-ascent", "lookahead", params=LOOKAHEAD_DEFAULTS, plays_tuned_knobs=True,
          family="planner")
@compiled_on_use(POLICY_SIGNATURE)
def lookahead_policy(ctx):
    """Planner rollouts from imagined dice; picks the best average outcome."""
    n = ctx.n_legal
    if n == 1:
        return ctx.legal[0]
    k = min(n, max(1, int(ctx.params[0])))
    m = max(1, int(ctx.params[1]))
    depth = max(0, int(ctx.params[2]))
    margin = ctx.params[3]
    knobs = ctx.params[N_BUDGET:N_BUDGET + 5 * N_PLANNER_KNOBS]
    first = plan(ctx, knobs_of(ctx.state, ctx.seat, knobs))
    # candidates: the planner's choice, then others in an order from our own stream
    order = ctx.legal[:n].copy()
    for i in range(n - 1, 0, -1):
        j = stream_below(ctx.stream, i + 1)
        order[i], order[j] = order[j], order[i]
    candidates = np.empty(k, np.int64)
    candidates[0] = first
    c = 1
    for i in range(n):
        if c >= k:
            break
        if order[i] != first:
            candidates[c] = order[i]
            c += 1
    # the same imagined dice for every candidate (common random numbers), from our own stream
    imagined = np.empty(m, np.int64)
    for r in range(m):
        imagined[r] = stream_below(ctx.stream, 1 << 32)
    work = np.empty(STATE_SIZE, np.int64)
    legal = np.empty(N_ACTIONS, np.int64)
    trace = np.empty(TRACE_SIZE, np.int64)
    best = first
    best_value = -1.0
    first_value = 0.0
    for ci in range(c):
        total = 0.0
        for r in range(m):
            total += rollout(ctx.state, ctx.tables, ctx.seat, candidates[ci], depth, imagined[r],
                             knobs, work, legal, trace, ctx.work)
        mean = total / m
        if ci == 0:
            first_value = mean
            best_value = mean
        elif mean > best_value and mean >= first_value + margin:
            best_value = mean
            best = candidates[ci]
    return best
