"""Run folders that are never lost, mixed or half written (the output of `ascent simulate`).

- A run is played into a hidden temporary sibling (`.NAME.tmp-PID`) and renamed into place only
  when its tables and manifest are complete: a kill or a full disk leaves the earlier folder as
  it was.
- A folder that holds another run is refused unless `--overwrite`; the same run again (same
  fingerprint, complete) is not played twice.
- A lock file beside the folder (`.NAME.lock`, flock) keeps a second writer out.
- The manifest and both parquet files carry the run's fingerprint and its game count, so
  `verify_run_folder` (used by `ascent report`) refuses a mixed, truncated or foreign folder.
- Each finished chunk is saved beside the folder (`.NAME.partial-FINGERPRINT`, FinishedChunks)
  as it ends; the finished run's tables are streamed from those one chunk at a time (pyarrow's
  ParquetWriter), so memory is bounded by `--chunk`, not by `--games`, and an interrupted run
  loses no finished chunk: the same command plays only the games after them.
"""
import fcntl
import glob
import hashlib
import json
import os
import shutil
from contextlib import contextmanager
from pathlib import Path

TABLES = ("games", "seats")
META_KEY = b"ascent"
MANIFEST = "manifest.json"


class OutputError(ValueError):
    """A run folder that cannot be written or read as asked; the message names the folder."""


# the way back from a table that cannot be read: a run folder and an experiment's chunk both
# reach read_table, and only `ascent simulate` has --overwrite
_PLAY_AGAIN = ("Play it again: `ascent simulate ... --overwrite` for a run folder, `ascent run "
               "SPEC` for an experiment's")


def read_table(path, columns=None, arrow=False):
    """A parquet table of a run folder (pandas, or pyarrow with `arrow`), or OutputError naming
    the file: damaged data pages under an intact footer pass the folder's checks, which read
    the footers only, and then failed as 'Corrupt snappy compressed data' with no file named,
    or as a traceback (a review found it)."""
    import pyarrow
    import pyarrow.parquet as pq
    columns = None if columns is None else list(columns)
    try:
        with pq.ParquetFile(path) as table:
            # the columns asked for are checked against the footer's schema, not read from
            # pyarrow's error text, whose words change between its versions
            missing = [c for c in columns or () if c not in table.schema_arrow.names]
            if missing:
                raise OutputError(f"{path}: lacks the columns {missing}: a table of another "
                                  f"record version? {_PLAY_AGAIN}")
            if arrow:
                # ParquetFile.read, not read_table: read_table's dataset layer imports pandas
                return table.read(columns=columns)
        import pandas as pd
        return pd.read_parquet(path, columns=columns)
    except FileNotFoundError:
        raise OutputError(f"{path}: missing; the folder is incomplete. {_PLAY_AGAIN}") \
            from None
    except (OSError, pyarrow.ArrowException) as exc:
        said = " ".join(str(exc).split())       # pyarrow's own text runs over lines
        raise OutputError(f"{path}: cannot be read ({said}): the file is damaged. "
                          f"{_PLAY_AGAIN}") from None


