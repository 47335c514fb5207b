"""Designer reports: the statistics against statsmodels/scipy, planted and null effects, a real
render (offline HTML, every section), the comparison view and the notebook."""
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.core.stats import binomial_p_value, fisher_exact_p, holm, wilson_interval
from sim.report import analysis as A
from sim.report import first_screen as FS

ROOT = Path(__file__).resolve().parent.parent


# --- statistics -----------------------------------------------------------------------------------

@pytest.mark.parametrize("wins, n", [(0, 10), (3, 10), (10, 10), (412, 1000), (1, 400000)])
def test_wilson_interval_agrees_with_statsmodels(wins, n):
    from statsmodels.stats.proportion import proportion_confint
    lo, hi = wilson_interval(wins, n)
    slo, shi = proportion_confint(wins, n, alpha=0.05, method="wilson")
    assert lo == pytest.approx(slo, abs=1e-12) and hi == pytest.approx(shi, abs=1e-12)


def test_holm_on_a_known_case():
    # p sorted: 0.01, 0.02, 0.04, 0.3 with m = 4 -> 0.04, 0.06, 0.08, 0.3 (monotone)
    assert holm([0.02, 0.3, 0.01, 0.04]) == pytest.approx([0.06, 0.3, 0.04, 0.08])


def test_holm_leaves_an_untested_row_out_of_the_family():
    # a NaN p-value has nothing to test: it stays NaN and the other three are corrected as
    # a family of three, as where the untested row is not given at all
    assert holm([0.02, np.nan, 0.01, 0.04]) == pytest.approx([0.04, np.nan, 0.03, 0.04],
                                                            nan_ok=True)
    assert np.isnan(holm([np.nan, np.nan])).all() and holm([]).size == 0


@pytest.mark.parametrize("seed", range(5))
def test_holm_equals_statsmodels(seed):
    from statsmodels.stats.multitest import multipletests
    rng = np.random.default_rng(seed)
    p = np.concatenate([rng.uniform(0, 1, 30), rng.uniform(0, 0.01, 10), [0.5, 0.5, 1.0, 0.0]])
    rng.shuffle(p)
    assert holm(p) == pytest.approx(multipletests(p, method="holm")[1], abs=1e-15)


def test_binomial_and_fisher_tests_on_known_cases():
    from scipy.stats import binomtest, fisher_exact
    assert binomial_p_value(30, 100, 0.25) == pytest.approx(binomtest(30, 100, 0.25).pvalue)
    assert binomial_p_value(25, 100, 0.25) == pytest.approx(1.0)
    assert fisher_exact_p(60, 100, 40, 100) == pytest.approx(
        fisher_exact([[60, 40], [40, 60]]).pvalue, rel=1e-9)


# --- planted and null effects -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def real_run(tmp_path_factory):
    from sim.cli import main
    out = tmp_path_factory.mktemp("run") / "base"
    assert main(["simulate", "--players", "4", "--games", "3000", "--seed", "4", "--policy",
                 "random", "--out", str(out), "--quiet"]) == 0
    return out


def with_winners(real_run, weights, seed):
    """The real run's tables with winners drawn anew: seat weights by character."""
    r = A.load_results(real_run)
    rng = np.random.default_rng(seed)
    seats = r.seats.copy()
    w = seats["character"].astype(str).map(weights).fillna(1.0).to_numpy()
    games = seats["game"].to_numpy()
    u = rng.random(len(seats)) ** (1.0 / w)        # weighted choice: the largest key wins
    seats["won"] = False
    seats["key"] = u
    idx = seats.groupby("game")["key"].idxmax()
    seats.loc[idx, "won"] = True
    seats = seats.drop(columns="key")
    winner_seat = seats[seats["won"]].set_index("game")["seat"]
    g = r.games.copy()
    g["winner_seat"] = g["game"].map(winner_seat).astype(np.int64)
    assert len(np.unique(games)) == len(g)
    return A.Results("synthetic", g, seats, {})


def test_a_planted_character_advantage_is_flagged(real_run):
    r = with_winners(real_run, {"sprinter": 1.6}, seed=1)
    screen = A.screen(r)
    chars = screen.family("characters").table
    flagged = set(chars.loc[chars["significant"], "character"])
    assert "sprinter" in flagged
    top = FS.top_findings(screen.family("characters"))
    assert top and top[0].startswith("Sprinter") and "above parity" in top[0]


