"""Run many First Ascent games: inputs per game index, the parallel kernel, records out.

Game i of a run is determined by (rules, seat policies, characters, master seed, i): its seed
is seeding.game_seed(master, i), its policies' streams come from (game seed, seat), and with
characters "random" F22's draw comes from the game's own stream. Thread count, chunking and
batch size never enter.
"""
import time
from dataclasses import dataclass

import numba
import numpy as np

from sim.core.seeding import game_seed
from sim.games.first_ascent.data import CHARACTER_KEYS
from sim.games.first_ascent.kernel import MAX_SLOTS, play_batch
from sim.games.first_ascent.policy_api import MAX_POLICY_PARAMS
from sim.games.first_ascent.rules import FirstAscentRules, default_rules
from sim.games.first_ascent.state import MAX_PLAYERS, RECORD_SIZE

PARALLEL_CHUNK = 4
GAME = "first-ascent"


@dataclass
class BatchResult:
    first_index: int
    seeds: np.ndarray          # (n,) game seeds
    seat_policies: np.ndarray  # (n, 5) policy name index per seat (into `policies`), -1 empty
    policies: list             # distinct policy names
    records: np.ndarray        # (n, RECORD_SIZE) int32
    seconds: float


def policy_slots(names, params=None):
    """Distinct policy names -> (padded function tuple, parameters per slot)."""
    from policies.registry import policy_slots as slots
    fns, slot_params, _ = slots(GAME, names, MAX_SLOTS, MAX_POLICY_PARAMS, params)
    return fns, slot_params


def character_ids(characters, players):
    """'random' -> zeros (F22's draw in the game); a list of keys -> ids per seat."""
    ids = np.zeros(MAX_PLAYERS, np.int64)
    if characters in (None, "random"):
        return ids
    keys = {v: k for k, v in CHARACTER_KEYS.items()}
    if len(characters) != players:
        raise ValueError(f"{len(characters)} characters for {players} players")
    for seat, key in enumerate(characters):
        if key not in keys:
            raise ValueError(f"unknown First Ascent character {key!r}; allowed: "
                             f"{', '.join(sorted(keys))}")
        ids[seat] = keys[key]
    return ids


def run_games(n_games, master_seed, rules: FirstAscentRules = None, seat_policies="random",
              characters="random", first_index=0, threads=None, params=None, rotate=False):
    """Play games first_index .. first_index + n_games - 1 of a run.

    rotate=True shifts the seat policies (and fixed characters) by i seats in game i, so
    every policy plays every seat equally often."""
    rules = rules or default_rules(4)
    players = rules.players
    if not 0 <= master_seed < 2**63:
        raise ValueError(f"the master seed must be an integer from 0 to 2**63-1, got {master_seed}")
    names = [seat_policies] * players if isinstance(seat_policies, str) else list(seat_policies)
    if len(names) != players:
        raise ValueError(f"{len(names)} seat policies for {players} players")
    distinct = []
    for n in names:
        if n not in distinct:
            distinct.append(n)
    base = np.array([distinct.index(n) for n in names], np.int64)
    chars = character_ids(characters, players)
    slots = np.full((n_games, MAX_PLAYERS), -1, np.int64)
    char_rows = np.zeros((n_games, MAX_PLAYERS), np.int64)
    for k in range(n_games):
        shift = (first_index + k) % players if rotate else 0
        for seat in range(players):
            slots[k, seat] = base[(seat - shift) % players]
            char_rows[k, seat] = chars[(seat - shift) % players]
    seeds = np.array([game_seed(np.int64(master_seed), np.int64(first_index + k))
                      for k in range(n_games)], np.int64)
    return play_rows(rules, seeds, char_rows, slots, distinct, params, threads, first_index)


def play_rows(rules, seeds, char_rows, slots, distinct, params=None, threads=None,
              first_index=0):
    """Play one game per row: its seed, characters per seat (0 = F22's draw) and policy slot
    per seat (-1 empty) into `distinct` policy names. The tuning loop calls this directly."""
    fns, slot_params = policy_slots(distinct, params)
    seat_slots = np.where(slots >= 0, slots, 0)
    out = np.empty((len(seeds), RECORD_SIZE), np.int32)
    previous = numba.get_num_threads()
    start = time.perf_counter()
    try:
        if threads:
            numba.set_num_threads(threads)
        with numba.parallel_chunksize(PARALLEL_CHUNK):
            play_batch(rules.tables, seeds, char_rows, fns, seat_slots, slot_params, out)
    finally:
        numba.set_num_threads(previous)
    return BatchResult(first_index, seeds, slots, distinct, out, time.perf_counter() - start)