def run_fingerprint(identity):
    """The hash of everything a run's games depend on (rules, seats, policies, master seed, game
    indices), not of how it was played (threads, chunking)."""
    text = json.dumps(identity, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _read_manifest(folder):
    try:
        doc = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def folder_state(out, fingerprint):
    """'absent', 'empty', 'same' (this run, complete), 'other run' (a run folder of ascent's,
    another or damaged) or 'foreign' (files that are not a run: never replaced)."""
    if not out.exists():
        return "absent"
    if not out.is_dir():
        raise OutputError(f"{out}: is a file, not a folder; choose another --out")
    if not any(out.iterdir()):
        return "empty"
    doc = _read_manifest(out)
    if doc and doc.get("run_fingerprint") == fingerprint:
        try:
            verify_run_folder(out)
            return "same"
        except OutputError:
            return "other run"
    if doc and "game" in doc:
        return "other run"
    return "foreign"


@contextmanager
def folder_lock(out):
    """An exclusive lock for writing `out`, a run folder or a file (the hidden file .NAME.lock
    beside it, its folder made if need be); a second writer fails at once with one line."""
    lock = out.parent / f".{out.name}.lock"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        handle = open(lock, "w")
    except OSError as exc:
        raise OutputError(f"{out.parent}: cannot write here ({exc.strerror})") from None
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise OutputError(f"{out}: another ascent run is writing it (lock {lock}); wait "
                              f"for it or choose another --out") from None
        yield
    finally:
        # the lock file stays: deleting it would let a writer that opened it just before lock
        # the old file while the next one locks a new file, and both would write
        handle.close()


def swap_in(new, final, aside):
    """Put the finished folder `new` at `final`: by one atomic rename, or, when `final` is
    there, by moving it to `aside` first and deleting it once `new` is in place (a kill between
    the two renames leaves it whole at `aside`)."""
    if final.exists():
        os.rename(final, aside)
        os.rename(new, final)
        shutil.rmtree(aside, ignore_errors=True)
    else:
        os.rename(new, final)


def restore_set_aside(out):
    """A run killed between the two renames of `publish` left the earlier run beside `out`
    (.NAME.old-PID) and nothing at `out`: put it back. Call under the lock."""
    aside = sorted(out.parent.glob(f".{glob.escape(out.name)}.old-*"),
                   key=lambda p: p.stat().st_mtime)
    if aside and not out.exists():
        os.rename(aside.pop(), out)
    for stale in aside:
        shutil.rmtree(stale, ignore_errors=True)


def write_text_atomic(path, text):
    """Write `text` to `path` whole or not at all: through .NAME.tmp-PID beside it (which
    remove_killed_writes clears after a kill), made folders included."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)


class PartsError(ValueError):
    """A parts file (a command's finished pieces, kept to resume it) that cannot be read, or
    that was kept for other settings."""


def load_parts(path, key, field, what, names=None):
    """The pieces a command with settings `key` finished and kept in `path` ({"key": ...,
    field: {...}}, save_parts), {} where there is none yet. A file that cannot be read, or one
    kept for other settings, is refused in one line naming them (`names`: how each key field
    is called to the user), not mixed in. `what` names the command ("ladder")."""
    if path is None or not Path(path).exists():
        return {}
    try:
        saved = json.loads(Path(path).read_text())
        if not isinstance(saved, dict) or not isinstance(saved.get(field), dict):
            raise ValueError(f"not a {what} parts file")
    except (OSError, ValueError) as exc:
        raise PartsError(f"{path}: unreadable {what} parts ({exc}); remove the file to start "
                         f"afresh") from None
    saved_key = saved.get("key") if isinstance(saved.get("key"), dict) else {}
    differ = [(names or {}).get(f, f) for f in key if saved_key.get(f) != key[f]]
    if differ:
        raise PartsError(f"{path}: saved {what} parts are for other settings (other "
                         f"{', '.join(differ)}); remove the file or choose another --out")
    return saved[field]


def save_parts(path, key, field, pieces):
    """Keep a command's finished pieces for load_parts, atomically."""
    write_text_atomic(path, json.dumps({"key": key, field: pieces}))


def remove_killed_writes(out):
    """Remove what a killed command left half written beside `out` (.NAME.tmp-PID: a run's
    folder, a ladder's table). Call under the lock."""
    for stale in Path(out).parent.glob(f".{glob.escape(Path(out).name)}.tmp-*"):
        if stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)
        else:
            stale.unlink(missing_ok=True)


class RunWriter:
    """Streams a run's tables into a temporary sibling of `out`, then publishes it.

    Use under `folder_lock(out)`: writer.add(played) per chunk, writer.publish(manifest)
    at the end; anything else (an exception, a kill) leaves `out` untouched."""

    def __init__(self, out, fingerprint, games, game=None):
        self.out = Path(out)
        self.fingerprint = fingerprint
        self.games = int(games)
        self.game = game            # in each table's tag: the report reads it by that game
        remove_killed_writes(self.out)
        self.tmp = self.out.parent / f".{self.out.name}.tmp-{os.getpid()}"
        self.tmp.mkdir()
        self.writers = {}
        self.rows = dict.fromkeys(TABLES, 0)

    def add(self, played):
        """Append a chunk (a sim.core.game.Played) to both tables."""
        self.add_tables(played.arrow())

    def add_tables(self, tables):
        """Append a chunk given as its (games, seats) pyarrow Tables."""
        import pyarrow.parquet as pq
        for name, table in zip(TABLES, tables):
            if name not in self.writers:
                meta = json.dumps({"run_fingerprint": self.fingerprint, "games": self.games,
                                   "table": name,
                                   **({"game": self.game} if self.game else {})}).encode()
                schema = table.schema.with_metadata({**(table.schema.metadata or {}),
                                                     META_KEY: meta})
                self.writers[name] = pq.ParquetWriter(self.tmp / f"{name}.parquet", schema)
            writer = self.writers[name]
            if not table.schema.equals(writer.schema, check_metadata=False):
                # a chunk typed apart from the first (a game building DataFrames); a cast
                # when none is needed would import pyarrow.compute (20 ms of a warm start)
                table = table.cast(writer.schema)
            writer.write_table(table)
            self.rows[name] += table.num_rows

    def publish(self, manifest, overwrite=False):
        """Close the tables, write the manifest, and move the finished run to `out`."""
        for writer in self.writers.values():
            writer.close()
        manifest = {**manifest, "run_fingerprint": self.fingerprint, "games": self.games,
                    "rows": self.rows}
        path = self.tmp / MANIFEST
        with open(path, "w") as f:
            f.write(json.dumps(manifest, indent=2) + "\n")
            f.flush()
            os.fsync(f.fileno())
        if self.out.exists() and any(self.out.iterdir()) and not overwrite:
            raise OutputError(f"{self.out}: other files appeared there while playing; nothing "
                              f"was replaced")
        swap_in(self.tmp, self.out, self.out.parent / f".{self.out.name}.old-{os.getpid()}")
        return manifest

    def discard(self):
        for writer in self.writers.values():
            try:
                writer.close()
            except OSError:
                pass
        shutil.rmtree(self.tmp, ignore_errors=True)


def verify_run_folder(folder):
    """The manifest of a `simulate` folder, after checking that both tables belong to it: the
    same fingerprint in all three files and the promised number of games and seat rows."""
    import pyarrow.parquet as pq

    from sim.core.game import game_names         # a game no one knows is the report's to name
    folder = Path(folder)
    doc = _read_manifest(folder)
    if doc is None:
        raise OutputError(f"{folder}: no readable {MANIFEST}; not a finished run (an "
                          f"interrupted or foreign folder)")
    fingerprint = doc.get("run_fingerprint")
    if not fingerprint:
        raise OutputError(f"{folder}: {MANIFEST} has no run_fingerprint (written before "
                          f"ascent checked its folders); rerun the simulate command")
    for name in TABLES:
        path = folder / f"{name}.parquet"
        try:
            meta = pq.read_metadata(path)
        except (OSError, ValueError) as exc:
            raise OutputError(f"{path}: unreadable ({exc}); the folder is not a finished "
                              f"run") from None
        raw = (meta.metadata or {}).get(META_KEY)
        tag = json.loads(raw) if raw else {}
        if tag.get("run_fingerprint") != fingerprint:
            raise OutputError(f"{path}: belongs to another run than {MANIFEST} (mixed "
                              f"folder); rerun the simulate command with --overwrite")
        if "game" in tag and tag["game"] != doc.get("game") and doc.get("game") in game_names():
            # an edited manifest: read as another game's records, the report failed deep inside
            raise OutputError(f"{path}: holds {tag['game']} records, {MANIFEST} says "
                              f"{doc.get('game')!r} (an edited or mixed folder); rerun the "
                              f"simulate command with --overwrite")
        expected = doc.get("rows", {}).get(name)
        if meta.num_rows != expected:
            raise OutputError(f"{path}: {meta.num_rows:,} rows, the manifest promises "
                              f"{expected}; the folder is truncated")
    return doc


class FinishedChunks:
    """The chunks of a run finished so far, each a pair of parquet files in a hidden folder
    beside `out` (.NAME.partial-FINGERPRINT), saved as each chunk ends. A run interrupted (a
    kill, Ctrl-C, a full disk) and started again with the same command plays only the games
    after them: before, it played the whole run again (a review helper killed a 60,000-game
    run at 40,000). A chunk's games file is put in place last, so a chunk with both files is
    whole. Use under folder_lock(out); the finished run's tables are then made from these
    (their disk space twice over until the run is in place and this folder removed, or once
    over where the disk has no more room: tables(consume=True))."""

    def __init__(self, out, fingerprint):
        out = Path(out)
        self.folder = out.parent / f".{out.name}.partial-{fingerprint}"
        self.chunks = self._finished()         # [(first game, games)], from game 0 on

    @staticmethod
    def others(out, fingerprint):
        """The finished-chunk folders of other runs into `out`, with the games each holds.
        The name is escaped: a run into `x[12]` took the chunks of a run into `x1` (a review
        found it)."""
        out = Path(out)
        return [(folder, FinishedChunks(out, folder.name.rpartition("-")[2]).games)
                for folder in out.parent.glob(f".{glob.escape(out.name)}.partial-*")
                if folder.name != f".{out.name}.partial-{fingerprint}"]

    @staticmethod
    def discard_others(out, fingerprint):
        """Remove the finished chunks of other runs into `out` (once another run plays into
        it, they can no longer be resumed there); returns how many games they held."""
        games = 0
        for folder, n in FinishedChunks.others(out, fingerprint):
            games += n
            shutil.rmtree(folder, ignore_errors=True)
        return games

    @property
    def games(self):
        return sum(n for _, n in self.chunks)

    def _path(self, table, first, n):
        return self.folder / f"{table}-{first:012d}-{n}.parquet"

    def _finished(self):
        found = {}
        for path in self.folder.glob("games-*-*.parquet") if self.folder.is_dir() else ():
            try:
                first, n = (int(part) for part in path.stem.split("-")[1:])
            except ValueError:
                continue
            if n > 0 and all(self._readable(self._path(t, first, n)) for t in TABLES):
                found[first] = n
        chunks, done = [], 0
        while done in found:
            chunks.append((done, found[done]))
            done += found[done]
        return chunks

    @staticmethod
    def _readable(path):
        import pyarrow.parquet as pq
        try:
            pq.read_metadata(path)
            return True
        except (OSError, ValueError):
            return False

    def add(self, first, played):
        """Save the chunk of games first .. first + n - 1 (a sim.core.game.Played)."""
        import pyarrow.parquet as pq
        games, seats = played.arrow()
        n = games.num_rows
        self.folder.mkdir(exist_ok=True)
        for table, data in (("seats", seats), ("games", games)):
            path = self._path(table, first, n)
            tmp = path.with_name(f".{path.name}.tmp")
            pq.write_table(data, tmp)
            os.replace(tmp, path)
        self.chunks.append((first, n))

    def size(self):
        """The bytes the finished chunks take on disk."""
        return sum(self._path(t, first, n).stat().st_size
                   for first, n in self.chunks for t in TABLES)

    def tables(self, consume=False):
        """Each finished chunk's (games, seats) tables, in the order of its games. With
        `consume`, a chunk's files are removed as soon as its tables are read: for a disk with
        no room for the run twice, where a kill while the run's tables are made loses the
        chunks read so far."""
        import pyarrow.parquet as pq
        for first, n in list(self.chunks):
            tables = tuple(pq.ParquetFile(self._path(t, first, n)).read() for t in TABLES)
            if consume:
                for t in ("games", "seats"):        # the games file first: the chunk is gone
                    self._path(t, first, n).unlink()
                self.chunks.remove((first, n))
            yield tables

    def remove(self):
        shutil.rmtree(self.folder, ignore_errors=True)
