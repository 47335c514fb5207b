"""The Ascension section of `ascent report`: the numbers of RULES.md §6, as tables and figures.

Every rate carries n and a 95% Wilson interval; every mean a 95% normal interval. Inputs are
the Ascension record tables (sim/games/ascension/records.py); nothing here imports the engine.
"""
import html

import numpy as np
import pandas as pd

from sim.core.stats import binomial_p_value, clustered_by_game, holm, mean_row, rate_row
from sim.report import first_screen as FS

SYMBOLS = ("ladder", "mattress", "spring", "cable_car", "chasm", "bivouac")
USE_COLUMNS = {"ladder": "ladder_climbs", "mattress": "mattress_drops", "spring": "spring_steps",
               "cable_car": "cable_rides", "bivouac": "bivouac_stays", "chasm": "chasm_denials"}
USE_MEANING = {"ladder": "2-hu climbs", "mattress": "2-hu drops", "spring": "spring steps",
               "cable_car": "rides", "bivouac": "stays", "chasm": "steps denied by a chasm"}


def with_rounds(games, seats):
    """games plus `rounds` (normal turns / players) and `corner_waits`, from the seat rows."""
    per = seats.assign(normal=seats["turns"] - seats["extra_turns"] - seats["bonus_turns"]) \
        .groupby("game")[["normal", "corner_waits"]].sum()
    per = per.reindex(games["game"])
    return games.assign(rounds=per["normal"].to_numpy() / games["players"].to_numpy(),
                        corner_waits=per["corner_waits"].to_numpy())


PARTNERSHIP_NOTE = (
    "Partnership (A48): a team wins when either partner wins, so both partners have won each "
    "decided game their team took (a win share of 1/2 each on the first screen), a seat's "
    "win_rate and share_of_wins are its team's, at parity 1/2 (not 1/N), and so are the win "
    "rates of the blocking table below; the first summiter's p_win_given_first is the seat's "
    "own, p_team_wins_given_first its team's. ")


def seat_table(games, seats):
    """Win rate by seat per player count. Games nobody wins (cap, all eliminated) would put
    every seat below 1/N, so the test against parity uses the games that have a winner: the
    seat's share of those wins (Holm across all seats). The unconditional rate is kept too."""
    players = games.set_index("game")["players"]
    decided = games.set_index("game")["winner_seat"] >= 0
    s = seats.assign(players=players.reindex(seats["game"]).to_numpy(),
                     decided=decided.reindex(seats["game"]).to_numpy())
    # seats a decided game has won: 1, or a team's 2 under partnership (A48), where a seat's
    # team wins half the decided games at parity
    winners = s[s["decided"]].groupby("players")["won"].sum() / \
        s[s["decided"]].groupby("players")["game"].nunique()
    rows = []
    for (p, seat), grp in s.groupby(["players", "seat"]):
        row = {"players": int(p), "seat": int(seat), **rate_row(int(grp["won"].sum()), len(grp))}
        won_games = grp[grp["decided"]]
        share = rate_row(int(won_games["won"].sum()), len(won_games))
        row.update({"decided_games": share["n"], "share_of_wins": share["rate"],
                    "share_ci_low": share["ci_low"], "share_ci_high": share["ci_high"]})
        row["parity"] = float(winners.get(p, 1.0)) / p
        row["p_value"] = binomial_p_value(share["count"], share["n"], row["parity"]) \
            if share["n"] else np.nan
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
        row = rate_row(int(grp["won"].sum()), len(grp))
        per_game = grp.groupby("game")["won"].agg(["sum", "size"])
        # a policy's seats that win together (partners, A48): the game is the unit
        clustered = clustered_by_game(per_game["sum"], per_game["size"])
        if clustered:
            row["ci_low"], row["ci_high"], _ = clustered
        rows.append({"players": int(p), "policy": str(pol), **row})
    return pd.DataFrame(rows)


