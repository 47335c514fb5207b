"""climb_success_probability against brute-force enumeration of every dice outcome.

The brute force below is written from RULES.md R49-R53 in plain Python, independently of the
engine: it enumerates every roll (and every re-roll die), applies the gear in R51's order,
computes R52's requirements and R53's outcome, and counts.
"""
import itertools
from fractions import Fraction

import numpy as np
import pytest

from sim.games.all_in_ascent import state as S
from sim.games.all_in_ascent.data import CHARACTER_KEYS, STATS
from sim.games.all_in_ascent.game import Game
from sim.games.all_in_ascent.probability import (
    TABLE_COACH, TABLE_STAT_DICE, _tabled_pass_count, success_count)
from sim.games.all_in_ascent.rules import PARAM_JOINT_READY, build_rules
from tests.all_in_ascent.helpers import reference_dice

DICE_GEAR = ["Crimp Sequence Decoder", "Power Tap Belt", "Sequence Memorization",
             "Climbing Coach", "Mountain Mentor"]
ROUTE_GEAR = ["Harness", "Belay Device", "Lead Rope"]


def brute_force(route, character, gear, eff, milestone, coach_bonus=1, own_die=False):
    effects, n_roll, power_tap, reroll = reference_dice(route, character, gear, own_die)
    # the die each effect reads: its own index, but the rulebook Sprinter's nerf (the last
    # effect) reads the die rolled after the max(2, route effects)
    die_of = list(range(len(effects)))
    if own_die and character == "sprinter":
        die_of[-1] = max(2, len(effects) - 1)
    good = total = 0
    for roll in itertools.product(range(1, 7), repeat=n_roll):
        for new_die in (range(1, 7) if reroll else [None]):
            d = list(roll)
            if reroll:
                d[d.index(max(d))] = new_die
            if power_tap:
                d = sorted(d)[:2]
            if "Sequence Memorization" in gear:
                i = d.index(max(d))
                if d[i] > 1:
                    d[i] = 1
            if milestone and "Climbing Coach" in gear:
                d = [min(6, x + coach_bonus) for x in d]
            req = [int(route[s]) for s in STATS]
            mentor = "Mountain Mentor" in gear
            for i, (stat, m) in enumerate(effects):
                die = d[die_of[i]] if die_of[i] < len(d) else 0
                if character == "freeSolo":
                    m = 0
                elif character == "technician" and m == 1:
                    m = 0
                if m == 1 and mentor:
                    m, mentor = 0, False
                req[stat] += m * die
            if character == "technician":
                req = [max(0, r - 5) for r in req]
            passed = sum(e >= r for e, r in zip(eff, req))
            good += passed >= (3 if character == "routeReader" else 4)
            total += 1
    return Fraction(good, total)


def _routes(game):
    data = game.rules.data
    return [(area, r) for area in ("bouldering", "topRope", "leadClimbing")
            for r in data.routes[area]]


@pytest.mark.parametrize("joint_tables", [True, False], ids=["joint-tables", "enumeration"])
@pytest.mark.parametrize("character", [*CHARACTER_KEYS, "sprinter-own-die"])
def test_probability_equals_brute_force(character, joint_tables):
    """Every route x this character x a set of gear combinations, regular and milestone; for
    coupled dice both through the precomputed joint tables and through the plain enumeration.
    sprinter-own-die: the Sprinter under the rulebook's reading (sprinter_extra_die=off, R50)."""
    own_die = character == "sprinter-own-die"
    character = "sprinter" if own_die else character
    rng = np.random.default_rng(CHARACTER_KEYS.index(character) + (10 if own_die else 0))
    game = Game(5, [character], rules=build_rules(switches={"sprinter_extra_die": "off"})
                if own_die else None)
    tables = game.tables.copy()
    tables[PARAM_JOINT_READY] = 1 if joint_tables else 0
    assert game.tables[PARAM_JOINT_READY] == 1
    st = game.state
    b = S.player_offset(0)
    gear_sets = [(), ("Mountain Mentor",), ("Climbing Coach",), ("Crimp Sequence Decoder",),
                 ("Power Tap Belt",), ("Sequence Memorization",),
                 ("Crimp Sequence Decoder", "Sequence Memorization", "Mountain Mentor"),
                 ("Power Tap Belt", "Sequence Memorization", "Climbing Coach"),
                 ("Power Tap Belt", "Mountain Mentor", "Harness", "Belay Device", "Lead Rope")]
    checked = 0
    for rid, (area, route) in enumerate(_routes(game)):
        for gear in gear_sets:
            mask = 0
            for name in gear:
                mask |= 1 << game.rules.card_id(name)
            st[b + S.P_GEAR] = mask
            # stats near the route's requirements, so that probabilities are not all 0 or 1
            for s, stat in enumerate(STATS):
                st[b + S.P_STATS + s] = int(route[stat]) + int(rng.integers(-8, 6))
                st[b + S.P_TRAINING + s] = 0
            st[b + S.P_BETA] = int(rng.integers(0, 2)) if character == "routeReader" else 0
            beta = 3 if st[b + S.P_BETA] else 0
            bonus = game.rules.named.route_gear_bonus[rid]
            eff = [int(st[b + S.P_STATS + s]) + beta + int(sum(bonus[game.rules.card_id(g), s]
                                                             for g in gear if g in ROUTE_GEAR))
                   for s in range(4)]
            for milestone in (False, True):
                good, total = success_count(st, tables, 0, rid, milestone)
                assert Fraction(int(good), int(total)) == brute_force(
                    route, character, gear, eff, milestone, own_die=own_die), \
                    (route["name"], gear, milestone)
                checked += 1
    assert checked == 72 * len(gear_sets) * 2


