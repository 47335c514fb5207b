"""Dice Race bots. Both read the target from the packed rules, never the printed 30."""

from dice_race.engine import POLICY_SIGNATURE
from dice_race.state import BANK, C_TARGET, G_TURN_TOTAL, ROLL, S_SCORE
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
