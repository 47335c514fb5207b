"""Exact probability that a climb or milestone attempt succeeds (R47-R53), from the state.

Counts are exact integers: P = successes / 6**dice. Two paths:

- Independent dice (no Crimp Sequence Decoder re-roll, no Power Tap Belt, no Sequence
  Memorization): every effect reads its own die (R50 rolls max(2, effects) dice), so each stat's
  requirement depends on its own dice only and the stats pass independently. Each stat's pass
  count over its own (at most four) dice is read from a table computed once at import
  (DICE_SUM_COUNTS), and the counts multiply (all four stats), or combine into "at least 3 of
  4" for the Route Reader. A few dozen operations.
- Coupled dice (those three cards pick "the first highest die" or sort the dice): every outcome of
  all dice, and of the re-roll die, goes through the engine's own modify_dice and
  requirements_after_dice. Exact, and slower (up to 6**5 outcomes).
"""
import numpy as np
from numba import njit

from sim.core.jit import njit_noalloc
from sim.games.all_in_ascent.engine import (
    MENTOR_FIRST_NERF, MENTOR_NONE, apply_dice_gear, best_final_choice, character_modifier,
    climbing_coach_bonus, dice_for_effects, dice_gear, dice_to_roll, effect_count,
    effect_stat_mod,
    effective_stat_values, has_mountain_mentor, meets_requirements, mentor_cancelled_effect,
    owned_card_of_kind, pbase, requirements_from_dice, reroll_fires, stats_needed)
from sim.games.all_in_ascent.memory import (
    PR_DICE, PR_DICE_WORK, PR_EFF, PR_MEMO, PR_TRACE, PROBABILITY_WORK)
from sim.games.all_in_ascent.rules import (  # the flat tables
    at, F_JOINT_ENTRIES, F_JOINT_INDEX, F_ROUTE_AREA, F_ROUTE_REQ, F_ROUTE_SLOT_BIT)
from sim.games.all_in_ascent.rules import (
    KIND_DIE_AS_ONE, KIND_MILESTONE_DICE, KIND_NEGATE_NERF, PARAM_BETA_BOOST, PARAM_JOINT_READY,
    PARAM_CHOICE_BEST, PARAM_POWER_TAP_BEST, PARAM_N_ROUTES, PARAM_TECH_REQ_MINUS)
from sim.games.all_in_ascent.state import (
    MAX_DICE, N_STATS, P_BETA, P_CHARACTER, P_GEAR, P_MARKS, T_REQ, TECHNICIAN, TRACE_SIZE)


@njit_noalloc(one_copy=True)
def attempt_effective_stats(st, t, seat, rid, is_milestone):
    """The four stats as an attempt made now would use them (R49), a tuple: a regular climb is
    marked before the stats are computed (R45), and a pending Beta Boost is spent on it
    (R39)."""
    b = pbase(seat)
    if is_milestone:
        marked = (st[b + P_MARKS + at(t, F_ROUTE_AREA, rid)] >> at(t, F_ROUTE_SLOT_BIT, rid)) & 1
    else:
        marked = 1
    beta = t[PARAM_BETA_BOOST] if st[b + P_BETA] != 0 else 0
    return effective_stat_values(st, t, seat, rid, marked, beta)


@njit_noalloc(inline="always")
def _applied_modifier(t, c, rid, i, mentor_index):
    """R52: effect i's modifier after the character rules and Mountain Mentor."""
    if i == mentor_index:
        return 0
    _, m = effect_stat_mod(t, rid, i)
    return character_modifier(c, m)


@njit_noalloc
def _mentor_index(t, c, gear, rid):
    """R52: the effect the engine's Mountain Mentor cancels for this gear, or -1."""
    return mentor_cancelled_effect(
        t, c, rid, MENTOR_FIRST_NERF if has_mountain_mentor(t, gear) else MENTOR_NONE)


