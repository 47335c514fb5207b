"""What an Ascension policy receives and must return.

A policy is a numba function compiled with POLICY_SIGNATURE: it takes one PolicyContext and
returns one of `ctx.legal[:ctx.n_legal]`. It sees the game only through `ctx.board`, the
seat's view (view.py: public state plus the faces this seat knows), never the state itself;
it draws only from `ctx.stream`, its own splitmix64 stream.

    PolicyContext
      board    int64[:]    this seat's view, view.VIEW_END long (layout: view.py; square
                           blocks as in state.py); read-only: the kernel builds the seat's
                           next view on it
      seat     int64
      phase    int64       the pending decision (state.PHASE_*): origin, place, pawn, spring, joker
      legal    int64[:]    legal action codes, increasing, valid up to n_legal (state.py)
      n_legal  int64
      config   int64[:]    the packed rules (rules.py C_*)
      stream   uint64[:1]  this seat's own random stream
      params   float64[:]  this seat's parameter vector
      work     int64[:]    scratch memory (WORK_SIZE), zeroed at the start of every game and
                           shared by the game's seats; a policy may leave itself a note there
                           for its next decision, keyed by the view's decision count

Rule functions a policy may call on its view: engine.pawn_moves, count_pawn_moves,
step_is_legal, destination_open, place_is_legal.
"""
from collections import namedtuple

import numpy as np
from numba import types, typeof

from sim.games.ascension.rules import default_rules
from sim.games.ascension.state import N_ACTIONS, STATE_SIZE

PolicyContext = namedtuple("PolicyContext", ["board", "seat", "phase", "legal", "n_legal",
                                             "config", "stream", "params", "work"])
MAX_POLICY_PARAMS = 8
WORK_SIZE = 40960


def _example_context():
    return PolicyContext(np.zeros(STATE_SIZE, np.int64), np.int64(0), np.int64(0),
                         np.zeros(N_ACTIONS, np.int64), np.int64(0), default_rules(4).config,
                         np.zeros(1, np.uint64), np.zeros(MAX_POLICY_PARAMS, np.float64),
                         np.zeros(WORK_SIZE, np.int64))


CONTEXT_TYPE = typeof(_example_context())
POLICY_SIGNATURE = types.int64(CONTEXT_TYPE)
