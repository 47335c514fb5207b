"""The numba cache key (sim/__init__.py) covers every module whose code numba compiles.

numba re-validates a cached function against its own file only; a stale kernel after an edit to a
function it calls (in another file) silently ran the old rules, or crashed after a layout change.
"""
import importlib
import shutil
from pathlib import Path

import pytest
from numba.core.dispatcher import Dispatcher

import policies
import sim
from sim import numba_cache_key, numba_cache_key_files

ROOT = Path(sim.__file__).resolve().parent.parent

# one module of each kind, and where in it to edit. The engine, rules and policy modules define
# compiled functions, and two of them import numba only through sim/core/jit.py (the spelling the
# old key missed); the registry decides which compiled policy a kernel is handed.
KINDS = {
    "engine": ("sim/games/all_in_ascent/engine.py", "def rest("),
    "rules": ("sim/games/all_in_ascent/rules.py", "@njit_noalloc"),
    "policy": ("policies/first_ascent/greedy.py", "@njit_noalloc"),
    "registry": ("sim/core/policies.py", "def policy_slots("),
}


def _all_modules():
    # by file, not pkgutil.walk_packages: that skips the namespace packages (no __init__.py)
    for package in (sim, policies):
        base = Path(package.__file__).resolve().parent
        for path in sorted(base.rglob("*.py")):
            parts = path.relative_to(base.parent).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield importlib.import_module(".".join(parts))


def _compiled_function_files():
    files = set()
    for module in _all_modules():
        for value in vars(module).values():
            if isinstance(value, Dispatcher) and value.py_func.__module__ == module.__name__:
                files.add(Path(module.__file__).resolve())
    return files


def test_every_module_with_compiled_functions_is_in_the_key():
    compiled = _compiled_function_files()
    keyed = {p.resolve() for p in numba_cache_key_files()}
    # the four kinds of module really define compiled functions (so the test can fail)
    for kind in ("engine", "rules", "policy"):
        assert (ROOT / KINDS[kind][0]).resolve() in compiled, kind
    assert sorted(str(p) for p in compiled - keyed) == []


@pytest.fixture()
def source_copy(tmp_path):
    for package in ("sim", "policies"):
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.json"))
    return tmp_path


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_editing_a_compiled_module_changes_the_key(source_copy, kind):
    before = numba_cache_key(source_copy)
    assert numba_cache_key(source_copy) == before      # the key is a function of the sources
    path, marker = KINDS[kind]
    target = source_copy / path
    text = target.read_text()
    assert marker in text
    # an edit at the function: its signature or decorator line gains a comment
    line_end = text.index("\n", text.index(marker))
    target.write_text(text[:line_end] + "  # edited" + text[line_end:])
    assert numba_cache_key(source_copy) != before


def test_the_key_ignores_files_outside_the_packages(source_copy):
    before = numba_cache_key(source_copy)
    (source_copy / "notes.py").write_text("x = 1\n")
    assert numba_cache_key(source_copy) == before


def test_a_run_depends_on_the_bundled_data_files(source_copy):
    # First Ascent's data.json is not in its rules fingerprint: the run identity hashes it
    from sim import package_data_key
    for package in ("sim", "policies"):
        for path in (ROOT / package).rglob("*.json"):
            target = source_copy / path.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    before = package_data_key(source_copy)
    data = source_copy / "sim" / "games" / "first_ascent" / "data" / "data.json"
    data.write_text(data.read_text().replace(" ", "  ", 1))
    assert package_data_key(source_copy) != before
    assert numba_cache_key(source_copy) == numba_cache_key(source_copy)


