"""Run many Ascension games: inputs per game index, the parallel kernel, records out.

Game i of a run is determined by (rules, seat policies, seating, master seed, i): its seed is
seeding.game_seed(master, i) and its policies' streams come from (game seed, seat). With
`rotate=True`, game i shifts the policy list by i mod N seats, so every policy plays every
seat equally often (A8: "rotate bots over seats in experiments").
"""
import time
from dataclasses import dataclass

import numba
import numpy as np

from sim.core.seeding import game_seed
from sim.games.ascension.kernel import MAX_SLOTS, play_batch
from sim.games.ascension.policy_api import MAX_POLICY_PARAMS
from sim.games.ascension.rules import AscensionRules, default_rules
from sim.games.ascension.state import MAX_PLAYERS, RECORD_SIZE

PARALLEL_CHUNK = 4
GAME = "ascension"


@dataclass
class BatchResult:
    first_index: int
    seeds: np.ndarray          # (n,) uint32 game seeds as int64
    seat_policies: np.ndarray  # (n, 4) policy name index per seat (into `policies`), -1 empty
    policies: list             # distinct policy names
    records: np.ndarray        # (n, RECORD_SIZE) int32
    seconds: float


def policy_slots(names, params=None):
    """Distinct policy names -> (padded function tuple, parameters, remembers flags)."""
    from policies.registry import policy_slots as slots
    fns, slot_params, registered = slots(GAME, names, MAX_SLOTS, MAX_POLICY_PARAMS, params)
    remembers = np.ones(MAX_SLOTS, np.int64)
    for k, p in enumerate(registered):
        remembers[k] = 1 if p.remembers else 0
    return fns, slot_params, remembers


def seat_assignment(seat_policies, n_games, first_index, rotate):
    """(distinct names, (n, 4) slot per seat) for games first_index.. of a run."""
    names = []
    for n in seat_policies:
        if n not in names:
            names.append(n)
    n_players = len(seat_policies)
    base = np.array([names.index(n) for n in seat_policies], np.int64)
    slots = np.full((n_games, MAX_PLAYERS), -1, np.int64)
    for k in range(n_games):
        shift = (first_index + k) % n_players if rotate else 0
        for seat in range(n_players):
            slots[k, seat] = base[(seat - shift) % n_players]
    return names, slots


def run_games(n_games, master_seed, rules: AscensionRules = None, seat_policies="random",
              first_index=0, threads=None, params=None, rotate=False):
    """Play games first_index .. first_index + n_games - 1 of a run."""
    rules = rules or default_rules(4)
    players = rules.players
    if not 0 <= master_seed < 2**63:
        raise ValueError(f"the master seed must be an integer from 0 to 2**63-1, got {master_seed}")
    names = [seat_policies] * players if isinstance(seat_policies, str) else list(seat_policies)
    if len(names) != players:
        raise ValueError(f"{len(names)} seat policies for {players} players")
    distinct, slots = seat_assignment(names, n_games, first_index, rotate)
    seeds = np.array([game_seed(np.int64(master_seed), np.int64(first_index + k))
                      for k in range(n_games)], np.int64)
    fns, slot_params, remembers = policy_slots(distinct, params)
    seat_slots = np.where(slots >= 0, slots, 0)
    out = np.empty((n_games, RECORD_SIZE), np.int32)
    previous = numba.get_num_threads()
    start = time.perf_counter()
    try:
        if threads:
            numba.set_num_threads(threads)
        with numba.parallel_chunksize(PARALLEL_CHUNK):
            play_batch(rules.config, seeds, fns, seat_slots, slot_params, remembers, out)
    finally:
        numba.set_num_threads(previous)
    return BatchResult(first_index, seeds, slots, distinct, out, time.perf_counter() - start)
