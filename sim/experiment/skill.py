"""`ascent skill`: do a game's balance verdicts hold as the bots get stronger?

A skill curve plays a ladder of bots ("levels", weakest first, e.g. random, greedy, tuned,
lookahead, then MCTS at doubling budgets, `mcts-tuned@64`) at one player count:
- self-play at each level (every seat the level's bot), all on the same games (one master
  seed, so the same seeds and the same random seatings of characters at every level);
- each level against the one before it, head to head: the stronger candidate in seats 1, 3
  (and 5), the weaker in 2, 4, then swapped, on the same games.
Every run is an experiment of its own (sim/experiment/runner.py) in OUT/runs/, so a curve that
takes several sittings resumes where it stopped, with more games extending it.

What it reports (SKILL.md and skill.png in OUT):
- each character's (or seat's) share of the decided games at each level, with Wilson
  intervals, judged against each level's fair share (its mean number of winners of a decided
  game / players: 1/players, 2/players for a partnership's teams, a little more with ties);
- the head-to-head margin of each level over the previous one;
- each level's own validity warnings (caps, policy errors, the game's own checks), as its
  report would show them;
- each verdict (over-powered: the share above the fair share by an exact binomial test,
  Holm-corrected across the level's characters; under-powered: below) and the levels where it
  holds. A verdict that differs between the two strongest levels is labelled
  unconverged;
- the two strongest levels compared game by game (paired, Tango interval): converged if every
  character's difference lies within +-2 points, else unconverged with the budget needed
  estimated from how fast the differences shrink.
"""
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from sim.core.policies import BUDGET_MARK
from sim.core.stats import (binomial_p_value, clustered_effective_size, holm,
                            paired_proportion_difference, wilson_interval)
from sim.report.first_screen import ALPHA

CONVERGED_POINTS = 2.0      # the two strongest levels may differ by this much per character


class SkillError(ValueError):
    """Bad skill arguments; the message names the flag."""


@dataclass(frozen=True)
class SkillPlan:
    game: object                # GameSpec
    players: int
    levels: tuple               # bot names, weakest first
    games: int                  # per run of a level without a budget
    search_games: int           # per run of a budgeted level (BOT@N)
    seed: int
    out: Path
    preset: object = None
    rules: tuple = ()           # ((name, value), ...)
    knobs: tuple = ()
    chunk: int = 2_000

    def games_of(self, *levels):
        """A run with a budgeted bot in it plays search_games; the others play games."""
        return self.search_games if any(BUDGET_MARK in lv for lv in levels) else self.games


def folder_name(*parts):
    return "__".join(re.sub(r"[^A-Za-z0-9_.-]", "-", p.replace(BUDGET_MARK, "-at-"))
                     for p in parts)


def arrangement(a, b, players, swap):
    """A in seats 1, 3, ... and B in 2, 4, ... (swapped: the other way round)."""
    first, second = (b, a) if swap else (a, b)
    return [first if s % 2 == 0 else second for s in range(players)]


def runs(plan):
    """Every run of the curve: (kind, label, folder, seat policies, games)."""
    out = []
    for level in plan.levels:
        out.append(("self", level, plan.out / "runs" / folder_name("self", level),
                    [level] * plan.players, plan.games_of(level)))
    for weaker, stronger in zip(plan.levels, plan.levels[1:]):
        for swap in (0, 1):
            out.append(("h2h", (stronger, weaker),
                        plan.out / "runs" / folder_name("h2h", stronger, weaker, f"s{swap}"),
                        arrangement(stronger, weaker, plan.players, swap),
                        plan.games_of(stronger, weaker)))
    return out


def run_curve(plan, command_line, jobs=None, scheduler=None, quiet=False):
    """Play (or resume) every run of the curve, then write SKILL.md and skill.png."""
    from sim.experiment.runner import run_experiment
    from sim.experiment.spec import load_spec, write_spec_file
    from sim.experiment.sweep import spec_text
    for kind, label, folder, seats, games in runs(plan):
        what = f"self-play of {label}" if kind == "self" else \
            f"{label[0]} against {label[1]}, head to head"
        text = spec_text(plan.game, [plan.players], games, plan.seed, seats, "random",
                         plan.preset, dict(plan.rules), dict(plan.knobs), [], plan.chunk,
                         command_line, f"skill curve: {what}", name="skill")
        path = folder / "experiment.toml"
        if not write_spec_file(path, text):
            raise SkillError(f"--out: {folder} holds another run (other rules, seed or bots); "
                             f"choose another --out")
        if not quiet:
            print(f"{what}: {games:,} games")
        run_experiment(load_spec(path), jobs=jobs, scheduler=scheduler, quiet=quiet)
    return write_skill_results(plan, command_line)


