"""The start-up line of a run that waits for numba (sim/core/compiling.py, issue 22)."""
import dataclasses
import importlib
import io
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import sim
from sim.core import compiling
from sim.core.game import get_game
from sim.core.policies import policy_names

ROOT = Path(__file__).resolve().parents[1]


def test_a_cold_run_says_what_it_compiles_and_records_how_long(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "key1"))
    game = get_game("dice-race")
    out = io.StringIO()
    played = []
    times = compiling.compile_first(game, ["hold-at", "random", "hold-at"],
                                    lambda: played.append(1), stream=out)
    assert played == [1] and times.compiling >= 0 and times.first_game >= 0
    text = out.getvalue()
    assert "compiling the Dice Race kernel and the bots hold-at, random" in text
    assert "first run of this code only, a minute or two" in text and "done in" in text
    assert compiling.is_compiled("dice-race", ["random", "hold-at"])
    # warm: nothing played, nothing said
    again = io.StringIO()
    assert compiling.compile_first(game, ["hold-at", "random"], lambda: played.append(2),
                                   stream=again) == (0.0, 0.0)
    assert played == [1] and again.getvalue() == ""
    # another version of the code (another cache key) quotes the figure measured before
    compiling.record("dice-race", ["random"], 41.6)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "key2"))
    later = io.StringIO()
    compiling.compile_first(game, ["random"], lambda: None, stream=later)
    assert "about 42 s" in later.getvalue()


def test_another_entry_keeps_markers_and_figures_of_its_own(tmp_path, monkeypatch):
    """`ascent replay` compiles the single-game engine, not the kernel: a compiled kernel does
    not make it compiled, its line names it, and it quotes no kernel figure."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "key1"))
    game = get_game("dice-race")
    compiling.record("dice-race", ["hold-at"], 12.0)          # the kernel is compiled
    out = io.StringIO()
    played = []
    compiling.compile_first(game, ["hold-at"], lambda: played.append(1), stream=out,
                            entry="single-game engine")
    text = out.getvalue()
    assert played == [1]
    assert "compiling the Dice Race single-game engine and the bot hold-at" in text
    assert "not yet measured here" in text and "about 12 s" not in text
    assert compiling.is_compiled("dice-race@single-game-engine", ["hold-at"])
    assert compiling.compiled_here("dice-race") == {"hold-at"}   # the kernel's, unchanged
    again = io.StringIO()
    compiling.compile_first(game, ["hold-at"], lambda: played.append(2), stream=again,
                            entry="single-game engine")
    assert played == [1] and again.getvalue() == ""
    # another version of the code quotes the figure this entry took
    compiling.record("dice-race@single-game-engine", ["hold-at"], 7.4)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "key2"))
    later = io.StringIO()
    compiling.compile_first(game, ["hold-at"], lambda: None, stream=later,
                            entry="single-game engine")
    assert "about 7 s" in later.getvalue()


def test_a_familys_bots_count_once_in_the_estimate():
    """Ascension's four stair builders share their search: at one table they compiled in 14 s
    from an empty cache, where the sum of their figures said 41."""
    game = get_game("ascension")
    figures = json.loads(game.project_file(game.compile_estimates).read_text())
    figures = figures["games"]["ascension"]
    table = ["stair-builder", "stair-builder-forgetful", "blocker", "hybrid"]
    dearest = max(figures["bots"][name] for name in table)
    assert compiling.shipped_estimate(game, table) == \
        round(figures["kernel_and_random"] + dearest)
    assert compiling.shipped_estimate(game, table + ["random-safe"]) == \
        round(figures["kernel_and_random"] + dearest + figures["bots"]["random-safe"])


def test_another_entry_quotes_none_of_the_kernels_shipped_figures(tmp_path, monkeypatch):
    """Ascension ships figures for its kernel and bots (results/compile_seconds.json); the
    single-game engine is compiled another way, so its line quotes none of them."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    game = get_game("ascension")
    assert compiling.shipped_estimate(game, ["hybrid"]) is not None
    out = io.StringIO()
    compiling.compile_first(game, ["hybrid"], lambda: None, stream=out,
                            entry="single-game engine")
    assert "(first run of this code only, not yet measured here)" in out.getvalue()


