"""The First Ascent section of `ascent report`: characters, matchups, score breakdown,
objectives, Summit Beta tokens, the Risk Die, game length and seats.

Every rate carries n and a 95% Wilson interval, every mean a 95% normal interval. A shared
win (F63: tied score and tie-break) counts as a win for each winner; `win_share` splits it.
Inputs are the record tables of sim/games/first_ascent/records.py; no engine import.
"""
import numpy as np
import pandas as pd

from sim.core.stats import Z95, binomial_p_value, holm, wilson_interval
from sim.games.first_ascent.data import PERSONAL_NAMES, SB_NAMES, SHARED_NAMES
from sim.games.first_ascent.records import SB_KEYS

PARTS = ("points_pitches", "points_summits", "points_shared", "points_sets",
         "points_spider_stick", "points_personal")


def _rate(k, n):
    lo, hi = wilson_interval(k, n)
    return {"n": int(n), "count": int(k), "rate": k / n if n else np.nan, "ci_low": lo,
            "ci_high": hi}


def _mean(values):
    v = np.asarray(values, float)
    n = len(v)
    m = float(v.mean()) if n else np.nan
    half = Z95 * float(v.std(ddof=1)) / np.sqrt(n) if n > 1 else np.nan
    return {"n": n, "mean": m, "ci_low": m - half, "ci_high": m + half}


def _ci(df, rate="rate", lo="ci_low", hi="ci_high", pct=True):
    if pct:
        return [f"{100 * r:.1f}% [{100 * a:.1f}, {100 * b:.1f}]" for r, a, b in
                zip(df[rate], df[lo], df[hi])]
    return [f"{r:.2f} [{a:.2f}, {b:.2f}]" for r, a, b in zip(df[rate], df[lo], df[hi])]


def seats_with_players(r):
    s = r.seats
    if "players" not in s.columns:
        s = s.assign(players=r.games.set_index("game")["players"].reindex(s["game"]).to_numpy())
    return s


def character_table(seats):
    """Win rate and mean score per character and player count; the win rate is tested
    against the even share 1/N (Holm across the rows)."""
    rows = []
    for (p, char), grp in seats.groupby(["players", "character"], observed=True):
        row = {"players": int(p), "character": char,
               **_rate(int(grp["won"].sum()), len(grp))}
        m = _mean(grp["score"])
        row.update({"mean_score": m["mean"], "score_ci_low": m["ci_low"],
                    "score_ci_high": m["ci_high"], "even_share": 1 / p,
                    "p_value": binomial_p_value(row["count"], row["n"], 1 / p)})
        rows.append(row)
    out = pd.DataFrame(rows)
    if len(out):
        out["p_holm"] = holm(out["p_value"].to_numpy())
        out["significant"] = out["p_holm"] < 0.05
    return out


def matchup_table(seats):
    """Win rate of the row character in games where the column character also plays."""
    present = seats.groupby("game")["character"].apply(lambda c: set(c.astype(str)))
    rows = []
    chars = sorted(seats["character"].astype(str).unique())
    for a in chars:
        mine = seats[seats["character"].astype(str) == a]
        sets = present.reindex(mine["game"]).to_numpy()
        row = {"character": a}
        for b in chars:
            if a == b:
                row[b] = np.nan
                continue
            mask = np.array([b in s for s in sets])
            n = int(mask.sum())
            row[b] = mine["won"].to_numpy()[mask].mean() if n >= 30 else np.nan
        rows.append(row)
    return pd.DataFrame(rows).set_index("character")


def breakdown_table(seats):
    return seats.groupby("character", observed=True)[list(PARTS) + ["score"]].mean().round(2)


def shared_objective_table(games, seats):
    """Per shared objective: the seats of games where it was in play, how often they scored
    it (points > 0; for The Elitist: kept, points > 0 at the end) and the mean points."""
    rows = []
    for so, name in SHARED_NAMES.items():
        in_play = games.loc[(games[["shared_1", "shared_2", "shared_3"]] == so).any(axis=1),
                            "game"]
        sub = seats[seats["game"].isin(in_play)]
        if not len(sub):
            continue
        pts = sub[f"shared_points_{so}"]
        row = {"objective": f"{so} {name}", **_rate(int((pts > 0).sum()), len(sub))}
        m = _mean(pts)
        row.update({"mean_points": m["mean"], "points_ci_low": m["ci_low"],
                    "points_ci_high": m["ci_high"],
                    "win_rate_if_scored": sub.loc[pts > 0, "won"].mean() if (pts > 0).any()
                    else np.nan})
        rows.append(row)
    return pd.DataFrame(rows)