# --- the analysis ------------------------------------------------------------------------------

def _seats(folder, players, group):
    import json

    from sim.experiment.runner import load_variant
    from sim.report.analysis import check_experiment_record_version
    recorded = Path(folder) / "experiment.json"
    if recorded.exists():
        try:
            check_experiment_record_version(folder, json.loads(recorded.read_text()))
        except (ValueError, KeyError) as exc:
            raise SkillError(str(exc)) from None
    columns = list(dict.fromkeys(["game", "seat", "policy", "won", group]))
    seats = load_variant(folder, "baseline", players, columns)
    if seats is None:
        raise SkillError(f"{folder} has no finished games; run the same command again")
    seats["won"] = seats["won"].astype(bool)
    return seats


def decided_shares(seats, group):
    """Per group: its share of the decided games it sat in, with the Wilson interval."""
    decided = seats.groupby("game")["won"].transform("any")
    d = seats[decided]
    grp = d.groupby(group, observed=True)["won"]
    wins, n = grp.sum().to_numpy(), grp.count().to_numpy()
    lo, hi = wilson_interval(wins, n)
    return pd.DataFrame({"games": n, "wins": wins, "share": wins / np.maximum(n, 1),
                         "low": lo, "high": hi}, index=grp.sum().index)


def fair_share(seat_tables, players):
    """A seat's fair share of the decided games: the mean number of winners of a decided game,
    over the tables (one level's), / players. A share counts a win for each winner, so under a
    fair game a seat's expected share is that mean / players: 1 / players where every game has one
    winner, 2 / players for Ascension's partnership (a team's two seats win together, A48),
    and a little above 1 / players with First Ascent's ties (F63: 1.6-6.0% more winners than
    decided games at 4 players in the skill curve's levels, 7.25% for `mcts@256`; held to
    1 / players, a fair character read as 'over')."""
    winners = decided = 0
    for seats in seat_tables:
        per_game = seats.loc[seats["won"].astype(bool)].groupby("game").size()
        winners += int(per_game.sum())
        decided += len(per_game)
    return (winners / decided if decided else 1) / players


def judged(shares, fair):
    """One level's shares (decided_shares) with their verdicts: `p`, the exact binomial test of
    each share against the level's fair share; `p_holm`, Holm across the level's groups (a
    group in no decided game is not a test); `verdict`. Twelve characters tested at 5% each
    would show a spurious verdict at one level in two of a fair game; Holm keeps that chance
    at 5% a level, as a report's first screen does for its families."""
    p = np.array([binomial_p_value(w, n, fair) if n else np.nan
                  for w, n in zip(shares["wins"].fillna(0), shares["games"])])
    shares = shares.assign(p=p, p_holm=holm(p))
    return shares.assign(verdict=[verdict(r, fair) for r in shares.itertuples()])


def verdict(row, fair):
    if not row.games:
        return "no decided game"
    if row.p_holm < ALPHA:
        return "over" if row.share > fair else "under"
    return "even"


def head_to_head(folders, stronger, weaker, players, group):
    """The head to head of two bots, played in `folders` (one per seating)."""
    return head_to_head_share([_seats(f, players, group) for f in folders], stronger, weaker)


def head_to_head_share(tables, stronger, weaker):
    """The stronger candidate's share of the two bots' wins, over the games either won, from
    seat tables (columns game, policy, won; one table per seating). A shared win counts for
    each winner, so a game can hold two wins (First Ascent's ties): the share is then a ratio
    of wins, and `decided` counts games, not wins. Its interval is Wilson's at the effective
    number of wins (clustered_effective_size, at most the games); where every such game has
    one win, that is Wilson's on the games themselves."""
    per_game = []
    games = 0
    for seats in tables:
        games += seats["game"].nunique()
        won = seats[seats["won"].astype(bool)]
        policy = won["policy"].astype(str)
        counts = pd.DataFrame({"game": won["game"], "s": (policy == stronger).astype(int),
                               "t": policy.isin((stronger, weaker)).astype(int)})
        per_game.append(counts.groupby("game")[["s", "t"]].sum())
    g = pd.concat(per_game) if per_game else pd.DataFrame({"s": [], "t": []})
    g = g[g["t"] > 0]
    decided = len(g)
    wins, total = float(g["s"].sum()), float(g["t"].sum())
    share = wins / total if total else np.nan
    if not decided:
        lo, hi = np.nan, np.nan
    elif (g["t"] == 1).all():
        lo, hi = wilson_interval(int(wins), decided)
    else:
        # two wins of one bot in a game count as about one; a tie split between the bots,
        # which lowers the variance, is not credited beyond a game each (the interval errs wide)
        n_eff = clustered_effective_size(g["s"].to_numpy(float), g["t"].to_numpy(float),
                                         decided)
        lo, hi = wilson_interval(share * n_eff, n_eff)
    return {"stronger": stronger, "weaker": weaker, "games": games, "decided": decided,
            "wins": int(total), "share": share, "low": lo, "high": hi}


