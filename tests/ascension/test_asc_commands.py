"""`ascent ... --game ascension`: simulate, replay, rules, experiments and the report section,
and their errors (principle 5)."""
import json
import textwrap

import pandas as pd
import pytest

from sim.cli import main
from sim.core.stats import wilson_interval


def test_simulate_writes_parquet_and_a_manifest(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["simulate", "--game", "ascension", "--players", "3", "--games", "30",
                 "--seed", "2", "--policy", "hybrid", "--chunk", "11", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "win rate by seat" in text and "ended by cap" in text
    games = pd.read_parquet(out / "games.parquet")
    seats = pd.read_parquet(out / "seats.parquet")
    assert len(games) == 30 and len(seats) == 90
    assert games["game"].tolist() == list(range(30))
    assert set(games["end_reason"]) <= {"win", "cap", "all_eliminated"}
    won = seats.groupby("game")["won"].sum()
    assert (won.reindex(games["game"]).to_numpy() == (games["winner_seat"] >= 0)).all()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["game"] == "ascension" and manifest["rules"]["max_turns"] == 600
    # chunking does not change a game
    again = tmp_path / "again"
    assert main(["simulate", "--game", "ascension", "--players", "3", "--games", "30",
                 "--seed", "2", "--policy", "hybrid", "--out", str(again), "--quiet"]) == 0
    pd.testing.assert_frame_equal(games, pd.read_parquet(again / "games.parquet"))


def test_report_has_an_ascension_section(tmp_path):
    out = tmp_path / "run"
    assert main(["simulate", "--game", "ascension", "--players", "4", "--games", "24",
                 "--seed", "1", "--out", str(out), "--quiet",
                 "--seat-policies", "stair-builder,hybrid,blocker,stair-builder-forgetful",
                 "--rotate-seats"]) == 0
    assert main(["report", str(out)]) == 0
    page = (out / "report.html").read_text()
    for heading in ("Seat advantage", "Game length", "The first summiter",
                    "Blocks and eliminations", "Special cubes", "Player count",
                    "Win rate by policy"):
        assert heading in page
    seats = pd.read_csv(out / "tables" / "ascension_seats.csv")
    assert seats["n"].sum() == 96 and {"ci_low", "ci_high", "p_holm"} <= set(seats.columns)
    policies = pd.read_csv(out / "tables" / "ascension_policies.csv")
    assert sorted(policies["policy"]) == ["blocker", "hybrid", "stair-builder",
                                          "stair-builder-forgetful"]
    assert (policies["n"] == 24).all()          # rotation: every policy plays every game


def test_under_partnership_both_partners_win_their_team_s_games(tmp_path):  # A48
    """A team wins when either partner wins: `won` is the team's (seats 0+2, 1+3), `own_win`
    the seat that finished, and the report's seat shares are tested against parity 1/2."""
    def run(name, *rule):
        out = tmp_path / name
        assert main(["simulate", "--game", "ascension", "--players", "4", "--games", "40",
                     "--seed", "4", "--seat-policies", "stair-builder,random,stair-builder,"
                     "random", "--out", str(out), "--quiet", *rule]) == 0
        return out, pd.read_parquet(out / "games.parquet"), pd.read_parquet(out / "seats.parquet")
    out, games, seats = run("team", "--rule", "partnership=true")
    decided = games.set_index("game")["winner_seat"]
    assert (decided >= 0).sum() >= 30
    for game, grp in seats.groupby("game"):
        winner = decided[game]
        assert grp["own_win"].tolist() == [seat == winner for seat in grp["seat"]]
        assert grp["won"].tolist() == [winner >= 0 and seat % 2 == winner % 2
                                       for seat in grp["seat"]]
    assert main(["report", str(out)]) == 0
    table = pd.read_csv(out / "tables" / "ascension_seats.csv")
    assert (table["parity"] == 0.5).all()
    assert (table["share_of_wins"][[0, 2]].to_numpy() == table["share_of_wins"][0]).all()
    page = (out / "report.html").read_text()
    assert "Partnership (A48): a team wins when either partner wins" in page
    # the seat table's note gave the team share "parity 1/N" before its "parity 1/2"
    assert "tests it against parity 1/N" not in page
    # the first screen reads a team's win as one, not as a tie of two winners
    assert "every win is a team&#x27;s, shared equally by its 2 partners" in page
    assert "with a shared win" not in page
    first = pd.read_csv(out / "tables" / "ascension_first_summiter.csv").iloc[0]
    summited = games[games["first_summit_seat"] >= 0]
    assert first["team_rate"] * len(summited) == pytest.approx(
        ((summited["winner_seat"] >= 0) &
         (summited["winner_seat"] % 2 == summited["first_summit_seat"] % 2)).sum())
    assert first["team_rate"] >= first["rate"]
    # a bot's two seats win together: its rate is as certain as its games' (39 effective)
    bots = pd.read_csv(out / "tables" / "ascension_policies.csv").set_index("policy")
    team_wins = int(seats.loc[seats["seat"] == 0, "won"].sum())
    assert bots.loc["stair-builder", ["n", "count"]].tolist() == [80, 2 * team_wins]
    assert bots.loc["stair-builder", ["ci_low", "ci_high"]].tolist() == pytest.approx(
        wilson_interval(team_wins * 39 / 40, 39))
    # the single-game API says the same (conformance: its won seats are the records')
    from sim.games.ascension.game import AscensionGame
    single = AscensionGame(int(games.loc[0, "seed"]), players=4, partnership="true")
    single.play(["stair-builder", "random", "stair-builder", "random"])
    assert single.won_seats() == seats.loc[(seats["game"] == 0) & seats["won"], "seat"].tolist()
    assert len(single.won_seats()) == 2
    # the free-for-all: one winner, its own
    out, games, seats = run("alone")
    assert (seats["won"] == seats["own_win"]).all()
    assert main(["report", str(out)]) == 0
    assert (pd.read_csv(out / "tables" / "ascension_seats.csv")["parity"] == 0.25).all()
    assert "Partnership (A48)" not in (out / "report.html").read_text()
    assert "team_rate" not in pd.read_csv(out / "tables" / "ascension_first_summiter.csv")


def test_replay_draws_the_board_every_turn(capsys):
    assert main(["replay", "--game", "ascension", "--players", "2", "--seed", "3",
                 "--policy", "stair-builder"]) == 0
    text = capsys.readouterr().out
    assert "-- turn 1: seat 1 (normal)" in text          # seats counted from 1 in text
    assert " 9 " in text and "@1" in text and "@0" not in text and "== game over:" in text
    assert main(["replay", "--game", "ascension", "--players", "2", "--seed", "3",
                 "--policy", "stair-builder", "--format", "jsonl"]) == 0
    events = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert events[-1]["event"] == "end"


@pytest.mark.parametrize("args,message", [
    (["--rule", "bogus=1"], "unknown Ascension rule switch 'bogus'"),
    (["--rule", "spring_bonus=twice"], "spring_bonus: 'twice' is not allowed; allowed: step, "
                                       "full_turn"),
    (["--rule", "max_stack=40"], "max_stack: 40 is outside 1..32"),
    (["--rule", "partnership=true", "--players-override", "3"], "partnership: needs 4 players"),
    (["--characters", "technician"], "Ascension has no characters"),
    (["--policy", "greedy"], "unknown policy 'greedy' for Ascension"),
    (["--set", "a.b=1"], "Ascension has no data knobs"),
])
def test_bad_input_fails_loudly(tmp_path, capsys, args, message):
    players = "4"
    if "--players-override" in args:
        players = args[args.index("--players-override") + 1]
        args = args[:args.index("--players-override")]
    code = main(["simulate", "--game", "ascension", "--players", players, "--games", "2",
                 "--seed", "1", "--out", str(tmp_path / "x"), *args])
    assert code == 2
    assert message in capsys.readouterr().err


def test_players_must_be_2_to_4(tmp_path, capsys):
    assert main(["simulate", "--game", "ascension", "--players", "1", "--games", "2", "--seed",
                 "1", "--out", str(tmp_path / "x")]) == 2
    assert "2 to 4 players (A1)" in capsys.readouterr().err


def test_rules_lists_every_switch(capsys):
    from sim.games.ascension.rules import KNOBS, SWITCHES
    assert main(["rules", "--game", "ascension"]) == 0
    text = capsys.readouterr().out
    assert len(SWITCHES) == 20
    for name in list(SWITCHES) + list(KNOBS):
        assert name in text


def test_an_ascension_experiment_runs_resumes_and_pairs(tmp_path, capsys):
    spec = tmp_path / "q3.toml"
    spec.write_text(textwrap.dedent(f"""
        game = "ascension"
        players = [2]
        games = 12
        chunk = 6
        seed = 3
        policy = "stair-builder"
        out = "{tmp_path / 'out'}"
        [variants.baseline]
        [variants.no_extra]
        rules = {{ extra_turns_enabled = false }}
    """))
    from sim.experiment.runner import run_experiment
    from sim.experiment.spec import load_spec
    s = load_spec(spec)
    run_experiment(s, jobs=1, quiet=True, stop_after_chunks=1)
    assert main(["run", str(spec), "--quiet"]) == 0
    doc = json.loads((tmp_path / "out" / "experiment.json").read_text())
    assert sum(c["games"] for c in doc["chunks"]) == 24            # nothing played twice
    assert main(["run", str(spec)]) == 0
    text = capsys.readouterr().out
    assert "paired difference in win rate against 'baseline'" in text and "seat 1" in text
    assert main(["report", str(tmp_path / "out"), "--variant", "no_extra"]) == 0


def test_an_ascension_spec_with_a_bad_switch_names_file_and_key(tmp_path, capsys):
    spec = tmp_path / "bad.toml"
    spec.write_text('game = "ascension"\ngames = 4\nout = "x"\n'
                    '[variants.a]\nrules = { joker_on_loss = "burn" }\n')
    assert main(["run", str(spec), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "bad.toml: variants.a.rules: joker_on_loss: 'burn' is not allowed" in err
    spec.write_text('game = "ascension"\ngames = 4\nout = "x"\ncharacters = "random"\n')
    assert main(["run", str(spec), "--dry-run"]) == 2
    assert "characters: not a key of a ascension experiment" in capsys.readouterr().err


def test_the_issue_command_runs_without_seed_or_out(tmp_path, monkeypatch, capsys):
    """`ascent simulate --game ascension --players 4 --games N --policy hybrid` (issue 8) runs:
    master seed 1, and a folder named after the command."""
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", "--game", "ascension", "--players", "4", "--games", "8",
                 "--policy", "hybrid"]) == 0
    out = tmp_path / "results" / "simulate" / "ascension-p4-hybrid-g8-s1"
    assert "written to results/simulate/ascension-p4-hybrid-g8-s1/" in capsys.readouterr().out
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["master_seed"] == 1 and manifest["games"] == 8
    # a variant of the command keeps a folder of its own: it was refused ("holds another
    # run; pass --overwrite"), and the way out discarded the first run
    assert main(["simulate", "--game", "ascension", "--players", "4", "--games", "8",
                 "--policy", "hybrid", "--rule", "max_stack=4"]) == 0
    variant, = (p for p in (tmp_path / "results" / "simulate").iterdir()
                if p != out and not p.name.startswith("."))     # not the locks
    assert variant.name.startswith("ascension-p4-hybrid-g8-s1-")
    assert json.loads((out / "manifest.json").read_text()) == manifest
    # the same bot named for every seat is the plain command's run
    capsys.readouterr()
    assert main(["simulate", "--game", "ascension", "--players", "4", "--games", "8",
                 "--seat-policies", "hybrid,hybrid,hybrid,hybrid"]) == 0
    assert "ascension-p4-hybrid-g8-s1/ already holds this run" in capsys.readouterr().out


def test_the_reports_seat_spread_and_reveal_shares_carry_their_intervals(tmp_path):
    """Principle 3: the player-count table's seat spread was a bare difference printed as a
    percentage, and the share of games with a reveal had no interval."""
    from sim.core.stats import wilson_interval
    from sim.report import first_screen as FS
    from sim.report.ascension import player_count_table, specials_table, with_rounds
    out = tmp_path / "run"
    assert main(["simulate", "--game", "ascension", "--players", "2", "--games", "60",
                 "--seed", "4", "--policy", "stair-builder", "--out", str(out), "--quiet"]) == 0
    assert main(["report", str(out)]) == 0
    seats = pd.read_parquet(out / "seats.parquet")
    games = with_rounds(pd.read_parquet(out / "games.parquet"), seats)
    row = player_count_table(games, seats).iloc[0]
    decided = games.loc[games["winner_seat"] >= 0, "game"]
    won = seats[seats["game"].isin(decided)].pivot(index="game", columns="seat", values="won")
    shares = won.mean()
    spread = FS.seat_spread(won.astype(float), shares.idxmax(), shares.idxmin())
    assert row["seat_spread_of_wins"] == pytest.approx(shares.max() - shares.min())
    assert row["seat_spread_ci"] == pytest.approx(spread[1:])
    ladder = specials_table(games, seats).set_index("symbol").loc["ladder"]
    shown = int((games["reveals_ladder"] > 0).sum())
    assert (ladder["with_reveal_ci_low"], ladder["with_reveal_ci_high"]) == \
        wilson_interval(shown, len(games))
    page = (out / "report.html").read_text()
    assert "with a 95% interval over every pair of seats at once" in page
    # the two wide tables read a measure a row, a player count a column (they ran off the page)
    spread = FS.points_interval(row["seat_spread_of_wins"], *row["seat_spread_ci"])
    assert f"<td>seat spread of the wins, points</td>\n      <td>{spread}</td>" in page
    assert "<td>blocked at least once</td>" in page and "<th>2 players</th>" in page


def test_the_player_count_table_reads_each_count_on_its_own_games(tmp_path):
    """A run of several player counts (an experiment's) failed with a KeyError at the second
    count: the table's by-seat winners were overwritten inside its loop."""
    from sim.report.ascension import player_count_table, with_rounds
    frames = []
    for players in (2, 3):
        out = tmp_path / f"p{players}"
        assert main(["simulate", "--game", "ascension", "--players", str(players), "--games",
                     "30", "--seed", "4", "--policy", "stair-builder", "--out", str(out),
                     "--quiet"]) == 0
        seats = pd.read_parquet(out / "seats.parquet")
        games = pd.read_parquet(out / "games.parquet")
        offset = players * 10**9            # as an experiment's report keys its games
        frames.append((games.assign(game=games["game"] + offset),
                       seats.assign(game=seats["game"] + offset)))
    seats = pd.concat([s for _, s in frames], ignore_index=True)
    games = with_rounds(pd.concat([g for g, _ in frames], ignore_index=True), seats)
    table = player_count_table(games, seats).set_index("players")
    for players, (g, s) in zip((2, 3), frames):
        alone = player_count_table(with_rounds(g, s), s).iloc[0]
        assert table.loc[players, "seat_spread_of_wins"] == \
            pytest.approx(alone["seat_spread_of_wins"], nan_ok=True)
        assert table.loc[players, "games"] == 30


def test_the_paired_table_sets_a_seat_s_own_win_against_its_own_win():  # A48
    """ascension_experiments' "seat 0 wins": a variant that switches partnership on is paired
    on seat 0's own wins, not its team's against its own."""
    from sim.report.ascension_experiments import paired_table
    n = 40
    games = pd.DataFrame({"game": range(n), "seed": range(n), "rounds": 10.0,
                          "first_summit_seat": 0, "winner_first_summiter": False,
                          "end_reason": "win", "winner_seat": [g % 4 for g in range(n)]})

    def seats(team):
        rows = [(g, k, g % 4 == k, (g % 4) % 2 == k % 2 if team else g % 4 == k)
                for g in range(n) for k in range(4)]
        return pd.DataFrame(rows, columns=["game", "seat", "own_win", "won"])
    data = {("baseline", 4): (games, seats(False)), ("partnership", 4): (games, seats(True))}
    row = paired_table(data).splitlines()[-1]
    # its own win against its own: no change (its team's against its own read +25.00); the
    # interval is Tango's with no changed game, Wilson's bound of 0 in 40 either way
    assert row.endswith("| +0.00 [-8.76, +8.76] |"), row


def test_a_partnership_variant_says_its_wins_are_a_team_s(tmp_path, capsys):  # A48
    """`ascent run` names a variant whose wins are a team's, and its comparison and a sweep's
    page pair each seat's own wins against free-for-all."""
    spec = tmp_path / "teams.toml"
    spec.write_text('game = "ascension"\nplayers = [4]\ngames = 40\nchunk = 40\nseed = 5\n'
                    'policy = "stair-builder"\nout = "out"\n[variants.baseline]\n'
                    '[variants.partnership]\nrules = { partnership = true }\n')
    assert main(["run", str(spec)]) == 0
    out = capsys.readouterr().out
    assert "baseline, 4 players:" in out
    assert "partnership, 4 players (a win is the team's: partners win together):" in out
    assert out.count("(each seat's own wins: one run's wins are a team's)") == 4
    assert main(["sweep", "--game", "ascension", "--knob", "partnership", "--values", "true",
                 "--games", "40", "--policy", "stair-builder", "--out", str(tmp_path / "sw"),
                 "--quiet"]) == 0
    page = (tmp_path / "sw" / "sweep.html").read_text()
    assert "each seat&#x27;s own win is compared" in page


def test_the_committed_ascension_specs_are_valid(capsys):
    """Every spec in experiments/ascension loads, plans (a dry run) and is listed in
    experiments/README.md, where a designer looks for the question it answers."""
    from pathlib import Path

    from sim.experiment.spec import load_spec
    root = Path(__file__).resolve().parents[2]
    readme = (root / "experiments" / "README.md").read_text()
    paths = sorted((root / "experiments" / "ascension").glob("*.toml"))
    assert len(paths) >= 7
    for path in paths:
        spec = load_spec(path)
        assert spec.game == "ascension"
        assert f"`ascension/{path.name}`" in readme, path.name
        assert main(["run", str(path), "--dry-run"]) == 0
    assert capsys.readouterr().out.count("total: ") == len(paths)


def test_the_self_inflicted_blocks_are_counted(capsys):  # A38
    """sim.report.ascension_blocks: a block in a turn whose pawn had a step when the turn
    began is the bot's own doing (only its own moves come between). `random` makes such moves
    (10 of its 32 blocks in its first eight games); `random-safe` (random_policy.py) and the
    stair builder (builder._move_strands) reject them, so none of their blocks is."""
    from sim.report.ascension_blocks import main, self_block_share
    assert self_block_share("random", 8)[:2] == (32, 10)
    assert self_block_share("stair-builder", 8)[:2] == (5, 0)
    assert self_block_share("random-safe", 12)[1] == 0
    assert main(["--policy", "random", "--games", "8"]) == 0
    assert "32 blocks, 10 of them self-inflicted (31.2% [" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["--games", "0"])
