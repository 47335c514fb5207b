"""Issue 20, item 1: the bots read every ability from the packed rules, never from a character's
name, so flipping a character's knob changes the bot's choices the way it changes the game.

Each test builds one constructed state, then asks the bot's own decision functions (the ones
`planner`, `tuned` and `lookahead` decide with) under the printed value of a knob and under
another value, and checks the direction of the change. The knobs are sim/games/all_in_ascent/
variants.py's PASSIVES. The last tests ask for the planner's whole move, for every knob, on
the positions of real games (see "the whole decision" below)."""
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
from sim.games.all_in_ascent.rules import F_ROUTE_AREA, F_ROUTE_REQ, at

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
    total = stat_gaps(game.state, game.tables, 0, game.rules.route_id(route), gaps)
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
    from sim.games.all_in_ascent.data import CHARACTER_KEYS
    names = ("TECHNICIAN", "SPRINTER", "IRON_LUNG", "ROUTE_READER", "FREE_SOLO")
    for module in ("helpers.py", "planner.py", "greedy.py", "lookahead.py", "tuned.py",
                   "mcts.py", "random_policy.py"):
        text = (root / module).read_text()
        found = [n for n in names if re.search(rf"\b{n}\b", text)]
        # a data key in quotes ("freeSolo") or a character compared with a number
        found += [k for k in CHARACTER_KEYS if re.search(rf"[\"']{k}[\"']", text)]
        found += re.findall(r"P_CHARACTER\][^\n]*[=!]=\s*\d", text)
        assert not found, f"{module} names {found}"


# --- the whole decision, every knob ----------------------------------------------------------
# The tests above check the functions the bots decide with. These ask the planner for its move
# (the decision `planner` and `tuned` make, and `lookahead` rolls out) on the positions of real
# planner games, under the printed rules and with one knob moved, and check which way the
# moves that change go. The positions are recorded under the printed rules; each is then
# decided under both (legal actions listed under each).

def _kind(action):
    if action == S.REST:
        return "rest"
    if action == S.END_TURN:
        return "end"
    for name, low, high in (("train", S.TRAIN, S.CLIMB), ("climb", S.CLIMB, S.MILESTONE),
                            ("milestone", S.MILESTONE, S.BUY_ROTATION),
                            ("buy", S.BUY_ROTATION, S.REDISTRIBUTE)):
        if low <= action < high:
            return name
    return "redistribute"


def _planner_move(st, t):
    from policies.all_in_ascent.planner import PLANNER_DEFAULTS, plan
    from sim.games.all_in_ascent import engine as E
    from sim.games.all_in_ascent.policy_api import PolicyContext
    params = np.array(PLANNER_DEFAULTS, np.float64)
    legal = np.zeros(S.N_ACTIONS, np.int64)
    n = E.legal_actions(st, t, legal)
    ctx = PolicyContext(st, np.int64(st[S.G_CURRENT]), legal, np.int64(n), t,
                        np.zeros(1, np.uint64), params, np.zeros(WORK_SIZE, np.int64))
    return int(plan(ctx, params))


def _positions(character, t, games=8):
    """Every decision of `character` (seat 0, three other characters) in `games` four-player
    planner games."""
    from sim.games.all_in_ascent import engine as E
    from sim.games.all_in_ascent.data import CHARACTER_KEYS
    me = CHARACTER_KEYS.index(character)
    out = []
    trace = S.new_trace()
    for seed in range(1, games + 1):
        st = S.new_state()
        seats = np.array([me] + [c for c in range(5) if c != me][:3], np.int64)
        E.setup(st, t, np.int64(seed), seats, np.int64(4))
        while not st[S.G_OVER]:
            if st[E.pbase(int(st[S.G_CURRENT])) + S.P_CHARACTER] == me:
                out.append(st.copy())
            E.apply_action(st, t, np.int64(_planner_move(st, t)), trace)
    return out