def paired_margin_difference(first, second):
    """Which of two bots beats a common opponent by more, on the same games: `first` and
    `second` are (seat tables, bot) pairs, each seat table a list of one run per arrangement
    (columns game, policy, won; with seat and character, each game's deal and the named bot's
    seats must match too), the two lists played on the same seeds and seatings. A game
    scores +1 for the named bot if one of its seats won and none of the opponent's, -1 the
    other way, 0 for a shared win or none; its share of the wins is (wins) / (wins +
    opponent's). The difference is half the mean per-game difference of the scores, in points
    (the difference of the two shares where every game has one winning side), with a t interval
    over the paired games: the deal (who sits where, with which character) is common to both,
    so the pairing removes its variance."""
    from scipy import stats

    def per_game(tables, bot):
        scores, wins, losses = [], 0, 0
        keys = []
        for arrangement, seats in enumerate(tables):
            won = seats[seats["won"].astype(bool)]
            mine = won["policy"].astype(str) == bot
            by_game = pd.DataFrame({"game": won["game"], "mine": mine, "theirs": ~mine})
            by_game = by_game.groupby("game")[["mine", "theirs"]].any()
            games = sorted(seats["game"].unique())
            by_game = by_game.reindex(games, fill_value=False)
            wins += int(by_game["mine"].sum())
            losses += int(by_game["theirs"].sum())
            scores.extend(by_game["mine"].astype(int) - by_game["theirs"].astype(int))
            keys.extend((arrangement, g) for g in games)
        return keys, np.array(scores, float), wins, losses

    def deal(tables, bot):
        """Per arrangement, game and seat: its character and whether `bot` sits there (None
        for tables without seats)."""
        cols = [c for c in ("seat", "character") if all(c in t.columns for t in tables)]
        if "seat" not in cols:
            return None
        parts = []
        for arrangement, seats in enumerate(tables):
            part = seats[["game"] + cols].astype({c: str for c in cols if c != "seat"})
            parts.append(part.assign(arrangement=arrangement,
                                     bot_seat=(seats["policy"].astype(str) == bot).values))
        return pd.concat(parts).sort_values(["arrangement", "game", "seat"]).reset_index(
            drop=True)

    (tables_a, bot_a), (tables_b, bot_b) = first, second
    for tables, bot in ((tables_a, bot_a), (tables_b, bot_b)):
        at_table = sorted({str(p) for seats in tables for p in seats["policy"].unique()})
        if bot not in at_table:
            raise SkillError(f"bot {bot!r} sits at none of its head-to-head's seats; the bots "
                             f"there: {', '.join(at_table)}")
    keys_a, a, wins_a, losses_a = per_game(tables_a, bot_a)
    keys_b, b, wins_b, losses_b = per_game(tables_b, bot_b)
    if keys_a != keys_b:
        raise SkillError("the two head-to-heads were not played on the same games "
                         "(arrangements and game numbers differ)")
    deal_a, deal_b = deal(tables_a, bot_a), deal(tables_b, bot_b)
    if (deal_a is None) != (deal_b is None) or (
            deal_a is not None and not deal_a.equals(deal_b)):
        raise SkillError("the two head-to-heads were not played on the same games: the same "
                         "game numbers deal other characters, or seat the bot elsewhere (give "
                         "each side's arrangements in the same order)")
    d = a - b
    n = len(d)
    half = stats.t.ppf(0.975, n - 1) * d.std(ddof=1) / np.sqrt(n) if n > 1 else np.nan
    unpaired = 1.96 * np.sqrt(a.var(ddof=1) / n + b.var(ddof=1) / n) if n > 1 else np.nan
    return {"games": n, "share_first": wins_a / (wins_a + losses_a),
            "share_second": wins_b / (wins_b + losses_b),
            "difference": 50 * d.mean(), "low": 50 * (d.mean() - half),
            "high": 50 * (d.mean() + half), "unpaired_half_width": 50 * unpaired,
            "same_result": int((d == 0).sum())}


