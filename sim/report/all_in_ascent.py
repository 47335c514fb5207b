"""The All-In Ascent report: its first screen and sections (characters, seats, gear cards,
milestone draws, flow), on the shared page builder (sim/report/render.py)."""
import numpy as np
import pandas as pd

from sim.report import analysis as A
from sim.report import first_screen as FS
from sim.report.render import (end_reasons_text, first_screen, forest, heatmap, mpl_text, pct,
                               pct_ci, ranked_table, run_policies, seat_advantage_figure)

import matplotlib.pyplot as plt  # noqa: E402 (after render.py chose the non-interactive backend)


# the milestone cells' columns as the page heads them (the CSV keeps the numbers)
CELL_HEADINGS = {"other_draws_n": "n other games", "other_draws": "win rate in other games",
                 "effect_text": "difference [95%]"}


def _is_default_switch(name, value, preset):
    """Whether a switch as a manifest or a spec records it (a value or its text) is the
    preset's own reading (the round cap: the preset's cap)."""
    from sim.games.all_in_ascent.rules import PRESETS
    from sim.games.all_in_ascent.variants import SWITCHES, VariantError, parse_switch
    if name not in SWITCHES:
        return False
    try:
        parsed = parse_switch(name, value)
    except VariantError:
        return False
    if name == "max_rounds":
        return preset in PRESETS and parsed == PRESETS[preset].max_rounds
    return parsed == SWITCHES[name].default


def describe_rules(meta):
    m = meta
    rules = m.get("rules", {})
    preset = m.get("preset") or rules.get("preset", "v0.4.0")
    switches = dict(rules.get("switches") or rules.get("rules") or {})
    knobs = rules.get("knobs") or rules.get("set") or {}
    parts = [f"preset {preset}"]
    # a simulate manifest keeps the round cap apart from the switches (None: no cap)
    if "max_rounds" in rules:
        switches["max_rounds"] = "none" if rules["max_rounds"] is None else rules["max_rounds"]
    # one at its default is the default game (RulesConfig.with_variants), and is not named:
    # an experiment's variant keeps its switches as written
    switches = {k: v for k, v in switches.items() if not _is_default_switch(k, v, preset)}
    if switches:
        words = {True: "on", False: "off"}          # the words --rule takes, not Python's
        parts.append("switches " + ", ".join(
            f"{k}={words.get(v, v) if isinstance(v, bool) else v}" for k, v in switches.items()))
    if knobs:
        parts.append("knobs " + ", ".join(f"{k}={v}" for k, v in knobs.items()))
    if m.get("data_sha256"):
        from sim.games.all_in_ascent.data import bundled_file_of
        shipped = bundled_file_of(m["data_sha256"])
        parts.append(f"data {shipped} as shipped" if shipped else
                     f"data file {m.get('data_file', '?')} of its own, not a shipped one "
                     f"(sha256 {m['data_sha256'][:12]})")
    return "; ".join(parts)


