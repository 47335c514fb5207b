"""The two rulebook readings that add player choices (variants.py): the Route Reader's
once-per-round redistribution (switch route_reader_redistribution, rulebook §9) and the "your
choice" gear played to the player's best advantage (switch your_choice_gear=best, R51, R52)."""
import itertools
from fractions import Fraction

import numpy as np
import pytest

from sim.games.all_in_ascent.batch import run_games
from sim.games.all_in_ascent.data import CHARACTER_KEYS, STATS
from sim.games.all_in_ascent.game import Redistribute
from sim.games.all_in_ascent.probability import success_count
from sim.games.all_in_ascent.rules import build_rules
from sim.games.all_in_ascent.variants import VariantError
from tests.all_in_ascent.helpers import (
    Game, S, climb, end_round_now, give, pget, pset, put_route, reference_dice, set_milestone,
    set_stats, set_training, stats_of)

_RULES = {}


def rules_with(**switches):
    key = tuple(sorted(switches.items()))
    if key not in _RULES:
        _RULES[key] = build_rules(switches=switches)
    return _RULES[key]


def redistribution_rules():
    return rules_with(route_reader_redistribution="on")


def moves(game):
    return [c for c in game.legal_codes() if c >= S.REDISTRIBUTE]


# --- route_reader_redistribution ----------------------------------------------------------------

def test_redistribution_is_off_by_default():  # §9 (the v0.4.0 engine has no such action)
    g = Game(1, ["routeReader"])
    assert moves(g) == []
    assert "route_reader_redistribution is off" in g.why_illegal(
        Redistribute("strength", "focus", 5))


def test_redistribution_moves_points_until_the_round_ends():  # §9, R49, R68
    g = Game(1, ["routeReader", "technician"], rules=redistribution_rules())
    assert len(moves(g)) == 4 * 3 * 10                  # every pair, 1..10 points
    set_stats(g, 0, [40, 30, 30, 30])
    set_training(g, 0, [5, 0, 0, 0])
    pset(g, 0, endurance=500)
    time, location = pget(g, 0, "time"), pget(g, 0, "location")
    ev = g.step(Redistribute("strength", "focus", 10))
    assert ev["stat_shift"] == {"strength": -10, "technique": 0, "focus": 10, "flexibility": 0}
    # no time, no move, still this player's turn
    assert (pget(g, 0, "time"), pget(g, 0, "location"), g.current_seat) == (time, location, 0)
    # once per round
    assert moves(g) == []
    assert g.why_illegal(Redistribute("technique", "flexibility", 1)) == \
        "the Route Reader already redistributed this round"
    # the attempt's stats carry the shift (R49): 40+5-10 strength, 30+10 focus
    ev = climb(g, "Beginner's Fortune", [1, 1])
    assert stats_of(ev["attempt"]) == [35, 30, 40, 30]
    # the round's end takes the shift back and offers the move again
    end_round_now(g)
    assert [pget(g, 0, "redist_used")] + [int(g.state[S.player_offset(0) + S.P_REDIST + s])
                                          for s in range(4)] == [0, 0, 0, 0, 0]
    assert g.current_seat == 0 and len(moves(g)) == 120


def test_redistribution_is_the_route_readers_and_bounded_by_points():  # §9
    g = Game(1, ["technician", "routeReader"], rules=redistribution_rules())
    assert moves(g) == []
    assert g.why_illegal(Redistribute("strength", "focus", 3)) == \
        "only the Route Reader redistributes stat points"
    rules = build_rules(switches={"route_reader_redistribution": "on"},
                        knobs=["characters.routeReader.passive.redistribution_points=4"])
    g = Game(1, ["routeReader"], rules=rules)
    assert len(moves(g)) == 12 * 4
    assert g.why_illegal(Redistribute("strength", "focus", 5)) == \
        "more points than the passive allows or than the stat has"
    set_stats(g, 0, [3, 30, 30, 30])                    # a stat never goes below 0
    assert g.why_illegal(Redistribute("strength", "focus", 4)) is not None
    assert g.why_illegal(Redistribute("strength", "focus", 3)) is None
    with pytest.raises(VariantError, match="out of range 1..20"):
        build_rules(knobs=["characters.routeReader.passive.redistribution_points=21"])