def ending_table(games):
    """How games end (win, cap, all eliminated, or a bot's illegal move), per player count."""
    if games["end_reason"].isna().any():
        raise ValueError("a game without an end reason in the records")
    rows = []
    for p, grp in games.groupby("players"):
        for reason in ("win", "cap", "all_eliminated", "policy_error"):
            if reason == "policy_error" and not (grp["end_reason"] == reason).any():
                continue
            rows.append({"players": int(p), "end": reason,
                         **rate_row(int((grp["end_reason"] == reason).sum()), len(grp))})
    return pd.DataFrame(rows)


def length_table(games):
    """Length per player count (§6 Q2). `turns` counts every turn (normal, extra, bonus), so it
    grows with the player count by itself; `rounds` = normal turns / players compares counts.
    Won games and capped games are measured apart (a capped game sits at the cap)."""
    rows = []
    for p, grp in games.groupby("players"):
        won = grp[grp["end_reason"] == "win"]
        summit = grp[grp["first_summit_turn"] >= 0]
        rows.append({"players": int(p), "games": len(grp), "won_games": len(won),
                     "won_turns_median": won["turns"].median() if len(won) else np.nan,
                     "won_turns_p90": won["turns"].quantile(0.9) if len(won) else np.nan,
                     "won_rounds_median": won["rounds"].median() if len(won) else np.nan,
                     "games_with_summit": len(summit),
                     "first_summit_turn_median": summit["first_summit_turn"].median()
                     if len(summit) else np.nan,
                     "first_summit_round_median": (summit["first_summit_turn"] / p).median()
                     if len(summit) else np.nan,
                     "corner_waits_per_game": grp["corner_waits"].mean(),
                     "piece_phases_skipped": int(grp["piece_phases_skipped"].sum())})
    return pd.DataFrame(rows)


def first_summiter_table(games, partnership=False):
    """P(win | first to summit) (§6 Q3), and how often the privileges change hands. Under
    partnership (A48) also the first summiter's team's chance (team_*), the partner's win
    included."""
    rows = []
    for p, grp in games.groupby("players"):
        summited = grp[grp["first_summit_seat"] >= 0]
        row = {"players": int(p),
               **rate_row(int(summited["winner_first_summiter"].sum()), len(summited))}
        row["games_with_summit"] = len(summited)
        if partnership:
            winner, first = summited["winner_seat"], summited["first_summit_seat"]
            team = rate_row(int(((winner >= 0) & (winner % 2 == first % 2)).sum()),
                            len(summited))
            row.update({"team_rate": team["rate"], "team_ci_low": team["ci_low"],
                        "team_ci_high": team["ci_high"]})
        lost = summited["privilege_losses"] > 0
        r = rate_row(int(lost.sum()), len(summited))
        row.update({"privileges_lost": r["rate"], "lost_ci_low": r["ci_low"],
                    "lost_ci_high": r["ci_high"]})
        passed = summited.loc[lost, "privilege_passes"] > 0
        r = rate_row(int(passed.sum()), int(lost.sum()))
        row.update({"games_with_a_loss": int(lost.sum()), "passed_on_after_loss": r["rate"],
                    "passed_ci_low": r["ci_low"], "passed_ci_high": r["ci_high"]})
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
        row.update({f"blocked_{k}": v for k, v in rate_row(int(blocked.sum()), n).items()
                    if k in ("rate", "ci_low", "ci_high")})
        elim = grp["eliminated"]
        row.update({f"eliminated_{k}": v for k, v in rate_row(int(elim.sum()), n).items()
                    if k in ("rate", "ci_low", "ci_high")})
        for phase in ("ascent", "summit", "descent"):
            row[f"eliminated_in_{phase}"] = int((grp["elimination_phase"] == phase).sum())
        if "first_block_phase" in grp:
            for phase in ("ascent", "summit", "descent"):
                row[f"first_block_in_{phase}"] = int((grp["first_block_phase"] == phase).sum())
        # blocks at the end of the game: a seat never blocked may simply have had a short game
        once = grp[grp["blocks"] == 1]
        never = grp[grp["blocks"] == 0]
        r = rate_row(int(once["won"].sum()), len(once))
        row.update({"n_blocked_once": len(once), "win_rate_blocked_once": r["rate"],
                    "blocked_once_ci_low": r["ci_low"], "blocked_once_ci_high": r["ci_high"]})
        r = rate_row(int(never["won"].sum()), len(never))
        row.update({"n_never_blocked": len(never), "win_rate_never_blocked": r["rate"],
                    "never_ci_low": r["ci_low"], "never_ci_high": r["ci_high"]})
        rows.append(row)
    return pd.DataFrame(rows)


