"""`designers-heuristic`: the designers' own rule-based bot, decision for decision.

Written from ../shared/all-in-ascent/HEURISTIC-AGENT.md (their `sim/agents/heuristic.js` at
b27637b, the bot the v0.4.0 harness runs). It is deterministic and reads no random stream. The
steps below carry that document's numbers; the first step that returns decides.

1. the highest-tier legal milestone whose base requirements the player meets (§3.1: stats +
   training + per-route gear against the route's printed requirements, all four stats, for
   every character, no dice and no passive);
2. any legal access-card purchase (at most one is ever legal, R30);
3. the first legal purchase of a card whose tag filter is a tag of a milestone it still needs;
4. Approach Shoes; Climbing Coach (spendable >= 180 and level >= 3); Mountain Mentor
   (spendable >= 200 and level >= 4); Mental Anchor if it is the Iron Lung;
5. the top-scoring climb (xpSuccess if it passes the base check, else xpFail / 2; ties to the
   earlier action), but only if that top climb passes;
6. rest if endurance < 30 % of max;
7. train the weakest stat (stats + training; ties to strength, technique, focus, flexibility),
   or, if that station is not legal, the first legal station;
8. the top-scoring climb of step 5, although it is risky;
9. end the turn.

The bot names cards; the data here names them too, so cards are found by what they do:
Approach Shoes gives time per round, Climbing Coach adds milestone dice, Mountain Mentor negates a
nerf die, Mental Anchor ignores the fail penalty. The 180/200 gates are the bot's own constants.
"""
from numba import njit

from policies.all_in_ascent.helpers import needed_tag_mask
from sim.core.policies import compiled_on_use, register
from sim.games.all_in_ascent.engine import (
    action_route, effective_stat_values, pbase, shop_card, spendable_xp)
from sim.games.all_in_ascent.policy_api import POLICY_SIGNATURE
from sim.games.all_in_ascent.rules import (
    F_CARD_IS_ACCESS, F_CARD_KIND, F_CARD_TAG, F_CARD_TIME_PER_ROUND, F_ROUTE_AREA, F_ROUTE_REQ,
    F_ROUTE_SLOT_BIT, F_ROUTE_XP_FAIL, F_ROUTE_XP_SUCCESS, F_STATION_STAT,
    KIND_IGNORE_FAIL_PENALTY, KIND_MILESTONE_DICE, KIND_NEGATE_NERF, at)
from sim.games.all_in_ascent.state import (
    BUY_ROTATION, REDISTRIBUTE, CLIMB, END_TURN, G_MILESTONES, IRON_LUNG, MILESTONE, N_STATS,
    N_TIERS, P_CHARACTER, P_ENDURANCE, P_LEVEL, P_MARKS, P_MAX_ENDURANCE, P_STATS,
    P_TRAINING, REST, TAG_NONE, TRAIN)

COACH_MIN_SPENDABLE, COACH_MIN_LEVEL = 180, 3      # step 4b
MENTOR_MIN_SPENDABLE, MENTOR_MIN_LEVEL = 200, 4    # step 4c


@njit(cache=True)
def passes_base_check(st, t, seat, rid):
    """§3.1: effective stats (no Beta Boost, no dice, no passive) meet all four base
    requirements."""
    b = pbase(seat)
    marked = (st[b + P_MARKS + at(t, F_ROUTE_AREA, rid)] >> at(t, F_ROUTE_SLOT_BIT, rid)) & 1
    eff = effective_stat_values(st, t, seat, rid, marked, 0)
    for s in range(N_STATS):
        if eff[s] < at(t, F_ROUTE_REQ, rid * N_STATS + s):
            return False
    return True


@njit(cache=True)
def weakest_stat(st, seat):
    """§3.4: smallest stats + training; a strict < keeps the earlier stat on ties."""
    b = pbase(seat)
    weakest = 0
    lowest = st[b + P_STATS] + st[b + P_TRAINING]
    for s in range(1, N_STATS):
        v = st[b + P_STATS + s] + st[b + P_TRAINING + s]
        if v < lowest:
            lowest = v
            weakest = s
    return weakest


