"""Run many Ascension games: inputs per game index, the parallel kernel, records out.

Game i of a run is determined by (rules, seat policies, seating, master seed, i): its seed is
seeding.game_seed(master, i) and its policies' streams come from (game seed, seat). With
`rotate=True`, game i shifts the policy list by i mod N seats, so every policy plays every
seat equally often (A8: "rotate bots over seats in experiments").
"""

import numpy as np

from sim.core.batch import (BatchResult, check_master_seed, game_seeds, kernel_threads,
                             seat_names, seat_rotation)
from sim.games.ascension.kernel import MAX_SLOTS, one_game_by_address, play_batch
from sim.games.ascension.policy_api import MAX_POLICY_PARAMS
from sim.games.ascension.rules import AscensionRules, default_rules
from sim.games.ascension.state import MAX_PLAYERS, RECORD_SIZE
from sim.games.ascension.view import VIEW_PIECE_SLOTS, VIEW_REMEMBERS

PARALLEL_CHUNK = 4
GAME = "ascension"


def policy_slots(names, params=None):
    """Distinct policy names -> (padded function tuple, parameters, view flags: what view
    each slot's bot is handed, view.VIEW_REMEMBERS and VIEW_PIECE_SLOTS)."""
    from sim.core.policies import policy_slots as slots
    fns, slot_params, registered = slots(GAME, names, MAX_SLOTS, MAX_POLICY_PARAMS, params)
    views = np.full(MAX_SLOTS, VIEW_REMEMBERS | VIEW_PIECE_SLOTS, np.int64)
    for k, p in enumerate(registered):
        views[k] = (VIEW_REMEMBERS if p.remembers else 0) | \
            (VIEW_PIECE_SLOTS if p.reads_piece_slots else 0)
    return fns, slot_params, views


def run_games(n_games, master_seed, rules: AscensionRules = None, seat_policies="random",
              first_index=0, threads=None, params=None, rotate=False):
    """Play games first_index .. first_index + n_games - 1 of a run."""
    rules = rules or default_rules(4)
    players = rules.players
    check_master_seed(master_seed)
    names = seat_names(seat_policies, players)
    distinct, slots, _ = seat_rotation(names, n_games, first_index, rotate, MAX_PLAYERS)
    seeds = game_seeds(master_seed, first_index, n_games)
    fns, slot_params, views = policy_slots(distinct, params)
    seat_slots = np.where(slots >= 0, slots, 0)
    out = np.empty((n_games, RECORD_SIZE), np.int32)
    with kernel_threads(threads, PARALLEL_CHUNK, bots=distinct) as elapsed:
        play_batch(rules.config, seeds, fns, seat_slots, slot_params, views, out,
                   one_game_by_address(rules.config, seeds, fns, seat_slots, slot_params,
                                       views))
        seconds = elapsed()
    return BatchResult(first_index, seeds, slots, distinct, out, seconds)
