"""Legal actions R18-R30, locations and capacity R31-R36, and the reasons `step` gives."""
import numpy as np
import pytest

from helpers import (AREAS, DATA, TIERS, Buy, Climb, EndTurn, Game, IllegalActionError,
                     Milestone, Rest, S, Train, give, pget, pset, put_route, set_milestone,
                     set_training, climb, force_dice)
from sim.games.all_in_ascent import engine as E

STATIONS = [st["name"] for st in DATA["TRAINING_AREAS"]]
ACCESS = ["Harness", "Belay Device", "Locking Carabiner", "Lead Rope"]
AREA_LOC = {a: S.AREA_LOC + i for i, a in enumerate(AREAS)}


def station_loc(name):
    return S.STATION_LOC + STATIONS.index(name)


def legal_for(game, seat):
    """The legal actions `seat` would have if it were the current player."""
    cur = int(game.state[S.G_CURRENT])
    game.state[S.G_CURRENT] = seat
    try:
        return game.legal_actions()
    finally:
        game.state[S.G_CURRENT] = cur


def climbs(actions):
    return [(a.area, a.slot) for a in actions if isinstance(a, Climb)]


def buys(actions):
    return [a.card for a in actions if isinstance(a, Buy)]


def trains(actions):
    return [a.station for a in actions if isinstance(a, Train)]


def spec_order_key(game, a):
    """R22's enumeration order as a sort key."""
    if isinstance(a, EndTurn):
        return (0,)
    if isinstance(a, Rest):
        return (1,)
    if isinstance(a, Train):
        return (2, STATIONS.index(a.station))
    if isinstance(a, Climb):
        return (3, AREAS.index(a.area), a.slot)
    if isinstance(a, Milestone):
        return (4, TIERS.index(a.tier))
    rot = game.rotation_names()
    return (5, rot.index(a.card) if a.card in rot else 3 + ACCESS.index(a.card))


def strong_free_solo(seed=1, chars=("freeSolo",)):
    g = Game(seed, list(chars))
    set_training(g, 0, [300, 300, 300, 300])
    pset(g, 0, endurance=500, xp=10_000)
    return g


# --- R22 order -----------------------------------------------------------------------------------

def test_enumeration_order_everything_legal():
    g = strong_free_solo()
    acts = g.legal_actions()
    rot = g.rotation_names()
    # R22: endTurn, rest, train per station in data order, climbs by area then visible order,
    # milestones beginner/intermediate/expert, buys: rotation slots then access cards
    expected = ([EndTurn(), Rest()] + [Train(s) for s in STATIONS]
                + [Climb(a, k) for a in AREAS for k in range(5)]
                + [Milestone(t) for t in TIERS] + [Buy(c) for c in rot] + [Buy("Harness")])
    assert acts == expected
    # R26: the Free Solo has every area without gear (here all 15 climbs are legal)
    assert len(climbs(acts)) == 15
    give(g, 0, "Harness", "Belay Device")
    assert buys(g.legal_actions()) == rot + ["Locking Carabiner"]
    give(g, 0, "Locking Carabiner")
    assert buys(g.legal_actions()) == rot + ["Lead Rope"]


@pytest.mark.parametrize("seed", [2, 11, 42])
def test_enumeration_order_is_spec_order(seed):
    # R22: in any state, the legal list is in the spec's order (no duplicates)
    g = Game(seed, ["technician", "routeReader"])
    pset(g, 0, xp=400, endurance=300)
    give(g, 0, "Harness", "Belay Device")
    acts = g.legal_actions()
    keys = [spec_order_key(g, a) for a in acts]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)


def test_no_actions_after_game_end():
    # R22: no actions exist once the game has ended
    g = Game(1, ["technician"])
    g.state[S.G_OVER] = 1
    assert g.legal_actions() == []


# --- R23, R24, R77 -------------------------------------------------------------------------------

def test_end_turn_always_legal_and_rest_needs_time():
    g = Game(1, ["technician", "sprinter"])
    pset(g, 0, time=0)
    # R23: endTurn is always legal; R24: rest needs time >= 1; R77: never deadlocked
    assert g.legal_actions() == [EndTurn()]
    pset(g, 0, time=1)
    assert g.legal_actions()[:2] == [EndTurn(), Rest()]  # R24
    assert trains(g.legal_actions()) == []  # R25: training costs 2 time


