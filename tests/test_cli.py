"""The `ascent` command: replay and simulate, as a designer runs them."""
import json
import os
import subprocess
import sys

import pandas as pd
import pytest

from sim.cli import main


def run(*args):
    return subprocess.run([sys.executable, "-m", "sim.cli", *args], capture_output=True,
                          text=True)


def test_replay_seed_1_jsonl(capsys):
    assert main(["replay", "--seed", "1", "--characters", "technician,sprinter,ironLung,freeSolo",
                 "--policy", "random", "--format", "jsonl"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    header = lines[0]
    assert [(m["route"], m["area"]) for m in header["milestones"]] == [
        ("The Gauntlet Opener", "bouldering"), ("The Standard", "topRope"),
        ("The Elite Lead", "leadClimbing")]
    assert header["rng_state"] == 1064271450
    last = lines[-1]
    assert "game_over" in last
    over = last["game_over"]
    assert over["winner"] is not None or (over["reason"] == "max_rounds" and last["round"] == 45)
    climbs = [e for e in lines[1:] if e["action"]["kind"] in ("climb", "milestone")]
    assert climbs and all("dice" in e["attempt"] and "requirements" in e["attempt"] for e in climbs)


def test_replay_text_reads_like_a_play_by_play(capsys):
    assert main(["replay", "--seed", "1", "--characters", "technician,sprinter,ironLung,freeSolo",
                 "--policy", "random"]) == 0
    text = capsys.readouterr().out
    assert "Milestones: beginner The Gauntlet Opener (bouldering)" in text
    assert "-- Round 1 --" in text and "dice [" in text and "Game over" in text
    assert "== End of round 1: leadClimbing cleared" in text
    # people count seats from 1, in replays as in reports
    assert "Seats: 1=technician, 2=sprinter" in text and "\n[1] technician" in text


def test_simulate_is_identical_at_1_and_2_threads(tmp_path):
    outs = []
    for threads in (1, 2):
        out = tmp_path / f"t{threads}"
        assert main(["simulate", "--players", "4", "--games", "1500", "--seed", "7",
                     "--policy", "random", "--threads", str(threads), "--chunk", "600",
                     "--out", str(out), "--quiet"]) == 0
        outs.append(out)
    for name in ("games.parquet", "seats.parquet"):
        pd.testing.assert_frame_equal(pd.read_parquet(outs[0] / name),
                                      pd.read_parquet(outs[1] / name))
    manifest = json.loads((outs[0] / "manifest.json").read_text())
    assert manifest["games"] == 1500 and manifest["master_seed"] == 7
    assert manifest["data_sha256"] and manifest["numba_version"] and manifest["command"]
    games = pd.read_parquet(outs[0] / "games.parquet")
    seats = pd.read_parquet(outs[0] / "seats.parquet")
    assert len(games) == 1500 and len(seats) == 6000
    assert set(games.columns) >= {"game", "seed", "players", "winner_seat", "winner_character",
                                  "rounds", "end_reason", "actions", "milestone_beginner",
                                  "milestone_expert_area", "milestone_intermediate_tag"}
    assert set(seats.columns) >= {"game", "seat", "character", "policy", "won", "milestones",
                                  "level", "xp_total", "xp_spent", "owns_harness",
                                  "bought_round_lead_rope", "climbs_topRope", "trainings_focus",
                                  "rests", "turns_ended_early"}
    # exactly one winner per won game
    won = seats.groupby("game")["won"].sum()
    assert ((won == 1) == (games.set_index("game")["winner_seat"] >= 0)).all()


@pytest.mark.parametrize("args,needle", [
    (["simulate", "--players", "5", "--games", "10", "--seed", "1", "--out", "x"], "--players"),
    (["simulate", "--players", "2", "--games", "0", "--seed", "1", "--out", "x"], "--games"),
    (["simulate", "--players", "2", "--games", "10", "--seed", "-3", "--out", "x"], "--seed"),
    (["simulate", "--players", "2", "--games", "10", "--seed", "1", "--policy", "nope",
      "--out", "x"], "--policy: unknown policy 'nope'"),
    (["replay", "--seed", "1", "--characters", "technician,sprinter", "--seat-policies",
      "greedy,nope"], "--seat-policies: unknown policy 'nope'"),
    (["simulate", "--players", "2", "--games", "10", "--seed", "1", "--characters",
      "technician,technician", "--out", "x"], "distinct"),
    (["replay", "--seed", "1", "--characters", "technician,wizard"], "unknown character 'wizard'"),
    (["replay", "--seed", "1", "--characters", "technician", "--preset", "v9"], "unknown rules preset"),
])
def test_bad_arguments_fail_with_one_clear_line(args, needle):
    proc = run(*args)
    assert proc.returncode == 2
    assert needle in proc.stderr
    assert "Traceback" not in proc.stderr


def test_summary_warns_when_games_hit_the_action_cap():
    import pyarrow as pa
    from sim.games.all_in_ascent.protocol import summary as summary_table
    # as the summary reads a run folder: pyarrow Tables, the labels as categories
    seats = pa.Table.from_pandas(pd.DataFrame({
        "character": pd.Categorical(["technician", "sprinter"] * 2),
        "won": [True, False, False, False]}))

    def games(reasons):
        return pa.Table.from_pandas(pd.DataFrame({"winner_seat": [0, -1], "rounds": [12, 900],
                                                  "end_reason": pd.Categorical(reasons)}))
    assert "1 of 2 games were stopped by the safety cap" in summary_table(
        games(["winner", "action_cap"]), seats)
    assert "safety cap" not in summary_table(games(["winner", "max_rounds"]), seats)


@pytest.mark.parametrize("game, players, expected", [("all-in-ascent", "4", "tuned"),
                                                     ("first-ascent", "3", "tuned"),
                                                     ("ascension", "2", "hybrid")])
def test_without_policy_simulate_plays_the_strongest_affordable_bot(tmp_path, game, players,
                                                                    expected):
    # greedy, the old default, never finishes an All-In Ascent game well: a first run was empty
    out = tmp_path / game
    assert main(["simulate", "--game", game, "--players", players, "--games", "3", "--seed",
                 "2", "--out", str(out), "--quiet"]) == 0
    assert json.loads((out / "manifest.json").read_text())["seat_policies"] == \
        [expected] * int(players)


def test_the_default_policy_is_stated_in_help(capsys):
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "tuned for All-In Ascent, hybrid for Ascension, tuned for First Ascent" in text


# --- bad input: one line, exit 2, nothing written ----------------------------------------------

def _sim(out, *extra):
    return ["simulate", "--players", "2", "--games", "3", "--seed", "1", "--out", str(out),
            "--quiet", *extra]


@pytest.mark.parametrize("args, words", [
    (["--threads", "999"], "--threads: at most"),
    (["--rule", "max_rounds=40", "--rule", "max_rounds=30"], "--rule: max_rounds is given twice"),
    # R72: a cap past int64 failed with an OverflowError
    (["--rule", "max_rounds=9223372036854775808"], "switch max_rounds: expected a number of "
     "rounds from 1 to 1,000,000 or none, got 9223372036854775808"),
    (["--set", "characters.technician.passive.requirement_reduction=3", "--set",
      "characters.technician.passive.requirement_reduction=4"], "is given twice"),
    (["--policy", "random", "--seat-policies", "random,greedy"], "--policy and --seat-policies"),
    (["--game", "ascension", "--rule", "max_stack=12", "--rule", "max_stack=10"],
     "--rule: max_stack is given twice"),
    (["--game", "first-ascent", "--rule", "readings=bga", "--rule", "readings=card"],
     "--rule: readings is given twice"),
    # asked for, 'random' promised a draw of characters the game does not have
    (["--game", "ascension", "--characters", "random"], "Ascension has no characters"),
])
def test_bad_simulate_arguments_are_one_line(tmp_path, capsys, args, words):
    assert main(_sim(tmp_path / "out", *args)) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args, words", [
    # an empty name read as "not given" ran the default bot, preset or folder
    (["--policy", ""], "argument --policy: expected a name, got ''"),
    (["--preset", " "], "argument --preset: expected a name, got ' '"),
    (["--out", ""], "argument --out: expected a name, got ''"),
    # Python's int() takes these; a designer did not mean them as counts
    (["--games", "\uff12\uff10"], "argument --games: expected a whole number, got '\uff12\uff10'"),
    (["--games", "1_0"], "argument --games: expected a whole number, got '1_0'"),
    (["--players", "2.0"], "argument --players: expected a whole number, got '2.0'"),
    (["--seed", " 7 "], "argument --seed: expected a whole number, got ' 7 '"),
    # argparse kept the last of a repeated option: this ran seed 2, without a word
    (["--seed", "2"], "argument --seed: given twice; give it once"),
    (["--quiet"], "argument --quiet: given twice; give it once"),
    (["--chunk", "100000001"], "argument --chunk: expected at most 100,000,000 games a chunk"),
])
def test_arguments_the_parser_refuses_exit_2_and_write_nothing(tmp_path, capsys, args, words):
    with pytest.raises(SystemExit) as stopped:
        main(_sim(tmp_path / "out", *args))
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    # one line, as every other bad input's (argparse printed its usage block first)
    assert err.startswith(f"ascent: error: {words}") and err.count("\n") == 1
    assert err.endswith("(see `ascent simulate --help`)\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [
    ["sweep", "--knob", "max_rounds", "--values", "30,40", "--games", "10", "--players", "3"],
    ["skill", "--levels", "random,greedy", "--games", "10", "--players", "3"]])
