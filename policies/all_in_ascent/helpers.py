"""What several All-In Ascent policies ask of a state, written once."""
from numba import njit

from sim.games.all_in_ascent.engine import climb_xp, pbase
from sim.games.all_in_ascent.probability import climb_success_probability
from sim.games.all_in_ascent.rules import (
    KIND_DIE_AS_ONE, KIND_EXTRA_DIE, KIND_FAIL_BONUS_XP, KIND_IGNORE_FAIL_PENALTY,
    KIND_MILESTONE_DICE, KIND_NEGATE_NERF, KIND_REROLL_ON_TAG, F_AREA_ACCESS_MASK,
    F_CARD_IS_ACCESS, F_CARD_KIND, F_ROUTE_AREA, F_ROUTE_TAG, at)
from sim.games.all_in_ascent.state import (
    FREE_SOLO, G_MILESTONES, IRON_LUNG, N_TIERS, P_CHARACTER, P_DONE, P_GEAR, TAG_NONE,
    TECHNICIAN)


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


@njit(cache=True)
def needed_tag_mask(st, t, seat):
    """Bit `tag` set for the tag of each milestone this player has not completed
    (HEURISTIC-AGENT.md §3.3's needed tags)."""
    done = st[pbase(seat) + P_DONE]
    mask = 0
    for tier in range(N_TIERS):
        if not (done >> tier) & 1:
            tag = at(t, F_ROUTE_TAG, st[G_MILESTONES + tier])
            if tag != TAG_NONE:
                mask |= 1 << tag
    return mask


@njit(cache=True)
def expected_attempt_xp(st, t, seat, rid, is_milestone):
    """(P(success), expected XP) of an attempt at route `rid` now (R47-R54)."""
    b = pbase(seat)
    c = st[b + P_CHARACTER]
    gear = st[b + P_GEAR]
    p = climb_success_probability(st, t, seat, rid, is_milestone)
    return p, p * climb_xp(t, c, gear, rid, True) + (1.0 - p) * climb_xp(t, c, gear, rid, False)
