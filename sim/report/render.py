"""`ascent report`: the tables and figures of analysis.py, as one self-contained HTML page (images
embedded, no network), figures/*.png and tables/*.csv in the results folder."""
import base64
import html
import io
import json
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
.validity{background:#fff4e5;border-left:4px solid #c25e00;padding:.3em .8em;font-size:.92em}
.validity ul{margin:.2em 0 .2em 1.2em;padding:0}
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
.caution{color:#c25e00;font-weight:bold}
.grid td,.grid th{white-space:normal;font-size:.88em;padding:.2em .3em}
p.caution{font-weight:normal;font-size:.92em;margin:.3em 0}
"""


class Page:
    def __init__(self, out, prefix=""):
        """`prefix` names the figure and table files (a comparison page writes compare_*)."""
        self.out = Path(out)
        self.prefix = prefix
        self.filename = "report.html"
        self.parts = []
        self.warnings = []      # validity warnings (validity.py), shown on the first screen
        self.skill = None       # validity.SkillCheck: rows whose verdict the skill curve
                                # does not back are marked on the first screen
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

    def table(self, df, name, formats=None, max_rows=60, raw=None, cls=None):
        """Show `df` (formatted for reading; a missing value shows as '–'); save `raw` (the
        numbers) or `df` as CSV. cls "grid": a wide table whose cells may wrap."""
        (df if raw is None else raw).to_csv(self.out / "tables" / f"{self.prefix}{name}.csv",
                                            index=False)
        shown = df.head(max_rows).copy()
        formats = dict(formats or {})
        for col in shown.columns:
            # counts read as the text's counts do: 39,972, not 39972
            if col not in formats and pd.api.types.is_integer_dtype(shown[col]):
                formats[col] = "{:,}".format
        for col, fmt in formats.items():
            if col in shown:
                shown[col] = shown[col].map(lambda v, f=fmt: "–" if _missing(v) else f(v))
        shown = shown.astype(object).where(shown.notna(), "–")
        wrap = f"wrap {cls}" if cls else "wrap"
        self.parts.append(f'<div class="{wrap}">'
                          + shown.to_html(index=False, escape=True, border=0) + "</div>")
        if len(df) > max_rows:
            self.p(f"First {max_rows} of {len(df):,} rows; all in tables/{self.prefix}{name}.csv.",
                   "note")

    def figure(self, fig, name):
        data = png_bytes(fig)
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


def png_bytes(fig, dpi=110):
    """`fig` as PNG, cropped to what it draws (as `bbox_inches="tight"`), then closed.
    matplotlib's "tight" draws a figure twice, once to measure it; a figure whose axes no
    layout engine moves at the draw is measured here without drawing, at the same dpi, and
    drawn once: the same pixels (compared on the 222 figures the report, skill, balance and
    sweep tests draw). A layout engine (constrained layout) would move the axes after such a
    measure, so its figures keep "tight"."""
    from matplotlib.layout_engine import PlaceHolderLayoutEngine
    buf = io.BytesIO()
    if isinstance(fig.get_layout_engine(), PlaceHolderLayoutEngine):
        # what tight_layout() leaves behind: it moves nothing, but savefig would draw once
        # more for it
        fig.set_layout_engine(None)
    if fig.get_layout_engine() is None and hasattr(fig.canvas, "get_renderer"):
        fig.set_dpi(dpi)
        box = fig.get_tightbbox(fig.canvas.get_renderer())
        fig.savefig(buf, format="png", dpi=dpi,
                    bbox_inches=box.padded(matplotlib.rcParams["savefig.pad_inches"]))
    else:
        fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


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


def validity_box(page, warnings):
    items = "".join(f"<li>{html.escape(w)}</li>" for w in warnings)
    page.html(f"<div class='validity'><b>Read with care: what the records say about the "
              f"bots</b><ul>{items}</ul></div>")


def first_screen(page, title, meta_lines, bot, ranked, ranked_label, seat_lines, screen,
                 game=None):
    """The top of every report: what was played, by which bots, who wins (ranked, against the
    effective parity), the seat advantage, and the top findings of each family (one Holm
    correction across the whole screen)."""
    page.h(1, title)
    for line in meta_lines:
        page.p(line, "meta")
    page.p(bot, "bots")
    if page.warnings:
        validity_box(page, page.warnings)
    left, right = [], []
    marks = _artifact_marks(page.skill)
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
        cautions = marks(grp)
        rows = "".join(
            f"<tr><td>{i + 1}</td><td>{html.escape(str(name))}"
            f"{' <span class=caution>⚠</span>' if caution else ''}</td>"
            f"<td>{FS.pct_interval(row.share, row.ci_low, row.ci_high)}</td>"
            f"<td{SIG if row.significant else ''}>{FS.points(row.effect)}</td>"
            f"<td>{row.n:,}</td><td>{html.escape(FS.fmt_p(row.p_screen))}</td></tr>"
            for i, (name, row, caution) in enumerate(zip(grp["label"], grp.itertuples(),
                                                         cautions)))
        left.append(f"<p class='meta'><b>{players} players</b>, effective parity "
                    f"{FS.pct(grp['parity'].iloc[0])}</p>"
                    f"<div class='wrap'><table class='ranked'><tr><th>#</th>"
                    f"<th>{html.escape(ranked_label.split(' ')[0].lower().rstrip('s'))}</th>"
                    f"<th>win share [95%]</th><th>vs parity</th><th>n</th><th>p_screen</th>"
                    f"</tr>{rows}</table></div>")
        left.extend(f"<p class='caution'><span class=caution>⚠ {html.escape(str(name))}</span>"
                    f" may be a bot artifact: {html.escape(caution)}; see "
                    f"{html.escape(page.skill.source)}.</p>"
                    for name, caution in zip(grp["label"], cautions) if caution)
        if page.skill is not None and players in page.skill.unchecked:
            left.append(f"<p class='note'>Not checked against stronger play: "
                        f"{html.escape(page.skill.unchecked[players])}.</p>")
        elif page.skill is not None and (checked := page.skill.checked_note(players)):
            left.append(f"<p class='note'>{html.escape(checked)}</p>")
    left.append("<h2>Seat advantage</h2>")
    left.extend(f"<p class='meta'>{html.escape(line)}</p>" for line in seat_lines)
    right.append("<h2>Top findings, by family</h2>")
    for family in screen.families:
        top = FS.top_rows(family)
        found = [html.escape(t) for t in top["finding"]] if len(top) else []
        # only the family of the ranked rows (characters or seats) carries their verdicts; the
        # reason is said under the ranking
        if page.skill is not None and family.name == f"{page.skill.group}s":
            found = [f"{t} <span class=caution>⚠ may be a bot artifact (see the ranking)</span>"
                     if caution else t for t, caution in zip(found, marks(top))]
        head = f"<b>{html.escape(family.name[0].upper() + family.name[1:])}</b>"
        if found:
            items = "".join(f"<li>{t}</li>" for t in found)
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
    if game is not None:
        left.append(_next_steps(game))
    page.html("<div class='screen'><div>" + "".join(left) + "</div><div>" + "".join(right) +
              "</div></div>")


def _next_steps(game):
    """The commands that take a verdict to a fix, for this game (docs/balancing.md)."""
    flag = f" --game {game}"
    return ("<h2>From verdict to fix</h2><p class='note'>"
            f"<code>ascent rules{flag}</code> lists the knobs and switches. "
            f"<code>ascent sweep{flag} --knob KNOB --range LOW:HIGH:STEP --games N --out DIR"
            "</code>, "
            "with this run's --players, --policy and rules flags, plays one knob over a range "
            "on the same games and shows how every rate moves. "
            "<code>ascent balance SPEC.toml</code> searches for the smallest patch that brings "
            "every rate to a target, and validates it on fresh seeds. How to read both: "
            "docs/balancing.md.</p>")


def _artifact_marks(skill):
    """table -> one caution per row ("" for none): the rows whose verdict the game's skill
    curve does not back (validity.SkillCheck); no marks without a curve for this run."""
    def marks(table):
        if skill is None or not {skill.group, "players", "effect", "significant"} <= \
                set(table.columns):
            return [""] * len(table)
        return [skill.caution(players, key, effect, bool(sig) if not _missing(sig) else False)
                for players, key, effect, sig in zip(table["players"], table[skill.group],
                                                     table["effect"], table["significant"])]
    return marks


def ranked_table(table, label):
    """A parity table with the display label and the screen-wide p the first screen reads."""
    return table.assign(label=label)


def seat_advantage_figure(seat_table, share_note=""):
    """Win share by seat (1 plays first) with 95% intervals and each count's effective parity;
    `share_note` says what a seat's share is where a win is not one seat's."""
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
    ax.set_title("Win share by seat" + (f" ({share_note})" if share_note else "")
                 + "; dotted: effective parity")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig


def _error_bars(rate, lo, hi):
    """Error bar lengths in points, never negative (an exact edge at 0 or 1 is a zero bar)."""
    rate, lo, hi = (np.asarray(x, float) for x in (rate, lo, hi))
    return [np.clip(rate - lo, 0, None) * 100, np.clip(hi - rate, 0, None) * 100]


def pct(v):
    return "–" if _missing(v) else f"{100 * v:.2f}%"


def pct_ci(df, rate="rate", lo="ci_low", hi="ci_high", digits=2):
    """'16.90% [15.55, 18.35]' per row of df: a rate and its 95% interval."""
    return FS.pct_ci(df, rate, lo, hi, digits)


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


def end_reasons_text(counts):
    """{'winner': 1900, 'round_cap': 100} -> 'winner 1,900, round_cap 100'."""
    return ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in counts.items())


def run_policies(r):
    return r.meta.get("seat_policies") or sorted(r.seats["policy"].astype(str).unique())


def _self_comparison(folder, meta):
    """The refusal of a run compared with itself: every difference would read as 0."""
    if "variant" not in meta:
        return (f"--against {folder} is the run itself, so every difference would be 0; "
                f"name another run of the same seeds")
    variants = json.loads((folder / "experiment.json").read_text())
    names = list(variants.get("variant_order") or variants["identity"]["variants"])
    others = ", ".join(v for v in names if v != meta["variant"])
    what = (f"name the changed variant with --variant (this folder's others: {others}), or the "
            f"other side with --against-variant" if others else
            "this experiment has no other variant: name another run of the same seeds")
    return (f"--against {folder}: variant {meta['variant']!r} against itself, so every "
            f"difference would be 0; {what}")


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
        if Path(against).resolve() == out.resolve() and \
                base.meta.get("variant") == r.meta.get("variant"):
            raise ValueError(_self_comparison(out, r.meta))
        name = f"compare-{tag}.html" if tag else "compare.html"
        return write_comparison(Page(out, prefix=f"compare_{tag}_" if tag else "compare_"),
                                r, base, against, started, name)
    page = Page(out, prefix=f"{tag}_" if tag else "")
    page.filename = f"report-{tag}.html" if tag else "report.html"
    from sim.report.validity import skill_check, validity_warnings
    policies = run_policies(r)
    page.warnings = validity_warnings(r, policies)
    page.skill = skill_check(r, policies)
    from sim.core.game import get_game
    title = get_game(r.meta["game"]).api.render_report(page, r, plt, results_dir)
    page.p(f"Report built in {time.perf_counter() - started:.1f} s.", "note")
    return page.write(title)
