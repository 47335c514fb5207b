"""A bot that raises inside compiled play stops the run (sim/core/bot_exceptions.py).

numba drops an exception raised in a bot called by address and answers 0, so without the
guard these runs finished with games played by a bot that was not there. Each game is run
through its batch driver (the kernel on 2 threads) and its single-game API."""
import sys
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


# Called from Python with the bots' dispatchers, a game may also get the bot's own exception
# (All-In Ascent's play_game does): loud either way.
SINGLE_GAME = (BotError, ValueError, ZeroDivisionError)


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


def test_all_in_ascent_batch_and_single_game():
    from sim.games.all_in_ascent.batch import run_games
    from sim.games.all_in_ascent.game import Game
    from sim.games.all_in_ascent.policy_api import POLICY_SIGNATURE
    raises, divides = raising_bots(POLICY_SIGNATURE)
    with registered("all-in-ascent", "test-raises", raises):
        with pytest.raises(BotError, match=r"\('random', 'test-raises'\) raised ValueError: "
                                           r"the test bot broke at .*test_bot_exceptions\.py:"
                                           r"\d+, in raises_value_error inside compiled play"):
            run_games(6, 1, 2, ["random", "test-raises"], threads=2)
        with pytest.raises(SINGLE_GAME, match="the test bot broke"):
            Game(1, ["technician", "sprinter"]).play(["test-raises", "random"])
    with registered("all-in-ascent", "test-divides", divides):
        # a runtime error carries no line: the message names the run's bots instead
        with pytest.raises(BotError, match=r"\('test-divides'\) raised ZeroDivisionError: "
                                           r"integer division by zero inside compiled play"):
            run_games(3, 1, 2, "test-divides", threads=2)
    # the registry and the hook are as before: the next run plays
    assert sys.unraisablehook is not None
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
        with pytest.raises(SINGLE_GAME, match="the test bot broke"):
            AscensionGame(1, rules=rules).play(["random", "test-raises"])


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
        with pytest.raises(SINGLE_GAME, match="division by zero"):
            FirstAscentGame(1, 2, rules=rules).play(["test-divides", "random"])


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
    with pytest.raises(BotError, match=r"\('a', 'b'\) raised KeyError: 'x' inside compiled "
                                       r"play \(2 exceptions in all, this the first\)") as caught:
        with raising_bot_exceptions(["a", "b"]):
            for exc in (KeyError("x"), ValueError("y")):
                sys.unraisablehook(_Unraisable(exc, "<numba.core.cpu.CPUContext>"))
    assert isinstance(caught.value.__cause__, KeyError)


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
    assert len(err) == 1 and err[0].startswith("ascent: error: a bot of this run "
                                               "('test-raises') raised")
    assert not list(out.rglob("*.parquet"))
