"""The recorded order a game's kernel compiles in, which a cold start's second process compiles
backwards (sim/core/compile_order.py, sim/core/compiling.py; issue 22)."""
import dataclasses
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import numba
import pytest
from numba import njit

from sim.core import compile_order, compiling
from sim.core.game import get_game

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("game_name", ["all-in-ascent", "ascension", "first-ascent"])
def test_each_games_order_was_recorded_from_the_sources_checked_out(game_name):
    """A recorded order from other sources would have the second process compile functions
    or signatures the kernel no longer uses, and the cold start lose its speed-up unseen."""
    game = get_game(game_name)
    path = game.project_file(game.compile_order)
    order = json.loads(path.read_text())["games"][game_name]
    assert compile_order.sources_hash(order["modules"]) == order["sources"], \
        f"{path.name} was recorded from other sources: run python -m benchmarks.compile_order"
    assert any(m.startswith(f"sim.games.{game_name.replace('-', '_')}.") for m in
               order["modules"])


@pytest.mark.parametrize("game_name", ["all-in-ascent", "ascension", "first-ascent"])
def test_each_games_order_resolves_with_the_numba_it_was_recorded_with(game_name):
    """Every function resolves and every signature unpickles. With another numba the second
    process leaves the list alone (a cold start then compiles on one core, as before)."""
    game = get_game(game_name)
    path = game.project_file(game.compile_order)
    order = json.loads(path.read_text())["games"][game_name]
    if order["numba"] != numba.__version__:
        assert compile_order.read(path, game_name) == []
        pytest.skip(f"recorded with numba {order['numba']}, this is {numba.__version__}: "
                    f"run python -m benchmarks.compile_order")
    assert len(compile_order.read(path, game_name)) == len(order["functions"]) > 10


