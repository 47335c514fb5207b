"""Climbing a pitch: the attempt, its payment and what completing it brings (F35-F36).
"""
import numpy as np

from sim.core.jit import njit_noalloc
from sim.games.first_ascent.data import (
    BM_HEADWALL, BM_SUMMIT, CH_MUST_RISK, N_KINDS, SETUP_PITCHES_TO_END, T_P_TYPE, T_P_VALUE,
    T_SETUP)
from sim.games.first_ascent.engine.climbing_cards import resolve_climbing_cards
from sim.games.first_ascent.engine.common import (
    PL_N, PL_PSYCH, PL_S, PL_TOKENS, PL_WATER, add_psych, add_score, add_water, ask, board_mask,
    ch, engine_scratch, holds_sb, legal_buffer)
from sim.games.first_ascent.engine.objectives import update_shared_objectives
from sim.games.first_ascent.engine.payment import (
    ANY_TOKENS, fewest_tokens_plan, leave_one_unpaid, nothing_to_pay, payment_resources,
    pick_payment_cards, plan_payment_from)
from sim.games.first_ascent.engine.risk import (
    maybe_chalkbag, own_turn_window, pay_penalty, penalty_payable, roll_risk_die)
from sim.games.first_ascent.engine.supply import use_summit_beta
from sim.games.first_ascent.memory import (
    PAYMENT_BUFFER, PAY_RESOURCES, PLAN_SIZE, RES_SIZE, SCR_HAVE, SCR_PAYMENT, SCR_PICKED,
    SCR_PLAN)
from sim.games.first_ascent.rules import (
    C_JESUS_ON_PITCH, C_PHIL_NOTHING_CLIMBS, C_PHIL_PAY_THEN_ROLL, C_RISK_WITH_TOKENS,
    C_SUMMIT_ONCE)
from sim.games.first_ascent.state import (
    A_CONTINUE, A_PLAY_SB, BOARD_UP, D_SB_WINDOW, FACE_CHECK, FACE_MINUS_2, G_ROUND, HAND,
    SB_BORROWED_RACK, SB_EXTRA_WATER, SB_GUIDEBOOK, SB_JESUS_PIECE, SB_JUMAR, SB_SPIDER_STICK,
    SEAT_FIELDS, STATUS_CLIMBED, STATUS_PENALISED, S_HEX, S_ROUTE, S_ROUTE_MASK, S_ROUTE_N,
    S_SC_PITCH, S_SC_SPIDER, S_SC_SUMMIT, S_STATUS, S_TYPE_N, TILE, T_CLIMBS, T_HEADWALL,
    T_JESUS_USES, T_RISKS, T_RISK_CHECK, T_RISK_MINUS1, T_RISK_MINUS2, T_RISK_RETREATS,
    T_ROUND_8TH, T_SUMMITS)


@njit_noalloc
def attempt_climb(st, t, ag, seat, h, risk):
    """Climb (F35) or risk (F36) onto hex h. Returns True if the climber moved."""
    work = engine_scratch(ag)
    buffer = work[SCR_PAYMENT:SCR_PAYMENT + PAYMENT_BUFFER]
    res = buffer[PAY_RESOURCES:PAY_RESOURCES + RES_SIZE]
    plan = work[SCR_PLAN:SCR_PLAN + PLAN_SIZE]
    payment_resources(st, t, seat, res)
    plan_payment_from(st, t, seat, h, plan, ANY_TOKENS, res, buffer)
    must_risk = ch(st, t, seat, CH_MUST_RISK)
    if risk and plan[PL_S] == 0 and t[C_RISK_WITH_TOKENS] != 0 and plan[PL_TOKENS] != 0 \
            and not must_risk:
        fewest_tokens_plan(st, t, seat, h, plan, res, buffer, True)   # Decision 33 flag
    if must_risk and plan[PL_TOKENS] != 0:
        fewest_tokens_plan(st, t, seat, h, plan, res, buffer, False)
    rolls = risk
    if must_risk:                                                # F34, F71, F125
        rolls = True
        if plan[PL_S] == 0:
            if t[C_PHIL_NOTHING_CLIMBS] != 0 and nothing_to_pay(plan):   # Decision 30 flag
                rolls = False
            elif t[C_PHIL_PAY_THEN_ROLL] == 0:                   # Decision 9 default
                leave_one_unpaid(plan)
    picked = work[SCR_PICKED:SCR_PICKED + N_KINDS]
    pick_payment_cards(st, t, seat, plan, picked, work[SCR_HAVE:SCR_HAVE + 6])
    if rolls:
        st[T_RISKS + seat] += 1
        face = roll_risk_die(st, t)
        face = maybe_chalkbag(st, t, ag, seat, face)
        if face == FACE_CHECK:
            st[T_RISK_CHECK + seat] += 1
        else:
            if face == FACE_MINUS_2:
                st[T_RISK_MINUS2 + seat] += 1
            else:
                st[T_RISK_MINUS1 + seat] += 1
            settled = False
            if t[C_JESUS_ON_PITCH] != 0 and holds_sb(st, seat, SB_JESUS_PIECE):
                legal = legal_buffer(ag)
                legal[0] = A_CONTINUE
                legal[1] = A_PLAY_SB + SB_JESUS_PIECE
                if ask(st, t, ag, seat, D_SB_WINDOW, 2) != A_CONTINUE:
                    use_summit_beta(st, seat, SB_JESUS_PIECE)
                    st[T_JESUS_USES + seat] += 1
                    settled = True
            if not settled:
                own_turn_window(st, t, ag, seat, picked)         # F36(5), F116(e), F119
                if penalty_payable(st, t, seat, face, picked, plan[PL_PSYCH]):
                    pay_penalty(st, t, ag, seat, face, picked)
                else:                                            # F36(6): retreat
                    st[T_RISK_RETREATS + seat] += 1
                    st[S_STATUS + seat * SEAT_FIELDS] = STATUS_PENALISED
                    return False
    complete_climb(st, t, ag, seat, h, plan, picked)
    return True


