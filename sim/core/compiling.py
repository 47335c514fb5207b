"""Say so while a run waits for numba to compile, and say how long it took.

A new user's first `ascent simulate` used to print nothing for a minute or more. numba compiles
a game's kernel and its bots on their first call and caches them on disk, in a folder keyed by
the sources (sim/__init__.py), so the wait comes once per version of the code and per set of
bots. A small marker file per (game, bots) in that folder says the wait is over; without it, the
run plays one game first (which compiles everything it needs; `ascent simulate` and `ascent
replay` keep it as their first game, the other commands throw it away), with a line that
counts the seconds against the last figure measured here, or before any, against the figures
measured for the game and its bots on a 2-core machine (its game.toml's `compile_estimates`,
written by benchmarks/compile_estimates.py). The figures are compile time only: the line
names the game's own play after the compile apart.

From an empty cache the kernel and the bots take about as long each (All-In Ascent: 15 s for
the kernel with `random`, 20 s more for `tuned`), and numba compiles on one core. So a run
given a way to compile the kernel alone (`play_kernel`: a throw-away game with `random` in every
seat) compiles its other bots meanwhile in a second process (`python -m sim.core.compiling`),
into the same cache folder, whose saves hold a lock (sim/core/numba_cache.py); the run's own
throw-away game then loads them. If that process fails, the run compiles them itself. Where
the game has recorded the order its kernel compiles in (sim/core/compile_order.py), that
process also compiles the kernel from its other end, after the bots or, where they are the
smaller part, before them, until it meets the run (First Ascent's first game from an empty
cache: 28-29 s, then 18-19.5 s). A search bot's search, the run's share of it, comes after
the kernel, or before it where a large rollout bot keeps the second process busy
(compiles_search_first).
"""
import gc
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from collections import namedtuple
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

from numba.core import event

import sim
from sim.core.numba_cache import saves_are_locked
from sim.core.policies import (
    BUDGET_MARK, compile_parts, policy_name_problem, policy_names, policy_parts,
    registered_policy)


def _markers(cache_dir=None):
    return Path(cache_dir or os.environ["NUMBA_CACHE_DIR"]) / "ascent-compiled"


def _bot_names(seat_policies):
    """The compiled bots of these seats: a budget (BOT@N) is a parameter of the same code."""
    return sorted({_base_name(policy) for policy in seat_policies})


def _marker_name(game_name, seat_policies):
    return f"{game_name}--{'+'.join(_bot_names(seat_policies))}.json"


def _entry_key(game_name, entry):
    """The name an entry other than the kernel keeps its markers under: not matched by the
    kernel's `{game}--*` (a game name has no '@', which marks a budget in a bot's name)."""
    return game_name if entry is None else f"{game_name}@{entry.replace(' ', '-')}"


def _cold(game_name, cache_dir=None):
    """Whether this cache folder has compiled nothing of the game yet, through any entry (the
    kernel or another: they share most of the engine's code)."""
    folder = _markers(cache_dir)
    return not any(folder.glob(f"{game_name}--*.json")) and \
        not any(folder.glob(f"{game_name}@*--*.json"))


def marker_path(game_name, seat_policies, cache_dir=None):
    """The file that says these bots of this game are compiled in this cache folder."""
    return _markers(cache_dir) / _marker_name(game_name, seat_policies)


def is_compiled(game_name, seat_policies, cache_dir=None):
    return marker_path(game_name, seat_policies, cache_dir).exists()


def last_compile_seconds(game_name, seat_policies, cache_dir=None, cold=None):
    """The newest figure measured for these bots, under any version of the code (the sibling
    cache folders), or None. With `cold` (True or False), only a figure measured in a folder
    that had not (True) or had (False) compiled any of the game's code before (_cold): a warm
    folder's figure leaves most of the engine out. A marker written before markers said so
    counts as either."""
    name = _marker_name(game_name, seat_policies)
    folders = _markers(cache_dir).parent.parent.glob(f"*/ascent-compiled/{name}")
    found = []
    for path in folders:
        try:
            marker = json.loads(path.read_text())
            if cold is not None and marker.get("cold", cold) != cold:
                continue
            found.append((path.stat().st_mtime, _finite(marker["seconds"])))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
    return round(max(found)[1]) if found else None


