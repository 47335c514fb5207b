"""`tuned`: the planner with knobs optimised per character (CMA-ES, `ascent tune --game
first-ascent`). policies/first_ascent/tuned.json holds, per character, the planner's knobs
(planner.PLANNER_KNOBS) and the command and figures that produced them; a character without
a stored vector plays the planner's defaults. The parameter vector is the twelve characters'
knob vectors end to end; the policy reads the slice of the character it plays.
"""
from pathlib import Path

import numpy as np

from policies import cmaes
from policies.first_ascent.planner import DEFAULT_PARAMS, N_KNOBS, PLANNER_KNOBS, decide
from sim.core.policies import compiled_on_use, register
from sim.games.first_ascent.data import CHARACTER_KEYS
from sim.games.first_ascent.policy_api import MAX_POLICY_PARAMS, POLICY_SIGNATURE
from sim.games.first_ascent.state import S_CHAR, SEAT_FIELDS

TUNED_PATH = Path(__file__).with_name("tuned.json")
KEYS = [CHARACTER_KEYS[i] for i in range(1, 13)]        # character id i at slice i - 1
assert len(KEYS) * N_KNOBS <= MAX_POLICY_PARAMS


def load_tuned(path=TUNED_PATH):
    """{character: knob vector} from the stored file; a clear error if it is malformed."""
    return cmaes.load_knob_vectors(path, KEYS, PLANNER_KNOBS)


def tuned_vector(vectors):
    out = []
    for key in KEYS:
        out.extend(vectors.get(key, DEFAULT_PARAMS))
    return np.asarray(out, np.float64)


@register("first-ascent", "tuned", params=tuned_vector(load_tuned()), plays_tuned_knobs=True,
          family="planner")
@compiled_on_use(POLICY_SIGNATURE, noalloc=True)
def tuned_policy(ctx):
    """the planner with per-character tuned knobs (policies/first_ascent/tuned.json)"""
    c = ctx.state[S_CHAR + ctx.seat * SEAT_FIELDS]
    return decide(ctx, ctx.params[(c - 1) * N_KNOBS:c * N_KNOBS])
