"""First Ascent: constructed-state tests of a round (turns, paying and risking a pitch, the
Follow phase, the end check, the Rerack, the Spread and Portaledge piles), of shared and
personal objectives, the final ranking and the rule options. Each test cites its rules."""
from functools import lru_cache
from itertools import product

import numpy as np
import pytest

from fa_helpers import (
    CRACK_NONE, CRACK_PAIN, FACE_NONE, FACE_POWER, GEAR_NONE, GEAR_PRECISION, GEAR_WILD,
    SLAB_BALANCE, SLAB_NONE, agents, clear_cards, give, logged, new_game)
from sim.games.first_ascent import data, engine
from sim.games.first_ascent.data import N_KINDS, T_KIND_TYPE, T_P_TYPE
from sim.games.first_ascent.rules import (C_CALL_IT_PITCHES, C_DECK_NEVER, C_ODDS, C_ROUND_CAP,
                                          C_SETS_GREEDY, C_STRANDED_PLAY_ON, ODDS_SCALE,
                                          RuleError, build_rules)
from sim.games.first_ascent.state import (
    A_CLIMB, A_REST, A_RISK, A_TRADE, BOARD_DOWN, BOARD_UP, D_DRAW, D_PERMANENT, D_REST, D_TURN,
    DECK, DISCARD, DRAW_DECK, END_EIGHT_PITCHES, END_ROUND_CAP, END_STRANDED, G_CDECK_POS,
    G_DECK_N, G_DECK_RESHUFFLES, G_DISCARD_N, G_END_REASON, G_FIRST, G_HEADWALL_UP, G_N_WINNERS,
    G_OVER, G_POLICY_ERROR, G_ROUND, G_SHARED, G_SPREAD_STUCK, G_STRANDED_END, G_WINNER,
    PERM_STOP, PILE, PILE_CAP, PILE_N, REQ_TOKENS, REST_PSYCH, REST_WATER, S_ELITIST_LOST, S_HEX,
    S_PERM, S_PERM_GAINED, S_PERSONAL, S_PERSONAL_SCORED, S_PSYCH, S_ROUTE, S_ROUTE_MASK,
    S_ROUTE_N, S_SB, S_SC_PERSONAL, S_SC_PITCH, S_SC_SETS, S_SC_SHARED, S_SC_SUMMIT, S_SCORE,
    S_STATUS, S_TECH, S_TYPE_N, S_WATER, SB_DISCARD, SB_NEW_RUBBER, SEAT_FIELDS, SPREAD,
    STATUS_CLIMBED, STATUS_NONE, STATUS_PENALISED, STATUS_RESTED, T_CLIMB_CARDS, T_FORCED_RESTS,
    T_RESTS, T_RISK_CHECK, T_RISK_MINUS1, T_RISK_MINUS2, T_RISK_RETREATS, T_RISKS, T_SETS,
    T_SHARED_POINTS, T_TRADES)

from fa_states import (
    F, blank, set_route, tiles, row1_hard, hand, hand_total, up, bits, legal_turn, shortfall,
    decisions, GEAR, FACE, CRACK, SLAB, P_SLAB, P_ROOF, P_CORNER, P_ARETE, P_FLAKE, P_CRACK,
    TRIFECTA)  # noqa: F401


# === F26-F30, F126: turn structure =========================================================

def test_turn_legal_lists_rest_climb_risk_and_trades():
    # F29, F34, F28: rest first, climb where S = 0, risk where S = 1, trades with 3 of a type
    st, t = blank()
    row1_hard(st)
    tiles(st, {1: 1, 2: 12})        # 1: slab 2, any 1, water 1; 12: face 1, slab 2, any 1
    give(st, 0, SLAB_NONE, 3)
    st[F(S_WATER, 0)] = 1
    st[F(S_PSYCH, 0)] = 0
    assert shortfall(st, t, 0, 1) == 0
    assert shortfall(st, t, 0, 2) == 1
    assert shortfall(st, t, 0, 3) >= 2
    legal = legal_turn(st, t, 0)
    assert legal == [A_REST, A_CLIMB + 1, A_RISK + 2] + [A_TRADE + 4 * SLAB + p for p in range(4)]


def test_forced_rest_when_nothing_is_climbable():
    # F29, F126: every destination has S >= 2: only resting is legal; it counts as forced
    st, t = blank()
    row1_hard(st)
    tiles(st, {1: 1})
    st[F(S_WATER, 0)] = 0
    st[F(S_PSYCH, 0)] = 0
    assert legal_turn(st, t, 0) == [A_REST]
    ag = agents()
    engine.play_turn(st, t, ag, 0)
    assert st[G_POLICY_ERROR] == 0
    assert st[F(S_STATUS, 0)] == STATUS_RESTED
    assert st[T_FORCED_RESTS + 0] == 1 and st[T_RESTS + 0] == 1
    # the single legal code is taken without asking the policy
    assert decisions(ag, st, D_TURN) == [(0, D_TURN, A_REST, 1)]
    assert st[F(S_HEX, 0)] == 0


def test_rest_is_legal_even_when_a_climb_is_possible():
    # F29: resting is always allowed; it is not a forced rest then
    st, t = blank()
    row1_hard(st)
    tiles(st, {1: 1})
    give(st, 0, SLAB_NONE, 3)
    ag = agents(script=[A_REST])
    engine.play_turn(st, t, ag, 0)
    assert st[G_POLICY_ERROR] == 0
    assert st[F(S_STATUS, 0)] == STATUS_RESTED
    assert st[T_FORCED_RESTS + 0] == 0 and st[F(S_HEX, 0)] == 0
    assert hand(st, 0, SLAB_NONE) == 3


def test_trade_three_cards_of_one_type_for_a_portaledge_card():
    # F28, F46: discard 3 hand cards of one type, take the top card of a chosen pile, repeatable
    st, t = blank()
    row1_hard(st)
    give(st, 0, CRACK_NONE, 2)
    give(st, 0, CRACK_PAIN, 1)
    give(st, 0, SLAB_NONE, 2)
    legal = legal_turn(st, t, 0)
    assert [c for c in legal if c >= A_TRADE] == [A_TRADE + 4 * CRACK + p for p in range(4)]
    n_pile = int(st[PILE_N + FACE])
    top = int(st[PILE + FACE * PILE_CAP + n_pile - 1])
    discard_before = int(st[G_DISCARD_N])
    ag = agents(script=[A_TRADE + 4 * CRACK + FACE])   # card choices: first legal, then rest
    engine.play_turn(st, t, ag, 0)
    assert st[G_POLICY_ERROR] == 0
    assert hand(st, 0, CRACK_NONE) == 0 and hand(st, 0, CRACK_PAIN) == 0
    assert st[DISCARD + CRACK_NONE] == 2 and st[DISCARD + CRACK_PAIN] == 1
    assert st[G_DISCARD_N] == discard_before + 3
    assert st[PILE_N + FACE] == n_pile - 1
    assert hand(st, 0, top) == 1 + (2 if top == SLAB_NONE else 0)
    assert t[T_KIND_TYPE + top] == FACE
    assert st[T_TRADES + 0] == 1
    assert st[F(S_STATUS, 0)] == STATUS_RESTED          # the turn went on and ended in a rest
    # two cards of a type are not enough
    assert not [c for c in legal_turn(st, t, 0) if c >= A_TRADE]


def test_legal_destinations_neighbour_route_occupied_summit_face_down():
    # F30, F9, F13
    st, t = blank(players=3, chars=(4, 6, 4))
    set_route(st, 0, [1, 9])            # 9 neighbours 1, 2, 10, 16
    set_route(st, 1, [3, 10])           # seat 1 stands on 10
    assert bits(engine.legal_destinations(st, t, 0)) == [2, 16]
    # a summit can be shared; an occupied non-summit cannot be entered
    st[G_HEADWALL_UP] = 1
    set_route(st, 0, [1, 9, 16, 22, 27])          # 27 neighbours 22, 23, 28, 31
    set_route(st, 1, [5, 12, 18, 23, 28, 31])     # seat 1 on summit 31
    set_route(st, 2, [6, 13, 19, 24, 23])          # seat 2 on 23 (not a summit)
    assert bits(engine.legal_destinations(st, t, 0)) == [28, 31]
    # face-down Headwall tiles are not destinations
    st[G_HEADWALL_UP] = 0
    set_route(st, 0, [1, 9, 16])
    set_route(st, 1, [])
    set_route(st, 2, [])
    dest = bits(engine.legal_destinations(st, t, 0))
    assert dest == [10, 17, 18, 19, 20, 21]
    st[G_HEADWALL_UP] = 1
    assert bits(engine.legal_destinations(st, t, 0)) == [10, 17, 18, 19, 20, 21, 22, 23, 24,
                                                          25, 26]


