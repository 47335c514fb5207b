"""The Risk Die and its penalties (F36, F45, F116), and the Summit Beta windows of a
player's own turn.
"""
from sim.core.jit import njit_noalloc
from sim.games.first_ascent.data import N_KINDS, T_SB_PARAM
from sim.games.first_ascent.engine.common import (
    CT_ANY, add_psych, add_water, ask, draw_below, hand_size, holds_sb, legal_buffer)
from sim.games.first_ascent.engine.supply import (
    card_sources, choose_opponent, discard_card, draw_cards, eligible_cards, gain_portaledge,
    move_cards, take_card, use_summit_beta)
from sim.games.first_ascent.rules import C_ODDS, C_PSYCH_LOST, ODDS_SCALE
from sim.games.first_ascent.state import (
    A_CONTINUE, A_PLAY_SB, A_STOP, DISCARD, D_CARD, D_CHALKBAG, D_DISCARD_PICK, D_SB_WINDOW,
    G_RNG_RISK,
    FACE_CHECK, FACE_MINUS_1, FACE_MINUS_2, G_DISCARD_N, HAND, SB_BOMBER_ANCHOR, SB_ENERGY_DRINK,
    SB_LUCKY_CHALKBAG, SB_RERACK, SB_SIMUL_CLIMB, SEAT_FIELDS, S_PSYCH, T_CHALKBAG_REROLLS)


@njit_noalloc
def roll_risk_die(st, t):
    r = draw_below(st, G_RNG_RISK, ODDS_SCALE)
    if r < t[C_ODDS]:
        return FACE_CHECK
    if r < t[C_ODDS] + t[C_ODDS + 1]:
        return FACE_MINUS_2
    return FACE_MINUS_1


@njit_noalloc
def penalty_payable(st, t, seat, face, reserved, psych_committed):
    """Whether the Risk Die's penalty can be paid (F124's bookkeeping): two spare cards for
    -2 Cards; one spare card and one psych beyond the psych committed to the pitch for -1 Card
    -1 Psych. Spare cards are the hand's uncommitted ones and the asset board's."""
    cards = eligible_cards(st, t, seat, CT_ANY, True, reserved)
    if face == FACE_MINUS_2:
        return cards >= 2
    return cards >= 1 and st[S_PSYCH + seat * SEAT_FIELDS] >= psych_committed + 1


@njit_noalloc
def pay_penalty(st, t, ag, seat, face, reserved):
    opp = choose_opponent(st, t, ag, seat)
    if face == FACE_MINUS_2:
        move_cards(st, t, ag, seat, CT_ANY, 2, True, opp, reserved)
    else:
        move_cards(st, t, ag, seat, CT_ANY, 1, True, opp, reserved)
        add_psych(st, t, seat, -1)
        if t[C_PSYCH_LOST] == 0:
            add_psych(st, t, opp, 1)


@njit_noalloc
def maybe_chalkbag(st, t, ag, seat, face):
    """F86: after a penalty face the owner may reroll once; the new result stands."""
    if face != FACE_CHECK and holds_sb(st, seat, SB_LUCKY_CHALKBAG):
        legal = legal_buffer(ag)
        legal[0] = 0
        legal[1] = 1
        if ask(st, t, ag, seat, D_CHALKBAG, 2) == 1:
            use_summit_beta(st, seat, SB_LUCKY_CHALKBAG)
            st[T_CHALKBAG_REROLLS + seat] += 1
            return roll_risk_die(st, t)
    return face


@njit_noalloc
def own_turn_window(st, t, ag, seat, reserved):
    """F119 (F27's windows, fixed): the own-turn tokens may be played before a penalty is
    settled (or in the Rerack step). One decision per token; CONTINUE ends the window."""
    while True:
        legal = legal_buffer(ag)
        n = 1
        legal[0] = A_CONTINUE
        n = add_own_turn_tokens(st, t, seat, legal, n)
        if n == 1:
            return
        code = ask(st, t, ag, seat, D_SB_WINDOW, n)
        if code == A_CONTINUE:
            return
        play_own_turn_token(st, t, ag, seat, code - A_PLAY_SB, reserved)


@njit_noalloc
def add_own_turn_tokens(st, t, seat, legal, n):
    """F76, F79, F81, F85: own-turn tokens that can do something now."""
    legal_now = legal
    if holds_sb(st, seat, SB_RERACK) and st[G_DISCARD_N] > 0:
        legal_now[n] = A_PLAY_SB + SB_RERACK
        n += 1
    if holds_sb(st, seat, SB_ENERGY_DRINK):
        legal_now[n] = A_PLAY_SB + SB_ENERGY_DRINK
        n += 1
    if holds_sb(st, seat, SB_SIMUL_CLIMB):
        legal_now[n] = A_PLAY_SB + SB_SIMUL_CLIMB
        n += 1
    if holds_sb(st, seat, SB_BOMBER_ANCHOR) and hand_size(st, seat) > 0:
        legal_now[n] = A_PLAY_SB + SB_BOMBER_ANCHOR
        n += 1
    return n


@njit_noalloc
def play_own_turn_token(st, t, ag, seat, sb, reserved):
    use_summit_beta(st, seat, sb)
    if sb == SB_RERACK:                                          # F76
        for _ in range(2):
            legal = legal_buffer(ag)
            n = 0
            for k in range(1, N_KINDS):
                if st[DISCARD + k] > 0:
                    legal[n] = k
                    n += 1
            if n == 0:
                break
            k = ask(st, t, ag, seat, D_DISCARD_PICK, n)
            st[DISCARD + k] -= 1
            st[G_DISCARD_N] -= 1
            st[HAND + seat * N_KINDS + k] += 1
    elif sb == SB_ENERGY_DRINK:                                  # F79
        add_water(st, t, seat, t[T_SB_PARAM + 2 * SB_ENERGY_DRINK])
        add_psych(st, t, seat, t[T_SB_PARAM + 2 * SB_ENERGY_DRINK + 1])
    elif sb == SB_SIMUL_CLIMB:                                   # F81
        draw_cards(st, t, ag, seat, t[T_SB_PARAM + 2 * SB_SIMUL_CLIMB], False)
    elif sb == SB_BOMBER_ANCHOR:                                 # F85: discard, then draw
        k_done = 0
        for _ in range(t[T_SB_PARAM + 2 * SB_BOMBER_ANCHOR]):
            n = card_sources(st, t, ag, seat, CT_ANY, False, reserved, False)
            if n == 0:
                break
            legal = legal_buffer(ag)
            if k_done > 0:
                legal[n] = A_STOP
                n += 1
            code = ask(st, t, ag, seat, D_CARD, n)
            if code == A_STOP:
                break
            discard_card(st, take_card(st, seat, code))
            k_done += 1
        for _ in range(k_done):
            gain_portaledge(st, t, ag, seat, 0b1111)
