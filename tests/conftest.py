"""How the suite is shared between its two worker processes (pyproject.toml: `-n 2`).

From an empty numba cache most of the suite's time is numba compiling a game's engine, kernel
and bots. Two workers that start on the same game compile the same functions at the same time,
and one of the two copies is wasted. So the tests of a folder under tests/ (one per game:
tests/first_ascent/, ...) are one unit of work, which one worker plays from start to end while
the other starts on another game; a test file directly in tests/ is a unit of its own, so that
its module fixtures are built once (results/BENCHMARKS.md, "The cold test suite").

This is xdist's `loadfile` (the suite's default) with larger units. Its `loadgroup` would do it
with marks, but under pytest 9 it no longer sees them (it renames `item._nodeid`, which
pytest 9 does not read), so the units are given through xdist's scheduler hook instead."""
from pathlib import PurePosixPath

import subprocess

import pytest


def work_unit(nodeid):
    """The unit a test belongs to: its folder under tests/, or its file."""
    path = PurePosixPath(nodeid.split("::", 1)[0])
    if len(path.parts) > 2 and path.parts[0] == "tests":
        return "/".join(path.parts[:2])
    return str(path)


@pytest.hookimpl(optionalhook=True)     # xdist's hook: absent when xdist is not installed
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadfile":
        return None                 # another --dist asked for on the command line
    from xdist.scheduler import LoadScopeScheduling

    class ByTestFolder(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return work_unit(nodeid)

    return ByTestFolder(config, log)


@pytest.fixture
def started(monkeypatch):
    """Every process sim/core/compiling.py starts during the test, as it starts them."""
    from sim.core import compiling
    processes = []
    popen = subprocess.Popen

    def recording_popen(*args, **kwargs):
        processes.append(popen(*args, **kwargs))
        return processes[-1]

    monkeypatch.setattr(compiling.subprocess, "Popen", recording_popen)
    return processes


@pytest.fixture
def tune_compile(monkeypatch, capsys, tmp_path):
    """`ascent tune` run with its compile recorded: tune_compile(game, character, tuning,
    entry, seats_of) runs a tiny two-player tuning and returns what happened in order: the
    compile_first call (game, bots, quiet, threads), then the seats of every game played
    through the tuning module's `entry` (seats_of turns that call's arguments into the list
    of bot names seated), with "kernel" and "bots" where compile_first played the kernel's
    throw-away game and then the bots', and "compiled" where it returned."""
    from sim.cli import main
    from sim.core import compiling
    # without --out a tuning keeps its record and parts under results/: a rerun in the same
    # folder would resume them and play nothing
    monkeypatch.chdir(tmp_path)

    def run(game, character, tuning, entry, seats_of):
        events = []
        real_entry = getattr(tuning, entry)

        def recording_entry(*a, **k):
            events.append(seats_of(a))
            return real_entry(*a, **k)

        def recording_compile_first(game_spec, names, play_one, quiet=False, play_kernel=None,
                                    threads=None):
            events.append((game_spec.name, sorted(names), quiet, threads))
            events.append("kernel")
            play_kernel()
            events.append("bots")
            play_one()
            events.append("compiled")
            return 0.0

        monkeypatch.setattr(tuning, entry, recording_entry)
        monkeypatch.setattr(compiling, "compile_first", recording_compile_first)
        assert main(["tune", "--game", game, "--character", character, "--players", "2",
                     "--budget", "2", "--games", "4", "--validation-games", "4",
                     "--threads", "1", "--quiet"]) == 0
        capsys.readouterr()
        return events
    return run