def test_headwall_revealed_at_the_end_of_the_climb_phase():
    # F14, F26: a climb into row 3 reveals the Headwall only after the last turn of the phase
    st, t = blank()
    set_route(st, 0, [1, 9])
    tiles(st, {16: 1})
    give(st, 0, SLAB_NONE, 3)
    st[F(S_WATER, 0)] = 1
    ag = agents(script=[A_CLIMB + 16])
    engine.play_turn(st, t, ag, 0)
    assert st[F(S_HEX, 0)] == 16
    assert st[G_HEADWALL_UP] == 0
    assert not engine.hex_face_up(st, t, 22)
    assert 22 not in bits(engine.legal_destinations(st, t, 0))
    st2, t2 = blank()
    set_route(st2, 0, [1, 9, 16])
    ag2 = agents()
    engine.play_round(st2, t2, ag2)
    assert st2[G_POLICY_ERROR] == 0
    assert st2[G_HEADWALL_UP] == 1
    assert 22 in bits(engine.legal_destinations(st2, t2, 0))


def test_headwall_stays_hidden_while_routes_are_below_row_3():
    # F14
    st, t = blank()
    set_route(st, 0, [1, 9])
    set_route(st, 1, [8, 15])
    engine.play_round(st, t, agents())
    assert st[G_POLICY_ERROR] == 0
    assert st[G_HEADWALL_UP] == 0


def test_round_order_first_player_and_rotation():
    # F26, F57, Decision 14: turns from the first player, Rerack in the same order, token passes
    st, t = blank(players=3, chars=(4, 6, 4))
    row1_hard(st)
    st[G_FIRST] = 1
    ag = agents()
    engine.play_round(st, t, ag)
    assert st[G_POLICY_ERROR] == 0
    assert [r[0] for r in decisions(ag, st, D_TURN)] == [1, 2, 0]
    rest_seats = [r[0] for r in decisions(ag, st, D_REST)]
    assert rest_seats == [1] * 5 + [2] * 5 + [0] * 5
    assert st[G_FIRST] == 2 and st[G_ROUND] == 2
    engine.rerack(st, t, ag)
    assert st[G_FIRST] == 0                      # 2 -> 0 wraps


# === F31-F36, F123-F125: paying and risking ================================================

def test_requirement_tokens_add_units():
    # F31, F48
    st, t = blank()
    tiles(st, {1: 1})
    give(st, 0, SLAB_NONE, 3)
    st[F(S_WATER, 0)] = 1
    assert shortfall(st, t, 0, 1) == 0
    st[REQ_TOKENS + 4 * 1 + FACE] += 1
    assert shortfall(st, t, 0, 1) == 1
    st[REQ_TOKENS + 4 * 1 + GEAR] += 1
    assert shortfall(st, t, 0, 1) == 2
    give(st, 0, FACE_NONE, 1)
    assert shortfall(st, t, 0, 1) == 1


def test_any_skill_paid_by_skill_not_gear_and_permanent_tokens_pay():
    # F33: any_skill takes a face/crack/slab card or token, never gear; tokens are not used up
    st, t = blank()
    row1_hard(st)
    tiles(st, {1: 1})                  # slab 2, any_skill 1, water 1
    give(st, 0, SLAB_NONE, 2)
    give(st, 0, GEAR_NONE, 3)
    st[F(S_WATER, 0)] = 1
    assert shortfall(st, t, 0, 1) == 1
    st[F(S_PERM, 0) + FACE] = 1
    assert shortfall(st, t, 0, 1) == 0
    clear_cards(st, 0)
    st[F(S_PERM, 0) + SLAB] = 2
    st[F(S_PERM, 0) + FACE] = 0
    give(st, 0, FACE_NONE, 1)
    ag = agents(script=[A_CLIMB + 1])
    engine.play_turn(st, t, ag, 0)
    assert st[G_POLICY_ERROR] == 0
    assert st[F(S_HEX, 0)] == 1
    assert st[F(S_PERM, 0) + SLAB] == 2              # permanent tokens stay
    assert up(st, 0, FACE_NONE) == 1 and hand_total(st, 0) == 0
    assert st[F(S_WATER, 0)] == 0 + 2                # paid 1, then Wild berries +2 (option A)


def test_order_of_climbing_discount_and_pitch_points():
    # F32a, F35(3): N others on the hex ignore N units; points = value - N, never below 0
    st, t = blank()
    row1_hard(st)
    tiles(st, {2: 13})                 # roof, value 2: gear 1, face 1, slab 1, psych 2
    give(st, 0, GEAR_NONE, 1)
    give(st, 0, SLAB_NONE, 1)
    st[F(S_PSYCH, 0)] = 2
    assert shortfall(st, t, 0, 2) == 1
    set_route(st, 1, [2, 9])           # seat 1 climbed hex 2 and stands on 9
    assert engine.climbed_by_others(st, 0, 2) == 1
    assert shortfall(st, t, 0, 2) == 0
    assert A_CLIMB + 2 in legal_turn(st, t, 0)
    assert engine.attempt_climb(st, t, agents(), 0, 2, False)
    assert st[F(S_SC_PITCH, 0)] == 1
    assert st[F(S_PSYCH, 0)] == 0
    assert up(st, 0, GEAR_NONE) == 1 and up(st, 0, SLAB_NONE) == 1
    # three players, N = 2 on a value-1 pitch: 0 points, not -1
    st, t = blank(players=3, chars=(4, 6, 4))
    tiles(st, {1: 1})
    give(st, 0, SLAB_NONE, 3)
    st[F(S_WATER, 0)] = 1
    set_route(st, 1, [1, 9])
    set_route(st, 2, [1, 2])
    assert engine.attempt_climb(st, t, agents(), 0, 1, False)
    assert st[F(S_SC_PITCH, 0)] == 0
    assert st[F(S_SCORE, 0)] == 0


def _risk_state(rules, spare_hand=(), spare_board=(), psych=4, opp_psych=4):
    """Seat 0 risks hex 2 (tile 12: face 1, slab 2, any 1) with 3 slabs: the face is missing."""
    st, t = blank(rules=rules)
    row1_hard(st)
    tiles(st, {2: 12})
    give(st, 0, SLAB_NONE, 3)
    for k in spare_hand:
        give(st, 0, k)
    for k in spare_board:
        give(st, 0, k, where=BOARD_DOWN)
    st[F(S_PSYCH, 0)] = psych
    st[F(S_PSYCH, 1)] = opp_psych
    return st, t


def test_risk_check_face_climbs():
    # F34, F36(1)(2), Decision 1: S = 1 risks; a check face completes the climb
    st, t = _risk_state({"risk_die_odds": "1:0:0"})
    legal = legal_turn(st, t, 0)
    assert A_RISK + 2 in legal and A_CLIMB + 2 not in legal
    ag = agents(script=[A_RISK + 2])
    engine.play_turn(st, t, ag, 0)
    assert st[G_POLICY_ERROR] == 0
    assert st[F(S_HEX, 0)] == 2 and st[F(S_STATUS, 0)] == STATUS_CLIMBED
    assert st[T_RISKS + 0] == 1 and st[T_RISK_CHECK + 0] == 1
    assert up(st, 0, SLAB_NONE) == 3 and hand_total(st, 0) == 0
    assert hand_total(st, 1) == 0


def test_risk_minus_two_cards_gives_hand_then_board_cards():
    # F36(3), F116c, Decision 12: 2 spare cards to the opponent, hand first, then the board
    st, t = _risk_state({"risk_die_odds": "0:1:0"}, spare_hand=(GEAR_NONE,),
                        spare_board=(CRACK_NONE,))
    assert engine.attempt_climb(st, t, agents(), 0, 2, True)
    assert st[T_RISK_MINUS2 + 0] == 1
    assert hand(st, 1, GEAR_NONE) == 1 and hand(st, 1, CRACK_NONE) == 1
    assert st[BOARD_DOWN + 0 * N_KINDS + CRACK_NONE] == 0
    assert up(st, 0, SLAB_NONE) == 3                 # the committed slabs paid the pitch
    assert st[F(S_HEX, 0)] == 2


