"""A bot that raises inside compiled play stops the run (sim/core/bot_exceptions.py).

numba drops an exception raised under a call by address (a kernel's one game, a search bot's
imagined seat), so without the guard these runs finished with games cut short where the bot
raised, or played on with a move no bot chose. Each game is run through its batch driver
(the kernel on 2 threads) and its single-game API."""
import sys
import threading
import types
from contextlib import contextmanager

import pytest
from numba import njit

from sim.core.bot_exceptions import BotError, raising_bot_exceptions
from sim.core.policies import _REGISTRY, register


@contextmanager
def registered(game, name, function):
    register(game, name)(function)
    try:
        yield name
    finally:
        _REGISTRY.pop((game, name))


def raising_bots(signature):
    """A bot with an explicit raise, and one whose integer division by zero numba raises."""
    @njit(signature)
    def raises_value_error(ctx):
        calls = 0
        for _ in range(3):
            calls += 1
        if calls == 3:
            raise ValueError("the test bot broke")
        return 0

    @njit(signature)
    def divides_by_zero(ctx):
        calls = 0
        for _ in range(3):
            calls += 1
        return 1 // (calls - 3)
    return raises_value_error, divides_by_zero


def holding(signature, inner):
    """A bot that answers what `inner` answers, holding it as a function value called by
    address, the way a search bot holds the bots of its imagined seats."""
    from sim.core.policies import as_function_value
    held = as_function_value(inner, signature)

    @njit(signature)
    def holds_a_bot(ctx):
        return held(ctx)
    return holds_a_bot


def test_all_in_ascent_batch_and_single_game():
    from sim.games.all_in_ascent.batch import run_games
    from sim.games.all_in_ascent.game import Game
    from sim.games.all_in_ascent.policy_api import POLICY_SIGNATURE
    before = sys.unraisablehook
    raises, divides = raising_bots(POLICY_SIGNATURE)
    with registered("all-in-ascent", "test-raises", raises):
        with pytest.raises(BotError, match=r"\('random', 'test-raises'\) raised ValueError: "
                                           r"the test bot broke at .*test_bot_exceptions\.py:"
                                           r"\d+, in raises_value_error; \d+ such exceptions"):
            run_games(6, 1, 2, ["random", "test-raises"], threads=2)
        # called from Python, the single-game API gets the bot's own exception and traceback
        with pytest.raises(ValueError, match="the test bot broke"):
            Game(1, ["technician", "sprinter"]).play(["test-raises", "random"])
    with registered("all-in-ascent", "test-holds", holding(POLICY_SIGNATURE, raises)):
        # ... but not from a bot it holds: that call answered 0, and the game went on
        with pytest.raises(BotError, match="ValueError: the test bot broke"):
            Game(1, ["technician", "sprinter"]).play(["test-holds", "random"])
    with registered("all-in-ascent", "test-divides", divides):
        # a runtime error carries no line: the message names the run's bots instead
        with pytest.raises(BotError, match=r"\('test-divides'\) raised ZeroDivisionError: "
                                           r"integer division by zero; "):
            run_games(3, 1, 2, "test-divides", threads=2)
    assert sys.unraisablehook is before
    assert run_games(3, 1, 2, "random").final.shape[0] == 3


def test_ascension_batch_and_single_game():
    from sim.games.ascension.batch import run_games
    from sim.games.ascension.game import AscensionGame
    from sim.games.ascension.policy_api import POLICY_SIGNATURE
    from sim.games.ascension.rules import build_rules
    raises, _ = raising_bots(POLICY_SIGNATURE)
    rules = build_rules(2)
    with registered("ascension", "test-raises", raises):
        with pytest.raises(BotError, match="ValueError: the test bot broke"):
            run_games(4, 1, rules, ["test-raises", "random"], threads=2)
        with pytest.raises(ValueError, match="the test bot broke"):
            AscensionGame(1, rules=rules).play(["random", "test-raises"])
    with registered("ascension", "test-holds", holding(POLICY_SIGNATURE, raises)):
        with pytest.raises(BotError, match="ValueError: the test bot broke"):
            AscensionGame(1, rules=rules).play(["random", "test-holds"])


def test_first_ascent_batch_and_single_game():
    from sim.games.first_ascent.batch import run_games
    from sim.games.first_ascent.game import FirstAscentGame
    from sim.games.first_ascent.policy_api import POLICY_SIGNATURE
    from sim.games.first_ascent.rules import build_rules
    _, divides = raising_bots(POLICY_SIGNATURE)
    rules = build_rules(2)
    with registered("first-ascent", "test-divides", divides):
        with pytest.raises(BotError, match="ZeroDivisionError"):
            run_games(4, 1, rules, ["random", "test-divides"], threads=2)
        with pytest.raises(BotError, match="ZeroDivisionError"):
            FirstAscentGame(1, 2, rules=rules).play(["test-divides", "random"])


