"""The per-action game code is compiled without numba's reference counting (sim/core/jit.py)."""
import numpy as np
import pytest
from llvmlite.binding import Linkage
from numba.core.codegen import CPUCodeLibrary, JITCodeLibrary
from numba.core.compiler import Compiler
from numba.core.registry import CPUDispatcher

from policies.all_in_ascent import helpers as aia_helpers
from policies.all_in_ascent import planner as aia_planner
from policies.ascension import board as asc_board
from policies.ascension import builder as asc_builder
from policies.ascension import random_policy as asc_random
from policies.ascension import staircase as asc_staircase
from policies.ascension import strategic as asc_strategic
from policies.first_ascent import greedy as fa_greedy
from policies.first_ascent import planner as fa_planner
from sim.core.jit import (
    CalleeCodeLibrary, CalleeCompiler, EntryCodeLibrary, cheap_module_pipeline, compile_noalloc,
    copy_into, njit_noalloc)
from sim.games.all_in_ascent import engine as all_in_engine
from sim.games.all_in_ascent import kernel as all_in_kernel
from sim.games.all_in_ascent import probability as aia_probability
from sim.games.ascension import engine as asc_engine
from sim.games.ascension import kernel as asc_kernel
from sim.games.ascension import view as asc_view
from sim.games.first_ascent import engine as fa_engine

# per module, the only compiled functions that allocate: once a game (setup, new_state), a
# convenience for Python and tests (First Ascent's plan_payment; All-In Ascent's success_count
# and climb_success_probability, whose _in forms take the bots' work memory), a table built
# with the rules (_joint_distribution), or a search's sampler outside the per-action path
# (Ascension's sample_state)
ALLOCATING = {
    fa_engine: {"setup", "plan_payment"}, all_in_engine: {"setup"},
    asc_engine: {"setup", "new_state"}, asc_view: {"sample_state"},
    aia_probability: {"success_count", "climb_success_probability", "_joint_distribution"},
}

def dispatchers(module):
    """The compiled functions a module defines; for a package (First Ascent's engine), the
    ones its modules define."""
    return {name: f for name, f in vars(module).items()
            if isinstance(f, CPUDispatcher)
            and (f.py_func.__module__ == module.__name__
                 or f.py_func.__module__.startswith(module.__name__ + ".")
                 and hasattr(module, "__path__"))}


@pytest.mark.parametrize("module", [
    fa_engine, all_in_engine, fa_greedy, fa_planner, asc_engine, asc_view, asc_board,
    asc_builder, asc_staircase, asc_strategic, asc_random, aia_probability, aia_helpers,
    aia_planner])
def test_engine_functions_are_compiled_without_refcounting(module):
    found = dispatchers(module)
    assert len(found) >= 3
    allocating = ALLOCATING.get(module, set())
    assert allocating <= set(found)
    with_runtime = sorted(name for name, f in found.items()
                          if f.targetoptions.get("_nrt", True) and name not in allocating)
    assert with_runtime == []


@pytest.mark.parametrize("kernel", [all_in_kernel, asc_kernel])
def test_per_action_kernel_functions_are_noalloc(kernel):
    for name in ("choose_action", "play_game"):
        assert getattr(kernel, name).targetoptions["_nrt"] is False, name


def test_an_allocation_in_a_noalloc_function_fails_to_compile():
    @njit_noalloc
    def allocates(n):
        return np.zeros(n, np.int64).sum()

    with pytest.raises(Exception, match="NRT|nopython"):
        allocates(3)


def test_a_noalloc_function_runs_on_callers_buffers():
    @njit_noalloc
    def fill(out, value):
        view = out[1:3]
        for i in range(view.shape[0]):
            view[i] = value
        return out[0] + view[0]

    out = np.zeros(4, np.int64)
    assert fill(out, 5) == 5
    assert list(out) == [0, 5, 5, 0]


