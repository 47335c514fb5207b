"""How long a first run waits for numba, per game and per bot: the figures the compile line
quotes before this machine has measured its own (sim/core/compiling.py).

    python -m benchmarks.compile_estimates [--game G ...] [--players 4] [--repeats 1]

For each game, from an empty numba cache: one `ascent simulate` game with `random` in every
seat (the kernel, the engine and `random`), then, each from a copy of that cache, one game with
each other bot in every seat (what the bot adds). The seconds are the ones the compile line
itself measures and records (compiling.record), so imports and the run's own work are left
out. Writes results/compile_seconds.json (each game with the date and machine of its
measurement), which each game's game.toml names
(`compile_estimates`). A run's estimate is the kernel's figure plus each of its bots' own,
the bots of one family (`planner` and `tuned`; the stair builders) counted once at the
dearest's figure, since they share most of their code (compiling.shipped_estimate). A bot
in parts (a search bot: its search, which the run compiles after its kernel, and its rollout
bot, which a second process compiles meanwhile) also gets the figure of a whole first run,
from an empty cache with that bot in every seat (`first_run`), which a cold start of that bot
alone quotes instead.
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results" / "compile_seconds.json"
GAMES = ("all-in-ascent", "ascension", "first-ascent")


def compiled_seconds(cache, game, policy, players):
    """One game of `policy` in every seat through `ascent simulate`, with `cache` as the numba
    cache; the compile line's own figure (0 if nothing was compiled)."""
    from sim import keyed_cache_dir
    from sim.core import compiling
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run([sys.executable, "-m", "sim.cli", "simulate", "--game", game,
                               "--players", str(players), "--games", "1", "--seed", "1",
                               "--policy", policy, "--out", str(Path(out) / "run"), "--quiet"],
                              env=env, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{game}, {policy}: ascent simulate failed:\n{done.stderr}")
    marker = compiling.marker_path(game, [policy] * players, keyed_cache_dir(cache))
    return json.loads(marker.read_text())["seconds"] if marker.exists() else 0.0


def measure(game, players):
    import importlib

    from sim.core.game import get_game
    from sim.core.policies import policy_names, policy_parts
    spec = get_game(game)
    for module in spec.policy_modules:
        importlib.import_module(module)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        kernel = compiled_seconds(base, game, "random", players)
        print(f"{game}: kernel and random {kernel:.1f} s", flush=True)
        bots = {}
        for name in policy_names(game):
            if name == "random":
                continue
            cache = Path(tmp) / name
            shutil.copytree(base, cache)
            bots[name] = compiled_seconds(cache, game, name, players)
            shutil.rmtree(cache)
            print(f"  {name} {bots[name]:.1f} s", flush=True)
        first_runs = {}
        for name in policy_names(game):
            if policy_parts(game, name):
                cache = Path(tmp) / f"{name}-first-run"
                first_runs[name] = compiled_seconds(cache, game, name, players)
                shutil.rmtree(cache)
                print(f"  {name}, a first run alone {first_runs[name]:.1f} s", flush=True)
    return {"kernel_and_random": kernel, "bots": bots, "first_run": first_runs,
            "measured": (f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, "
                         f"{platform.machine()}, Python {platform.python_version()}, "
                         f"{players} players")}


def median_of(measured):
    """One game's figures from several measure() answers: each figure's median (a shared
    machine's compile times vary by a third from run to run)."""
    first = measured[0]

    def middle(key, sub=None):
        values = [m[key] if sub is None else m[key][sub] for m in measured]
        return round(statistics.median(values), 1)
    return {"kernel_and_random": middle("kernel_and_random"),
            "bots": {name: middle("bots", name) for name in first["bots"]},
            "first_run": {name: middle("first_run", name) for name in first["first_run"]},
            "measured": first["measured"] + (f", median of {len(measured)} runs"
                                              if len(measured) > 1 else "")}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", choices=GAMES)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=1,
                        help="measure each figure this many times and keep the median")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1, not {args.repeats}")
    table = json.loads(OUT.read_text()) if OUT.exists() else {}
    games = table.setdefault("games", {})
    for game in args.game or GAMES:
        games[game] = median_of([measure(game, args.players) for _ in range(args.repeats)])
    table["command"] = "python -m benchmarks.compile_estimates"
    OUT.write_text(json.dumps(table, indent=2, sort_keys=True) + "\n")
    print(f"written: {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
