"""The goal-directed bots never take their own pawn's last step away (builder.py's
strand checks, on board.strands_own_pawn and board.placing_strands_own_pawn).

A seat is blocked in its pawn phase when its pawn has no legal move (A38), and a block of its
own making counts (D14). The position here: seat 0's pawn on P at 4 hu with one legal step,
onto STEP at 4 hu; LOW, another neighbour, stands at 2 hu and every other one is empty (drops
of 2 and 4 hu, A30)."""
import numpy as np
import pytest

from asc_helpers import CABLE, Builder, Pick, nb, new_game, sq, start_turn
from policies.ascension import board, builder
from policies.ascension import staircase as SC
from sim.games.ascension import state as S
from sim.games.ascension.engine import count_pawn_moves
from sim.games.ascension.policy_api import MAX_POLICY_PARAMS, WORK_SIZE, PolicyContext
from sim.games.ascension.rules import C_CORNER_OF
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


@pytest.mark.parametrize("safe_always", ["true", "false"])
def test_a_pawn_protected_on_its_corner_is_not_stranded(safe_always):  # A39 D12
    # seat 0's pawn on its corner (0 hu), one neighbour lowered to 1 hu: its one step. A cube
    # there takes it; the corner keeps the pawn from a block while it has never left it, or
    # always under the default corner_safe_always = true: no stranding then
    g = new_game(2, seed=3, corner_safe_always=safe_always)
    corner, step = int(g.t[C_CORNER_OF + 0]), sq(0, 1)
    Builder(g).set_height(step, 1)
    start_turn(g, 0)
    assert g.pawn(0) == corner and count_pawn_moves(g.state, g.t, 0, corner) == 1
    assert not _strands(g, -1, 0, step, 2)
    g.state[S.S_LEFT_CORNER + 0] = 1
    assert _strands(g, -1, 0, step, 2) == (safe_always == "false")


def test_a_pawn_on_a_cable_car_reads_every_cable_car():  # A31 A38
    # P shows a cable car and every neighbour is a drop of 4 hu: the pawn's one move is the
    # ride to FAR, the other shown cable car. Lifting FAR's top, far from the pawn, hides it
    g = new_game(2, seed=3)
    b = Builder(g)
    for s in nb(P):
        b.clear(s)
    b.heights({P: 2, FAR: 2})
    g.move_piece_to(CABLE[0], P, True)
    g.move_piece_to(CABLE[1], FAR, True)
    g.move_pawn_to(0, P)
    start_turn(g, 0)
    assert count_pawn_moves(g.state, g.t, 0, P) == 1
    assert _strands(g, FAR, 2, -1, 0)
    assert not _strands(g, -1, 0, FAR + 1, 2)          # a cube beside FAR leaves the ride


def test_a_placement_gives_back_the_step_its_lift_took():  # A15 A38
    # at the place decision the pawn has no step: its origin decision lifted STEP's top. The
    # step it had is read with the piece back where it was, so a placement that leaves the
    # pawn stranded counts as stranding it, and one that makes LOW a step again does not
    g = _one_step_position()
    g.step(Pick(square=STEP))
    assert g.phase == "place" and count_pawn_moves(g.state, g.t, 0, P) == 0
    view = g.view(0)
    b = np.zeros(WORK_SIZE, np.int64)
    board.copy_board(view, b)
    assert board.placing_strands_own_pawn(b, view, g.t, 0, FAR, 2, 0, 0)
    assert not board.placing_strands_own_pawn(b, view, g.t, 0, LOW, 2, 0, 0)
    assert not board.strands_own_pawn(b, view, g.t, 0, -1, 0, FAR, 2, 0, 0)  # no step now
    placed = {builder.build_place(_context(g, seed), False) for seed in range(1, 60)}
    assert placed == {2 * LOW}, placed                 # the one placement with a step


def test_a_decision_never_reads_an_earlier_decision_s_copy_of_the_board():  # A38
    # the strand checks copy the view once a decision (builder._scratch); each decision that
    # asks marks the copy stale first. A work area holding another board, marked fresh, as an
    # earlier decision or another imagined world of a search may leave it, changes nothing
    g = _one_step_position()
    g.step(Pick(square=STEP))
    stale = np.zeros(WORK_SIZE, np.int64)
    stale[:S.B_STACK] = np.arange(S.B_STACK) % 7          # no board at all
    for seed in range(1, 30):
        ctx = _context(g, seed)
        ctx.work[:] = stale
        ctx.work[SC.W_SCRATCH_FRESH] = 1
        assert builder.build_place(ctx, False) == 2 * LOW


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