def test_the_sources_hash_changes_with_a_module_s_source(tmp_path, monkeypatch):
    (tmp_path / "order_probe_module.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = compile_order.sources_hash(["order_probe_module"])
    (tmp_path / "order_probe_module.py").write_text("X = 2\n")
    assert compile_order.sources_hash(["order_probe_module"]) != before


# a call chain compiled only by the test below (not cached): _root calls _middle, which calls
# _inlined (numba inlines it: nothing of its own to compile) and the two leaves, in this order
@njit
def _leaf_first(x):
    return x + 1


@njit
def _leaf_second(x):
    return x * 2


@njit(inline="always")
def _inlined(x):
    return x - 1


@njit
def _middle(x):
    return _leaf_first(_inlined(x)) + _leaf_second(x)


@njit
def _root(x):
    return _middle(x) + _middle(x + 1)


def test_the_order_keeps_each_function_before_the_ones_it_calls():
    """In the order they start: each function before its callees. An inlined function
    (nothing of its own to compile) is left out."""
    order = compile_order.record(lambda: _root(3))
    here = __name__
    assert [address for address, *_ in order["functions"]] == \
        [f"{here}:_root", f"{here}:_middle", f"{here}:_leaf_first", f"{here}:_leaf_second"]
    assert all(args == ["int64"] and returns is None for _, args, returns in order["functions"])
    assert here in order["modules"] and order["sources"] == \
        compile_order.sources_hash(order["modules"])


@njit
def _named_when_compiled(x):        # compiled by the test below only
    return x


class _Dispatcher:
    """Stands in for a numba dispatcher: says what it was asked to compile."""

    def __init__(self, name, compiled, fails=False):
        self.py_func = types.SimpleNamespace(__module__="m", __qualname__=name)
        self.name, self.compiled, self.fails = name, compiled, fails

    def compile(self, signature):
        self.compiled.append((self.name, signature))
        if self.fails:
            raise TypeError("a signature the sources no longer accept")


def test_compiling_backwards_starts_with_the_last_and_passes_over_what_fails():
    compiled = []
    order = [(_Dispatcher("a", compiled), (1,)), (_Dispatcher("b", compiled, fails=True), (2,)),
             (_Dispatcher("c", compiled), (3,))]
    compile_order.compile_backwards(order)
    assert compiled == [("c", (3,)), ("b", (2,)), ("a", (1,))]


def test_compiling_backwards_stops_where_the_run_has_been():
    """The run names each function it starts compiling; the first of those the second
    process comes to is where the two meet (the run has it, and everything before it)."""
    compiled = []
    order = [(_Dispatcher(name, compiled), ()) for name in "abcd"]
    compile_order.compile_backwards(order, {"m:a", "m:b"})
    assert [name for name, _ in compiled] == ["d", "c"]
    read_end, write_end = os.pipe()
    try:
        with compile_order.naming_what_compiles(write_end):
            _named_when_compiled(7)
        assert os.read(read_end, 4096) == f"{__name__}:_named_when_compiled\n".encode()
        # the reader gone: nothing raised, nothing more written
        os.close(read_end)
        with compile_order.naming_what_compiles(write_end):
            _named_when_compiled(7.5)
    finally:
        os.close(write_end)


def test_the_second_process_reads_the_names_line_by_line():
    read_end, write_end = os.pipe()
    os.write(write_end, b"m:a\nm:b\nm:")
    os.write(write_end, b"c\n")
    os.close(write_end)
    names = set()
    compiling.read_lines_until_end(read_end, names)
    os.close(read_end)
    assert names == {"m:a", "m:b", "m:c"}


def test_an_order_that_no_longer_resolves_or_is_not_there_is_passed_over(tmp_path):
    order = compile_order.record(lambda: _root(4))     # compiled already: nothing recorded
    assert order["functions"] == []
    path = tmp_path / "order.json"
    compile_order.save(path, "dice-race", {
        "numba": numba.__version__, "types": {}, "modules": [], "sources": "",
        "functions": [[f"{__name__}:_no_such_function", [], None],
                      [f"{__name__}:_leaf_first", [], None]]})
    assert [d for d, _ in compile_order.read(path, "dice-race")] == [_leaf_first]
    assert compile_order.read(path, "another-game") == []
    assert compile_order.read(tmp_path / "missing.json", "dice-race") == []
    for damaged in ('{"games": {"dice-race": []}}', "not json",
                    '{"games": {"dice-race": {"numba": "%s", "functions": [["a:b"]]}}}'
                    % numba.__version__):
        path.write_text(damaged)
        assert compile_order.read(path, "dice-race") == []


# in a fresh process with an empty cache: record dice-race's kernel order into a file
RECORD_DICE_RACE = """
import sys
from sim.cli import main
from sim.core.compile_order import record, save

order = record(lambda: main(["simulate", "--game", "dice-race", "--players", "2", "--games",
                             "1", "--seed", "1", "--policy", "random", "--threads", "1",
                             "--out", sys.argv[2], "--quiet"]))
save(sys.argv[1], "dice-race", order)
"""

# then, in the cache folder the second process compiled into: which recorded functions this
# process's kernel compile loaded from there (hits) and which it compiled (misses)
PLAY_DICE_RACE = """
import json, sys
from pathlib import Path
from sim.cli import main
from sim.core.compile_order import read

main(["simulate", "--game", "dice-race", "--players", "2", "--games", "1", "--seed", "1",
      "--policy", "random", "--threads", "1", "--out", sys.argv[2], "--quiet"])
stats = [d.stats for d, _ in read(Path(sys.argv[1]), "dice-race")]
print(json.dumps([sum(sum(s.cache_hits.values()) for s in stats),
                  sum(sum(s.cache_misses.values()) for s in stats), len(stats)]))
"""


@pytest.mark.parametrize("flag", [compiling.KERNEL_FLAG, compiling.KERNEL_FIRST_FLAG])
def test_the_second_process_compiles_the_kernel_backwards_into_the_cache(tmp_path, flag):
    """`python -m sim.core.compiling GAME --kernel FILE` (or --kernel-first) compiles the
    recorded functions into its cache folder, where a run's kernel compile then finds every
    one it needs."""
    path = tmp_path / "order.json"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "recording"))
    subprocess.run([sys.executable, "-c", RECORD_DICE_RACE, str(path), str(tmp_path / "run")],
                   env=env, cwd=tmp_path, check=True, capture_output=True)
    functions = json.loads(path.read_text())["games"]["dice-race"]["functions"]
    assert len(functions) >= 3
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    helper = subprocess.Popen([sys.executable, "-m", "sim.core.compiling", "dice-race",
                               flag, str(path)], env=env, cwd=ROOT,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out = helper.stdout.read()          # its input stays open until it ends: not stopped
    assert helper.wait(timeout=600) == 0
    helper.stdin.close()
    helper.stdout.close()
    assert out.decode().splitlines() == [compiling.BOTS_DONE]
    out = subprocess.run([sys.executable, "-c", PLAY_DICE_RACE, str(path), str(tmp_path / "b")],
                         env=env,
                         cwd=tmp_path, check=True, capture_output=True, text=True)
    hits, misses, n = json.loads(out.stdout.strip().splitlines()[-1])
    # none compiled again; a function loaded needs none of its callees loaded
    assert n == len(functions) and misses == 0 and 0 < hits <= n


def test_a_cold_start_compiles_the_kernel_from_both_ends_and_stops_the_second_process(
        tmp_path, monkeypatch, started):
    """With a recorded order, a cold start's second process compiles the bots, then the
    kernel backwards; the run waits for the bots only, and stops the process once its own
    kernel compile is done. Without one (or told to use one thread), no kernel for it."""
    import sim
    folder = tmp_path / "cache" / sim.code_key()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(folder))
    monkeypatch.setattr(compiling, "_usable_cores", lambda: 2)
    plain = get_game("dice-race")
    assert compiling.kernel_alongside(plain, None) == ""        # it records no order
    order = tmp_path / "order.json"
    compile_order.save(order, "dice-race", {"numba": numba.__version__, "types": {},
                                            "modules": [], "sources": "", "functions": []})
    game = dataclasses.replace(plain, compile_order=str(order))
    assert compiling.kernel_alongside(game, None) == str(order)
    assert compiling.kernel_alongside(game, None, threads=1) == ""
    assert compiling.kernel_alongside(game, {"random"}) == ""    # its kernel is compiled here
    named = []
    naming = compile_order.naming_what_compiles

    def naming_recorded(fd):
        named.append(fd)
        return naming(fd)

    monkeypatch.setattr(compile_order, "naming_what_compiles", naming_recorded)
    played = []
    compiling.compile_first(game, ["hold-at", "random"], lambda: played.append("game"),
                            quiet=True, play_kernel=lambda: played.append("kernel"))
    assert played == ["kernel", "game"]
    assert len(started) == 1 and compiling.KERNEL_FLAG in started[0].args
    assert len(named) == 1, "the run named nothing to the second process"
    assert list(folder.rglob("*hold_at_policy*.nbi")), "the bots were not waited for"


