"""The record tables are built and summarised without pandas (sim/core/records.py, issue 22's
warm start): they must read back exactly as the pandas tables they replace, and
`ascent simulate` must not import pandas at all."""
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sim.core.game import get_game
from sim.core.records import (arrow_array, categorical, category_codes, codes_of, label_counts,
                              seats_table, table, values)
from sim.core.stats import rate_line

BUILT_IN = ["all-in-ascent", "ascension", "first-ascent"]


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int16, np.int32, np.int64, np.float64])
def test_a_numpy_column_reads_back_as_itself(dtype):
    rng = np.random.default_rng(3)
    records = rng.integers(-300, 300, size=(50, 7))
    records = (records % 3 == 0) if dtype is np.bool_ else records.astype(dtype)
    column = records[:, 4]                 # a strided view, as the builders take them
    assert len(set(column.tolist())) > 1
    frame = table({"x": column}, {}).to_pandas()
    assert frame["x"].dtype == column.dtype
    assert np.array_equal(frame["x"].to_numpy(), column)
    assert np.array_equal(values(table({"x": column}, {}), "x"), column)
    # a slice starts inside a byte of booleans
    assert np.array_equal(values(table({"x": column}, {}).slice(3, 30), "x"), column[3:33])


@pytest.mark.parametrize("values", [np.arange(4, dtype=">i4"), np.zeros((2, 3)),
                                    np.array(["a", "b"])], ids=["big-endian", "2-D", "text"])
def test_an_array_arrow_would_misread_is_refused(values):
    with pytest.raises(ValueError, match="arrow_array: takes a 1-D array of numbers"):
        arrow_array(values)


@pytest.mark.parametrize("n_categories", [2, 126, 127, 300])
def test_a_categorical_column_reads_back_as_pandas_builds_it(n_categories):
    categories = [f"c{i}" for i in range(n_categories)]
    codes = np.array([0, n_categories - 1, -1, 1, 0])
    got = table({"x": codes}, {"x": categories}).to_pandas()["x"]
    want = pd.Series(pd.Categorical.from_codes(codes, categories), name="x")
    pd.testing.assert_series_equal(got, want)
    # the stored code width is pandas' own (int8 up to 126 categories, then int16), so that a
    # run's parquet schema is the one its DataFrames gave
    assert (table({"x": codes}, {"x": categories}).schema.field("x").type.index_type
            == pa.Table.from_pandas(want.to_frame()).schema.field("x").type.index_type)
    back_codes, back_categories = category_codes(table({"x": codes}, {"x": categories}), "x")
    assert back_codes.tolist() == codes.tolist() and back_categories == categories


@pytest.mark.parametrize("codes", [[0, 2], [-2, 0]])
def test_a_code_outside_the_categories_is_refused(codes):
    with pytest.raises(ValueError, match="records column 'x': codes"):
        categorical("x", np.array(codes), ["a", "b"])


def test_engine_numbers_map_to_their_categories_and_an_unknown_one_is_refused():
    assert codes_of("r", np.array([5, 0, -3, 5]), (5, -3, 0)).tolist() == [0, 2, 1, 0]
    with pytest.raises(ValueError, match=r"records column 'r': values \[7\] are none of"):
        codes_of("r", np.array([5, 7]), (5, 0))


def test_tables_read_back_from_a_parquet_file_of_several_chunks(tmp_path):
    def chunk(first):
        return table({"won": np.array([True, False, first > 0]), "n": np.arange(3) + first,
                      "why": np.array([0, -1, 1])}, {"why": ["a", "b", "unused"]})
    path = tmp_path / "t.parquet"
    with pq.ParquetWriter(path, chunk(0).schema) as writer:
        for first in (0, 3, 6):
            writer.write_table(chunk(first))
    back = pq.ParquetFile(path).read()
    assert back.column("why").num_chunks == 3             # a dictionary per row group
    assert values(back, "n").tolist() == list(range(9))
    assert values(back, "won").tolist() == [True, False, False] + [True, False, True] * 2
    several = pa.concat_tables([chunk(0), chunk(3).slice(1, 2), chunk(6)])
    assert several.column("won").num_chunks == 3
    assert values(several, "won").tolist() == [True, False, False, False, True, True, False,
                                                True]
    codes, categories = category_codes(back, "why")
    assert codes.tolist() == [0, -1, 1] * 3 and categories == ["a", "b", "unused"]
    assert label_counts(back, "why").get("b", 0) == 3
    assert label_counts(back, "why").get("none", 0) == 0
    assert pd.read_parquet(path)["why"].cat.categories.tolist() == ["a", "b", "unused"]


