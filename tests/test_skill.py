"""`ascent skill` (issue 20): self-play and head to head at a ladder of bot strengths, resumable
runs, verdicts with the levels where they hold, convergence of the two strongest levels; and
the BOT@N budget names it relies on. Played on the example game (Dice Race), whose games are
fast."""
import numpy as np
import pytest

from sim.cli import main
from sim.core.game import GameError, get_game
from sim.core.policies import get_policy, policy_name_problem
from sim.experiment.skill import SkillPlan, analyse, budget_estimate, read_verdicts, runs

pytest.importorskip("dice_race", reason="pip install -e examples/dice_race")

LEVELS = "random,hold-at,mcts@20,mcts@80"


def skill(out, *extra, games="600", search_games="200"):
    return main(["skill", "--game", "dice-race", "--players", "2", "--levels", LEVELS,
                 "--games", games, "--search-games", search_games, "--chunk", "300",
                 "--out", str(out), "--quiet", *extra])


@pytest.fixture(scope="module")
def curve(tmp_path_factory):
    out = tmp_path_factory.mktemp("skill") / "curve"
    assert skill(out) == 0
    return out


def plan_for(out, games=600, search_games=200):
    return SkillPlan(get_game("dice-race"), 2, tuple(LEVELS.split(",")), games, search_games,
                     1, out, chunk=300)


def test_a_budget_name_sets_the_bots_budget_and_nothing_else():
    base = get_policy("dice-race", "mcts")
    budgeted = get_policy("dice-race", "mcts@77")
    assert budgeted.name == "mcts@77" and budgeted.function is base.function
    assert budgeted.default_params[0] == 77
    assert list(budgeted.default_params[1:]) == list(base.default_params[1:])


@pytest.mark.parametrize("name, message", [
    ("hold-at@5", "'hold-at' takes no budget"),
    ("mcts@0", "whole number from 1"),
    ("mcts@ten", "whole number from 1"),
    ("mcts@\u00b2", "whole number from 1"),       # a digit to str.isdigit(), not to int()
    ("mcts@\u0668", "whole number from 1"),       # Arabic-Indic 8: int() reads it as 8
    ("mcts@08", "whole number from 1"),           # mcts@8's games under another name
    ("genius", "unknown policy 'genius' for Dice Race; available: .* \\(with a budget: mcts@N\\)"),
])
def test_a_bad_budget_name_is_refused_naming_what_is_allowed(name, message):
    import re
    assert re.search(message, policy_name_problem("dice-race", name))
    with pytest.raises(GameError, match=message):
        get_game("dice-race").seat_policies(name, None, 2)


def test_every_level_plays_self_play_and_each_neighbour_pair_head_to_head(curve):
    plan = plan_for(curve)
    kinds = [(kind, label) for kind, label, *_ in runs(plan)]
    assert [label for kind, label in kinds if kind == "self"] == list(plan.levels)
    assert sum(kind == "h2h" for kind, _ in kinds) == 2 * (len(plan.levels) - 1)
    from sim.experiment.runner import load_variant
    for _, _, folder, seats, games in runs(plan):
        played = load_variant(folder, "baseline", 2)
        assert played["game"].nunique() == games
        assert sorted(set(played["policy"])) == sorted(set(seats))
        # the seats the run says: the stronger candidate first, then swapped
        first = played[played["game"] == 0].sort_values("seat")["policy"].tolist()
        assert first == seats
    # a budgeted level plays search_games, the others games
    by_label = {str(label): games for _, label, _, _, games in runs(plan)}
    assert by_label["random"] == 600 and by_label["mcts@80"] == 200


