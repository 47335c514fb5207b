"""The First Ascent section of `ascent report`: characters, matchups, score breakdown,
objectives, Summit Beta tokens, the Risk Die, game length and seats.

Every rate carries n and a 95% Wilson interval, every mean a 95% normal interval. A shared
win (F63: tied score and tie-break) counts as a win for each winner; `win_share` splits it.
Inputs are the record tables of sim/games/first_ascent/records.py; no engine import.
"""
import numpy as np
import pandas as pd

from sim.core.stats import binomial_p_value, holm, mean_row, rate_row
from sim.games.first_ascent.data import (CHARACTER_NAME_OF_KEY, PERSONAL_NAMES, SB_NAMES,
                                         SHARED_NAMES)
from sim.report import first_screen as FS
from sim.games.first_ascent.records import SB_KEYS

PARTS = ("points_pitches", "points_summits", "points_shared", "points_sets",
         "points_spider_stick", "points_personal")


def _ci(df, rate="rate", lo="ci_low", hi="ci_high", pct=True):
    if pct:
        return [FS.pct_interval(r, a, b) for r, a, b in zip(df[rate], df[lo], df[hi])]
    return [f"{r:.2f} [{a:.2f}, {b:.2f}]" if np.isfinite(r) and np.isfinite(a) else
            (f"{r:.2f}" if np.isfinite(r) else "–") for r, a, b in zip(df[rate], df[lo], df[hi])]


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
               **rate_row(int(grp["won"].sum()), len(grp))}
        m = mean_row(grp["score"])
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
    return seats.groupby("character", observed=True)[list(PARTS) + ["score"]].mean().round(2) \
        .sort_values("score", ascending=False)


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
        row = {"objective": f"{so} {name}", **rate_row(int((pts > 0).sum()), len(sub))}
        m = mean_row(pts)
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
        row = {"objective": f"{po} {name}", **rate_row(int(scored.sum()), len(held))}
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
        a = rate_row(int(seats.loc[used, "won"].sum()), int(used.sum()))
        b = rate_row(int(seats.loc[~used, "won"].sum()), int((~used).sum()))
        rows.append({"token": f"{sb} {SB_NAMES[sb]}", "seats_using": a["n"],
                     "share_using": a["n"] / len(seats), "win_rate_using": a["rate"],
                     "using_ci_low": a["ci_low"], "using_ci_high": a["ci_high"],
                     "win_rate_not_using": b["rate"], "wins_using": a["count"],
                     "seats_not_using": b["n"], "wins_not_using": b["count"]})
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
        m = mean_row(grp["rounds"])
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
        row = {"players": int(p), "seat": int(seat), **rate_row(int(grp["won"].sum()), len(grp))}
        row["even_share"] = 1 / p
        row["p_value"] = binomial_p_value(row["count"], row["n"], 1 / p)
        rows.append(row)
    out = pd.DataFrame(rows)
    out["p_holm"] = holm(out["p_value"].to_numpy())
    return out


def _pct(v):
    return "" if pd.isna(v) else f"{100 * v:.1f}%"


NAMES = CHARACTER_NAME_OF_KEY


