"""sim/core/bits.py: the LLVM bit intrinsics give the integers the Python loops they replaced
gave (the First Ascent engine and planner walk hex sets with them)."""
import numpy as np
from numba import njit

from sim.core.bits import popcount, trailing_zeros


@njit(cache=True)
def _counted(values, out):
    for i in range(values.shape[0]):
        out[i, 0] = popcount(values[i])
        low = values[i] & -values[i]
        out[i, 1] = trailing_zeros(low) if low != 0 else -1
    return out


def _loop_popcount(x):
    return bin(x & (2**64 - 1)).count("1")


def _loop_lowest_bit(x):
    x &= 2**64 - 1
    if x == 0:
        return -1
    return (x & -x).bit_length() - 1


def test_popcount_and_lowest_bit_match_the_loops_on_every_kind_of_int64():
    draws = np.random.default_rng(7)
    values = np.concatenate([
        draws.integers(-2**63, 2**63 - 1, size=2000, dtype=np.int64, endpoint=True),
        np.array([0, 1, -1, 2**62, -2**63, 2**43 - 1, 1 << 43], np.int64),
        np.int64(1) << np.arange(64, dtype=np.int64),
    ])
    got = _counted(values, np.zeros((len(values), 2), np.int64))
    assert got[:, 0].tolist() == [_loop_popcount(int(v)) for v in values]
    assert got[:, 1].tolist() == [_loop_lowest_bit(int(v)) for v in values]


def test_a_small_unsigned_or_literal_argument_is_counted_as_its_int64_value():
    @njit
    def small(u):
        return popcount(u), popcount(5), trailing_zeros(np.int64(0))

    assert small(np.uint8(255)) == (8, 2, 64)