def test_dice_race_an_added_game():
    """The example of docs/adding-a-game.md: its kernel calls one game by address, so that a
    bot's exception reaches the guard instead of being lost inside prange."""
    from dice_race.engine import POLICY_SIGNATURE
    from sim.core.game import get_game
    game = get_game("dice-race")
    raises, _ = raising_bots(POLICY_SIGNATURE)
    with registered("dice-race", "test-raises", raises):
        for threads in (1, 2):
            with pytest.raises(BotError, match="ValueError: the test bot broke"):
                game.api.play(game.build_rules(2), 6, 1, ["random", "test-raises"], None,
                              threads=threads)


def test_other_unraisable_exceptions_go_to_the_hook_before():
    """Only numba's dropped exceptions are the block's; the hook in place before (pytest's,
    the command line's for a Ctrl-C in a callback) gets the rest, and is back afterwards."""
    seen = []
    before = sys.unraisablehook
    sys.unraisablehook = seen.append
    try:
        with raising_bot_exceptions(["any"]):
            with raising_bot_exceptions():          # blocks nest
                sys.unraisablehook(_Unraisable(ValueError("not a bot's"), "some object"))
        assert [str(u.exc_value) for u in seen] == ["not a bot's"]
        assert sys.unraisablehook == seen.append
    finally:
        sys.unraisablehook = before


def test_a_block_charged_with_a_numba_drop_raises_once_it_ends():
    before = sys.unraisablehook
    with pytest.raises(BotError, match=r"\('a', 'b'\) raised KeyError: 'x'; 2 such "
                                       r"exceptions in all") as caught:
        with raising_bot_exceptions(["a", "b"]):
            with raising_bot_exceptions(["inner"]):
                pass
            # after an inner block has closed, the outer one still collects (blocks are
            # told apart by identity, not by their equal empty contents)
            for exc in (KeyError("x"), ValueError("y")):
                sys.unraisablehook(_Unraisable(exc, NUMBA))
    assert isinstance(caught.value.__cause__, KeyError)
    assert sys.unraisablehook is before


def test_the_hook_runs_no_python_code():
    """On the main thread a Python hook is where a pending Ctrl-C would be raised, printed as
    ignored and lost, with the bot's exception: the hook is a queue's put, a C function."""
    with raising_bot_exceptions(["a"]):
        assert isinstance(sys.unraisablehook, types.BuiltinMethodType)


def test_a_ctrl_c_numba_dropped_in_place_of_an_exception_ends_the_block_as_itself():
    """numba raises a compiled exception through a Python helper, where a pending Ctrl-C or
    SIGTERM (sim/cli.Terminated, a KeyboardInterrupt) lands and is dropped instead: the block
    raises that interrupt, of its own type, so that the command stops as interrupted or
    terminated; it is not a bot's fault."""
    class Terminated(KeyboardInterrupt):
        pass
    with pytest.raises(Terminated):
        with raising_bot_exceptions(["a"]):
            sys.unraisablehook(_Unraisable(ValueError("the bot's"), NUMBA))
            sys.unraisablehook(_Unraisable(Terminated(), NUMBA))


def test_a_drop_is_charged_to_the_blocks_open_when_it_was_reported():
    """However late the reader takes it: here the reader is held in the hook before until a
    block opened after the report is open, and that block is not charged."""
    gate = threading.Event()
    before = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: gate.wait(10)
    try:
        with pytest.raises(BotError, match=r"\('a'\) raised KeyError") as caught:
            with raising_bot_exceptions(["a"]):
                sys.unraisablehook(_Unraisable(ValueError("not numba's"), "other"))
                sys.unraisablehook(_Unraisable(KeyError("in a"), NUMBA))
                with raising_bot_exceptions(["b"]):
                    gate.set()          # the reader goes on only now
        assert caught.value.__context__ is None         # block "b" raised nothing
    finally:
        gate.set()
        sys.unraisablehook = before


def test_a_drop_reported_from_another_thread_is_charged_to_the_block():
    with pytest.raises(BotError, match="KeyError: 'w'"):
        with raising_bot_exceptions(["a"]):
            worker = threading.Thread(target=sys.unraisablehook,
                                      args=(_Unraisable(KeyError("w"), NUMBA),))
            worker.start()
            worker.join()


def test_a_body_that_fails_after_a_drop_raises_bot_error_from_the_drop():
    """A kernel that let the exception through fails with numba's SystemError: the bot's
    exception is the cause, and BotError says so."""
    with pytest.raises(BotError, match="ValueError: first") as caught:
        with raising_bot_exceptions(["a"]):
            sys.unraisablehook(_Unraisable(ValueError("first"), NUMBA))
            raise SystemError("returned a result with an exception set")
    assert str(caught.value.__cause__) == "first"
    with pytest.raises(KeyError):                   # without a drop, the body's own error
        with raising_bot_exceptions(["a"]):
            raise KeyError("body")


NUMBA = "<numba.core.cpu.CPUContext>"


class _Unraisable:
    def __init__(self, exc, obj):
        self.exc_type, self.exc_value, self.exc_traceback = type(exc), exc, None
        self.object, self.err_msg = obj, None


