"""The game-agnostic part of tuning a policy's knobs: CMA-ES (the `cma` package) over a box,
and a paired validation of the result on unseen games.

A game's tuning module supplies `evaluate(knobs) -> per-game wins (0/1 array)` on a fixed set of
games, so every candidate plays the same games and two candidates' difference is paired.
"""
import math

import numpy as np


def to_unit(x, bounds):
    return [(v - lo) / (hi - lo) for v, (lo, hi) in zip(x, bounds)]


def from_unit(u, bounds):
    return [lo + min(1.0, max(0.0, v)) * (hi - lo) for v, (lo, hi) in zip(u, bounds)]


def search(evaluate, start, bounds, budget, seed, log=print):
    """CMA-ES for `budget` evaluations; returns (best knobs, best mean win)."""
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
    return best_knobs, best_rate


def paired_validation(tuned_won, default_won):
    """Win rates of the tuned and default knobs on the same unseen games, and their paired
    difference with a 95% normal interval."""
    diff = tuned_won.astype(float) - default_won
    half = 1.96 * diff.std(ddof=1) / math.sqrt(len(diff))
    return {"games": len(diff),
            "win_rate_tuned": round(float(tuned_won.mean()), 6),
            "win_rate_planner_defaults": round(float(default_won.mean()), 6),
            "paired_difference": round(float(diff.mean()), 6),
            "paired_difference_95ci": [round(float(diff.mean() - half), 6),
                                       round(float(diff.mean() + half), 6)]}
