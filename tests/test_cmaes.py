"""policies/cmaes.py: the tuning run's validation, its seeds and interval (the search is CMA-ES's
own, from the cma package)."""
import numpy as np
import pytest

from policies.cmaes import paired_validation, tune_and_validate


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


def test_the_validation_interval_keeps_its_width_where_no_game_differs():
    """The tuned and default knobs won the same games: a normal interval on the per-game
    differences was [0, 0]; Tango's is +-z^2 / (n + z^2)."""
    won = np.array([1, 0, 0, 1] * 25)
    v = paired_validation(won, won)
    assert v["paired_difference"] == 0.0 and v["interval"] == "Tango"
    low, high = v["paired_difference_95ci"]
    assert low == pytest.approx(-1.96**2 / (100 + 1.96**2), abs=1e-4) == -high
    # and its sign follows the tuned knobs: 6 games more won, 1 fewer
    tuned = won.copy()
    tuned[[1, 2, 5, 6, 9, 10]] = 1
    tuned[0] = 0
    v = paired_validation(tuned, won)
    low, high = v["paired_difference_95ci"]
    assert v["paired_difference"] == 0.05 and low < 0.05 < high
