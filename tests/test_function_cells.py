"""Compiled functions called through function cells (sim/core/function_cells.py), so that their
caller is cached: a search bot loads from numba's cache instead of compiling in every process."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from numba import njit, types

from sim.core.function_cells import bind, called_through, check_bound, function_cell
from sim.core.policies import compiled_on_use, compiled_value, compile_waiting

ROOT = Path(__file__).resolve().parents[1]
SIGNATURE = types.int64(types.int64)

CALLERS = textwrap.dedent("""
    from numba import njit, types

    from sim.core.function_cells import called_through, function_cell

    SIGNATURE = types.int64(types.int64)


    @njit(SIGNATURE, cache=True)
    def plus_one(x):
        return x + 1


    @njit(SIGNATURE, cache=True)
    def times_two(x):
        return 2 * x


    def caller_of(cell):
        def call(x):
            return called_through(cell)(x) + 1000
        return njit(cache=True)(call)


    through_plus_one = caller_of(function_cell(plus_one, SIGNATURE))
    through_times_two = caller_of(function_cell(times_two, SIGNATURE))
""")

RUN_CALLERS = textwrap.dedent("""
    import json
    import callers
    from sim.core.function_cells import bind, function_cell
    from sim.core.policies import compiled_value
    for callee in (callers.plus_one, callers.times_two):
        bind(function_cell(callee, callers.SIGNATURE), compiled_value(callee, callers.SIGNATURE))
    answers = [callers.through_plus_one(5), callers.through_times_two(5)]
    stats = [callers.through_plus_one.stats, callers.through_times_two.stats]
    print(json.dumps([answers, [sum(s.cache_hits.values()) for s in stats],
                      [sum(s.cache_misses.values()) for s in stats]]))
""")


def _run(program, env, cwd):
    out = subprocess.run([sys.executable, "-c", program], env=env, cwd=cwd, capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_caller_through_cells_is_cached_and_calls_this_process_s_functions(tmp_path):
    """Two closures of one function, each through its own cell: the second process loads both
    from numba's cache (no compile) and each calls its own callee at this process's address."""
    (tmp_path / "callers.py").write_text(CALLERS)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(ROOT), str(tmp_path)]))
    first = _run(RUN_CALLERS, env, tmp_path)
    second = _run(RUN_CALLERS, env, tmp_path)
    assert first == [[1006, 1010], [0, 0], [1, 1]]
    assert second == [[1006, 1010], [1, 1], [0, 0]]


# compiled in the tests, not at collection (tests/test_suite_sharing.py)
@njit(cache=False)
def _never_bound(x):
    return x


@njit(cache=False)
def _one_less(x):
    return x - 1


def test_a_cell_never_bound_raises_instead_of_jumping_to_nowhere():
    """Called from Python; from a kernel the error cannot be raised, hence check_bound."""
    cell = function_cell(_never_bound, SIGNATURE)

    @njit(cache=False)
    def caller(x):
        return called_through(cell)(x)

    with pytest.raises(RuntimeError, match="function address is null"):
        caller(3)


def test_a_function_compiled_for_another_signature_is_refused():
    cell = function_cell(_one_less, SIGNATURE)
    other = types.float64(types.float64)

    @njit(other, cache=False)
    def halved(x):
        return x / 2

    with pytest.raises(TypeError, match=r"is for \(int64,\) -> int64, not \(float64,\) -> float64"):
        bind(cell, compiled_value(halved, other))
    bind(cell, compiled_value(_one_less, SIGNATURE))

    @njit(cache=False)
    def caller(x):
        return called_through(cell)(x)

    assert caller(3) == 2


def test_a_bot_whose_cells_are_not_bound_is_refused_before_it_compiles():
    """A kernel calls its bots through their C wrapper, where a null address cannot raise (a
    serial kernel reads 0, a silent action; a parallel one hangs): compile_waiting checks the
    cells `prepare` should have bound."""
    cell = function_cell(_never_bound, SIGNATURE)
    with pytest.raises(RuntimeError, match=r"_never_bound \(ascent_cell_\w+\) are not bound"):
        check_bound([cell], "a bot")

    def forgets_to_bind():
        pass

    def bot(x):
        return called_through(cell)(x)
    waiting = compiled_on_use(SIGNATURE, prepare=forgets_to_bind, cache=False,
                              cells=(cell,))(bot)
    with pytest.raises(RuntimeError, match="bot: its function cells for _never_bound"):
        compile_waiting(waiting)
    assert not waiting.overloads        # refused before numba compiled it


def _made_by(k):
    def plus_k(x):
        return x + k
    return njit(cache=False)(plus_k)


def test_two_closures_of_one_function_cannot_share_a_cell():
    """A cell's name is its function's module and qualified name: two closures of one function
    would share it, and a call meant for one would reach the other."""
    function_cell(_made_by(1), SIGNATURE)
    with pytest.raises(ValueError, match="names two functions"):
        function_cell(_made_by(2), SIGNATURE)


def test_another_function_of_the_same_signature_is_refused():
    cell = function_cell(_one_less, SIGNATURE)
    with pytest.raises(TypeError, match="_one_less, not another function"):
        bind(cell, compiled_value(_never_bound, SIGNATURE))


def test_a_cell_s_name_is_the_same_in_every_process_and_one_per_callee_and_signature():
    name = function_cell(_one_less, SIGNATURE)
    assert name == function_cell(_one_less, SIGNATURE)
    assert name != function_cell(_never_bound, SIGNATURE)
    assert name != function_cell(_one_less, types.int32(types.int32))
    assert name != function_cell(_one_less, SIGNATURE, copies=2)
    program = ("from numba import types; from policies.mcts import find_child; "
               "from sim.core.function_cells import function_cell; "
               "print(function_cell(find_child, types.int64(types.int64)))")
    runs = [subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.strip() for _ in range(2)]
    from policies.mcts import find_child
    assert runs == [function_cell(find_child, SIGNATURE)] * 2


PLAY_A_SEARCH_GAME = textwrap.dedent("""
    import json
    from sim.core.game import get_game
    from sim.core.policies import get_policy
    game = get_game("dice-race")
    bot = get_policy("dice-race", "mcts@16").function
    result = game.api.play(game.build_rules(2), 1, 1, ["mcts@16", "random"], "random")
    print(json.dumps([sum(bot.stats.cache_hits.values()), sum(bot.stats.cache_misses.values()),
                      result.games.to_json()]))
