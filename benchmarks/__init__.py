"""Throughput and compile-time measurements; each script writes its own section of
results/BENCHMARKS.md (replace_section)."""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# A section's notes written by hand start at this line; a script rewriting it keeps them.
NOTES = ("<!-- The notes below are written by hand: a benchmark that rewrites this section "
         "keeps them. -->")


def replace_section(marker, text):
    """Put `text` (starting with the heading `marker`) into results/BENCHMARKS.md, in place of
    the section under that heading if there is one, else at the end. The section's notes
    written by hand (from the line NOTES to the section's end) stay, after the new text. The
    section is the first whose heading line starts with `marker` (`## Ascension kernel`
    finds `## Ascension kernel (issue 8)`), and runs to the next `## ` heading line; a line
    in a fenced code block (a command's output, say) is no heading."""
    path = ROOT / "results" / "BENCHMARKS.md"
    old = path.read_text() if path.exists() else "# Benchmarks\n\n"
    text = text.rstrip("\n") + "\n"
    lines = old.splitlines(keepends=True)
    start, end = _section_lines(lines, marker)
    if start is None:
        path.write_text(old.rstrip() + "\n\n" + text)
        return
    section = "".join(lines[start:end])
    if NOTES in section:
        text += "\n" + section[section.index(NOTES):].rstrip("\n") + "\n"
    rest = "".join(lines[end:])
    path.write_text("".join(lines[:start]) + text + ("\n" + rest if rest else ""))


def _section_lines(lines, marker):
    """(first line, line after the last) of the first section whose heading line starts with
    `marker`, or (None, None)."""
    start = None
    fenced = False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if start is None and line.startswith(marker):
            start = i
        elif start is not None and line.startswith("## "):
            return start, i
    return (start, len(lines)) if start is not None else (None, None)


def machine():
    """The machine line of a section: cores, architecture, Python and numba."""
    import platform

    import numba
    return (f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}, "
            f"numba {numba.__version__}")


def cold_compile_seconds(code):
    """Seconds for `code` (which prints its own timing last) in a fresh interpreter with an
    empty numba cache."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=tmp)
        out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, check=True,
                             capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def acceptance_lines(relpath):
    """A bullet for an acceptance run timed by `simulate` itself, from its manifest."""
    path = ROOT / relpath / "manifest.json"
    if not path.exists():
        return []
    m = json.loads(path.read_text())
    if m.get("resumed_games"):      # its figures are the last invocation's games only
        return [f"- The issue's acceptance run, timed by `simulate` itself (not run by this "
                f"script): `{m['command']}`; {m['resumed_games']:,} of its {m['games']:,} "
                f"games were played by an interrupted invocation, so it gives no rate."]
    return [f"- The issue's acceptance run, timed by `simulate` itself (not run by this script): "
            f"`{m['command']}` played {m['games']:,} games in {m['wall_seconds']:,.0f} s "
            f"({m['games_per_second']:,.0f} games/s on {m['threads']} threads)."]


def times_reference(rows, cost, same=("players", "threads"), reference="random"):
    """Each row's `cost` (time per action or decision) as a multiple of the `reference` bot's
    row measured in the same run under the same `same` fields (None where there is none).
    Absolute figures on a shared machine drift by 2x from run to run; a ratio within one run
    does not (issue 22)."""
    refs = {tuple(r[k] for k in same): r[cost] for r in rows if r["policy"] == reference}
    return [None if tuple(r[k] for k in same) not in refs else
            r[cost] / refs[tuple(r[k] for k in same)] for r in rows]


def ratio_text(x):
    return "" if x is None else f"{x:.2f}x"

