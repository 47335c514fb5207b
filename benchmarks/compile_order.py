"""Record the order in which each game's kernel compiles from an empty cache, for the second
process of a cold start (sim/core/compile_order.py).

    python -m benchmarks.compile_order [--game G ...] [--players 4]

For each game, in a fresh process with an empty numba cache: one `ascent simulate` game with
`random` in every seat and `--threads 1` (so that no second process compiles any of it), whose
compile is recorded. Writes results/compile_order.json, which each game's game.toml names
(`compile_order`). Run it again after a change to an engine's functions or their arguments:
tests/test_compile_order.py fails while a recorded function or signature is no longer the
kernel's.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results" / "compile_order.json"
GAMES = ("all-in-ascent", "ascension", "first-ascent")


def record_here(game, players):
    """The compile order of one cold game of `game` in this process (whose cache is empty)."""
    from sim.cli import main as ascent
    from sim.core.compile_order import record
    with tempfile.TemporaryDirectory() as out:
        def play():
            code = ascent(["simulate", "--game", game, "--players", str(players), "--games",
                           "1", "--seed", "1", "--policy", "random", "--threads", "1",
                           "--out", str(Path(out) / "run"), "--quiet"])
            if code != 0:
                raise SystemExit(f"{game}: ascent simulate failed ({code})")
        return record(play)


def record_cold(game, players):
    """record_here in a fresh process with an empty numba cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        done = subprocess.run([sys.executable, "-m", "benchmarks.compile_order", "--child",
                               game, "--players", str(players)],
                              env=env, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{game}: recording failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", choices=GAMES)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--child", choices=GAMES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(record_here(args.child, args.players)))
        return
    from sim.core.compile_order import save
    for game in args.game or GAMES:
        order = record_cold(game, args.players)
        save(OUT, game, order)
        print(f"{game}: {len(order['functions'])} functions", flush=True)
    print(f"written: {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
