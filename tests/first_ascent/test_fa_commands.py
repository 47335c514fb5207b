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
