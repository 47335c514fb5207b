"""`ascent simulate` for every game: play the run in chunks, stream games.parquet and
seats.parquet, write manifest.json, print a summary.

A game supplies, through its GameSpec (sim/core/game.py), the chunk player with its record tables,
the manifest fields of its rules and the summary; this module owns the loop, the progress line and
the folder (sim/core/output.py: atomic, locked, fingerprinted), so every game's output folder
has the same shape and the same guarantees."""
import platform
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from sim.core.compiling import compile_first
from sim.core.output import (FinishedChunks, OutputError, RunWriter, folder_lock,
                             folder_state, remove_killed_writes, restore_set_aside,
                             run_fingerprint)


def simulate(game, out, players, games, seed, rules, seat_policies, characters="random",
             rotate=False, threads=None, chunk=20_000, overwrite=False, quiet=False,
             command_line=""):
    """Play games 0 .. games-1 of a run of `game` (a GameSpec) into the folder `out`, chunk by
    chunk; print the summary (read back from the finished folder, so no table is held whole in
    memory). `rules` are the game's packed rules, `seat_policies` one bot name per seat."""
    import numba
    from importlib.metadata import version
    # the folder itself, through any symlink: locked and swapped in where the run lands (the
    # link was replaced by the run, and two names of one folder took two locks), as `ascent
    # run` and `ascent balance` resolve theirs
    shown = Path(out)           # as the user named it, in what the run prints
    out = shown.resolve()
    here = Path.cwd().resolve()
    if out == here or out in here.parents:
        # a run is swapped in as a new folder: the shell would be left in the old, deleted one
        raise OutputError(f"--out {shown}: the folder you are in (or one above it); a run "
                          f"replaces its folder whole, so name it from outside: cd .. and "
                          f"--out {out.name or out}")
    identity = run_identity(rules, seat_policies, game.name,
                            **({"rotate": rotate} if game.rotate_seats else {}),
                            **({"characters": characters} if game.has_characters else {}))
    fingerprint = run_fingerprint({"game": game.name, "master_seed": seed, "games": games,
                                   "players": players, "schema": game.record_schema_version,
                                   **identity})
    with folder_lock(out):
        restore_set_aside(out)
        state = folder_state(out, fingerprint)
        if state == "same":
            # a run of this command killed after this one was in place left its writes
            FinishedChunks(out, fingerprint).remove()
            remove_killed_writes(out)
            if not quiet:
                print(f"{shown}/ already holds this run (same rules, bots, seed and games): "
                      f"nothing to play")
                print(_summary_from(out, game))
            return 0
        if state == "foreign":
            raise OutputError(f"{shown}: holds files that are not an ascent run; --overwrite "
                              f"replaces only a run folder: choose another --out")
        if state == "other run" and not overwrite:
            # (also the plain command's own folder after an engine edit or `ascent tune
            # --store`: its name holds the settings, not the code or the data files)
            raise OutputError(f"{shown}: holds another run (other rules, bots, code or data "
                              f"files); pass --overwrite to replace it, or --out to keep both")
        interrupted = sum(n for _, n in FinishedChunks.others(out, fingerprint))
        if interrupted and not overwrite:
            # finished work is not thrown away unasked: another command into this folder
            # discarded them with one line on standard error (none under --quiet)
            raise OutputError(f"{shown}: holds the {interrupted:,} finished games of an "
                              f"interrupted run of another command into this folder; run "
                              f"that command again to finish it, pass --overwrite to discard "
                              f"them, or choose another --out")
        try:
            writer = RunWriter(out, fingerprint, games, game.name)
        except OSError as exc:
            raise OutputError(f"{out.parent}: cannot write here ({exc.strerror or exc})") \
                from None
        dropped = FinishedChunks.discard_others(out, fingerprint)
        if dropped and not quiet:
            print(f"{shown}/: the {dropped:,} finished games of an interrupted other run into "
                  f"this folder are discarded", file=sys.stderr)
        finished = FinishedChunks(out, fingerprint)
        resumed = min(finished.games, games)
        if resumed and not quiet:
            print(f"{shown}/: resuming: {resumed:,} of the {games:,} games were played by an "
                  f"interrupted run of this command (kept in {finished.folder.name})",
                  file=sys.stderr)
        try:
            def play(n, first, seats=seat_policies):
                return game.api.play(rules, n, seed, seats, characters, first_index=first,
                                     threads=threads, rotate=rotate)
            # the game that compiles the run's bots is the first game left to play, kept: a
            # game depends on its seed and index only, not on its chunk (principle 2), and an
            # MCTS game can take as long as the compile
            compiling_game = []
            randoms = ["random"] * len(seat_policies)
            compiled = compile_first(
                game, seat_policies, lambda: compiling_game.append(play(1, resumed)),
                quiet=quiet, play_kernel=lambda: play(1, resumed, randoms),
                threads=threads) if resumed < games else None
            kept = compiling_game[0] if compiling_game else None
            done = resumed
            started = time.perf_counter()
            while done < games:
                n = min(chunk, games - done)
                if done == resumed and kept is not None:
                    # the first chunk is the kept game and the games after it, as on a warm
                    # run: a run's tables are typed by their first chunk
                    played = kept if n == 1 else kept.followed_by(play(n - 1, done + 1))
                else:
                    played = play(n, done)
                finished.add(done, played)
                done += n
                timed = done - resumed - (kept is not None)     # played by this loop
                if games > chunk and not quiet and timed > 0:
                    rate = timed / (time.perf_counter() - started)
                    print(f"\r{done:,}/{games:,} games  {_rate_text(rate)} games/s  "
                          f"ETA {(games - done) / rate:,.0f} s", end="", file=sys.stderr,
                          flush=True)
            if games > chunk and not quiet:
                print(file=sys.stderr)
            # the run's tables are made from its saved chunks; where the disk has no room for
            # both, each chunk is removed once taken (the run fitted it before chunks were
            # saved, and a review found it refused for good, its chunks filling the disk)
            room = shutil.disk_usage(out.parent).free
            consume = room < 1.25 * finished.size() + (16 << 20)
            for tables in finished.tables(consume=consume):
                writer.add_tables(tables)
            # the time spent playing: the kept game's share of the compile's time is its play
            wall = time.perf_counter() - started + \
                (compiled.first_game if kept is not None else 0.0)
            played_now = games - resumed
            manifest = {
                "game": game.name,
                "record_schema_version": game.record_schema_version,
                "ascent_version": version("ascent"),
                "numba_version": numba.__version__,
                "numpy_version": np.__version__,
                "python": platform.python_version(),
                **game.api.rules_manifest(rules),
                "seat_policies": list(seat_policies),
                **({"characters": characters} if game.has_characters else {}),
                "master_seed": seed,
                "players": players,
                "rotate_seats": bool(rotate),
                "threads": threads or numba.get_num_threads(),
                "chunk": chunk,
                "command": command_line,
                "wall_seconds": round(wall, 3),
                # this invocation's games: an interrupted one's were played at another time
                "games_per_second": _rounded_rate(played_now / wall) if played_now else None,
                **({"resumed_games": resumed} if resumed else {}),
            }
            writer.publish(manifest, overwrite=overwrite)
            finished.remove()
        except BaseException as exc:
            writer.discard()
            if isinstance(exc, OSError):
                # (chunks removed while the run's tables were made leave none to go on from)
                left = finished.games if finished.chunks and finished.chunks[0][0] == 0 else 0
                note = f"; its {left:,} finished games are kept in {finished.folder}: free " \
                    f"space, and the same command goes on from there" if left else ""
                raise OutputError(f"{shown}: could not write the run ({exc.strerror or exc}); "
                                  f"nothing was replaced{note}") from None
            raise
    if not quiet:
        print(_summary_from(out, game))
        rate = _rate_text(played_now / wall)
        if resumed == games:
            print(f"{games:,} games, all played by the interrupted run; written to {shown}/")
        elif resumed:
            print(f"{games:,} games: {played_now:,} played in {wall:.1f} s ({rate} "
                  f"games/s), {resumed:,} by the interrupted run; written to {shown}/")
        else:
            print(f"{games:,} game{'s' * (games != 1)} in {wall:.1f} s ({rate} games/s); "
                  f"written to {shown}/")
    return 0


