"""`ascent sweep`: each value of a knob against the current rules on the same games, resumable,
with bad arguments refused in one line. Played on the example game (Dice Race, examples/), whose
games are fast and whose rule options are plain numbers."""
import json
import shutil

import pandas as pd
import pytest

from sim.cli import main
from sim.experiment.sweep import (SweepError, axes_from_arguments, parse_range, short_names,
                                  sweep_settings, sweep_variants)


def sweep(out, *extra, games="1200", players="2"):
    return main(["sweep", "--game", "dice-race", "--players", players, "--games", games,
                 "--chunk", "600", "--out", str(out), "--quiet", *extra])


@pytest.fixture(scope="module")
def target_sweep(tmp_path_factory):
    """target over 20, 30 (the current value) and 40; bust_face over 1 (current) and 2."""
    out = tmp_path_factory.mktemp("sweep") / "target"
    assert sweep(out, "--knob", "target", "--values", "20,30,40",
                 "--knob", "bust_face", "--range", "1:2:1") == 0
    return out


def cells(out):
    return pd.read_csv(out / "tables" / "sweep_cells.csv")


def test_range_is_decimal_and_inclusive():
    assert parse_range("k", "3:7:2") == ("3", "5", "7")
    assert parse_range("k", "0.1:0.3:0.1") == ("0.1", "0.2", "0.3")
    assert parse_range("k", "5:5:1") == ("5",)


@pytest.mark.parametrize("knobs, levels, message", [
    ([], [], "--knob: give at least one knob"),
    (["target"], [], "1 knob(s) but 0 --values/--range"),
    (["target"], [("range", "3:1:1")], "--range for target: expected LOW <= HIGH"),
    (["target"], [("range", "1:9")], "--range for target: expected LOW:HIGH:STEP"),
    (["target"], [("range", "0:1000:1")], "at most 60 per knob"),
    (["target"], [("values", "20,,30")], "--values for target: expected comma-separated"),
    (["target"], [("values", "20,20")], "each value once"),
    (["target"], [("values", "a/b")], "cannot be a value here"),
    (["target", "target"], [("values", "1"), ("values", "2")], "--knob: each knob once"),
])
def test_bad_axes_name_the_flag(knobs, levels, message):
    with pytest.raises(SweepError, match=message.replace("(", r"\(").replace(")", r"\)")):
        axes_from_arguments(knobs, levels)


def test_short_names_tell_two_knobs_apart():
    names = short_names(["characters.a.growth.strength", "characters.b.growth.strength",
                         'gear."Power Tap Belt".cost'])
    assert names == {"characters.a.growth.strength": "a.growth.strength",
                     "characters.b.growth.strength": "b.growth.strength",
                     'gear."Power Tap Belt".cost': "cost"}


def test_grid_is_every_combination_and_one_at_a_time_is_not():
    axes = axes_from_arguments(["a.x", "b.y"], [("values", "1,2"), ("values", "3,4,5")])
    assert len(sweep_variants(axes, grid=False)) == 5
    grid = sweep_variants(axes, grid=True)
    assert len(grid) == 6 and grid[0].name == "x=1,y=3"
    assert grid[0].setting == (("a.x", "1"), ("b.y", "3"))


def test_settings_refuse_an_experiment_that_is_not_a_sweep():
    identity = {"variants": {"baseline": {"preset": "v0.4.0", "rules": {}, "set": {}},
                             "other": {"preset": "v0.6.0", "rules": {}, "set": {}}}}
    with pytest.raises(ValueError, match="changes the preset"):
        sweep_settings(identity, ["baseline", "other"])


def test_each_value_is_paired_against_the_current_rules(target_sweep):
    table = cells(target_sweep)
    assert set(table["setting"]) == {"target = 20", "target = 30", "target = 40",
                                     "bust_face = 1", "bust_face = 2"}
    assert (table["games"] == 1200).all()          # each of 2 seats in every game
    # the current values play exactly the current rules' games
    current = table[table["setting"].isin(["target = 30", "bust_face = 1"])]
    assert current["same_games"].all() and (current["difference"] == 0).all()
    assert (current["discordant"] == 0).all()
    moved = table[~table["setting"].isin(["target = 30", "bust_face = 1"])]
    assert not moved["same_games"].any()
    assert (moved["difference"] - (moved["variant_win_rate"] - moved["base_win_rate"])
            ).abs().max() < 1e-12
    assert ((moved["paired_ci_low"] <= moved["difference"]) &
            (moved["difference"] <= moved["paired_ci_high"])).all()


def test_a_lower_target_helps_the_first_seat(target_sweep):
    """A shorter race leaves the second seat fewer turns to catch up: seat 1's win rate falls
    as the target grows (D5); at 20 the sweep's interval already excludes zero."""
    table = cells(target_sweep).set_index(["setting", "seat"])["difference"]
    assert cells(target_sweep).set_index(["setting", "seat"]).loc[
        ("target = 20", 0), "paired_ci_low"] > 0
    assert table[("target = 20", 0)] > table[("target = 30", 0)] == 0 > \
        table[("target = 40", 0)]


def test_a_knob_that_shifts_the_rolls_is_reported_as_unpaired(target_sweep):
    """bust_face = 2 ends turns at other rolls, so every later roll of the single stream moves:
    pairing buys almost nothing, and the first screen says so and why."""
    table = cells(target_sweep)
    assert table.loc[table["setting"] == "bust_face = 2", "pairing_gain"].max() < 1.3
    page = (target_sweep / "sweep.html").read_text()
    assert "Pairing is lost for bust_face = 2" in page
    assert "one mulberry32 stream of die rolls per game" in page


