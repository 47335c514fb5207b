"""First Ascent experiments (`game = "first-ascent"` in an experiment spec): validation, runs,
resume, independence from jobs and chunk size, paired comparisons and the report."""
import re
import shutil
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from sim.cli import main
from sim.experiment.runner import load_variant, run_experiment
from sim.experiment.spec import SpecError, load_spec

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = """
[variants.baseline]
[variants.bga]
rules = { readings = "bga", abilities_off = "phil" }
"""


def write_spec(tmp_path, out, games=40, chunk=20, extra="", variants=VARIANTS, name="fa"):
    path = tmp_path / f"{name}.toml"
    path.write_text(textwrap.dedent(f"""
        game = "first-ascent"
        players = [2]
        games = {games}
        seed = 11
        policy = "greedy"
        chunk = {chunk}
        out = "{out}"
        {extra}
    """) + variants)
    return path


def tables(out, variant, players=2):
    return load_variant(out, variant, players, table="games"), load_variant(out, variant, players)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fa_ref")
    spec = load_spec(write_spec(tmp, tmp / "out"))
    doc = run_experiment(spec, jobs=1, quiet=True)
    return spec, doc


def test_the_run_plays_the_kernels_games(reference):
    from sim.games.first_ascent.batch import run_games
    from sim.games.first_ascent.records import seats_table
    from sim.games.first_ascent.rules import build_rules
    spec, doc = reference
    assert sorted((c["variant"], c["index"]) for c in doc["chunks"]) == \
        [("baseline", 0), ("baseline", 1), ("bga", 0), ("bga", 1)]
    rules = build_rules(2, {"readings": "bga", "abilities_off": "phil"})
    direct = seats_table(run_games(40, 11, rules, "greedy"), rules).to_pandas()
    games, seats = tables(spec.out, "bga")
    assert games["game"].tolist() == list(range(40))
    pd.testing.assert_frame_equal(seats, direct)
    assert doc["identity"]["game"] == "first-ascent" and doc["identity"]["rotate_seats"] is False


def test_jobs_and_chunk_size_do_not_change_the_rows(reference, tmp_path):
    spec, _ = reference
    other = load_spec(write_spec(tmp_path, tmp_path / "out", chunk=40))
    run_experiment(other, jobs=2, quiet=True)
    for v in ("baseline", "bga"):
        for a, b in zip(tables(spec.out, v), tables(other.out, v)):
            pd.testing.assert_frame_equal(a, b)


def test_a_deleted_chunk_is_replayed_once_and_nothing_else(reference, tmp_path):
    spec, _ = reference
    out = tmp_path / "out"
    shutil.copytree(spec.out, out)
    shutil.rmtree(out / "chunks" / "bga" / "p2" / "chunk-00001")
    again = load_spec(write_spec(tmp_path, out))
    doc = run_experiment(again, jobs=1, quiet=True)
    assert doc["runs"][-1]["games_played"] == 20
    keys = [(c["variant"], c["players"], c["index"]) for c in doc["chunks"]]
    assert len(keys) == len(set(keys)) == 4
    doc = run_experiment(again, jobs=1, quiet=True)           # all done: nothing to play
    assert doc["runs"][-1]["games_played"] == 0
    for v in ("baseline", "bga"):
        for a, b in zip(tables(spec.out, v), tables(out, v)):
            pd.testing.assert_frame_equal(a, b)


def test_variants_are_paired_and_compared(reference, capsys):
    spec, _ = reference
    from sim.experiment.paired import experiment_comparisons
    baseline, table = experiment_comparisons(spec.out, spec)
    assert baseline == "baseline" and set(table["variant"]) == {"bga"}
    assert table["games"].sum() == 2 * 40                     # every seat of every game, paired
    assert main(["run", spec.path]) == 0                      # resumes: nothing to play
    assert "paired difference in win rate against 'baseline'" in capsys.readouterr().out