def screen(r):
    """The first screen's families, Holm-corrected together: characters and seats against the
    effective parity (a tied win counts as a share), and the Summit Beta tokens (association
    of using one with winning, Fisher's exact test)."""
    from sim.report.analysis import Screen
    chars = FS.parity_table(r.games, r.seats, "character")
    chars["character"] = chars["character"].astype(str)
    counts = sorted(chars["players"].unique().tolist())
    fam_chars = FS.parity_family("characters", chars,
                                 lambda row: NAMES.get(row.character, row.character), counts)
    seats = FS.parity_table(r.games, r.seats, "seat")
    fam_seats = FS.parity_family("seats", seats, lambda row: f"Seat {int(row.seat) + 1}", counts)
    tokens = summit_beta_table(seats_with_players(r))
    if len(tokens):
        seats = seats_with_players(r)
        used = seats.assign(**{f"uses_{key}": seats[f"used_{key}"] > 0
                               for key in SB_KEYS.values()})
        within = FS.within_group_association(used, [f"uses_{key}" for key in SB_KEYS.values()])
        tokens = tokens.assign(p=within["p"].to_numpy(), effect=within["effect"].to_numpy(),
                               effect_ci_low=within["ci_low"].to_numpy(),
                               effect_ci_high=within["ci_high"].to_numpy(),
                               compared_using=within["flagged_seats"].to_numpy(),
                               compared_seats=within["compared_seats"].to_numpy())
        tokens["finding"] = [
            f"Seats that used {row.token} win {abs(100 * row.effect):.1f} points "
            f"{'more' if row.effect > 0 else 'less'} than others of the same character "
            f"({FS.points_interval(row.effect, row.effect_ci_low, row.effect_ci_high)}; all "
            f"users {FS.pct(row.win_rate_using)}, all others {FS.pct(row.win_rate_not_using)}); an "
            f"association, not the token's worth (n = {row.compared_using:,} seats against "
            f"{row.compared_seats:,} of their characters that did not, {{p}})"
            for row in tokens.itertuples()]
    fam_tokens = FS.Family("Summit Beta tokens", tokens)
    families = [fam_chars, fam_seats, fam_tokens]
    total = FS.screen_holm(families)
    FS.finalize_findings(families)
    return Screen(families, total)


