"""Issue 20, item 1, for First Ascent: the bots read every character ability from the packed
rules (the `ability` block of data.json, F64-F75), so flipping an ability knob
(`characters.<key>.ability.<name>`, knobs.py) changes what the bots do the way it changes the game.

Each test builds one constructed state: seat 0 plays the character that prints the ability and
stands at the start; one cheap pitch T on row 1 is its only legal destination (the other row-1
hexes count as already on its route, F30). It then
asks the bots' own decision functions under the printed ability and under the flipped knob:
- `greedy` seeks the unit its target lacks first (`missing_unit`: what it draws, rests and
  trades for);
- `planner` prices a pitch by the units its character pays there (`hex_worth`) and seeks the
  unit its planned target lacks (`planned_target`), and its whole rest decision takes it;
- where an ability acts through the choices the engine offers (Phil's risks, the Crimper's two
  cards, the Free Soloist's banned options, Sendy Jammer's wild gear), the whole bot is asked.
The setup abilities (starting Summit Beta, start water and psych) reach the bots as state only;
their test checks the state the bots are dealt.
"""
import numpy as np
import pytest

from fa_helpers import give
from fa_states import blank, row1_hard, tiles
from policies.first_ascent.greedy import missing_unit
from policies.first_ascent.planner import (DEFAULT_PARAMS, PLANNER_KNOBS, hex_worth,
                                           planned_target)
from sim.core.policies import get_policy
from sim.games.first_ascent import engine
from sim.games.first_ascent.data import DATA, T_CC_NOPT, character_keys
from sim.games.first_ascent.memory import WORK_SIZE
from sim.games.first_ascent.policy_api import MAX_POLICY_PARAMS, PolicyContext
from sim.games.first_ascent.state import (
    A_RISK, BOARD_UP, D_OPTION, D_REST, D_TECHNIQUE, D_TURN, G_AUX, G_SHARED, MAX_LEGAL, N_KINDS,
    REST_PSYCH, REST_WATER, S_PERSONAL, S_ROUTE_MASK, S_SB, S_SC_SUMMIT, S_TECH, WITH_JESUS)

CHARACTER = character_keys(DATA)
GEAR, FACE, CRACK, SLAB, ANY, WATER, PSYCH = range(7)
# a card kind of each type (data.json asset_kinds)
GEAR_CARD, FACE_CARD, CRACK_CARD, SLAB_CARD = 28, 15, 2, 9
T_HEX = 3                       # the cheap pitch's hex (row 1, below the Ledge)


def state(character, knob=None, value=None, *, tile, hand=(), water=4, psych=4):
    """Seat 0 plays `character` (with one ability knob set), facing pitch `tile` on T_HEX with
    `hand` [(kind, n)] and the given tracks; the rest of row 1 is unpayable."""
    knobs = [(f"characters.{character}.ability.{knob}", str(value))] if knob else []
    other = CHARACTER["young_prodigy"] if character != "young_prodigy" else CHARACTER["phil"]
    st, t = blank(2, (CHARACTER[character], other), knobs=knobs, water=water, psych=psych)
    row1_hard(st)
    tiles(st, {T_HEX: tile})
    st[S_ROUTE_MASK] = sum(1 << h for h in range(1, 9) if h != T_HEX)
    for kind, n in hand:
        give(st, 0, kind, n)
    return st, t


def work():
    return np.zeros(WORK_SIZE, np.int64)


def greedy_seeks(st, t):
    return int(missing_unit(st, t, 0, work()))


def planner_seeks(st, t):
    params = np.asarray(DEFAULT_PARAMS, np.float64)
    target, kind = planned_target(st, t, 0, params, work())
    return int(target), int(kind)


def planner_price(st, t, h=T_HEX):
    """The planner's worth of climbing hex h next (higher: cheaper for its character)."""
    res = np.zeros(engine.RES_SIZE, np.int64)
    engine.payment_resources(st, t, 0, res)
    return hex_worth(st, t, 0, h, np.asarray(DEFAULT_PARAMS, np.float64), res,
                     np.zeros(7, np.int64))


