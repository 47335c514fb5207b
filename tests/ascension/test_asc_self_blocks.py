"""The goal-directed bots never take their own pawn's last step away (builder._strands).

A seat is blocked in its pawn phase when its pawn has no legal move (A38), and a block of its
own making counts (D14). The position here: seat 0's pawn on P at 4 hu with one legal step,
onto STEP at 4 hu; LOW, another neighbour, stands at 2 hu and every other one is empty (drops
of 2 and 4 hu, A30)."""
import numpy as np
import pytest

from asc_helpers import Builder, nb, new_game, sq, start_turn
from policies.ascension import board, builder
from sim.games.ascension import state as S
from sim.games.ascension.engine import count_pawn_moves
from sim.games.ascension.policy_api import MAX_POLICY_PARAMS, WORK_SIZE, PolicyContext
from sim.report.ascension_blocks import self_block_share

P, STEP, LOW, FAR = sq(2, 2), sq(2, 3), sq(3, 3), sq(5, 7)


def _one_step_position():
    g = new_game(2, seed=3)
    b = Builder(g)
    for s in nb(P):
        b.clear(s)
    b.heights({P: 4, STEP: 4, LOW: 2})
    g.move_pawn_to(0, P)
    start_turn(g, 0)
    assert count_pawn_moves(g.state, g.t, 0, P) == 1
    return g


def _strands(g, origin, lift_h, dest, h, shp=0, sym=0):
    view = g.view(0)
    b = np.zeros(WORK_SIZE, np.int64)
    board.copy_board(view, b)
    before = b.copy()
    stranded = board.strands_own_pawn(b, view, g.t, 0, origin, lift_h, dest, h, shp, sym)
    assert np.array_equal(b, before)                 # the scratch board is left as it was
    return stranded


def test_a_move_that_takes_the_last_step_strands_the_pawn():  # A29 A30 A38
    g = _one_step_position()
    assert _strands(g, -1, 0, STEP, 2)               # a cube on the step: 6 hu, up 2 (A30)
    assert not _strands(g, -1, 0, STEP, 1)           # a half-cube: 5 hu, up 1
    assert _strands(g, STEP, 2, -1, 0)               # its top lifted: 2 hu, down 2
    assert _strands(g, STEP, 2, FAR, 2)              # ... and put down far away
    assert not _strands(g, STEP, 2, LOW, 2)          # ... but onto LOW: a level step there
    assert not _strands(g, -1, 0, FAR, 2)            # an edit out of the pawn's reach


def test_a_pawn_that_cannot_be_blocked_is_not_stranded():  # A35 A38
    g = _one_step_position()
    g.state[S.S_BIV + 0] = 1                          # it stays on its bivouac this turn
    assert not _strands(g, -1, 0, STEP, 2)
    g = _one_step_position()
    Builder(g).set_height(STEP, 8)                    # no step to lose
    assert count_pawn_moves(g.state, g.t, 0, P) == 0
    assert not _strands(g, STEP, 2, -1, 0)


def _context(g, stream_seed):
    codes = g.legal_codes()
    legal = np.zeros(S.N_ACTIONS, np.int64)
    legal[:len(codes)] = codes
    stream = np.array([stream_seed], np.uint64)
    return PolicyContext(g.view(g.current), np.int64(g.current), np.int64(g.state[S.G_PHASE]),
                         legal, np.int64(len(codes)), g.t, stream,
                         np.zeros(MAX_POLICY_PARAMS, np.float64), np.zeros(WORK_SIZE, np.int64))


def test_an_exploring_origin_is_never_the_pawn_s_last_step():  # A14 A38
    g = _one_step_position()
    assert STEP in [int(c) for c in g.legal_codes()]
    drawn = {builder.explore_origin(_context(g, seed)) for seed in range(1, 400)}
    assert STEP not in drawn and len(drawn) > 10


@pytest.mark.parametrize("policy", ["stair-builder", "blocker", "hybrid"])
def test_the_goal_directed_bots_make_no_block_of_their_own(policy):  # A38 D14
    # the same count finds `random`'s (tests/ascension/test_asc_commands.py); before the guard
    # these games gave the stair builder 2 blocks of its own in 7, the blocker 12 in 55 and the
    # hybrid 4 in 46
    blocks, own = self_block_share(policy, 8)[:2]
    assert blocks > 0 and own == 0
