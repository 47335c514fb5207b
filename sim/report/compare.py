"""`ascent report RUN --against BASE`: compare.html, whose first screen is the paired comparison.

Both runs must be of the same game and have played the same games (an experiment's variants
replay the baseline's seeds and seatings): every difference is then measured game by game, with a
paired interval that stays valid when few games change outcome (sim/core/stats.py). The run's
own report.html is left as it was.
"""
import html
import time

import numpy as np
import pandas as pd

from sim.core.game import get_game
from sim.core.stats import mcnemar_exact_p, paired_proportion_difference, rate_row
from sim.experiment.paired import paired_differences
from sim.report import first_screen as FS
from sim.report.analysis import ALPHA, holm, same_games
from sim.report.bots import describe_seating



def comparison_group(game, run):
    """What the comparison is per: characters, or (games without them) the seat or the bot."""
    return get_game(game).group(run.seats["policy"].nunique() == 1)


def paired_table(base, variant, group):
    """Per player count and group: the paired difference (variant - baseline) on the games both
    played, Holm across every row."""
    frames = []
    for players in sorted(set(variant.games["players"]) & set(base.games["players"])):
        gb = base.games.loc[base.games["players"] == players, "game"].to_numpy()
        gv = variant.games.loc[variant.games["players"] == players, "game"].to_numpy()
        common = np.intersect1d(gb, gv)
        d = paired_differences(base.seats[base.seats["game"].isin(common)],
                               variant.seats[variant.seats["game"].isin(common)], group)
        frames.append(d.assign(players=int(players)))
    if not frames:
        return pd.DataFrame()
    diff = pd.concat(frames, ignore_index=True)
    diff = diff[["players"] + [c for c in diff.columns if c != "players"]]
    diff["p_holm"] = holm(diff["p_value"].to_numpy())
    diff["significant"] = diff["p_holm"] < ALPHA
    return diff


def group_label(game, group, value):
    if group == "seat":
        return f"Seat {int(value) + 1}"
    if group == "character":
        return get_game(game).api.character_name(value)
    return str(value)


def _describe(run):
    m = run.meta
    text = get_game(m["game"]).api.describe_rules(m)
    policies = m.get("seat_policies") or sorted(run.seats["policy"].astype(str).unique())
    return (f"{run.label}: {len(run.games):,} games, "
            f"{describe_seating(policies, m.get('rotate_seats', False), len(run.games))}, "
            f"{text}")


def stronger_ability_warnings(game, base, variant, diff, group):
    """A character made strictly stronger (the game's `stronger_abilities`) whose win rate
    falls, with the paired interval below zero: the bots, not the game, are the likely cause."""
    own = getattr(get_game(game).api, "stronger_abilities", None)
    if own is None or group != "character" or diff.empty:
        return []
    stronger = own(base.meta, variant.meta)
    found = []
    for row in diff.itertuples():
        change = stronger.get(str(getattr(row, group)))
        if change and row.paired_ci_high < 0:
            d, lo, hi = FS.points_triple(row.difference, row.paired_ci_low, row.paired_ci_high)
            found.append(
                f"{group_label(game, group, getattr(row, group))}: every change to its "
                f"abilities helps it ({change}), yet its win rate changes by "
                f"{d} points [{lo}, {hi}] ({row.players} players). A stronger ability "
                f"that loses games is most likely a bot that does not use it well: read this "
                f"row as a statement about the bot.")
    return found


def run_warnings(base, variant):
    """Each run's own validity warnings (sim/report/validity.py), as its report.html shows them:
    a difference is only as good as the two runs it is taken between. A warning both runs give
    is said once."""
    from sim.report.render import run_policies
    from sim.report.validity import validity_warnings
    of_base = validity_warnings(base, run_policies(base))
    of_variant = validity_warnings(variant, run_policies(variant))
    return [f"Both runs: {w}" for w in of_variant if w in of_base] + \
        [f"Variant ({variant.label}): {w}" for w in of_variant if w not in of_base] + \
        [f"Baseline ({base.label}): {w}" for w in of_base if w not in of_variant]


