"""Play many First Ascent games in parallel (the same shape as the other games' kernels).

`play_one` sets up and plays one game with per-seat policies; the single-game API calls it
too. `play_batch` runs games over prange, calling play_one by address; each game's record is
its state's prefix [0, RECORD_SIZE). A game depends only on its own seed, seats and
characters, never on its index in the batch, the thread or the chunk.
"""
import numpy as np
from numba import njit, prange

from sim.core.batch import by_address, item_type, row_type
from sim.core.kernel_steps import keep_record
from sim.core.seeding import policy_streams
from sim.games.first_ascent.data import N_KINDS
from sim.games.first_ascent.engine import SCRATCH_SIZE, play_game, setup
from sim.games.first_ascent.policy_api import WORK_SIZE
from sim.games.first_ascent.state import MAX_LEGAL, MAX_PLAYERS, STATE_SIZE

MAX_SLOTS = 8


@njit(cache=True)
def play_one(st, t, seed, characters, slot_fns, seat_slots, slot_params, log):
    streams = policy_streams(seed, MAX_PLAYERS)
    work = np.zeros(WORK_SIZE, np.int64)
    legal = np.zeros(MAX_LEGAL, np.int64)
    ag = (slot_fns, seat_slots, slot_params, streams, work, log, legal,
          np.zeros(N_KINDS, np.int64), np.zeros(SCRATCH_SIZE, np.int64))
    setup(st, t, seed, characters)
    play_game(st, t, ag)


@njit(cache=True, parallel=True)
def play_batch(t, seeds, characters, slot_fns, seat_slots, slot_params, out, one_game):
    """Play games i = 0..n-1; write each record into out[i] (int32).

    seeds: (n,) game seeds; characters: (n, 5) character id per seat (0 = F22's random
    draw); seat_slots: (n, 5) policy slot per seat; one_game: play_one by address
    (one_game_by_address)."""
    n = seeds.shape[0]
    for i in prange(n):
        st = np.empty(STATE_SIZE, np.int64)
        no_log = np.empty((0, 6), np.int64)
        one_game(st, t, seeds[i], characters[i], slot_fns, seat_slots[i], slot_params, no_log)
        keep_record(st, out, i)


def one_game_by_address(t, seeds, characters, slot_fns, seat_slots, slot_params):
    """play_one for play_batch (sim/core/batch.by_address), typed by a run's inputs."""
    return by_address(play_one, np.empty(STATE_SIZE, np.int64), t, item_type(seeds),
                      row_type(characters), slot_fns, row_type(seat_slots), slot_params,
                      np.empty((0, 6), np.int64))