def ask(bot, st, t, decision, legal, knobs=None):
    """The whole bot's answer at one decision (with its default parameters, or `knobs`)."""
    policy = get_policy("first-ascent", bot)
    codes = np.zeros(MAX_LEGAL, np.int64)
    codes[:len(legal)] = legal
    params = np.zeros(MAX_POLICY_PARAMS, np.float64)
    params[:len(policy.default_params)] = policy.default_params if knobs is None else knobs
    ctx = PolicyContext(st, t, np.int64(0), np.int64(decision), codes, np.int64(len(legal)),
                        np.ones(1, np.uint64), params, work())
    return int(policy.function(ctx))


# --- abilities that change what a pitch asks of the character (payment, F32b) ---------------

# (character, knob, flipped value, pitch, hand, water and psych tracks, the unit the pitch lacks
# first without the ability, and with it). The pitch stays unaffordable either way, so both bots
# keep it as their target and only the unit they seek for it changes.
REQUIREMENT_ABILITIES = [
    # F64: tile 14 needs gear 1, slab 2, water 1, psych 1; both tracks are empty
    ("rope_gun", "water_requirement_minus", 0, 14, [(GEAR_CARD, 1), (SLAB_CARD, 2)], (0, 0),
     WATER, PSYCH),
    # F65: tile 8 needs gear 1, face 1, any 1, water 1; gear becomes any skill
    ("free_soloist", "gear_requirements_become_any_skill", "off", 8, [(FACE_CARD, 1)], (4, 4),
     GEAR, ANY),
    # F70: tile 2 needs gear 2, any 1, water 1; one gear card meets the cap of 1
    ("bold_brit", "gear_requirement_cap", "none", 2, [(GEAR_CARD, 1)], (4, 4), GEAR, ANY),
    # F72: tile 10 needs face 1, slab 1, any 1, psych 1; below the Ledge one skill unit goes
    ("crag_mama", "ignore_units_below_ledge", 0, 10, [], (4, 4), FACE, SLAB),
    # F74: tile 12 needs face 1, slab 2, any 1; two crack cards pay the face unit as any skill
    ("bionic_woman", "convert_one_skill_unit_to_any_skill", "off", 12, [(CRACK_CARD, 2)],
     (4, 4), FACE, SLAB),
    # F75: tile 31 (value 4) needs gear 1, face 1, crack 1, slab 2, psych 2; one unit is ignored
    ("buff_boulderer", "ignore_units_by_printed_value.4", 0, 31,
     [(GEAR_CARD, 1), (CRACK_CARD, 1)], (4, 4), FACE, SLAB),
    # F75: tile 38 (value 5) needs gear 2, slab 3, water 1, psych 2; two units are ignored
    ("buff_boulderer", "ignore_units_by_printed_value.5", 0, 38, [(SLAB_CARD, 2)], (4, 4),
     GEAR, SLAB),
    # F66: tile 12 needs face 1, slab 2, any 1; a spare gear card pays the face unit
    ("the_dirtbag", "substitute", "none", 12, [(SLAB_CARD, 1), (GEAR_CARD, 1)], (4, 4),
     FACE, SLAB),
    # F68: tile 12 again; a spare psych pays the face unit
    ("the_overstoker", "substitute", "none", 12, [(SLAB_CARD, 1)], (4, 4), FACE, SLAB),
]
IDS = [f"{c}.{k}" for c, k, *_ in REQUIREMENT_ABILITIES]
FIELDS = "character,knob,flipped,tile,hand,tracks,lacks_without,lacks_with"


def pair(character, knob, flipped, tile, hand, tracks):
    """(printed, flipped) states."""
    water, psych = tracks
    return (state(character, tile=tile, hand=hand, water=water, psych=psych),
            state(character, knob, flipped, tile=tile, hand=hand, water=water, psych=psych))


