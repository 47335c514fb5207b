"""Tune the planner's knobs for one character with CMA-ES (the `cma` package).

The objective is the character's win rate when its seat plays the candidate knobs against a
mixed field (the other seats alternate `planner` and `designers-heuristic`, with random distinct
characters). Every candidate plays the same games (same seeds, seats and opponents), so two
candidates' difference is paired. The character sits in each seat equally often.

The result is checked on games the optimiser never saw (another master seed): the tuned vector
and the defaults play the same validation games and the paired difference is reported.
"""
import datetime
import json

import numpy as np

from policies import cmaes
from policies.all_in_ascent.planner import PLANNER_BOUNDS, PLANNER_DEFAULTS, PLANNER_KNOBS
from policies.all_in_ascent.tuned import TUNED_PATH, load_tuned, tuned_vector
from sim.games.all_in_ascent.batch import play_fixed_games, random_seating
from sim.games.all_in_ascent.data import CHARACTER_KEYS
from sim.games.all_in_ascent.state import G_WINNER

OPPONENTS = ("planner", "designers-heuristic")


def tuning_games(character, n_players, n_games, master_seed):
    """Seeds and seatings: random distinct characters, `character` moved to seat i % n_players."""
    c = CHARACTER_KEYS.index(character)
    seeds, chars = random_seating(master_seed, n_games, n_players)
    for i in range(n_games):
        seat = i % n_players
        row = list(chars[i, :n_players])
        if c in row:
            j = row.index(c)
            row[j], row[seat] = row[seat], row[j]
        else:
            row[seat] = c
        chars[i, :n_players] = row
    return seeds, chars


def seat_policies(n_players, seat):
    names = []
    k = 0
    for s in range(n_players):
        if s == seat:
            names.append("tuned")
        else:
            names.append(OPPONENTS[k % len(OPPONENTS)])
            k += 1
    return names


def character_wins(character, knobs, n_players, seeds, chars, threads=None):
    """Per game: 1 if `character` (playing `knobs`) won, else 0."""
    vectors = dict(load_tuned())
    vectors[character] = list(knobs)
    params = {"tuned": tuned_vector(vectors)}
    n = len(seeds)
    won = np.zeros(n, np.int8)
    for seat in range(n_players):
        rows = np.arange(seat, n, n_players)
        if rows.size == 0:
            continue
        final = play_fixed_games(seeds[rows], chars[rows], n_players,
                                 seat_policies(n_players, seat), params=params,
                                 threads=threads)
        won[rows] = final[:, G_WINNER] == seat
    return won


def tune(character, n_players=4, budget=200, games=2000, seed=1, validation_games=20000,
         threads=None, log=print):
    """Run CMA-ES for `budget` evaluations of `games` games each; return a result dict."""
    if character not in CHARACTER_KEYS:
        raise ValueError(f"unknown character {character!r}; allowed: {', '.join(CHARACTER_KEYS)}")
    seeds, chars = tuning_games(character, n_players, games, seed)
    start = load_tuned().get(character, list(PLANNER_DEFAULTS))
    best_knobs, best_rate = cmaes.search(
        lambda knobs: character_wins(character, knobs, n_players, seeds, chars, threads),
        start, PLANNER_BOUNDS, budget, seed, log)
    # validation on unseen games, paired against the defaults
    vseeds, vchars = tuning_games(character, n_players, validation_games, seed + 1_000_003)
    tuned_won = character_wins(character, best_knobs, n_players, vseeds, vchars, threads)
    default_won = character_wins(character, PLANNER_DEFAULTS, n_players, vseeds, vchars, threads)
    return {
        "knobs": dict(zip(PLANNER_KNOBS, [round(v, 6) for v in best_knobs])),
        "players": n_players,
        "budget": budget,
        "games_per_evaluation": games,
        "seed": seed,
        "training_win_rate": round(best_rate, 6),
        "validation": cmaes.paired_validation(tuned_won, default_won),
        "opponents": list(OPPONENTS),
        "date": datetime.date.today().isoformat(),
    }


def store(character, result, command, path=TUNED_PATH):
    doc = json.loads(path.read_text()) if path.exists() else {"characters": {}}
    doc.setdefault("characters", {})[character] = dict(result, command=command)
    doc["about"] = ("Planner knobs tuned per character with CMA-ES against a mixed field "
                    "(planner, designers-heuristic); see policies/all_in_ascent/tuning.py.")
    path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
