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
    ("characters.phil.start_water=9", "must be an integer from 0 to 7, got 9"),
    ("characters.phil.shoe_size=3", "a character knob is characters.<key>.<field>"),
    ("asset_cards.toe_jam.count=5", "must add up to 124 cards, got 125"),
    ("asset_cards.toe_jam.technique=magic", "allowed none, precision"),
    ("pitches.nowhere.value=2", "unknown pitch 'nowhere'"),
    ("gear.rope.cost=2", "unknown knob 'gear.rope.cost'"),
])
def test_a_bad_knob_is_one_line_that_names_it(knob, words, capsys):
    assert main(["simulate", "--game", "first-ascent", "--players", "3", "--games", "5",
                 "--set", knob, "--out", "unused"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ascent: error: --set: ") and words in err and err.count("\n") == 1


def test_the_listing_names_the_knobs():
    from sim.games.first_ascent.knobs import catalogue
    text = catalogue()
    assert "characters.<key>.start_water" in text and "asset_cards.<kind>.count" in text
    assert "toe_jam" in text


def test_rule_errors_stay_rule_errors():
    with pytest.raises(RuleError, match="unknown knob"):
        build_rules(3, {}, [("nope.x", "1")])