def test_the_page_answers_first_and_has_a_figure_per_knob(target_sweep):
    page = (target_sweep / "sweep.html").read_text()
    assert page.index("What each value changes") < page.index("<img")
    # each row's current rate with its n (the page gave only "N games a value")
    assert "<th>current rules [95%] of n seats</th>" in page and " of 1,200</td>" in page
    # and every cell's two rates with their intervals
    from sim.report import first_screen as FS
    row = cells(target_sweep).iloc[-1]
    every = page[page.index("Every cell"):]
    shown = FS.pct_interval(row["variant_win_rate"], row["variant_ci_low"],
                            row["variant_ci_high"])
    assert f"<td>{shown}</td>" in every
    assert (target_sweep / "figures" / "sweep_target_p2.png").exists()
    assert (target_sweep / "figures" / "sweep_bust_face_p2.png").exists()


def test_the_same_command_resumes_and_plays_nothing_again(target_sweep, capsys):
    assert sweep(target_sweep, "--knob", "target", "--values", "20,30,40",
                 "--knob", "bust_face", "--range", "1:2:1") == 0
    runs = json.loads((target_sweep / "experiment.json").read_text())["runs"]
    assert runs[-1]["games_played"] == 0
    # and `ascent run` on the spec it wrote is the same experiment
    assert main(["run", str(target_sweep / "sweep.toml"), "--quiet"]) == 0
    runs = json.loads((target_sweep / "experiment.json").read_text())["runs"]
    assert runs[-1]["games_played"] == 0


def test_more_games_extend_the_sweep(tmp_path):
    out = tmp_path / "grow"
    assert sweep(out, "--knob", "target", "--values", "25", games="600") == 0
    assert sweep(out, "--knob", "target", "--values", "25", games="1200") == 0
    runs = json.loads((out / "experiment.json").read_text())["runs"]
    assert [r["games_played"] for r in runs] == [1200, 1200]     # baseline + one value, twice


def test_a_value_not_yet_finished_is_named_with_the_games_it_is_compared_on(tmp_path):
    """An interrupted sweep compares a value on the games it has; the header gave the
    baseline's count as every value's ("1,800 games a value"). Chunks are written as they
    finish, on several workers, so a missing one may be in the middle."""
    from sim.report.sweep import current_rate, sweep_table, write_sweep_report
    out = tmp_path / "cut"
    assert sweep(out, "--knob", "target", "--values", "40,20", games="1800") == 0
    # as if the run had stopped with target = 40's second chunk of three unfinished
    shutil.rmtree(out / "chunks" / "target=40" / "p2" / "chunk-00001")
    doc = json.loads((out / "experiment.json").read_text())
    doc["chunks"] = [c for c in doc["chunks"]
                     if (c["variant"], c["index"]) != ("target=40", 1)]
    (out / "experiment.json").write_text(json.dumps(doc))
    write_sweep_report(out)
    page = (out / "sweep.html").read_text()
    assert "1,800 games a value; not yet finished, so compared on fewer games: target = 40 " \
           "(1,200)." in page
    # each row's current rate, in the table and the figure, is the one on all the baseline's
    # games (target = 20's pairing), not on the unfinished value's
    assert page.count(" of 1,800</td>") == 2 and " of 1,200</td>" not in page
    diff = sweep_table(out).diff
    full = diff[(diff["variant"] == "target=20") & (diff["label"] == "Seat 1")]
    assert current_rate(diff, 2, "Seat 1") == float(full["base_win_rate"].iloc[0])
    cut = diff[(diff["variant"] == "target=40") & (diff["label"] == "Seat 1")]
    assert int(cut["games_compared"].iloc[0]) == 1200


def test_another_sweep_in_the_same_folder_is_refused(target_sweep, capsys):
    before = (target_sweep / "sweep.toml").read_text()
    assert sweep(target_sweep, "--knob", "target", "--values", "50") == 2
    err = capsys.readouterr().err
    assert "--out:" in err and "holds another sweep" in err
    assert (target_sweep / "sweep.toml").read_text() == before


@pytest.mark.parametrize("extra, message", [
    (["--knob", "target", "--values", "2"], "--knob target = 2: "),
    (["--knob", "colour", "--values", "1"], "--knob colour = 1: "),
    (["--knob", "target", "--values", "20", "--rule", "target=30"],
     "--rule: target is swept by --knob"),
    (["--knob", "target"], "1 knob(s) but 0 --values/--range"),
    (["--knob", "target", "--values", "20", "--knob", "bust_face", "--values", "2", "--grid",
      "players=9"], "--players"),
    (["--knob", "target", "--values", "20", "--grid"], "--grid: a grid needs two or more"),
])
def test_bad_arguments_are_one_line_and_exit_2(tmp_path, capsys, extra, message):
    players = [e.split("=")[1] for e in extra if e.startswith("players=")]
    extra = [e for e in extra if not e.startswith("players=")]
    assert sweep(tmp_path / "bad", *extra, players=players[0] if players else "2") == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "bad").exists()


def test_a_folder_with_other_files_is_refused(tmp_path, capsys):
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    assert sweep(tmp_path / "busy", "--knob", "target", "--values", "20") == 2
    assert "not empty and holds no sweep" in capsys.readouterr().err


def test_each_values_own_warnings_are_on_the_first_screen(tmp_path):
    # D6: a 4-turn cap stops most of hold-at's games; the validity box names the value
    out = tmp_path / "capped"
    assert sweep(out, "--knob", "max_turns", "--values", "4", games="600") == 0
    page = (out / "sweep.html").read_text()
    box = page[page.index("Read with care"):page.index("What each value changes")]
    assert "max_turns = 4: " in box and "were stopped by a cap (end reason turn_cap)" in box
    assert "The current rules:" not in box        # hold-at ends its games under the default
