"""Validity warnings on every report's first screen (sim/report/validity.py, issue 20 item 4)."""
import json
from types import SimpleNamespace

import pandas as pd
import pytest

from sim.core.game import get_game
from sim.report import validity as V


def games(reasons):
    return pd.DataFrame({"end_reason": pd.Categorical(reasons)})


def test_policy_errors_and_caps_are_counted_with_their_share():
    g = games(["winner"] * 6 + ["policy_error"] * 2 + ["max_rounds"] * 2)
    assert V.policy_error_warning(g).startswith("2 of 10 games (20.0%) ended because a bot")
    assert "(end reason max_rounds)" in V.cap_warning(g, ("max_rounds", "action_cap"))
    clean = games(["winner"] * 5)
    assert V.policy_error_warning(clean) is None and V.cap_warning(clean, ("max_rounds",)) is None


def test_a_tuned_bot_fitted_under_other_rules_is_named(tmp_path, monkeypatch):
    import policies.all_in_ascent.tuning as tuning
    stored = tmp_path / "tuned.json"
    stored.write_text(json.dumps({"characters": {
        "sprinter": {"rules": "v0.4.0 defaults", "rules_fingerprint": "aaaa"},
        "freeSolo": {"rules": "v0.4.0 defaults", "rules_fingerprint": "bbbb"}}}))
    monkeypatch.setattr(tuning, "TUNED_PATH", stored)
    game = get_game("all-in-ascent")
    text = V.tuned_rules_warning(game, {"rules_fingerprint": "bbbb"}, ["tuned"])
    assert "knobs for sprinter were fitted under v0.4.0 defaults" in text
    assert V.tuned_rules_warning(game, {"rules_fingerprint": "bbbb"}, ["greedy"]) is None
    # an experiment's variant: its fingerprints per player count
    variant = V.tuned_rules_warning(game, {"rules_fingerprints": {3: "bbbb", 4: "bbbb"}},
                                    ["tuned"])
    assert "knobs for sprinter were fitted under" in variant and "freeSolo" not in variant
    assert V.tuned_rules_warning(game, {"rules_fingerprints": {4: "cccc"}}, ["tuned"]).startswith(
        "The tuned bot's knobs for freeSolo, sprinter")


def test_every_bot_that_plays_the_tuned_knobs_is_named(tmp_path, monkeypatch):
    import policies.all_in_ascent.tuning as tuning
    stored = tmp_path / "tuned.json"
    stored.write_text(json.dumps({"characters": {
        "sprinter": {"rules": "v0.4.0 defaults", "rules_fingerprint": "aaaa"}}}))
    monkeypatch.setattr(tuning, "TUNED_PATH", stored)
    game = get_game("all-in-ascent")
    # lookahead rolls the tuned planner out, mcts-tuned searches with it: both play its knobs
    text = V.tuned_rules_warning(game, {"rules_fingerprint": "bbbb"},
                                 ["mcts-tuned@128", "lookahead", "planner"])
    assert text.startswith("The tuned knobs for sprinter, which lookahead and mcts-tuned@128 "
                           "play, were fitted under v0.4.0 defaults")
    assert V.tuned_rules_warning(game, {"rules_fingerprint": "bbbb"},
                                 ["mcts@128", "planner", "greedy"]) is None


def test_first_ascent_tuned_knobs_are_read_as_fitted_under_the_defaults(tmp_path):
    # its stored records name no rules: `ascent tune` fitted them under the defaults, which the
    # tuning module names (fitted_rules_record), and `--store` now writes into a record
    from policies.first_ascent import tuning
    from sim.games.first_ascent.rules import build_rules, default_rules
    game = get_game("first-ascent")
    assert len(json.loads(tuning.TUNED_PATH.read_text())["characters"]) == 12
    assert tuning.fitted_rules_record()["rules_fingerprints"] == {
        str(n): default_rules(n).fingerprint for n in game.players}
    stored = tmp_path / "tuned.json"
    tuning.store("phil", {"knobs": {}}, "ascent tune ...", path=stored)
    record = json.loads(stored.read_text())["characters"]["phil"]
    assert record["rules"] == "First Ascent defaults" and record["rules_fingerprints"]
    # the defaults at any player count: no warning; another rule option: all twelve named
    for n in game.players:
        meta = {"rules_fingerprint": default_rules(n).fingerprint}
        assert V.tuned_rules_warning(game, meta, ["tuned", "mcts-tuned@16"]) is None
    changed = {"rules_fingerprint": build_rules(3, {"risk_die_odds": "2:1:1"}).fingerprint}
    text = V.tuned_rules_warning(game, changed, ["tuned"])
    assert text.startswith("The tuned bot's knobs for bionic_woman, bold_brit,")
    assert "young_prodigy were fitted under First Ascent defaults" in text


