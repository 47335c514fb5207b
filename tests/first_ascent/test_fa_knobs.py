"""First Ascent data knobs (`--set`, sim/games/first_ascent/knobs.py): the characters and the
cards of data.json, validated like the bundled file, read by the engine and the bots from the
packed tables."""
import numpy as np
import pytest

from sim.cli import main
from sim.games.first_ascent import state as S
from sim.games.first_ascent.batch import run_games
from sim.games.first_ascent.engine import setup
from sim.games.first_ascent.rules import RuleError, build_rules


def seat_after_setup(rules, characters, field, seat=0):
    from sim.games.first_ascent.batch import character_ids
    st = np.zeros(S.STATE_SIZE, np.int64)
    setup(st, rules.tables, np.int64(3), character_ids(characters, rules.players))
    return int(st[field + seat * S.SEAT_FIELDS])


def test_a_character_knob_sets_what_setup_deals():
    # F22-F24: a character starts with its board's water; the knob changes the board
    chars = ["phil", "rope_gun", "crag_mama"]
    base = seat_after_setup(build_rules(3), chars, S.S_WATER)
    rules = build_rules(3, {}, [("characters.phil.start_water", str(base - 1))])
    assert seat_after_setup(rules, chars, S.S_WATER) == base - 1


def test_a_card_knob_changes_the_games_and_the_fingerprint():
    base = build_rules(3)
    moved = build_rules(3, {}, [("asset_cards.toe_jam.count", "5"),
                                ("asset_cards.hand_jam.count", "3")])
    assert moved.fingerprint != base.fingerprint
    assert moved.changed() == {"asset_cards.toe_jam.count": "5",
                               "asset_cards.hand_jam.count": "3"}
    a = run_games(40, 1, base, ["greedy"] * 3).records
    b = run_games(40, 1, moved, ["greedy"] * 3).records
    assert not np.array_equal(a, b)