def test_no_effect_flags_nothing_beyond_the_nominal_rate(real_run):
    families = 40
    with_any_flag = 0
    for seed in range(families):
        screen = A.screen(with_winners(real_run, {}, seed=100 + seed))
        with_any_flag += any(f.table["significant"].fillna(False).astype(bool).any()
                             for f in screen.families if len(f.table))
    # one Holm correction over the whole first screen keeps its error at 5%: allow for
    # sampling noise over 40 runs
    assert with_any_flag <= 6


# --- the report -------------------------------------------------------------------------------------

SECTIONS = ("Characters, ranked", "Seat advantage", "Top findings, by family", "2. Characters",
            "3. Gear cards", "4. Milestone draws", "5. Game flow")


def test_the_report_renders_offline_with_every_section(real_run):
    from sim.cli import main
    assert main(["report", str(real_run)]) == 0
    page = (real_run / "report.html").read_text()
    for section in SECTIONS:
        assert section in page
    assert not re.search(r"(src|href)=[\"']https?://", page)        # nothing to fetch
    # the first screen says how to go from a verdict to a fix, for this game
    assert "From verdict to fix" in page and "ascent sweep --game all-in-ascent" in page
    assert page.count("data:image/png;base64,") >= 6
    for name in ("characters_forest_p4", "game_length", "gear_purchase", "presence"):
        assert (real_run / "figures" / f"{name}.png").exists()
    chars = pd.read_csv(real_run / "tables" / "characters.csv")
    assert set(chars.columns) >= {"n", "rate", "ci_low", "ci_high", "parity", "p_screen"}
    # the tables that once rendered empty have rows
    assert "First 0 of" not in page
    for name in ("milestone_characters", "milestone_progress"):
        assert len(pd.read_csv(real_run / "tables" / f"{name}.csv")) > 0
    # the gear cards' rates each have their n beside them (principle 3)
    purchases = pd.read_csv(real_run / "tables" / "gear_purchases.csv")
    assert {"seats", "purchase_ci_low", "winners", "winners_ci_low"} <= set(purchases.columns)
    gear = page[page.index("3. Gear cards"):page.index("4. Milestone draws")]
    for column in ("owners", "owners_win", "non_owners", "non_owners_win", "all_seats"):
        assert f"<th>{column}</th>" in gear
    # and the milestones' shares: drawn, and the progress by round
    from sim.core.stats import wilson_interval
    draws = pd.read_csv(real_run / "tables" / "milestone_draws.csv")
    total = len(pd.read_parquet(real_run / "games.parquet"))
    assert draws.groupby("tier")["games"].sum().eq(total).all()      # one draw a tier a game
    for row in draws.itertuples():
        assert (row.drawn_ci_low, row.drawn_ci_high) == \
            pytest.approx(wilson_interval(row.games, total))
    progress = pd.read_csv(real_run / "tables" / "milestone_progress.csv")
    assert {"seats", "at_least_1_ci_low", "all_3_ci_high"} <= set(progress.columns)
    assert "<th>all 3 by the end [95%]</th>" in page
    # no Python reprs or bare zeros on the page
    assert "['" not in page and "{'" not in page and "nan%" not in page


def test_the_header_names_a_data_file_of_the_designer_s_own(real_run, tmp_path):
    """A copy of the bundled data file with one number changed, under the bundled file's name:
    the report's header read "preset v0.4.0" as for the shipped data, and only manifest.json
    told them apart. It now says which, by the file's bytes."""
    import json
    from sim.cli import main
    from sim.games.all_in_ascent.data import bundled_path
    (tmp_path / "mod").mkdir()
    doc = json.loads(bundled_path("v0.4.0").read_text())
    doc["CHARACTERS"]["sprinter"]["startingStats"]["strength"] += 5
    mine = tmp_path / "mod" / "data-v0.4.0.json"
    mine.write_text(json.dumps(doc))
    out = tmp_path / "mine"
    assert main(["simulate", "--players", "4", "--games", "40", "--seed", "4", "--policy",
                 "random", "--data", str(mine), "--out", str(out), "--quiet"]) == 0
    assert main(["report", str(out)]) == 0
    sha = json.loads((out / "manifest.json").read_text())["data_sha256"]
    assert f"data file data-v0.4.0.json of its own, not a shipped one (sha256 {sha[:12]})" in \
        (out / "report.html").read_text()
    if not (real_run / "report.html").exists():
        assert main(["report", str(real_run)]) == 0
    assert "data data-v0.4.0.json as shipped" in (real_run / "report.html").read_text()