def _rate_text(rate):
    """Games a second as a person reads them: two figures under 10 (an MCTS run of
    Ascension plays one game in 20 s, which was '0 games/s')."""
    return f"{rate:,.0f}" if rate >= 10 else f"{rate:.2g}"


def _rounded_rate(rate):
    """Games a second for the manifest: to 0.1, or to three figures under 1."""
    return round(rate, 1) if rate >= 1 else float(f"{rate:.3g}")


def run_identity(rules, seat_policies, game, **more):
    """What a run's games depend on besides the seed and count: the rules (their fingerprint),
    the bots and their parameter vectors (tuned knobs are data files), the seating, the code
    that plays the game's games (sim.play_code_key: its engine, its bots, sim/core; an engine
    fix changes the games) and the bundled data files (First Ascent's data.json is not in its
    rules fingerprint). Not the whole project's code: an edit to a report or an experiment
    tool voided the resume of an interrupted run, and made a finished one 'another run'."""
    from sim.core.policies import policy_params_key
    from sim import played_with_key
    return {"rules_fingerprint": rules.fingerprint, "seat_policies": list(seat_policies),
            "policy_params": policy_params_key(game, seat_policies),
            **played_with_key(game), **more}


def _summary_from(out, game):
    from sim.core.output import read_table
    games_cols, seats_cols = game.summary_columns
    tables = [read_table(out / f"{name}.parquet", columns, arrow=True)
              for name, columns in (("games", games_cols), ("seats", seats_cols))]
    if game.summary_tables == "pandas":
        tables = [table.to_pandas() for table in tables]
    return game.api.summary(*tables)