@njit_noalloc(inline="always")
def with_stat_added(v0, v1, v2, v3, stat, amount):
    """The four stats (a bot's or a requirement's) with `amount` added to stat `stat`."""
    return (v0 + amount if stat == 0 else v0, v1 + amount if stat == 1 else v1,
            v2 + amount if stat == 2 else v2, v3 + amount if stat == 3 else v3)


@njit_noalloc
def _requirement_bounds(t, c, rid):
    """Each stat's requirement with every die at 0 and at 6 (R52), as two 4-tuples (low, high),
    from one pass over the effects; every die an effect reads ends in 0..6 whatever the gear
    does (R51), so a requirement always lies between the two. A success probability asks this
    first, for every stat, so one pass instead of one a stat."""
    base = rid * N_STATS
    l0 = at(t, F_ROUTE_REQ, base)
    l1 = at(t, F_ROUTE_REQ, base + 1)
    l2 = at(t, F_ROUTE_REQ, base + 2)
    l3 = at(t, F_ROUTE_REQ, base + 3)
    h0, h1, h2, h3 = l0, l1, l2, l3
    for i in range(effect_count(t, c, rid)):
        stat, m = effect_stat_mod(t, rid, i)
        m = character_modifier(c, m)
        if m < 0:
            l0, l1, l2, l3 = with_stat_added(l0, l1, l2, l3, stat, -6)
        elif m > 0:
            h0, h1, h2, h3 = with_stat_added(h0, h1, h2, h3, stat, 6)
    if c == TECHNICIAN:
        minus = t[PARAM_TECH_REQ_MINUS]
        l0, l1, l2, l3 = max(0, l0 - minus), max(0, l1 - minus), max(0, l2 - minus), \
            max(0, l3 - minus)
        h0, h1, h2, h3 = max(0, h0 - minus), max(0, h1 - minus), max(0, h2 - minus), \
            max(0, h3 - minus)
    return (l0, l1, l2, l3), (h0, h1, h2, h3)


@njit_noalloc
def _settled_by_bounds(t, c, rid, eff, need):
    """1 or 0 when the outcome does not depend on the dice, else -1: `need` stats pass even at
    their highest requirement, or too many fail even at the lowest."""
    low, high = _requirement_bounds(t, c, rid)
    sure_pass = 0
    sure_fail = 0
    for s in range(N_STATS):
        if eff[s] >= high[s]:
            sure_pass += 1
        elif eff[s] < low[s]:
            sure_fail += 1
    if sure_pass >= need:
        return 1
    if sure_fail > N_STATS - need:
        return 0
    return -1


@njit_noalloc(one_copy=True)
def sure_stats(st, t, seat, rid, is_milestone):
    """Bit s set where stat s passes an attempt at `rid` now at every roll of the dice (its
    value reaches its requirement with every die at its worst, R52): more of that stat cannot
    change the attempt's odds."""
    return sure_stats_of(t, st[pbase(seat) + P_CHARACTER], rid,
                         attempt_effective_stats(st, t, seat, rid, is_milestone))


@njit_noalloc
def sure_stats_of(t, c, rid, eff):
    """sure_stats for character `c` with the stats `eff` (a 4-tuple)."""
    high = _requirement_bounds(t, c, rid)[1]
    mask = 0
    for s in range(N_STATS):
        if eff[s] >= high[s]:
            mask |= 1 << s
    return mask


@njit_noalloc
def _stat_pass_count(t, c, rid, s, mentor_index, coach_bonus, slack):
    """Independent path, by enumeration: of the 6**k outcomes of stat s's own k dice (its
    effects with a non-zero modifier), how many give sum(modifier * die) <= slack. Returns
    (count, 6**k). DICE_SUM_COUNTS serves the usual cases; this is its reference and serves
    the rest (more dice on one stat than the table holds)."""
    n_eff = effect_count(t, c, rid)
    k = 0
    for i in range(n_eff):
        stat, _ = effect_stat_mod(t, rid, i)
        if stat == s and _applied_modifier(t, c, rid, i, mentor_index) != 0:
            k += 1
    if k == 0:
        return (1 if slack >= 0 else 0), 1
    total = 6 ** k
    count = 0
    for code in range(total):
        x = code
        acc = 0
        for i in range(n_eff):
            stat, _ = effect_stat_mod(t, rid, i)
            m = _applied_modifier(t, c, rid, i, mentor_index)
            if stat != s or m == 0:
                continue
            die = min(6, x % 6 + 1 + coach_bonus)           # R51.4 Climbing Coach
            x //= 6
            acc += m * die
        if acc <= slack:
            count += 1
    return count, total


