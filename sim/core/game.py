"""The game protocol: everything shared code (the CLI, `simulate`, experiments, reports) may ask
of a game, and the registry that finds the games.

A game is one package. It declares a `GameSpec` (what it is: name, player counts, characters,
presets, default bot) and names an *adapter* module implementing the functions below. Shared
code asks the spec and the adapter, never `if game == ...`. The registry reads the Python
entry-point group `ascent.games` (`name = "package:GAME"`), so a user's game registers itself
from its own `pyproject.toml` without an edit here (docs/adding-a-game.md).

The adapter module provides:

    RECORD_SCHEMA_VERSION                   the version of its record tables' columns
    build_rules(players, preset, rules, knobs, data) -> packed rules
        `rules` {switch: value text}, `knobs` [(path, value text)], `preset` a name of
        `spec.presets` or None, `data` a data-file path or None (only if `spec.data_files`).
        The result has `.fingerprint` (a short hash of everything the games read).
        Raises GameError with one line naming the option and what is allowed.
    rules_manifest(rules) -> dict           the manifest fields describing the rules
    play(rules, n_games, master_seed, seat_policies, characters, first_index, threads,
         rotate) -> Played                  games first_index.. of a run, as record tables
        (pyarrow Tables through sim/core/records.py, or pandas DataFrames)
    summary(games, seats) -> str            the lines `ascent simulate` prints, from the
        columns `spec.summary_columns` names, as DataFrames or, where `spec.summary_tables`
        says "arrow", as pyarrow Tables
    replay(seed, players, rules, seat_policies, characters, fmt) -> str   one game's transcript
    new_game(rules, seed, characters) -> one game through the single-game API, on the same
        rule functions as the kernel: `.play(seat_policies)`, `.won_seats()`, `.end_reason`;
        a game whose engine lets the caller take each action (not one that asks its bots
        from inside the rules) also has `.legal_codes()`, `.step(code)` refusing an illegal
        code with IllegalActionError and the reason, and `.is_over` (sim/core/single_game.py)
    catalogue() -> str                      `ascent rules`: presets, switches, knobs
    render_report(page, results, plt, results_dir) -> str   the report's sections; its title
    describe_rules(meta) -> str             the rules of a run, in a phrase, from its manifest
    character_keys() -> list[str]           only if the game has characters
    reads_records_of(schema, rules) -> bool optional: tables of an older record schema that
        read as today's for runs with these rules (each {switch: value})
    seating_error(characters) -> str | None optional: why these distinct character keys
        cannot sit at one table (a rule of the game's setup), or None

The record tables share a core of columns (`GAMES_COLUMNS`, `SEATS_COLUMNS`); a game adds its
own after them.
"""
import importlib
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path

# Columns every game's record tables carry, with these meanings: shared code reads only these.
GAMES_COLUMNS = ("game", "seed", "players", "end_reason")
SEATS_COLUMNS = ("game", "seat", "policy", "won")
ENTRY_POINT_GROUP = "ascent.games"
SUMMARY_TABLES = ("pandas", "arrow")     # GameSpec.summary_tables


class GameError(ValueError):
    """Bad input for a game (a player count, rule, knob, character or bot): one line that names
    the option and what is allowed. `option` ("rule", "set", "preset", "data", "players",
    "characters") says which input
    was wrong, so the CLI can name its flag (--rule) and an experiment spec its key (rules)."""

    def __init__(self, message, option=None):
        super().__init__(message)
        self.option = option

    def __str__(self):
        text = super().__str__()
        return f"--{self.option}: {text}" if self.option else text

    @property
    def detail(self):
        """The message without the flag."""
        return super().__str__()


