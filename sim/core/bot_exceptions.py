"""An exception inside compiled play (a bot's, or the engine's under it) stops the run.

The kernels call one game by address (sim/core/batch.by_address), and search bots hold the
bots they imagine as function values called by address too (sim/core/policies). An exception
cannot cross numba's C-callable wrapper of such a call: numba prints it as "Exception ignored
in: <numba.core.cpu.CPUContext>" and the call returns 0. So a game whose bot raised was cut
short where it raised and kept as it stood (not over, no winner), or, inside a search bot,
went on with a move no bot chose; the run finished as if nothing had happened, and its rates
counted those games.

numba hands such an exception to `sys.unraisablehook`, also from the kernel's worker threads
(the wrapper takes the GIL first). `raising_bot_exceptions` collects them while compiled play
runs and raises `BotError` when it ends, so none of the games of that call is returned,
written or counted. numba does not say which game or seat the exception came from, so the
error names the bots of the run and, where numba kept it, the line that raised.
"""
import _thread
import sys
import threading
import traceback
from contextlib import contextmanager

# numba's wrapper reports a dropped exception with this string as the unraisable "object"
NUMBA_WRAPPER = "<numba.core"


class BotError(RuntimeError):
    """Compiled play raised inside a call numba cannot pass exceptions out of; the games of
    that call are void."""


class _Block:
    """One open raising_bot_exceptions block: what numba dropped while it was open."""

    def __init__(self):
        self.first = None       # (exception, where it rose)
        self.count = 0


_lock = threading.Lock()
_open = []                  # the open blocks, in any thread
_hook_before = None         # sys.unraisablehook when the first open block installed _collect


def _collect(unraisable):
    try:
        exc = unraisable.exc_value
        dropped = isinstance(unraisable.object, str) and \
            unraisable.object.startswith(NUMBA_WRAPPER)
        with _lock:
            before = _hook_before or sys.__unraisablehook__
            ours = dropped and bool(_open)
            for block in _open if ours else ():
                block.count += 1
                if block.first is None:
                    block.first = (exc, _raised_at(unraisable.exc_traceback))
        # anything else (a Ctrl-C inside llvmlite's callback: sim/cli.py) goes on as before,
        # and so does a bot's SystemExit or KeyboardInterrupt, besides voiding the batch
        if not ours or not isinstance(exc, Exception):
            before(unraisable)
    except KeyboardInterrupt:
        # a Ctrl-C landing in this hook would be printed as ignored and lost: pass it on
        _thread.interrupt_main()


def _raised_at(tb):
    """'file:line, in function' of the compiled code that raised, where numba kept it (an
    explicit `raise`; not a runtime error such as integer division by zero), else ''."""
    live = set()
    frame = sys._getframe()
    while frame is not None:
        live.add(id(frame))
        frame = frame.f_back
    entries = []
    entry = tb
    while entry is not None:
        entries.append(entry)
        entry = entry.tb_next
    # numba's frames are made up for the traceback; the interpreter's own are not where it rose
    made_up = [line for line, entry in zip(traceback.extract_tb(tb), entries)
               if id(entry.tb_frame) not in live]
    if not made_up:
        return ""
    last = made_up[-1]
    return f"{last.filename}:{last.lineno}, in {last.name}"


@contextmanager
def raising_bot_exceptions(bots=()):
    """Raise BotError at the end of the block if compiled code called by address raised during
    it; `bots`, the names of the bots playing, go into the message. Blocks may nest and may be
    open in several threads at once: an exception is then charged to every open block, as numba
    does not say which call it came from. If the block's body raises too (a kernel that let
    the exception through as a SystemError), BotError is raised from the first exception."""
    global _hook_before
    block = _Block()
    with _lock:
        if not _open:
            _hook_before = sys.unraisablehook
            sys.unraisablehook = _collect
        _open.append(block)
    try:
        yield
    except Exception:
        if block.count:
            raise BotError(_message(block, bots)) from block.first[0]
        raise
    finally:
        with _lock:
            _open[:] = [b for b in _open if b is not block]
            if not _open:
                if sys.unraisablehook is _collect:      # else another hook came since: its
                    sys.unraisablehook = _hook_before   # owner puts back what it replaced
                _hook_before = None
    if block.count:
        raise BotError(_message(block, bots)) from block.first[0]


def _message(block, bots):
    first, where = block.first
    which = f" ({', '.join(repr(b) for b in bots)})" if bots else ""
    at = f" at {where}" if where else ""
    more = "" if block.count == 1 else f"; {block.count:,} such exceptions in all"
    return (f"compiled play with the bots{which} raised {type(first).__name__}: {first}{at}"
            f"{more}. numba cannot pass an exception out of a game or bot it calls by "
            "address: the game was cut short there (or, inside a search bot, went on with a "
            "move no bot chose), so the games of this batch are void and not kept; batches "
            "finished before are. Fix the bot (or the engine, if the line is there) and run "
            "again.")
