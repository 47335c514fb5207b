"""Run an experiment: chunks of games across processes (joblib/loky) or a Dask cluster (joblib's
dask backend), each finished chunk written atomically, resumable after any interruption.

Layout of an output folder:

    experiment.json                      the spec's identity, the chunks done, the stopping rule
    chunks/<variant>/p<players>/chunk-00007/games.parquet, seats.parquet

A chunk is the unit of work and of durability. Workers play it and hand back its two tables; the
driver writes them and a `chunk.json` (the experiment's identity hash, the chunk's first game and
game count) into a temporary folder and renames it into place, which is atomic, then records it
in experiment.json (also written by rename). A killed run leaves at most a temporary folder,
which the next run removes. A chunk's games are fixed by (master seed, chunk index, chunk size),
so any process, backend or order yields the same rows.

A chunk counts as done only when its chunk.json matches the plan (same identity, same first
game, same game count) and both tables hold the rows it promises: a short last chunk is played
again in full when the target grows (chunk k always covers games k*chunk .. (k+1)*chunk - 1),
and a damaged or foreign chunk is replayed, never counted. Plans are generated lazily, so a
huge game count costs no memory before it plays.
"""
import itertools
import json
import os
import shutil
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from sim.core.output import swap_in
from sim.experiment.spec import Spec, SpecError

RESULT_FORMAT = 1


@dataclass(frozen=True)
class Chunk:
    variant: str
    players: int
    index: int
    first_game: int
    games: int

    @property
    def relpath(self):
        return Path("chunks") / self.variant / f"p{self.players}" / f"chunk-{self.index:05d}"


def chunks_for(spec, players, total_games):
    """The plan, lazily: every variant's chunks covering games 0 .. total_games - 1."""
    for v in spec.variants:
        k = 0
        while k * spec.chunk < total_games:
            n = min(spec.chunk, total_games - k * spec.chunk)
            yield Chunk(v.name, players, k, k * spec.chunk, n)
            k += 1


@lru_cache(maxsize=64)
def _packed_rules(game, players, preset, rules, knobs):
    from sim.core.game import get_game
    return get_game(game).build_rules(players, preset, dict(rules), list(knobs))


def play_chunk(spec_fields, variant_fields, chunk, threads):
    """Worker: play one chunk; return its (games, seats) tables. Pure function of its inputs:
    spec_fields (game, master seed, seat policies, characters, rotate), variant_fields
    (preset, rules, knobs), all plain values a worker process or a Dask node can receive."""
    from sim.core.batch import seat_names
    from sim.core.game import get_game
    game_name, seed, seat_policies, characters, rotate = spec_fields
    preset, rules, knobs = variant_fields
    packed = _packed_rules(game_name, chunk.players, preset, rules, knobs)
    played = get_game(game_name).api.play(packed, chunk.games, seed,
                                          seat_names(seat_policies, chunk.players), characters,
                                          first_index=chunk.first_game, threads=threads,
                                          rotate=rotate)
    return chunk, played.games, played.seats, played.seconds


def compile_before_chunks(spec, players, quiet):
    """From an empty cache, compile the game's kernel and the run's bots once, here, with the
    compile line of `ascent simulate` (sim/core/compiling.py, which also compiles the bots in
    a second process meanwhile), before any chunk is dealt out. Otherwise every local worker
    compiled the same code at once, and said nothing: a 4,000-game `tuned` run waited 38 s
    on 2 cores before its first line, which then gave a rate that counted the compile. The
    throw-away games are game 0 of the first variant, as a one-game chunk."""
    from sim.core.batch import seat_names
    from sim.core.compiling import compile_first
    from sim.core.game import get_game
    _, variants = _fields(spec)
    first = spec.variants[0].name
    seats = seat_names(spec.seat_policies, players)

    def throw_away(seat_policies):
        fields = (spec.game, spec.seed, seat_policies, spec.characters, spec.rotate_seats)
        return lambda: play_chunk(fields, variants[first], Chunk(first, players, 0, 0, 1), None)
    compile_first(get_game(spec.game), seats, throw_away(seats), quiet=quiet,
                  play_kernel=throw_away(["random"] * len(seats)))


def write_json_atomic(path, doc):
    tmp = path.with_name(path.name + f".tmp-{os.getpid()}")
    try:
        tmp.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise SpecError(f"{path}: could not write ({exc.strerror or exc}); finished chunks "
                        f"are kept: free space and rerun to resume") from None
    os.replace(tmp, path)