def test_the_analysis_matches_the_records(curve):
    from sim.experiment.runner import load_variant
    plan = plan_for(curve)
    a = analyse(plan)
    # the shares of decided games, recomputed from one run's seats
    seats = load_variant(runs(plan)[1][2], "baseline", 2)
    decided = seats.groupby("game")["won"].transform("any")
    expected = seats[decided].groupby("seat")["won"].mean()
    assert a["shares"]["hold-at"]["share"].to_numpy() == pytest.approx(expected.to_numpy())
    # the head to head of hold-at over random: hold-at wins most games (measured ~80%)
    first = a["h2h"][0]
    assert (first["stronger"], first["weaker"]) == ("hold-at", "random")
    assert first["low"] > 0.6 and first["games"] == 1200
    # both swaps played the same games: every game index appears in both
    h2h = [f for kind, label, f, _, _ in runs(plan) if kind == "h2h" and label[0] == "hold-at"]
    games = [set(load_variant(f, "baseline", 2)["game"]) for f in h2h]
    assert games[0] == games[1] == set(range(600))


def test_the_markdown_answers_first_and_names_an_inverted_level(curve):
    text = (curve / "SKILL.md").read_text()
    assert text.index("## Verdicts") < text.index("## Share of the decided games")
    assert "**Convergence:**" in text and (curve / "skill.png").stat().st_size > 10_000
    assert "`mcts@80`" in text
    a = analyse(plan_for(curve))
    inverted = [h for h in a["h2h"] if h["high"] < 0.5]
    assert ("**Not a ladder of strength:**" in text) == bool(inverted)


def test_a_level_whose_games_stall_is_flagged_with_its_own_warnings(tmp_path):
    # D6: a 4-turn cap stops nearly every game of random play before anyone reaches the target
    out = tmp_path / "capped"
    assert main(["skill", "--game", "dice-race", "--players", "2", "--levels", "random,hold-at",
                 "--games", "200", "--rule", "max_turns=4", "--out", str(out), "--quiet"]) == 0
    text = (out / "SKILL.md").read_text()
    assert "**Read with care:**" in text
    import re
    assert re.search(r"- `random`: \d+ of 200 games \(9\d\.\d%\) were stopped by a cap", text)
    assert text.index("**Read with care:**") < text.index("## Share of the decided games")


def test_a_curve_without_such_records_says_nothing_of_them(curve):
    assert "**Read with care:**" not in (curve / "SKILL.md").read_text()
    assert all(w == [] for w in analyse(plan_for(curve))["warnings"].values())


def test_the_verdicts_read_back_as_written_also_inside_a_file_of_several_games(curve):
    """Reports read a skill file's verdicts (validity.skill_check): the reader gives back what
    skill_markdown wrote, also from a file that holds one section per game at another heading
    depth (results/SKILL.md), and nothing for a curve played under changed rules."""
    text = (curve / "SKILL.md").read_text()
    a = analyse(plan_for(curve))
    levels = LEVELS.split(",")
    expected = {f"Seat {seat + 1}": (row[levels[-1]], row[levels[-2]] != row[levels[-1]])
                for seat, row in a["verdicts"].iterrows()}
    read, why = read_verdicts(text, "Dice Race", 2)
    assert why == "" and {k: (v.verdict, v.flipped) for k, v in read.items()} == expected
    assert {(v.strongest, v.second) for v in read.values()} == {("mcts@80", "mcts@20")}
    # the decided games behind each verdict, from the shares table's column of mcts@80
    shares = a["shares"]["mcts@80"]
    assert {k: v.decided for k, v in read.items()} == {
        f"Seat {seat + 1}": int(n) for seat, n in shares["games"].items()}
    assert read_verdicts(text, "Dice Race", 3) == ({}, "no skill curve at 3 players")
    assert read_verdicts(text, "Ascension", 2)[0] == {}
    nested = text.replace("\n#", "\n##")
    combined = "# All curves\n\n" + nested + "\n" + nested.replace(
        "Dice Race, 2 players", "Dice Race, 4 players").replace("over |", "under |")
    assert read_verdicts(combined, "Dice Race", 2) == (read, "")
    # a section that goes on with an earlier curve's tables: its first verdicts table counts
    earlier = nested.split("## Verdicts", 1)[1].replace("| the same |", "| X |").replace(
        "| UNCONVERGED: it flips |", "| the same |").replace("| X |", "| UNCONVERGED: it flips |")
    swapped = nested.split("## Verdicts")[0] + "## Verdicts" + earlier
    assert read_verdicts(swapped, "Dice Race", 2)[0] == {
        k: v.__class__(v.verdict, not v.flipped, v.strongest, v.second, v.decided)
        for k, v in read.items()}
    assert read_verdicts(nested + "\n#### Verdicts" + earlier, "Dice Race", 2) == (read, "")
    # a curve played under changed rules, in any command of its Command line
    changed = text.replace("--levels", "--set target=50 --levels")
    assert "--set target=50" in changed
    assert read_verdicts(changed, "Dice Race", 2) == (
        {}, "its skill curve at 2 players was played under changed rules")
    import re
    second = re.sub(r"^(Command: `[^`]*`)", r"\1, then `ascent skill --rule bust_face=2`", text,
                    count=1, flags=re.M)
    assert "--rule" in second and read_verdicts(second, "Dice Race", 2)[0] == {}