def test_the_planner_redistributes_when_it_turns_a_milestone_around():  # §9
    g = Game(1, ["routeReader"], rules=redistribution_rules())
    set_milestone(g, "beginner", "Power Pulley")         # 22/14/10/12, two buff dice
    set_stats(g, 0, [60, 60, 5, 0])                      # focus and flexibility short: 2 of 4
    pset(g, 0, endurance=500)
    tables = g.rules.tables
    rid = g.rules.route_id("Power Pulley")
    assert success_count(g.state, tables, 0, rid, True)[0] == 0
    move = g.suggest("planner")
    assert isinstance(move, Redistribute) and move.target == "focus"
    g.step(move)
    assert success_count(g.state, tables, 0, rid, True) == (1, 1)
    assert g.suggest("planner") == g.action_value(S.MILESTONE)   # then it attempts
    assert g.player_dict(0)["stat_shift"]["focus"] > 0


def test_the_planner_trains_on_permanent_stats_not_on_the_shift():  # §9, R40
    """A shift that opens a gap in the stat it took points from is gone at the round's end;
    the planner's training target ignores it."""
    from policies.all_in_ascent.planner import stat_gaps
    from sim.games.all_in_ascent.probability import attempt_effective_stats
    g = Game(1, ["routeReader"], rules=redistribution_rules())
    set_stats(g, 0, [36, 40, 40, 40])
    rid = g.rules.route_id("Crimson Ladder")               # 30/28/25/22, a strength nerf die
    before = np.zeros(4)
    total_before = stat_gaps(g.state, g.rules.tables, 0, rid, before)
    assert before[0] == 0                                  # strength 36 against 30 + 3.5
    g.step(Redistribute("strength", "focus", 10))          # strength 26 for this round
    assert attempt_effective_stats(g.state, g.rules.tables, 0, rid, True)[0] == 26
    after = np.zeros(4)
    assert stat_gaps(g.state, g.rules.tables, 0, rid, after) == total_before
    assert after[0] == 0 and (after == before).all()


# --- your_choice_gear ---------------------------------------------------------------------------

def choice_climb(setting, name, stats, gear, dice):
    g = Game(1, ["ironLung"], rules=rules_with(your_choice_gear=setting))
    set_stats(g, 0, stats)
    pset(g, 0, endurance=500)
    give(g, 0, *gear)
    return climb(g, name, dice)["attempt"]


def test_mountain_mentor_cancels_the_nerf_that_matters():  # R52
    # Crimson Ladder 30/28/25/22, strength +1, technique +1. The engine cancels the strength die,
    # which strength 40 does not need; the player cancels the technique die.
    engine = choice_climb("engine", "Crimson Ladder", [40, 30, 99, 99], ["Mountain Mentor"], [5, 6])
    best = choice_climb("best", "Crimson Ladder", [40, 30, 99, 99], ["Mountain Mentor"], [5, 6])
    assert (engine["mountain_mentor_effect"], engine["success"]) == (0, False)
    assert (best["mountain_mentor_effect"], best["success"]) == (1, True)
    # when the engine's choice already succeeds, the player's is the same
    same = choice_climb("best", "Crimson Ladder", [40, 36, 99, 99], ["Mountain Mentor"], [5, 6])
    assert (same["mountain_mentor_effect"], same["success"]) == (0, True)


def test_sequence_memorization_picks_its_die():  # R51.3
    # Crimper's Delight 45/40/35/28, strength +1, technique -1 (a buff). The engine sets the
    # first highest die (the buff's 6) to 1; the player sets the strength die instead.
    args = ("Crimper's Delight", [47, 35, 99, 99], ["Sequence Memorization"], [5, 6])
    engine, best = choice_climb("engine", *args), choice_climb("best", *args)
    assert engine["dice"]["after_sequence_memorization"] == [5, 1] and not engine["success"]
    assert best["dice"]["after_sequence_memorization"] == [1, 6] and best["success"]


def test_the_decoder_rerolls_the_die_with_the_best_odds_before_seeing_it():  # R51.1
    # Crimson Ladder with strength 36 (any strength die passes) and technique 30 (its die must
    # be <= 2). Rolled 6, 6: the engine re-rolls the first (strength) die and fails whatever
    # comes; the player re-rolls the technique die. The new die is 1.
    args = ("Crimson Ladder", [36, 30, 99, 99], ["Crimp Sequence Decoder"], [6, 6, 1])
    engine, best = choice_climb("engine", *args), choice_climb("best", *args)
    assert (engine["reroll_index"], engine["success"]) == (0, False)
    assert (best["reroll_index"], best["success"]) == (1, True)


