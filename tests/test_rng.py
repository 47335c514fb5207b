"""Random streams: mulberry32 (sim/core/rng.py, RULES.md R5-R9 and §12) and the run seeding
(sim/core/seeding.py).

The references here are written from RULES.md (R5, R7, R9) in plain Python integers, not taken
from the code under test.
"""
import math
import random
from collections import Counter

import numpy as np
import pytest

from sim.core.rng import (MULBERRY32_INCREMENT, mulberry32_floats, mulberry32_step, scale_draw,
                          splitmix64_next, stream_below, stream_uniform, to_uint32)
from sim.core.seeding import (derive_seed, fmix32, game_seed, master_key, policy_stream_seed,
                              seating_stream_seed)
from sim.games.all_in_ascent import engine as E
from sim.games.all_in_ascent import state as S
from sim.games.all_in_ascent.game import Game

MASK = 0xFFFFFFFF
INC = 0x6D2B79F5
INC_INV = pow(INC, -1, 2**32)   # INC is odd: the number of draws is recoverable from the state


# --- references written from RULES.md ---------------------------------------------------------

def ref_next(s):
    """R5: one mulberry32 draw; returns (state, k) with the float k / 2**32."""
    s = (s + INC) & MASK
    t = s
    t = ((t ^ (t >> 15)) * (t | 1)) & MASK
    t = t ^ ((t + (((t ^ (t >> 7)) * (t | 61)) & MASK)) & MASK)
    return s, (t ^ (t >> 14)) & MASK


def ref_floats(seed, n):
    s, out = seed, []
    for _ in range(n):
        s, k = ref_next(s)
        out.append(k / 2**32)
    return out


def draws_between(s0, s1):
    """How many draws take state s0 to s1 (each draw adds INC mod 2**32)."""
    return ((s1 - s0) * INC_INV) % 2**32


def ref_shuffle(items, s):
    """R7 shuffle; returns (list, state)."""
    a = list(items)
    for i in range(len(a) - 1, 0, -1):
        s, k = ref_next(s)
        j = math.floor(k / 2**32 * (i + 1))
        a[i], a[j] = a[j], a[i]
    return a, s


# ===== R5 =====================================================================================

def test_mulberry32_12345_first_five():
    # R5, §12
    assert mulberry32_floats(12345, 5) == [0.9797282677609473, 0.3067522644996643,
                                           0.484205421525985, 0.817934412509203,
                                           0.5094283693470061]


def test_mulberry32_1_first_three():
    # R5, §12
    assert mulberry32_floats(1, 3) == [0.6270739405881613, 0.002735721180215478,
                                       0.5274470399599522]


def test_mulberry32_step_matches_the_r5_description():
    # R5: the compiled step equals the description on many states, including states where the
    # 32x32-bit products overflow a signed 64-bit integer and where s + INC wraps.
    rnd = random.Random(5)
    seeds = [0, 1, 42, 12345, 2**31 - 1, 2**31, 2**32 - 1, (-INC) % 2**32, 0x92D68CA2]
    seeds += [rnd.getrandbits(32) for _ in range(40)]
    for seed in seeds:
        s_ref = s = seed
        for _ in range(50):
            s_ref, k_ref = ref_next(s_ref)
            s, k = mulberry32_step(s)
            assert (int(s), int(k)) == (s_ref, k_ref), seed
            assert 0 <= k < 2**32 and 0 <= s < 2**32
        assert mulberry32_floats(seed, 20) == ref_floats(seed, 20)


def test_mulberry32_floats_are_exact_k_over_2_32():
    # R5: u = k / 2**32 exactly, in [0, 1).
    for u in mulberry32_floats(777, 200):
        k = u * 2**32
        assert 0 <= u < 1 and k == int(k)


def test_state_advances_by_the_increment():
    # R5: s <- s + 0x6D2B79F5 at every draw.
    assert MULBERRY32_INCREMENT == INC
    s = 99
    for n in range(1, 10):
        s, _ = mulberry32_step(s)
        assert s == (99 + n * INC) % 2**32
        assert draws_between(99, s) == n


# ===== R6 =====================================================================================