@pytest.mark.parametrize("bonus", [0, 2, 7])
def test_probability_reads_the_climbing_coach_bonus_of_the_rules(bonus):
    """R51.4 with the knob gear."Climbing Coach".value: the success probability the bots read
    adds the rules' bonus to every die, as the engine does (0: no bonus; 7: every die reads 6),
    on every route for a character the dice touch, with and without coupled dice."""
    from sim.games.all_in_ascent.rules import build_rules
    rules = build_rules("v0.4.0", knobs=[f'gear."Climbing Coach".value={bonus}'])
    game = Game(5, ["ironLung"], rules=rules)
    st = game.state
    b = S.player_offset(0)
    rng = np.random.default_rng(bonus)
    checked = 0
    for gear in [("Climbing Coach",), ("Climbing Coach", "Mountain Mentor"),
                 ("Climbing Coach", "Power Tap Belt", "Sequence Memorization")]:
        mask = 0
        for name in gear:
            mask |= 1 << rules.card_id(name)
        st[b + S.P_GEAR] = mask
        for rid, (area, route) in enumerate(_routes(game)):
            eff = [int(route[stat]) + int(rng.integers(-8, 6)) for stat in STATS]
            for s in range(4):
                st[b + S.P_STATS + s] = eff[s]
                st[b + S.P_TRAINING + s] = 0
            good, total = success_count(st, game.tables, 0, rid, True)
            assert Fraction(int(good), int(total)) == \
                brute_force(route, "ironLung", gear, eff, True, coach_bonus=bonus), \
                (route["name"], gear)
            checked += 1
    assert checked == 3 * 72


@pytest.mark.parametrize("bonus", range(TABLE_COACH + 3))
def test_tabled_dice_counts_equal_enumeration(bonus):
    """The independent path reads each stat's pass count from DICE_SUM_COUNTS: every number of
    nerf and buff dice, Coach bonus (R51.4, including bonuses past the table's last, which read
    as it) and slack, against enumerating the rolls."""
    for n_nerf in range(TABLE_STAT_DICE + 1):
        for n_buff in range(TABLE_STAT_DICE + 1 - n_nerf):
            k = n_nerf + n_buff
            rolls = np.array(list(itertools.product(range(1, 7), repeat=k)),
                             np.int64).reshape(6 ** k, k)
            faces = np.minimum(6, rolls + bonus)
            sums = faces[:, :n_nerf].sum(axis=1) - faces[:, n_nerf:].sum(axis=1)
            for slack in range(-30, 31):
                assert _tabled_pass_count(n_nerf, n_buff, bonus, slack) == \
                    (int((sums <= slack).sum()), len(sums)), (n_nerf, n_buff, slack)


@pytest.mark.parametrize("character", CHARACTER_KEYS)
def test_requirement_bounds_are_the_requirements_at_the_extreme_dice(character):
    """R50-R52: the bounds a success probability reads first (probability._requirement_bounds,
    one pass over the effects) are, per stat, the lowest and the highest requirement over every
    die an effect can read, 0 (no die, past Power Tap's two) to 6, written here from the rules
    as brute_force writes R52. A bound too tight would settle an attempt the dice could still
    turn."""
    from sim.games.all_in_ascent.probability import _requirement_bounds
    game = Game(5, [character])
    c = CHARACTER_KEYS.index(character)
    for rid, (_, route) in enumerate(_routes(game)):
        effects, _, _, _ = reference_dice(route, character, ())
        low = [None] * 4
        high = [None] * 4
        for dice in itertools.product(range(7), repeat=len(effects)):
            req = [int(route[s]) for s in STATS]
            for (stat, m), die in zip(effects, dice):
                if character == "freeSolo" or (character == "technician" and m == 1):
                    m = 0
                req[stat] += m * die
            if character == "technician":
                req = [max(0, r - 5) for r in req]
            low = [r if lo is None else min(lo, r) for lo, r in zip(low, req)]
            high = [r if hi is None else max(hi, r) for hi, r in zip(high, req)]
        got_low, got_high = _requirement_bounds(game.tables, c, rid)
        assert (list(got_low), list(got_high)) == (low, high), (route["name"], character)
