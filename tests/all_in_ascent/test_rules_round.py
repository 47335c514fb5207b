"""Turn order, round end and game end: R18-R20, R31, R33, R37, R60, R65-R73 (and R75-R77)."""
import random

import numpy as np
import pytest

from helpers import (AREAS, DATA, INC, MASK, TIERS, Buy, EndTurn, Game, Milestone,
                     PyRng, Rest, S, Train, attempt_milestone, climb, force_dice, give, pget,
                     pset, set_milestone, set_training)


def end_round(g):
    """Every player ends the turn; return the event that ended the round."""
    r = g.round
    while True:
        ev = g.step(EndTurn())
        if g.is_over or g.round != r:
            return ev


# --- R19, R20 ------------------------------------------------------------------------------------

def test_round_starts_with_seat_zero_regardless_of_time():
    g = Game(1, ["technician", "sprinter"])
    give(g, 1, "Approach Shoes")
    end_round(g)
    # R19: the new round starts with seat 0 even though seat 1 has 11 time (R68 Approach Shoes)
    assert g.round == 2
    assert pget(g, 0, "time") == 10 and pget(g, 1, "time") == 11
    assert g.current_seat == 0
    ev = g.step(Rest())
    assert ev["seat"] == 0
    assert g.current_seat == 1  # R20: then the player with the most time


def test_current_player_keeps_priority_on_ties():
    g = Game(1, ["ironLung", "freeSolo"])
    g.step(Rest())                                       # 9 vs 10
    # R20: the lowest seat whose time equals the maximum acts
    assert g.current_seat == 1
    g.step(Rest())                                       # 9 vs 9
    # R20: the current player keeps priority on ties
    assert g.current_seat == 1
    g.step(Train("Grip Board"))                          # 9 vs 7
    assert g.current_seat == 0


@pytest.mark.parametrize("times,expected", [((7, 7), 1), ((5, 7), 2), ((7, 5), 1), ((3, 3), 1)])
def test_next_player_is_lowest_seat_with_most_time(times, expected):
    g = Game(1, ["technician", "sprinter", "ironLung"])
    pset(g, 1, time=times[0])
    pset(g, 2, time=times[1])
    g.step(EndTurn())                                    # seat 0 -> 0
    # R20: lowest seat index whose time equals the maximum
    assert g.current_seat == expected
    assert g.round == 1


def test_round_ends_only_when_everyone_is_out_of_time():
    g = Game(1, ["technician", "sprinter"])
    ev = g.step(EndTurn())
    # R67: not yet: seat 1 still has time
    assert "round_end" not in ev and g.round == 1 and g.current_seat == 1
    pset(g, 1, time=1)
    ev = g.step(Rest())                                  # seat 1 spends its last unit
    # R20 (1) / R67: max time <= 0 -> the round ends
    assert ev["round_end"]["round"] == 1 and g.round == 2


# --- R31, R37 ------------------------------------------------------------------------------------

def test_locations_set_by_actions():
    g = Game(1, ["ironLung"])
    pset(g, 0, xp=90, endurance=500)
    loc = lambda: g.player_dict(0)["location"]           # noqa: E731
    # R31: rest -> rest; buy -> gearShop; train -> station; climb -> area; endTurn unchanged
    g.step(Rest())
    assert loc() == "rest"
    g.step(Buy("Harness"))
    assert loc() == "gearShop"
    g.step(Train("Balance and Core"))
    assert loc() == "Balance and Core"
    climb(g, "Open Door", [1, 1])
    assert loc() == "bouldering"
    g2 = Game(1, ["ironLung", "sprinter"])
    g2.step(Train("Grip Board"))
    g2.state[S.G_CURRENT] = 0
    g2.step(EndTurn())
    assert g2.player_dict(0)["location"] == "Grip Board"
    end_round(g2)
    # R31/R68: every location resets to lobby at round end
    assert [p["location"] for p in g2.as_dict()["players"]] == ["lobby", "lobby"]


def test_end_turn_only_zeroes_time():
    g = Game(1, ["routeReader", "sprinter"])
    pset(g, 0, endurance=77, xp=33, beta=1, location=S.AREA_LOC)
    before = g.state.copy()
    g.step(EndTurn())
    # R37: timeRemaining <- 0, nothing else (location unchanged)
    assert pget(g, 0, "time") == 0
    diff = np.nonzero(g.state[:S.SCRATCH] != before[:S.SCRATCH])[0]
    allowed = {S.player_offset(0) + S.P_TIME, S.player_offset(0) + S.P_EARLY_ENDS,
               S.G_CURRENT, S.G_N_ACTIONS}
    assert set(int(i) for i in diff) <= allowed