def test_the_comparison_view_is_paired_on_the_same_games(real_run, tmp_path):
    from sim.cli import main
    variant = tmp_path / "variant"
    assert main(["simulate", "--players", "4", "--games", "3000", "--seed", "4", "--policy",
                 "random", "--out", str(variant), "--quiet", "--rule",
                 "sprinter_fail_xp_halved=off"]) == 0
    assert main(["report", str(variant)]) == 0
    own = (variant / "report.html").read_text()
    assert main(["report", str(variant), "--against", str(real_run)]) == 0
    assert (variant / "report.html").read_text() == own      # its own report is left alone
    # a run against itself: refused
    assert main(["report", str(variant), "--against", str(variant)]) == 2
    page = (variant / "compare.html").read_text()
    assert page.index("What changed (paired on the same games)") < page.index("<img")
    # how the games ended, paired game by game (principle 3: it was the two runs side by side)
    from sim.core.stats import paired_proportion_difference
    endings = pd.read_csv(variant / "tables" / "compare_endings.csv").set_index("end")
    ends = A.load_results(real_run).games.merge(A.load_results(variant).games, on="game")
    for end, row in endings.iterrows():
        was, now = ends["end_reason_x"] == end, ends["end_reason_y"] == end
        base_only, variant_only = int((was & ~now).sum()), int((now & ~was).sum())
        assert row["changed"] == base_only + variant_only and row["games"] == len(ends)
        assert (row["difference"], row["ci_low"], row["ci_high"]) == pytest.approx(
            paired_proportion_difference(base_only, variant_only, len(ends)))
    assert "How the games ended, paired on the same games" in page
    # a row of the paired table counts seats (a bot in two seats of a game counts twice)
    paired = page[page.index("difference [paired 95%]") - 400:]
    assert "<th>seats</th>" in paired[:paired.index("</tr>")]
    diff = pd.read_csv(variant / "tables" / "compare_paired.csv")
    assert len(diff) == 5
    assert {"difference", "paired_ci_low", "unpaired_ci_low"} <= set(diff.columns)
    assert ((diff["paired_ci_high"] - diff["paired_ci_low"]) <=
            (diff["unpaired_ci_high"] - diff["unpaired_ci_low"]) + 1e-12).all()


def test_the_comparison_view_on_an_experiment_folder(tmp_path, capsys):
    from sim.cli import main
    from sim.experiment.runner import run_experiment
    from sim.experiment.spec import load_spec
    spec_path = tmp_path / "versions.toml"
    spec_path.write_text(f'''
games = 400
players = [3]
policy = "designers-heuristic"
chunk = 200
out = "{tmp_path / 'versions'}"
[variants.baseline]
preset = "v0.4.0"
[variants.v060]
preset = "v0.6.0"
''')
    run_experiment(load_spec(spec_path), jobs=1, quiet=True)
    out = tmp_path / "versions"
    assert main(["report", str(out), "--variant", "v060", "--against", str(out)]) == 0
    page = (out / "compare-v060.html").read_text()
    assert "versions/v060 against versions/baseline" in page
    assert "designers-heuristic in every seat" in page
    # a variant against itself would show every difference as 0: refused, naming the others
    capsys.readouterr()
    assert main(["report", str(out), "--against", str(out)]) == 2
    message = capsys.readouterr().err
    assert "variant 'baseline' against itself" in message and "others: v060" in message
    assert not (out / "compare.html").exists()
    # the variant's own report: `policy = "..."` is one bot in every seat, not its letters
    assert main(["report", str(out)]) == 0
    page = (out / "report.html").read_text()
    assert "Bots: designers-heuristic in every seat." in page and "seat 1 d," not in page


def test_a_one_variant_experiment_against_itself_asks_for_another_run(tmp_path):
    import json
    from sim.report.render import _self_comparison
    (tmp_path / "experiment.json").write_text(json.dumps(
        {"variant_order": ["baseline"], "identity": {"variants": {"baseline": {}}}}))
    message = _self_comparison(tmp_path, {"variant": "baseline"})
    assert "no other variant: name another run of the same seeds" in message
    assert "--variant" not in message


