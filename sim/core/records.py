"""Helpers every game's record builder (sim/games/<game>/records.py) shares."""
import numpy as np


def column(records, index):
    """One field of every game's record, as int64 (records are int32 to save memory)."""
    return records[:, index].astype(np.int64)