def test_the_seats_table_is_sorted_by_game_then_seat():
    players = np.array([3, 2, 4])

    def seat_columns(seat, rows):
        return {"who": np.full(rows.sum(), seat % 2)}
    frame = seats_table(10, players, seat_columns, {"who": ["even", "odd"]}).to_pandas()
    assert frame["game"].tolist() == [10] * 3 + [11] * 2 + [12] * 4
    assert frame["seat"].tolist() == [0, 1, 2, 0, 1, 0, 1, 2, 3]
    assert frame["who"].tolist() == ["even", "odd", "even", "even", "odd",
                                     "even", "odd", "even", "odd"]


# Each categorical column against its meaning, read from the kernel's raw records one row at a
# time: a label that is wrong the same way in every row would still read back consistently.
def _all_in_ascent_labels():
    from sim.games.all_in_ascent import state as S
    from sim.games.all_in_ascent.batch import run_games
    from sim.games.all_in_ascent.data import CHARACTER_KEYS, TIERS
    from sim.games.all_in_ascent.records import END_REASONS, games_table, seats_table
    from sim.games.all_in_ascent.rules import default_rules
    rules = default_rules()
    batch = run_games(40, 3, 3, ["random", "greedy", "random"], first_index=5, rules=rules,
                      threads=1)
    f, chars = batch.final, batch.characters
    games, seats = games_table(batch, rules).to_pandas(), seats_table(batch, rules).to_pandas()
    for g in range(len(f)):
        w = f[g, S.G_WINNER]
        assert games.winner_character[g] == (CHARACTER_KEYS[chars[g, w]] if w >= 0 else "none")
        assert games.end_reason[g] == END_REASONS[f[g, S.G_END_REASON]]
        for tier, name in enumerate(TIERS):
            rid = f[g, S.G_MILESTONES + tier]
            assert games[f"milestone_{name}"][g] == rules.route_names[rid]
            assert games[f"milestone_{name}_area"][g] == rules.route_areas[rid]
            assert games[f"milestone_{name}_tag"][g] == (rules.route_tags[rid] or "none")
    for row in seats.itertuples():
        g = row.game - 5
        assert row.character == CHARACTER_KEYS[chars[g, row.seat]]
        assert row.policy == batch.seat_policies[row.seat]
    return games, seats


def _ascension_labels():
    from sim.games.ascension import state as S
    from sim.games.ascension.batch import run_games
    from sim.games.ascension.records import games_table, seats_table
    from sim.games.ascension.rules import build_rules
    rules = build_rules(4)
    batch = run_games(40, 8, rules, ["hybrid", "random", "blocker", "hybrid"], rotate=True,
                      threads=1)
    r = batch.records
    games, seats = games_table(batch, rules).to_pandas(), seats_table(batch, rules).to_pandas()
    for g in range(len(r)):
        w = r[g, S.G_WINNER]
        assert games.winner_policy[g] == (batch.policies[batch.seat_policies[g, w]] if w >= 0
                                          else "none")
        assert games.end_reason[g] == S.END_REASON_NAMES[r[g, S.G_END_REASON]]
    for row in seats.itertuples():
        g, seat = row.game, row.seat
        assert row.policy == batch.policies[batch.seat_policies[g, seat]]
        for column, field in (("elimination_phase", S.T_ELIM_RACE),
                              ("first_block_phase", S.T_FIRST_BLOCK_RACE)):
            phase = r[g, field + seat]
            assert getattr(row, column) == (S.RACE_NAMES[phase] if phase >= 0 else "none")
    return games, seats


def _first_ascent_labels():
    from sim.games.first_ascent import state as S
    from sim.games.first_ascent.batch import run_games
    from sim.games.first_ascent.data import CHARACTER_KEYS
    from sim.games.first_ascent.records import games_table, seats_table
    from sim.games.first_ascent.rules import build_rules
    rules = build_rules(3)
    batch = run_games(40, 6, rules, ["greedy", "random", "random"], rotate=True, threads=1)
    r = batch.records
    games, seats = games_table(batch, rules).to_pandas(), seats_table(batch, rules).to_pandas()
    for g in range(len(r)):
        assert games.board[g] == ("desert" if r[g, S.G_SIDE] == 0 else "forest")
        assert games.end_reason[g] == S.END_REASON_NAMES[r[g, S.G_END_REASON]]
    for row in seats.itertuples():
        g, seat = row.game, row.seat
        assert row.policy == batch.policies[batch.seat_policies[g, seat]]
        assert row.character == CHARACTER_KEYS[r[g, S.S_CHAR + seat * S.SEAT_FIELDS]]
    return games, seats


@pytest.mark.parametrize("labels", [_all_in_ascent_labels, _ascension_labels,
                                    _first_ascent_labels], ids=BUILT_IN)
def test_every_categorical_column_reads_its_records(labels):
    games, seats = labels()
    # the runs are varied enough for a label wrong in every row, or shifted, to show (First
    # Ascent's runs all end one way on the default board)
    for table in (games, seats):
        assert len(table.select_dtypes("category").columns), "no categorical column"
        for column in table.select_dtypes("category"):
            if column not in ("board", "end_reason") or labels is not _first_ascent_labels:
                assert table[column].nunique() > 1, column


