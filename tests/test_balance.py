"""`ascent balance`: a known answer on the example game, resume, refused changes and bad specs.

Dice Race (examples/dice_race) has a planted imbalance: the first seat wins about 58% of
two-player games. D7's head start (seat k starts with k x head_start points) is its fix, and the
fair value is known by playing every value on the same games (brute force)."""
import json

import pytest

from fault_injection import killer_script, run_killed
from sim.cli import main
from sim.experiment.balance import (KEEP, BalanceError, distance, load_balance_spec, open_study,
                                    play_candidate)

SPEC = """game = "dice-race"
players = [2]
policy = "hold-at"
budget = {budget}
games = 1000
rescore_games = 1000
validation_games = 1000
finalists = 3
seed = 1
out = "out"

[knobs.head_start]
low = 0
high = 9
step = 1
"""


def write(tmp_path, budget=11, text=None):
    path = tmp_path / "balance.toml"
    path.write_text(text if text is not None else SPEC.format(budget=budget))
    return path


@pytest.fixture(scope="module")
def brute_force(tmp_path_factory):
    """Every head start on the search's own games: the largest gap from parity of each."""
    spec = load_balance_spec(write(tmp_path_factory.mktemp("bf")))
    return {v: distance(spec, play_candidate(spec, {"head_start": v}, spec.games, spec.seed))[0]
            for v in [KEEP] + [str(x) for x in range(10)]}


def test_the_planted_imbalance_is_there(brute_force):
    assert brute_force[KEEP] > 0.05         # seat 1: about 58% against a parity of 50%
    assert brute_force["0"] == brute_force[KEEP]


def test_a_whole_budget_finds_the_known_fix(tmp_path, brute_force, capsys):
    """11 candidates cover every choice (keep, 0..9): the patch is the brute force's best."""
    assert main(["balance", str(write(tmp_path)), "--quiet"]) == 0
    best = min(brute_force, key=brute_force.get)
    patch = (tmp_path / "out" / "patch.toml").read_text()
    assert f'rules = {{ "head_start" = {best} }}' in patch      # a number, as TOML writes one
    assert f"--rule 'head_start={best}'" in patch
    doc = json.loads((tmp_path / "out" / "balance.json").read_text())
    assert doc["patch"]["distance"] == pytest.approx(brute_force[best])
    assert doc["patch"]["distance"] < 0.03
    report = (tmp_path / "out" / "balance.md").read_text()
    assert f"**Patch:** `head_start = {best}`" in report
    assert "Validation on fresh seeds" in report and "master seed 2" in report
    # every rate with its interval: the current rules' too, and the validation's two columns
    import re
    assert re.search(r"\| 2 \| seat 1 \| [\d.]+% \[[\d.]+, [\d.]+\] \([+-][\d.]+\) \| "
                     r"[\d.]+% \[[\d.]+, [\d.]+\]", report)
    assert re.search(r"\| 2 \| seat 1 \| [\d.]+% \[[\d.]+, [\d.]+\] \| [\d.]+% "
                     r"\[[\d.]+, [\d.]+\] \| [+-]", report)
    # the validation is an experiment folder `ascent run` resumes
    assert (tmp_path / "out" / "validation" / "hold-at" / "experiment.json").exists()


def test_a_small_budget_gets_near_the_known_fix(tmp_path, brute_force):
    assert main(["balance", str(write(tmp_path, budget=6)), "--quiet", "--no-validation"]) == 0
    doc = json.loads((tmp_path / "out" / "balance.json").read_text())
    assert doc["patch"]["distance"] <= min(brute_force.values()) + 0.03


