"""What every game's batch driver shares: the seating of bots per game (with rotation), the game
seeds of a run, and running a parallel kernel with a given thread count.

A game's own driver (sim/games/<game>/batch.py) packs its inputs and calls its kernel through
these, so seeds, seat rotation and threading mean the same in every game."""
import time
from contextlib import contextmanager
from dataclasses import dataclass

import numba
import numpy as np

from sim.core.bot_exceptions import raising_bot_exceptions
from sim.core.seeding import game_seed


@dataclass
class BatchResult:
    """What a game's batch driver returns: the records of games first_index.. of a run."""
    first_index: int
    seeds: np.ndarray          # (n,) game seeds
    seat_policies: np.ndarray  # (n, max players) policy name index per seat (into `policies`),
    #                            -1 for an empty seat
    policies: list             # distinct policy names
    records: np.ndarray        # (n, the game's record size) int32
    seconds: float


def check_master_seed(master_seed):
    if not 0 <= master_seed < 2**63:
        raise ValueError(f"the master seed must be an integer from 0 to 2**63-1, got {master_seed}")


def seat_names(seat_policies, players):
    """One policy name for every seat, or a list of one per seat -> the list."""
    names = [seat_policies] * players if isinstance(seat_policies, str) else list(seat_policies)
    if len(names) != players:
        raise ValueError(f"{len(names)} seat policies for {players} players")
    return names


def game_seeds(master_seed, first_index, n_games):
    """The seeds of games first_index .. first_index + n_games - 1 of a run."""
    return np.array([game_seed(np.int64(master_seed), np.int64(first_index + k))
                     for k in range(n_games)], np.int64)


def seat_rotation(seat_policies, n_games, first_index, rotate, max_players, seat_values=None):
    """Which policy slot sits in each seat of games first_index.. of a run.

    Returns (distinct policy names in order of first appearance, (n, max_players) slot per
    seat with -1 for an empty seat, and `seat_values` (one int per seat: characters, say)
    laid out the same way, or None). With `rotate`, game i shifts everything by i seats, so
    every policy plays every seat equally often."""
    names = []
    for n in seat_policies:
        if n not in names:
            names.append(n)
    players = len(seat_policies)
    base = np.array([names.index(n) for n in seat_policies], np.int64)
    slots = np.full((n_games, max_players), -1, np.int64)
    values = None if seat_values is None else np.zeros((n_games, max_players), np.int64)
    for k in range(n_games):
        shift = (first_index + k) % players if rotate else 0
        for seat in range(players):
            slots[k, seat] = base[(seat - shift) % players]
            if values is not None:
                values[k, seat] = seat_values[(seat - shift) % players]
    return names, slots, values


def by_address(one_game, *argument_types):
    """`one_game`, a jitted function that plays one game, compiled for `argument_types` (numba
    types, or example values to take the type of) as a function value: a parallel kernel
    takes it as an argument and calls it by address. Called by name, numba would link the
    whole engine into the kernel and into the kernel's parallel body, and optimise it again
    there (18 of First Ascent's 77 s from an empty cache to its first game). One call by
    address per game costs nothing measurable.

    It is compiled under the same key as a call from Python (a tuple of argument types), so a
    process that also calls `one_game` directly (First Ascent's single-game API) finds it in
    numba's cache; and it stays open to other argument types."""
    from numba import typeof, types

    from sim.core.policies import compiled_value
    return compiled_value(one_game, tuple(a if isinstance(a, types.Type) else typeof(a)
                                          for a in argument_types))


def row_type(array):
    """numba's type of `array[i]` in a kernel: one dimension fewer, C-ordered if the array is.
    Taken from the array's own type, so that a run of no games has one too."""
    from numba import typeof, types
    whole = typeof(array)
    return types.Array(whole.dtype, whole.ndim - 1, "C" if whole.layout == "C" else "A")


def item_type(array):
    """numba's type of `array[i]` for a one-dimensional array."""
    from numba import typeof
    return typeof(array).dtype


@contextmanager
def kernel_threads(threads, chunk_size, bots=()):
    """Run a prange kernel on `threads` threads (None: numba's current count), `chunk_size`
    games per scheduling chunk; yields a callable giving the seconds since entry. A bot that
    raises inside the kernel raises BotError here, naming `bots`, the names of the bots
    playing (sim/core/bot_exceptions.py)."""
    previous = numba.get_num_threads()
    start = time.perf_counter()
    try:
        if threads:
            numba.set_num_threads(threads)
        with raising_bot_exceptions(bots), numba.parallel_chunksize(chunk_size):
            yield lambda: time.perf_counter() - start
    finally:
        numba.set_num_threads(previous)