@pytest.mark.parametrize("seed,expected", [
    (-7, 4294967289), (3.9, 3), (2**32 + 5, 5),                      # R6 examples
    (0, 0), (-0.0, 0), (-0.5, 0), (-3.9, 4294967293), (2**32, 0), (2**32 - 1, 2**32 - 1),
    (-(2**32), 0), (1e10, 1410065408), (np.int64(-1), 2**32 - 1), (np.float64(3.9), 3),
    (np.uint32(7), 7),
])
def test_to_uint32(seed, expected):
    # R6
    assert to_uint32(seed) == expected
    assert type(to_uint32(seed)) is int


@pytest.mark.parametrize("seed", [float("nan"), float("inf"), float("-inf"), np.float64("nan")])
def test_to_uint32_rejects_non_finite(seed):
    # R6: createGame requires a finite number.
    with pytest.raises(ValueError):
        to_uint32(seed)


@pytest.mark.parametrize("seed", ["1", "abc", None, True, False, [1], b"1"])
def test_to_uint32_rejects_non_numbers(seed):
    # R6
    with pytest.raises(TypeError):
        to_uint32(seed)


def test_seed_is_reduced_before_the_stream_starts():
    # R6: mulberry32(-7) is mulberry32(4294967289); the game stores the reduced seed.
    assert mulberry32_floats(-7, 5) == ref_floats(4294967289, 5)
    assert mulberry32_floats(3.9, 3) == mulberry32_floats(3, 3)
    g = Game(-7, ["technician", "sprinter"])
    assert g.seed == 4294967289
    assert int(g.state[S.G_SEED]) == 4294967289
    assert int(g.state[S.G_RNG]) == (4294967289 + 85 * INC) % 2**32
    with pytest.raises(ValueError):
        Game(float("nan"), ["technician"])
    with pytest.raises(TypeError):
        Game("1", ["technician"])


# ===== R7 =====================================================================================

ROLLS_SEED_1 = [4, 1, 4, 6, 6, 2, 4, 5, 3, 6]


def test_roll_die_seed_1_from_the_step():
    # R7, §12: rollDie = floor(next() * 6) + 1 = (k * 6 >> 32) + 1.
    s, rolls, rolls_float = 1, [], []
    for _ in range(10):
        s, k = mulberry32_step(s)
        rolls.append((int(k) * 6 >> 32) + 1)
        rolls_float.append(math.floor(int(k) / 2**32 * 6) + 1)
    assert rolls == ROLLS_SEED_1
    assert rolls_float == ROLLS_SEED_1


def test_roll_die_seed_1_in_the_engine():
    # R7: the engine's roll_die on a state vector whose stream state is 1.
    st = S.new_state()
    st[S.G_RNG] = 1
    assert [int(E.roll_die(st)) for _ in range(10)] == ROLLS_SEED_1
    assert draws_between(1, int(st[S.G_RNG])) == 10


def test_scale_draw_is_the_float_formula():
    # R7: floor((k / 2**32) * n) == (k * n) >> 32, including the extreme draws.
    rnd = random.Random(7)
    ks = [0, 1, 2**31, 2**32 - 1, 2**32 - 2] + [rnd.getrandbits(32) for _ in range(300)]
    for n in (1, 2, 3, 5, 6, 10, 14, 22, 23, 25, 26, 31):
        for k in ks:
            idx = int(scale_draw(k, n))
            assert idx == math.floor(k / 2**32 * n)
            assert 0 <= idx < n


def test_pick_uses_one_draw():
    # R7: pick(list) = list[floor(next() * len)]: 1 draw.
    for n in (1, 2, 10, 31):
        st = S.new_state()
        st[S.G_RNG] = 12345
        idx = int(E.pick_index(st, n))
        _, k = ref_next(12345)
        assert idx == math.floor(k / 2**32 * n)
        assert draws_between(12345, int(st[S.G_RNG])) == 1


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 14, 22, 23, 26])
def test_shuffle_uses_n_minus_1_draws(n):
    # R7: shuffle of n uses n-1 draws (none for n <= 1); pickN is a shuffle, whatever n it keeps.
    for seed in (1, 42, 2**32 - 1):
        st = S.new_state()
        st[S.G_RNG] = seed
        items = list(range(100, 100 + n))
        st[E.SHUFFLE_BUF:E.SHUFFLE_BUF + n] = items
        E.shuffle_buffer(st, n)
        expected, s_after = ref_shuffle(items, seed)
        assert [int(x) for x in st[E.SHUFFLE_BUF:E.SHUFFLE_BUF + n]] == expected
        assert int(st[S.G_RNG]) == s_after
        assert draws_between(seed, int(st[S.G_RNG])) == max(n - 1, 0)


