"""Ascension's batch kernel: the same games as the single-game API, whatever the threads,
batch size or chunking (principle 2)."""
import numpy as np
import pytest

from sim.core.seeding import game_seed
from sim.games.ascension import state as S
from sim.core.batch import seat_rotation
from sim.games.ascension.batch import run_games
from sim.games.ascension.state import MAX_PLAYERS
from sim.games.ascension.game import AscensionGame
from sim.games.ascension.rules import build_rules


@pytest.mark.parametrize("players,policies", [
    (2, ["random", "stair-builder"]),
    (3, ["stair-builder", "hybrid", "blocker"]),
    (4, ["stair-builder", "stair-builder-forgetful", "random-safe", "hybrid"]),
])
def test_kernel_equals_single_game_api(players, policies):
    rules = build_rules(players)
    batch = run_games(6, 11, rules, policies)
    for i in range(6):
        seed = int(game_seed(np.int64(11), np.int64(i)))
        assert batch.seeds[i] == seed
        game = AscensionGame(seed, rules=rules).play(policies)
        # records are int32: the 32-bit seed keeps its bit pattern
        assert np.array_equal(game.state[:S.RECORD_SIZE].astype(np.int32), batch.records[i]), i


def test_results_do_not_depend_on_threads_batch_or_chunking():
    rules = build_rules(4)
    pols = ["stair-builder", "hybrid", "blocker", "random-safe"]
    whole = run_games(24, 5, rules, pols, threads=1, rotate=True).records
    parts = np.concatenate([run_games(n, 5, rules, pols, first_index=first, threads=2,
                                      rotate=True).records
                            for first, n in ((0, 7), (7, 1), (8, 16))])
    assert np.array_equal(whole, parts)


def test_rotation_gives_every_policy_every_seat():
    names, slots, _ = seat_rotation(["a", "b", "c"], 6, 0, True, MAX_PLAYERS)
    assert names == ["a", "b", "c"]
    assert sorted(slots[:3, 0].tolist()) == [0, 1, 2]
    assert (slots[:, 3] == -1).all()
    # a later chunk continues the rotation of the game index, not of the chunk
    _, later, _ = seat_rotation(["a", "b", "c"], 3, 3, True, MAX_PLAYERS)
    assert np.array_equal(later, slots[3:6])


def test_stair_builders_finish_their_games():
    """A sanity check of the win path (RULES.md §10: the prototype's stair builder won 96-100%
    of its games): ours ends nearly every game with a winner, well inside the cap."""
    rules = build_rules(4)
    rec = run_games(60, 3, rules, "stair-builder").records
    wins = (rec[:, S.G_END_REASON] == S.END_WIN).mean()
    assert wins >= 0.9
    assert np.median(rec[:, S.G_TURN_COUNT]) < 200


def test_a_policy_that_returns_an_illegal_action_ends_its_game():
    from numba import njit

    from sim.core.policies import register
    from sim.games.ascension.policy_api import POLICY_SIGNATURE

    @register("ascension", "test-illegal")
    @njit(POLICY_SIGNATURE)
    def illegal(ctx):
        return -5

    rec = run_games(2, 1, build_rules(2), ["test-illegal", "random"]).records
    assert (rec[:, S.G_END_REASON] == S.END_POLICY_ERROR).all()
    assert (rec[:, S.G_WINNER] == -1).all()


def test_seat_records_are_consistent():
    """The per-seat tallies agree with each other (records.py reads them from state.py)."""
    from sim.games.ascension.records import games_table, seats_table
    rules = build_rules(4)
    batch = run_games(40, 8, rules, "hybrid")
    games, seats = games_table(batch, rules).to_pandas(), seats_table(batch, rules).to_pandas()
    blocked = seats["blocks"] > 0
    assert (seats.loc[blocked, "first_block_phase"] != "none").all()
    assert (seats.loc[~blocked, "first_block_phase"] == "none").all()
    by_phase = seats[["blocks_ascent", "blocks_summit", "blocks_descent"]].sum(axis=1)
    assert (by_phase == seats["blocks"]).all()
    assert (seats["eliminated"] == (seats["blocks"] >= 2)).all()
    per_game = seats.groupby("game")["blocks"].sum().reindex(games["game"]).to_numpy()
    assert (per_game == games["blocks"].to_numpy()).all()
    assert blocked.any()                       # hybrids do block: the checks above bite
