"""Ascension's search module (policies/mcts.py): its engine's legal actions and step, who
moves, what a seat cannot know, and a generic estimate of a position.

Hidden from a seat: the faces of the face-down cubes it has never looked at (A3's permutation,
A15). Nothing else in Ascension is chance. A seat's imagined world is the position with those
cubes dealt again among their own slots. A search starts from view.sample_state, since a bot
receives only its view, and hide_future re-deals the same cubes on every iteration.

The estimate reads only the rules' race (A40, A45, A38) and the pawn's own step rule (A29-A30):
how high the pawn can walk now towards the pillar, holding summit status, how near its own
corner it can walk, and its blocks. It uses none of the staircase
bots' code, so `mcts` is a witness independent of them.
"""
import numpy as np
from numba import njit

from sim.core.rng import stream_below
from sim.games.ascension.engine import apply_action, legal_actions, step_is_legal
from sim.games.ascension.rules import C_CORNER_OF
from sim.games.ascension.state import (
    B_H, B_KNOWN, B_P_SQ, B_P_UP, B_STACK, B_STACK_N, CUBE, G_CURRENT, G_N_PLAYERS, G_OVER,
    G_WINNER, MAX_PLAYERS, MAX_STACK_CAP, N_CUBES, N_SQUARES, NB, P_KIND, PILLAR, S_ACTIVE,
    S_BIV, S_BLOCKS, S_LOCK, S_PAWN_SQ, S_SUMMIT)

# Race progress in [0, 1]: the climb is worth up to CLIMB (height over the pillar's), holding
# summit status SUMMIT, the way home the rest; a block (two eliminate, A38) costs BLOCK.
CLIMB, SUMMIT, BLOCK = 0.45, 0.6, 0.15
# The lead in progress at which a position is worth 0.75 to the leader.
LEAD_SCALE = 0.25


@njit(cache=True, inline="always")
def _distance(a, b):
    """King-move distance between two squares (s = 9 * row + column)."""
    return max(abs(a // 9 - b // 9), abs(a % 9 - b % 9))


@njit(cache=True)
def race_progress(st, t, p, reached, queue):
    """How far seat p's pawn is through its race, in [0, 1] (0 once eliminated), read from
    where it could walk now (A29-A30 steps; `reached` and `queue` are 81-long scratch): before
    the summit, the highest square it can reach over the pillar's height; with summit status,
    how close to its own corner it can get."""
    if st[S_ACTIVE + p] == 0:
        return 0.0
    start = st[S_PAWN_SQ + p]
    summit = st[S_SUMMIT + p] != 0
    corner = t[C_CORNER_OF + p]
    reached[:] = 0
    reached[start] = 1
    queue[0] = start
    head, tail = 0, 1
    best_h = st[B_H + start]
    best_d = _distance(start, corner)
    exits = -1                      # the legal steps from the pawn's own square
    while head < tail:
        if head == 1:
            exits = tail - 1
        s = queue[head]
        head += 1
        for k in range(8):
            d = NB[s, k]
            if d < 0:
                break
            if reached[d] == 0 and step_is_legal(st, t, p, s, d):
                reached[d] = 1
                queue[tail] = d
                tail += 1
                best_h = max(best_h, st[B_H + d])
                best_d = min(best_d, _distance(d, corner))
    if exits < 0:
        exits = tail - 1
    if summit:
        value = SUMMIT + (1.0 - SUMMIT) * (8 - min(8, best_d)) / 8.0
    elif reached[PILLAR]:
        value = SUMMIT
    else:
        pillar = max(1.0, float(st[B_H + PILLAR]))
        value = CLIMB * (min(1.0, best_h / pillar) + min(1.0, st[B_H + start] / pillar)) / 2.0
    # a pawn with no step (off its own corner) is blocked at its next turn unless a piece
    # move frees it (A38); with one step it hangs on that square
    if start != corner and st[S_BIV + p] == 0:
        if exits == 0:
            value -= BLOCK
        elif exits == 1:
            value -= BLOCK / 3.0
    return max(0.0, value - BLOCK * st[S_BLOCKS + p])


@njit(cache=True)
def evaluate(st, t, values):
    """1 for the winner, 0 for the others once the game is over (no winner: 0 for all);
    before that each seat's race progress over the best other seat's, squashed into (0, 1)."""
    players = st[G_N_PLAYERS]
    for p in range(MAX_PLAYERS):
        values[p] = 0.0
    if st[G_OVER] != 0:
        if st[G_WINNER] >= 0:
            values[st[G_WINNER]] = 1.0
        return
    reached = np.empty(N_SQUARES, np.int64)
    queue = np.empty(N_SQUARES, np.int64)
    best, runner_up, leader = -1.0, -1.0, -1
    for p in range(players):
        values[p] = race_progress(st, t, p, reached, queue)
        if values[p] > best:
            best, runner_up, leader = values[p], best, p
        elif values[p] > runner_up:
            runner_up = values[p]
    for p in range(players):
        lead = values[p] - (runner_up if p == leader else best)
        values[p] = 0.5 + 0.5 * lead / (abs(lead) + LEAD_SCALE)


@njit(cache=True)
def mover(st):
    return -1 if st[G_OVER] != 0 else st[G_CURRENT]


@njit(cache=True)
def hide_future(st, t, seat, stream):
    """Deal the cubes `seat` has never seen (face down on the board, not in its knowledge)
    again among their own slots, in an order drawn from the seat's stream. What the other
    seats know stays with the slot, as does a lock (A12(d)) on a slot."""
    bit = 1 << seat
    positions = np.empty(N_CUBES, np.int64)       # state offsets in the STACK block
    n = 0
    for s in range(N_SQUARES):
        base = B_STACK + s * MAX_STACK_CAP
        for i in range(st[B_STACK_N + s]):
            x = st[base + i]
            if P_KIND[x] == CUBE and st[B_P_UP + x] == 0 and (st[B_KNOWN + x] & bit) == 0:
                positions[n] = base + i
                n += 1
    for i in range(n - 1, 0, -1):
        j = stream_below(stream, i + 1)
        if i != j:
            _swap_pieces(st, positions[i], positions[j])


@njit(cache=True)
def _swap_pieces(st, a_at, b_at):
    """Exchange the pieces at two stack positions; the knowledge of each slot stays put."""
    a, b = st[a_at], st[b_at]
    st[a_at], st[b_at] = b, a
    st[B_P_SQ + a], st[B_P_SQ + b] = st[B_P_SQ + b], st[B_P_SQ + a]
    st[B_KNOWN + a], st[B_KNOWN + b] = st[B_KNOWN + b], st[B_KNOWN + a]
    for q in range(MAX_PLAYERS):
        if st[S_LOCK + q] == a:
            st[S_LOCK + q] = b
        elif st[S_LOCK + q] == b:
            st[S_LOCK + q] = a


@njit(cache=True)
def legal(st, t, out):
    return legal_actions(st, t, out)


@njit(cache=True)
def step(st, t, action, work):
    apply_action(st, t, action)