def first_unpaid(st, t):
    plan = np.zeros(engine.PLAN_SIZE, np.int64)
    s = engine.plan_payment(st, t, 0, T_HEX, plan, True)
    return int(s), int(plan[engine.PL_UNPAID])


@pytest.mark.parametrize(FIELDS, REQUIREMENT_ABILITIES, ids=IDS)
def test_greedy_seeks_the_unit_its_character_lacks(  # F64-F75
        character, knob, flipped, tile, hand, tracks, lacks_without, lacks_with):
    printed, off = pair(character, knob, flipped, tile, hand, tracks)
    # the engine's payment: unaffordable either way, lacking another unit first
    s_printed, unit_printed = first_unpaid(*printed)
    s_off, unit_off = first_unpaid(*off)
    assert s_printed > 0 and s_off > 0
    assert (unit_off, unit_printed) == (lacks_without, lacks_with)
    assert greedy_seeks(*off) == lacks_without
    assert greedy_seeks(*printed) == lacks_with


@pytest.mark.parametrize(FIELDS, REQUIREMENT_ABILITIES, ids=IDS)
def test_the_planner_seeks_the_unit_its_character_lacks(  # F64-F75
        character, knob, flipped, tile, hand, tracks, lacks_without, lacks_with):
    printed, off = pair(character, knob, flipped, tile, hand, tracks)
    assert planner_seeks(*off) == (T_HEX, lacks_without)
    assert planner_seeks(*printed) == (T_HEX, lacks_with)


RESTING = [a for a in REQUIREMENT_ABILITIES if a[5] == (4, 4)]   # tracks above the rest floor


@pytest.mark.parametrize(FIELDS, RESTING, ids=[f"{c}.{k}" for c, k, *_ in RESTING])
def test_the_whole_planner_rests_for_what_its_character_lacks(  # F64-F75
        character, knob, flipped, tile, hand, tracks, lacks_without, lacks_with):
    """The planner's own rest decision (a Portaledge card of a type, or water or psych): the
    card it takes follows the ability, as the unit it seeks does."""
    choices = [GEAR, FACE, CRACK, SLAB, REST_WATER, REST_PSYCH]

    def expected(lacks, st, t):
        if lacks == ANY:                                    # any skill: the one held least
            held = [engine.hand_of_type(st, t, 0, a) for a in (FACE, CRACK, SLAB)]
            return (FACE, CRACK, SLAB)[held.index(min(held))]
        return {WATER: REST_WATER, PSYCH: REST_PSYCH}.get(lacks, lacks)

    printed, off = pair(character, knob, flipped, tile, hand, tracks)
    answers = []
    for (st, t), lacks in ((off, lacks_without), (printed, lacks_with)):
        answer = ask("planner", st, t, D_REST, choices)
        assert answer == expected(lacks, st, t)
        answers.append(answer)
    assert answers[0] != answers[1]


def test_the_whole_planner_rests_for_water_only_without_rope_guns_ability():  # F64
    """Rope Gun's row above has both tracks empty, where the planner's rest floor (its
    `track_floor` knob, 2) takes water before the ability counts. With the floor at 0, within
    the knob's bounds, the rest follows the unit the pitch lacks: water without the ability,
    psych with it."""
    knobs = np.asarray(DEFAULT_PARAMS, np.float64).copy()
    knobs[PLANNER_KNOBS.index("track_floor")] = 0.0
    row = next(a for a in REQUIREMENT_ABILITIES if a[0] == "rope_gun")
    printed, off = pair(*row[:6])
    choices = [GEAR, FACE, CRACK, SLAB, REST_WATER, REST_PSYCH]
    assert ask("planner", *off, D_REST, choices, knobs) == REST_WATER
    assert ask("planner", *printed, D_REST, choices, knobs) == REST_PSYCH


UNIT_REDUCING = [a for a in REQUIREMENT_ABILITIES
                 if a[1] in ("water_requirement_minus", "gear_requirement_cap",
                             "ignore_units_below_ledge", "ignore_units_by_printed_value.4",
                             "ignore_units_by_printed_value.5")]


