"""The First Ascent section of `ascent report`: characters, matchups, score breakdown,
objectives, Summit Beta tokens, the Risk Die, game length and seats.

Every rate carries n and a 95% Wilson interval, every mean a 95% normal interval. A shared
win (F63: tied score and tie-break) counts as a win for each winner; `win_share` splits it.
Inputs are the record tables of sim/games/first_ascent/records.py; no engine import.
"""
import numpy as np
import pandas as pd

from sim.core.stats import clustered_rate_interval, holm, mean_row, rate_row
from sim.games.first_ascent.data import (CHARACTER_NAME_OF_KEY, PERSONAL_NAMES, SB_NAMES,
                                         SHARED_NAMES)
from sim.report import first_screen as FS
from sim.games.first_ascent.records import SB_KEYS

PARTS = ("points_pitches", "points_summits", "points_shared", "points_sets",
         "points_spider_stick", "points_personal")


def _ci(df, rate="rate", lo="ci_low", hi="ci_high", pct=True):
    if pct:
        return FS.pct_ci(df, rate, lo, hi)
    return [f"{r:.2f} [{a:.2f}, {b:.2f}]" if np.isfinite(r) and np.isfinite(a) else
            (f"{r:.2f}" if np.isfinite(r) else "–") for r, a, b in zip(df[rate], df[lo], df[hi])]


def seats_with_players(r):
    s = r.seats
    if "players" not in s.columns:
        s = s.assign(players=r.games.set_index("game")["players"].reindex(s["game"]).to_numpy())
    return s


def character_table(seats, games):
    """Win rate and mean score per character and player count (`games`: the run's games, with
    their player counts), and the win share with its interval, the effective parity and the
    share's p-value against it, Holm-corrected across the rows (FS.parity_table).

    The test is on the share, not on the win rate: a tie (F63) is a win for each winner, so
    under a fair game a win rate is expected at (winners per decided game) / N, above 1/N,
    and tested against 1/N a few percent of tied games read as 'over' (a review found 32% of
    a fair game's characters flagged at 20,000 games)."""
    rows = []
    for (p, char), grp in seats.groupby(["players", "character"], observed=True):
        row = {"players": int(p), "character": char,
               **rate_row(int(grp["won"].sum()), len(grp))}
        m = mean_row(grp["score"])
        row.update({"mean_score": m["mean"], "score_ci_low": m["ci_low"],
                    "score_ci_high": m["ci_high"]})
        rows.append(row)
    out = pd.DataFrame(rows)
    if not len(out):
        return out
    parity = FS.parity_table(games, seats, "character").astype({"character": str}) \
        .set_index(["players", "character"])
    index = pd.MultiIndex.from_arrays([out["players"], out["character"].astype(str)])
    for column, name in (("share", "share"), ("ci_low", "share_ci_low"),
                         ("ci_high", "share_ci_high"), ("parity", "parity"), ("p", "p_value")):
        out[name] = parity[column].reindex(index).to_numpy()
    out["p_holm"] = holm(out["p_value"].to_numpy(float))
    out["significant"] = out["p_holm"] < 0.05
    return out


MIN_MATCHUP_SEATS = 30          # a matchup cell with fewer seats is listed, not shown


def matchup_table(seats):
    """Per ordered pair of characters: the row character's seats in games where the column
    character also plays (n), their wins, and the win rate with its 95% Wilson interval."""
    present = seats.groupby("game")["character"].apply(lambda c: set(c.astype(str)))
    rows = []
    chars = sorted(seats["character"].astype(str).unique())
    for a in chars:
        mine = seats[seats["character"].astype(str) == a]
        sets = present.reindex(mine["game"]).to_numpy()
        won = mine["won"].to_numpy()
        for b in chars:
            if a != b:
                mask = np.array([b in s for s in sets], bool)
                rows.append({"character": a, "against": b,
                             **rate_row(int(won[mask].sum()), int(mask.sum()))})
    return pd.DataFrame(rows, columns=["character", "against", "n", "count", "rate", "ci_low",
                                       "ci_high"])