def specials_table(games, seats):
    """How often each special cube is revealed (placed face up) and used, per game (§6 Q5)."""
    cols = list(dict.fromkeys(list(USE_COLUMNS.values()) + ["bonus_turns"]))
    uses = seats.groupby("game")[cols].sum()
    # under spring_bonus = full_turn a spring gives a bonus turn instead of a step
    uses["spring_steps"] = uses["spring_steps"] + uses["bonus_turns"]
    rows = []
    for p, grp in games.groupby("players"):
        u = uses.reindex(grp["game"])
        for sym in SYMBOLS:
            rev = mean_row(grp[f"reveals_{sym}"])
            use = mean_row(u[USE_COLUMNS[sym]].to_numpy())
            shown = rate_row(int((grp[f"reveals_{sym}"] > 0).sum()), len(grp))
            rows.append({"players": int(p), "symbol": sym, "games": rev["n"],
                         "reveals_per_game": rev["mean"],
                         "reveals_ci": (rev["ci_low"], rev["ci_high"]),
                         "games_with_reveal": shown["rate"],
                         "with_reveal_ci_low": shown["ci_low"],
                         "with_reveal_ci_high": shown["ci_high"],
                         "use": USE_MEANING[sym], "uses_per_game": use["mean"],
                         "uses_ci": (use["ci_low"], use["ci_high"])})
    return pd.DataFrame(rows)


def player_count_table(games, seats):
    """2 vs 3 vs 4 players side by side (§6 Q8). Kingmaking is not measured."""
    st = seat_table(games, seats)
    # each decided game's winner, one column per seat: the spread between the seats with the
    # largest and the smallest share of wins, paired on the same games
    winner_at = seats.pivot(index="game", columns="seat", values="won").astype(float)
    rows = []
    for p, grp in games.groupby("players"):
        shares = st[st["players"] == p].set_index("seat")["share_of_wins"]
        decided = winner_at.loc[grp.loc[grp["winner_seat"] >= 0, "game"]].dropna(axis=1)
        spread = FS.seat_spread(decided, shares.idxmax(), shares.idxmin()) \
            if len(decided) and shares.notna().any() else (np.nan, np.nan, np.nan)
        cap = rate_row(int((grp["end_reason"] == "cap").sum()), len(grp))
        allx = rate_row(int((grp["end_reason"] == "all_eliminated").sum()), len(grp))
        won = grp[grp["end_reason"] == "win"]
        rows.append({"players": int(p), "games": len(grp),
                     "won_rounds_median": won["rounds"].median() if len(won) else np.nan,
                     "cap_rate": cap["rate"], "cap_ci": (cap["ci_low"], cap["ci_high"]),
                     "all_eliminated_rate": allx["rate"],
                     "all_eliminated_ci": (allx["ci_low"], allx["ci_high"]),
                     "seat_spread_of_wins": spread[0], "seat_spread_ci": spread[1:],
                     "blocks_per_game": grp["blocks"].mean(),
                     "eliminations_per_game": grp["eliminations"].mean(),
                     "pillar_raises_per_game": grp["pillar_raises"].mean(),
                     "tallest_stack_pieces_mean": grp["tallest_stack"].mean()})
    return pd.DataFrame(rows)


def _pct(v):
    return "" if pd.isna(v) else f"{100 * v:.1f}%"


