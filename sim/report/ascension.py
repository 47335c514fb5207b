"""The Ascension section of `ascent report`: the numbers of RULES.md §6, as tables and figures.

Every rate carries n and a 95% Wilson interval; every mean a 95% normal interval. Inputs are
the Ascension record tables (sim/games/ascension/records.py); nothing here imports the engine.
"""
import html

import numpy as np
import pandas as pd

from sim.core.stats import Z95, binomial_p_value, holm, wilson_interval

SYMBOLS = ("ladder", "mattress", "spring", "cable_car", "chasm", "bivouac")
USE_COLUMNS = {"ladder": "ladder_climbs", "mattress": "mattress_drops", "spring": "spring_steps",
               "cable_car": "cable_rides", "bivouac": "bivouac_stays", "chasm": "chasm_denials"}
USE_MEANING = {"ladder": "2-hu climbs", "mattress": "2-hu drops", "spring": "spring steps",
               "cable_car": "rides", "bivouac": "stays", "chasm": "steps denied by a chasm"}


def _rate_row(k, n):
    lo, hi = wilson_interval(k, n)
    return {"n": int(n), "count": int(k), "rate": k / n if n else np.nan, "ci_low": lo,
            "ci_high": hi}


def _mean_row(values):
    v = np.asarray(values, float)
    n = len(v)
    m = float(v.mean()) if n else np.nan
    half = Z95 * float(v.std(ddof=1)) / np.sqrt(n) if n > 1 else np.nan
    return {"n": n, "mean": m, "ci_low": m - half, "ci_high": m + half}


def seat_table(games, seats):
    """Win rate by seat per player count, against parity 1/N (Holm across all seats)."""
    players = games.set_index("game")["players"]
    s = seats.assign(players=players.reindex(seats["game"]).to_numpy())
    rows = []
    for (p, seat), grp in s.groupby(["players", "seat"]):
        row = {"players": int(p), "seat": int(seat), **_rate_row(int(grp["won"].sum()), len(grp))}
        row["parity"] = 1 / p
        row["p_value"] = binomial_p_value(row["count"], row["n"], 1 / p)
        rows.append(row)
    out = pd.DataFrame(rows)
    if not out.empty:
        out["p_holm"] = holm(out["p_value"].to_numpy())
        out["significant"] = out["p_holm"] < 0.05
    return out


def policy_table(games, seats):
    """Win rate by policy (mixed tables), per player count."""
    players = games.set_index("game")["players"]
    s = seats.assign(players=players.reindex(seats["game"]).to_numpy())
    rows = []
    for (p, pol), grp in s.groupby(["players", "policy"], observed=True):
        rows.append({"players": int(p), "policy": str(pol),
                     **_rate_row(int(grp["won"].sum()), len(grp))})
    return pd.DataFrame(rows)


def ending_table(games):
    """How games end (win, cap, all eliminated), per player count."""
    rows = []
    for p, grp in games.groupby("players"):
        for reason in ("win", "cap", "all_eliminated"):
            rows.append({"players": int(p), "end": reason,
                         **_rate_row(int((grp["end_reason"] == reason).sum()), len(grp))})
    return pd.DataFrame(rows)


def length_table(games):
    """Turns to the first summit and to the end, per player count (§6 Q2)."""
    rows = []
    for p, grp in games.groupby("players"):
        won = grp[grp["end_reason"] == "win"]
        summit = grp[grp["first_summit_turn"] >= 0]
        rows.append({"players": int(p), "games": len(grp),
                     "turns_mean": grp["turns"].mean(), "turns_median": grp["turns"].median(),
                     "turns_p90": grp["turns"].quantile(0.9),
                     "win_turns_median": won["turns"].median() if len(won) else np.nan,
                     "first_summit_median": summit["first_summit_turn"].median()
                     if len(summit) else np.nan,
                     "no_summit_rate": 1 - len(summit) / len(grp)})
    return pd.DataFrame(rows)


def first_summiter_table(games):
    """P(win | first to summit) (§6 Q3), and how often the privileges change hands."""
    rows = []
    for p, grp in games.groupby("players"):
        summited = grp[grp["first_summit_seat"] >= 0]
        row = {"players": int(p),
               **_rate_row(int(summited["winner_first_summiter"].sum()), len(summited))}
        row["games_with_summit"] = len(summited)
        row["privilege_lost_rate"] = (grp["privilege_losses"] > 0).mean()
        row["privilege_passed_rate"] = (grp["privilege_passes"] > 0).mean()
        rows.append(row)
    return pd.DataFrame(rows)