@pytest.mark.parametrize(FIELDS, UNIT_REDUCING, ids=[f"{c}.{k}" for c, k, *_ in UNIT_REDUCING])
def test_the_planner_prices_a_pitch_by_what_its_character_pays(  # F64, F70, F72, F75
        character, knob, flipped, tile, hand, tracks, lacks_without, lacks_with):
    printed, off = pair(character, knob, flipped, tile, hand, tracks)
    assert planner_price(*printed) > planner_price(*off)


def test_the_ability_knob_can_also_give_an_ability_to_another_character():  # F64
    """A knob is not tied to the printed owner: Rope Gun's water reduction on Phil changes
    what the bots seek and how they price the pitch exactly as on Rope Gun."""
    hand = [(GEAR_CARD, 1), (SLAB_CARD, 2)]
    plain = state("phil", tile=14, hand=hand, water=0, psych=0)
    given = state("phil", "water_requirement_minus", 1, tile=14, hand=hand, water=0, psych=0)
    assert greedy_seeks(*plain) == WATER and greedy_seeks(*given) == PSYCH
    assert planner_price(*given) > planner_price(*plain)


# --- abilities that act through the choices the engine offers --------------------------------

def turn_codes(st, t):
    buf = np.zeros(640, np.int64)
    n = engine.turn_legal(st, t, 0, buf, np.zeros(engine.CLIMB_OPTIONS_BUFFER, np.int64))
    return [int(x) for x in buf[:n]]


@pytest.mark.parametrize("bot", ["greedy", "planner"])
def test_phil_risks_every_climb_only_while_the_rule_says_so(bot):  # F71
    hand = [(SLAB_CARD, 3)]
    printed = state("phil", tile=1, hand=hand)
    off = state("phil", "must_risk_every_climb", "off", tile=1, hand=hand)
    assert ask(bot, *printed, D_TURN, turn_codes(*printed)) == A_RISK + T_HEX
    assert ask(bot, *off, D_TURN, turn_codes(*off)) == T_HEX


def test_phil_starting_summit_beta_is_what_the_bots_are_dealt():  # F71
    """The bots read tokens from the state: the knob changes the tokens Phil starts with."""
    from fa_helpers import new_game
    counts = []
    for value in (2, 0):
        st, _ = new_game(4, (CHARACTER["phil"], 1, 3, 4),
                         knobs=[("characters.phil.ability.starting_summit_beta", str(value))])
        counts.append(bin(int(st[S_SB])).count("1"))
    assert counts == [2, 0]


def test_with_phils_starting_summit_beta_the_planner_plays_more_tokens():  # F71, F76-F85
    """The knob reaches the bots as dealt tokens; in the same games, the planner's Phil plays
    the tokens only a decision plays (F76 Rerack, F79 Energy Drink, F81 Simul Climb, F85
    Bomber Anchor: any time on his turn) far more often when he starts with 2 than with none
    (measured: 54 against 15 in these 60 games)."""
    from sim.games.first_ascent.batch import run_games
    from sim.games.first_ascent.records import seats_table
    from sim.games.first_ascent.rules import build_rules
    chosen = ["used_rerack", "used_energy_drink", "used_simul_climb", "used_bomber_anchor"]
    played = {}
    for value in (0, 2):
        rules = build_rules(4, knobs=[("characters.phil.ability.starting_summit_beta",
                                       str(value))])
        seats = seats_table(run_games(60, 7, rules, "planner",
                                      characters=("phil", "rope_gun", "the_dirtbag", "crag_mama")),
                            rules).to_pandas()
        played[value] = int(seats.loc[seats.character == "phil", chosen].to_numpy().sum())
    assert played[2] >= 2 * played[0] + 10, played


