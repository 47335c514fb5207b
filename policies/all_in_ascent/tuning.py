"""Tune the planner's knobs for one character with CMA-ES (the `cma` package).

The objective is the character's win rate when its seat plays the candidate knobs against a
mixed field (the other seats alternate `planner` and `designers-heuristic`, with random distinct
characters). Every candidate plays the same games (same seeds, seats and opponents), so two
candidates' difference is paired. The character sits in each seat equally often.

The result is checked on games the optimiser never saw (another master seed): the tuned vector
and the defaults play the same validation games and the paired difference is reported.
"""
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
    """The bots of a tuning game whose tuned seat is `seat`."""
    names = []
    k = 0
    for s in range(n_players):
        if s == seat:
            names.append("tuned")
        else:
            names.append(OPPONENTS[k % len(OPPONENTS)])
            k += 1
    return names


def character_wins(character, knobs, n_players, seeds, chars, threads=None, rules=None,
                   vectors=None):
    """Per game: 1 if `character` (playing `knobs`) won, else 0. `rules`: the packed rules to
    play (default v0.4.0); `vectors`: the other characters' knobs (default the stored ones)."""
    vectors = dict(load_tuned() if vectors is None else vectors)
    vectors[character] = list(knobs)
    params = {"tuned": tuned_vector(vectors)}
    n = len(seeds)
    won = np.zeros(n, np.int8)
    for seat in range(n_players):
        rows = np.arange(seat, n, n_players)
        if rows.size == 0:
            continue
        final = play_fixed_games(seeds[rows], chars[rows], n_players,
                                 seat_policies(n_players, seat), rules=rules, params=params,
                                 threads=threads)
        won[rows] = final[:, G_WINNER] == seat
    return won


def throw_away_game(character, n_players, seed, threads=None, every_seat=None):
    """One tuning game through the entry tune's games go through, for the compile before a
    run (`ascent tune`): `character` with its stored knobs against the opponents, or
    `every_seat` (a bot name) in every seat."""
    seeds, chars = tuning_games(character, n_players, 1, seed)
    if every_seat is None:
        character_wins(character, load_tuned().get(character, list(PLANNER_DEFAULTS)),
                       n_players, seeds, chars, threads)
    else:
        play_fixed_games(seeds, chars, n_players, [every_seat] * n_players, threads=threads)


def tune(character, n_players=4, budget=200, games=2000, seed=1, validation_games=20000,
         threads=None, log=print, rules=None, vectors=None, memo=None, save=None):
    """Run CMA-ES for `budget` evaluations of `games` games each; return a result dict. With
    `rules`, the knobs are fitted under those rules (the start: the stored knobs)."""
    if character not in CHARACTER_KEYS:
        raise ValueError(f"unknown character {character!r}; allowed: {', '.join(CHARACTER_KEYS)}")
    vectors = dict(load_tuned() if vectors is None else vectors)
    return cmaes.tune_and_validate(
        lambda knobs, g: character_wins(character, knobs, n_players, g[0], g[1], threads, rules,
                                        vectors),
        lambda n, s: tuning_games(character, n_players, n, s),
        vectors.get(character, list(PLANNER_DEFAULTS)), PLANNER_DEFAULTS, PLANNER_BOUNDS,
        PLANNER_KNOBS, budget, games, seed, validation_games, log, n_players, OPPONENTS,
        memo, save)


def tune_for_rules(rules, n_players, budget, games, seed, validation_games, threads=None,
                   log=print, finished=None, save=None):
    """Every character's knobs re-fitted under `rules` (policies/cmaes.py)."""
    return cmaes.tune_each_for_rules(tune, CHARACTER_KEYS, PLANNER_KNOBS, load_tuned(), rules,
                                     n_players, budget, games, seed, validation_games, threads,
                                     log, finished, save)


def policy_params(vectors):
    """The `tuned` bot's parameters for {character: knob vector} (protocol play's
    policy_params)."""
    return {"tuned": tuned_vector(vectors)}


def store(character, result, command, path=TUNED_PATH):
    from sim.games.all_in_ascent.rules import default_rules
    # the rules the knobs were fitted under, so that a run under other rules can say so
    result = dict(result, rules="v0.4.0 defaults", rules_fingerprint=default_rules().fingerprint)
    cmaes.store_record(path, character, result, command,
                       "Planner knobs tuned per character with CMA-ES against a mixed field "
                       "(planner, designers-heuristic); see policies/all_in_ascent/tuning.py.")