def _moves_that_change(character, knob, value, rules=None, games=8):
    """[(move under the printed rules, move with the knob at `value`)] where they differ."""
    printed = AIA.build_rules(4, rules=rules or {}).tables
    moved = AIA.build_rules(4, rules=rules or {},
                            knobs=[(f"characters.{character}.passive.{knob}", str(value))]).tables
    changed = []
    for st in _positions(character, printed, games):
        a, b = _planner_move(st, printed), _planner_move(st, moved)
        if a != b:
            changed.append((st, a, b))
    return changed


def _kinds(changed):
    return [(_kind(a), _kind(b)) for _, a, b in changed]


@pytest.mark.parametrize("character, knob, value", [
    ("technician", "time_penalty", 4),        # R47: every climb costs 3 more time units
    ("sprinter", "time_reduction", 0),        # R47: climbs lose the Sprinter's 2 off
])
def test_dearer_climbs_turn_climbs_into_rests_and_never_the_reverse(character, knob, value):
    """The one reverse allowed: a rest taken because endurance alone kept the player from a
    milestone (planner step 4), where the dearer climb now lacks the time as well, so resting
    no longer opens it and the planner climbs instead."""
    from sim.games.all_in_ascent import engine as E
    changed = _moves_that_change(character, knob, value)
    kinds = _kinds(changed)
    assert sum(b in ("rest", "end", "train") for a, b in kinds if a == "climb") >= 3, kinds
    printed = AIA.build_rules(4).tables
    moved = AIA.build_rules(4, knobs=[(f"characters.{character}.passive.{knob}",
                                       str(value))]).tables

    def blocked_milestones(st, t, reason):
        seat = int(st[S.G_CURRENT])
        return {tier for tier in range(S.N_TIERS)
                if E.attempt_reason(st, t, seat, st[S.G_MILESTONES + tier], E.section_reason(
                    st, t, seat, at(t, F_ROUTE_AREA, st[S.G_MILESTONES + tier]))) == reason}

    for st, a, b in changed:
        if _kind(b) == "climb" and _kind(a) in ("end", "train"):
            raise AssertionError((_kind(a), _kind(b)))
        if _kind(b) == "climb" and _kind(a) == "rest":
            tired = blocked_milestones(st, printed, E.ILLEGAL_NO_ENDURANCE)
            assert tired & blocked_milestones(st, moved, E.ILLEGAL_NO_TIME), (a, b)


def test_a_larger_sprinter_xp_share_turns_training_into_climbing():  # R54
    kinds = _kinds(_moves_that_change("sprinter", "xp_percent", 150))
    assert kinds.count(("train", "climb")) >= 10
    assert all(b == "climb" for _, b in kinds), kinds


@pytest.mark.parametrize("character, knob, value, rules", [
    ("technician", "requirement_reduction", 0, None),      # R52: the printed requirements
    ("routeReader", "beta_boost", 0, None),                # R49: no boost after a beta read
    ("routeReader", "stats_needed", 4, None),              # R53: every stat must pass
])
def test_a_weaker_ability_drops_milestone_attempts_and_adds_none(character, knob, value, rules):
    kinds = _kinds(_moves_that_change(character, knob, value, rules))
    assert sum(a == "milestone" for a, _ in kinds) >= 3, kinds
    assert not [k for k in kinds if k[1] == "milestone"], kinds


def test_without_the_sprinter_extra_nerf_die_training_gives_way_to_attempts():  # R50, R52
    kinds = _kinds(_moves_that_change("sprinter", "extra_nerf_die", 0))
    assert sum(a == "train" and b in ("climb", "milestone") for a, b in kinds) >= 3, kinds
    assert not [k for k in kinds if k[1] == "train" and k[0] != "train"], kinds


