"""`ascent report` survives the runs that used to crash it or render empty: a character that never
wins (a rate of 0 has a lower bound of exactly 0, so no negative error bar), games without any
winner, shared wins, a single game, a one-character run, and a comparison."""
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.cli import main
from sim.core.stats import wilson_interval


def simulate(out, *args):
    assert main(["simulate", *args, "--out", str(out), "--quiet"]) == 0
    return out


def report(out, *args):
    assert main(["report", str(out), *args]) == 0
    page = (out / "report.html").read_text() if not args else None
    if page is not None:
        assert "nan%" not in page and "['" not in page and "First 0 of" not in page
    return page


def rewrite(path, frame):
    """Replace a run's table, keeping the run's tag (sim/core/output.py) that report checks."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    tag = pq.read_schema(path).metadata[b"ascent"]
    table = pa.Table.from_pandas(frame, preserve_index=False)
    pq.write_table(table.replace_schema_metadata({**table.schema.metadata, b"ascent": tag}), path)


def test_a_rate_of_zero_or_one_has_exact_edges():
    lo, hi = wilson_interval(np.array([0, 7]), np.array([7, 7]))
    assert lo[0] == 0.0 and hi[1] == 1.0


@pytest.mark.parametrize("game, players", [("all-in-ascent", "4"), ("first-ascent", "3"),
                                           ("ascension", "2")])
def test_a_single_game_run(tmp_path, game, players):
    out = simulate(tmp_path / "one", "--game", game, "--players", players, "--games", "1",
                   "--seed", "3")
    assert "1 game;" in report(out)


def test_a_character_that_never_wins(tmp_path):
    out = simulate(tmp_path / "run", "--players", "4", "--games", "60", "--seed", "4")
    seats = pd.read_parquet(out / "seats.parquet")
    games = pd.read_parquet(out / "games.parquet")
    # take every win away from the Sprinter: those games end without a winner
    lost = seats.loc[(seats["character"] == "sprinter") & seats["won"], "game"]
    seats.loc[seats["character"] == "sprinter", "won"] = False
    games.loc[games["game"].isin(lost), "winner_seat"] = -1
    rewrite(out / "seats.parquet", seats)
    rewrite(out / "games.parquet", games)
    page = report(out)
    chars = pd.read_csv(out / "tables" / "characters.csv").set_index("character")
    assert chars.loc["sprinter", "wins"] == 0 and chars.loc["sprinter", "ci_low"] == 0.0
    assert "Sprinter" in page


def test_a_run_without_any_winner(tmp_path):
    # greedy never wins a v0.4.0 game: every game ends at the round cap
    out = simulate(tmp_path / "greedy", "--players", "4", "--games", "12", "--seed", "2",
                   "--policy", "greedy")
    assert (pd.read_parquet(out / "games.parquet")["winner_seat"] < 0).all()
    page = report(out)
    assert "no game had a winner" in page and "baseline bot" in page


def test_a_one_character_run(tmp_path):
    out = simulate(tmp_path / "solo", "--players", "1", "--characters", "technician",
                   "--games", "6", "--seed", "2")
    report(out)


def test_shared_wins_count_as_shares(tmp_path):
    out = simulate(tmp_path / "fa", "--game", "first-ascent", "--players", "4", "--games", "40",
                   "--seed", "1")
    winners = pd.read_parquet(out / "seats.parquet").groupby("game")["won"].sum()
    assert (winners > 1).any()                            # the run has shared wins
    page = report(out)
    assert "with a shared win" in page
    chars = pd.read_csv(out / "tables" / "first_ascent_characters.csv")
    # shares add up to the decided games, whatever the ties
    decided = int((winners > 0).sum())
    assert (chars["share"] * chars["n"]).sum() == pytest.approx(decided)


def test_a_comparison_gets_its_own_page(tmp_path):
    base = simulate(tmp_path / "base", "--game", "ascension", "--players", "2", "--games",
                    "6", "--seed", "9", "--policy", "stair-builder")
    variant = simulate(tmp_path / "variant", "--game", "ascension", "--players", "2",
                       "--games", "6", "--seed", "9", "--policy", "stair-builder", "--rule",
                       "max_stack=12")
    report(variant)
    own = (variant / "report.html").read_text()
    report(variant, "--against", str(base))
    assert (variant / "report.html").read_text() == own
    page = (variant / "compare.html").read_text()
    assert "max_stack=12" in page and "What changed" in page
    import re            # each run's own rate on the paired games comes with its interval
    assert re.search(r"<td>[\d.]+% \[[\d.]+, [\d.]+\]</td>\s*<td>[\d.]+% \[", page)
    paired = pd.read_csv(variant / "tables" / "compare_paired.csv")
    assert set(paired["seat"]) == {0, 1} and (paired["games"] == 6).all()
    assert "Paired on the" not in page
    # a shorter variant: only the games both played are paired, and the page says so
    short = simulate(tmp_path / "short", "--game", "ascension", "--players", "2", "--games",
                     "4", "--seed", "9", "--policy", "stair-builder", "--rule", "max_stack=12")
    report(short, "--against", str(base))
    page = (short / "compare.html").read_text()
    assert "Paired on the 4 games both runs played: 2 of the baseline&#x27;s 6 " \
           "and 0 of the variant&#x27;s 4 are left out" in page


def test_a_comparison_by_bot_takes_the_game_as_the_unit_for_a_bot_in_several_seats(tmp_path):
    # its seats' outcomes are linked (one winner a game): clustered by game, and said so
    from sim.core.stats import clustered_paired_difference

    def run(name, seats, *rule):
        return simulate(tmp_path / name, "--game", "ascension", "--players", "3", "--games", "6",
                        "--seed", "9", "--seat-policies", seats, *rule)
    note = "A bot in several seats of a game (up to 2 a game) is not a set of independent pairs"
    two_base = run("two_base", "stair-builder,stair-builder,blocker", "--rule", "max_stack=12")
    two = run("two", "stair-builder,stair-builder,blocker")
    report(two, "--against", str(two_base))
    assert note in (two / "compare.html").read_text()
    paired = pd.read_csv(two / "tables" / "compare_paired.csv").set_index("policy")
    assert paired.loc["stair-builder", ["seats_a_game", "game_count", "games"]].tolist() == \
        [2, 6, 12]
    assert paired.loc["blocker", "seats_a_game"] == 1
    assert paired.loc["blocker", "design_effect"] == 1.0
    seats = {name: pd.read_parquet(path / "seats.parquet") for name, path in
             (("base", two_base), ("variant", two))}
    mine = {name: s[s["policy"] == "stair-builder"].sort_values(["game", "seat"])
            .reset_index(drop=True) for name, s in seats.items()}
    won_base, won_variant = mine["base"]["won"].astype(bool), mine["variant"]["won"].astype(bool)
    games = mine["base"]["game"]
    per_game = pd.DataFrame({"b": won_base & ~won_variant, "c": won_variant & ~won_base,
                             "m": 1}).groupby(games).sum()
    difference, lo, hi, p, effect = clustered_paired_difference(per_game["b"], per_game["c"],
                                                                per_game["m"])
    row = paired.loc["stair-builder"]
    assert (row["paired_ci_low"], row["paired_ci_high"], row["p_value"]) == pytest.approx(
        (lo, hi, p), rel=1e-9)
    one = run("one", "stair-builder,random,blocker")
    report(one, "--against", str(run("one_base", "stair-builder,random,blocker", "--rule",
                                     "max_stack=12")))
    page = (one / "compare.html").read_text()
    assert "What changed" in page and "not a set of independent pairs" not in page
    paired = pd.read_csv(one / "tables" / "compare_paired.csv")
    assert (paired["seats_a_game"] == 1).all() and (paired["design_effect"] == 1.0).all()


def test_comparing_runs_of_two_games_is_refused(tmp_path, capsys):
    a = simulate(tmp_path / "a", "--game", "ascension", "--players", "2", "--games", "2",
                 "--seed", "1", "--policy", "stair-builder")
    b = simulate(tmp_path / "b", "--players", "2", "--games", "2", "--seed", "1")
    assert main(["report", str(a), "--against", str(b)]) == 2
    err = capsys.readouterr().err
    assert "nothing to compare" in err and len(err.strip().splitlines()) == 1
    assert json.loads((a / "manifest.json").read_text())["game"] == "ascension"


def test_a_card_name_that_matplotlib_would_read_as_math(tmp_path):
    # a '$' starts math text: a malformed formula used to fail the report after the whole run
    from sim.games.all_in_ascent.data import bundled_path
    doc = json.loads(Path(bundled_path("v0.4.0")).read_text())
    doc["GEAR_SHOP"][9]["name"] = "Cam $\\frac{1"
    data = tmp_path / "data.json"
    data.write_text(json.dumps(doc))
    out = simulate(tmp_path / "run", "--players", "3", "--games", "40", "--seed", "2",
                   "--data", str(data), "--policy", "random")
    page = report(out)
    assert "Cam $\\frac{1" in page


def test_the_bot_line_reads_a_ladder_step_in_the_words_it_uses(tmp_path):
    from sim.report.bots import ladder_steps
    ladder = tmp_path / "LADDER.md"
    ladder.write_text("Command: `ascent ladder`\n\n| weaker | stronger | stronger − weaker | "
                      "verdict |\n|---|---|---|---|\n"
                      "| random | planner | +1.0 [-1.0, +3.0] | holds (not significant) |\n")
    assert ladder_steps("random", ladder)[0] == "loses to planner by 1.0 points [-1.0, 3.0]"
    assert ladder_steps("planner", ladder)[0] == "beats random by 1.0 points [-1.0, 3.0]"
    assert ladder_steps("planner", ladder)[-1] == "from `ascent ladder`"
    # with the ladder's n (principle 3: the line gave an interval without its games)
    ladder.write_text(ladder.read_text().replace(
        "`\n\n", "`\n\n20,000 games per pairing, master seed 1: ...\n\n"))
    assert ladder_steps("planner", ladder)[-1] == "from `ascent ladder`, 20,000 games a pairing"


def test_the_bot_line_says_the_ladder_has_no_row_for_a_bot_it_lacks(tmp_path, monkeypatch):
    # a bot missing from the ladder is not a bot of unknown strength (it may be a skill-curve
    # level): the line names the ladder, not "no skill ladder"
    from sim.report import bots
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "LADDER.md").write_text(
        "Command: `ascent ladder`\n\n| weaker | stronger | stronger − weaker | verdict |\n"
        "|---|---|---|---|\n| random | planner | +1.0 [-1.0, +3.0] | holds |\n")
    monkeypatch.setattr(bots, "ROOT", tmp_path)
    line = bots.bot_line("all-in-ascent", ["mcts-tuned@128"] * 4)
    assert "The skill ladder (results/LADDER.md, written by `ascent ladder`) has no row for " \
           "these bots." in line
    assert "Skill ladder: planner beats random" in bots.bot_line("all-in-ascent", ["planner"] * 4)


def test_rotated_seats_are_not_reported_as_fixed_ones(tmp_path):
    """With --rotate-seats every bot sits in every seat, but the bot line named one bot per
    seat ("mixed seats: seat 1 stair-builder, ..."), so a seat's rate read as that bot's."""
    out = simulate(tmp_path / "rot", "--game", "ascension", "--players", "2", "--games", "4",
                   "--seed", "3", "--seat-policies", "random,random-safe", "--rotate-seats")
    page = report(out)
    assert ("random, random-safe, rotated: the list moves one seat a game, so each bot takes "
            "every seat in turn (4 games: 2 in each seat)") in page
    assert "seat 1 random" not in page
    # equally often only over a multiple of the player count
    from sim.report.bots import describe_seating
    assert describe_seating(["a", "b", "c"], True, 1001).endswith(
        "(1,001 games, not a multiple of 3 seats: 333 or 334 in each seat)")
    fixed = simulate(tmp_path / "fixed", "--game", "ascension", "--players", "2", "--games",
                     "4", "--seed", "3", "--seat-policies", "random,random-safe")
    assert "mixed seats: seat 1 random, seat 2 random-safe" in report(fixed)


def test_fixed_characters_are_not_read_as_a_character_verdict(tmp_path):
    """--characters with mixed bots: each character kept its seat and its bot, and the report
    ranked the characters without a word on it."""
    out = simulate(tmp_path / "fixed", "--players", "2", "--games", "6", "--seed", "3",
                   "--seat-policies", "tuned,random", "--characters", "technician,sprinter")
    assert "Each character kept one seat and bot in every game (--characters)" in report(out)
    same = simulate(tmp_path / "same", "--players", "2", "--games", "6", "--seed", "3",
                    "--characters", "technician,sprinter")
    assert "Each character kept one seat in every game" in report(same)
    dealt = simulate(tmp_path / "dealt", "--players", "2", "--games", "6", "--seed", "3")
    assert "Each character kept" not in report(dealt)


@pytest.mark.parametrize("kind", ["legend outside", "constrained layout", "after tight_layout",
                                  "not made by pyplot"])
def test_a_figure_drawn_once_has_the_pixels_of_a_tight_box(kind):
    """render.png_bytes measures the box without drawing where no layout engine moves the
    axes at the draw, and keeps matplotlib's "tight" where one does (constrained layout)."""
    import io

    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure
    from PIL import Image

    from sim.report.render import png_bytes

    def make():
        if kind == "not made by pyplot":
            fig = Figure()
            fig.add_subplot().plot([1, 2])
            return fig
        fig, ax = plt.subplots(layout="constrained" if kind == "constrained layout" else None)
        ax.plot([1, 3], label="a line")
        ax.set_ylabel("a long label on the y axis " * 2)
        if kind == "constrained layout":
            fig.colorbar(ax.imshow(np.arange(20).reshape(4, 5)), ax=ax, label="colour")
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
        if kind == "after tight_layout":
            fig.suptitle("a title above", y=1.05)
            fig.tight_layout()
        return fig

    tight = io.BytesIO()
    make().savefig(tight, format="png", dpi=110, bbox_inches="tight")
    plt.close("all")
    expected = np.asarray(Image.open(tight))
    got = np.asarray(Image.open(io.BytesIO(png_bytes(make()))))
    assert got.shape == expected.shape and (got == expected).all()