def _finite(value):
    """A figure read from a file as a float; ValueError unless finite and not negative."""
    seconds = float(value)
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"not a number of seconds: {value!r}")
    return seconds


def compiled_here(game_name, cache_dir=None):
    """The bots this cache folder has compiled for the game (with its kernel), from its
    markers; None if it has not compiled the game's kernel yet."""
    bots = None
    for path in _markers(cache_dir).glob(f"{game_name}--*.json"):
        try:
            policies = json.loads(path.read_text())["policies"]
        except (OSError, ValueError, KeyError):
            continue
        bots = (bots or set()) | set(policies)
    return bots


def _base_name(policy):
    return policy.partition(BUDGET_MARK)[0]      # BOT@N: a parameter of the same compiled bot


def shipped_estimate(game, seat_policies, compiled=None, alongside=False):
    """Seconds measured for the game's kernel with `random` plus each other bot's own, a
    family's bots counted once at the dearest's figure (results/compile_seconds.json, named
    by the game.toml), leaving out what `compiled` (a compiled_here answer) says is done;
    None where the game has no figures or one of the bots has none. With `alongside` (the
    bots compiled in a second process while the kernel compiles), the longer of the two, the
    bots' figure plus a tenth: alone, they also compile the engine code they call, which
    their figures, measured with the kernel cached, leave out. A bot in parts (a search bot)
    has its own figure for such a cold start, alone in its seats (`first_run`): the run
    compiles the search after its kernel, and First Ascent's kernel is compiled from both
    ends, which neither formula sees (First Ascent `mcts-tuned`: quoted 15 s, compiled in
    16-20)."""
    if not game.compile_estimates:
        return None
    done = {"random"} | {_base_name(name) for name in compiled or ()}
    try:
        path = game.project_file(game.compile_estimates)
        figures = json.loads(path.read_text())["games"][game.name]
        alone = {_base_name(name) for name in seat_policies} - {"random"}
        first_run = figures.get("first_run", {}).get(min(alone)) if len(alone) == 1 else None
        if alongside and compiled is None and first_run is not None:
            return round(_finite(first_run))
        kernel = _finite(figures["kernel_and_random"]) if compiled is None else 0.0
        # bots of one family share most of their code (the planner, the staircase search):
        # each family counts as its dearest bot. Summed, Ascension's four stair builders at
        # one table were quoted 41 s and compiled in 14
        families = {}
        for name in sorted({_base_name(name) for name in seat_policies} - done):
            family = registered_policy(game.name, name).family_name
            families[family] = max(families.get(family, 0.0), _finite(figures["bots"][name]))
        bots = sum(families.values())
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return round(max(kernel, 1.1 * bots) if alongside else kernel + bots)


def record(game_name, seat_policies, seconds, cache_dir=None, cold=True):
    """Mark these bots compiled in this cache folder, with the seconds it took and whether
    the folder had compiled nothing of the game before (`cold`)."""
    folder = _markers(cache_dir)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / _marker_name(game_name, seat_policies)).write_text(
        json.dumps({"game": game_name,
                    "policies": _bot_names(seat_policies),
                    "seconds": round(seconds, 1), "cold": bool(cold)}) + "\n")


def bots_to_compile_alongside(game, seat_policies, compiled, threads=None):
    """The bots a cold start compiles in a second process while it compiles the kernel: every
    bot but `random`, where a second process is to be had (_second_process_helps); else
    none."""
    bots = sorted(set(seat_policies) - {"random"})
    if not bots or not _second_process_helps(game, compiled, threads):
        return []
    return bots


def kernel_alongside(game, compiled, threads=None):
    """The file of the order the game's kernel compiles in (game.toml `compile_order`), as a
    string, for a cold start's second process to compile the kernel from its other end; ""
    where the game records none or no second process is to be had (_second_process_helps)."""
    if not game.compile_order or not _second_process_helps(game, compiled, threads):
        return ""
    return str(game.project_file(game.compile_order))