def option_codes(st, t, cards):
    """The D_OPTION codes the engine offers seat 0 for the drawn climbing cards (F39-F41)."""
    st[G_AUX] = cards[0] + 100 * (cards[1] if len(cards) > 1 else 0)
    codes = []
    for i, c in enumerate(cards):
        for o in range(int(t[T_CC_NOPT + c])):
            if engine.option_choosable(st, t, 0, c, o, False):
                codes.append(2 * i + o)
    return codes


def climbing_card(name):
    return next(c["id"] for c in DATA["climbing_cards"] if c["name"] == name)


@pytest.mark.parametrize("bot", ["greedy", "planner"])
def test_free_soloist_no_gear_column_bans_the_options_the_bots_would_take(bot):  # F40, F65
    banned = [c for c in DATA["climbing_cards"] if "free_soloist_cannot_choose" in c]
    assert banned, "data.json marks the options a Free Soloist cannot choose"
    changed = 0
    for c in banned:
        card = c["id"]
        printed = state("free_soloist", tile=1, hand=[(GEAR_CARD, 2), (FACE_CARD, 2)])
        off = state("free_soloist", "no_gear_column", "off", tile=1,
                    hand=[(GEAR_CARD, 2), (FACE_CARD, 2)])
        ban = "AB".index(c["free_soloist_cannot_choose"])
        printed_codes = option_codes(*printed, [card])
        off_codes = option_codes(*off, [card])
        assert ban not in printed_codes
        if ban in off_codes and printed_codes and ask(bot, *off, D_OPTION, off_codes) == ban:
            changed += 1
            assert ask(bot, *printed, D_OPTION, printed_codes) != ban
    assert changed > 0, "on some card the bot takes the option only the knob allows"


@pytest.mark.parametrize("bot", ["greedy", "planner"])
def test_a_second_climbing_card_lets_the_crimper_pick_the_better_one(bot):  # F73
    """With two cards drawn the bot may take the second card's option when it is worth more;
    with one card it has only the first card's."""
    cards = [c["id"] for c in DATA["climbing_cards"]]
    took_second = 0
    for a, b in zip(cards[:20], cards[20:40]):
        printed = state("cool-headed_crimper", tile=1, hand=[(SLAB_CARD, 3)])
        one = state("cool-headed_crimper", "climbing_cards_drawn", 1, tile=1,
                    hand=[(SLAB_CARD, 3)])
        two_codes = option_codes(*printed, [a, b])
        one_codes = option_codes(*one, [a])
        if len(one_codes) < 1 or len(two_codes) < 2:
            continue
        pick = ask(bot, *printed, D_OPTION, two_codes)
        assert ask(bot, *one, D_OPTION, one_codes) < 2
        took_second += pick % WITH_JESUS >= 2
    assert took_second > 0


def test_in_play_the_crimper_takes_a_second_card_s_option_only_when_she_draws_two():  # F73
    """Through the engine: whole games with the planner in every seat and the Crimper in seat
    0. With her two cards drawn (printed), the planner sometimes takes the second card's
    option; with one card drawn (the knob at 1) it never can. The test above hands the bot
    the cards itself; here the knob acts only through what the engine offers."""
    from fa_helpers import agents, new_game
    from sim.games.first_ascent.state import A_PASS, G_DECISIONS
    planner = get_policy("first-ascent", "planner")
    crimper = CHARACTER["cool-headed_crimper"]
    seats = (crimper,) + tuple(c for c in sorted(CHARACTER.values()) if c != crimper)[:3]
    second = {}
    for drawn in (2, 1):
        knobs = [("characters.cool-headed_crimper.ability.climbing_cards_drawn", str(drawn))]
        taken = 0
        for seed in range(1, 7):
            st, t = new_game(4, characters=seats, seed=seed, knobs=knobs)
            ag = agents(policy=planner.function, log_size=1 << 14,
                        params=planner.default_params)
            engine.play_game(st, t, ag)
            for seat, decision, code, _ in (tuple(r[:4]) for r in ag[5][:st[G_DECISIONS]]):
                if seat == 0 and decision == D_OPTION and code != A_PASS:
                    taken += code % WITH_JESUS >= 2
        second[drawn] = taken
    assert second[2] > 0 and second[1] == 0, second