def test_commands_that_play_experiment_specs_take_no_data_file(tmp_path, capsys, command):
    """A sweep or skill curve plays experiment specs, which play the bundled data: --data was
    accepted there and read by nothing."""
    with pytest.raises(SystemExit) as stopped:
        main([*command, "--out", str(tmp_path / "out"), "--data", str(tmp_path / "mine.json")])
    assert stopped.value.code == 2
    assert "unrecognized arguments: --data" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


# what Python's int() and float() read as numbers, a designer did not mean as one
NOT_WHOLE_NUMBERS = ("1_0", "\uff11\uff10", "\u0661\u0660", "2.0")
NOT_NUMBERS = ("nan", "infinity", "1_0.5", "\u0661.5")


@pytest.mark.parametrize("game, flag, assignment, values", [
    ("all-in-ascent", "--rule", "max_rounds", NOT_WHOLE_NUMBERS),
    ("all-in-ascent", "--set", 'gear."Mountain Mentor".cost', NOT_WHOLE_NUMBERS),
    ("all-in-ascent", "--set", "characters.sprinter.growth.endurance", NOT_NUMBERS),
    ("ascension", "--rule", "max_stack", NOT_WHOLE_NUMBERS),
    ("first-ascent", "--rule", "round_cap", NOT_WHOLE_NUMBERS),
    ("first-ascent", "--set", "characters.phil.start_water", NOT_WHOLE_NUMBERS),
    ("dice-race", "--rule", "target", NOT_WHOLE_NUMBERS),       # sim/core/options.py
    ("first-ascent", "--rule", "risk_die_odds", ("1_0:1:1", "\u0661:1:1", "1e999:1:1")),
])
def test_a_switch_or_knob_value_is_a_number_as_written_or_refused(tmp_path, capsys, game, flag,
                                                                  assignment, values):
    """Every game's whole-number switches and knobs read their value as the command line's
    counts do (sim/core/args.py): int() took '1_0' as 10 and other scripts' digits as theirs,
    and float() took 'nan' through to a later, stranger error."""
    for value in values:
        assert main(["simulate", "--game", game, "--players", "2", "--games", "5", flag,
                     f"{assignment}={value}", "--out", str(tmp_path / "out")]) == 2, value
        err = capsys.readouterr().err
        assert err.startswith("ascent: error: ") and assignment in err and repr(value) in err
        assert err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_numbers_as_written_are_read():
    from sim.core.args import decimal_number, whole_number
    assert [whole_number(t) for t in ("7", "-3", "+5", "007", 12)] == [7, -3, 5, 7, 12]
    assert [decimal_number(t) for t in ("0.5", "2", "-.25", "1e-3", "3.", 1.5)] == \
        [0.5, 2.0, -0.25, 0.001, 3.0, 1.5]
    assert whole_number(" 7") is None and whole_number(True) is None
    assert decimal_number("1e") is None and decimal_number(".") is None
    # too large for a float or for Python's int(): refused, not an overflow or a ValueError
    assert decimal_number("1e999") is None and whole_number("9" * 5000) is None