def unpaired_games_warning(base, variant):
    """Where the two runs' game counts differ, the comparison pairs only the games both
    played: say so, with how many of each run's are left out, since each run's own report
    counts them (a 3,000-game variant against a 5,000-game baseline showed the baseline's rates
    on its first 3,000 games, next to a header giving its 5,000)."""
    ours, theirs = set(variant.games["game"]), set(base.games["game"])
    common = ours & theirs
    if ours == theirs or not common:
        return []
    return [f"Paired on the {len(common):,} games both runs played: "
            f"{len(theirs - common):,} of the baseline's {len(theirs):,} and "
            f"{len(ours - common):,} of the variant's {len(ours):,} are left out, so a rate here "
            f"may differ from the one in that run's own report"]


def shared_seats_note(diff, group):
    """Where a group sits in more than one seat of a game (a bot, in a comparison by bot), a
    sentence that says how its interval and p allow for it (sim/experiment/paired.py); ""
    where every game holds each group once."""
    if diff.empty or diff["seats_a_game"].max() < 2:
        return ""
    shared = diff[diff["seats_a_game"] > 1]
    widened = shared[shared["design_effect"] > 1]
    effect = (f"it widened {len(widened)} of the {len(shared)} rows with shared seats "
              f"(design effect up to {widened['design_effect'].max():.2f})" if len(widened)
              else "no row's seats moved together more than independent seats would, so "
              "none was widened")
    noun = "bot" if group == "policy" else group
    return (f" A {noun} in several seats of a game (up to "
            f"{int(shared['seats_a_game'].max())} a game) is not a set of independent pairs: "
            "one game's winner settles all its seats. Its rows take the game as the unit: "
            "Tango's interval on the seats divided by the design effect (how much more its "
            "seats' changes vary by game than independent seats' would, at least 1), "
            "p from the games' changes (an exact sign-flip test), never below the seats' "
            f"McNemar p, and each run's interval clustered by game; {effect}.")


def _player_counts(r):
    """'3-player and 4-player': the player counts of a run's games."""
    counts = [f"{int(c)}-player" for c in sorted(r.games["players"].unique())]
    return " and ".join([", ".join(counts[:-1]), counts[-1]] if len(counts) > 2 else counts) \
        or "no"


