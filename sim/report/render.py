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
from sim.report import first_screen as FS  # noqa: E402

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:1100px;margin:1.2em auto;
padding:0 1em;color:#222;line-height:1.35}
h1{font-size:1.5em;margin:.2em 0 .3em}h2{margin-top:1.6em;border-bottom:1px solid #ccc}
h3{margin:1em 0 .3em}
.wrap{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:.85em;margin:.4em 0}
td,th{border:1px solid #ddd;padding:.2em .5em;text-align:right;white-space:nowrap}
th{background:#f4f4f4}
td:first-child,th:first-child{text-align:left}.note{color:#555;font-size:.88em}
.meta{color:#444;font-size:.92em;margin:.2em 0}
.bots{background:#eef4fb;border-left:4px solid #1f5fa8;padding:.4em .8em;font-size:.92em}
.screen{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:0 1.6em}
.screen table{font-size:.82em}.screen td,.screen th{padding:.15em .35em}
.screen h2{margin-top:.6em;font-size:1.15em}
.family{margin:.2em 0 .5em}.family b{font-size:.95em}
.family ul{margin:.15em 0 .3em 1.1em;padding:0;font-size:.88em}
.family li{margin:.1em 0}
.none{color:#666;font-size:.88em}
.finding{background:#fff8e1;border-left:4px solid #f0b400;padding:.4em .8em;margin:.4em 0}
.sig{font-weight:bold;color:#a00}img{max-width:100%}
.ranked td:nth-child(2),.ranked th:nth-child(2){text-align:left}
"""


class Page:
    def __init__(self, out, prefix=""):
        """`prefix` names the figure and table files (a comparison page writes compare_*)."""
        self.out = Path(out)
        self.prefix = prefix
        self.filename = "report.html"
        self.parts = []
        (self.out / "figures").mkdir(parents=True, exist_ok=True)
        (self.out / "tables").mkdir(parents=True, exist_ok=True)

    def h(self, level, text):
        self.parts.append(f"<h{level}>{html.escape(text)}</h{level}>")

    def p(self, text, cls=None):
        c = f' class="{cls}"' if cls else ""
        self.parts.append(f"<p{c}>{html.escape(text)}</p>")

    def html(self, text):
        """Raw markup built by this module (every piece of text in it already escaped)."""
        self.parts.append(text)

    def table(self, df, name, formats=None, max_rows=60, raw=None):
        """Show `df` (formatted for reading; a missing value shows as '–'); save `raw` (the
        numbers) or `df` as CSV."""
        (df if raw is None else raw).to_csv(self.out / "tables" / f"{self.prefix}{name}.csv",
                                            index=False)
        shown = df.head(max_rows).copy()
        for col, fmt in (formats or {}).items():
            if col in shown:
                shown[col] = shown[col].map(lambda v, f=fmt: "–" if _missing(v) else f(v))
        shown = shown.astype(object).where(shown.notna(), "–")
        self.parts.append('<div class="wrap">' + shown.to_html(index=False, escape=True, border=0)
                          + "</div>")
        if len(df) > max_rows:
            self.p(f"First {max_rows} of {len(df):,} rows; all in tables/{self.prefix}{name}.csv.",
                   "note")

    def figure(self, fig, name):
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
        plt.close(fig)
        data = buf.getvalue()
        (self.out / "figures" / f"{self.prefix}{name}.png").write_bytes(data)
        self.parts.append(f'<img alt="{html.escape(name)}" src="data:image/png;base64,'
                          f'{base64.b64encode(data).decode()}">')

    def write(self, title, filename=None):
        doc = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
               f"</title><style>{CSS}</style></head><body>" + "\n".join(self.parts) +
               "</body></html>")
        filename = filename or self.filename
        (self.out / filename).write_text(doc)
        return self.out / filename


def _missing(v):
    try:
        return v is None or bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


def mpl_text(text):
    """A label as matplotlib shows it literally: `$` would start math text (and a malformed
    formula fails the whole report after the run)."""
    return str(text).replace("$", r"\$")


# --- the first screen, shared by every game ------------------------------------------------------

SIG = ' class="sig"'


def first_screen(page, title, meta_lines, bot, ranked, ranked_label, seat_lines, screen):
    """The top of every report: what was played, by which bots, who wins (ranked, against the
    effective parity), the seat advantage, and the top findings of each family (one Holm
    correction across the whole screen)."""
    page.h(1, title)
    for line in meta_lines:
        page.p(line, "meta")
    page.p(bot, "bots")
    left, right = [], []
    left.append(f"<h2>{html.escape(ranked_label)}, ranked</h2>")
    left.append('<p class="note">Win share: a shared win counts as 1/k for each of k winners. '
                'Effective parity: the share of decided games / players, what every seat wins '
                'in a fair game. Interval: 95% Wilson.</p>')
    for players, grp in ranked.groupby("players"):
        grp = grp.sort_values("share", ascending=False)
        if not (grp["parity"] > 0).any():
            left.append(f"<p class='finding'>{players} players: no game had a winner, so "
                        f"nothing can be ranked; every game ended without one (see the game "
                        f"flow below).</p>")
        rows = "".join(
            f"<tr><td>{i + 1}</td><td>{html.escape(str(name))}</td>"
            f"<td>{FS.pct_interval(row.share, row.ci_low, row.ci_high)}</td>"
            f"<td{SIG if row.significant else ''}>{FS.points(row.effect)}</td>"
            f"<td>{row.n:,}</td><td>{html.escape(FS.fmt_p(row.p_screen))}</td></tr>"
            for i, (name, row) in enumerate(zip(grp["label"], grp.itertuples())))
        left.append(f"<p class='meta'><b>{players} players</b>, effective parity "
                    f"{FS.pct(grp['parity'].iloc[0])}</p>"
                    f"<div class='wrap'><table class='ranked'><tr><th>#</th>"
                    f"<th>{html.escape(ranked_label.split(' ')[0].lower().rstrip('s'))}</th>"
                    f"<th>win share [95%]</th><th>vs parity</th><th>n</th><th>p_screen</th>"
                    f"</tr>{rows}</table></div>")
    left.append("<h2>Seat advantage</h2>")
    left.extend(f"<p class='meta'>{html.escape(line)}</p>" for line in seat_lines)
    right.append("<h2>Top findings, by family</h2>")
    for family in screen.families:
        found = FS.top_findings(family)
        head = f"<b>{html.escape(family.name[0].upper() + family.name[1:])}</b>"
        if found:
            items = "".join(f"<li>{html.escape(t)}</li>" for t in found)
            more = int(family.table["significant"].fillna(False).astype(bool).sum()) - len(found)
            extra = f"<li class='none'>and {more} more in the detailed table</li>" if more > 0 \
                else ""
            right.append(f"<div class='family'>{head}<ul>{items}{extra}</ul></div>")
        else:
            right.append(f"<div class='family'>{head} <span class='none'>nothing significant "
                         f"among {family.tests:,} tests"
                         f"{'; ' + html.escape(family.untested_note) if family.untested_note else ''}"
                         f"</span></div>")
    right.append(f"<p class='note'>{html.escape(FS.correction_note(screen.families, screen.tests))}"
                 f" So a perfectly fair game shows any finding here in at most 5% of runs.</p>")
    page.html("<div class='screen'><div>" + "".join(left) + "</div><div>" + "".join(right) +
              "</div></div>")


def ranked_table(table, label):
    """A parity table with the display label and the screen-wide p the first screen reads."""
    return table.assign(label=label)


def seat_advantage_figure(seat_table):
    """Win share by seat (1 plays first) with 95% intervals and each count's effective parity."""
    fig, ax = plt.subplots(figsize=(7, 3))
    counts = sorted(seat_table["players"].unique())
    for k, (players, grp) in enumerate(seat_table.groupby("players")):
        x = grp["seat"].to_numpy() + 1 + (k - (len(counts) - 1) / 2) * 0.08
        err = _error_bars(grp["share"], grp["ci_low"], grp["ci_high"])
        line = ax.errorbar(x, grp["share"] * 100, yerr=err, fmt="o", capsize=3,
                           label=f"{players} players")
        ax.axhline(grp["parity"].iloc[0] * 100, ls=":", lw=1, color=line[0].get_color())
    ax.set_xticks(range(1, int(seat_table["seat"].max()) + 2))
    ax.set_xlabel("seat (1 plays first)")
    ax.set_ylabel("win share (%)")
    ax.set_title("Win share by seat; dotted: effective parity")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig


def _error_bars(rate, lo, hi):
    """Error bar lengths in points, never negative (an exact edge at 0 or 1 is a zero bar)."""
    rate, lo, hi = (np.asarray(x, float) for x in (rate, lo, hi))
    return [np.clip(rate - lo, 0, None) * 100, np.clip(hi - rate, 0, None) * 100]


def pct(v):
    return "–" if _missing(v) else f"{100 * v:.2f}%"


def pct_ci(df, rate="rate", lo="ci_low", hi="ci_high"):
    return [FS.pct_interval(r, a, b, 2) for r, a, b in zip(df[rate], df[lo], df[hi])]


def forest(df, label_col, title, parity=None, parity_label="effective parity",
           xlabel="win share, % (95% Wilson interval)"):
    """Point and 95% interval per row, in the order given (sort before); a dashed reference
    line (parity, or 'no change' for differences) named in a legend outside the data."""
    fig, ax = plt.subplots(figsize=(7.5, 0.4 * len(df) + 1.3))
    y = np.arange(len(df))[::-1]
    ax.errorbar(df["rate"] * 100, y, xerr=_error_bars(df["rate"], df["ci_low"], df["ci_high"]),
                fmt="o", color="#1f5fa8", capsize=3)
    if parity is not None:
        ax.axvline(parity * 100, color="#a00", ls="--", lw=1, label=parity_label)
        ax.legend(loc="lower left", bbox_to_anchor=(0, 1.0), frameon=False, fontsize=8)
    ax.set_yticks(y)
    ax.set_yticklabels([mpl_text(v) for v in df[label_col]])
    ax.set_ylim(-0.7, len(df) - 0.3)
    ax.set_xlabel(xlabel)
    ax.set_title(mpl_text(title), loc="right", fontsize=10)
    ax.grid(axis="x", alpha=.3)
    return fig


def heatmap(matrix, title, fmt="{:.0f}", cmap="RdBu_r", center=None, annot=None, shade=None,
            limit=None):
    """A table of colour. With `shade` (a boolean matrix) only those cells take the colour
    scale and the others are grey, so noise is not painted like an effect; `limit` fixes the
    scale's half-range (in the matrix's units) instead of the largest value. Cell text is
    black or white by the cell's brightness."""
    from matplotlib.colors import to_rgb
    fig, ax = plt.subplots(figsize=(1.1 * matrix.shape[1] + 3, 0.42 * matrix.shape[0] + 1.6))
    values = matrix.to_numpy(dtype=float)
    shown = values if shade is None else np.where(np.asarray(shade, bool), values, np.nan)
    finite = shown[np.isfinite(shown)]
    if center is not None:
        largest = np.abs(finite - center).max() if finite.size else 1.0
        # a fixed floor keeps small effects pale; larger effects still widen the scale
        half = max(limit, largest) if limit is not None else largest
        half = half or 1.0
        norm = {"vmin": center - half, "vmax": center + half}
    else:
        norm = {}
    cm = plt.get_cmap(cmap).with_extremes(bad="#ececec")
    im = ax.imshow(np.ma.masked_invalid(shown), cmap=cm, aspect="auto", **norm)
    ax.set_xticks(range(matrix.shape[1]))
    ax.set_xticklabels([mpl_text(c) for c in matrix.columns], rotation=30, ha="right")
    ax.set_yticks(range(matrix.shape[0]))
    ax.set_yticklabels([mpl_text(i) for i in matrix.index])
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            if not np.isfinite(values[i, j]):
                continue
            text = annot[i][j] if annot is not None else fmt.format(values[i, j])
            colour = "black"
            if np.isfinite(shown[i, j]):
                r, g, b = to_rgb(im.cmap(im.norm(shown[i, j])))
                colour = "white" if 0.299 * r + 0.587 * g + 0.114 * b < 0.5 else "black"
            ax.text(j, i, text, ha="center", va="center", fontsize=7, color=colour)
    fig.colorbar(im, ax=ax)
    ax.set_title(mpl_text(title), fontsize=10)
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


def _end_reasons(counts):
    """{'winner': 1900, 'round_cap': 100} -> 'winner 1,900, round_cap 100'."""
    return ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in counts.items())


def _policies(r):
    return r.meta.get("seat_policies") or sorted(r.seats["policy"].astype(str).unique())


def write_report(results_dir, against=None, variant=None, against_variant=None):
    """report.html for a run; with `against`, compare.html instead (the paired comparison on
    its first screen), leaving the run's own report.html as it was."""
    started = time.perf_counter()
    r = A.load_results(results_dir, variant)
    out = Path(results_dir)
    # an experiment's variants share its folder: each variant's pages and files carry its name
    tag = r.meta["variant"] if "variant" in r.meta and not r.meta.get("default_variant") \
        else ""
    if against is not None:
        from sim.report.compare import write_comparison
        base = A.load_results(against, against_variant)
        name = f"compare-{tag}.html" if tag else "compare.html"
        return write_comparison(Page(out, prefix=f"compare_{tag}_" if tag else "compare_"),
                                r, base, against, started, name)
    page = Page(out, prefix=f"{tag}_" if tag else "")
    page.filename = f"report-{tag}.html" if tag else "report.html"
    game = r.meta.get("game", "all-in-ascent")
    if game == "ascension":
        from sim.report import ascension
        ascension.render(page, r, plt)
        page.p(f"Report built in {time.perf_counter() - started:.1f} s.", "note")
        return page.write(f"Ascension report: {r.label}")
    if game == "first-ascent":
        from sim.report import first_ascent
        first_ascent.render(page, r, plt)
        page.p(f"Report built in {time.perf_counter() - started:.1f} s.", "note")
        return page.write(f"First Ascent report: {r.label}")
    _all_in_ascent(page, r, results_dir)
    page.p(f"Written by ascent report in {time.perf_counter() - started:.1f} s.", "note")
    return page.write(f"All-In Ascent report: {r.label}")


def _all_in_ascent(page, r, results_dir):
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
        [f"{', '.join(map(str, counts))} players; {describe_rules(r)}; master seed {seed}. "
         + FS.decided_line(r.games, r.seats)],
        bot_line("all-in-ascent", _policies(r)),
        ranked_table(chars, [A.display(c, names) for c in chars["character"]]), "Characters",
        FS.seat_advantage_lines(seats), screen)
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
           "player count (Mantel-Haenszel), tested with the Cochran-Mantel-Haenszel test; "
           "all_seats: the raw difference, confounded by who buys. For the causal effect of a "
           "card run experiments/gear_ablation.toml and compare (ascent report VARIANT "
           "--against BASELINE). " + correction, "note")
    if not gear.empty:
        g = gear.sort_values("p", na_position="last").assign(
            purchase=lambda d: pct_ci(d, "purchase_rate", "purchase_ci_low", "purchase_ci_high"),
            owners_win=lambda d: pct_ci(d, "owner_win_rate", "owner_ci_low", "owner_ci_high"),
            non_owners_win=lambda d: pct_ci(d, "non_owner_win_rate", "non_owner_ci_low",
                                            "non_owner_ci_high"),
            winners_owning_it=lambda d: pct_ci(d, "winners_owning", "winners_ci_low",
                                               "winners_ci_high"))
        page.table(g[["card", "seats", "purchase", "median_round", "winners_owning_it",
                      "owners_win", "non_owners_win", "association", "within_character",
                      "p_screen"]].rename(columns={"association": "all_seats",
                                                   "within_character": "same_character"}),
                   "gear", {"all_seats": FS.points, "same_character": FS.points,
                            "p_screen": FS.fmt_p, "median_round": lambda v: f"{v:g}"},
                   raw=gear)
        fig, ax = plt.subplots(figsize=(7, 0.32 * len(gear) + 1))
        ordered = gear.sort_values("purchase_rate")
        y = np.arange(len(ordered))
        ax.barh(y, ordered["purchase_rate"] * 100, color="#6a8caf")
        ax.set_yticks(y)
        ax.set_yticklabels([mpl_text(c) for c in ordered["card"]])
        ax.set_xlabel("seats that bought it (%)")
        ax.set_title("Purchase rate per card")
        page.figure(fig, "gear_purchase")

    ablation = A.ablation_table(results_dir)
    if ablation is not None and not ablation.empty:
        page.h(3, "Causal effect of each card (ablation: the card taken out of the deck)")
        page.p("Paired on the same games: the baseline's win rate minus the win rate without "
               "the card. Positive = the card helps that character. Coloured and * = "
               "Holm-significant across every cell of this table; grey = not significant.",
               "note")
        named = ablation.assign(character=[A.display(c, names) for c in ablation["character"]])
        mat = named.pivot_table(index="card_removed", columns="character",
                                values="card_effect") * 100
        sig = named.pivot_table(index="card_removed", columns="character",
                                values="significant", aggfunc="max").reindex_like(mat)
        sig = sig.fillna(False).astype(bool).to_numpy()
        annot = [[(FS.points(mat.iloc[i, j] / 100) + ("*" if sig[i, j] else ""))
                  if np.isfinite(mat.iloc[i, j]) else "" for j in range(mat.shape[1])]
                 for i in range(mat.shape[0])]
        page.figure(heatmap(mat, "Card effect on win rate (points, paired)", center=0,
                            annot=annot, shade=sig, limit=10), "gear_ablation")
        page.table(named.assign(effect=[
            f"{FS.points(e)} [{FS.points(-hi)}, {FS.points(-lo)}]" for e, lo, hi in
            zip(named["card_effect"], named["paired_ci_low"], named["paired_ci_high"])])[
            ["card_removed", "players", "character", "games", "effect", "p_holm"]],
            "gear_ablation", {"p_holm": FS.fmt_p}, raw=ablation)

    page.h(2, "4. Milestone draws")
    draws = A.milestone_draw_table(r)
    page.table(draws.assign(completion=pct_ci(draws, "completion_rate", "completion_ci_low",
                                              "completion_ci_high"))[
        ["tier", "route", "area", "tag", "games", "drawn", "completion"]], "milestone_draws",
        {"drawn": pct}, raw=draws)
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
        named = cells.assign(character=[A.display(c, names) for c in cells["character"]])
        flagged = named[named["significant"].fillna(False).astype(bool)] \
            .sort_values("effect", key=abs, ascending=False)
        cell_formats = {"other_draws_rate": pct, "effect": FS.points, "p_screen": FS.fmt_p,
                        "expected_wins": lambda v: f"{v:.1f}"}
        page.h(3, "Draws that favour or hurt a character (significant)")
        if flagged.empty:
            page.p(f"None among {int(cells['tested'].sum()):,} tested cells "
                   f"({len(cells):,} cells in all).")
        else:
            page.table(flagged.assign(win_rate=pct_ci(flagged))[
                ["tier", "route", "character", "n", "win_rate", "other_draws_rate", "effect",
                 "p_screen"]], "milestone_flags", cell_formats, raw=flagged)
        page.h(3, "Every cell, smallest p first")
        ordered = named.sort_values(["p", "n"], ascending=[True, False], na_position="last")
        page.table(ordered.assign(win_rate=pct_ci(ordered))[
            ["tier", "route", "character", "n", "wins", "expected_wins", "win_rate",
             "other_draws_rate", "effect", "tested", "p_screen"]], "milestone_characters",
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
           f"{_end_reasons(flow['end_reasons'])}.")
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
               "the round (every round in tables/milestone_progress.csv).", "note")
        page.table(milestone_progress_summary(prog, names), "milestone_progress",
                   raw=prog)
    page.p("Levels by round are not recorded (the records keep final states only); milestone "
           "rounds are.", "note")
    climbs = A.climb_success_table(r)
    page.h(3, "Climb success per area and character")
    page.table(climbs.assign(character=[A.display(c, names) for c in climbs["character"]],
                             success=pct_ci(climbs, "success_rate"))[
        ["character", "area", "climbs", "success"]], "climb_success", raw=climbs)
    page.h(3, "Action mix per character (mean per seat)")
    mix = A.action_mix(r)
    page.table(mix.assign(character=[A.display(c, names) for c in mix["character"]]),
               "action_mix", {k: (lambda v: f"{v:.1f}") for k in
                              ("climbs", "milestone attempts", "trainings", "rests",
                               "purchases")})


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
        row = {"character": A.display(char, names)}
        for rnd in marks:
            at = grp[grp["round"] == rnd].iloc[0]
            row[f"round {rnd}"] = (f"{100 * at['at_least_1']:.0f} / {100 * at['at_least_2']:.0f}"
                                   f" / {100 * at['all_3']:.0f}")
        rows.append(row)
    return pd.DataFrame(rows)
