"""Kernel speed of two commits, measured interleaved on this machine (the noise of a shared
2-core machine drifts over minutes; interleaving, best of 2 within a round and the median over
rounds keep the comparison fair).

    python -m benchmarks.compare_commits 4785744 HEAD --rounds 3

Each commit is checked out into a temporary git worktree and measured in its own process (its
own numba cache, keyed by its sources). Prints a markdown table; nothing is asserted.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MEASURE = """
import json, sim
assert sim.__file__.startswith(%r), sim.__file__
from sim.games.all_in_ascent.batch import run_games
out = {}
for pol, n in (("random", 20000), ("greedy", 8000)):
    for th in (1, 2):
        run_games(16, 1, 4, pol, threads=th)
        out[f"{pol}/{th}"] = max(n / run_games(n, 1, 4, pol, threads=th).seconds
                                 for _ in range(2))
print(json.dumps(out))
"""


def measure(tree):
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", MEASURE % str(tree)], cwd=tree,
                         env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        trees = {}
        for name in (args.old, args.new):
            tree = Path(tmp) / name.replace("/", "_")
            subprocess.run(["git", "worktree", "add", "-f", "--detach", str(tree), name],
                           cwd=ROOT, check=True, capture_output=True)
            trees[name] = tree
        runs = {name: [] for name in trees}
        try:
            for _ in range(args.rounds):
                for name, tree in trees.items():
                    runs[name].append(measure(tree))
        finally:
            for tree in trees.values():
                subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT,
                               capture_output=True)
    keys = list(runs[args.old][0])
    lines = [f"| games/s (best of 2, median of {args.rounds} interleaved rounds) | "
             f"{args.old} | {args.new} | change | rounds ({args.old}; {args.new}) |",
             "|---|---|---|---|---|"]
    for k in keys:
        olds = [r[k] for r in runs[args.old]]
        news = [r[k] for r in runs[args.new]]
        a, b = statistics.median(olds), statistics.median(news)
        lines.append(f"| {k.replace('/', ', ')} threads | {a:,.0f} | {b:,.0f} | "
                     f"{100 * (b / a - 1):+.1f}% | {', '.join(f'{x:,.0f}' for x in olds)}; "
                     f"{', '.join(f'{x:,.0f}' for x in news)} |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