def _printed_wins(cell):
    """The win counts a printed share cell ("29.0% [27.9%, 30.1%] n=6,618") allows: every w
    whose share and Wilson interval print as the cell does (at the digits printed)."""
    import re
    from sim.core.stats import wilson_interval
    share, lo, hi, n = re.fullmatch(r"([\d.]+)% \[([\d.]+)%, ([\d.]+)%\] n=([\d,]+)",
                                    cell).groups()
    n = int(n.replace(",", ""))

    def prints(x, text):
        digits = len(text.split(".")[1])
        return np.array([f"{v:.{digits}f}" == text for v in 100 * x])
    w = np.arange(n + 1)
    low, high = wilson_interval(w, np.full(n + 1, n))
    allowed = w[prints(w / n, share) & prints(low, lo) & prints(high, hi)].tolist()
    assert allowed, cell
    return allowed, n


@pytest.mark.parametrize("title", ["All-In Ascent", "First Ascent", "Ascension"])
def test_the_committed_verdicts_follow_from_their_share_tables(title):
    """results/SKILL.md's verdicts (the table reports read) follow from the share cells of each
    section by ascent skill's rule: each level's shares tested against its fair share and
    Holm-corrected across the level. A cell prints its wins only to a range; the verdict must
    be the same at both ends of every range (Holm is monotone in each p-value). (The Ascension
    section once joined two commands' files by hand; it still may.)"""
    import re
    from pathlib import Path
    from sim.core.stats import binomial_p_value, holm
    text = (Path(__file__).resolve().parents[1] / "results" / "SKILL.md").read_text()
    read, why = read_verdicts(text, title, 4)
    assert why == "" and read
    section = text[text.index(f"## Skill curve: {title}, 4 players"):]
    section = section[:section.index("## Skill curve:", 5)] if "## Skill curve:" in \
        section[5:] else section
    levels = re.findall(r"`([^`]+)`", re.search(r"^Levels, weakest first: (.*?)\. ", section,
                                                 re.M).group(1))
    said = re.search(r"^Over-powered: .*$", section, re.M).group(0)
    named = dict(re.findall(r"`([^`]+)` ([\d.]+)%", said))
    fair = {lv: float(named[lv]) / 100 if lv in named else
            float(re.search(r"the fair share \(([\d.]+)%\)", said).group(1)) / 100
            for lv in levels}
    cells = {}                                   # level -> {row: cell}, first table wins
    for block in re.findall(r"^(\|.*\|\n\|[-|]+\|\n(?:\|.*\|\n?)*)", section, re.M):
        lines = block.strip().split("\n")
        head = [c.strip().strip("`") for c in lines[0].strip("|").split("|")]
        for line in lines[2:]:
            row = [c.strip() for c in line.strip("|").split("|")]
            for level, cell in zip(head[1:], row[1:]):
                if level in levels and (re.fullmatch(r"[\d.]+% \[.*\] n=[\d,]+", cell) or
                                        cell == "no decided game"):
                    cells.setdefault(level, {}).setdefault(row[0], cell)
    verdicts = {}
    for level in levels:
        rows = sorted(cells[level])
        ends = []
        for row in rows:
            if cells[level][row] == "no decided game":
                ends.append((np.nan, np.nan, 0.0))
                continue
            allowed, n = _printed_wins(cells[level][row])
            ps = [binomial_p_value(w, n, fair[level]) for w in (allowed[0], allowed[-1])]
            ends.append((min(ps), max(ps), allowed[0] / n - fair[level]))
        low, high = holm([e[0] for e in ends]), holm([e[1] for e in ends])
        for row, lo_p, hi_p, (_, _, side) in zip(rows, low, high, ends):
            if np.isnan(lo_p):
                verdicts[(row, level)] = "no decided game"
                continue
            assert (lo_p < 0.05) == (hi_p < 0.05), (title, level, row, "ambiguous as printed")
            verdicts[(row, level)] = ("over" if side > 0 else "under") if hi_p < 0.05 else "even"
    for row, top in read.items():
        at = [verdicts[(row, level)] for level in levels]
        assert top.verdict == at[-1] and top.flipped == (at[-2] != at[-1]), (title, row)
        holds = re.search(rf"^\| {re.escape(row)} \| \w+ \| ([^|]+) \|", section,
                          re.M).group(1)
        assert holds.strip().split(", ") == [lv for lv, v in zip(levels, at) if v == at[-1]]