def test_a_bot_held_as_a_constant_keeps_its_compiled_address():
    """A jitted function may hold a bot as a constant. numba lowers a Dispatcher constant of
    function type without its address and asks Python for it at every call (GIL included);
    as_function_value's value carries the address, so calls through it are native."""
    from numba import njit, types
    from numba.core.types.function_type import WrapperAddressProtocol

    from sim.core.policies import as_function_value

    @njit
    def add_one(x):
        return x + 1

    value = as_function_value(add_one, types.int64(types.int64))
    assert isinstance(value, WrapperAddressProtocol) and value.__wrapper_address__() > 0
    assert not add_one._can_compile         # one signature and no more
    held = (value,) * 2

    @njit
    def call_held(x):
        return held[1](x)
    assert call_held(41) == 42


def test_constant_int_arguments_share_one_compiled_version():
    """numba types a constant at a call site as a literal and would compile a copy of the callee
    for each constant (First Ascent's `ask` had 21); njit_noalloc compiles one per types."""
    @njit_noalloc
    def scaled(x, k):
        return x * k

    @njit_noalloc
    def two_sites(x):
        return scaled(x, 2) + scaled(x, 3)

    assert two_sites(5) == 25
    assert len(scaled.overloads) == 1


def test_copy_into_copies_one_vector_into_another_of_its_length():
    """copy_into stands in for `dest[:] = src` in compiled code (whose shape check compiled
    numba's string formatting into every search): the same copy, and two lengths refused with
    a constant message. Within a function compiled without numba's runtime (as copy_into
    is), numba refuses the slice assignment itself."""
    from numba import njit

    @njit(cache=False)
    def copied(src):
        dest = np.zeros(src.shape[0], np.int64)
        copy_into(dest, src)
        return dest

    assert copied(np.arange(4)).tolist() == [0, 1, 2, 3]
    rows = np.zeros((2, 3))
    copy_into(rows[1], np.ones(3))
    assert rows.tolist() == [[0, 0, 0], [1, 1, 1]]
    with pytest.raises(ValueError, match="differ in length"):
        copy_into(np.zeros(3, np.int64), np.arange(4))

    def slice_assigned(dest, src):
        dest[:] = src
    with pytest.raises(Exception, match="NRT required but not enabled"):
        compile_noalloc(slice_assigned, cache=False)(np.zeros(3), np.ones(3))


def test_constant_bool_arguments_keep_a_version_per_mode():
    @njit_noalloc
    def pick(x, double):
        return 2 * x if double else x

    @njit_noalloc
    def both_modes(x):
        return pick(x, True) + pick(x, False)

    assert both_modes(5) == 15
    assert len(pick.overloads) == 2


def test_one_copy_widens_constant_bools_too():
    """one_copy: a function whose flags pick cheap branches (All-In Ascent's apply_dice_gear,
    three copies and 1.8 s of a first game's compile) gets one version for every flag value."""
    @njit_noalloc(one_copy=True)
    def pick(x, double):
        return 2 * x if double else x

    @njit_noalloc
    def both_modes(x, flag):
        return pick(x, True) + pick(x, False) + pick(x, flag)

    assert both_modes(5, True) == 25
    assert len(pick.overloads) == 1


def test_noalloc_helpers_have_no_c_wrapper_but_bots_do():
    """Only a function used as a first-class value (a bot) needs numba's C-callable wrapper."""
    from sim.core.policies import compiled_on_use
    from sim.games.first_ascent.engine.common import ch

    assert ch.targetoptions["no_cfunc_wrapper"] is True

    @compiled_on_use(None, noalloc=True)
    def bot(x):
        return x

    assert "no_cfunc_wrapper" not in bot.targetoptions


def test_a_helper_without_the_wrapper_is_refused_as_a_function_value():
    """Called by address without the wrapper, numba would raise 'function address is null' at
    the first call, deep in a game."""
    from numba import types

    from sim.core.policies import as_function_value

    @njit_noalloc
    def helper(x):
        return x

    @njit_noalloc(first_class=True)
    def agent(x):
        return x + 1

    with pytest.raises(TypeError, match="first_class=True"):
        as_function_value(helper, types.int64(types.int64))
    assert as_function_value(agent, types.int64(types.int64)) is not None