# --- Independent dice: counts from one table ---------------------------------------------------
# With independent dice a stat passes when sum(nerf dice) - sum(buff dice) <= its slack (R52:
# modifiers are +1 or -1, R3, or 0 after the character rules and Mountain Mentor). How many
# outcomes do depends only on how many nerf and buff dice the stat reads, Climbing Coach's bonus
# (R51.4: each die reads min(6, roll + bonus)) and the slack, so those counts are tabulated once.
TABLE_STAT_DICE = 4         # R3's three effects on one stat, plus the Sprinter's focus nerf (R50)
TABLE_COACH = 5             # a bonus of 5 or more reads 6 on every roll: the same counts as 5
_SUM_LIMIT = 6 * TABLE_STAT_DICE


def _dice_sum_counts():
    """[n_nerf, n_buff, bonus, slack + _SUM_LIMIT]: outcomes of the stat's own dice whose
    sum(nerf dice) - sum(buff dice) is at most slack (cumulative counts)."""
    size = TABLE_STAT_DICE + 1
    table = np.zeros((size, size, TABLE_COACH + 1, 2 * _SUM_LIMIT + 1), np.int64)
    for bonus in range(TABLE_COACH + 1):
        faces = np.minimum(6, np.arange(1, 7) + bonus)
        for n_nerf in range(size):
            for n_buff in range(size - n_nerf):
                sums = np.zeros(1, np.int64)
                for die in range(n_nerf + n_buff):
                    sign = 1 if die < n_nerf else -1
                    sums = (sums[:, None] + sign * faces[None, :]).ravel()
                histogram = np.bincount(sums + _SUM_LIMIT, minlength=2 * _SUM_LIMIT + 1)
                table[n_nerf, n_buff, bonus] = np.cumsum(histogram)
    return table


DICE_SUM_COUNTS = _dice_sum_counts()


@njit_noalloc(inline="always")
def _tabled_pass_count(n_nerf, n_buff, bonus, slack):
    """(outcomes in which the stat passes, 6**k) from DICE_SUM_COUNTS."""
    total = 6 ** (n_nerf + n_buff)
    if slack >= _SUM_LIMIT:
        return total, total
    if slack < -_SUM_LIMIT:
        return 0, total
    return DICE_SUM_COUNTS[n_nerf, n_buff, min(bonus, TABLE_COACH), slack + _SUM_LIMIT], total