def render(page, r, plt, results_dir):
    """The sections of an All-In Ascent run's report; returns the page title."""
    from sim.report.bots import bot_line
    names = A.character_names()
    screen = A.screen(r)
    chars = screen.family("characters").table
    seats = screen.family("seats").table
    cells = screen.family("milestone draws").table
    gear = screen.family("gear cards").table
    flow = A.flow_summary(r)
    counts = sorted(r.games["players"].unique().tolist())
    seed = r.meta.get("master_seed", r.meta.get("seed", "see experiment.json"))
    first_screen(
        page, f"All-In Ascent balance report: {r.label}",
        [f"{', '.join(map(str, counts))} players; {describe_rules(r.meta)}; master seed {seed}. "
         + FS.decided_line(r.games, r.seats)],
        bot_line("all-in-ascent", run_policies(r), r.meta.get("rotate_seats", False),
                 len(r.games)),
        ranked_table(chars, [A.display(c, names) for c in chars["character"]]), "Characters",
        FS.seat_advantage_lines(seats, r.games, r.seats), screen, game="all-in-ascent")
    correction = FS.correction_note(screen.families, screen.tests)

    page.h(2, "2. Characters")
    for players, grp in chars.groupby("players"):
        grp = grp.sort_values("rate", ascending=False).assign(
            name=[A.display(c, names) for c in grp.sort_values("rate", ascending=False)
                  ["character"]])
        page.figure(forest(grp, "name", f"Win share by character, {players} players",
                           grp["parity"].iloc[0]), f"characters_forest_p{players}")
    page.p(correction, "note")
    shown = chars.sort_values(["players", "rate"], ascending=[True, False])
    page.table(shown.assign(character=[A.display(c, names) for c in shown["character"]],
                            win_share=pct_ci(shown))[
        ["players", "character", "n", "wins", "win_share", "parity", "vs_parity", "p_screen",
         "significant"]], "characters",
        {"parity": pct, "vs_parity": FS.points, "p_screen": FS.fmt_p}, raw=chars)
    page.h(3, "Win share by seat (seat advantage)")
    page.figure(seat_advantage_figure(seats), "seats")
    page.table(seats.assign(seat=seats["seat"] + 1, win_share=pct_ci(seats))[
        ["players", "seat", "n", "win_share", "parity", "vs_parity", "p_screen"]], "seats",
        {"parity": pct, "vs_parity": FS.points, "p_screen": FS.fmt_p}, raw=seats)
    presence = A.presence_table(r)
    if not presence.empty:
        page.h(3, "Win rate when another character is at the table")
        named = presence.assign(character=[A.display(c, names) for c in presence["character"]],
                                **{"with": [A.display(c, names) for c in presence["with"]]})
        mat = named.pivot(index="character", columns="with", values="rate") * 100
        page.figure(heatmap(mat, "Row character's win rate (%) with the column character "
                                 "present", cmap="viridis"), "presence")
        page.table(named.assign(win_rate=pct_ci(named))[["character", "with", "n", "win_rate"]],
                   "presence", raw=presence)
    h2h = A.head_to_head(r)
    if h2h is not None and not h2h.empty:
        page.h(3, "2-player head to head")
        named = h2h.assign(character=[A.display(c, names) for c in h2h["character"]],
                           character_vs=[A.display(c, names) for c in h2h["character_vs"]])
        mat = named.pivot(index="character", columns="character_vs", values="rate") * 100
        page.figure(heatmap(mat, "Row beats column (%) in 2-player games", center=50,
                            limit=50), "head_to_head")
        page.table(named.assign(win_rate=pct_ci(named))[["character", "character_vs", "n",
                                                         "win_rate"]], "head_to_head", raw=h2h)

    page.h(2, "3. Gear cards")
    page.p("Owner vs non-owner win rates are an association, not an effect: strong players buy "
           "more. same_character: owners minus non-owners among seats of the same character and "
           "player count (Mantel-Haenszel, in points, with Sato's 95% interval), tested with "
           "the Cochran-Mantel-Haenszel test; "
           "all_seats: the raw difference, confounded by who buys. For the causal effect of a "
           "card run experiments/gear_ablation.toml and compare (ascent report VARIANT "
           "--against BASELINE). " + correction, "note")
    if not gear.empty:
        g = gear.sort_values("p", na_position="last").assign(
            purchase=lambda d: pct_ci(d, "purchase_rate", "purchase_ci_low", "purchase_ci_high",
                                      1),
            owners_win=lambda d: pct_ci(d, "owner_win_rate", "owner_ci_low", "owner_ci_high", 1),
            non_owners_win=lambda d: pct_ci(d, "non_owner_win_rate", "non_owner_ci_low",
                                            "non_owner_ci_high", 1),
            winners_owning_it=lambda d: pct_ci(d, "winners_owning", "winners_ci_low",
                                               "winners_ci_high", 1),
            all_seats=lambda d: FS.points_ci(d, "association", "association_ci_low",
                                             "association_ci_high"),
            within_character=lambda d: FS.points_ci(d, "within_character", "within_ci_low",
                                                    "within_ci_high"))
        # two tables, each a page wide: who buys a card, then how its owners fare
        page.p("Purchases: of all seats (n: seats); winners_owning_it: of the winning seats "
               "(n: winners).", "note")
        page.table(g[["card", "seats", "purchase", "median_round", "winners",
                      "winners_owning_it"]], "gear_purchases",
                   {"median_round": lambda v: f"{v:g}", "seats": "{:,}".format,
                    "winners": "{:,}".format},
                   raw=gear[["card", "seats", "purchase_rate", "purchase_ci_low",
                             "purchase_ci_high", "median_round", "winners", "winners_owning",
                             "winners_ci_low", "winners_ci_high"]])
        page.p("Win rates: owners (n: owners) and non-owners (n: non_owners) of the card, their "
               "difference over all seats (all_seats, Newcombe's 95% interval) and among seats "
               "of the same character (same_character). Owners and non-owners sit in the same "
               "games, whose winners are one another's losers, so the all-seats interval is "
               "somewhat too narrow.", "note")
        page.table(g[["card", "owners", "owners_win", "non_owners", "non_owners_win",
                      "all_seats", "within_character", "p_screen"]].rename(
                          columns={"within_character": "same_character"}),
                   "gear", {"p_screen": FS.fmt_p, "owners": "{:,}".format,
                            "non_owners": "{:,}".format}, raw=gear)
        fig, ax = plt.subplots(figsize=(7, 0.32 * len(gear) + 1))
        ordered = gear.sort_values("purchase_rate")
        y = np.arange(len(ordered))
        rate = ordered["purchase_rate"].to_numpy() * 100
        ax.barh(y, rate, color="#6a8caf",
                xerr=[rate - ordered["purchase_ci_low"].to_numpy() * 100,
                      ordered["purchase_ci_high"].to_numpy() * 100 - rate],
                error_kw={"ecolor": "#333", "capsize": 2, "lw": 1})
        ax.set_yticks(y)
        ax.set_yticklabels([mpl_text(c) for c in ordered["card"]])
        seats = ordered["seats"].unique()     # every card's share is of all seats
        ax.set_xlabel("seats that bought it (%, 95% Wilson interval" +
                      (f"; n = {int(seats[0]):,} seats)" if len(seats) == 1 else ")"))
        ax.set_title("Purchase rate per card")
        page.figure(fig, "gear_purchase")

    ablation = A.ablation_table(results_dir)
    if ablation is not None and not ablation.empty:
        page.h(3, "Causal effect of each card (paired on the same games)")
        gains = ablation.groupby("treatment")["pairing_gain"].median()
        page.p("Each treatment changes one card and nothing else; the paired difference against "
               "the baseline is its causal effect on each character. 'never bought': the card "
               "is still dealt, at a price no seat reaches, so setup and deal are unchanged; "
               "'taken out of the deck': every later draw moves, so the games are no longer "
               "alike; 'price': half price and half as much again. Pairing made the intervals "
               + "; ".join(f"{g:.1f}x narrower for '{t}'" for t, g in gains.items())
               + " (median, unpaired over paired width). Worth = the baseline's win rate minus "
               "the rate without the card: positive = the card helps that character. "
               "Coloured and * = Holm-significant across every cell; grey = not.", "note")
        named = ablation.assign(character=[A.display(c, names) for c in ablation["character"]])
        away = named[named["treatment"] != "price"]
        if len(away):
            # a card treated both ways has a row per treatment
            away = away.assign(row=away["card_removed"] + np.where(
                away["treatment"] == "never bought", "", " (out of deck)"))
            mat = away.pivot_table(index="row", columns="character",
                                   values="card_effect") * 100
            sig = away.pivot_table(index="row", columns="character", values="significant",
                                   aggfunc="max").reindex_like(mat)
            sig = sig.fillna(False).astype(bool).to_numpy()
            annot = [[(FS.points(mat.iloc[i, j] / 100) + ("*" if sig[i, j] else ""))
                      if np.isfinite(mat.iloc[i, j]) else "" for j in range(mat.shape[1])]
                     for i in range(mat.shape[0])]
            # the colour scale spans the largest effect, so a one-point effect still shows
            limit = max(0.5, float(np.nanmax(np.abs(mat.to_numpy()))))
            page.figure(heatmap(mat, "Card worth to each character (points, paired)",
                                center=0, annot=annot, shade=sig, limit=limit), "gear_ablation")
        ranking = A.card_worth_ranking(ablation)
        if not ranking.empty and "worth" in ranking:
            page.p("Ranked by worth per 100 XP of price, to the character the card helps most "
                   "(* = Holm-significant). The worth is the largest of the card's effects on "
                   "the characters, so its interval is a 95% one corrected for that choice "
                   "(Bonferroni over the effects it was picked from). points_per_10_xp: how "
                   "far the most price-sensitive character's win rate moves for each 10 XP "
                   "added to the price, from half price to half as much again.", "note")
            shown = ranking.assign(
                helps_most=[A.display(c, names) if isinstance(c, str) else "–"
                            for c in ranking["helps_most"]],
                worth=[FS.points_interval(w, lo, hi) + ('*' if sig_ else '')
                       for w, lo, hi, sig_ in
                       zip(ranking["worth"], ranking["worth_ci_low"], ranking["worth_ci_high"],
                           ranking["worth_significant"])])
            if "most_price_sensitive" in shown:
                shown["most_price_sensitive"] = [A.display(c, names) if isinstance(c, str)
                                                 else "–" for c in shown["most_price_sensitive"]]
            columns = [c for c in ("card", "players", "cost", "helps_most", "worth",
                                   "worth_per_100_xp",
                                   "price_range", "most_price_sensitive", "points_per_10_xp")
                       if c in shown]
            page.table(shown[columns], "card_worth",
                       {"worth_per_100_xp": lambda v: FS.points(v, 2),
                        "points_per_10_xp": lambda v: FS.points(v, 2)}, raw=ranking)
        page.table(named.assign(effect=[
            FS.points_interval(d, lo, hi) for d, lo, hi in
            zip(named["difference"], named["paired_ci_low"], named["paired_ci_high"])])[
            ["card_removed", "treatment", "new_cost", "players", "character", "games", "effect",
             "pairing_gain", "p_holm"]].rename(columns={"effect": "difference [paired 95%]"}),
            "gear_ablation", {"p_holm": FS.fmt_p, "pairing_gain": lambda v: f"{v:.1f}x",
                              "new_cost": lambda v: "–" if v >= A.NEVER_BOUGHT_COST
                              else f"{v:,g}"}, raw=ablation, max_rows=200)

    page.h(2, "4. Milestone draws")
    draws = A.milestone_draw_table(r)
    page.p(f"drawn: the share of the {len(r.games):,} games that drew the route for its tier, "
           "with its 95% interval (games: how many). completion: the share "
           "of the seats of those games (n = seats) that completed it, with its 95% interval "
           "(allowing for the seats of one game being alike: clustered by game). A "
           "seat that completes its third milestone wins at once (R60, R65), so the expert "
           "milestone, most often the last, is completed by about one seat a game: near "
           "1 / players wherever the games are won.", "note")
    page.table(draws.assign(completion=pct_ci(draws, "completion_rate", "completion_ci_low",
                                              "completion_ci_high"),
                            drawn=pct_ci(draws, "drawn", "drawn_ci_low", "drawn_ci_high", 1))[
        ["tier", "route", "area", "tag", "games", "drawn", "seats", "completion"]],
        "milestone_draws", raw=draws)
    if not cells.empty:
        page.p("Each cell: the character's win rate in games with this draw minus its rate in "
               "its other games, in points. Fisher's exact test, only where the character's "
               f"usual rate predicts at least {A.MIN_EXPECTED} wins and losses in the cell. "
               "Coloured = significant on the first screen's correction; grey = not. "
               + correction, "note")
        for tier in A.TIERS:
            sub = cells[cells["tier"] == tier].assign(
                name=lambda d: [A.display(c, names) for c in d["character"]])
            if sub.empty:
                continue
            mat = sub.pivot(index="route", columns="name", values="effect") * 100
            sig = sub.pivot(index="route", columns="name", values="significant") \
                .reindex_like(mat).fillna(False).astype(bool).to_numpy()
            annot = [[(f"{mat.iloc[i, j]:+.1f}" + ("*" if sig[i, j] else ""))
                      if np.isfinite(mat.iloc[i, j]) else "" for j in range(mat.shape[1])]
                     for i in range(mat.shape[0])]
            page.figure(heatmap(mat, f"{tier} milestone: win rate minus the character's rate "
                                     f"in its other games (points; * significant)", center=0,
                                annot=annot, shade=sig, limit=10), f"milestone_{tier}_characters")
        named = cells.assign(character=[A.display(c, names) for c in cells["character"]],
                             other_draws=A.other_draws_text(cells, 2),
                             effect_text=A.effect_text(cells))
        flagged = named[named["significant"].fillna(False).astype(bool)] \
            .sort_values("effect", key=abs, ascending=False)
        cell_formats = {"p_screen": FS.fmt_p, "expected_wins": lambda v: f"{v:.1f}"}
        page.h(3, "Draws that favour or hurt a character (significant)")
        if flagged.empty:
            page.p(f"None among {int(cells['tested'].sum()):,} tested cells "
                   f"({len(cells):,} cells in all).")
        else:
            page.table(flagged.assign(win_rate=pct_ci(flagged))[
                ["tier", "route", "character", "n", "win_rate", "other_draws_n", "other_draws",
                 "effect_text", "p_screen"]].rename(columns=CELL_HEADINGS), "milestone_flags",
                cell_formats, raw=flagged.drop(columns=["other_draws", "effect_text"]))
        page.h(3, "Every cell, smallest p first")
        ordered = named.sort_values(["p", "n"], ascending=[True, False], na_position="last")
        page.table(ordered.assign(win_rate=pct_ci(ordered))[
            ["tier", "route", "character", "n", "expected_wins", "win_rate", "other_draws_n",
             "other_draws", "effect_text", "tested", "p_screen"]]
            .rename(columns=CELL_HEADINGS), "milestone_characters",
            cell_formats, max_rows=25,
            raw=cells.drop(columns=["finding"], errors="ignore"))
    combos = A.milestone_combo_table(r)
    page.h(3, "Tier x area x tag of the draw")
    page.table(combos.assign(no_winner=pct_ci(combos, "no_winner_rate", "no_winner_ci_low",
                                              "no_winner_ci_high"))[
        ["tier", "area", "tag", "games", "median_rounds", "no_winner"]], "milestone_combos",
        {"median_rounds": lambda v: f"{v:g}"}, raw=combos)
    page.h(3, "Game length by milestone set (the most frequent sets)")
    page.table(A.milestone_set_lengths(r), "milestone_sets",
               {"mean_rounds": lambda v: f"{v:.1f}", "median_rounds": lambda v: f"{v:g}",
                "q25": lambda v: f"{v:g}", "q75": lambda v: f"{v:g}"})

    page.h(2, "5. Game flow")
    page.p(f"No winner (round cap): {FS.pct_interval(flow['no_winner_rate'], flow['no_winner_ci_low'], flow['no_winner_ci_high'])} "
           f"of {flow['games']:,} games; median {flow['median_rounds']:g} rounds; games by end: "
           f"{end_reasons_text(flow['end_reasons'])}.")
    fig, ax = plt.subplots(figsize=(7, 3))
    lengths = r.games["rounds"].value_counts().sort_index()
    ax.bar(lengths.index, lengths.to_numpy() / len(r.games) * 100, color="#6a8caf")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("rounds")
    ax.set_ylabel("% of games")
    ax.set_title("Game length")
    page.figure(fig, "game_length")
    prog = A.milestone_progress(r)
    if not prog.empty:
        page.figure(milestone_progress_figure(prog, names), "milestone_progress")
        page.p("% of seats with at least 1 / at least 2 / all 3 milestones done by the end of "
               "the round, of the character's seats (n); the share with all 3 by the end with "
               "its 95% interval; every round, with 95% Wilson intervals, in "
               "tables/milestone_progress.csv.", "note")
        page.table(milestone_progress_summary(prog, names), "milestone_progress",
                   raw=prog)
    page.p("Levels by round are not recorded (the records keep final states only); milestone "
           "rounds are.", "note")
    climbs = A.climb_success_table(r)
    page.h(3, "Climb success per area and character")
    page.p("95% interval allowing for one seat's climbs in a game being alike (the same "
           "character, stats and gear): the climbs are not independent trials, so the interval "
           "is Wilson's on an effective number of climbs (sim/core/stats.py, "
           "clustered_rate_interval).", "note")
    page.table(climbs.assign(character=[A.display(c, names) for c in climbs["character"]],
                             success=pct_ci(climbs, "success_rate"))[
        ["character", "area", "climbs", "success"]], "climb_success", raw=climbs)
    page.h(3, "Action mix per character (mean per seat)")
    mix = A.action_mix(r)
    page.table(mix.assign(character=[A.display(c, names) for c in mix["character"]]),
               "action_mix", {k: (lambda v: f"{v:.1f}") for k in
                              ("climbs", "milestone attempts", "trainings", "rests",
                               "purchases")})
    return f"All-In Ascent report: {r.label}"


