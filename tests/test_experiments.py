"""Experiments: spec validation, determinism across processes and backends, kill-and-resume,
precision targets and paired comparisons."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.experiment.paired import experiment_comparisons, paired_differences
from sim.experiment.runner import load_variant, run_experiment
from sim.experiment.spec import SpecError, load_spec

ROOT = Path(__file__).resolve().parent.parent


def write_spec(tmp_path, out, extra="", games=240, chunk=80, name="exp"):
    path = tmp_path / f"{name}.toml"
    path.write_text(f'''
game = "all-in-ascent"
players = [3]
games = {games}
seed = 5
policy = "planner"
chunk = {chunk}
out = "{out}"
{extra}
[variants.baseline]
[variants.tech3]
set = {{ "characters.technician.passive.requirement_reduction" = 3 }}
''')
    return path


def tables(out, variant="baseline", players=3):
    return load_variant(out, variant, players, table="games"), load_variant(out, variant, players)


def assert_same_results(a, b, spec):
    for v in spec.variants:
        for p in spec.players:
            ga, sa = tables(a, v.name, p)
            gb, sb = tables(b, v.name, p)
            pd.testing.assert_frame_equal(ga, gb)
            pd.testing.assert_frame_equal(sa, sb)


# --- specs ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ('games = 10\nout = "x"\ncolour = "red"', "colour: unknown key"),
    ('games = 10\nout = "x"\nbudget = 5\n[knobs.x]\nvalues = [1]',
     "budget, knobs. are those of a spec for `ascent balance`; run it with"),
    ('games = "many"\nout = "x"', "games: expected a whole number"),
    ('games = 10\nout = "x"\nplayers = [5]', "players: player counts are 1..4"),
    ('games = 10\nout = "x"\npolicy = "genius"', "policy: unknown policy 'genius'"),
    # not a name: a TypeError, or a list read as one bot per seat
    ('games = 10\nout = "x"\npolicy = 5', "policy: expected one policy name for every seat"),
    ('games = 10\nout = "x"\npolicy = ["greedy"]', r"seat_policies = \[...\] names one per seat"),
    ('games = 10\nout = "x"\nplayers = [2]\ncharacters = ["technician", "wizard"]',
     "characters: unknown character 'wizard'"),
    ('games = 10\nout = "x"\n[variants.a]\nrules = { shared_pool = "on" }',
     "variants.a: unknown switch 'shared_pool'"),
    ('games = 10\nout = "x"\n[variants.a]\nset = { "gear.Nothing.cost" = 3 }',
     "variants.a: knob gear.Nothing.cost: no card named 'Nothing'"),
    ('games = 10\nout = "x"\n[variants.a]\ncolour = 1', "variants.a.colour: unknown key"),
    # a TOML boolean reaches the game in its words: the error says so, not only "got 'on'"
    ('games = 10\nout = "x"\n[variants.a]\nrules = { max_rounds = true }',
     r"got 'on' \(the spec's true and false read as 'on' and 'off'\)"),
    ('games = 10\nout = "x"\n[sweep]\nrule = "max_rounds"\nvalues = [true]',
     r"sweep: switch max_rounds: .*got 'on' \(the spec's true and false read as"),
    ('games = 10\nout = "x"\nci_halfwidth = 2', "ci_halfwidth: expected a number between"),
    ('games = 10\nout = "x"\n[sweep]\nknob = "xp_table.5"', "sweep: expected knob"),
    # a sweep's knob or rule that is not text: a traceback until 2026-12-07
    ('games = 10\nout = "x"\nsweep = { knob = 5, values = [1, 2] }',
     "sweep.knob: expected a knob path in quotes, got 5"),
    ('games = 10\nout = "x"\n[sweep]\nrule = ["max_rounds"]\nvalues = [30]',
     r"sweep.rule: expected a rule name in quotes, got \['max_rounds'\]"),
    ('games = 10', "out: required"),
    ('games = 10\nout = "x"\ndescription = 5', "description: expected text in quotes, got 5"),
    ('games = 10\nout = "x"\n[variants.a]\ndescription = ["x"]',
     r"variants.a.description: expected text in quotes"),
    ('games = [10', "not valid TOML"),
])
def test_bad_specs_get_one_clear_error_with_file_and_key(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(SpecError, match=message) as info:
        load_spec(path)
    assert str(path) in str(info.value)


def test_bad_spec_on_the_command_line_is_one_line_and_exit_2(tmp_path, capsys):
    from sim.cli import main
    path = tmp_path / "bad.toml"
    path.write_text('games = 10\nout = "x"\npolicy = "genius"')
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "policy: unknown policy 'genius'" in err


def test_sweep_makes_one_variant_per_value(tmp_path):
    path = tmp_path / "sweep.toml"
    path.write_text('games = 10\nout = "x"\n[sweep]\n'
                    'knob = "characters.technician.passive.requirement_reduction"\n'
                    'values = [3, 4, 5]')
    spec = load_spec(path)
    assert [v.name for v in spec.variants] == ["requirement_reduction=3",
                                               "requirement_reduction=4",
                                               "requirement_reduction=5"]


def test_committed_experiments_are_valid():
    specs = sorted((ROOT / "experiments").glob("*.toml"))
    assert len(specs) >= 6
    for path in specs:
        load_spec(path)


def test_dry_run_prints_the_plan(tmp_path, capsys):
    from sim.cli import main
    spec = write_spec(tmp_path, tmp_path / "out")
    assert main(["run", str(spec), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "total: 480 games" in out and "baseline, tech3" in out
    assert not (tmp_path / "out").exists()


def test_dry_run_refuses_what_the_run_would_refuse(tmp_path, capsys):
    # the plan was printed, and the run then refused the folder or the threads
    from sim.cli import main
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine")
    spec = write_spec(tmp_path, tmp_path / "out")
    assert main(["run", str(spec), "--dry-run"]) == 2
    assert "holds files that are not this experiment's (notes.txt)" in capsys.readouterr().err
    spec = write_spec(tmp_path, tmp_path / "other", extra="threads = 999", name="exp2")
    assert main(["run", str(spec), "--dry-run"]) == 2
    assert "threads: at most" in capsys.readouterr().err


def test_dry_run_says_when_its_time_estimate_is_a_guide_only(capsys):
    # the benchmarked rate is of 4-player games under the default rules: the versions
    # experiment's v0.5.0 has no round cap, and took 5 min against an estimate of 1.9
    from sim.cli import main
    assert main(["run", str(ROOT / "experiments" / "versions.toml"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "estimated time" in out
    assert "a guide only: variants v050, v060 change the rules" in out
    assert main(["run", str(ROOT / "experiments" / "baseline.toml"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "estimated time" in out and "a guide only" not in out


# --- running ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """One uninterrupted single-process run."""
    tmp = tmp_path_factory.mktemp("ref")
    spec = load_spec(write_spec(tmp, tmp / "out"))
    run_experiment(spec, jobs=1, quiet=True)
    return spec


def test_results_are_the_kernels_games(reference):
    from sim.games.all_in_ascent.batch import run_games
    direct = run_games(240, 5, 3, "planner")
    games, seats = tables(reference.out)
    assert games["game"].tolist() == list(range(240))
    assert np.array_equal(games["seed"].to_numpy(), direct.seeds)
    assert np.array_equal(games["winner_seat"].to_numpy(),
                          direct.final[:, 5].astype(np.int64))  # G_WINNER


def test_two_processes_give_the_same_results(reference, tmp_path):
    spec = load_spec(write_spec(tmp_path, tmp_path / "out"))
    run_experiment(spec, jobs=2, quiet=True)
    assert_same_results(reference.out, spec.out, spec)


def test_a_dask_local_cluster_gives_byte_identical_results(reference, tmp_path):
    distributed = pytest.importorskip("distributed")
    spec = load_spec(write_spec(tmp_path, tmp_path / "out"))
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        run_experiment(spec, scheduler=cluster.scheduler_address, quiet=True)
    tables = sorted(d.relative_to(reference.out)
                    for d in (reference.out / "chunks").rglob("*.parquet"))
    assert tables and tables == sorted(d.relative_to(spec.out)
                                       for d in (spec.out / "chunks").rglob("*.parquet"))
    for d in tables:
        assert (spec.out / d).read_bytes() == (reference.out / d).read_bytes(), d


def test_killed_and_resumed_run_equals_an_uninterrupted_one(reference, tmp_path):
    spec_path = write_spec(tmp_path, tmp_path / "out", games=240, chunk=40)
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    proc = subprocess.Popen([sys.executable, "-m", "sim.cli", "run", str(spec_path), "--jobs",
                             "1", "--quiet"], cwd=ROOT, env=env)
    manifest = tmp_path / "out" / "experiment.json"
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        if manifest.exists() and len(json.loads(manifest.read_text())["chunks"]) >= 2:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = len(json.loads(manifest.read_text())["chunks"])
    assert 2 <= done_before < 12, "the run should be killed partway"
    spec = load_spec(spec_path)
    run_experiment(spec, jobs=1, quiet=True)
    doc = json.loads(manifest.read_text())
    keys = [(c["variant"], c["index"]) for c in doc["chunks"]]
    assert len(keys) == len(set(keys)) == 12            # nothing duplicated, nothing lost
    assert not list((tmp_path / "out").rglob("*.tmp-*"))
    # different chunk size, same games: compare the concatenated tables
    for v in ("baseline", "tech3"):
        ga, sa = tables(reference.out, v)
        gb, sb = tables(spec.out, v)
        pd.testing.assert_frame_equal(ga, gb)
        pd.testing.assert_frame_equal(sa, sb)


def test_resume_refuses_a_changed_spec(reference, tmp_path):
    spec = load_spec(write_spec(tmp_path, reference.out, extra='preset = "v0.4.0"'))
    run_experiment(spec, jobs=1, quiet=True)            # same identity: resumes, nothing to do
    changed = load_spec(write_spec(tmp_path, reference.out).parent.joinpath("exp.toml"))
    text = Path(changed.path).read_text().replace("seed = 5", "seed = 6")
    Path(changed.path).write_text(text)
    with pytest.raises(SpecError, match="seed differ"):
        run_experiment(load_spec(changed.path), jobs=1, quiet=True)


def test_precision_target_adds_chunks_until_the_cap(tmp_path):
    spec = load_spec(write_spec(tmp_path, tmp_path / "out", games=80, chunk=80,
                                extra="ci_halfwidth = 0.01\nmax_games = 240"))
    doc = run_experiment(spec, jobs=1, quiet=True)
    assert doc["stopping"]["3"]["games"] == 240 and not doc["stopping"]["3"]["reached_target"]
    games, _ = tables(spec.out)
    assert len(games) == 240
    loose = load_spec(write_spec(tmp_path, tmp_path / "out2", games=80, chunk=80,
                                 extra="ci_halfwidth = 0.45\nmax_games = 240", name="loose"))
    doc = run_experiment(loose, jobs=1, quiet=True)
    assert doc["stopping"]["3"]["games"] == 80 and doc["stopping"]["3"]["reached_target"]


def test_paired_intervals_are_narrower_than_unpaired(reference):
    baseline, table = experiment_comparisons(reference.out, reference)
    assert baseline == "baseline" and set(table["variant"]) == {"tech3"}
    paired = table["paired_ci_high"] - table["paired_ci_low"]
    unpaired = table["unpaired_ci_high"] - table["unpaired_ci_low"]
    # the paired (Tango score) interval keeps a width even with no discordant seat, by design
    assert (paired > 0).all()
    # Compare where the unpaired (Wald) interval is sound and pairing has something to gain:
    # win rates of 10-90% (near 0 or 1 at ~140 seats Wald is too narrow: a 2% character's
    # Wald width fell below its Tango width here), and characters the variant leaves alone (the
    # technician's outcome changes in many seats, so its pairs agree less)
    sound = table["base_win_rate"].between(0.1, 0.9) & (table["character"] != "technician")
    assert sound.sum() >= 2
    assert (paired[sound] < unpaired[sound]).all()
    assert (unpaired[sound] / paired[sound]).max() > 1.5


def test_paired_difference_on_a_planted_effect():
    games = np.repeat(np.arange(400), 1)
    base = pd.DataFrame({"game": games, "seat": 0, "character": "technician",
                         "won": games % 4 == 0})
    variant = base.assign(won=(games % 4 == 0) | (games % 4 == 1))   # +25 points, same games
    table = paired_differences(base, variant)
    r = table.iloc[0]
    assert r["difference"] == pytest.approx(0.25)
    assert r["paired_ci_low"] > 0.2 and r["p_value"] < 1e-6


def test_a_run_s_win_rates_take_the_game_as_the_unit_for_partners():  # A48
    """`ascent run`'s rates and its stopping rule (character_win_rates): a bot whose two seats
    of a game win together is as certain as its games, not its seats; seats once a game, or
    a bot twice at a table with one winner (or none), keep Wilson's interval on the seats."""
    from sim.core.stats import wilson_interval
    from sim.experiment.paired import character_win_rates
    rng = np.random.default_rng(3)
    team = rng.integers(0, 2, 300)
    rows = [(g, s, "a" if s % 2 == 0 else "b", bool(s % 2 == team[g]))
            for g in range(300) for s in range(4)]
    seats = pd.DataFrame(rows, columns=["game", "seat", "policy", "won"])
    rates = character_win_rates(seats, "policy")
    wins = int(seats.loc[seats["policy"] == "a", "won"].sum())
    assert rates.loc["a", "games"] == 600 and rates.loc["a", "wins"] == wins
    # per game 0 or 2 wins of 2 seats: effective size 299 (the ratio's k / (k - 1))
    assert (rates.loc["a", "ci_low"], rates.loc["a", "ci_high"]) == pytest.approx(
        wilson_interval(wins / 600 * 299, 299))
    def unclustered(rates):
        lo, hi = wilson_interval(rates["wins"].to_numpy(), rates["games"].to_numpy())
        return np.array_equal(rates["ci_low"], lo) and np.array_equal(rates["ci_high"], hi)
    assert unclustered(character_win_rates(seats, "seat"))
    alone = seats.assign(won=[bool(s == (g * 7) % 4) for g, s in zip(seats["game"], seats["seat"])])
    assert unclustered(character_win_rates(alone, "policy"))   # one winner a game: as before
    # a bot in two seats that never wins: its seats never won together, so Wilson's on them
    never = character_win_rates(seats.assign(won=seats["seat"] == 1), "policy")
    assert never.loc["a", "ci_high"] == wilson_interval(0, 600)[1]