def test_a_level_s_verdicts_are_holm_corrected_across_its_groups():
    import pandas as pd
    from sim.core.stats import wilson_interval
    from sim.experiment.skill import judged
    wins, games = np.array([280, 250, 200, 0]), np.array([1000, 1000, 1000, 0])
    lo, hi = wilson_interval(wins, np.maximum(games, 1))
    level = pd.DataFrame({"games": games, "wins": wins, "share": wins / np.maximum(games, 1),
                          "low": lo, "high": hi}, index=["a", "b", "c", "absent"])
    out = judged(level, 0.25)
    # a's interval leaves out 25% on its own (p 0.03), but not once three tests share 5%
    assert lo[0] > 0.25 and out.loc["a", "p"] < 0.05 < out.loc["a", "p_holm"]
    assert out["verdict"].tolist() == ["even", "even", "under", "no decided game"]
    assert np.isnan(out.loc["absent", "p_holm"])           # not a test: the family is 3
    assert out.loc["c", "p_holm"] == pytest.approx(3 * out.loc["c", "p"])
    alone = judged(level.loc[["a", "absent"]], 0.25)
    assert alone.loc["a", "verdict"] == "over"               # a family of one: no correction


def test_a_head_to_head_counts_the_games_won_and_widens_for_shared_wins():
    """"Won by either" counts games, not wins: a tie (a shared win, First Ascent's) counts for
    each winner in the share, but once in the games, and the interval is as wide as the
    games allow. Where every game has one winner it is Wilson's on the games, as before."""
    import numpy as np
    import pandas as pd
    from sim.core.stats import wilson_interval
    from sim.experiment.skill import head_to_head_share

    def table(outcomes):
        """outcomes: per game, the winning seats (0, 2: `a`; 1, 3: `b`)."""
        rows = [{"game": g, "seat": k, "policy": "a" if k % 2 == 0 else "b",
                 "won": k in winners} for g, winners in enumerate(outcomes) for k in range(4)]
        return pd.DataFrame(rows)

    single = [(0,)] * 60 + [(1,)] * 40 + [()] * 5
    h = head_to_head_share([table(single)], "a", "b")
    assert (h["games"], h["decided"], h["wins"]) == (105, 100, 100)
    assert h["share"] == 0.6 and (h["low"], h["high"]) == wilson_interval(60, 100)
    # the same games, each `a` win shared with its own second seat and each `b` win with
    # `b`'s: every game holds two wins, all of one bot, so the games are worth 100, not 200
    # (99 by the clustered variance, which divides by m - 1)
    doubled = [(0, 2)] * 60 + [(1, 3)] * 40 + [()] * 5
    d = head_to_head_share([table(doubled)], "a", "b")
    assert (d["decided"], d["wins"], d["share"]) == (100, 200, 0.6)
    assert (d["low"], d["high"]) == pytest.approx(wilson_interval(60, 100), abs=1e-3)
    # ties between the bots: 20 games won by both; the share counts each winner, and the
    # interval is no narrower than the 100 games allow (not Wilson's on the 120 wins)
    ties = [(0,)] * 50 + [(1,)] * 30 + [(0, 1)] * 20
    t = head_to_head_share([table(ties)], "a", "b")
    assert (t["decided"], t["wins"]) == (100, 120) and t["share"] == pytest.approx(70 / 120)
    assert (t["low"], t["high"]) == pytest.approx(wilson_interval(70 / 120 * 100, 100))
    assert t["high"] - t["low"] > 1.05 * np.subtract(*wilson_interval(70, 120)[::-1])
    # half the games won twice by one bot: worth fewer than the 100 games (about 89), so wider
    # than Wilson's on the games
    mixed = [(0, 2)] * 25 + [(1, 3)] * 25 + [(0,)] * 25 + [(1,)] * 25
    m = head_to_head_share([table(mixed)], "a", "b")
    assert (m["decided"], m["wins"], m["share"]) == (100, 150, 0.5)
    s_, t_ = np.array([2.0] * 25 + [0.0] * 25 + [1.0] * 25 + [0.0] * 25), \
        np.array([2.0] * 50 + [1.0] * 50)
    n_eff = 0.25 / (100 / 99 * ((s_ - 0.5 * t_) ** 2).sum() / 150 ** 2)
    assert 85 < n_eff < 93
    assert (m["low"], m["high"]) == pytest.approx(wilson_interval(0.5 * n_eff, n_eff))
    assert m["high"] - m["low"] > 1.03 * np.subtract(*wilson_interval(50, 100)[::-1])
    assert head_to_head_share([table([()] * 3)], "a", "b")["decided"] == 0