def by_player_count(table, measures):
    """A table of one row per player count, shown the other way round so that it fits a page:
    a row per measure (label, and a function of the player count's row giving its text), a
    column per player count."""
    return pd.DataFrame([{"measure": label, **{f"{int(row['players'])} players": text(row)
                                              for _, row in table.iterrows()}}
                         for label, text in measures])


def _rate_text(rate, lo, hi, n=None):
    """A rate's cell: '78.5% [77.3, 79.8]', with ' of 4,000' when n is given."""
    def text(row):
        shown = FS.pct_interval(row[rate], row[lo], row[hi])
        return shown if n is None else f"{shown} of {int(row[n]):,}"
    return text


def screen(r):
    """The first screen's families: seats, and at a mixed table the bots (first_screen.py)."""
    return FS.seats_and_bots_screen(r)


def render(page, r, plt):
    """Write the Ascension report into a render.Page: the shared first screen, then §6."""
    from sim.report.bots import bot_line
    from sim.report.render import (first_screen, ranked_table, run_policies,
                                   seat_advantage_figure)
    seats = r.seats
    games = with_rounds(r.games, seats)
    policies = run_policies(r)
    rules = r.meta["rules_changed"] if "rules_changed" in r.meta else r.meta.get("rules", {})
    teams = rules.get("partnership") == "true"     # A48: partners win together
    sc = screen(r)
    seat_rows = sc.family("seats").table
    mixed = seats["policy"].nunique() > 1
    ranked = sc.family("bots").table if mixed else seat_rows
    label = [str(v) for v in ranked["policy"]] if mixed else \
        [f"Seat {int(v) + 1}" for v in ranked["seat"]]
    counts = sorted(games["players"].unique().tolist())
    first_screen(
        page, f"Ascension balance report: {r.label}",
        [f"{', '.join(map(str, counts))} players; rules: "
         f"{'the §5 defaults' if not rules else ', '.join(f'{k}={v}' for k, v in rules.items())}"
         f"; master seed {r.meta.get('master_seed', 'see experiment.json')}. "
         + FS.decided_line(r.games, seats, team=2 if teams else 1)],
        bot_line("ascension", policies, r.meta.get("rotate_seats", False), len(r.games)),
        ranked_table(ranked, label),
        "Bots" if mixed else "Seats",
        FS.seat_advantage_lines(seat_rows, r.games, r.seats), sc, game="ascension")

    page.h(2, "1. Seat advantage (§6 Q1)")
    st = seat_table(games, seats)
    # under partnership the first screen tests a half share a won game (decided / N), and
    # this table's team share is at 1/2: "tested against parity 1/N" would say neither
    page.p("win_rate: wins over all games (n). share_of_wins: the seat's share of the games "
           "somebody won (decided_games)"
           + (". " + PARTNERSHIP_NOTE if teams else "; the first screen tests it against "
              "parity 1/N. ")
           + FS.correction_note(sc.families, sc.tests), "note")
    if mixed and not r.meta.get("rotate_seats", True):
        page.p("Different policies sit in fixed seats here: a seat effect is also a policy "
               "effect. Use --rotate-seats.", "finding")
    st = st.merge(seat_rows[["players", "seat", "p_screen"]], on=["players", "seat"], how="left")
    page.table(st.assign(seat=st["seat"] + 1, win_rate=FS.pct_ci(st),
                         share_of_wins=FS.pct_ci(st, "share_of_wins", "share_ci_low",
                                                 "share_ci_high"))[
        ["players", "seat", "n", "win_rate", "decided_games", "share_of_wins", "parity",
         "p_screen"]], "ascension_seats", {"parity": _pct, "p_screen": FS.fmt_p}, raw=st)
    page.figure(seat_advantage_figure(
        seat_rows, "a team's win: half to each partner" if teams else ""), "ascension_seats")
    if mixed:
        pt = policy_table(games, seats)
        page.h(3, "Win rate by policy")
        page.table(pt.assign(win_rate=FS.pct_ci(pt))[["players", "policy", "n", "win_rate"]],
                   "ascension_policies", raw=pt)

    page.h(2, "2. Game length, caps and stalls (§6 Q2)")
    et = ending_table(games)
    page.table(et.assign(share=FS.pct_ci(et))[["players", "end", "n", "share"]],
               "ascension_endings", raw=et)
    lt = length_table(games)
    page.p("Turns count every turn (normal, extra, bonus): they grow with the player count by "
           "themselves. Rounds = normal turns / players. Capped games are left out of the "
           "won-game lengths.", "note")
    page.table(lt, "ascension_length", {"corner_waits_per_game": lambda v: f"{v:.2f}",
                                        "first_summit_round_median": lambda v: f"{v:.1f}",
                                        "won_rounds_median": lambda v: f"{v:.1f}"})
    fig, ax = plt.subplots(figsize=(7, 3))
    for p, grp in games.groupby("players"):
        ax.hist(grp["rounds"], bins=60, histtype="step", label=f"{p} players")
    ax.set_xlabel("rounds (normal turns / players)")
    ax.set_ylabel("games")
    ax.legend(fontsize=8)
    page.figure(fig, "ascension_length")

    page.h(2, "3. The first summiter (§6 Q3)")
    ft = first_summiter_table(games, teams)
    shown = ["players", "games_with_summit", "p_win_given_first"] + \
        (["p_team_wins_given_first"] if teams else []) + \
        ["privileges_lost", "games_with_a_loss", "passed_on_after_loss"]
    page.table(ft.assign(p_win_given_first=FS.pct_ci(ft),
                         privileges_lost=FS.pct_ci(ft, "privileges_lost", "lost_ci_low",
                                                   "lost_ci_high"),
                         passed_on_after_loss=FS.pct_ci(ft, "passed_on_after_loss",
                                                        "passed_ci_low", "passed_ci_high"),
                         **({"p_team_wins_given_first": FS.pct_ci(
                             ft, "team_rate", "team_ci_low", "team_ci_high")} if teams
                            else {}))[shown], "ascension_first_summiter", raw=ft)

    page.h(2, "4. Blocks and eliminations (§6 Q4)")
    bt = blocking_table(games, seats)
    page.p("Per seat and game. Blocks and wins are counted at the end of the game: a seat never "
           "blocked may simply have had a short game.", "note")
    page.p("Rates are of seat-games, with 95% Wilson intervals; the seats of one game are not "
           "independent (one seat's block is another's), so these intervals are somewhat too "
           "narrow.", "note")
    phases = ("ascent", "summit", "descent")
    measures = [("seat-games", lambda row: f"{int(row['seat_games']):,}")] + [
        (f"blocks in the {ph}, per seat", lambda row, ph=ph: f"{row[f'blocks_{ph}_per_seat']:.3f}")
        for ph in phases] + [
        ("blocked at least once", _rate_text("blocked_rate", "blocked_ci_low",
                                             "blocked_ci_high", "seat_games")),
        ("eliminated", _rate_text("eliminated_rate", "eliminated_ci_low", "eliminated_ci_high",
                                  "seat_games"))] + [
        (f"eliminated in the {ph}", lambda row, ph=ph: f"{int(row[f'eliminated_in_{ph}']):,}")
        for ph in phases] + [
        (f"first blocked in the {ph}", lambda row, ph=ph: f"{int(row[f'first_block_in_{ph}']):,}")
        for ph in phases if f"first_block_in_{ph}" in bt] + [
        ("win rate, blocked once", _rate_text("win_rate_blocked_once", "blocked_once_ci_low",
                                              "blocked_once_ci_high", "n_blocked_once")),
        ("win rate, never blocked", _rate_text("win_rate_never_blocked", "never_ci_low",
                                               "never_ci_high", "n_never_blocked"))]
    page.table(by_player_count(bt, measures), "ascension_blocking", raw=bt)

    page.h(2, "5. Special cubes (§6 Q5)")
    sp = specials_table(games, seats)
    page.p("A reveal is a placement face up; a use is the symbol's effect on a pawn (a chasm's "
           "'use' is a neighbouring step it denied at a pawn phase). For each cube's effect on "
           "the outcome, run experiments/ascension/specials.toml and compare variants.", "note")
    shown = sp.assign(reveals=[f"{m:.2f} [{a:.2f}, {b:.2f}]" for m, (a, b)
                               in zip(sp["reveals_per_game"], sp["reveals_ci"])],
                      uses=[f"{m:.2f} [{a:.2f}, {b:.2f}]" for m, (a, b)
                            in zip(sp["uses_per_game"], sp["uses_ci"])])
    shown = shown.assign(games_with_reveal=FS.pct_ci(sp, "games_with_reveal",
                                                     "with_reveal_ci_low",
                                                     "with_reveal_ci_high"))
    page.table(shown[["players", "symbol", "games", "reveals", "games_with_reveal", "use",
                      "uses"]], "ascension_specials",
               raw=sp.drop(columns=["reveals_ci", "uses_ci"]))
    never = sorted(set(sp.loc[sp["reveals_per_game"] == 0, "symbol"]))
    if never:
        page.p(f"Never revealed in these games: {', '.join(never)}. These bots keep such cubes "
               f"face down, so removing them cannot change these games: an ablation of them "
               f"measures nothing about the cube itself.", "finding")

    page.h(2, "6. Player count (§6 Q8)")
    pc = player_count_table(games, seats)
    page.p("Kingmaking (a trailing player's blocks deciding the winner) is not measured.", "note")
    page.p("Seat spread: the largest seat's share of the decided games less the smallest's, in "
           "points, paired on the same games, with a 95% interval over every pair of seats at "
           "once (so that it holds for the two seats the data picked). The first screen's "
           "spread is of all games' win rates, so it differs. The rest are means per game.",
           "note")

    def with_ci(rate, ci, points=False):
        def text(row):
            lo, hi = row[ci]
            if points:
                return FS.points_interval(row[rate], lo, hi) if np.isfinite(row[rate]) else "–"
            return f"{FS.pct_interval(row[rate], lo, hi)} of {int(row['games']):,}"
        return text

    measures = [("games", lambda row: f"{int(row['games']):,}"),
                ("median rounds of a won game",
                 lambda row: f"{row['won_rounds_median']:g}"
                 if np.isfinite(row["won_rounds_median"]) else "–"),
                ("ended by the cap", with_ci("cap_rate", "cap_ci")),
                ("ended with everyone eliminated", with_ci("all_eliminated_rate",
                                                           "all_eliminated_ci")),
                ("seat spread of the wins, points", with_ci("seat_spread_of_wins",
                                                            "seat_spread_ci", points=True)),
                ("blocks", lambda row: f"{row['blocks_per_game']:.2f}"),
                ("eliminations", lambda row: f"{row['eliminations_per_game']:.2f}"),
                ("pillar raises", lambda row: f"{row['pillar_raises_per_game']:.2f}"),
                ("pieces in the tallest stack",
                 lambda row: f"{row['tallest_stack_pieces_mean']:.1f}")]
    page.table(by_player_count(pc, measures), "ascension_player_count",
               raw=pc.assign(cap_ci_low=[c[0] for c in pc["cap_ci"]],
                             cap_ci_high=[c[1] for c in pc["cap_ci"]],
                             all_eliminated_ci_low=[c[0] for c in pc["all_eliminated_ci"]],
                             all_eliminated_ci_high=[c[1] for c in pc["all_eliminated_ci"]],
                             seat_spread_ci_low=[c[0] for c in pc["seat_spread_ci"]],
                             seat_spread_ci_high=[c[1] for c in pc["seat_spread_ci"]]).drop(
                   columns=["cap_ci", "all_eliminated_ci", "seat_spread_ci"]))
    page.parts.append(f"<p class='note'>{html.escape('Tables are also in tables/*.csv.')}</p>")
