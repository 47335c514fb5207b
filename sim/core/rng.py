"""Random streams shared by all games.

mulberry32 is the All-In Ascent designers' generator (RULES.md R5-R8). Its 32-bit state is
kept by the caller (in a game's state vector), so that a game is one continuous stream that
can be copied, saved and compared. The integer forms below are exact equivalents of the
designers' float arithmetic: `floor((k / 2**32) * n) == (k * n) >> 32` because both products
are exact in a double.

Policies never touch a game's stream. They draw from their own splitmix64 stream, whose state
lives in a one-element uint64 array that the policy owns.
"""
import numpy as np
from numba import njit

MASK32 = 0xFFFFFFFF
MULBERRY32_INCREMENT = 0x6D2B79F5


@njit(cache=True, inline="always")
def mulberry32_step(state):
    """One mulberry32 draw (R5). Returns (new state, 32-bit output k); the float is k / 2**32."""
    s = (state + MULBERRY32_INCREMENT) & MASK32
    t = s
    t = ((t ^ (t >> 15)) * (t | 1)) & MASK32
    t = t ^ ((t + (((t ^ (t >> 7)) * (t | 61)) & MASK32)) & MASK32)
    return s, (t ^ (t >> 14)) & MASK32


@njit(cache=True, inline="always")
def scale_draw(k, n):
    """floor((k / 2**32) * n): the index a draw k selects among n items (R7 pick, rollDie)."""
    return (k * n) >> 32


def mulberry32_floats(seed, count):
    """Reference generator in plain Python: the first `count` floats of mulberry32(seed)."""
    state = to_uint32(seed)
    out = []
    for _ in range(count):
        state, k = mulberry32_step(state)
        out.append(k / 2**32)
    return out


def to_uint32(seed):
    """JavaScript ToUint32 (R6): truncate toward zero, then reduce modulo 2**32."""
    if isinstance(seed, bool) or not isinstance(seed, (int, float, np.integer, np.floating)):
        raise TypeError(f"seed must be a finite number, got {seed!r}")
    if isinstance(seed, (float, np.floating)):
        if not np.isfinite(seed):
            raise ValueError(f"seed must be a finite number, got {seed!r}")
        seed = int(seed)  # int() truncates toward zero, as ToUint32 does
    return int(seed) % 2**32


# --- splitmix64: the policies' own streams -------------------------------------------------

MASK64 = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True, inline="always")
def splitmix64_next(stream):
    """Advance a policy stream (a one-element uint64 array) and return 64 random bits."""
    z = stream[0] + np.uint64(0x9E3779B97F4A7C15)
    stream[0] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def stream_below(stream, n):
    """A uniform integer in [0, n) from a policy stream (n >= 1; multiply-shift on 32 bits)."""
    bits = splitmix64_next(stream) >> np.uint64(32)
    return np.int64((bits * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, inline="always")
def stream_uniform(stream):
    """A float in [0, 1) with 53 random bits, from a policy stream."""
    return np.float64(splitmix64_next(stream) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