def test_fewer_redistribution_points_drop_redistributions():  # §9
    kinds = _kinds(_moves_that_change("routeReader", "redistribution_points", 1,
                                      {"route_reader_redistribution": "on"}))
    assert sum(a == "redistribute" and b != "redistribute" for a, b in kinds) >= 3, kinds
    assert not [k for k in kinds if k[1] == "redistribute" and k[0] != "redistribute"], kinds


def test_without_the_iron_lung_failure_xp_the_planner_picks_surer_climbs():  # R54
    """A climb's failure pays the Iron Lung extra XP; without the bonus, where its choice of
    climb changes, the new climb is the likelier to succeed."""
    changed = _moves_that_change("ironLung", "fail_xp_bonus_percent", 0)
    assert len(changed) >= 3
    from sim.games.all_in_ascent.engine import action_route
    t = AIA.build_rules(4).tables
    for st, a, b in changed:
        assert (_kind(a), _kind(b)) == ("climb", "climb")
        seat = int(st[S.G_CURRENT])
        before = climb_success_probability(st, t, seat, action_route(st, a), False)
        after = climb_success_probability(st, t, seat, action_route(st, b), False)
        assert after > before


def test_without_the_iron_lung_fail_penalty_it_buys_no_mental_anchor():  # R55
    from sim.games.all_in_ascent.engine import shop_card
    # the Anchor is in the shop in few of these games: 120 give 6 changed moves
    changed = _moves_that_change("ironLung", "fail_endurance_penalty", 0, games=120)
    anchor = AIA.build_rules(4).card_id("Mental Anchor")
    t = AIA.build_rules(4).tables
    assert len(changed) >= 3
    for st, a, b in changed:
        assert _kind(a) == "buy" and shop_card(st, t, a) == anchor
        assert not (_kind(b) == "buy" and shop_card(st, t, b) == anchor)


def test_with_the_sprinter_fail_xp_whole_the_planner_takes_riskier_climbs():  # R54
    """The switch sprinter_fail_xp_halved=off leaves the Sprinter's failure XP whole: failing
    pays twice as much, so where the planner's move changes it turns to a climb, and a climb
    for one less likely to succeed (measured: 76 changed moves in 625 positions)."""
    from sim.games.all_in_ascent.engine import action_route
    printed = AIA.build_rules(4).tables
    whole = AIA.build_rules(4, rules={"sprinter_fail_xp_halved": "off"}).tables
    changed = [(st, a, b) for st in _positions("sprinter", printed)
               for a, b in [(_planner_move(st, printed), _planner_move(st, whole))] if a != b]
    assert len(changed) >= 10
    assert {(_kind(a), _kind(b)) for _, a, b in changed} <= {("train", "climb"),
                                                             ("climb", "climb")}
    for st, a, b in changed:
        if _kind(a) == "climb":
            seat = int(st[S.G_CURRENT])
            assert climb_success_probability(st, printed, seat, action_route(st, b), False) < \
                climb_success_probability(st, printed, seat, action_route(st, a), False)