@pytest.mark.parametrize("bot", ["greedy", "planner"])
def test_the_young_prodigy_thresholds_decide_which_permanent_token_the_bot_claims(bot):  # F69
    """Three face cards and four gear cards on her board: at her printed thresholds (3 skill
    cards, 5 gear) the bot claims a face token; with the face threshold at 4 (as everyone's)
    it cannot, and claims the gear token that 4 gear cards then buy."""
    from fa_helpers import agents, clear_cards, new_game, seat_at
    from sim.games.first_ascent.state import BOARD_DOWN, S_PERM
    policy = get_policy("first-ascent", bot)
    claimed = []
    for knobs in ([], [("characters.young_prodigy.permanent_threshold.face", "4"),
                       ("characters.young_prodigy.permanent_threshold.gear", "4")]):
        st, t = new_game(3, characters=(CHARACTER["young_prodigy"], CHARACTER["phil"],
                                         CHARACTER["crag_mama"]), seed=11, knobs=knobs)
        for seat in range(3):
            clear_cards(st, seat)
        give(st, 0, FACE_CARD, 3, BOARD_DOWN)
        give(st, 0, GEAR_CARD, 4, BOARD_DOWN)
        ag = agents(policy=policy.function, params=policy.default_params)
        engine.permanent_tokens(st, t, ag, 0)
        claimed.append((int(st[seat_at(S_PERM, 0) + GEAR]), int(st[seat_at(S_PERM, 0) + FACE])))
    assert claimed == [(0, 1), (1, 0)]


@pytest.mark.parametrize("bot", ["greedy", "planner"])
def test_sendy_jammer_wild_gear_decides_which_technique_token_she_takes(bot):  # F49, F67
    """Two face-up gear cards count as wild symbols for her: a set of precision then needs one
    more, so she takes precision; without the ability the gear cards count for nothing and
    she takes the technique she already shows most (balance)."""
    PRECISION, BALANCE = 1, 2
    results = []
    for value in ("wild", "none"):
        knob = None if value == "wild" else "gear_cards_technique"
        st, t = state("sendy_jammer", knob, value, tile=1)
        st[BOARD_UP + 0 * N_KINDS + 28] = 2          # two gear cards without a symbol
        st[BOARD_UP + 0 * N_KINDS + 8] = 1           # one balance (slab, Smear)
        st[S_TECH:S_TECH + 5] = 0
        results.append(ask(bot, st, t, D_TECHNIQUE, [PRECISION, BALANCE]))
    assert results == [PRECISION, BALANCE]


def test_no_first_ascent_policy_names_a_character_in_its_decisions():
    """Source check: the decision code refers to no character key, name or id. (`tuned` picks
    a per-character knob vector by the character's id: parameters, not rules.)"""
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parents[2] / "policies" / "first_ascent"
    words = [c["key"] for c in DATA["characters"]] + [c["name"] for c in DATA["characters"]]
    for module in ("greedy.py", "planner.py", "random_policy.py", "tuned.py", "mcts.py"):
        text = (root / module).read_text()
        found = [w for w in words if re.search(rf"\b{re.escape(w)}\b", text, re.I)]
        assert not found, f"{module} names {found}"
        # tuned and mcts-tuned read the id only to pick the character's knob vector
        if module not in ("tuned.py", "mcts.py"):
            assert "S_CHAR" not in text, f"{module} reads the seat's character id"


# --- what a climb scores, as the rules' switches say -------------------------------------------

def greedy_points(st, t, h):
    """greedy's points for climbing hex h now."""
    from policies.first_ascent.greedy import climb_value
    res = np.zeros(engine.RES_SIZE, np.int64)
    engine.payment_resources(st, t, 0, res)
    plan = np.zeros(engine.PLAN_SIZE, np.int64)
    points, _, _ = climb_value(st, t, 0, h, plan, res, np.zeros(engine.PAYMENT_BUFFER, np.int64))
    return int(points)