def test_runs_of_no_common_player_count_are_refused_not_compared(tmp_path, capsys):
    """A comparison of a 3-player run against a 4-player run of the same seeds has nothing to
    pair: it is refused, naming both runs' player counts (it wrote a page saying so and exited
    0, as if a comparison had been made)."""
    from sim.cli import main
    for players in (3, 4):
        assert main(["simulate", "--players", str(players), "--games", "20", "--seed", "4",
                     "--policy", "random", "--out", str(tmp_path / f"p{players}"),
                     "--quiet"]) == 0
    capsys.readouterr()
    assert main(["report", str(tmp_path / "p3"), "--against", str(tmp_path / "p4")]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'p4'}: 4-player games; " in err
    assert ": 3-player games: no player count in common, so nothing to pair" in err
    assert not (tmp_path / "p3" / "compare.html").exists()


def test_report_on_a_missing_folder_is_a_clear_error(tmp_path, capsys):
    from sim.cli import main
    assert main(["report", str(tmp_path / "nothing")]) == 2
    assert f"{tmp_path / 'nothing'}: no such folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["report", str(tmp_path / "empty")]) == 2
    assert "neither a simulate folder" in capsys.readouterr().err
    # it was ignored without --against
    assert main(["report", str(tmp_path / "empty"), "--against-variant", "x"]) == 2
    assert "--against-variant: names a variant of the --against folder; give --against too" \
        in capsys.readouterr().err


def test_the_notebook_runs(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(ROOT / "notebooks" / "designer_walkthrough.ipynb", as_version=4)
    os.environ["ASCENT_NOTEBOOK_GAMES"] = "300"
    try:
        nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                resources={"metadata": {"path": str(ROOT)}}).execute()
    finally:
        os.environ.pop("ASCENT_NOTEBOOK_GAMES", None)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    # the figures show in the notebook (its three figures: win share, game length, training)
    shown = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
             and any("image/png" in o.get("data", {}) for o in c.get("outputs", []))]
    assert len(shown) == 3, shown


def card_experiment(tmp_path, name, variants):
    """300 three-player planner games per variant: the baseline and `variants` (TOML tables);
    reported. Returns the experiment folder."""
    from sim.cli import main
    from sim.experiment.runner import run_experiment
    from sim.experiment.spec import load_spec
    spec_path = tmp_path / f"{name}.toml"
    spec_path.write_text(f'''
games = 300
players = [3]
policy = "planner"
chunk = 300
out = "{tmp_path / name}"
[variants.baseline]
{variants}''')
    run_experiment(load_spec(spec_path), jobs=1, quiet=True)
    assert main(["report", str(tmp_path / name)]) == 0
    return tmp_path / name


def test_an_ablation_experiment_gives_the_causal_effect_per_card(tmp_path):
    out = card_experiment(tmp_path, "ablation", '''[variants.without_shoes]
set = { 'gear."Approach Shoes".in_deck' = 0 }
''')
    page = (out / "report.html").read_text()
    assert "Causal effect of each card" in page
    table = pd.read_csv(out / "tables" / "gear_ablation.csv")
    assert set(table["card_removed"]) == {"Approach Shoes"} and len(table) == 5
    assert (table["card_effect"] == -table["difference"]).all()


def test_card_worth_treatments_keep_the_deal_and_are_ranked(tmp_path):
    """Never bought (a price beyond any seat's XP) and price changes leave the setup and the deal
    as they were; the report ranks cards by worth per 100 XP and gives each price slope."""
    from sim.experiment.runner import load_variant
    out = card_experiment(tmp_path, "worth", '''[variants.never_shoes]
set = { 'gear."Approach Shoes".cost' = 100000 }
[variants.half_shoes]
set = { 'gear."Approach Shoes".cost' = 28 }
[variants.more_shoes]
set = { 'gear."Approach Shoes".cost' = 82 }
[variants.without_shoes]
set = { 'gear."Approach Shoes".in_deck' = 0 }
''')
    never = load_variant(out, "never_shoes", 3)
    assert not never["owns_approach_shoes"].any()          # nobody can pay 100,000 XP
    base = load_variant(out, "baseline", 3)
    assert base["owns_approach_shoes"].any()
    table = pd.read_csv(out / "tables" / "gear_ablation.csv")
    assert set(table["treatment"]) == {"never bought", "price", "taken out of the deck"}
    assert (table["cost"] == 55).all()                      # the v0.4.0 price, from the data
    assert sorted(table.loc[table["treatment"] == "price", "new_cost"].unique()) == [28, 82]
    assert table.loc[table["treatment"] == "price", "card_effect"].isna().all()
    # a card still dealt keeps the games alike far longer than one taken out of the deck
    gain = table.groupby("treatment")["pairing_gain"].median()
    assert gain["never bought"] > gain["taken out of the deck"]
    ranking = pd.read_csv(out / "tables" / "card_worth.csv")
    assert list(ranking["card"]) == ["Approach Shoes"]
    assert ranking["price_range"].iloc[0] == "28..82"
    page = (out / "report.html").read_text()
    assert "Ranked by worth per 100 XP" in page and "never bought" in page
    assert "<td>100000</td>" not in page and "<td>100,000</td>" not in page  # the price unset
    assert (out / "figures" / "gear_ablation.png").exists()


