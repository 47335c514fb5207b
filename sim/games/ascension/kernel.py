"""Play many Ascension games in parallel (the same shape as All-In Ascent's kernel).

`play_game` drives one game with engine.py and per-seat policies; the single-game API uses it
too. `play_batch` runs games over prange, through `play_one` called by address; each game's
record is its state's prefix [0, RECORD_SIZE) (globals, seats and tallies; no board).

Before every decision the kernel builds the deciding seat's view (view.py), so a policy can
only read what that seat may know. It keeps each seat's last view, and builds the next on it:
only the squares that changed since are built again (view.squares_changed). Which view a
slot's bot is handed is per-slot flags (`slot_views`: view.VIEW_REMEMBERS, VIEW_PIECE_SLOTS):
a memory-less bot is an ordinary bot given a forgetful view, and a bot that never reads the
per-piece block is spared building it.
"""
import numpy as np
from numba import njit, prange

from sim.core.batch import by_address, item_type, row_type
from sim.core.jit import njit_noalloc
from sim.core.kernel_steps import keep_record, note_action
from sim.core.seeding import policy_streams
from sim.games.ascension.engine import apply_action, end_game, legal_actions, setup
from sim.games.ascension.policy_api import WORK_SIZE, PolicyContext
from sim.games.ascension.state import (
    END_POLICY_ERROR, G_CURRENT, G_OVER, G_PHASE, MAX_PLAYERS, N_ACTIONS, STATE_SIZE)
from sim.games.ascension.view import (
    KERNEL_VIEWS_SIZE, ON_LAST, VIEW_END, VIEW_KEPT_END, VIEW_PIECE_SLOTS, VIEW_REMEMBERS,
    WHOLE_KEPT, build_view)

MAX_SLOTS = 8


@njit_noalloc
def choose_action(st, t, slot_fns, seat_slots, slot_params, slot_views, streams, legal,
                  n_legal, views, work, built):
    """Ask the current seat's policy, through its view; -1 if the answer is not legal.
    `views` holds each seat's last view with what it keeps (KERNEL_VIEWS_SIZE), and `built`
    says whether it holds one of this game."""
    seat = st[G_CURRENT]
    slot = seat_slots[seat]
    view = views[seat * VIEW_KEPT_END:(seat + 1) * VIEW_KEPT_END]
    build_view(st, t, seat, (slot_views[slot] & VIEW_REMEMBERS) != 0, view,
               (slot_views[slot] & VIEW_PIECE_SLOTS) != 0, ON_LAST if built else WHOLE_KEPT)
    board = view[:VIEW_END]
    ctx = PolicyContext(board, np.int64(seat), st[G_PHASE], legal, np.int64(n_legal), t,
                        streams[seat], slot_params[slot], work)
    action = slot_fns[slot](ctx)
    for i in range(n_legal):
        if legal[i] == action:
            return action
    return -1


@njit_noalloc
def play_game(st, t, slot_fns, seat_slots, slot_params, slot_views, streams, legal, views,
              work, actions_out, max_decisions=0):
    """Play a set-up game to its end (the turn cap, A47, always ends it), or until
    max_decisions (> 0) decisions, leaving it running. Returns the number of decisions; if
    actions_out has room, the actions are written there in order. `views`: the seats' views,
    KERNEL_VIEWS_SIZE long."""
    if views.shape[0] < KERNEL_VIEWS_SIZE:
        raise ValueError("play_game: views must be view.KERNEL_VIEWS_SIZE words long")
    taken = 0
    built = 0                       # the seats whose view of this game `views` holds, as bits
    while st[G_OVER] == 0 and (max_decisions <= 0 or taken < max_decisions):
        n_legal = legal_actions(st, t, legal)
        seat = st[G_CURRENT]
        action = choose_action(st, t, slot_fns, seat_slots, slot_params, slot_views,
                               streams, legal, n_legal, views, work, (built >> seat) & 1 != 0)
        built |= 1 << seat
        if action < 0:
            end_game(st, -1, END_POLICY_ERROR)
            break
        apply_action(st, t, action)
        taken = note_action(actions_out, taken, action)
    return taken


@njit(cache=True)
def play_one(st, t, seed, slot_fns, seat_slots, slot_params, slot_views):
    """Set up and play the game of `seed` into `st`, with its own buffers."""
    views = np.empty(KERNEL_VIEWS_SIZE, np.int64)
    legal = np.empty(N_ACTIONS, np.int64)
    work = np.zeros(WORK_SIZE, np.int64)     # zeroed per game (policy_api.py)
    setup(st, t, seed)
    streams = policy_streams(seed, MAX_PLAYERS)
    play_game(st, t, slot_fns, seat_slots, slot_params, slot_views, streams, legal, views,
              work, np.empty(0, np.int64))


@njit(cache=True, parallel=True)
def play_batch(t, seeds, slot_fns, seat_slots, slot_params, slot_views, out, one_game):
    """Play games i = 0..n-1 from their seeds (uint32 values in int64) with the policy slot of
    each seat in seat_slots[i]; the record of game i goes into out[i] (int32). one_game:
    play_one by address (one_game_by_address)."""
    for i in prange(seeds.shape[0]):
        st = np.empty(STATE_SIZE, np.int64)
        one_game(st, t, seeds[i], slot_fns, seat_slots[i], slot_params, slot_views)
        keep_record(st, out, i)


def one_game_by_address(t, seeds, slot_fns, seat_slots, slot_params, slot_views):
    """play_one for play_batch (sim/core/batch.by_address), typed by a run's inputs."""
    return by_address(play_one, np.empty(STATE_SIZE, np.int64), t, item_type(seeds), slot_fns,
                      row_type(seat_slots), slot_params, slot_views)