def test_a_folder_is_cold_only_until_any_entry_has_compiled_the_game(tmp_path, monkeypatch):
    """The kernel and the single-game engine share most of the engine's code: a figure
    measured after the other entry compiled is a warm folder's figure."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    game = get_game("dice-race")
    assert compiling._cold("dice-race")
    compiling.compile_first(game, ["hold-at"], lambda: None, quiet=True,
                            entry="single-game engine")
    assert not compiling._cold("dice-race")
    compiling.compile_first(game, ["hold-at"], lambda: None, quiet=True)
    kernel = json.loads(compiling.marker_path("dice-race", ["hold-at"]).read_text())
    entry = json.loads(compiling.marker_path("dice-race@single-game-engine",
                                             ["hold-at"]).read_text())
    assert entry["cold"] is True and kernel["cold"] is False


def test_a_budget_is_the_same_compiled_bot(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    game = get_game("dice-race")
    compiling.compile_first(game, ["mcts@5", "hold-at"], lambda: None, quiet=True)
    played = []
    assert compiling.compile_first(game, ["mcts@900", "hold-at"], lambda: played.append(1),
                                   quiet=True) == (0.0, 0.0)
    assert played == []
    assert compiling.compiled_here("dice-race") == {"hold-at", "mcts"}


def test_an_error_while_compiling_starts_on_a_line_of_its_own(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    out = io.StringIO()

    def failing():
        raise ValueError("no such game")
    with pytest.raises(ValueError):
        compiling.compile_first(get_game("dice-race"), ["random"], failing, stream=out)
    assert out.getvalue().endswith("\n")
    assert not compiling.is_compiled("dice-race", ["random"])


def test_ascent_replay_plays_its_game_once_from_an_empty_cache(tmp_path, monkeypatch, capsys):
    from sim.cli import main
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    game = get_game("dice-race")
    real_replay = game.api.replay
    calls = []

    def counting_replay(*a, **k):
        calls.append(1)
        return real_replay(*a, **k)
    monkeypatch.setattr(game.api, "replay", counting_replay)
    assert main(["replay", "--game", "dice-race", "--seed", "3", "--players", "2"]) == 0
    first = capsys.readouterr()
    assert "single-game engine" in first.err and calls == [1]
    assert main(["replay", "--game", "dice-race", "--seed", "3", "--players", "2"]) == 0
    second = capsys.readouterr()
    assert second.err == "" and second.out == first.out and calls == [1, 1]


def test_the_compile_figure_leaves_out_the_games_own_play(tmp_path, monkeypatch):
    """The figure recorded (and quoted by the next version's line) is the time numba spent
    compiling, wherever in the game its compiles fall (a replay compiles some of its last
    steps after its play; a ladder compiles its next bots after a game); the line names the
    play apart. An Ascension MCTS game with random rollouts plays for about 20 s."""
    import time

    from numba import njit
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    out = io.StringIO()

    def compiles_plays_compiles():
        @njit(cache=False)
        def one_more(x):
            return x + 1

        @njit(cache=False)
        def two_more(x):
            return x + 2
        assert one_more(1) == 2
        time.sleep(1.2)
        assert two_more(1) == 3
        time.sleep(1.2)
    times = compiling.compile_first(get_game("dice-race"), ["random"], compiles_plays_compiles,
                                    stream=out)
    assert times.first_game >= 2.4 and times.compiling < times.first_game
    marker = json.loads(compiling.marker_path("dice-race", ["random"]).read_text())
    assert marker["seconds"] == round(times.compiling, 1)
    assert re.search(r"done in \d+ s \(and \d+ s of play\)\n$", out.getvalue())


def test_the_collector_is_off_while_a_run_compiles_and_its_garbage_kept_for_the_next(
        tmp_path, monkeypatch):
    """numba's compile makes millions of long-lived objects, which Python's cyclic collector
    scanned again and again (12% of a cold run under perf): it is off while the run compiles
    and plays its first game; after, what the compile made is frozen uncollected (left out of
    later collections and the one at exit): collecting its garbage there gave no memory back
    and held up the first game by 0.6-0.9 s. The next compile in the process collects it
    first, as its own compile time. The collector is on again however the compile ends."""
    import gc
    import time
    import weakref
    from types import SimpleNamespace

    class Node:
        pass
    seen = {}

    def play():
        cycle = Node()
        cycle.me = cycle                # garbage only a collection frees
        seen["cycle"] = weakref.ref(cycle)
        seen["collector on"] = gc.isenabled()

    collect, freeze = gc.collect, gc.freeze

    def slow_collect(*args):
        time.sleep(1.0)
        return collect(*args)
    monkeypatch.setattr(compiling.gc, "collect", slow_collect)
    monkeypatch.setattr(compiling, "_GARBAGE_KEPT", SimpleNamespace(pending=False))
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    try:
        monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "first"))
        times = compiling.compile_first(get_game("dice-race"), ["random"], play, quiet=True)
        first = seen["cycle"]
        assert seen["collector on"] is False
        assert gc.isenabled() and gc.get_freeze_count() > frozen
        assert first() is not None and times.compiling < 1.0    # kept, and not waited for
        monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "second"))
        times = compiling.compile_first(get_game("dice-race"), ["random"], play, quiet=True)
        assert first() is None and seen["cycle"]() is not None   # the first's, collected
        assert times.compiling >= 1.0 and times.first_game < 1.0
        # on again however the compile ends: a game that fails, an interruption
        monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "another"))

        def fails():
            raise RuntimeError("a bot failed")
        with pytest.raises(RuntimeError):
            compiling.compile_first(get_game("dice-race"), ["random"], fails, quiet=True)
        assert gc.isenabled()

        def interrupted(*args):
            raise KeyboardInterrupt
        monkeypatch.setattr(compiling.gc, "freeze", interrupted)
        with pytest.raises(KeyboardInterrupt):
            with compiling.collector_paused():
                pass
        assert gc.isenabled()
        monkeypatch.setattr(compiling.gc, "freeze", freeze)
        # a collector that was off stays off, and nothing is collected or frozen, not even
        # the garbage the last compile kept
        assert compiling._GARBAGE_KEPT.pending
        gc.disable()
        play()
        kept = seen["cycle"]
        gc.unfreeze()
        with compiling.collector_paused():
            play()
        assert not gc.isenabled() and kept() is not None and seen["cycle"]() is not None
        assert gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()
        gc.enable()


def test_the_line_says_playing_only_once_no_compile_is_under_way_for_a_moment():
    import time
    compiles = compiling._Compiles()
    started = time.perf_counter() - 10
    assert not compiles.playing() and compiles.split(started)[1] == 0.0   # not in its game
    compiles.game_started = started + 4           # 4 s of the kernel's game and the wait
    assert compiles.playing(quiet_for=0)          # it compiled nothing since
    compiling_s, playing_s = compiles.split(started)
    assert compiling_s == pytest.approx(4) and playing_s == pytest.approx(6, abs=0.5)
    compiles.on_start(None)
    compiles.on_start(None)                       # a callee's compile within it
    assert not compiles.playing(quiet_for=0)
    compiles.on_end(None)
    compiles.on_end(None)
    assert compiles.playing(quiet_for=0) and not compiles.playing(quiet_for=60)
    assert compiles.split(started)[0] == pytest.approx(4, abs=0.5)


def test_a_cold_simulate_keeps_the_game_that_compiled_it_as_its_game_0(tmp_path, monkeypatch,
                                                                        capsys):
    """From an empty cache `ascent simulate` plays its bots' first game to compile them; that
    game is the run's game 0 (a game depends on its seed and index, not its chunk), so no game
    is played twice, and the run's tables are those of a warm run."""
    import pandas as pd
    import pyarrow.parquet as pq

    from sim.cli import main
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    game = get_game("dice-race")
    real_play = game.api.play
    games_played = []

    def counting_play(rules, n, seed, seats, *a, first_index=0, **k):
        if list(seats) != ["random", "random"]:
            games_played.extend(range(first_index, first_index + n))
        return real_play(rules, n, seed, seats, *a, first_index=first_index, **k)
    monkeypatch.setattr(game.api, "play", counting_play)
    command = ["simulate", "--game", "dice-race", "--players", "2", "--games", "5", "--seed",
               "4", "--policy", "hold-at", "--chunk", "2", "--threads", "1"]
    assert main(command + ["--out", str(tmp_path / "cold")]) == 0
    assert "compiling the Dice Race kernel" in capsys.readouterr().err
    assert games_played == [0, 1, 2, 3, 4]
    assert main(command + ["--out", str(tmp_path / "warm")]) == 0
    assert "compiling" not in capsys.readouterr().err
    assert games_played == [0, 1, 2, 3, 4] * 2
    for table in ("games", "seats"):
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "cold" / f"{table}.parquet"),
                                      pd.read_parquet(tmp_path / "warm" / f"{table}.parquet"))
        # and in the same chunks: a game that builds pandas tables has its columns typed by
        # the first chunk (a column empty in game 0 alone would be typed null)
        cold, warm = (pq.ParquetFile(tmp_path / run / f"{table}.parquet").metadata
                      for run in ("cold", "warm"))
        assert [cold.row_group(i).num_rows for i in range(cold.num_row_groups)] == \
            [warm.row_group(i).num_rows for i in range(warm.num_row_groups)]
    manifest = json.loads((tmp_path / "cold" / "manifest.json").read_text())
    assert math.isfinite(manifest["games_per_second"]) and manifest["wall_seconds"] > 0