def test_an_interval_end_next_to_the_fair_share_prints_the_digits_that_tell_them_apart():
    """A share table's interval end that one decimal would print as the fair share itself gets
    the digits that show which side it is on, so that "under" never stands beside
    "[19.8%, 25.0%]"; every other end keeps one decimal."""
    from sim.experiment.skill import _bound_pct
    assert _bound_pct(0.24978, 0.25) == "24.98%"
    assert _bound_pct(0.25012, 0.25) == "25.01%"
    assert _bound_pct(0.249996, 0.25) == "24.9996%"
    assert _bound_pct(0.25, 0.25) == "25.0%"
    assert _bound_pct(0.198, 0.25) == "19.8%"
    assert _bound_pct(1 / 3 - 1e-5, 1 / 3) == "33.332%"
    # a fair share that one decimal does not print exactly is printed with three, and an end
    # printed next to it lies on the side the verdict says
    from sim.experiment.skill import _fair_pct
    assert (_fair_pct(0.25), _fair_pct(1 / 3), _fair_pct(1 / 6)) == ("25.0%", "33.333%", "16.667%")
    for x, fair in ((0.3332, 1 / 3), (0.16668, 1 / 6), (0.14284, 1 / 7), (0.1429, 1 / 7)):
        printed, fair_printed = (float(v.rstrip("%")) for v in (_bound_pct(x, fair),
                                                                 _fair_pct(fair)))
        assert (printed < fair_printed) == (x < fair), (x, fair)


