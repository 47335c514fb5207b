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
from numba import njit

from policies.registry import register
from sim.games.all_in_ascent.engine import (
    ILLEGAL_NO_ENDURANCE, climb_reason, climb_xp, effective_time, milestone_reason, pbase,
    section_reason, shop_card, visible_route)
from sim.games.all_in_ascent.policy_api import POLICY_SIGNATURE
from sim.games.all_in_ascent.probability import climb_success_probability
from sim.games.all_in_ascent.rules import (
    KIND_DIE_AS_ONE, KIND_EXTRA_DIE, KIND_FAIL_BONUS_XP, KIND_IGNORE_FAIL_PENALTY,
    KIND_MILESTONE_DICE, KIND_NEGATE_NERF, KIND_REROLL_ON_TAG, at, F_AREA_ACCESS_MASK, F_CARD_COST, F_CARD_IS_ACCESS, F_CARD_KIND, F_ROUTE_AREA)
from sim.games.all_in_ascent.state import (
    BUY_ROTATION, CLIMB, FREE_SOLO, G_MILESTONES, IRON_LUNG, MAX_VISIBLE, MILESTONE, N_AREAS,
    P_CHARACTER, P_DONE, P_ENDURANCE, P_GEAR, P_MAX_ENDURANCE, REST, TECHNICIAN)


@njit(cache=True)
def card_is_useful(st, t, seat, card):
    """Whether a card can help this player:
    - access cards, while an area they open still holds an unfinished milestone, and never for
      the Free Solo (R26);
    - for the Free Solo, nothing that acts on dice, effective stats or failures (R52, R59);
    - for the Technician, none of the cards that pick or drop dice (its nerfs are already 0, so
      Mentor, Decoder, Power Tap and Sequence Memorization can only hurt its buff dice);
    - Mental Anchor only for the Iron Lung (R55)."""
    b = pbase(seat)
    c = st[b + P_CHARACTER]
    kind = at(t, F_CARD_KIND, card)
    if at(t, F_CARD_IS_ACCESS, card):
        if c == FREE_SOLO:
            return False
        for tier in range(3):
            if (st[b + P_DONE] >> tier) & 1:
                continue
            area = at(t, F_ROUTE_AREA, st[G_MILESTONES + tier])
            if (at(t, F_AREA_ACCESS_MASK, area) >> card) & 1:
                return True
        return False
    dice_kinds = (kind == KIND_REROLL_ON_TAG or kind == KIND_EXTRA_DIE or
                  kind == KIND_DIE_AS_ONE or kind == KIND_NEGATE_NERF)
    if c == FREE_SOLO:
        return not (dice_kinds or kind == KIND_MILESTONE_DICE or kind == KIND_FAIL_BONUS_XP
                    or kind == KIND_IGNORE_FAIL_PENALTY)
    if c == TECHNICIAN and dice_kinds:
        return False
    if kind == KIND_IGNORE_FAIL_PENALTY:
        return c == IRON_LUNG
    return True


@register("all-in-ascent", "greedy", params=(150.0,))
@njit(POLICY_SIGNATURE, cache=True)
def greedy_policy(ctx):
    """Most expected XP per time unit; buys the cheapest useful card; rests when tired."""
    st = ctx.state
    t = ctx.tables
    seat = ctx.seat
    b = pbase(seat)
    c = st[b + P_CHARACTER]
    gear = st[b + P_GEAR]
    milestone_value = ctx.params[0]
    best_buy = -1
    best_cost = 1 << 40
    best_climb = -1
    best_score = -1.0
    can_rest = False
    for i in range(ctx.n_legal):
        a = ctx.legal[i]
        if a == REST:
            can_rest = True
        elif a >= BUY_ROTATION:
            card = shop_card(st, t, a)
            if card_is_useful(st, t, seat, card) and at(t, F_CARD_COST, card) < best_cost:
                best_cost = at(t, F_CARD_COST, card)
                best_buy = a
        elif a >= CLIMB:
            if a < MILESTONE:
                area = (a - CLIMB) // MAX_VISIBLE
                rid = visible_route(st, area, (a - CLIMB) % MAX_VISIBLE)
                is_ms = False
            else:
                rid = st[G_MILESTONES + a - MILESTONE]
                is_ms = True
            p = climb_success_probability(st, t, seat, rid, is_ms)
            xp = p * climb_xp(t, c, gear, rid, True) + (1.0 - p) * climb_xp(t, c, gear, rid, False)
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
