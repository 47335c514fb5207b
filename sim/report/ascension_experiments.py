"""Markdown tables of Ascension experiments (the numbers behind results/ASCENSION.md).

    python -m sim.report.ascension_experiments results/ascension/first_summiter [...more]

For each experiment folder: per variant and player count, how games end, their length, the
first summiter's chance, blocks; then every variant against the baseline, paired game by game
(the same seeds): differences in length (a normal interval on the per-game differences), and
in the chance that the first summiter wins, the win-by-cap and all-eliminated rates and seat
0's win rate (Tango's score interval and the exact McNemar test on the games that changed).
"""
import json
import math
import sys
from pathlib import Path

import numpy as np

from sim.core.stats import Z95, wilson_interval
from sim.experiment.paired import OWN_WIN, own_wins_where_teams_differ
from sim.experiment.runner import load_variant

GAME_COLUMNS = ["game", "seed", "players", "winner_seat", "end_reason", "turns",
                "first_summit_seat", "first_summit_turn", "winner_first_summiter", "blocks",
                "eliminations", "privilege_passes", "privilege_losses", "pillar_raises",
                "reveals_ladder", "reveals_mattress", "reveals_spring", "reveals_cable_car",
                "reveals_chasm", "reveals_bivouac"]


def _pct_ci(k, n):
    lo, hi = wilson_interval(k, n)
    return f"{100 * k / n:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]" if n else "n/a"


def _mean_ci(x):
    x = np.asarray(x, float)
    if len(x) < 2:
        return "n/a"
    half = Z95 * x.std(ddof=1) / math.sqrt(len(x))
    return f"{x.mean():.1f} [{x.mean() - half:.1f}, {x.mean() + half:.1f}]"


def _diff(d, scale=1.0):
    """(mean, low, high, p) of per-game differences d of a measure (rounds): a normal
    interval and test."""
    d = np.asarray(d, float) * scale
    if len(d) < 2:
        return (np.nan, np.nan, np.nan, np.nan)
    sd = d.std(ddof=1)
    half = Z95 * sd / math.sqrt(len(d))
    z = d.mean() / (sd / math.sqrt(len(d))) if sd > 0 else 0.0
    return (d.mean(), d.mean() - half, d.mean() + half, math.erfc(abs(z) / math.sqrt(2.0)))


def _paired_yes_no(base, variant, scale=100.0):
    """(difference, low, high, p) of a yes/no outcome of the same games under the baseline and
    the variant: Tango's score interval and the exact McNemar test on the games that changed
    (sim/core/stats.py). The normal interval on the per-game differences, used here until
    2026-12-07, had no width where no game changed (+0.00 [+0.00, +0.00]) or where every
    changed game moved one way, and was too narrow where few did (a review found it)."""
    from sim.core.stats import mcnemar_exact_p, paired_proportion_difference
    base = np.asarray(base, bool)
    variant = np.asarray(variant, bool)
    if not len(base):
        return (np.nan, np.nan, np.nan, np.nan)
    base_only = int((base & ~variant).sum())
    variant_only = int((variant & ~base).sum())
    d, lo, hi = paired_proportion_difference(base_only, variant_only, len(base))
    return (scale * d, scale * lo, scale * hi, float(mcnemar_exact_p(base_only, variant_only)))


def _diff_text(cell, significant):
    m, lo, hi, _ = cell
    if np.isnan(m):
        return "n/a"
    return f"{m:+.2f} [{lo:+.2f}, {hi:+.2f}]{' *' if significant else ''}"


def load(folder):
    from sim.report.analysis import check_experiment_record_version
    doc = json.loads((Path(folder) / "experiment.json").read_text())
    check_experiment_record_version(folder, doc)
    ident = doc["identity"]
    out = {}
    for v in ident["variants"]:
        for p in ident["players"]:
            games = load_variant(folder, v, p, GAME_COLUMNS, table="games")
            # `own_win` since record schema 3 (before it, free-for-all only: `won` is the seat's)
            seats = load_variant(folder, v, p, ["game", "seat", "policy", "won", "blocks",
                                                "eliminated", "turns", "extra_turns",
                                                "bonus_turns"], optional=[OWN_WIN])
            if games is not None:
                normal = seats.assign(n=seats.turns - seats.extra_turns - seats.bonus_turns) \
                    .groupby("game")["n"].sum().reindex(games["game"]).to_numpy()
                games = games.assign(rounds=normal / p)
                out[(v, p)] = (games, seats)
    return doc, out