def paired_top_two(second, top, group):
    """Per group: the win rate at the strongest level minus the second's, game by game."""
    m = second.merge(top, on=["game", "seat"], suffixes=("_a", "_b"), validate="1:1")
    key = f"{group}_a" if group != "seat" else "seat"
    rows = []
    for name, g in m.groupby(key, observed=True):
        base_only = int((g["won_a"] & ~g["won_b"]).sum())
        top_only = int((g["won_b"] & ~g["won_a"]).sum())
        diff, lo, hi = paired_proportion_difference(base_only, top_only, len(g))
        rows.append({"group": name, "games": len(g), "second": g["won_a"].mean(),
                     "top": g["won_b"].mean(), "diff": diff, "low": lo, "high": hi})
    return pd.DataFrame(rows)


# An extrapolation over more steps than this (or from a shift that shrank by less than a tenth)
# is a guess from noise, not an estimate.
MAX_EXTRAPOLATED_STEPS = 6


def games_for_the_test(top, games):
    """How many games a level would narrow the two strongest levels' widest paired interval
    (`top`, paired_top_two's table, at `games` a level) to +-CONVERGED_POINTS, if the true moves
    are near zero: an interval's half-width falls as one over the root of the games."""
    half_width = 100 * float(((top["high"] - top["low"]) / 2).max())
    return half_width, int(math.ceil(games * (half_width / CONVERGED_POINTS) ** 2 / 1000) * 1000)


def budget_estimate(levels, shifts, top=None, games=None):
    """What more search the curve needs, read from the largest shift between neighbouring
    levels (`shifts`, points): text. Only a step between two budgets of one bot is a budget
    step, so the extrapolation needs the strongest bot at three budgets: if the largest shift
    shrinks geometrically, the budget at which it falls under CONVERGED_POINTS. With `top`
    (the two strongest levels' paired differences, at `games` a level): if none of them is
    told apart from zero, no shift is measured at all, and what the test lacks is games."""
    parts = [(lv.partition(BUDGET_MARK)[0], int(lv.partition(BUDGET_MARK)[2]))
             if BUDGET_MARK in lv else (lv, None) for lv in levels]

    def same_bot_budgets(k):         # levels k and k + 1: one bot at two budgets
        return parts[k][1] is not None and parts[k + 1][1] is not None and \
            parts[k][0] == parts[k + 1][0]

    if len(shifts) < 1 or not same_bot_budgets(len(levels) - 2):
        return "no estimate: it needs the two strongest levels to be one bot at two budgets"
    last = shifts[-1]
    if top is not None and not top.empty and games and \
            bool(((top["low"] <= 0) & (top["high"] >= 0)).all()) and \
            games_for_the_test(top, games)[0] > CONVERGED_POINTS:
        half_width, needed = games_for_the_test(top, games)
        return (f"none measurable: between the two budgets no paired difference is told apart "
                f"from zero (the widest interval is +-{half_width:.1f} points at {games:,} games "
                f"a level), so the shifts between the levels' shares ({last:.1f} points at the "
                f"last step) may be sampling noise; what the {CONVERGED_POINTS:g}-point test "
                f"lacks is games: about {needed:,} a level, if the true moves are near zero")
    if last < CONVERGED_POINTS:
        return (f"none measurable: between the two budgets no share moved by more than "
                f"{last:.1f} points, under {CONVERGED_POINTS:g}; what the paired test lacks is "
                f"games, not budget")
    if len(shifts) < 2 or not same_bot_budgets(len(levels) - 3):
        return (f"no estimate: the largest shift between the two budgets is {last:.1f} points; "
                f"extrapolating it needs the same bot at a third, smaller budget")
    before = shifts[-2]
    if not last < before:
        return (f"no estimate: the largest shift did not shrink ({before:.1f} then {last:.1f} "
                f"points)")
    ratio = last / before
    steps = math.ceil(math.log(CONVERGED_POINTS / last) / math.log(ratio))
    if steps > MAX_EXTRAPOLATED_STEPS:
        return (f"no estimate: the largest shift barely shrank ({before:.1f} then {last:.1f} "
                f"points), too little to extrapolate over {steps} steps")
    factor = parts[-1][1] / parts[-2][1]
    return (f"the largest shift fell from {before:.1f} to {last:.1f} points; at that rate it "
            f"would be under {CONVERGED_POINTS:g} after {steps} more step(s) of x{factor:g}, "
            f"about {parts[-1][1] * factor ** steps:,.0f} iterations")


