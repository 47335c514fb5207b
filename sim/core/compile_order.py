"""The order in which a cold start compiles a game's kernel, kept so that a second process can
compile it from the other end.

numba compiles a kernel on one core: typing a function compiles each function it calls, in
the order the calls appear, depth first. A first run on two cores therefore left one core
idle while First Ascent's kernel compiled (26 s). The kernel's callees and their argument
types do not depend on the run, so they are recorded once per version of the engine
(`python -m benchmarks.compile_order`, into the file a game.toml names as `compile_order`),
in the order a cold compile starts them. From an empty cache, the second process of
sim/core/compiling.py compiles that list backwards, each function into the shared cache
folder, while the run compiles forwards; each finds what the other has saved and loads it
instead. Walking backwards, the second process compiles a function's callees before the
function itself (they start after it), so the two meet in the middle of the kernel.

The kernel's entry points are kept too: the parallel one is compiled last by the run, after
the game function it takes by address, but needs nothing else compiled, so the second process
compiles it first. Left out: a function numba inlines (`inline="always"`: nothing of its own
to compile) and one that is not reachable by its module and name (a closure, numba's own
helpers). A list from older sources costs only the second core's time:
a function no longer there is passed over, and a signature the kernel no longer uses is
compiled for nothing. So the list keeps a hash of the sources of every module whose functions
the compile went through, and tests/test_compile_order.py fails while one of those modules
differs from the one checked out (a module with no compiled function, such as a table of
constants, is not covered: a change there can only make the list compile for nothing).
"""
import base64
import hashlib
import importlib
import importlib.util
import json
import os
import pickle
from contextlib import contextmanager
from pathlib import Path

import numba
from numba.core import event
from numba.core.registry import CPUDispatcher


class _Recorder(event.Listener):
    """Every specialization compiled while it listens, (dispatcher, argument types, return
    type or None), in the order they start."""

    def __init__(self):
        self.started = []

    def on_start(self, ev):
        self.started.append((ev.data["dispatcher"], tuple(ev.data["args"]),
                             ev.data["return_type"]))

    def on_end(self, ev):
        pass


def address_of(dispatcher):
    """"module:qualname" of a dispatcher's function."""
    return f"{dispatcher.py_func.__module__}:{dispatcher.py_func.__qualname__}"


def _address(dispatcher):
    """address_of(dispatcher) if that finds this very dispatcher, else None."""
    try:
        found = _resolve(address_of(dispatcher))
    except (ImportError, AttributeError):
        return None
    return address_of(dispatcher) if found is dispatcher else None


class _Namer(event.Listener):
    """Writes the address of each function numba starts compiling, a line each, straight to
    a file descriptor that does not block: numba holds its compile lock meanwhile, so a
    reader that has stopped reading must not stop this process. A name that does not fit in
    the pipe is dropped (the other process then walks further than it needs to), and once
    the reader is gone (EPIPE) nothing more is written."""

    def __init__(self, fd):
        self.fd = fd
        self.open = True

    def on_start(self, ev):
        if not self.open:
            return
        try:
            os.write(self.fd, address_of(ev.data["dispatcher"]).encode() + b"\n")
        except BlockingIOError:
            pass
        except OSError:             # the other process has ended: nobody to tell
            self.open = False

    def on_end(self, ev):
        pass


@contextmanager
def naming_what_compiles(fd):
    """A context in which each function this process starts compiling is named on the file
    descriptor `fd` (a pipe to the second process: compile_backwards' `started_elsewhere`),
    which it makes non-blocking."""
    os.set_blocking(fd, False)
    with event.install_listener("numba:compile", _Namer(fd)):
        yield


def _resolve(address):
    module, _, qualname = address.partition(":")
    found = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def record(play):
    """Run `play()` (which must compile a kernel from an empty cache) and return the order
    its functions started compiling in: {"functions": [[address, [argument type name, ...],
    return type name or None], ...], "types": {type name: pickled type, base64}}. The return
    type is kept where the compile was given one (a bot's signature): numba's cache files a
    function under the signature it was asked for, so without it the run would not find the
    second process's copy."""
    recorder = _Recorder()
    with event.install_listener("numba:compile", recorder):
        play()
    functions, types = [], {}

    def name(t):
        pickled = base64.b64encode(pickle.dumps(t)).decode()
        if types.setdefault(str(t), pickled) != pickled:
            raise ValueError(f"two types print as {str(t)!r}: the compile order cannot name "
                             f"them apart")
        return str(t)

    modules = sorted({d.py_func.__module__ for d, _, _ in recorder.started
                      if _source_file(d.py_func.__module__) is not None})
    for dispatcher, args, returns in recorder.started:
        if dispatcher.targetoptions.get("inline", "never") != "never":
            continue
        address = _address(dispatcher)
        if address is not None:
            functions.append([address, [name(t) for t in args],
                              None if returns is None else name(returns)])
    return {"numba": numba.__version__, "functions": functions, "types": types,
            "modules": modules, "sources": sources_hash(modules)}


def _source_file(module):
    """The .py file of a module of this project or a plug-in (not numba's, numpy's or the
    standard library's), or None."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py") or \
            module.partition(".")[0] in ("numba", "numpy", "llvmlite"):
        return None
    return Path(spec.origin)


def sources_hash(modules):
    """A hash of the source files of `modules` (a missing one counts as empty)."""
    digest = hashlib.sha256()
    for module in modules:
        path = _source_file(module)
        digest.update(module.encode() + b"\0")
        digest.update((path.read_bytes() if path is not None else b"") + b"\0")
    return digest.hexdigest()[:16]


def save(path, game_name, order):
    """Write a game's order (record's answer) into the file `path`, keeping other games'."""
    path = Path(path)
    table = json.loads(path.read_text()) if path.exists() else {}
    table.setdefault("games", {})[game_name] = order
    path.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")


def read(path, game_name):
    """[(dispatcher, signature)] in the recorded order, from the file `path` (a game's
    `compile_order`), for the game; [] where the file holds none for this version of numba.
    A function that no longer resolves, or whose types no longer unpickle, is left out."""
    try:
        order = json.loads(path.read_text())["games"][game_name]
        if order.get("numba") != numba.__version__:
            return []
        entries = list(order["functions"])
    except Exception:       # noqa: BLE001 - an unreadable file costs time, never the run
        return []
    types, found = {}, []

    def typed(n):
        if n not in types:
            types[n] = pickle.loads(base64.b64decode(order["types"][n]))
        return types[n]

    for entry in entries:
        try:
            address, names, returns = entry
            dispatcher = _resolve(address)
            args = tuple(typed(n) for n in names)
            signature = args if returns is None else typed(returns)(*args)
        except Exception:       # noqa: BLE001 - a stale entry costs time, never the run
            continue
        if isinstance(dispatcher, CPUDispatcher):
            found.append((dispatcher, signature))
    return found


def compile_backwards(order, run_started=frozenset()):
    """Compile `order` (read's answer) last function first, until the next is one the run has
    started compiling (its address in `run_started`, a set another thread may fill): the run
    compiles forwards, so the two have met, and the rest is the run's. A signature the
    sources no longer accept is passed over: the run compiles what it needs."""
    for dispatcher, signature in reversed(order):
        if address_of(dispatcher) in run_started:
            return
        try:
            dispatcher.compile(signature)
        except Exception:       # noqa: BLE001 - a numba typing error, from a stale entry
            continue
