"""Several processes saving into one numba cache folder at once (sim/core/numba_cache.py).

Two processes compile one cached function for different argument types and are made to meet
just before each writes the function's index, the moment where numba's own save lets both
pick the same data file. With the lock, the second waits until the first has saved, so a
third process finds both compiled versions in the cache, each under its own name, and each
gives its own answer."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

MODULE = """
from numba import njit


@njit(cache=True)
def halve(x):
    return x / 2 if isinstance(x, float) else x // 2
"""

# One saver: waits for the other to start, compiles `halve` for its argument, and before it
# writes the index waits (at most `patience` seconds) for the other to get there too.
SAVER = """
import os, sys, time
from pathlib import Path
import sim  # noqa: F401  (keys the cache folder, locks the saves)
from numba.core import caching

me, other, argument, patience = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
meet = Path(os.environ["MEET"])


def wait_for(name, seconds):
    end = time.monotonic() + seconds
    while not (meet / name).exists() and time.monotonic() < end:
        time.sleep(0.01)


save_index = caching.IndexDataCacheFile._save_index


def meeting_save_index(self, overloads):
    (meet / f"{me}.saving").touch()
    wait_for(f"{other}.saving", patience)
    return save_index(self, overloads)


caching.IndexDataCacheFile._save_index = meeting_save_index
import racy
(meet / f"{me}.started").touch()
wait_for(f"{other}.started", 60)
racy.halve(float(argument) if "." in argument else int(argument))
"""

READER = """
import json
import sim  # noqa: F401
import racy
stats = racy.halve.stats
print(json.dumps([racy.halve(7), racy.halve(7.0),
                  {str(k): n for k, n in stats.cache_hits.items()},
                  {str(k): n for k, n in stats.cache_misses.items()}]))
"""


def test_two_processes_saving_one_function_at_once_keep_both_versions(tmp_path):
    (tmp_path / "racy.py").write_text(textwrap.dedent(MODULE))
    meet = tmp_path / "meet"
    meet.mkdir()
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), MEET=str(meet),
               PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    savers = [subprocess.Popen([sys.executable, "-c", SAVER, me, other, argument, "3"],
                               env=env, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
              for me, other, argument in (("a", "b", "7"), ("b", "a", "7.0"))]
    for saver in savers:
        assert saver.wait(timeout=300) == 0, saver.stderr.read()
    assert (meet / "a.saving").exists() and (meet / "b.saving").exists()
    read = subprocess.run([sys.executable, "-c", READER], env=env, cwd=tmp_path,
                          capture_output=True, text=True, check=True)
    whole, half, hits, misses = json.loads(read.stdout.strip().splitlines()[-1])
    assert (whole, half) == (3, 3.5)
    # both versions came from the cache: neither save overwrote the other's index entry
    assert hits == {"(int64,)": 1, "(float64,)": 1} and misses == {}


def test_a_folder_that_cannot_be_locked_still_saves_and_loads(tmp_path, monkeypatch):
    """flock fails on some network file systems (ENOLCK): numba then saves and loads as it
    does on its own, instead of the compile failing, with a warning; and saves_are_locked()
    says no, so that no second compile process saves beside this one."""
    import pytest
    from numba.core import caching

    from sim.core import numba_cache
    monkeypatch.setattr(numba_cache, "_UNLOCKABLE", set())
    assert numba_cache.saves_are_locked(str(tmp_path))

    def no_locks(fd, mode):
        raise OSError(37, "No locks available")

    monkeypatch.setattr(numba_cache.fcntl, "flock", no_locks)
    index = caching.IndexDataCacheFile(str(tmp_path), "f", ("stamp", 1))
    with pytest.warns(UserWarning, match="cannot be locked here"):
        index.save(("key",), {"data": 1})
    assert index.load(("key",)) == {"data": 1}
    assert caching.IndexDataCacheFile.save.locked       # through the locking wrapper
    assert not numba_cache.saves_are_locked(str(tmp_path))