def analyse(plan):
    """Everything SKILL.md says, as tables."""
    group = plan.game.group(True)
    shares = {}
    seats_of = {}
    all_runs = runs(plan)
    for kind, label, folder, _, _ in all_runs:
        if kind == "self":
            seats_of[label] = _seats(folder, plan.players, group)
    # each level against its own fair share: the bots differ in how often they tie (First
    # Ascent: 25.4% at random, 25.9-26.4% at the others), and one pooled share read a level
    # with few ties as 'under' and one with many as 'over' (a review found it)
    fairs = {label: fair_share([seats], plan.players) for label, seats in seats_of.items()}
    # every group seated at any level; a level where one sat in no decided game shows a gap
    every = sorted(set().union(*(set(s[group].tolist()) for s in seats_of.values())), key=str)
    for label, seats in seats_of.items():
        level = decided_shares(seats, group).reindex(every)
        level["games"] = level["games"].fillna(0).astype(int)
        shares[label] = judged(level, fairs[label])
    # each level's own validity warnings (caps, policy errors, the game's own checks), as its
    # report would show them: a verdict at a level that stalls says little about the game
    warnings = {label: level_warnings(folder) for kind, label, folder, _, _ in all_runs
                if kind == "self"}
    h2h_folders = {}
    for kind, label, folder, _, _ in all_runs:
        if kind == "h2h":
            h2h_folders.setdefault(label, []).append(folder)
    h2h = [head_to_head(h2h_folders[(stronger, weaker)], stronger, weaker, plan.players, group)
           for weaker, stronger in zip(plan.levels, plan.levels[1:])]
    verdicts = pd.DataFrame({lv: shares[lv]["verdict"] for lv in plan.levels})
    top = paired_top_two(seats_of[plan.levels[-2]], seats_of[plan.levels[-1]], group) \
        if len(plan.levels) >= 2 else pd.DataFrame()
    shifts = []
    for a, b in zip(plan.levels, plan.levels[1:]):
        joined = shares[a]["share"].to_frame("a").join(shares[b]["share"].to_frame("b"))
        shifts.append(float((joined["b"] - joined["a"]).abs().max() * 100))
    return {"group": group, "fairs": fairs, "shares": shares, "h2h": h2h, "verdicts": verdicts,
            "top": top, "shifts": shifts, "warnings": warnings}


def level_warnings(folder):
    """The validity warnings (sim/report/validity.py) of one level's self-play run."""
    from sim.report.analysis import load_results
    from sim.report.render import run_policies
    from sim.report.validity import validity_warnings
    r = load_results(folder)
    return validity_warnings(r, run_policies(r))


def _label(game, group, key):
    from sim.report.compare import group_label
    return group_label(game.name, group, key)


def _pct(x):
    return f"{100 * x:.1f}%"


def _fair_pct(fair, exact_at_one=None):
    """The fair share as the page prints it: one decimal where that is exact (25.0%), else three
    (33.333%), so that an interval end printed by _bound_pct is on its true side of it (an
    interval that leaves it out is a verdict only where the Holm correction keeps it, judged).
    `exact_at_one`: whether to print one decimal (a list of levels' shares prints
    all of them alike: "25.410%, 25.900%", not "25.410%, 25.9%")."""
    if exact_at_one is None:
        exact_at_one = _exact_at_one(fair)
    return _pct(fair) if exact_at_one else f"{100 * fair:.3f}%"


def _exact_at_one(fair):
    return abs(100 * fair - round(100 * fair, 1)) < 1e-9


def _bound_pct(x, fair):
    """An interval's end, as _pct, but with the digits that tell it from the fair share where
    one decimal would print the fair share itself (24.98% reads "25.0%", and the verdict
    "under" beside "[19.8%, 25.0%]" would look wrong). Printed at d digits, an end that differs
    from the fair share printed at d digits lies on its side of the fair share, and of the
    fair share as _fair_pct prints it (d <= 3)."""
    digits = 1
    while digits < 4 and f"{100 * x:.{digits}f}" == f"{100 * fair:.{digits}f}" and x != fair:
        digits += 1
    return f"{100 * x:.{digits}f}%"


