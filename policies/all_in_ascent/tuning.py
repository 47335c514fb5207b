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
import math

import numpy as np

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


def _to_unit(x):
    return [(v - lo) / (hi - lo) for v, (lo, hi) in zip(x, PLANNER_BOUNDS)]


def _from_unit(u):
    return [lo + min(1.0, max(0.0, v)) * (hi - lo) for v, (lo, hi) in zip(u, PLANNER_BOUNDS)]


def tune(character, n_players=4, budget=200, games=2000, seed=1, validation_games=20000,
         threads=None, log=print):
    """Run CMA-ES for `budget` evaluations of `games` games each; return a result dict."""
    import cma
    if character not in CHARACTER_KEYS:
        raise ValueError(f"unknown character {character!r}; allowed: {', '.join(CHARACTER_KEYS)}")
    seeds, chars = tuning_games(character, n_players, games, seed)
    start = load_tuned().get(character, list(PLANNER_DEFAULTS))
    options = {"bounds": [0.0, 1.0], "seed": seed % (2**32 - 1) + 1, "maxfevals": budget,
               "popsize": max(4, min(10, budget // 4)), "verbose": -9}
    es = cma.CMAEvolutionStrategy(_to_unit(start), 0.25, options)
    best_knobs, best_rate = list(start), -1.0
    while not es.stop():
        candidates = es.ask()
        rates = [float(character_wins(character, _from_unit(u), n_players, seeds, chars,
                                      threads).mean()) for u in candidates]
        es.tell(candidates, [-r for r in rates])
        k = int(np.argmax(rates))
        if rates[k] > best_rate:
            best_rate, best_knobs = rates[k], _from_unit(candidates[k])
        log(f"  {es.countevals:5d} evaluations: best win rate {best_rate:.4f}")
    # validation on unseen games, paired against the defaults
    vseeds, vchars = tuning_games(character, n_players, validation_games, seed + 1_000_003)
    tuned_won = character_wins(character, best_knobs, n_players, vseeds, vchars, threads)
    default_won = character_wins(character, PLANNER_DEFAULTS, n_players, vseeds, vchars, threads)
    diff = tuned_won.astype(float) - default_won
    half = 1.96 * diff.std(ddof=1) / math.sqrt(len(diff))
    return {
        "knobs": dict(zip(PLANNER_KNOBS, [round(v, 6) for v in best_knobs])),
        "players": n_players,
        "budget": budget,
        "games_per_evaluation": games,
        "seed": seed,
        "training_win_rate": round(best_rate, 6),
        "validation": {
            "games": validation_games,
            "win_rate_tuned": round(float(tuned_won.mean()), 6),
            "win_rate_planner_defaults": round(float(default_won.mean()), 6),
            "paired_difference": round(float(diff.mean()), 6),
            "paired_difference_95ci": [round(float(diff.mean() - half), 6),
                                       round(float(diff.mean() + half), 6)],
        },
        "opponents": list(OPPONENTS),
        "date": datetime.date.today().isoformat(),
    }


def store(character, result, command, path=TUNED_PATH):
    doc = json.loads(path.read_text()) if path.exists() else {"characters": {}}
    doc.setdefault("characters", {})[character] = dict(result, command=command)
    doc["about"] = ("Planner knobs tuned per character with CMA-ES against a mixed field "
                    "(planner, designers-heuristic); see policies/all_in_ascent/tuning.py.")
    path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