@njit_noalloc(inline="always")
def pitch_points(t, tile, plan):
    """F35 (3): a climbed pitch's points, its printed value less N (F32a: the discount the
    payment plan counted, plan[PL_N]), never below 0."""
    return max(0, t[T_P_VALUE + tile] - plan[PL_N])


@njit_noalloc(inline="always")
def summit_points(st, t, seat, h):
    """F35: the point a climb of hex h would score for its summit now: 1 on a summit hex, but
    under the switch summit_bonus=once (Decision 36) only for the seat's first summit."""
    if ((board_mask(st, t, BM_SUMMIT) >> h) & 1) == 0:
        return 0
    if t[C_SUMMIT_ONCE] != 0 and st[S_SC_SUMMIT + seat * SEAT_FIELDS] != 0:
        return 0
    return 1


@njit_noalloc(inline="always")
def complete_climb(st, t, ag, seat, h, plan, picked):
    """F35 (1)-(7)."""
    base = seat * SEAT_FIELDS
    # (1) paid cards go face up onto the board; tracks and paying tokens are spent
    for k in range(1, N_KINDS):
        if picked[k] > 0:
            st[HAND + seat * N_KINDS + k] -= picked[k]
            st[BOARD_UP + seat * N_KINDS + k] += picked[k]
    add_water(st, t, seat, -plan[PL_WATER])
    add_psych(st, t, seat, -plan[PL_PSYCH])
    for sb in (SB_BORROWED_RACK, SB_JUMAR, SB_EXTRA_WATER, SB_GUIDEBOOK):
        if (plan[PL_TOKENS] >> sb) & 1:
            use_summit_beta(st, seat, sb)
    # (2) move; the rope stays on the hex left (F131)
    n = st[S_ROUTE_N + base]
    st[S_ROUTE + base + n] = h
    st[S_ROUTE_N + base] = n + 1
    st[S_ROUTE_MASK + base] |= np.int64(1) << h
    st[S_HEX + base] = h
    st[S_STATUS + base] = STATUS_CLIMBED
    st[T_CLIMBS + seat] += 1
    tile = st[TILE + h]
    value = t[T_P_VALUE + tile]
    ptype = t[T_P_TYPE + tile]
    st[S_TYPE_N + base + ptype] += 1
    # (3) pitch points
    add_score(st, seat, S_SC_PITCH, pitch_points(t, tile, plan))
    # (4) summit
    if (board_mask(st, t, BM_SUMMIT) >> h) & 1:
        points = summit_points(st, t, seat, h)
        st[T_SUMMITS + seat] += 1
        if points:
            add_score(st, seat, S_SC_SUMMIT, points)
    if (board_mask(st, t, BM_HEADWALL) >> h) & 1:
        st[T_HEADWALL + seat] += 1
    if n + 1 == t[T_SETUP + SETUP_PITCHES_TO_END]:
        st[T_ROUND_8TH + seat] = st[G_ROUND]
    # (5) shared objectives
    update_shared_objectives(st, t, seat, h)
    # (6) Spider Stick (F87)
    if holds_sb(st, seat, SB_SPIDER_STICK) and value <= 2:
        use_summit_beta(st, seat, SB_SPIDER_STICK)
        add_score(st, seat, S_SC_SPIDER, 2)
    # (7) climbing card
    resolve_climbing_cards(st, t, ag, seat)
