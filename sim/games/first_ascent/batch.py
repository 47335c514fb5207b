"""Run many First Ascent games: inputs per game index, the parallel kernel, records out.

Game i of a run is determined by (rules, seat policies, characters, master seed, i): its seed
is seeding.game_seed(master, i), its policies' streams come from (game seed, seat), and with
characters "random" F22's draw comes from the game's own stream. Thread count, chunking and
batch size never enter.
"""

import numpy as np

from sim.core.batch import (BatchResult, check_master_seed, game_seeds, kernel_threads,
                             seat_names, seat_rotation)
from sim.games.first_ascent.data import CHARACTER_KEYS
from sim.games.first_ascent.kernel import (MAX_SLOTS, engine_value, one_game_by_address,
                                           play_batch)
from sim.games.first_ascent.policy_api import MAX_POLICY_PARAMS
from sim.games.first_ascent.rules import FirstAscentRules, default_rules
from sim.games.first_ascent.state import MAX_PLAYERS, RECORD_SIZE

PARALLEL_CHUNK = 4
GAME = "first-ascent"


def policy_slots(names, params=None):
    """Distinct policy names -> (padded function tuple, parameters per slot)."""
    from sim.core.policies import policy_slots as slots
    fns, slot_params, _ = slots(GAME, names, MAX_SLOTS, MAX_POLICY_PARAMS, params)
    return fns, slot_params


def seating_error(characters):
    """Why these character keys cannot sit at one table, or None: the two characters printed
    on one player board never meet in a game (F22, F130)."""
    from sim.games.first_ascent.data import DATA
    board = {c["key"]: c["player_board"] for c in DATA["characters"]}
    seen = {}
    for key in characters:
        other = seen.setdefault(board.get(key), key)
        if other != key:
            return (f"{other} and {key} are the two characters of player board "
                    f"{board[key]}, which never meet in a game (F22, F130)")
    return None


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
    problem = seating_error(characters)
    if problem:
        raise ValueError(problem)
    return ids


def run_games(n_games, master_seed, rules: FirstAscentRules = None, seat_policies="random",
              characters="random", first_index=0, threads=None, params=None, rotate=False):
    """Play games first_index .. first_index + n_games - 1 of a run.

    rotate=True shifts the seat policies (and fixed characters) by i seats in game i, so
    every policy plays every seat equally often."""
    rules = rules or default_rules(4)
    players = rules.players
    check_master_seed(master_seed)
    names = seat_names(seat_policies, players)
    distinct, slots, char_rows = seat_rotation(names, n_games, first_index, rotate, MAX_PLAYERS,
                                               character_ids(characters, players))
    seeds = game_seeds(master_seed, first_index, n_games)
    return play_rows(rules, seeds, char_rows, slots, distinct, params, threads, first_index)


def play_rows(rules, seeds, char_rows, slots, distinct, params=None, threads=None,
              first_index=0):
    """Play one game per row: its seed, characters per seat (0 = F22's draw) and policy slot
    per seat (-1 empty) into `distinct` policy names. The tuning loop calls this directly."""
    fns, slot_params = policy_slots(distinct, params)
    # int64 whatever the caller's slots are: the engine is compiled for one agents bundle
    # (kernel.agents_type), and another type would be refused
    seat_slots = np.where(slots >= 0, slots, 0).astype(np.int64)
    out = np.empty((len(seeds), RECORD_SIZE), np.int32)
    engine = engine_value(rules.tables, fns)
    with kernel_threads(threads, PARALLEL_CHUNK, bots=distinct) as elapsed:
        play_batch(rules.tables, seeds, char_rows, fns, seat_slots, slot_params, out,
                   one_game_by_address(rules.tables, seeds, char_rows, fns, seat_slots,
                                       slot_params, engine), engine)
        seconds = elapsed()
    return BatchResult(first_index, seeds, slots, distinct, out, seconds)
