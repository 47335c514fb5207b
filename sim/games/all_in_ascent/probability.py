"""Exact probability that a climb or milestone attempt succeeds (R47-R53), from the state.

Counts are exact integers: P = successes / 6**dice. Two paths:

- Independent dice (no Crimp Sequence Decoder re-roll, no Power Tap Belt, no Sequence
  Memorization): every effect reads its own die (R50 rolls max(2, effects) dice), so each stat's
  requirement depends on its own dice only and the stats pass independently. Each stat's pass
  count is enumerated over its own (at most three) dice, and the counts multiply (all four
  stats), or combine into "at least 3 of 4" for the Route Reader. A few dozen operations.
- Coupled dice (those three cards pick "the first highest die" or sort the dice): every outcome of
  all dice, and of the re-roll die, goes through the engine's own modify_dice and
  requirements_after_dice. Exact, and slower (up to 6**5 outcomes).
"""
import numpy as np
from numba import njit

from sim.games.all_in_ascent.engine import (
    dice_to_roll, effect_count, effect_stat_mod, effective_stat, modify_dice, owned_card_of_kind,
    pbase, requirements_after_dice, reroll_fires)
from sim.games.all_in_ascent.rules import (  # the flat tables
    at, F_CARD_VALUE, F_ROUTE_AREA, F_ROUTE_REQ, F_ROUTE_SLOT_BIT)
from sim.games.all_in_ascent.rules import (
    KIND_DIE_AS_ONE, KIND_MILESTONE_DICE, KIND_NEGATE_NERF, PARAM_BETA_BOOST,
    PARAM_ROUTE_READER_NEEDS, PARAM_TECH_REQ_MINUS)
from sim.games.all_in_ascent.state import (
    FREE_SOLO, MAX_DICE, N_STATS, P_BETA, P_CHARACTER, P_GEAR, P_MARKS, ROUTE_READER, T_REQ,
    TECHNICIAN, TRACE_SIZE)


@njit(cache=True)
def attempt_effective_stats(st, t, seat, rid, is_milestone, out):
    """The effective stats an attempt made now would use (R49): a regular climb is marked before
    the stats are computed (R45), and a pending Beta Boost is spent on it (R39)."""
    b = pbase(seat)
    marked = 1 if not is_milestone else (st[b + P_MARKS + at(t, F_ROUTE_AREA, rid)] >> at(t, F_ROUTE_SLOT_BIT, rid)) & 1
    beta = t[PARAM_BETA_BOOST] if st[b + P_BETA] != 0 else 0
    for s in range(N_STATS):
        out[s] = effective_stat(st, t, seat, rid, marked, beta, s)


@njit(cache=True)
def _stat_pass_count(t, character, rid, s, applied, die_low, die_high, n_eff, slack):
    """Independent path: how many of the 6**k outcomes of stat s's own k dice give
    sum(modifier * die) <= slack. Returns (count, k)."""
    dice_of_stat = np.zeros(4, np.int64)
    mods = np.zeros(4, np.int64)
    k = 0
    for i in range(n_eff):
        stat, _ = effect_stat_mod(t, rid, i)
        if stat == s and applied[i] != 0:
            mods[k] = applied[i]
            k += 1
    if k == 0:
        return (1 if slack >= 0 else 0), 0
    count = 0
    total = 6 ** k
    for code in range(total):
        x = code
        acc = 0
        for j in range(k):
            face = x % 6 + 1
            x //= 6
            die = min(6, face + die_low) if die_high else face
            acc += mods[j] * die
        if acc <= slack:
            count += 1
    return count, k


@njit(cache=True)
def _settled_by_bounds(t, c, rid, eff):
    """1 or 0 when the outcome does not depend on the dice, else -1.

    Whatever the gear does, every die an effect reads ends in 0..6 (R51, R52), so each stat's
    requirement lies between its values with every die at 0 and at 6. If every stat passes even
    at the top (at least 3 for the Route Reader), the attempt surely succeeds; if too many fail
    even at the bottom, it surely fails."""
    n_eff = effect_count(t, c, rid)
    sure_pass = 0
    sure_fail = 0
    for s in range(N_STATS):
        low = at(t, F_ROUTE_REQ, rid * N_STATS + s)
        high = low
        if c != FREE_SOLO:
            for i in range(n_eff):
                stat, m = effect_stat_mod(t, rid, i)
                if stat != s:
                    continue
                if m < 0:
                    low -= 6
                elif c != TECHNICIAN:       # the Technician ignores nerfs (R52)
                    high += 6
        if c == TECHNICIAN:
            minus = t[PARAM_TECH_REQ_MINUS]
            low = max(0, low - minus)
            high = max(0, high - minus)
        if eff[s] >= high:
            sure_pass += 1
        elif eff[s] < low:
            sure_fail += 1
    need = t[PARAM_ROUTE_READER_NEEDS] if c == ROUTE_READER else N_STATS
    if sure_pass >= need:
        return 1
    if sure_fail > N_STATS - need:
        return 0
    return -1