def test_card_worth_is_ranked_per_player_count_with_an_interval_for_the_pick():
    """An experiment over two player counts got one row per card (its price rows indexed by
    character across counts made the report crash); and the worth, the largest of the card's
    character effects, gets an interval corrected for that pick (Bonferroni over them), wider
    than the picked row's own."""
    from sim.core.stats import paired_proportion_difference
    rows = []
    for players in (3, 4):
        for character, (base_only, variant_only) in {"a": (40, 10), "b": (20, 20),
                                                      "c": (15, 25)}.items():
            d, lo, hi = paired_proportion_difference(base_only, variant_only, 1000)
            rows.append({"card_removed": "Shoes", "treatment": "never bought",
                         "character": character, "players": players, "cost": 55,
                         "new_cost": np.nan, "difference": d, "paired_ci_low": lo,
                         "paired_ci_high": hi, "card_effect": -d, "significant": False,
                         "base_only": base_only, "variant_only": variant_only, "games": 1000,
                         "seats_a_game": 1})
            for price, shift in ((28, 0.01), (82, -0.01 * players)):
                rows.append({"card_removed": "Shoes", "treatment": "price",
                             "character": character, "players": players, "cost": 55,
                             "new_cost": price, "difference": shift, "card_effect": np.nan})
    ranking = A.card_worth_ranking(pd.DataFrame(rows))
    assert list(ranking["players"]) == [3, 4] and (ranking["helps_most"] == "a").all()
    own = paired_proportion_difference(40, 10, 1000)
    for row in ranking.itertuples():
        assert row.worth == pytest.approx(0.03) and row.worth_choices == 3
        assert row.worth_ci_low < -own[2] and row.worth_ci_high > -own[1]
    assert list(ranking["points_per_10_xp"]) == pytest.approx(
        [(-0.03 - 0.01) / 54 * 10, (-0.04 - 0.01) / 54 * 10])


def test_the_first_screen_promises_only_the_marks_it_makes():
    """The note under the ranking says what a ⚠ means, and caution() keeps that promise: a run
    of a weaker bot gets a mark wherever the curve's strongest bot does not back the verdict
    (also where that bot decided no game with the character seated); a run of the curve's own
    strongest bot was checked against nothing stronger, and the note says so."""
    from sim.experiment.skill import TopVerdict
    from sim.report.validity import SkillCheck
    verdicts = {(4, "a"): TopVerdict("even", False, "mcts-tuned@128", "mcts-tuned@32", 900),
                (4, "b"): TopVerdict("no decided game", False, "mcts-tuned@128",
                                     "mcts-tuned@32"),
                (4, "c"): TopVerdict("over", True, "mcts-tuned@128", "mcts-tuned@32", 900),
                (4, "d"): TopVerdict("over", False, "mcts-tuned@128", "mcts-tuned@32", 900)}
    weaker = SkillCheck("character", "tuned", "results/SKILL.md", verdicts,
                        converged={4: False})
    assert weaker.checked_note(4).startswith("Checked against stronger play: the skill curve "
                                             "in results/SKILL.md (self-play up to "
                                             "mcts-tuned@128) marks with ⚠ each verdict")
    assert "finds it not told apart from fair" in weaker.caution(4, "a", 0.1, True)
    assert "decided no game in which it sat" in weaker.caution(4, "b", 0.1, True)
    assert "has not converged" in weaker.caution(4, "c", 0.1, True)
    assert weaker.caution(4, "d", 0.1, True) == ""
    assert weaker.caution(4, "a", 0.1, False) == ""         # not significant: no verdict
    strongest = SkillCheck("character", "mcts-tuned@128", "results/SKILL.md", verdicts,
                           converged={4: False})
    note = strongest.checked_note(4)
    assert note.startswith("Not checked against stronger play: mcts-tuned@128 is the strongest "
                           "bot of the skill curve in results/SKILL.md, so ⚠ marks only a "
                           "verdict on which the curve's next-strongest bot, mcts-tuned@32, "
                           "disagrees")
    assert "UNCONVERGED" in note and "backed in direction" not in note
    assert strongest.caution(4, "a", 0.1, True) == ""        # a difference of samples only
    assert strongest.caution(4, "b", 0.1, True) == ""
    assert "mcts-tuned@32, the skill curve's next-strongest bot, does not" in \
        strongest.caution(4, "c", 0.1, True)


