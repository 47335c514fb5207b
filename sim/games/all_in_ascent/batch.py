"""Run many All-In Ascent games: inputs per game index, the parallel kernel, records out.

Game i of a run is fully determined by (rules, seating, policies, master seed, i):
- its game seed is seeding.game_seed(master, i);
- with random seating, its characters come from the seating stream of (master, i);
- its policies' streams come from (game seed, seat).
So any slice of game indices, played with any thread count, gives the same rows.
"""
import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from sim.core.rng import stream_below
from sim.core.batch import check_master_seed, kernel_threads, seat_names
from sim.core.seeding import game_seed, seating_stream_seed
from sim.games.all_in_ascent.game import check_characters, policy_slots
from sim.games.all_in_ascent.kernel import RECORD_SIZE, one_game_by_address, play_batch
from sim.games.all_in_ascent.rules import PackedRules, default_rules
from sim.games.all_in_ascent.state import MAX_PLAYERS, N_CHARACTERS

# Games handed to a thread at a time: small enough that long and short games even out across
# threads, large enough that scheduling costs nothing.
PARALLEL_CHUNK = 16
SAFETY_ACTION_CAP = 10_000


@njit(cache=True)
def game_inputs(master_seed, first_index, n_games, n_players, random_seating, fixed, out_seeds,
                out_characters):
    """Seeds and characters of games first_index .. first_index + n_games - 1."""
    stream = np.zeros(1, np.uint64)
    pool = np.empty(N_CHARACTERS, np.int64)
    for k in range(n_games):
        i = first_index + k
        out_seeds[k] = game_seed(master_seed, i)
        if random_seating:
            # A partial Fisher-Yates shuffle: n distinct characters in random seat order.
            stream[0] = seating_stream_seed(master_seed, i)
            for c in range(N_CHARACTERS):
                pool[c] = c
            for seat in range(n_players):
                j = seat + stream_below(stream, N_CHARACTERS - seat)
                pool[seat], pool[j] = pool[j], pool[seat]
            for seat in range(MAX_PLAYERS):
                out_characters[k, seat] = pool[seat] if seat < n_players else -1
        else:
            for seat in range(MAX_PLAYERS):
                out_characters[k, seat] = fixed[seat]


@dataclass
class BatchResult:
    first_index: int
    seeds: np.ndarray          # (n,) uint32 game seeds as int64
    characters: np.ndarray     # (n, 4) character ids, -1 for empty seats
    final: np.ndarray          # (n, RECORD_SIZE) int32 final states
    seat_policies: list        # policy name per seat
    seconds: float


def run_games(n_games, master_seed, n_players, policies="random", characters="random",
              first_index=0, rules: PackedRules = None, threads=None, params=None,
              max_actions=0):
    """Play games first_index .. first_index + n_games - 1 of a run; return their final states.

    policies: one name for every seat, or a list with one per seat.
    characters: "random" (distinct, random seat order, per game) or a list of keys, one per seat.
    """
    rules = rules or default_rules()
    if not 1 <= n_players <= MAX_PLAYERS:
        raise ValueError(f"players must be 1..{MAX_PLAYERS} (R10), got {n_players}")
    check_master_seed(master_seed)
    names = seat_names(policies, n_players)
    if isinstance(characters, str):
        if characters != "random":
            characters = characters.split(",")
    seat_randomly = isinstance(characters, str)
    fixed = np.full(MAX_PLAYERS, -1, np.int64)
    if not seat_randomly:
        if len(characters) != n_players:
            raise ValueError(f"{len(characters)} characters for {n_players} players")
        fixed = check_characters(characters)
    seeds = np.empty(n_games, np.int64)
    chars = np.empty((n_games, MAX_PLAYERS), np.int64)
    game_inputs(np.int64(master_seed), np.int64(first_index), np.int64(n_games),
                np.int64(n_players), seat_randomly, fixed, seeds, chars)
    start = time.perf_counter()
    out = play_fixed_games(seeds, chars, n_players, names, rules, threads, params, max_actions)
    seconds = time.perf_counter() - start
    return BatchResult(first_index, seeds, chars, out, names, seconds)


def random_seating(master_seed, n_games, n_players, first_index=0):
    """Game seeds and random distinct seatings of games first_index.. of a run (as run_games)."""
    seeds = np.empty(n_games, np.int64)
    chars = np.empty((n_games, MAX_PLAYERS), np.int64)
    game_inputs(np.int64(master_seed), np.int64(first_index), np.int64(n_games),
                np.int64(n_players), True, np.full(MAX_PLAYERS, -1, np.int64), seeds, chars)
    return seeds, chars


def play_fixed_games(seeds, chars, n_players, seat_policies, rules: PackedRules = None,
                     threads=None, params=None, max_actions=0):
    """Play games given by their seeds and (n, 4) character ids with one policy name per seat;
    return the (n, RECORD_SIZE) int32 final states."""
    rules = rules or default_rules()
    if max_actions == 0 and rules.config.max_rounds is None:
        # Without a round cap only a win ends a game; like the designers' harness, stop a
        # game that never ends (not a game rule: recorded as end reason "action_cap").
        max_actions = SAFETY_ACTION_CAP
    fns, slot_params, seat_slot_row = policy_slots(list(seat_policies), params)
    n_games = len(seeds)
    seeds = np.ascontiguousarray(seeds, np.int64)
    chars = np.ascontiguousarray(chars, np.int64)
    n_players_arr = np.full(n_games, n_players, np.int64)
    seat_slots = np.tile(seat_slot_row, (n_games, 1))
    out = np.empty((n_games, RECORD_SIZE), np.int32)
    with kernel_threads(threads, PARALLEL_CHUNK, bots=list(dict.fromkeys(seat_policies))):
        play_batch(rules.tables, seeds, chars, n_players_arr, fns, seat_slots, slot_params,
                   np.int64(max_actions), out,
                   one_game_by_address(rules.tables, seeds, chars, n_players_arr, fns, seat_slots,
                                       slot_params, np.int64(max_actions)))
    return out
