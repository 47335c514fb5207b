"""`random`: uniform over the legal actions, from the seat's own stream."""

from sim.core.policies import compiled_on_use, register
from sim.core.rng import stream_below
from sim.games.all_in_ascent.policy_api import POLICY_SIGNATURE


@register("all-in-ascent", "random")
@compiled_on_use(POLICY_SIGNATURE)
def random_policy(ctx):
    """Uniform over the legal actions."""
    return ctx.legal[stream_below(ctx.stream, ctx.n_legal)]
