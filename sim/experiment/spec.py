"""Experiment specs: one TOML file per designer question, validated before any game is played.

    name = "technician_reduction"            # optional; defaults to the file name
    game = "all-in-ascent"
    players = [4]                            # one or more player counts
    games = 200000                           # per variant and player count
    seed = 1                                 # master seed: every variant plays the same games
    policy = "tuned"                         # or seat_policies = ["tuned", "planner", ...]
    characters = "random"                    # or a fixed list, one key per seat
    preset = "v0.4.0"                        # the default of every variant
    chunk = 50000                            # games per chunk (the unit of work and of resume)
    out = "../results/technician_reduction"  # relative to this spec's own folder
    ci_halfwidth = 0.005                     # optional precision target: more chunks ...
    max_games = 2000000                      # ... up to this cap (required with the target)
    scheduler = "tcp://host:8786"            # optional: run the chunks on a Dask cluster

    [variants.baseline]                      # named variants; "baseline" is compared against
    [variants.minus3]
    set = { "characters.technician.passive.requirement_reduction" = 3 }
    rules = { shared_belayer_pool = "on" }
    preset = "v0.6.0"

    [sweep]                                  # or a grid: one variant per value
    knob = "characters.technician.passive.requirement_reduction"
    values = [3, 4, 5, 6, 7]

First Ascent (`game = "first-ascent"`, 2..5 players, default policy greedy): like Ascension,
variants are `rules = { option = value }` only (`ascent rules --game first-ascent`; readings =
"bga" sets every Decision 6 reading at once); `characters` is "random" (F22's draw) or one key
per seat, and `rotate_seats = true` shifts the seat policies (and fixed characters) by one seat
per game.

Every error names the file and the key, and says what is allowed; never a traceback.
"""
import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

TOP_KEYS = {"name", "game", "players", "games", "seed", "policy", "seat_policies", "characters",
            "preset", "chunk", "out", "ci_halfwidth", "max_games", "scheduler", "variants",
            "sweep", "threads", "description", "rotate_seats"}
VARIANT_KEYS = {"preset", "rules", "set", "description"}


def not_keys(game):
    """The keys a game's spec does not take: what its GameSpec says it does not have."""
    return ({"rotate_seats"} if not game.rotate_seats else set()) | \
        ({"characters"} if not game.has_characters else set()) | \
        ({"preset"} if not game.presets else set())


class SpecError(ValueError):
    """A bad experiment spec; the message names the file and the key."""


@dataclass(frozen=True)
class Variant:
    name: str
    preset: str
    rules: dict = field(default_factory=dict)     # switch -> value text
    knobs: tuple = ()                             # (path, value text) pairs
    description: str = ""

    def as_dict(self):
        return {"preset": self.preset, "rules": dict(self.rules),
                "set": {k: v for k, v in self.knobs}}