def test_a_second_process_that_ends_first_is_no_error(tmp_path, monkeypatch, started):
    """The second process may end while the run still compiles (its order unreadable, as
    with another numba; or it crashed): the names the run writes then go nowhere, and the run
    goes on as if it had none."""
    import sim
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache" / sim.code_key()))
    order = tmp_path / "order.json"
    compile_order.save(order, "dice-race", {"numba": "0.0", "types": {}, "modules": [],
                                            "sources": "", "functions": []})
    with compiling.compiling_alongside("dice-race", [], str(order)):
        assert started[0].wait(timeout=600) == 0       # its list unreadable: nothing to do
        for k in range(3):                             # names for a pipe nobody reads
            njit(lambda x, k=k: x + k)(1)


def test_the_kernel_goes_first_where_the_bots_are_the_smaller_part():
    """By the measured figures (results/compile_seconds.json): First Ascent's `planner` (6 s)
    is compiled after the kernel's far end (18 s), All-In Ascent's `tuned` (14.5 s) before
    the kernel's (6 s); a game without figures keeps the bots first."""
    assert compiling.compiles_kernel_first(get_game("first-ascent"), ["planner"])
    assert not compiling.compiles_kernel_first(get_game("all-in-ascent"), ["tuned"])
    assert not compiling.compiles_kernel_first(get_game("dice-race"), ["hold-at"])


def test_the_run_compiles_the_search_first_where_the_rollout_bot_keeps_the_other_busy():
    """By the measured figures: All-In Ascent's `mcts-tuned` rolls out the tuned planner
    (12 s against a 6 s kernel), so the run compiles its search before the kernel while the
    second process compiles the planner; so does Ascension's `mcts-hybrid`. Ascension's
    `mcts` (random rollouts) and bots without parts keep the kernel first; a game without
    figures too."""
    assert compiling.compiles_search_first(get_game("all-in-ascent"), ["mcts-tuned@8"])
    assert compiling.compiles_search_first(get_game("ascension"), ["mcts-hybrid"])
    assert not compiling.compiles_search_first(get_game("ascension"), ["mcts"])
    assert not compiling.compiles_search_first(get_game("ascension"), ["mcts-hybrid", "mcts"])
    assert not compiling.compiles_search_first(get_game("all-in-ascent"), ["tuned"])
    assert not compiling.compiles_search_first(get_game("dice-race"), ["hold-at"])


@pytest.mark.parametrize("search_first, order", [(True, ["search", "kernel"]),
                                                 (False, ["kernel", "search"])])
def test_the_run_compiles_its_bots_last_parts_before_or_after_its_kernel(
        monkeypatch, search_first, order):
    """compiling_alongside's `search_first` puts the run's share of the bots (the search) on
    the way in, before the kernel's game, and still waits for the second process's bots."""
    def second_process(*args, **kwargs):     # says its bots are done, then waits to be stopped
        return subprocess.Popen(
            [sys.executable, "-c",
             f"import sys; print({compiling.BOTS_DONE!r}, flush=True); sys.stdin.read()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    events = []
    monkeypatch.setattr(compiling, "_start_second_process", second_process)
    monkeypatch.setattr(compiling, "_compile_last_parts",
                        lambda game_name, bots: events.append("search"))
    with compiling.compiling_alongside("dice-race", ["hold-at"], "order.json", False,
                                       search_first):
        events.append("kernel")
    assert events == order