# ===== R8 =====================================================================================

@pytest.mark.parametrize("seed", [0, 1, 42, 12345, 2**31, 2**32 - 1, 987654321])
def test_setup_consumes_85_draws(seed):
    # R8: createGame = 3 milestone picks + 25 + 22 + 22 + 13 = 85 draws, whatever the seats.
    assert 3 + 25 + 22 + 22 + 13 == 85
    for chars in (["technician"], ["sprinter", "ironLung"],
                  ["freeSolo", "routeReader", "technician", "sprinter"]):
        g = Game(seed, chars)
        assert int(g.state[S.G_RNG]) == (seed + 85 * INC) % 2**32
        assert draws_between(seed, int(g.state[S.G_RNG])) == 85


def test_setup_seed_1_state_and_seed_12345_next_rolls():
    # R8, §12: after createGame(1) the state is 1064271450; after createGame(12345) the next
    # four rollDie() are 6, 4, 1, 4.
    assert int(Game(1, ["technician", "sprinter"]).state[S.G_RNG]) == 1064271450
    g = Game(12345, ["technician", "sprinter"])
    st = g.state.copy()
    assert [int(E.roll_die(st)) for _ in range(4)] == [6, 4, 1, 4]


# ===== R9 =====================================================================================

@pytest.mark.parametrize("m,r,expected", [
    (0, 0, 0), (1, 0, 301794027), (5, 2, 1655191052), (5, 3, 3287227217)])
def test_derive_seed_examples(m, r, expected):
    # R9
    assert derive_seed(m, r) == expected


def test_derive_seed_matches_the_r9_description():
    # R9: h = (m*2654435761 XOR r*40503) mod 2^32, then the murmur3 finaliser.
    def ref(m, r):
        h = ((m * 2654435761) % 2**32) ^ ((r * 40503) % 2**32)
        h ^= h >> 16
        h = (h * 0x85EBCA6B) % 2**32
        h ^= h >> 13
        h = (h * 0xC2B2AE35) % 2**32
        return h ^ (h >> 16)
    for m in range(0, 60):
        for r in range(0, 25):
            assert derive_seed(m, r) == ref(m, r), (m, r)
    for m, r in ((1000, 7), (65535, 99), (3_000_000, 12)):
        assert derive_seed(m, r) == ref(m, r)


# ===== seeding ================================================================================

def ref_fmix32(h):
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & MASK
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & MASK
    return h ^ (h >> 16)