@dataclass(frozen=True)
class Spec:
    path: str
    name: str
    game: str
    players: tuple
    games: int
    seed: int
    seat_policies: object        # a policy name for every seat, or a list per seat
    characters: object           # "random" or a list of keys
    chunk: int
    out: Path
    variants: tuple
    ci_halfwidth: float = None
    max_games: int = None
    scheduler: str = None
    threads: int = None
    description: str = ""
    rotate_seats: bool = False

    @property
    def group(self):
        """The column whose win rates an experiment compares: characters, in games that have
        them; else seats (policies when the seats hold different policies)."""
        from sim.core.game import get_game
        return get_game(self.game).group(isinstance(self.seat_policies, str))

    def policies_for(self, players):
        if isinstance(self.seat_policies, str):
            return [self.seat_policies] * players
        return list(self.seat_policies)

    def identity(self):
        """What the results depend on: a run may resume only if this is unchanged. The game
        count, the precision target and the scheduler may change (more chunks, same chunks)."""
        from sim.core.game import get_game
        game = get_game(self.game)
        doc = {"game": self.game, "players": list(self.players), "seed": self.seed,
               "seat_policies": self.seat_policies, "characters": self.characters,
               "chunk": self.chunk,
               "variants": {v.name: v.as_dict() for v in self.variants}}
        # the record schema: a column that changed meaning must not join chunks of the old one
        # (named once it differs from the schema of folders that name none)
        if game.record_schema_version != game.record_schema_unnamed:
            doc["record_schema"] = game.record_schema_version
        if game.rotate_seats:
            doc["rotate_seats"] = self.rotate_seats
        doc["bots_and_data"] = self.bots_and_data()
        return doc

    def bots_and_data(self):
        """A hash of the bots' parameter vectors and the bundled data files: a retuned bot
        (`ascent tune --store`) or an edited data file plays other games, so a resume must
        not add its chunks to the old ones. (Code changes are not part of it: an experiment
        outlives edits to reports and tools.)"""
        from sim.core.policies import policy_params_key
        from sim import package_data_key
        return hashlib.sha256((package_data_key(game=self.game) + policy_params_key(
            self.game, self.policies_for(max(self.players)))).encode()).hexdigest()[:16]

    def identity_hash(self):
        return identity_sha256(self.identity())


def identity_sha256(identity):
    """The hash an experiment's chunks and experiment.json carry of its identity."""
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()


def _fail(path, key, message, error=SpecError):
    raise error(f"{path}: {key}: {message}")


# Far beyond any run (a million games/s for a year is 3e13) yet small enough for every counter.
MAX_COUNT = 10**12
MAX_SEED = 2**63 - 1        # as `ascent simulate --seed` and the balance specs
MAX_CHUNK = 10**8


def _int(path, key, value, low=1, high=MAX_COUNT):
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(path, key, f"expected a whole number, got {value!r}")
    if value < low or value > high:
        _fail(path, key, f"expected a number from {low} to {high:,}, got {value}")
    return value


def _text(path, key, value):
    """A free-text field (a description): text as written, not a number or table turned into
    text."""
    if not isinstance(value, str):
        _fail(path, key, f"expected text in quotes, got {value!r}")
    return value


def _path_name(path, key, name):
    """A name that becomes a folder (variants, experiments): one plain path component, so
    nothing is ever written outside the experiment's folder."""
    if not isinstance(name, str) or not name.strip():
        _fail(path, key, f"a name must be a non-empty string, got {name!r}")
    if any(ch in "/\\" or ord(ch) < 32 for ch in name) or name.startswith("."):
        _fail(path, key, f"{name!r} cannot name a folder: no slashes, no leading '.', no '..' "
                         f"and no control characters")
    return name


def _value_text(value, bool_words=("on", "off")):
    """A TOML value as the rule text: booleans in the game's words (on/off for All-In Ascent
    switches, true/false for Ascension's)."""
    if isinstance(value, bool):
        return bool_words[0] if value else bool_words[1]
    return str(value)


# keys only the other kind of spec has: a balance spec given to `ascent run`, or an experiment
# given to `ascent balance`, is named as such rather than refused for its first foreign key
BALANCE_ONLY = ("ascent balance", {"knobs", "target", "budget"})
EXPERIMENT_ONLY = ("ascent run", {"variants", "sweep"})


