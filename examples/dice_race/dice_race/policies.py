"""Dice Race bots. They read the target from the packed rules, never the printed 30."""

import numpy as np
from numba import njit

from dice_race.engine import CONTEXT_TYPE, POLICY_SIGNATURE
from policies.mcts import P_ITERATIONS, context_rollout_type, make_mcts, search_bot, search_of
from dice_race.state import BANK, C_TARGET, G_TURN_TOTAL, ROLL, S_SCORE
from sim.core.game import get_game
from sim.core.policies import compiled_on_use, register
from sim.core.rng import stream_below


@register("dice-race", "random")
@compiled_on_use(POLICY_SIGNATURE)
def random_policy(ctx):
    """Roll or bank with even odds."""
    return ctx.legal[stream_below(ctx.stream, ctx.n_legal)]


@register("dice-race", "hold-at", params=(20.0,))
@compiled_on_use(POLICY_SIGNATURE)
def hold_at_policy(ctx):
    """Bank once the turn total reaches params[0] (20), or when banking wins (D5)."""
    total = ctx.state[G_TURN_TOTAL]
    if ctx.state[S_SCORE + ctx.seat] + total >= ctx.config[C_TARGET]:
        return BANK
    return BANK if total >= ctx.params[0] else ROLL



search = get_game("dice-race").search    # game.toml search_module
decide = search_of(search)
random_rollouts = make_mcts(search)


@njit(cache=True)
def searching(ctx, rollout):
    """ascent's open-loop MCTS (policies/mcts.py) for ctx, with `rollout` (a function value)."""
    return decide(ctx.state, ctx.config, ctx.seat, ctx.legal, ctx.n_legal, ctx.stream,
                  ctx.params, np.empty(0, np.int64), rollout)


mcts_policy = register(
    "dice-race", "mcts", params=(200.0, 20.0, 0.7, 0.0), budget_param=P_ITERATIONS,
    description="ascent's open-loop MCTS (policies/mcts.py), random rollouts: params "
                "iterations, rollout depth, exploration, widening.")(
    search_bot(searching, POLICY_SIGNATURE, None, context_rollout_type(CONTEXT_TYPE, "config")))
