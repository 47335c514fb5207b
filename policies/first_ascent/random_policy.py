"""`random`: a uniformly random legal action at every decision, from the seat's own stream."""
from sim.core.policies import register
from sim.core.jit import njit_noalloc
from sim.core.rng import stream_below
from sim.games.first_ascent.policy_api import POLICY_SIGNATURE


@register("first-ascent", "random")
@njit_noalloc(POLICY_SIGNATURE)
def random_policy(ctx):
    """uniformly random legal action"""
    return ctx.legal[stream_below(ctx.stream, ctx.n_legal)]