def compiles_kernel_first(game, bots):
    """Whether the second process compiles the kernel (from its other end) before the bots:
    where the bots are the smaller part by the game's measured figures (shipped_estimate's:
    the bots' own seconds, plus a tenth, against the kernel's with `random`). The run then
    waits for the bots once its kernel is compiled, but the bots are compiled while the run
    is on the kernel's last steps, which only it can take (the entry point's own code). Where
    the bots are the larger part (All-In Ascent's `tuned`: 14.5 s against 5.9), they start
    first, as they would alone, and the run compiles the whole kernel meanwhile."""
    kernel = shipped_estimate(game, ["random"])
    own = shipped_estimate(game, bots, {"random"})
    return kernel is not None and own is not None and 1.1 * own < kernel


def compiles_search_first(game, bots):
    """Whether the run compiles its bots' last parts (a search bot's search) before the
    kernel, where the second process compiles the bots first (compiles_kernel_first false):
    where, for every bot in parts, each bot of its family compiled whole (its rollout bot is
    one: the figures keep none for a rollout part alone) takes at least as long as the
    kernel, by the game's measured figures. The second process is then busy with the
    rollout bot while the run compiles the search, and with it much of the engine's code;
    after the bots, the second process compiles the kernel's entry and stops where the run
    has been. With the kernel first, the run's search came after its kernel while the second
    process had nothing left to do: from an empty cache, All-In Ascent `mcts-tuned` 18.6 and
    18.8 s -> 17.0 and 17.7 s, Ascension `mcts-hybrid` 18.5 and 19.8 -> 17.8 and 17.8 s
    (results/BENCHMARKS.md). Random rollouts keep it busy for no time, and it would compile
    the engine's code the run's search compiles too (Ascension `mcts`: 10-11 -> 12-13 s).
    All-In Ascent `mcts-greedy` came out about 0.5 s slower: the figures cannot tell its
    `greedy` (9.6 s) from `hybrid`'s family (whose cheapest bot takes 7.0 s)."""
    try:
        path = game.project_file(game.compile_estimates)
        figures = json.loads(path.read_text())["games"][game.name]
        kernel = _finite(figures["kernel_and_random"])
        in_parts = [name for name in bots if policy_parts(game.name, name)]
        if not in_parts:
            return False
        for name in in_parts:
            family = registered_policy(game.name, name).family_name
            whole = [other for other in policy_names(game.name)
                     if registered_policy(game.name, other).family_name == family
                     and not policy_parts(game.name, other)]
            if not whole or min(_finite(figures["bots"][b]) for b in whole) < kernel:
                return False
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False
    return True


def _second_process_helps(game, compiled, threads):
    """Where the kernel is not compiled in this folder yet (`compiled`, a compiled_here
    answer, is None), the game has a `random` bot to compile it with, the cache's saves are
    locked, this process may run on two cores or more (on one, the two would take turns),
    and the run was not told to use one thread (`threads`, its --threads: a user who asks
    for one core gets one, for the compile too)."""
    cores = _usable_cores() if threads is None else min(threads, _usable_cores())
    # the cheap answers first: the lock is tried on the cache folder itself
    return compiled is None and cores >= 2 and \
        policy_name_problem(game.name, "random") is None and saves_are_locked()


def _usable_cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - no affinity on this platform
        return os.cpu_count() or 1


def _start_second_process(game_name, bots, order_file="", kernel_first=False):
    """`python -m sim.core.compiling` compiling `bots` of the game into this cache folder (and
    the kernel from its other end, in the order `order_file` records: after the bots, or
    before them if `kernel_first`), or None if no process can be started (the run then
    compiles them itself)."""
    if not sys.executable:      # an embedded interpreter: no Python to start
        return None
    import sim
    # the same sources, so the same cache key: run from the folder that holds this `sim` (`-m`
    # puts the working folder first on the path), with the cache folder as an absolute path
    root = str(Path(sim.__file__).resolve().parents[1])
    path = os.environ.get("PYTHONPATH")
    env = dict(os.environ, PYTHONPATH=root + (os.pathsep + path if path else ""),
               NUMBA_CACHE_DIR=os.path.abspath(os.environ["NUMBA_CACHE_DIR"]))
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "sim.core.compiling", game_name,
             *([KERNEL_FIRST_FLAG if kernel_first else KERNEL_FLAG, order_file]
               if order_file else []),
             *bots],
            cwd=root, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except OSError:
        return None