def test_risk_retreat_when_only_committed_cards_could_pay():
    # F36(6), F124, F55: committed cards do not count; a retreat moves nothing, penalised
    st, t = _risk_state({"risk_die_odds": "0:1:0"}, spare_hand=(GEAR_NONE,))
    water = int(st[F(S_WATER, 0)])
    moved = engine.attempt_climb(st, t, agents(), 0, 2, True)
    assert not moved
    assert st[F(S_HEX, 0)] == 0 and st[F(S_ROUTE_N, 0)] == 0
    assert st[F(S_STATUS, 0)] == STATUS_PENALISED
    assert st[T_RISK_RETREATS + 0] == 1
    assert hand(st, 0, SLAB_NONE) == 3 and hand(st, 0, GEAR_NONE) == 1
    assert up(st, 0, SLAB_NONE) == 0 and hand_total(st, 1) == 0
    assert st[F(S_WATER, 0)] == water


@pytest.mark.parametrize("psych_given, opp_after", [("gained", 5), ("lost", 4)])
def test_risk_minus_one_card_one_psych(psych_given, opp_after):
    # F36(4), F116d, Decision 29
    st, t = _risk_state({"risk_die_odds": "0:0:1", "psych_given": psych_given},
                        spare_hand=(GEAR_NONE,), psych=3, opp_psych=4)
    assert engine.attempt_climb(st, t, agents(), 0, 2, True)
    assert st[T_RISK_MINUS1 + 0] == 1
    assert st[F(S_PSYCH, 0)] == 2
    assert st[F(S_PSYCH, 1)] == opp_after
    assert hand(st, 1, GEAR_NONE) == 1
    assert st[F(S_HEX, 0)] == 2


def test_risk_minus_one_psych_needs_psych_beyond_the_committed():
    # F124, F116d: psych >= psych committed + 1, else retreat
    def state(psych):
        st, t = blank(rules={"risk_die_odds": "0:0:1"})
        row1_hard(st)
        tiles(st, {2: 13})             # gear 1, face 1, slab 1, psych 2; face missing
        give(st, 0, GEAR_NONE, 2)      # one commits, one is spare
        give(st, 0, SLAB_NONE, 1)
        st[F(S_PSYCH, 0)] = psych
        return st, t
    st, t = state(2)
    assert not engine.attempt_climb(st, t, agents(), 0, 2, True)
    assert st[F(S_HEX, 0)] == 0 and st[F(S_STATUS, 0)] == STATUS_PENALISED
    assert st[F(S_PSYCH, 0)] == 2 and hand(st, 0, GEAR_NONE) == 2
    st, t = state(3)
    assert engine.attempt_climb(st, t, agents(), 0, 2, True)
    assert st[F(S_HEX, 0)] == 2
    assert st[F(S_PSYCH, 0)] == 0                    # 3 - 1 given - 2 paid
    assert hand(st, 1, GEAR_NONE) == 1


def _phil_state(rules):
    st, t = blank(chars=(8, 4), rules=rules)
    row1_hard(st)
    tiles(st, {1: 1})                 # slab 2, any 1, water 1
    give(st, 0, SLAB_NONE, 3)
    st[F(S_WATER, 0)] = 1
    return st, t


def test_phil_must_risk_and_leaves_one_unit_unpaid():
    # F71, F34, Decision 9 default: full payment possible, still a risk, one card kept back
    st, t = _phil_state({"risk_die_odds": "1:0:0"})
    legal = legal_turn(st, t, 0)
    assert A_RISK + 1 in legal and A_CLIMB + 1 not in legal
    assert engine.attempt_climb(st, t, agents(), 0, 1, True)
    assert st[T_RISKS + 0] == 1
    assert up(st, 0, SLAB_NONE) == 2 and hand(st, 0, SLAB_NONE) == 1


def test_phil_pay_then_roll_flag():
    # F71, Decision 9 flag: pays everything, then rolls
    st, t = _phil_state({"risk_die_odds": "1:0:0", "phil_full_payment": "pay_then_roll"})
    assert engine.attempt_climb(st, t, agents(), 0, 1, True)
    assert st[T_RISKS + 0] == 1
    assert up(st, 0, SLAB_NONE) == 3 and hand(st, 0, SLAB_NONE) == 0


def _phil_nothing_state(rules):
    """5 players: four others climbed hex 1, so N = 4 ignores all 4 units of tile 1."""
    st, t = blank(players=5, chars=(8, 4, 6, 4, 6), rules=rules)
    tiles(st, {1: 1})
    for s, h in zip(range(1, 5), (11, 12, 13, 14)):
        set_route(st, s, [1, h])
    st[F(S_WATER, 0)] = 0
    st[F(S_PSYCH, 0)] = 0
    return st, t


def test_phil_with_nothing_to_pay_still_rolls():
    # F125, Decision 30 default: he rolls; an unpaid penalty makes him retreat
    st, t = _phil_nothing_state({"risk_die_odds": "0:1:0"})
    assert shortfall(st, t, 0, 1) == 0
    assert not engine.attempt_climb(st, t, agents(), 0, 1, True)
    assert st[T_RISKS + 0] == 1 and st[F(S_HEX, 0)] == 0
    assert st[F(S_STATUS, 0)] == STATUS_PENALISED
    st, t = _phil_nothing_state({"risk_die_odds": "1:0:0"})
    assert engine.attempt_climb(st, t, agents(), 0, 1, True)
    assert st[T_RISKS + 0] == 1 and st[F(S_HEX, 0)] == 1
    assert st[F(S_SC_PITCH, 0)] == 0                 # value 1 - N 4, floored at 0


@pytest.mark.parametrize("full_payment", ["leave_one_unpaid", "pay_then_roll"])
def test_phil_with_nothing_to_pay_climbs_under_flag(full_payment):
    # Decision 30 flag phil_nothing_to_pay=climbs, whichever Decision 9 reading (F132: a flag
    # applies everywhere its rule acts)
    st, t = _phil_nothing_state({"risk_die_odds": "0:1:0", "phil_nothing_to_pay": "climbs",
                                 "phil_full_payment": full_payment})
    assert engine.attempt_climb(st, t, agents(), 0, 1, True)
    assert st[T_RISKS + 0] == 0 and st[F(S_HEX, 0)] == 1


@pytest.mark.parametrize("others, perm, rolls", [
    (4, SLAB, False),        # N = 4 ignores all four units, the token's slab among them
    (3, FACE, True),         # N = 3: the face token pays the any_skill unit, which remains
])
def test_phil_and_a_permanent_token_under_the_nothing_to_pay_flag(others, perm, rolls):
    # F125, F32a, F33, Decision 30 flag: tile 1 S2 A1 W1. With four others on the hex the
    # discount may take every unit, the one a permanent token would pay included: nothing
    # remains, he climbs without a roll. With three, a unit remains whatever the discount
    # takes (here the any_skill unit a face token pays): he rolls, and retreats on 0:1:0
    st, t = _phil_nothing_state({"risk_die_odds": "0:1:0", "phil_nothing_to_pay": "climbs"})
    if others == 3:
        set_route(st, 4, [14])
    st[F(S_PERM, 0) + perm] = 1
    assert engine.attempt_climb(st, t, agents(), 0, 1, True) == (not rolls)
    assert st[T_RISKS + 0] == (1 if rolls else 0)


def test_phil_with_units_paid_by_permanent_tokens_still_rolls_under_the_flag():
    # F125, F33, Decision 30 flag: permanent tokens pay units, they do not remove them, so
    # something is left to pay and F34 applies: he rolls (and here retreats). Tile 1 S2 A1 W1
    # with N = 1 ignoring the water; two slab tokens and a face token pay the rest
    st, t = blank(players=2, chars=(8, 4), rules={"risk_die_odds": "0:1:0",
                                                  "phil_nothing_to_pay": "climbs"})
    tiles(st, {1: 1})
    set_route(st, 1, [1, 11])
    st[F(S_PERM, 0) + SLAB] = 2
    st[F(S_PERM, 0) + FACE] = 1
    st[F(S_WATER, 0)] = 0
    st[F(S_PSYCH, 0)] = 0
    assert shortfall(st, t, 0, 1) == 0
    assert not engine.attempt_climb(st, t, agents(), 0, 1, True)
    assert st[T_RISKS + 0] == 1 and st[F(S_HEX, 0)] == 0


# === F35: success bookkeeping ================================================================