def test_exhausted_player_still_has_end_turn_and_rest():
    # R77: a player who can afford nothing else still has endTurn and rest
    g = Game(1, ["ironLung"])
    pset(g, 0, endurance=0)
    assert g.legal_actions() == [EndTurn(), Rest()]


# --- R25 train -----------------------------------------------------------------------------------

def test_train_time_and_endurance_boundaries():
    g = Game(1, ["routeReader"])
    pset(g, 0, time=2, endurance=10)
    # R25: time >= 2 and endurance >= station endurance (Grip 10, Campus 15, Moon 12, Balance 8)
    assert trains(g.legal_actions()) == ["Grip Board", "Balance and Core"]
    pset(g, 0, endurance=9)
    assert trains(g.legal_actions()) == ["Balance and Core"]
    pset(g, 0, endurance=15)
    assert trains(g.legal_actions()) == STATIONS
    pset(g, 0, time=1)
    assert trains(g.legal_actions()) == []
    with pytest.raises(IllegalActionError, match="not enough time"):
        g.step(Train("Grip Board"))
    pset(g, 0, time=5, endurance=14)
    with pytest.raises(IllegalActionError, match="not enough endurance"):
        g.step(Train("Campus Board"))


# --- R26 access ----------------------------------------------------------------------------------

def test_area_access_by_gear():
    g = Game(4, ["technician"])
    pset(g, 0, endurance=500)

    def areas_open():
        return sorted({a for a, _ in climbs(g.legal_actions())}, key=AREAS.index)

    # R26: bouldering always; topRope needs Harness + Belay Device; lead needs all four
    assert areas_open() == ["bouldering"]
    give(g, 0, "Harness")
    assert areas_open() == ["bouldering"]
    give(g, 0, "Belay Device")
    assert areas_open() == ["bouldering", "topRope"]
    give(g, 0, "Locking Carabiner")
    assert areas_open() == ["bouldering", "topRope"]
    give(g, 0, "Lead Rope")
    assert areas_open() == ["bouldering", "topRope", "leadClimbing"]


def test_lead_access_without_harness_is_refused():
    # R26: the four cards are all needed (set directly: a Lead Rope without a Harness)
    g = Game(4, ["sprinter"])
    pset(g, 0, endurance=500)
    give(g, 0, "Belay Device", "Locking Carabiner", "Lead Rope")
    assert {a for a, _ in climbs(g.legal_actions())} == {"bouldering"}
    with pytest.raises(IllegalActionError, match="access gear"):
        g.step(Climb("leadClimbing", 0))
    with pytest.raises(IllegalActionError, match="access gear"):
        g.step(Climb("topRope", 0))


def test_free_solo_has_all_areas_without_gear():
    # R26: Free Solo has access to every area without gear
    g = strong_free_solo(seed=8)
    assert {a for a, _ in climbs(g.legal_actions())} == set(AREAS)
    assert pget(g, 0, "gear") == 0


# --- R27 climb -----------------------------------------------------------------------------------

def test_climb_time_and_endurance_boundaries():
    g = Game(1, ["technician"])
    area, slot = put_route(g, "Crimper's Delight")       # time 4, endurance 36
    # R47 in R27: technician effTime = 4 + 1 = 5
    pset(g, 0, time=5, endurance=36)
    assert Climb(area, slot) in g.legal_actions()  # R27, R48 equality is enough
    pset(g, 0, time=4)
    assert Climb(area, slot) not in g.legal_actions()  # R27/R47
    with pytest.raises(IllegalActionError, match="not enough time"):
        g.step(Climb(area, slot))
    pset(g, 0, time=5, endurance=35)
    assert Climb(area, slot) not in g.legal_actions()  # R27/R48
    with pytest.raises(IllegalActionError, match="not enough endurance"):
        g.step(Climb(area, slot))


def test_climb_needs_a_visible_route():
    # R27: the route must be visible in that area (5 routes per area: slot 5 is empty)
    g = Game(1, ["technician"])
    assert Climb("bouldering", 5) not in g.legal_actions()
    with pytest.raises(IllegalActionError, match="no route is shown"):
        g.step(Climb("bouldering", 5))


