"""The game-agnostic part of tuning a policy's knobs per character: CMA-ES (the `cma` package)
over a box, a paired validation of the result on unseen games, and the stored records
(`tuned.json`) both games' `tuned` policies read.

A game's tuning module supplies `evaluate(knobs) -> per-game wins (0/1 array)` on a fixed set of
games, so every candidate plays the same games and two candidates' difference is paired.
"""
import datetime
import json
from pathlib import Path

import numpy as np


def to_unit(x, bounds):
    return [(v - lo) / (hi - lo) for v, (lo, hi) in zip(x, bounds)]


def from_unit(u, bounds):
    return [lo + min(1.0, max(0.0, v)) * (hi - lo) for v, (lo, hi) in zip(u, bounds)]


def search(evaluate, start, bounds, budget, seed, log=print):
    """CMA-ES for `budget` evaluations; returns (best knobs, best mean win, evaluations made):
    it asks whole generations (at least 4 candidates), so it may make a few more."""
    import cma
    options = {"bounds": [0.0, 1.0], "seed": seed % (2**32 - 1) + 1, "maxfevals": budget,
               "popsize": max(4, min(10, budget // 4)), "verbose": -9}
    es = cma.CMAEvolutionStrategy(to_unit(start, bounds), 0.25, options)
    best_knobs, best_rate = list(start), -1.0
    while not es.stop():
        candidates = es.ask()
        rates = [float(evaluate(from_unit(u, bounds)).mean()) for u in candidates]
        es.tell(candidates, [-r for r in rates])
        k = int(np.argmax(rates))
        if rates[k] > best_rate:
            best_rate, best_knobs = rates[k], from_unit(candidates[k], bounds)
        log(f"  {es.countevals:5d} evaluations: best win rate {best_rate:.4f}")
    return best_knobs, best_rate, int(es.countevals)


def paired_validation(tuned_won, default_won):
    """Win rates of the tuned and default knobs on the same unseen games, and their paired
    difference with Tango's 95% interval (sim/core/stats.py: a normal interval on the per-game
    differences has no width where few games differ)."""
    from sim.core.stats import paired_proportion_difference
    tuned_won = np.asarray(tuned_won, bool)
    default_won = np.asarray(default_won, bool)
    diff, lo, hi = paired_proportion_difference(
        int((default_won & ~tuned_won).sum()), int((tuned_won & ~default_won).sum()),
        len(tuned_won))
    return {"games": len(tuned_won),
            "win_rate_tuned": round(float(tuned_won.mean()), 6),
            "win_rate_planner_defaults": round(float(default_won.mean()), 6),
            "paired_difference": round(float(diff), 6),
            "paired_difference_95ci": [round(float(lo), 6), round(float(hi), 6)],
            "interval": "Tango"}


def tune_and_validate(wins, games_for, start, defaults, bounds, knob_names, budget, games,
                      seed, validation_games, log, players, opponents, memo=None, save=None):
    """The whole tuning run of one character: CMA-ES on `games` fixed games, then the tuned and
    default knobs on `validation_games` unseen ones (another seed), paired.

    wins(knobs, games) -> per-game wins (0/1) of the tuned seat; games_for(n, seed) -> the
    games (whatever `wins` takes). Returns the record `store_record` keeps. `memo`: the
    evaluations a run interrupted with the same settings finished ({key: per-game wins}),
    filled in as evaluations finish, each followed by save(memo): CMA-ES is seeded, so a rerun
    asks the same candidates and plays only those not yet finished."""
    memo = {} if memo is None else memo

    def evaluated(phase, knobs, which):
        key = f"{phase} {json.dumps([float(k) for k in knobs])}"
        if key not in memo:
            memo[key] = [int(w) for w in wins(knobs, which)]
            if save is not None:
                save(memo)
        return np.asarray(memo[key], np.int8)

    train = games_for(games, seed)
    best_knobs, best_rate, evaluations = search(lambda knobs: evaluated("train", knobs, train),
                                                start, bounds, budget, seed, log)
    # another seed, kept in the seeds' range (a master seed near 2**63 overflowed)
    validation = games_for(validation_games, (seed + 1_000_003) % 2**63)
    return {
        "knobs": dict(zip(knob_names, [round(v, 6) for v in best_knobs])),
        "players": players,
        "budget": budget,
        "evaluations": evaluations,     # whole generations: --budget 1 made 4 (a review's audit)
        "games_per_evaluation": games,
        "seed": seed,
        "training_win_rate": round(best_rate, 6),
        "validation": paired_validation(evaluated("validation", best_knobs, validation),
                                        evaluated("validation", defaults, validation)),
        "opponents": list(opponents),
        "date": datetime.date.today().isoformat(),
    }


def load_knob_vectors(path, keys, knob_names):
    """{character: knob vector} from a stored tuning file; a clear error if it is missing or
    malformed (a missing file once let `tuned` play the planner's defaults under its name)."""
    try:
        doc = json.loads(Path(path).read_text())
    except OSError as e:
        raise ValueError(f"{path}: cannot read the tuned knobs ({e.strerror or e}); they ship "
                         f"with ascent: reinstall it") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not valid JSON ({e})") from None
    vectors = {}
    for key, entry in doc.get("characters", {}).items():
        if key not in keys:
            raise ValueError(f"{path}: characters.{key}: unknown character; "
                             f"allowed: {', '.join(keys)}")
        knobs = entry.get("knobs", {})
        if set(knobs) != set(knob_names):
            raise ValueError(f"{path}: characters.{key}.knobs: needs exactly "
                             f"{', '.join(knob_names)}")
        vectors[key] = [float(knobs[k]) for k in knob_names]
    return vectors


def store_record(path, character, result, command, about):
    """Write one character's tuning record (and the command that made it) into `path`."""
    path = Path(path)
    doc = json.loads(path.read_text()) if path.exists() else {"characters": {}}
    doc.setdefault("characters", {})[character] = dict(result, command=command)
    doc["about"] = about
    path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")


def tune_each_for_rules(tune, keys, knob_names, start, rules, n_players, budget, games, seed,
                        validation_games, threads=None, log=print, finished=None, save=None):
    """Co-adaptation (`ascent balance`'s coadapt): every character's knobs re-fitted under
    `rules`, one character after the other, each against the others' latest knobs, starting from
    `start` ({character: knob vector}, the stored ones). `tune` is a game's tune(character,
    players, budget, games, seed, validation_games, threads, log, rules=, vectors=). Returns
    ({character: knob vector}, {character: tuning record}); nothing is stored.
    `finished`: the records of characters an interrupted co-adaptation had re-fitted (each
    character's fit is a pure function of the ones before it, so they are not fitted again);
    `save(character, record)` is called as each character's fit ends."""
    vectors = dict(start)
    records = {}
    for character in keys:
        if finished and character in finished:
            result = finished[character]
        else:
            result = tune(character, n_players, budget, games, seed, validation_games, threads,
                          log, rules=rules, vectors=vectors)
            if save is not None:
                save(character, result)
        vectors[character] = [result["knobs"][k] for k in knob_names]
        records[character] = result
    return vectors, records
