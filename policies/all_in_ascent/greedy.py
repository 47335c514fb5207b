"""`greedy`: the most expected XP per time unit, from exact success probabilities.

Each decision, in order:
1. buy the cheapest useful card it can afford (card_is_useful: what can matter to its
   character);
2. otherwise take the climb or milestone attempt with the highest
   (expected XP + P(success) * milestone_value) / time cost;
3. otherwise rest if endurance alone blocks an attempt;
4. otherwise end the turn.

params[0] = milestone_value: the XP a completed milestone is worth to it (default 150).
"""
import numpy as np

from policies.all_in_ascent.helpers import card_is_useful, expected_attempt_xp
from sim.core.jit import njit_noalloc
from sim.core.policies import compiled_on_use, register
from sim.games.all_in_ascent.engine import (
    ILLEGAL_NO_ENDURANCE, action_route, climb_reason, effective_time, milestone_reason, pbase,
    section_reason, shop_card)
from sim.games.all_in_ascent.memory import S_POLICY_WORK, S_ROLLOUT_KNOBS
from sim.games.all_in_ascent.policy_api import POLICY_SIGNATURE, PolicyContext
from sim.games.all_in_ascent.rules import F_CARD_COST, F_ROUTE_AREA, at
from sim.games.all_in_ascent.state import (
    BUY_ROTATION, REDISTRIBUTE, CLIMB, G_CURRENT, G_MILESTONES, MAX_VISIBLE, MILESTONE, N_AREAS,
    P_ENDURANCE, P_MAX_ENDURANCE, REST)


GREEDY_DEFAULTS = (150.0,)


@register("all-in-ascent", "greedy", params=GREEDY_DEFAULTS)
@compiled_on_use(POLICY_SIGNATURE, noalloc=True)
def greedy_policy(ctx):
    """Most expected XP per time unit; buys the cheapest useful card; rests when tired."""
    st = ctx.state
    t = ctx.tables
    seat = ctx.seat
    b = pbase(seat)
    milestone_value = ctx.params[0]
    best_buy = -1
    best_cost = 1 << 40
    best_climb = -1
    best_score = -1.0
    can_rest = False
    for i in range(ctx.n_legal):
        a = ctx.legal[i]
        if a >= REDISTRIBUTE:             # greedy knows no redistribution
            continue
        if a == REST:
            can_rest = True
        elif a >= BUY_ROTATION:
            card = shop_card(st, t, a)
            if card_is_useful(st, t, seat, card) and at(t, F_CARD_COST, card) < best_cost:
                best_cost = at(t, F_CARD_COST, card)
                best_buy = a
        elif a >= CLIMB:
            rid = action_route(st, a)
            is_ms = a >= MILESTONE
            p, xp = expected_attempt_xp(st, t, seat, rid, is_ms, ctx.work)
            if is_ms:
                xp += p * milestone_value
            score = xp / effective_time(st, t, seat, rid)
            if score > best_score:
                best_score = score
                best_climb = a
    if best_buy >= 0:
        return best_buy
    if best_climb >= 0:
        return best_climb
    if can_rest and st[b + P_ENDURANCE] < st[b + P_MAX_ENDURANCE]:
        # rest only if endurance alone blocks an attempt (R27/R29's checks in the engine's order:
        # section, attempt marks, time, then endurance)
        for area in range(N_AREAS):
            section = section_reason(st, t, seat, area)
            for slot in range(MAX_VISIBLE):
                if climb_reason(st, t, seat, area, slot, section) == ILLEGAL_NO_ENDURANCE:
                    return REST
        for tier in range(3):
            area = at(t, F_ROUTE_AREA, st[G_MILESTONES + tier])
            if milestone_reason(st, t, seat, tier, section_reason(st, t, seat, area)) == \
                    ILLEGAL_NO_ENDURANCE:
                return REST
    return ctx.legal[0]  # END_TURN is always legal and always first (R22, R23)


@njit_noalloc(first_class=True)   # called by address (policies/mcts.py rollout_value)
def rollout(st, t, legal, n, stream, params, work):
    """The greedy bot for whichever seat moves, with its default milestone value: a search's
    rollout bot (policies/mcts.py). `work`: the search's scratch (memory.SEARCH_WORK_SIZE),
    whose S_POLICY_WORK block is the bot's work memory and S_ROLLOUT_KNOBS its knob."""
    knobs = work[S_ROLLOUT_KNOBS:S_ROLLOUT_KNOBS + 1].view(np.float64)
    knobs[0] = GREEDY_DEFAULTS[0]
    return greedy_policy(PolicyContext(st, np.int64(st[G_CURRENT]), legal, np.int64(n), t,
                                       stream, knobs, work[S_POLICY_WORK:S_ROLLOUT_KNOBS]))