def test_a_bot_that_fails_to_compile_fails_again_at_its_next_use():
    """Its signature is kept until it compiles: forgotten at the first try, the second call
    would hand back a dispatcher that compiles for any argument types."""
    from numba import types
    from numba.core.errors import TypingError

    from sim.core.policies import compile_waiting, compiled_on_use

    @compiled_on_use(types.int64(types.int64), cache=False)
    def broken(x):
        return x + "not a number"

    for _ in range(2):
        with pytest.raises(TypingError):
            compile_waiting(broken)
    assert broken.signatures == []


# Compiled only by the test below, and never cached: a function loaded from the cache brings
# its machine code, not the code the test reads.
def _countdown(n):
    # recursive, so that LLVM cannot inline it whole: a copy stays in its callers' code
    return 0 if n <= 0 else 1 + countdown(n - 1)


def _sum_below(n):
    total = 0
    for i in range(n):
        total += countdown(i)
    return total


def _sum_below_alone(n):
    return sum_below(n)


def _entry(n):
    return sum_below(n) + 1


countdown = compile_noalloc(_countdown, cache=False)
sum_below = compile_noalloc(_sum_below, cache=False)
sum_below_alone = compile_noalloc(_sum_below_alone, optimised_alone=True, cache=False)
entry = compile_noalloc(_entry, first_class=True, cache=False)


def test_only_an_entry_points_code_gets_llvms_whole_pipeline(monkeypatch):
    """A callee's code is finished with numba's cheap module pipeline, an entry point's (a
    function value, or optimised_alone) with the whole one (a callee too on a numba without a
    cheap pipeline); a rebuilt dispatcher (a Dask worker's) decides the same. An entry point's
    linked copies are private to its code, and shared with its callers as numba shares them."""
    whole = []
    original = JITCodeLibrary._optimize_final_module

    def recording(self):
        whole.append(self.name)
        original(self)
    monkeypatch.setattr(JITCodeLibrary, "_optimize_final_module", recording)
    assert entry(5) == 11 and sum_below_alone(5) == 10 and countdown(3) == 3

    def library(dispatcher):
        (compiled,) = dispatcher.overloads.values()
        return compiled.library
    assert type(library(countdown)) is CalleeCodeLibrary
    assert type(library(sum_below)) is CalleeCodeLibrary
    assert type(library(entry)) is EntryCodeLibrary
    assert type(library(sum_below_alone)) is EntryCodeLibrary
    assert "_entry" in whole and "_sum_below_alone" in whole
    cheap = cheap_module_pipeline(library(entry)._codegen) is not None
    assert ("_countdown" in whole) is not cheap and ("_sum_below" in whole) is not cheap
    for dispatcher, pipeline in [(countdown, CalleeCompiler), (sum_below, CalleeCompiler),
                                 (entry, Compiler), (sum_below_alone, Compiler)]:
        rebuilt = type(dispatcher)(dispatcher.py_func, dispatcher.locals,
                                   dispatcher.targetoptions)
        assert rebuilt._compiler.pipeline_class is pipeline

    code = library(entry)
    assert any("_countdown" in name for name in code._private_copies)
    shared = code._get_module_for_linking()
    for name in code._private_copies:
        assert code._final_module.get_function(name).linkage == Linkage.internal
        assert shared.get_function(name).linkage == Linkage.linkonce_odr


def _callee_and_its_caller(factor):
    """A callee (factor * x) and an entry point that calls it (+ 1), compiled on first use."""
    def times(x):
        return factor * x

    callee = compile_noalloc(times, cache=False)

    def plus_one(x):
        return callee(x) + 1

    return callee, compile_noalloc(plus_one, first_class=True, cache=False)


tripled, tripled_plus_one = _callee_and_its_caller(3)


