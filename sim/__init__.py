"""ascent: engines and shared machinery. See README.md."""
import atexit
import functools
import hashlib
import os
import shutil
import sys
import tempfile
import warnings
from pathlib import Path

# Policies are numba first-class functions, which numba flags as experimental on every use.
warnings.filterwarnings("ignore", message="First-class function type feature is experimental")


CACHE_KEY_PACKAGES = ("sim", "policies")


def numba_cache_key_files(root=None):
    """Every source file the numba cache key covers: each `.py` under `sim/` and `policies/`.

    numba invalidates a cached function only when its OWN file changes, not when a function it
    calls (in another file) changes: after an edit to the engine, a cached kernel or policy
    would silently run the old rules (and after a layout change, crash). Deciding which files
    "hold numba code" by how they import it missed the modules that import `njit_noalloc`, so
    every module of both packages takes part: editing a report costs a recompile, never a stale
    kernel.
    """
    root = Path(__file__).resolve().parent.parent if root is None else Path(root)
    return [path for package in CACHE_KEY_PACKAGES
            for path in sorted((root / package).rglob("*.py"))]


def plugin_key_files():
    """The sources of registered games outside this project (sim/core/game.py's entry points),
    found without importing them: their kernels call the core's compiled functions, and the
    core's call theirs."""
    try:
        from sim.core.game import plugin_source_folders
        return [path for folder in plugin_source_folders() for path in sorted(folder.rglob("*.py"))]
    except Exception:   # no metadata (not installed): no plug-ins to key on
        return []