@njit_noalloc(one_copy=True)
def _independent_count(t, rid, is_milestone, c, gear, eff, need):
    mentor_index = _mentor_index(t, c, gear, rid)
    coach_bonus = climbing_coach_bonus(t, gear, is_milestone)
    # each stat's nerf and buff dice, 4 bits each: nerfs at bit 8s, buffs at bit 8s + 4
    dice = 0
    tabled = True
    for i in range(effect_count(t, c, rid)):
        stat, _ = effect_stat_mod(t, rid, i)
        m = _applied_modifier(t, c, rid, i, mentor_index)
        if m == 1:
            dice += 1 << (8 * stat)
        elif m == -1:
            dice += 1 << (8 * stat + 4)
        elif m != 0:
            tabled = False
    # w_j: outcomes in which exactly j of the stats seen so far pass (j = 0..4)
    w0, w1, w2, w3, w4 = 1, 0, 0, 0, 0
    for s in range(N_STATS):
        slack = eff[s] - at(t, F_ROUTE_REQ, rid * N_STATS + s)
        if c == TECHNICIAN:                 # pass iff eff >= max(0, base + delta - minus)
            slack += t[PARAM_TECH_REQ_MINUS]
        n_nerf = (dice >> (8 * s)) & 15
        n_buff = (dice >> (8 * s + 4)) & 15
        if tabled and n_nerf + n_buff <= TABLE_STAT_DICE:
            good, total = _tabled_pass_count(n_nerf, n_buff, coach_bonus, slack)
        else:
            good, total = _stat_pass_count(t, c, rid, s, mentor_index, coach_bonus, slack)
        if c == TECHNICIAN and eff[s] < 0:
            good = 0
        bad = total - good
        w0, w1, w2, w3, w4 = (w0 * bad, w1 * bad + w0 * good, w2 * bad + w1 * good,
                              w3 * bad + w2 * good, w4 * bad + w3 * good)
    good = w4
    if need <= 3:
        good += w3
    if need <= 2:
        good += w2
    if need <= 1:
        good += w1
    return good, w0 + w1 + w2 + w3 + w4


@njit_noalloc(one_copy=True)
def success_count_in(st, t, seat, rid, is_milestone, work):
    """(successful outcomes, outcomes) of an attempt by `seat` at route `rid` now; `work`
    (at least PROBABILITY_WORK int64, memory.py's PR_* blocks) is the exact counts' scratch."""
    b = pbase(seat)
    return success_count_of(t, st[b + P_CHARACTER], st[b + P_GEAR], rid, is_milestone,
                            attempt_effective_stats(st, t, seat, rid, is_milestone), work)


@njit_noalloc(one_copy=True)
def success_count_of(t, c, gear, rid, is_milestone, eff, work):
    """success_count_in for character `c` with `gear` and the stats `eff` (the 4-tuple
    attempt_effective_stats gives): the odds depend on the state through these alone, so a bot
    can weigh stats it does not have yet (more training) without a copy of the state."""
    need = stats_needed(t, c)                                              # R53
    settled = _settled_by_bounds(t, c, rid, eff, need)
    if settled >= 0:
        return settled, 1
    n_roll, power_tap = dice_to_roll(t, c, gear, rid)
    rerolls = reroll_fires(t, gear, rid)
    seqmem = owned_card_of_kind(t, gear, KIND_DIE_AS_ONE, -1) >= 0
    if t[PARAM_CHOICE_BEST] != 0 and (rerolls or seqmem or
                                      has_mountain_mentor(t, gear)):
        return _chosen_count(t, c, gear, rid, is_milestone, eff, n_roll, power_tap, need, work)
    coupled = power_tap or rerolls or seqmem
    if not coupled:
        return _independent_count(t, rid, is_milestone, c, gear, eff, need)
    if t[PARAM_JOINT_READY]:
        reroll, keep, as_value, coach = dice_gear(t, gear, rid, is_milestone)
        mentor = has_mountain_mentor(t, gear)
        flags = _joint_flags(reroll, keep if power_tap else 0, as_value, coach, mentor)
        good, total = _joint_count(t, c, rid, flags, eff, need)
        if good >= 0:
            return good, total
    return _enumerated_count(t, c, gear, rid, is_milestone, eff, n_roll, power_tap, rerolls,
                             need, work)


@njit_noalloc
def outcome_requirements(t, c, rid, code, n_roll, reroll, keep, as_value, coach, mentor, dice,
                         trace):
    """Outcome number `code` of an attempt (the rolled dice, then the re-roll die, in base 6)
    through the engine's own R51 and R52: the requirements land in trace[T_REQ:T_REQ+4]."""
    x = code
    for i in range(n_roll):
        dice[i] = x % 6 + 1
        x //= 6
    n_kept = apply_dice_gear(dice, n_roll, x % 6 + 1, reroll, -1, keep, as_value, -1, coach,
                             trace, False)
    requirements_from_dice(t, c, rid, dice, n_kept,
                           MENTOR_FIRST_NERF if mentor else MENTOR_NONE, trace)


