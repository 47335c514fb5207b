"""`ascent simulate` for the games with a commands module (Ascension, First Ascent): play the
run in chunks, write games.parquet, seats.parquet and manifest.json, print a summary.

A game's module supplies the chunk player and its record tables; this module owns the loop,
the progress line and the manifest, so every game's output folder has the same shape."""
import json
import platform
import sys
import time
from pathlib import Path


def simulate_to_folder(args, command_line, game, rules, names, play_chunk, tables,
                       schema_version, summary, extra=None):
    """play_chunk(n, first_index) -> batch; tables(batch) -> (games, seats) DataFrames;
    summary(games, seats) -> text. `extra` adds manifest fields (e.g. characters)."""
    import numba
    import pandas as pd
    from importlib.metadata import version
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    games_parts, seats_parts = [], []
    done = 0
    while done < args.games:
        n = min(args.chunk, args.games - done)
        games_part, seats_part = tables(play_chunk(n, done))
        games_parts.append(games_part)
        seats_parts.append(seats_part)
        done += n
        if args.games > args.chunk and not args.quiet:
            rate = done / (time.perf_counter() - started)
            print(f"\r{done:,}/{args.games:,} games  {rate:,.0f} games/s  "
                  f"ETA {(args.games - done) / rate:,.0f} s", end="", file=sys.stderr, flush=True)
    if args.games > args.chunk and not args.quiet:
        print(file=sys.stderr)
    games = pd.concat(games_parts, ignore_index=True)
    seats = pd.concat(seats_parts, ignore_index=True)
    games.to_parquet(out / "games.parquet", index=False)
    seats.to_parquet(out / "seats.parquet", index=False)
    wall = time.perf_counter() - started
    manifest = {
        "game": game,
        "record_schema_version": schema_version,
        "ascent_version": version("ascent"),
        "numba_version": numba.__version__,
        "python": platform.python_version(),
        "rules": rules.as_dict(),
        "rules_changed": rules.changed(),
        "rules_fingerprint": rules.fingerprint,
        "master_seed": args.seed,
        "games": args.games,
        "players": args.players,
        "seat_policies": names,
        **(extra or {}),
        "rotate_seats": bool(args.rotate_seats),
        "threads": args.threads or numba.get_num_threads(),
        "command": command_line,
        "wall_seconds": round(wall, 3),
        "games_per_second": round(args.games / wall, 1),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    if not args.quiet:
        print(summary(games, seats))
        print(f"{args.games:,} games in {wall:.1f} s ({args.games / wall:,.0f} games/s); "
              f"written to {out}/")
    return 0
