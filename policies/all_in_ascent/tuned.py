"""`tuned`: the planner with knobs optimised per character (CMA-ES, `ascent tune`).

The vectors are data: policies/all_in_ascent/tuned.json holds, per character, the planner's knobs
(planner.PLANNER_KNOBS) and the command and figures that produced them. A character without a
stored vector plays the planner's defaults. The parameter vector handed to the policy is the five
characters' knob vectors end to end; the policy reads the slice of the character it plays.
"""
from pathlib import Path

import numpy as np

from policies import cmaes
from policies.all_in_ascent.planner import N_PLANNER_KNOBS, PLANNER_DEFAULTS, PLANNER_KNOBS, plan
from policies.mcts import N_SEARCH_PARAMS
from sim.core.jit import njit_noalloc
from sim.core.policies import compiled_on_use, register
from sim.games.all_in_ascent.data import CHARACTER_KEYS
from sim.games.all_in_ascent.engine import pbase
from sim.games.all_in_ascent.memory import S_POLICY_WORK, S_ROLLOUT_KNOBS
from sim.games.all_in_ascent.policy_api import MAX_POLICY_PARAMS, POLICY_SIGNATURE, PolicyContext
from sim.games.all_in_ascent.state import G_CURRENT, P_CHARACTER

TUNED_PATH = Path(__file__).with_name("tuned.json")
assert len(CHARACTER_KEYS) * N_PLANNER_KNOBS <= MAX_POLICY_PARAMS


def load_tuned(path=TUNED_PATH):
    """{character: knob vector} from the stored file; a clear error if it is malformed."""
    return cmaes.load_knob_vectors(path, CHARACTER_KEYS, PLANNER_KNOBS)


def tuned_vector(vectors):
    """The policy's parameter vector: every character's knobs, defaults where none is stored."""
    out = []
    for key in CHARACTER_KEYS:
        out.extend(vectors.get(key, PLANNER_DEFAULTS))
    return np.asarray(out, np.float64)


@register("all-in-ascent", "tuned", params=tuned_vector(load_tuned()), plays_tuned_knobs=True,
          family="planner")
@compiled_on_use(POLICY_SIGNATURE, noalloc=True)
def tuned_policy(ctx):
    """The planner with per-character tuned knobs (policies/all_in_ascent/tuned.json)."""
    c = ctx.state[pbase(ctx.seat) + P_CHARACTER]
    return plan(ctx, ctx.params[c * N_PLANNER_KNOBS:(c + 1) * N_PLANNER_KNOBS])


@njit_noalloc(first_class=True)   # called by address (policies/mcts.py rollout_value)
def rollout(st, t, legal, n, stream, params, work):
    """The tuned planner for whichever seat moves, with its character's knobs, which a search
    keeps after its own parameters: a search's rollout bot (policies/mcts.py). `work`: the
    search's scratch (memory.SEARCH_WORK_SIZE), whose S_POLICY_WORK block is the bot's work
    memory."""
    seat = st[G_CURRENT]
    start = N_SEARCH_PARAMS + st[pbase(seat) + P_CHARACTER] * N_PLANNER_KNOBS
    knobs = params[start:start + N_PLANNER_KNOBS]
    return plan(PolicyContext(st, np.int64(seat), legal, np.int64(n), t, stream, knobs,
                              work[S_POLICY_WORK:S_ROLLOUT_KNOBS]), knobs)