def test_all_in_ascent_flags_a_character_that_never_tries_its_top_milestone():
    api = get_game("all-in-ascent").api
    seats = pd.DataFrame({
        "character": ["sprinter"] * 150 + ["freeSolo"] * 150,
        "won": [False] * 150 + [True] * 150,
        "milestone_expert_attempts": [0] * 150 + [1] * 150,
        "turns_ended_early": [5] * 150 + [1] * 150})
    found = api.validity_warnings(SimpleNamespace(seats=seats))
    assert any("never attempted its expert milestone in 150 games" in w for w in found)
    assert any("ended 5.0 turns a game with time left while it could still train, climb, buy or "
               "redistribute (the others 1.0)" in w for w in found)
    assert not any("Free Solo never" in w for w in found)


def test_all_in_ascent_counts_a_turn_ended_early_only_while_more_than_resting_was_legal():
    # engine.note_turn_end, read by the warning above: a turn ended with time left (R37) counts
    # when the seat could still train, climb, buy or redistribute, not when only ending or
    # resting (R38) was legal
    import numpy as np
    from sim.games.all_in_ascent import engine as E, state as S
    from sim.games.all_in_ascent.game import EndTurn, Game
    game = Game(3, ["sprinter", "freeSolo"], record=False)
    st, t = game.state.copy(), game.tables
    legal = np.empty(S.N_ACTIONS, np.int64)
    n = E.legal_actions(st, t, legal)
    assert n > 2 and legal[1] == S.REST and st[S.player_offset(0) + S.P_TIME] > 0

    def counted(st, legal, n, action=S.END_TURN):
        after = st.copy()
        E.note_turn_end(after, np.int64(action), legal, np.int64(n))
        early = S.player_offset(0) + S.P_EARLY_ENDS
        return after[early] - st[early]
    assert counted(st, legal, n) == 1
    assert counted(st, legal, 2) == 0 and counted(st, legal, 1) == 0    # end or rest only
    assert counted(st, legal, n, S.REST) == 0
    no_time = st.copy()
    no_time[S.player_offset(0) + S.P_TIME] = 0
    assert counted(no_time, legal, n) == 0
    # the single-game API counts as the kernel does
    game.step(EndTurn())
    assert game.state[S.player_offset(0) + S.P_EARLY_ENDS] == 1


def test_the_report_shows_the_warnings_on_its_first_screen(tmp_path):
    from sim.cli import main
    out = tmp_path / "run"
    # a 1-round cap stops every game before anyone wins
    assert main(["simulate", "--game", "ascension", "--players", "2", "--games", "30",
                 "--seed", "1", "--policy", "random", "--rule", "max_turns=3", "--out",
                 str(out), "--quiet"]) == 0
    assert main(["report", str(out)]) == 0
    page = (out / "report.html").read_text()
    assert "Read with care" in page
    assert "were stopped by a cap (end reason cap) before anyone won" in page