def milestone_progress_figure(prog, names):
    """One small panel per character: the share of seats with at least 1, at least 2 and all 3
    milestones done by each round (whole rounds on the axis, the legend outside the data)."""
    chars = list(dict.fromkeys(prog["character"]))
    cols = min(3, len(chars))
    rows = -(-len(chars) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.4 * rows + 0.6), sharex=True,
                             sharey=True, squeeze=False)
    styles = (("at_least_1", "at least 1", "#9ecae1"), ("at_least_2", "at least 2", "#4292c6"),
              ("all_3", "all 3", "#08306b"))
    for ax, char in zip(axes.flat, chars):
        grp = prog[prog["character"] == char]
        for col, label, colour in styles:
            ax.plot(grp["round"], grp[col] * 100, color=colour, label=label, lw=1.6)
        ax.set_title(mpl_text(A.display(char, names)), fontsize=9)
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.grid(alpha=.3)
    for ax in axes.flat[len(chars):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("% of seats")
    for ax in axes[-1, :]:
        ax.set_xlabel("round")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=3, frameon=False, fontsize=8,
               bbox_to_anchor=(0.5, 1.0))
    fig.suptitle("Milestones done by each round", y=1.05, fontsize=10)
    fig.tight_layout()
    return fig


def milestone_progress_summary(prog, names):
    """The progress table at a handful of rounds (every round is in the CSV)."""
    last = int(prog["round"].max())
    marks = sorted({r for r in (5, 10, 15, 20, 25, 30, last) if r <= last})
    sub = prog[prog["round"].isin(marks)]
    rows = []
    for char, grp in sub.groupby("character", sort=False):
        row = {"character": A.display(char, names), "n": f"{int(grp['seats'].iloc[0]):,}"}
        for rnd in marks:
            at = grp[grp["round"] == rnd].iloc[0]
            row[f"round {rnd}"] = (f"{100 * at['at_least_1']:.0f} / {100 * at['at_least_2']:.0f}"
                                   f" / {100 * at['all_3']:.0f}")
        at = grp[grp["round"] == last].iloc[0]
        row["all 3 by the end [95%]"] = FS.pct_interval(at["all_3"], at["all_3_ci_low"],
                                                        at["all_3_ci_high"])
        rows.append(row)
    return pd.DataFrame(rows)