_STARTED_EARLY = {}     # (game name, bots, order file, kernel first) -> the second process
                        # compiling_early started
KERNEL_FLAG = "--kernel"            # the second process's argument: the kernel too, after the
                                    # bots, in the order of the file that follows
KERNEL_FIRST_FLAG = "--kernel-first"    # the same, before the bots
BOTS_DONE = "ascent: bots compiled"     # its one line on its output, once its bots (if any)
                                        # are saved


def _stop(helper, finished=False):
    """Let the second process go: it has `finished`, or it is asked to stop (its input
    closes: stop_at_end_of_input), and killed only if it has not stopped within 30 s."""
    if helper is None:
        return
    for pipe in (helper.stdin, helper.stdout):
        try:
            pipe.close()
        except OSError:         # a name left unsent to a process that has ended (EPIPE)
            pass
    if not finished:
        try:
            helper.wait(timeout=30)
        except subprocess.TimeoutExpired:
            helper.kill()
            helper.wait()


def _release_early(game_name, claimed=None):
    """Stop every second process compiling_early started for the game but `claimed` (a key
    of _STARTED_EARLY): compile_first found that it needs other bots compiled, or none (a
    run of these bots was compiled meanwhile), and an unclaimed one would compile on while
    the games are played."""
    for key in [k for k in _STARTED_EARLY if k[0] == game_name and k != claimed]:
        _stop(_STARTED_EARLY.pop(key))


@contextmanager
def compiling_early(game, seat_policies, threads=None):
    """For a command that has work to do before its run's compile (All-In Ascent packs its
    rules: 3 s from an empty cache): start the second process now, where compile_first will
    want one, so that it compiles the bots meanwhile; compile_first takes it over. On the way
    out, stop it if nothing did (the run found its folder done, or failed)."""
    names = list(seat_policies)
    bots, order_file = [], ""
    if not is_compiled(game.name, names):
        compiled = compiled_here(game.name)
        bots = bots_to_compile_alongside(game, names, compiled, threads)
        order_file = kernel_alongside(game, compiled, threads)
    kernel_first = bool(order_file) and compiles_kernel_first(game, bots)
    key = (game.name, tuple(bots), order_file, kernel_first)
    helper = _start_second_process(game.name, bots, order_file, kernel_first) \
        if bots or order_file else None
    if helper is not None:
        _STARTED_EARLY[key] = helper
    try:
        yield
    finally:
        if helper is not None and _STARTED_EARLY.get(key) is helper:
            del _STARTED_EARLY[key]
            _stop(helper)


@contextmanager
def compiling_alongside(game_name, bots, order_file="", kernel_first=False,
                        search_first=False):
    """While the body runs, a second process compiles `bots` into this cache folder (the one
    compiling_early started, if it did), and, with `order_file` (a kernel_alongside answer),
    the kernel from its other end, after the bots or, if `kernel_first`, before them; on the
    way out (or, if `search_first`, on the way in: compiles_search_first), this process
    compiles the last part of each bot that has parts (a search bot's search:
    sim.core.policies.compile_parts) while the second process compiles their first,
    then waits for its bots, and stops it (or waits for it to end, without `order_file`).
    Meanwhile each function this process starts compiling is named on the second process's
    input: where it comes to one, the two have met, and it goes on to the bots (or ends), and
    it leaves out a bot's part that this process has started. Its failure is not an error:
    the run then compiles the bots itself, and says why if they cannot compile."""
    if not bots and not order_file:
        yield
        return
    helper = _STARTED_EARLY.pop((game_name, tuple(bots), order_file, kernel_first), None) or \
        _start_second_process(game_name, bots, order_file, kernel_first)
    finished = False
    try:
        if helper is not None:
            from sim.core.compile_order import naming_what_compiles
            with naming_what_compiles(helper.stdin.fileno()):
                if search_first:
                    _compile_last_parts(game_name, bots)
                yield
                if not search_first:
                    _compile_last_parts(game_name, bots)
        else:
            yield
        if helper is not None:
            if order_file:
                # the body compiled the kernel: what the second process would compile of it
                # now, the run has saved; it only waits for the bots (or the process's end)
                if bots:
                    for line in helper.stdout:
                        if line.decode(errors="replace").strip() == BOTS_DONE:
                            break
            else:
                helper.wait()
                finished = True
    finally:
        _stop(helper, finished)