def test_the_search_says_what_follows_it(tmp_path, capsys):
    # the search's ETA is not the job's: the re-scoring (3 finalists and the current rules,
    # 1,000 games each; a patch of one knob has no shares to measure) follows, and the
    # validation (patch and start, 1,000 games each) unless it is turned off
    from sim.experiment.balance import games_after_search
    path = write(tmp_path, budget=2)
    assert games_after_search(load_balance_spec(path)) == 6000
    assert main(["balance", str(path), "--no-validation"]) == 0
    err = capsys.readouterr().err
    assert "ETA" in err and "for the search; then up to 4,000 games more (re-scoring, each " \
        "knob's share), about" in err


def test_the_search_resumes_where_it_stopped(tmp_path):
    path = write(tmp_path, budget=4)
    assert main(["balance", str(path), "--quiet", "--no-validation"]) == 0
    spec = load_balance_spec(path)
    first = [t.params for t in open_study(spec).trials if t.state.name == "COMPLETE"]
    open_study(spec).ask()              # a candidate a killed run left half-played
    write(tmp_path, budget=7)
    assert main(["balance", str(path), "--quiet", "--no-validation"]) == 0
    trials = open_study(load_balance_spec(path)).trials
    complete = [t.params for t in trials if t.state.name == "COMPLETE"]
    assert complete[:4] == first and len(complete) == 7
    assert not [t for t in trials if t.state.name == "RUNNING"]


KILLED_WHILE_PLAYING = killer_script("""
    import optuna
    import sim.experiment.balance as balance
""", """
    balance.evaluate_candidate = kill_at("candidate", balance.evaluate_candidate)
    optuna.study.Study.tell = kill_at("tell", optuna.study.Study.tell)
""", "sys.argv[3:]")


@pytest.mark.parametrize("batch, point, nth", [(1, "candidate", 6), (1, "candidate", 1),
                                               (3, "candidate", 5), (3, "tell", 5),
                                               (3, "tell", 7)])
def test_a_search_killed_and_resumed_asks_what_one_never_interrupted_asks(tmp_path, capsys,
                                                                          batch, point, nth):
    """The candidates a killed run left half-played are asked again first, in their order, and
    every other candidate comes from a sampler seeded by its place in the search: a resumed
    search asked other candidates, and could end with another patch. Review helpers found it
    four ways: killed in the sixth candidate; in the first (the current rules, which no
    seeded place asks again); in a batch's second candidate (its pruned duplicate kept its
    place while its failed candidates lost theirs); between two results of a batch (its
    remainder, filled up with a new candidate, put the batches out of step). Its folder is
    locked while it runs."""
    from sim.core.output import folder_lock
    # two knobs, so that the sampler has room to ask other candidates than one never killed
    two_knobs = SPEC.format(budget=12) + "\n[knobs.target]\nlow = 20\nhigh = 40\nstep = 1\n"
    if batch > 1:
        two_knobs = two_knobs.replace("seed = 1\n", f"seed = 1\nbatch = {batch}\n", 1)
    (tmp_path / "whole").mkdir()
    whole = write(tmp_path / "whole", text=two_knobs)
    assert main(["balance", str(whole), "--quiet", "--no-validation"]) == 0
    path = write(tmp_path, text=two_knobs)
    run_killed(KILLED_WHILE_PLAYING, point, nth,
               ["balance", path, "--quiet", "--no-validation"], tmp_path / "killed.log")
    with folder_lock(load_balance_spec(path).out):
        assert main(["balance", str(path), "--quiet", "--no-validation"]) == 2
    assert "another ascent run is writing" in capsys.readouterr().err
    assert main(["balance", str(path), "--quiet", "--no-validation"]) == 0

    def complete(spec_path):
        return [(t.params, t.values) for t in open_study(load_balance_spec(spec_path)).trials
                if t.state.name == "COMPLETE"]
    assert len(complete(path)) == 12 and complete(path) == complete(whole)
    def patch(folder):             # its comment line names the spec file
        return [line for line in (folder / "out" / "patch.toml").read_text().splitlines()
                if not line.startswith("#")]
    assert patch(tmp_path) == patch(tmp_path / "whole")