def summary_table(data):
    lines = ["| variant | players | games | ends in a win | cap | all eliminated | rounds (mean) "
             "| rounds of won games, median / p90 | P(win \\| first to summit) | blocks/game "
             "| eliminations/game |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for (v, p), (g, s) in data.items():
        n = len(g)
        summ = g[g["first_summit_seat"] >= 0]
        lines.append(
            f"| {v} | {p} | {n:,} | {_pct_ci(int((g.end_reason == 'win').sum()), n)} | "
            f"{_pct_ci(int((g.end_reason == 'cap').sum()), n)} | "
            f"{_pct_ci(int((g.end_reason == 'all_eliminated').sum()), n)} | "
            f"{_mean_ci(g.rounds)} | {g.rounds[g.end_reason == 'win'].median():.1f} / "
            f"{g.rounds[g.end_reason == 'win'].quantile(.9):.1f} | "
            f"{_pct_ci(int(summ.winner_first_summiter.sum()), len(summ))} | "
            f"{g.blocks.mean():.2f} | {g.eliminations.mean():.2f} |")
    return "\n".join(lines)


def seat_table(data):
    lines = ["| variant | players | " + " | ".join(f"seat {k}" for k in range(4)) + " |",
             "|---|---|---|---|---|---|"]
    for (v, p), (g, s) in data.items():
        cells = []
        for k in range(4):
            sk = s[s.seat == k]
            cells.append(_pct_ci(int(sk.won.sum()), len(sk)) if len(sk) else "")
        lines.append(f"| {v} | {p} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def policy_table(data):
    """Win rate by policy; the games column counts seats. Partners that win together (A48)
    take the game as the unit (sim.report.ascension.policy_table)."""
    from sim.report.ascension import policy_table as rates
    lines = ["| variant | players | policy | games | win rate |", "|---|---|---|---|---|"]
    for (v, p), (g, s) in data.items():
        for row in rates(g, s).itertuples():
            lines.append(f"| {v} | {p} | {row.policy} | {row.n:,} | {100 * row.rate:.1f}% "
                         f"[{100 * row.ci_low:.1f}, {100 * row.ci_high:.1f}] |")
    return "\n".join(lines)


def paired_table(data, baseline="baseline"):
    """Each variant against the baseline on the same games. * marks differences whose p-value
    stays below 0.05 after a Holm correction across every cell of the table. "seat 0 wins" is
    the seat's own win where one side plays partnership and the other not, else `won`."""
    from sim.core.stats import holm
    rows = []
    for (v, p), (g, s) in data.items():
        if v == baseline or (baseline, p) not in data:
            continue
        bg, bs = data[(baseline, p)]
        m = bg.merge(g, on="game", suffixes=("_b", "_v"))
        if not (m.seed_b == m.seed_v).all():
            raise ValueError(f"{v}: not the same games as {baseline}")
        both = m[(m.first_summit_seat_b >= 0) & (m.first_summit_seat_v >= 0)]
        # under partnership `won` is a team's (A48): a variant that switches it on or off
        # pairs each seat's own win, as every paired comparison does
        base_seats, seats, _ = own_wins_where_teams_differ(bs, s)
        s0 = base_seats.loc[base_seats.seat == 0, ["game", "won"]].merge(
            seats.loc[seats.seat == 0, ["game", "won"]], on="game", suffixes=("_b", "_v"))
        cells = [_diff(m.rounds_v - m.rounds_b),
                 _paired_yes_no(both.winner_first_summiter_b, both.winner_first_summiter_v),
                 _paired_yes_no(m.end_reason_b == "cap", m.end_reason_v == "cap"),
                 _paired_yes_no(m.end_reason_b == "all_eliminated",
                                m.end_reason_v == "all_eliminated"),
                 _paired_yes_no(s0["won_b"], s0["won_v"])]
        rows.append((v, p, len(m), len(both), cells))
    adjusted = holm([c[3] for *_, cells in rows for c in cells])
    lines = ["| variant | players | games | rounds | first summiter wins (pp; games with a summit "
             "in both: n) | ends by cap (pp) | all eliminated (pp) | seat 0 wins (pp) |",
             "|---|---|---|---|---|---|---|---|"]
    k = 0
    for v, p, n, n_both, cells in rows:
        texts = []
        for c in cells:
            texts.append(_diff_text(c, bool(adjusted[k] < 0.05)))
            k += 1
        texts[1] += f" (n={n_both:,})"
        lines.append(f"| {v} | {p} | {n:,} | " + " | ".join(texts) + " |")
    return "\n".join(lines)


def specials_table(data):
    syms = ["ladder", "mattress", "spring", "cable_car", "chasm", "bivouac"]
    lines = ["| variant | players | " + " | ".join(f"{x} reveals/game" for x in syms) + " |",
             "|---|---|" + "---|" * len(syms)]
    for (v, p), (g, s) in data.items():
        lines.append(f"| {v} | {p} | " + " | ".join(f"{g[f'reveals_{x}'].mean():.2f}"
                                                    for x in syms) + " |")
    return "\n".join(lines)


def experiment_markdown(folder):
    doc, data = load(folder)
    ident = doc["identity"]
    parts = [f"### {doc['name']} ({folder})", "",
             f"Spec `{doc['spec_file']}`; policies {ident['seat_policies']}"
             f"{', seats rotated' if ident.get('rotate_seats') else ''}; master seed "
             f"{ident['seed']}; command `ascent run {doc['spec_file']}`.", "",
             summary_table(data), "", seat_table(data), ""]
    if not isinstance(ident["seat_policies"], str):
        parts += [policy_table(data), ""]
    if len(ident["variants"]) > 1:
        parts += ["Against the baseline, paired by game (difference, 95% interval: normal for "
                  "rounds, Tango's score interval for the yes/no columns; * = p < 0.05, from a "
                  "normal test for rounds and the exact McNemar test for the others, after a "
                  "Holm correction across the table):", "",
                  paired_table(data), ""]
    parts += [specials_table(data), ""]
    return "\n".join(parts)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print(__doc__)
        return 2
    print("\n".join(experiment_markdown(f) for f in argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