def test_the_comparison_page_shows_each_runs_warnings(tmp_path):
    from sim.cli import main

    def run(name, policy, *rule):
        out = tmp_path / name
        assert main(["simulate", "--game", "ascension", "--players", "2", "--games", "30",
                     "--seed", "1", "--policy", policy, *rule, "--out", str(out),
                     "--quiet"]) == 0
        return out
    # the stair builder decides its games; cut to 3 turns, no game is decided
    base, capped = run("base", "stair-builder"), run("capped", "stair-builder", "--rule",
                                                        "max_turns=3")
    assert main(["report", str(capped), "--against", str(base)]) == 0
    page = (capped / "compare.html").read_text()
    assert "Read with care" in page
    assert "Variant (capped): 30 of 30 games (100.0%) were stopped by a cap" in page
    assert "Baseline (" not in page and "Both runs:" not in page
    # a warning both runs give is said once
    stalled = run("stalled", "stair-builder", "--rule", "max_turns=4")
    assert main(["report", str(capped), "--against", str(stalled)]) == 0
    page = (capped / "compare.html").read_text()
    assert "Both runs: 30 of 30 games (100.0%) were stopped by a cap" in page
    assert "Variant (" not in page


def test_first_ascent_flags_a_character_that_never_summits_or_scores_its_objectives():
    api = get_game("first-ascent").api
    seats = pd.DataFrame({
        "character": ["rope_gun"] * 120 + ["the_dirtbag"] * 120 + ["free_soloist"] * 50,
        "summits": [0] * 120 + [1] * 120 + [0] * 50,
        "personal_scored": [1] * 120 + [0] * 120 + [0] * 50})
    found = api.validity_warnings(SimpleNamespace(seats=seats))
    # named as the reports name them (the data's names, not the keys)
    assert any(w.startswith("Rope Gun never reached a summit in 120 games") for w in found)
    assert any(w.startswith("The Dirtbag never scored a personal objective in 120 games")
               for w in found)
    assert len(found) == 2          # 50 games are too few to say never


def test_ascension_flags_a_bot_that_never_reaches_the_summit():
    api = get_game("ascension").api
    seats = pd.DataFrame({"policy": ["random"] * 200 + ["hybrid"] * 200,
                          "ever_summit": [0] * 200 + [0] * 199 + [1]})
    found = api.validity_warnings(SimpleNamespace(seats=seats))
    assert found == ["The bot random never reached the summit in 200 games: its numbers say "
                     "how the bot plays it, not what it can do."]


# --- verdicts the skill curve does not back (principle 6: said next to the number) -------------

def test_a_verdict_the_skill_curve_does_not_back_gets_a_caution():
    from sim.experiment.skill import TopVerdict
    check = V.SkillCheck("character", "tuned", "results/SKILL.md", {
        (4, "crimper"): TopVerdict("over", True, "mcts-tuned@64", "mcts-tuned@16"),
        (4, "overstoker"): TopVerdict("even", False, "mcts-tuned@64", "mcts-tuned@16"),
        (4, "dirtbag"): TopVerdict("over", False, "mcts-tuned@64", "mcts-tuned@16")})
    unconverged = check.caution(4, "crimper", -0.02, True)
    assert unconverged.startswith("tuned finds it under-powered, and the skill curve has not "
                                  "converged on it (mcts-tuned@64 finds it over-powered")
    assert check.caution(4, "overstoker", 0.1, True) == (
        "tuned finds it over-powered; mcts-tuned@64, the skill curve's strongest bot, finds it "
        "not told apart from fair")
    assert check.caution(4, "dirtbag", 0.1, True) == ""            # the curve backs it
    assert check.caution(4, "dirtbag", -0.1, True) != ""           # the curve says the opposite
    assert check.caution(4, "crimper", -0.02, False) == ""         # no verdict, nothing to doubt
    assert check.caution(3, "crimper", -0.02, True) == ""          # no curve at 3 players
    # the run's bot is the curve's strongest: a different verdict is a matter of samples
    same = V.SkillCheck("character", "mcts-tuned@64", "results/SKILL.md", {
        (4, "overstoker"): TopVerdict("even", False, "mcts-tuned@64", "mcts-tuned@16", 337),
        (4, "nobody"): TopVerdict("no decided game", True, "mcts-tuned@64", "mcts-tuned@16")})
    assert same.caution(4, "overstoker", 0.1, True) == ""
    assert same.caution(4, "nobody", 0.1, True) == ""
    counted = V.SkillCheck("character", "tuned", "results/SKILL.md", same.verdicts)
    assert counted.caution(4, "overstoker", 0.1, True).endswith(
        "finds it not told apart from fair in 337 decided games")


