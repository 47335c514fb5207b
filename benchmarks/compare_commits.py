"""Kernel speed of two commits on this machine, measured in pairs.

    python -m benchmarks.compare_commits 4785744 HEAD --rounds 4 [--game ascension]
        [--policy tuned=3000 ...]

A shared 2-core machine drifts by 20-30% over minutes, so timing one commit after the other
says little. Here the two commits run at the same time, one process each, pinned to the two
cores (swapped every round), one numba thread each: both see the same interference, and the
per-round ratio new/old is the measurement. The median ratio over rounds is reported with every
round's figures.

A change to a bot's decisions changes its games' length, and games/s with it: the table also
gives each side's decisions a game (from the games' records) and the paired ratio per decision
(decisions/s new over old), the bot's cost where the games differ.

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
# per game: games per measurement for each policy, and how one run is played (the batch entry
# points, whose signatures both sides of a comparison share), and the decisions a batch's games
# took, from their records (actions for All-In Ascent)
GAMES = {
    "all-in-ascent": ({"random": 15000, "greedy": 4000}, """
from sim.games.all_in_ascent.batch import run_games
from sim.games.all_in_ascent.state import G_N_ACTIONS
play = lambda n, pol: run_games(n, 1, 4, pol, threads=1)
decisions = lambda batch: int(batch.final[:, G_N_ACTIONS].sum())
"""),
    "ascension": ({"random": 3000, "stair-builder": 600}, """
from sim.games.ascension.batch import run_games
from sim.games.ascension.rules import build_rules
from sim.games.ascension.state import G_DECISIONS
play = lambda n, pol: run_games(n, 1, build_rules(4), [pol] * 4, threads=1)
decisions = lambda batch: int(batch.records[:, G_DECISIONS].sum())
"""),
    "first-ascent": ({"random": 15000, "greedy": 8000}, """
from sim.games.first_ascent.batch import run_games
from sim.games.first_ascent.rules import build_rules
from sim.games.first_ascent.state import G_DECISIONS
play = lambda n, pol: run_games(n, 1, build_rules(4), [pol] * 4, threads=1)
decisions = lambda batch: int(batch.records[:, G_DECISIONS].sum())
"""),
}

MEASURE = """
import json, sys, time, sim
assert sim.__file__.startswith(%r), sim.__file__
%s
pol, n = sys.argv[1], int(sys.argv[2])
play(16, pol)
t0 = time.perf_counter()
batch = play(n, pol)
print(json.dumps([n / (time.perf_counter() - t0), decisions(batch) / n]))
"""


def start(tree, core, game, policy):
    counts, setup = GAMES[game]
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_NUM_THREADS="1")
    return subprocess.Popen(["taskset", "-c", str(core), sys.executable, "-W", "ignore", "-c",
                             MEASURE % (str(tree), setup), policy, str(counts[policy])],
                            cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


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
    parser.add_argument("--game", choices=sorted(GAMES), default="all-in-ascent")
    parser.add_argument("--policy", action="append", default=[], metavar="NAME=GAMES",
                        help="measure this bot with this many games a measurement (repeatable; "
                             "default: the game's random and greedy)")
    args = parser.parse_args(argv)
    policies = GAMES[args.game][0]
    if args.policy:
        try:
            policies = {name: int(n) for name, n in (p.split("=", 1) for p in args.policy)}
        except ValueError:
            parser.error(f"--policy: expected NAME=GAMES, e.g. tuned=3000; got {args.policy}")
        GAMES[args.game] = (policies, GAMES[args.game][1])
    with tempfile.TemporaryDirectory() as tmp:
        trees = {}
        for name in (args.old, args.new):
            tree = Path(tmp) / name.replace("/", "_")
            subprocess.run(["git", "worktree", "add", "-f", "--detach", str(tree), name],
                           cwd=ROOT, check=True, capture_output=True)
            trees[name] = tree
        runs = {policy: [] for policy in policies}
        try:
            for tree in trees.values():                      # compile once, outside the timing
                for policy in policies:
                    finish(start(tree, 0, args.game, policy))
            for r in range(args.rounds):
                for policy in policies:
                    old = start(trees[args.old], r % 2, args.game, policy)
                    new = start(trees[args.new], 1 - r % 2, args.game, policy)
                    runs[policy].append((finish(old), finish(new)))
        finally:
            for tree in trees.values():
                subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT,
                               capture_output=True)
    print(comparison_table(args.game, args.old, args.new, args.rounds, runs))


def comparison_table(game, old, new, rounds, runs):
    """The markdown table of `runs` ({policy: [((games/s, decisions a game) old, (...) new),
    one a round]}): games/s, decisions a game, and the paired medians."""
    lines = [f"| {game}, 1 thread, games/s | {old} | {new} | new / old (median of {rounds} "
             f"paired rounds) | decisions a game, old / new | decisions/s, new / old | "
             f"rounds, games/s: old / new |", "|---|---|---|---|---|---|---|"]
    for policy, pairs in runs.items():
        ratio = statistics.median(b[0] / a[0] for a, b in pairs)
        per_decision = statistics.median(b[0] * b[1] / (a[0] * a[1]) for a, b in pairs)
        lines.append(f"| {policy} | {statistics.median(a[0] for a, _ in pairs):,.0f} | "
                     f"{statistics.median(b[0] for _, b in pairs):,.0f} | "
                     f"{100 * (ratio - 1):+.1f}% | {pairs[0][0][1]:,.1f} / {pairs[0][1][1]:,.1f} | "
                     f"{100 * (per_decision - 1):+.1f}% | "
                     + ", ".join(f"{a[0]:,.0f} / {b[0]:,.0f}" for a, b in pairs) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
