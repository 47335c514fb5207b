"""The numbers on a report's first screen, the same for every game: who wins against the
effective parity, the seat advantage, and the top findings of each family, with the error
controlled across the whole screen.

Effective parity. Some games end without a winner (a round cap) and some with several (a tie,
First Ascent F63). A seat's *win share* counts a k-way tie as 1/k of a win; under a fair game
every seat's expected share is (share of decided games) / players, not 1/players. Testing
against 1/players flags every character "under" as soon as a few games have no winner, and the
direction of a real effect can flip.

One screen, one error budget. The first screen draws findings from several families
(characters, seats, milestone draws or boards, gear or cards). Holm within each family alone let
some family flag in 18% of fair runs; here every test of every family on the screen goes into one
Holm correction, so the chance that a fair game shows any finding stays at most 5% (Holm holds
under any dependence between the tests, as long as each p-value is valid).
"""
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sim.core.stats import (Z95, binomial_p_value, clustered_ratio_variance, holm,
                            wilson_interval)

ALPHA = 0.05
TOP_PER_FAMILY = 3


def win_shares(games, seats):
    """seats plus `players`, `share` (1/k for each of k winners) and `decided` (the game has a
    winner); needs seats' `game` and `won` and games' `game` and `players`."""
    players = games.set_index("game")["players"]
    winners = seats.groupby("game")["won"].transform("sum").to_numpy()
    won = seats["won"].to_numpy().astype(bool)
    share = np.where(won, 1.0 / np.maximum(winners, 1), 0.0)
    return seats.assign(players=players.reindex(seats["game"]).to_numpy(), share=share,
                        decided=winners > 0)


def share_p_value(shares, parity):
    """Two-sided test of a mean win share against `parity`: exact binomial when no seat shared a
    win (shares are 0 or 1), else a normal test on the shares (ties are rare; the normal test
    keeps the share's own variance)."""
    shares = np.asarray(shares, float)
    n = len(shares)
    if n == 0:
        return np.nan
    if np.all((shares == 0) | (shares == 1)):
        return binomial_p_value(int(shares.sum()), n, parity)
    sd = shares.std(ddof=1) if n > 1 else 0.0
    if sd == 0:
        return np.nan     # every share alike (a game or two of ties): nothing to test with
    from math import erfc, sqrt
    z = (shares.mean() - parity) / (sd / sqrt(n))
    return erfc(abs(z) / sqrt(2.0))


def parity_table(games, seats, group):
    """Per player count and `group` (character, seat, policy): seats n, wins, the win share with a
    95% Wilson interval (its total of shares as the count), the effective parity and the share
    minus parity (`effect`), and an uncorrected two-sided p-value against that parity.

    A group with several seats in a game (a bot twice at the table, or partners) keeps
    Wilson's interval on its seats, which is safe: a game's shares add up to at most 1, so the
    variance of a group's share pooled by game, var(s_i) / (m^2 g) with s_i its share of game
    i, m seats in each of g games and rate r, is at most m r (1 - m r) / (m^2 g) =
    r (1 - m r) / (m g), under the binomial r (1 - r) / (m g) that the interval takes; so is
    the exact binomial test where every share is 0 or 1. Shared wins (ties, partners) are
    tested on the shares' own variance, which the seats of one game would understate (two
    partners' halves are one draw, not two): there the test takes the game as the unit
    (clustered_share_p_value)."""
    s = win_shares(games, seats)
    decided = s.groupby("game").agg(players=("players", "first"), decided=("decided", "first")) \
        .groupby("players")["decided"].mean()
    several = set(s.loc[s.duplicated(["game", group], keep=False), group])
    rows = []
    for (players, key), grp in s.groupby(["players", group], observed=True):
        n = len(grp)
        shares = grp["share"].to_numpy()
        total = float(shares.sum())
        parity = float(decided.loc[players]) / players
        lo, hi = wilson_interval(total, n)
        if parity <= 0:
            # no decided game at this player count: a share of 0 against a parity of 0 is no
            # test, and counted as one it would widen the screen's Holm family for nothing
            p = np.nan
        elif key in several and not np.all((shares == 0) | (shares == 1)):
            per_game = grp.groupby("game")["share"].agg(["sum", "size"])
            p = clustered_share_p_value(per_game["sum"].to_numpy(float),
                                        per_game["size"].to_numpy(float), parity)
        else:
            p = share_p_value(shares, parity)
        rows.append({"players": int(players), group: key, "n": n,
                     "wins": int(grp["won"].sum()), "share": total / n, "ci_low": float(lo),
                     "ci_high": float(hi), "parity": parity, "effect": total / n - parity,
                     "p": p})
    return pd.DataFrame(rows)