def render(page, r, plt):
    """Write the First Ascent report into a render.Page: the shared first screen, then the
    details."""
    from sim.report.bots import bot_line
    from sim.report.render import (first_screen, forest, pct_ci, ranked_table, run_policies,
                                   seat_advantage_figure)
    seats = seats_with_players(r)
    games = r.games
    policies = run_policies(r)
    rules = r.meta.get("rules_changed") or {}
    sc = screen(r)
    chars = sc.family("characters").table
    seat_rows = sc.family("seats").table
    counts = sorted(games["players"].unique().tolist())
    first_screen(
        page, f"First Ascent balance report: {r.label}",
        [f"{', '.join(map(str, counts))} players; rules: "
         f"{'the spec defaults' if not rules else ', '.join(f'{k}={v}' for k, v in rules.items())}"
         f"; master seed {r.meta.get('master_seed', 'see experiment.json')}. "
         + FS.decided_line(games, seats)],
        bot_line("first-ascent", policies, r.meta.get("rotate_seats", False), len(r.games)),
        ranked_table(chars, [NAMES.get(c, c) for c in chars["character"]]), "Characters",
        FS.seat_advantage_lines(seat_rows), sc, game="first-ascent")
    correction = FS.correction_note(sc.families, sc.tests)
    if seats["policy"].nunique() > 1 and not r.meta.get("rotate_seats", False):
        page.p("Different policies sit in fixed seats here: a seat effect is also a policy "
               "effect. Use --rotate-seats.", "finding")

    page.h(2, "1. Characters")
    page.p("Rules: ../shared/first-ascent/RULES.md with its recommended Decisions unless "
           "listed. Win share: a tied win (F63) counts 1/k for each of k winners; the effective "
           "parity is the share of decided games / players. " + correction, "note")
    for players, grp in chars.groupby("players"):
        grp = grp.sort_values("share", ascending=False)
        page.figure(forest(grp.assign(rate=grp["share"],
                                      name=[NAMES.get(c, c) for c in grp["character"]]),
                           "name", f"Win share by character, {players} players",
                           grp["parity"].iloc[0]), f"first_ascent_characters_p{players}")
    ct = character_table(seats)
    detail = chars.merge(ct[["players", "character", "mean_score", "score_ci_low",
                             "score_ci_high"]].assign(character=lambda d: d["character"]
                                                      .astype(str)),
                         on=["players", "character"], how="left") \
        .sort_values(["players", "share"], ascending=[True, False])
    page.table(detail.assign(character=[NAMES.get(c, c) for c in detail["character"]],
                             win_share=pct_ci(detail, "share"),
                             mean_score=_ci(detail, "mean_score", "score_ci_low",
                                            "score_ci_high", pct=False))[
        ["players", "character", "n", "wins", "win_share", "parity", "effect", "mean_score",
         "p_screen"]], "first_ascent_characters",
        {"parity": _pct, "effect": FS.points, "p_screen": FS.fmt_p}, raw=detail)

    page.h(2, "2. Matchups")
    page.p("Win rate of the row character in games where the column character also plays "
           "(all player counts pooled; blank below 30 games).", "note")
    mt = matchup_table(seats)
    mt = mt.rename(index=NAMES, columns=NAMES)
    page.table(mt.reset_index(), "first_ascent_matchups",
               {c: _pct for c in mt.columns}, max_rows=20)

    page.h(2, "3. Score breakdown per character (mean points)")
    page.table(breakdown_table(seats).rename(index=NAMES).reset_index(), "first_ascent_breakdown")

    page.h(2, "4. Objectives")
    so = shared_objective_table(games, seats)
    page.p("Shared objectives: seats of the games where the objective was in play; 'rate' "
           "scored it at all.", "note")
    page.table(so.assign(scored=_ci(so))[["objective", "n", "scored", "mean_points",
                                          "win_rate_if_scored"]],
               "first_ascent_shared_objectives",
               {"mean_points": lambda v: f"{v:.2f}", "win_rate_if_scored": _pct}, raw=so)
    po = personal_objective_table(seats)
    page.p("Personal objectives: the seats holding each card; 'scored' = it was the one counted "
           "(F60: only the best fulfilled card scores).", "note")
    page.table(po.assign(scored=_ci(po))[["objective", "n", "scored", "win_rate_if_held"]],
               "first_ascent_personal_objectives", {"win_rate_if_held": _pct}, raw=po)

    page.h(2, "5. Summit Beta tokens")
    page.p("Descriptive, not causal: a seat that used a token also drew it.", "note")
    sb = sc.family("Summit Beta tokens").table
    if len(sb):
        page.table(sb.assign(using_win=_ci(sb, "win_rate_using", "using_ci_low",
                                           "using_ci_high"))[
            ["token", "seats_using", "share_using", "using_win", "win_rate_not_using",
             "effect", "p_screen"]].rename(columns={"effect": "same_character_difference"}), "first_ascent_summit_beta",
            {"share_using": _pct, "win_rate_not_using": _pct,
             "same_character_difference": FS.points,
             "p_screen": FS.fmt_p}, raw=sb)

    page.h(2, "6. The Risk Die and rests")
    page.table(risk_table(seats), "first_ascent_risk",
               {c: _pct for c in ("risk_share_of_climb_attempts", "check", "minus_2_cards",
                                  "minus_1_card_1_psych", "retreat_rate")} |
               {c: (lambda v: f"{v:.2f}") for c in ("risks_per_player",
                                                    "card_rolls_per_player",
                                                    "rests_per_player",
                                                    "forced_rests_per_player")})

    page.h(2, "7. Game length and endings")
    lt = length_table(games)
    page.table(lt.assign(mean_rounds=_ci(lt, "mean_rounds", "rounds_ci_low", "rounds_ci_high",
                                         pct=False))[
        ["players", "games", "mean_rounds", "median_rounds", "eight_pitches", "stranded",
         "round_cap", "policy_error"]], "first_ascent_length",
        {c: _pct for c in ("eight_pitches", "stranded", "round_cap", "policy_error")} |
        {"median_rounds": lambda v: f"{v:g}"}, raw=lt)

    page.h(2, "8. Seat advantage")
    page.figure(seat_advantage_figure(seat_rows), "first_ascent_seats")
    page.table(seat_rows.assign(seat=seat_rows["seat"] + 1, win_share=pct_ci(seat_rows, "share"))[
        ["players", "seat", "n", "wins", "win_share", "parity", "effect", "p_screen"]],
        "first_ascent_seats", {"parity": _pct, "effect": FS.points, "p_screen": FS.fmt_p},
        raw=seat_rows)