def test_ascent_replay_says_what_it_compiles_on_standard_error(tmp_path):
    """End to end, from an empty cache: the line on standard error, the transcript alone on
    standard output; the second run says nothing."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    command = [sys.executable, "-m", "sim.cli", "replay", "--game", "dice-race", "--seed", "3",
               "--players", "2"]
    first = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    assert "compiling the Dice Race single-game engine and the bot hold-at" in first.stderr
    assert "compiling" not in first.stdout and first.stdout.startswith("seat 1 ")
    second = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    assert second.stderr == "" and second.stdout == first.stdout


def test_quiet_says_nothing_but_still_records(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    out = io.StringIO()
    compiling.compile_first(get_game("dice-race"), ["random"], lambda: None, quiet=True,
                            stream=out)
    assert out.getvalue() == "" and compiling.is_compiled("dice-race", ["random"])


def test_ascent_simulate_from_an_empty_cache_says_it_is_compiling(tmp_path):
    """End to end, in a fresh process with an empty numba cache (the example game compiles in
    seconds): the first run says so, the second does not."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    command = [sys.executable, "-m", "sim.cli", "simulate", "--game", "dice-race",
               "--players", "2", "--games", "10", "--seed", "1", "--policy", "random"]
    first = subprocess.run(command + ["--out", str(tmp_path / "a")], env=env,
                           capture_output=True, text=True, check=True)
    assert "compiling the Dice Race kernel and the bot random" in first.stderr
    second = subprocess.run(command + ["--out", str(tmp_path / "b")], env=env,
                            capture_output=True, text=True, check=True)
    assert "compiling" not in second.stderr


