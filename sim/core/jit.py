"""How the hot per-action game code is compiled.

numba's runtime (NRT) counts references to every array a compiled function holds, with an
atomic increment when the function takes it and a decrement when it lets go, and its
refcount-pruning pass removes only some of those pairs (not across loops and early
returns). A First Ascent game makes tens of thousands of such calls: perf put a fifth of a
greedy game's time in NRT_incref/NRT_decref. Functions that never allocate need none of
it, so they are compiled with the runtime off.

`njit_noalloc` is `njit(cache=True)` with numba's `_nrt=False` target option (a private
option, used the same way in numba's own refcount tests). numba then refuses, at compile
time, any allocation inside such a function and any call from it into a function that
allocates, so the guarantee is checked, not assumed. Work memory comes from buffers the
caller allocated once per game (the engine's scratch, a policy's `work`).

Its functions are also compiled once per argument types, not once per constant argument
(a literal boolean excepted, see `_widened`). numba types a constant at a call site
(`ask(..., D_CHALKBAG, 2)`, `ch(st, t, seat, CH_MAX)`) as a literal, and a plain dispatcher
compiles a separate specialization for every distinct literal: First Ascent's `ask` was
compiled 21 times and `ch` 20 times for one game with random bots, each copy then linked and
optimised again in every caller. LLVM inlines and folds the constants of small callees
anyway, so the copies bought little and cost a large part of the first run's compile time
(results/BENCHMARKS.md, "From an empty cache to the first game").

Nor do they get numba's C-callable wrapper, which only a function used as a first-class
function value needs (the bots, compiled through sim/core/policies.compiled_on_use, and a
search's agents, `first_class=True`). numba otherwise generates one for every function, and
every caller links it in and optimises it again.
"""
from numba import config, njit, types
from numba.core.registry import CPUDispatcher


class OneSpecializationPerTypes(CPUDispatcher):
    """A CPU dispatcher that compiles a call from other compiled code with the arguments'
    plain types: literal ints (and strings) are widened before the specialization is chosen,
    so every call site with the same argument types shares one compiled version."""

    keeps_flags = True

    def get_call_template(self, args, kws):
        args = tuple(_widened(a, self.keeps_flags) for a in args)
        kws = {k: _widened(v, self.keeps_flags) for k, v in kws.items()}
        return super().get_call_template(args, kws)


class OneSpecializationPerTypesAndFlags(OneSpecializationPerTypes):
    """The same, with literal booleans widened too (njit_noalloc(one_copy=True)). A class, not
    a flag set on the dispatcher, so that a dispatcher rebuilt from a pickle keeps it."""

    keeps_flags = False


def _widened(argument_type, keeps_flags=True):
    """A literal's plain type, except a literal boolean (unless `keeps_flags` is off): a flag
    chooses a mode (a milestone attempt or a climb, a trial or the real move), and the copy
    compiled for each mode drops the other mode's branches from the hot loops. With its flags
    widened too, the All-In Ascent planner ran 10.5% slower side by side
    (benchmarks/compare_commits.py)."""
    if keeps_flags and isinstance(argument_type, types.BooleanLiteral):
        return argument_type
    return types.unliteral(argument_type)


def compile_noalloc(fn, first_class=False, one_copy=False, **options):
    """The dispatcher of njit_noalloc; `first_class` keeps the C-callable wrapper a function
    value needs; `one_copy` widens literal booleans too (see njit_noalloc)."""
    if config.DISABLE_JIT:                 # as numba's own njit does under NUMBA_DISABLE_JIT
        return fn
    targetoptions = dict(options, nopython=True, _nrt=False)
    if not first_class:
        targetoptions["no_cfunc_wrapper"] = True
    targetoptions.setdefault("boundscheck", None)
    kind = OneSpecializationPerTypesAndFlags if one_copy else OneSpecializationPerTypes
    dispatcher = kind(py_func=fn, locals={}, targetoptions=targetoptions)
    dispatcher.enable_caching()
    return dispatcher


def njit_noalloc(*args, **options):
    """njit(cache=True) without numba's runtime, one specialization per argument types: the
    function may not allocate.

    Use as `@njit_noalloc` or `@njit_noalloc(inline=..., first_class=..., one_copy=...)`;
    first_class=True for a function that is handed around as a function value (a search's
    agents); one_copy=True for a function whose flags pick only a few cheap branches, so that
    a copy per literal flag would cost more compile time than its branches cost at play."""
    if len(args) == 1 and callable(args[0]) and not options:
        return compile_noalloc(args[0])
    if args:
        raise TypeError("njit_noalloc takes no signature: it compiles on first use")
    return lambda fn: compile_noalloc(fn, **options)