def read_spec_document(path, allowed, error=SpecError, other=BALANCE_ONLY):
    """A spec file's TOML document, with only `allowed` top keys and a known game: (path text,
    document, GameSpec). Every fault is one `error` naming the file (and the key); `other`:
    (command, keys) of the other kind of spec, named where the document has those keys."""
    from sim.core.game import DEFAULT_GAME, game_names, get_game
    p = str(path)
    try:
        doc = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise error(f"{p}: cannot read the spec ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise error(f"{p}: byte {exc.start}: not UTF-8 text; save the spec as UTF-8") \
            from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{p}: not valid TOML ({exc})") from None
    except RecursionError:
        raise error(f"{p}: nested too deeply to be a spec") from None
    command, marks = other
    if set(doc) - set(allowed) and set(doc) & marks:
        raise error(f"{p}: its keys ({', '.join(sorted(set(doc) & marks))}) are those of a spec "
                    f"for `{command}`; run it with `{command} {p}`")
    for key in doc:
        if key not in allowed:
            _fail(p, key, f"unknown key; allowed: {', '.join(sorted(allowed))}", error)
    game_name = doc.get("game", DEFAULT_GAME)
    if game_name not in game_names():
        _fail(p, "game", f"unknown game {game_name!r}; allowed: {', '.join(game_names())}",
              error)
    return p, doc, get_game(game_name)


def load_spec(path):
    """Read and validate a spec; also checks every policy, character, switch and knob."""
    from sim.core.game import GameError
    from sim.core.policies import policy_name_problem
    p, doc, game = read_spec_document(path, TOP_KEYS)
    for key in sorted(not_keys(game)):
        if key in doc:
            _fail(p, key, f"not a key of a {game.name} experiment")
    players = doc.get("players", [4])
    players = [players] if isinstance(players, int) else players
    if not isinstance(players, list) or not players:
        _fail(p, "players", "expected a player count or a list of them")
    for n in players:
        if isinstance(n, bool) or not isinstance(n, int) or n not in game.players:
            _fail(p, "players", f"player counts are {min(game.players)}..{max(game.players)} "
                                f"({game.players_rule}), got {n!r}")
    if len(set(players)) != len(players):
        _fail(p, "players", f"each player count once, got {players}")
    if "games" not in doc:
        _fail(p, "games", "required: games per variant and player count")
    games = _int(p, "games", doc["games"])
    seed = _int(p, "seed", doc.get("seed", 1), low=0, high=MAX_SEED)
    chunk = _int(p, "chunk", doc.get("chunk", 50_000), high=MAX_CHUNK)
    if "policy" in doc and "seat_policies" in doc:
        _fail(p, "policy", "give policy or seat_policies, not both")
    if "seat_policies" in doc:
        seat_policies = doc["seat_policies"]
        if not isinstance(seat_policies, list) or len(players) != 1 or \
                len(seat_policies) != players[0]:
            _fail(p, "seat_policies", "expected one policy per seat (and a single player count)")
    else:
        seat_policies = doc.get("policy", game.default_policy)
        if not isinstance(seat_policies, str):
            _fail(p, "policy", f"expected one policy name for every seat (seat_policies = "
                               f"[...] names one per seat), got {seat_policies!r}")
    for name in [seat_policies] if isinstance(seat_policies, str) else seat_policies:
        problem = policy_name_problem(game.name, name) if isinstance(name, str) else \
            f"expected a policy name, got {name!r}"
        if problem:
            _fail(p, "policy", problem)
    characters = doc.get("characters", "random")
    if characters != "random":
        if not isinstance(characters, list) or len(players) != 1 or \
                len(characters) != players[0]:
            _fail(p, "characters", "'random', or one character per seat (and a single player "
                                   "count)")
        try:
            game.check_characters(characters, players[0])
        except GameError as exc:
            _fail(p, "characters", exc.detail)
    rotate = doc.get("rotate_seats", False)
    if not isinstance(rotate, bool):
        _fail(p, "rotate_seats", f"expected true or false, got {rotate!r}")
    preset = doc.get("preset", game.presets[0] if game.presets else None)
    if preset is not None and preset not in game.presets:
        _fail(p, "preset", f"unknown preset {preset!r}; available: {', '.join(game.presets)}")
    # "" for a game without presets keeps the identity of experiments run before the protocol
    variants = _variants(p, doc, preset or "", game.bool_words)
    for v in variants:
        # a sweep's variants have no table of their own: name the sweep
        key = f"variants.{v.name}" if v.name in doc.get("variants", {}) else "sweep"
        for n in players:
            try:
                game.build_rules(n, v.preset, v.rules, v.knobs)
            except GameError as exc:
                _fail(p, _variant_key(key, exc.option),
                      exc.detail + _boolean_hint(doc, key, v.name, exc.detail, game.bool_words))
    ci = doc.get("ci_halfwidth")
    if ci is not None and (isinstance(ci, bool) or not isinstance(ci, (int, float))
                           or not 0 < ci < 0.5):
        _fail(p, "ci_halfwidth", f"expected a number between 0 and 0.5, got {ci!r}")
    max_games = doc.get("max_games")
    if max_games is not None:
        max_games = _int(p, "max_games", max_games)
        if max_games < games:
            _fail(p, "max_games", f"must be at least games ({games})")
        if ci is None:
            _fail(p, "max_games", "a cap for the precision target: give ci_halfwidth too")
    if ci is not None and max_games is None:
        # without a cap the target could never add a game: say so, rather than stop silently
        _fail(p, "ci_halfwidth", "a precision target needs max_games, the most games per "
                                 "variant and player count it may play")
    scheduler = doc.get("scheduler")
    if scheduler is not None and not isinstance(scheduler, str):
        _fail(p, "scheduler", "expected an address such as 'tcp://host:8786'")
    threads = doc.get("threads")
    if threads is not None:
        threads = _int(p, "threads", threads)
    if "out" not in doc or not isinstance(doc["out"], str) or not doc["out"].strip():
        _fail(p, "out", "required: the output folder")
    # relative to the spec's own folder, so a resume from anywhere finds the same results
    out = (Path(path).resolve().parent / doc["out"]).resolve()
    name = _path_name(p, "name", doc.get("name", Path(p).stem))
    return Spec(path=p, name=name, game=game.name, players=tuple(players), games=games, seed=seed,
                seat_policies=seat_policies, characters=characters, chunk=chunk,
                out=out, variants=tuple(variants), ci_halfwidth=ci,
                max_games=max_games, scheduler=scheduler, threads=threads,
                description=_text(p, "description", doc.get("description", "")),
                rotate_seats=rotate)