def write_chunk(out, chunk, games, seats, identity_hash):
    final = out / chunk.relpath
    tmp = final.with_name(final.name + f".tmp-{os.getpid()}")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    try:
        _write_tables(tmp, chunk, games, seats, identity_hash)
    except OSError as exc:           # a full disk: the chunk was never there
        shutil.rmtree(tmp, ignore_errors=True)
        raise SpecError(f"{out}: could not write {chunk.relpath} ({exc.strerror or exc}); "
                        f"finished chunks are kept: free space and rerun to resume") from None
    except BaseException:            # Ctrl-C, SIGTERM: nothing half-written left behind
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    # the chunk is there whole or not at all; a damaged or short one is replaced
    swap_in(tmp, final, final.with_name(final.name + f".tmp-old-{os.getpid()}"))


def _write_tables(tmp, chunk, games, seats, identity_hash):
    games.to_parquet(tmp / "games.parquet", index=False)
    seats.to_parquet(tmp / "seats.parquet", index=False)
    (tmp / "chunk.json").write_text(json.dumps(
        {"identity_sha256": identity_hash, "variant": chunk.variant, "players": chunk.players,
         "index": chunk.index, "first_game": chunk.first_game, "games": chunk.games,
         "seat_rows": len(seats)}, indent=2) + "\n")


def clean_partial(out, identity_hash):
    """Remove what is not finished work, before a run plans its chunks: what a killed run left
    half written, and this experiment's chunk folders that are not whole. The plan replays those
    within it, and one beyond it (a smaller `games` since) would otherwise stay and keep every
    report refusing the folder (load_variant). A chunk of another experiment (another
    identity) is left where it is."""
    for tmp in (out / "chunks").glob("*/*/*.tmp-*") if (out / "chunks").exists() else []:
        shutil.rmtree(tmp, ignore_errors=True)
    for d in (out / "chunks").glob("*/p*/chunk-*") if (out / "chunks").exists() else []:
        if chunk_record(d, identity_hash) is None and \
                _json_field(d / "chunk.json", "identity_sha256") in (identity_hash, None):
            shutil.rmtree(d, ignore_errors=True)
    for tmp in out.glob("experiment.json.tmp-*"):
        tmp.unlink(missing_ok=True)


def _json_field(path, key):
    """doc[key] of a JSON file, None if it cannot be read."""
    try:
        return json.loads(Path(path).read_text())[key]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def chunk_record(folder, identity_hash):
    """A finished chunk folder's chunk.json, if the chunk is whole and of this experiment:
    readable tables with exactly the rows it promises. None for anything else."""
    import pyarrow.parquet as pq
    try:
        rec = json.loads((folder / "chunk.json").read_text())
        if not isinstance(rec, dict) or rec.get("identity_sha256") != identity_hash:
            return None
        if pq.read_metadata(folder / "games.parquet").num_rows != rec["games"] or \
                pq.read_metadata(folder / "seats.parquet").num_rows != rec["seat_rows"]:
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return rec


def done_chunks(out, identity_hash):
    """{(variant, players, index): (first_game, games)} of every whole chunk of this
    experiment on disk."""
    done = {}
    base = Path(out) / "chunks"
    if not base.exists():
        return done
    for d in base.glob("*/p*/chunk-*"):
        if ".tmp-" in d.name:
            continue
        rec = chunk_record(d, identity_hash)
        if rec is not None:
            done[(rec["variant"], rec["players"], rec["index"])] = (rec["first_game"],
                                                                    rec["games"])
    return done


def _games_kept(spec, players, done):
    """The most games any variant of `spec` holds on disk for this player count."""
    held = {}
    for (variant, p, _), (_, games) in done.items():
        if p == players and any(v.name == variant for v in spec.variants):
            held[variant] = held.get(variant, 0) + games
    return max(held.values(), default=0)


def is_done(chunk, done):
    """The chunk on disk covers the planned games. A longer one (an earlier run's larger
    target) covers them too: finished games are never cut away."""
    first, games = done.get((chunk.variant, chunk.players, chunk.index), (None, 0))
    return first == chunk.first_game and games >= chunk.games


