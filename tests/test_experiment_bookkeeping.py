"""Experiment bookkeeping (sim/experiment/runner.py, spec.py): every planned game is on disk
exactly once whatever the targets do, damaged chunks are replayed and never counted, names never
become paths outside `out`, and bad specs are one line."""
import json
import os
import time

import pytest

from fault_injection import killer_script, run_killed
from sim.cli import main
from sim.experiment.runner import chunks_for, load_variant, run_experiment
from sim.experiment.spec import SpecError, load_spec


def spec_file(tmp_path, body, out="out", name="exp"):
    path = tmp_path / f"{name}.toml"
    path.write_text(f'game = "ascension"\nplayers = [2]\nseed = 3\npolicy = "random"\n'
                    f'out = "{out}"\n{body}\n')
    return path


def game_ids(out, variant="baseline", players=2):
    games = load_variant(out, variant, players, table="games")
    return [] if games is None else sorted(games["game"].tolist())


def test_a_growing_target_replays_the_short_last_chunk(tmp_path):
    # before: chunk 1 (games 200-299) counted as done when the target grew, so games 300-399,
    # 500-599, ... were never played while experiment.json claimed 1,000
    path = spec_file(tmp_path, "games = 300\nchunk = 200\nci_halfwidth = 0.001\n"
                               "max_games = 1000")
    doc = run_experiment(load_spec(path), jobs=1, quiet=True)
    spec = load_spec(path)
    assert game_ids(spec.out) == list(range(1000))
    assert doc["stopping"]["2"]["games"] == 1000
    assert doc["stopping"]["2"]["reached_target"] is False


def test_raising_games_and_resuming_plays_exactly_the_new_games(tmp_path, capsys):
    path = spec_file(tmp_path, "games = 110\nchunk = 50")
    run_experiment(load_spec(path), jobs=1, quiet=True)
    assert game_ids(load_spec(path).out) == list(range(110))
    path.write_text(path.read_text().replace("games = 110", "games = 120"))
    capsys.readouterr()
    run_experiment(load_spec(path), jobs=1)
    assert game_ids(load_spec(path).out) == list(range(120))
    # the resume is said, not only seen as a smaller total in the progress line
    assert "2 players: resuming: 100 games of earlier runs of this experiment are kept; 20 " \
        "to play" in capsys.readouterr().err


def test_a_smaller_games_reads_every_finished_game_and_says_so(tmp_path, capsys):
    """Finished games are never cut away, so lowering `games` leaves more games in the tables
    than the spec names: the run says so, and the manifest counts what the tables hold (it
    recorded the spec's smaller figure beside tables of more games)."""
    path = spec_file(tmp_path, "games = 110\nchunk = 50")
    run_experiment(load_spec(path), jobs=1, quiet=True)
    path.write_text(path.read_text().replace("games = 110", "games = 60"))
    capsys.readouterr()
    doc = run_experiment(load_spec(path), jobs=1)
    assert game_ids(load_spec(path).out) == list(range(110))
    assert "2 players: 110 games of earlier runs are kept and read, more than the 60 this " \
        "run asks for" in capsys.readouterr().err
    assert doc["stopping"]["2"] == {"rule": "fixed game count", "games": 60, "games_kept": 110}
    # the spec's own count: no such line, and no games_kept
    path.write_text(path.read_text().replace("games = 60", "games = 110"))
    doc = run_experiment(load_spec(path), jobs=1)
    assert "kept and read" not in capsys.readouterr().err
    assert doc["stopping"]["2"] == {"rule": "fixed game count", "games": 110}


def test_a_chunk_larger_than_the_run(tmp_path):
    path = spec_file(tmp_path, "games = 20\nchunk = 50")
    doc = run_experiment(load_spec(path), jobs=1, quiet=True)
    assert game_ids(load_spec(path).out) == list(range(20))
    assert sum(c["games"] for c in doc["chunks"]) == 20


@pytest.mark.parametrize("damage", ["no seats table", "truncated games", "foreign chunk.json",
                                    "no chunk.json", "removed"])
