"""Ascension throughput: games/s per bot and player count, 1 and 2 threads; cold compile.

    python -m benchmarks.ascension [--scale 1.0] [--no-write]

Writes the "## Ascension kernel" section of results/BENCHMARKS.md (issue 8). Timings exclude
compilation (each configuration is warmed up on 2 games first), except the cold-compile line.
"""
import argparse
import time

from benchmarks import (acceptance_lines, cold_compile_seconds, machine, ratio_text,
                        replace_section, times_reference)

# (policy, players, threads, games at scale 1)
PLAN = [("stair-builder", 4, 1, 2000), ("stair-builder", 4, 2, 4000),
        ("stair-builder", 3, 2, 4000), ("stair-builder", 2, 2, 4000),
        ("hybrid", 4, 1, 300), ("hybrid", 4, 2, 600), ("blocker", 4, 2, 400),
        ("random-safe", 4, 2, 200), ("random", 4, 2, 300), ("random", 4, 1, 150)]


def measure(policy, players, threads, games):
    import numba
    import numpy as np

    from sim.games.ascension import state as S
    from sim.games.ascension.batch import run_games
    from sim.games.ascension.rules import build_rules
    rules = build_rules(players)
    run_games(2, 1, rules, policy, threads=threads)
    batch = run_games(games, 1, rules, policy, threads=threads)
    turns = batch.records[:, S.G_TURN_COUNT].astype(np.int64)
    decisions = batch.records[:, S.G_DECISIONS].astype(np.int64)
    _ = numba
    return {"policy": policy, "players": players, "threads": threads, "games": games,
            "games_per_s": games / batch.seconds, "turns": turns.mean(),
            "us_per_decision": batch.seconds * threads / decisions.sum() * 1e6,
            "won": float((batch.records[:, S.G_END_REASON] == S.END_WIN).mean())}


def cold_compile():
    """Seconds to import and compile the Ascension engine, kernel and bots with an empty cache,
    and to play one 4-player game of each bot."""
    return cold_compile_seconds(
        "import time; t=time.perf_counter(); from sim.games.ascension.batch import run_games;"
        "from sim.games.ascension.rules import build_rules; r=build_rules(4);"
        "[run_games(1, 1, r, p) for p in ('random','random-safe','stair-builder','hybrid',"
        "'blocker')]; print(time.perf_counter()-t)")


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the game counts")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    rows = [measure(p, n, t, max(10, int(g * args.scale))) for p, n, t, g in PLAN]
    compile_s = cold_compile()
    by = {(r["policy"], r["players"], r["threads"]): r for r in rows}
    sb1, sb2 = by[("stair-builder", 4, 1)], by[("stair-builder", 4, 2)]
    lines = [
        "## Ascension kernel (issue 8)",
        "",
        f"Command: `python -m benchmarks.ascension{' --scale ' + str(args.scale) if args.scale != 1 else ''}`  ",
        f"Machine: {machine()}. Default rules, master seed 1, "
        f"the same bot in every seat. {time.strftime('%Y-%m-%d')}.",
        "",
        "The last column is a bot's cost per decision over `random`'s at the same player count "
        "and threads, measured in this run (absolute figures drift by 2x between runs on a "
        "shared machine).",
        "",
        "| policy | players | threads | games | games/s | turns/game | won | µs/decision/thread "
        "| x random |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r, x in zip(rows, times_reference(rows, "us_per_decision")):
        lines.append(f"| {r['policy']} | {r['players']} | {r['threads']} | {r['games']:,} | "
                     f"{r['games_per_s']:,.0f} | {r['turns']:.0f} | {100 * r['won']:.1f}% | "
                     f"{r['us_per_decision']:.1f} | {ratio_text(x)} |")
    hy2 = by[("hybrid", 4, 2)]
    lines += [
        "",
        f"- Targets (issue 22): `stair-builder` >= 2,000 four-player games/s on 2 threads, "
        f"`hybrid` >= 500. Measured: {sb2['games_per_s']:,.0f} and {hy2['games_per_s']:,.0f} "
        f"({'met' if sb2['games_per_s'] >= 2000 and hy2['games_per_s'] >= 500 else 'not met'}).",
        f"- Target (issue 8): >= 2,000 four-player games/s on 2 threads with `stair-builder`. "
        f"Measured: {sb2['games_per_s']:,.0f} ({sb2['games_per_s'] / 2000:.0%} of the target; "
        f"{sb2['games_per_s'] / sb1['games_per_s']:.2f}x from 1 to 2 threads). "
        f"{'Met' if sb2['games_per_s'] >= 2000 else 'Not met'}. Most of "
        f"the time is the bots' staircase search (policies/ascension/staircase.py, a Dijkstra "
        f"over 81 squares x 14 target heights, twice a turn): the engine and the view cost "
        f"{by[('random', 4, 2)]['us_per_decision']:.1f} us per decision (the `random` row), the "
        f"stair builder {sb2['us_per_decision']:.1f}.",
        f"- Cold compile (empty numba cache; engine, kernel and the five bots, one game each): "
        f"{compile_s:.1f} s.",
    ] + acceptance_lines("results/ascension/hybrid_100k") + [""]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        replace_section("## Ascension kernel", text)


if __name__ == "__main__":
    main()
