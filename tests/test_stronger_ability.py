"""Issue 20, item 4: the comparison page warns when a character made strictly stronger loses
win rate (a bot artifact, most likely). Which way helps is declared per passive number."""
from types import SimpleNamespace

import pandas as pd

from sim.games.all_in_ascent.protocol import stronger_abilities
from sim.games.all_in_ascent.variants import PASSIVES, STRONGER_WHEN, strictly_stronger
from sim.report.compare import stronger_ability_warnings

SPRINT = "characters.sprinter.passive."


def test_every_passive_number_declares_which_way_helps():
    assert {k: set(v) for k, v in STRONGER_WHEN.items()} == \
        {k: set(v) for k, v in PASSIVES.items()}
    assert all(d in (+1, -1) for numbers in STRONGER_WHEN.values() for d in numbers.values())


def test_strictly_stronger_needs_every_change_to_help():
    # R: the Sprinter's time reduction helps it; its extra nerf die hurts it
    assert strictly_stronger({}, {SPRINT + "time_reduction": "4"}) == \
        {"sprinter": [("time_reduction", 2.0, 4.0)]}
    assert strictly_stronger({}, {SPRINT + "time_reduction": "4",
                                  SPRINT + "extra_nerf_die": "0"})["sprinter"]
    assert strictly_stronger({}, {SPRINT + "time_reduction": "4",
                                  SPRINT + "extra_nerf_die": "1"}) == {"sprinter": [
                                      ("time_reduction", 2.0, 4.0)]}   # the default: no change
    assert strictly_stronger({}, {SPRINT + "time_reduction": "1"}) == {}
    assert strictly_stronger({}, {SPRINT + "time_reduction": "4", SPRINT + "xp_percent": "20"}) \
        == {}
    # relative to the baseline's own knobs, not to the printed defaults
    assert strictly_stronger({SPRINT + "time_reduction": "6"},
                             {SPRINT + "time_reduction": "4"}) == {}
    # the Free Solo's bypass on, the Route Reader needing fewer stats (R53)
    assert set(strictly_stronger({"characters.freeSolo.passive.access_bypass": "0",
                                  "characters.routeReader.passive.stats_needed": "3"},
                                 {"characters.routeReader.passive.stats_needed": "2"})) == \
        {"freeSolo", "routeReader"}


def run(knobs):
    return SimpleNamespace(meta={"rules": {"knobs": knobs}})


def diff_rows(sprinter_high):
    return pd.DataFrame({"character": ["sprinter", "technician"], "players": [4, 4],
                         "difference": [-0.03, -0.05], "paired_ci_low": [-0.05, -0.08],
                         "paired_ci_high": [sprinter_high, -0.02]})


def test_the_warning_fires_only_for_a_stronger_character_that_loses():
    base, variant = run({}), run({SPRINT + "time_reduction": "4"})
    assert stronger_abilities(base.meta, variant.meta) == {"sprinter": "time_reduction 2 → 4"}
    found = stronger_ability_warnings("all-in-ascent", base, variant, diff_rows(-0.01),
                                      "character")
    assert len(found) == 1 and found[0].startswith("Sprinter: every change to its abilities "
                                                   "helps it (time_reduction 2 → 4)")
    assert "-3.0 points [-5.0, -1.0]" in found[0]
    # the interval reaching zero: no warning; the technician lost too, but was not changed
    assert stronger_ability_warnings("all-in-ascent", base, variant, diff_rows(0.01),
                                     "character") == []
    # a weaker Sprinter that loses is the rules working: no warning
    assert stronger_ability_warnings("all-in-ascent", base, run({SPRINT + "time_reduction": "1"}),
                                     diff_rows(-0.01), "character") == []


def fa_run(knobs):
    return SimpleNamespace(meta={"rules": {"knobs": knobs}})


def test_first_ascent_orders_each_character_knob_it_can():
    # F64-F75 and the character numbers: which way helps is declared per knob (knobs.py)
    from sim.games.first_ascent.knobs import strictly_stronger
    from sim.games.first_ascent.protocol import stronger_abilities
    brit, phil = "characters.bold_brit.", "characters.phil."
    assert strictly_stronger({}, {brit + "ability.gear_requirement_cap": "0"}) == \
        {"bold_brit": [("gear_requirement_cap", 1, 0)]}                           # F70
    assert strictly_stronger({}, {brit + "ability.gear_requirement_cap": "none"}) == {}
    assert strictly_stronger({}, {phil + "ability.must_risk_every_climb": "off"})   # F71
    # every change must help: Phil freed of the Risk Die but resting for fewer assets is not
    assert strictly_stronger({}, {phil + "ability.must_risk_every_climb": "off",
                                  phil + "rest_assets": "4"}) == {}
    assert strictly_stronger({}, {phil + "permanent_threshold.gear": "2"})          # F50
    # gaining a substitute payment helps (F66, F68); trading one for the other is not ordered
    assert strictly_stronger({}, {"characters.rope_gun.ability.substitute": "psych"})
    assert strictly_stronger({}, {"characters.the_dirtbag.ability.substitute": "psych"}) == {}
    # Free Soloist's gear-to-any-skill is not ordered; a knob on the pitches is no one's
    assert strictly_stronger(
        {}, {"characters.free_soloist.ability.gear_requirements_become_any_skill": "off"}) == {}
    # relative to the baseline's own knobs
    rope = "characters.rope_gun.ability.water_requirement_minus"
    assert strictly_stronger({rope: "3"}, {rope: "2"}) == {}
    assert stronger_abilities(fa_run({}).meta, fa_run({rope: "2"}).meta) == \
        {"rope_gun": "water_requirement_minus 1 → 2"}


def test_first_ascent_warns_for_a_stronger_character_that_loses():
    rope = "characters.rope_gun.ability.water_requirement_minus"
    diff = pd.DataFrame({"character": ["rope_gun", "phil"], "players": [4, 4],
                         "difference": [-0.03, -0.05], "paired_ci_low": [-0.05, -0.08],
                         "paired_ci_high": [-0.01, -0.02]})
    found = stronger_ability_warnings("first-ascent", fa_run({}), fa_run({rope: "2"}), diff,
                                      "character")
    assert len(found) == 1 and found[0].startswith(
        "Rope Gun: every change to its abilities helps it (water_requirement_minus 1 → 2)")