def test_successful_climb_bookkeeping():
    # F35 (1)-(3), (7), F39
    st, t = blank()
    row1_hard(st)
    tiles(st, {1: 1})
    give(st, 0, SLAB_BALANCE, 1)
    give(st, 0, SLAB_NONE, 2)
    st[F(S_WATER, 0)] = 3
    pos = int(st[G_CDECK_POS])
    assert engine.attempt_climb(st, t, agents(), 0, 1, False)
    assert up(st, 0, SLAB_BALANCE) == 1 and up(st, 0, SLAB_NONE) == 2
    assert st[BOARD_DOWN:BOARD_DOWN + N_KINDS].sum() == 0
    assert hand_total(st, 0) == 0
    assert st[F(S_ROUTE, 0)] == 1 and st[F(S_ROUTE_N, 0)] == 1
    assert st[F(S_ROUTE_MASK, 0)] == 1 << 1 and st[F(S_HEX, 0)] == 1
    assert st[F(S_STATUS, 0)] == STATUS_CLIMBED
    assert st[F(S_TYPE_N, 0) + t[T_P_TYPE + 1]] == 1
    assert st[F(S_SC_PITCH, 0)] == 1 and st[F(S_SC_SUMMIT, 0)] == 0
    assert st[G_CDECK_POS] == pos + 1 and st[T_CLIMB_CARDS + 0] == 1
    assert st[F(S_WATER, 0)] == 3 - 1 + 2            # paid 1, Wild berries A +2


@pytest.mark.parametrize("rules, prior, bonus", [({}, 0, 1), ({}, 1, 1),
                                                 ({"summit_bonus": "once"}, 0, 1),
                                                 ({"summit_bonus": "once"}, 1, 0)])
def test_summit_bonus(rules, prior, bonus):
    # F35(4), Decision 36
    st, t = blank(rules=rules)
    st[G_HEADWALL_UP] = 1
    set_route(st, 0, [1, 9, 16, 22, 27])
    set_route(st, 1, [3, 11, 18, 23, 28, 31])       # another climber on the summit
    tiles(st, {31: 1})
    give(st, 0, SLAB_NONE, 3)
    st[F(S_WATER, 0)] = 1
    st[F(S_SC_SUMMIT, 0)] = prior                  # a summit bonus scored before
    assert A_CLIMB + 31 in legal_turn(st, t, 0)
    assert engine.attempt_climb(st, t, agents(), 0, 31, False)
    assert st[F(S_SC_SUMMIT, 0)] == prior + bonus
    assert st[F(S_SC_PITCH, 0)] == 0                 # value 1 - N 1 (seat 1 climbed 31)


# === F49-F52: techniques, permanent tokens, flip ============================================