@pytest.mark.parametrize("character", ["sprinter", "technician", "routeReader"])
def test_training_raises_the_exact_success_probability_of_the_target_milestone(character):
    """R40, R50-R53: of the legal trainings, the planner picks the one that most raises the
    target milestone's odds counted with the player's own dice, each training played through
    the engine's own rule. Where no one training raises them (a milestone several points
    away), the largest expected gap decides. On these positions the two readings disagree
    often enough to tell them apart."""
    from policies.all_in_ascent.planner import best_training, target_tier
    from sim.games.all_in_ascent import engine as E
    from sim.games.all_in_ascent.policy_api import PolicyContext
    from sim.games.all_in_ascent.rules import F_STATION_STAT
    t = AIA.build_rules(4).tables
    decided_by_odds = differs_from_gap = 0
    for st in _positions(character, t, games=6):
        seat = int(st[S.G_CURRENT])
        b = E.pbase(seat)
        legal = np.zeros(S.N_ACTIONS, np.int64)
        n = E.legal_actions(st, t, legal)
        trainings = [int(a) for a in legal[:n] if S.TRAIN <= a < S.CLIMB]
        if not trainings:
            continue
        gaps = np.zeros(S.N_STATS)
        tier = target_tier(st, t, seat, gaps)
        if tier < 0:
            continue
        rid = st[S.G_MILESTONES + tier]
        untrained = st.copy()
        untrained[b + S.P_REDIST:b + S.P_REDIST + S.N_STATS] = 0
        now = climb_success_probability(untrained, t, seat, rid, True)
        rises = []
        for a in trainings:
            trial = untrained.copy()
            E.train(trial, t, seat, a - S.TRAIN)
            rises.append(climb_success_probability(trial, t, seat, rid, True) - now)
        by_gap = max(trainings, key=lambda a: gaps[at(t, F_STATION_STAT, a - S.TRAIN)])
        if gaps[at(t, F_STATION_STAT, by_gap - S.TRAIN)] <= 0:
            by_gap = -1
        ctx = PolicyContext(st, np.int64(seat), legal, np.int64(n), t, np.zeros(1, np.uint64),
                            np.zeros(5), np.zeros(WORK_SIZE, np.int64))
        chosen = best_training(ctx)
        if max(rises) > 0:
            assert chosen == trainings[int(np.argmax(rises))]
            decided_by_odds += 1
            differs_from_gap += chosen != by_gap
        else:
            assert chosen == by_gap
    assert decided_by_odds >= 10 and differs_from_gap >= 1, (decided_by_odds, differs_from_gap)


def test_with_no_climb_allowed_the_free_solo_trains_toward_one_the_guarantee_forbids():  # R28
    """Without its access bypass the Free Solo often has no legal climb: the guarantee (R28)
    forbids every visible route its stats do not meet. Until 2026-12-04 the planner then
    ended the turn with all its time left, round after round (in one game of these, rounds 2
    to 9). It now trains a stat that a forbidden route still lacks (planner step 7)."""
    from policies.all_in_ascent.planner import training_toward_a_climb
    from sim.games.all_in_ascent import engine as E
    from sim.games.all_in_ascent.policy_api import PolicyContext
    from sim.games.all_in_ascent.rules import F_STATION_STAT
    t = AIA.build_rules(4, knobs=[("characters.freeSolo.passive.access_bypass", "0")]).tables
    stuck = 0
    for st in _positions("freeSolo", t, games=6):
        seat = int(st[S.G_CURRENT])
        legal = np.zeros(S.N_ACTIONS, np.int64)
        n = E.legal_actions(st, t, legal)
        if any(S.CLIMB <= a < S.MILESTONE for a in legal[:n]):
            continue
        ctx = PolicyContext(st, np.int64(seat), legal, np.int64(n), t, np.zeros(1, np.uint64),
                            np.zeros(5), np.zeros(WORK_SIZE, np.int64))
        toward = training_toward_a_climb(ctx)
        if toward < 0:
            continue
        stuck += 1
        stat = at(t, F_STATION_STAT, toward - S.TRAIN)
        forbidden = [E.action_route(st, a) for a in range(S.CLIMB, S.MILESTONE)
                     if E.illegal_reason(st, t, a) == E.ILLEGAL_FREE_SOLO]
        assert any(E.guarantee_shortfall(st, t, seat, rid, stat) > 0 for rid in forbidden)
        assert _kind(_planner_move(st, t)) != "end"      # a rest for endurance comes first
    assert stuck >= 5, stuck
    # a character the guarantee does not bind never has such a route
    for st in _positions("technician", t, games=2):
        legal = np.zeros(S.N_ACTIONS, np.int64)
        n = E.legal_actions(st, t, legal)
        ctx = PolicyContext(st, np.int64(st[S.G_CURRENT]), legal, np.int64(n), t,
                            np.zeros(1, np.uint64), np.zeros(5), np.zeros(WORK_SIZE, np.int64))
        assert training_toward_a_climb(ctx) == -1