def _compile_last_parts(game_name, bots):
    """The run's share of the bots compiled alongside: the last part of each bot that has
    parts (All-In Ascent's and Ascension's search bots: the game's search, while the second
    process compiles the rollout bot, the larger part, first). A part the second process has
    saved by then only loads."""
    for name in bots:
        if policy_name_problem(game_name, name) is None:    # else the run says so, later
            compile_parts(game_name, name, last_only=True)


# compile_first's answer: the seconds spent compiling, then those the game that compiled it
# spent playing (both 0.0 when nothing was compiled)
CompileTimes = namedtuple("CompileTimes", "compiling first_game")


class _Compiles(event.Listener):
    """numba's compiles in this process once the compiling game has started (`start`): how
    many are under way, the seconds spent in the outermost ones, and when the latest ended.
    A function loaded from the cache is no compile (numba reports none)."""

    def __init__(self):
        self.open = 0
        self.seconds = 0.0
        self.game_started = None
        self._outermost_began = None
        self.last_end = None
        # the progress line's thread reads what numba's compiling thread writes
        self._lock = threading.Lock()

    def start(self):
        """The compiling game starts: compiles count from now."""
        with self._lock:
            self.game_started = time.perf_counter()

    def on_start(self, ev):
        with self._lock:
            if self.open == 0:
                self._outermost_began = time.perf_counter()
            self.open += 1

    def on_end(self, ev):
        with self._lock:
            self.open -= 1
            self.last_end = time.perf_counter()
            if self.open == 0 and self.game_started is not None:
                self.seconds += self.last_end - max(self._outermost_began, self.game_started)

    def split(self, started, now=None):
        """(seconds compiling, seconds playing) from `started` to `now`: everything before the
        game started (the kernel's game, the wait for the second process), then the game's
        own compiles (numba compiles a function on its first call, which may come after some
        play: a replay's last steps, a ladder's next bots)."""
        with self._lock:
            now = time.perf_counter() if now is None else now
            if self.game_started is None:
                return now - started, 0.0
            compiling = self.game_started - started + self.seconds
            if self.open:
                compiling += now - max(self._outermost_began, self.game_started)
            return compiling, now - started - compiling

    def playing(self, quiet_for=1.5):
        """Whether the game plays now, as far as one can tell: it has started, no compile is
        under way, and none has ended for `quiet_for` seconds (numba compiles a run's kernel
        and bots one after the other, with a moment of Python between them)."""
        with self._lock:
            if self.game_started is None or self.open:
                return False
            since = max(self.game_started, self.last_end or self.game_started)
            return time.perf_counter() - since >= quiet_for


