"""`ascent simulate` for every game: play the run in chunks, stream games.parquet and
seats.parquet, write manifest.json, print a summary.

A game's commands supply the chunk player, its record tables, the run's identity (what its games
depend on) and the manifest fields of its own; this module owns the loop, the progress line and
the folder (sim/core/output.py: atomic, locked, fingerprinted), so every game's output folder
has the same shape and the same guarantees."""
import platform
import sys
import time
from pathlib import Path

import numpy as np

from sim.core.output import (OutputError, RunWriter, folder_lock, folder_state,
                             restore_set_aside, run_fingerprint)


def simulate_to_folder(args, command_line, game, identity, manifest_fields, play_chunk, tables,
                       schema_version, summary, summary_columns):
    """play_chunk(n, first_index) -> batch; tables(batch) -> (games, seats) DataFrames;
    summary(games, seats) -> text, read back from the finished folder with `summary_columns`
    ((games columns, seats columns)), so no table is held whole in memory.

    `identity`: everything the games depend on besides the seed and game count (rules, seat
    policies, characters...); with the game, seed, count and record schema it makes the run's
    fingerprint."""
    import numba
    from importlib.metadata import version
    out = Path(args.out)
    fingerprint = run_fingerprint({"game": game, "master_seed": args.seed, "games": args.games,
                                   "players": args.players, "schema": schema_version,
                                   **identity})
    out.parent.mkdir(parents=True, exist_ok=True)
    with folder_lock(out):
        restore_set_aside(out)
        state = folder_state(out, fingerprint)
        if state == "same":
            if not args.quiet:
                print(f"{out}/ already holds this run (same rules, bots, seed and games): "
                      f"nothing to play")
                print(_summary_from(out, summary, summary_columns))
            return 0
        if state == "foreign":
            raise OutputError(f"{out}: holds files that are not an ascent run; --overwrite "
                              f"replaces only a run folder: choose another --out")
        if state == "other run" and not args.overwrite:
            raise OutputError(f"{out}: holds another run; pass --overwrite to replace it, or "
                              f"choose another --out")
        try:
            writer = RunWriter(out, fingerprint, args.games)
        except OSError as exc:
            raise OutputError(f"{out.parent}: cannot write here ({exc.strerror or exc})") \
                from None
        try:
            started = time.perf_counter()
            done = 0
            while done < args.games:
                n = min(args.chunk, args.games - done)
                writer.add(*tables(play_chunk(n, done)))
                done += n
                if args.games > args.chunk and not args.quiet:
                    rate = done / (time.perf_counter() - started)
                    print(f"\r{done:,}/{args.games:,} games  {rate:,.0f} games/s  "
                          f"ETA {(args.games - done) / rate:,.0f} s", end="", file=sys.stderr,
                          flush=True)
            if args.games > args.chunk and not args.quiet:
                print(file=sys.stderr)
            wall = time.perf_counter() - started
            manifest = {
                "game": game,
                "record_schema_version": schema_version,
                "ascent_version": version("ascent"),
                "numba_version": numba.__version__,
                "numpy_version": np.__version__,
                "python": platform.python_version(),
                **manifest_fields,
                "master_seed": args.seed,
                "players": args.players,
                "rotate_seats": bool(getattr(args, "rotate_seats", False)),
                "threads": args.threads or numba.get_num_threads(),
                "chunk": args.chunk,
                "command": command_line,
                "wall_seconds": round(wall, 3),
                "games_per_second": round(args.games / wall, 1),
            }
            writer.publish(manifest, overwrite=args.overwrite)
        except BaseException as exc:
            writer.discard()
            if isinstance(exc, OSError):
                raise OutputError(f"{out}: could not write the run ({exc.strerror or exc}); "
                                  f"nothing was replaced") from None
            raise
    if not args.quiet:
        print(_summary_from(out, summary, summary_columns))
        print(f"{args.games:,} games in {wall:.1f} s ({args.games / wall:,.0f} games/s); "
              f"written to {out}/")
    return 0


def run_identity(rules, seat_policies, game, **more):
    """What a run's games depend on besides the seed and count: the rules (their fingerprint),
    the bots and their parameter vectors (tuned knobs are data files), the seating, the code
    itself (the hash the numba cache is keyed on: an engine fix changes the games) and the
    bundled data files (First Ascent's data.json is not in its rules fingerprint)."""
    from policies.registry import policy_params_key
    from sim import numba_cache_key, package_data_key
    return {"rules_fingerprint": rules.fingerprint, "seat_policies": list(seat_policies),
            "policy_params": policy_params_key(game, seat_policies), "code": numba_cache_key(),
            "data": package_data_key(), **more}


def _summary_from(out, summary, columns):
    import pandas as pd
    games_cols, seats_cols = columns
    return summary(pd.read_parquet(out / "games.parquet", columns=list(games_cols)),
                   pd.read_parquet(out / "seats.parquet", columns=list(seats_cols)))