def test_second_attempt_same_route_same_round_is_refused():
    g = Game(1, ["ironLung", "technician"])
    pset(g, 0, endurance=500)
    ev = climb(g, "Open Door", [1, 1])
    assert ev["seat"] == 0 and g.current_seat == 1   # seat 1 has 10 > 8 time left
    assert Climb("bouldering", 0) not in legal_for(g, 0)  # R27/R46
    g.state[S.G_CURRENT] = 0
    with pytest.raises(IllegalActionError, match="already attempted that route this round"):
        g.step(Climb("bouldering", 0))
    # R46: other routes stay legal
    assert Climb("bouldering", 1) in g.legal_actions()


# --- R28 Free Solo guarantee ---------------------------------------------------------------------

def test_free_solo_guarantee_uses_base_plus_training_only():
    g = Game(1, ["freeSolo"])
    pset(g, 0, endurance=500)
    area, slot = put_route(g, "Open Door")                  # 18/14/12/14; Free Solo 11/23/20/16
    # R28: stats + training must reach every base requirement
    assert Climb(area, slot) not in g.legal_actions()
    with pytest.raises(IllegalActionError, match="Free Solo"):
        g.step(Climb(area, slot))
    set_training(g, 0, [7, 0, 0, 0])                        # 11 + 7 = 18: exactly enough
    assert Climb(area, slot) in g.legal_actions()
    set_training(g, 0, [6, 0, 0, 0])
    assert Climb(area, slot) not in g.legal_actions()


def test_free_solo_guarantee_ignores_route_gear_and_beta():
    g = Game(1, ["freeSolo"])
    pset(g, 0, endurance=500)
    area, slot = put_route(g, "First Timer's Friend")       # 20/18/15/12, topRope
    set_training(g, 0, [8, 0, 0, 0])                        # strength 19 < 20
    give(g, 0, "Harness", "Belay Device")                   # +2 all on topRope: does not count
    pset(g, 0, beta=1)                                      # nor a Beta Boost flag
    # R28: per-route gear bonuses and Beta Boost do not count for the guarantee
    assert Climb(area, slot) not in g.legal_actions()
    set_training(g, 0, [9, 0, 0, 0])
    assert Climb(area, slot) in g.legal_actions()


def test_other_characters_have_no_guarantee():
    # R28: other characters may attempt routes far above their stats
    g = Game(1, ["technician"])
    pset(g, 0, endurance=500)
    area, slot = put_route(g, "Project Zero")               # 82/72/70/58
    assert Climb(area, slot) in g.legal_actions()


# --- R29 milestone -------------------------------------------------------------------------------

def test_milestone_legality():
    g = Game(1, ["technician", "sprinter"])                 # milestones: Gauntlet Opener (B),
    pset(g, 0, endurance=500)                               # The Standard (TR), Elite Lead (L)
    acts = g.legal_actions()
    # R29: access for the milestone's area is needed
    assert [a for a in acts if isinstance(a, Milestone)] == [Milestone("beginner")]
    with pytest.raises(IllegalActionError, match="access gear"):
        g.step(Milestone("intermediate"))
    give(g, 0, "Harness", "Belay Device", "Locking Carabiner", "Lead Rope")
    assert [a for a in g.legal_actions() if isinstance(a, Milestone)] == \
        [Milestone(t) for t in TIERS]
    # R29: a completed tier is not legal any more
    pset(g, 0, done=0b010)
    assert Milestone("intermediate") not in g.legal_actions()
    with pytest.raises(IllegalActionError, match="already completed that milestone"):
        g.step(Milestone("intermediate"))
    # R29: time >= effTime (The Elite Lead 8 + 1 for the Technician = 9)
    pset(g, 0, time=8)
    assert Milestone("expert") not in g.legal_actions()
    pset(g, 0, time=9)
    assert Milestone("expert") in g.legal_actions()
    # R29: endurance >= effEndurance (92)
    pset(g, 0, endurance=91)
    assert Milestone("expert") not in g.legal_actions()


