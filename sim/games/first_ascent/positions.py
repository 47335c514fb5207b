"""Real positions of First Ascent, for calling a bot outside a game (the search's tests and its
benchmark). First Ascent's engine asks its bots from inside the rules, so a position cannot be
built by stepping: a game is played to the wanted decision by a capture policy, which copies the
state, the work area (with the segment checkpoint and codes a search bot resumes from,
memory.py) and the legal codes there.

    st, t, work, legal, n = capture_position(300, seed=5)
"""
from collections import namedtuple

import numpy as np

from sim.core.policies import compile_waiting, compiled_on_use
from sim.games.first_ascent import engine
from sim.games.first_ascent.data import N_KINDS
from sim.games.first_ascent.memory import WORK_SIZE
from sim.games.first_ascent.policy_api import MAX_POLICY_PARAMS, POLICY_SIGNATURE
from sim.games.first_ascent.rules import build_rules
from sim.games.first_ascent.state import (
    D_TURN, G_DECISIONS, MAX_LEGAL, MAX_PLAYERS, STATE_SIZE)

# the capture policy's memory after the work area: [target decision, taken], then the state,
# the work area, the legal codes, and (n_legal, seat, decision) at the target
CAPTURE_TARGET, CAPTURE_TAKEN = WORK_SIZE, WORK_SIZE + 1
CAPTURE_STATE = WORK_SIZE + 2
CAPTURE_WORK = CAPTURE_STATE + STATE_SIZE
CAPTURE_LEGAL = CAPTURE_WORK + WORK_SIZE
CAPTURE_INFO = CAPTURE_LEGAL + MAX_LEGAL
CAPTURE_SIZE = CAPTURE_INFO + 3

Position = namedtuple("Position", "state tables work legal n_legal")


@compiled_on_use(POLICY_SIGNATURE)
def capture_policy(ctx):
    """A fixed walk through the legal codes (any fixed choice reaches varied positions, and
    long games: random play often ends before decision 300); the first turn decision of seat 0
    at or after the target decision count is copied (state, work area, legal codes) into the
    memory's tail."""
    w = ctx.work
    if w[CAPTURE_TAKEN] == 0 and ctx.state[G_DECISIONS] >= w[CAPTURE_TARGET] and \
            ctx.decision == D_TURN and ctx.seat == 0:
        w[CAPTURE_TAKEN] = 1
        w[CAPTURE_STATE:CAPTURE_STATE + STATE_SIZE] = ctx.state
        w[CAPTURE_WORK:CAPTURE_WORK + WORK_SIZE] = w[:WORK_SIZE]
        w[CAPTURE_LEGAL:CAPTURE_LEGAL + ctx.n_legal] = ctx.legal[:ctx.n_legal]
        w[CAPTURE_INFO] = ctx.n_legal
        w[CAPTURE_INFO + 1] = ctx.seat
        w[CAPTURE_INFO + 2] = ctx.decision
    k = ctx.state[G_DECISIONS] * 7 + 3
    return ctx.legal[k % ctx.n_legal]


def capture_position(target, seed=5, players=4, rules=None):
    """Seat 0's first turn decision at or after decision `target` of the game dealt from `seed`
    (no characters) and played by capture_policy, with the work area the engine had written by
    then; ValueError if the game ends before it."""
    rules = rules or build_rules(players)
    t = rules.tables
    st = np.zeros(STATE_SIZE, np.int64)
    engine.setup(st, t, np.int64(seed), np.zeros(MAX_PLAYERS, np.int64))
    work = np.zeros(CAPTURE_SIZE, np.int64)
    work[CAPTURE_TARGET] = target
    streams = np.arange(1, MAX_PLAYERS + 1, dtype=np.uint64).reshape(MAX_PLAYERS, 1)
    ag = ((compile_waiting(capture_policy),) * 8, np.zeros(MAX_PLAYERS, np.int64),
          np.zeros((8, MAX_POLICY_PARAMS), np.float64), streams, work,
          np.zeros((4096, 6), np.int64), np.zeros(MAX_LEGAL, np.int64),
          np.zeros(N_KINDS, np.int64), np.zeros(engine.SCRATCH_SIZE, np.int64))
    engine.play_game(st, t, ag)
    if work[CAPTURE_TAKEN] != 1:
        raise ValueError(f"capture_position: game {seed} ended before decision {target}")
    n = int(work[CAPTURE_INFO])
    legal = np.zeros(MAX_LEGAL, np.int64)
    legal[:n] = work[CAPTURE_LEGAL:CAPTURE_LEGAL + n]
    return Position(work[CAPTURE_STATE:CAPTURE_STATE + STATE_SIZE].copy(), t,
                    work[CAPTURE_WORK:CAPTURE_WORK + WORK_SIZE].copy(), legal, n)