@njit_noalloc(one_copy=True)
def _enumerated_count(t, c, gear, rid, is_milestone, eff, n_roll, power_tap, rerolls, need,
                      work):
    """Every outcome of the rolled dice (and of the re-roll die) through the engine's own R51
    and R52 functions, with the gear looked up once. `work`: memory.py's PR_* blocks."""
    dice = work[PR_DICE:PR_DICE + MAX_DICE]
    trace = work[PR_TRACE:PR_TRACE + TRACE_SIZE]
    trace[:] = 0
    reroll, keep, as_value, coach = dice_gear(t, gear, rid, is_milestone)
    if not power_tap:
        keep = 0
    mentor = has_mountain_mentor(t, gear)
    n_outcomes = 6 ** n_roll * (6 if rerolls else 1)
    good = 0
    for code in range(n_outcomes):
        outcome_requirements(t, c, rid, code, n_roll, reroll, keep, as_value, coach, mentor,
                             dice, trace)
        if meets_requirements(eff, trace, need):
            good += 1
    return good, n_outcomes


@njit_noalloc(one_copy=True)
def _chosen_count(t, c, gear, rid, is_milestone, eff, n_roll, power_tap, need, work):
    """Switch your_choice_gear=best: every outcome through the engine's best_final_choice. The
    Decoder's pick maximises the successful new values of its die (engine.best_reroll_index),
    so an outcome of the rolled dice contributes that maximum; each dice vector's success is
    computed once (memo) since re-rolled vectors repeat. `work`: memory.py's PR_* blocks."""
    reroll, keep, as_value, coach = dice_gear(t, gear, rid, is_milestone)
    if not power_tap:
        keep = 0
    mentor = has_mountain_mentor(t, gear)
    eff_array = work[PR_EFF:PR_EFF + N_STATS]
    for s in range(N_STATS):
        eff_array[s] = eff[s]
    dice_work = work[PR_DICE_WORK:PR_DICE_WORK + 2 * MAX_DICE]
    dice = work[PR_DICE:PR_DICE + MAX_DICE]
    trace = work[PR_TRACE:PR_TRACE + TRACE_SIZE]
    trace[:] = 0
    n_codes = 6 ** n_roll
    memo = work[PR_MEMO:PR_MEMO + n_codes]
    memo[:] = -1
    good = 0
    for code in range(n_codes):
        if not reroll:
            good += _success_of(t, c, rid, code, n_roll, keep, as_value, coach, mentor,
                                eff_array, need, memo, dice, dice_work, trace)
            continue
        best = 0
        place = 1
        for i in range(n_roll):                       # the Decoder on die i: its 6 new values
            digit = (code // place) % 6
            count = 0
            for v in range(6):
                count += _success_of(t, c, rid, code + (v - digit) * place, n_roll, keep,
                                     as_value, coach, mentor, eff_array, need, memo, dice,
                                     dice_work, trace)
            best = max(best, count)
            place *= 6
        good += best
    return good, n_codes * (6 if reroll else 1)


@njit_noalloc
def _success_of(t, c, rid, code, n_roll, keep, as_value, coach, mentor, eff, need, memo, dice,
                work, trace):
    if memo[code] < 0:
        x = code
        for i in range(n_roll):
            dice[i] = x % 6 + 1
            x //= 6
        memo[code] = 1 if best_final_choice(t, c, rid, dice, n_roll, keep, as_value, coach,
                                            mentor, eff, need, work, trace)[2] else 0
    return memo[code]


# --- Joint tables for dice-coupling gear -----------------------------------------------------
# With the Decoder, the Power Tap Belt or Sequence Memorization the dice are coupled, but an
# attempt's requirements still take few distinct values. Once per rules configuration, every
# outcome of every (character, route, gear flags) with coupling gear goes through the engine's
# own apply_dice_gear / requirements_from_dice; the distinct requirement vectors are kept with
# their counts. An attempt's probability is then a pass over those few vectors.
JOINT_FLAGS = 32            # bit 0 re-roll, 1 Power Tap, 2 Sequence Memorization, 3 Coach, 4 Mentor
_REQ_OFFSET = 1024          # requirement vectors packed 16 bits a stat


@njit_noalloc
def _joint_flags(reroll, keep, as_value, coach, mentor):
    return ((1 if reroll else 0) | (2 if keep != 0 else 0) | (4 if as_value > 0 else 0)
            | (8 if coach > 0 else 0) | (16 if mentor else 0))


@njit(cache=True)
def _joint_distribution(t, c, rid, reroll, keep, as_value, coach, mentor, slots, keys_out,
                        counts_out):
    """The distinct requirement vectors of an attempt's outcomes, packed 16 bits a stat, into
    keys_out in the order first met, with how many outcomes give each into counts_out; returns
    how many distinct. They are told apart by an open-addressing table (`slots`: 1 + the
    vector's place, 0 for none): a few dozen distinct among up to 46,656 outcomes, where
    numpy's unique sorted every outcome (a rules variant packed 29% faster without it), and a
    sort here compiled numba's quicksort (0.7 s of every first run). joint_tables sorts the
    few distinct."""
    n_roll = dice_for_effects(t, c, rid) + (1 if keep != 0 else 0)
    n_outcomes = 6 ** n_roll * (6 if reroll else 1)
    bits = 1
    while (1 << bits) < 2 * n_outcomes:
        bits += 1
    mask = (1 << bits) - 1
    slots[:mask + 1] = 0
    dice = np.empty(MAX_DICE, np.int64)
    trace = np.zeros(TRACE_SIZE, np.int64)
    n_distinct = 0
    for code in range(n_outcomes):
        outcome_requirements(t, c, rid, code, n_roll, reroll, keep, as_value, coach, mentor,
                             dice, trace)
        key = 0
        for s in range(N_STATS):
            key |= (trace[T_REQ + s] + _REQ_OFFSET) << (16 * s)
        # Fibonacci hashing: the top `bits` bits of key x 2^64 / golden ratio, modulo 2^64 (in
        # unsigned integers, whose overflow numba's code may not assume away)
        h = np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits))
        while True:
            at_slot = slots[h]
            if at_slot == 0:
                keys_out[n_distinct] = key
                counts_out[n_distinct] = 1
                n_distinct += 1
                slots[h] = n_distinct
                break
            if keys_out[at_slot - 1] == key:
                counts_out[at_slot - 1] += 1
                break
            h = (h + 1) & mask
    return n_distinct