def is_rule_option(key):
    """A rule option (`--rule NAME=VALUE`) has a plain name; a data knob (`--set`) is a path
    with dots."""
    return "." not in key


def toml_string(text):
    """A TOML basic string: a JSON string has the same quoting and escapes."""
    return json.dumps(str(text), ensure_ascii=False)


def toml_value(text):
    """An option's value text as TOML: a number where the text is one that reads back as the
    same text (a knob of 65 is written 65, as a designer writes it, not "65"), else a string.
    Either form reads back as the same text (_value_text), so a spec's identity is the same."""
    text = str(text)
    try:
        value = tomllib.loads(f"x = {text}")["x"]
    except (tomllib.TOMLDecodeError, KeyError):
        return toml_string(text)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and str(value) == text:
        return text
    return toml_string(text)


def toml_inline_table(pairs):
    return "{ " + ", ".join(f"{toml_string(k)} = {toml_value(v)}" for k, v in pairs) + " }"


def variant_toml(name, rules, knobs):
    """A `[variants.NAME]` table with its rule options and data knobs ({name: value text})."""
    body = [f"[variants.{toml_string(name)}]"]
    if rules:
        body.append(f"rules = {toml_inline_table(rules.items())}")
    if knobs:
        body.append(f"set = {toml_inline_table(knobs.items())}")
    return "\n".join(body)


def write_spec_file(path, text):
    """Write a generated spec to `path`, unless the spec there plays other games (another
    identity): True if written, False if refused. The same experiment with more games, or
    written by another command line, takes the new text. The new text is read from a file
    beside the old one, since `out` is relative to the spec's folder."""
    import os
    path = Path(path)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return True
    fresh = path.with_name(f".{path.stem}-new.toml")
    fresh.write_text(text, encoding="utf-8")
    try:
        if load_spec(fresh).identity() != load_spec(path).identity():
            return False
        os.replace(fresh, path)
        return True
    finally:
        fresh.unlink(missing_ok=True)