def numba_cache_key(root=None):
    """A hash of the path and bytes of every file in `numba_cache_key_files`."""
    root = Path(__file__).resolve().parent.parent if root is None else Path(root)
    digest = hashlib.sha256()
    for path in numba_cache_key_files(root):
        digest.update(str(path.relative_to(root).as_posix()).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    for path in plugin_key_files():
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


@functools.cache
def code_key():
    """`numba_cache_key()` of this project, worked out once per process: it reads every source
    file (30 ms), and the numba cache folder and each run's identity both ask for it. Once is
    also the truer answer: the code a process runs is the code it imported."""
    return numba_cache_key()


def play_code_sources(game_name):
    """The sources whose edit can change a game's games, as (tag, folder, glob) triples: the
    shared core (`sim/core/`: the kernel driver, random streams, bot machinery), the package of
    the game's adapter (its engine) and of each policy module (its bots), and the bots shared by
    every game (`policies/*.py`, the search). Broad on purpose: `sim/core/` also holds tools
    (stats, output), and an edit there costs a replay, where a file left out would let two
    versions mix without a word. Reports and experiment tools (`sim/report/`,
    `sim/experiment/`) are left out: an experiment outlives edits to those. A tag names each
    folder (`sim/core`, a package's name), so the key does not depend on where it is installed.
    """
    import importlib.util
    from sim.core.game import get_game
    game = get_game(game_name)
    here = Path(__file__).resolve().parent
    sources = {("sim/core", here / "core", "**/*.py"),
               ("policies", here.parent / "policies", "*.py")}
    for module in (game.adapter, *game.policy_modules):
        found = importlib.util.find_spec(module)
        if found is None or not found.origin:
            raise ValueError(f"game {game_name!r}: module {module!r} has no source file to key")
        origin = Path(found.origin).resolve()
        if found.submodule_search_locations is None and "." not in module:
            sources.add((module, origin.parent, origin.name))   # a plug-in of one module
        else:
            package = module if found.submodule_search_locations else module.rpartition(".")[0]
            sources.add((package, origin.parent, "**/*.py"))
    return sorted(sources, key=lambda source: (source[0], str(source[1])))


def play_code_files(game_name):
    """Every file of play_code_sources, in the order the key reads them."""
    return [path for _, folder, pattern in play_code_sources(game_name)
            for path in sorted(folder.glob(pattern))]


def _sources_digest(sources):
    """A hash of each source folder's tag, and of each file's path within its folder and bytes."""
    digest = hashlib.sha256()
    for tag, folder, pattern in sources:
        for path in sorted(folder.glob(pattern), key=lambda p: p.relative_to(folder).as_posix()):
            digest.update(f"{tag}/{path.relative_to(folder).as_posix()}".encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def play_code_key(game_name):
    """A hash of `play_code_sources`: an experiment's folder keeps the key of the code that
    played its games, and a run that finds another refuses to add to them or to reuse them
    (sim/experiment/runner.py, Manifest)."""
    return _sources_digest(play_code_sources(game_name))


def played_with_key(game_name):
    """What a game's games were played with besides their settings: the code that plays them
    (play_code_key) and the game's data files (package_data_key), as fields of the keys a run
    folder, a ladder's parts and a tuning's parts keep."""
    return {"code": play_code_key(game_name), "data": package_data_key(game=game_name)}


def play_code_changed(game_name, stored, kept_in):
    """Why a folder or study whose games were played under play_code `stored` (kept in
    `kept_in`) may not take more, or be reused: the words for its refusal, or None where the
    key is the same, or where none was kept (written before the key was)."""
    if stored is None:
        return None
    now = play_code_key(game_name)
    if now == stored:
        return None
    return (f"the code that plays {game_name}'s games (sim/core, its engine, its bots) changed "
            f"since (play_code {stored} in {kept_in}, {now} now)")


def package_data_key(root=None, game=None):
    """A hash of the data files (.json) of the packages: bundled game data and tuned knobs.
    Not part of the numba key (data is read at run time, not compiled in), but part of what a
    run's games depend on. With `game` (a registered name), only that game's own files
    (sim/games/<game>/, policies/<game>/): re-tuning one game's bot must not lock the runs of
    another out of resuming."""
    root = Path(__file__).resolve().parent.parent if root is None else Path(root)
    digest = hashlib.sha256()
    own = None if game is None else game.replace("-", "_")
    folders = [root / package for package in CACHE_KEY_PACKAGES] if own is None else \
        [root / "sim" / "games" / own, root / "policies" / own]
    for folder in folders:
        for path in sorted(folder.rglob("*.json")):
            digest.update(str(path.relative_to(root).as_posix()).encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _numba_cache_dir():
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "ascent-numba"
    return str(base / code_key())


def keyed_cache_dir(folder):
    """`folder`/<numba_cache_key>: a cache folder the user names is keyed too, so that no
    NUMBA_CACHE_DIR, however long-lived, hands back a kernel compiled from other sources. A
    folder already keyed (a worker process inherits its parent's) is kept."""
    key = code_key()
    return str(folder) if Path(folder).name == key else str(Path(folder) / key)


# whether numba's cache is writable_cache_dir's temporary folder: a run then compiles every time,
# and its compile line must not promise otherwise
TEMPORARY_CACHE = False


def writable_cache_dir(folder):
    """`folder`, created if need be, where this process can write in it; else a new temporary
    folder (removed when this process ends), keyed the same way, with a warning. Given a
    folder it cannot write, numba caches into `__pycache__` folders next to the sources
    instead, which the key does not cover: an edit to one file then left the compiled code
    that calls it from another unchanged (a review found it). Checked as numba checks."""
    try:
        os.makedirs(folder, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
        return folder
    except OSError as exc:
        _remove_orphaned_caches()
        temporary = tempfile.mkdtemp(prefix=f"ascent-numba-{os.getpid()}-")
        atexit.register(shutil.rmtree, temporary, ignore_errors=True)
        global TEMPORARY_CACHE
        TEMPORARY_CACHE = True
        print(f"ascent: warning: numba's cache folder {folder} cannot be written "
              f"({exc.strerror or exc}); compiling into {temporary}, removed at exit, so "
              f"every run compiles again. Set NUMBA_CACHE_DIR to a folder you can write",
              file=sys.stderr)
        return str(Path(temporary) / code_key())


def _remove_orphaned_caches():
    """Remove the temporary cache folders (writable_cache_dir's) of processes that have ended
    without their exit handlers (SIGTERM, SIGKILL): several MB each."""
    for folder in Path(tempfile.gettempdir()).glob("ascent-numba-*-*"):
        try:
            os.kill(int(folder.name.split("-")[2]), 0)
        except ValueError:
            continue
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except OSError:         # alive, another user's
            continue


os.environ["NUMBA_CACHE_DIR"] = writable_cache_dir(
    keyed_cache_dir(os.environ["NUMBA_CACHE_DIR"]) if os.environ.get("NUMBA_CACHE_DIR")
    else _numba_cache_dir())
# numba may already be imported (it reads the variable at import): set its config too.
try:
    from numba.core import config as _numba_config
    _numba_config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
except ImportError:  # pragma: no cover
    pass
else:
    # several processes may compile into that folder at once (sim/core/numba_cache.py)
    from sim.core.numba_cache import lock_saves
    lock_saves()
