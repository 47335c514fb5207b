"""Named blocks of a flat array: how every game lays out its state, its packed rules and its
data tables (a name and a length per block, offsets assigned in order). Kernels read the
resulting offsets as module constants, which numba freezes at compile time."""


def layout(blocks, start=0):
    """[(name, length), ...] -> ({name: offset}, the offset after the last block)."""
    offsets, at = {}, start
    for name, length in blocks:
        if name in offsets:
            raise ValueError(f"block {name!r} is declared twice")
        offsets[name] = at
        at += length
    return offsets, at
