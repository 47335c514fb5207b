"""A bot that raises inside compiled play stops the run with a clear error.

The kernels and the single-game APIs call bots by address (sim/core/policies.compiled_value),
through the C-callable wrapper numba compiles for a first-class function. An exception
cannot cross that wrapper: numba prints it as "Exception ignored in: <numba.core.cpu.
CPUContext>" and the call answers 0, which in All-In Ascent is END_TURN, nearly always
legal. The game then went on with a move no bot chose, and the run finished as if nothing
had happened: a user's bot that divides by zero would have been played as a bot that ends
its turn, and its win rate reported.

numba hands such an exception to `sys.unraisablehook`, also from the kernel's worker threads
(the wrapper takes the GIL first). `raising_bot_exceptions` collects them while compiled play
runs and raises `BotError` when it ends, so none of the games played meanwhile is returned,
written or counted. The exception cannot be tied to a game or seat (the hook runs on whatever
thread the game ran on), so the error names the bots of the run and, where numba kept it,
the line that raised.
"""
import sys
import threading
import traceback
from contextlib import contextmanager

# numba's wrapper reports a dropped exception with this string as the unraisable "object"
NUMBA_WRAPPER = "<numba.core"


class BotError(RuntimeError):
    """A bot raised an exception inside compiled play; the games played meanwhile are void."""


_lock = threading.Lock()
_open = []                  # one list per raising_bot_exceptions block now open
_hook_before = None         # sys.unraisablehook before the first open block installed ours


def _collect(unraisable):
    exc = unraisable.exc_value
    if not (isinstance(unraisable.object, str) and unraisable.object.startswith(NUMBA_WRAPPER)
            and isinstance(exc, Exception)):
        # anything else (a Ctrl-C inside llvmlite's callback: sim/cli.py) is not ours
        (_hook_before or sys.__unraisablehook__)(unraisable)
        return
    where = _raised_at(unraisable.exc_traceback)
    with _lock:
        for sink in _open:
            sink.append((exc, where))


def _raised_at(tb):
    """'file:line, in function' of the compiled code that raised, where numba kept it (an
    explicit `raise`; not a runtime error such as integer division by zero), else ''."""
    live = set()
    frame = sys._getframe()
    while frame is not None:
        live.add(id(frame))
        frame = frame.f_back
    # numba's frames are made up for the traceback; the interpreter's own are not where it rose
    made_up = [entry for entry, tb_entry in zip(traceback.extract_tb(tb), _tb_entries(tb))
               if id(tb_entry.tb_frame) not in live]
    if not made_up:
        return ""
    last = made_up[-1]
    return f"{last.filename}:{last.lineno}, in {last.name}"


def _tb_entries(tb):
    while tb is not None:
        yield tb
        tb = tb.tb_next


@contextmanager
def raising_bot_exceptions(bots=()):
    """Raise BotError at the end of the block if a bot (one of `bots`, the names of the bots
    playing) raised inside compiled code during it. Blocks may nest and may be open in several
    threads at once: an exception is then charged to every open block, as numba does not say
    which call it came from."""
    global _hook_before
    sink = []
    with _lock:
        if not _open:
            _hook_before = sys.unraisablehook
            sys.unraisablehook = _collect
        _open.append(sink)
    try:
        yield
    finally:
        with _lock:
            _open.remove(sink)
            if not _open:
                sys.unraisablehook = _hook_before
                _hook_before = None
    if sink:
        raise BotError(_message(sink, bots)) from sink[0][0]


def _message(raised, bots):
    first, where = raised[0]
    which = f" ({', '.join(repr(b) for b in bots)})" if bots else ""
    at = f" at {where}" if where else ""
    more = "" if len(raised) == 1 else f" ({len(raised):,} exceptions in all, this the first)"
    return (f"a bot of this run{which} raised {type(first).__name__}: {first}{at} inside "
            f"compiled play{more}. numba cannot pass an exception out of a bot it calls by "
            "address: the call answered 0 and the game went on with a move no bot chose, so "
            "the games played in this call are discarded. Fix the bot and run again.")