def test_before_measuring_here_the_line_quotes_the_game_s_measured_figures(tmp_path,
                                                                          monkeypatch):
    """A first run on a new machine: the estimate is the kernel's figure plus each bot's own,
    from the file the game.toml names, less what this cache folder has compiled; a bot
    without a figure leaves the line unquantified, and a figure measured on this machine for
    a cold start wins over the file."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache" / "key1"))
    figures = tmp_path / "compile_seconds.json"
    figures.write_text(json.dumps({"games": {"dice-race": {
        "kernel_and_random": 10.4, "bots": {"hold-at": 3.3}}}}))
    game = dataclasses.replace(get_game("dice-race"), compile_estimates=str(figures))

    def line(policies):
        out = io.StringIO()
        compiling.compile_first(game, policies, lambda: None, stream=out)
        return out.getvalue()

    assert compiling.shipped_estimate(game, ["random", "hold-at"]) == 14
    assert compiling.shipped_estimate(game, ["hold-at@5", "hold-at"]) == 14   # a budget
    assert "(first run of this code only, about 14 s)" in line(["hold-at", "hold-at"])
    # the kernel is compiled here now: only what random adds to it is left (under a second)
    assert "(first run of this code only, about 1 s)" in line(["random"])
    # another machine (no figure of its own for random, in any version of the code)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "other" / "key1"))
    assert "(first run of this code only, about 10 s)" in line(["random"])
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache" / "key2"))
    compiling.record("dice-race", ["random"], 7.0)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache" / "key3"))
    assert "about 7 s" in line(["random"])
    # a cache that cannot be written (sim.writable_cache_dir's temporary folder): every run
    # compiles, and the line must not promise that this is the last time
    monkeypatch.setattr(sim, "TEMPORARY_CACHE", True)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache" / "key4"))
    temporary = line(["random"])
    assert "(every run while numba's cache folder cannot be written, about" in temporary
    assert "first run" not in temporary
    # the kernel compiled here already (for random, in key3): only the bot is left to compile
    assert "about 3 s" in line(["random", "hold-at"])
    # a figure measured where the kernel was already compiled is no estimate for a cold start
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "warm" / "key1"))
    compiling.record("dice-race", ["random", "hold-at"], 1.0, cold=False)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "warm" / "key2"))
    assert "about 14 s" in line(["random", "hold-at"])
    assert compiling.shipped_estimate(game, ["random", "no-such-bot"]) is None
    assert compiling.shipped_estimate(get_game("dice-race"), ["random"]) is None
    # a figure that is not a number of seconds is no figure (and stops no run)
    for bad in (None, "ten", float("nan"), -1):
        figures.write_text(json.dumps({"games": {"dice-race": {
            "kernel_and_random": bad, "bots": {"hold-at": 3.3}}}}))
        assert compiling.shipped_estimate(game, ["random"]) is None


def test_a_game_toml_names_files_relative_to_the_folder_of_its_package():
    assert get_game("all-in-ascent").project_file("results/x.json") == ROOT / "results/x.json"
    assert get_game("dice-race").project_file("results/x.json") == \
        ROOT / "examples" / "dice_race" / "results" / "x.json"


def test_the_measured_figures_cover_every_bot_of_the_three_games():
    """results/compile_seconds.json (benchmarks/compile_estimates.py) has a figure for each
    game's kernel and each of its registered bots, so no first run of ours is unquantified."""
    for name in ("all-in-ascent", "ascension", "first-ascent"):
        game = get_game(name)
        for module in game.policy_modules:
            importlib.import_module(module)
        assert game.compile_estimates == "results/compile_seconds.json"
        shipped = [bot for bot in policy_names(name) if _module_of(name, bot).startswith(
            tuple(game.policy_modules))]      # not a bot another test registered in passing
        assert len(shipped) >= 5, (name, shipped)
        for bot in shipped:
            seconds = compiling.shipped_estimate(game, [bot])
            assert seconds is not None and seconds > 0, (name, bot)