@njit(cache=True)
def climb_score2(st, t, seat, rid):
    """Step 5's score, doubled to stay in integers: 2 * xpSuccess if the climb passes the base
    check, else xpFail (= 2 * xpFail * 0.5). Returns (score2, passes)."""
    if passes_base_check(st, t, seat, rid):
        return 2 * at(t, F_ROUTE_XP_SUCCESS, rid), True
    return at(t, F_ROUTE_XP_FAIL, rid), False


@register("all-in-ascent", "designers-heuristic")
@compiled_on_use(POLICY_SIGNATURE)
def designers_heuristic_policy(ctx):
    """The designers' own bot (HEURISTIC-AGENT.md): milestone, gear, likely climb, rest, train."""
    st = ctx.state
    t = ctx.tables
    seat = ctx.seat
    legal = ctx.legal
    n = ctx.n_legal
    b = pbase(seat)

    # Step 1: expert, then intermediate, then beginner.
    for tier in range(N_TIERS - 1, -1, -1):
        for i in range(n):
            if legal[i] == MILESTONE + tier and \
                    passes_base_check(st, t, seat, st[G_MILESTONES + tier]):
                return legal[i]

    # Steps 2-4 look at the purchases; legal lists them after everything else (R22).
    needed = needed_tag_mask(st, t, seat)
    access = -1
    specialty = -1
    shoes = -1
    coach = -1
    mentor = -1
    anchor = -1
    for i in range(n):
        a = legal[i]
        if a < BUY_ROTATION or a >= REDISTRIBUTE:   # the designers' engine has no redistribution
            continue
        card = shop_card(st, t, a)
        kind = at(t, F_CARD_KIND, card)
        tag = at(t, F_CARD_TAG, card)
        if at(t, F_CARD_IS_ACCESS, card):
            if access < 0:
                access = a
        elif tag != TAG_NONE and (needed >> tag) & 1:
            if specialty < 0:
                specialty = a
        if at(t, F_CARD_TIME_PER_ROUND, card) > 0 and shoes < 0:
            shoes = a
        if kind == KIND_MILESTONE_DICE and coach < 0:
            coach = a
        if kind == KIND_NEGATE_NERF and mentor < 0:
            mentor = a
        if kind == KIND_IGNORE_FAIL_PENALTY and anchor < 0:
            anchor = a
    if access >= 0:                                                       # step 2
        return access
    if specialty >= 0:                                                    # step 3
        return specialty
    if shoes >= 0:                                                        # step 4a
        return shoes
    spendable = spendable_xp(st, t, seat)
    level = st[b + P_LEVEL]
    if coach >= 0 and spendable >= COACH_MIN_SPENDABLE and level >= COACH_MIN_LEVEL:  # 4b
        return coach
    if mentor >= 0 and spendable >= MENTOR_MIN_SPENDABLE and level >= MENTOR_MIN_LEVEL:  # 4c
        return mentor
    if anchor >= 0 and st[b + P_CHARACTER] == IRON_LUNG:                  # step 4d
        return anchor

    # Step 5: the best climb, kept only if it passes the base check.
    best = -1
    best_score2 = -1
    best_passes = False
    first_train = -1
    weakest_train = -1
    weakest = weakest_stat(st, seat)
    can_rest = False
    for i in range(n):
        a = legal[i]
        if a == REST:
            can_rest = True
        elif TRAIN <= a < CLIMB:
            if first_train < 0:
                first_train = a
            if weakest_train < 0 and at(t, F_STATION_STAT, a - TRAIN) == weakest:
                weakest_train = a
        elif CLIMB <= a < MILESTONE:
            score2, ok = climb_score2(st, t, seat, action_route(st, a))
            if score2 > best_score2:
                best = a
                best_score2 = score2
                best_passes = ok
    if best >= 0 and best_passes:
        return best
    # Step 6: endurance < 0.3 * max, exactly, in integers.
    if can_rest and 10 * st[b + P_ENDURANCE] < 3 * st[b + P_MAX_ENDURANCE]:
        return REST
    if weakest_train >= 0:                                                # step 7
        return weakest_train
    if first_train >= 0:
        return first_train
    if best >= 0:                                                         # step 8
        return best
    return END_TURN                                                       # step 9
