"""All-In Ascent throughput, compile time and memory. Run: python -m benchmarks.throughput

Writes the figures to results/BENCHMARKS.md (section "All-In Ascent kernel") and prints them.
Every figure is measured here, on this machine; nothing in the test suite asserts a timing.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _child(code, cache_dir=None):
    """Run `code` in a fresh interpreter; return (seconds, its stdout as JSON)."""
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", code], env=env, cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return time.perf_counter() - start, json.loads(out.stdout.strip().splitlines()[-1])


COMPILE = """
import json, time
t0 = time.perf_counter()
from sim.games.all_in_ascent.batch import run_games
run_games(8, 1, 4, ["random", "greedy", "random", "greedy"], threads=2)
print(json.dumps({"seconds": time.perf_counter() - t0}))
"""

MEMORY = """
import json, resource
from sim.games.all_in_ascent.batch import run_games
run_games(16, 1, 4, "greedy")
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
r = run_games(%d, 1, 4, "greedy")
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"peak_kb_before": before, "peak_kb_after": after,
                  "record_bytes_per_game": int(r.final.nbytes / r.final.shape[0])}))
"""


def throughput(policy, threads, games):
    import numpy as np

    from sim.games.all_in_ascent.batch import run_games
    from sim.games.all_in_ascent.state import G_N_ACTIONS
    run_games(16, 1, 4, policy, threads=threads)                     # warm
    r = run_games(games, 1, 4, policy, threads=threads)
    actions = float(np.mean(r.final[:, G_N_ACTIONS]))
    return {"policy": policy, "threads": threads, "games": games,
            "games_per_s": games / r.seconds, "actions_per_game": actions,
            "ns_per_action_per_thread": r.seconds * threads / (games * actions) * 1e9}


def api_throughput(policy, games):
    from sim.games.all_in_ascent.batch import run_games
    from sim.games.all_in_ascent.data import CHARACTER_KEYS
    from sim.games.all_in_ascent.game import Game
    r = run_games(games, 1, 4, policy, threads=1)
    start = time.perf_counter()
    for k in range(games):
        chars = [CHARACTER_KEYS[c] for c in r.characters[k] if c >= 0]
        Game(int(r.seeds[k]), chars, record=False).play(policy)
    return games / (time.perf_counter() - start)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--memory-games", type=int, default=100000)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as cache:
        cold, _ = _child(COMPILE, cache)
        warm, warm_inner = _child(COMPILE, cache)
    rows = [throughput(p, th, args.games) for p in ("random", "greedy") for th in (1, 2)]
    _, mem = _child(MEMORY % args.memory_games)
    api_games = 200
    api_rate = {p: api_throughput(p, api_games) for p in ("random", "greedy")}

    import numba
    lines = [
        "## All-In Ascent kernel (issue 3)",
        "",
        f"Command: `python -m benchmarks.throughput --games {args.games} "
        f"--memory-games {args.memory_games}`  ",
        f"Machine: {os.cpu_count()} cores, {platform.machine()}, Python "
        f"{platform.python_version()}, numba {numba.__version__}. 4 players, v0.4.0 rules, "
        f"random seating, master seed 1.",
        "",
        "| policy | threads | games | games/s | actions/game | ns/action/thread |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['policy']} | {r['threads']} | {r['games']:,} | {r['games_per_s']:,.0f} | "
                     f"{r['actions_per_game']:.0f} | {r['ns_per_action_per_thread']:,.0f} |")
    by = {(r["policy"], r["threads"]): r["games_per_s"] for r in rows}
    lines += [
        "",
        f"- scaling 1 -> 2 threads: random {by[('random', 2)] / by[('random', 1)]:.2f}x, "
        f"greedy {by[('greedy', 2)] / by[('greedy', 1)]:.2f}x",
        f"- cold start, empty numba cache (import + compile + 8 games): {cold:.1f} s",
        f"- start with a warm cache (same, whole process): {warm:.1f} s "
        f"(in-process import + 8 games: {warm_inner['seconds']:.2f} s)",
        f"- memory: {mem['record_bytes_per_game']:,} bytes of record per game in flight; process "
        f"peak RSS {mem['peak_kb_before'] / 1024:.0f} MB before and "
        f"{mem['peak_kb_after'] / 1024:.0f} MB after {args.memory_games:,} greedy games in one "
        f"batch ({(mem['peak_kb_after'] - mem['peak_kb_before']) * 1024 / args.memory_games:,.0f} "
        f"bytes/game)",
        f"- single-game Python API (policy chooses in numba, every action applied through "
        f"`Game.step`), {api_games} games, 1 thread: random {api_rate['random']:,.0f} games/s "
        f"({by[('random', 1)] / api_rate['random']:.0f}x slower than the kernel), greedy "
        f"{api_rate['greedy']:,.0f} games/s ({by[('greedy', 1)] / api_rate['greedy']:.0f}x)",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        path = ROOT / "results" / "BENCHMARKS.md"
        old = path.read_text() if path.exists() else "# Benchmarks\n\n"
        marker = "## All-In Ascent kernel (issue 3)"
        if marker in old:
            head, _, rest = old.partition(marker)
            nxt = rest.find("\n## ")
            old = head + (rest[nxt + 1:] if nxt >= 0 else "")
        path.write_text(old.rstrip() + "\n\n" + text)


if __name__ == "__main__":
    main()