def test_a_resumed_search_with_another_spec_is_refused(tmp_path, capsys):
    path = write(tmp_path, budget=2)
    assert main(["balance", str(path), "--quiet", "--no-validation"]) == 0
    path.write_text(SPEC.format(budget=2).replace("games = 1000\n", "games = 900\n", 1))
    assert main(["balance", str(path), "--quiet", "--no-validation"]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "the spec changed since the study" in err


def test_a_resumed_search_after_a_code_change_is_refused(tmp_path, capsys, monkeypatch):
    """The study keeps the key of the code that plays the game (sim.play_code_key), as an
    experiment's folder does: resuming it under other code would score its candidates with
    two versions, and is refused, naming both keys."""
    import sim
    path = write(tmp_path, budget=2)
    assert main(["balance", str(path), "--quiet", "--no-validation"]) == 0
    spec = load_balance_spec(path)
    kept = open_study(spec).user_attrs["play_code"]
    assert kept == sim.play_code_key(spec.game)
    monkeypatch.setattr(sim, "play_code_key", lambda game: "0123456789abcdef")
    write(tmp_path, budget=3)
    assert main(["balance", str(path), "--quiet", "--no-validation"]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and f"(play_code {kept} in the study, 0123456789abcdef now)" in err


@pytest.mark.parametrize("change, message", [
    (("[knobs.head_start]", "[knobs.colour]"), 'knobs."colour": value 0:'),
    (("high = 9", "high = 30"), 'knobs."head_start": value 21:'),
    (("\n[knobs.head_start]\nlow = 0\nhigh = 9\nstep = 1\n", "\n"),
     "knobs: expected at least one"),
    (("budget = 3", "budget = 0"), "budget: expected a whole number from 1"),
    (("step = 1", "step = 0"), 'knobs."head_start": expected low <= high and step > 0'),
    (("seed = 1", "seed = 1\ntarget = { 1 = 0.7, 2 = 0.7 }"), "target: the rates average 0.700"),
    (("seed = 1", "seed = 1\ntarget = { 1 = 0.5 }"), "target: give every seat a rate"),
    (("seed = 1", "seed = 1\nmax_changed = 2"), "max_changed: expected a whole number from 1 to 1"),
    (("seed = 1", "seed = 1\nsampler = \"grid\""), "sampler: unknown sampler 'grid'"),
    (("seed = 1", "seed = 1\ncolour = 1"), "colour: unknown key"),
    (("seed = 1", "seed = 1\ndescription = 30.0"), "description: expected text in quotes"),
    # refused before the search: numba's own error came after a journal was written
    (("seed = 1", "seed = 1\nthreads = 999"), "threads: at most"),
    (("seed = 1", "seed = 1\n[variants.a]"),
     "its keys (variants) are those of a spec for `ascent run`; run it with"),
])
def test_bad_specs_are_one_line_naming_file_and_key(tmp_path, capsys, change, message):
    text = SPEC.format(budget=3).replace(*change)
    path = write(tmp_path, text=text)
    assert main(["balance", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(path) in err and message in err
    assert not (tmp_path / "out").exists()


def test_a_seed_above_the_samplers_range_runs_to_its_validation(tmp_path, capsys):
    """A spec may name any seed to 2**63-1; Optuna's samplers take seeds below 2**32 (a numpy
    traceback, with a journal left behind, until 2026-12-07), and the validation's experiment
    spec took seeds to 10**12 (refused only after the whole search)."""
    seed = 2**40 + 5
    path = write(tmp_path, text=SPEC.format(budget=2).replace("seed = 1", f"seed = {seed}"))
    assert main(["balance", str(path), "--quiet"]) == 0, capsys.readouterr().err
    validation = (tmp_path / "out" / "validation").rglob("experiment.toml")
    assert any(f"seed = {seed + 1}" in f.read_text() for f in validation)


@pytest.mark.parametrize("target", ["", "\ntarget = { 1 = 0.5, 2 = 0.5 }"])
def test_games_without_a_winner_are_not_read_as_balanced(tmp_path, capsys, target):
    """A turn cap that ends every game before anyone wins makes the parity 0, which a rate of
    0 meets without any balance: the verdict said "Every group is within 3 points" (a review
    found it with All-In Ascent's greedy, which decides no game). A target table's goals scale
    with the parity, so they are all 0 there too."""
    path = write(tmp_path, text=SPEC.format(budget=2).replace(
        "seed = 1", 'seed = 1\nrules = { max_turns = 1 }' + target))
    assert main(["balance", str(path), "--quiet", "--no-validation"]) == 0, \
        capsys.readouterr().err
    verdict = (tmp_path / "out" / "balance.md").read_text()
    assert "Every group is within 3 points" not in verdict
    assert "**No game had a winner** at 2 player(s)" in verdict
    # and the search scores such a patch the farthest from balance, not the nearest
    spec = load_balance_spec(path)
    assert distance(spec, play_candidate(spec, {"head_start": KEEP}, 50, spec.seed))[0] == 1.0


def test_a_target_table_moves_with_the_games_own_parity(tmp_path):
    """A target table gives rates for one winner a game (they average 1/players). Where ties
    (First Ascent, F63), partners (Ascension, A48) or games nobody wins move the rates' mean,
    each target moves with it: a table averaging 1/n could not be met where the rates average
    more (a review found it), and one under which nobody wins read as met."""
    import pandas as pd
    spec = load_balance_spec(write(tmp_path, text=SPEC.format(budget=3).replace(
        "seed = 1", "seed = 1\ntarget = { 1 = 0.6, 2 = 0.4 }")))
    # 10 games, 5 of them ties (both seats win): seat 1 wins games 0-5, seat 2 0-4 and 6-9
    won = [1] * 6 + [0] * 4 + [1] * 5 + [0] + [1] * 4
    seats = pd.DataFrame({"game": list(range(10)) * 2, "seat": [0] * 10 + [1] * 10,
                          "won": [bool(w) for w in won]})
    gap, rates = distance(spec, {2: seats})
    # the rates average 0.75 (1.5 winners a game): the goals are 0.6 and 0.4 times 1.5
    assert rates["2|1"] == [0.6, 10, 0.9] and rates["2|2"] == [0.9, 10, 0.6]
    assert gap == pytest.approx(0.3)
    # a study scored against the bare rates is not resumed with the scaled ones
    assert spec.identity()["target_scaled_to_parity"] == 1
    # scaled far enough, a goal passes 100%, which no rate meets: the verdict names it
    from dataclasses import replace

    from sim.experiment.balance import goals_out_of_reach
    assert goals_out_of_reach(rates) == []
    high = distance(replace(spec, target={"1": 0.7, "2": 0.3}), {2: seats})[1]
    assert high["2|1"][2] == pytest.approx(1.05) and goals_out_of_reach(high) == ["2|1"]
    # nobody wins: the farthest from balance, as under the parity target
    assert distance(spec, {2: seats.assign(won=False)})[0] == 1.0


def test_the_spec_loader_refuses_a_validation_on_the_search_seeds(tmp_path):
    with pytest.raises(BalanceError, match="validation_seed: must differ from seed"):
        load_balance_spec(write(tmp_path, text=SPEC.format(budget=3).replace(
            "seed = 1", "seed = 1\nvalidation_seed = 1")))


def test_the_top_seed_validates_on_seed_0(tmp_path):
    """seed = 2**63 - 1 is allowed, but its default validation seed (seed + 1) was out of range
    and refused, naming a field the spec never gave; it wraps to 0 now."""
    spec = load_balance_spec(write(tmp_path, text=SPEC.format(budget=3).replace(
        "seed = 1", f"seed = {2**63 - 1}")))
    assert (spec.seed, spec.validation_seed) == (2**63 - 1, 0)


def test_coadaptation_needs_a_bot_whose_tuning_takes_rules(tmp_path, capsys):
    path = write(tmp_path, text=SPEC.format(budget=2).replace("seed = 1", "seed = 1\ncoadapt = true"))
    assert main(["balance", str(path), "--quiet"]) == 2
    assert "coadapt: re-tuning for a patch's rules is built for" in capsys.readouterr().err


# All-In Ascent's tuned bot, one knob, re-tuned for the patch (tiny budgets: the plumbing)
COADAPT = """game = "all-in-ascent"
players = [2]
policy = "tuned"
budget = 2
games = {games}
rescore_games = {games}
finalists = 2
coadapt = true
coadapt_budget = 2
coadapt_games = {coadapt_games}
out = "out"
[knobs."characters.freeSolo.passive.access_bypass"]
values = [0]
"""


def test_coadaptation_retunes_the_bot_under_the_patch_and_rescores(tmp_path):
    """All-In Ascent's tuned bot re-fitted under the patch's rules (a tiny budget: this checks
    the plumbing, not the fit): the re-score plays the re-tuned knobs, and the report says so."""
    path = tmp_path / "aia.toml"
    path.write_text(COADAPT.format(games=200, coadapt_games=8))
    spec = load_balance_spec(path)
    from sim.experiment.balance import run_balance
    report = run_balance(spec, quiet=True, validation=False).read_text()
    # the Free Solo without its bypass is the nearer to parity of the two candidates
    assert "**Patch:** `characters.freeSolo.passive.access_bypass = 0`" in report
    cache = json.loads((tmp_path / "out" / "rescored.json").read_text())
    coadapted = [v for k, v in cache.items() if k.startswith('{"budget"')]
    assert len(coadapted) == 1
    assert set(coadapted[0]["vectors"]) == {"technician", "sprinter", "ironLung", "freeSolo",
                                            "routeReader"}
    assert "Bots re-tuned for the patch" in report
    assert "With the bot re-tuned for the patch" in report


KILLED_WHILE_RETUNING = killer_script("""
    import policies.all_in_ascent.tuning as tuning
""", """
    tuning.tune = kill_at("tune", tuning.tune)
""", "sys.argv[3:]")


def test_an_interrupted_coadaptation_goes_on_at_the_next_character(tmp_path, monkeypatch):
    """Co-adaptation re-fits the characters one after the other; killed in the third, it
    started over from the first (a review helper's: minutes of CMA-ES lost). Each character's
    fit is now kept as it ends, and the resumed one equals one never interrupted."""
    from sim.experiment.balance import run_balance
    text = COADAPT.format(games=100, coadapt_games=6)
    (tmp_path / "whole").mkdir()
    whole = tmp_path / "whole" / "aia.toml"
    whole.write_text(text)
    run_balance(load_balance_spec(whole), quiet=True, validation=False)
    path = tmp_path / "aia.toml"
    path.write_text(text)
    run_killed(KILLED_WHILE_RETUNING, "tune", 3,
               ["balance", path, "--quiet", "--no-validation"], tmp_path / "killed.log")
    partial = json.loads((tmp_path / "out" / "coadapt.partial.json").read_text())
    assert set(partial["records"]) == {"technician", "sprinter"}
    import policies.all_in_ascent.tuning as tuning
    fitted = []
    real = tuning.tune
    monkeypatch.setattr(tuning, "tune", lambda character, *a, **k: (
        fitted.append(character), real(character, *a, **k))[1])
    run_balance(load_balance_spec(path), quiet=True, validation=False)
    assert fitted == ["ironLung", "freeSolo", "routeReader"]
    assert not (tmp_path / "out" / "coadapt.partial.json").exists()

    def coadapted(folder):
        cache = json.loads((folder / "out" / "rescored.json").read_text())
        return [v for k, v in cache.items() if k.startswith('{"budget"')]
    assert coadapted(tmp_path) == coadapted(tmp_path / "whole")


def _trials(path):
    spec = load_balance_spec(path)
    return [(t.params, t.values) for t in open_study(spec).trials if t.state.name == "COMPLETE"]


def test_a_batch_plays_the_same_candidates_here_on_processes_and_on_dask(tmp_path):
    """batch = 3: the sampler proposes three candidates at a time; where they are played (this
    process, two local processes, a Dask cluster) changes nothing."""
    distributed = pytest.importorskip("distributed")
    text = SPEC.format(budget=7).replace("seed = 1", "seed = 1\nbatch = 3")
    runs = {}
    for name, extra in (("here", []), ("processes", ["--jobs", "2"]), ("dask", None)):
        folder = tmp_path / name
        folder.mkdir()
        path = write(folder, text=text)
        if extra is None:
            with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                          host="127.0.0.1", dashboard_address=None) as cluster:
                extra = ["--scheduler", cluster.scheduler_address]
                assert main(["balance", str(path), "--quiet", "--no-validation", *extra]) == 0
        else:
            assert main(["balance", str(path), "--quiet", "--no-validation", *extra]) == 0
        runs[name] = (_trials(path), (folder / "out" / "patch.toml").read_text().splitlines()[1:])
    assert len(runs["here"][0]) == 7
    assert runs["here"] == runs["processes"] == runs["dask"]


def test_head_to_head_shares_count_the_games_either_won():
    import pandas as pd
    from sim.experiment.balance import head_to_head_rates
    seats = pd.DataFrame({"game": [0, 0, 0, 1, 1, 1, 2, 2],
                          "character": ["a", "b", "c", "a", "b", "c", "a", "b"],
                          "won": [True, False, False, False, False, True, False, True]})
    table = head_to_head_rates(seats, "character")
    # a and b sat together in games 0, 1 and 2; one of them won games 0 (a) and 2 (b)
    assert tuple(table.loc[("a", "b")]) == (1, 2) and tuple(table.loc[("b", "a")]) == (1, 2)
    assert tuple(table.loc[("c", "a")]) == (1, 2)          # games 0 (a won) and 1 (c won)


AIA_H2H = """game = "all-in-ascent"
players = [2]
policy = "tuned"
budget = 2
games = 300
rescore_games = 300
finalists = 2
out = "out"
[target.head_to_head]
freeSolo.sprinter = 0.5
[knobs."characters.freeSolo.passive.access_bypass"]
values = [0]
"""


def test_a_head_to_head_target_is_balanced_pair_by_pair(tmp_path):
    path = write(tmp_path, text=AIA_H2H)
    spec = load_balance_spec(path)
    assert spec.target == {"head_to_head": {"freeSolo|sprinter": 0.5}}
    assert spec.identity()["head_to_head_shares"] == 2       # scored as since 636d7ef
    from sim.experiment.balance import run_balance
    report = run_balance(spec, quiet=True, validation=False).read_text()
    assert "head-to-head shares" in report and "Free Solo against Sprinter" in report
    doc = json.loads((tmp_path / "out" / "balance.json").read_text())
    start = next(f for f in doc["finalists"] if f["changed"] == 0)
    rate, games, goal = start["rates"]["2|freeSolo vs sprinter"]
    assert goal == 0.5 and games > 0 and rate > 0.5       # the Free Solo beats the Sprinter


@pytest.mark.parametrize("table, message", [
    ("freeSolo.sprinter = 0.7\nsprinter.freeSolo = 0.5", "must sum to 1"),
    ("freeSolo.nobody = 0.5", "target.head_to_head.freeSolo.nobody: expected another character"),
    ("freeSolo.freeSolo = 0.5", "expected another character"),
    ("freeSolo.sprinter = 1.5", "expected a share from 0 to 1"),
])
def test_bad_head_to_head_targets(tmp_path, capsys, table, message):
    text = AIA_H2H.replace("freeSolo.sprinter = 0.5", table)
    assert main(["balance", str(write(tmp_path, text=text)), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err and "balance.toml" in err


def test_a_knob_at_its_current_value_is_no_change(tmp_path):
    """head_start's range includes its current value 0: choosing it plays the current rules,
    so it is neither counted as a change nor played as a new candidate."""
    from sim.experiment.balance import changed, normalized, relative_change
    spec = load_balance_spec(write(tmp_path))
    assert spec.knobs[0].current == "0"
    assert changed(spec, {"head_start": "0"}) == 0
    assert normalized(spec, {"head_start": "0"}) == {"head_start": KEEP}
    assert changed(spec, {"head_start": "4"}) == 1
    assert relative_change(spec, {"head_start": "4"}) == 4.0      # from 0: in steps of 1
    assert main(["balance", str(write(tmp_path)), "--quiet", "--no-validation"]) == 0
    from sim.experiment.balance import choice_of
    played = [choice_of(spec, t.params) for t in open_study(spec).trials
              if t.state.name == "COMPLETE"]
    effective = {json.dumps(normalized(spec, c)) for c in played}
    assert len(effective) == len(played)             # no candidate was played twice


def test_first_ascent_coadapts_too(tmp_path):
    """First Ascent's tuned bot re-fitted under a patch's rules (a tiny budget: the plumbing,
    not the fit), then the patch re-scored with the re-tuned knobs."""
    from sim.experiment.balance import coadapt
    path = tmp_path / "fa.toml"
    path.write_text('''game = "first-ascent"
players = [2]
policy = "tuned"
budget = 1
games = 20
rescore_games = 20
coadapt = true
coadapt_budget = 2
coadapt_games = 4
out = "out"
[knobs."characters.phil.start_water"]
values = [5]
''')
    spec = load_balance_spec(path)
    (tmp_path / "out").mkdir()
    patch = {"choice": {"characters.phil.start_water": "5"}}
    got = coadapt(spec, patch, tmp_path / "out" / "rescored.json", lambda *a: None)
    assert len(got["vectors"]) == 12 and 0 <= got["distance"] <= 1
    assert "phil" in got["vectors"] and "2|phil" in got["rates"]


def test_a_bound_is_a_push_only_on_the_far_side_of_the_current_value(tmp_path):
    from sim.experiment.balance import bound_pushes
    text = SPEC.format(budget=3).replace("low = 0\nhigh = 9", "low = 2\nhigh = 9")
    spec = load_balance_spec(write(tmp_path, text=text))       # current 0, below the range
    assert bound_pushes(spec, {"head_start": "9"}) == [("head_start", "9", "highest")]
    assert bound_pushes(spec, {"head_start": "2"}) == []         # the end nearest 0
    assert bound_pushes(spec, {"head_start": "5"}) == []


def test_the_validation_runs_own_warnings_are_in_the_verdict(tmp_path):
    # D6: under a 6-turn cap a good share of hold-at's games end with no winner, before and
    # after the patch; the report says so under the verdict, naming the bot and the rules
    # (4 candidates: with 3, the search on these seeds finds no patch to beat the rules)
    text = SPEC.format(budget=4).replace('out = "out"\n',
                                         'out = "out"\nrules = { max_turns = 6 }\n')
    assert main(["balance", str(write(tmp_path, text=text)), "--quiet"]) == 0
    report = (tmp_path / "out" / "balance.md").read_text()
    box = report[report.index("**Read with care:**"):report.index("## Per group")]
    assert "- hold-at, the current rules: " in box and "- hold-at, the patch: " in box
    assert "were stopped by a cap (end reason turn_cap)" in box
    # the checks' "win shares count decided games only" is the first screen's measure, not
    # this page's: its rates count every game
    assert "a game no one won is a loss for every seat" in box


def test_a_balance_search_compiles_once_here_before_dealing_out_candidates(tmp_path,
                                                                          monkeypatch):
    """As `ascent run` does: from an empty cache every local worker compiled the same code at
    once, silently. The search compiles through compile_first first, with the spec's bot in
    every seat and a kernel game with `random`, each one game of the current rules."""
    import sim.experiment.balance as balance
    from sim.core import compiling
    calls, played = [], []
    real = balance.play_candidate

    def spying_play_candidate(spec, choice, games, seed, policy=None, **more):
        played.append((choice, games, policy))
        return real(spec, choice, games, seed, policy=policy, **more)

    def recording_compile_first(game, seats, play_one, quiet=False, stream=None,
                                play_kernel=None):
        calls.append((game.name, list(seats), quiet))
        play_kernel()
        play_one()
        return 0.0

    monkeypatch.setattr(compiling, "compile_first", recording_compile_first)
    monkeypatch.setattr(balance, "play_candidate", spying_play_candidate)
    assert main(["balance", str(write(tmp_path, budget=2)), "--quiet", "--no-validation"]) == 0
    assert calls == [("dice-race", ["hold-at", "hold-at"], True)]
    assert played[:2] == [({}, 1, "random"), ({}, 1, None)]
    assert all(games == 1000 for _, games, _ in played[2:])     # then the search's own


def test_an_unknown_base_rule_names_the_spec_and_its_key(tmp_path):
    # All-In Ascent reads each knob's current value from the base rules first: an unknown
    # switch there was one line naming neither the spec nor its key
    path = tmp_path / "balance.toml"
    path.write_text('game = "all-in-ascent"\nplayers = [2]\npolicy = "greedy"\nbudget = 2\n'
                    'games = 10\nrescore_games = 10\nvalidation_games = 10\nfinalists = 1\n'
                    'seed = 1\nout = "out"\nrules = { nosuch = "on" }\n\n'
                    '[knobs."characters.technician.passive.requirement_reduction"]\n'
                    'values = [3, 4]\n')
    with pytest.raises(BalanceError) as info:
        load_balance_spec(path)
    assert str(info.value).startswith(f"{path}: rules or set: unknown switch 'nosuch'")


def test_head_to_head_shares_add_up_to_one_with_shared_wins_and_repeated_bots():
    """A game both won (a First Ascent tie) counts half for each; a group in two seats of a
    game counts the game once."""
    import pandas as pd
    from sim.experiment.balance import head_to_head_rates
    seats = pd.DataFrame({"game": [0, 0, 0, 1, 1, 1],
                          "policy": ["a", "a", "b", "a", "b", "b"],
                          "won": [True, False, True, False, False, True]})
    table = head_to_head_rates(seats, "policy")
    # game 0: a (one of its two seats) and b tied; game 1: b won
    assert tuple(table.loc[("a", "b")]) == (0.5, 2) and tuple(table.loc[("b", "a")]) == (1.5, 2)


def test_the_target_column_shows_both_goals_where_they_differ():
    """Under target = parity a goal scales with its rules' effective parity, so the current
    rules' and the patch's goals may differ (ties, games no one won): each gap is against its
    own rules' goal, and the table's target column shows both, or one where they agree."""
    from types import SimpleNamespace

    from sim.report.balance import _rate_rows
    spec = SimpleNamespace(game="dice-race", group="seat")
    before = {"rates": {"2|0": (0.30, 1000, 0.25), "2|1": (0.20, 1000, 0.25)}}
    after = {"rates": {"2|0": (0.26, 1000, 0.2450), "2|1": (0.24, 1000, 0.25)}}
    rows = _rate_rows(spec, before, after)
    assert rows[0].endswith("| 25.0% / 24.5% | 1,000 |") and "(+5.0)" in rows[0] \
        and "(+1.5)" in rows[0], rows[0]
    assert rows[1].endswith("| 25.0% | 1,000 |"), rows[1]
