"""Open-loop MCTS (policies/mcts.py) over All-In Ascent's engine, in three rollout flavours.

- `mcts` rolls out uniform random legal actions and values a position by search.py's generic
  lead in milestones and stats. No planner, tuned or greedy code is compiled into it (a test
  checks that in a fresh process), so it is a witness independent of the planner family
  (`planner`, `tuned`, `lookahead`).
- `mcts-greedy` rolls out the `greedy` bot for every seat.
- `mcts-tuned` rolls out the tuned planner for every seat, each with its character's knobs:
  `lookahead`'s continuations in a search tree, with many more of them.

params: policies/mcts.py's six (iterations, rollout depth, exploration, widening, tree depth,
margin; `mcts@N` runs N iterations per decision), then, for `mcts-tuned`, the five
characters' planner knobs (tuned.py's layout).
"""
import numpy as np
from numba import njit

from policies.all_in_ascent import greedy, tuned
from policies.mcts import P_ITERATIONS, context_rollout_type, make_mcts, search_bot, search_of
from sim.core.game import get_game
from sim.core.policies import register
from sim.games.all_in_ascent.policy_api import CONTEXT_TYPE, MAX_POLICY_PARAMS, POLICY_SIGNATURE
from sim.games.all_in_ascent.memory import SEARCH_WORK_SIZE

# iterations, depth, exploration, widening, tree depth, margin (results/MCTS.md measures them:
# mcts-tuned's widening and margin lifted its share of the wins against lookahead from 25%
# to 55% at 32 iterations)
MCTS_DEFAULTS = (200.0, 40.0, 0.7, 0.0, 0.0, 0.0)
MCTS_TUNED_DEFAULTS = (32.0, 40.0, 0.7, 1.0, 0.0, 0.15) + tuple(
    tuned.tuned_vector(tuned.load_tuned()))
assert len(MCTS_TUNED_DEFAULTS) <= MAX_POLICY_PARAMS

search = get_game("all-in-ascent").search           # game.toml search_module
decide = search_of(search)      # the one compiled search of every bot below
ROLLOUT_TYPE = context_rollout_type(CONTEXT_TYPE)
random_rollouts = make_mcts(search)
greedy_rollouts = make_mcts(search, greedy)
tuned_rollouts = make_mcts(search, tuned)


@njit(cache=True)
def searching(ctx, rollout):
    """The search's decision for ctx, with `rollout` (a function value of ROLLOUT_TYPE): one
    compiled function for the three bots, cached."""
    return decide(ctx.state, ctx.tables, ctx.seat, ctx.legal, ctx.n_legal, ctx.stream,
                  ctx.params, np.zeros(SEARCH_WORK_SIZE, np.int64), rollout)


mcts_policy = register(
    "all-in-ascent", "mcts", params=MCTS_DEFAULTS, budget_param=P_ITERATIONS,
    description="Open-loop MCTS, random rollouts, generic evaluation: no planner code")(
    search_bot(searching, POLICY_SIGNATURE, None, ROLLOUT_TYPE))
mcts_greedy_policy = register(
    "all-in-ascent", "mcts-greedy", params=MCTS_DEFAULTS, budget_param=P_ITERATIONS,
    family="greedy", description="Open-loop MCTS with greedy rollouts.")(
    search_bot(searching, POLICY_SIGNATURE, greedy, ROLLOUT_TYPE))
mcts_tuned_policy = register(
    "all-in-ascent", "mcts-tuned", params=MCTS_TUNED_DEFAULTS, budget_param=P_ITERATIONS,
    plays_tuned_knobs=True, family="planner",
    description="Open-loop MCTS with tuned-planner rollouts.")(
    search_bot(searching, POLICY_SIGNATURE, tuned, ROLLOUT_TYPE))