def skill_run(policies, fingerprint, players=4):
    seats = pd.DataFrame({"policy": policies})
    return SimpleNamespace(meta={"game": "first-ascent", "rules_fingerprint": fingerprint},
                           games=pd.DataFrame({"players": [players]}), seats=seats)


def test_only_a_self_play_run_under_the_curves_rules_is_checked_against_it():
    game = get_game("first-ascent")
    default = game.build_rules(4).fingerprint
    check = V.skill_check(skill_run(["tuned"] * 4, default), ["tuned"] * 4)
    assert check.group == "character" and check.policy == "tuned"
    # every row of the curve is keyed by its character (First Ascent's curve has all 12)
    assert len(check.verdicts) == len(game.character_keys()) == 12 and check.unchecked == {}
    # other rules, or a player count with no curve: nothing checked, and the report says why
    other = V.skill_check(skill_run(["tuned"] * 4, "another"), ["tuned"] * 4)
    assert other.verdicts == {} and other.unchecked == {4: (
        "the skill curve in results/SKILL.md was played under the default rules, not this "
        "run's")}
    three = V.skill_check(skill_run(["tuned"] * 3, game.build_rules(3).fingerprint, 3),
                          ["tuned"] * 3)
    assert three.verdicts == {} and three.unchecked == {
        3: "results/SKILL.md has no skill curve at 3 players"}
    assert V.skill_check(skill_run(["tuned", "planner"] * 2, default),
                         ["tuned", "planner"] * 2) is None


def test_an_experiment_variant_is_checked_per_player_count_under_its_own_rules():
    from sim.report.analysis import _variant_fingerprints
    game = get_game("first-ascent")
    baseline = _variant_fingerprints("first-ascent", {"preset": None, "rules": {}, "set": {}},
                                     [3, 4])
    assert baseline == {3: game.build_rules(3).fingerprint, 4: game.build_rules(4).fingerprint}
    knob = _variant_fingerprints("first-ascent", {"preset": None, "rules": {},
                                                  "set": {"characters.phil.start_water": "6"}},
                                 [4])
    assert knob[4] != baseline[4]
    run = skill_run(["tuned"] * 4, None)
    run.meta["rules_fingerprints"] = baseline
    assert V.skill_check(run, ["tuned"] * 4).verdicts
    run.meta["rules_fingerprints"] = knob
    assert V.skill_check(run, ["tuned"] * 4).verdicts == {}
    # a variant whose rules this version no longer builds: the report still loads, unchecked
    broken = _variant_fingerprints("first-ascent", {"rules": {"no_such_option": "1"}}, [4])
    assert broken == {}
    run.meta["rules_fingerprints"] = broken
    assert V.skill_check(run, ["tuned"] * 4).unchecked == {
        4: "this run does not record its rules in a form to compare"}


def test_a_check_within_one_family_of_bots_says_so():
    # First Ascent's curve tops out at mcts-tuned@64, a search that rolls out the planner:
    # checking `tuned` against it is one family of bots; checking `greedy` is not
    default = get_game("first-ascent").build_rules(4).fingerprint
    tuned = V.skill_check(skill_run(["tuned"] * 4, default), ["tuned"] * 4)
    assert tuned.shared_family == {4: "planner"}
    assert tuned.checked_note(4).endswith(
        "Its strongest bot, mcts-tuned@64, builds on planner as tuned does: one family of bots, "
        "so this checks the verdicts against more skill at one way of playing, not against "
        "another way.")
    greedy = V.skill_check(skill_run(["greedy"] * 4, default), ["greedy"] * 4)
    assert greedy.shared_family == {} and "one family" not in greedy.checked_note(4)


@pytest.mark.parametrize("game", ["all-in-ascent", "first-ascent", "ascension"])
def test_every_bots_family_is_a_bot_of_its_game(game):
    from sim.core.policies import policy_names, registered_policy
    names = policy_names(game)
    families = {registered_policy(game, name).family_name for name in names}
    assert families <= set(names)
    assert len(families) < len(names)       # some bot builds on another (so the check can fail)
