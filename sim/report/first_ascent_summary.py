"""Markdown tables for results/FIRST_ASCENT.md from the First Ascent experiment folders.

    python -m sim.report.first_ascent_summary [results/first_ascent]

Reads baseline_planner and baseline_tuned (the same games under two bots), abilities_off,
readings and risk_die_odds if present, and prints: per-character win shares per player count
for both bots, marking those that differ from the effective parity (Holm); shared and
personal objectives; each ability's paired worth; and the readings' and Risk Die odds' paired
effects.
"""
import sys
from pathlib import Path

import pandas as pd

from sim.core.stats import holm
from sim.experiment.paired import paired_differences
from sim.report.analysis import load_results
from sim.report.first_ascent import (character_table, personal_objective_table,
                                     seats_with_players, shared_objective_table)


def _pct(rate, lo, hi):
    return f"{100 * rate:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def _pp(d, lo, hi, star=False):
    return f"{100 * d:+.2f} [{100 * lo:+.2f}, {100 * hi:+.2f}]{' *' if star else ''}"


def character_section(runs):
    out = []
    tables = {name: character_table(seats_with_players(r), r.games) for name, r in runs.items()}
    players = sorted(set().union(*(set(t["players"]) for t in tables.values())))
    for p in players:
        parities = ", ".join(
            f"{name} {100 * t.loc[t['players'] == p, 'parity'].iloc[0]:.1f}%"
            for name, t in tables.items() if (t["players"] == p).any())
        out.append(f"\n**{p} players** (win share: a tied win counts 1/k for each of k "
                   f"winners; n = seats of that character; effective parity, the share of "
                   f"decided games / {p}: {parities})\n")
        head = "| character | " + " | ".join(f"{name}: win share | mean score" for name in tables)
        out.append(head + " |")
        out.append("|---" * (1 + 2 * len(tables)) + "|")
        chars = sorted(set().union(*(set(t.loc[t["players"] == p, "character"])
                                     for t in tables.values())))
        for c in chars:
            cells = [c]
            for t in tables.values():
                row = t[(t["players"] == p) & (t["character"] == c)]
                if len(row):
                    r = row.iloc[0]
                    star = " *" if r["significant"] else ""
                    cells += [_pct(r["share"], r["share_ci_low"], r["share_ci_high"]) + star +
                              f" (n={r['n']:,})", f"{r['mean_score']:.1f}"]
                else:
                    cells += ["", ""]
            out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out), tables


def objective_section(r):
    seats = seats_with_players(r)
    out = []
    for p in sorted(seats["players"].unique()):
        s = seats[seats["players"] == p]
        g = r.games[r.games["players"] == p]
        so = shared_objective_table(g, s)
        out.append(f"\n**Shared objectives, {p} players** (seats of the games where it was in "
                   f"play)\n")
        out.append("| objective | n | scored | mean points | scorers | win rate if scored |")
        out.append("|---|---|---|---|---|---|")
        for _, row in so.iterrows():
            won = _pct(row["win_rate_if_scored"], row["if_scored_ci_low"],
                       row["if_scored_ci_high"])
            out.append(f"| {row['objective']} | {row['n']:,} | "
                       f"{_pct(row['rate'], row['ci_low'], row['ci_high'])} | "
                       f"{row['mean_points']:.2f} | {row['scorers']:,} | {won} |")
    s = seats[seats["players"] == 4] if (seats["players"] == 4).any() else seats
    po = personal_objective_table(s)
    out.append("\n**Personal objectives** (4 players; seats holding the card; scored = it "
               "was the card counted)\n")
    out.append("| objective | n | scored | win rate if held |")
    out.append("|---|---|---|---|")
    for _, row in po.iterrows():
        won = _pct(row["win_rate_if_held"], row["if_held_ci_low"], row["if_held_ci_high"])
        out.append(f"| {row['objective']} | {row['n']:,} | "
                   f"{_pct(row['rate'], row['ci_low'], row['ci_high'])} | {won} |")
    return "\n".join(out)


def variant_section(folder, own_character_only=False):
    """Paired differences of every variant against `baseline`, per character; with
    own_character_only, the row of the character a variant names (no_<key>)."""
    import json
    doc = json.loads((folder / "experiment.json").read_text())
    names = doc.get("variant_order") or list(doc["identity"]["variants"])
    base = load_results(folder, "baseline")
    rows = []
    for name in names:
        if name == "baseline":
            continue
        v = load_results(folder, name)
        d = paired_differences(base.seats, v.seats, "character")
        d.insert(0, "variant", name)
        if own_character_only:
            d = d[d["character"] == name.removeprefix("no_")]
        rows.append(d)
    df = pd.concat(rows, ignore_index=True)
    df["p_holm"] = holm(df["p_value"].to_numpy())
    return df, base


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    root = Path(argv[0] if argv else "results/first_ascent")
    runs = {}
    for name in ("baseline_planner", "baseline_tuned"):
        if (root / name).exists():
            runs[name.removeprefix("baseline_")] = load_results(root / name, "baseline")
    if runs:
        text, _ = character_section(runs)
        print("## Characters\n" + text)
        print("\n## Objectives (planner)\n" + objective_section(next(iter(runs.values()))))
    if (root / "abilities_off").exists():
        df, _ = variant_section(root / "abilities_off", own_character_only=True)
        print("\n## What each ability is worth (planner, 4 players; paired, same games)\n")
        print("| ability switched off | games | win rate with | without | difference (pp) |")
        print("|---|---|---|---|---|")
        for _, r in df.sort_values("difference").iterrows():
            # each run's rate with its own interval (Principle 3), the difference paired
            print(f"| {r['character']} | {r['games']:,} | "
                  f"{_pct(r['base_win_rate'], r['base_ci_low'], r['base_ci_high'])} | "
                  f"{_pct(r['variant_win_rate'], r['variant_ci_low'], r['variant_ci_high'])} | "
                  f"{_pp(r['difference'], r['paired_ci_low'], r['paired_ci_high'], r['p_holm'] < 0.05)} |")
    for name in ("readings", "risk_die_odds"):
        if (root / name).exists():
            df, base = variant_section(root / name)
            print(f"\n## {name} (planner, 4 players; paired per character, the largest "
                  f"changes)\n")
            print("| variant | character | games | difference (pp) |")
            print("|---|---|---|---|")
            top = df.reindex(df["difference"].abs().sort_values(ascending=False).index)
            for _, r in top.head(12).iterrows():
                print(f"| {r['variant']} | {r['character']} | {r['games']:,} | "
                      f"{_pp(r['difference'], r['paired_ci_low'], r['paired_ci_high'], r['p_holm'] < 0.05)} |")
            n_sig = int((df["p_holm"] < 0.05).sum())
            print(f"\n{n_sig} of {len(df)} character x variant differences are significant "
                  f"after Holm.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
