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

Blocks open and close as markers in that same queue, so that the reader charges each
exception to the blocks open when it was reported and hands it on to the hook in place then,
however late it reads it. A Ctrl-C or SIGTERM pending during compiled play lands in numba's
own Python helper that raises a compiled exception (it unpickles the exception there), and is
dropped in its place: the block then raises that interrupt itself when it ends, so that the
command stops as interrupted (or terminated) and keeps none of the batch's games.
"""
import atexit
import os
import queue
import sys
import threading
from contextlib import suppress
from dataclasses import dataclass

# numba's wrapper reports a dropped exception with this string as the unraisable "object"
NUMBA_WRAPPER = "<numba.core"
READER_CHECK_SECONDS = 1.0      # how often a closing block looks whether the reader still runs


class BotError(RuntimeError):
    """Compiled play raised inside a call numba cannot pass exceptions out of; the games of
    that call are void."""


class _Block:
    """One open raising_bot_exceptions block: what numba dropped while it was open. Written
    by the reader thread only, read once the block's close marker is through."""

    def __init__(self):
        self.first = None       # (exception, where it rose)
        self.count = 0
        self.interrupt = None   # a KeyboardInterrupt (or cli.Terminated) numba dropped
        self.reader = None      # the reader thread that saw it open
        self.pid = os.getpid()


@dataclass
class _Marker:
    kind: str                   # "open", "close", "before" (the hook _HOOK replaced) or
    #                             "handed" (the event of id `ident` handed on is through)
    block: object = None
    hook: object = None
    ident: int = 0
    done: threading.Event = None  # a close marker's: set once the reader is through it


_lock = threading.Lock()        # the installing side: _depth, _hook_before, the hook itself
_depth = 0                      # blocks open, in any thread
_hook_before = None
_events = queue.SimpleQueue()
_HOOK = _events.put             # one bound method, so that `sys.unraisablehook is _HOOK` holds
_reader = None                  # the thread reading _events in this process


def _read_events(before):
    open_blocks, handed = [], {}
    while True:
        event = _events.get()
        try:
            if isinstance(event, _Marker):
                if event.kind == "before":
                    before = event.hook
                elif event.kind == "open":
                    open_blocks.append(event.block)
                elif event.kind == "handed":
                    handed.pop(event.ident, None)
                else:
                    open_blocks = [b for b in open_blocks if b is not event.block]
                    event.done.set()
            else:
                _take(event, open_blocks, before, handed)
        except BaseException as exc:        # the reader must outlive whatever a hook does
            with suppress(BaseException):
                print(f"ascent: an unraisable exception could not be handled: {exc!r}",
                      file=sys.stderr)
        event = None


def _take(unraisable, open_blocks, before, handed):
    if id(unraisable) in handed:
        # handed on, it came back: a hook installed over _HOOK hands on to _HOOK
        sys.__unraisablehook__(unraisable)
        return
    exc = unraisable.exc_value
    if open_blocks and isinstance(unraisable.object, str) and \
            unraisable.object.startswith(NUMBA_WRAPPER):
        where = None
        for block in open_blocks:
            if isinstance(exc, KeyboardInterrupt):
                block.interrupt = block.interrupt or exc
                continue
            if block.first is None:
                where = _raised_at(unraisable.exc_traceback) if where is None else where
                block.first = (exc, where)
            block.count += 1
        if isinstance(exc, (Exception, KeyboardInterrupt)):
            return
    # anything else (a Ctrl-C inside llvmlite's callback: sim/cli.py) goes on to the hook in
    # place when it was reported; so does a bot's SystemExit, besides voiding the batch
    handed[id(unraisable)] = unraisable
    try:
        before(unraisable)
    finally:
        # a re-report from inside `before` is queued ahead of this: it is seen as come back
        _events.put(_Marker("handed", ident=id(unraisable)))


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


def _open():
    global _depth, _hook_before, _reader
    block = _Block()
    with _lock:
        if _reader is None or not _reader.is_alive():
            # told the hook in place: a restarted reader may find events of the dead one's
            _reader = threading.Thread(target=_read_events, name="ascent-unraisable",
                                       args=(_hook_before or sys.__unraisablehook__,),
                                       daemon=True)
            _reader.start()
        block.reader = _reader
        install = _depth == 0 and sys.unraisablehook is not _HOOK
        if install:
            _hook_before = sys.unraisablehook
            _events.put(_Marker("before", hook=_hook_before))
        # the marker before the hook: what is reported through _HOOK comes after it; and the
        # hook before the count, so that a Ctrl-C between the two cannot leave a count of open
        # blocks with no hook, which no later block would install
        _events.put(_Marker("open", block))
        if install:
            sys.unraisablehook = _HOOK
        _depth += 1
    return block


def _close(block, wait=True):
    """Put back the hook once no block is open, and wait until the reader has taken every
    exception reported before now."""
    global _depth
    if block.pid != os.getpid():
        return                  # opened before a fork: the parent closes it, not this child
    marker = _Marker("close", block, done=threading.Event())
    with _lock:
        _events.put(marker)
        _depth -= 1
        # a hook installed over _HOOK since puts back _HOOK when it goes: _HOOK then stays
        # until a block closes after that, and its reader hands on as before
        if _depth == 0:
            _put_back()
    if not wait:
        return
    while not marker.done.wait(READER_CHECK_SECONDS):
        if sys.is_finalizing():
            return
        if not block.reader.is_alive():
            break
    if block.reader is not _reader or not block.reader.is_alive():
        raise RuntimeError("the thread that reads numba's dropped exceptions stopped while "
                           "this batch played: whether a bot raised during it is unknown")


def _raise_charged(block, bots):
    if block.interrupt is not None:
        raise block.interrupt
    if block.first is not None:
        raise BotError(_message(block, bots)) from block.first[0]


def raising_bot_exceptions(bots=()):
    """A context manager: raise BotError at its end if compiled code called by address raised
    during it; `bots`, the names of the bots playing, go into the message. Blocks may nest and
    may be open in several threads at once: an exception is then charged to every block open
    when it was reported, as numba does not say which call it came from. If the block's body
    raises too (a kernel that let the exception through as a SystemError), BotError is raised
    from the first exception."""
    return _Guard(bots)


class _Guard:
    def __init__(self, bots):
        self.bots = bots

    def __enter__(self):
        self.block = _open()
        return self

    def __exit__(self, kind, exc, tb):
        # an interrupt from the body goes on as it is: what the block was charged is void
        # anyway, and nothing must replace the interrupt
        charged = kind is None or issubclass(kind, Exception)
        _close(self.block, wait=charged)
        if charged:
            _raise_charged(self.block, self.bots)
        return False


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


def _after_fork_in_child():
    """A forked child has no reader, and its copy of the lock and the queue may be mid-use."""
    global _lock, _depth, _events, _HOOK, _reader
    _put_back()
    _lock, _depth, _reader = threading.Lock(), 0, None
    _events = queue.SimpleQueue()
    _HOOK = _events.put


def _put_back():
    """The hook _HOOK replaced, if _HOOK is in place."""
    if sys.unraisablehook is _HOOK:
        sys.unraisablehook = _hook_before or sys.__unraisablehook__


os.register_at_fork(after_in_child=_after_fork_in_child)
# at shutdown the daemon reader can no longer run: what is reported then goes straight on
atexit.register(_put_back)