def test_the_report_renders_an_experiment_and_a_paired_comparison(reference):
    spec, _ = reference
    assert main(["report", str(spec.out)]) == 0
    page = (spec.out / "report.html").read_text()
    assert "First Ascent balance report: fa/baseline" in page
    assert main(["report", str(spec.out), "--variant", "bga", "--against", str(spec.out)]) == 0
    page = (spec.out / "compare-bga.html").read_text()
    assert "First Ascent: fa/bga against fa/baseline" in page
    assert "card_48b=crack" in page and "abilities_off=phil" in page   # readings=bga spelled out
    assert "First Ascent balance report: fa/baseline" in (spec.out / "report.html").read_text()
    paired = pd.read_csv(spec.out / "tables" / "compare_bga_paired.csv")
    assert paired["games"].sum() == 80 and set(paired["players"]) == {2}


def test_rotated_mixed_seats_with_fixed_characters(tmp_path):
    path = write_spec(tmp_path, tmp_path / "out", games=4, chunk=4, variants="")
    path.write_text(path.read_text().replace(
        'policy = "greedy"', 'seat_policies = ["greedy", "random"]\n'
                             'characters = ["phil", "rope_gun"]\nrotate_seats = true'))
    spec = load_spec(path)
    assert spec.identity()["rotate_seats"] is True and spec.group == "character"
    run_experiment(spec, jobs=1, quiet=True)
    _, seats = tables(spec.out, "baseline")
    seat0 = seats[seats["seat"] == 0]
    assert seat0["policy"].astype(str).tolist() == ["greedy", "random"] * 2
    assert seat0["character"].astype(str).tolist() == ["phil", "rope_gun"] * 2


@pytest.mark.parametrize("extra, variants, message", [
    ("", '[variants.odd]\nrules = { risk_die_odds = "1:x:1" }',
     "variants.odd.rules: risk_die_odds: expected three non-negative weights"),
    ("", '[variants.odd]\nrules = { card_48b = "rope" }',
     "variants.odd.rules: card_48b: allowed gear, crack; got 'rope'"),
    ("", '[variants.odd]\nrules = { abilities_off = "wizard" }',
     "variants.odd.rules: abilities_off: unknown character 'wizard'"),
    ("", '[variants.odd]\nrules = { summit_colour = "red" }',
     "variants.odd.rules: unknown First Ascent rule 'summit_colour'"),
    ("", '[variants.odd]\nset = { "x.y" = 1 }', "variants.odd.set: unknown knob 'x.y'"),
    ("", '[sweep]\nrule = "readings"\nvalues = ["card_text", "tabletop"]',
     "sweep.values: readings: allowed card_text or bga"),
    ('preset = "v0.4.0"', "", "preset: not a key of a first-ascent experiment"),
    ('characters = ["phil", "wizard"]', "", "characters: unknown character 'wizard'; allowed:"),
    ('characters = ["phil", "phil"]', "", "characters: characters must be distinct"),
])
def test_a_bad_spec_names_the_file_and_the_field(tmp_path, extra, variants, message):
    path = write_spec(tmp_path, tmp_path / "out", extra=extra, variants=variants, name="bad")
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert str(info.value).startswith(f"{path}: ") and message in str(info.value)


def test_player_counts_and_policies_are_first_ascents(tmp_path, capsys):
    path = write_spec(tmp_path, tmp_path / "out", variants="", name="bad")
    path.write_text(path.read_text().replace("players = [2]", "players = [6]"))
    assert main(["run", str(path), "--dry-run"]) == 2
    assert "bad.toml: players: player counts are 2..5 (F1), got 6" in capsys.readouterr().err
    path.write_text(path.read_text().replace("players = [6]", "players = [5]")
                    .replace('"greedy"', '"stair-builder"'))
    assert main(["run", str(path), "--dry-run"]) == 2
    assert "policy: unknown policy 'stair-builder' for First Ascent; available: " in capsys.readouterr().err


