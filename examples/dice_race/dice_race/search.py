"""Dice Race's search module for ascent's open-loop MCTS (policies/mcts.py).

Hidden from every seat: the future rolls, the mulberry32 stream in st[G_RNG]; scores and the
turn total are public. A position's value before the end is the seat's lead in banked points,
as a share of the target, squashed into (0, 1).
"""
from numba import njit

from dice_race.engine import apply_action, legal_actions
from dice_race.state import C_TARGET, G_CURRENT, G_OVER, G_PLAYERS, G_RNG, G_WINNER, S_SCORE
from sim.core.rng import stream_below


@njit(cache=True)
def mover(st):
    return -1 if st[G_OVER] != 0 else st[G_CURRENT]


@njit(cache=True)
def hide_future(st, c, seat, stream):
    st[G_RNG] = stream_below(stream, 1 << 32)


@njit(cache=True)
def evaluate(st, c, values):
    """1 for the winner, 0 for the others once the game is over; before, the lead of each
    seat's banked score over the best other seat's, as a share of the target, squashed into
    (0, 1)."""
    players = st[G_PLAYERS]
    for seat in range(players):
        if st[G_OVER] != 0:
            values[seat] = 1.0 if st[G_WINNER] == seat else 0.0
            continue
        best_other = 0
        for other in range(players):
            if other != seat:
                best_other = max(best_other, st[S_SCORE + other])
        lead = (st[S_SCORE + seat] - best_other) / c[C_TARGET]
        values[seat] = 0.5 + 0.5 * lead / (abs(lead) + 0.25)


@njit(cache=True)
def legal(st, c, out):
    return legal_actions(st, out)


@njit(cache=True)
def step(st, c, action, work):
    apply_action(st, c, action)

