"""Throughput and compile-time measurements; each script writes its own section of
results/BENCHMARKS.md (replace_section)."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def replace_section(marker, text):
    """Put `text` (starting with the heading `marker`) into results/BENCHMARKS.md, in place of
    the section under that heading if there is one, else at the end."""
    path = ROOT / "results" / "BENCHMARKS.md"
    old = path.read_text() if path.exists() else "# Benchmarks\n\n"
    if marker in old:
        head, _, rest = old.partition(marker)
        nxt = rest.find("\n## ")
        old = head + (rest[nxt + 1:] if nxt >= 0 else "")
    path.write_text(old.rstrip() + "\n\n" + text)