@njit(cache=True)
def success_count(st, t, seat, rid, is_milestone):
    """(successful outcomes, outcomes) of an attempt by `seat` at route `rid` now."""
    b = pbase(seat)
    c = st[b + P_CHARACTER]
    gear = st[b + P_GEAR]
    eff = np.empty(N_STATS, np.int64)
    attempt_effective_stats(st, t, seat, rid, is_milestone, eff)
    settled = _settled_by_bounds(t, c, rid, eff)
    if settled >= 0:
        return settled, 1
    n_roll, power_tap = dice_to_roll(t, c, gear, rid)
    rerolls = reroll_fires(t, gear, rid)
    coupled = power_tap or rerolls or owned_card_of_kind(t, gear, KIND_DIE_AS_ONE, -1) >= 0
    if not coupled:
        return _independent_count(t, c, gear, rid, is_milestone, eff)
    return _enumerated_count(t, c, gear, rid, is_milestone, eff, n_roll, power_tap, rerolls)


@njit(cache=True)
def _independent_count(t, c, gear, rid, is_milestone, eff):
    n_eff = effect_count(t, c, rid)
    applied = np.zeros(4, np.int64)        # R52's modifier per effect after the character rules
    mentor = owned_card_of_kind(t, gear, KIND_NEGATE_NERF, -1) >= 0
    for i in range(n_eff):
        _, m = effect_stat_mod(t, rid, i)
        if c == FREE_SOLO:
            m = 0
        elif c == TECHNICIAN and m == 1:
            m = 0
        if m == 1 and mentor:
            m = 0
            mentor = False
        applied[i] = m
    coach = owned_card_of_kind(t, gear, KIND_MILESTONE_DICE, -1) if is_milestone else -1
    die_low = at(t, F_CARD_VALUE, coach) if coach >= 0 else 0
    counts = np.zeros(N_STATS, np.int64)
    sizes = np.zeros(N_STATS, np.int64)
    for s in range(N_STATS):
        base = at(t, F_ROUTE_REQ, rid * N_STATS + s)
        if c == TECHNICIAN:
            # pass iff eff >= max(0, base + delta - minus)
            if eff[s] < 0:
                counts[s], sizes[s] = 0, 0
                continue
            slack = eff[s] - base + t[PARAM_TECH_REQ_MINUS]
        else:
            slack = eff[s] - base
        counts[s], sizes[s] = _stat_pass_count(t, c, rid, s, applied, die_low, coach >= 0,
                                               n_eff, slack)
    total = 1
    for s in range(N_STATS):
        total *= 6 ** sizes[s]
    if c != ROUTE_READER:
        good = 1
        for s in range(N_STATS):
            good *= counts[s]
        return good, total
    need = t[PARAM_ROUTE_READER_NEEDS]
    good = 0
    for pattern in range(16):              # which stats pass
        passed = 0
        ways = 1
        for s in range(N_STATS):
            if (pattern >> s) & 1:
                passed += 1
                ways *= counts[s]
            else:
                ways *= 6 ** sizes[s] - counts[s]
        if passed >= need:
            good += ways
    return good, total


@njit(cache=True)
def _enumerated_count(t, c, gear, rid, is_milestone, eff, n_roll, power_tap, rerolls):
    dice = np.empty(MAX_DICE, np.int64)
    trace = np.zeros(TRACE_SIZE, np.int64)
    n_outcomes = 6 ** n_roll * (6 if rerolls else 1)
    need = t[PARAM_ROUTE_READER_NEEDS] if c == ROUTE_READER else N_STATS
    good = 0
    for code in range(n_outcomes):
        x = code
        for i in range(n_roll):
            dice[i] = x % 6 + 1
            x //= 6
        reroll_value = x % 6 + 1
        n_kept = modify_dice(t, gear, rid, is_milestone, dice, n_roll, reroll_value, power_tap,
                             trace)
        requirements_after_dice(t, c, gear, rid, dice, n_kept, trace)
        passed = 0
        for s in range(N_STATS):
            if eff[s] >= trace[T_REQ + s]:
                passed += 1
        if passed >= need:
            good += 1
    return good, n_outcomes


@njit(cache=True)
def climb_success_probability(st, t, seat, rid, is_milestone):
    """P(success) of an attempt at route id `rid` by `seat` in the current state (R47-R53)."""
    good, total = success_count(st, t, seat, rid, is_milestone)
    return good / total
