"""The batch kernel: determinism across threads and chunks, and equality with the single-game API."""
import itertools

import numpy as np
import pandas as pd
import pytest

from sim.games.all_in_ascent import state as S
from sim.games.all_in_ascent.batch import run_games
from sim.games.all_in_ascent.data import CHARACTER_KEYS
from sim.games.all_in_ascent.game import Game
from sim.games.all_in_ascent.records import games_table, seats_table
from sim.games.all_in_ascent.rules import default_rules


def test_same_results_at_1_and_2_threads():
    a = run_games(3000, 7, 4, "random", threads=1)
    b = run_games(3000, 7, 4, "random", threads=2)
    assert np.array_equal(a.final, b.final)
    assert np.array_equal(a.seeds, b.seeds)


def test_same_results_when_split_into_chunks():
    whole = run_games(4000, 11, 3, ["random", "greedy", "random"], threads=2)
    first = run_games(2500, 11, 3, ["random", "greedy", "random"], first_index=0, threads=2)
    second = run_games(1500, 11, 3, ["random", "greedy", "random"], first_index=2500, threads=1)
    assert np.array_equal(whole.final, np.concatenate([first.final, second.final]))
    rules = default_rules()
    pd.testing.assert_frame_equal(
        seats_table(whole, rules).to_pandas(),
        pd.concat([seats_table(first, rules).to_pandas(), seats_table(second, rules).to_pandas()],
                  ignore_index=True))
    pd.testing.assert_frame_equal(
        games_table(whole, rules).to_pandas(),
        pd.concat([games_table(first, rules).to_pandas(), games_table(second, rules).to_pandas()],
                  ignore_index=True))


def test_game_seeds_are_distinct_and_depend_on_the_master_seed():
    a = run_games(200, 1, 2, "random")
    b = run_games(200, 2, 2, "random")
    assert len(set(a.seeds.tolist())) == 200
    assert not np.array_equal(a.seeds, b.seeds)


def _api_final(seed, characters, policies):
    game = Game(int(seed), characters, record=False)
    game.play(policies)
    return game.state[:S.SCRATCH].astype(np.int32)


def test_kernel_equals_single_game_api():
    """2,100 games: every character subset, 1-4 players, random and greedy seats."""
    subsets = [list(c) for k in range(1, 5) for c in itertools.combinations(CHARACTER_KEYS, k)]
    checked = 0
    for i, subset in enumerate(subsets):
        n_games = 70
        policies = ["random"] * len(subset)
        if i % 3 == 0:
            policies[0] = "greedy"
            n_games = 20
        batch = run_games(n_games, 1000 + i, len(subset), policies, subset, threads=2)
        for k in range(n_games):
            expected = _api_final(batch.seeds[k], subset, policies)
            assert np.array_equal(batch.final[k], expected), (subset, k)
            checked += 1
    random_seats = run_games(400, 99, 4, "random", threads=2)
    for k in range(400):
        chars = [CHARACTER_KEYS[c] for c in random_seats.characters[k] if c >= 0]
        assert np.array_equal(random_seats.final[k], _api_final(random_seats.seeds[k], chars,
                                                                 "random"))
        checked += 1
    assert checked >= 2000


def test_random_seating_is_distinct_and_covers_every_seat():
    batch = run_games(5000, 3, 4, "random")
    chars = batch.characters[:, :4]
    assert all(len(set(row)) == 4 for row in chars.tolist())
    for seat in range(4):
        counts = np.bincount(chars[:, seat], minlength=5)
        assert counts.min() > 850  # about 1000 each


def test_policy_returning_an_illegal_action_is_caught():
    from numba import njit

    from sim.core.policies import _REGISTRY, register
    from sim.games.all_in_ascent.policy_api import POLICY_SIGNATURE

    @njit(POLICY_SIGNATURE)
    def bad_policy(ctx):
        return 999

    register("all-in-ascent", "test-bad")(bad_policy)
    try:
        batch = run_games(5, 1, 2, "test-bad")
        assert (batch.final[:, S.G_END_REASON] == 4).all()   # END_POLICY_ERROR
        with pytest.raises(RuntimeError, match="illegal action"):
            Game(1, ["technician", "sprinter"]).play("test-bad")
    finally:
        _REGISTRY.pop(("all-in-ascent", "test-bad"))
