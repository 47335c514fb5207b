"""Ascension's search module (policies/mcts.py): its engine's legal actions and step, who
moves, what a seat cannot know, and a generic estimate of a position.

Hidden from a seat: the faces of the face-down cubes it has never looked at (A3's permutation,
A15). Nothing else in Ascension is chance. A seat's imagined world is the position with those
cubes dealt again among their own slots. A search starts from view.sample_state, since a bot
receives only its view, and hide_future re-deals the same cubes on every iteration.

The estimate reads the rules' race (A40, A45, A38) through RULES.md §7's approximate climb
distance (a Dijkstra over squares, each step priced by the piece moves its height gap needs):
towards the pillar, or home with summit status, and the pawn's blocks. It uses none of the staircase
bots' code, so `mcts` is a witness independent of them.
"""
import numpy as np
from numba import njit

from sim.core.jit import CalleeCompiler
from sim.core.rng import stream_below
from sim.games.ascension.engine import apply_action, count_pawn_moves, is_partner, legal_actions
from sim.games.ascension.rules import (C_CORNER_OF, C_MATTRESS_FROM, C_PARTNERSHIP,
                                       C_PILLAR_BAR_HIDDEN_SPECIAL, C_SHAPE_OF)
from sim.games.ascension.state import (
    B_H, B_KNOWN, B_P_SQ, B_P_UP, B_PAWN_ON, B_SHAPES, B_STACK, B_STACK_N, B_SYMBOL, CUBE,
    G_CURRENT, G_DECISIONS, G_N_PLAYERS, G_OVER, G_WINNER, MAX_PLAYERS, MAX_STACK_CAP, N_CUBES,
    N_SQUARES, NB, P_KIND, PILLAR, S_ACTIVE, S_BIV, S_BLOCKS, S_LOCK, S_PAWN_SQ, S_SUMMIT,
    SYM_CHASM, SYM_LADDER, SYM_MATTRESS)
from sim.games.ascension.view import deal_pillar_cube

# Race progress in [0, 1]: the climb is worth up to CLIMB (height over the pillar's), holding
# summit status SUMMIT, the way home the rest; a block (two eliminate, A38) costs BLOCK.
CLIMB, SUMMIT, BLOCK = 0.45, 0.6, 0.15
INF_MOVES = 1 << 20
# The lead in progress at which a position is worth 0.75 to the leader.
LEAD_SCALE = 0.25