def skill_markdown(plan, a, command_line):
    group, fairs = a["group"], a["fairs"]
    levels = plan.levels
    if len({round(f, 12) for f in fairs.values()}) == 1:
        fair_text = f"the fair share ({_fair_pct(fairs[levels[0]])})"
    else:
        one = all(_exact_at_one(fairs[lv]) for lv in levels)
        fair_text = ("its level's fair share (the mean number of winners of a decided game / "
                     "players: " + ", ".join(f"`{lv}` {_fair_pct(fairs[lv], one)}"
                                             for lv in levels) + ")")
    rows = sorted(a["shares"][levels[0]].index, key=str)
    lines = [f"# Skill curve: {plan.game.title}, {plan.players} players", "",
             f"Command: `{command_line}`", "",
             f"Levels, weakest first: {', '.join(f'`{lv}`' for lv in levels)}. Self-play at "
             f"every level on the same games (master seed {plan.seed}): {plan.games:,} games "
             f"a level" + (f", {plan.search_games:,} for a bot with a budget "
                           f"(`BOT{BUDGET_MARK}N`)" if any(BUDGET_MARK in lv for lv in levels)
                           else "") +
             ". A shared win counts for each winner. These are statements about the game *as "
             "these bots play it*.", ""]
    # first screen: the verdicts and whether they converged
    top = a["top"]
    converged = not top.empty and bool(((top["low"] >= -CONVERGED_POINTS / 100) &
                                        (top["high"] <= CONVERGED_POINTS / 100)).all())
    lines += ["## Verdicts", "",
              f"Over-powered: the {group}'s share of the decided games is above {fair_text}, "
              f"by an exact binomial test, Holm-corrected across the level's {group}s "
              f"(p_holm < {ALPHA:g}); under-powered: below. The intervals below are each a "
              f"95% interval of its own, so one that leaves out the fair share is a verdict "
              f"only where the correction keeps it.", "",
              f"| {group} | verdict at the strongest level | levels where it holds | "
              f"between the two strongest levels |", "|---|---|---|---|"]
    for key in rows:
        row = a["verdicts"].loc[key]
        final = row[levels[-1]]
        holds = [lv for lv in levels if row[lv] == final]
        flipped = len(levels) >= 2 and row[levels[-2]] != final
        lines.append(f"| {_label(plan.game, group, key)} | {final} | {', '.join(holds)} | "
                     f"{'UNCONVERGED: it flips' if flipped else 'the same'} |")
    lines.append("")
    weaker_than_before = [h for h in a["h2h"] if h["high"] < 0.5]
    if weaker_than_before:
        lines += ["**Not a ladder of strength:** " + "; ".join(
            f"`{h['stronger']}` loses to `{h['weaker']}` head to head ({_pct(h['share'])} of "
            f"the wins, [{_bound_pct(h['low'], 0.5)}, {_bound_pct(h['high'], 0.5)}])"
            for h in weaker_than_before) +
            ". A verdict that holds only from such a level on says little about stronger play.",
            ""]
    flagged = [(lv, w) for lv in levels for w in a.get("warnings", {}).get(lv, [])]
    if flagged:
        lines += ["**Read with care:** what each level's own records say about its bot "
                  "(the checks of every report's first screen):", ""] + \
            [f"- `{lv}`: {w}" for lv, w in flagged] + [""]
    if not top.empty:
        worst = top.loc[(top["diff"]).abs().idxmax()]
        lines += [f"**Convergence:** {'converged' if converged else 'UNCONVERGED'}. The two "
                  f"strongest levels (`{levels[-2]}`, `{levels[-1]}`), game by game: every "
                  f"{group}'s win rate must move by at most {CONVERGED_POINTS:g} points (paired "
                  f"interval). The largest move: {_label(plan.game, group, worst['group'])} "
                  f"{100 * worst['diff']:+.1f} points [{100 * worst['low']:+.1f}, "
                  f"{100 * worst['high']:+.1f}].", ""]
        if not converged:
            paired_games = min(plan.games_of(levels[-2]), plan.games_of(levels[-1]))
            lines += [f"Budget needed: "
                      f"{budget_estimate(levels, a['shifts'], top, paired_games)}.", ""]
    lines += ["![skill curves](skill.png)", "",
              "## Share of the decided games, per level", "",
              f"| {group} | " + " | ".join(f"`{lv}`" for lv in levels) + " |",
              "|---|" + "---|" * len(levels)]
    for key in rows:
        cells = []
        for lv in levels:
            r = a["shares"][lv].loc[key]
            cells.append(f"{_pct(r.share)} [{_bound_pct(r.low, fairs[lv])}, "
                         f"{_bound_pct(r.high, fairs[lv])}] n={int(r.games):,}"
                         if r.games else "no decided game")
        lines.append(f"| {_label(plan.game, group, key)} | " + " | ".join(cells) + " |")
    lines += ["", "## Head to head: each level against the one before", "",
              "The stronger candidate in seats 1, 3, ..., the weaker in the others, then swapped, "
              "on the same games. Share: of the two bots' wins, over the games won by either "
              "(a shared win counts for each winner, and its interval counts the games, not "
              "the wins; a handful of such games decides nothing, whatever the margin says: "
              "read the interval).", "",
              "| level | against | games | won by either | its share of the wins | 95% interval "
              "| margin |",
              "|---|---|---|---|---|---|---|"]
    for h in a["h2h"]:
        lines.append(f"| `{h['stronger']}` | `{h['weaker']}` | {h['games']:,} | "
                     f"{h['decided']:,} | {_pct(h['share'])} | [{_bound_pct(h['low'], 0.5)}, "
                     f"{_bound_pct(h['high'], 0.5)}] | {100 * (h['share'] - 0.5):+.1f} points |")
    if not top.empty:
        lines += ["", "## The two strongest levels, game by game", "",
                  f"| {group} | `{levels[-2]}` | `{levels[-1]}` | difference, points | "
                  f"95% interval |", "|---|---|---|---|---|"]
        for _, r in top.sort_values("group", key=lambda s: s.astype(str)).iterrows():
            lines.append(f"| {_label(plan.game, group, r['group'])} | {_pct(r['second'])} | "
                         f"{_pct(r['top'])} | {100 * r['diff']:+.1f} | "
                         f"[{100 * r['low']:+.1f}, {100 * r['high']:+.1f}] |")
        lines += ["", "Win rates here count every game (a game with no winner is a loss for "
                  "all), so they differ from the shares of decided games above."]
    return "\n".join(lines) + "\n"


