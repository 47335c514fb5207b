"""sweep.html: how each swept knob moves every character's win rate, paired against the current
rules on the same games.

First screen: the response table (per character and value, the paired difference in points
with its 95% interval, bold where Holm across the whole table keeps it), then per knob a figure
of win rates and paired differences against the knob's value. What pairing bought is measured
for each value (unpaired over paired interval width); where a value's games stopped being alike,
the validity box says so and quotes how the game draws its randomness.
"""
import html
import json
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from sim.core.game import get_game
from sim.core.stats import holm
from sim.experiment.paired import compare_to_baseline
from sim.experiment.runner import load_variant
from sim.experiment.spec import is_rule_option
from sim.experiment.sweep import short_names, sweep_settings
from sim.report import first_screen as FS
from sim.report.analysis import ALPHA
from sim.report.bots import bot_line
from sim.report.compare import group_label

# below this, pairing bought too little to call the games paired (a knob that desynchronises
# the games gives about 1.0; a sweep whose games stay alike gives 2 to 20)
PAIRING_LOST = 1.3


class SweepTable(NamedTuple):
    diff: pd.DataFrame      # one row per value, player count and character (sweep_table)
    settings: dict          # variant -> ((key, value), ...) against the baseline
    identity: dict          # the experiment's identity (experiment.json)
    game: object            # its GameSpec
    group: str              # character, seat or policy
    games: int              # games a value, the fewest over player counts


def same_games(baseline, games):
    """Whether a value played exactly the baseline's games (every record equal): the knob's
    current value, or a value the rules never read in these games."""
    if baseline is None or games is None:
        return False
    n = min(len(baseline), len(games))
    return baseline.head(n).reset_index(drop=True).equals(games.head(n).reset_index(drop=True))


def sweep_table(out):
    """One row per (value, player count, character): win rates, the paired difference against
    the baseline with both intervals, Holm across the table, and what pairing bought."""
    from sim.report.analysis import check_experiment_record_version
    doc = json.loads((Path(out) / "experiment.json").read_text())
    check_experiment_record_version(out, doc)
    identity = doc["identity"]
    order = doc.get("variant_order") or list(identity["variants"])
    settings = sweep_settings(identity, order)
    if not settings:
        raise ValueError(f"{out}: the experiment has a baseline only: nothing was swept")
    game = get_game(identity["game"])
    group = game.group(isinstance(identity["seat_policies"], str))
    diff = compare_to_baseline(out, "baseline", list(settings), identity["players"], group)
    if diff.empty:
        raise ValueError(f"{out}: no value has finished games yet")
    baselines = {p: load_variant(out, "baseline", p, table="games") for p in identity["players"]}
    same = {(v, p): same_games(baselines[p], load_variant(out, v, p, table="games"))
            for v, p in diff[["variant", "players"]].drop_duplicates().itertuples(index=False)}
    diff["same_games"] = [same[(v, p)] for v, p in zip(diff["variant"], diff["players"])]
    # the same games twice: nothing was paired, so pairing bought nothing to report
    diff.loc[diff["same_games"], "pairing_gain"] = np.nan
    diff["p_holm"] = holm(diff["p_value"].to_numpy())
    diff["significant"] = diff["p_holm"] < ALPHA
    diff["label"] = [group_label(game.name, group, v) for v in diff[group]]
    diff["setting"] = diff["variant"].map(settings)
    games = min(len(b) for b in baselines.values() if b is not None)
    return SweepTable(diff, settings, identity, game, group, games)


def axes_of(settings):
    """The swept keys in order, each with its values in order; and whether it is a grid."""
    keys, values = [], {}
    for setting in settings.values():
        for key, value in setting:
            if key not in values:
                keys.append(key)
                values[key] = []
            if value not in values[key]:
                values[key].append(value)
    grid = any(len(s) > 1 for s in settings.values())
    return keys, values, grid


def _numeric(values):
    try:
        return [float(v) for v in values]
    except ValueError:
        return None