class Played:
    """A chunk of a run: its games table (a row per game), its seats table (a row per seat of
    each game) and the kernel's time. A game builds its tables as pyarrow Tables
    (sim/core/records.py: no pandas import, so `ascent simulate` streams them as they are) or
    as pandas DataFrames. `games` and `seats` read them as DataFrames, converted once;
    `arrow()` gives both as pyarrow Tables."""

    __slots__ = ("_tables", "_frames", "seconds")

    def __init__(self, games, seats, seconds):
        self._tables = (games, seats)
        self._frames = None
        self.seconds = seconds

    def _frame_pair(self):
        if self._frames is None:
            import pyarrow as pa
            self._frames = tuple(t.to_pandas() if isinstance(t, pa.Table) else t
                                 for t in self._tables)
        return self._frames

    @property
    def games(self):
        return self._frame_pair()[0]

    @property
    def seats(self):
        return self._frame_pair()[1]

    def followed_by(self, later):
        """This chunk and the `later` one (the games right after it) as one chunk: the tables
        one chunk of all their games gives, in the form the game builds them."""
        import pyarrow as pa
        tables = []
        for mine, theirs in zip(self._tables, later._tables):
            if isinstance(mine, pa.Table):
                tables.append(pa.concat_tables([mine, theirs]))
            else:
                import pandas as pd
                tables.append(pd.concat([mine, theirs], ignore_index=True))
        return Played(*tables, self.seconds + later.seconds)

    def arrow(self):
        """(games, seats) as pyarrow Tables."""
        import pyarrow as pa
        return tuple(t if isinstance(t, pa.Table) else pa.Table.from_pandas(t, preserve_index=False)
                     for t in self._tables)


