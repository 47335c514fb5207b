"""Tune the First Ascent planner's knobs for one character (CMA-ES, policies/cmaes.py).

The objective is the character's win rate (a shared win counts) when its seat plays the
candidate knobs against `planner` opponents with random characters (F22's draw for the other
seats). Every candidate plays the same games; the character sits in each seat equally often.
The result is checked on unseen games (another master seed), paired against the defaults.
"""
import numpy as np

from policies import cmaes
from policies.first_ascent.planner import DEFAULT_PARAMS, PLANNER_BOUNDS, PLANNER_KNOBS
from policies.first_ascent.tuned import KEYS, TUNED_PATH, load_tuned, tuned_vector
from sim.core.seeding import game_seed
from sim.games.first_ascent.batch import play_rows
from sim.games.first_ascent.rules import build_rules
from sim.games.first_ascent.state import G_WINNER, MAX_PLAYERS

OPPONENT = "planner"


def tuning_games(character, n_players, n_games, master_seed):
    """Seeds and character rows: `character` in seat i % n_players; the other seats draw."""
    c = KEYS.index(character) + 1
    seeds = np.array([game_seed(np.int64(master_seed), np.int64(i)) for i in range(n_games)],
                     np.int64)
    chars = np.zeros((n_games, MAX_PLAYERS), np.int64)
    rng = np.random.default_rng(master_seed)
    others = [k for k in range(1, 13) if (k + 1) // 2 != (c + 1) // 2]   # not its board's pair
    for i in range(n_games):
        row = list(rng.choice(others, n_players - 1, replace=False))
        row.insert(i % n_players, c)
        chars[i, :n_players] = row
    return seeds, chars


def character_wins(character, knobs, n_players, seeds, chars, threads=None, rules=None,
                   vectors=None):
    """Per game: 1 if `character` (playing `knobs`) won. `rules`: the packed rules to play
    (default the spec's); `vectors`: the other characters' knobs (default the stored ones)."""
    vectors = dict(load_tuned() if vectors is None else vectors)
    vectors[character] = list(knobs)
    params = {"tuned": tuned_vector(vectors)}
    n = len(seeds)
    slots = np.full((n, MAX_PLAYERS), -1, np.int64)
    slots[:, :n_players] = 1
    seat = np.arange(n) % n_players
    slots[np.arange(n), seat] = 0
    batch = play_rows(rules or build_rules(n_players), seeds, chars, slots, ["tuned", OPPONENT],
                      params=params, threads=threads)
    return ((batch.records[:, G_WINNER] >> seat) & 1).astype(np.int8)


def throw_away_game(character, n_players, seed, threads=None, every_seat=None):
    """One tuning game through the entry tune's games go through, for the compile before a
    run (`ascent tune`): `character` with its stored knobs against the opponents, or
    `every_seat` (a bot name) in every seat."""
    seeds, chars = tuning_games(character, n_players, 1, seed)
    if every_seat is None:
        character_wins(character, load_tuned().get(character, list(DEFAULT_PARAMS)),
                       n_players, seeds, chars, threads)
        return
    slots = np.zeros((1, MAX_PLAYERS), np.int64)
    slots[0, n_players:] = -1
    play_rows(build_rules(n_players), seeds, chars, slots, [every_seat], threads=threads)


def seat_policies(n_players, seat):
    """The bots of a tuning game whose tuned seat is `seat`."""
    return [("tuned" if s == seat else OPPONENT) for s in range(n_players)]


def tune(character, n_players=4, budget=40, games=1000, seed=1, validation_games=4000,
         threads=None, log=print, rules=None, vectors=None, memo=None, save=None):
    """CMA-ES for one character; with `rules`, its knobs are fitted under those rules (the
    start: the stored knobs, or `vectors`)."""
    if character not in KEYS:
        raise ValueError(f"unknown First Ascent character {character!r}; allowed: "
                         f"{', '.join(KEYS)}")
    vectors = dict(load_tuned() if vectors is None else vectors)
    return cmaes.tune_and_validate(
        lambda knobs, g: character_wins(character, knobs, n_players, g[0], g[1], threads, rules,
                                        vectors),
        lambda n, s: tuning_games(character, n_players, n, s),
        vectors.get(character, list(DEFAULT_PARAMS)), DEFAULT_PARAMS, PLANNER_BOUNDS,
        PLANNER_KNOBS, budget, games, seed, validation_games, log, n_players, [OPPONENT],
        memo, save)


def tune_for_rules(rules, n_players, budget, games, seed, validation_games, threads=None,
                   log=print, finished=None, save=None):
    """Every character's knobs re-fitted under `rules` (policies/cmaes.py)."""
    return cmaes.tune_each_for_rules(tune, KEYS, PLANNER_KNOBS, load_tuned(), rules, n_players,
                                     budget, games, seed, validation_games, threads, log,
                                     finished, save)


def policy_params(vectors):
    """The `tuned` bot's parameters for {character: knob vector} (protocol play's
    policy_params)."""
    return {"tuned": tuned_vector(vectors)}


def fitted_rules_record():
    """What a record says of the rules `ascent tune` fits under: First Ascent's defaults. Their
    fingerprint names the player count, so the defaults' fingerprint at every count is kept:
    the knobs are flagged under other rules, as All-In Ascent's are, not at another count.
    Records stored before this was written name no rules; they were fitted under the same
    defaults, and the validity check reads them so (sim/report/validity.py)."""
    from sim.core.game import get_game
    from sim.games.first_ascent.rules import default_rules
    return {"rules": "First Ascent defaults",
            "rules_fingerprints": {str(n): default_rules(n).fingerprint
                                   for n in get_game("first-ascent").players}}


def store(character, result, command, path=TUNED_PATH):
    # the rules the knobs were fitted under, so that a run under other rules can say so
    result = dict(result, **fitted_rules_record())
    cmaes.store_record(path, character, result, command,
                       "First Ascent planner knobs tuned per character with CMA-ES against "
                       "planner opponents; see policies/first_ascent/tuning.py.")