def _refuse_other_play_code(spec, doc):
    """An experiment's folder keeps the key of the code that played its games (sim.play_code_key:
    the core, the game's engine and its bots). Another key means other code: adding games, or
    reusing the finished ones as they are (a skill curve reads each level's run), would mix
    two versions in one result. check_same_games replays only a few games, so a change that
    alters a game in a thousand passes it: on 2026-12-07 a skill curve reused self-play runs of
    the bots before a fix that changed a handful of games in 20,000. A folder written before
    the key was kept has none and resumes under that check alone."""
    from sim import play_code_changed
    why = play_code_changed(spec.game, doc.get("play_code"), "its experiment.json")
    if why is not None:
        raise SpecError(
            f"{spec.path}: {spec.out} holds games played by other code: {why}, so adding games "
            f"or reusing these would mix two versions in one result; use a new out folder, or "
            f"restore the code")


class Manifest:
    def __init__(self, out, spec):
        self.path = out / "experiment.json"
        self.spec = spec
        self.doc = None

    def open(self):
        identity = self.spec.identity()
        if self.path.exists():
            try:
                doc = json.loads(self.path.read_text())
                if not isinstance(doc, dict) or not isinstance(doc.get("chunks"), list):
                    raise ValueError("not an experiment manifest")
            except (OSError, ValueError) as exc:
                raise SpecError(f"{self.path}: unreadable ({exc}); move it away to start the "
                                f"experiment's bookkeeping afresh (finished chunks are kept "
                                f"and checked)") from None
            if doc.get("identity") != identity:
                changed = sorted(k for k in identity.keys() | doc.get("identity", {}).keys()
                                 if doc.get("identity", {}).get(k) != identity.get(k))
                if changed == ["record_schema"]:
                    raise SpecError(
                        f"{self.spec.path}: {self.spec.out} holds games recorded by another "
                        f"version of ascent (record_schema differ: a column changed meaning); "
                        f"use a new out folder")
                raise SpecError(
                    f"{self.spec.path}: the spec changed in a way that would mix incompatible "
                    f"results with those in {self.spec.out} ({', '.join(changed)} differ); "
                    f"use a new out folder, or restore the spec")
            _refuse_other_play_code(self.spec, doc)
            self.doc = doc
        else:
            from sim import play_code_key
            self.doc = {"result_format": RESULT_FORMAT, "identity": identity,
                        "identity_sha256": self.spec.identity_hash(), "spec_file": self.spec.path,
                        "name": self.spec.name, "chunks": [], "runs": [],
                        "play_code": play_code_key(self.spec.game)}
        # the spec's order (identity's variants are written sorted): a sweep's first value is
        # its baseline when no variant is named "baseline"
        self.doc["variant_order"] = [v.name for v in self.spec.variants]
        return self

    def add_chunk(self, chunk, seconds):
        # a chunk replayed because its folder was removed replaces its old entry
        self.doc["chunks"] = [c for c in self.doc["chunks"]
                              if (c["variant"], c["players"], c["index"]) !=
                              (chunk.variant, chunk.players, chunk.index)]
        self.doc["chunks"].append({"variant": chunk.variant, "players": chunk.players,
                                   "index": chunk.index, "first_game": chunk.first_game,
                                   "games": chunk.games, "seconds": round(seconds, 3)})
        write_json_atomic(self.path, self.doc)

    def reconcile(self, done):
        """Make the chunk list say what is on disk: a run killed between a chunk's rename and
        this file's left a whole chunk unlisted; a damaged chunk is listed but not whole."""
        listed = {(c["variant"], c["players"], c["index"]): c for c in self.doc["chunks"]}
        chunks = []
        for key, (first, games) in sorted(done.items()):
            entry = listed.get(key)
            if entry is None or (entry.get("first_game"), entry.get("games")) != (first, games):
                entry = {"variant": key[0], "players": key[1], "index": key[2],
                         "first_game": first, "games": games, "seconds": None}
            chunks.append(entry)
        if chunks != self.doc["chunks"]:
            self.doc["chunks"] = chunks
            self.save()

    def save(self):
        write_json_atomic(self.path, self.doc)


def _environment():
    import numba
    from importlib.metadata import version
    return {"ascent": version("ascent"), "numba": numba.__version__, "numpy": np.__version__,
            "pandas": pd.__version__, "python": sys.version.split()[0]}


# games replayed from the finished chunks before a resume adds to them (check_same_games)
SAME_GAMES_CHECKED = 4