@dataclass(frozen=True)
class GameSpec:
    name: str                       # the --game value, e.g. "first-ascent"
    title: str                      # "First Ascent"
    players: tuple                  # the allowed player counts
    players_rule: str               # the rule that sets them, cited in errors ("F1")
    rules_source: str               # where the rules are specified ("../shared/.../RULES.md")
    adapter: str                    # the module implementing the functions above
    policy_modules: tuple           # modules whose import registers the game's bots
    default_policy: str             # the bot a run plays when none is named
    summary_columns: tuple          # ((games columns), (seats columns)) `summary` reads
    characters_rule: str = ""       # the rule seating distinct characters; "" = no characters
    presets: tuple = ()             # rule presets, the default first; () = none
    data_files: bool = False        # takes --data (another data file)
    rotate_seats: bool = True       # a mixed seating may shift seat policies per game
    bool_words: tuple = ("true", "false")   # how a TOML boolean reads as a rule value
    replay_needs_characters: bool = False
    ladder_results: str = ""        # its skill ladder's table (`ascent ladder --out`)
    ladder_module: str = ""         # parts_key, run_ladder, ladder_markdown: `ascent ladder`
    ladder_policies: tuple = ()     # the bots `ascent ladder` ranks by default
    skill_levels: tuple = ()        # `ascent skill`'s default levels, weakest first (BOT@N:
                                    # a bot with a budget); () = no default, --levels needed
    tuning_module: str = ""         # tune, store, TUNED_PATH: `ascent tune`
    benchmarks: str = ""            # its measured games/s per bot (benchmarks/throughput.py)
    compile_estimates: str = ""     # its measured first-run compile seconds, the kernel's and
                                    # each bot's (benchmarks/compile_estimates.py)
    compile_order: str = ""         # the order its kernel compiles in, for a cold start's second
                                    # process (sim/core/compile_order.py); "" = none recorded
    strength_note: str = ""         # else where its bots' strength was measured, for the report
    skill_results: str = ""         # its skill curves (`ascent skill`): the report marks a
                                    # verdict the curve's strongest bots do not back
    cap_end_reasons: tuple = ()     # end reasons of a game stopped by a cap, not by its rules' end
    random_streams: str = ""        # how a game draws its randomness: the sweep report quotes it
                                    # when a knob's games stop being paired
    summary_tables: str = "pandas"  # what `summary` is handed: "pandas" DataFrames, or "arrow"
                                    # pyarrow Tables (no pandas import: a faster start)
    search_module: str = ""         # its search bots' view of the game: hide_future (deal again
                                    # what a seat cannot know) and evaluate (each seat's value of
                                    # a position), with legal, step and mover where the shared
                                    # MCTS plays it (policies/mcts.py); "" = no search bot

    @classmethod
    def declared_in(cls, package):
        """The spec a game package declares in its `game.toml` (one `key = value` per field
        above): `GAME = GameSpec.declared_in(__name__)` in the package's __init__.py."""
        import tomllib
        from dataclasses import MISSING, fields
        from importlib.resources import files
        source = files(package) / "game.toml"
        where = f"{package.replace('.', '/')}/game.toml"
        try:
            table = tomllib.loads(source.read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise GameError(f"{where}: {exc}") from None
        declared = {f.name: f for f in fields(cls)}
        for key in table:
            if key not in declared:
                raise GameError(f"{where}: unknown key {key!r}; allowed: {', '.join(declared)}")
        values = {}
        for name, field in declared.items():
            if name not in table:
                if field.default is MISSING:
                    raise GameError(f"{where}: {name} is missing (a TOML "
                                    f"{_TOML_TYPES[field.type][0]})")
                continue
            value = table[name]
            toml_type, wanted = _TOML_TYPES[field.type]
            if not isinstance(value, wanted):
                raise GameError(f"{where}: {name} must be a TOML {toml_type}, got {value!r}")
            values[name] = _frozen(value)
        try:
            return cls(**values)
        except GameError as exc:
            raise GameError(f"{where}: {exc}") from None

    def __post_init__(self):
        # here, not in declared_in only: a spec built or replaced in code is checked too
        if self.summary_tables not in SUMMARY_TABLES:
            raise GameError(f"summary_tables must be one of "
                            f"{', '.join(map(repr, SUMMARY_TABLES))}, got {self.summary_tables!r}")

    @cached_property
    def api(self):
        return importlib.import_module(self.adapter)

    @property
    def search(self):
        """The module search_module names: what the game's MCTS bots search with."""
        if not self.search_module:
            raise GameError(f"{self.title} declares no search module (game.toml search_module)")
        return importlib.import_module(self.search_module)

    def project_file(self, relative):
        """A file a game.toml names (skill_results, compile_estimates), relative to the folder
        that holds the game's top-level package: this project for the built-in games, a
        plug-in's own folder for a plug-in (examples/dice_race/)."""
        top = importlib.import_module(self.adapter.split(".")[0])
        return Path(top.__file__).resolve().parents[1] / relative

    @property
    def record_schema_version(self):
        """Goes into every manifest; the records module changes it when a column changes."""
        return self.api.RECORD_SCHEMA_VERSION

    def reads_records_of(self, schema, rules):
        """Whether tables written at an older record schema read as today's for runs with
        `rules` (a list of {switch: value}, one per run or variant): the adapter's
        reads_records_of where it has one (a column that changed meaning only under some
        rules), else never."""
        reads = getattr(self.api, "reads_records_of", None)
        return bool(reads and reads(schema, rules))

    @property
    def record_schema_unnamed(self):
        """The schema of an experiment folder whose identity names none: experiments began to
        name it when All-In Ascent's changed (2026-12-03); a game still at the schema it had
        then names none, so its earlier folders resume. The adapter's
        RECORD_SCHEMA_UNNAMED, else 1."""
        return getattr(self.api, "RECORD_SCHEMA_UNNAMED", 1)

    @property
    def has_characters(self):
        return bool(self.characters_rule)

    def group(self, one_policy):
        """The group a run's report and comparisons use: with no characters, seats when every
        seat plays the same bot, the bots otherwise."""
        if self.has_characters:
            return "character"
        return "seat" if one_policy else "policy"

    @property
    def player_counts(self):
        """'2 to 5' or '2 or 4', for messages."""
        counts = sorted(self.players)
        if counts == list(range(counts[0], counts[-1] + 1)) and len(counts) > 2:
            return f"{counts[0]} to {counts[-1]}"
        return " or ".join(str(c) for c in counts)

    def check_players(self, players):
        if players not in self.players:
            raise GameError(f"{self.title} is for {self.player_counts} players "
                            f"({self.players_rule}), got {players}", "players")

    def character_keys(self):
        return list(self.api.character_keys()) if self.has_characters else []

    def check_characters(self, value, players):
        """'random' or a list (or comma-separated text) of distinct keys, one per seat."""
        if value is not None and not self.has_characters:
            # also 'random': asked for, it promised a draw the game does not have
            raise GameError(f"{self.title} has no characters: leave --characters out",
                            "characters")
        if value in (None, "random"):
            return "random"
        keys = [c.strip() for c in value.split(",")] if isinstance(value, str) else list(value)
        if "" in keys:
            raise GameError(f"an empty character in {value!r}; write one key per seat, "
                            f"separated by commas", "characters")
        allowed = self.character_keys()
        for key in keys:
            if key not in allowed:
                raise GameError(f"unknown character {key!r}; allowed: "
                                f"{', '.join(allowed)} (or 'random')", "characters")
        if len(set(keys)) != len(keys):
            raise GameError(f"characters must be distinct ({self.characters_rule}), "
                            f"got {', '.join(keys)}", "characters")
        if players is not None and len(keys) != players:
            raise GameError(f"{len(keys)} characters for {players} players", "characters")
        seating = getattr(self.api, "seating_error", None)
        problem = seating(keys) if seating else None
        if problem:
            raise GameError(problem, "characters")
        return keys

    def build_rules(self, players, preset=None, rules=None, knobs=(), data=None):
        if preset and preset not in self.presets:
            raise GameError(f"unknown rules preset {preset!r}; available: "
                            f"{', '.join(self.presets)}" if self.presets else
                            f"{self.title} has no presets (one spec, {self.rules_source})",
                            "preset")
        if data is not None and not self.data_files:
            raise GameError(f"{self.title} reads its bundled data only", "data")
        return self.api.build_rules(players, preset or (self.presets[0] if self.presets
                                                        else None),
                                    dict(rules or {}), list(knobs), data)

    def seat_policies(self, policy, seat_policies, players):
        """--policy / --seat-policies -> one registered bot name per seat."""
        from sim.core.policies import policy_name_problem
        names = list(seat_policies) if seat_policies else \
            [policy or self.default_policy] * players
        if len(names) != players:
            raise GameError(f"--seat-policies: {len(names)} policies for {players} players")
        for n in names:
            problem = policy_name_problem(self.name, n)
            if problem:     # named by its option, as every other bad input
                raise GameError(problem, "seat-policies" if seat_policies else "policy")
        return names


_TOML_TYPES = {str: ("string", str), tuple: ("array", list), bool: ("boolean", bool)}


def _frozen(value):
    """TOML arrays as tuples, so that a spec stays hashable and immutable."""
    return tuple(_frozen(v) for v in value) if isinstance(value, list) else value


_GAMES = {}
_BROKEN = {}        # name -> why a registered game could not be loaded


@cache
def _entry_points():
    """The registered games' entry points, read once a process (20 ms: the registry and the
    numba cache key both ask)."""
    from importlib.metadata import entry_points
    return tuple(sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name))