def test_the_same_command_resumes_and_more_games_extend(curve, tmp_path):
    import shutil
    copy = tmp_path / "curve"
    shutil.copytree(curve, copy)
    from sim.experiment.runner import load_variant

    def body():
        return (copy / "SKILL.md").read_text().split("\n", 3)[3]    # after the command line
    before = body()
    assert skill(copy) == 0
    assert body() == before
    assert skill(copy, games="900") == 0
    plan = plan_for(copy, games=900)
    random_run = runs(plan)[0][2]
    assert load_variant(random_run, "baseline", 2)["game"].nunique() == 900
    assert analyse(plan)["shares"]["mcts@80"]["games"].sum() <= 2 * 200


def test_another_seed_in_the_same_folder_is_refused(curve, tmp_path, capsys):
    import shutil
    copy = tmp_path / "curve"
    shutil.copytree(curve, copy)
    assert skill(copy, "--seed", "9") == 2
    assert "holds another run" in capsys.readouterr().err


@pytest.mark.parametrize("extra, message", [
    (["--levels", "random"], "at least two distinct bots"),
    (["--levels", "random,nobody"], "--levels: unknown policy 'nobody'"),
    (["--players", "7"], "--players"),
])
def test_bad_arguments_are_refused_in_one_line(tmp_path, capsys, extra, message):
    argv = ["skill", "--game", "dice-race", "--players", "2", "--games", "10",
            "--out", str(tmp_path / "x"), "--quiet"]
    for k in range(0, len(extra), 2):
        if extra[k] in argv:
            argv[argv.index(extra[k]) + 1] = extra[k + 1]
        else:
            argv += extra[k:k + 2]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_the_budget_estimate_extrapolates_a_shrinking_shift():
    levels = ("a", "b@25", "b@100", "b@400")
    text = budget_estimate(levels, [9.0, 8.0, 4.0])
    # 4 -> 2 at the same ratio (1/2) takes one more step of x4: 1,600 iterations
    assert "after 1 more step(s) of x4, about 1,600 iterations" in text
    assert budget_estimate(levels, [9.0, 4.0, 5.0]).startswith("no estimate: the largest shift "
                                                               "did not shrink")
    assert budget_estimate(("a", "b", "c"), [3.0, 2.5]).startswith("no estimate: it needs")


def test_the_budget_estimate_extrapolates_only_over_budget_steps():
    # a step from another bot (lookahead -> search@32) is not a smaller budget of the search
    assert budget_estimate(("a", "b", "c@32", "c@128"), [9.0, 5.3, 4.6]) == (
        "no estimate: the largest shift between the two budgets is 4.6 points; extrapolating "
        "it needs the same bot at a third, smaller budget")
    assert budget_estimate(("a", "b@8", "c@32", "c@128"), [9.0, 5.3, 4.6]).startswith(
        "no estimate: the largest shift between the two budgets")
    assert budget_estimate(("a", "c@32", "d@128"), [5.3, 4.6]).startswith(
        "no estimate: it needs the two strongest levels to be one bot at two budgets")
    # the budgets already agree within the test's 2 points: more games, not more budget
    assert budget_estimate(("a", "c@4", "c@8"), [14.6, 1.5]).startswith(
        "none measurable: between the two budgets no share moved by more than 1.5 points")



def test_no_budget_is_estimated_from_shifts_within_the_noise():
    import pandas as pd
    levels = ("a", "b@4", "b@16", "b@64")
    # every paired difference between the two budgets straddles zero, +-6 points at 1,000 games
    noisy = pd.DataFrame({"group": ["x", "y"], "games": [330, 330], "second": [0.3, 0.2],
                          "top": [0.347, 0.173], "diff": [0.047, -0.027],
                          "low": [-0.013, -0.074], "high": [0.106, 0.019]})
    text = budget_estimate(levels, [9.0, 4.71, 4.69], noisy, 1000)
    assert text.startswith("none measurable: between the two budgets no paired difference")
    # (5.95 / 2) ** 2 * 1,000 games = 8,851, rounded up to a thousand
    assert "+-5.9 points at 1,000 games" in text and "about 9,000 a level" in text
    # one difference told apart from zero: the shifts are read as before, and one that barely
    # shrank is not extrapolated (the first version printed 272 steps of x4)
    moved = noisy.assign(low=[0.01, -0.074])
    assert budget_estimate(levels, [9.0, 4.71, 4.69], moved, 1000).startswith(
        "no estimate: the largest shift barely shrank (4.7 then 4.7 points)")
    assert "about 1,600 iterations" in budget_estimate(("a", "b@25", "b@100", "b@400"),
                                                       [9.0, 8.0, 4.0], moved, 1000)


