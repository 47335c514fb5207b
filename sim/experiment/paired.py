"""Paired comparisons: every variant of an experiment plays the same games (same seeds, same
seatings), so a difference is measured game by game. Per character, over the games it sits in:
d = won under the variant - won under the baseline; the 95% interval of mean(d) uses the spread
of d. The unpaired interval (as if the two runs were independent) is given alongside, to show
what pairing buys."""
import math

import pandas as pd

from sim.core.stats import Z95, wilson_interval
from sim.experiment.runner import load_variant


def character_win_rates(seats, group="character"):
    grp = seats.groupby(group, observed=True)["won"]
    wins, n = grp.sum(), grp.count()
    lo, hi = wilson_interval(wins.to_numpy(), n.to_numpy())
    return pd.DataFrame({"games": n, "wins": wins, "win_rate": wins / n, "ci_low": lo,
                         "ci_high": hi})


def paired_differences(base_seats, variant_seats, group="character"):
    """Per character (or per `group`: seat, policy): win rates under both, the paired
    difference and both intervals. The output names the group column `group`."""
    identity = "character" if group == "character" else "policy"
    cols = list(dict.fromkeys(["game", "seat", group, identity, "won"]))
    a = base_seats[cols]
    b = variant_seats[cols]
    merged = a.merge(b, on=["game", "seat"], suffixes=("_base", "_variant"), validate="1:1")
    if not (merged[f"{identity}_base"].astype(str) ==
            merged[f"{identity}_variant"].astype(str)).all():
        raise ValueError(f"the two runs did not seat the same {identity}s: not paired")
    key = "seat_base" if group == "seat" else f"{group}_base"
    if group == "seat":
        merged["seat_base"] = merged["seat"]
    rows = []
    for char, grp in merged.groupby(key, observed=True):
        x = grp["won_base"].to_numpy(float)
        y = grp["won_variant"].to_numpy(float)
        n = len(x)
        d = y - x
        mean = float(d.mean())
        paired_half = Z95 * float(d.std(ddof=1)) / math.sqrt(n) if n > 1 else float("inf")
        pa, pb = x.mean(), y.mean()
        unpaired_half = Z95 * math.sqrt(pa * (1 - pa) / n + pb * (1 - pb) / n)
        z = mean / (paired_half / Z95) if paired_half > 0 else 0.0
        rows.append({group: str(char), "games": n, "base_win_rate": pa,
                     "variant_win_rate": pb, "difference": mean,
                     "paired_ci_low": mean - paired_half, "paired_ci_high": mean + paired_half,
                     "unpaired_ci_low": mean - unpaired_half,
                     "unpaired_ci_high": mean + unpaired_half,
                     "p_value": math.erfc(abs(z) / math.sqrt(2.0))})
    return pd.DataFrame(rows)


def compare_to_baseline(out, baseline, names, player_counts, group="character"):
    """Paired differences of each named variant of an experiment folder against `baseline`, per
    player count, on the games both have finished."""
    identity = "character" if group == "character" else "policy"
    columns = list(dict.fromkeys(["game", "seat", group, identity, "won"]))
    frames = []
    for players in player_counts:
        base = load_variant(out, baseline, players, columns)
        if base is None:
            continue
        for name in names:
            other = load_variant(out, name, players, columns) if name != baseline else None
            if other is None:
                continue
            n = min(base["game"].max(), other["game"].max()) + 1
            df = paired_differences(base[base["game"] < n], other[other["game"] < n], group)
            df.insert(0, "variant", name)
            df.insert(1, "players", players)
            frames.append(df)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def experiment_comparisons(out, spec, baseline=None):
    """Paired differences of every variant against the baseline, per player count."""
    names = [v.name for v in spec.variants]
    baseline = baseline or ("baseline" if "baseline" in names else names[0])
    return baseline, compare_to_baseline(out, baseline, names, spec.players, spec.group)


def format_comparisons(baseline, table):
    if table.empty:
        return "no variant to compare"
    group = table.columns[2]
    label = "" if group == "character" else f"{group} "
    lines = [f"paired difference in win rate against {baseline!r} (same games), 95% intervals:"]
    for _, r in table.iterrows():
        lines.append(
            f"  {r['variant']:<24} p{r['players']} {label}{str(r[group]):<12} "
            f"{100 * r['base_win_rate']:6.2f}% -> {100 * r['variant_win_rate']:6.2f}%  "
            f"{100 * r['difference']:+6.2f} [{100 * r['paired_ci_low']:+.2f}, "
            f"{100 * r['paired_ci_high']:+.2f}]  (unpaired [{100 * r['unpaired_ci_low']:+.2f}, "
            f"{100 * r['unpaired_ci_high']:+.2f}])  n={r['games']:,}")
    return "\n".join(lines)