def _fields(spec):
    """(spec_fields, {variant: variant_fields}) as play_chunk takes them."""
    spec_fields = (spec.game, spec.seed, spec.seat_policies, spec.characters,
                   spec.rotate_seats)
    variants = {v.name: (v.preset, tuple(sorted(v.rules.items())), v.knobs)
                for v in spec.variants}
    return spec_fields, variants


def check_same_games(spec, done):
    """Before a resume adds chunks to finished ones: replay the first games of each variant's
    and player count's earliest finished chunk and compare them with the stored rows. The code is
    not part of an experiment's identity (it outlives edits to reports and tools), so the games
    themselves are the check: a bot, rule or engine edit that changes them would otherwise be
    mixed into one result with the games played before it."""
    spec_fields, variants = _fields(spec)
    earliest = {}
    for (variant, players, index), (first, games) in done.items():
        if variant in variants and index < earliest.get((variant, players), (1 << 62,))[0]:
            earliest[(variant, players)] = (index, first, games)
    for (variant, players), (index, first, games) in sorted(earliest.items()):
        chunk = Chunk(variant, players, index, first, min(SAME_GAMES_CHECKED, games))
        _, fresh_games, fresh_seats, _ = play_chunk(spec_fields, variants[variant], chunk, 1)
        folder = spec.out / chunk.relpath
        stored_games = pd.read_parquet(folder / "games.parquet").iloc[:len(fresh_games)]
        stored_seats = pd.read_parquet(folder / "seats.parquet").iloc[:len(fresh_seats)]
        if not (_same_rows(fresh_games, stored_games) and _same_rows(fresh_seats, stored_seats)):
            raise SpecError(
                f"{spec.out}: the finished games were played by other code: games {first:,} to "
                f"{first + chunk.games - 1:,} of variant {variant!r} ({players} players) come out "
                f"differently now (a bot, rule or engine changed since). Adding games would mix "
                f"two versions in one result; use a new out folder, or resume with the code "
                f"that played them")


def _same_rows(fresh, stored):
    if list(fresh.columns) != list(stored.columns):
        return False
    return all(np.array_equal(fresh[c].to_numpy(), stored[c].to_numpy()) for c in fresh.columns)