def current_row(diff, players, label):
    """The cell whose current-rules rate (base_win_rate and its interval) a row shows: the
    value paired on the most of the baseline's games; a value not yet finished pairs fewer,
    and its baseline rate is of those only."""
    grp = diff[(diff["players"] == players) & (diff["label"] == label)]
    return grp.loc[grp["games"].idxmax()]


def current_rate(diff, players, label):
    return float(current_row(diff, players, label)["base_win_rate"])


def _cell(row):
    if row.same_games:
        return "same games"
    text = FS.points_interval(row.difference, row.paired_ci_low, row.paired_ci_high)
    return f"<b>{html.escape(text)}</b>" if row.significant else html.escape(text)


def response_markup(diff, names, players):
    """Per character (rows) and value (columns): the paired difference; the first column is
    the current rules' win rate."""
    part = diff[diff["players"] == players]
    variants = list(dict.fromkeys(part["variant"]))
    head = "".join(f"<th>{html.escape(_setting_text(part.loc[part['variant'] == v, 'setting'].iloc[0], names))}</th>"
                   for v in variants)
    rows = []
    for label, grp in part.groupby("label", sort=False):
        grp = grp.set_index("variant")
        first = current_row(diff, players, label)
        cells = "".join(f"<td>{_cell(grp.loc[v])}</td>" if v in grp.index else "<td>–</td>"
                        for v in variants)
        rows.append(f"<tr><td>{html.escape(str(label))}</td>"
                    f"<td>{FS.pct_interval(first.base_win_rate, first.base_ci_low, first.base_ci_high)}"
                    f" of {int(first.games):,}</td>{cells}</tr>")
    return (f"<div class='wrap'><table><tr><th>{html.escape(part.columns[2])}</th>"
            f"<th>current rules [95%] of n seats</th>{head}</tr>{''.join(rows)}</table></div>")


def _setting_text(setting, names):
    return ", ".join(f"{names[k]} = {v}" for k, v in setting)


def _unfinished_text(diff, games, settings, names):
    """The values not yet played to the baseline's count of games (an interrupted sweep), each
    with the games it is compared on: the header's count is the baseline's."""
    compared = diff.groupby("variant", sort=False)["games_compared"].min()
    short = [f"{_setting_text(settings[v], names)} ({n:,})" for v, n in compared.items()
             if n < games]
    return f"; not yet finished, so compared on fewer games: {'; '.join(short)}" if short else ""


def response_figure(diff, key, values, names, players):
    """Left: win rate against the knob's value (dotted: the current rules); right: the paired
    difference with its 95% interval."""
    import matplotlib.pyplot as plt
    from sim.report.render import _error_bars, mpl_text
    part = diff[(diff["players"] == players) &
                diff["setting"].map(lambda s: len(s) == 1 and s[0][0] == key)]
    xs = _numeric(values)
    position = dict(zip(values, xs if xs is not None else range(len(values))))
    labels = list(dict.fromkeys(part["label"]))
    colours = plt.get_cmap("tab20" if len(labels) > 10 else "tab10")
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    width = (max(position.values()) - min(position.values()) or 1) * 0.012
    for i, label in enumerate(labels):
        grp = part[part["label"] == label]
        x = np.array([position[s[0][1]] for s in grp["setting"]]) + (i - len(labels) / 2) * width
        colour = colours(i % colours.N)
        left.errorbar(x, grp["variant_win_rate"] * 100, yerr=_error_bars(
            grp["variant_win_rate"], grp["variant_ci_low"], grp["variant_ci_high"]),
            fmt="o-", ms=3, lw=1, capsize=2, color=colour, label=mpl_text(label))
        left.axhline(current_rate(diff, players, label) * 100, ls=":", lw=1, color=colour)
        right.errorbar(x, grp["difference"] * 100, yerr=_error_bars(
            grp["difference"], grp["paired_ci_low"], grp["paired_ci_high"]),
            fmt="o-", ms=3, lw=1, capsize=2, color=colour)
    right.axhline(0, color="#444", lw=1)
    for ax in (left, right):
        ax.set_xlabel(mpl_text(names[key]))
        if xs is None:
            ax.set_xticks(list(position.values()))
            ax.set_xticklabels([mpl_text(v) for v in values])
        ax.grid(alpha=.3)
    left.set_ylabel("win rate, % (95% Wilson)")
    left.set_title("Win rate; dotted: the current rules", fontsize=10)
    right.set_ylabel("points against the current rules (95% paired)")
    right.set_title("Paired difference, same games", fontsize=10)
    left.legend(fontsize=8, loc="upper left", bbox_to_anchor=(2.25, 1), frameon=False)
    return fig