def joint_tables(named, flat):
    """(index, entries) arrays for rules.Tables, or (None, None) when the deck has more than one
    card of a dice-coupling kind (the tables assume one value per kind; the exact enumeration
    then serves)."""
    from sim.games.all_in_ascent.rules import (
        KIND_EXTRA_DIE, KIND_REROLL_ON_TAG)
    kinds = named.card_kind
    values = {}
    for kind in (KIND_REROLL_ON_TAG, KIND_EXTRA_DIE, KIND_DIE_AS_ONE, KIND_MILESTONE_DICE,
                 KIND_NEGATE_NERF):
        cards = np.nonzero(kinds == kind)[0]
        if len(cards) > 1:
            return None, None
        values[kind] = (int(cards[0]), int(named.card_value[cards[0]])) if len(cards) else None
    n_routes = len(named.route_area)
    index = np.zeros((5, n_routes, JOINT_FLAGS, 2), np.int64)
    key_parts, count_parts = [], []
    at_entry = 0
    most = 6 ** MAX_DICE * 6                   # outcomes of an attempt, at most
    slots = np.empty(4 * most, np.int64)      # the table: the least power of 2 >= 2n is < 4n
    keys = np.empty(most, np.int64)
    counts = np.empty(most, np.int64)
    for rid in range(n_routes):
        tag = int(named.route_tag[rid])
        reroll_ok = values[KIND_REROLL_ON_TAG] is not None and tag != 0 and \
            named.card_tag[values[KIND_REROLL_ON_TAG][0]] == tag
        keep_ok = values[KIND_EXTRA_DIE] is not None and tag != 0 and \
            named.card_tag[values[KIND_EXTRA_DIE][0]] == tag
        for flags in range(JOINT_FLAGS):
            reroll, power, seqmem, coach, mentor = [(flags >> b) & 1 for b in range(5)]
            if not (reroll or power or seqmem):
                continue                        # independent dice: no table needed
            if (reroll and not reroll_ok) or (power and not keep_ok) or \
                    (seqmem and values[KIND_DIE_AS_ONE] is None) or \
                    (coach and values[KIND_MILESTONE_DICE] is None) or \
                    (mentor and values[KIND_NEGATE_NERF] is None):
                continue
            keep = values[KIND_EXTRA_DIE][1] if power else 0
            if named.params[PARAM_POWER_TAP_BEST]:
                keep = -keep                    # as dice_gear: negative keeps the highest
            as_value = values[KIND_DIE_AS_ONE][1] if seqmem else 0
            bonus = values[KIND_MILESTONE_DICE][1] if coach else 0
            for c in range(5):
                n = _joint_distribution(flat, c, rid, bool(reroll), keep, as_value, bonus,
                                        bool(mentor), slots, keys, counts)
                order = np.argsort(keys[:n])
                index[c, rid, flags] = (at_entry, n)
                key_parts.append(keys[order])
                count_parts.append(counts[order])
                at_entry += n
    entries = np.empty((at_entry, 2), np.int64)
    if at_entry:
        entries[:, 0] = np.concatenate(key_parts)
        entries[:, 1] = np.concatenate(count_parts)
    return index.ravel(), entries.ravel()