def reference_probability(route, character, gear, eff, milestone):
    """The "best advantage" reading written from the rulebook, independently of the engine: a
    climb succeeds if some choice of Sequence Memorization's die and Mountain Mentor's nerf
    makes it succeed; the Decoder's die is the one whose re-roll succeeds for most new values."""
    effects, n_roll, power_tap, reroll = reference_dice(route, character, gear)
    need = 3 if character == "routeReader" else 4

    def modifier(m):
        if character == "freeSolo" or (character == "technician" and m == 1):
            return 0
        return m

    def succeeds(d):
        if power_tap:
            d = sorted(d)[:2]
        picks = [d]
        if "Sequence Memorization" in gear:
            picks = [d[:i] + [min(d[i], 1)] + d[i + 1:] for i in range(len(d))]
        nerfs = [i for i, (_, m) in enumerate(effects) if modifier(m) == 1]
        cancels = nerfs if "Mountain Mentor" in gear and nerfs else [None]
        for p in picks:
            if milestone and "Climbing Coach" in gear:
                p = [min(6, x + 1) for x in p]
            for cancel in cancels:
                req = [int(route[s]) for s in STATS]
                for i, (stat, m) in enumerate(effects):
                    m = 0 if i == cancel else modifier(m)
                    req[stat] += m * (p[i] if i < len(p) else 0)
                if character == "technician":
                    req = [max(0, r - 5) for r in req]
                if sum(e >= r for e, r in zip(eff, req)) >= need:
                    return True
        return False

    good = 0
    for roll in itertools.product(range(1, 7), repeat=n_roll):
        roll = list(roll)
        if reroll:
            good += max(sum(succeeds(roll[:i] + [v] + roll[i + 1:]) for v in range(1, 7))
                        for i in range(n_roll))
        else:
            good += succeeds(roll)
    return Fraction(good, 6 ** n_roll * (6 if reroll else 1))


@pytest.mark.parametrize("character", CHARACTER_KEYS)
def test_exact_probability_under_the_players_choices(character):  # R51-R53
    """The probability module's count under your_choice_gear=best equals the reference, over
    every route with a sample of stats and gear."""
    rules = rules_with(your_choice_gear="best")
    rng = np.random.default_rng(7 + CHARACTER_KEYS.index(character))
    game = Game(5, [character], rules=rules)
    st = game.state
    b = S.player_offset(0)
    gear_sets = [("Mountain Mentor",), ("Crimp Sequence Decoder",), ("Sequence Memorization",),
                 ("Crimp Sequence Decoder", "Sequence Memorization", "Mountain Mentor"),
                 ("Power Tap Belt", "Sequence Memorization", "Climbing Coach", "Mountain Mentor")]
    data = game.rules.data
    routes = [r for area in ("bouldering", "topRope", "leadClimbing") for r in data.routes[area]]
    differs = 0
    for rid, route in enumerate(routes):
        gear = gear_sets[rid % len(gear_sets)]
        mask = 0
        for name in gear:
            mask |= 1 << game.rules.card_id(name)
        st[b + S.P_GEAR] = mask
        for s, stat in enumerate(STATS):
            st[b + S.P_STATS + s] = int(route[stat]) + int(rng.integers(-6, 5))
            st[b + S.P_TRAINING + s] = 0
        milestone = bool(rid % 2)
        eff = [int(st[b + S.P_STATS + s]) for s in range(4)]
        good, total = success_count(st, rules.tables, 0, rid, milestone)
        want = reference_probability(route, character, gear, eff, milestone)
        assert Fraction(int(good), int(total)) == want, (route["name"], gear)
        engine_good, engine_total = success_count(st, rules_with().tables, 0, rid, milestone)
        assert Fraction(int(good), int(total)) >= Fraction(int(engine_good), int(engine_total))
        differs += Fraction(int(good), int(total)) != Fraction(int(engine_good), int(engine_total))
    if character not in ("freeSolo", "technician"):   # dice never count, or only buffs (R52)
        assert differs > 0