""")


def test_a_search_bot_loads_from_the_cache_in_the_next_process():
    """A registered search bot (search_bot, policies/mcts.py) is cached: a second process
    loads it and plays the same game, where it used to compile it again (it held its search
    and its rollout bot as constants with one process's addresses). The suite's own cache
    folder: the first process may find the bot there already."""
    import sim
    if sim.TEMPORARY_CACHE:
        pytest.skip("numba's cache folder cannot be written: each process compiles into its own")
    first = _run(PLAY_A_SEARCH_GAME, os.environ, ROOT)
    second = _run(PLAY_A_SEARCH_GAME, os.environ, ROOT)
    assert sum(first[:2]) == 1
    assert second[:2] == [1, 0]
    assert second[2] == first[2]


SEARCH_EXPERIMENT = """
description = "Search bots in worker processes."
game = "ascension"
players = [4]
games = 8
seed = 4
seat_policies = ["mcts-hybrid@4", "mcts@4", "hybrid", "stair-builder"]
rotate_seats = true
chunk = 2
out = "{out}"

[variants.baseline]
"""


def test_search_bots_play_the_same_games_in_worker_processes(tmp_path):
    """Principle 2: each worker process fills its search bots' cells itself (a kernel calling
    a bot through an unfilled cell would play action 0, or hang); the games at --jobs 2 are
    those of one process."""
    from sim.experiment.runner import load_variant, run_experiment
    from sim.experiment.spec import load_spec
    found = {}
    for jobs in (1, 2):
        path = tmp_path / f"jobs{jobs}.toml"
        path.write_text(SEARCH_EXPERIMENT.format(out=tmp_path / f"out{jobs}"))
        spec = load_spec(path)
        run_experiment(spec, jobs=jobs, quiet=True)
        found[jobs] = [load_variant(spec.out, "baseline", 4, table=table)
                       for table in ("games", "seats")]
    for one, two in zip(found[1], found[2]):
        assert len(one) and one.equals(two)
