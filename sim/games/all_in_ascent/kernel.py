"""Play many All-In Ascent games in parallel.

`play_game` drives one game with the rule functions of engine.py and per-seat policies; the
single-game API uses it too. `play_batch` runs it over many games with prange (through
`play_one`, called by address). Each game runs in a per-thread int64 work vector; what leaves
the kernel is the final state (without the scratch block) as int32, one row per game: about
1.1 KB per game in flight. Every field fits in int32 except the two 32-bit RNG words, G_RNG
and G_SEED, which keep their bit pattern: read them with `.view(np.uint32)` (records.py takes
the seed from the run's inputs instead).

Policies are first-class numba functions (policy_api.POLICY_SIGNATURE). A run passes a tuple of
up to MAX_SLOTS policy slots (padded to that length, so the kernel compiles once) and, per game
and seat, the slot that plays it; each slot has its own parameter vector.
"""
import numpy as np
from numba import njit, prange

from sim.core.batch import by_address, item_type, row_type
from sim.core.jit import njit_noalloc
from sim.core.kernel_steps import keep_record, note_action
from sim.core.seeding import policy_streams
from sim.games.all_in_ascent.engine import apply_action, legal_actions, note_turn_end, setup
from sim.games.all_in_ascent.memory import WORK_SIZE
from sim.games.all_in_ascent.policy_api import PolicyContext
from sim.games.all_in_ascent.state import (
    G_CURRENT, G_END_REASON, G_OVER, G_WINNER, MAX_PLAYERS, N_ACTIONS, SCRATCH, STATE_SIZE,
    TRACE_SIZE)

MAX_SLOTS = 8
# Not game rules: how a game stops when the rules never end it (v0.5.0+ have no round cap),
# and when a policy returns an action that is not legal.
END_ACTION_CAP = 3
END_POLICY_ERROR = 4
RECORD_SIZE = SCRATCH


@njit_noalloc
def choose_action(st, t, slot_fns, seat_slots, slot_params, streams, legal, n_legal, work):
    """Ask the current seat's policy; return its action, or -1 if it is not legal."""
    seat = st[G_CURRENT]
    slot = seat_slots[seat]
    ctx = PolicyContext(st, np.int64(seat), legal, np.int64(n_legal), t, streams[seat],
                        slot_params[slot], work)
    action = slot_fns[slot](ctx)
    for i in range(n_legal):
        if legal[i] == action:
            return action
    return -1


@njit_noalloc
def play_game(st, t, slot_fns, seat_slots, slot_params, streams, legal, trace, work,
              max_actions, actions_out):
    """Play a set-up game to its end. Returns the number of actions taken. If actions_out has
    room, the actions are written there in order (the single-game API replays them). `work`:
    the policies' work memory (WORK_SIZE, zeroed for the game)."""
    taken = 0
    while st[G_OVER] == 0:
        if max_actions > 0 and taken >= max_actions:
            st[G_OVER] = 1
            st[G_WINNER] = -1
            st[G_END_REASON] = END_ACTION_CAP
            break
        n_legal = legal_actions(st, t, legal)
        action = choose_action(st, t, slot_fns, seat_slots, slot_params, streams, legal, n_legal,
                               work)
        if action < 0:
            st[G_OVER] = 1
            st[G_WINNER] = -1
            st[G_END_REASON] = END_POLICY_ERROR
            break
        note_turn_end(st, action, legal, n_legal)
        apply_action(st, t, action, trace)
        taken = note_action(actions_out, taken, action)
    return taken


@njit(cache=True)
def play_one(st, t, seed, characters, n_players, slot_fns, seat_slots, slot_params,
             max_actions):
    """Set up and play the game of `seed` into `st`, with its own buffers."""
    legal = np.empty(N_ACTIONS, np.int64)
    trace = np.empty(TRACE_SIZE, np.int64)
    work = np.zeros(WORK_SIZE, np.int64)
    setup(st, t, seed, characters, n_players)
    streams = policy_streams(seed, MAX_PLAYERS)
    play_game(st, t, slot_fns, seat_slots, slot_params, streams, legal, trace, work,
              max_actions, np.empty(0, np.int64))


@njit(cache=True, parallel=True)
def play_batch(t, seeds, characters, n_players, slot_fns, seat_slots, slot_params, max_actions,
               out, one_game):
    """Play games i = 0..n-1 from their seeds; write each final state into out[i] (int32).

    seeds: uint32 game seeds (int64); characters: (n, 4) character ids; n_players: (n,);
    seat_slots: (n, 4) policy slot per seat; slot_params: (MAX_SLOTS, P) float64; one_game:
    play_one by address (one_game_by_address). Game i reads row i only (kernel_steps.py).
    """
    for i in prange(seeds.shape[0]):
        st = np.empty(STATE_SIZE, np.int64)
        one_game(st, t, seeds[i], characters[i], n_players[i], slot_fns, seat_slots[i],
                 slot_params, max_actions)
        keep_record(st, out, i)


def one_game_by_address(t, seeds, characters, n_players, slot_fns, seat_slots, slot_params,
                        max_actions):
    """play_one for play_batch (sim/core/batch.by_address), typed by a run's inputs."""
    return by_address(play_one, np.empty(STATE_SIZE, np.int64), t, item_type(seeds),
                      row_type(characters), item_type(n_players), slot_fns,
                      row_type(seat_slots), slot_params, max_actions)