def test_the_committed_first_ascent_specs_are_valid(tmp_path, capsys):
    specs = {p.stem: load_spec(p) for p in sorted((ROOT / "experiments" / "first_ascent")
                                                  .glob("*.toml"))}
    assert set(specs) == {"baseline", "baseline_tuned", "risk_die_odds", "readings",
                          "abilities_off"}
    assert specs["baseline"].players == (2, 3, 4, 5) and specs["baseline"].games == 20000
    assert specs["baseline"].seed == specs["baseline_tuned"].seed     # the same games
    assert [v.rules.get("risk_die_odds") for v in specs["risk_die_odds"].variants] == \
        [None, "2:1:1", "1:2:1", "1:1:2", "1:0:0", "0:1:1"]
    assert len(specs["readings"].variants) == 7 and len(specs["abilities_off"].variants) == 13
    for name, spec in specs.items():
        assert spec.game == "first-ascent" and spec.group == "character"
        # dry-run a copy whose out folder is a new one: the plan checks the folder, and a work
        # tree's results/ may hold one played under other code, which it rightly refuses
        text = re.sub(r'(?m)^out = ".*"$', f'out = "{tmp_path / name}"',
                      Path(spec.path).read_text())
        assert text != Path(spec.path).read_text()
        (tmp_path / f"{name}.toml").write_text(text)
        assert main(["run", str(tmp_path / f"{name}.toml"), "--dry-run"]) == 0
    assert "total: 130,000 games" in capsys.readouterr().out



def test_a_sweeps_first_value_is_its_baseline(tmp_path):
    from sim.report.analysis import load_results
    sweep = '[sweep]\nrule = "risk_die_odds"\nvalues = ["1:1:1", "0:1:1"]\n'
    spec = load_spec(write_spec(tmp_path, tmp_path / "out", games=4, chunk=4, variants=sweep))
    assert [v.name for v in spec.variants] == ["risk_die_odds=1:1:1", "risk_die_odds=0:1:1"]
    run_experiment(spec, jobs=1, quiet=True)
    r = load_results(spec.out)                   # experiment.json keeps the identity sorted
    assert r.label == "fa/risk_die_odds=1:1:1" and r.meta["rules_changed"] == {}
    assert load_results(spec.out, "risk_die_odds=0:1:1").meta["rules_changed"] == \
        {"risk_die_odds": "0:1:1"}


def test_the_summary_tables_read_experiment_folders(tmp_path, capsys):
    # results/FIRST_ASCENT.md's tables: the baseline per character and an ability's paired worth
    from sim.report.first_ascent_summary import main as summary
    root = tmp_path / "results"
    base = write_spec(tmp_path, root / "baseline_planner", games=40, chunk=40,
                      variants="[variants.baseline]\n", name="base")
    abil = write_spec(tmp_path, root / "abilities_off", games=40, chunk=40, name="abil",
                      variants='[variants.baseline]\n[variants.no_phil]\n'
                               'rules = { abilities_off = "phil" }\n')
    assert main(["run", str(base), "--quiet"]) == 0
    assert main(["run", str(abil), "--quiet"]) == 0
    capsys.readouterr()
    assert summary([str(root)]) == 0
    text = capsys.readouterr().out
    assert "**2 players**" in text and "| phil |" in text
    assert "What each ability is worth" in text
    rows = [line for line in text.splitlines() if line.startswith("| phil | ")]
    assert len(rows) == 2            # one character row, one ability row
    # the ability row: the rate with it, the rate without it (each with its interval) and
    # the paired difference's
    assert rows[1].count("[") == 3
    # an objective's scorers and holders win with their n and interval (principle 3)
    assert "| objective | n | scored | mean points | scorers | win rate if scored |" in text
    held = [line for line in text.splitlines() if line.startswith("| 1 Rocky Mountains Tour |")]
    assert held and held[0].count("[") == 2        # scored and won, each with an interval