def sweep_warnings(diff, settings, game, identity, names, out=None):
    from sim.report.validity import tuned_knob_bots
    warnings = []
    seat_policies = identity["seat_policies"]
    policies = [seat_policies] if isinstance(seat_policies, str) else list(seat_policies)
    tuned = tuned_knob_bots(game, policies)
    if tuned:
        warnings.append(f"Every value is played by {' and '.join(tuned)} with the tuned knobs "
                        "as they were fitted for the current rules; they are not re-tuned for "
                        "each value, so a value that asks for other play may be under-rated "
                        "(a balance spec with `coadapt = true` re-fits them under a patch).")
    if out is not None:
        warnings += value_warnings(out, settings, names)
    played = diff[~diff["same_games"]]
    if len(played):
        gain = played.groupby("variant")["pairing_gain"].median()
        lost = [v for v in gain.index if gain[v] < PAIRING_LOST]
        if lost:
            shown = "; ".join(_setting_text(settings[v], names) for v in lost[:6])
            more = f" and {len(lost) - 6} more" if len(lost) > 6 else ""
            why = f" {game.title} draws its randomness from {game.random_streams}." \
                if game.random_streams else ""
            warnings.append(
                f"Pairing is lost for {shown}{more}: their paired intervals are barely "
                f"narrower than unpaired ones (median gain under {PAIRING_LOST}x), so those "
                f"games are not the baseline's games replayed.{why} The differences stay "
                f"valid, only wider.")
    return warnings


MAX_VALUE_WARNINGS = 8      # a sweep of many stalling values: the first few, then a count


def value_warnings(out, settings, names):
    """Each value's own validity warnings (caps, policy errors, the game's own checks), as its
    run's report would show them, named by the value; the current rules first."""
    from sim.report.analysis import load_results
    from sim.report.render import run_policies
    from sim.report.validity import validity_warnings
    found = []
    for variant in ["baseline", *settings]:
        r = load_results(out, variant)
        who = "The current rules" if variant == "baseline" else \
            _setting_text(settings[variant], names)
        # the values' rules differ from the tuned knobs' by design (said once above); the
        # current rules may already differ from the ones they were fitted under
        found += [f"{who}: {w}" for w in validity_warnings(r, run_policies(r),
                                                            tuned_rules=variant == "baseline")]
    if len(found) > MAX_VALUE_WARNINGS:
        found = found[:MAX_VALUE_WARNINGS] + [
            f"And {len(found) - MAX_VALUE_WARNINGS} more such warnings of other values (each "
            f"value's own report: `ascent report {Path(out).name} --variant NAME`)."]
    return found


