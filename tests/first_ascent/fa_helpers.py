"""Helpers for First Ascent tests: constructed states and scripted choices.

`scripted` is a policy that answers from a script in its work memory: work[0] is the read
position, work[1:] the codes, in the order the engine asks. A scripted code that is not
legal makes the engine flag END_POLICY_ERROR (st[G_POLICY_ERROR] != 0), so a test notices.
When the script is exhausted it takes the first legal code.

    st, t = new_game(players=4, characters=(1, 2, 3, 4), seed=7)
    ag = agents(script=[...])           # every seat scripted
    engine.resolve_option(st, t, ag, seat, card, option, False)
    assert st[G_POLICY_ERROR] == 0
"""
import numpy as np

from sim.core.policies import compile_waiting, compiled_on_use
from sim.games.first_ascent import engine
from sim.games.first_ascent.policy_api import MAX_POLICY_PARAMS, POLICY_SIGNATURE, WORK_SIZE
from sim.games.first_ascent.rules import build_rules
from sim.games.first_ascent.state import (
    BOARD_DOWN, BOARD_UP, HAND, MAX_LEGAL, MAX_PLAYERS, SEAT_FIELDS, STATE_SIZE)
from sim.games.first_ascent.data import N_KINDS


@compiled_on_use(POLICY_SIGNATURE)     # compiled by agents(), not when a test file imports this
def scripted(ctx):
    pos = ctx.work[0]
    if pos + 1 < ctx.work.shape[0] and ctx.work[pos + 1] != -1:
        ctx.work[0] = pos + 1
        return ctx.work[pos + 1]
    return ctx.legal[0]


def agents(script=(), policy=None, log_size=4096, streams=None, work=None, params=()):
    """An agents bundle for engine calls (layout: the engine package's docstring): every seat plays
    `policy` (default: scripted) with the parameter vector `params` (a bot's default_params).
    `work` defaults to the script's memory, `streams` to fixed per-seat streams."""
    fn = compile_waiting(scripted if policy is None else policy)
    if work is None:
        work = np.full(WORK_SIZE, -1, np.int64)
        work[0] = 0
        work[1:1 + len(script)] = script
    if streams is None:
        streams = np.arange(1, MAX_PLAYERS + 1, dtype=np.uint64).reshape(MAX_PLAYERS, 1)
    slot_params = np.zeros((8, MAX_POLICY_PARAMS), np.float64)
    slot_params[:, :len(params)] = params
    return ((fn,) * 8, np.zeros(MAX_PLAYERS, np.int64), slot_params, streams, work,
            np.zeros((log_size, 6), np.int64), np.zeros(MAX_LEGAL, np.int64),
            np.zeros(N_KINDS, np.int64), np.zeros(engine.SCRATCH_SIZE, np.int64))


def logged(ag, st):
    """The decisions taken so far: a list of (seat, decision, code, n_legal)."""
    from sim.games.first_ascent.state import G_DECISIONS
    return [tuple(int(x) for x in row[:4]) for row in ag[5][:st[G_DECISIONS]]]


def new_game(players=4, characters=None, seed=1, rules=None, knobs=()):
    """A set-up game (F15-F23, no starting hands yet) and its tables; `knobs`: data knobs
    [(path, value)] (knobs.py)."""
    rules = rules or {}
    r = build_rules(players, rules, knobs)
    chars = np.zeros(MAX_PLAYERS, np.int64)
    if characters is not None:
        chars[:len(characters)] = characters
    st = np.zeros(STATE_SIZE, np.int64)
    engine.setup(st, r.tables, np.int64(seed), chars)
    return st, r.tables


def clear_cards(st, seat):
    """Empty a seat's hand and board (the cards vanish: for constructed states only)."""
    for base in (HAND, BOARD_UP, BOARD_DOWN):
        st[base + seat * N_KINDS: base + (seat + 1) * N_KINDS] = 0


def give(st, seat, kind, n=1, where=HAND):
    st[where + seat * N_KINDS + kind] += n


def seat_at(field, seat):
    return field + seat * SEAT_FIELDS


# kinds by type and technique (data.json asset_kinds): handy fixed picks
CRACK_PAIN = 1      # Toe Jam: crack, pain_tolerance
CRACK_NONE = 2      # Arm Bar: crack, no symbol
SLAB_BALANCE = 8    # Smear
SLAB_NONE = 9       # Palming
FACE_POWER = 15     # Mantle
FACE_NONE = 16      # Undercling
GEAR_PRECISION = 22  # Nuts
GEAR_WILD = 26      # Locker
GEAR_NONE = 28      # Long Runner