VERDICTS = ("over", "under", "even", "no decided game")
FLIPS = ("UNCONVERGED: it flips", "the same")
MARKDOWN_TABLE = re.compile(r"^(\|.*\|)\n\|[-|]+\|\n((?:\|.*\|\n?)*)", re.M)


def _markdown_tables(text):
    """Each table of a markdown text, in order: (header cells, [row cells])."""
    def cells(line):
        return [c.strip() for c in line.strip().strip("|").split("|")]
    for head, body in MARKDOWN_TABLE.findall(text):
        yield cells(head), [cells(line) for line in body.strip().split("\n") if line.strip()]


@dataclass(frozen=True)
class TopVerdict:
    """One row of a skill file's verdicts: the verdict at the strongest level, whether the
    two strongest levels disagree on it, and the decided games behind it (None if the file
    does not say)."""
    verdict: str
    flipped: bool
    strongest: str
    second: str
    decided: object = None


SHARE_CELL = re.compile(r"\d+\.\d+% \[[\d.]+%, [\d.]+%\] n=([\d,]+)")


def _decided_games(section, level):
    """{row label: decided games at `level`} from the first table of the section with a
    column for that level (the shares per level)."""
    for head, rows in _markdown_tables(section):
        if f"`{level}`" not in head:
            continue
        column = head.index(f"`{level}`")
        found = {}
        for row in rows:
            cell = SHARE_CELL.fullmatch(row[column]) if column < len(row) else None
            if cell:
                found[row[0]] = int(cell.group(1).replace(",", ""))
        if found:
            return found
    return {}


def _curve_section(text, title, players):
    """The text of the curve `# Skill curve: TITLE, PLAYERS players` (any heading depth), or
    None."""
    head = re.search(rf"^#+ Skill curve: {re.escape(title)}, {int(players)} players\s*$",
                     text, re.M)
    if not head:
        return None
    end = re.search(r"^#+ Skill curve: ", text[head.end():], re.M)
    return text[head.end():head.end() + end.start() if end else len(text)]


def _curve_levels(section):
    """The levels a curve's section names in its "Levels, weakest first:" line, in order."""
    found = re.search(r"^Levels, weakest first: (.*?)\. ", section, re.M)
    return re.findall(r"`([^`]+)`", found.group(1)) if found else []


def read_convergence(text, title, players):
    """Whether the curve's two strongest levels passed the 2-point test (skill_markdown's
    "**Convergence:**" line): True, False, or None where the curve does not say. A line that
    names two other levels as the strongest does not count: a section may go on with the text
    of an earlier curve, whose line is about its own levels (a hand-written line that names
    none, such as Ascension's for its combined levels, counts)."""
    section = _curve_section(text, title, players) or ""
    levels = _curve_levels(section)
    for found in re.finditer(r"^\*\*Convergence:\*\* (converged|UNCONVERGED)\b(.*)$", section,
                             re.M):
        named = re.match(r"\. The two strongest levels \(`([^`]+)`, `([^`]+)`\)",
                         found.group(2))
        if named and list(named.group(1, 2)) != levels[-2:]:
            continue
        return found.group(1) == "converged"
    return None


