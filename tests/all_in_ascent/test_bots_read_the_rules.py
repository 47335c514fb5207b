"""Issue 20, item 1: the bots read every ability from the packed rules, never from a character's
name, so flipping a character's knob changes the bot's choices the way it changes the game.

Each test builds one constructed state, then asks the bot's own decision functions (the ones
`planner`, `tuned` and `lookahead` decide with) under the printed value of a knob and under
another value, and checks the direction of the change. The knobs are sim/games/all_in_ascent/
variants.py's PASSIVES."""
import numpy as np
import pytest

from helpers import pset, set_stats, set_training
from policies.all_in_ascent.helpers import card_is_useful, expected_attempt_xp
from policies.all_in_ascent.planner import stat_gaps
from sim.core.game import get_game
from sim.games.all_in_ascent import state as S
from sim.games.all_in_ascent.data import STATS
from sim.games.all_in_ascent.game import Buy, Game
from sim.games.all_in_ascent.memory import WORK_SIZE
from sim.games.all_in_ascent.probability import climb_success_probability
from sim.games.all_in_ascent.rules import F_ROUTE_REQ, at

AIA = get_game("all-in-ascent")


def game_with(character, knob=None, value=None, seed=3):
    knobs = [(f"characters.{character}.passive.{knob}", str(value))] if knob else []
    rules = AIA.build_rules(2, knobs=knobs)
    other = "technician" if character != "technician" else "sprinter"
    return Game(seed, [character, other], rules=rules)


def useful(game, card):
    return bool(card_is_useful(game.state, game.tables, 0, game.rules.card_id(card)))


def gaps_of(game, route):
    gaps = np.zeros(S.N_STATS, np.float64)
    total = stat_gaps(game.state, game.tables, 0, game.rules.route_id(route), gaps,
                      np.zeros(S.TRACE_SIZE, np.int64))
    return total, gaps


def meeting_printed_requirements(game, route):
    """Seat 0's stats set to the route's printed requirements exactly, no training."""
    rid = game.rules.route_id(route)
    req = [int(at(game.tables, F_ROUTE_REQ, rid * S.N_STATS + s)) for s in range(S.N_STATS)]
    set_stats(game, 0, req)
    set_training(game, 0, [0] * S.N_STATS)
    return req


ACCESS_CARDS = ("Belay Device", "Locking Carabiner", "Lead Rope")


def test_free_solo_access_bypass_decides_whether_access_gear_is_worth_buying():  # R26
    printed = game_with("freeSolo")
    bypass_off = game_with("freeSolo", "access_bypass", 0)
    for g in (printed, bypass_off):
        pset(g, 0, done=0)
    assert not any(useful(printed, c) for c in ACCESS_CARDS)
    assert any(useful(bypass_off, c) for c in ACCESS_CARDS)


def test_with_access_bypass_off_the_planner_heads_for_the_free_solo_access_gear():  # R26, R30
    """The decision itself: a Free Solo in the gear shop with XP to spend buys the first card on
    the way to a milestone area's access gear (the Harness, its prerequisite) only when the knob
    says it needs access gear."""
    suggested = {}
    for value in (1, 0):
        g = game_with("freeSolo", "access_bypass", value)
        pset(g, 0, xp=5000, location=S.GEAR_SHOP_LOC)
        assert Buy("Harness") in g.legal_actions()
        suggested[value] = g.suggest("planner")
    assert suggested[1] != Buy("Harness")
    assert suggested[0] == Buy("Harness")


def test_iron_lung_fail_penalty_decides_whether_mental_anchor_is_useful():  # R55
    assert useful(game_with("ironLung"), "Mental Anchor")
    assert not useful(game_with("ironLung", "fail_endurance_penalty", 0), "Mental Anchor")
    assert not useful(game_with("sprinter"), "Mental Anchor")      # no penalty to avoid