def compile_first(game, seat_policies, play_one, quiet=False, stream=None, play_kernel=None,
                  threads=None, entry=None):
    """If this code has not yet compiled `game` with these bots, play one game through
    `play_one()` (which compiles them), with a progress line unless `quiet`; record how long
    the compile took. Returns CompileTimes. The compile is everything before that game
    starts (the kernel's game, the wait for the second process) and the compiles numba
    reports while it plays (_Compiles); the rest is the game's own play, which the line names
    apart and the record leaves out: an MCTS game of Ascension with random rollouts plays for
    about 20 s, and was quoted as compile time (the line's estimates are compile time only).
    The progress goes to `stream`, by default the sys.stderr of the moment of the call (a
    default bound at import would keep a stream that a test harness has since closed).
    `play_kernel()`, if given, plays a throw-away game with `random` in every seat: from an
    empty cache the other bots then compile in a second process meanwhile (see above), unless
    `threads` (the run's --threads) is 1.
    `entry` names another way into the engine than the kernel (`ascent replay`'s "single-game
    engine"), which play_one compiles: it keeps markers of its own, and its estimate is only
    a figure measured in this or another cache folder (the game's shipped figures are the
    kernel's)."""
    stream = sys.stderr if stream is None else stream
    names = list(seat_policies)
    key = _entry_key(game.name, entry)
    if is_compiled(key, names):
        _release_early(game.name)
        return CompileTimes(0.0, 0.0)
    bots = ", ".join(sorted(set(names)))
    # a figure measured on this machine for these bots in a folder as cold (or as warm) as
    # this one; else the game's measured figures, less the kernel where it is compiled; else
    # any figure measured here
    compiled = compiled_here(key)
    cold = _cold(game.name)
    with_kernel = play_kernel is not None and entry is None
    alongside = bots_to_compile_alongside(game, names, compiled, threads) if with_kernel else []
    order_file = kernel_alongside(game, compiled, threads) if with_kernel else ""
    kernel_first = bool(order_file) and compiles_kernel_first(game, alongside)
    search_first = bool(order_file) and not kernel_first and \
        compiles_search_first(game, alongside)
    _release_early(game.name, (game.name, tuple(alongside), order_file, kernel_first)
                   if alongside or order_file else None)
    before = last_compile_seconds(key, names, cold=cold)
    if before is None and entry is None:
        before = shipped_estimate(game, names, compiled, alongside=bool(alongside))
    if before is None:
        before = last_compile_seconds(key, names)
    about = ("a minute or two" if entry is None else "not yet measured here") \
        if before is None else f"about {max(before, 1)} s"
    when = ("every run while numba's cache folder cannot be written" if sim.TEMPORARY_CACHE
            else "first run of this code only")
    head = (f"compiling the {game.title} {entry or 'kernel'} and the "
            f"{'bot' if len(set(names)) == 1 else 'bots'} {bots} "
            f"({when}, {about})")
    started = time.perf_counter()
    done = threading.Event()

    compiles = _Compiles()
    width = [0]         # of the line shown: a shorter one is padded over it

    def show(state, end=""):
        text = f"{head}: {state}"
        print(f"\r{text}{' ' * (width[0] - len(text))}", end=end, file=stream, flush=True)
        width[0] = len(text)

    def tick():
        while not done.wait(1.0):
            compiling, playing = compiles.split(started)
            show(f"done in {compiling:.0f} s; playing: {playing:.0f} s" if compiles.playing()
                 else f"{compiling + playing:.0f} s")

    ticker = None
    if not quiet:
        show("0 s")
        ticker = threading.Thread(target=tick, daemon=True)
        ticker.start()
    compiled_all = False
    try:
        with event.install_listener("numba:compile", compiles), \
                collector_paused():
            with compiling_alongside(game.name, alongside, order_file, kernel_first,
                                     search_first):
                if alongside or order_file:
                    play_kernel()
            compiles.start()        # the second process's bots are saved by now
            play_one()
            played = compiles.split(started)
        compiled_all = True
    finally:
        done.set()
        if ticker is not None:
            ticker.join()
            if not compiled_all:        # the error's message starts on a line of its own
                print(file=stream, flush=True)
    times = CompileTimes(*played)
    if not quiet:
        playing = f" (and {times.first_game:.0f} s of play)" if times.first_game >= 1 else ""
        show(f"done in {times.compiling:.0f} s{playing}", end="\n")
    record(key, names, times.compiling, cold=cold)
    return times


# whether this process holds a compile's objects frozen uncollected (collector_paused)
_GARBAGE_KEPT = SimpleNamespace(pending=False)