@lru_cache(maxsize=None)
def _max_sets(sym, wilds):
    best = 0
    for alloc in product(range(3), repeat=4):
        if sum(alloc) <= wilds:
            v = sum((s + a) // 3 for s, a in zip(sym, alloc)) + (wilds - sum(alloc)) // 3
            best = max(best, v)
    return best


def _brute(c, w, tok, nr):
    """(sets, tokens, new rubber) of the best choice: most sets, fewest tokens, keep NR."""
    best = None
    for used in product(*(range(tok[x] + 1) for x in range(1, 5))):
        for n in range(nr + 1):
            sets = _max_sets(tuple(c[x] + used[x - 1] for x in range(1, 5)), w + n)
            key = (-sets, sum(used), n)
            if best is None or key < best:
                best = key
    return -best[0], best[1], best[2]


SETS_WORK = np.zeros(engine.SETS_SCRATCH, np.int64)


def test_best_sets_matches_brute_force():
    # F49, Decision 13: most sets, then the fewest technique tokens, then keep New Rubber
    rng = np.random.default_rng(49)
    for _ in range(300):
        c = np.zeros(6, np.int64)
        c[1:5] = rng.integers(0, 6, 4)
        w = int(rng.integers(0, 4))
        tok = np.zeros(5, np.int64)
        tok[1:5] = rng.integers(0, 3, 4)
        nr = int(rng.integers(0, 2))
        out = np.zeros(5, np.int64)
        sets = engine.best_sets(c, w, tok, nr, out, SETS_WORK)
        want = _brute(c, w, tok, nr)
        got = (int(sets), int(out[1:5].sum()), int(out[0]))
        assert got == want, (list(c), w, list(tok), nr, got, want)
        assert all(0 <= out[x] <= tok[x] for x in range(1, 5))
        # the reported tokens really make that many sets
        sym = tuple(int(c[x] + out[x]) for x in range(1, 5))
        assert _max_sets(sym, w + int(out[0])) == sets
        g_out = np.zeros(5, np.int64)
        g = engine.greedy_sets(c, w, tok, nr, g_out, SETS_WORK)
        assert g <= sets                         # greedy is never better than optimal


def test_greedy_sets_differs_from_optimal():
    # F49, Decision 13 flag: BGA's greedy spends 2 wilds on the first technique
    c = np.array([0, 4, 2, 2, 0, 0], np.int64)
    tok = np.zeros(5, np.int64)
    out = np.zeros(5, np.int64)
    assert engine.best_sets(c, 2, tok, 0, out, SETS_WORK) == 3
    assert engine.greedy_sets(c, 2, tok, 0, out, SETS_WORK) == 2


def _board_for_sets(st, seat):
    """4 precision, 2 balance, 2 pain tolerance, 2 wild; no type reaches 4 cards."""
    for k in (7, 11, 18, GEAR_PRECISION, 5, SLAB_BALANCE, CRACK_PAIN, 14, GEAR_WILD, 27):
        give(st, seat, k, where=BOARD_UP)


@pytest.mark.parametrize("rules, points", [({}, 6), ({"technique_sets": "bga_greedy"}, 4)])
def test_follow_phase_sets_optimal_and_greedy(rules, points):
    # F49, Decision 13
    st, t = blank(chars=(1, 1), rules=rules)
    _board_for_sets(st, 0)
    ag = agents()
    engine.follow_phase(st, t, ag)
    assert st[G_POLICY_ERROR] == 0
    assert st[F(S_SC_SETS, 0)] == points and st[F(S_SCORE, 0)] == points
    assert st[T_SETS + 0] == points // 2
    assert not decisions(ag, st, D_PERMANENT)


@pytest.mark.parametrize("char, sets", [(4, 1), (1, 0)])
def test_sendy_jammer_gear_is_wild(char, sets):
    # F67, Decision 35: her gear cards (with or without symbol) are wild
    st, t = blank(chars=(char, 1))
    for k in (GEAR_NONE, GEAR_PRECISION, 24):
        give(st, 0, k, where=BOARD_UP)
    engine.follow_phase(st, t, agents())
    assert st[F(S_SC_SETS, 0)] == 2 * sets


def test_technique_tokens_and_new_rubber_used_only_when_needed():
    # F49, F82: unused tokens and New Rubber stay; cards' unused symbols are lost (F52)
    st, t = blank(chars=(1, 1))
    give(st, 0, 7, where=BOARD_UP)            # 1 precision card
    st[F(S_TECH, 0) + 1] = 1                  # 1 precision token: 2 symbols, no set
    give(st, 1, 7, where=BOARD_UP)
    give(st, 1, 11, where=BOARD_UP)
    give(st, 1, 18, where=BOARD_UP)           # 3 precision cards: a set without tokens
    st[F(S_TECH, 1) + 1] = 1                  # token + New Rubber: 2 symbols, no 2nd set
    st[F(S_SB, 1)] = 1 << SB_NEW_RUBBER
    engine.follow_phase(st, t, agents())
    assert st[F(S_SC_SETS, 0)] == 0 and st[F(S_TECH, 0) + 1] == 1
    assert st[F(S_SC_SETS, 1)] == 2 and st[F(S_TECH, 1) + 1] == 1
    assert (st[F(S_SB, 1)] >> SB_NEW_RUBBER) & 1
    # next round: 1 card + 1 token + New Rubber make a set; both are used up
    give(st, 0, 11, where=BOARD_UP)
    st[F(S_SB, 0)] = 1 << SB_NEW_RUBBER
    engine.follow_phase(st, t, agents())
    assert st[F(S_SC_SETS, 0)] == 2 and st[F(S_TECH, 0) + 1] == 0
    assert not (st[F(S_SB, 0)] >> SB_NEW_RUBBER) & 1
    assert (st[SB_DISCARD] >> SB_NEW_RUBBER) & 1


def test_cards_flip_face_down_after_follow():
    # F52: every face-up card turns face down (and stays on the board)
    st, t = blank(chars=(1, 1))
    give(st, 0, 7, where=BOARD_UP)
    give(st, 0, 7, where=BOARD_DOWN)
    give(st, 1, FACE_POWER, 2, where=BOARD_UP)
    engine.follow_phase(st, t, agents())
    assert st[BOARD_UP:BOARD_UP + 2 * N_KINDS].sum() == 0
    assert st[BOARD_DOWN + 7] == 2
    assert st[BOARD_DOWN + N_KINDS + FACE_POWER] == 2
    # and last round's face-down cards make no sets
    engine.follow_phase(st, t, agents())
    assert st[F(S_SC_SETS, 0)] == 0


def test_permanent_tokens_threshold_choice_and_discard():
    # F50, Decision 21: up to count // 4, optional; face-down cards discarded first
    st, t = blank(chars=(1, 1))                # Rope Gun: threshold 4, limit 5
    give(st, 0, CRACK_NONE, 5, where=BOARD_DOWN)
    give(st, 0, CRACK_PAIN, 4, where=BOARD_UP)
    give(st, 0, SLAB_NONE, 3, where=BOARD_DOWN)
    ag = agents(script=[CRACK, CRACK])
    engine.permanent_tokens(st, t, ag, 0)
    assert st[G_POLICY_ERROR] == 0
    perm = decisions(ag, st, D_PERMANENT)
    assert [(r[2], r[3]) for r in perm] == [(CRACK, 2), (CRACK, 2)]
    assert st[F(S_PERM, 0) + CRACK] == 2 and st[F(S_PERM_GAINED, 0)] == 2
    assert st[BOARD_DOWN + CRACK_NONE] == 0 and st[BOARD_UP + CRACK_PAIN] == 1
    assert st[DISCARD + CRACK_NONE] == 5 and st[DISCARD + CRACK_PAIN] == 3
    assert st[BOARD_DOWN + SLAB_NONE] == 3


def test_permanent_tokens_stop_and_limit():
    # F50: taking is optional (STOP); the character's limit caps the total
    st, t = blank(chars=(1, 1))
    give(st, 0, CRACK_NONE, 8, where=BOARD_DOWN)
    ag = agents(script=[PERM_STOP])
    engine.permanent_tokens(st, t, ag, 0)
    assert st[F(S_PERM, 0) + CRACK] == 0 and st[BOARD_DOWN + CRACK_NONE] == 8
    st[F(S_PERM, 0) + GEAR] = 4                # Rope Gun limit 5: one more only
    ag = agents(script=[CRACK, CRACK])
    engine.permanent_tokens(st, t, ag, 0)
    assert st[F(S_PERM, 0) + CRACK] == 1
    assert len(decisions(ag, st, D_PERMANENT)) == 1


def test_young_prodigy_thresholds_and_limit():
    # F69, F50: threshold 3 per skill type, 5 for gear; limit 4
    st, t = blank(chars=(6, 1))
    give(st, 0, CRACK_NONE, 3, where=BOARD_DOWN)
    give(st, 0, GEAR_NONE, 4, where=BOARD_DOWN)
    ag = agents(script=[CRACK])
    engine.permanent_tokens(st, t, ag, 0)
    first = decisions(ag, st, D_PERMANENT)[0]
    assert first[3] == 2                       # crack + STOP: 4 gear are not enough
    assert st[F(S_PERM, 0) + CRACK] == 1 and st[BOARD_DOWN + CRACK_NONE] == 0
    give(st, 0, GEAR_NONE, 1, where=BOARD_DOWN)
    give(st, 0, FACE_NONE, 9, where=BOARD_DOWN)
    ag = agents(script=[GEAR, FACE, FACE, FACE])
    engine.permanent_tokens(st, t, ag, 0)
    assert st[F(S_PERM, 0) + GEAR] == 1
    assert st[F(S_PERM, 0):F(S_PERM, 0) + 4].sum() == 4          # limit 4
    assert st[F(S_PERM, 0) + FACE] == 2


# === F53, F127, Decision 19/31: the end check ===============================================

def test_game_ends_after_follow_when_someone_has_eight_pitches():
    # F53, F37: end after the Follow phase, no Rerack
    st, t = blank()
    st[G_HEADWALL_UP] = 1
    set_route(st, 0, [1, 2, 9, 10, 16, 17, 22, 23])
    give(st, 1, 7, where=BOARD_UP)
    first = int(st[G_FIRST])
    engine.play_round(st, t, agents())
    assert st[G_OVER] == 1 and st[G_END_REASON] == END_EIGHT_PITCHES
    assert st[BOARD_UP + N_KINDS + 7] == 0 and st[BOARD_DOWN + N_KINDS + 7] == 1   # F52 ran
    assert st[G_FIRST] == first and st[G_ROUND] == 1                                # no Rerack
    assert hand_total(st, 0) == 0 and hand_total(st, 1) == 0


def test_the_eighth_pitch_ends_the_game_only_after_the_climb_and_follow_phases():
    # F53, F26: seat 0, first player, climbs its 8th hex in the Climb phase; seat 1 still takes
    # its turn and the Follow phase runs (the check is at its end), then the game ends
    st, t = blank()
    st[G_HEADWALL_UP] = 1
    st[G_FIRST] = 0
    set_route(st, 0, [1, 2, 9, 10, 16, 17, 22])
    tiles(st, {23: 1})                                           # S2 A1 W1
    give(st, 0, 8, 3)                                            # three slab cards pay it
    assert A_CLIMB + 23 in legal_turn(st, t, 0)
    give(st, 1, 7, where=BOARD_UP)
    ag = agents(script=[A_CLIMB + 23])
    engine.play_round(st, t, ag)
    assert st[G_POLICY_ERROR] == 0 and st[F(S_ROUTE_N, 0)] == 8
    log = logged(ag, st)
    turns = [seat for seat, d, *_ in log if d == D_TURN]
    assert turns == [0, 1], log
    assert st[G_OVER] == 1 and st[G_END_REASON] == END_EIGHT_PITCHES
    assert st[BOARD_UP + N_KINDS + 7] == 0 and st[BOARD_DOWN + N_KINDS + 7] == 1   # F52 ran
    assert st[G_ROUND] == 1                                                         # no Rerack


def _stranded(rules):
    st, t = blank(rules=rules)
    st[G_HEADWALL_UP] = 1
    set_route(st, 0, [1, 9, 16, 22, 27, 28, 31])
    set_route(st, 1, [8, 15, 21, 26, 30, 29, 32])
    return st, t


def test_stranded_table_ends_the_game():
    # F127, F126, Decision 31 default
    st, t = _stranded({})
    assert engine.legal_destinations(st, t, 0) == 0 and engine.legal_destinations(st, t, 1) == 0
    engine.play_round(st, t, agents())
    assert st[G_OVER] == 1 and st[G_END_REASON] == END_STRANDED and st[G_STRANDED_END] == 1


def test_stranded_table_plays_to_the_cap_under_flag():
    # Decision 31 flag, Decision 19
    st, t = _stranded({"stranded_table": "play_to_cap", "round_cap": "2"})
    engine.play_round(st, t, agents())
    assert st[G_OVER] == 0 and st[G_ROUND] == 2
    engine.play_round(st, t, agents())
    assert st[G_OVER] == 1 and st[G_END_REASON] == END_ROUND_CAP


def test_round_cap():
    # Decision 19, F53
    st, t = blank(rules={"round_cap": "1"})
    row1_hard(st)
    engine.play_round(st, t, agents())
    assert st[G_OVER] == 1 and st[G_END_REASON] == END_ROUND_CAP
    assert st[G_ROUND] == 1


# === F54-F57: the Rerack ====================================================================

def test_rerack_draw_counts_by_status():
    # F54, F55, F120: climbed draws 3, penalised 1, none 0
    st, t = blank(players=3, chars=(4, 6, 4))
    st[F(S_STATUS, 0)] = STATUS_CLIMBED
    st[F(S_STATUS, 1)] = STATUS_PENALISED
    st[F(S_STATUS, 2)] = STATUS_NONE
    ag = agents(script=[DRAW_DECK, DRAW_DECK])
    engine.rerack(st, t, ag)
    assert st[G_POLICY_ERROR] == 0
    assert hand_total(st, 0) == 3 and hand_total(st, 1) == 1 and hand_total(st, 2) == 0
    assert [r[0] for r in decisions(ag, st, D_DRAW)] == [0, 1]   # the rest of 0's from the deck


@pytest.mark.parametrize("char, n", [(1, 5), (2, 6), (8, 6)])
def test_rest_assets_by_character(char, n):
    # F56: 5 assets (Free Soloist and Phil 6) from piles
    st, t = blank(chars=(char, 4))
    mx = int(t[data.T_CH + data.CH_FIELDS * char + data.CH_MAX])
    st[F(S_WATER, 0)] = mx
    st[F(S_PSYCH, 0)] = mx
    st[F(S_STATUS, 0)] = STATUS_RESTED
    ag = agents()
    engine.rerack(st, t, ag)
    rests = decisions(ag, st, D_REST)
    assert len(rests) == n and all(r[3] == 4 for r in rests)    # tracks full: only piles
    assert hand_total(st, 0) == n


def test_rest_tracks_capped():
    # F56, F7: +1 water/psych repeatable up to the maximum; a full track cannot be chosen
    st, t = blank(chars=(1, 4))
    st[F(S_WATER, 0)] = 4
    st[F(S_PSYCH, 0)] = 6
    st[F(S_STATUS, 0)] = STATUS_RESTED
    ag = agents(script=[REST_WATER, REST_WATER, REST_PSYCH])
    engine.rerack(st, t, ag)
    assert st[G_POLICY_ERROR] != 0             # third pick: psych is full, water now full


def test_rest_water_then_piles():
    # F56
    st, t = blank(chars=(1, 4))
    st[F(S_WATER, 0)] = 4
    st[F(S_PSYCH, 0)] = 6
    st[F(S_STATUS, 0)] = STATUS_RESTED
    ag = agents(script=[REST_WATER, REST_WATER, GEAR, FACE, SLAB])
    engine.rerack(st, t, ag)
    assert st[G_POLICY_ERROR] == 0
    assert st[F(S_WATER, 0)] == 6 and hand_total(st, 0) == 3
    assert [r[3] for r in decisions(ag, st, D_REST)] == [5, 5, 4, 4, 4]


def test_first_player_passes():
    # F57, Decision 14
    st, t = blank()
    assert st[G_FIRST] == 0
    engine.rerack(st, t, agents())
    assert st[G_FIRST] == 1
    engine.rerack(st, t, agents())
    assert st[G_FIRST] == 0


# === F120-F122: Spread, deck and Portaledge =================================================

def _set_deck(st, kinds):
    """The deck, bottom first (top = last)."""
    st[DECK:DECK + len(kinds)] = kinds
    st[G_DECK_N] = len(kinds)


def _empty_discard(st):
    st[DISCARD:DISCARD + N_KINDS] = 0
    st[G_DISCARD_N] = 0


def test_spread_refill_replaces_last_card_while_single_type():
    # F47, F121
    st, t = blank()
    _empty_discard(st)
    st[SPREAD:SPREAD + 4] = (CRACK_NONE, CRACK_PAIN, CRACK_NONE, 0)
    _set_deck(st, [SLAB_NONE, CRACK_NONE])         # top: a crack, then a slab
    engine.refill_spread(st, t)
    assert list(st[SPREAD:SPREAD + 4]) == [CRACK_NONE, CRACK_PAIN, CRACK_NONE, SLAB_NONE]
    assert st[DISCARD + CRACK_NONE] == 1 and st[G_DISCARD_N] == 1
    assert st[G_DECK_N] == 0 and st[G_SPREAD_STUCK] == 0


def test_spread_refill_stuck_case():
    # F121(2), Decision 25: no other type anywhere: the Spread stays single-typed
    st, t = blank()
    _empty_discard(st)
    st[SPREAD:SPREAD + 4] = (CRACK_NONE, CRACK_PAIN, CRACK_NONE, 0)
    _set_deck(st, [CRACK_NONE, CRACK_NONE])
    engine.refill_spread(st, t)
    assert list(st[SPREAD:SPREAD + 4]) == [CRACK_NONE, CRACK_PAIN, CRACK_NONE, CRACK_NONE]
    assert st[G_SPREAD_STUCK] == 1 and st[G_DECK_N] == 1


@pytest.mark.parametrize("rules, fixed", [({}, True), ({"deck_runs_out": "bga_never"}, False)])
def test_spread_refill_from_rebuilt_deck(rules, fixed):
    # F121, Decision 2: another type only in the discard pile helps only if the deck is rebuilt
    st, t = blank(rules=rules)
    _empty_discard(st)
    st[SPREAD:SPREAD + 4] = (CRACK_NONE, CRACK_PAIN, CRACK_NONE, 0)
    _set_deck(st, [CRACK_NONE])
    st[DISCARD + SLAB_NONE] = 1
    st[G_DISCARD_N] = 1
    engine.refill_spread(st, t)
    types = {int(t[T_KIND_TYPE + k]) for k in st[SPREAD:SPREAD + 4]}
    assert (types == {CRACK, SLAB}) == fixed
    assert (st[G_SPREAD_STUCK] == 0) == fixed
    if fixed:
        assert st[G_DECK_RESHUFFLES] == 1


@pytest.mark.parametrize("rules, n_legal_second", [({}, 4), ({"spread_refill": "each_card"}, 5)])
def test_draw_refills_spread_once_or_each_card(rules, n_legal_second):
    # F120, Decision 24
    st, t = blank(rules=rules)
    st[SPREAD:SPREAD + 4] = (CRACK_NONE, SLAB_NONE, FACE_NONE, GEAR_NONE)
    _set_deck(st, [FACE_POWER, SLAB_BALANCE, CRACK_PAIN, 7, 12])
    ag = agents(script=[0, 1])
    engine.draw_cards(st, t, ag, 0, 2, False)
    assert st[G_POLICY_ERROR] == 0
    draws = decisions(ag, st, D_DRAW)
    assert [r[3] for r in draws] == [5, n_legal_second]
    assert hand(st, 0, CRACK_NONE) == 1 and hand(st, 0, SLAB_NONE) == 1
    assert 0 not in list(st[SPREAD:SPREAD + 4])
    assert st[G_DECK_N] == 3


def test_draw_from_deck_rebuilds_from_discard():
    # F120, Decision 2 default
    st, t = blank()
    _set_deck(st, [])
    _empty_discard(st)
    st[DISCARD + FACE_NONE] = 3
    st[G_DISCARD_N] = 3
    ag = agents(script=[DRAW_DECK])
    engine.draw_cards(st, t, ag, 0, 2, False)
    assert st[G_POLICY_ERROR] == 0
    assert hand(st, 0, FACE_NONE) == 2
    assert st[G_DECK_RESHUFFLES] == 1 and st[G_DISCARD_N] == 0


def test_draw_with_deck_never_rebuilt_takes_spread_only():
    # F120, Decision 2 flag bga_never: the deck stays empty; Spread cards may be taken
    st, t = blank(rules={"deck_runs_out": "bga_never"})
    _set_deck(st, [])
    _empty_discard(st)
    st[DISCARD + FACE_NONE] = 3
    st[G_DISCARD_N] = 3
    st[SPREAD:SPREAD + 4] = (CRACK_NONE, SLAB_NONE, FACE_NONE, GEAR_NONE)
    ag = agents(script=[DRAW_DECK])
    engine.draw_cards(st, t, ag, 0, 1, False)
    assert st[G_POLICY_ERROR] != 0                   # DRAW_DECK is not offered
    assert decisions(ag, st, D_DRAW)[0][3] == 4
    assert st[G_DECK_RESHUFFLES] == 0 and st[G_DISCARD_N] == 3


def test_pile_refill_from_discard_then_deck():
    # F46, F122: a pile of 0-1 card gets up to 7: discard first, then the deck's first of type
    st, t = blank()
    _empty_discard(st)
    st[PILE_N + SLAB] = 1
    st[PILE + SLAB * PILE_CAP] = SLAB_BALANCE
    st[DISCARD + SLAB_NONE] = 2
    st[DISCARD + CRACK_NONE] = 1
    st[G_DISCARD_N] = 3
    deck = [10, 11, 12, 13, 14, FACE_NONE, 9, CRACK_NONE, 8]       # top = 8
    _set_deck(st, deck)
    k = engine.pile_draw(st, t, SLAB)
    assert k == SLAB_BALANCE                         # the card already there stays on top
    assert st[PILE_N + SLAB] == 7
    assert st[DISCARD + SLAB_NONE] == 0 and st[DISCARD + CRACK_NONE] == 1
    assert st[G_DISCARD_N] == 1
    # 5 from the deck top: 8, 9, 14, 13, 12; the rest keeps its order
    assert list(st[DECK:DECK + st[G_DECK_N]]) == [10, 11, FACE_NONE, CRACK_NONE]


def test_pile_refill_with_few_cards_and_exhausted_type():
    # Decision 20, Decision 5, F122: add what exists; an exhausted pile cannot be chosen
    st, t = blank()
    _empty_discard(st)
    st[PILE_N + FACE] = 0
    _set_deck(st, [FACE_NONE, CRACK_NONE])
    assert engine.pile_available(st, t, FACE)
    assert engine.pile_draw(st, t, FACE) == FACE_NONE
    assert st[PILE_N + FACE] == 0 and st[G_DECK_N] == 1
    assert not engine.pile_available(st, t, FACE)
    assert engine.pile_draw(st, t, FACE) == 0
    # trades are not offered towards it
    give(st, 0, CRACK_NONE, 3)
    assert A_TRADE + 4 * CRACK + FACE not in legal_turn(st, t, 0)
    assert A_TRADE + 4 * CRACK + CRACK in legal_turn(st, t, 0)


# === F58-F63, F88-F105, F129: objectives and the result =====================================

def climb_route(st, t, seat, path):
    """Append hexes to the route (with their tiles set already) and update objectives."""
    for h in path:
        b = seat * SEAT_FIELDS
        n = st[S_ROUTE_N + b]
        st[S_ROUTE + b + n] = h
        st[S_ROUTE_N + b] = n + 1
        st[S_ROUTE_MASK + b] |= 1 << h
        st[S_HEX + b] = h
        engine.update_shared_objectives(st, t, seat, h)


def shared(st, *ids):
    st[G_SHARED:G_SHARED + 3] = (list(ids) + [0, 0, 0])[:3]


def test_ridge_objective():
    # F88, F129: 4 North Ridge hexes, once
    st, t = blank()
    shared(st, 1, 2, 12)
    climb_route(st, t, 0, [1, 9, 16])
    assert st[F(S_SC_SHARED, 0)] == 0
    climb_route(st, t, 0, [22])
    assert st[F(S_SC_SHARED, 0)] == 5 + 1        # ridge + A Day in the Alpine (22 Headwall)
    climb_route(st, t, 0, [27])
    assert st[F(S_SC_SHARED, 0)] == 5 + 2
    assert st[T_SHARED_POINTS + 0 * 17 + 1] == 5


def test_shared_objectives_are_no_race():
    # F59, F129: every player who meets a shared objective scores it, whoever met it first, and
    # a later player's points take nothing from an earlier one's
    st, t = blank()
    shared(st, 1, 2, 12)
    climb_route(st, t, 0, [1, 9, 16, 22])
    assert st[F(S_SC_SHARED, 0)] == 5 + 1
    climb_route(st, t, 1, [1, 9, 16])
    assert st[F(S_SC_SHARED, 1)] == 0             # three of the four ridge hexes: not yet
    climb_route(st, t, 1, [22])
    assert st[F(S_SC_SHARED, 1)] == 5 + 1
    assert st[T_SHARED_POINTS + 1 * 17 + 1] == 5 and st[T_SHARED_POINTS + 1 * 17 + 12] == 1
    assert st[F(S_SC_SHARED, 0)] == 5 + 1 and st[T_SHARED_POINTS + 0 * 17 + 1] == 5


def test_south_ridge_and_headwall_each():
    # F89, F101
    st, t = blank()
    shared(st, 2, 12, 1)
    climb_route(st, t, 0, [8, 15, 21, 26, 30])
    assert st[T_SHARED_POINTS + 2] == 5
    assert st[T_SHARED_POINTS + 12] == 2


def test_per_pitch_shade_and_sun():
    # F90, F91: shade counts shade/both, sun counts sun/both
    st, t = blank()
    shared(st, 3, 4)
    tiles(st, {1: 1, 2: 2, 3: TRIFECTA})           # shade, sun, both
    climb_route(st, t, 0, [1, 2, 3])
    assert st[T_SHARED_POINTS + 3] == 2 and st[T_SHARED_POINTS + 4] == 2


TYPE_OBJ = {5: (P_CRACK, (6, 11)), 6: (P_SLAB, (1, 9)), 7: (P_CORNER, (3, 10)),
            8: (P_ARETE, (4, 8)), 13: (P_FLAKE, (5, 12)), 14: (P_ROOF, (2, 7))}


@pytest.mark.parametrize("so", sorted(TYPE_OBJ))
def test_type_count_with_trifecta_every_type(so):
    # F92-F97, Decision 7 default: The Trifecta counts for every type objective
    st, t = blank()
    shared(st, so)
    a, b = TYPE_OBJ[so][1]
    tiles(st, {1: a, 2: b, 3: TRIFECTA})
    climb_route(st, t, 0, [1, 2])
    assert st[F(S_SC_SHARED, 0)] == 0
    climb_route(st, t, 0, [3])
    assert st[F(S_SC_SHARED, 0)] == 4


@pytest.mark.parametrize("so", sorted(TYPE_OBJ))
def test_type_count_trifecta_crack_only_flag(so):
    # F92-F97, Decision 7 flag: The Trifecta counts for Jolly Jammer (5) only
    st, t = blank(rules={"trifecta_objectives": "bga_crack_only"})
    shared(st, so)
    a, b = TYPE_OBJ[so][1]
    tiles(st, {1: a, 2: b, 3: TRIFECTA})
    climb_route(st, t, 0, [1, 2, 3])
    assert st[F(S_SC_SHARED, 0)] == (4 if so == 5 else 0)


def test_type_count_three_real_pitches_score_once():
    # F92, F129: threshold kinds score once
    st, t = blank()
    shared(st, 5)
    tiles(st, {1: 6, 2: 11, 3: 22, 4: 23})
    climb_route(st, t, 0, [1, 2, 3, 4])
    assert st[F(S_SC_SHARED, 0)] == 4


def test_grand_traverse():
    # F98: 4 consecutive hexes of one row, any order; not across rows
    st, t = blank()
    shared(st, 9)
    climb_route(st, t, 0, [7, 8, 9, 10])        # 7-8 row 1, 9-10 row 2: no
    assert st[F(S_SC_SHARED, 0)] == 0
    st, t = blank()
    shared(st, 9)
    climb_route(st, t, 0, [4, 2, 5])
    assert st[F(S_SC_SHARED, 0)] == 0
    climb_route(st, t, 0, [3])
    assert st[F(S_SC_SHARED, 0)] == 4


def test_all_arounding_with_trifecta_filling_one_type():
    # F99, Decision 7
    st, t = blank()
    shared(st, 10)
    tiles(st, {1: 1, 2: 2, 3: 3, 4: 4, 5: TRIFECTA, 6: 5})   # slab roof corner arete any flake
    climb_route(st, t, 0, [1, 2, 3, 4, 5])       # 4 types + Trifecta: two missing
    assert st[F(S_SC_SHARED, 0)] == 0
    climb_route(st, t, 0, [6])                   # crack missing, filled by The Trifecta
    assert st[F(S_SC_SHARED, 0)] == 6
    st, t = blank()
    shared(st, 10)
    tiles(st, {1: 1, 2: 2, 3: 3, 4: 4, 6: 5, 7: 6})
    climb_route(st, t, 0, [1, 2, 3, 4, 6, 7])    # all six real types
    assert st[F(S_SC_SHARED, 0)] == 6


def test_elitist_up_front_and_lost_once():
    # F61, F100, F20: +4 for everyone at setup, -4 on the first value-1 pitch, only once
    for seed in range(1, 400):
        st, t = new_game(2, (4, 6), seed)
        if 11 in list(st[G_SHARED:G_SHARED + 3]):
            break
    else:
        pytest.skip("no seed draws The Elitist")
    assert st[T_SHARED_POINTS + 0 * 17 + 11] == 4 and st[T_SHARED_POINTS + 1 * 17 + 11] == 4
    tiles(st, {1: 13, 2: 1, 3: 2})               # value 2, then value 1 twice
    climb_route(st, t, 0, [1])
    assert st[T_SHARED_POINTS + 11] == 4         # a value-2 pitch keeps it
    climb_route(st, t, 0, [2])
    assert st[T_SHARED_POINTS + 11] == 0 and st[F(S_ELITIST_LOST, 0)] == 1
    climb_route(st, t, 0, [3])
    assert st[T_SHARED_POINTS + 11] == 0         # lost once, not twice
    assert st[T_SHARED_POINTS + 17 + 11] == 4    # seat 1 keeps it


def test_elitist_points_direct():
    # F61: +4 up front (constructed), -4 the first time a value-1 pitch is climbed
    st, t = blank()
    shared(st, 11)
    engine.score_objective(st, 0, 11, 4)
    tiles(st, {1: 1, 2: 2})
    climb_route(st, t, 0, [1])
    assert st[F(S_SC_SHARED, 0)] == 0
    climb_route(st, t, 0, [2])
    assert st[F(S_SC_SHARED, 0)] == 0


@pytest.mark.parametrize("rules, perm, met", [
    ({}, (0, 2, 0, 2), (True, False)),            # face 2, slab 2
    ({}, (0, 3, 0, 1), (False, False)),
    ({"permanent_objectives": "bga"}, (0, 3, 0, 1), (True, False)),
    ({}, (2, 0, 2, 0), (False, True)),            # gear 2, crack 2
    ({}, (1, 0, 3, 0), (False, False)),
    ({"permanent_objectives": "bga"}, (1, 0, 3, 0), (False, True)),
])
def test_stonemaster_and_off_width(rules, perm, met):
    # F102, F103, F62, Decision 6
    st, t = blank(rules=rules)
    shared(st, 15, 16)
    st[F(S_PERM, 0):F(S_PERM, 0) + 4] = perm
    engine.check_permanent_objectives(st, t, 0)
    assert st[T_SHARED_POINTS + 15] == (8 if met[0] else 0)
    assert st[T_SHARED_POINTS + 16] == (8 if met[1] else 0)
    engine.check_permanent_objectives(st, t, 0)   # once
    assert st[F(S_SC_SHARED, 0)] == 8 * sum(met)


def test_stonemaster_checked_in_follow_phase_after_grants():
    # F51, F62
    st, t = blank(chars=(1, 1))
    shared(st, 15)
    st[F(S_PERM, 0) + FACE] = 2
    st[F(S_PERM, 0) + SLAB] = 1
    give(st, 0, SLAB_NONE, 4, where=BOARD_DOWN)
    engine.follow_phase(st, t, agents(script=[SLAB]))
    assert st[F(S_PERM, 0) + SLAB] == 2
    assert st[T_SHARED_POINTS + 15] == 8


def test_several_objectives_by_one_climb_all_score():
    # F129
    st, t = blank()
    shared(st, 1, 3, 5)
    tiles(st, {1: 11, 9: 6, 16: 22, 22: 30})    # crack/shade, crack/sun, crack/shade, crack/shade
    climb_route(st, t, 0, [1, 9, 16])
    assert st[T_SHARED_POINTS + 5] == 4
    climb_route(st, t, 0, [22])
    assert st[T_SHARED_POINTS + 1] == 5 and st[T_SHARED_POINTS + 3] == 3


@pytest.mark.parametrize("rules, route_tiles, pts", [
    ({}, (2, 7, 24), 0),                                          # three roofs = one word
    ({"call_it_like_you_see_it": "any_pitches"}, (2, 7, 24), 2),
    ({}, (2, 4, 9), 2),                                          # roof, arete, slab
    ({}, (2, 4, 1), 0),                                          # tile 1 is not listed
])
def test_personal_objective_card_3(rules, route_tiles, pts):
    # F105, F60, Decision 8
    st, t = blank(rules=rules)
    tiles(st, dict(zip((1, 2, 3), route_tiles)))
    set_route(st, 0, [1, 2, 3])
    assert engine.personal_objective_points(st, t, 0, 3) == pts


def test_personal_objective_distinct_pitches_and_only_best_scores():
    # F60, F104, F129: 3 listed pitches; the higher fulfilled card alone scores
    st, t = blank()
    tiles(st, {1: 4, 2: 8, 9: 14, 10: 19, 11: 25, 3: 28})
    set_route(st, 0, [1, 2])
    assert engine.personal_objective_points(st, t, 0, 1) == 0
    set_route(st, 0, [1, 2, 9, 10, 11, 3])
    assert engine.personal_objective_points(st, t, 0, 1) == 4
    assert engine.personal_objective_points(st, t, 0, 5) == 5
    st[F(S_PERSONAL, 0)] = 1
    st[F(S_PERSONAL, 0) + 1] = 5
    st[F(S_PERSONAL, 1)] = 11
    st[F(S_PERSONAL, 1) + 1] = 12
    engine.end_game(st, t, END_ROUND_CAP)
    assert st[F(S_SC_PERSONAL, 0)] == 5 and st[F(S_PERSONAL_SCORED, 0)] == 5
    assert st[F(S_SCORE, 0)] == 5
    assert st[F(S_SC_PERSONAL, 1)] == 0 and st[F(S_PERSONAL_SCORED, 1)] == 0


def _ranking_state(players, scores, gained):
    st, t = blank(players=players, chars=(4, 6, 4, 6, 4)[:players])
    for s in range(players):
        st[F(S_PERSONAL, s)] = 3
        st[F(S_PERSONAL, s) + 1] = 3            # nobody has any route: nothing scores
        st[F(S_SCORE, s)] = scores[s]
        st[F(S_PERM_GAINED, s)] = gained[s]
    return st, t


def test_final_ranking_tie_break_by_permanent_tokens():
    # F63: most points; ties broken by permanent tokens gained
    st, t = _ranking_state(3, (10, 12, 12), (5, 1, 2))
    engine.end_game(st, t, END_ROUND_CAP)
    assert st[G_WINNER] == 1 << 2 and st[G_N_WINNERS] == 1
    assert st[G_OVER] == 1 and st[G_END_REASON] == END_ROUND_CAP


def test_final_ranking_shared_tie():
    # F63: a remaining tie is shared (bitmask)
    st, t = _ranking_state(3, (12, 12, 7), (2, 2, 9))
    engine.end_game(st, t, END_STRANDED)
    assert st[G_WINNER] == 0b011 and st[G_N_WINNERS] == 2


def test_final_ranking_points_beat_tokens():
    # F63: the tie-break applies only to equal totals
    st, t = _ranking_state(2, (11, 10), (0, 99))
    engine.end_game(st, t, END_EIGHT_PITCHES)
    assert st[G_WINNER] == 1 and st[G_N_WINNERS] == 1


# === F132 / Decisions: rule options ==========================================================

def test_build_rules_rejects_unknown_names():
    # F132
    with pytest.raises(RuleError) as err:
        build_rules(2, {"risk_die_oddz": "1:1:1"})
    assert "risk_die_oddz" in str(err.value) and "risk_die_odds" in str(err.value)


@pytest.mark.parametrize("name, value, needles", [
    ("deck_runs_out", "sometimes", ("deck_runs_out", "reshuffle_discard", "bga_never")),
    ("psych_given", "stolen", ("psych_given", "gained", "lost")),
    ("round_cap", "0", ("round_cap", "1", "1000")),
    ("round_cap", "many", ("round_cap", "integer")),
    ("risk_die_odds", "1:1", ("risk_die_odds",)),
    ("risk_die_odds", "0:0:0", ("risk_die_odds",)),
    ("risk_die_odds", "-1:1:1", ("risk_die_odds",)),
    ("abilities_off", "superman", ("abilities_off", "superman")),
    ("readings", "mine", ("readings", "bga")),
    ("card_48b", "GEAR", ("card_48b", "gear", "'GEAR'")),         # written as allowed, no case
    ("risk_with_tokens", "True", ("risk_with_tokens", "true")),   # folding, as readings=BGA
])
def test_build_rules_rejects_bad_values(name, value, needles):
    # F132, Decisions 1, 2, 19, 29
    with pytest.raises(RuleError) as err:
        build_rules(2, {name: value})
    for needle in needles:
        assert needle in str(err.value)


def test_build_rules_players_range():
    # F1
    for p in (1, 6, True, "3"):
        with pytest.raises(RuleError):
            build_rules(p)


def test_build_rules_flags_are_packed():
    # F132, Decisions 1, 2, 8, 13, 19, 31
    r = build_rules(3, {"deck_runs_out": "bga_never", "technique_sets": "bga_greedy",
                        "round_cap": "7", "stranded_table": "play_to_cap",
                        "call_it_like_you_see_it": "any_pitches", "risk_die_odds": "2:1:1"})
    t = r.tables
    assert t[C_DECK_NEVER] == 1 and t[C_SETS_GREEDY] == 1 and t[C_ROUND_CAP] == 7
    assert t[C_STRANDED_PLAY_ON] == 1 and t[C_CALL_IT_PITCHES] == 1
    assert sum(t[C_ODDS:C_ODDS + 3]) == ODDS_SCALE and t[C_ODDS] == ODDS_SCALE // 2
    d = build_rules(3).tables
    assert d[C_DECK_NEVER] == 0 and d[C_SETS_GREEDY] == 0 and d[C_ROUND_CAP] == 30
    assert r.changed() == {"deck_runs_out": "bga_never", "technique_sets": "bga_greedy",
                           "round_cap": "7", "stranded_table": "play_to_cap",
                           "call_it_like_you_see_it": "any_pitches", "risk_die_odds": "2:1:1"}
    assert build_rules(2, {"readings": "bga"}).values["trifecta_objectives"] == "bga_crack_only"
