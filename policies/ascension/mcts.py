"""Open-loop MCTS (policies/mcts.py) over Ascension's engine: `mcts` and `mcts-hybrid`.

A bot sees only its view, so each decision first builds a full state the seat cannot tell from
the real one (view.sample_state: the cubes it has not seen dealt at random from its own stream);
every iteration then deals those cubes again (search.hide_future). The rollouts are uniform
legal actions and the estimate is search.py's generic race progress: no staircase-bot code is
compiled into it, so it is a witness independent of `stair-builder`, `blocker` and `hybrid`.

`mcts-hybrid` rolls out `hybrid` for every seat (strategic.rollout, each seat on its own view of
the imagined state), and a node's first child is hybrid's choice; the margin keeps hybrid's own
choice at the root unless another action's mean value beats it by that much (as `mcts-tuned`
does for All-In Ascent). It is a search on top of the strongest bot, not an independent witness.

params: policies/mcts.py's six (iterations, rollout depth, exploration, widening, tree depth,
margin); `mcts@N` runs N iterations per decision; then, for `mcts-hybrid`, hybrid's k.
"""
import numpy as np
from numba import njit

from policies.ascension import strategic
from policies.mcts import P_ITERATIONS, context_rollout_type, make_mcts, search_bot, search_of
from sim.core.game import get_game
from sim.core.policies import register
from sim.games.ascension.policy_api import CONTEXT_TYPE, MAX_POLICY_PARAMS, POLICY_SIGNATURE
from sim.games.ascension.state import STATE_SIZE
from sim.games.ascension.view import sample_state

# iterations, rollout depth, exploration, widening, tree depth, margin
MCTS_DEFAULTS = (200.0, 12.0, 0.7, 1.0, 0.0, 0.0)
MCTS_HYBRID_DEFAULTS = (16.0, 12.0, 0.7, 1.0, 0.0, 0.1) + strategic.HYBRID_PARAMS
assert len(MCTS_HYBRID_DEFAULTS) <= MAX_POLICY_PARAMS

search = get_game("ascension").search           # game.toml search_module
decide = search_of(search)      # the one compiled search of both bots below
ROLLOUT_TYPE = context_rollout_type(CONTEXT_TYPE, tables="config")
random_rollouts = make_mcts(search)
hybrid_rollouts = make_mcts(search, strategic)


@njit(cache=True)
def searching(ctx, rollout):
    """The search's decision over states sampled from ctx's view, with `rollout` (a function
    value of ROLLOUT_TYPE): one compiled function for both bots, cached. The rollout bots'
    memory is hybrid's (uniform rollouts ignore it)."""
    st = np.empty(STATE_SIZE, np.int64)
    if not sample_state(ctx.board, ctx.config, ctx.seat, ctx.stream, st):
        return -1               # a view the sampler cannot fit: the kernel's policy error
    scratch = np.zeros(strategic.ROLLOUT_WORK_SIZE, np.int64)
    return decide(st, ctx.config, ctx.seat, ctx.legal, ctx.n_legal, ctx.stream, ctx.params,
                  scratch, rollout)


mcts_policy = register(
    "ascension", "mcts", params=MCTS_DEFAULTS, budget_param=P_ITERATIONS,
    description="Open-loop MCTS over states sampled from the view, random rollouts, generic "
                "race estimate: no staircase-bot code.")(
    search_bot(searching, POLICY_SIGNATURE, None, ROLLOUT_TYPE))
mcts_hybrid_policy = register(
    "ascension", "mcts-hybrid", params=MCTS_HYBRID_DEFAULTS, budget_param=P_ITERATIONS,
    family="stair-builder",
    description="Open-loop MCTS over states sampled from the view, hybrid rollouts and first "
                "children.")(
    search_bot(searching, POLICY_SIGNATURE, strategic, ROLLOUT_TYPE))