def clustered_share_p_value(shares, seats, parity):
    """share_p_value with the game as the unit: per game, a group's share summed over its
    seats there, and its seats. A normal test of the pooled share, sum(shares) / sum(seats),
    against `parity`, at the cluster-robust variance of a ratio (clustered_rate_interval's)."""
    from math import erfc, sqrt
    k = len(seats)
    rate = shares.sum() / seats.sum()
    variance = clustered_ratio_variance(shares, seats)
    if variance == 0:
        # every game alike: a team that won every game is tested on its games, at parity
        # times its seats; shares alike in some other way leave nothing to test with
        if np.all((shares == 0) | (shares == 1)) and np.all(seats == seats[0]) and \
                parity * seats[0] <= 1:
            return binomial_p_value(int(shares.sum()), k, parity * seats[0])
        return np.nan
    return erfc(abs(rate - parity) / sqrt(variance) / sqrt(2.0))


def within_group_association(seats, flags, group=("players", "character")):
    """For each boolean column in `flags` (owns a card, used a token): how much more often seats
    with the flag win than seats without it *playing the same character*, and the
    Cochran-Mantel-Haenszel test of no association given the character (statsmodels).

    Comparing all owners with all non-owners mostly measures who buys: a character that never
    buys access gear and wins 74% makes every access card look like a 60-point loser. Within a
    character that confounding is gone; what remains (strong players buy more) is still an
    association, not the card's effect. The strata are the player count and the character
    (both move win rates and buying). `effect` is the Mantel-Haenszel risk difference; a
    stratum where everyone or no one has the flag carries no information and is left out."""
    from statsmodels.stats.contingency_tables import StratifiedTable
    won = seats["won"].to_numpy().astype(bool)
    # one pass over the seats for every flag: wins and losses with the flag, per stratum
    counts = {"won": won, "lost": ~won}
    for i, flag in enumerate(flags):
        has = seats[flag].to_numpy().astype(bool)
        counts[f"a{i}"] = has & won
        counts[f"b{i}"] = has & ~won
    strata = pd.DataFrame(counts).groupby([seats[g].to_numpy() for g in group]).sum()
    rows = []
    for i, flag in enumerate(flags):
        a, b = strata[f"a{i}"].to_numpy(float), strata[f"b{i}"].to_numpy(float)
        c, d = strata["won"].to_numpy(float) - a, strata["lost"].to_numpy(float) - b
        n1, n0 = a + b, c + d
        keep = (n1 > 0) & (n0 > 0)
        a, b, c, d, n1, n0 = (x[keep] for x in (a, b, c, d, n1, n0))
        total = n1 + n0
        weight = (n1 * n0 / total).sum()
        effect = ((a * n0 - c * n1) / total).sum() / weight if weight > 0 else np.nan
        lo, hi = mantel_haenszel_difference_interval(effect, a, n1, c, n0)
        p = np.nan
        # each 2x2 table needs a win and a loss to carry information on the association
        informative = (a + c > 0) & (b + d > 0)
        if informative.any():
            tables = np.stack([np.stack([a, b], -1), np.stack([c, d], -1)], 1)[informative]
            p = float(StratifiedTable(np.moveaxis(tables, 0, -1))
                      .test_null_odds(correction=False).pvalue)
        # the comparison rests on the unflagged seats of strata that hold both kinds
        rows.append({"flag": flag, "flagged_seats": int(n1.sum()),
                     "compared_seats": int(n0.sum()), "effect": effect,
                     "ci_low": lo, "ci_high": hi, "p": p, "strata": int(keep.sum())})
    return pd.DataFrame(rows)