def _module_of(game, bot):
    from sim.core.policies import registered_policy
    function = registered_policy(game, bot).function
    return getattr(function, "py_func", function).__module__


def test_the_progress_line_goes_to_the_stderr_of_the_moment(tmp_path, monkeypatch):
    """Not to the stream that was sys.stderr when the module was imported: a test harness (or
    a notebook) replaces and closes that one, and writing to it raised."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    now = io.StringIO()
    monkeypatch.setattr(sys, "stderr", now)
    compiling.compile_first(get_game("dice-race"), ["random"], lambda: None)
    assert "compiling the Dice Race kernel" in now.getvalue()


# run from the project's folder (cwd), where benchmarks/ is importable
RUN_IDENTITY_COMPILES = """
from numba.core import event
from benchmarks.compile_profile import CompileTimes
from sim.core.game import get_game
from sim.core.simulate import run_identity

game = get_game("dice-race")
rules = game.build_rules(2)
compiles = CompileTimes()
event.register("numba:compile", compiles)
run_identity(rules, ["random", "hold-at"], game.name)
print("COMPILED", compiles.names())
"""


def test_a_runs_identity_compiles_no_bot(tmp_path):
    """A run's identity (its bots' parameters among it) is worked out before the compile line
    starts: compiling a bot there kept a cold All-In Ascent `tuned` run silent for 41 s, and
    the line then said 28 s of a 70 s wait."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-c", RUN_IDENTITY_COMPILES], env=env, cwd=ROOT,
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "COMPILED []", out.stdout