@contextmanager
def collector_paused():
    """Python's cyclic garbage collector off while numba compiles; then, if it was on, what
    the compile made frozen (gc.freeze), uncollected. numba's compile makes millions of
    objects that live on (types, IR, LLVM wrappers), and the collector scanned them again
    and again: 12% of a cold First Ascent `mcts-tuned` run's samples under perf, in each of
    its two processes, and another 0.5 s when the interpreter exits. Frozen, they are left
    out of every later collection, also the one at exit.
    Among them is the compile's garbage, about a million objects after a cold start. A
    collection frees it in 0.6-0.9 s, but gives no memory back to the system (a cold First
    Ascent `mcts-tuned` run: 548 MB resident before it, 547 MB after); it only lets the
    process reuse that memory later: about 100 MB of Python's small objects (three million
    short strings made afterwards: 155 MB more resident with the collection, 255 MB without)
    and some 17 MB of its heap (All-In Ascent `random`). A command compiles once and then
    plays games into arrays, so it waited that long before its first game was out for
    memory it mostly never reuses. The next compile in the process (a test's, a notebook's
    next run) collects it first, as part of its own compile: a process keeps at most one
    compile's garbage. The collector is on again however the block ends."""
    was_on = gc.isenabled()
    if was_on and _GARBAGE_KEPT.pending:
        gc.unfreeze()
        gc.collect()
        _GARBAGE_KEPT.pending = False
    try:
        gc.disable()
        yield
    finally:
        if was_on:
            try:
                # pending first: an interruption right after the freeze would otherwise keep
                # this garbage past the next compile
                _GARBAGE_KEPT.pending = True
                gc.freeze()
            finally:
                gc.enable()


RUN_STARTED = set()     # in the second process: the functions the run has started compiling


def stop_at_end_of_input():
    """Exit once this process's input ends: the run closes it to stop this process early (its
    games failed, or need other bots), and the system closes it when the run is gone, killed
    outright (SIGKILL, or SIGTERM, which runs no `finally`). Before it exits it waits for any
    cache file this process is writing (numba_cache.IN_CACHE_FILE): numba writes a function's
    index before its data file. Until then, each line of the input names a function the run
    has started compiling (RUN_STARTED)."""
    from sim.core.numba_cache import IN_CACHE_FILE
    read_lines_until_end(0, RUN_STARTED)
    IN_CACHE_FILE.acquire()
    os._exit(1)


def read_lines_until_end(fd, into):
    """Add each line read from the file descriptor `fd` to the set `into`, until it ends. The
    bare descriptor, not sys.stdin: a daemon thread blocked in a buffered read aborts the
    interpreter's exit when the compile is done."""
    pending = b""
    while chunk := os.read(fd, 4096):
        *lines, pending = (pending + chunk).split(b"\n")
        into.update(line.decode(errors="replace") for line in lines)


def main(argv=None):
    """The second process of a cold start: `python -m sim.core.compiling GAME [--kernel FILE]
    BOT...` compiles those bots of that game into the cache folder (compiling_alongside),
    says so on its output, then, with --kernel, compiles the game's kernel from its other
    end, in the order FILE records (sim/core/compile_order.py); it stops early when its
    input ends."""
    game_name, *bots = sys.argv[1:] if argv is None else argv
    # this process only compiles, then ends: the collector's scans of numba's objects were
    # a tenth of its time (collector_paused)
    gc.disable()
    kernel_first = bots[:1] == [KERNEL_FIRST_FLAG]
    order_file = bots[1] if bots[:1] in ([KERNEL_FLAG], [KERNEL_FIRST_FLAG]) else ""
    bots = bots[2:] if order_file else bots
    # Ctrl-C reaches the run's whole process group: the run stops this process itself, at a
    # point where no cache file is half written
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=stop_at_end_of_input, daemon=True).start()
    # the run reads one line from this process's output; numba's own prints (its debug
    # switches) go where its errors go instead, so that they can never fill that pipe
    to_run = os.dup(1)
    os.dup2(2, 1)
    from sim.core.compile_order import compile_backwards, read
    order = read(Path(order_file), game_name) if order_file else []
    if kernel_first:
        compile_backwards(order, RUN_STARTED)
    for name in bots:
        # a bot in parts: each part the run has not started (the run compiles the bot
        # itself, or loads it, with its parts from the cache)
        compile_parts(game_name, name, skip=RUN_STARTED)
    os.write(to_run, BOTS_DONE.encode() + b"\n")
    if not kernel_first:
        compile_backwards(order, RUN_STARTED)


if __name__ == "__main__":
    main()
    # the run waits for this process to end (_stop), and an interpreter's exit frees the
    # compile's objects one by one (0.5-0.9 s after a First Ascent kernel); its cache files
    # are written and closed by now, and its one line to the run is sent
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
