"""numba's on-disk cache, made safe for several processes saving into one folder at once.

numba saves a compiled function in two steps: it reads the function's index (which signature
is in which data file), picks the first data-file name the index does not use, and writes the
index back, then the data. Two processes that save different signatures of one function at the
same time both read the same index, both pick the same name, and the last index written names
only one of them, while the data file may hold the other's code: a later run can then load
machine code compiled for other argument types (numba issue #4807, "Cache causes Segmentation
Faults when generated in parallel", open; its maintainers suggest a file lock, #10128).

That happens whenever processes compile from an empty cache together: Dask or joblib workers
starting a run, the test suite's two workers, and a first run that compiles its bots in a
second process while it compiles the kernel (sim/core/compiling.py). So every save here holds
an exclusive lock (flock) on a file in the function's cache folder, from reading the index to
writing the data, and every load a shared one: numba replaces each file whole (os.replace),
but writes the index before the data, so a load between the two could read a new index entry
and an old data file of that name (after a source file's time stamp changed, numba starts
its index afresh and reuses the names). Where the lock cannot be had (no fcntl, as on
Windows, a numba without this save, or a file system without locks, as some NFS), numba saves
and loads as it did, `saves_are_locked()` says so, and a folder that refuses a lock says so
once in a warning.
"""
import functools
import os
import threading
import warnings

LOCK_FILE = "ascent-save.lock"
# held while this process reads or writes a cache file: a process that must stop early takes
# it before it exits, so that it never leaves an index naming a data file it had not written
IN_CACHE_FILE = threading.Lock()

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None


def lock_saves():
    """Make numba's cache saves (and loads) in this process hold the folder's lock
    (idempotent)."""
    if fcntl is None:  # pragma: no cover
        return
    try:
        from numba.core.caching import IndexDataCacheFile
    except ImportError:  # pragma: no cover - a numba that saves otherwise
        return
    save = getattr(IndexDataCacheFile, "save", None)
    load = getattr(IndexDataCacheFile, "load", None)
    if save is None or load is None or getattr(save, "locked", False):
        return
    IndexDataCacheFile.save = _holding(save, fcntl.LOCK_EX)
    IndexDataCacheFile.load = _holding(load, fcntl.LOCK_SH)


def _open_lock_file(folder):
    """The folder's lock file, open for writing where it may be (flock's exclusive lock on NFS
    needs that), else for reading (a lock file another user created)."""
    path = os.path.join(folder, LOCK_FILE)
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except PermissionError:
        return os.open(path, os.O_RDONLY)


_UNLOCKABLE = set()     # folders where flock failed: their saves and loads go on unlocked


def _holding(method, mode):
    """`method` of numba's IndexDataCacheFile, run holding the folder's lock in `mode`."""
    @functools.wraps(method)
    def locked(self, *args):
        with IN_CACHE_FILE:
            try:
                fd = _open_lock_file(self._cache_path)
            except OSError:
                return method(self, *args)      # no folder yet (a load), or an unwritable one
            try:
                try:
                    fcntl.flock(fd, mode)
                except OSError as exc:          # a file system without locks (some NFS)
                    _unlockable(self._cache_path, exc)
                return method(self, *args)
            finally:
                os.close(fd)                    # closing the file lets the lock go

    locked.locked = True
    return locked


def _unlockable(folder, exc):
    """Say once per folder that its saves go unlocked (as numba's own do), and remember it:
    saves_are_locked() then says no, so no second compile process saves beside this one."""
    if folder not in _UNLOCKABLE:
        _UNLOCKABLE.add(folder)
        warnings.warn(f"{folder}: numba's cache cannot be locked here ({exc.strerror or exc});"
                      f" two processes compiling into it at once may spoil it", stacklevel=3)


def saves_are_locked(folder=None):
    """True where this process's numba cache saves hold the lock, and the cache folder
    (`folder`, by default NUMBA_CACHE_DIR) takes one: tried with a lock that does not wait."""
    try:
        from numba.core.caching import IndexDataCacheFile
    except ImportError:  # pragma: no cover
        return False
    if not getattr(IndexDataCacheFile.save, "locked", False):
        return False
    folder = folder or os.environ.get("NUMBA_CACHE_DIR")
    if not folder or _UNLOCKABLE:
        return False
    try:
        os.makedirs(folder, exist_ok=True)
        fd = _open_lock_file(folder)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True                             # another process holds it: locks work
    except OSError as exc:
        _unlockable(folder, exc)
        return False
    finally:
        os.close(fd)
    return True
