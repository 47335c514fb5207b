"""What a First Ascent policy receives and must return.

A policy is a numba function compiled with POLICY_SIGNATURE: it takes one PolicyContext and
returns one of `ctx.legal[:ctx.n_legal]`. The engine asks it at every choice the rules give a
player (state.py lists the decisions D_* and their codes); a choice with a single legal code
is taken without asking.

    PolicyContext
      state    int64[:]    the game state (layout: state.py). A policy may read the public
                           part (F25: boards, routes, tracks, technique and permanent tokens,
                           tiles) and its own seat's hand, Summit Beta tokens and personal
                           objectives. It must not read other hands, the deck orders or the
                           rng field; no bundled policy does.
      tables   int64[:]    the data tables and rule options (data.py T_*, rules.py C_*)
      seat     int64       the deciding seat
      decision int64       state.D_*
      legal    int64[:]    legal action codes, valid up to n_legal
      n_legal  int64
      stream   uint64[:1]  this seat's own random stream (never the game's)
      params   float64[:]  this seat's parameter vector
      work     int64[:]    memory shared by the game's policies, zeroed at the start of every
                           game, in the blocks memory.py declares: a per-decision area any
                           decision may overwrite, then each bot's caches
"""
from collections import namedtuple

import numpy as np
from numba import types, typeof

from sim.games.first_ascent.memory import WORK_SIZE
from sim.games.first_ascent.rules import RULES_SIZE
from sim.games.first_ascent.state import MAX_LEGAL, STATE_SIZE

# `tables` comes second on purpose: numba conflates two namedtuple types of one name whose
# field types print alike, and Ascension's context has (array, int, int, array, int, array,
# ...) too. A different layout keeps the two policy signatures apart in one process.
PolicyContext = namedtuple("PolicyContext", ["state", "tables", "seat", "decision", "legal",
                                             "n_legal", "stream", "params", "work"])
MAX_POLICY_PARAMS = 160       # tuned: 12 characters x 12 planner knobs


def _example_context():
    return PolicyContext(np.zeros(STATE_SIZE, np.int64), np.zeros(RULES_SIZE, np.int64),
                         np.int64(0), np.int64(0), np.zeros(MAX_LEGAL, np.int64), np.int64(0),
                         np.zeros(1, np.uint64),
                         np.zeros(MAX_POLICY_PARAMS, np.float64), np.zeros(WORK_SIZE, np.int64))


CONTEXT_TYPE = typeof(_example_context())
POLICY_SIGNATURE = types.int64(CONTEXT_TYPE)