def test_milestone_free_solo_guarantee_and_capacity():
    g = Game(1, ["freeSolo", "technician"])
    pset(g, 0, endurance=500)
    # R29: the Free Solo guarantee applies to milestones (Gauntlet Opener 28/30/25/22)
    assert Milestone("beginner") not in g.legal_actions()
    set_training(g, 0, [17, 7, 5, 6])
    assert Milestone("beginner") in g.legal_actions()
    # R29 + R36: the milestone area's section must have room (The Standard, topRope)
    set_training(g, 0, [300] * 4)
    assert Milestone("intermediate") in g.legal_actions()
    pset(g, 1, location=AREA_LOC["topRope"])
    assert Milestone("intermediate") not in g.legal_actions()
    with pytest.raises(IllegalActionError, match="section is full"):
        g.step(Milestone("intermediate"))


def test_milestone_has_no_once_per_round_limit():
    g = Game(1, ["technician"])
    pset(g, 0, endurance=500)
    set_milestone(g, "beginner", "Open Door")
    force_dice(g, [6, 6])
    ev = g.step(Milestone("beginner"))
    assert not ev["attempt"]["success"]                    # 12/26/18/14 vs 18/14/12/14
    # R29: attempting again in the same round is legal
    assert Milestone("beginner") in g.legal_actions()
    ev = g.step(Milestone("beginner"))
    assert ev["action"]["kind"] == "milestone"


# --- R30 buy -------------------------------------------------------------------------------------

def test_buy_needs_spendable_xp():
    g = Game(1, ["technician"])
    pset(g, 0, xp=79)
    # R30: spendable >= cost (Harness 80)
    assert "Harness" not in buys(g.legal_actions())
    with pytest.raises(IllegalActionError, match="not enough spendable XP"):
        g.step(Buy("Harness"))
    pset(g, 0, xp=80)
    assert "Harness" in buys(g.legal_actions())
    # R30 with R64: at level 2, 179 xp is only 79 spendable
    pset(g, 0, level=2, xp=179)
    assert "Harness" not in buys(g.legal_actions())
    pset(g, 0, xp=180)
    assert "Harness" in buys(g.legal_actions())


def test_buy_rotation_card_affordability_is_per_card():
    g = Game(1, ["technician"])   # shop: Mental Anchor 130, Confidence Building 110, Decoder 130
    pset(g, 0, xp=110)
    # R30: only the cards whose cost is covered
    assert buys(g.legal_actions()) == ["Confidence Building", "Harness"]
    with pytest.raises(IllegalActionError, match="not enough spendable XP"):
        g.step(Buy("Mental Anchor"))


def test_buy_needs_time_not_owned_and_prerequisites():
    g = Game(1, ["technician"])
    pset(g, 0, xp=1000)
    # R30: Belay Device <- Harness
    assert "Belay Device" not in buys(g.legal_actions())
    with pytest.raises(IllegalActionError, match="prerequisite"):
        g.step(Buy("Belay Device"))
    give(g, 0, "Harness")
    # R30: not already owned
    assert buys(g.legal_actions())[-1] == "Belay Device"
    with pytest.raises(IllegalActionError, match="already owns"):
        g.step(Buy("Harness"))
    # R30: Locking Carabiner <- Harness + Belay Device
    with pytest.raises(IllegalActionError, match="prerequisite"):
        g.step(Buy("Locking Carabiner"))
    give(g, 0, "Belay Device")
    assert "Locking Carabiner" in buys(g.legal_actions())
    # R30: Lead Rope <- Harness + Belay Device + Locking Carabiner
    with pytest.raises(IllegalActionError, match="prerequisite"):
        g.step(Buy("Lead Rope"))
    give(g, 0, "Locking Carabiner")
    assert "Lead Rope" in buys(g.legal_actions())
    # R30: purchase time 1
    pset(g, 0, time=0)
    with pytest.raises(IllegalActionError, match="not enough time"):
        g.step(Buy("Lead Rope"))
    pset(g, 0, time=1)
    g.step(Buy("Lead Rope"))


def test_free_solo_may_buy_access_cards():
    g = Game(1, ["freeSolo"])
    pset(g, 0, xp=80)
    # R30: Free Solo may buy access cards too
    g.step(Buy("Harness"))
    assert g.player_dict(0)["gear"] == ["Harness"]