def _execute(spec, todo, count, total, manifest, jobs, scheduler, progress):
    """Play the `count` chunks (`total` games) that `todo` yields; write each as it finishes."""
    import numba
    from joblib import Parallel, delayed
    spec_fields, variants = _fields(spec)
    check_threads(spec.path, spec.threads, scheduler)
    cores = numba.config.NUMBA_NUM_THREADS
    if scheduler:
        n_jobs, threads = -1, spec.threads or 1
    else:
        n_jobs = max(1, min(jobs or cores, count))
        threads = spec.threads or max(1, cores // n_jobs)
    tasks = (delayed(play_chunk)(spec_fields, variants[c.variant], c, threads) for c in todo)
    started = time.perf_counter()
    played = 0
    identity_hash = spec.identity_hash()

    def consume(results):
        nonlocal played
        for chunk, games, seats, seconds in results:
            write_chunk(spec.out, chunk, games, seats, identity_hash)
            manifest.add_chunk(chunk, seconds)
            played += chunk.games
            progress(played, total, time.perf_counter() - started)

    if scheduler:
        with on_dask(scheduler):
            consume(Parallel(n_jobs=n_jobs, return_as="generator_unordered")(tasks))
    elif n_jobs == 1:
        consume(play_chunk(spec_fields, variants[c.variant], c, threads) for c in todo)
    else:
        consume(Parallel(n_jobs=n_jobs, backend="loky",
                         return_as="generator_unordered")(tasks))
    return played, time.perf_counter() - started


@contextmanager
def on_dask(scheduler):
    """joblib's dask backend on the cluster at `scheduler`, for the `with` block: where `ascent
    run` and `ascent balance` play on Dask. A bad address is one SpecError."""
    from joblib import parallel_config
    try:
        from dask.distributed import Client
    except ImportError:
        raise SpecError("a scheduler needs Dask: pip install 'ascent[dask]'") from None
    try:
        client = Client(scheduler, timeout=30)
    except (OSError, ValueError, TypeError) as exc:     # a bad address, nobody listening
        raise SpecError(f"scheduler {scheduler!r}: cannot connect ({exc}); expected a "
                        f"running Dask scheduler such as tcp://host:8786") from None
    with client, parallel_config(backend="dask", wait_for_workers_timeout=60):
        yield


def _progress_printer(quiet):
    def show(done, total, seconds):
        if quiet or total == 0:
            return
        rate = done / seconds if seconds > 0 else 0.0
        eta = (total - done) / rate if rate > 0 else float("inf")
        print(f"\r{done:,}/{total:,} games  {rate:,.0f} games/s  ETA {eta:,.0f} s   ",
              end="", file=sys.stderr, flush=True)
    return show


def widest_interval(out, spec, players, games):
    """The widest 95% half-width among every variant's win rates (per character in All-In
    Ascent and First Ascent, per seat/policy in Ascension) at `players`, on each variant's first
    `games` games: the target's own games, whatever else is on disk. A run killed while it grew
    left one variant a chunk ahead of another; read whole, that chunk let the resumed run stop
    at another point than an uninterrupted one, with other tables (a review helper's)."""
    worst = 0.0
    for v in spec.variants:
        seats = load_variant(out, v.name, players, columns=["game", spec.group, "won"],
                             strict=False)
        if seats is None:
            return float("inf")
        from sim.experiment.paired import character_win_rates     # it imports this module
        rates = character_win_rates(seats[seats["game"] < games], spec.group)
        worst = max(worst, float(np.max((rates["ci_high"] - rates["ci_low"]) / 2)))
    return worst


def run_experiment(spec: Spec, jobs=None, scheduler=None, quiet=False, stop_after_chunks=None):
    """Run (or resume) an experiment; returns its manifest document. A lock beside the folder
    keeps a second run of it out."""
    from sim.core.output import OutputError, folder_lock
    out = spec.out
    check_out_folder(spec)
    made = not out.exists()
    try:
        with folder_lock(out):
            return _run_locked(spec, jobs, scheduler, quiet, stop_after_chunks)
    except OutputError as exc:
        raise SpecError(str(exc)) from None
    finally:
        # a run that failed before its first chunk (a scheduler it could not reach) leaves no
        # empty folder of its own behind
        if made and out.is_dir() and not any(out.iterdir()):
            out.rmdir()


def check_threads(path, threads, scheduler=None):
    """A spec's `threads` (at `path`) are what numba may use here: the cores, or fewer if
    NUMBA_NUM_THREADS says so (a cluster's workers have their own)."""
    import numba
    cores = numba.config.NUMBA_NUM_THREADS
    if threads and threads > cores and not scheduler:
        raise SpecError(f"{path}: threads: at most {cores} in this process (its cores, or "
                        f"NUMBA_NUM_THREADS), got {threads}")


def check_out_folder(spec):
    """Refuse an out folder the run could not use, before anything is played or written (and
    for `ascent run --dry-run`): a file, another command's folder, or an experiment of another
    spec."""
    out = spec.out
    if out.exists() and not out.is_dir():
        raise SpecError(f"{spec.path}: out: {out} is a file, not a folder")
    if out.is_dir() and not (out / "experiment.json").exists() and \
            not (out / "chunks").is_dir():
        # another command's folder, or anything else: `simulate` refuses it, and the chunks
        # would land among its files. A folder with chunks/ is an experiment's (its
        # experiment.json killed before its first write, or moved away as a report's error
        # says); the spec itself, as a sweep writes it there, is its own
        spec_path = Path(spec.path).resolve()
        others = sorted(p.name for p in out.iterdir()
                        if p.name != "chunks" and not p.name.startswith((".", "experiment.json"))
                        and p.resolve() != spec_path)
        if others:
            raise SpecError(f"{spec.path}: out: {out} holds files that are not this "
                            f"experiment's ({', '.join(others[:3])}"
                            f"{', ...' if len(others) > 3 else ''}); give another out folder")
    if (out / "experiment.json").exists():
        Manifest(out, spec).open()          # reads only: refuses another spec's experiment


def _run_locked(spec, jobs, scheduler, quiet, stop_after_chunks):
    out = spec.out
    out.mkdir(parents=True, exist_ok=True)
    manifest = Manifest(out, spec).open()
    identity_hash = spec.identity_hash()
    clean_partial(out, identity_hash)
    manifest.reconcile(done_chunks(out, identity_hash))
    scheduler = scheduler or spec.scheduler
    progress = _progress_printer(quiet)
    started = time.perf_counter()
    played_total = 0
    stopping = {}
    earlier = manifest.doc.get("stopping", {})
    checked = False
    compiled = False
    told = set()                # the player counts whose resume has been announced
    for players in spec.players:
        target_games = spec.games
        if spec.ci_halfwidth is not None:
            # a precision target resumes where it stopped, not at `games` again (it would
            # replay every chunk it had grown)
            reached = earlier.get(str(players), {}).get("games", 0)
            target_games = max(target_games, min(int(reached), spec.max_games))
        while True:
            done = done_chunks(out, identity_hash)

            def pending():
                todo = (c for c in chunks_for(spec, players, target_games)
                        if not is_done(c, done))
                return todo if stop_after_chunks is None else \
                    itertools.islice(todo, stop_after_chunks)

            count = total = 0
            for c in pending():          # counted first, lazily: the plan is never held
                count += 1
                total += c.games
            if count and done and not quiet and players not in told:
                # say so: a resume showed only as a smaller total in the progress line
                finished = sum(c.games for c in chunks_for(spec, players, target_games)
                               if is_done(c, done))
                if finished:
                    print(f"{out}: {players} players: resuming: {finished:,} games of earlier "
                          f"runs of this experiment are kept; {total:,} to play",
                          file=sys.stderr)
                told.add(players)
            # a Dask cluster's workers may be other machines, with caches of their own; a
            # resume replays games here first, whatever the backend
            if count and not compiled and (not scheduler or (done and not checked)):
                compile_before_chunks(spec, players, quiet)
                compiled = True
            if count and done and not checked:
                check_same_games(spec, done)
                checked = True
            if count:
                played, _ = _execute(spec, pending(), count, total, manifest, jobs, scheduler,
                                     progress)
                played_total += played
            if spec.ci_halfwidth is None or stop_after_chunks is not None:
                stopping[players] = {"rule": "fixed game count", "games": target_games}
                break
            widest = widest_interval(out, spec, players, target_games)
            cap = spec.max_games
            if widest <= spec.ci_halfwidth or target_games >= cap:
                stopping[players] = {
                    "rule": f"add {spec.chunk:,} games per variant until every character's win "
                            f"rate 95% half-width <= {spec.ci_halfwidth} or {cap:,} games",
                    "games": target_games, "widest_halfwidth": round(widest, 6),
                    "reached_target": widest <= spec.ci_halfwidth}
                break
            target_games = min(cap, target_games + spec.chunk)
        kept = _games_kept(spec, players, done_chunks(out, identity_hash))
        if kept > stopping[players]["games"]:
            # finished games are never cut away (is_done), so a smaller `games` reads them all:
            # say so, and let the manifest count what the tables hold
            stopping[players]["games_kept"] = kept
            if not quiet:
                print(f"{out}: {players} players: {kept:,} games of earlier runs are kept and "
                      f"read, more than the {stopping[players]['games']:,} this run asks for "
                      f"(finished games are never cut; a new out folder plays exactly that "
                      f"many)", file=sys.stderr)
    if not quiet:
        print(file=sys.stderr)
    wall = time.perf_counter() - started
    manifest.doc["stopping"] = {str(k): v for k, v in stopping.items()}
    manifest.doc["runs"].append({"games_played": played_total, "wall_seconds": round(wall, 2),
                                 "games_per_second": round(played_total / wall, 1)
                                 if wall > 0 else None,
                                 "environment": _environment()})
    manifest.save()
    return manifest.doc


def load_variant(out, variant, players, columns=None, table="seats", strict=True,
                 optional=()):
    """Every whole chunk of one variant and player count, in game order (None if none), with
    `columns` (all where None) and those of `optional` its tables have.
    A report must not count fewer games than were played without a word: a chunk that
    experiment.json lists as finished but that is missing or damaged on disk, or a damaged or
    foreign chunk folder, is refused with a clear error (the next `ascent run` replays it).
    A run in progress reads with strict=False: it replays such chunks itself."""
    out = Path(out)
    base = out / "chunks" / variant / f"p{players}"
    try:
        doc = json.loads((out / "experiment.json").read_text())
    except (OSError, ValueError):
        doc = None
    doc = doc if isinstance(doc, dict) else {}
    identity_hash = doc.get("identity_sha256")
    whole, damaged = [], []
    for d in sorted(base.glob("chunk-*")) if base.exists() else []:
        if ".tmp-" in d.name:
            continue                    # a chunk being written, or left by a killed run
        rec = chunk_record(d, identity_hash)
        if rec is None:
            damaged.append(d.name)
        else:
            whole.append((d, rec))
    # by index: a run killed between a grown chunk's swap and experiment.json's update left
    # the chunk whole under an older entry (the next run's reconcile mends the entry)
    on_disk = {r["index"] for _, r in whole}
    missing = [f"chunk-{c['index']:05d} (games {c['first_game']:,} to "
               f"{c['first_game'] + c['games'] - 1:,})"
               for c in _listed_chunks(doc, variant, players)
               if c["index"] not in on_disk and f"chunk-{c['index']:05d}" not in damaged]
    # without a readable experiment.json nothing is of this experiment, and nothing is read
    if strict and identity_hash is not None and (damaged or missing):
        problems = ([f"damaged or not of this experiment: {', '.join(damaged)}"] if damaged
                    else []) + ([f"missing: {', '.join(missing)}"] if missing else [])
        spec_file = doc.get("spec_file", "SPEC.toml")
        raise ValueError(f"{base}: the {variant!r} games at {players} players are incomplete "
                         f"({'; '.join(problems)}), so a report would count fewer games than "
                         f"were played; `ascent run {spec_file}` plays them again, or removes "
                         f"a damaged one beyond its games (the whole chunks are kept; move away "
                         f"a chunk of another experiment), then report")
    if not whole:
        return None
    if columns is not None and optional:
        import pyarrow.parquet as pq
        have = set(pq.read_schema(whole[0][0] / f"{table}.parquet").names)
        columns = list(columns) + [c for c in optional if c in have and c not in columns]
    from sim.core.output import read_table
    frames = [read_table(d / f"{table}.parquet", columns) for d, _ in whole]
    return pd.concat(frames, ignore_index=True)


def _listed_chunks(doc, variant, players):
    """The chunks of one variant and player count that experiment.json (`doc`) lists as
    finished."""
    chunks = doc.get("chunks")
    if not isinstance(chunks, list):
        return []
    return [c for c in chunks if isinstance(c, dict) and c.get("variant") == variant
            and c.get("players") == players and isinstance(c.get("index"), int)
            and isinstance(c.get("first_game"), int) and isinstance(c.get("games"), int)]


def dry_run_plan(spec, games_per_second=None):
    """The plan in words; `games_per_second` (the benchmarked rate of the spec's bot in its game,
    if measured) adds a time estimate."""
    from sim.core.game import get_game
    game = get_game(spec.game)
    lines = [f"experiment {spec.name} ({spec.path})",
             f"  variants: {', '.join(v.name for v in spec.variants)}",
             f"  players: {', '.join(str(p) for p in spec.players)}; "
             f"{spec.games:,} games per variant and player count, chunks of {spec.chunk:,}",
             f"  policies: {spec.seat_policies}; "
             + (f"characters: {spec.characters}; " if game.has_characters else "")
             + (f"rotate seats: {spec.rotate_seats}; " if game.rotate_seats else "")
             + f"master seed {spec.seed}"]
    total = spec.games * len(spec.variants) * len(spec.players)
    lines.append(f"  total: {total:,} games")
    if spec.ci_halfwidth is not None:
        cap = spec.max_games or spec.games
        lines.append(f"  precision target: half-width <= {spec.ci_halfwidth}, up to {cap:,} "
                     f"games per variant ({cap * len(spec.variants) * len(spec.players):,} all)")
    if games_per_second:
        lines.append(f"  estimated time: {total / games_per_second / 60:.1f} min at "
                     f"{games_per_second:,.0f} games/s (4-player games under the default rules, "
                     f"2 threads: results/benchmarks.json)")
        # the rate is one measured game; another length of game plays at another rate
        default_preset = game.presets[0] if game.presets else ""
        changed = [v.name for v in spec.variants
                   if v.rules or v.knobs or (v.preset or "") != default_preset]
        other = [str(p) for p in spec.players if p != 4]
        if changed or other:
            why = ([f"variants {', '.join(changed)} change the rules"] if changed else []) + \
                ([f"{', '.join(other)}-player games are played"] if other else [])
            lines.append(f"  a guide only: {'; '.join(why)}; such games may run longer or "
                         f"shorter (a preset without a round cap, say)")
    done = done_chunks(spec.out, spec.identity_hash())
    if done:
        lines.append(f"  {len(done)} chunks already done in {spec.out} (will be skipped)")
    return "\n".join(lines)