def test_a_callee_gets_machine_code_only_when_python_calls_it():
    """A callee's code is linked into its callers as LLVM code; its own machine code is
    generated only if Python calls it, by a stand-in entry point, which then hands every
    call to numba's own."""
    assert tripled_plus_one(4) == 13
    (compiled,) = tripled.overloads.values()
    assert type(compiled.library) is CalleeCodeLibrary
    assert compiled.library._machine_code_pending
    assert tripled(4) == 12 and tripled(-2) == -6
    assert not compiled.library._machine_code_pending
    (entry_code,) = tripled_plus_one.overloads.values()
    assert not getattr(entry_code.library, "_machine_code_pending", False)


doubled, doubled_plus_one = _callee_and_its_caller(2)


def test_a_callee_gets_its_python_entry_point_only_when_python_calls_it():
    """numba writes a Python entry point for every function; a callee's is written at its
    first call from Python, so its callers never link it in (CalleeLower)."""
    def defined(module, name):
        return any(f.name == name and not f.is_declaration for f in module.functions)
    assert doubled_plus_one(4) == 9
    (compiled,) = doubled.overloads.values()
    entry = compiled.fndesc.llvm_cpython_wrapper_name
    library = compiled.library
    assert not defined(library._final_module, entry)
    assert not defined(library._get_module_for_linking(), entry)
    (caller,) = doubled_plus_one.overloads.values()
    assert not any(entry == f.name for f in caller.library._final_module.functions)
    assert doubled(4) == 8 and doubled(-3) == -6
    assert defined(library._final_module, entry) and library._python_entries() == (entry,)
    assert not defined(library._get_module_for_linking(), entry)     # nor later callers
    from numba import njit
    assert njit(lambda x: doubled(x) * 10)(5) == 100
    name, kind, data = library.serialize_using_object_code()
    assert kind == CalleeCodeLibrary.CACHED_WITH_ENTRY and data[-1] == (entry,)


_CACHED_CALLEES = '''
from sim.core.jit import njit_noalloc

@njit_noalloc
def halve(x):
    if x % 2:
        raise ValueError("halve: odd")
    return x // 2

@njit_noalloc
def quarter(x):
    return halve(halve(x))

@njit_noalloc(first_class=True)
def quarter_plus_one(x):
    return quarter(x) + 1
'''

_FIRST_PROCESS = '''
import cached_callees as m
assert m.quarter_plus_one(8) == 3
(compiled,) = m.quarter.overloads.values()
assert compiled.library._machine_code_pending
'''

_SECOND_PROCESS = '''
import pytest
from numba import njit
from sim.core.jit import CalleeCodeLibrary
import cached_callees as m
assert m.quarter(8) == 2
(compiled,) = m.quarter.overloads.values()
assert type(compiled.library) is CalleeCodeLibrary and m.quarter.stats.cache_hits
with pytest.raises(ValueError, match="halve: odd"):
    m.halve(3)
assert njit(lambda x: m.quarter(x) * 10)(16) == 40     # a new caller links the cached code
assert m.quarter_plus_one(12) == 4 and m.quarter_plus_one.stats.cache_hits
'''

_THIRD_PROCESS = '''
from sim.core.jit import CalleeCodeLibrary
import cached_callees as m
assert m.quarter(8) == 2 and m.quarter.stats.cache_hits
(compiled,) = m.quarter.overloads.values()
assert type(compiled.library) is not CalleeCodeLibrary      # its machine code came cached
'''