@pytest.mark.parametrize("knob,words", [
    ("characters.wizard.start_water=3", "unknown character 'wizard'; allowed: "),
    ("characters.phil.start_water=9", "--set: characters.phil.start_water=9: must be an "
     "integer from 0 to 7, got 9"),
    ("characters.rope_gun.start_water=7", "characters.rope_gun.start_water=7: must be at most the "
     "track maximum max_water_psych = 6, got 7"),
    ("characters.phil.max_water_psych=3", "characters.phil.max_water_psych=3: "
     "characters.phil.start_water: must be at most the track maximum max_water_psych = 3, got 7"),
    ("characters.phil.permanent_threshold.gear=0", "characters.phil.permanent_threshold.gear=0: "
     "must be an integer from 1 to 12, got 0"),
    ("characters.phil.shoe_size=3", "a character knob is characters.<key>.<field>"),
    ("asset_cards.toe_jam.count=5", "asset_cards.toe_jam.count=5: asset_cards.<kind>.count: "
     "must add up to 124 cards, got 125"),
    ("asset_cards.toe_jam.technique=magic", "allowed none, precision"),
    ("pitches.nowhere.value=2", "unknown pitch 'nowhere'"),
    ("gear.rope.cost=2", "unknown knob 'gear.rope.cost'"),
    ("characters.phil.ability.jetpack=on", "unknown ability knob 'jetpack'; allowed: "
     "water_requirement_minus"),
    ("characters.phil.ability.must_risk_every_climb=yes", "allowed on or off; got 'yes'"),
    ("characters.rope_gun.ability.water_requirement_minus=8", "allowed 0..7; got 8"),
    ("characters.bold_brit.ability.gear_requirement_cap=many", "expected a whole number"),
    ("characters.the_dirtbag.ability.substitute=water", "allowed gear_card, psych or none"),
    ("characters.buff_boulderer.ability.ignore_units_by_printed_value.3=1",
     "unknown ability knob 'ignore_units_by_printed_value.3'"),
])
def test_a_bad_knob_is_one_line_that_names_it(knob, words, capsys):
    assert main(["simulate", "--game", "first-ascent", "--players", "3", "--games", "5",
                 "--set", knob, "--out", "unused"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ascent: error: --set: ") and words in err and err.count("\n") == 1
    assert "[id=" not in err            # the knob's words, not the data file's coordinates


def test_the_listing_names_the_knobs():
    from sim.games.first_ascent.knobs import catalogue
    text = catalogue()
    assert "characters.<key>.start_water" in text and "asset_cards.<kind>.count" in text
    assert "toe_jam" in text


def test_rule_errors_stay_rule_errors():
    with pytest.raises(RuleError, match="unknown knob"):
        build_rules(3, {}, [("nope.x", "1")])


@pytest.mark.parametrize("options, knobs, words", [
    ({}, {"characters.phil.start_water": "3"}, "knobs: a list of (path, value) pairs, got a dict"),
    ({}, [("characters.phil.start_water", "3"), ("characters.phil.start_water", "5")],
     "characters.phil.start_water: set twice"),
    ({}, [("characters.bold_brit.ability.gear_requirement_cap", "None")],
     "expected a whole number or none, got 'None'"),
    ({"risk_die_odds": "1:0.0000001:1"}, [], "below 1/1,048,576 of the sum"),
])
def test_the_library_refuses_what_the_command_line_refuses(options, knobs, words):
    # a dict of knobs, a knob set twice (the last had won silently), the cap's 'none' named in
    # its error, and a Risk Die face too light to roll (it packed as 0 and vanished)
    with pytest.raises(RuleError) as err:
        build_rules(3, options, knobs)
    assert words in str(err.value)


@pytest.mark.parametrize("path,printed,value", [
    ("characters.rope_gun.ability.water_requirement_minus", 1, "0"),
    ("characters.bold_brit.ability.gear_requirement_cap", 1, "none"),
    ("characters.phil.ability.must_risk_every_climb", "on", "off"),
    ("characters.the_dirtbag.ability.substitute", "gear_card", "psych"),
    ("characters.buff_boulderer.ability.ignore_units_by_printed_value.5", 2, "0"),
    ("characters.young_prodigy.ability.climbing_cards_drawn", 1, "2"),
])
def test_an_ability_knob_reads_back_and_changes_the_packed_character(path, printed, value):
    """F130: every ability is a knob; `off`/`none` removes it, as for a character without it."""
    from sim.games.first_ascent.knobs import knob_value
    assert knob_value(path, []) == printed
    assert str(knob_value(path, [(path, value)])) == value
    base = build_rules(3)
    changed = build_rules(3, {}, [(path, value)])
    assert changed.fingerprint != base.fingerprint
    assert not np.array_equal(base.tables, changed.tables)


@pytest.mark.parametrize("ability,words", [
    ({"water_requirment_minus": 1}, "characters[id=1].ability.water_requirment_minus: unknown "
                                    "ability; allowed: water_requirement_minus"),
    ({"water_requirement_minus": "1"}, "must be an integer from 0 to 7"),
    ({"must_risk_every_climb": 1}, "must be true or false"),
    ({"substitute": {"pay_with": "chalk", "replaces": ["face"]}}, "pay_with: must be one of"),
    ({"ignore_units_by_printed_value": {"3": 1}}, "must be one of 4, 5, got '3'"),
])
def test_a_data_file_with_a_bad_ability_names_the_field(ability, words):
    """An ability the engine would not read is refused, naming the file and the field, instead
    of being ignored."""
    import copy

    from sim.games.first_ascent.data import DATA, DataError, validate_data
    data = copy.deepcopy(DATA)
    data["characters"][0]["ability"] = ability
    with pytest.raises(DataError) as caught:
        validate_data(data, "my-data.json")
    assert str(caught.value).startswith("my-data.json: ") and words in str(caught.value)


def test_tune_compiles_with_the_compile_line_first(tune_compile):
    """`ascent tune` compiles as `ascent simulate` does: the kernel with `random` first, then
    one tuning game (the tuned seat against a planner) through play_rows, which the tuning's
    games go through too."""
    from policies.first_ascent import tuning
    events = tune_compile("first-ascent", tuning.KEYS[0], tuning, "play_rows",
                          lambda a: [a[4][slot] for slot in a[3][0] if slot >= 0])
    assert events[:6] == [("first-ascent", ["planner", "tuned"], True, 1),
                          "kernel", ["random", "random"], "bots", ["tuned", "planner"],
                          "compiled"]
    assert events[6:] and all(e in (["tuned", "planner"], ["planner", "tuned"])
                              for e in events[6:])


@pytest.mark.parametrize("value, words", [
    ("", "unknown character ''"), ("phil,", "unknown character ''"),
    ("phil,phil", "'phil' is listed twice")])
def test_an_empty_or_repeated_character_in_abilities_off_is_refused(value, words):
    # '' had meant none, recorded as '': the same rules as the defaults under another fingerprint
    with pytest.raises(RuleError, match=f"abilities_off: {words}"):
        build_rules(3, {"abilities_off": value})


def test_a_knob_named_in_the_reason_is_named_alone():
    # the start is checked against the maximum: the other knob on Phil had nothing to do with it
    with pytest.raises(RuleError) as err:
        build_rules(3, {}, [("characters.phil.rest_assets", "2"),
                            ("characters.phil.max_water_psych", "3")])
    assert str(err.value).startswith("characters.phil.max_water_psych=3: "
                                     "characters.phil.start_water: must be at most")


def test_the_knobs_behind_the_decks_total_are_named_together():
    with pytest.raises(RuleError) as err:
        build_rules(3, {}, [("characters.phil.start_water", "3"),
                            ("asset_cards.toe_jam.count", "5"), ("asset_cards.crimp.count", "2")])
    assert str(err.value) == ("asset_cards.toe_jam.count=5, asset_cards.crimp.count=2: "
                              "asset_cards.<kind>.count: must add up to 124 cards, got 123")


@pytest.mark.parametrize("knob", [("characters.phil.ability.must_risk_every_climb", "off"),
                                  ("characters.young_prodigy.permanent_threshold.gear", "2")])
def test_a_knob_that_abilities_off_overrides_is_refused(knob):
    # engine.common.ch reads a character with its ability off as one without an ability, its
    # thresholds 4: the knob was packed and never read
    with pytest.raises(RuleError, match=f"{knob[0]}={knob[1]}: has no effect while "
                                        f"abilities_off lists {knob[0].split('.')[1]}"):
        build_rules(3, {"abilities_off": "phil,young_prodigy"}, [knob])
    build_rules(3, {"abilities_off": "rope_gun"}, [knob])
    kept = build_rules(3, {"abilities_off": "phil,young_prodigy"},
                       [("characters.phil.start_water", "3")])      # not an ability: read
    assert seat_after_setup(kept, ["phil", "rope_gun", "crag_mama"], S.S_WATER) == 3


def test_abilities_off_is_recorded_one_way_for_the_same_characters():
    spellings = [build_rules(3, {"abilities_off": v})
                 for v in ("phil,rope_gun", "rope_gun,phil", " phil, rope_gun ")]
    assert {r.values["abilities_off"] for r in spellings} == {"rope_gun,phil"}
    assert len({r.fingerprint for r in spellings}) == 1
    assert build_rules(3, {"abilities_off": "none"}).fingerprint == build_rules(3).fingerprint