def test_a_cold_start_compiles_the_other_bots_in_a_second_process_meanwhile(tmp_path,
                                                                          monkeypatch):
    """From an empty cache, with a way to compile the kernel alone (a game with `random`),
    the run compiles its other bots in a second process meanwhile, into the same cache
    folder, and then plays its own throw-away game, which loads them from there."""
    import sim
    folder = tmp_path / "cache" / sim.code_key()       # keyed: the second process keeps it
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(folder))
    monkeypatch.setattr(compiling, "_usable_cores", lambda: 2)   # however the suite is pinned
    game = get_game("dice-race")
    played = []
    compiling.compile_first(game, ["hold-at", "random"], lambda: played.append("game"),
                            quiet=True, play_kernel=lambda: played.append("kernel"))
    assert played == ["kernel", "game"]
    assert list(folder.rglob("*hold_at_policy*.nbi")), "the second process compiled nothing"
    # with its kernel compiled in this folder, a new bot compiles in the run's own process
    played.clear()
    compiling.compile_first(game, ["mcts"], lambda: played.append("game"), quiet=True,
                            play_kernel=lambda: played.append("kernel"))
    assert played == ["game"]


def test_only_random_or_a_compiled_kernel_needs_no_second_process(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    game = get_game("dice-race")
    assert compiling.bots_to_compile_alongside(game, ["random", "random"], None) == []
    assert compiling.bots_to_compile_alongside(game, ["hold-at", "random", "mcts@5"], None) \
        == ["hold-at", "mcts@5"]
    assert compiling.bots_to_compile_alongside(game, ["hold-at"], {"random"}) == []
    # on one core the two processes would only take turns
    monkeypatch.setattr(compiling, "_usable_cores", lambda: 1)
    assert compiling.bots_to_compile_alongside(game, ["hold-at"], None) == []
    monkeypatch.setattr(compiling, "_usable_cores", lambda: 2)
    # a run told to use one thread (--threads 1) compiles on one core too
    assert compiling.bots_to_compile_alongside(game, ["hold-at"], None, threads=1) == []
    assert compiling.bots_to_compile_alongside(game, ["hold-at"], None, threads=2) == ["hold-at"]
    # a game without a `random` bot has nothing to compile its kernel with alone
    no_random = dataclasses.replace(game, name="no-such-game")
    monkeypatch.setattr(compiling, "policy_name_problem", lambda g, n: "unknown policy")
    assert compiling.bots_to_compile_alongside(no_random, ["hold-at"], None) == []


def test_the_second_process_failing_or_the_run_failing_leaves_no_process_behind(started):
    """A second process that fails is no error (the run compiles the bots itself, and says
    why if they cannot compile); a run that fails stops the second process."""
    with compiling.compiling_alongside("dice-race", ["no-such-bot"]):
        pass
    assert started[-1].returncode not in (None, 0)
    try:
        with compiling.compiling_alongside("dice-race", ["hold-at"]):
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert started[-1].returncode is not None and started[-1].returncode != 0


def test_the_estimate_of_a_cold_start_with_a_second_process_is_the_longer_part(tmp_path):
    figures = tmp_path / "compile_seconds.json"
    figures.write_text(json.dumps({"games": {"dice-race": {
        "kernel_and_random": 10.4, "bots": {"hold-at": 3.3, "mcts": 20.0}}}}))
    game = dataclasses.replace(get_game("dice-race"), compile_estimates=str(figures))
    assert compiling.shipped_estimate(game, ["hold-at"], alongside=True) == 10
    assert compiling.shipped_estimate(game, ["hold-at", "mcts"], alongside=True) == 26
    assert compiling.shipped_estimate(game, ["hold-at", "mcts"]) == 34
    # a bot in parts (a search bot) alone in its seats: its measured first run, which the
    # formula cannot see (the run compiles the search after its kernel)
    figures.write_text(json.dumps({"games": {"dice-race": {
        "kernel_and_random": 10.4, "bots": {"hold-at": 3.3, "mcts": 20.0},
        "first_run": {"mcts": 27.6}}}}))
    assert compiling.shipped_estimate(game, ["mcts", "mcts@8"], alongside=True) == 28
    assert compiling.shipped_estimate(game, ["mcts", "random"], alongside=True) == 28
    # with another bot, with the kernel compiled, or without a second process: the formula
    assert compiling.shipped_estimate(game, ["hold-at", "mcts"], alongside=True) == 26
    assert compiling.shipped_estimate(game, ["mcts"], compiled={"random"}, alongside=True) == 22
    assert compiling.shipped_estimate(game, ["mcts"]) == 30


# in a fresh process with an empty cache: a cold start of dice-race with hold-at; then how
# hold-at's dispatcher got its code in this process
COLD_START_LOADS_THE_BOT = """
import json, os
from sim.core import compiling
from sim.core.game import get_game
from sim.core.policies import registered_policy

compiling._usable_cores = lambda: 2            # however the suite is pinned
game = get_game("dice-race")
rules = game.build_rules(2)


def throw_away(seats):
    return lambda: game.api.play(rules, 1, 1, seats, "random")


compiling.compile_first(game, ["hold-at", "random"], throw_away(["hold-at", "random"]),
                        quiet=True, play_kernel=throw_away(["random", "random"]))
stats = registered_policy("dice-race", "hold-at").function.stats
print(json.dumps([sum(stats.cache_hits.values()), sum(stats.cache_misses.values())]))
"""


def test_the_run_loads_the_bots_the_second_process_compiled(tmp_path):
    """The run's own throw-away game finds the bot in the cache (a hit, no compile): the
    second process compiled it into the same folder, from the same sources."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-c", COLD_START_LOADS_THE_BOT], env=env,
                         cwd=tmp_path, capture_output=True, text=True, check=True)
    hits, misses = json.loads(out.stdout.strip().splitlines()[-1])
    assert (hits, misses) == (1, 0), out.stderr


def test_no_second_process_to_be_had_is_no_error(monkeypatch):
    def failing_popen(*args, **kwargs):
        raise OSError("no more processes")

    monkeypatch.setattr(compiling.subprocess, "Popen", failing_popen)
    ran = []
    with compiling.compiling_alongside("dice-race", ["hold-at"]):
        ran.append(1)
    def must_not_start(*args, **kwargs):
        raise AssertionError("a second process started with no Python to run")

    monkeypatch.setattr(compiling.subprocess, "Popen", must_not_start)
    monkeypatch.setattr(compiling.sys, "executable", None)      # an embedded interpreter
    with compiling.compiling_alongside("dice-race", ["hold-at"]):
        ran.append(2)
    assert ran == [1, 2]


# a process that stops when its input ends, and sleeps; its parent starts it with a pipe for
# its input, prints its pid and exits at once, killed outright (os._exit: no cleanup)
ORPHAN = """
import threading, time
from sim.core.compiling import stop_at_end_of_input
threading.Thread(target=stop_at_end_of_input, daemon=True).start()
time.sleep(120)
"""
PARENT = """
import os, subprocess, sys
child = subprocess.Popen([sys.executable, "-c", sys.argv[1]], stdin=subprocess.PIPE,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(child.pid, flush=True)
os._exit(0)
"""


def test_the_second_process_stops_when_the_run_is_gone():
    """A run killed outright cannot stop its second process: the second process's input
    ends with the run, and it exits (here a sleeper with the same watcher, whose parent exits
    at once)."""
    import time
    out = subprocess.run([sys.executable, "-c", PARENT, ORPHAN], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    pid = int(out.stdout.split()[0])
    deadline = time.monotonic() + 60
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = _running(pid)
    if alive:
        os.kill(pid, 9)
    assert not alive


def _running(pid):
    """Alive and not a zombie (a container's first process may never reap it)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\\nState:\\tZ" not in status


def test_a_second_process_started_early_is_taken_over_or_stopped(tmp_path, monkeypatch,
                                                                 started):
    """`ascent simulate` starts the second process before it packs the rules
    (compiling_early); compile_first then waits for that one instead of starting another, and
    one nothing took over (a run found done, or failed) is stopped on the way out."""
    import sim
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache" / sim.code_key()))
    monkeypatch.setattr(compiling, "_usable_cores", lambda: 2)
    game = get_game("dice-race")
    with compiling.compiling_early(game, ["hold-at", "random"]):
        assert len(started) == 1 and started[0].poll() is None
        compiling.compile_first(game, ["hold-at", "random"], lambda: None, quiet=True,
                                play_kernel=lambda: None)
        assert len(started) == 1 and started[0].returncode == 0    # waited for, not killed
    assert compiling._STARTED_EARLY == {}
    # not taken over: stopped
    with compiling.compiling_early(game, ["mcts", "random"]):
        pass
    assert len(started) == 1          # the kernel is compiled here now: none started
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "other" / sim.code_key()))
    with compiling.compiling_early(game, ["mcts", "random"]):
        assert len(started) == 2
    assert started[1].returncode is not None and started[1].returncode != 0
    assert compiling._STARTED_EARLY == {}
    with compiling.compiling_early(game, ["random"]):
        assert len(started) == 2      # random alone: nothing to compile alongside


def test_a_second_process_started_early_for_bots_the_run_no_longer_needs_is_stopped(
        tmp_path, monkeypatch, started):
    """Another run compiled these bots between the start of the second process and the
    run's compile: the run needs none compiled, and stops the second process at once
    instead of letting it compile on while the games are played."""
    import sim
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache" / sim.code_key()))
    monkeypatch.setattr(compiling, "_usable_cores", lambda: 2)
    game = get_game("dice-race")
    with compiling.compiling_early(game, ["mcts", "random"]):
        compiling.record("dice-race", ["mcts", "random"], 1.0)     # the other run
        assert compiling.compile_first(game, ["mcts", "random"], lambda: None, quiet=True,
                                       play_kernel=lambda: None) == (0.0, 0.0)
        assert started[0].returncode == 1 and compiling._STARTED_EARLY == {}


def test_a_run_told_to_use_one_thread_compiles_on_one_core(tmp_path, monkeypatch, started):
    """`ascent simulate --threads 1` from an empty cache starts no second process: a user who
    asks for one core gets one, for the one-time compile too."""
    import sim
    from sim.cli import main
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache" / sim.code_key()))
    monkeypatch.setattr(compiling, "_usable_cores", lambda: 2)
    assert main(["simulate", "--game", "dice-race", "--players", "2", "--games", "3", "--seed",
                 "1", "--policy", "hold-at", "--threads", "1", "--out", str(tmp_path / "run"),
                 "--quiet"]) == 0
    assert started == []
    assert compiling.is_compiled("dice-race", ["hold-at", "hold-at"])
