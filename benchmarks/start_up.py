"""A warm start of `ascent simulate`, split into its start-up and its game (issue 22's "a warm
start stays under 1 s").

    python -m benchmarks.start_up [--runs 5] [--bot GAME:BOT ...] [--no-write]

For each game and bot, with numba's cache warm (one untimed run first fills it):
- the whole command, `ascent simulate --players 4 --games 1 --seed 1 --policy BOT`, a fresh
  process each run, timed from outside;
- the same command a second time in one process (sim.cli.main), timed inside: the game's play,
  its records and its summary, with everything loaded;
- start-up: the difference, what a command pays before and after its own work: Python and
  numba start, the imports, numba's cache loads (and, before function cells, a search bot's
  compile), and the interpreter's exit.

A search bot's game is seconds of search on its own (an MCTS decision is hundreds of
iterations), which no start-up work can shorten; the split says which part a change moved.
For reference, numba's own floor is measured in the same run: a process that loads one cached
function and calls it. Absolute figures drift by 2x between runs on these shared machines, so
start-up is also given as a ratio of that floor. Writes its section of results/BENCHMARKS.md
(not with --bot or --no-write)."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import machine, replace_section

ROOT = Path(__file__).resolve().parents[1]
HEADING = "## A warm start: its start-up and its game (issue 22)"
BOTS = ("all-in-ascent:tuned", "all-in-ascent:mcts-tuned", "ascension:hybrid",
        "ascension:mcts-hybrid", "first-ascent:planner", "first-ascent:mcts-tuned")

FLOOR_MODULE = """from numba import njit


@njit(cache=True)
def plus_one(x):
    return x + 1
"""
FLOOR = "import floor; floor.plus_one(1)"

# the command twice in one process; the second one's own time
TWICE = """import sys, time
from sim.cli import main
command, out = sys.argv[1:-1], sys.argv[-1]
assert main(command + ["--out", out + "/a"]) == 0
started = time.perf_counter()
assert main(command + ["--out", out + "/b"]) == 0
print(time.perf_counter() - started)
"""


def command(game, bot):
    return ["simulate", "--game", game, "--players", "4", "--games", "1", "--seed", "1",
            "--policy", bot, "--quiet"]


def _ran(argv, what, **kwargs):
    """subprocess.run(argv), stopping the benchmark with the command's own error if it fails."""
    done = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        raise SystemExit(f"{what} failed (exit {done.returncode}):\n{done.stderr.strip()}")
    return done


def _seconds(argv, what, **kwargs):
    """Seconds of one process running `argv`, from outside."""
    started = time.perf_counter()
    _ran(argv, what, **kwargs)
    return time.perf_counter() - started


def whole_command(args, cwd):
    """Seconds of one process running `python -m sim.cli ARGS`, from outside."""
    return _seconds([sys.executable, "-m", "sim.cli", *args], "ascent " + " ".join(args),
                    cwd=cwd)


def second_in_process(args, scratch):
    done = _ran([sys.executable, "-c", TWICE, *args, str(scratch)],
                "ascent " + " ".join(args) + " (twice in one process)", cwd=ROOT)
    return float(done.stdout.split()[-1])


def numba_floor(runs, scratch):
    (scratch / "floor.py").write_text(FLOOR_MODULE)
    env = dict(os.environ, PYTHONPATH=str(scratch), NUMBA_CACHE_DIR=str(scratch / "floor_cache"))
    _ran([sys.executable, "-c", FLOOR], "numba's floor", env=env)      # compile, cache
    return [_seconds([sys.executable, "-c", FLOOR], "numba's floor", env=env)
            for _ in range(runs)]


def measure(game, bot, runs, scratch):
    out = scratch / f"{game}-{bot}"
    whole_command(command(game, bot) + ["--out", str(out / "fill")], ROOT)     # fills the cache
    wholes = []
    for k in range(runs):
        wholes.append(whole_command(command(game, bot) + ["--out", str(out / f"w{k}")], ROOT))
    plays = [second_in_process(command(game, bot), out / f"p{k}") for k in range(runs)]
    return {"game": game, "bot": bot, "whole": wholes, "play": plays,
            "start_up": statistics.median(wholes) - statistics.median(plays)}


def _bot_problem(game, bot):
    """Why GAME:BOT cannot be measured (unknown game or bot), or None."""
    from sim.core.game import GameError, get_game
    from sim.core.policies import policy_name_problem
    try:
        get_game(game)
    except GameError as exc:
        return str(exc)
    return policy_name_problem(game, bot)


def spread(seconds):
    return f"{statistics.median(seconds):.2f} [{min(seconds):.2f}, {max(seconds):.2f}]"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each (default 5)")
    parser.add_argument("--bot", action="append", metavar="GAME:BOT",
                        help=f"a game and bot to measure (repeatable; default {', '.join(BOTS)})")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--no-write", action="store_true",
                        help="print only; leave results/BENCHMARKS.md as it is")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, not {args.runs}")
    pairs = []
    for text in args.bot or BOTS:
        game, colon, bot = text.partition(":")
        if not colon or not game or not bot:
            parser.error(f"--bot {text!r}: give GAME:BOT, e.g. ascension:mcts-hybrid")
        problem = _bot_problem(game, bot)
        if problem:
            parser.error(f"--bot {text!r}: {problem}")
        pairs.append((game, bot))
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        floor = numba_floor(args.runs, scratch)
        rows = [measure(game, bot, args.runs, scratch) for game, bot in pairs]
    floor_median = statistics.median(floor)
    lines = [
        HEADING, "",
        f"Command: `python -m benchmarks.start_up --runs {args.runs}"
        + "".join(f" --bot {g}:{b}" for g, b in pairs if args.bot) + "`  ",
        f"Machine: {machine()}. Seconds, median [lowest, highest] of {args.runs} runs, each "
        f"a fresh process; numba's floor (a process that loads one cached function and calls "
        f"it) {spread(floor)} s. Start-up is the whole command's median less the same "
        f"command's, run again in the process that ran it once.", "",
        "| game | bot | whole command | the command again, in the same process | start-up | "
        "start-up / numba's floor |",
        "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['game']} | `{r['bot']}` | {spread(r['whole'])} | "
                     f"{spread(r['play'])} | {r['start_up']:.2f} | "
                     f"{r['start_up'] / floor_median:.2f}x |")
    text = "\n".join(lines)
    print(text)
    if args.json:
        args.json.write_text(json.dumps({"floor": floor, "rows": rows}, indent=1) + "\n")
    if not args.no_write and not args.bot:
        replace_section(HEADING, text)


if __name__ == "__main__":
    main()