def write_comparison(page, variant, base, against, started, filename="compare.html"):
    from sim.report.render import forest, validity_box
    import matplotlib.pyplot as plt
    game = variant.meta["game"]
    base_game = base.meta["game"]
    if base_game != game:
        raise ValueError(f"{against}: a {get_game(base_game).title} run; "
                         f"{variant.label} is {get_game(game).title}: nothing to compare")
    if not set(base.games["players"]) & set(variant.games["players"]):
        raise ValueError(f"{against}: {_player_counts(base)} games; {variant.label}: "
                         f"{_player_counts(variant)} games: no player count in common, so "
                         f"nothing to pair (compare runs of the same player count)")
    from sim.report.analysis import numbered_as_an_experiment
    base, variant = numbered_as_an_experiment(base), numbered_as_an_experiment(variant)
    if not same_games(base, variant):
        raise ValueError(f"{against}: the two runs did not play the same games (seeds differ): "
                         f"a paired comparison needs the same master seed and games")
    group = comparison_group(game, variant)
    try:
        diff = paired_table(base, variant, group)
    except ValueError as exc:
        raise ValueError(f"{against}: {exc}") from None
    if diff.empty:      # the pages would show nothing, and say so only in their text
        raise ValueError(f"{against}: {_player_counts(base)} games; {variant.label}: "
                         f"{_player_counts(variant)} games: no player count in common, so "
                         f"nothing to pair (compare runs of the same player count)")
    page.h(1, f"{get_game(game).title}: {variant.label} against {base.label}")
    page.p("Variant: " + _describe(variant) + ".", "meta")
    page.p("Baseline: " + _describe(base) + ".", "meta")
    if diff["own_wins"].any():
        page.p("In one run a seat's win is its team's (partners win together) and in the "
               "other its own: each seat's own win is compared in both, so a team's win is not "
               "set against a seat's.", "meta")
    warnings = unpaired_games_warning(base, variant) + run_warnings(base, variant) + \
        stronger_ability_warnings(game, base, variant, diff, group)
    if warnings:
        validity_box(page, warnings)
    diff["label"] = [group_label(game, group, v) for v in diff[group]]
    sig = diff[diff["significant"]].sort_values("difference", key=abs, ascending=False)
    several = diff["players"].nunique() > 1
    page.h(2, "What changed (paired on the same games)")
    if len(sig):
        items = "".join(
            f"<li>{html.escape(row.label)}{f' ({row.players} players)' if several else ''}: "
            f"{FS.pct(row.base_win_rate)} → {FS.pct(row.variant_win_rate)}, "
            + "{} points [{}, {}]".format(*FS.points_triple(
                row.difference, row.paired_ci_low, row.paired_ci_high))
            + f" (n = {row.games:,} seats"
            + (f" in {row.game_count:,} games" if row.seats_a_game > 1 else "")
            + f", {row.discordant:,} changed outcome, "
            + f"{html.escape(FS.p_clause(row.p_holm).replace('p_screen', 'p_holm'))})</li>"
            for row in sig.itertuples())
        page.html(f"<div class='family'><ul>{items}</ul></div>")
    else:
        page.p(f"Nothing changed significantly ({len(diff)} comparisons, Holm-corrected: "
               f"p_holm < {ALPHA:g}).")
    page.p("Difference: the variant's win rate minus the baseline's, in points, seat by seat on "
           "the same games; 95% paired interval. p: exact McNemar test on the seats whose "
           "outcome changed; p_holm: Holm across every row of this table; listed above as "
           f"changed: p_holm < {ALPHA:g}. A tied win counts for each winner."
           + shared_seats_note(diff, group), "note")
    ordered = diff.sort_values(["players", "difference"], ascending=[True, False])
    fig = forest(ordered.assign(rate=ordered["difference"], ci_low=ordered["paired_ci_low"],
                                ci_high=ordered["paired_ci_high"],
                                name=[f"{lab} {p}p" if several else lab for lab, p in
                                      zip(ordered["label"], ordered["players"])]),
                 "name", "Paired difference in win rate (variant - baseline)", 0.0,
                 parity_label="no change", xlabel="difference, points (95% paired interval)")
    page.figure(fig, "forest")
    shown = ordered.assign(
        difference=[FS.points_interval(d, lo, hi) for d, lo, hi in
                    zip(ordered["difference"], ordered["paired_ci_low"],
                        ordered["paired_ci_high"])],
        unpaired=["[{1}, {2}]".format(*FS.points_triple(d, lo, hi)) for d, lo, hi in
                  zip(ordered["difference"], ordered["unpaired_ci_low"],
                      ordered["unpaired_ci_high"])],
        # each run's own rate on these games, with its 95% interval (Wilson's; clustered by
        # game for a bot in several seats of one)
        base_win_rate=FS.pct_ci(ordered, "base_win_rate", "base_ci_low", "base_ci_high"),
        variant_win_rate=FS.pct_ci(ordered, "variant_win_rate", "variant_ci_low",
                                   "variant_ci_high"))
    # significance is p_holm < ALPHA, said in the note; its own column ran off the page
    columns = ["players", "label", "games", "base_win_rate", "variant_win_rate", "difference",
               "discordant", "unpaired", "p_value", "p_holm"]
    page.table(shown[columns].rename(columns={
        # a row counts seats: one a game for a character or a seat, more for a bot that sits
        # in several seats of a game
        "games": "seats",
        "label": group, "base_win_rate": "baseline", "variant_win_rate": "variant",
        "difference": "difference [paired 95%]", "discordant": "changed",
        "unpaired": "unpaired 95%", "p_value": "p"}), "paired",
        {"p": FS.fmt_p, "p_holm": FS.fmt_p, "seats": "{:,}".format,
         "changed": "{:,}".format}, raw=diff)

    page.h(2, "How the games changed")
    page.table(_flow_rows(game, base, variant), "flow")
    endings = paired_endings(base, variant)
    page.p("How the games ended, paired on the same games: each run's share with its 95% Wilson "
           "interval; difference: the variant's share less the baseline's, in points, with "
           "Tango's 95% paired interval; changed: the games that ended one way in one run and "
           "not in the other; p: exact McNemar test, not corrected across rows.", "note")
    page.table(endings.assign(
        baseline=FS.pct_ci(endings, "base_rate", "base_ci_low", "base_ci_high"),
        variant=FS.pct_ci(endings, "variant_rate", "variant_ci_low", "variant_ci_high"),
        difference=FS.points_ci(endings, "difference", "ci_low", "ci_high"))[
        ["players", "end", "games", "baseline", "variant", "difference", "changed", "p"]],
        "endings", {"games": "{:,}".format, "changed": "{:,}".format, "p": FS.fmt_p},
        raw=endings)
    page.p(f"Report built in {time.perf_counter() - started:.1f} s.", "note")
    plt.close("all")
    return page.write(f"Comparison: {variant.label} against {base.label}", filename)