def test_a_table_writes_counts_with_thousands_separators(tmp_path):
    """Page.table shows whole numbers as the text does (39,972); the CSV keeps the numbers, and
    an explicit format wins."""
    from sim.report.render import Page
    page = Page(tmp_path)
    page.table(pd.DataFrame({"route": ["a"], "games": [9993], "seats": [39972],
                             "rounds": [1234], "won": [True]}), "counts",
               {"rounds": lambda v: f"{v} rounds"})
    html = page.parts[-1]
    assert "<td>9,993</td>" in html and "<td>39,972</td>" in html
    assert "<td>1234 rounds</td>" in html and "<td>True</td>" in html
    assert pd.read_csv(tmp_path / "tables" / "counts.csv")["seats"].tolist() == [39972]


def test_the_seat_figure_says_what_a_partner_s_share_is():  # A48
    import matplotlib.pyplot as plt

    from sim.report.render import seat_advantage_figure
    seats = pd.DataFrame({"players": 4, "seat": range(4), "share": [.29, .21, .29, .21],
                          "ci_low": .2, "ci_high": .3, "parity": .25})
    for note, title in [("", "Win share by seat; dotted: effective parity"),
                        ("a team's win: half to each partner",
                         "Win share by seat (a team's win: half to each partner); dotted: "
                         "effective parity")]:
        fig = seat_advantage_figure(seats, note)
        assert fig.axes[0].get_title() == title
        plt.close(fig)