def test_a_damaged_chunk_is_replayed_and_never_counted(tmp_path, capsys, damage):
    """A run replays it; a report refuses the folder until then, rather than count 40 of the
    60 games played without a word (it did, for a damaged or a removed chunk)."""
    import shutil

    import pandas as pd
    path = spec_file(tmp_path, "games = 60\nchunk = 20")
    spec = load_spec(path)
    run_experiment(spec, jobs=1, quiet=True)
    folder = spec.out / "chunks" / "baseline" / "p2" / "chunk-00001"
    if damage == "no seats table":
        (folder / "seats.parquet").unlink()
    elif damage == "truncated games":
        games = pd.read_parquet(folder / "games.parquet")
        games.head(5).to_parquet(folder / "games.parquet")
    elif damage == "foreign chunk.json":
        rec = json.loads((folder / "chunk.json").read_text())
        (folder / "chunk.json").write_text(json.dumps({**rec, "identity_sha256": "other"}))
    elif damage == "no chunk.json":
        (folder / "chunk.json").unlink()
    else:
        shutil.rmtree(folder)
    games = load_variant(spec.out, "baseline", 2, table="games", strict=False)
    assert sorted(games["game"]) == list(range(20)) + list(range(40, 60))   # never read
    assert main(["report", str(spec.out)]) == 2
    err = capsys.readouterr().err.strip()
    what = "missing: chunk-00001 (games 20 to 39)" if damage == "removed" else \
        "damaged or not of this experiment: chunk-00001"
    assert "\n" not in err and f"the 'baseline' games at 2 players are incomplete ({what})" \
        in err and f"`ascent run {path}` plays them again" in err
    run_experiment(load_spec(path), jobs=1, quiet=True)
    assert game_ids(spec.out) == list(range(60))
    assert main(["report", str(spec.out)]) == 0


def test_a_damaged_chunk_beyond_a_smaller_games_is_removed_by_the_next_run(tmp_path, capsys):
    """The plan no longer replays it, so it stayed and every report refused the folder with
    advice that could not help (a review helper's finding)."""
    path = spec_file(tmp_path, "games = 60\nchunk = 20")
    spec = load_spec(path)
    run_experiment(spec, jobs=1, quiet=True)
    (spec.out / "chunks" / "baseline" / "p2" / "chunk-00002" / "seats.parquet").unlink()
    assert main(["report", str(spec.out)]) == 2
    assert "removes a damaged one beyond its games" in capsys.readouterr().err
    path.write_text(path.read_text().replace("games = 60", "games = 40"))
    run_experiment(load_spec(path), jobs=1, quiet=True)
    assert not (spec.out / "chunks" / "baseline" / "p2" / "chunk-00002").exists()
    assert game_ids(spec.out) == list(range(40))
    assert main(["report", str(spec.out)]) == 0


def test_a_whole_chunk_under_an_older_entry_is_read_not_called_missing(tmp_path):
    # a run killed between a grown chunk's swap and experiment.json's update
    path = spec_file(tmp_path, "games = 40\nchunk = 20")
    spec = load_spec(path)
    run_experiment(spec, jobs=1, quiet=True)
    doc = json.loads((spec.out / "experiment.json").read_text())
    for entry in doc["chunks"]:
        if entry["index"] == 1:
            entry["games"] = 5
    (spec.out / "experiment.json").write_text(json.dumps(doc))
    assert game_ids(spec.out) == list(range(40))


def test_leftovers_of_a_killed_run_are_cleaned(tmp_path):
    path = spec_file(tmp_path, "games = 20\nchunk = 20")
    spec = load_spec(path)
    run_experiment(spec, jobs=1, quiet=True)
    (spec.out / "experiment.json.tmp-12345").write_text("{")
    (spec.out / "chunks" / "baseline" / "p2" / "chunk-00003.tmp-999").mkdir()
    run_experiment(spec, jobs=1, quiet=True)
    assert not list(spec.out.glob("experiment.json.tmp-*"))
    assert not list((spec.out / "chunks").glob("*/*/*.tmp-*"))


