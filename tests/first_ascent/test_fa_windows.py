"""First Ascent: the own-turn Summit Beta windows (F119), Phil's paying tokens, trades into an
emptied pile, the any_skill payment, hand size (F25) and the asset board (F38)."""
import numpy as np

from fa_helpers import FACE_NONE, GEAR_NONE, SLAB_NONE, agents, give, logged
from fa_states import F, blank, legal_turn, row1_hard, set_all_cards, tiles
from sim.games.first_ascent import data, engine, state
from sim.games.first_ascent.state import (
    A_CONTINUE, A_PLAY_SB, A_TRADE, BOARD_DOWN, BOARD_UP, D_CHALKBAG, D_OPTION, D_SB_WINDOW,
    DISCARD, FACE_CHECK, FACE_MINUS_2, G_DISCARD_N, G_POLICY_ERROR, G_RNG_RISK, HAND, PILE_N,
    S_PSYCH, S_SB, S_WATER, SB_BORROWED_RACK, SB_ENERGY_DRINK, SB_EXTRA_WATER, SB_GUIDEBOOK,
    SB_JESUS_PIECE, SB_LUCKY_CHALKBAG, STATUS_PENALISED, S_STATUS, T_CHALKBAG_REROLLS)
from sim.games.first_ascent.data import N_KINDS

FACE, SLAB = 1, 3


def test_own_turn_tokens_can_be_played_while_resolving_a_climbing_card():
    # F119, F27: Energy Drink played while resolving card 9 (A: -1 psych) makes A choosable
    st, t = blank(players=2)
    st[F(S_PSYCH, 0)] = 0
    st[F(S_SB, 0)] = 1 << SB_ENERGY_DRINK
    set_all_cards(st, 9)
    ag = agents(script=[A_PLAY_SB + SB_ENERGY_DRINK, A_CONTINUE, 0])
    engine.resolve_climbing_cards(st, t, ag, 0)
    rows = logged(ag, st)
    assert rows[0][1] == D_SB_WINDOW and rows[0][2] == A_PLAY_SB + SB_ENERGY_DRINK
    option = [r for r in rows if r[1] == D_OPTION][0]
    assert option[2] == 0                          # option A
    assert st[F(S_PSYCH, 0)] == 0                  # +1 from the drink, -1 for option A
    assert st[F(S_SB, 0)] != 0                     # option A drew a Summit Beta token
    assert st[F(S_STATUS, 0)] != STATUS_PENALISED


def test_without_the_window_the_card_is_passed():
    # F41, F119: the same card without a token to play: A blocked, B still choosable
    st, t = blank(players=2)
    st[F(S_PSYCH, 0)] = 0
    set_all_cards(st, 9)
    ag = agents()
    engine.resolve_climbing_cards(st, t, ag, 0)
    option = [r for r in logged(ag, st) if r[1] == D_OPTION][0]
    assert option[3] == 1 and option[2] == 1        # only B offered


def _phil_on_dinkus_dog(slabs, tokens):
    """Phil rolls onto hex 1, tile 1 (Dinkus Dog: S2 A1 W1), with `slabs` slab cards, no
    water and the paying tokens `tokens`; returns the tokens he still holds."""
    st, t = blank(players=2, chars=(8, 4), rules={"risk_die_odds": "1:0:0"})
    row1_hard(st)
    tiles(st, {1: 1})
    give(st, 0, SLAB_NONE, slabs)
    st[F(S_WATER, 0)] = 0
    st[F(S_SB, 0)] = sum(1 << x for x in tokens)
    assert engine.attempt_climb(st, t, agents(), 0, 1, True)
    return [x for x in tokens if (st[F(S_SB, 0)] >> x) & 1]


def test_phil_keeps_a_paying_token_he_does_not_need():
    # F34, F71, F123: Phil rolls at S = 0 or 1 alike; 3 slab cards leave only the W unit, so
    # Extra Water that would only lower S from 1 to 0 stays in his hand
    assert _phil_on_dinkus_dog(3, [SB_EXTRA_WATER]) == [SB_EXTRA_WATER]


def test_phil_spends_only_the_tokens_that_bring_him_to_a_roll():
    # F34, F71, F123: 2 slab cards leave the A and W units (S = 2); Extra Water and the
    # Guidebook together would pay in full, but either alone (S = 1) lets him roll: he spends
    # one and keeps the other (docs/first-ascent.md, "Phil's unpaid unit")
    assert len(_phil_on_dinkus_dog(2, [SB_EXTRA_WATER, SB_GUIDEBOOK])) == 1


def test_phil_uses_a_paying_token_when_it_makes_the_roll_possible():
    # F34, F77: without Borrowed Rack Phil is 2 short; with it he may roll
    st, t = blank(players=2, chars=(8, 4), rules={"risk_die_odds": "1:0:0"})
    row1_hard(st)
    tiles(st, {2: 2})                              # Roger's Roof: G2 A1 W1
    give(st, 0, FACE_NONE, 1)
    st[F(S_WATER, 0)] = 1
    st[F(S_SB, 0)] = 1 << SB_BORROWED_RACK
    assert engine.attempt_climb(st, t, agents(), 0, 2, True)
    assert not (st[F(S_SB, 0)] >> SB_BORROWED_RACK) & 1


def _pitch_risk(rules, tokens=0, psych=4):
    """Seat 0 risks hex 2, tile 12 (F1 S2 A1): 3 slab cards pay S2 and A1, the face unit stays
    unpaid (S = 1); no spare card, so a -2 Cards face cannot be paid."""
    st, t = blank(rules=rules)
    row1_hard(st)
    tiles(st, {2: 12})
    give(st, 0, SLAB_NONE, 3)
    st[F(S_PSYCH, 0)] = psych
    st[F(S_SB, 0)] = tokens
    return st, t


