"""First Ascent throughput: games/s per bot and player count, 1 and 2 threads; cold compile.

    python -m benchmarks.first_ascent [--scale 1.0] [--no-write]

Writes the "## First Ascent kernel" section of results/BENCHMARKS.md (issue 9). Timings
exclude compilation (each configuration is warmed up on 20 games first), except the
cold-compile line. Characters are drawn by F22 in every game.
"""
import argparse
import time

from benchmarks import (acceptance_lines, cold_compile_seconds, machine, ratio_text,
                        replace_section, times_reference)

# (policy, players, threads, games at scale 1)
PLAN = [("random", 4, 2, 20000), ("random", 4, 1, 10000), ("greedy", 4, 1, 10000), ("greedy", 4, 2, 20000),
        ("greedy", 2, 2, 20000), ("greedy", 3, 2, 20000), ("greedy", 5, 2, 20000),
        ("planner", 4, 1, 2000), ("planner", 4, 2, 4000), ("tuned", 4, 2, 4000)]
TARGET = 5000
PLANNER_TARGET = 4000


def measure(policy, players, threads, games):
    from sim.games.first_ascent import state as S
    from sim.games.first_ascent.batch import run_games
    from sim.games.first_ascent.rules import build_rules
    rules = build_rules(players)
    run_games(20, 1, rules, policy, threads=threads)
    batch = run_games(games, 1, rules, policy, threads=threads)
    rec = batch.records
    return {"policy": policy, "players": players, "threads": threads, "games": games,
            "games_per_s": games / batch.seconds, "rounds": rec[:, S.G_ROUND].mean(),
            "us_per_decision": batch.seconds * threads / rec[:, S.G_DECISIONS].sum() * 1e6}


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the game counts")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    rows = [measure(p, n, t, max(20, int(g * args.scale))) for p, n, t, g in PLAN]
    compile_s = cold_compile_seconds(
        "import time; t=time.perf_counter(); from sim.games.first_ascent.batch import run_games;"
        "from sim.games.first_ascent.rules import build_rules; r=build_rules(4);"
        "[run_games(1, 1, r, p) for p in ('random','greedy','planner','tuned')];"
        "print(time.perf_counter()-t)")
    by = {(r["policy"], r["players"], r["threads"]): r for r in rows}
    g1, g2 = by[("greedy", 4, 1)], by[("greedy", 4, 2)]
    lines = [
        "## First Ascent kernel (issue 9)",
        "",
        f"Command: `python -m benchmarks.first_ascent"
        f"{' --scale ' + str(args.scale) if args.scale != 1 else ''}`  ",
        f"Machine: {machine()}. Default rules (the spec's "
        f"recommended Decisions), master seed 1, the same bot in every seat, characters drawn "
        f"by F22. {time.strftime('%Y-%m-%d')}.",
        "",
        "The last column is a bot's cost per decision over `random`'s at the same player count "
        "and threads, measured in this run: absolute figures drift by 2x between runs on a "
        "shared machine, this ratio much less.",
        "",
        "| policy | players | threads | games | games/s | rounds/game | µs/decision/thread | "
        "x random |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r, x in zip(rows, times_reference(rows, "us_per_decision")):
        lines.append(f"| {r['policy']} | {r['players']} | {r['threads']} | {r['games']:,} | "
                     f"{r['games_per_s']:,.0f} | {r['rounds']:.2f} | "
                     f"{r['us_per_decision']:.2f} | {ratio_text(x)} |")
    met = "met" if g2["games_per_s"] >= TARGET else "not met"
    p2 = by[("planner", 4, 2)]
    lines += [
        "",
        f"- Target (issue 22): `planner` >= {PLANNER_TARGET:,} four-player games/s on 2 threads. "
        f"Measured: {p2['games_per_s']:,.0f} "
        f"({'met' if p2['games_per_s'] >= PLANNER_TARGET else 'not met'}).",
        f"- Target (issue 9): >= {TARGET:,} four-player games/s on 2 threads with `greedy`. "
        f"Measured: {g2['games_per_s']:,.0f} ({g2['games_per_s'] / TARGET:.0%} of the target, "
        f"{met}; {g2['games_per_s'] / g1['games_per_s']:.2f}x from 1 to 2 threads).",
        f"- Cold compile (empty numba cache; engine, kernel and the four bots, one game each): "
        f"{compile_s:.1f} s.",
    ] + acceptance_lines("results/first_ascent/planner_100k") + [""]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        replace_section("## First Ascent kernel", text)


if __name__ == "__main__":
    main()