@pytest.mark.parametrize("card", ["Crimp Sequence Decoder", "Power Tap Belt",
                                  "Sequence Memorization", "Mountain Mentor"])
def test_dice_picking_gear_is_useful_exactly_where_nerf_dice_count(card):  # R52
    assert useful(game_with("sprinter"), card)
    assert not useful(game_with("technician"), card)      # nerfs already 0 for it
    assert not useful(game_with("freeSolo"), card)        # every modifier 0


def test_failure_gear_is_useless_only_to_a_character_that_cannot_fail():  # R28, R52
    assert not useful(game_with("freeSolo"), "Confidence Building")
    assert useful(game_with("technician"), "Confidence Building")


def test_sprinter_extra_nerf_die_opens_a_gap_the_printed_requirements_hide():  # R50, R52
    """The misplay of issue 20: meeting every printed requirement, the Sprinter still faces its
    own focus nerf die. The planner's gap now counts it (and keeps training), and the knob
    that removes the die removes the gap."""
    route = "Power Pulley"         # its own dice are buffs on strength and technique
    with_die = game_with("sprinter")
    without = game_with("sprinter", "extra_nerf_die", 0)
    focus = STATS.index("focus")
    for g in (with_die, without):
        meeting_printed_requirements(g, route)
    _, gaps_with = gaps_of(with_die, route)
    _, gaps_without = gaps_of(without, route)
    assert gaps_with[focus] >= gaps_without[focus] + 3.0     # a die's mean is 3.5
    p_with = climb_success_probability(with_die.state, with_die.tables, 0,
                                       with_die.rules.route_id(route), False)
    p_without = climb_success_probability(without.state, without.tables, 0,
                                          without.rules.route_id(route), False)
    assert p_with < p_without


def test_technician_requirement_reduction_shrinks_its_gaps():  # R52
    route = "Power Pulley"
    small = game_with("technician", "requirement_reduction", 0)
    large = game_with("technician", "requirement_reduction", 10)
    for g in (small, large):
        set_stats(g, 0, [5, 5, 5, 5])
    assert gaps_of(large, route)[0] < gaps_of(small, route)[0]


def test_route_reader_stats_needed_decides_how_many_gaps_count():  # R53
    route = "Brute Start"
    three = game_with("routeReader")
    four = game_with("routeReader", "stats_needed", 4)
    for g in (three, four):
        set_stats(g, 0, [1, 1, 1, 1])
    total_three, gaps = gaps_of(three, route)
    total_four, _ = gaps_of(four, route)
    assert total_four == pytest.approx(total_three + gaps.max())


def test_iron_lung_fail_xp_bonus_raises_the_expected_xp_of_a_risky_climb():  # R54
    route = "Brute Start"
    values = []
    for bonus in (0, 200):
        g = game_with("ironLung", "fail_xp_bonus_percent", bonus)
        set_stats(g, 0, [5, 5, 5, 5])          # a climb it will fail
        p, xp = expected_attempt_xp(g.state, g.tables, 0, g.rules.route_id(route), False,
                                    np.zeros(WORK_SIZE, np.int64))
        assert p < 1
        values.append(xp)
    assert values[1] > values[0]


def test_no_policy_names_a_character_in_its_decisions():
    """Source check, so that a new special case does not creep back: the decision code of the
    rule-reading bots refers to no character constant. (`designers-heuristic` reproduces the
    designers' own bot, special cases included; `tuned` and `lookahead` pick per-character
    knob vectors, which are parameters, not rules.)"""
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parents[2] / "policies" / "all_in_ascent"
    names = ("TECHNICIAN", "SPRINTER", "IRON_LUNG", "ROUTE_READER", "FREE_SOLO")
    for module in ("helpers.py", "planner.py", "greedy.py", "lookahead.py"):
        text = (root / module).read_text()
        found = [n for n in names if re.search(rf"\b{n}\b", text)]
        assert not found, f"{module} names {found}"
