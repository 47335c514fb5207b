"""ascent: engines and shared machinery. See README.md."""
import hashlib
import os
import warnings
from pathlib import Path

# Policies are numba first-class functions, which numba flags as experimental on every use.
warnings.filterwarnings("ignore", message="First-class function type feature is experimental")


def _numba_cache_dir():
    """A numba cache directory keyed by a hash of every source file that holds numba code.

    numba invalidates a cached function only when its OWN file changes, not when a function it
    calls (in another file) changes: after an edit to the engine, a cached kernel or policy
    would silently run the old rules. Keying the whole cache on all numba sources rules that
    out; files without numba (CLI, experiments, reports) do not take part, so editing them costs
    no recompile.
    """
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for package in ("sim", "policies"):
        for path in sorted((root / package).rglob("*.py")):
            text = path.read_bytes()
            if b"from numba import" not in text:
                continue
            digest.update(str(path.relative_to(root)).encode())
            digest.update(text)
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "ascent-numba"
    return str(base / digest.hexdigest()[:16])


if "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = _numba_cache_dir()
    # numba may already be imported (it reads the variable at import): set its config too.
    try:
        from numba.core import config as _numba_config
        _numba_config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
    except ImportError:  # pragma: no cover
        pass