def test_the_paired_margin_difference_pairs_game_by_game():
    """Two bots against a common opponent on the same games: the difference of their shares of
    the wins, paired game by game (MCTS.md's target 2)."""
    import pandas as pd
    from sim.experiment.skill import SkillError, paired_margin_difference

    def table(winners, bot):        # one winning seat per game: the bot's or the opponent's
        return pd.DataFrame({"game": range(len(winners)), "won": [True] * len(winners),
                             "policy": [bot if w else "tuned" for w in winners]})
    a = [1, 1, 1, 0, 1, 0, 1, 1]                      # 6 of 8
    b = [1, 1, 0, 0, 1, 0, 1, 0]                      # 4 of 8, the same games otherwise
    out = paired_margin_difference(([table(a, "x")], "x"), ([table(b, "y")], "y"))
    assert out["games"] == 8 and out["same_result"] == 6
    assert out["share_first"] == 0.75 and out["share_second"] == 0.5
    assert out["difference"] == pytest.approx(25.0)
    assert out["low"] < 25.0 < out["high"]
    same = paired_margin_difference(([table(a, "x")], "x"), ([table(a, "y")], "y"))
    assert same["difference"] == same["low"] == same["high"] == 0.0
    with pytest.raises(SkillError, match="same games"):
        paired_margin_difference(([table(a, "x")], "x"), ([table(b[:7], "y")], "y"))


def test_the_paired_margin_difference_refuses_games_that_are_not_the_same():
    """A bot name that sits at no seat, or one side's arrangements given in another order (the
    same game numbers, other seatings), would pair games that are not the same and give a
    confident wrong answer: both are refused."""
    import pandas as pd
    from sim.experiment.skill import SkillError, paired_margin_difference
    characters = ["a", "b", "c", "d"]

    def arrangement(bot, bot_seats, winners):
        rows = []
        for game, winner in enumerate(winners):
            for seat in range(4):
                rows.append({"game": game, "seat": seat,
                             "character": characters[(seat + game) % 4],
                             "policy": bot if seat in bot_seats else "tuned",
                             "won": seat == winner})
        return pd.DataFrame(rows)

    def side(bot, winners_0, winners_1):
        return [arrangement(bot, (0, 2), winners_0), arrangement(bot, (1, 3), winners_1)]

    first = side("x", [0, 1, 2, 3, 0], [1, 1, 0, 3, 2])
    second = side("y", [0, 1, 1, 3, 1], [1, 0, 0, 3, 2])
    out = paired_margin_difference((first, "x"), (second, "y"))
    assert out["games"] == 10 and out["share_first"] == 0.6 and out["share_second"] == 0.3
    with pytest.raises(SkillError, match="sits at none"):
        paired_margin_difference((first, "x"), (second, "mcts-tuned@128"))
    with pytest.raises(SkillError, match="seat the bot elsewhere"):
        paired_margin_difference((first, "x"), (second[::-1], "y"))
    dealt_otherwise = [t.assign(character=t["character"].map(dict(zip("abcd", "badc"))))
                       for t in second]
    with pytest.raises(SkillError, match="deal other characters"):
        paired_margin_difference((first, "x"), (dealt_otherwise, "y"))