def _discover():
    if _GAMES:
        return
    for ep in _entry_points():
        try:
            spec = ep.load()
            if not isinstance(spec, GameSpec) or spec.name != ep.name:
                raise TypeError(f"expected a GameSpec named {ep.name!r}, got {spec!r:.80}")
        except Exception as exc:
            why = (f"game {ep.name!r} ({ep.value}, entry point {ENTRY_POINT_GROUP}) cannot be "
                   f"loaded: {type(exc).__name__}: {exc}")
            if ep.value.startswith("sim."):
                raise GameError(why) from exc       # a built-in game: this project is broken
            # a plug-in's fault (say, its package was removed but its metadata left behind):
            # say so every time, and leave it out rather than take every game down with it
            import sys
            print(f"ascent: warning: {why}; it is left out", file=sys.stderr)
            _BROKEN[ep.name] = why
            continue
        _GAMES[spec.name] = spec
    if not _GAMES:
        raise GameError("no games are registered: install the package (pip install -e .), "
                        f"whose metadata declares them (entry points {ENTRY_POINT_GROUP})")


def game_names():
    _discover()
    return sorted(_GAMES, key=lambda n: (n not in BUILT_IN, n))


def get_game(name):
    """The GameSpec registered as `name` (Pgx's make(), without the state)."""
    if isinstance(name, GameSpec):
        return name
    _discover()
    if name in _BROKEN:
        raise GameError(_BROKEN[name])
    try:
        return _GAMES[name]
    except KeyError:
        raise GameError(f"unknown game {name!r}; registered: {', '.join(game_names())}") \
            from None


# listed first in help texts; every game, built in or not, registers the same way
BUILT_IN = ("all-in-ascent", "ascension", "first-ascent")
DEFAULT_GAME = "all-in-ascent"      # --game and an experiment's `game` when not given


def plugin_source_folders():
    """The folders of registered games outside this project (their compiled code belongs in the
    numba cache key), found from entry-point metadata without importing them."""
    import importlib.util
    folders = []
    for ep in _entry_points():
        top = ep.value.split(":")[0].split(".")[0]
        if top in ("sim", "policies"):
            continue
        spec = importlib.util.find_spec(top)
        # a package's own folder only: a single-module plug-in would otherwise key on all of
        # site-packages
        if spec is not None and spec.submodule_search_locations:
            folders.extend(Path(p) for p in spec.submodule_search_locations)
    return folders
