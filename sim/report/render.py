"""`ascent report`: the tables and figures of analysis.py, as one self-contained HTML page (images
embedded, no network), figures/*.png and tables/*.csv in the results folder."""
import base64
import html
import io
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from sim.report import analysis as A  # noqa: E402

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1em;color:#222}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}h3{margin-top:1.4em}
table{border-collapse:collapse;font-size:.85em;margin:.6em 0}
td,th{border:1px solid #ddd;padding:.25em .5em;text-align:right}th{background:#f4f4f4}
td:first-child,th:first-child{text-align:left}.note{color:#555;font-size:.9em}
.finding{background:#fff8e1;border-left:4px solid #f0b400;padding:.5em 1em;margin:.4em 0}
.sig{font-weight:bold;color:#a00}img{max-width:100%}
"""


class Page:
    def __init__(self, out):
        self.out = Path(out)
        self.parts = []
        (self.out / "figures").mkdir(parents=True, exist_ok=True)
        (self.out / "tables").mkdir(parents=True, exist_ok=True)

    def h(self, level, text):
        self.parts.append(f"<h{level}>{html.escape(text)}</h{level}>")

    def p(self, text, cls=None):
        c = f' class="{cls}"' if cls else ""
        self.parts.append(f"<p{c}>{html.escape(text)}</p>")

    def table(self, df, name, formats=None, max_rows=60, raw=None):
        """Show `df` (formatted for reading); save `raw` (the numbers) or `df` as CSV."""
        (df if raw is None else raw).to_csv(self.out / "tables" / f"{name}.csv", index=False)
        shown = df.head(max_rows).copy()
        for col, fmt in (formats or {}).items():
            if col in shown:
                shown[col] = shown[col].map(lambda v, f=fmt: "" if pd.isna(v) else f(v))
        self.parts.append(shown.to_html(index=False, escape=True, border=0))
        if len(df) > max_rows:
            self.p(f"First {max_rows} of {len(df)} rows; all in tables/{name}.csv.", "note")

    def figure(self, fig, name):
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
        plt.close(fig)
        data = buf.getvalue()
        (self.out / "figures" / f"{name}.png").write_bytes(data)
        self.parts.append(f'<img alt="{html.escape(name)}" src="data:image/png;base64,'
                          f'{base64.b64encode(data).decode()}">')

    def write(self, title):
        doc = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
               f"</title><style>{CSS}</style></head><body>" + "\n".join(self.parts) +
               "</body></html>")
        (self.out / "report.html").write_text(doc)
        return self.out / "report.html"


def _write_ascension(r, page, against, against_variant, started):
    from sim.experiment.paired import paired_differences
    from sim.report import ascension
    ascension.render(page, r, plt)
    if against:
        base = A.load_results(against, against_variant)
        if base.meta.get("game") != "ascension":
            raise ValueError(f"{against}: not an Ascension run")
        group = "seat" if r.seats["policy"].nunique() == 1 else "policy"
        page.h(2, f"7. Against {base.label} (paired by game and seat)")
        if not A.same_games(base, r):
            raise ValueError(f"{against}: the two runs did not play the same games (seeds "
                             f"differ): a paired comparison needs the same master seed and games")
        frames = []
        for players in sorted(set(r.games["players"]) & set(base.games["players"])):
            keep_b = base.games.loc[base.games["players"] == players, "game"]
            keep_v = r.games.loc[r.games["players"] == players, "game"]
            d = paired_differences(base.seats[base.seats["game"].isin(keep_b)],
                                   r.seats[r.seats["game"].isin(keep_v)], group)
            frames.append(d.assign(players=players))
        diff = pd.concat(frames, ignore_index=True)
        diff = diff[["players"] + [c for c in diff.columns if c != "players"]]
        page.p("Per player count; p_value is not corrected for the number of rows.", "note")
        page.table(diff, "ascension_paired",
                   {c: (lambda v: f"{100 * v:+.2f}%") for c in
                    ("difference", "paired_ci_low", "paired_ci_high", "unpaired_ci_low",
                     "unpaired_ci_high")} | {"base_win_rate": pct, "variant_win_rate": pct,
                                              "p_value": lambda v: f"{v:.2g}"})
        length = pd.DataFrame({"run": [base.label, r.label],
                               "turns_mean": [base.games["turns"].mean(), r.games["turns"].mean()],
                               "win_end_rate": [(base.games["end_reason"] == "win").mean(),
                                                (r.games["end_reason"] == "win").mean()]})
        page.table(length, "ascension_paired_length", {"win_end_rate": pct})
    page.p(f"Report built in {time.perf_counter() - started:.1f} s.", "note")
    return page.write(f"Ascension report: {r.label}")


def _write_first_ascent(r, page, against, against_variant, started):
    from sim.report import first_ascent
    first_ascent.render(page, r, plt)
    if against:
        _first_ascent_against(r, page, A.load_results(against, against_variant), against)
    page.p(f"Report built in {time.perf_counter() - started:.1f} s.", "note")
    return page.write(f"First Ascent report: {r.label}")


def _first_ascent_against(r, page, base, against):
    """Paired per-character win-rate differences against `base` (the same games: an experiment's
    variants replay the baseline's seeds and seatings), per player count."""
    from sim.experiment.paired import paired_differences
    if base.meta.get("game") != "first-ascent":
        raise ValueError(f"{against}: not a First Ascent run")
    if not A.same_games(base, r):
        raise ValueError(f"{against}: the two runs did not play the same games (seeds differ): "
                         f"a paired comparison needs the same master seed and games")
    page.h(2, f"9. Against {base.label} (paired by game and seat)")
    frames = []
    for players in sorted(set(r.games["players"]) & set(base.games["players"])):
        gb = base.games.loc[base.games["players"] == players, "game"]
        gv = r.games.loc[r.games["players"] == players, "game"]
        common = np.intersect1d(gb.to_numpy(), gv.to_numpy())
        try:
            d = paired_differences(base.seats[base.seats["game"].isin(common)],
                                   r.seats[r.seats["game"].isin(common)], "character")
        except ValueError as exc:
            raise ValueError(f"{against}: {exc}") from None
        frames.append(d.assign(players=players))
    if not frames:
        page.p("No player count in common: nothing to pair.", "note")
        return
    diff = pd.concat(frames, ignore_index=True)
    diff = diff[["players"] + [c for c in diff.columns if c != "players"]]
    diff["p_holm"] = A.holm(diff["p_value"].to_numpy())
    diff["significant"] = diff["p_holm"] < A.ALPHA
    page.p("Variant minus baseline on the same games; a tied win counts for each winner. "
           "p_holm: Holm across every row.", "note")
    sig = diff[diff["significant"]]
    page.p("Changed significantly: " + (", ".join(
        f"{row.character} ({100 * row.difference:+.2f} points, {row.players}p)"
        for row in sig.itertuples()) if len(sig) else "nothing."))
    signed = {c: (lambda v: f"{100 * v:+.2f}%") for c in
              ("difference", "paired_ci_low", "paired_ci_high", "unpaired_ci_low",
               "unpaired_ci_high")}
    page.table(diff, "first_ascent_paired",
               signed | {"base_win_rate": pct, "variant_win_rate": pct,
                         "p_value": lambda v: f"{v:.2g}", "p_holm": lambda v: f"{v:.2g}"})
    fig = forest(diff.assign(rate=diff["difference"], ci_low=diff["paired_ci_low"],
                             ci_high=diff["paired_ci_high"],
                             label=diff["character"] + " " + diff["players"].astype(str) + "p"),
                 "label", "Paired difference in win rate (variant - baseline)", 0.0)
    fig.axes[0].set_xlabel("difference, points (95% paired interval)")
    page.figure(fig, "first_ascent_paired_forest")
    rows = []
    for run in (base, r):
        g, s = run.games, run.seats
        rows.append({"run": run.label, "games": len(g), "mean_rounds": g["rounds"].mean(),
                     "eight_pitches": (g["end_reason"] == "eight_pitches").mean(),
                     "stranded": (g["end_reason"] == "stranded").mean(),
                     "round_cap": (g["end_reason"] == "round_cap").mean(),
                     "mean_score": s["score"].mean()})
    page.table(pd.DataFrame(rows), "first_ascent_paired_length",
               {"mean_rounds": lambda v: f"{v:.2f}", "mean_score": lambda v: f"{v:.2f}",
                "eight_pitches": pct, "stranded": pct, "round_cap": pct})


def pct(v):
    return f"{100 * v:.2f}%"


def pct_ci(df, rate="rate", lo="ci_low", hi="ci_high"):
    return [f"{100 * r:.2f}% [{100 * a:.2f}, {100 * b:.2f}]" for r, a, b in
            zip(df[rate], df[lo], df[hi])]


def forest(df, label_col, title, parity=None):
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(df) + 1.2))
    y = np.arange(len(df))[::-1]
    ax.errorbar(df["rate"] * 100, y, xerr=[(df["rate"] - df["ci_low"]) * 100,
                                           (df["ci_high"] - df["rate"]) * 100],
                fmt="o", color="#1f5fa8", capsize=3)
    if parity is not None:
        ax.axvline(parity * 100, color="#a00", ls="--", lw=1, label="parity")
        ax.legend(loc="lower right")
    ax.set_yticks(y)
    ax.set_yticklabels(df[label_col])
    ax.set_xlabel("win rate, % (95% Wilson interval)")
    ax.set_title(title)
    ax.grid(axis="x", alpha=.3)
    return fig


def heatmap(matrix, title, fmt="{:.0f}", cmap="RdBu_r", center=None, annot=None):
    fig, ax = plt.subplots(figsize=(1.1 * matrix.shape[1] + 3, 0.45 * matrix.shape[0] + 1.5))
    values = matrix.to_numpy(dtype=float)
    vmax = np.nanmax(np.abs(values - (center or 0))) if np.isfinite(values).any() else 1
    kwargs = {"vmin": (center or 0) - vmax, "vmax": (center or 0) + vmax} if center is not None \
        else {}
    im = ax.imshow(values, cmap=cmap, aspect="auto", **kwargs)
    ax.set_xticks(range(matrix.shape[1]))
    ax.set_xticklabels(matrix.columns, rotation=30, ha="right")
    ax.set_yticks(range(matrix.shape[0]))
    ax.set_yticklabels(matrix.index)
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            if np.isfinite(values[i, j]):
                text = annot[i][j] if annot is not None else fmt.format(values[i, j])
                ax.text(j, i, text, ha="center", va="center", fontsize=7)
    fig.colorbar(im, ax=ax)
    ax.set_title(title)
    return fig


def describe_rules(r):
    m = r.meta
    rules = m.get("rules", {})
    preset = m.get("preset") or rules.get("preset", "v0.4.0")
    switches = rules.get("switches") or rules.get("rules") or {}
    knobs = rules.get("knobs") or rules.get("set") or {}
    parts = [f"preset {preset}"]
    if switches:
        parts.append("switches " + ", ".join(f"{k}={v}" for k, v in switches.items()))
    if knobs:
        parts.append("knobs " + ", ".join(f"{k}={v}" for k, v in knobs.items()))
    return "; ".join(parts)


def write_report(results_dir, against=None, variant=None, against_variant=None):
    started = time.perf_counter()
    r = A.load_results(results_dir, variant)
    out = Path(results_dir)
    page = Page(out)
    if r.meta.get("game") == "ascension":
        return _write_ascension(r, page, against, against_variant, started)
    if r.meta.get("game") == "first-ascent":
        return _write_first_ascent(r, page, against, against_variant, started)
    chars = A.character_table(r)
    gear = A.gear_table(r)
    ms_chars = A.milestone_character_table(r)
    flow = A.flow_summary(r)
    policies = r.meta.get("seat_policies") or sorted(r.seats["policy"].astype(str).unique())

    page.h(1, f"All-In Ascent balance report: {r.label}")
    page.h(2, "1. Summary")
    page.p(f"{flow['games']:,} games; {describe_rules(r)}; policies {policies}; player counts "
           f"{sorted(r.games['players'].unique().tolist())}; master seed "
           f"{r.meta.get('master_seed', r.meta.get('seed', 'see experiment.json'))}.")
    page.p("Every rate carries n and a 95% Wilson interval. 'Significant' means Holm-corrected "
           "p < 0.05 within its family (characters, milestone cells, gear cards). Bot skill "
           "matters: see results/LADDER.md for how these bots rank.", "note")
    top = A.findings(chars, gear, ms_chars)
    page.h(3, "What deserves attention")
    if top:
        for text in top:
            page.parts.append(f'<div class="finding">{html.escape(text)}</div>')
    else:
        page.p("No effect is significant at this sample size.")

    page.h(2, "2. Characters")
    for players, grp in chars.groupby("players"):
        grp = grp.sort_values("rate", ascending=False)
        page.h(3, f"{players} players (parity {pct(1 / players)})")
        page.figure(forest(grp, "character", f"Win rate by character, {players} players",
                           1 / players), f"characters_forest_p{players}")
    shown = chars.assign(win_rate=pct_ci(chars))[
        ["players", "character", "n", "win_rate", "vs_parity", "p_holm", "significant"]]
    page.table(shown, "characters", {"vs_parity": lambda v: f"{100 * v:+.2f}",
                                     "p_holm": lambda v: f"{v:.2g}"}, raw=chars)
    seats = A.seat_table(r)
    page.h(3, "Win rate by seat (seat advantage)")
    page.table(seats.assign(win_rate=pct_ci(seats))[
        ["players", "seat", "n", "win_rate", "parity", "p_holm"]], "seats",
        {"parity": pct, "p_holm": lambda v: f"{v:.2g}"}, raw=seats)
    presence = A.presence_table(r)
    page.h(3, "Win rate when another character is at the table")
    mat = presence.pivot(index="character", columns="with", values="rate") * 100
    page.figure(heatmap(mat, "Row character's win rate (%) with the column character present",
                        center=None, cmap="viridis"), "presence")
    page.table(presence.assign(win_rate=pct_ci(presence))[["character", "with", "n", "win_rate"]],
               "presence", raw=presence)
    h2h = A.head_to_head(r)
    if h2h is not None and not h2h.empty:
        page.h(3, "2-player head to head")
        mat = h2h.pivot(index="character", columns="character_vs", values="rate") * 100
        annot = [[f"{mat.iloc[i, j]:.0f}" if np.isfinite(mat.iloc[i, j]) else ""
                  for j in range(mat.shape[1])] for i in range(mat.shape[0])]
        page.figure(heatmap(mat, "Row beats column (%) in 2-player games", center=50,
                            annot=annot), "head_to_head")
        page.table(h2h.assign(win_rate=pct_ci(h2h))[["character", "character_vs", "n",
                                                     "win_rate"]], "head_to_head", raw=h2h)

    page.h(2, "3. Gear cards")
    page.p("Owner vs non-owner win rates are an association, not an effect: strong players buy "
           "more. For the causal effect of a card run experiments/gear_ablation.toml and compare "
           "(ascent report VARIANT --against BASELINE).", "note")
    if not gear.empty:
        g = gear.assign(purchase=pct_ci(gear, "purchase_rate", "purchase_ci_low",
                                        "purchase_ci_high"),
                        owners_win=pct_ci(gear, "owner_win_rate", "owner_ci_low",
                                          "owner_ci_high"),
                        non_owners_win=pct_ci(gear, "non_owner_win_rate", "non_owner_ci_low",
                                              "non_owner_ci_high"),
                        winners_owning_it=pct_ci(gear, "winners_owning", "winners_ci_low",
                                                 "winners_ci_high"))
        page.table(g[["card", "seats", "purchase", "median_round", "winners_owning_it",
                      "owners_win", "non_owners_win", "association", "p_holm"]], "gear",
                   {"association": lambda v: f"{100 * v:+.2f}", "p_holm": lambda v: f"{v:.2g}"},
                   raw=gear)
        fig, ax = plt.subplots(figsize=(7, 0.35 * len(gear) + 1))
        y = np.arange(len(gear))
        ax.barh(y, gear["purchase_rate"] * 100, color="#6a8caf")
        ax.set_yticks(y)
        ax.set_yticklabels(gear["card"])
        ax.set_xlabel("seats that bought it (%)")
        ax.set_title("Purchase rate per card")
        page.figure(fig, "gear_purchase")

    ablation = A.ablation_table(results_dir)
    if ablation is not None and not ablation.empty:
        page.h(3, "Causal effect of each card (ablation: the card taken out of the deck)")
        page.p("Paired on the same games: the baseline's win rate minus the win rate without "
               "the card. Positive = the card helps that character. * = Holm-significant.",
               "note")
        mat = ablation.pivot_table(index="card_removed", columns="character",
                                   values="card_effect") * 100
        sig = ablation.pivot_table(index="card_removed", columns="character",
                                   values="significant", aggfunc="max")
        annot = [[(f"{mat.iloc[i, j]:+.1f}" + ("*" if sig.iloc[i, j] == True else ""))  # noqa
                  if np.isfinite(mat.iloc[i, j]) else "" for j in range(mat.shape[1])]
                 for i in range(mat.shape[0])]
        page.figure(heatmap(mat, "Card effect on win rate (points, paired)", center=0,
                            annot=annot), "gear_ablation")
        page.table(ablation.assign(effect=[
            f"{100 * e:+.2f} [{-100 * hi:+.2f}, {-100 * lo:+.2f}]" for e, lo, hi in
            zip(ablation["card_effect"], ablation["paired_ci_low"], ablation["paired_ci_high"])])[
            ["card_removed", "players", "character", "games", "effect", "p_holm"]],
            "gear_ablation", {"p_holm": lambda v: f"{v:.2g}"}, raw=ablation)

    page.h(2, "4. Milestone draws")
    draws = A.milestone_draw_table(r)
    page.table(draws.assign(completion=pct_ci(draws, "completion_rate", "completion_ci_low",
                                              "completion_ci_high"))[
        ["tier", "route", "area", "tag", "games", "drawn", "completion"]], "milestone_draws",
        {"drawn": pct}, raw=draws)
    if ms_chars is not None and not ms_chars.empty:
        for tier in A.TIERS:
            sub = ms_chars[ms_chars["tier"] == tier]
            if sub.empty:
                continue
            mat = sub.pivot(index="route", columns="character", values="effect") * 100
            sig = sub.pivot(index="route", columns="character", values="significant")
            annot = [[(f"{mat.iloc[i, j]:+.0f}" + ("*" if sig.iloc[i, j] == True else ""))  # noqa: E712
                      if np.isfinite(mat.iloc[i, j]) else "" for j in range(mat.shape[1])]
                     for i in range(mat.shape[0])]
            page.figure(heatmap(mat, f"{tier} milestone: win rate minus the character's usual "
                                     f"(points; * Holm-significant)", center=0, annot=annot),
                        f"milestone_{tier}_characters")
        flagged = ms_chars[ms_chars["significant"]].sort_values("effect", key=abs,
                                                                 ascending=False)
        page.h(3, "Draws that favour or hurt a character (significant)")
        if flagged.empty:
            page.p("None at this sample size.")
        else:
            page.table(flagged.assign(win_rate=pct_ci(flagged))[
                ["tier", "route", "character", "n", "win_rate", "character_rate", "effect",
                 "p_holm"]], "milestone_flags",
                {"character_rate": pct, "effect": lambda v: f"{100 * v:+.2f}",
                 "p_holm": lambda v: f"{v:.2g}"}, raw=flagged)
        page.table(ms_chars, "milestone_characters", max_rows=0)
    combos = A.milestone_combo_table(r)
    page.h(3, "Tier x area x tag of the draw")
    page.table(combos.assign(no_winner=pct_ci(combos, "no_winner_rate", "no_winner_ci_low",
                                              "no_winner_ci_high"))[
        ["tier", "area", "tag", "games", "median_rounds", "no_winner"]], "milestone_combos",
        raw=combos)
    page.h(3, "Game length by milestone set (the most frequent sets)")
    page.table(A.milestone_set_lengths(r), "milestone_sets",
               {"mean_rounds": lambda v: f"{v:.1f}"})

    page.h(2, "5. Game flow")
    page.p(f"No winner (round cap): {pct(flow['no_winner_rate'])} "
           f"[{pct(flow['no_winner_ci_low'])}, {pct(flow['no_winner_ci_high'])}] of "
           f"{flow['games']:,} games; median {flow['median_rounds']:g} rounds; end reasons "
           f"{flow['end_reasons']}.")
    fig, ax = plt.subplots(figsize=(7, 3))
    counts = r.games["rounds"].value_counts().sort_index()
    ax.bar(counts.index, counts.to_numpy() / len(r.games) * 100, color="#6a8caf")
    ax.set_xlabel("rounds")
    ax.set_ylabel("% of games")
    ax.set_title("Game length")
    page.figure(fig, "game_length")
    prog = A.milestone_progress(r)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for char, grp in prog.groupby("character"):
        line = ax.plot(grp["round"], grp["at_least_1"] * 100, label=char)[0]
        ax.fill_between(grp["round"], grp["all_3"] * 100, grp["at_least_2"] * 100,
                        color=line.get_color(), alpha=.12)
    ax.set_xlabel("round")
    ax.set_ylabel("% of seats")
    ax.set_title("Milestone progress: line = at least 1 done; band = all 3 .. at least 2")
    ax.legend(fontsize=7)
    page.figure(fig, "milestone_progress")
    page.table(prog, "milestone_progress", max_rows=0)
    page.p("Levels by round are not recorded (the records keep final states only); milestone "
           "rounds are.", "note")
    climbs = A.climb_success_table(r)
    page.h(3, "Climb success per area and character")
    page.table(climbs.assign(success=pct_ci(climbs, "success_rate"))[
        ["character", "area", "climbs", "success"]], "climb_success", raw=climbs)
    page.h(3, "Action mix per character (mean per seat)")
    page.table(A.action_mix(r), "action_mix", {k: (lambda v: f"{v:.1f}") for k in
                                               ("climbs", "milestone attempts", "trainings",
                                                "rests", "purchases")})

    if against is not None:
        base = A.load_results(against, against_variant)
        page.h(2, f"6. Comparison against {base.label}")
        if A.same_games(base, r):
            diff = A.paired_table(base, r)
            page.p("Both runs played the same games (same seeds and seatings): differences are "
                   "paired, game by game.", "note")
        else:
            diff = None
            page.p("The runs did not play the same games: no paired comparison. Re-run both "
                   "with the same master seed.", "note")
        if diff is not None and not diff.empty:
            d = diff.assign(
                change=[f"{100 * a:.2f}% -> {100 * b:.2f}%" for a, b in
                        zip(diff["base_win_rate"], diff["variant_win_rate"])],
                paired=[f"{100 * m:+.2f} [{100 * lo:+.2f}, {100 * hi:+.2f}]" for m, lo, hi in
                        zip(diff["difference"], diff["paired_ci_low"], diff["paired_ci_high"])],
                unpaired=[f"[{100 * lo:+.2f}, {100 * hi:+.2f}]" for lo, hi in
                          zip(diff["unpaired_ci_low"], diff["unpaired_ci_high"])])
            page.table(d[["players", "character", "games", "change", "paired", "unpaired",
                          "p_holm", "significant"]], "comparison_characters",
                       {"p_holm": lambda v: f"{v:.2g}"}, raw=diff)
            sig = diff[diff["significant"]]
            page.p("Changed significantly: " + (", ".join(
                f"{row.character} ({100 * row.difference:+.2f} points, {row.players}p)"
                for row in sig.itertuples()) if len(sig) else "nothing."))
            fig = forest(diff.assign(rate=diff["difference"] + 0, ci_low=diff["paired_ci_low"],
                                     ci_high=diff["paired_ci_high"],
                                     label=diff["character"] + " " +
                                     diff["players"].astype(str) + "p"),
                         "label", "Paired difference in win rate (variant - baseline)", 0.0)
            fig.axes[0].set_xlabel("difference, points (95% paired interval)")
            page.figure(fig, "comparison_forest")
        bflow = A.flow_summary(base)
        page.p(f"No-winner rate {pct(bflow['no_winner_rate'])} -> {pct(flow['no_winner_rate'])};"
               f" median rounds {bflow['median_rounds']:g} -> {flow['median_rounds']:g}.")
        bg = A.gear_table(base)
        if not bg.empty and not gear.empty:
            m = bg[["card", "purchase_rate"]].merge(gear[["card", "purchase_rate"]], on="card",
                                                    how="outer", suffixes=("_base", "_variant"))
            page.table(m, "comparison_gear", {"purchase_rate_base": pct,
                                              "purchase_rate_variant": pct})
    page.p(f"Written by ascent report in {time.perf_counter() - started:.1f} s.", "note")
    return page.write(f"All-In Ascent report: {r.label}")
