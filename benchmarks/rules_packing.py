"""What packing an All-In Ascent rules variant costs against playing it. Run:
python -m benchmarks.rules_packing [--games 2000] [--no-write]

A balance search (`ascent balance`) packs every candidate's rules and then plays a few thousand
games of it; an experiment packs every variant when it loads its spec. The packing works out
the derived tables (the joint dice tables, sim/games/all_in_ascent/probability.py) for each.
This times `build_rules` for each variant of experiments/card_worth.toml (one gear card's
price changed: a data knob each), fastest of three passes, then, as the reference from the
same run (absolute figures on a shared machine vary by 2x), plays --games 4-player games of
one variant under `tuned` on 2 threads (fastest of three), the per-candidate games of
experiments/balance/all_in_ascent_4p.toml. The variants kept per process (rules._VARIANTS)
are cleared before each pack, so that every pack is timed whole; the same variant at another
player count, which a balance search at 2, 3 and 4 players asks for, is timed apart.
Writes the section "Packing a rules variant" of results/BENCHMARKS.md and prints it.
"""
import argparse
import statistics
import time
from datetime import date
from pathlib import Path

from benchmarks import ROOT, machine, replace_section

HEADING = "## Packing a rules variant (issue 22)"
SPEC = Path("experiments") / "card_worth.toml"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    from sim.core.game import get_game
    from sim.experiment.spec import load_spec
    from sim.games.all_in_ascent import rules as packing
    game = get_game("all-in-ascent")
    spec = load_spec(ROOT / SPEC)           # compiles and loads what packing calls
    variants = [v for v in spec.variants if v.knobs or v.rules]
    seconds = [float("inf")] * len(variants)
    for _ in range(3):
        for i, v in enumerate(variants):
            packing._VARIANTS.clear()
            start = time.perf_counter()
            game.build_rules(4, v.preset, v.rules, v.knobs)
            seconds[i] = min(seconds[i], time.perf_counter() - start)
    kept = float("inf")
    for v in variants:
        game.build_rules(4, v.preset, v.rules, v.knobs)
        start = time.perf_counter()
        game.build_rules(3, v.preset, v.rules, v.knobs)
        kept = min(kept, time.perf_counter() - start)
    rules = game.build_rules(4, variants[0].preset, variants[0].rules, variants[0].knobs)
    game.api.play(rules, 8, 1, ["tuned"] * 4, "random", threads=2)          # compiled
    play = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        game.api.play(rules, args.games, 1, ["tuned"] * 4, "random", threads=2)
        play = min(play, time.perf_counter() - start)
    pack = statistics.median(seconds)
    text = "\n".join([
        HEADING, "",
        "Command: `python -m benchmarks.rules_packing`  ",
        f"Machine: {machine()}. {date.today().isoformat()}.",
        "",
        f"`build_rules` for each of the {len(variants)} variants of `{SPEC.as_posix()}` (one "
        "gear card's price each; fastest of three passes), against playing one of them: the "
        "per-candidate games of a balance search, 4 players, `tuned`, 2 threads, fastest of "
        "three, in the same run.",
        "",
        "| what | seconds |",
        "|---|---|",
        f"| packing one variant (median of the variants; fastest {min(seconds):.3f}, slowest "
        f"{max(seconds):.3f}) | {pack:.3f} |",
        f"| the same variant at another player count (kept; fastest) | {kept:.5f} |",
        f"| playing {args.games:,} games of it | {play:.3f} |",
        f"| packing / playing | {pack / play:.2f} |",
        ""])
    print(text)
    if not args.no_write:
        replace_section(HEADING, text)


if __name__ == "__main__":
    main()
