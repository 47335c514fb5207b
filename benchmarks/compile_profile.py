"""Where a cold start's compile time goes, per compiled function.

    NUMBA_CACHE_DIR=<an empty folder> python -m benchmarks.compile_profile --game first-ascent
        [--policy random] [--top 25]

Plays one game through `ascent simulate` (so it compiles exactly what a user's first run
compiles) and listens to numba's "numba:compile" events. A function's own time is its compile
time less that of the functions compiled while it was being compiled (its callees, compiled on
first use). Numba finalises each function's code together with everything it calls, so a
function deep in a call chain is optimised again at every link above it: that cost shows up as
the callers' own time. With a warm cache nothing is compiled and the table is empty.
"""
import argparse
import tempfile
import time
from pathlib import Path

from numba.core import event


class CompileTimes(event.Listener):
    """Own and total seconds per compiled specialization, in the order they finished."""

    def __init__(self):
        self.open = []          # [name, start, seconds spent in nested compiles]
        self.finished = []      # (own seconds, total seconds, name)

    def on_start(self, ev):
        fn = ev.data["dispatcher"].py_func
        self.open.append([f"{fn.__module__}.{fn.__qualname__}", time.perf_counter(), 0.0])

    def on_end(self, ev):
        name, start, nested = self.open.pop()
        total = time.perf_counter() - start
        if self.open:
            self.open[-1][2] += total
        self.finished.append((total - nested, total, name))

    def names(self):
        """The qualified name of each specialization compiled so far, in order."""
        return [name for _, _, name in self.finished]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--policy", default="random")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)

    from sim.cli import main as ascent
    listener = CompileTimes()
    event.register("numba:compile", listener)
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        ascent(["simulate", "--game", args.game, "--players", str(args.players), "--games", "1",
                "--seed", "1", "--policy", args.policy, "--out", str(Path(out) / "run"),
                "--quiet"])
        seconds = time.perf_counter() - start
    by_name = {}
    for own, _, name in listener.finished:
        row = by_name.setdefault(name, [0.0, 0])
        row[0] += own
        row[1] += 1
    print(f"{args.game}, --policy {args.policy}: {seconds:.1f} s for the command, "
          f"{len(listener.finished)} specializations compiled")
    print("| own seconds | copies | function |")
    print("|---|---|---|")
    for name, (own, copies) in sorted(by_name.items(), key=lambda kv: -kv[1][0])[:args.top]:
        print(f"| {own:.2f} | {copies} | `{name}` |")


if __name__ == "__main__":
    main()