def _cache_dir_in_fresh_process(env_value):
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    if env_value is not None:
        env["NUMBA_CACHE_DIR"] = env_value
    out = subprocess.run(
        [sys.executable, "-c", "import sim; from numba.core import config; "
                               "print(config.CACHE_DIR)"],
        env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_a_cache_folder_the_user_names_is_keyed_too(tmp_path):
    """A long-lived NUMBA_CACHE_DIR once handed back kernels compiled from earlier sources (the
    key applied only when the variable was unset). Now the named folder gets the key below it,
    and a folder that already ends in the key (a worker inheriting its parent's) is kept."""
    key = numba_cache_key()
    assert _cache_dir_in_fresh_process(str(tmp_path)) == str(tmp_path / key)
    assert _cache_dir_in_fresh_process(str(tmp_path / key)) == str(tmp_path / key)
    assert _cache_dir_in_fresh_process(None).endswith(key)


_CACHED_HERE = """
import os, sys
from pathlib import Path
import sim
from numba import njit
from numba.core import config

@njit(cache=True)
def doubled(x):
    return 2 * x

assert doubled(21) == 42
cache = Path(config.CACHE_DIR)
print(cache)
assert cache == Path(os.environ["NUMBA_CACHE_DIR"]) and cache.name == sim.code_key()
assert list(cache.rglob("*.nbi")), "nothing cached in the temporary folder"
"""


def test_a_cache_folder_that_cannot_be_written_is_replaced_by_a_temporary_one(tmp_path):
    """numba, given a cache folder it cannot write, caches into __pycache__ next to the
    sources, which the key does not cover (an edited callee's caller kept its old code there).
    Such a folder is replaced by a temporary one, keyed the same way and removed at exit (or
    by the next such run, once its process has ended), and the run says so. A folder below a
    file cannot be written, whoever runs the test."""
    import os
    import subprocess
    import sys
    import tempfile
    (tmp_path / "a_file").write_text("")
    # one left by a process that ended without its exit handlers (SIGTERM): removed
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True).stdout.strip()
    orphan = Path(tempfile.mkdtemp(prefix=f"ascent-numba-{ended}-"))
    script = tmp_path / "cached_here.py"
    script.write_text(_CACHED_HERE)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "a_file" / "cache"),
               PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, str(script)], env=env, cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "ascent: warning: numba's cache folder" in done.stderr
    assert str(tmp_path / "a_file" / "cache") in done.stderr
    temporary = Path(done.stdout.strip().splitlines()[-1])
    assert not temporary.parent.exists()                  # removed at exit
    assert not orphan.exists()
    assert not list(tmp_path.rglob("__pycache__"))        # nothing next to the sources


def test_a_games_runs_depend_on_its_own_data_files_only(source_copy):
    """Re-tuning First Ascent's bot (policies/first_ascent/tuned.json) once locked every
    All-In Ascent and Ascension experiment out of resuming: the run identity hashed every data
    file of the packages. Each game's key now covers its own files."""
    from sim import package_data_key
    for package in ("sim", "policies"):
        for path in (ROOT / package).rglob("*.json"):
            target = source_copy / path.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    keys = {g: package_data_key(source_copy, g) for g in ("all-in-ascent", "first-ascent")}
    tuned = source_copy / "policies" / "first_ascent" / "tuned.json"
    tuned.write_text(tuned.read_text().replace(" ", "  ", 1))
    assert package_data_key(source_copy, "all-in-ascent") == keys["all-in-ascent"]
    assert package_data_key(source_copy, "first-ascent") != keys["first-ascent"]


def test_the_play_code_key_covers_a_game_s_engine_and_bots_not_its_reports():
    """experiment.json's play_code (sim.play_code_key; runner.Manifest refuses a folder with
    another): the core, the game's engine and bots and the shared search are in it, reports
    and experiment tools are not, and no other game's engine is."""
    files = {p.relative_to(ROOT).as_posix() for p in sim.play_code_files("ascension")
             if ROOT in p.parents}
    assert {"sim/core/rng.py", "sim/core/batch.py", "sim/games/ascension/engine.py",
            "policies/ascension/builder.py", "policies/mcts.py"} <= files
    assert not any(f.startswith(("sim/report/", "sim/experiment/", "sim/games/first_ascent/",
                                 "policies/all_in_ascent/")) for f in files)


def test_the_play_code_key_reads_paths_within_each_source(tmp_path):
    """Two installs of the same sources in other folders get the same key (a plug-in's key once
    followed its absolute path); an edit, or a file moved within a source, changes it."""
    from sim import _sources_digest
    for root in ("a/site", "b/elsewhere/deeper"):
        pkg = tmp_path / root / "pkg"
        (pkg / "sub").mkdir(parents=True)
        (pkg / "engine.py").write_text("RULE = 1\n")
        (pkg / "sub" / "bot.py").write_text("MOVE = 2\n")
    first, second = (_sources_digest([("pkg", tmp_path / root / "pkg", "**/*.py")])
                     for root in ("a/site", "b/elsewhere/deeper"))
    assert first == second
    moved = tmp_path / "b/elsewhere/deeper/pkg"
    (moved / "sub" / "bot.py").rename(moved / "bot.py")
    assert _sources_digest([("pkg", moved, "**/*.py")]) != first
    (moved / "engine.py").write_text("RULE = 2\n")
    (moved / "bot.py").rename(moved / "sub" / "bot.py")
    assert _sources_digest([("pkg", moved, "**/*.py")]) != first