def test_the_command_line_says_so_in_one_line_and_keeps_no_game_of_the_chunk(tmp_path, capsys):
    from sim.cli import main
    from sim.games.all_in_ascent.policy_api import POLICY_SIGNATURE
    raises, _ = raising_bots(POLICY_SIGNATURE)
    out = tmp_path / "run"
    with registered("all-in-ascent", "test-raises", raises):
        assert main(["simulate", "--players", "2", "--games", "4", "--seed", "3", "--policy",
                     "test-raises", "--out", str(out), "--quiet"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ascent: error: compiled play with the bots "
                                               "('test-raises') raised ValueError")
    assert not list(out.rglob("*.parquet"))


# The paths below run only around a fork, at exit, or under a hook installed over the guard's.

def run_script(tmp_path, text):
    """Run `text` in a fresh Python process (it imports the guard itself); its output."""
    import subprocess
    script = tmp_path / "script.py"
    script.write_text("import sys\n" + text)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


SCRIPT_UNRAISABLE = f"""
NUMBA = {NUMBA!r}
class _Unraisable:
    def __init__(self, exc, obj):
        self.exc_type, self.exc_value, self.exc_traceback = type(exc), exc, None
        self.object, self.err_msg = obj, None
"""


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no fork on this platform")
def test_a_forked_child_guards_blocks_of_its_own_and_leaves_the_parents_to_the_parent(tmp_path):
    """A child forked inside an open block (joblib's and Dask's process pools fork) has no
    reader: its blocks start one, and the parent's block, which the child leaves, stays the
    parent's to close."""
    out = run_script(tmp_path, SCRIPT_UNRAISABLE + """
import os
from sim.core.bot_exceptions import BotError, raising_bot_exceptions
child = False
try:
    with raising_bot_exceptions(["parent"]):
        pid = os.fork()
        if pid == 0:
            child = True
            print("child hook put back:", sys.unraisablehook is sys.__unraisablehook__)
            try:
                with raising_bot_exceptions(["child"]):
                    sys.unraisablehook(_Unraisable(KeyError("c"), NUMBA))
            except BotError as e:
                print("child:", str(e).split(". ")[0])
        else:
            os.waitpid(pid, 0)
            sys.unraisablehook(_Unraisable(KeyError("p"), NUMBA))
except BotError as e:
    print("parent:", str(e).split(". ")[0])
finally:
    if child:
        print("child left the parent's block:", sys.exc_info()[0])
        sys.stdout.flush()
        os._exit(0)
print("parent hook put back:", sys.unraisablehook is sys.__unraisablehook__)
""")
    assert out.splitlines() == [
        "child hook put back: True",
        "child: compiled play with the bots ('child') raised KeyError: 'c'",
        "child left the parent's block: None",
        "parent: compiled play with the bots ('parent') raised KeyError: 'p'",
        "parent hook put back: True"]


def test_an_exception_handed_on_to_a_hook_that_hands_it_back_is_printed_once(capsys):
    """A hook installed over the guard's keeps it as the one it hands on to; once the guard's
    blocks are closed that hook stays, and the next block hands on to it: an exception that
    is not numba's then comes back. It goes to Python's default hook, once, and is not read
    again."""
    seen = []
    before = sys.unraisablehook
    try:
        with raising_bot_exceptions(["a"]):
            guard_hook = sys.unraisablehook

            def hands_back(unraisable):
                seen.append(unraisable)
                guard_hook(unraisable)
            sys.unraisablehook = hands_back
        assert sys.unraisablehook is hands_back       # not the guard's to take away
        with raising_bot_exceptions(["b"]):
            _ComesBack()            # Python reports its __del__'s exception, not numba
        with raising_bot_exceptions(["c"]):
            pass                    # its close waits until the reader has read all before it
        assert len(seen) == 1
        assert capsys.readouterr().err.count("ValueError: comes back") == 1
    finally:
        sys.unraisablehook = before


class _ComesBack:
    def __del__(self):
        raise ValueError("comes back")


def test_at_exit_the_hook_in_place_before_is_put_back(tmp_path):
    """At shutdown the guard's reader, a daemon thread, no longer runs: an exception reported
    after the exit handlers goes to the hook in place before a block still open, not into a
    queue nobody reads."""
    out = run_script(tmp_path, SCRIPT_UNRAISABLE + """
import atexit, threading
seen = []
sys.unraisablehook = seen.append

def late_report():          # registered first, so it runs after the guard's own handler
    sys.unraisablehook(_Unraisable(ValueError("late"), "some object"))
    print("reported after exit:", [str(u.exc_value) for u in seen])
atexit.register(late_report)
from sim.core.bot_exceptions import raising_bot_exceptions
opened = threading.Event()

def holds_a_block_open():
    with raising_bot_exceptions(["a"]):
        opened.set()
        threading.Event().wait()
threading.Thread(target=holds_a_block_open, daemon=True).start()
opened.wait(30)
print("guard's hook in place:", sys.unraisablehook is not seen.append)
""")
    assert out.splitlines() == ["guard's hook in place: True",
                                "reported after exit: ['late']"]