def inv_xorshift(h, k):
    """Inverse of h ^= h >> k on 32 bits."""
    x = h
    for _ in range(32 // k + 1):
        x = h ^ (x >> k)
    return x


def inv_fmix32(h):
    h = inv_xorshift(h, 16)
    h = (h * pow(0xC2B2AE35, -1, 2**32)) & MASK
    h = inv_xorshift(h, 13)
    h = (h * pow(0x85EBCA6B, -1, 2**32)) & MASK
    return inv_xorshift(h, 16)


MASTERS = [0, 1, 12345, 2**32 - 1, 2**32, 2**40 + 7, 2**63 - 1]


@pytest.mark.parametrize("master", [0, 1, 12345, 2**40 + 7, 2**63 - 1])
def test_game_seed_is_a_bijection_over_the_index(master):
    # 100,000 consecutive games of one run never share a seed.
    seeds = [game_seed(master, i) for i in range(100_000)]
    assert len(set(seeds)) == 100_000
    assert all(0 <= s < 2**32 for s in seeds[:1000])
    # and it is fmix32 of (index + key): the index is recoverable from the seed
    key = master_key(master)
    for i in (0, 1, 99_999, 2**32 - 1 - key, 2**32 - key):
        assert (inv_fmix32(game_seed(master, i)) - key) % 2**32 == i % 2**32


def test_master_seeds_are_limited_to_int64_and_checked():
    """Master seeds are 0 .. 2**63-1; a larger one is refused with a clear error, not wrapped."""
    from sim.games.all_in_ascent.batch import run_games
    with pytest.raises(ValueError, match="2\\*\\*63-1"):
        run_games(1, 2**63 + 5, 2, "random")
    with pytest.raises(ValueError, match="2\\*\\*63-1"):
        run_games(1, -1, 2, "random")
    assert run_games(1, 2**63 - 1, 2, "random").seeds.shape == (1,)


def test_fmix32_is_invertible():
    # fmix32 is a bijection: an explicit inverse, and no collisions on a large sample.
    rnd = random.Random(11)
    sample = [0, 1, 2**31, 2**32 - 1] + [rnd.getrandbits(32) for _ in range(5000)]
    for x in sample:
        y = fmix32(x)
        assert y == ref_fmix32(x)
        assert inv_fmix32(y) == x
    distinct = list({rnd.getrandbits(32) for _ in range(200_000)})
    images = {fmix32(x) for x in distinct}
    assert len(images) == len(distinct)
    assert fmix32(0) == 0


def test_game_seed_depends_on_the_master_seed():
    # Different master seeds (also ones that differ only in the high 32 bits) give different
    # runs; the same master seed gives the same run.
    keys = [master_key(m) for m in MASTERS]
    assert len(set(keys)) == len(keys)
    runs = [tuple(game_seed(m, i) for i in range(20)) for m in MASTERS]
    assert len(set(runs)) == len(runs)
    assert runs[2] == tuple(game_seed(12345, i) for i in range(20))


def test_policy_streams_differ_by_seat_and_game():
    # Each seat's policy stream is its own: different seeds for different seats and games,
    # and different draws.
    seeds = {}
    for gs in [game_seed(7, i) for i in range(500)] + [0, 1, 2**32 - 1]:
        for seat in range(4):
            v = int(policy_stream_seed(gs, seat))
            assert v not in seeds, (gs, seat, seeds.get(v))
            seeds[v] = (gs, seat)
    gs = game_seed(7, 3)
    draws = []
    for seat in range(4):
        stream = np.array([policy_stream_seed(gs, seat)], np.uint64)
        draws.append(tuple(int(splitmix64_next(stream)) for _ in range(5)))
    assert len(set(draws)) == 4
    for a in range(4):
        for b in range(a + 1, 4):
            assert not set(draws[a]) & set(draws[b])
    # deterministic
    again = np.array([policy_stream_seed(gs, 0)], np.uint64)
    assert tuple(int(splitmix64_next(again)) for _ in range(5)) == draws[0]


def test_policy_streams_are_not_the_game_stream():
    # A policy stream never shares state with the game's mulberry32 stream: drawing from it
    # leaves the game untouched.
    g = Game(5, ["technician", "sprinter"])
    before = g.state.copy()
    stream = np.array([policy_stream_seed(g.seed, 0)], np.uint64)
    for _ in range(10):
        stream_below(stream, 6)
    assert np.array_equal(before, g.state)


def test_seating_streams_differ_by_game():
    values = {int(seating_stream_seed(3, i)) for i in range(5000)}
    assert len(values) == 5000
    assert int(seating_stream_seed(3, 0)) != int(seating_stream_seed(4, 0))


def test_splitmix64_reference_values():
    # splitmix64 from state 0: the published first outputs.
    stream = np.zeros(1, np.uint64)
    assert [int(splitmix64_next(stream)) for _ in range(3)] == [
        0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    assert int(stream[0]) == (3 * 0x9E3779B97F4A7C15) % 2**64


def test_stream_below_and_uniform_ranges():
    stream = np.array([policy_stream_seed(123, 1)], np.uint64)
    counts = Counter(int(stream_below(stream, 6)) for _ in range(6000))
    assert set(counts) == set(range(6))
    assert all(800 < c < 1200 for c in counts.values())
    assert int(stream_below(stream, 1)) == 0
    us = [float(stream_uniform(stream)) for _ in range(2000)]
    assert all(0.0 <= u < 1.0 for u in us)
    assert 0.45 < sum(us) / len(us) < 0.55