def test_a_verdict_the_skill_curve_does_not_back_is_marked_next_to_its_number(real_run, tmp_path,
                                                                              monkeypatch):
    """Principle 6: the first screen marks, on the row and on the finding, a character this run
    finds over- or under-powered that the skill curve's strongest bot judges otherwise, or whose
    verdict flips between its two strongest bots. The curve here is made up so that the random
    run's clear verdicts (Route Reader over, Sprinter under) meet both cases."""
    from sim.cli import main
    from sim.report import validity
    skill = tmp_path / "results" / "SKILL.md"
    skill.parent.mkdir()
    skill.write_text(
        "## Skill curve: All-In Ascent, 4 players\n\n"
        "Command: `ascent skill --game all-in-ascent --players 4`\n\n"
        "Levels, weakest first: `random`, `tuned`, `lookahead`. Self-play at every level.\n\n"
        "| character | verdict at the strongest level | levels where it holds | between the two "
        "strongest levels |\n|---|---|---|---|\n"
        "| Route Reader | even | lookahead | the same |\n"
        "| Sprinter | under | random, lookahead | UNCONVERGED: it flips |\n"
        "| Technician | under | random, tuned, lookahead | the same |\n")
    monkeypatch.setattr(validity, "skill_file", lambda game: skill)
    assert main(["report", str(real_run)]) == 0
    page = (real_run / "report.html").read_text()
    assert ("⚠ Route Reader</span> may be a bot artifact: random finds it over-powered; "
            "lookahead, the skill curve&#x27;s strongest bot, finds it not told apart from "
            "fair") in page
    assert ("⚠ Sprinter</span> may be a bot artifact: random finds it under-powered, and the "
            "skill curve has not converged on it") in page
    assert "⚠ Technician" not in page
    findings = page[page.index("Top findings, by family"):]
    first = findings[:findings.index("</li>")]          # the largest finding: Route Reader
    assert "Route Reader wins" in first
    assert first.endswith("⚠ may be a bot artifact (see the ranking)</span>")
    assert "Not checked against stronger play" not in page
    # what backs the unmarked rows, and how far the curve has converged
    assert ("Checked against stronger play: the skill curve in results/SKILL.md (self-play up "
            "to lookahead) marks with ⚠ each verdict here that it does not back.") in page
    skill.write_text(skill.read_text() + "\n**Convergence:** UNCONVERGED. The two strongest "
                     "levels (`tuned`, `lookahead`), game by game: ...\n")
    assert main(["report", str(real_run)]) == 0
    page = (real_run / "report.html").read_text()
    assert ("its two strongest levels (tuned, lookahead) have not passed its 2-point test "
            "(UNCONVERGED), so an unmarked verdict is backed in direction, not yet in size"
            ) in page
    # a curve at another player count: no row is marked, and the report says why
    skill.write_text(skill.read_text().replace("4 players", "3 players"))
    assert main(["report", str(real_run)]) == 0
    page = (real_run / "report.html").read_text()
    assert "may be a bot artifact" not in page and "Checked against stronger play" not in page
    assert ("Not checked against stronger play: results/SKILL.md has no skill curve at 4 "
            "players.") in page