def test_the_convergence_read_is_the_curves_own():
    """The first screen says how far a curve converged from its Convergence line. A section may
    go on with an earlier curve's text: a line that names two other levels as the strongest is
    not this curve's, so where the curve has no line of its own the answer is 'not said'."""
    from sim.experiment.skill import read_convergence
    head = ("## Skill curve: All-In Ascent, 4 players\n\n"
            "Levels, weakest first: `random`, `tuned`, `lookahead`. Self-play.\n\n")
    own = ("**Convergence:** converged. The two strongest levels (`tuned`, `lookahead`), game "
           "by game: ...\n\n")
    older = ("**Convergence:** UNCONVERGED. The two strongest levels (`planner`, `tuned`), "
             "game by game: ...\n\n")
    assert read_convergence(head + own + older, "All-In Ascent", 4) is True
    assert read_convergence(head + older, "All-In Ascent", 4) is None
    assert read_convergence(head + older + own, "All-In Ascent", 4) is True
    # a hand-written line that names no levels counts (Ascension's combined curve)
    assert read_convergence(head + "**Convergence:** UNCONVERGED, for lack of games.\n",
                            "All-In Ascent", 4) is False
    assert read_convergence(head + own, "All-In Ascent", 3) is None


def test_each_level_is_judged_against_its_own_fair_share(curve, monkeypatch):
    """Bots differ in how often they tie (First Ascent: 25.4% at random, 25.9-26.4% above), so
    each level's verdicts take that level's fair share: one pooled share read a level with
    many ties as 'over' everywhere (a review found it). Here the strongest level's decided
    games are made two-winner games: its fair share is 1, and nothing there is 'over'."""
    from sim.experiment import skill as K
    plan = plan_for(curve)
    real = K._seats
    strongest = {str(folder) for kind, label, folder, _, _ in runs(plan)
                 if kind == "self" and label == plan.levels[-1]}

    def tied(folder, players, group):
        seats = real(folder, players, group)
        if str(folder) in strongest:
            seats = seats.assign(won=seats.groupby("game")["won"].transform("any"))
        return seats
    monkeypatch.setattr(K, "_seats", tied)
    a = analyse(plan)
    assert a["fairs"][plan.levels[0]] == 0.5 and a["fairs"][plan.levels[-1]] == 1.0
    assert (a["verdicts"][plan.levels[-1]] == "even").all()
    text = K.skill_markdown(plan, a, "ascent skill ...")
    assert "its level's fair share (the mean number of winners" in text
    # the list prints every level's share alike ("25.410%, 25.900%", not "25.410%, 25.9%")
    a["fairs"] = {lv: 0.2541 if k == 0 else 0.259 for k, lv in enumerate(plan.levels)}
    text = K.skill_markdown(plan, a, "ascent skill ...")
    assert f"`{plan.levels[0]}` 25.410%, `{plan.levels[1]}` 25.900%" in text


def test_the_fair_share_is_a_team_s_where_partners_win_together():  # A48
    """Under Ascension's partnership both partners win their team's games, so a seat's share
    of the decided games is its team's, fair at 2/4 (at 1/4 every seat read as over-powered);
    a tie here and there (First Ascent, F63) raises it by the mean number of winners (at
    1/players a fair character read as over)."""
    import pandas as pd
    from sim.experiment.skill import fair_share

    def seats(winners_by_game):
        return pd.DataFrame([{"game": g, "seat": s, "won": s in won}
                             for g, won in enumerate(winners_by_game) for s in range(4)])
    teams = seats([{0, 2}, {1, 3}, set(), {0, 2}])
    assert fair_share([teams, teams], 4) == 0.5
    assert fair_share([seats([{0}, {2}, set()])], 4) == 0.25
    assert fair_share([seats([{0}, {1, 3}, {2}])], 4) == pytest.approx(4 / 3 / 4)  # a tie
    assert fair_share([seats([{0}, {1, 3}, set()]), seats([{2}, {0}])], 4) == \
        pytest.approx(5 / 4 / 4)                   # over every table's decided games
    assert fair_share([seats([set()])], 4) == 0.25    # no decided game: nothing to count