def test_buy_card_not_in_rotation_is_refused():
    g = Game(1, ["technician"])
    pset(g, 0, xp=1000)
    # R30: candidates are the rotation plus the access cards
    assert "Power Spotting" not in g.rotation_names()
    with pytest.raises(IllegalActionError, match="not in the shop rotation"):
        g.step(Buy("Power Spotting"))


# --- R31-R36 locations and capacity --------------------------------------------------------------

def full_access(g, seat):
    give(g, seat, *ACCESS)


def test_rope_sections_capacity_counted_separately():
    g = Game(1, ["technician", "sprinter", "ironLung"])
    for seat in range(3):
        full_access(g, seat)
        pset(g, seat, endurance=500)
    # R32: with 1 belayer, one player in topRope blocks topRope but not leadClimbing
    pset(g, 1, location=AREA_LOC["topRope"])
    open_areas = {a for a, _ in climbs(g.legal_actions())}
    assert open_areas == {"bouldering", "leadClimbing"}
    with pytest.raises(IllegalActionError, match="section is full"):
        g.step(Climb("topRope", 0))
    pset(g, 2, location=AREA_LOC["leadClimbing"])
    assert {a for a, _ in climbs(g.legal_actions())} == {"bouldering"}
    # R32/R33: capacity is belayersUnlocked; with 2 belayers both sections have room
    g.state[S.G_BELAYERS] = 2
    assert {a for a, _ in climbs(g.legal_actions())} == set(AREAS)


def test_can_enter_own_location_even_when_full():
    g = Game(1, ["technician", "sprinter"])
    for seat in range(2):
        full_access(g, seat)
        pset(g, seat, endurance=500, location=AREA_LOC["topRope"])
    # R36: true if the player's own location already equals the section
    assert "topRope" in {a for a, _ in climbs(g.legal_actions())}


def test_bouldering_is_unlimited():
    g = Game(1, ["technician", "sprinter", "ironLung", "freeSolo"])
    for seat in (1, 2, 3):
        pset(g, seat, location=AREA_LOC["bouldering"])
    pset(g, 0, endurance=500)
    # R32: bouldering capacity 10, i.e. unlimited for <= 4 players
    assert len(climbs(g.legal_actions())) == 5


def test_station_capacity_and_freeing():
    g = Game(1, ["technician", "sprinter"])
    g.step(Train("Campus Board"))                # seat 0 -> Campus Board, time 8
    assert g.current_seat == 1
    # R31: train sets location to the station name
    assert g.player_dict(0)["location"] == "Campus Board"
    # R32/R34: a station holds 1; the other player may not train there meanwhile
    assert "Campus Board" not in trains(g.legal_actions())
    assert trains(g.legal_actions()) == ["Grip Board", "Continuous MoonBoard", "Balance and Core"]
    with pytest.raises(IllegalActionError, match="section is full"):
        g.step(Train("Campus Board"))
    # R34: the occupant frees it by moving (here: resting)
    g.state[S.G_CURRENT] = 0
    g.step(Rest())
    assert g.player_dict(0)["location"] == "rest"
    assert "Campus Board" in trains(legal_for(g, 1))


def test_end_turn_does_not_free_a_station():
    g = Game(1, ["technician", "sprinter", "ironLung"])
    pset(g, 0, location=station_loc("Grip Board"))
    g.step(EndTurn())
    # R31/R37: endTurn does not change the location; R34: so the station stays blocked
    assert g.player_dict(0)["location"] == "Grip Board"
    assert g.current_seat == 1
    assert "Grip Board" not in trains(g.legal_actions())


def test_same_player_may_reuse_a_station():
    g = Game(1, ["technician", "sprinter"])
    pset(g, 1, time=0)
    g.step(Train("Campus Board"))
    # R34: the same player may use the same station any number of times (R82: no limit)
    assert g.current_seat == 0
    assert "Campus Board" in trains(g.legal_actions())
    g.step(Train("Campus Board"))
    g.step(Train("Campus Board"))
    assert g.player_dict(0)["training"]["strength"] == 15


