"""The suite's own cost from an empty numba cache (results/BENCHMARKS.md, "The cold test suite"):
each of the two workers collects every test file, so whatever a file compiles at import, both
compile at once before any test runs (it was 46 s a worker)."""
import os
import subprocess
import sys
from pathlib import Path

from conftest import work_unit

ROOT = Path(__file__).resolve().parents[1]

COLLECT_AND_LIST_COMPILES = """
import sys
import pytest
from numba.core import event

compiled = []


class Compiles(event.Listener):
    def on_start(self, ev):
        fn = ev.data["dispatcher"].py_func
        compiled.append(f"{fn.__module__}.{fn.__qualname__}")

    def on_end(self, ev):
        pass


event.register("numba:compile", Compiles())
code = pytest.main(["--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider", "tests"])
print("COMPILED", sorted(set(compiled)))
sys.exit(int(code))
"""


def test_collecting_the_suite_compiles_nothing(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    out = subprocess.run([sys.executable, "-c", COLLECT_AND_LIST_COMPILES], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    line = next(x for x in out.stdout.splitlines() if x.startswith("COMPILED"))
    assert line == "COMPILED []", f"compiled while collecting (play it in a fixture): {line}"


def test_a_games_test_folder_is_one_unit_of_work_and_other_files_their_own():
    assert work_unit("tests/first_ascent/test_fa_cards.py::test_card_effect[1-0-False]") == \
        "first_ascent"
    assert work_unit("tests/first_ascent/test_fa_rounds.py::test_x") == "first_ascent"
    assert work_unit("tests/all_in_ascent/test_kernel.py::test_y") == "all_in_ascent"
    assert work_unit("tests/test_report.py::test_z") == "tests/test_report.py"
    assert work_unit("tests/test_conformance.py::test_w[all_in_ascent]") == \
        "tests/test_conformance.py"
