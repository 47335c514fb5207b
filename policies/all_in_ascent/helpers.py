"""What several All-In Ascent policies ask of a state, written once."""
from sim.core.jit import njit_noalloc
from sim.games.all_in_ascent.engine import (
    access_bypassed, character_modifier, climb_xp, fail_endurance_penalty, pbase,
    sure_routes_only)
from sim.games.all_in_ascent.probability import climb_success_probability_in
from sim.games.all_in_ascent.rules import (
    KIND_DIE_AS_ONE, KIND_EXTRA_DIE, KIND_FAIL_BONUS_XP, KIND_IGNORE_FAIL_PENALTY,
    KIND_MILESTONE_DICE, KIND_NEGATE_NERF, KIND_REROLL_ON_TAG, F_ACCESS_CARDS, F_AREA_ACCESS_MASK,
    F_CARD_IS_ACCESS, F_CARD_KIND, F_CARD_PREREQ_MASK, F_ROUTE_AREA, F_ROUTE_TAG, PARAM_N_ACCESS,
    at)
from sim.games.all_in_ascent.state import (
    G_MILESTONES, N_TIERS, P_CHARACTER, P_DONE, P_GEAR, TAG_NONE)


@njit_noalloc
def card_is_useful(st, t, seat, card):
    """Whether a card can help this player, read from the rules as they are packed, never from
    the character's name (so a knob changes the answer as it changes the game):
    - access cards, while an area they open still holds an unfinished milestone and the player
      does need access gear (R26, access_bypassed);
    - cards that pick or drop dice, only if nerf dice count against this character (R52: they
      help by dropping nerfs; where nerfs are ignored they can only cost buff dice);
    - milestone dice, only if any die counts for it (R52);
    - failure cards (fail XP, no fail penalty), only if it can fail: a character limited to
      routes its stats meet (R28) whose dice count for nothing never fails;
    - ignoring the fail penalty, only if a failure costs it endurance (R55)."""
    b = pbase(seat)
    c = st[b + P_CHARACTER]
    kind = at(t, F_CARD_KIND, card)
    if at(t, F_CARD_IS_ACCESS, card):
        if access_bypassed(st, t, seat):
            return False
        for tier in range(3):
            if (st[b + P_DONE] >> tier) & 1:
                continue
            area = at(t, F_ROUTE_AREA, st[G_MILESTONES + tier])
            if (at(t, F_AREA_ACCESS_MASK, area) >> card) & 1:
                return True
        return False
    nerfs_count = character_modifier(c, 1) != 0
    dice_count = nerfs_count or character_modifier(c, -1) != 0
    never_fails = sure_routes_only(c) and not dice_count
    if kind == KIND_REROLL_ON_TAG or kind == KIND_EXTRA_DIE or kind == KIND_DIE_AS_ONE or \
            kind == KIND_NEGATE_NERF:
        return nerfs_count
    if kind == KIND_MILESTONE_DICE:
        return dice_count
    if kind == KIND_FAIL_BONUS_XP:
        return not never_fails
    if kind == KIND_IGNORE_FAIL_PENALTY:
        return not never_fails and fail_endurance_penalty(t, c) > 0
    return True


@njit_noalloc
def clears_the_way_to_access(st, t, seat, card):
    """Whether `card` is an unmet prerequisite (R30) of an access card this player still needs
    (card_is_useful), so that buying it is a step towards a milestone's area: the Harness
    before the Belay Device, for every character that needs access gear at all."""
    b = pbase(seat)
    gear = st[b + P_GEAR]
    if (gear >> card) & 1:
        return False
    for k in range(t[PARAM_N_ACCESS]):
        access = at(t, F_ACCESS_CARDS, k)
        if (gear >> access) & 1 or not card_is_useful(st, t, seat, access):
            continue
        if (at(t, F_CARD_PREREQ_MASK, access) >> card) & 1:
            return True
    return False


@njit_noalloc
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


@njit_noalloc
def expected_attempt_xp(st, t, seat, rid, is_milestone, work):
    """(P(success), expected XP) of an attempt at route `rid` now (R47-R54); `work`: the
    policy's work memory (probability.climb_success_probability_in)."""
    b = pbase(seat)
    c = st[b + P_CHARACTER]
    gear = st[b + P_GEAR]
    p = climb_success_probability_in(st, t, seat, rid, is_milestone, work)
    return p, p * climb_xp(t, c, gear, rid, True) + (1.0 - p) * climb_xp(t, c, gear, rid, False)


@njit_noalloc
def attempt_xp_bound(st, t, seat, rid):
    """The most XP an attempt at route `rid` can bring, success or failure (R54): a bound on
    expected_attempt_xp that needs no success probability."""
    b = pbase(seat)
    c = st[b + P_CHARACTER]
    gear = st[b + P_GEAR]
    return max(climb_xp(t, c, gear, rid, True), climb_xp(t, c, gear, rid, False))
