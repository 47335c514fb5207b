"""`random`: a uniformly random legal action at every decision, from the seat's own stream."""
from sim.core.policies import compiled_on_use, register
from sim.core.rng import stream_below
from sim.games.first_ascent.policy_api import POLICY_SIGNATURE


@register("first-ascent", "random")
@compiled_on_use(POLICY_SIGNATURE, noalloc=True)
def random_policy(ctx):
    """uniformly random legal action"""
    return ctx.legal[stream_below(ctx.stream, ctx.n_legal)]