def personal_objective_table(seats):
    """Per personal objective: the seats holding it, how often it scored (F60: only the best
    fulfilled card scores, so 'scored' means it was the one counted)."""
    rows = []
    for po, name in PERSONAL_NAMES.items():
        held = seats[(seats["personal_1"] == po) | (seats["personal_2"] == po)]
        if not len(held):
            continue
        scored = held["personal_scored"] == po
        row = {"objective": f"{po} {name}", **_rate(int(scored.sum()), len(held))}
        row["win_rate_if_held"] = held["won"].mean()
        rows.append(row)
    return pd.DataFrame(rows)


def summit_beta_table(seats):
    """Per token: how often a seat used it, and the win rate of seats that did vs did not.
    Descriptive: a seat that uses a token also drew it (climbing cards), so this is not the
    token's causal worth; an ablation experiment would measure that."""
    rows = []
    for sb, key in SB_KEYS.items():
        used = seats[f"used_{key}"] > 0
        a = _rate(int(seats.loc[used, "won"].sum()), int(used.sum()))
        b = _rate(int(seats.loc[~used, "won"].sum()), int((~used).sum()))
        rows.append({"token": f"{sb} {SB_NAMES[sb]}", "seats_using": a["n"],
                     "share_using": a["n"] / len(seats), "win_rate_using": a["rate"],
                     "using_ci_low": a["ci_low"], "using_ci_high": a["ci_high"],
                     "win_rate_not_using": b["rate"]})
    return pd.DataFrame(rows)


def risk_table(seats):
    rows = []
    for p, grp in seats.groupby("players"):
        risks = grp["risks"].sum()
        rows.append({"players": int(p), "risks_per_player": grp["risks"].mean(),
                     "risk_share_of_climb_attempts": risks / max(1, risks + grp["climbs"].sum()
                                                                 - risks + grp["risk_retreats"].sum()),
                     "check": grp["risk_check"].sum() / max(1, risks),
                     "minus_2_cards": grp["risk_minus_2_cards"].sum() / max(1, risks),
                     "minus_1_card_1_psych": grp["risk_minus_1_card_1_psych"].sum() / max(1, risks),
                     "retreat_rate": grp["risk_retreats"].sum() / max(1, risks),
                     "card_rolls_per_player": grp["card_rolls"].mean(),
                     "rests_per_player": grp["rests"].mean(),
                     "forced_rests_per_player": grp["forced_rests"].mean()})
    return pd.DataFrame(rows)


def length_table(games):
    rows = []
    for p, grp in games.groupby("players"):
        m = _mean(grp["rounds"])
        row = {"players": int(p), "games": len(grp), "mean_rounds": m["mean"],
               "rounds_ci_low": m["ci_low"], "rounds_ci_high": m["ci_high"],
               "median_rounds": float(grp["rounds"].median())}
        for reason in ("eight_pitches", "stranded", "round_cap", "policy_error"):
            row[reason] = (grp["end_reason"] == reason).mean()
        rows.append(row)
    return pd.DataFrame(rows)


def seat_table(seats):
    rows = []
    for (p, seat), grp in seats.groupby(["players", "seat"]):
        row = {"players": int(p), "seat": int(seat), **_rate(int(grp["won"].sum()), len(grp))}
        row["even_share"] = 1 / p
        row["p_value"] = binomial_p_value(row["count"], row["n"], 1 / p)
        rows.append(row)
    out = pd.DataFrame(rows)
    out["p_holm"] = holm(out["p_value"].to_numpy())
    return out


def _pct(v):
    return "" if pd.isna(v) else f"{100 * v:.1f}%"


