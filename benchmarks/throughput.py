"""All-In Ascent throughput, compile time and memory. Run: python -m benchmarks.throughput
(issue 22's ratio alone: python -m benchmarks.throughput --ratio-only)

Writes the figures to results/BENCHMARKS.md (section "All-In Ascent kernel") and prints them.
Every figure is measured here, on this machine; nothing in the test suite asserts a timing.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from benchmarks import ROOT, machine, ratio_text, replace_section, times_reference


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


def throughput(policy, threads, games, preset="v0.4.0"):
    import numpy as np

    from sim.games.all_in_ascent.batch import run_games
    from sim.games.all_in_ascent.rules import default_rules
    from sim.games.all_in_ascent.state import G_N_ACTIONS
    rules = default_rules(preset)
    run_games(16, 1, 4, policy, threads=threads, rules=rules)        # warm
    r = run_games(games, 1, 4, policy, threads=threads, rules=rules)
    actions = float(np.mean(r.final[:, G_N_ACTIONS]))
    return {"policy": policy, "threads": threads, "games": games, "preset": preset,
            "games_per_s": games / r.seconds, "actions_per_game": actions,
            "ns_per_action_per_thread": r.seconds * threads / (games * actions) * 1e9}


def interleaved_ratios(bots, threads, games, rounds, preset="v0.4.0"):
    """{bot: [its cost per action over random's, one per round]}. Each round times `random`
    and each bot on `games` games each, in the reverse order every other round: a machine that
    drifts over minutes (by 20-40% here) then moves both sides of a ratio alike, which the
    table's one long run per bot does not ensure."""
    runs = {p: [] for p in ("random",) + tuple(bots)}
    for k in range(rounds):
        for p in (list(runs) if k % 2 == 0 else list(runs)[::-1]):
            runs[p].append(throughput(p, threads, games, preset)["ns_per_action_per_thread"])
    return {p: [x / ref for x, ref in zip(runs[p], runs["random"])] for p in bots}


def lookahead_decisions(games):
    """Decisions per second of `lookahead` (every seat), default budget, 2 threads."""
    import numpy as np

    from sim.games.all_in_ascent.batch import run_games
    from sim.games.all_in_ascent.state import G_N_ACTIONS
    run_games(2, 1, 4, "lookahead", threads=2)                       # warm
    r = run_games(games, 1, 4, "lookahead", threads=2)
    decisions = float(np.sum(r.final[:, G_N_ACTIONS]))
    return {"games": games, "decisions": decisions, "seconds": r.seconds,
            "decisions_per_s": decisions / r.seconds}


def end_to_end(games):
    """`ascent simulate` for the main job's settings, wall time of the whole command."""
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-W", "ignore", "-m", "sim.cli", "simulate", "--players",
                        "4", "--games", str(games), "--seed", "1", "--policy", "tuned", "--out",
                        out, "--quiet"], cwd=ROOT, check=True)
        return time.perf_counter() - start


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
    parser.add_argument("--lookahead-games", type=int, default=8)
    parser.add_argument("--end-to-end-games", type=int, default=100000)
    parser.add_argument("--ratio-rounds", type=int, default=7)
    parser.add_argument("--ratio-games", type=int, default=5000)
    parser.add_argument("--ratio-only", action="store_true",
                        help="measure and print issue 22's ratio only (implies --no-write)")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    ratios = interleaved_ratios(("planner", "tuned"), 2, args.ratio_games, args.ratio_rounds)
    ratio_line = (
        f"- Target (issue 22): `tuned` and `planner` at most 2x `random`'s cost per action. "
        f"Measured in alternation with `random` (2 threads, v0.4.0, {args.ratio_rounds} rounds "
        f"of {args.ratio_games:,} games each), median [lowest, highest] of the rounds' ratios: "
        + ", ".join(f"{p} {statistics.median(r):.2f}x [{min(r):.2f}, {max(r):.2f}]"
                    for p, r in ratios.items()))
    if args.ratio_only:
        print(ratio_line)
        return

    with tempfile.TemporaryDirectory() as cache:
        cold, _ = _child(COMPILE, cache)
        warm, warm_inner = _child(COMPILE, cache)
    policies = ("random", "greedy", "designers-heuristic", "planner", "tuned")
    rows = [throughput(p, th, args.games) for p in policies for th in (1, 2)]
    v060 = [throughput(p, 2, args.games, "v0.6.0")
            for p in ("random", "designers-heuristic", "tuned")]
    look = lookahead_decisions(args.lookahead_games)
    # the single-game API before the end-to-end run: measured after it, in the same process,
    # random's API rate once came out at 37 games/s against about 400 in a fresh process
    api_games = 200
    api_rate = {p: api_throughput(p, api_games) for p in ("random", "greedy")}
    e2e = end_to_end(args.end_to_end_games)
    _, mem = _child(MEMORY % args.memory_games)

    lines = [
        "## All-In Ascent kernel (issues 3, 4, 5)",
        "",
        f"Command: `python -m benchmarks.throughput --games {args.games} "
        f"--memory-games {args.memory_games} --lookahead-games {args.lookahead_games} "
        f"--end-to-end-games {args.end_to_end_games}`  ",
        f"Machine: {machine()}. 4 players, random seating, "
        f"master seed 1.",
        "",
        "The last column is a bot's cost per action over `random`'s under the same preset and "
        "threads, measured in this run (absolute figures drift by 2x between runs on a shared "
        "machine).",
        "",
        "| policy | preset | threads | games | games/s | actions/game | ns/action/thread | "
        "x random |",
        "|---|---|---|---|---|---|---|---|",
    ]
    measured = rows + v060
    for r, x in zip(measured, times_reference(measured, "ns_per_action_per_thread",
                                              same=("preset", "threads"))):
        lines.append(f"| {r['policy']} | {r['preset']} | {r['threads']} | {r['games']:,} | "
                     f"{r['games_per_s']:,.0f} | {r['actions_per_game']:.0f} | "
                     f"{r['ns_per_action_per_thread']:,.0f} | {ratio_text(x)} |")
    by = {(r["policy"], r["threads"]): r["games_per_s"] for r in rows}
    by_ns = {(r["policy"], r["threads"]): r["ns_per_action_per_thread"] for r in rows}
    from policies.all_in_ascent.lookahead import LOOKAHEAD_BUDGET
    k, m, depth, margin = LOOKAHEAD_BUDGET
    scaling = ", ".join(f"{p} {by[(p, 2)] / by[(p, 1)]:.2f}x" for p in policies)
    lines += [
        "",
        f"- scaling 1 -> 2 threads: {scaling}",
        ratio_line + "; in the table's one run each: " + ", ".join(
            f"{p} {r['ns_per_action_per_thread'] / by_ns[('random', 2)]:.2f}x"
            for p in ("planner", "tuned") for r in rows if (r['policy'], r['threads']) == (p, 2)),
        f"- `lookahead` (k={k:g}, M={m:g}, depth {depth:g}, margin {margin:g}; every seat): "
        f"{look['decisions_per_s']:,.0f} "
        f"decisions/s on 2 threads ({look['decisions']:,.0f} decisions in {look['games']} games, "
        f"{look['seconds']:.1f} s)",
        f"- `ascent simulate --players 4 --games {args.end_to_end_games:,} --policy tuned` end "
        f"to end (warm cache, parquet written): {e2e:.1f} s",
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
    if not args.no_write:
        (ROOT / "results" / "benchmarks.json").write_text(json.dumps({
            "games_per_second_2_threads": {p: round(by[(p, 2)], 1) for p in policies},
            "games_per_second_2_threads_v0.6.0": {r["policy"]: round(r["games_per_s"], 1)
                                                  for r in v060},
            "lookahead_decisions_per_second": round(look["decisions_per_s"], 1),
        }, indent=2) + "\n")
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        replace_section("## All-In Ascent kernel", text)


if __name__ == "__main__":
    main()