def test_a_cached_callee_is_kept_as_code_and_runs_when_loaded(tmp_path):
    """numba's cache keeps a callee without machine code as its LLVM code: another process
    loads it, calls it from Python (its exceptions included), and links it into a new
    caller. Once Python has called it, it is cached with its machine code, which the next
    process loads."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    (tmp_path / "cached_callees.py").write_text(_CACHED_CALLEES)
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(tmp_path), str(root)]))
    for script in (_FIRST_PROCESS, _SECOND_PROCESS, _THIRD_PROCESS):
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                              text=True)
        assert done.returncode == 0, done.stderr


def _shouted(x):
    print("shouted", x)
    return x + 1


def _shouted_twice(x):
    return shouted(x) * 2


shouted = compile_noalloc(_shouted, cache=False)
shouted_twice = compile_noalloc(_shouted_twice, first_class=True, cache=False)


def test_a_callee_without_machine_code_still_gives_its_callers_its_environment(capfd):
    """A callee's code reads its environment where it uses Python (a print): an entry point
    compiled in the same process links that code, and the environment is set once the entry
    point's code is in the JIT, though the callee's own is not (the global waits)."""
    assert shouted_twice(3) == 8
    (compiled,) = shouted.overloads.values()
    assert compiled.library._machine_code_pending
    assert shouted(5) == 6 and shouted_twice(4) == 10
    assert capfd.readouterr().out.split("\n")[:3] == ["shouted 3", "shouted 5", "shouted 4"]


def _even(n):
    if n == 0:
        return True
    return odd(n - 1)


def _odd(n):
    if n == 0:
        return False
    return even(n - 1)


def _parity(n):
    return even(n)


even = compile_noalloc(_even, cache=False)
odd = compile_noalloc(_odd, cache=False)
parity = compile_noalloc(_parity, first_class=True, cache=False)


def test_callees_that_call_each_other_get_their_machine_code_as_numba_gives_it():
    """Recursion through another callee leaves a call numba's runtime linker binds once the
    callee's own code is in the JIT, so such callees get their machine code at once."""
    assert parity(7) is False and parity(10) is True
    (compiled,) = even.overloads.values()
    assert not compiled.library._machine_code_pending
    assert odd(3) is True


def test_a_callee_generated_late_keeps_its_copies_private_and_shares_them():
    """Once Python has called a callee, the copies of its callees in its machine code are
    private to it (no two definitions of one name in the JIT); callers linking it later still
    get them as numba shares them (linkonce_odr)."""
    assert halvings_both_ways(16) == 8
    (compiled,) = halvings_both_ways.overloads.values()
    library = compiled.library
    assert not library._machine_code_pending
    defined = [f for f in library._final_module.functions if not f.is_declaration]
    assert defined and not [f for f in defined if f.linkage == Linkage.linkonce_odr]
    shared = library._get_module_for_linking()
    assert any(f.linkage == Linkage.linkonce_odr and "halvings" in f.name and
               "both_ways" not in f.name for f in shared.functions if not f.is_declaration)


class _Interrupted(BaseException):
    """Stands for Ctrl-C (KeyboardInterrupt) in the middle of numba's work."""


@pytest.mark.parametrize("where", ["before the JIT", "in the JIT"])
def test_a_first_call_interrupted_while_its_machine_code_is_made_can_be_called_again(
        monkeypatch, where):
    """Ctrl-C (or a MemoryError) while a callee's machine code is generated on its first call
    from Python: that call fails, the next one generates the code and runs it. The callee was
    marked done before the work, and the next call jumped to address 0 (a crash)."""
    def checked_plus_one(x):
        if x < 0:
            raise ValueError("checked_plus_one: negative")
        return x + 1

    callee = compile_noalloc(checked_plus_one, cache=False)

    def twice(x):
        return callee(callee(x))

    caller = compile_noalloc(twice, first_class=True, cache=False)
    assert caller(1) == 3                   # compiles both; no machine code for the callee
    (compiled,) = callee.overloads.values()
    assert compiled.library._machine_code_pending
    state = {"armed": True}
    cls, step = (CPUCodeLibrary, "_finalize_final_module") if where == "before the JIT" \
        else (JITCodeLibrary, "_finalize_specific")
    numba_step = getattr(cls, step)

    def interrupted(library):
        if state["armed"] and library is compiled.library:
            state["armed"] = False
            raise _Interrupted()
        return numba_step(library)

    monkeypatch.setattr(cls, step, interrupted)
    with pytest.raises(_Interrupted):
        callee(1)
    assert not state["armed"]
    assert callee(2) == 3 and callee(5) == 6
    with pytest.raises(ValueError, match="negative"):
        callee(-1)
    assert not compiled.library._machine_code_pending