def matchup_grid(cells):
    """matchup_table as a grid for reading: '8.6 [3.0, 22.4] (35)' (win rate, its interval
    and n; blank below MIN_MATCHUP_SEATS seats)."""
    # a no-break space inside the interval: a narrow cell wraps between its three parts only
    text = [f"{100 * r:.1f} [{100 * lo:.1f},\u00a0{100 * hi:.1f}] ({n:,})"
            if n >= MIN_MATCHUP_SEATS else "" for r, lo, hi, n in
            zip(cells["rate"], cells["ci_low"], cells["ci_high"], cells["n"])]
    return cells.assign(text=text).pivot(index="character", columns="against", values="text") \
        .fillna("").rename_axis(columns=None)


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
        scorers = rate_row(int(sub.loc[pts > 0, "won"].sum()), int((pts > 0).sum()))
        row.update({"mean_points": m["mean"], "points_ci_low": m["ci_low"],
                    "points_ci_high": m["ci_high"], "scorers": scorers["n"],
                    "win_rate_if_scored": scorers["rate"],
                    "if_scored_ci_low": scorers["ci_low"],
                    "if_scored_ci_high": scorers["ci_high"]})
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
        won = rate_row(int(held["won"].sum()), len(held))
        row.update({"win_rate_if_held": won["rate"], "if_held_ci_low": won["ci_low"],
                    "if_held_ci_high": won["ci_high"]})
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
        share = rate_row(a["n"], len(seats))
        rows.append({"token": f"{sb} {SB_NAMES[sb]}", "seats_using": a["n"],
                     "share_using": share["rate"], "share_ci_low": share["ci_low"],
                     "share_ci_high": share["ci_high"], "win_rate_using": a["rate"],
                     "using_ci_low": a["ci_low"], "using_ci_high": a["ci_high"],
                     "win_rate_not_using": b["rate"], "not_using_ci_low": b["ci_low"],
                     "not_using_ci_high": b["ci_high"], "wins_using": a["count"],
                     "seats_not_using": b["n"], "wins_not_using": b["count"]})
    return pd.DataFrame(rows)


RISK_OUTCOMES = ("risk_check", "risk_minus_2_cards", "risk_minus_1_card_1_psych",
                 "risk_retreats")


def risk_table(seats):
    """Per player count: how often a climb attempt was a risk (n: attempts, the climbs and
    the retreats off a risk), and each face's share of the risks (n: risks), each with its
    95% interval; per-player means of the other counts.

    A seat's attempts in one game are alike (its character, hand and route), so the risk share
    takes the seat in a game as the unit (clustered_rate_interval: Wilson's at the effective
    size); until 2026-12-07 it was Wilson's on the attempts as if each were independent, 2-2.5x
    too narrow (a review measured it). A face's share keeps Wilson's on the risks: each risk is
    its own roll of the die."""
    rows = []
    for p, grp in seats.groupby("players"):
        risks = int(grp["risks"].sum())
        per_seat = grp["climbs"] + grp["risk_retreats"]
        attempts = int(per_seat.sum())
        rate, lo, hi, _ = clustered_rate_interval(grp["risks"].to_numpy(), per_seat.to_numpy())
        row = {"players": int(p), "risks_per_player": grp["risks"].mean(),
               "climb_attempts": attempts, "risks": risks,
               "risk_share_of_climb_attempts": rate,
               "risk_share_ci_low": lo, "risk_share_ci_high": hi}
        for outcome in RISK_OUTCOMES:
            face = rate_row(int(grp[outcome].sum()), risks)
            row.update({outcome: face["rate"], f"{outcome}_ci_low": face["ci_low"],
                        f"{outcome}_ci_high": face["ci_high"]})
        row.update({"card_rolls_per_player": grp["card_rolls"].mean(),
                    "rests_per_player": grp["rests"].mean(),
                    "forced_rests_per_player": grp["forced_rests"].mean()})
        rows.append(row)
    return pd.DataFrame(rows)


END_REASONS = ("eight_pitches", "stranded", "round_cap", "policy_error")