def _boolean_hint(doc, key, name, detail, bool_words):
    """Where a variant's error quotes a TOML true or false in the game's words ('on', 'off'),
    say so: the spec's `max_rounds = true` was refused as "got 'on'", a value it never had."""
    if tuple(bool_words) == ("true", "false"):
        return ""                   # the game's words are TOML's own
    if key == "sweep":
        raw = doc["sweep"].get("values", [])
    else:
        body = doc["variants"][name]
        raw = list(body.get("rules", {}).values()) + list(body.get("set", {}).values())
    words = {bool_words[0] if value else bool_words[1] for value in raw
             if isinstance(value, bool)}
    if any(repr(word) in detail for word in words):
        return (f" (the spec's true and false read as {bool_words[0]!r} and "
                f"{bool_words[1]!r})")
    return ""


def _variant_key(key, option):
    """Where in a spec a variant's bad option sits: variants.NAME.rules (or .set, .preset), or
    the sweep's knob or values."""
    if key == "sweep":
        return {"set": "sweep.knob", "rule": "sweep.values"}.get(option, "sweep")
    if option is None:
        return key
    return f"{key}.{'rules' if option == 'rule' else option}"


def _variants(p, doc, preset, bool_words):
    out = []
    table = doc.get("variants", {})
    if not isinstance(table, dict):
        _fail(p, "variants", "expected tables such as [variants.baseline]")
    for name, body in table.items():
        key = f"variants.{name}"
        _path_name(p, key, name)
        if not isinstance(body, dict):
            _fail(p, key, "expected a table")
        for k in body:
            if k not in VARIANT_KEYS:
                _fail(p, f"{key}.{k}", f"unknown key; allowed: {', '.join(sorted(VARIANT_KEYS))}")
        rules = body.get("rules", {})
        knobs = body.get("set", {})
        if not isinstance(rules, dict) or not isinstance(knobs, dict):
            _fail(p, key, "rules and set are tables of NAME = VALUE")
        out.append(Variant(name, body.get("preset", preset),
                           {k: _value_text(v, bool_words) for k, v in rules.items()},
                           tuple((k, _value_text(v, bool_words)) for k, v in knobs.items()),
                           _text(p, f"{key}.description", body.get("description", ""))))
    sweep = doc.get("sweep")
    if sweep is not None:
        if not isinstance(sweep, dict) or set(sweep) - {"knob", "rule", "values"} or \
                "values" not in sweep or ("knob" in sweep) == ("rule" in sweep):
            _fail(p, "sweep", "expected knob = PATH (or rule = NAME) and values = [...]")
        which = "knob" if "knob" in sweep else "rule"
        if not isinstance(sweep[which], str) or not sweep[which].strip():
            what = "knob path" if which == "knob" else "rule name"
            _fail(p, f"sweep.{which}", f"expected a {what} in quotes, got {sweep[which]!r}")
        if not isinstance(sweep["values"], list) or not sweep["values"]:
            _fail(p, "sweep.values", "expected a non-empty list")
        for value in sweep["values"]:
            text = _value_text(value, bool_words)
            _path_name(p, "sweep.values", text)
            if "knob" in sweep:
                out.append(Variant(f"{sweep['knob'].split('.')[-1]}={text}", preset, {},
                                   ((sweep["knob"], text),)))
            else:
                out.append(Variant(f"{sweep['rule']}={text}", preset, {sweep["rule"]: text}))
    if not out:
        out.append(Variant("baseline", preset))
    names = [v.name for v in out]
    if len(set(names)) != len(names):
        _fail(p, "variants", f"variant names must be distinct, got {names}")
    return out
