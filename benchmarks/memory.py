"""Peak memory of `ascent simulate` as the run grows, at a fixed --chunk (issue 18): tables are
streamed to parquet a chunk at a time, so the peak should not grow with --games.

    python -m benchmarks.memory [--games 1000000] [--chunk 50000] [--policy tuned]

Each run is a fresh process (`python -m sim.cli simulate ...`) whose peak resident set size is
read from the kernel's accounting of finished children (getrusage). The numba cache should be
warm: a cold compile peaks higher than any run (LLVM), and that is not what is measured here."""
import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path


WRAPPER = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True); "
           "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def peak_mb(games, chunk, policy, players, out):
    """(peak RSS in MB, wall seconds) of one simulate process. A fresh wrapper process runs it,
    so getrusage's children are this one run alone."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", WRAPPER, sys.executable, "-m", "sim.cli",
                           "simulate", "--players", str(players), "--games", str(games),
                           "--chunk", str(chunk), "--seed", "1", "--policy", policy, "--out",
                           str(out), "--quiet"], check=True, capture_output=True, text=True)
    return int(done.stdout.split()[-1]) / 1024, time.perf_counter() - started


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--chunk", type=int, default=50_000)
    ap.add_argument("--policy", default="tuned")
    ap.add_argument("--players", type=int, default=4)
    args = ap.parse_args(argv)
    sizes = [s for s in (args.chunk, 4 * args.chunk, args.games) if s <= args.games]
    print("| games | chunk | peak RSS (MB) | wall (s) |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        peak_mb(100, 100, args.policy, args.players, Path(tmp) / "warm")   # load the cache
        for games in dict.fromkeys(sizes):
            mb, wall = peak_mb(games, args.chunk, args.policy, args.players,
                               Path(tmp) / f"g{games}")
            print(f"| {games:,} | {args.chunk:,} | {mb:,.0f} | {wall:,.1f} |", flush=True)


if __name__ == "__main__":
    main()