# --- R60, R65, R66 -------------------------------------------------------------------------------

def test_winning_action_levels_up_then_ends_the_game_without_round_end():
    g = Game(1, ["technician", "sprinter"])
    pset(g, 0, done=0b011, xp=95, time=3, endurance=200)
    set_training(g, 0, [100] * 4)
    pset(g, 1, time=0)
    set_milestone(g, "expert", "Open Door")             # technician: 2 + 1 = 3 time
    force_dice(g, [1, 1])
    rng_before = int(g.state[S.G_RNG])
    token, rnd = int(g.state[S.G_TOKEN]), g.round
    ev = g.step(Milestone("expert"))
    # R58 + R65: third tier completed -> immediate win for the acting player
    assert ev["attempt"]["success"]
    assert g.is_over and g.winner == 0 and g.end_reason == "winner"
    assert ev["game_over"]["winner_seat"] == 0
    # R60 (1): level-up applied before the victory check
    assert ev["level_up"]["to"] == 2 and g.player_dict(0)["level"] == 2
    # R65: no turn advance and no round end, although every player is out of time
    assert "round_end" not in ev
    assert g.round == rnd and int(g.state[S.G_TOKEN]) == token
    assert int(g.state[S.G_RNG]) == (rng_before + 2 * INC) & MASK  # no clearing draws (R8)
    # R73: the game has ended; no actions remain (R22)
    assert g.legal_actions() == []


def test_only_the_acting_player_levels_up_or_wins():
    g = Game(1, ["technician", "sprinter"])
    pset(g, 1, xp=300, done=0b111)                      # set directly, not by play
    g.step(Rest())                                      # seat 0 acts
    # R66 / R60: only the acting player's level-up and victory are checked
    assert g.player_dict(1)["level"] == 1
    assert not g.is_over
    assert g.current_seat == 1
    g.step(Rest())                                      # now seat 1 acts
    assert g.player_dict(1)["level"] == 3  # R61 (several levels at once)
    assert g.is_over and g.winner == 1  # R65


def test_milestones_need_all_three_tiers_to_win():
    g = Game(1, ["technician"])
    pset(g, 0, endurance=500)
    set_training(g, 0, [100] * 4)
    for tier in ("beginner", "intermediate"):
        pset(g, 0, time=10)
        attempt_milestone(g, tier, "Open Door", [1, 1])
        # R65: two tiers do not end the game
        assert not g.is_over
    assert g.player_dict(0)["milestones"] == ["beginner", "intermediate"]


# --- R68-R72 round end ---------------------------------------------------------------------------

def test_round_end_resets_and_keeps():
    g = Game(1, ["routeReader", "sprinter"])
    pset(g, 0, endurance=37, xp=55)
    set_training(g, 0, [5, 0, 6, 0])
    give(g, 0, "Harness", "Pre-Climb Stretching")
    g.step(Rest())                                      # Beta Boost on; 37 + 110 -> 122 (R38)
    assert pget(g, 0, "endurance") == 122
    g.state[S.G_CURRENT] = 1
    climb(g, "Open Door", [1, 1])                       # seat 1 marks a route
    assert pget(g, 1, "marks") != 0
    ev = end_round(g)
    rend = ev["round_end"]
    p0 = g.player_dict(0)
    # R68 (2): time 10, location lobby; endurance, XP, training, Beta Boost, gear untouched
    assert [p["time"] for p in g.as_dict()["players"]] == [10, 10]
    assert p0["location"] == "lobby"
    assert p0["endurance"] == 122 and p0["xp"] == 55  # (R75: the overflow persists)
    assert p0["training"] == {"strength": 5, "technique": 0, "focus": 6, "flexibility": 0}
    assert p0["beta_boost"] is True
    assert p0["gear"] == ["Harness", "Pre-Climb Stretching"]
    # R68 (3): all attempted-route marks cleared (R46)
    for seat in range(2):
        assert all(int(g.state[S.player_offset(seat) + S.P_MARKS + a]) == 0 for a in range(3))
    # R68 (1), (5): token advanced, next round, seat 0
    assert int(g.state[S.G_TOKEN]) == 1
    assert rend["next_round"] == 2 and g.round == 2 and g.current_seat == 0


