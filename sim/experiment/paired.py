"""Paired comparisons: every variant of an experiment plays the same games (same seeds, same
seatings), so a difference is measured game by game. Per character, over the seats it sits in:
base_only = seats won under the baseline and lost under the variant, variant_only = the reverse;
the difference in win rate is (variant_only - base_only) / n. Its 95% interval is Tango's score
interval for paired proportions and its p-value the exact McNemar test (sim/core/stats.py): both
stay valid when few seats change outcome, where mean(d) +/- z*sd(d)/sqrt(n) collapsed to zero
width (58% coverage measured). The unpaired interval (as if the two runs were independent:
Newcombe's, from the runs' own intervals) is given alongside, to show what pairing buys.

Where a group sits in more than one seat of a game (a bot in a comparison by bot), its seats are
not independent pairs: one game's winner settles them all, and a shared win moves them together.
Its interval, p-value and each run's own interval then take the game as the unit
(clustered_paired_difference, clustered_rate_interval in sim/core/stats.py), and
`design_effect` says by how much that widened them (1: not at all)."""
import numpy as np
import pandas as pd

from sim.core.stats import (clustered_by_game, clustered_paired_difference, mcnemar_exact_p,
                            paired_proportion_difference, wilson_interval)
from sim.experiment.runner import load_variant


def character_win_rates(seats, group="character"):
    """Per group: seats (`games`), wins, the win rate and its 95% interval: Wilson's, or for a
    group in several seats of a game, clustered by game where sim.core.stats.clustered_by_game
    says so (needs the `game` column)."""
    grp = seats.groupby(group, observed=True)["won"]
    wins, n = grp.sum(), grp.count()
    lo, hi = wilson_interval(wins.to_numpy(), n.to_numpy())
    lo, hi = np.atleast_1d(lo).astype(float), np.atleast_1d(hi).astype(float)
    shared = seats.duplicated([group, "game"], keep=False) if "game" in seats.columns \
        else None
    if shared is not None and shared.any():
        # only the groups with several seats in some game (most runs have none)
        several = set(seats.loc[shared, group])
        for i, key in enumerate(wins.index):
            if key not in several:
                continue
            mine = seats[seats[group] == key]
            games = mine["won"].astype(float).groupby(mine["game"]).agg(["sum", "size"])
            clustered = clustered_by_game(games["sum"], games["size"])
            if clustered:
                lo[i], hi[i], _ = clustered
    return pd.DataFrame({"games": n, "wins": wins, "win_rate": wins / n, "ci_low": lo,
                         "ci_high": hi})


# A game's optional seats column: the seat's own win where `won` is its team's (Ascension's
# partnership, A48).
OWN_WIN = "own_win"


def wins_are_a_team_s(seats):
    """Whether a seats table's `won` is a team's win: it differs from OWN_WIN in some game."""
    return OWN_WIN in seats.columns and \
        bool((seats["won"].astype(bool) != seats[OWN_WIN].astype(bool)).any())


def own_wins_where_teams_differ(base_seats, variant_seats):
    """(base, variant, own): where one run's `won` is a team's win (wins_are_a_team_s) and the
    other's a seat's own, each side's own wins with `own` True, so that a team's win is not
    set against a seat's; else the tables as they are."""
    def own(seats):
        return seats.assign(won=seats[OWN_WIN]) if OWN_WIN in seats.columns else seats
    if wins_are_a_team_s(base_seats) == wins_are_a_team_s(variant_seats):
        return base_seats, variant_seats, False
    return own(base_seats), own(variant_seats), True


