"""The suite's own cost from an empty numba cache (results/BENCHMARKS.md, "The cold test suite"):
each of the two workers collects every test file, so whatever a file compiles at import, both
compile at once before any test runs (it was 46 s a worker)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import conftest
from conftest import work_unit

ROOT = Path(__file__).resolve().parents[1]

# run from the project's folder (cwd), where benchmarks/ is importable
COLLECT_AND_LIST_COMPILES = """
import sys
import pytest
from numba.core import event
from benchmarks.compile_profile import CompileTimes

compiles = CompileTimes()
event.register("numba:compile", compiles)
code = pytest.main(["--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider", "tests"])
print("COMPILED", sorted(set(compiles.names())))
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
        "tests/first_ascent"
    assert work_unit("tests/first_ascent/test_fa_rounds.py::test_x") == "tests/first_ascent"
    assert work_unit("tests/all_in_ascent/test_kernel.py::test_y") == "tests/all_in_ascent"
    assert work_unit("tests/test_report.py::test_z") == "tests/test_report.py"
    assert work_unit("tests/test_conformance.py::test_w[tests/all_in_ascent::x]") == \
        "tests/test_conformance.py"


def test_the_suites_scheduler_hands_out_the_units_of_work_unit(pytestconfig):
    """tests/conftest.py's scheduler is registered under xdist's hook name (the hook is declared
    optional, so a misspelt one would be ignored without a word) and splits by work_unit."""
    pytest.importorskip("xdist")
    hook = pytestconfig.pluginmanager.hook.pytest_xdist_make_scheduler
    assert any(impl.plugin is conftest or getattr(impl.plugin, "__file__", None) ==
               conftest.__file__ for impl in hook.get_hookimpls())

    class LoadfileConfig:
        """What the controller's config answers for the suite's default options."""
        option = pytestconfig.option

        def getvalue(self, name):
            return {"dist": "loadfile", "tx": ["2*popen"]}.get(
                name, pytestconfig.getvalue(name))

    scheduler = conftest.pytest_xdist_make_scheduler(LoadfileConfig(), None)
    assert scheduler._split_scope("tests/ascension/test_rules.py::t") == "tests/ascension"
    assert scheduler._split_scope("tests/test_cli.py::t") == "tests/test_cli.py"