# The summaries as they were written with pandas, before the tables lost it: the reference.
def _all_in_ascent_summary(games, seats):
    lines = ["win rate per character (95% Wilson interval):"]
    for char, grp in seats.groupby("character", observed=True):
        lines.append(rate_line(f"{char:<12}", int(grp["won"].sum()), len(grp)))
    lines.append(rate_line(f"{'no winner':<12}", int((games["winner_seat"] < 0).sum()),
                           len(games)))
    lines.append(f"  median rounds: {games['rounds'].median():g}")
    return lines


def _ascension_summary(games, seats):
    lines = ["win rate by seat (95% Wilson interval):"]
    for seat, grp in seats.groupby("seat"):
        lines.append(rate_line(f"seat {seat + 1} ", int(grp["won"].sum()), len(grp)))
    for reason in ("win", "cap", "all_eliminated"):
        lines.append(rate_line(f"ended by {reason:<15}", int((games["end_reason"] == reason).sum()),
                               len(games)))
    lines.append(f"  median length: {games['turns'].median():g} turns")
    return lines


def _first_ascent_summary(games, seats):
    import numpy as np
    from sim.core.stats import wilson_interval
    lines = ["win share by character (a shared win counts 1/k for each of its k winners, as the "
             "report ranks them),", "then wins with every winner counted, and the mean score; "
             "95% intervals:"]
    winners = seats.groupby("game")["won"].transform("sum")
    share = (seats["won"] / winners.where(winners > 0)).fillna(0.0)
    for char, grp in seats.groupby("character", observed=True):
        n, wins = len(grp), int(grp["won"].sum())
        lo, hi = wilson_interval(wins, n)
        mean = grp["score"].mean()
        half = 1.96 * grp["score"].std() / np.sqrt(n) if n > 1 else float("nan")
        spread = f"[{mean - half:5.1f}, {mean + half:5.1f}]" if n > 1 else "[    –,     –]"
        lines.append(rate_line(
            f"{char:<22}", float(share[grp.index].sum()), n,
            f"  won {wins / n:7.2%} [{lo:6.2%}, {hi:6.2%}]  mean score {mean:5.1f} "
            f"{spread}  n={n:,}"))
    for reason in ("eight_pitches", "stranded", "round_cap", "policy_error"):
        k = int((games["end_reason"] == reason).sum())
        if k:
            lines.append(rate_line(f"ended by {reason:<14}", k, len(games)))
    lines.append(f"  mean length: {games['rounds'].mean():.2f} rounds")
    return lines


REFERENCE = {"all-in-ascent": _all_in_ascent_summary, "ascension": _ascension_summary,
             "first-ascent": _first_ascent_summary}


@pytest.mark.parametrize("name", BUILT_IN)
@pytest.mark.parametrize("players, n_games, chunk", [(4, 30, 11), (2, 2, 1)])
def test_the_summary_reads_the_tables_as_pandas_did(name, players, n_games, chunk, tmp_path):
    from sim.cli import main
    game = get_game(name)
    out = tmp_path / "run"
    # chunks, so that the summary reads a file of several row groups; two games of two players
    # leave characters unseated
    assert main(["simulate", "--game", name, "--players", str(players), "--games", str(n_games),
                 "--chunk", str(chunk), "--seed", "4", "--policy", "random", "--out", str(out),
                 "--quiet"]) == 0
    games_cols, seats_cols = game.summary_columns
    games = pq.ParquetFile(out / "games.parquet").read(columns=list(games_cols))
    seats = pq.ParquetFile(out / "seats.parquet").read(columns=list(seats_cols))
    assert pq.ParquetFile(out / "games.parquet").metadata.num_row_groups == -(-n_games // chunk)
    want = REFERENCE[name](pd.read_parquet(out / "games.parquet"),
                           pd.read_parquet(out / "seats.parquet"))
    assert game.api.summary(games, seats).splitlines() == want


@pytest.mark.parametrize("name", BUILT_IN)
def test_simulate_imports_neither_pandas_nor_pyarrow_compute(name, tmp_path):
    """pandas' import is a fifth of the 1 s a warm start may take (issue 22); a fresh process,
    since this one has pandas already. Both paths: a run played, and a run found done."""
    script = f"""
import sys
from sim.cli import main
for _ in range(2):
    assert main(["simulate", "--game", {name!r}, "--players", "3", "--games", "3", "--seed",
                 "1", "--policy", "random", "--out", {str(tmp_path / "run")!r}]) == 0
print("pandas" in sys.modules, "pyarrow.compute" in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout
    assert "already holds this run" in out
    # pyarrow.compute: 20 ms, imported by a cast no chunk of a built-in game needs
    assert out.strip().splitlines()[-1] == "False False"