def test_a_first_call_interrupted_after_the_entry_point_is_linked_still_caches_it(monkeypatch):
    """Ctrl-C just after a callee's Python entry point joined its code: the next call runs,
    and numba's cache entry still names the entry point, which the code callers link does not
    define (a later process got address 0 for it: a crash). A review found it."""
    def plus_two(x):
        return x + 2

    callee = compile_noalloc(plus_two, cache=False)
    caller = compile_noalloc(lambda x: callee(x) * 2, first_class=True, cache=False)
    assert caller(1) == 6
    (compiled,) = callee.overloads.values()
    state = {"armed": True}
    link = CalleeCodeLibrary._link_python_entry

    def interrupted(library):
        link(library)
        if state["armed"] and library is compiled.library:
            state["armed"] = False
            raise _Interrupted()

    monkeypatch.setattr(CalleeCodeLibrary, "_link_python_entry", interrupted)
    with pytest.raises(_Interrupted):
        callee(1)
    assert callee(1) == 3
    name, kind, data = compiled.library.serialize_using_object_code()
    assert kind == CalleeCodeLibrary.CACHED_WITH_ENTRY
    assert data[-1] == (compiled.fndesc.llvm_cpython_wrapper_name,)


def test_a_nogil_callee_s_entry_point_releases_the_gil_also_when_loaded_from_the_cache():
    """A callee loaded from numba's cache was not lowered in this process: its entry point
    takes nogil from its dispatcher (it had been built holding the GIL). A review found it."""
    def minus_one(x):
        return x - 1

    callee = compile_noalloc(minus_one, cache=False, nogil=True)
    caller = compile_noalloc(lambda x: callee(x) + 10, first_class=True, cache=False)
    assert caller(5) == 14
    (compiled,) = callee.overloads.values()
    assert callee(5) == 4
    assert "PyEval_SaveThread" in str(compiled.library._final_module)


def _labs():
    import ctypes
    import ctypes.util
    labs = ctypes.CDLL(ctypes.util.find_library("c")).labs
    labs.restype = ctypes.c_long
    labs.argtypes = [ctypes.c_long]
    return labs


_LABS = _labs()


def _absolute(x):
    return _LABS(x)


absolute = compile_noalloc(_absolute)


def test_a_callee_numba_cannot_cache_is_not_offered_to_its_cache_again(recwarn):
    """numba does not cache code that holds a ctypes pointer, and warns once when it compiles
    it. The save after a callee's first call from Python offered it again, and numba warned a
    second time."""
    assert absolute(-7) == 7 and absolute(3) == 3
    assert len([w for w in recwarn if "dynamic globals" in str(w.message)]) == 1


def _halvings(x):
    if x < 2:
        return 0
    return 1 + halvings(x // 2)


def _halvings_both_ways(x):
    return halvings(x) + halvings(x + 1)


# the callee recurses, so that its copy survives in its caller's code: a small one LLVM
# inlines whole where numba has no cheap pipeline (numba 0.60), and there is no copy to check
halvings = compile_noalloc(_halvings, cache=False)
halvings_both_ways = compile_noalloc(_halvings_both_ways, cache=False)


def test_compiled_specializations_finds_code_a_cold_start_froze():
    """A cold start freezes what its compile made (sim/core/compiling.py), and gc.get_objects
    leaves frozen objects out: the tools that read the compiled code (the string-code checks,
    benchmarks/jit_profile.py) found nothing after one in the same process."""
    import gc

    from numba import njit

    from sim.core.jit import compiled_specializations

    @njit(cache=False)
    def plus_three(x):
        return x + 3
    assert plus_three(1) == 4
    gc.freeze()
    try:
        found = [d for d, _ in compiled_specializations() if d is plus_three]
        assert found == [plus_three]
        assert gc.get_freeze_count() > 0            # frozen again after the listing
    finally:
        gc.unfreeze()