def render(page, r, plt):
    """Write the First Ascent section into a render.Page."""
    seats = seats_with_players(r)
    games = r.games
    policies = r.meta.get("seat_policies") or sorted(seats["policy"].astype(str).unique())
    rules = r.meta.get("rules_changed") or {}
    page.h(1, f"First Ascent balance report: {r.label}")
    page.p(f"{len(games):,} games; policies {policies}; player counts "
           f"{sorted(games['players'].unique().tolist())}; rules: "
           f"{'defaults' if not rules else ', '.join(f'{k}={v}' for k, v in rules.items())}; "
           f"master seed {r.meta.get('master_seed', 'see experiment.json')}.")
    page.p("Rules: ../shared/first-ascent/RULES.md with its recommended Decisions unless "
           "listed. Every rate carries n and a 95% Wilson interval; a tied win counts for each "
           "winner. Bot skill matters: these are policies/first_ascent's bots, not people.",
           "note")

    page.h(2, "1. Characters")
    ct = character_table(seats)
    flagged = ct[ct["significant"]] if len(ct) else ct
    for _, row in flagged.iterrows():
        side = "above" if row["rate"] > row["even_share"] else "below"
        page.p(f"{row['character']} ({row['players']} players) wins {100 * row['rate']:.1f}% "
               f"[{100 * row['ci_low']:.1f}, {100 * row['ci_high']:.1f}], {side} the even "
               f"share {100 * row['even_share']:.0f}% (Holm p = {row['p_holm']:.2g}).",
               "finding")
    page.table(ct.assign(win_rate=_ci(ct), mean_score=_ci(ct, "mean_score", "score_ci_low",
                                                          "score_ci_high", pct=False))[
        ["players", "character", "n", "win_rate", "mean_score", "even_share", "p_holm"]],
        "first_ascent_characters", {"even_share": _pct, "p_holm": lambda v: f"{v:.2g}"},
        raw=ct)
    fig, ax = plt.subplots(figsize=(8, 4))
    for p, grp in ct.groupby("players"):
        x = np.arange(len(grp)) + (p - 3.5) * 0.15
        ax.errorbar(x, grp["rate"] * 100, yerr=[(grp["rate"] - grp["ci_low"]) * 100,
                                                 (grp["ci_high"] - grp["rate"]) * 100],
                    fmt="o", capsize=2, label=f"{p} players")
        ax.axhline(100 / p, ls=":", lw=1, color="grey")      # the even share 1/N
        ax.set_xticks(np.arange(len(grp)))
        ax.set_xticklabels(grp["character"], rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("win rate (%)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    page.figure(fig, "first_ascent_characters")

    page.h(2, "2. Matchups")
    page.p("Win rate of the row character in games where the column character also plays "
           "(all player counts pooled; blank below 30 games).", "note")
    mt = matchup_table(seats)
    page.table(mt.reset_index(), "first_ascent_matchups",
               {c: _pct for c in mt.columns}, max_rows=20)

    page.h(2, "3. Score breakdown per character (mean points)")
    page.table(breakdown_table(seats).reset_index(), "first_ascent_breakdown")

    page.h(2, "4. Objectives")
    so = shared_objective_table(games, seats)
    page.p("Shared objectives: seats of the games where the objective was in play; 'rate' "
           "scored it at all.", "note")
    page.table(so.assign(scored=_ci(so))[["objective", "n", "scored", "mean_points",
                                          "win_rate_if_scored"]],
               "first_ascent_shared_objectives",
               {"mean_points": lambda v: f"{v:.2f}", "win_rate_if_scored": _pct}, raw=so)
    po = personal_objective_table(seats)
    page.table(po.assign(scored=_ci(po))[["objective", "n", "scored", "win_rate_if_held"]],
               "first_ascent_personal_objectives", {"win_rate_if_held": _pct}, raw=po)

    page.h(2, "5. Summit Beta tokens")
    page.p("Descriptive, not causal: a seat that used a token also drew it.", "note")
    sb = summit_beta_table(seats)
    page.table(sb, "first_ascent_summit_beta",
               {c: _pct for c in ("share_using", "win_rate_using", "using_ci_low",
                                  "using_ci_high", "win_rate_not_using")})

    page.h(2, "6. The Risk Die and rests")
    page.table(risk_table(seats), "first_ascent_risk",
               {c: _pct for c in ("risk_share_of_climb_attempts", "check", "minus_2_cards",
                                  "minus_1_card_1_psych", "retreat_rate")} |
               {c: (lambda v: f"{v:.2f}") for c in ("risks_per_player",
                                                    "card_rolls_per_player",
                                                    "rests_per_player",
                                                    "forced_rests_per_player")})

    page.h(2, "7. Game length and endings")
    page.table(length_table(games), "first_ascent_length",
               {c: _pct for c in ("eight_pitches", "stranded", "round_cap", "policy_error")})

    page.h(2, "8. Seat advantage")
    if seats["policy"].nunique() > 1 and not r.meta.get("rotate_seats", False):
        page.p("Different policies sit in fixed seats here: a seat effect is also a policy "
               "effect. Use --rotate-seats.", "finding")
    stt = seat_table(seats)
    page.table(stt.assign(win_rate=_ci(stt))[["players", "seat", "n", "win_rate",
                                              "even_share", "p_holm"]],
               "first_ascent_seats", {"even_share": _pct, "p_holm": lambda v: f"{v:.2g}"},
               raw=stt)
