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
"""
from numba import njit


def njit_noalloc(*args, **options):
    """njit(cache=True) without numba's runtime: the function may not allocate.

    Use as `@njit_noalloc` or `@njit_noalloc(signature, inline=...)`."""
    if len(args) == 1 and callable(args[0]) and not options:
        return njit(cache=True, _nrt=False)(args[0])
    return njit(*args, cache=True, _nrt=False, **options)
