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