def mantel_haenszel_difference_interval(effect, x1, n1, x0, n0, z=Z95):
    """95% interval of a Mantel-Haenszel risk difference `effect` over strata with x1 wins of n1
    flagged seats and x0 of n0 others: Sato's variance (Sato 1989, Biometrics 45:1323-1324),
    valid both for many sparse strata and for a few large ones; with one stratum it is the
    Wald variance of p1 - p0. Like Wald's, it has no width where a group won all or none of
    its games (3 of 3 owners gave +75.0 [+72.3, +77.7]): the half-width is the larger of
    Sato's and Sato's on counts with one win and one loss added to each group of each stratum
    (Agresti and Caffo's adjustment), and the interval is clipped to [-1, 1].
    tests/test_stats_known_truth.py checks its coverage."""
    if not np.isfinite(effect) or not (n1 * n0 / (n1 + n0)).sum() > 0:
        return np.nan, np.nan
    half = max(_sato_half_width(effect, x1, n1, x0, n0, z),
               _sato_half_width(effect, x1 + 1, n1 + 2, x0 + 1, n0 + 2, z))
    return max(-1.0, effect - half), min(1.0, effect + half)


def _sato_half_width(effect, x1, n1, x0, n0, z):
    total = n1 + n0
    weight = (n1 * n0 / total).sum()
    p = ((n1 * n1 * x0 - n0 * n0 * x1 + n1 * n0 * (n0 - n1) / 2) / (total * total)).sum()
    q = ((x1 * (n0 - x0) + x0 * (n1 - x1)) / (2 * total)).sum()
    return z * np.sqrt(max(effect * p + q, 0.0)) / weight


@dataclass
class Family:
    """One family of first-screen tests. `table` has one row per test with `p` (uncorrected;
    NaN = not tested), `effect` (signed, in rate units) and `finding` (the sentence shown when
    the row is significant). `screen_holm` adds `p_screen` and `significant`."""
    name: str
    table: pd.DataFrame
    unit: str = "points"
    untested_note: str = ""

    @property
    def tests(self):
        return int(self.table["p"].notna().sum()) if len(self.table) else 0


def screen_holm(families):
    """One Holm correction across every test of every family; returns the number of tests."""
    pooled = np.concatenate([f.table["p"].to_numpy(float) for f in families if len(f.table)]
                            or [np.zeros(0)])
    adjusted = holm(pooled)
    at = 0
    for f in families:
        k = len(f.table)
        if k:
            f.table = f.table.assign(p_screen=adjusted[at:at + k])
            f.table["significant"] = f.table["p_screen"] < ALPHA
        at += k
    return int(np.isfinite(pooled).sum())


def correction_note(families, total):
    """What the screen-wide correction covered, for every family's table."""
    parts = ", ".join(f"{f.name} {f.tests:,}" for f in families)
    return (f"p_screen: Holm across all {total:,} tests of the first screen ({parts}); "
            f"significant = p_screen < {ALPHA:g}.")


def top_rows(family, k=TOP_PER_FAMILY):
    """The family's k largest significant rows (their `finding` is the sentence shown)."""
    if not len(family.table):
        return family.table
    sig = family.table[family.table["significant"].fillna(False).astype(bool)]
    return sig.reindex(sig["effect"].abs().sort_values(ascending=False).index).head(k)


def top_findings(family, k=TOP_PER_FAMILY):
    return list(top_rows(family, k)["finding"]) if len(family.table) else []


def fmt_p(p):
    """A p-value for reading: never a bare 0 (a p below float range prints as a bound)."""
    if p is None or not np.isfinite(p):
        return "not tested"
    if p < 1e-300:
        return "< 1e-300"
    if p < 0.001:
        return f"{p:.1e}"
    return f"{p:.3f}" if p < 0.1 else f"{p:.2f}"


def p_clause(p):
    """'p_screen = 0.003' or 'p_screen < 1e-300'."""
    text = fmt_p(p)
    return f"p_screen {text}" if text.startswith("<") else f"p_screen = {text}"