def read_verdicts(text, title, players):
    """The verdicts of the curve `# Skill curve: TITLE, PLAYERS players` in a skill file's
    text (skill_markdown's format, at any heading depth, so also results/SKILL.md, which holds
    one such section per game): ({row label: TopVerdict}, ""), or ({}, why there are none: no
    such section, a curve played under changed rules (--preset, --rule, --set: its verdicts
    are about another game), fewer than two levels, no verdicts table)."""
    section = _curve_section(text, title, players)
    if section is None:
        return {}, f"no skill curve at {int(players)} players"
    command = re.search(r"^Command: (.*)$", section, re.M)
    commands = re.findall(r"`([^`]*)`", command.group(1)) if command else []
    if any(re.search(r"--(preset|rule|set)\b", c) for c in commands):
        return {}, f"its skill curve at {int(players)} players was played under changed rules"
    levels = _curve_levels(section)
    if len(levels) < 2:
        return {}, f"its skill curve at {int(players)} players has fewer than two levels"
    # the first verdicts table only (a section may go on with the tables of an earlier curve)
    table = next((rows for head, rows in _markdown_tables(section)
                  if head[1:2] == ["verdict at the strongest level"]), [])
    rows = [row for row in table
            if len(row) == 4 and row[1] in VERDICTS and row[3] in FLIPS]
    if not rows:
        return {}, f"its skill curve at {int(players)} players has no verdicts table"
    decided = _decided_games(section, levels[-1])
    return {label: TopVerdict(final, flips.startswith("UNCONVERGED"), levels[-1], levels[-2],
                              decided.get(label))
            for label, final, _, flips in rows}, ""


def skill_figure(plan, a, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sim.report.render import png_bytes
    group, levels = a["group"], plan.levels
    # One above the other: the legend sits right of the curves, the pair names left of the bars.
    fig, (left, right) = plt.subplots(2, 1, figsize=(11, 9.5),
                                      gridspec_kw={"height_ratios": [3, 2], "hspace": 0.45})
    x = np.arange(len(levels))
    keys = sorted(a["shares"][levels[0]].index, key=str)
    colours = plt.cm.tab20(np.linspace(0, 1, 20))[::2].tolist() + \
        plt.cm.tab20(np.linspace(0, 1, 20))[1::2].tolist()     # 20 distinct: 12 characters
    for k, key in enumerate(keys):
        s = np.array([a["shares"][lv].loc[key, "share"] for lv in levels])
        lo = np.array([a["shares"][lv].loc[key, "low"] for lv in levels])
        hi = np.array([a["shares"][lv].loc[key, "high"] for lv in levels])
        left.errorbar(x, 100 * s, yerr=[100 * (s - lo), 100 * (hi - s)], marker="osD^v"[k % 5],
                      capsize=3, label=_label(plan.game, group, key),
                      color=colours[k % len(colours)])
    # the fair share of each level (ties move it), as a step under the curves
    left.step(x, [100 * a["fairs"][lv] for lv in levels], where="mid", color="grey", lw=1,
              ls="--", label="fair share")
    left.set_xticks(x, levels, rotation=30, ha="right")
    left.set_ylabel("share of decided games, %")
    left.set_title(f"{plan.game.title}, {plan.players} players: win share by skill level")
    left.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    h = a["h2h"]
    if h:
        margins = np.array([100 * (r["share"] - 0.5) for r in h])
        err = np.array([[100 * (r["share"] - r["low"]), 100 * (r["high"] - r["share"])]
                        for r in h]).T
        # Horizontal bars, weakest pair on top, so each pair's name reads on one line.
        y = np.arange(len(h))[::-1]
        right.barh(y, margins, xerr=err, capsize=3, color="#4c72b0", height=0.6)
        right.set_ylim(-0.7, len(h) - 0.3)
        right.axvline(0, color="grey", lw=1)
        right.set_yticks(y, [f"{r['stronger']} vs {r['weaker']}" for r in h], fontsize=8)
        right.set_xlabel("head-to-head margin, points (share of wins - 50%)")
        right.set_title("each level against the one before")
    Path(path).write_bytes(png_bytes(fig))


def write_skill_results(plan, command_line):
    a = analyse(plan)
    path = plan.out / "SKILL.md"
    skill_figure(plan, a, plan.out / "skill.png")
    path.write_text(skill_markdown(plan, a, command_line), encoding="utf-8")
    return path
