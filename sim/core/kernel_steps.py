"""Steps every game's batch kernel takes the same way, compiled once here.

Every kernel keeps principle 2: a game depends only on its own row of the kernel's inputs
(seed, seats, characters), never on its index in the batch, the thread or the chunk. A kernel
plays each game from its own seed to its end, may write the actions it took (the
single-game API replays them), and keeps the state's record prefix in one row of an int32
table (the record layout is the state's first fields: records.py reads them by name).
Neither allocates, so both serve kernels compiled without numba's runtime (jit.py).
"""
from sim.core.jit import njit_noalloc


@njit_noalloc(inline="always")
def note_action(actions_out, taken, action):
    """Write the action if `actions_out` has room (an empty array keeps none); the count
    after it."""
    if taken < actions_out.shape[0]:
        actions_out[taken] = action
    return taken + 1


@njit_noalloc(inline="always")
def keep_record(st, out, i):
    """out[i] = the record prefix of the final state st (out's width is the record size)."""
    for k in range(out.shape[1]):
        out[i, k] = st[k]