def length_table(games):
    rows = []
    for p, grp in games.groupby("players"):
        m = mean_row(grp["rounds"])
        row = {"players": int(p), "games": len(grp), "mean_rounds": m["mean"],
               "rounds_ci_low": m["ci_low"], "rounds_ci_high": m["ci_high"],
               "median_rounds": float(grp["rounds"].median())}
        for reason in END_REASONS:
            ended = rate_row(int((grp["end_reason"] == reason).sum()), len(grp))
            row.update({reason: ended["rate"], f"{reason}_ci_low": ended["ci_low"],
                        f"{reason}_ci_high": ended["ci_high"]})
        rows.append(row)
    return pd.DataFrame(rows)


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
        FS.seat_advantage_lines(seat_rows, r.games, r.seats), sc, game="first-ascent")
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
    ct = character_table(seats, games)
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
    page.p("Win rate of the row character, % [95% Wilson interval] (n: its seats), in games "
           "where the column character also plays (all player counts pooled; blank below "
           f"{MIN_MATCHUP_SEATS} seats).", "note")
    cells = matchup_table(seats)
    grid = matchup_grid(cells).rename(index=NAMES, columns=NAMES)
    page.table(grid.reset_index(), "first_ascent_matchups", max_rows=20, cls="grid",
               raw=cells.assign(character=[NAMES.get(c, c) for c in cells["character"]],
                                against=[NAMES.get(c, c) for c in cells["against"]]))

    page.h(2, "3. Score breakdown per character (mean points)")
    page.table(breakdown_table(seats).rename(index=NAMES).reset_index(), "first_ascent_breakdown")

    page.h(2, "4. Objectives")
    so = shared_objective_table(games, seats)
    page.p("Shared objectives: seats of the games where the objective was in play; 'rate' "
           "scored it at all.", "note")
    page.table(so.assign(scored=_ci(so), win_rate_if_scored=_ci(
                   so, "win_rate_if_scored", "if_scored_ci_low", "if_scored_ci_high"))[
                   ["objective", "n", "scored", "mean_points", "scorers",
                    "win_rate_if_scored"]],
               "first_ascent_shared_objectives", {"mean_points": lambda v: f"{v:.2f}"}, raw=so)
    po = personal_objective_table(seats)
    page.p("Personal objectives: the seats holding each card; 'scored' = it was the one counted "
           "(F60: only the best fulfilled card scores).", "note")
    page.table(po.assign(scored=_ci(po), win_rate_if_held=_ci(
                   po, "win_rate_if_held", "if_held_ci_low", "if_held_ci_high"))[
                   ["objective", "n", "scored", "win_rate_if_held"]],
               "first_ascent_personal_objectives", raw=po)

    page.h(2, "5. Summit Beta tokens")
    page.p("Descriptive, not causal: a seat that used a token also drew it.", "note")
    sb = sc.family("Summit Beta tokens").table
    if len(sb):
        page.p(f"Of {len(seats):,} seats. same_character_difference: users' win rate less "
               "that of non-users of the same character, points [95% interval]; p_screen as on "
               "the first screen.", "note")
        page.table(sb.assign(
            share_using=_ci(sb, "share_using", "share_ci_low", "share_ci_high"),
            using_win=_ci(sb, "win_rate_using", "using_ci_low", "using_ci_high"),
            not_using_win=_ci(sb, "win_rate_not_using", "not_using_ci_low",
                              "not_using_ci_high"),
            same_character_difference=FS.points_ci(sb, "effect", "effect_ci_low",
                                                   "effect_ci_high"))[
            ["token", "seats_using", "share_using", "using_win", "seats_not_using",
             "not_using_win", "same_character_difference", "p_screen"]],
            "first_ascent_summit_beta", {"p_screen": FS.fmt_p, "seats_using": "{:,}".format,
                                         "seats_not_using": "{:,}".format}, raw=sb)

    page.h(2, "6. The Risk Die and rests")
    page.p("Risk share: of the climb attempts (n: climb_attempts), % [95% interval taking a "
           "seat's attempts in a game as one unit: they are alike]; each face: of the risks "
           "(n: risks), % [95% Wilson interval].", "note")
    rt = risk_table(seats)
    count = {c: (lambda v: f"{v:,}") for c in ("climb_attempts", "risks")}
    page.table(rt.assign(
        risk_share_of_climb_attempts=_ci(rt, "risk_share_of_climb_attempts",
                                         "risk_share_ci_low", "risk_share_ci_high"),
        **{o: _ci(rt, o, f"{o}_ci_low", f"{o}_ci_high") for o in RISK_OUTCOMES})[
        ["players", "climb_attempts", "risk_share_of_climb_attempts", "risks",
         *RISK_OUTCOMES]].rename(
        columns={"risk_check": "check", "risk_minus_2_cards": "minus_2_cards",
                 "risk_minus_1_card_1_psych": "minus_1_card_1_psych",
                 "risk_retreats": "retreat"}), "first_ascent_risk", count, raw=rt)
    means = ("risks_per_player", "card_rolls_per_player", "rests_per_player",
             "forced_rests_per_player")
    page.p("Means per player.", "note")
    page.table(rt[["players", *means]], "first_ascent_rests",
               {c: (lambda v: f"{v:.2f}") for c in means})

    page.h(2, "7. Game length and endings")
    lt = length_table(games)
    page.table(lt.assign(mean_rounds=_ci(lt, "mean_rounds", "rounds_ci_low", "rounds_ci_high",
                                         pct=False),
                         **{e: _ci(lt, e, f"{e}_ci_low", f"{e}_ci_high") for e in END_REASONS})[
        ["players", "games", "mean_rounds", "median_rounds", *END_REASONS]],
        "first_ascent_length", {"median_rounds": lambda v: f"{v:g}"}, raw=lt)

    page.h(2, "8. Seat advantage")
    page.figure(seat_advantage_figure(seat_rows), "first_ascent_seats")
    page.table(seat_rows.assign(seat=seat_rows["seat"] + 1, win_share=pct_ci(seat_rows, "share"))[
        ["players", "seat", "n", "wins", "win_share", "parity", "effect", "p_screen"]],
        "first_ascent_seats", {"parity": _pct, "effect": FS.points, "p_screen": FS.fmt_p},
        raw=seat_rows)