def paired_endings(base, variant):
    """Per player count, each end reason's share of the games both runs played, in each run,
    and their paired difference (variant less baseline; Tango's interval, exact McNemar p).
    Every end reason the records can hold is listed, used or not ('none', an unfinished game,
    only where a game has it)."""
    columns = ["game", "players", "end_reason"]
    for run in (base, variant):
        if run.games["end_reason"].isna().any():
            raise ValueError(f"{run.label}: a game without an end reason in the records")
    both = base.games[columns].merge(variant.games[columns], on=["game", "players"],
                                     suffixes=("_base", "_variant"), validate="one_to_one")
    reasons = set()
    for run in (base, variant):
        ended = run.games["end_reason"]
        reasons |= set(map(str, ended.cat.categories if hasattr(ended, "cat") else ended))
    rows = []
    for players, games in both.groupby("players"):
        ended_base = games["end_reason_base"].astype(str)
        ended_variant = games["end_reason_variant"].astype(str)
        n = len(games)
        for reason in sorted(reasons):
            in_base, in_variant = ended_base == reason, ended_variant == reason
            if reason == "none" and not (in_base.any() or in_variant.any()):
                continue
            base_only = int((in_base & ~in_variant).sum())
            variant_only = int((in_variant & ~in_base).sum())
            difference, lo, hi = paired_proportion_difference(base_only, variant_only, n)
            b, v = rate_row(int(in_base.sum()), n), rate_row(int(in_variant.sum()), n)
            rows.append({"players": int(players), "end": reason, "games": n,
                         "base_rate": b["rate"], "base_ci_low": b["ci_low"],
                         "base_ci_high": b["ci_high"], "variant_rate": v["rate"],
                         "variant_ci_low": v["ci_low"], "variant_ci_high": v["ci_high"],
                         "difference": float(difference), "ci_low": float(lo),
                         "ci_high": float(hi), "changed": base_only + variant_only,
                         "p": mcnemar_exact_p(base_only, variant_only)})
    return pd.DataFrame(rows)


def _flow_rows(game, base, variant):
    """How the games went, side by side: the game's own flow figures (length, end reasons)."""
    return pd.DataFrame([{"run": run.label, "games": f"{len(run.games):,}",
                          **get_game(game).api.flow_row(run)} for run in (base, variant)])