@njit(cache=True, inline="always")
def _distance(a, b):
    """King-move distance between two squares (s = 9 * row + column)."""
    return max(abs(a // 9 - b // 9), abs(a % 9 - b % 9))


@njit(cache=True, pipeline_class=CalleeCompiler)
def climb_distance_estimate(st, t, p, goal, cost, done):
    """RULES.md §7's approximate climb distance: the fewest piece moves over paths from p's
    pawn to `goal`, by Dijkstra over squares, where a step a->b costs 0 if it is legal by
    height now (A30) and ceil((|dH| - 1) / 2) if not, and steps into another pawn, a foreign or
    unused corner, a shown chasm or a foreign shape are impossible (A29). `cost` and `done`
    are 81-long scratch. INF_MOVES if no path."""
    start = st[S_PAWN_SQ + p]
    own_corner = t[C_CORNER_OF + p]
    shape = t[C_SHAPE_OF + p]
    for s in range(N_SQUARES):
        cost[s] = INF_MOVES
        done[s] = 0
    cost[start] = 0
    for _ in range(N_SQUARES):
        a = -1
        for s in range(N_SQUARES):
            if done[s] == 0 and cost[s] < INF_MOVES and (a < 0 or cost[s] < cost[a]):
                a = s
        if a < 0 or a == goal:
            break
        done[a] = 1
        for k in range(8):
            b = NB[a, k]
            if b < 0:
                break
            if done[b] or st[B_PAWN_ON + b] >= 0 or st[B_SYMBOL + b] == SYM_CHASM:
                continue
            if (b == 0 or b == 8 or b == 72 or b == 80) and b != own_corner:
                continue
            if st[B_SHAPES + b] != 0 and (st[B_SHAPES + b] & shape) == 0:
                continue
            delta = st[B_H + b] - st[B_H + a]
            up = 2 if st[B_SYMBOL + a] == SYM_LADDER else 1
            down = 1                                    # A30 under the mattress switch
            if t[C_MATTRESS_FROM]:
                if st[B_SYMBOL + a] == SYM_MATTRESS:
                    down = 2
            elif st[B_SYMBOL + b] == SYM_MATTRESS:
                down = 2
            step = 0 if -down <= delta <= up else abs(delta) // 2     # ceil((|dH| - 1) / 2)
            if cost[a] + step < cost[b]:
                cost[b] = cost[a] + step
    return cost[goal]


@njit(cache=True, pipeline_class=CalleeCompiler)
def race_progress(st, t, p, cost, done):
    """How far seat p's pawn is through its race, in [0, 1] (0 once eliminated): before the
    summit, its height and its §7 climb distance to the pillar; with summit status, its climb
    distance home (A40, A45); less its blocks (A38)."""
    if st[S_ACTIVE + p] == 0:
        return 0.0
    start = st[S_PAWN_SQ + p]
    corner = t[C_CORNER_OF + p]
    if st[S_SUMMIT + p]:
        moves = climb_distance_estimate(st, t, p, corner, cost, done)
        value = SUMMIT + (1.0 - SUMMIT) * (1.0 if start == corner else
                                           0.8 / (1.0 + moves / 2.0) if moves < INF_MOVES
                                           else 0.0)
    else:
        # np.int64: the literal 40 compiled a second copy of the search above (0.6 s of a first
        # mcts-hybrid run), for a goal of the same value
        moves = climb_distance_estimate(st, t, p, np.int64(PILLAR), cost, done)
        pillar = max(1.0, float(st[B_H + PILLAR]))
        reach = 1.0 / (1.0 + moves / 2.0) if moves < INF_MOVES else 0.0
        value = CLIMB * (0.5 * reach + 0.5 * min(1.0, st[B_H + start] / pillar))
    # a pawn with no step (off its own corner) is blocked at its next turn unless a piece
    # move frees it (A38); with one step it hangs on that square
    if start != corner and st[S_BIV + p] == 0:
        exits = count_pawn_moves(st, t, p, start)
        if exits == 0:
            value -= BLOCK
        elif exits == 1:
            value -= BLOCK / 3.0
    return max(0.0, value - BLOCK * st[S_BLOCKS + p])


@njit(cache=True, pipeline_class=CalleeCompiler)
def evaluate(st, t, values):
    """1 for the winner, 0 for the others once the game is over (no winner: 0 for all);
    before that each seat's race progress over the best other seat's, squashed into (0, 1).
    Under the switch partnership, team_evaluate."""
    if t[C_PARTNERSHIP] != 0:
        team_evaluate(st, t, values)
        return
    players = st[G_N_PLAYERS]
    for p in range(MAX_PLAYERS):
        values[p] = 0.0
    if st[G_OVER] != 0:
        if st[G_WINNER] >= 0:
            values[st[G_WINNER]] = 1.0
        return
    cost = np.empty(N_SQUARES, np.int64)
    done = np.empty(N_SQUARES, np.int64)
    best, runner_up, leader = -1.0, -1.0, -1
    for p in range(players):
        values[p] = race_progress(st, t, p, cost, done)
        if values[p] > best:
            best, runner_up, leader = values[p], best, p
        elif values[p] > runner_up:
            runner_up = values[p]
    for p in range(players):
        lead = values[p] - (runner_up if p == leader else best)
        values[p] = 0.5 + 0.5 * lead / (abs(lead) + LEAD_SCALE)


@njit(cache=True, pipeline_class=CalleeCompiler)
def team_evaluate(st, t, values):
    """evaluate under partnership, where a team wins when either partner wins (A48): the
    winner's partner has won too, and before the end a seat's value is its team's best race
    progress set against the other team's best (seats 0+2 against 1+3; an eliminated seat's
    progress is 0)."""
    players = st[G_N_PLAYERS]
    for p in range(MAX_PLAYERS):
        values[p] = 0.0
    if st[G_OVER] != 0:
        winner = st[G_WINNER]
        if winner >= 0:
            for p in range(players):
                if p == winner or is_partner(t, p, winner):
                    values[p] = 1.0
        return
    cost = np.empty(N_SQUARES, np.int64)
    done = np.empty(N_SQUARES, np.int64)
    team_best = np.full(2, -1.0)
    for p in range(players):
        team_best[p & 1] = max(team_best[p & 1], race_progress(st, t, p, cost, done))
    for p in range(players):
        lead = team_best[p & 1] - team_best[1 - (p & 1)]
        values[p] = 0.5 + 0.5 * lead / (abs(lead) + LEAD_SCALE)


@njit(cache=True, pipeline_class=CalleeCompiler)
def mover(st):
    return -1 if st[G_OVER] != 0 else st[G_CURRENT]


@njit(cache=True, pipeline_class=CalleeCompiler)
def hide_future(st, t, seat, stream):
    """Deal the cubes `seat` has never seen (face down on the board, not in its knowledge)
    again among their own slots, in an order drawn from the seat's stream. What the other
    seats know stays with the slot, as does a lock (A12(d)) on a slot; under A59's bar the
    pillar's cube is dealt among those that may lie there. So another seat that
    had looked at a slot's cube "knows" the cube dealt there instead: the usual shortcut of a
    determinised search, seen only by rollout bots that read views (`mcts-hybrid`)."""
    bit = 1 << seat
    positions = np.empty(N_CUBES, np.int64)       # state offsets in the STACK block
    n = 0
    on_pillar = -1                                 # the pillar's cube in that list (A59)
    for s in range(N_SQUARES):
        base = B_STACK + s * MAX_STACK_CAP
        for i in range(st[B_STACK_N + s]):
            x = st[base + i]
            if P_KIND[x] == CUBE and st[B_P_UP + x] == 0 and (st[B_KNOWN + x] & bit) == 0:
                if s == PILLAR:
                    on_pillar = n
                positions[n] = base + i
                n += 1
    for i in range(n - 1, 0, -1):
        j = stream_below(stream, i + 1)
        if i != j:
            _swap_pieces(st, positions[i], positions[j])
    if on_pillar >= 0 and t[C_PILLAR_BAR_HIDDEN_SPECIAL]:
        cubes = np.empty(n, np.int64)
        for k in range(n):
            cubes[k] = st[positions[k]]
        # -1 only in a position no play reaches (the real cube may lie there); it stays
        j = deal_pillar_cube(t, cubes, n, on_pillar, stream)
        if j >= 0 and j != on_pillar:
            _swap_pieces(st, positions[on_pillar], positions[j])
    # Each imagined world numbers its decisions afresh (the count is a record, read by no
    # rule): a bot in the rollouts keys its notes by it (policy_api.py), and a note left in
    # another world must not match.
    st[G_DECISIONS] += (stream_below(stream, 1 << 30) + 1) << 20


@njit(cache=True, pipeline_class=CalleeCompiler)
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


@njit(cache=True, pipeline_class=CalleeCompiler)
def legal(st, t, out):
    return legal_actions(st, t, out)


@njit(cache=True, pipeline_class=CalleeCompiler)
def step(st, t, action, work):
    apply_action(st, t, action)
