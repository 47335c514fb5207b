"""What an All-In Ascent policy receives and must return.

A policy is a numba function compiled with POLICY_SIGNATURE: it takes one PolicyContext and
returns one of `ctx.legal[:ctx.n_legal]`. Like vectorbt's order functions it is a callback: it
reads the state and never writes it, and it draws only from `ctx.stream`, its own splitmix64
stream (sim.core.rng.stream_below / stream_uniform), never from the game's mulberry32 stream.

    PolicyContext
      state    int64[:]    the game (layout: state.py); read only
      seat     int64       the seat this policy plays (== state[G_CURRENT])
      legal    int64[:]    legal action codes, in R22 order, valid up to n_legal
      n_legal  int64
      tables   int64[:]    the packed rules, flat (rules.py: read with rules.at and F_*)
      stream   uint64[:1]  this seat's own random stream
      params   float64[:]  this seat's parameter vector (knobs of a tunable policy)
      work     int64[:]    scratch memory (WORK_SIZE), zeroed at the start of every game and
                           shared by the game's seats, in the blocks memory.py declares; a
                           decision may overwrite all of it

Helpers a policy may call: everything in engine.py that does not take a trace, and
probability.climb_success_probability_in (with ctx.work).
"""
from collections import namedtuple

import numpy as np
from numba import types, typeof

from sim.games.all_in_ascent.memory import WORK_SIZE
from sim.games.all_in_ascent.state import N_ACTIONS, STATE_SIZE

PolicyContext = namedtuple("PolicyContext", ["state", "seat", "legal", "n_legal", "tables",
                                             "stream", "params", "work"])

MAX_POLICY_PARAMS = 32


def _example_context():
    # only the fields' types are read: packing real rules here would compile the probability
    # tables' builder at every import (the packed tables are a flat C-ordered int64 array)
    return PolicyContext(np.zeros(STATE_SIZE, np.int64), np.int64(0),
                         np.zeros(N_ACTIONS, np.int64), np.int64(0), np.zeros(1, np.int64),
                         np.zeros(1, np.uint64), np.zeros(MAX_POLICY_PARAMS, np.float64),
                         np.zeros(WORK_SIZE, np.int64))


CONTEXT_TYPE = typeof(_example_context())
POLICY_SIGNATURE = types.int64(CONTEXT_TYPE)
