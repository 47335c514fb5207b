"""The v0.6.0 preset's rules (L4, L8-L12) and three switches at edges test_variants.py left
open: each test here fails on a wrong engine that the rest of the suite let through, or that
only the recorded-outcome digest caught (which says a game changed, not which rule is right).
Written from a read-only review's planted mutations (2026-12-07)."""
import functools

from sim.games.all_in_ascent.rules import build_rules
from tests.all_in_ascent.helpers import (Buy, Climb, Game, Milestone, Rest, S, Train, climb,
                                         end_round_now, force_dice, give, pget, pset,
                                         set_milestone, set_stats)

THREE = ["technician", "sprinter", "ironLung"]


@functools.lru_cache(maxsize=None)
def v060():
    """v0.6.0's packed rules, built on first use: packing works out tables with compiled code,
    and the suite compiles nothing while it collects (tests/test_suite_sharing.py)."""
    return build_rules("v0.6.0")


def back_after_a_top_rope_climb(slot):
    """A 4-player v0.6.0 game: seat 0 climbs Top Rope slot `slot` (station slot // 2, L7),
    the others pass, and it is seat 0's turn again with time to spare."""
    g = Game(4, THREE, rules=v060())
    pset(g, 0, endurance=500, time=10)
    climb(g, g.visible_names("topRope")[slot], [1, 1, 1], slot=slot)
    assert pget(g, 0, "belay_station") == slot // 2
    while g.current_seat != 0:
        g.step(S.END_TURN)
    pset(g, 0, time=10)
    return g


def tr_milestone(g):
    return [n for n in g.rules.route_names
            if g.rules.route_areas[g.rules.route_id(n)] == "topRope"][0]


def test_l8_a_stale_station_off_top_rope_does_not_occupy():  # L8
    g = Game(4, THREE, rules=v060())
    pset(g, 0, endurance=500)
    pset(g, 1, location=S.REST_LOC, belay_station=0)     # climbed station 0, then rested
    legal = g.legal_actions()
    assert Climb("topRope", 0) in legal and Climb("topRope", 1) in legal
    set_milestone(g, "intermediate", tr_milestone(g))
    force_dice(g, [1, 1, 1])
    g.step(Milestone("intermediate"))                    # L10: lowest free station = 0
    assert pget(g, 0, "belay_station") == 0


def test_l12_train_and_buy_keep_the_station():  # L12
    g = back_after_a_top_rope_climb(2)                     # station 1
    pset(g, 0, xp=99)
    g.step(Train("Grip Board"))
    assert pget(g, 0, "location") == S.STATION_LOC + 0 and pget(g, 0, "belay_station") == 1
    g.step(Buy("Belay Device"))
    assert pget(g, 0, "location") == S.GEAR_SHOP_LOC and pget(g, 0, "belay_station") == 1


def test_l12_a_milestone_in_another_area_clears_the_station():  # L12
    # L12 says "a climb"; a milestone attempt is one (§7.3: both use the same procedure)
    g = back_after_a_top_rope_climb(2)                     # station 1
    bould = [n for n in g.rules.route_names
             if g.rules.route_areas[g.rules.route_id(n)] == "bouldering"][0]
    set_milestone(g, "beginner", bould)
    force_dice(g, [1, 1, 1])
    g.step(Milestone("beginner"))
    assert pget(g, 0, "belay_station") == -1


def test_l9_a_climber_may_move_to_another_free_station():  # L9, L8
    g = back_after_a_top_rope_climb(1)                     # station 0
    legal = g.legal_actions()
    assert Climb("topRope", 0) in legal                  # own station: not occupied (L8)
    assert Climb("topRope", 2) in legal and Climb("topRope", 3) in legal   # L9


def test_l10_lowest_free_station():  # L10
    g = Game(4, ["technician", "sprinter", "ironLung", "routeReader"], rules=v060())
    set_milestone(g, "intermediate", tr_milestone(g))
    pset(g, 0, endurance=500)
    pset(g, 1, location=S.AREA_LOC + S.TOP_ROPE, belay_station=1)  # stations 0, 2 free
    force_dice(g, [1, 1, 1])
    g.step(Milestone("intermediate"))
    assert pget(g, 0, "belay_station") == 0


def test_l4_free_solo_climbs_lead_without_gear():  # L4
    g = Game(4, ["freeSolo", "sprinter"], rules=v060())
    pset(g, 0, endurance=500)
    set_stats(g, 0, [99, 99, 99, 99])
    assert any(isinstance(a, Climb) and a.area == "leadClimbing" for a in g.legal_actions())


def test_training_claims_end_with_the_round():  # training_station_per_round (R34, R82)
    g = Game(1, ["technician", "sprinter"],
             rules=build_rules(switches={"training_station_per_round": "on"}))
    g.step(Train("Grip Board"))                          # seat 0 claims Grip Board
    end_round_now(g)
    assert g.current_seat == 0
    g.step(S.END_TURN)                                   # seat 1's turn in round 2
    assert g.current_seat == 1 and Train("Grip Board") in g.legal_actions()


def test_training_claimant_trains_again():  # training_station_per_round (R34, R82)
    g = Game(1, ["technician", "sprinter"],
             rules=build_rules(switches={"training_station_per_round": "on"}))
    pset(g, 0, endurance=500)
    pset(g, 1, time=1)                                   # seat 0 keeps the turn (R20)
    g.step(Train("Grip Board"))
    assert g.current_seat == 0 and Train("Grip Board") in g.legal_actions()
    g.step(Rest())                                       # left and may come back
    assert Train("Grip Board") in g.legal_actions()


def test_shared_pool_moves_its_own_belayer():  # shared_belayer_pool: R32, R34, R36
    g = Game(1, ["technician", "sprinter"],
             rules=build_rules(switches={"shared_belayer_pool": "on"}))
    give(g, 0, "Harness", "Belay Device", "Locking Carabiner", "Lead Rope")
    pset(g, 0, endurance=500, location=S.AREA_LOC + S.TOP_ROPE)   # round 1: 1 belayer, its own
    assert any(isinstance(a, Climb) and a.area == "leadClimbing" for a in g.legal_actions())


def test_clamp_off_keeps_power_spotting():  # success_clamps_endurance: R56
    g = Game(1, ["technician"], rules=build_rules(switches={"success_clamps_endurance": "off"}))
    give(g, 0, "Power Spotting")
    set_stats(g, 0, [99, 99, 99, 99])
    pset(g, 0, endurance=300)
    ev = climb(g, "Beginner's Fortune", [1, 1])
    assert ev["attempt"]["success"] and ev["attempt"]["success_heal"] == 5