def test_more_local_workers_than_4_a_core_is_refused(tmp_path, capsys):
    # --jobs 999 started up to one process per chunk, each compiling the game, on 2 cores
    with pytest.raises(SystemExit) as stopped:
        main(["run", str(tmp_path / "spec.toml"), "--jobs", str(4 * (os.cpu_count() or 1) + 1)])
    assert stopped.value.code == 2
    assert "argument --jobs: expected at most" in capsys.readouterr().err


def test_a_game_that_can_never_end_is_refused_up_front(tmp_path, capsys):
    assert main(["simulate", "--preset", "v0.6.0", "--players", "1", "--games", "2",
                 "--out", str(tmp_path / "x")]) == 2
    assert main(["replay", "--preset", "v0.6.0", "--characters", "technician", "--seed",
                 "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all("L10" in line and "can never end" in line for line in err)
    assert list(tmp_path.iterdir()) == []


def test_report_arguments_and_folders_that_do_not_fit(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(_sim(out)) == 0
    assert main(["report", str(out), "--variant", "baseline"]) == 2
    assert "has no variants" in capsys.readouterr().err
    doc = json.loads((out / "manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps({**doc, "record_schema_version": 99}))
    assert main(["report", str(out)]) == 2
    assert "record schema 99" in capsys.readouterr().err
    (out / "manifest.json").write_text(json.dumps({**doc, "game": "chess"}))
    assert main(["report", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "names no known game" in err and "\n" not in err


def test_a_bad_scheduler_and_a_corrupt_ladder_file_are_one_line(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text('game = "ascension"\nplayers = [2]\ngames = 2\nchunk = 2\n'
                    'policy = "random"\nout = "o"\n')
    assert main(["run", str(spec), "--scheduler", "nonsense", "--quiet"]) == 2
    assert "cannot connect" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()       # no empty run folder left behind
    ladder = tmp_path / "LADDER.md"
    ladder.with_name("LADDER.md.parts.json").write_text("{not json")
    assert main(["ladder", "--games", "2", "--policies", "random,greedy", "--out", str(ladder),
                 "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "unreadable ladder parts" in err and "\n" not in err


def test_a_results_document_quotes_the_command_without_options_that_cannot_change_it():
    """SKILL.md and a sweep's report say how their numbers were made: --quiet, --jobs and
    --scheduler change where and how loudly a run plays, never its games (principle 2)."""
    import argparse

    from sim.cli import _command_line
    args = argparse.Namespace(argv=[
        "skill", "--game", "dice-race", "--games", "200", "--quiet", "--jobs", "2",
        "--scheduler=tcp://host:8786", "--out", "curves/dice race"])
    assert _command_line(args, results_only=True) == \
        "ascent skill --game dice-race --games 200 --out 'curves/dice race'"
    assert "--jobs 2" in _command_line(args) and "--quiet" in _command_line(args)
    # argparse's abbreviations of them too
    short = argparse.Namespace(argv=["skill", "--game", "dice-race", "--qui", "--job", "2",
                                     "--sched", "tcp://host:8786", "--games", "200"])
    assert _command_line(short, results_only=True) == \
        "ascent skill --game dice-race --games 200"


@pytest.mark.parametrize("args, words", [
    # a game seed is 32 bits: 4294967297 replayed seed 1's game under its own number
    (["replay", "--seed", "4294967297", "--characters", "technician,sprinter"],
     "argument --seed: expected a game seed from 0 to 4294967295"),
    # alone, each policy played its own games, and an unpaired difference read "holds"
    (["ladder", "--players", "1", "--games", "4", "--policies", "greedy,planner"],
     "--players: a ladder seats the policies against each other: 2 or more, got 1"),
    (["ladder", "--games", "1000000000000", "--policies", "random,greedy"],
     "argument --games: expected at most 100,000,000 games"),
    (["tune", "--character", "sprinter", "--budget", "4", "--games", "8",
      "--validation-games", "1000000000000"], "argument --validation-games: expected at most"),
    (["ladder", "--games", "4", "--policies", "random,,greedy"],
     "--policies: an empty policy in 'random,,greedy'"),
    (["report", ""], "argument results: expected a simulate or experiment folder, got ''"),
])
def test_commands_beyond_simulate_refuse_bad_input_in_one_line(args, words, capsys):
    """A review of the less-used commands found these accepted, coerced or a traceback."""
    try:
        code = main(args)
    except SystemExit as exc:       # argparse's own refusal
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and words in err


def test_a_ladder_writes_only_its_own_table(tmp_path, capsys, monkeypatch):
    """--out replaced any file with the table (a spec, another ladder's parts file, whose
    finished pairings were then lost), and an --out ending in '/' wrote a file of that name."""
    spec = tmp_path / "spec.toml"
    spec.write_text("x = 1\n")
    ladder = ["ladder", "--players", "2", "--games", "2", "--policies", "greedy,random",
              "--quiet", "--out"]
    for out, words in ((str(spec), "a file that is not a ladder's table"),
                       (str(tmp_path / "L.md.parts.json"), "a ladder's own bookkeeping file"),
                       (str(tmp_path / "dir") + "/", "a folder's path"),
                       (str(spec / "sub.md"), f"{spec} is a file, not a folder")):
        assert main(ladder + [out]) == 2
        assert words in capsys.readouterr().err
    assert spec.read_text() == "x = 1\n" and sorted(p.name for p in tmp_path.iterdir()) == \
        ["spec.toml"]
    # its own table is replaced, and --quiet without --out still prints the table
    table = tmp_path / "LADDER.md"
    assert main(ladder + [str(table)]) == 0 and main(ladder + [str(table)]) == 0
    capsys.readouterr()
    monkeypatch.chdir(tmp_path)         # without --out its table goes under results/ladder/
    assert main(ladder[:-1]) == 0
    assert capsys.readouterr().out.startswith("# All-In Ascent skill ladder")
    # where that cannot be written, the refusal names the default, not an --out never given
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    (blocked / "results").write_text("a file on the way")
    monkeypatch.chdir(blocked)
    assert main(ladder[:-1]) == 2
    err = capsys.readouterr().err
    assert "ascent: error: the default output (give --out PATH for another) results/ladder/" \
        in err and "results is a file, not a folder" in err


def test_an_output_file_that_cannot_be_written_is_refused_before_any_game(tmp_path, capsys):
    """A folder, or a path under a missing folder: replay and ladder played every game first,
    then failed with a traceback (ladder left its lock and parts file beside the folder)."""
    folder = tmp_path / "folder"
    folder.mkdir()
    replay = ["replay", "--seed", "1", "--characters", "technician,sprinter", "--quiet"]
    ladder = ["ladder", "--players", "2", "--games", "2", "--policies", "greedy,random",
              "--quiet"]
    for args, words in ((replay + ["--out", str(folder)], "a folder; expected the path of"),
                        (replay + ["--out", str(tmp_path / "no" / "x.md")],
                         f"no folder {tmp_path / 'no'} to write it in"),
                        (ladder + ["--out", str(folder)], "a folder; expected the path of")):
        assert main(args) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and err.startswith("ascent: error: --out ") and words in err
    assert [p.name for p in tmp_path.iterdir()] == ["folder"] and not list(folder.iterdir())
    # the ladder's lock makes its folder, so a missing one is not refused (the README's
    # `--out results/LADDER.md` from a fresh folder)
    from sim.cli import _check_file_out
    _check_file_out("--out", tmp_path / "new" / "LADDER.md", makes_folder=True)


def test_the_command_lines_process_freezes_its_objects_before_it_exits(monkeypatch, capsys):
    """The command line's own process (main() with no arguments) freezes what it holds, so
    that the interpreter's collections on the way out leave it alone (0.1-0.2 s of a warm
    start); a caller that goes on (main(argv), the tests) keeps its collector as it was."""
    import gc
    gc.unfreeze()
    try:
        assert main(["rules", "--game", "dice-race"]) == 0
        assert gc.get_freeze_count() == 0
        monkeypatch.setattr(sys, "argv", ["ascent", "rules", "--game", "dice-race"])
        assert main() == 0
        assert gc.get_freeze_count() > 0
        assert "Dice Race" in capsys.readouterr().out
    finally:
        gc.unfreeze()