def test_lucky_chalkbag_rerolls_a_pitch_roll():
    # F86 ("a pitch or a card"), F36(5), F116: a -2 Cards face he cannot pay, then a check on
    # the reroll: he climbs if he rerolls, retreats if he does not
    st, t = _pitch_risk({"risk_die_odds": "1:1:1"}, 1 << SB_LUCKY_CHALKBAG)
    for seed in range(1, 3000):       # a risk stream whose first two faces are -2, then check
        probe = st.copy()
        probe[G_RNG_RISK] = seed
        if engine.roll_risk_die(probe, t) == FACE_MINUS_2 and \
                engine.roll_risk_die(probe, t) == FACE_CHECK:
            break
    st[G_RNG_RISK] = seed
    for reroll in (0, 1):
        s2 = st.copy()
        ag = agents(script=[reroll])
        assert engine.attempt_climb(s2, t, ag, 0, 2, True) == bool(reroll)
        assert logged(ag, s2)[0][1] == D_CHALKBAG
        assert bool((s2[F(S_SB, 0)] >> SB_LUCKY_CHALKBAG) & 1) == (not reroll)
        assert s2[T_CHALKBAG_REROLLS] == reroll


def test_an_own_turn_token_pays_a_pitch_penalty():
    # F36(5), F119, F27: -1 Card -1 Psych with psych 0 cannot be paid; Energy Drink played in
    # the window before settling gives the psych, and the climb succeeds
    for play in (True, False):
        st, t = _pitch_risk({"risk_die_odds": "0:0:1"}, 1 << SB_ENERGY_DRINK, psych=0)
        give(st, 0, GEAR_NONE, 1)                    # the spare card for the penalty
        ag = agents(script=[A_PLAY_SB + SB_ENERGY_DRINK, A_CONTINUE] if play else [A_CONTINUE])
        assert engine.attempt_climb(st, t, ag, 0, 2, True) == play
        assert logged(ag, st)[0][1] == D_SB_WINDOW


def test_jesus_piece_cancels_a_pitch_penalty_under_the_flag():
    # Decision 11 flag jesus_piece_on_pitch_roll=true, F84: the penalty he cannot pay is
    # cancelled and the climb succeeds; the Jesus Piece is spent (the default: not offered,
    # test_fa_cards.test_jesus_piece_not_on_pitch_roll)
    st, t = _pitch_risk({"risk_die_odds": "0:1:0", "jesus_piece_on_pitch_roll": "true"},
                        1 << SB_JESUS_PIECE)
    ag = agents(script=[A_PLAY_SB + SB_JESUS_PIECE])
    assert engine.attempt_climb(st, t, ag, 0, 2, True)
    assert st[G_POLICY_ERROR] == 0 and not (st[F(S_SB, 0)] >> SB_JESUS_PIECE) & 1


def test_a_trade_may_draw_from_the_pile_its_own_cards_refill():
    # F28, F122: the 3 traded cards reach the discard pile before the draw
    st, t = blank(players=2)
    st[PILE_N + SLAB] = 0
    st[DISCARD:DISCARD + N_KINDS] = 0
    st[G_DISCARD_N] = 0
    deck_has_slab = any(t[data.T_KIND_TYPE + st[state.DECK + i]] == SLAB
                        for i in range(st[state.G_DECK_N]))
    for i in range(st[state.G_DECK_N]):          # no slab left in the deck either
        if t[data.T_KIND_TYPE + st[state.DECK + i]] == SLAB:
            st[state.DECK + i] = FACE_NONE
    assert deck_has_slab
    give(st, 0, SLAB_NONE, 3)
    codes = legal_turn(st, t, 0)
    assert A_TRADE + 4 * SLAB + SLAB in codes
    assert A_TRADE + 4 * FACE + SLAB not in codes   # no slab card anywhere for a face trade


def test_any_skill_is_paid_with_the_skill_type_left_over_most():
    # F33, F123: any_skill units take the skill cards held in the largest number
    st, t = blank(players=2)
    row1_hard(st)
    tiles(st, {1: 1})                              # S2 A1 W1
    give(st, 0, SLAB_NONE, 4)
    give(st, 0, FACE_NONE, 1)
    plan = np.zeros(engine.PLAN_SIZE, np.int64)
    assert engine.plan_payment(st, t, 0, 1, plan, True) == 0
    assert plan[engine.PL_CARDS + SLAB] == 3 and plan[engine.PL_CARDS + FACE] == 0


def test_no_hand_limit():
    # F25: a hand may grow without limit (draws keep adding)
    st, t = blank(players=2)
    ag = agents()
    for _ in range(8):
        engine.draw_cards(st, t, ag, 0, 3, False)
    assert st[HAND:HAND + N_KINDS].sum() == 24


def test_board_cards_never_pay_but_count_for_permanent_tokens():
    # F38, F33, F50: four face-down slab cards on the board pay nothing; they earn a token
    st, t = blank(players=2)
    row1_hard(st)
    tiles(st, {1: 1})
    st[F(S_WATER, 0)] = 1
    give(st, 0, SLAB_NONE, 4, where=BOARD_DOWN)
    plan = np.zeros(engine.PLAN_SIZE, np.int64)
    assert engine.plan_payment(st, t, 0, 1, plan, True) == 3
    engine.permanent_tokens(st, t, agents(), 0)
    assert st[F(state.S_PERM, 0) + SLAB] == 1
    assert st[BOARD_DOWN:BOARD_DOWN + N_KINDS].sum() == 0
    assert st[BOARD_UP:BOARD_UP + N_KINDS].sum() == 0
