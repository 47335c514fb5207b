"""First Ascent's three random streams: the setup (G_RNG), the Risk Die (G_RNG_RISK) and the
reshuffles and picks of play (G_RNG_DRAW). Each kind of chance moves only its own stream, so a
rule that changes how often one is used leaves the others' values where they were (two variants
of a sweep or a balance search then play alike for longer)."""
import numpy as np

from fa_helpers import new_game
from sim.core.seeding import game_stream_seed
from sim.games.first_ascent import engine
from sim.games.first_ascent.state import (DISCARD, G_DECK_N, G_RNG, G_RNG_DRAW, G_RNG_RISK,
                                          G_SEED)

STREAMS = (G_RNG, G_RNG_RISK, G_RNG_DRAW)


def streams(st):
    return tuple(int(st[s]) for s in STREAMS)


def test_setup_seeds_three_distinct_streams_from_the_game_seed():
    st, _ = new_game(players=3, seed=11)
    assert int(st[G_RNG_RISK]) == game_stream_seed(int(st[G_SEED]), 1)
    assert int(st[G_RNG_DRAW]) == game_stream_seed(int(st[G_SEED]), 2)
    assert len({int(st[G_SEED]) & 0xFFFFFFFF, int(st[G_RNG_RISK]), int(st[G_RNG_DRAW])}) == 3
    # a bijection of the game seed, stream by stream
    seeds = [game_stream_seed(s, 1) for s in range(5000)]
    assert len(set(seeds)) == 5000


def test_the_risk_die_moves_only_its_own_stream():
    # F36: each roll draws from G_RNG_RISK and nothing else
    st, t = new_game(players=2, seed=5)
    before = streams(st)
    faces = [engine.roll_risk_die(st, t) for _ in range(50)]
    after = streams(st)
    assert after[0] == before[0] and after[2] == before[2] and after[1] != before[1]
    assert len(set(faces)) > 1


def test_a_rebuilt_deck_moves_only_the_draw_stream():
    # Decision 2: an empty deck is rebuilt from the shuffled discard pile
    st, _ = new_game(players=2, seed=5)
    st[DISCARD + 1:DISCARD + 6] = 4
    st[G_DECK_N] = 0
    before = streams(st)
    engine.rebuild_deck(st)
    after = streams(st)
    assert after[0] == before[0] and after[1] == before[1] and after[2] != before[2]
    assert st[G_DECK_N] == 20


def test_other_risk_odds_deal_the_same_setup():
    # a rule of the Risk Die (F36's odds) changes no draw of the setup
    a, _ = new_game(players=4, seed=9)
    b, _ = new_game(players=4, seed=9, rules={"risk_die_odds": "1:2:1"})
    assert np.array_equal(a, b)
