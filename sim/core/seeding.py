"""From one master seed to every game's seeds.

A game's result is a pure function of (rules, seats, policies, master seed, game index). This
module is the only place where (master seed, game index) becomes numbers:
- the game seed, which seeds the game's own mulberry32 stream;
- the seat-assignment stream (which characters sit where when they are drawn at random);
- one policy stream per seat, derived from (game seed, seat).

`fmix32` (MurmurHash3's finaliser) is a bijection on 32-bit integers, so for a fixed master seed
the map game index -> game seed is a bijection: no two games of one run share a seed (up to
2**32 games).
"""
import numpy as np
from numba import njit

MASK32 = 0xFFFFFFFF


@njit(cache=True)
def fmix32(h):
    h &= MASK32
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & MASK32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & MASK32
    h ^= h >> 16
    return h


@njit(cache=True)
def master_key(master_seed):
    """Fold a master seed (0 .. 2**63-1, an int64) into a 32-bit key."""
    lo = master_seed & MASK32
    hi = (master_seed >> 32) & MASK32
    return fmix32(lo ^ fmix32(hi ^ 0x5BD1E995))


@njit(cache=True)
def game_seed(master_seed, game_index):
    """Seed of game `game_index` of a run: a bijection of the index for each master seed."""
    return fmix32((game_index + master_key(master_seed)) & MASK32)


@njit(cache=True)
def game_stream_seed(game_seed_value, k):
    """The mulberry32 state of a game's k-th own stream (k >= 1; stream 0 is the game seed
    itself), for a game that gives each kind of chance its own stream (First Ascent: setup,
    Risk Die, draws): a bijection of the game seed for each k."""
    return fmix32((game_seed_value & MASK32) ^ fmix32(0x9E3779B9 * k))


@njit(cache=True)
def derive_seed(m, r):
    """The designers' harness seed `deriveSeed(m, r)` (RULES.md R9), for reproducing their runs."""
    return fmix32((m * 2654435761) ^ (r * 40503))


@njit(cache=True)
def _mix64(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


# Domain tags keep the streams derived from one seed apart from each other.
POLICY_DOMAIN = 0x504F4C4943590000  # "POLICY"
SEATING_DOMAIN = 0x5345415400000000  # "SEAT"


@njit(cache=True)
def policy_stream_seed(game_seed_value, seat):
    """Initial state of seat `seat`'s policy stream in the game with seed `game_seed_value`."""
    return _mix64(np.uint64(POLICY_DOMAIN) ^ (np.uint64(game_seed_value) << np.uint64(8))
                  ^ np.uint64(seat))


@njit(cache=True)
def policy_streams(game_seed_value, seats):
    """A new (seats, 1) array whose row s is seat s's policy stream in that game."""
    streams = np.empty((seats, 1), np.uint64)
    for seat in range(seats):
        streams[seat, 0] = policy_stream_seed(game_seed_value, seat)
    return streams


@njit(cache=True)
def seating_stream_seed(master_seed, game_index):
    """Initial state of the stream that draws a game's characters when they are random."""
    return _mix64(np.uint64(SEATING_DOMAIN) ^ np.uint64(master_key(master_seed))
                  ^ (np.uint64(game_index) << np.uint64(32)))