@njit_noalloc
def _joint_count(t, c, rid, flags, eff, need):
    """(successes, outcomes) from the joint table, or (-1, 0) if there is none."""
    idx = ((c * t[PARAM_N_ROUTES] + rid) * JOINT_FLAGS + flags) * 2
    start = at(t, F_JOINT_INDEX, idx)
    count = at(t, F_JOINT_INDEX, idx + 1)
    if count == 0:
        return -1, 0
    good = 0
    total = 0
    for e in range(start, start + count):
        key = at(t, F_JOINT_ENTRIES, 2 * e)
        weight = at(t, F_JOINT_ENTRIES, 2 * e + 1)
        passed = 0
        for s in range(N_STATS):
            if eff[s] >= ((key >> (16 * s)) & 0xFFFF) - _REQ_OFFSET:
                passed += 1
        if passed >= need:
            good += weight
        total += weight
    return good, total


@njit_noalloc(one_copy=True)
def climb_success_probability_in(st, t, seat, rid, is_milestone, work):
    """P(success) of an attempt at route id `rid` by `seat` in the current state (R47-R53);
    `work` as success_count_in's (a bot passes its ctx.work)."""
    good, total = success_count_in(st, t, seat, rid, is_milestone, work)
    return good / total


@njit_noalloc(one_copy=True)
def climb_success_probability_of(t, c, gear, rid, is_milestone, eff, work):
    """climb_success_probability_in for character `c` with `gear` and the stats `eff` (see
    success_count_of)."""
    good, total = success_count_of(t, c, gear, rid, is_milestone, eff, work)
    return good / total


@njit(cache=True)
def success_count(st, t, seat, rid, is_milestone):
    """success_count_in with scratch of its own (for Python and tests: it allocates)."""
    return success_count_in(st, t, seat, rid, is_milestone,
                            np.empty(PROBABILITY_WORK, np.int64))


@njit(cache=True)
def climb_success_probability(st, t, seat, rid, is_milestone):
    """climb_success_probability_in with scratch of its own (for Python and tests: it
    allocates)."""
    return climb_success_probability_in(st, t, seat, rid, is_milestone,
                                        np.empty(PROBABILITY_WORK, np.int64))