def pct(v, digits=1):
    return "–" if v is None or not np.isfinite(v) else f"{100 * v:.{digits}f}%"


def pct_interval(rate, lo, hi, digits=1):
    """'12.3% [11.0, 13.7]', or '–' when there is nothing to estimate (n = 0)."""
    if not np.isfinite(rate):
        return "–"
    if 0 < hi < 0.01:          # a rare event: enough digits that the upper bound is not "0.0"
        digits = max(digits, 2 if hi >= 0.001 else 3)
    if 0.99 < lo < 1:          # a near-certain one: nor the lower bound "100.0"
        digits = max(digits, 2 if lo <= 0.999 else 3)
    return f"{100 * rate:.{digits}f}% [{100 * lo:.{digits}f}, {100 * hi:.{digits}f}]"


def pct_ci(df, rate="rate", lo="ci_low", hi="ci_high", digits=1):
    """pct_interval for every row of df: its rate and the rate's 95% interval, by column."""
    return [pct_interval(r, a, b, digits) for r, a, b in zip(df[rate], df[lo], df[hi])]


def points_ci(df, value, lo, hi):
    """points_interval for every row of df, by column; '–' where there is no estimate."""
    return [points_interval(v, a, b) if np.isfinite(v) else "–"
            for v, a, b in zip(df[value], df[lo], df[hi])]


def points(v, digits=1):
    """A signed difference of rates in percentage points; never '+0' for a nonzero value."""
    if not np.isfinite(v):
        return "–"
    text = f"{100 * v:+.{digits}f}"
    if v != 0 and float(text) == 0:
        text = f"{100 * v:+.{digits + 2}f}"
    return text


def points_triple(v, lo, hi, digits=1):
    """A difference and its interval in percentage points, as three strings written to one
    number of digits (each written on its own, -0.05 [-0.08, -0.03] read '-0.1 [-0.1,
    -0.027]'): enough digits for the interval's width to show, at most 4. A bound nearer 0
    than the last digit reads '+0.0' or '-0.0': its sign says on which side of 0 it lies."""
    if np.isfinite(lo) and np.isfinite(hi) and hi > lo:
        digits = max(digits, min(4, math.ceil(-math.log10(100 * (hi - lo)))))
    return tuple(f"{100 * x:+.{digits}f}" if np.isfinite(x) else "–" for x in (v, lo, hi))


def points_interval(v, lo, hi, digits=1):
    """'-0.05 [-0.08, -0.03]': points_triple as the pages print a difference."""
    d, low, high = points_triple(v, lo, hi, digits)
    return f"{d} [{low}, {high}]"


def parity_family(name, table, label, players_counts):
    """A Family from a parity_table: 'X wins 12.3% [..] of decided-game shares against a
    parity of 20.0% (-7.7 points, n = 4,000)'."""
    if not len(table):
        return Family(name, table.assign(finding=[]) if len(table.columns) else
                      pd.DataFrame(columns=["p", "effect", "finding"]))
    several = len(players_counts) > 1
    findings = []
    for row in table.itertuples():
        where = f" with {row.players} players" if several else ""
        word = "above" if row.effect > 0 else "below"
        findings.append(
            f"{label(row)}{where} wins {pct_interval(row.share, row.ci_low, row.ci_high)}: "
            f"{abs(100 * row.effect):.1f} points {word} parity {pct(row.parity)} "
            f"(n = {row.n:,}, {{p}})")
    return Family(name, table.assign(finding=findings))


def finalize_findings(families):
    """Fill each finding's corrected p-value in."""
    for f in families:
        if len(f.table):
            f.table["finding"] = [text.replace("{p}", p_clause(p)) if "{p}" in text else text
                                  for text, p in zip(f.table["finding"], f.table["p_screen"])]