def write_sweep_report(out, command_line=None):
    """sweep.html, figures/sweep_*.png and tables/sweep_*.csv in the sweep's folder."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sim.report.render import Page
    started = time.perf_counter()
    diff, settings, identity, game, group, games = sweep_table(out)
    keys, values, grid = axes_of(settings)
    names = short_names(keys)
    page = Page(out, prefix="sweep_")
    page.warnings = sweep_warnings(diff, settings, game, identity, names, out)
    seat_policies = identity["seat_policies"]
    policies = [seat_policies] * max(identity["players"]) if isinstance(seat_policies, str) \
        else list(seat_policies)
    swept = "; ".join(f"{names[k]} over {', '.join(values[k])}" for k in keys)
    page.h(1, f"{game.title} sweep: {swept}")
    base = identity["variants"]["baseline"]
    current = ", ".join(f"{k} = {v}" for table in ("rules", "set")
                        for k, v in base.get(table, {}).items())
    page.p(f"{'In every combination' if grid else 'One knob at a time, the others at their current value'}"
           f"; {len(settings)} values against the current rules "
           f"({base.get('preset') or 'the game as specified'}"
           f"{'; ' + current if current else ''}). Each value plays the same games as the "
           f"current rules: players {', '.join(str(p) for p in identity['players'])}, master "
           f"seed {identity['seed']}, {games:,} games a value"
           f"{_unfinished_text(diff, games, settings, names)}.", "meta")
    for k in keys:
        page.p(f"{names[k]}: {'rule option' if is_rule_option(k) else 'data knob'} {k}", "meta")
    if command_line:
        page.p(f"Command: {command_line}", "meta")
    page.p(bot_line(game.name, policies), "bots")
    if page.warnings:
        items = "".join(f"<li>{html.escape(w)}</li>" for w in page.warnings)
        page.html(f"<div class='validity'><b>Read with care</b><ul>{items}</ul></div>")
    several = len(identity["players"]) > 1
    gain = diff.loc[~diff["same_games"] & np.isfinite(diff["pairing_gain"]), "pairing_gain"]
    for players in identity["players"]:
        page.h(2, f"What each value changes{f', {players} players' if several else ''}: "
                  f"points against the current rules")
        page.html(response_markup(diff, names, players))
    page.p("Each cell: the value's win rate minus the current rules' win rate, in points, seat "
           "by seat on the same games; 95% paired (Tango) interval. Bold: significant after "
           f"Holm across all {len(diff):,} cells of this page. 'same games': the value played "
           "exactly the current rules' games (the knob's current value, or one these games "
           "never read). A tied win counts for each winner."
           + (" Where a value's wins are a team's (partners win together) and the current "
              "rules' a seat's own, or the reverse, each seat's own win is compared."
              if diff["own_wins"].any() else "")
           + (f" Pairing made the intervals {gain.median():.1f}x narrower than unpaired ones "
              f"would be (median over cells)." if len(gain) else ""), "note")
    for players in identity["players"]:
        for k in ([] if grid else keys):
            page.h(3, f"{names[k]}{f', {players} players' if several else ''}")
            page.figure(response_figure(diff, k, values[k], names, players),
                        f"{names[k]}_p{players}")
    page.h(2, "Every cell")
    shown = diff.assign(
        setting=[_setting_text(s, names) for s in diff["setting"]],
        difference=[FS.points_interval(d, lo, hi) for d, lo, hi in
                    zip(diff["difference"], diff["paired_ci_low"], diff["paired_ci_high"])],
        pairing_gain=["same games" if same else f"{g:.1f}x" if np.isfinite(g) else "–"
                      for g, same in zip(diff["pairing_gain"], diff["same_games"])],
        base_win_rate=FS.pct_ci(diff, "base_win_rate", "base_ci_low", "base_ci_high"),
        variant_win_rate=FS.pct_ci(diff, "variant_win_rate", "variant_ci_low",
                                   "variant_ci_high"))
    columns = ["players", "setting", "label", "games", "base_win_rate", "variant_win_rate",
               "difference", "discordant", "pairing_gain", "p_holm"]
    raw = diff.assign(setting=shown["setting"]).drop(columns=["variant"])
    page.table(shown[columns].rename(columns={
        "games": "seats",        # as on the comparison page (compare.py)
        "label": group, "base_win_rate": "current", "variant_win_rate": "value",
        "difference": "difference [paired 95%]", "discordant": "changed",
        "pairing_gain": "pairing gain"}), "cells",
        {"seats": "{:,}".format, "changed": "{:,}".format, "p_holm": FS.fmt_p}, raw=raw,
        max_rows=400)
    page.p(f"Report built in {time.perf_counter() - started:.1f} s.", "note")
    plt.close("all")
    return page.write(f"{game.title} sweep: {swept}", "sweep.html")
