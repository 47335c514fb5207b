"""Where a kernel's time goes, by numba function, with Linux `perf`.

    perf record -F 1999 -o perf.data python -m benchmarks.jit_profile \
        --game first-ascent --policy planner --games 15000
    python -m benchmarks.jit_profile --report perf.data

The first command plays the games on one thread, then writes the process's perf map
(perf-<pid>.map in the temporary folder, where perf looks for it), which names the address range
of every function numba compiled in the process, so that `perf report` can name the samples
that fell in compiled code. The run compiles into an empty numba cache of its own: a function
loaded from a warm cache brings no module to read its symbols from, and the compile adds
samples outside the compiled code only. The second prints each compiled function's share of
the samples that fell in compiled code (the compile's own samples are left out). A function
that LLVM inlined is counted in its caller.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

# A fresh, empty numba cache, set before sim (which keys the cache folder) and numba are
# imported: every function is then compiled in this process. numba has no switch that turns
# its cache off (there is no NUMBA_DISABLE_CACHE), and a function loaded from a warm cache
# leaves no module to read its symbols from: the perf map came out empty.
_EMPTY_CACHE = tempfile.TemporaryDirectory(prefix="jit_profile-")
os.environ["NUMBA_CACHE_DIR"] = _EMPTY_CACHE.name


def write_perf_map():
    """The perf map of every function compiled in this process; returns its path."""
    from sim.core.jit import compiled_specializations
    names = {}
    for _, cres in compiled_specializations():
        module = getattr(cres.library, "_final_module", None)
        # a callee Python never called has no machine code (sim/core/jit.py)
        if module is None or getattr(cres.library, "_machine_code_pending", False):
            continue
        for fn in module.functions:
            if fn.is_declaration:
                continue
            address = cres.library.get_pointer_to_function(fn.name)
            if address:
                names[address] = fn.name
    path = os.path.join(tempfile.gettempdir(), f"perf-{os.getpid()}.map")
    starts = sorted(names)
    with open(path, "w") as out:
        for i, start in enumerate(starts):
            # a function ends where the next begins (perf needs a size)
            size = min(starts[i + 1] - start if i + 1 < len(starts) else 4096, 1 << 20)
            out.write(f"{start:x} {size:x} {names[start]}\n")
    return path


def play(game, policy, games):
    """`games` four-player games of `policy` in every seat, through the game protocol."""
    from sim.core.game import get_game
    spec = get_game(game)
    rules = spec.build_rules(4)
    spec.api.play(rules, 20, 1, [policy] * 4, "random", threads=1)           # compile
    start = time.perf_counter()
    spec.api.play(rules, games, 1, [policy] * 4, "random", threads=1)
    seconds = time.perf_counter() - start
    print(f"{games:,} {game} games of {policy}, 4 players, one thread: {seconds:.1f} s "
          f"({games / seconds:,.0f} games/s); perf map: {write_perf_map()}")


def demangle(symbol):
    """A numba symbol's dotted name: _ZN8policies12first_ascent...E -> policies.first_ascent..."""
    parts = []
    i = 3
    while i < len(symbol) and symbol[i].isdigit():
        j = i
        while symbol[j].isdigit():
            j += 1
        n = int(symbol[i:j])
        parts.append(symbol[j:j + n])
        i = j + n
    return ".".join(parts)


def report(data, top):
    out = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "sym",
                          "--stdio"], capture_output=True, text=True, check=True).stdout
    shares = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[\.\]\s+(_ZN\S+)", line)
        if m:
            name = demangle(m.group(2))
            shares[name] = shares.get(name, 0.0) + float(m.group(1))
    total = sum(shares.values())
    if not total:
        sys.exit(f"jit_profile: no sample in compiled code in {data}; was it recorded with "
                 f"this script, and is its perf map (perf-<pid>.map) still there?")
    print(f"{total:.1f}% of all samples fell in compiled code; each function's share of those:")
    for name, share in sorted(shares.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{100 * share / total:5.1f}%  {name}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="all-in-ascent")
    parser.add_argument("--policy", default="tuned")
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--report", metavar="PERF_DATA",
                        help="print the shares from a recorded perf.data instead")
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args(argv)
    if args.report:
        report(args.report, args.top)
    else:
        play(args.game, args.policy, args.games)


if __name__ == "__main__":
    main()