def test_a_team_s_win_is_not_paired_against_a_seat_s_own():  # A48
    """Where one run's `won` is a team's (partnership) and the other's a seat's own, the
    paired difference sets each seat's own win against its own (`own_wins`); where both are
    alike, `won` as it is."""
    from sim.experiment.paired import format_comparisons, paired_differences
    games = np.repeat(np.arange(400), 4)
    seat = np.tile(np.arange(4), 400)
    winner = np.repeat(np.arange(400) % 4, 4)
    alone = pd.DataFrame({"game": games, "seat": seat, "character": "x", "policy": "p",
                          "won": seat == winner, "own_win": seat == winner})
    team = alone.assign(won=seat % 2 == winner % 2)
    by_seat = paired_differences(alone, team, "seat")
    assert by_seat["own_wins"].all()
    assert (by_seat["difference"] == 0).all()            # the team's: +25 points a seat
    both = paired_differences(team, team.assign(won=seat % 2 == (winner + 1) % 2), "seat")
    assert not both["own_wins"].any() and (both["discordant"] == 400).all()   # teams: every game
    old = alone.drop(columns="own_win")                  # a folder before record schema 3
    assert paired_differences(old, team, "seat")["own_wins"].all()
    text = format_comparisons("baseline", by_seat.assign(variant="teams", players=4)[
        ["variant", "players", *by_seat.columns]])
    assert text.count("each seat's own wins") == 4


def test_the_unpaired_interval_keeps_a_width_where_a_group_always_or_never_wins():
    """The unpaired interval (what the difference would have without the pairing) is
    Newcombe's, from the two runs' own Wilson intervals: the normal interval it replaced had no
    width where a character won every seat, or none, in both runs, and the pairing gain read
    0.0x there."""
    import pandas as pd
    from sim.core.stats import wilson_interval
    from sim.experiment.paired import paired_differences
    games = 200
    seats = pd.DataFrame({"game": range(games), "seat": 0, "character": "never",
                          "won": False})
    seats = pd.concat([seats, seats.assign(seat=1, character="always", won=True)])
    table = paired_differences(seats, seats).set_index("character")
    low, high = wilson_interval(0, games)
    for who in ("never", "always"):
        row = table.loc[who]
        assert row["difference"] == 0
        assert row["unpaired_ci_high"] - row["unpaired_ci_low"] == \
            pytest.approx(2 * (high - low))          # [-u, u], u Wilson's bound of 0
        # Tango's interval with no discordant seat is Wilson's bound of 0 either way: the
        # pairing buys nothing here, and says so (it read 0.0x)
        assert row["pairing_gain"] == pytest.approx(1.0)
