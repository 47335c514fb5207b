"""policies/cmaes.py: the tuning run's seeds (its search is CMA-ES's own, from the cma package)."""
import numpy as np

from policies.cmaes import tune_and_validate


def test_the_validation_games_take_another_seed_within_the_range():
    """Validation plays fresh games (the training seed + 1,000,003); near the top of the seeds'
    range that sum overflowed int64 in the games' seeding, so it wraps."""
    asked = []

    def games_for(n, seed):
        asked.append(seed)
        return np.full(n, seed % 2, np.int64)

    def wins(knobs, games):
        return (games + (knobs[0] > 0.5)) % 2

    for seed, validation in ((7, 1_000_010), (2**63 - 1, 1_000_002)):
        asked.clear()
        record = tune_and_validate(wins, games_for, [0.5, 0.5], [0.5, 0.5], [(0.0, 1.0)] * 2,
                                   ["k", "j"], 4, 4, seed, 6, lambda line: None, 2, ["x"])
        assert asked == [seed, validation]
        assert record["validation"]["games"] == 6 and record["seed"] == seed
