"""Kernel speed of two commits on this machine, measured in pairs.

    python -m benchmarks.compare_commits 4785744 HEAD --rounds 4

A shared 2-core machine drifts by 20-30% over minutes, so timing one commit after the other
says little. Here the two commits run at the same time, one process each, pinned to the two
cores (swapped every round), one numba thread each: both see the same interference, and the
per-round ratio new/old is the measurement. The median ratio over rounds is reported with every
round's figures.

Each commit is checked out into a temporary git worktree and runs in its own process (its own
numba cache, keyed by its sources). Prints a markdown table; nothing is asserted.
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
GAMES = {"random": 15000, "greedy": 4000}

MEASURE = """
import json, sys, time, sim
assert sim.__file__.startswith(%r), sim.__file__
from sim.games.all_in_ascent.batch import run_games
pol, n = sys.argv[1], int(sys.argv[2])
run_games(16, 1, 4, pol, threads=1)
t0 = time.perf_counter()
run_games(n, 1, 4, pol, threads=1)
print(json.dumps(n / (time.perf_counter() - t0)))
"""


def start(tree, core, policy):
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_NUM_THREADS="1")
    return subprocess.Popen(["taskset", "-c", str(core), sys.executable, "-W", "ignore", "-c",
                             MEASURE % str(tree), policy, str(GAMES[policy])], cwd=tree,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc):
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(err)
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        trees = {}
        for name in (args.old, args.new):
            tree = Path(tmp) / name.replace("/", "_")
            subprocess.run(["git", "worktree", "add", "-f", "--detach", str(tree), name],
                           cwd=ROOT, check=True, capture_output=True)
            trees[name] = tree
        runs = {policy: [] for policy in GAMES}
        try:
            for tree in trees.values():                      # compile once, outside the timing
                finish(start(tree, 0, "random"))
                finish(start(tree, 0, "greedy"))
            for r in range(args.rounds):
                for policy in GAMES:
                    old = start(trees[args.old], r % 2, policy)
                    new = start(trees[args.new], 1 - r % 2, policy)
                    runs[policy].append((finish(old), finish(new)))
        finally:
            for tree in trees.values():
                subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT,
                               capture_output=True)
    lines = [f"| 1 thread, games/s | {args.old} | {args.new} | new / old (median of "
             f"{args.rounds} paired rounds) | rounds: old / new |", "|---|---|---|---|---|"]
    for policy, pairs in runs.items():
        ratio = statistics.median(b / a for a, b in pairs)
        lines.append(f"| {policy} | {statistics.median(a for a, _ in pairs):,.0f} | "
                     f"{statistics.median(b for _, b in pairs):,.0f} | {100 * (ratio - 1):+.1f}% | "
                     + ", ".join(f"{a:,.0f} / {b:,.0f}" for a, b in pairs) + " |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