@pytest.mark.parametrize("summit_bonus", ["each_summit", "once"])
def test_the_bots_count_the_summit_point_the_switch_gives(summit_bonus):
    # F35 and Decision 36 (switch summit_bonus): under `once` a seat that has scored a summit
    # scores none for the next, and both bots' worth of a summit hex says so
    from sim.games.first_ascent.data import BM_SUMMIT
    st, t = blank(2, rules={"summit_bonus": summit_bonus})
    summits = int(engine.board_mask(st, t, BM_SUMMIT))
    h = (summits & -summits).bit_length() - 1
    assert summits and engine.summit_points(st, t, 0, h) == 1
    first = greedy_points(st, t, h), planner_price(st, t, h)
    st[S_SC_SUMMIT] = 1                              # seat 0 has scored a summit
    again = greedy_points(st, t, h), planner_price(st, t, h)
    lost = 1 if summit_bonus == "once" else 0
    assert engine.summit_points(st, t, 0, h) == 1 - lost
    assert first[0] - again[0] == lost and first[1] - again[1] == lost


@pytest.mark.parametrize("reading", ["every_type", "bga_crack_only"])
def test_the_planner_counts_the_trifecta_toward_the_type_objectives_the_switch_names(reading):
    # F92-F97 and Decision 7 (switch trifecta_objectives): The Trifecta counts toward every
    # type objective, or under BGA's reading toward the crack one only; the planner's worth of
    # the Trifecta's hex rises with a type objective exactly where the engine would count it
    from sim.games.first_ascent.data import SO_FIELDS, SO_KIND, T_SO
    st, t = blank(2, rules={"trifecta_objectives": reading})
    counted = []
    for so in range(17):
        if t[T_SO + SO_FIELDS * so + SO_KIND] != engine.K_TYPE_COUNT:
            continue
        st[G_SHARED:G_SHARED + 3] = (1, 2, so)         # two quiet ridges and this objective
        tiles(st, {T_HEX: engine.TRIFECTA})
        with_it = planner_price(st, t)
        st[G_SHARED:G_SHARED + 3] = (1, 2, 9)          # the quiet Grand Traverse instead
        without = planner_price(st, t)
        assert (with_it > without) == engine.counts_for_type_objective(t, so, engine.TRIFECTA)
        counted.append(bool(engine.counts_for_type_objective(t, so, engine.TRIFECTA)))
    assert len(counted) >= 3
    assert all(counted) if reading == "every_type" else 0 < sum(counted) < len(counted)


@pytest.mark.parametrize("bot", ["greedy", "planner"])
def test_the_bots_score_a_pitch_by_its_value_knob(bot):  # F35(3)
    # pitches.<key>.value (knobs.py) changes what a pitch scores (F35(3) reads the tile's
    # value); hexes 3 and 6 hold Roger's Roof and Corrugation Corner (both printed 1 with the
    # same costs) and both are paid in full: with Roger's Roof knobbed to 5 both bots climb it,
    # with Corrugation Corner knobbed, that one. The planner read the board's printed value
    for knobbed, hex_wanted in (("rogers_roof", 3), ("corrugation_corner", 6)):
        st, t = blank(2, (CHARACTER["young_prodigy"], CHARACTER["phil"]),
                      knobs=[(f"pitches.{knobbed}.value", "5")])
        row1_hard(st)
        tiles(st, {3: 2, 6: 3})
        st[S_ROUTE_MASK] = sum(1 << h for h in range(1, 9) if h not in (3, 6))
        st[S_PERSONAL], st[S_PERSONAL + 1] = 1, 2        # objectives that list neither tile
        give(st, 0, GEAR_CARD, 2)
        give(st, 0, FACE_CARD, 1)
        codes = turn_codes(st, t)
        assert hex_wanted in codes and 9 - hex_wanted in codes
        assert ask(bot, st, t, D_TURN, codes) == hex_wanted