def test_route_clearing_sequence_and_draws():
    g = Game(7, ["technician", "sprinter"])
    expected_areas = ["leadClimbing", "topRope", "bouldering"] * 3
    repeats_seen = milestone_seen = False
    for k, want in enumerate(expected_areas):
        s_before = int(g.state[S.G_RNG])
        rows_before = {a: g.visible_names(a) for a in AREAS}
        ev = end_round(g)
        rend = ev["round_end"]
        # R69: token 0 clears lead, 1 topRope, 2 bouldering: Lead, Top Rope, Bouldering, ...
        assert rend["cleared"] == want
        assert int(g.state[S.G_TOKEN]) == (k + 1) % 3  # R68 (1)
        # R69: pickN(full area deck, 5), from the continuing stream: 22 or 25 draws (R8)
        ref = PyRng(s_before)
        deck = [r["name"] for r in DATA["ROUTES"][want]]
        assert g.visible_names(want) == ref.pick_n(deck, 5)
        assert ref.draws == len(deck) - 1
        assert int(g.state[S.G_RNG]) == ref.s
        for other in AREAS:
            if other != want:
                assert g.visible_names(other) == rows_before[other]
        if set(g.visible_names(want)) & set(rows_before[want]):
            repeats_seen = True
        if set(g.visible_names(want)) & set(g.milestone_names()):
            milestone_seen = True
    # R69: the new five may repeat cards just visible, and may include milestone routes
    assert repeats_seen
    more = 0
    while not milestone_seen and more < 60:
        ev = end_round(g)
        area = ev["round_end"]["cleared"]
        milestone_seen = bool(set(g.visible_names(area)) & set(g.milestone_names()))
        more += 1
    assert milestone_seen


def test_belayer_unlocks():
    g = Game(3, ["technician", "sprinter"])
    for r in range(1, 15):
        assert g.round == r
        # R33: 1 in rounds 1-4, 2 in rounds 5-11, 3 from round 12 on (R70)
        assert int(g.state[S.G_BELAYERS]) == (1 if r < 5 else 2 if r < 12 else 3)
        end_round(g)


def test_belayer_unlock_from_a_set_round():
    g = Game(3, ["technician"])
    g.state[S.G_ROUND] = 4
    ev = end_round(g)
    # R70: if r+1 >= 5 and belayers < 2 -> 2
    assert ev["round_end"]["belayers"] == 2 and g.round == 5
    g.state[S.G_ROUND] = 11
    end_round(g)
    # R70: if r+1 >= 12 and belayers < 3 -> 3
    assert int(g.state[S.G_BELAYERS]) == 3
    g2 = Game(3, ["technician"])
    g2.state[S.G_ROUND] = 20
    end_round(g2)
    assert int(g2.state[S.G_BELAYERS]) == 3       # R70: both steps apply at once


def test_approach_shoes_take_effect_next_round():
    g = Game(1, ["technician", "sprinter"])
    pset(g, 0, xp=55)
    assert "Approach Shoes" not in g.rotation_names()
    g.state[S.G_ROTATION] = g.rules.card_id("Approach Shoes")   # show it in slot 0
    g.step(Buy("Approach Shoes"))
    # R71: no effect in the round of purchase (10 - 1 for the purchase)
    assert pget(g, 0, "time") == 9
    end_round(g)
    # R68 / R71: 11 time from the next round start
    assert pget(g, 0, "time") == 11 and pget(g, 1, "time") == 10
    end_round(g)
    assert pget(g, 0, "time") == 11


def test_round_cap_45():
    g = Game(11, ["technician", "sprinter"])
    for _ in range(44):
        end_round(g)
    assert g.round == 45 and not g.is_over
    s_before = int(g.state[S.G_RNG])
    ev = end_round(g)
    # R72: after the end of round 45 the game ends with no winner (reason max_rounds)
    assert g.is_over and g.winner is None and g.end_reason == "max_rounds"
    assert ev["game_over"]["reason"] == "max_rounds"
    assert g.round == 46
    # R72: the route clearing at the end of round 45 still consumes its draws
    cleared = ev["round_end"]["cleared"]
    assert int(g.state[S.G_RNG]) == (s_before + (len(DATA["ROUTES"][cleared]) - 1) * INC) & MASK
    assert g.legal_actions() == []  # R73