def blocking_table(games, seats):
    """Blocks and eliminations by race phase, per player count (§6 Q4)."""
    players = games.set_index("game")["players"]
    s = seats.assign(players=players.reindex(seats["game"]).to_numpy())
    rows = []
    for p, grp in s.groupby("players"):
        n = len(grp)
        row = {"players": int(p), "seat_games": n}
        for phase in ("ascent", "summit", "descent"):
            row[f"blocks_{phase}_per_seat"] = grp[f"blocks_{phase}"].mean()
        blocked = grp["blocks"] > 0
        row.update({f"blocked_{k}": v for k, v in _rate_row(int(blocked.sum()), n).items()
                    if k in ("rate", "ci_low", "ci_high")})
        elim = grp["eliminated"]
        row.update({f"eliminated_{k}": v for k, v in _rate_row(int(elim.sum()), n).items()
                    if k in ("rate", "ci_low", "ci_high")})
        for phase in ("ascent", "summit", "descent"):
            row[f"eliminated_in_{phase}"] = int((grp["elimination_phase"] == phase).sum())
        once = grp[grp["blocks"] == 1]
        never = grp[grp["blocks"] == 0]
        row["win_rate_blocked_once"] = once["won"].mean() if len(once) else np.nan
        row["n_blocked_once"] = len(once)
        row["win_rate_never_blocked"] = never["won"].mean() if len(never) else np.nan
        row["n_never_blocked"] = len(never)
        rows.append(row)
    return pd.DataFrame(rows)


def specials_table(games, seats):
    """How often each special cube is revealed (placed face up) and used, per game (§6 Q5)."""
    uses = seats.groupby("game")[[c for c in USE_COLUMNS.values()]].sum()
    rows = []
    for p, grp in games.groupby("players"):
        u = uses.reindex(grp["game"])
        for sym in SYMBOLS:
            rev = _mean_row(grp[f"reveals_{sym}"])
            use = _mean_row(u[USE_COLUMNS[sym]].to_numpy())
            rows.append({"players": int(p), "symbol": sym, "games": rev["n"],
                         "reveals_per_game": rev["mean"],
                         "reveals_ci": (rev["ci_low"], rev["ci_high"]),
                         "games_with_reveal": (grp[f"reveals_{sym}"] > 0).mean(),
                         "use": USE_MEANING[sym], "uses_per_game": use["mean"],
                         "uses_ci": (use["ci_low"], use["ci_high"])})
    return pd.DataFrame(rows)


def player_count_table(games, seats):
    """2 vs 3 vs 4 players side by side (§6 Q8)."""
    st = seat_table(games, seats)
    rows = []
    for p, grp in games.groupby("players"):
        skew = st[st["players"] == p]["rate"]
        rows.append({"players": int(p), "games": len(grp),
                     "turns_median": grp["turns"].median(),
                     "cap_rate": (grp["end_reason"] == "cap").mean(),
                     "all_eliminated_rate": (grp["end_reason"] == "all_eliminated").mean(),
                     "seat_spread": float(skew.max() - skew.min()) if len(skew) else np.nan,
                     "blocks_per_game": grp["blocks"].mean(),
                     "eliminations_per_game": grp["eliminations"].mean(),
                     "pillar_raises_per_game": grp["pillar_raises"].mean(),
                     "tallest_stack_mean": grp["tallest_stack"].mean()})
    return pd.DataFrame(rows)


def _pct(v):
    return "" if pd.isna(v) else f"{100 * v:.1f}%"


def _ci(df, rate="rate", lo="ci_low", hi="ci_high"):
    return [f"{100 * r:.1f}% [{100 * a:.1f}, {100 * b:.1f}]" for r, a, b in
            zip(df[rate], df[lo], df[hi])]


