"""Play many First Ascent games in parallel (the same shape as the other games' kernels).

`play_one` sets up and plays one game with per-seat policies; the single-game API calls it
too. `play_batch` runs games over prange, calling play_one by address; each game's record is
its state's prefix [0, RECORD_SIZE). A game depends only on its own seed, seats and
characters, never on its index in the batch, the thread or the chunk.

play_one calls the engine by address too (`engine_value`: engine.play compiled for the
agents bundle below), the same compiled code a search bot's imagined games call.
"""
import numpy as np
from numba import njit, prange, typeof, types

from sim.core.batch import by_address, item_type, row_type
from sim.core.kernel_steps import keep_record
from sim.core.policies import compiled_value
from sim.core.seeding import policy_streams
from sim.games.first_ascent.data import N_KINDS
from sim.games.first_ascent.engine import PLAY_GAME, SCRATCH_SIZE, play, setup
from sim.games.first_ascent.policy_api import WORK_SIZE
from sim.games.first_ascent.state import MAX_LEGAL, MAX_PLAYERS, STATE_SIZE

MAX_SLOTS = 8
_I64 = types.Array(types.int64, 1, "C")


def agents_type(policies_type):
    """numba's type of the agents bundle `ag` (engine/__init__.py) that play_one builds and a
    search bot builds for its imagined games, given the policy functions' type (a tuple of
    MAX_SLOTS function values)."""
    log = types.Array(types.int64, 2, "C")
    return types.Tuple((policies_type, _I64, types.Array(types.float64, 2, "C"),
                        types.Array(types.uint64, 2, "C"), _I64, log, _I64, _I64, _I64))


def engine_signature(tables_type, policies_type):
    """engine.play's signature for these packed rules and policy functions (numba types)."""
    return types.none(_I64, tables_type, agents_type(policies_type), types.int64)


def engine_value(tables, policies):
    """engine.play compiled for engine_signature, as a function value that carries its
    address (sim.core.policies.compiled_value); `tables` and `policies` are values or their
    numba types."""
    return compiled_value(play, engine_signature(
        *(a if isinstance(a, types.Type) else typeof(a) for a in (tables, policies))))


@njit(cache=True)
def play_one(st, t, seed, characters, slot_fns, seat_slots, slot_params, log, engine):
    streams = policy_streams(seed, MAX_PLAYERS)
    work = np.zeros(WORK_SIZE, np.int64)
    legal = np.zeros(MAX_LEGAL, np.int64)
    ag = (slot_fns, seat_slots, slot_params, streams, work, log, legal,
          np.zeros(N_KINDS, np.int64), np.zeros(SCRATCH_SIZE, np.int64))
    setup(st, t, seed, characters)
    engine(st, t, ag, PLAY_GAME)


@njit(cache=True, parallel=True)
def play_batch(t, seeds, characters, slot_fns, seat_slots, slot_params, out, one_game, engine):
    """Play games i = 0..n-1; write each record into out[i] (int32).

    seeds: (n,) game seeds; characters: (n, 5) character id per seat (0 = F22's random
    draw); seat_slots: (n, 5) policy slot per seat; one_game: play_one by address
    (one_game_by_address); engine: the engine by address (engine_value)."""
    n = seeds.shape[0]
    for i in prange(n):
        st = np.empty(STATE_SIZE, np.int64)
        no_log = np.empty((0, 6), np.int64)
        one_game(st, t, seeds[i], characters[i], slot_fns, seat_slots[i], slot_params, no_log,
                 engine)
        keep_record(st, out, i)


def one_game_by_address(t, seeds, characters, slot_fns, seat_slots, slot_params, engine):
    """play_one for play_batch (sim/core/batch.by_address), typed by a run's inputs."""
    return by_address(play_one, np.empty(STATE_SIZE, np.int64), t, item_type(seeds),
                      row_type(characters), slot_fns, row_type(seat_slots), slot_params,
                      np.empty((0, 6), np.int64), engine)