def seat_spread(by_seat, best, worst):
    """The spread between two seats picked by the data (the largest and the smallest share):
    by_seat holds a game's share per seat, a column per seat, so the difference is paired on
    the same games. Returns (mean, low, high): a normal interval at 95% over every pair of
    seats at once (Bonferroni over the k(k-1)/2 pairs), so that it also holds for the pair the
    data picked; a plain 95% interval for the largest minus the smallest excluded 0 in about
    one fair 4-seat run in five."""
    from statistics import NormalDist
    diff = (by_seat[best] - by_seat[worst]).to_numpy(float)
    k = by_seat.shape[1]
    n = len(diff)
    if n < 2:
        return (float(diff.mean()) if n else np.nan), np.nan, np.nan
    z = NormalDist().inv_cdf(1 - 0.05 / (2 * max(1, k * (k - 1) // 2)))
    half = z * float(diff.std(ddof=1)) / math.sqrt(n)
    mean = float(diff.mean())
    return mean, mean - half, mean + half


def seat_advantage_lines(seat_table, games, seats):
    """Per player count: the best and the worst seat's win share with its n (games), their
    spread with its interval paired on the same games (seat_spread), and
    whether any seat differs from parity after the screen-wide correction."""
    shares = win_shares(games, seats)
    lines = []
    for players, grp in seat_table.groupby("players"):
        if not (grp["parity"] > 0).any():
            lines.append(f"{players} players: no game had a winner, so there is no seat "
                         f"advantage to measure.")
            continue
        best = grp.loc[grp["share"].idxmax()]
        worst = grp.loc[grp["share"].idxmin()]
        by_seat = shares[shares["players"] == players].pivot(index="game", columns="seat",
                                                              values="share")
        spread, low, high = seat_spread(by_seat, best["seat"], worst["seat"])
        sig = grp["significant"].fillna(False).astype(bool)
        verdict = (f"{int(sig.sum())} of {len(grp)} seats "
                   f"{'differs' if sig.sum() == 1 else 'differ'} from parity (p_screen < "
                   f"{ALPHA:g})") if sig.any() else "no seat differs significantly from parity"
        lines.append(
            f"{players} players: seat {int(best['seat']) + 1} wins "
            f"{pct_interval(best['share'], best['ci_low'], best['ci_high'])} and seat "
            f"{int(worst['seat']) + 1} "
            f"{pct_interval(worst['share'], worst['ci_low'], worst['ci_high'])} of "
            f"{int(best['n']):,} games each (spread "
            f"{points_interval(spread, low, high)} points, paired on the same games, the "
            f"interval over every pair of seats; effective parity {pct(best['parity'])}); "
            f"{verdict}.")
    return lines


def decided_line(games, seats, team=1):
    """How many games had no winner and how many winners a decided game had: the basis of the
    effective parity. `team`: the seats one win makes winners (2 where partners win together,
    Ascension's A48), so that a team's win is not read as a tie."""
    s = win_shares(games, seats)
    per_game = s.groupby("game")["won"].sum()
    n = len(per_game)
    none = int((per_game == 0).sum())
    lo, hi = wilson_interval(none, n)
    tied = int((per_game > team).sum())
    text = (f"{n:,} game{'s' if n != 1 else ''}; {none:,} without a winner "
            f"({pct_interval(none / n if n else np.nan, lo, hi)})")
    if team > 1 and none < n:
        text += f"; every win is a team's, shared equally by its {team} partners"
    if tied:
        text += f", {tied:,} with a shared win (each winner gets an equal share)"
    return text + "."


def seats_and_bots_screen(r):
    """The first screen of a game without characters, Holm-corrected together: seats against
    the effective parity (share of decided games / players), and, at a mixed table, each bot
    against it."""
    from sim.report.analysis import Screen
    seats = parity_table(r.games, r.seats, "seat")
    counts = sorted(seats["players"].unique().tolist())
    families = [parity_family("seats", seats, lambda row: f"Seat {int(row.seat) + 1}", counts)]
    if r.seats["policy"].nunique() > 1:
        bots = parity_table(r.games, r.seats.assign(policy=r.seats["policy"].astype(str)),
                            "policy")
        families.insert(0, parity_family("bots", bots, lambda row: str(row.policy), counts))
    total = screen_holm(families)
    finalize_findings(families)
    return Screen(families, total)