def test_a_corrupt_experiment_json_is_one_line(tmp_path, capsys):
    path = spec_file(tmp_path, "games = 20\nchunk = 20")
    spec = load_spec(path)
    run_experiment(spec, jobs=1, quiet=True)
    (spec.out / "experiment.json").write_text("[1, 2")
    assert main(["run", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "experiment.json: unreadable" in err and "\n" not in err


@pytest.mark.parametrize("damage, words", [
    ("[1, 2", "experiment.json: unreadable"),
    ("{}", "experiment.json: not an experiment's manifest"),
    ("another game", "experiment.json: its identity does not match its identity_sha256"),
])
def test_a_report_names_a_damaged_experiment_json_and_the_way_back(tmp_path, capsys, damage,
                                                                  words):
    """A bare JSON error without the file's name, a KeyError, or, for an identity edited to
    another game, a KeyError deep in the report."""
    path = spec_file(tmp_path, "games = 20\nchunk = 20")
    spec = load_spec(path)
    run_experiment(spec, jobs=1, quiet=True)
    assert main(["report", str(spec.out)]) == 0     # its files do not block the way back
    manifest = spec.out / "experiment.json"
    if damage == "another game":
        doc = json.loads(manifest.read_text())
        doc["identity"]["game"] = "all-in-ascent"
        manifest.write_text(json.dumps(doc))
    else:
        manifest.write_text(damage)
    assert main(["report", str(spec.out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and words in err and "move it away and run the experiment's " \
        "`ascent run` command again" in err
    manifest.unlink()
    run_experiment(spec, jobs=1, quiet=True)            # the way back the message gives
    assert game_ids(spec.out) == list(range(20))
    assert main(["report", str(spec.out)]) == 0


def test_an_out_folder_holding_other_files_is_refused(tmp_path, capsys):
    # `simulate` refused such a folder; `run` wrote its chunks among the files
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine")
    path = spec_file(tmp_path, "games = 20\nchunk = 20")
    assert main(["run", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "holds files that are not this experiment's (notes.txt)" in err
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["notes.txt"]


def test_a_second_run_of_the_same_experiment_is_kept_out(tmp_path):
    from sim.core.output import folder_lock
    path = spec_file(tmp_path, "games = 20\nchunk = 20")
    spec = load_spec(path)
    with folder_lock(spec.out):
        with pytest.raises(SpecError, match="another ascent run is writing"):
            run_experiment(spec, jobs=1, quiet=True)


def test_out_is_relative_to_the_spec_not_the_working_directory(tmp_path, monkeypatch):
    (tmp_path / "specs").mkdir()
    path = spec_file(tmp_path / "specs", "games = 10\nchunk = 10", out="../results/exp")
    monkeypatch.chdir(tmp_path / "specs")
    first = load_spec(path).out
    monkeypatch.chdir(tmp_path)
    assert load_spec(path).out == first == (tmp_path / "results" / "exp").resolve()


def test_plans_are_lazy(tmp_path):
    path = spec_file(tmp_path, f"games = {10**12}\nchunk = 1")
    spec = load_spec(path)
    started = time.perf_counter()
    plan = chunks_for(spec, 2, spec.games)
    assert next(plan).games == 1 and time.perf_counter() - started < 5
    assert main(["run", str(path), "--dry-run"]) == 0


# ABSOLUTE stands for an absolute path beside the test's folder
ESCAPES = ["../../../escaped_variant", "ABSOLUTE", "..", ".hidden", "a\\b", "tab\there"]


@pytest.mark.parametrize("name", ESCAPES)
def test_a_variant_name_never_becomes_a_path_outside_out(tmp_path, capsys, name):
    absolute = tmp_path.parent / f"{tmp_path.name}-absolute_variant"
    name = str(absolute) if name == "ABSOLUTE" else name
    path = tmp_path / "exp.toml"
    path.write_text(f'game = "ascension"\nplayers = [2]\ngames = 4\nchunk = 4\n'
                    f'policy = "random"\nout = "out"\n[variants.{json.dumps(name)}]\n')
    assert main(["run", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "cannot name a folder" in err and "\n" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exp.toml"]
    assert not absolute.exists()


@pytest.mark.parametrize("body, words", [
    ("games = 10\nchunk = 10\nplayers = [2, 2]", "players: each player count once"),
    ("games = 10\nchunk = 10\nci_halfwidth = 0.01", "ci_halfwidth: a precision target needs "
                                                    "max_games"),
    ("games = 10\nchunk = 10\nmax_games = 100", "max_games: a cap for the precision target"),
    (f"games = {10**13}\nchunk = 10", "games: expected a number from 1"),
    ("games = 10\nchunk = 10\nname = \"../up\"", "name: '../up' cannot name a folder"),
])
def test_bad_specs_are_one_line(tmp_path, capsys, body, words):
    path = tmp_path / "exp.toml"
    path.write_text(f'game = "ascension"\npolicy = "random"\nout = "out"\n{body}\n'
                    .replace('players = [2, 2]\n', 'players = [2, 2]\n')
                    if "players" in body else
                    f'game = "ascension"\nplayers = [2]\npolicy = "random"\nout = "out"\n'
                    f'{body}\n')
    assert main(["run", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err and "Traceback" not in err


def test_a_spec_that_is_not_utf8_is_one_line(tmp_path, capsys):
    path = tmp_path / "exp.toml"
    path.write_bytes(b'game = "ascension"\nname = "caf\xe9"\ngames = 4\nout = "x"\n')
    assert main(["run", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "not UTF-8" in err and "\n" not in err


def test_an_unknown_preset_or_an_unending_game_in_a_variant_is_one_line(tmp_path, capsys):
    for body, words in (('[variants.a]\npreset = "v9"', "v9"),
                        ('[variants.a]\npreset = "v0.6.0"', "can never end")):
        path = tmp_path / "exp.toml"
        path.write_text(f'players = [1]\ngames = 4\nchunk = 4\npolicy = "random"\n'
                        f'out = "out"\n{body}\n')
        assert main(["run", str(path), "--quiet"]) == 2
        err = capsys.readouterr().err.strip()
        assert words in err and "\n" not in err
    assert not os.path.exists(tmp_path / "out")


# --- SIGKILL at each write point of `ascent run` ---------------------------------------------

RUN_KILLER = killer_script("""
    import pandas as pd
    import sim.experiment.runner as runner
""", """
    pd.DataFrame.to_parquet = kill_at("table", pd.DataFrame.to_parquet)
    runner.os.replace = kill_at("replace", os.replace)     # experiment.json
    os.rename = kill_at("replace", os.rename)              # chunk folders (output.swap_in)
""", '["run", sys.argv[3], "--quiet", "--jobs", "1"]')      # in-process: no orphaned workers


# tables of the first and a later chunk; each rename (chunk folders and experiment.json alternate)
@pytest.mark.parametrize("point, nth", [("table", 1), ("table", 2), ("table", 4),
                                        ("replace", 1), ("replace", 2), ("replace", 3),
                                        ("replace", 6)])
def test_a_killed_run_resumes_to_every_game_exactly_once(tmp_path, point, nth):
    path = spec_file(tmp_path, "games = 60\nchunk = 20")
    run_killed(RUN_KILLER, point, nth, [path], tmp_path / "killed.log")
    spec = load_spec(path)
    assert set(game_ids(spec.out)) <= set(range(60))          # whatever is read is whole
    assert len(game_ids(spec.out)) == len(set(game_ids(spec.out)))
    doc = run_experiment(spec, jobs=1, quiet=True)
    assert game_ids(spec.out) == list(range(60))
    assert sorted((c["index"], c["games"]) for c in doc["chunks"]) == [(0, 20), (1, 20), (2, 20)]


def test_a_full_disk_during_a_run_is_one_line_and_loses_nothing(tmp_path, capsys, monkeypatch):
    import errno
    import pandas as pd
    path = spec_file(tmp_path, "games = 60\nchunk = 20")
    real = pd.DataFrame.to_parquet
    calls = {"n": 0}

    def full(self, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 4:                       # the second chunk's seats table
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_parquet", full)
    assert main(["run", str(path), "--quiet", "--jobs", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "No space left on device" in err and "\n" not in err
    out = load_spec(path).out
    assert game_ids(out) == list(range(20))       # the finished chunk, whole
    assert not list((out / "chunks").glob("*/*/*.tmp-*"))
    monkeypatch.setattr(pd.DataFrame, "to_parquet", real)
    assert main(["run", str(path), "--quiet", "--jobs", "1"]) == 0
    assert game_ids(out) == list(range(60))


def test_a_grown_precision_run_resumes_where_it_stopped_and_never_cuts_games(tmp_path):
    path = spec_file(tmp_path, "games = 300\nchunk = 200\nci_halfwidth = 0.001\n"
                               "max_games = 1000")
    run_experiment(load_spec(path), jobs=1, quiet=True)
    again = run_experiment(load_spec(path), jobs=1, quiet=True)
    assert again["runs"][-1]["games_played"] == 0            # nothing replayed
    # dropping the target (the identity allows it) keeps every finished game
    path.write_text(path.read_text().replace("ci_halfwidth = 0.001\nmax_games = 1000", ""))
    run_experiment(load_spec(path), jobs=1, quiet=True)
    assert game_ids(load_spec(path).out) == list(range(1000))


def test_a_resume_refuses_to_add_games_that_other_code_would_play(tmp_path):
    """The code is not part of an experiment's identity, so a resume replays the first games
    of the finished chunks and compares: here the stored games stand for what an earlier bot
    played (one winner rewritten), and adding chunks to them is refused, naming the folder."""
    import pandas as pd
    path = spec_file(tmp_path, "games = 100\nchunk = 50")
    run_experiment(load_spec(path), jobs=1, quiet=True)
    out = load_spec(path).out
    # an unchanged resume passes the check and plays exactly the new games
    path.write_text(path.read_text().replace("games = 100", "games = 150"))
    run_experiment(load_spec(path), jobs=1, quiet=True)
    assert game_ids(out) == list(range(150))
    stored = out / "chunks" / "baseline" / "p2" / "chunk-00000" / "games.parquet"
    games = pd.read_parquet(stored)
    column = "rounds" if "rounds" in games.columns else games.columns[-1]
    games.loc[0, column] = games.loc[0, column] + 1
    games.to_parquet(stored, index=False)
    path.write_text(path.read_text().replace("games = 150", "games = 200"))
    with pytest.raises(SpecError, match="played by other code: games 0 to 3 of variant "
                                        "'baseline' \\(2 players\\)"):
        run_experiment(load_spec(path), jobs=1, quiet=True)
    assert game_ids(out) == list(range(150))


def test_a_run_refuses_a_folder_that_other_code_played(tmp_path, monkeypatch):
    """experiment.json keeps the key of the code that played its games (sim.play_code_key: the
    core, the game's engine and its bots); a run that finds another refuses both to add games
    and to reuse the finished ones as they are, naming the folder and both keys. The replay
    check above passes a change that alters one game in a thousand. A folder written before the
    key was kept has none, and resumes under the replay check as before."""
    import sim
    path = spec_file(tmp_path, "games = 100\nchunk = 50")
    run_experiment(load_spec(path), jobs=1, quiet=True)
    out = load_spec(path).out
    doc = json.loads((out / "experiment.json").read_text())
    assert doc["play_code"] == sim.play_code_key("ascension")
    assert run_experiment(load_spec(path), jobs=1, quiet=True)["runs"][-1]["games_played"] == 0
    monkeypatch.setattr(sim, "play_code_key", lambda game: "0123456789abcdef")
    refused = (f"holds games played by other code: the code that plays ascension's games "
               f"\\(sim/core, its engine, its bots\\) changed since \\(play_code "
               f"{doc['play_code']} in its experiment.json, 0123456789abcdef now\\)")
    with pytest.raises(SpecError, match=refused):
        run_experiment(load_spec(path), jobs=1, quiet=True)         # reusing them as they are
    path.write_text(path.read_text().replace("games = 100", "games = 150"))
    with pytest.raises(SpecError, match=refused):
        run_experiment(load_spec(path), jobs=1, quiet=True)         # adding to them
    assert game_ids(out) == list(range(100))
    del doc["play_code"]
    (out / "experiment.json").write_text(json.dumps(doc))
    run_experiment(load_spec(path), jobs=1, quiet=True)
    assert game_ids(out) == list(range(150))
    assert "play_code" not in json.loads((out / "experiment.json").read_text())


def test_a_run_limited_to_one_numba_thread_plays(tmp_path):
    """With NUMBA_NUM_THREADS=1 and one job, the runner asked numba for all the machine's
    cores and stopped with numba's traceback; it now plays within the limit."""
    import subprocess
    import sys
    path = spec_file(tmp_path, "games = 10\nchunk = 10")
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-m", "sim.cli", "run", str(path), "--jobs", "1",
                           "--quiet"], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-600:]
    assert game_ids(load_spec(path).out) == list(range(10))


def test_more_threads_than_numba_may_use_is_one_line(tmp_path, monkeypatch, capsys):
    import numba
    monkeypatch.setattr(numba.config, "NUMBA_NUM_THREADS", 1)
    path = spec_file(tmp_path, "games = 10\nchunk = 10\nthreads = 2")
    assert main(["run", str(path), "--jobs", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "threads: at most 1 in this process" in err and err.count("\n") == 1


def test_a_new_record_schema_is_not_resumed_into_an_old_folder(tmp_path, monkeypatch):
    """A column that changes meaning bumps the game's RECORD_SCHEMA_VERSION (records.py); an
    experiment folder of the old schema is then refused, naming the reason, never extended."""
    import sim.games.ascension.protocol as protocol
    path = spec_file(tmp_path, "games = 40\nchunk = 20")
    run_experiment(load_spec(path), jobs=1, quiet=True)
    monkeypatch.setattr(protocol, "RECORD_SCHEMA_VERSION", protocol.RECORD_SCHEMA_VERSION + 1)
    path.write_text(path.read_text().replace("games = 40", "games = 60"))
    with pytest.raises(SpecError, match="record_schema differ"):
        run_experiment(load_spec(path), jobs=1, quiet=True)
    assert game_ids(load_spec(path).out) == list(range(40))


def test_a_report_refuses_an_experiment_of_another_record_schema(tmp_path, monkeypatch):
    from sim.report.analysis import check_experiment_record_version, load_results
    import sim.games.ascension.protocol as protocol
    path = spec_file(tmp_path, "games = 20\nchunk = 20")
    run_experiment(load_spec(path), jobs=1, quiet=True)
    out = load_spec(path).out
    assert len(load_results(out).games) == 20
    now = protocol.RECORD_SCHEMA_VERSION
    monkeypatch.setattr(protocol, "RECORD_SCHEMA_VERSION", now + 1)
    with pytest.raises(ValueError, match=f"record schema {now}, this version of ascent reads "
                                         f"{now + 1}"):
        load_results(out)
    # an identity that names no schema was written at the game's RECORD_SCHEMA_UNNAMED
    # (Ascension's 2, its schema when identities began to name one). Schema 3 changed `won`
    # only under partnership (A48), so a free-for-all folder of then still reads; one with a
    # partnership variant is refused
    monkeypatch.undo()
    doc = json.loads((out / "experiment.json").read_text())
    assert doc["identity"].pop("record_schema") == now == 3
    for partnership in (False, True):
        doc["identity"]["variants"]["baseline"]["rules"] = {"partnership": partnership}
        if not partnership:
            check_experiment_record_version(out, doc)
            continue
        with pytest.raises(ValueError, match=f"record schema {protocol.RECORD_SCHEMA_UNNAMED}"
                                             f", this version of ascent reads {now}"):
            check_experiment_record_version(out, doc)
    # a simulate folder's manifest likewise (its full rules)
    from sim.report.analysis import _check_record_version
    _check_record_version(out, {"game": "ascension", "record_schema_version": 2,
                                "rules": {"partnership": "false"}})
    with pytest.raises(ValueError, match="record schema 2, this version of ascent reads 3"):
        _check_record_version(out, {"game": "ascension", "record_schema_version": 2,
                                    "rules": {"partnership": "true"}})


def test_a_run_compiles_once_here_with_its_compile_line_before_dealing_chunks(tmp_path,
                                                                          monkeypatch):
    """From an empty cache every local worker used to compile the same code at once, silently
    (and the first rate counted the compile). The run now compiles through compile_first
    (the line of `ascent simulate`, the bots alongside the kernel) before any chunk: once per
    run, with the run's seats, a kernel game with `random` in every seat, and nothing else
    played; on a Dask cluster (whose workers may be other machines) only where a resume
    replays games here anyway."""
    from sim.core import compiling
    calls = []

    def recording_compile_first(game, seats, play_one, quiet=False, stream=None,
                                play_kernel=None):
        calls.append((game.name, list(seats), quiet))
        chunk, games, seats_table, _ = play_kernel()
        assert len(games) == 1 and set(seats_table["policy"]) == {"random"}
        chunk, games, seats_table, _ = play_one()
        assert len(games) == 1 and set(seats_table["policy"]) == {"random-safe"}
        return 0.0

    monkeypatch.setattr(compiling, "compile_first", recording_compile_first)
    path = tmp_path / "exp.toml"
    path.write_text('game = "ascension"\nplayers = [2, 3]\nseed = 3\npolicy = "random-safe"\n'
                    'out = "out"\ngames = 30\nchunk = 10\n')
    run_experiment(load_spec(path), jobs=1, quiet=True)
    assert calls == [("ascension", ["random-safe", "random-safe"], True)]
    assert game_ids(load_spec(path).out) == list(range(30))
    # nothing left to play: nothing compiled
    run_experiment(load_spec(path), jobs=1, quiet=True)
    assert len(calls) == 1


def test_a_precision_run_killed_while_it_grows_resumes_to_the_uninterrupted_result(tmp_path):
    """A run killed while it grew left one variant a chunk ahead of the other, and no stopping
    record (it is written at the end). The resume read the ahead chunk into its interval, stopped
    at another point and kept other tables (a review helper's: 1,200 games of one variant where
    the uninterrupted run played 1,600). The target now reads each variant's first games only."""
    import shutil
    import pandas as pd
    body = ('game = "all-in-ascent"\nplayers = [2]\nseed = 5\npolicy = "random"\n'
            'games = 100\nchunk = 100\nci_halfwidth = {ci}\nmax_games = 800\nout = "{out}"\n'
            '[variants.baseline]\n[variants.extra_die_off]\n'
            'rules = {{ sprinter_extra_die = "off" }}\n')
    widths = {}
    # the uninterrupted reference: find a target that stops between the first and last chunk
    for ci in (0.09, 0.075, 0.06):
        path = tmp_path / f"ref{ci}.toml"
        path.write_text(body.format(ci=ci, out=f"ref{ci}"))
        doc = run_experiment(load_spec(path), jobs=1, quiet=True)
        widths[ci] = (path, doc["stopping"]["2"]["games"])
        if 200 <= widths[ci][1] < 800:
            break
    path, stop = widths[ci]
    assert 200 <= stop < 800
    ref = load_spec(path).out
    killed = tmp_path / "killed"
    shutil.copytree(ref, killed)
    # what the kill left: the variant's last chunk unplayed, and no stopping record
    last = max((killed / "chunks" / "extra_die_off" / "p2").glob("chunk-*"))
    shutil.rmtree(last)
    doc = json.loads((killed / "experiment.json").read_text())
    doc.pop("stopping", None)
    doc["chunks"] = [c for c in doc["chunks"]
                     if not (c["variant"] == "extra_die_off" and c["index"] == stop // 100 - 1)]
    (killed / "experiment.json").write_text(json.dumps(doc))
    again = tmp_path / "again.toml"
    again.write_text(body.format(ci=ci, out="killed"))
    resumed = run_experiment(load_spec(again), jobs=1, quiet=True)
    assert resumed["stopping"]["2"]["games"] == stop
    for variant in ("baseline", "extra_die_off"):
        for table in ("games", "seats"):
            pd.testing.assert_frame_equal(load_variant(killed, variant, 2, table=table),
                                          load_variant(ref, variant, 2, table=table))