def test_a_simulate_run_pairs_with_an_experiment_variant_of_the_same_games(tmp_path, capsys):
    """An experiment numbers its games players x 10**9 + index, a simulate run from 0: the
    same games were refused as 'seeds differ'. Numbered alike, they pair game by game."""
    pytest.importorskip("dice_race", reason="pip install -e examples/dice_race")
    from sim.cli import main
    spec = tmp_path / "exp.toml"
    spec.write_text('game = "dice-race"\nplayers = [2]\ngames = 60\nchunk = 60\nseed = 3\n'
                    f'policy = "random"\nout = "{(tmp_path / "exp").as_posix()}"\n'
                    '[variants.baseline]\n')
    assert main(["run", str(spec), "--quiet"]) == 0
    run = tmp_path / "sim"
    assert main(["simulate", "--game", "dice-race", "--players", "2", "--games", "60", "--seed",
                 "3", "--policy", "random", "--out", str(run), "--quiet"]) == 0
    assert main(["report", str(run), "--against", str(tmp_path / "exp")]) == 0, \
        capsys.readouterr().err
    assert "seeds differ" not in capsys.readouterr().err
    # another seed is still refused
    other = tmp_path / "other"
    assert main(["simulate", "--game", "dice-race", "--players", "2", "--games", "60", "--seed",
                 "4", "--policy", "random", "--out", str(other), "--quiet"]) == 0
    assert main(["report", str(other), "--against", str(tmp_path / "exp")]) == 2
    assert "seeds differ" in capsys.readouterr().err