def render(page, r, plt):
    """Write the Ascension section into a render.Page."""
    games, seats = r.games, r.seats
    policies = r.meta.get("seat_policies") or sorted(seats["policy"].astype(str).unique())
    page.h(1, f"Ascension balance report: {r.label}")
    rules = r.meta.get("rules_changed") or r.meta.get("rules") or {}
    page.p(f"{len(games):,} games; policies {policies}; player counts "
           f"{sorted(games['players'].unique().tolist())}; rules: "
           f"{'defaults' if not rules else ', '.join(f'{k}={v}' for k, v in rules.items())}; "
           f"master seed {r.meta.get('master_seed', 'see experiment.json')}.")
    page.p("Rules: ../shared/ascension/RULES.md with its §5 defaults unless listed. Every rate "
           "carries n and a 95% Wilson interval. Bot skill matters: these are the §7 bots of "
           "policies/ascension, not people.", "note")

    page.h(2, "1. Seat advantage (§6 Q1)")
    st = seat_table(games, seats)
    page.table(st.assign(win_rate=_ci(st))[["players", "seat", "n", "win_rate", "parity",
                                            "p_holm", "significant"]], "ascension_seats",
               {"parity": _pct, "p_holm": lambda v: f"{v:.2g}"}, raw=st)
    fig, ax = plt.subplots(figsize=(7, 3))
    for p, grp in st.groupby("players"):
        ax.errorbar(grp["seat"] + (p - 3) * 0.08, grp["rate"] * 100,
                    yerr=[(grp["rate"] - grp["ci_low"]) * 100, (grp["ci_high"] - grp["rate"]) * 100],
                    fmt="o", label=f"{p} players", capsize=3)
        ax.axhline(100 / p, ls=":", lw=1, color="grey")
    ax.set_xlabel("seat (0 plays first)")
    ax.set_ylabel("win rate (%)")
    ax.legend(fontsize=8)
    page.figure(fig, "ascension_seats")
    if seats["policy"].nunique() > 1:
        pt = policy_table(games, seats)
        page.h(3, "Win rate by policy")
        page.table(pt.assign(win_rate=_ci(pt))[["players", "policy", "n", "win_rate"]],
                   "ascension_policies", raw=pt)

    page.h(2, "2. Game length, caps and stalls (§6 Q2)")
    et = ending_table(games)
    page.table(et.assign(share=_ci(et))[["players", "end", "n", "share"]], "ascension_endings",
               raw=et)
    lt = length_table(games)
    page.table(lt, "ascension_length", {"turns_mean": lambda v: f"{v:.1f}",
                                        "no_summit_rate": _pct})
    fig, ax = plt.subplots(figsize=(7, 3))
    for p, grp in games.groupby("players"):
        ax.hist(grp["turns"], bins=60, histtype="step", label=f"{p} players")
    ax.set_xlabel("turns (normal, extra and bonus)")
    ax.set_ylabel("games")
    ax.legend(fontsize=8)
    page.figure(fig, "ascension_length")

    page.h(2, "3. The first summiter (§6 Q3)")
    ft = first_summiter_table(games)
    page.table(ft.assign(p_win_given_first=_ci(ft))[
        ["players", "games_with_summit", "p_win_given_first", "privilege_lost_rate",
         "privilege_passed_rate"]], "ascension_first_summiter",
        {"privilege_lost_rate": _pct, "privilege_passed_rate": _pct}, raw=ft)

    page.h(2, "4. Blocks and eliminations (§6 Q4)")
    bt = blocking_table(games, seats)
    page.table(bt, "ascension_blocking", {c: (lambda v: f"{v:.3f}") for c in bt.columns
                                          if c.endswith("per_seat")} |
               {c: _pct for c in bt.columns if c.startswith(("blocked_", "eliminated_r",
                                                             "eliminated_ci", "win_rate_"))})

    page.h(2, "5. Special cubes (§6 Q5)")
    sp = specials_table(games, seats)
    page.p("A reveal is a placement face up; a use is the symbol's effect on a pawn (a chasm's "
           "'use' is a neighbouring step it denied at a pawn phase). For each cube's effect on "
           "the outcome, run experiments/ascension/specials.toml and compare variants.", "note")
    shown = sp.assign(reveals=[f"{m:.2f} [{a:.2f}, {b:.2f}]" for m, (a, b)
                               in zip(sp["reveals_per_game"], sp["reveals_ci"])],
                      uses=[f"{m:.2f} [{a:.2f}, {b:.2f}]" for m, (a, b)
                            in zip(sp["uses_per_game"], sp["uses_ci"])])
    page.table(shown[["players", "symbol", "games", "reveals", "games_with_reveal", "use",
                      "uses"]], "ascension_specials", {"games_with_reveal": _pct},
               raw=sp.drop(columns=["reveals_ci", "uses_ci"]))

    page.h(2, "6. Player count (§6 Q8)")
    pc = player_count_table(games, seats)
    page.table(pc, "ascension_player_count",
               {"cap_rate": _pct, "all_eliminated_rate": _pct, "seat_spread": _pct,
                "blocks_per_game": lambda v: f"{v:.2f}",
                "eliminations_per_game": lambda v: f"{v:.2f}",
                "pillar_raises_per_game": lambda v: f"{v:.2f}",
                "tallest_stack_mean": lambda v: f"{v:.1f}"})
    page.parts.append(f"<p class='note'>{html.escape('Tables are also in tables/*.csv.')}</p>")
