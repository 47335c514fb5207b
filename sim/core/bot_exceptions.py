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

The hook itself is a queue's `put`, which runs no Python code: a Python function as the hook
would, on the main thread, be where a pending Ctrl-C is raised (compiled play does not look
for one), and there Python prints it as ignored and drops it, with the bot's exception. One
thread per process reads the queue, charges numba's exceptions to the open blocks and hands
everything else on to the hook that was in place (pytest's; the command line's, which
redelivers a Ctrl-C that llvmlite's callback dropped), as it comes.
"""
import _thread
import os
import queue
import sys
import threading
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
_hook_before = None         # sys.unraisablehook when _HOOK was installed over it
_events = queue.SimpleQueue()
_HOOK = _events.put         # one bound method, so that `sys.unraisablehook is _HOOK` holds
_reader = None              # (process id, the thread reading _events)


def _read_events():
    while True:
        event = _events.get()
        if isinstance(event, threading.Event):      # a closing block waits for this
            event.set()
            continue
        try:
            _take(event)
        except Exception as exc:        # the reader must outlive a hook that fails
            print(f"ascent: an unraisable exception could not be handled: {exc!r}",
                  file=sys.stderr)
        del event


def _take(unraisable):
    exc = unraisable.exc_value
    dropped = isinstance(unraisable.object, str) and unraisable.object.startswith(NUMBA_WRAPPER)
    if dropped and isinstance(exc, KeyboardInterrupt):
        # numba raises a compiled exception through a Python helper of its own (it unpickles
        # the exception there), where a Ctrl-C pending during compiled play lands and is
        # dropped in the exception's place: the interrupt is delivered again, not blamed
        _thread.interrupt_main()
        return
    with _lock:
        ours = dropped and bool(_open)
        for block in _open if ours else ():
            if block.first is None:
                block.first = (exc, _raised_at(unraisable.exc_traceback))
            block.count += 1
    # anything else (a Ctrl-C inside llvmlite's callback: sim/cli.py) goes on as it came, and
    # so does a bot's SystemExit, besides voiding the batch
    if not ours or not isinstance(exc, Exception):
        hook = _hook_before or sys.__unraisablehook__
        (sys.__unraisablehook__ if hook is _HOOK else hook)(unraisable)


def _raised_at(tb):
    """'file:line, in function' of the compiled code that raised, where numba kept it (an
    explicit `raise`), else ''. numba makes that traceback's frames up, with empty globals;
    for a runtime error such as integer division by zero it keeps none, and Python puts in
    the frame of whoever called the kernel, which is not where it rose."""
    made_up = []
    while tb is not None:
        if not tb.tb_frame.f_globals:
            code = tb.tb_frame.f_code
            made_up.append(f"{code.co_filename}:{tb.tb_lineno}, in {code.co_name}")
        tb = tb.tb_next
    return made_up[-1] if made_up else ""


def _start_reader():
    global _reader
    if _reader is None or _reader[0] != os.getpid():    # a forked process has no reader
        thread = threading.Thread(target=_read_events, name="ascent-unraisable", daemon=True)
        thread.start()
        _reader = (os.getpid(), thread)


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
        _start_reader()
        if not _open and sys.unraisablehook is not _HOOK:
            _hook_before = sys.unraisablehook
            sys.unraisablehook = _HOOK
        _open.append(block)
    try:
        try:
            yield
        finally:
            _read_so_far()
    except Exception:
        if block.first is not None:
            raise BotError(_message(block, bots)) from block.first[0]
        raise
    finally:
        with _lock:
            _open[:] = [b for b in _open if b is not block]
            # a hook installed since puts back what it replaced, _HOOK, whose reader then
            # still hands on to the hook it replaced itself
            if not _open and sys.unraisablehook is _HOOK:
                sys.unraisablehook = _hook_before or sys.__unraisablehook__
                _hook_before = None
    if block.first is not None:
        raise BotError(_message(block, bots)) from block.first[0]


def _read_so_far():
    """Wait until the reader has taken every exception reported before now."""
    done = threading.Event()
    _events.put(done)
    done.wait()


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