def test_the_engine_outcome_matches_the_exact_probability_under_choices():  # R51, R52
    """Every dice outcome of one attempt, forced, through the engine: the successes add up to
    the probability module's count."""
    rules = rules_with(your_choice_gear="best")
    base = Game(1, ["ironLung"], rules=rules)
    give(base, 0, "Crimp Sequence Decoder", "Mountain Mentor")
    set_stats(base, 0, [33, 31, 99, 99])
    put_route(base, "Crimson Ladder", 0)
    rid = base.rules.route_id("Crimson Ladder")
    good, total = success_count(base.state, rules.tables, 0, rid, False)
    wins = 0
    for dice in itertools.product(range(1, 7), repeat=3):   # two dice and the re-roll die
        g = Game(1, ["ironLung"], rules=rules)
        g.state[:] = base.state
        pset(g, 0, endurance=500)
        wins += climb(g, "Crimson Ladder", list(dice))["attempt"]["success"]
    assert (good, total) == (wins, 6 ** 3) and 0 < wins < total


def test_power_tap_and_sequence_memorization_choices_through_the_engine():  # R51.2, R51.3
    """Fewer dice kept than rolled, then Sequence Memorization's pick: every forced outcome
    through the engine adds up to the exact count. Strength is tight and focus loose, so the
    player sets the strength die (the lower kept one) to 1 where the engine sets the higher."""
    rules = rules_with(your_choice_gear="best")
    base = Game(1, ["ironLung"], rules=rules)
    give(base, 0, "Power Tap Belt", "Sequence Memorization")
    set_stats(base, 0, [53, 40, 42, 30])                  # Dyno Dilemma 52/38/36/30
    put_route(base, "Dyno Dilemma", 0)
    rid = base.rules.route_id("Dyno Dilemma")
    good, total = success_count(base.state, rules.tables, 0, rid, False)
    engine_good, _ = success_count(base.state, rules_with().tables, 0, rid, False)
    wins = 0
    for dice in itertools.product(range(1, 7), repeat=4):   # three effects' dice + Power Tap
        g = Game(1, ["ironLung"], rules=rules)
        g.state[:] = base.state
        pset(g, 0, endurance=500)
        wins += climb(g, "Dyno Dilemma", list(dice))["attempt"]["success"]
    assert (good, total) == (wins, 6 ** 4) and engine_good < good


@pytest.mark.parametrize("switches", [
    {"route_reader_redistribution": "on"},
    {"your_choice_gear": "best"},
    {"route_reader_redistribution": "on", "your_choice_gear": "best"}])
def test_kernel_and_single_game_api_agree_under_the_choice_switches(switches):
    rules = build_rules(switches=switches)
    seats = ["planner", "greedy", "tuned", "designers-heuristic"]
    batch = run_games(40, 23, 4, seats, characters="random", rules=rules)
    moves = 0
    for i in range(0, 40, 5):
        chars = [CHARACTER_KEYS[c] for c in batch.characters[i, :4]]
        g = Game(int(batch.seeds[i]), chars, rules=rules)
        g.play(seats)
        assert np.array_equal(g.state[:S.SCRATCH].astype(np.int32), batch.final[i])
        moves += sum(ev["action"]["kind"] == "redistribute" for ev in g.transcript.events)
    if "route_reader_redistribution" in switches:
        assert moves > 0                                  # the action was exercised


def test_route_readers_under_the_planner_do_redistribute():  # §9
    rules = redistribution_rules()
    used = 0
    for seed in (1, 4, 5):
        g = Game(seed, ["routeReader", "technician", "ironLung", "sprinter"], rules=rules)
        g.play("planner")
        used += sum(ev["action"]["kind"] == "redistribute" for ev in g.transcript.events)
    assert used > 0


def test_greedy_and_the_designers_bot_never_redistribute():
    """Neither knows the action: greedy must not mistake its codes for climbs or purchases."""
    rules = redistribution_rules()
    for policy in ("greedy", "designers-heuristic"):
        for seed in (1, 2, 3):
            g = Game(seed, ["routeReader", "technician"], rules=rules)
            g.play(policy)
            assert not any(ev["action"]["kind"] == "redistribute" for ev in g.transcript.events)
