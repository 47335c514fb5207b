"""A non-editable install works: the wheel ships every file of `sim` and `policies` (code and
the data the code reads at runtime), and the `ascent` of a fresh venv holding only that wheel
simulates each game from a folder outside the repository.

The fresh venv sees the dependencies (numpy, numba, ...) already installed for this test run
through a `.pth` file that names this interpreter's site-packages. A bare path in a `.pth` puts
that folder on sys.path but does not run the `.pth` files inside it, so the project's editable
install (a finder hook started by its own `.pth`) does not leak in; the test checks that
`sim` and `policies` are imported from the fresh venv.

The wheel is built from a copy of the source (pip builds in-tree: a `build/` folder in the
working tree would be shared with other builds, and a stale `build/lib` can put a file in the
wheel that package-data no longer lists). Without the build requirements installed here
(setuptools>=68 and wheel) pip fetches them for an isolated build, which needs the package index.

Numba compiles each game's policies (all of them, when the game's policy package is imported)
and its kernel: 1-2 CPU minutes per game, cold. So the three games run in parallel, and the
fresh venv lives at a fixed path under the user's cache (~/.cache/ascent-wheel-test) with a
numba cache beside it, keyed by a hash of the sources: a rerun with unchanged sources compiles
nothing. (numba files its cache by the source file's absolute path, so a venv under tmp_path
would start cold every time.) That cache is first seeded with what the session's own numba
cache holds for the same sources, so after the rest of the suite this test compiles little.
A lock file serialises concurrent runs of this test.
"""
import hashlib
import json
import os
import re
import shutil
import site
import subprocess
import sys
import sysconfig
import venv
import zipfile
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import version
from pathlib import Path

import pytest

fcntl = pytest.importorskip("fcntl", reason="POSIX only (a venv's bin/, a lock file)")

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("sim", "policies")
# Files beside the code that it never reads (policies/README.md); everything else in the
# packages, code or data, must be in the wheel.
NOT_SHIPPED = {".md", ".pyc"}
BUILD_FILES = ("pyproject.toml", "README.md", "setup.py", "setup.cfg", "MANIFEST.in")
TIMEOUT = 900     # seconds for one command; a cold compile of a game takes 1-2 minutes


def cache_root():
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "ascent-wheel-test"


def package_files(root):
    """Paths (relative, posix) of every file of the packages the wheel must hold."""
    return sorted(p.relative_to(root).as_posix()
                  for package in PACKAGES for p in (root / package).rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts
                  and p.suffix not in NOT_SHIPPED)


def source_key(root):
    """A hash of the packages' Python sources: names the numba cache of this code."""
    digest = hashlib.sha256()
    for name in package_files(root):
        if name.endswith(".py"):
            digest.update(name.encode() + b"\0" + (root / name).read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def version_tuple(text):
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def can_build_offline():
    """The build requirements of pyproject.toml are installed here (setuptools>=68 and wheel;
    setuptools 70.1 and later have bdist_wheel built in)."""
    try:
        setuptools = version_tuple(version("setuptools"))
    except Exception:
        return False
    if setuptools < (68,):
        return False
    if setuptools >= (70, 1):
        return True
    try:
        version("wheel")
        return True
    except Exception:
        return False


def run(cmd, **kwargs):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                          timeout=TIMEOUT, **kwargs)