# --- R73, R75, R76, R66, R33 by random play ------------------------------------------------------

@pytest.mark.parametrize("seed,chars", [
    (1, ["technician", "sprinter"]),
    (2, ["ironLung", "freeSolo", "routeReader"]),
    (3, ["routeReader", "technician", "sprinter", "ironLung"]),
    (4, ["freeSolo", "sprinter"]),
])
def test_random_games_end_properly_and_keep_invariants(seed, chars):
    rnd = random.Random(seed)
    g = Game(seed, chars)
    n = len(chars)
    steps = 0
    while not g.is_over:
        acts = g.legal_actions()
        # R77: there is always a legal action (endTurn, R23)
        assert acts and acts[0] == EndTurn()
        # prefer doing something: end the turn only 1 time in 8
        pool = acts[1:] if len(acts) > 1 and rnd.random() > 0.125 else acts
        a = rnd.choice(pool)
        seat = g.current_seat
        before = g.as_dict()
        ev = g.step(a)
        steps += 1
        after = g.as_dict()
        times_after_action = [before["players"][s]["time"] for s in range(n)]
        times_after_action[seat] = ev["time"][1]
        if g.is_over and g.end_reason == "winner":
            assert "round_end" not in ev  # R65
        else:
            # R67: the round ends exactly when every player is out of time
            assert ("round_end" in ev) == (max(times_after_action) <= 0)
        if "round_end" in ev:
            # R69: Lead, Top Rope, Bouldering, Lead, ... ; R19: seat 0 starts the new round
            assert ev["round_end"]["cleared"] == \
                ("leadClimbing", "topRope", "bouldering")[(before["round"] - 1) % 3]
            if not g.is_over:
                assert g.current_seat == 0
        elif not g.is_over:
            # R20: the current player keeps ties, else the lowest seat with the most time
            most = max(times_after_action)
            want = seat if times_after_action[seat] >= most else times_after_action.index(most)
            assert g.current_seat == want
        for s in range(n):
            p = after["players"][s]
            # R76: endurance and time never negative in legal play
            assert p["endurance"] >= 0 and p["time"] >= 0
            if s != seat:
                q = before["players"][s]
                # R66: nothing changes other players' XP, level or milestones
                assert (p["xp"], p["level"], p["milestones"]) == \
                    (q["xp"], q["level"], q["milestones"])
            # R75: endurance above max only via rest bonus or level-up; here: no rest bonus
            # cards unless owned, so any overflow must come from owned rest cards or Carabiner
            rb = sum(c["restBonus"] for c in DATA["GEAR_SHOP"] if c["name"] in p["gear"])
            if p["endurance"] > p["max_endurance"]:
                assert rb > 0 or "Locking Carabiner" in p["gear"]
        # R33: belayers by round
        r = g.round
        assert after["belayers"] == (1 if r < 5 else 2 if r < 12 else 3)
        assert steps < 20_000
    # R73: the only ends are a winner or the round cap
    assert g.end_reason in ("winner", "max_rounds")
    if g.end_reason == "max_rounds":
        assert g.round == 46 and g.winner is None
    else:
        assert set(g.player_dict(g.winner)["milestones"]) == set(TIERS)


# --- R17 / R72 configuration of the round cap ----------------------------------------------------

def _rules_with_max_rounds(max_rounds):
    from sim.games.all_in_ascent.data import load_data
    from sim.games.all_in_ascent.rules import RulesConfig, pack
    return pack(load_data(), RulesConfig(max_rounds=max_rounds))


def test_round_cap_is_configurable():
    # R72: "45 by default; harness-configurable maxRounds"
    g = Game(3, ["technician", "sprinter"], rules=_rules_with_max_rounds(10))
    for _ in range(9):
        end_round(g)
    assert not g.is_over and g.round == 10
    end_round(g)
    assert g.is_over and g.end_reason == "max_rounds" and g.winner is None


def test_zero_max_rounds_means_45():
    # R17: "the engine treats a missing/zero value as 45"; R72: then exactly 45 rounds
    g = Game(3, ["technician", "sprinter"], rules=_rules_with_max_rounds(0))
    for _ in range(45):
        end_round(g)
    assert g.is_over and g.end_reason == "max_rounds" and g.round == 46
