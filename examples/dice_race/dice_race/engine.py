"""Dice Race rules (RULES.md D1-D6) as numba functions over the state of state.py, and the
parallel kernel. The single-game API (game.py) calls these same functions."""
from collections import namedtuple

import numpy as np
from numba import njit, prange, typeof, types

from dice_race.state import (
    BANK, C_BUST_FACE, C_HEAD_START, C_MAX_TURNS, C_TARGET, END_POLICY_ERROR, END_TARGET, END_TURN_CAP,
    G_CURRENT, G_DECISIONS, G_END_REASON, G_LAST_ROLL, G_OVER, G_PLAYERS, G_RNG, G_TURN_TOTAL,
    G_TURNS, G_WINNER, MAX_PLAYERS, N_ACTIONS, ROLL, S_BANKS, S_ROLLS, S_SCORE, STATE_SIZE)
from sim.core.rng import mulberry32_step, scale_draw
from sim.core.seeding import policy_stream_seed

# What a policy receives: the state (all public), its seat, the legal actions, the rules, its
# own random stream and its parameters. It returns one of legal[:n_legal].
# The class name must be the game's own: numba interns first-class function types by their
# printed signature, so two games' contexts that print alike (All-In Ascent's has these same
# field types) would be taken for one, and the second game's kernel would not compile.
# And the module must hold the class under that same name: numba's cache pickles the type by
# module and name, and a class it cannot find there comes back as a copy that is not this
# class, so every run after the first would find no compiled bot for its context.
DiceRaceContext = namedtuple("DiceRaceContext", ["state", "seat", "legal", "n_legal", "config",
                                                 "stream", "params"])
PolicyContext = DiceRaceContext
MAX_POLICY_PARAMS = 4
MAX_SLOTS = 4
CONTEXT_TYPE = typeof(PolicyContext(np.zeros(STATE_SIZE, np.int64), np.int64(0),
                                    np.zeros(N_ACTIONS, np.int64), np.int64(0),
                                    np.zeros(4, np.int64), np.zeros(1, np.uint64),
                                    np.zeros(MAX_POLICY_PARAMS, np.float64)))
POLICY_SIGNATURE = types.int64(CONTEXT_TYPE)


@njit(cache=True)
def _next_turn(st, c):
    """The turn passes (D1), unless the turn cap ends the game (D6). True if play goes on."""
    st[G_TURN_TOTAL] = 0
    st[G_TURNS] += 1
    if st[G_TURNS] >= c[C_MAX_TURNS]:
        st[G_OVER] = 1
        st[G_END_REASON] = END_TURN_CAP
        return False
    st[G_CURRENT] = (st[G_CURRENT] + 1) % st[G_PLAYERS]
    return True


@njit(cache=True)
def _roll(st, c):
    """D2-D4: roll for the current seat until a face leaves it a choice: a bust (D3) passes
    the turn and the next seat's turn opens with its own roll (D2)."""
    while True:
        st[G_RNG], k = mulberry32_step(st[G_RNG])
        face = scale_draw(k, 6) + 1
        st[G_LAST_ROLL] = face
        st[S_ROLLS + st[G_CURRENT]] += 1
        if face != c[C_BUST_FACE]:                   # D4
            st[G_TURN_TOTAL] += face
            return
        if not _next_turn(st, c):                    # D3
            return


@njit(cache=True)
def setup(st, c, seed, players):
    """D1, D2, D7: seat 0 to play, seat k's score k x head start, the first roll made."""
    st[:] = 0
    st[G_PLAYERS] = players
    for seat in range(players):
        st[S_SCORE + seat] = seat * c[C_HEAD_START]
    st[G_WINNER] = -1
    st[G_RNG] = seed & 0xFFFFFFFF
    _roll(st, c)


@njit(cache=True)
def legal_actions(st, legal):
    """D4: roll or bank, while the game runs and a turn total is pending."""
    if st[G_OVER]:
        return 0
    legal[0] = ROLL
    legal[1] = BANK
    return 2


@njit(cache=True)
def apply_action(st, c, action):
    st[G_DECISIONS] += 1
    if action == ROLL:
        _roll(st, c)
        return
    seat = st[G_CURRENT]                             # BANK (D4)
    st[S_SCORE + seat] += st[G_TURN_TOTAL]
    st[S_BANKS + seat] += 1
    st[G_TURN_TOTAL] = 0
    if st[S_SCORE + seat] >= c[C_TARGET]:            # D5
        st[G_OVER] = 1
        st[G_WINNER] = seat
        st[G_END_REASON] = END_TARGET
        return
    if _next_turn(st, c):
        _roll(st, c)


@njit(cache=True)
def play_game(st, c, fns, seat_slots, slot_params, streams, legal):
    """Play a set-up game to its end (D5 or D6); a policy answering an illegal action ends it."""
    while st[G_OVER] == 0:
        n = legal_actions(st, legal)
        seat = st[G_CURRENT]
        slot = seat_slots[seat]
        action = fns[slot](PolicyContext(st, np.int64(seat), legal, np.int64(n), c,
                                         streams[seat], slot_params[slot]))
        if action != ROLL and action != BANK:
            st[G_OVER] = 1
            st[G_END_REASON] = END_POLICY_ERROR
            return
        apply_action(st, c, action)


@njit(cache=True)
def seed_streams(streams, seed):
    """Each seat's policy stream comes from (game seed, seat): never the game's own dice."""
    for seat in range(MAX_PLAYERS):
        streams[seat, 0] = policy_stream_seed(seed, seat)


@njit(cache=True)
def play_one(st, c, players, seed, fns, seat_slots, slot_params):
    """Set up and play the game of `seed` into `st`, with its own buffers."""
    legal = np.empty(N_ACTIONS, np.int64)
    streams = np.empty((MAX_PLAYERS, 1), np.uint64)
    seed_streams(streams, seed)
    setup(st, c, seed, players)
    play_game(st, c, fns, seat_slots, slot_params, streams, legal)


@njit(cache=True, parallel=True)
def play_batch(c, players, seeds, fns, seat_slots, slot_params, out, one_game):
    """One game per seed. one_game: play_one by address (sim.core.batch.by_address); an
    exception a bot raises then reaches sim.core.bot_exceptions, where called by name inside
    prange numba would lose it or fail with a SystemError."""
    for i in prange(len(seeds)):
        st = np.empty(STATE_SIZE, np.int64)
        one_game(st, c, players, seeds[i], fns, seat_slots[i], slot_params)
        out[i, :] = st
