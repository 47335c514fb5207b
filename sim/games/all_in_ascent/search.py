"""All-In Ascent's search module (policies/mcts.py): its engine's legal actions and step, who
moves, what a seat cannot know, and what a position is worth (`lookahead` reads the same
evaluation).

Hidden from every seat: the game's whole future (dice, route refreshes, shop draws), which
R5-R8 draw from the one mulberry32 stream in st[G_RNG]. Everything else in the state is on
the table. So a seat's imagined world is the real position with another RNG state.
"""
from numba import njit

from sim.core.jit import CalleeCompiler
from sim.core.rng import stream_below
from sim.games.all_in_ascent.engine import apply_action, legal_actions, pbase
from sim.games.all_in_ascent.memory import S_TRACE
from sim.games.all_in_ascent.rules import F_LEVEL_STATS, F_XP_CUMULATIVE, at
from sim.games.all_in_ascent.state import (
    G_CURRENT, G_N_PLAYERS, G_OVER, G_RNG, G_WINNER, MAX_LEVEL, N_STATS, N_TIERS, P_CHARACTER,
    P_DONE, P_LEVEL, P_STATS, P_TRAINING, P_XP, TRACE_SIZE)

# A milestone (R64's win condition counts them) is worth this many stat points in a
# position's estimate; stats count with their training, so XP spent on levels shows too (R61).
MILESTONE_POINTS = 40.0
# The lead, in those points, at which a position is worth 0.75 to the leader.
LEAD_SCALE = 20.0


@njit(cache=True, pipeline_class=CalleeCompiler)
def progress(st, seat):
    """Milestones and stats of a seat, in stat points."""
    b = pbase(seat)
    done = st[b + P_DONE]
    n = 0
    for tier in range(N_TIERS):
        n += (done >> tier) & 1
    total = MILESTONE_POINTS * n
    for s in range(N_STATS):
        total += st[b + P_STATS + s] + st[b + P_TRAINING + s]
    return total


@njit(cache=True, pipeline_class=CalleeCompiler)
def outcome_value(st, seat):
    """1 for the winner, 0 for the others once the game is over (a game stopped with no winner
    is 0 for all); before that the seat's lead over the best other seat, squashed into (0, 1)."""
    if st[G_OVER] != 0:
        return 1.0 if st[G_WINNER] == seat else 0.0
    best_other = 0.0
    for other in range(st[G_N_PLAYERS]):
        if other != seat:
            best_other = max(best_other, progress(st, other))
    return lead_value(progress(st, seat) - best_other)


@njit(cache=True, pipeline_class=CalleeCompiler)
def lead_value(lead):
    """A lead in stat points, squashed into (0, 1): 0.75 at a lead of LEAD_SCALE."""
    return 0.5 + 0.5 * lead / (abs(lead) + LEAD_SCALE)


@njit(cache=True, pipeline_class=CalleeCompiler)
def level_progress(st, t, seat):
    """The stat points the seat's XP has earned towards its next level (R61: a level sets the
    stats from the level table), pro rata: a search should see XP as the progress it is,
    not only once it turns into a level."""
    b = pbase(seat)
    level = st[b + P_LEVEL]
    if level >= MAX_LEVEL:
        return 0.0
    low = at(t, F_XP_CUMULATIVE, level)
    high = at(t, F_XP_CUMULATIVE, level + 1)
    if high <= low:
        return 0.0
    c = st[b + P_CHARACTER]
    gain = 0
    for s in range(N_STATS):
        gain += at(t, F_LEVEL_STATS, (c * (MAX_LEVEL + 1) + level + 1) * N_STATS + s) - \
            at(t, F_LEVEL_STATS, (c * (MAX_LEVEL + 1) + level) * N_STATS + s)
    share = min(1.0, max(0.0, (st[b + P_XP] - low) / (high - low)))
    return gain * share


@njit(cache=True, pipeline_class=CalleeCompiler)
def evaluate(st, t, values):
    """outcome_value, with each seat's XP towards its next level counted as stat points."""
    players = st[G_N_PLAYERS]
    if st[G_OVER] != 0:
        for seat in range(players):
            values[seat] = 1.0 if st[G_WINNER] == seat else 0.0
        return
    # each seat's points once; the best other seat of the leader is the runner-up
    best, runner_up, leader = 0.0, 0.0, -1
    for seat in range(players):
        values[seat] = progress(st, seat) + level_progress(st, t, seat)
        if values[seat] > best:
            best, runner_up, leader = values[seat], best, seat
        elif values[seat] > runner_up:
            runner_up = values[seat]
    for seat in range(players):
        values[seat] = lead_value(values[seat] - (runner_up if seat == leader else best))


@njit(cache=True, pipeline_class=CalleeCompiler)
def mover(st):
    return -1 if st[G_OVER] != 0 else st[G_CURRENT]


@njit(cache=True, pipeline_class=CalleeCompiler)
def hide_future(st, t, seat, stream):
    """A fresh future: the RNG state drawn from the searching seat's own stream."""
    st[G_RNG] = stream_below(stream, 1 << 32)



@njit(cache=True, pipeline_class=CalleeCompiler)
def legal(st, t, out):
    return legal_actions(st, t, out)


@njit(cache=True, pipeline_class=CalleeCompiler)
def step(st, t, action, work):
    """`work`: the search's scratch, the engine's trace first (memory.SEARCH_WORK_SIZE: a
    rollout bot's work memory follows, which apply_action, zeroing its whole trace, must not
    see)."""
    apply_action(st, t, action, work[S_TRACE:S_TRACE + TRACE_SIZE])