def output(proc):
    return f"exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(source copy, wheel path): the project built into a wheel from a copy of its source."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in BUILD_FILES:
        if (REPO / name).exists():
            shutil.copy2(REPO / name, src / name)
    for package in PACKAGES:
        shutil.copytree(REPO / package, src / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    out = tmp / "dist"
    # absolute paths: pip reads a bare word such as `src` as a project name on the index
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", out.resolve(), src.resolve()]
    if can_build_offline():
        cmd.insert(4, "--no-build-isolation")
    proc = run(cmd, cwd=tmp)
    assert proc.returncode == 0, output(proc)
    wheels = list(out.glob("ascent-*.whl"))
    assert len(wheels) == 1, wheels
    return src, wheels[0]


def test_wheel_holds_every_file_of_the_packages(built):
    src, wheel = built
    expected = package_files(src)
    assert "policies/first_ascent/tuned.json" in expected
    assert "sim/games/first_ascent/data/data.json" in expected
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [name for name in expected if name not in names]
    assert not missing, (f"not in the wheel (add them to [tool.setuptools.package-data] in "
                         f"pyproject.toml): {missing}")


def seed_from_session_cache(src, purelib, dest):
    """Copy into `dest` what the numba cache of this test session (sim's own, which the other
    tests filled) holds for the repository's sources, filed under the installed files' paths.

    Only when that cache is the one of these very sources (sim names it by a hash of them), so
    no entry can hold code compiled against another version of a function it calls; numba
    still checks each entry against its own file. A run of the whole suite then compiles
    little here; alone, or without that cache, the test compiles everything. Returns the
    number of folders copied."""
    try:
        import sim
        from numba.core import config
        from numba.core.caching import _CacheLocator
        key = sim.numba_cache_key(src)
    except (ImportError, AttributeError):   # another numba: no seeding, only a slower test
        return 0
    session = Path(config.CACHE_DIR)
    if session.name != key or not session.is_dir():
        return 0
    root = Path(os.path.abspath(sim.__file__)).parent.parent   # as numba saw the files
    copied = 0
    for folder in sorted({Path(name).parent for name in package_files(src)}):
        old = session / _CacheLocator.get_suitable_cache_subpath(str(root / folder / "x.py"))
        new = dest / _CacheLocator.get_suitable_cache_subpath(str(purelib / folder / "x.py"))
        if old.is_dir() and not new.exists():
            shutil.copytree(old, new)
            copied += 1
    return copied


@pytest.fixture
def fresh_venv(built):
    """A venv at a fixed path holding only the wheel (rebuilt on every run), the numba cache
    for these sources, and the environment to run its `ascent` with."""
    src, wheel = built
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    with open(root / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        env_dir = root / "venv"
        shutil.rmtree(env_dir, ignore_errors=True)
        pip_runs_elsewhere = version_tuple(version("pip")) >= (22, 3)     # pip --python
        venv.create(env_dir, with_pip=not pip_runs_elsewhere, symlinks=os.name != "nt")
        python = env_dir / "bin" / "python"
        pip = [sys.executable, "-m", "pip", "--python", python] if pip_runs_elsewhere \
            else [python, "-m", "pip"]
        # before the .pth below: pip must not see this run's (editable) ascent as installed
        proc = run([*pip, "install", "--no-deps", "--no-index", wheel])
        assert proc.returncode == 0, output(proc)
        purelib = Path(run([python, "-c", "import sysconfig; print(sysconfig.get_paths()"
                                          "['purelib'])"]).stdout.strip())
        ours = [p for p in dict.fromkeys(site.getsitepackages() + [
            sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
            if Path(p).is_dir()]
        (purelib / "_test_run_dependencies.pth").write_text("\n".join(ours) + "\n")

        # numba versions that stamp a cache entry with its file's mtime (not a hash of its
        # bytes) would find every entry stale after pip wrote the files anew
        for name in package_files(src):
            if name.endswith(".py"):
                st = (src / name).stat()
                os.utime(purelib / name, ns=(st.st_atime_ns, st.st_mtime_ns))

        numba = root / "numba"
        key = source_key(src)
        for old in numba.glob("*"):
            if old.name != key:
                shutil.rmtree(old, ignore_errors=True)
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "NUMBA_CACHE_DIR")}
        env["NUMBA_CACHE_DIR"] = str(numba / key)
        env["PYTHONNOUSERSITE"] = "1"
        # the installed ascent files its cache under a key of its own sources and plug-ins
        # (sim.keyed_cache_dir; no plug-in is installed here, so it differs from the session's
        # key): the session's entries must go into that folder, or they are never read
        proc = run([python, "-c", "import sim; print(sim.numba_cache_key())"], env=env,
                   cwd=root)
        assert proc.returncode == 0, output(proc)
        seed_from_session_cache(src, purelib, numba / key / proc.stdout.strip())
        yield env_dir, purelib, env


def test_installed_wheel_simulates_every_game(fresh_venv, built, tmp_path):
    env_dir, purelib, env = fresh_venv
    python, ascent = env_dir / "bin" / "python", env_dir / "bin" / "ascent"

    # the packages come from the wheel, not from the repository's editable install
    proc = run([python, "-c", "import json, sys, sim, policies; print(json.dumps("
                "[sim.__file__, policies.__file__, [m for m in sys.modules if 'editable' in m]]))"],
               cwd=tmp_path, env=env)
    assert proc.returncode == 0, output(proc)
    sim_file, policies_file, editable = json.loads(proc.stdout)
    assert Path(sim_file).parent == purelib / "sim"
    assert Path(policies_file).parent == purelib / "policies"
    assert editable == []

    def simulate(name, game, *extra):
        out = tmp_path / name
        proc = run([ascent, "simulate", "--game", game, "--players", 4, "--games", 3,
                    "--out", out, "--quiet", *extra], cwd=tmp_path, env=env)
        assert proc.returncode == 0, f"ascent simulate --game {game} {extra}: {output(proc)}"
        assert (out / "games.parquet").is_file(), f"{game} {extra}: no games.parquet"

    def first_ascent():
        simulate("fa", "first-ascent")                             # its default policy
        simulate("fa-tuned", "first-ascent", "--policy", "tuned")  # reads tuned.json

    # the three games compile in parallel (each is one process, numba compiles on one core)
    with ThreadPoolExecutor(3) as pool:
        jobs = [pool.submit(simulate, "aia", "all-in-ascent"),
                pool.submit(simulate, "asc", "ascension"), pool.submit(first_ascent)]
        for job in jobs:
            job.result()

    # both games' tuned policies read their tuned.json from the installed package. Without the
    # file nothing fails above: the tuned policy then silently plays the planner's defaults.
    proc = run([python, "-c", "import json\n"
                "import policies.first_ascent.tuned as fa, policies.all_in_ascent.tuned as aa\n"
                "print(json.dumps({g: [str(m.TUNED_PATH), sorted(m.load_tuned())] "
                "for g, m in (('first_ascent', fa), ('all_in_ascent', aa))}))"],
               cwd=tmp_path, env=env)
    assert proc.returncode == 0, output(proc)
    for game, (path, tuned) in json.loads(proc.stdout).items():
        shipped = purelib / "policies" / game / "tuned.json"
        assert Path(path) == shipped and shipped.is_file(), f"{shipped} is not installed"
        stored = json.loads((REPO / "policies" / game / "tuned.json").read_text())
        assert tuned == sorted(stored["characters"]) != [], game