def paired_differences(base_seats, variant_seats, group="character"):
    """Per character (or per `group`: seat, policy): win rates under both, the paired
    difference and both intervals. The output names the group column `group`; `own_wins`
    says where the wins paired are each seat's own (own_wins_where_teams_differ)."""
    base_seats, variant_seats, own_wins = own_wins_where_teams_differ(base_seats,
                                                                      variant_seats)
    identity = "character" if group == "character" else "policy"
    cols = list(dict.fromkeys(["game", "seat", group, identity, "won"]))
    a = base_seats[cols]
    b = variant_seats[cols]
    merged = a.merge(b, on=["game", "seat"], suffixes=("_base", "_variant"), validate="1:1")
    if not (merged[f"{identity}_base"].astype(str) ==
            merged[f"{identity}_variant"].astype(str)).all():
        plural = "characters" if identity == "character" else "policies"
        raise ValueError(f"the two runs did not seat the same {plural}: not paired")
    key = "seat_base" if group == "seat" else f"{group}_base"
    if group == "seat":
        merged["seat_base"] = merged["seat"]
    won_base = _as_won(merged["won_base"])
    won_variant = _as_won(merged["won_variant"])
    by_game = pd.DataFrame({
        "key": merged[key], "game": merged["game"], "games": 1, "base_wins": won_base,
        "variant_wins": won_variant, "base_only": won_base & ~won_variant,
        "variant_only": won_variant & ~won_base,
    }).groupby(["key", "game"], observed=True).sum()
    counts = by_game.groupby(level="key", observed=True).sum()
    n = counts["games"].to_numpy(np.int64)
    base_only = counts["base_only"].to_numpy(np.int64)
    variant_only = counts["variant_only"].to_numpy(np.int64)
    base_wins = counts["base_wins"].to_numpy(np.int64)
    variant_wins = counts["variant_wins"].to_numpy(np.int64)
    pa, pb = base_wins / n, variant_wins / n
    difference, lo, hi = (np.atleast_1d(v).astype(float) for v in
                          paired_proportion_difference(base_only, variant_only, n))
    p_value = np.atleast_1d(mcnemar_exact_p(base_only, variant_only)).astype(float)
    base_lo, base_hi = (np.atleast_1d(v).astype(float) for v in wilson_interval(base_wins, n))
    variant_lo, variant_hi = (np.atleast_1d(v).astype(float)
                              for v in wilson_interval(variant_wins, n))
    design_effect = np.ones(len(n))
    seats_a_game = by_game["games"].groupby(level="key", observed=True).max()
    for i, shared in enumerate(seats_a_game.to_numpy() > 1):
        if not shared:
            continue
        # a bot in several seats of a game: one game's winner settles them all, so the game
        # is the independent unit (clustered_paired_difference), for each run's rate too
        games = by_game.loc[counts.index[i]]
        seats = games["games"].to_numpy(float)
        difference[i], lo[i], hi[i], p_value[i], design_effect[i] = \
            clustered_paired_difference(games["base_only"], games["variant_only"], seats)
        for wins, (low, high) in (("base_wins", (base_lo, base_hi)),
                                  ("variant_wins", (variant_lo, variant_hi))):
            clustered = clustered_by_game(games[wins], seats)
            if clustered:
                low[i], high[i], _ = clustered
    # the interval the difference would have without the pairing (two independent runs):
    # Newcombe's, from the two runs' own intervals (Wilson's, or clustered by game above). A
    # normal interval had no width where a group always or never won in both runs, and the
    # pairing gain then read 0.0x (a review found it)
    unpaired_lo = difference - np.sqrt((pb - variant_lo) ** 2 + (base_hi - pa) ** 2)
    unpaired_hi = difference + np.sqrt((variant_hi - pb) ** 2 + (pa - base_lo) ** 2)
    paired_width = hi - lo
    return pd.DataFrame({
        group: [str(k) for k in counts.index], "games": n, "base_win_rate": pa,
        "variant_win_rate": pb, "difference": difference,
        "paired_ci_low": lo, "paired_ci_high": hi,
        "unpaired_ci_low": unpaired_lo, "unpaired_ci_high": unpaired_hi,
        "p_value": p_value,
        "discordant": base_only + variant_only, "base_only": base_only,
        "variant_only": variant_only,
        # what pairing bought: how many times narrower the paired interval is
        "pairing_gain": np.divide(unpaired_hi - unpaired_lo, paired_width,
                                  out=np.full(len(n), np.nan), where=paired_width > 0),
        "base_ci_low": base_lo, "base_ci_high": base_hi,
        "variant_ci_low": variant_lo, "variant_ci_high": variant_hi,
        # 1 where each game holds the group once; above 1, how much a game's seats move together
        "seats_a_game": seats_a_game.to_numpy(np.int64),
        "game_count": by_game.groupby(level="key", observed=True).size().to_numpy(np.int64),
        "design_effect": design_effect, "own_wins": own_wins})


def _as_won(column):
    """`won` as booleans; 0/1 or bool only (a tie is a win for each winner)."""
    values = column.to_numpy()
    if values.dtype != bool:
        if not np.isin(values, (0, 1)).all():
            raise ValueError("won must be 0/1 or bool")
        values = values.astype(bool)
    return values


def compare_to_baseline(out, baseline, names, player_counts, group="character"):
    """Paired differences of each named variant of an experiment folder against `baseline`, per
    player count, on the games both have finished."""
    identity = "character" if group == "character" else "policy"
    columns = list(dict.fromkeys(["game", "seat", group, identity, "won"]))
    frames = []
    for players in player_counts:
        base = load_variant(out, baseline, players, columns, optional=[OWN_WIN])
        if base is None:
            continue
        for name in names:
            other = load_variant(out, name, players, columns, optional=[OWN_WIN]) \
                if name != baseline else None
            if other is None:
                continue
            # the games both have finished: an interrupted run may lack any chunk, not only
            # its last (chunks are written as they finish, on several workers)
            common = np.intersect1d(base["game"].unique(), other["game"].unique())
            df = paired_differences(base[base["game"].isin(common)],
                                    other[other["game"].isin(common)], group)
            df.insert(0, "variant", name)
            df.insert(1, "players", players)
            df["games_compared"] = len(common)
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
            f"  {r['variant']:<24} p{r['players']} {label}"
            f"{str(int(r[group]) + 1 if group == 'seat' else r[group]):<12} "
            f"{100 * r['base_win_rate']:6.2f}% -> {100 * r['variant_win_rate']:6.2f}%  "
            f"{100 * r['difference']:+6.2f} [{100 * r['paired_ci_low']:+.2f}, "
            f"{100 * r['paired_ci_high']:+.2f}]  (unpaired [{100 * r['unpaired_ci_low']:+.2f}, "
            f"{100 * r['unpaired_ci_high']:+.2f}])  n={r['games']:,}"
            + ("  (each seat's own wins: one run's wins are a team's)"
               if r.get("own_wins", False) else ""))
    return "\n".join(lines)