def test_occupancy_is_current_location_only():
    # R34: no per-round memory: after the other player climbs elsewhere, topRope is free again
    g = Game(1, ["technician", "sprinter"])
    for seat in range(2):
        full_access(g, seat)
        pset(g, seat, endurance=500)
    pset(g, 0, time=5)                             # seat 1 (10 time) acts next
    g.state[S.G_CURRENT] = 1
    climb(g, "Learning Curve", [1, 1])
    assert g.player_dict(1)["location"] == "topRope"
    assert "topRope" not in {a for a, _ in climbs(legal_for(g, 0))}
    climb(g, "Open Door", [1, 1])
    assert g.player_dict(1)["location"] == "bouldering"
    assert "topRope" in {a for a, _ in climbs(legal_for(g, 0))}


# --- R18, R21 ------------------------------------------------------------------------------------

def test_actions_are_applied_by_the_current_player():
    g = Game(1, ["technician", "sprinter"])
    pset(g, 0, endurance=500)
    ev = climb(g, "Open Door", [3, 3])               # technician: 2 + 1 = 3 time
    # R18: an action is applied by the current player; after every action the engine decides
    assert ev["seat"] == 0 and pget(g, 0, "time") == 7 and pget(g, 1, "time") == 10
    assert g.current_seat == 1
    ev = g.step(Rest())
    assert ev["seat"] == 1 and pget(g, 1, "time") == 9 and pget(g, 0, "time") == 7


def test_step_rejects_illegal_actions_without_changing_state():
    g = Game(1, ["technician", "sprinter"])
    pset(g, 0, xp=50)
    before = g.state.copy()
    # R21: the simulator must only feed legal actions: step refuses, and changes nothing
    with pytest.raises(IllegalActionError, match="not enough spendable XP"):
        g.step(Buy("Harness"))
    with pytest.raises(IllegalActionError, match="access gear"):
        g.step(Climb("topRope", 0))
    assert np.array_equal(before, g.state)


def test_engine_applier_does_not_validate():
    # R21: the action applier itself trusts its input (unchecked arithmetic)
    g = Game(1, ["technician", "sprinter"])
    pset(g, 0, xp=50)
    code = g.action_code(Buy("Harness"))
    assert g.why_illegal(Buy("Harness")) is not None
    E.apply_action(g.state, g.tables, np.int64(code), S.new_trace())
    assert pget(g, 0, "xp") == 50 - 80
    assert "Harness" in g.player_dict(0)["gear"]


def test_step_refuses_everything_after_the_game_ended():
    g = Game(1, ["technician"])
    pset(g, 0, endurance=500, done=0b011)
    set_milestone(g, "expert", "Open Door")
    force_dice(g, [1, 1])
    set_training(g, 0, [100] * 4)
    g.step(Milestone("expert"))
    assert g.is_over and g.winner == 0
    with pytest.raises(IllegalActionError, match="the game is over"):
        g.step(EndTurn())


# --- step() names the reason -----------------------------------------------------------------

def _unaffordable(g):
    pset(g, 0, xp=129)
    return Buy("Mental Anchor")                      # 130, in seed 1's rotation


def _no_access(g):
    return Climb("topRope", 0)


def _second_attempt(g):
    pset(g, 0, endurance=500)
    climb(g, "Open Door", [1, 1])
    g.state[S.G_CURRENT] = 0
    return Climb("bouldering", 0)


def _occupied_station(g):
    pset(g, 1, location=station_loc("Grip Board"))
    return Train("Grip Board")


def _owned(g):
    pset(g, 0, xp=500)
    give(g, 0, "Harness")
    return Buy("Harness")


def _milestone_done(g):
    pset(g, 0, done=0b001)
    return Milestone("beginner")


@pytest.mark.parametrize("make,reason", [
    (_unaffordable, "not enough spendable XP"),             # R30, R64
    (_no_access, "lacks the access gear"),                  # R26, R27
    (_second_attempt, "already attempted that route this round"),  # R46
    (_occupied_station, "section is full"),                 # R25, R34
    (_owned, "already owns that card"),                     # R30
    (_milestone_done, "already completed that milestone"),  # R29
])
def test_illegal_action_error_says_why(make, reason):
    g = Game(1, ["technician", "sprinter"])
    action = make(g)
    before = g.state.copy()
    # R21/R22: step refuses actions the legal-action generator would not offer, and says why
    assert action not in g.legal_actions()
    with pytest.raises(IllegalActionError) as exc:
        g.step(action)
    assert reason in str(exc.value)
    assert g.why_illegal(action) in str(exc.value)
    assert np.array_equal(before, g.state)