def test_the_header_names_what_differs_from_the_preset_and_nothing_else():
    """The round cap is kept apart from the switches in a simulate manifest, and was left out
    of the header (--rule max_rounds=30 read as the stock game); an experiment's variant
    naming a switch at its default plays the default game, and was named (review helpers')."""
    from sim.report.all_in_ascent import describe_rules
    simulate = {"rules": {"preset": "v0.4.0", "max_rounds": 30, "switches": {}, "knobs": {}}}
    assert describe_rules(simulate) == "preset v0.4.0; switches max_rounds=30"
    simulate["rules"]["max_rounds"] = 45
    assert describe_rules(simulate) == "preset v0.4.0"
    variant = {"preset": "v0.4.0", "rules": {"preset": "v0.4.0", "set": {}, "rules": {
        "sprinter_fail_xp_halved": "on", "shared_belayer_pool": "on", "max_rounds": "45"}}}
    assert describe_rules(variant) == "preset v0.4.0; switches shared_belayer_pool=on"


def test_the_comparison_pages_game_flow_rates_carry_their_intervals():
    """Principle 3: 'How the games changed' showed Ascension's and First Ascent's shares of
    games as bare percentages (All-In Ascent's had intervals)."""
    from types import SimpleNamespace
    from sim.core.game import get_game
    from sim.core.stats import wilson_interval
    from sim.report.first_screen import pct_interval
    ends = ["win"] * 17 + ["cap"] * 3
    run = SimpleNamespace(games=pd.DataFrame({"end_reason": ends, "turns": range(20)}))
    row = get_game("ascension").api.flow_row(run)
    assert row["won games"] == pct_interval(0.85, *wilson_interval(17, 20))
    ends = ["eight_pitches"] * 18 + ["round_cap"] * 2
    run = SimpleNamespace(games=pd.DataFrame({"end_reason": ends, "rounds": range(20)}),
                          seats=pd.DataFrame({"score": [1.0, 2.0]}))
    row = get_game("first-ascent").api.flow_row(run)
    assert row["round cap"] == pct_interval(0.1, *wilson_interval(2, 20))
    assert row["stranded"] == pct_interval(0.0, *wilson_interval(0, 20))


def test_paired_endings_count_each_player_count_on_its_own_games():
    """How the games ended, paired: per player count, on the games both runs played; a game
    without an end reason or a repeated game is refused, not counted."""
    from sim.core.stats import mcnemar_exact_p, paired_proportion_difference
    from sim.report.compare import paired_endings
    ends = pd.Categorical(["win", "win", "cap", "win", "cap", "win", "win"],
                          categories=["win", "cap", "all_eliminated"])
    base = A.Results("base", pd.DataFrame({"game": range(7), "players": [2, 2, 2, 2, 3, 3, 3],
                                           "end_reason": ends}), pd.DataFrame(), {})
    variant = A.Results("variant", base.games.assign(end_reason=pd.Categorical(
        ["cap", "win", "cap", "cap", "win", "win", "win"],
        categories=["win", "cap", "all_eliminated"])), pd.DataFrame(), {})
    table = paired_endings(base, variant).set_index(["players", "end"])
    # 2 players: 4 games; cap 1 -> 3 (games 0 and 3 turned), never the other way
    cap = table.loc[(2, "cap")]
    assert (cap["games"], cap["base_rate"], cap["variant_rate"], cap["changed"]) == \
        (4, 0.25, 0.75, 2)
    assert (cap["difference"], cap["ci_low"], cap["ci_high"]) == \
        pytest.approx(paired_proportion_difference(0, 2, 4))
    assert cap["p"] == mcnemar_exact_p(0, 2)
    # 3 players on their own (game 4 turned from cap to win); an unused reason is listed
    assert table.loc[(3, "win"), "changed"] == 1 and table.loc[(3, "win"), "games"] == 3
    assert table.loc[(3, "all_eliminated"), "base_rate"] == 0.0
    assert table.groupby("players")["base_rate"].sum().tolist() == pytest.approx([1.0, 1.0])
    twice = A.Results("twice", pd.concat([base.games, base.games.iloc[:1]]), pd.DataFrame(), {})
    with pytest.raises(pd.errors.MergeError):
        paired_endings(twice, variant)
    unended = A.Results("unended", base.games.assign(end_reason=ends.remove_categories("cap")),
                        pd.DataFrame(), {})
    with pytest.raises(ValueError, match="unended: a game without an end reason"):
        paired_endings(unended, variant)
