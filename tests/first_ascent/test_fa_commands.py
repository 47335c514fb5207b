"""`ascent ... --game first-ascent`: simulate, replay, rules and the report section, and their
errors (principle 5)."""
import json

import pandas as pd
import pytest

from sim.cli import main


def test_simulate_writes_parquet_and_a_manifest(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["simulate", "--game", "first-ascent", "--players", "3", "--games", "30",
                 "--seed", "2", "--policy", "greedy", "--chunk", "11", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "win share by character" in text and "mean length" in text
    games = pd.read_parquet(out / "games.parquet")
    seats = pd.read_parquet(out / "seats.parquet")
    assert len(games) == 30 and len(seats) == 90
    assert set(games["board"]) == {"desert"}                               # F1
    parts = seats[["points_pitches", "points_summits", "points_shared", "points_sets",
                   "points_spider_stick", "points_personal"]].sum(axis=1)
    assert (parts == seats["score"]).all()                                 # F58
    assert (seats.groupby("game")["won"].sum() >= 1).all()                 # F63
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["game"] == "first-ascent" and manifest["rules"]["round_cap"] == "30"
    again = tmp_path / "again"
    assert main(["simulate", "--game", "first-ascent", "--players", "3", "--games", "30",
                 "--seed", "2", "--policy", "greedy", "--out", str(again), "--quiet"]) == 0
    pd.testing.assert_frame_equal(seats, pd.read_parquet(again / "seats.parquet"))


def test_report_has_a_first_ascent_section(tmp_path):
    out = tmp_path / "run"
    assert main(["simulate", "--game", "first-ascent", "--players", "4", "--games", "40",
                 "--seed", "1", "--out", str(out), "--quiet",
                 "--seat-policies", "greedy,planner,random,greedy", "--rotate-seats"]) == 0
    assert main(["report", str(out)]) == 0
    html = (out / "report.html").read_text()
    for heading in ("Characters", "Matchups", "Score breakdown", "Objectives",
                    "Summit Beta tokens", "Risk Die", "Game length", "Seat advantage"):
        assert heading in html


def test_every_rate_of_the_report_carries_its_n_and_interval(tmp_path):
    """Principle 3 on the First Ascent page: the matchups, the win rate of an objective's
    scorers and holders, the Summit Beta non-users, the Risk Die's faces and the endings each
    show n and a 95% Wilson interval (they were bare rates: an objective's '100.0%' win rate
    if scored rested on 5 seats, with 330, the seats in play, as the row's only n)."""
    from sim.core.stats import wilson_interval
    from sim.report.first_ascent import (matchup_grid, matchup_table, personal_objective_table,
                                         risk_table, shared_objective_table)
    out = tmp_path / "run"
    assert main(["simulate", "--game", "first-ascent", "--players", "3", "--games", "120",
                 "--seed", "3", "--out", str(out), "--quiet"]) == 0
    assert main(["report", str(out)]) == 0
    games = pd.read_parquet(out / "games.parquet")
    seats = pd.read_parquet(out / "seats.parquet").assign(players=3)
    # matchups: a cell counts the row character's seats in games with the column character
    cells = matchup_table(seats).set_index(["character", "against"])
    (a, b), cell = next(iter(cells.iterrows()))
    with_b = set(seats.loc[seats["character"].astype(str) == b, "game"])
    mine = seats[(seats["character"].astype(str) == a) & seats["game"].isin(with_b)]
    assert (cell["n"], cell["count"]) == (len(mine), mine["won"].sum())
    assert (cell["ci_low"], cell["ci_high"]) == wilson_interval(cell["count"], cell["n"])
    assert "% [95% Wilson interval] (n: its seats)" in (out / "report.html").read_text()
    # the grid shows a cell of 30 seats or more as rate [interval] (n)
    grid = matchup_grid(pd.DataFrame({"character": ["x", "y"], "against": ["y", "x"],
                                      "n": [35, 29], "count": [3, 10], "rate": [3 / 35, 10 / 29],
                                      "ci_low": [0.0296, 0.2], "ci_high": [0.2238, 0.5]}))
    assert grid.loc["x", "y"] == "8.6 [3.0,\u00a022.4] (35)" and grid.loc["y", "x"] == ""
    assert grid.loc["x", "x"] == ""
    # an objective's scorers and holders
    so = shared_objective_table(games, seats).iloc[0]
    objective = int(so["objective"].split()[0])
    in_play = games.loc[(games[["shared_1", "shared_2", "shared_3"]] == objective).any(axis=1),
                        "game"]
    scorers = seats[seats["game"].isin(in_play) & (seats[f"shared_points_{objective}"] > 0)]
    assert so["scorers"] == len(scorers)
    assert (so["if_scored_ci_low"], so["if_scored_ci_high"]) == \
        wilson_interval(scorers["won"].sum(), len(scorers))
    po = personal_objective_table(seats).iloc[0]
    assert po["if_held_ci_low"] <= po["win_rate_if_held"] <= po["if_held_ci_high"]
    # the Risk Die: the faces are shares of the risks
    risk = risk_table(seats).iloc[0]
    assert risk["risks"] == seats["risks"].sum()
    assert (risk["risk_check_ci_low"], risk["risk_check_ci_high"]) == \
        wilson_interval(seats["risk_check"].sum(), risk["risks"])
    shares = pd.read_csv(out / "tables" / "first_ascent_summit_beta.csv")
    assert {"not_using_ci_low", "share_ci_low", "effect_ci_low"} <= set(shares.columns)
    ends = pd.read_csv(out / "tables" / "first_ascent_length.csv")
    assert {"eight_pitches_ci_low", "round_cap_ci_high"} <= set(ends.columns)


def test_replay_prints_every_decision_and_the_result(capsys):
    assert main(["replay", "--game", "first-ascent", "--players", "2", "--seed", "5",
                 "--policy", "greedy", "--characters", "phil,rope_gun"]) == 0
    text = capsys.readouterr().out
    assert "seat 1: phil (greedy)" in text and "-- round 1" in text and "end:" in text


@pytest.mark.parametrize("args, message", [
    (["--players", "1"], "2 to 5 players"),
    (["--players", "3", "--rule", "round_cap=0"], "round_cap"),
    (["--players", "3", "--rule", "nonsense=1"], "unknown First Ascent rule"),
    (["--players", "3", "--rule", "card_48b=slab"], "allowed gear, crack"),
    (["--players", "3", "--characters", "phil,phil,rope_gun"], "distinct"),
    (["--players", "3", "--characters", "phil,bold_brit,rope_gun"],
     "phil and bold_brit are the two characters of player board 4, which never meet"),
    (["--players", "3", "--characters", "phil,,rope_gun"], "an empty character"),
    (["--players", "3", "--characters", "phil,nobody,rope_gun"], "unknown character 'nobody'; allowed"),
    (["--players", "3", "--policy", "lookahead"], "unknown policy 'lookahead' for First Ascent"),
    (["--players", "3", "--set", "xp_table.5=800"], "--set: unknown knob 'xp_table.5'"),
])
def test_bad_input_fails_loudly(tmp_path, capsys, args, message):
    code = main(["simulate", "--game", "first-ascent", "--games", "5", "--out",
                 str(tmp_path / "x")] + args)
    err = capsys.readouterr().err
    assert code == 2 and message in err


def test_rules_lists_every_option(capsys):
    from sim.games.first_ascent.rules import OPTIONS
    assert main(["rules", "--game", "first-ascent"]) == 0
    text = capsys.readouterr().out
    for name in OPTIONS:
        assert name in text
    assert "Decision 33" in text and "readings" in text
    # --players' help sends the reader here for the range, which was nowhere in it
    assert text.startswith("First Ascent: 2 to 5 players (F1)")


def test_the_risk_share_takes_a_seat_s_attempts_in_a_game_as_one_unit():
    """A seat's climb attempts in one game are alike (its character, hand and route): the risk
    share's interval counts seats, not attempts (it was Wilson's on the attempts, 2-2.5x too
    narrow). Here every seat risks all or none of its 10 attempts: 1,000 seats, not 10,000."""
    import numpy as np
    import pandas as pd
    from sim.core.stats import wilson_interval
    from sim.report.first_ascent import risk_table
    rng = np.random.default_rng(4)
    seats = 1000
    risky = rng.random(seats) < 0.3
    zero = np.zeros(seats, int)
    table = risk_table(pd.DataFrame({
        "players": 4, "climbs": np.where(risky, 0, 10), "risk_retreats": np.where(risky, 10, 0),
        "risks": np.where(risky, 10, 0), "risk_check": zero, "risk_minus_2_cards": zero,
        "risk_minus_1_card_1_psych": zero, "card_rolls": zero, "rests": zero,
        "forced_rests": zero}))
    row = table.iloc[0]
    assert row["climb_attempts"] == 10 * seats
    width = row["risk_share_ci_high"] - row["risk_share_ci_low"]
    by_seats = np.subtract(*wilson_interval(int(risky.sum()), seats)[::-1])
    by_attempts = np.subtract(*wilson_interval(10 * int(risky.sum()), 10 * seats)[::-1])
    assert width == pytest.approx(by_seats, rel=0.05)
    assert width > 2.5 * by_attempts
