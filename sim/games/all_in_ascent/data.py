"""All-In Ascent game data: load (JSON or the designers' data.js), validate, fingerprint.

The structure is that of the designers' `engine/data.js` (RULES.md R1-R2): CHARACTERS, XP_TABLE,
TRAINING_AREAS, ROUTES, GEAR_SHOP. Validation is strict because every later number depends on
it: each problem is reported as `file: PATH: what is wrong; what is allowed`, with PATH the
JavaScript-style path inside the file (`ROUTES.topRope[4].rollEffect[1].stat`).
"""
import difflib
import hashlib
import json
import math
import unicodedata
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from sim.core.game import GameError
from sim.core.jsdata import JsDataError, parse_js_exports

STATS = ("strength", "technique", "focus", "flexibility")
AREAS = ("bouldering", "topRope", "leadClimbing")
TIERS = ("beginner", "intermediate", "expert")
CHARACTER_KEYS = ("technician", "sprinter", "ironLung", "freeSolo", "routeReader")
TAGS = ("Pinch/Crimp", "Dynamic", "Toe/Heel Hook", "Roof/Sloper")
ACCESS_CARDS_V040 = ("Harness", "Belay Device", "Locking Carabiner", "Lead Rope")
STAT_EFFECTS = STATS + ("all", "endurance", "none", "time", "special", "timePerRound",
                        "leadDiscount")
EFFECT_KINDS = ("rerollOnTag", "timeCostReduction", "enduranceHalvedOnTag", "extraDieBestN",
                "ignoreFailPenalty", "treatOneDieAsValue", "failBonusXp",
                "successHealEndurance", "trainingBonusBoost", "milestoneDiceBonus",
                "negateOneNerfDie")
# R51: the dice cards read their value as a count or a face, so values the engine has no
# reading for are refused rather than ignored: Power Tap Belt keeps that many dice (R51.2),
# Sequence Memorization's die reads at most that face (R51.3), Climbing Coach adds that much to
# every die (R51.4; 0 adds nothing).
DICE_CARD_VALUES = {"extraDieBestN": (1, 100), "treatOneDieAsValue": (1, 6),
                    "milestoneDiceBonus": (0, 100)}
ROUTE_FILTERS = ("All", "Repeated", "Bouldering", "Top Rope", "Lead", "Slab", "Vertical",
                 "Overhang", "Traverse")
# a route's routeType is matched against gear routeFilters (R49), so it is one of the types
# a filter can name: any other (a typo) would silently take the route out of every type filter
ROUTE_TYPES = ("Slab", "Vertical", "Overhang", "Traverse")

# R1: the counts of the v0.4.0 deck. A preset with another deck passes its own counts.
V040_COUNTS = {"characters": 5, "xp_levels": 15, "stations": 4,
               "routes": {"bouldering": 26, "topRope": 23, "leadClimbing": 23},
               "gear": 18, "access": 4}
V060_COUNTS = dict(V040_COUNTS, gear=17, access=3)

BUNDLED = {"v0.4.0": "data-v0.4.0.json", "v0.6.0": "data-v0.6.0.json"}


class DataError(GameError):
    """A data file does not have the shape or values the rules need. One line, no traceback."""


@dataclass(frozen=True)
class GameData:
    """Validated game data, as read (names and all). `source` names the file it came from."""
    characters: dict
    xp_table: list
    stations: list
    routes: dict
    gear: list
    source: str
    sha256: str

    @property
    def gear_names(self):
        return [card["name"] for card in self.gear]


def bundled_path(version="v0.4.0"):
    if version not in BUNDLED:
        raise DataError(f"no bundled data for version {version!r}; bundled: {', '.join(BUNDLED)}")
    return resources.files("sim.games.all_in_ascent") / "data" / BUNDLED[version]


def bundled_file_of(sha256):
    """The bundled data file whose bytes hash to `sha256` (a run's manifest data_sha256), or
    None: a report names a data file of the designer's own apart from the shipped ones, which
    may bear the same file name."""
    for name in BUNDLED.values():
        path = resources.files("sim.games.all_in_ascent") / "data" / name
        if hashlib.sha256(path.read_bytes()).hexdigest() == sha256:
            return name
    return None


def load_data(path=None, counts=V040_COUNTS):
    """Read and validate a data file (.json, or .js/.mjs in data.js form). None = bundled v0.4.0."""
    if path is None:
        path = bundled_path("v0.4.0")
    path_text = str(path)
    name = Path(path_text).name
    try:
        raw = Path(path_text).read_bytes() if not hasattr(path, "read_bytes") else path.read_bytes()
    except OSError as exc:
        raise DataError(f"{path_text}: cannot read the data file ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"{name}: byte {exc.start}: not valid UTF-8 text ({exc.reason}); save the "
                        "data file as UTF-8") from None
    if name.endswith((".js", ".mjs")):
        try:
            doc = parse_js_exports(text, name)
        except JsDataError as exc:
            raise DataError(str(exc)) from None
        except RecursionError:
            raise DataError(f"{name}: nested too deeply to be a data file") from None
    else:
        try:
            doc = json.loads(text, object_pairs_hook=_KeyedObject)
        except json.JSONDecodeError as exc:
            raise DataError(f"{name}: line {exc.lineno}: not valid JSON ({exc.msg})") from None
        except RecursionError:
            raise DataError(f"{name}: nested too deeply to be a data file") from None
        _refuse_duplicate_keys(doc, name)
    return validate(doc, name, counts, hashlib.sha256(raw).hexdigest())


def record_key(card_name):
    """The card's name in record columns (owns_KEY, bought_round_KEY)."""
    return card_name.lower().replace(" ", "_").replace("-", "_")


def _refuse_prerequisite_cycles(c, gear):
    """A card that (through its prerequisites) requires itself can never be bought."""
    requires = {card["name"]: list(card["prerequisiteItems"]) for card in gear}
    index = {card["name"]: i for i, card in enumerate(gear)}
    state = {}

    def visit(name, chain):
        if state.get(name) == "done":
            return
        if state.get(name) == "open":
            loop = chain[chain.index(name):] + [name]
            c.fail(f"GEAR_SHOP[{index[loop[0]]}].prerequisiteItems",
                   f"prerequisite cycle {' -> '.join(loop)}: these cards could never be bought")
        state[name] = "open"
        for pre in requires.get(name, []):
            visit(pre, chain + [name])
        state[name] = "done"

    for card in gear:
        visit(card["name"], [])


class _KeyedObject(dict):
    """A JSON object that remembers keys given more than once (json keeps the last silently:
    a pasted line once turned a strength of 12 into 480)."""

    def __init__(self, pairs):
        super().__init__(pairs)
        seen = set()
        self.repeated = [k for k, _ in pairs if k in seen or seen.add(k)]


def _refuse_duplicate_keys(doc, filename, path=""):
    if isinstance(doc, dict):
        repeated = getattr(doc, "repeated", [])
        if repeated:
            where = f"{path}.{_key(repeated[0])}" if path else _key(repeated[0])
            raise DataError(f"{filename}: {where}: key given twice in one object; each key "
                            f"may appear once")
        for key, value in doc.items():
            _refuse_duplicate_keys(value, filename, f"{path}.{_key(key)}" if path else _key(key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            _refuse_duplicate_keys(value, filename, f"{path}[{i}]")


# The fields of each kind of object, as the designers' engine/data.js has them. A key outside
# these is a typo until proven otherwise: a misspelt optional field ("effectKnd") would silently
# take a card's ability away.
KNOWN_KEYS = {
    "character": ("name", "archetype", "specialAbility", "startingStats", "startingEndurance",
                  "growth"),
    "xp level": ("level", "cumulative", "needed"),
    "training area": ("name", "description", "stat", "bonus", "time", "endurance"),
    "route": ("name", "grade", "strength", "technique", "flexibility", "focus", "time",
              "endurance", "xpSuccess", "xpFail", "rollEffect", "tag", "routeType",
              "holdFeatures", "moveFeatures", "gearModifiers"),
    "roll effect": ("stat", "modifier"),
    "gear card": ("name", "cost", "category", "statEffect", "value", "effectKind", "effectDisplay",
                  "tagFilter", "routeFilter", "holdFeatureFilter", "prerequisiteItems",
                  "prerequisiteLevel", "accessRequirement", "restBonus"),
}


def _control_free(text):
    return not any(unicodedata.category(ch) in ("Cc", "Cf") for ch in text)


class _Checker:
    def __init__(self, filename):
        self.filename = filename

    def fail(self, path, message):
        raise DataError(f"{self.filename}: {path}: {message}")

    def field(self, obj, key, path):
        if not isinstance(obj, dict):
            self.fail(path, f"expected an object, found {_kind(obj)}")
        if key not in obj:
            self.fail(f"{path}.{key}" if path else key, "missing field")
        return obj[key]

    def integer(self, value, path, low=None, high=None):
        # JSON has one number type: 5.0 is accepted as 5, 5.5 is not an integer.
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(path, f"expected an integer, found {_kind(value)} {value!r}")
        if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
            self.fail(path, f"expected an integer, found {value!r}")
        value = int(value)
        self._range(value, path, low, high)
        return value

    def number(self, value, path, low=None, high=None):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            self.fail(path, f"expected a number, found {_kind(value)} {value!r}")
        self._range(value, path, low, high)
        return value

    def _range(self, value, path, low, high):
        if (low is not None and value < low) or (high is not None and value > high):
            lo = "" if low is None else f"{low}"
            hi = "" if high is None else f"{high}"
            self.fail(path, f"{value!r} is out of range; allowed {lo}..{hi}")

    def string(self, value, path):
        if not isinstance(value, str) or not value:
            self.fail(path, f"expected a non-empty string, found {_kind(value)} {value!r}")
        return value

    def name(self, value, path):
        """A name a designer reads in reports and transcripts: no blank or padded names, no
        line breaks or other control characters (they break tables and one-line messages)."""
        self.string(value, path)
        if not value.strip():
            self.fail(path, f"a name cannot be blank, found {value!r}")
        if value != value.strip():
            self.fail(path, f"a name cannot start or end with spaces, found {value!r}")
        if not _control_free(value):
            self.fail(path, f"a name cannot contain control characters (line breaks, tabs), "
                            f"found {value!r}")
        return value

    def keys(self, obj, path, kind):
        """Every key of `obj` is a field of its kind; a near miss gets a 'did you mean'."""
        if not isinstance(obj, dict):
            return
        allowed = KNOWN_KEYS[kind]
        for key in obj:
            if key not in allowed:
                near = difflib.get_close_matches(str(key), allowed, n=1)
                hint = f"; did you mean {near[0]!r}?" if near else ""
                where = f"{path}.{_key(key)}" if path else _key(key)
                self.fail(where, f"not a field of a {kind} (allowed: "
                                 f"{', '.join(allowed)}){hint}")

    def choice(self, value, path, allowed, what):
        if value not in allowed:
            shown = ", ".join("null" if a is None else str(a) for a in allowed)
            self.fail(path, f"{value!r} is not a known {what}; allowed: {shown}")
        return value

    def array(self, value, path, length=None):
        if not isinstance(value, list):
            self.fail(path, f"expected an array, found {_kind(value)}")
        if length is not None and len(value) != length:
            self.fail(path, f"expected {length} entries (RULES.md R1), found {len(value)}")
        return value


def _key(key):
    """A key as it stands in a path: bare when it is a plain identifier, else quoted (so that no
    key can break the one-line message)."""
    text = str(key)
    if text.isidentifier():
        return text
    return json.dumps(text)


def _kind(value):
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string",
            list: "an array", dict: "an object"}.get(type(value), type(value).__name__)


def validate(doc, filename, counts=V040_COUNTS, sha256=None):
    c = _Checker(filename)
    if not isinstance(doc, dict):
        c.fail("(top level)", f"expected an object with CHARACTERS, XP_TABLE, TRAINING_AREAS, "
                              f"ROUTES, GEAR_SHOP; found {_kind(doc)}")
    # other top-level names are allowed (data.js exports more than the game's data); a
    # misspelt one of the five is reported as missing below
    # Characters (R2, §9). Keys are the character identities the passives are keyed on (R74).
    chars = c.field(doc, "CHARACTERS", "")
    if not isinstance(chars, dict):
        c.fail("CHARACTERS", f"expected an object keyed by character, found {_kind(chars)}")
    if counts and len(chars) != counts["characters"]:
        c.fail("CHARACTERS", f"expected {counts['characters']} characters (R1), found {len(chars)}")
    for key, ch in chars.items():
        path = f"CHARACTERS.{_key(key)}"
        c.choice(key, path, CHARACTER_KEYS, "character key")
        c.keys(ch, path, "character")
        if isinstance(ch, dict) and "name" in ch:
            c.name(ch["name"], f"{path}.name")
        stats = c.field(ch, "startingStats", path)
        for s in STATS:
            c.integer(c.field(stats, s, f"{path}.startingStats"), f"{path}.startingStats.{s}", 0, 500)
        for extra in stats:
            c.choice(extra, f"{path}.startingStats.{_key(extra)}", STATS, "stat")
        c.integer(c.field(ch, "startingEndurance", path), f"{path}.startingEndurance", 1, 1000)
        growth = c.field(ch, "growth", path)
        for s in STATS + ("endurance",):
            c.number(c.field(growth, s, f"{path}.growth"), f"{path}.growth.{s}", 0, 100)
        for extra in growth:
            c.choice(extra, f"{path}.growth.{_key(extra)}", STATS + ("endurance",), "growth field")
    # XP table (R61): levels 1..n in order, cumulative strictly increasing from 0.
    table = c.array(c.field(doc, "XP_TABLE", ""), "XP_TABLE",
                    counts["xp_levels"] if counts else None)
    previous = -1
    for i, row in enumerate(table):
        path = f"XP_TABLE[{i}]"
        c.keys(row, path, "xp level")
        level = c.integer(c.field(row, "level", path), f"{path}.level")
        if level != i + 1:
            c.fail(f"{path}.level", f"expected level {i + 1} (rows in level order), found {level}")
        cumulative = c.integer(c.field(row, "cumulative", path), f"{path}.cumulative", 0)
        if i == 0 and cumulative != 0:
            c.fail(f"{path}.cumulative", f"level 1 must start at 0 XP, found {cumulative}")
        if cumulative <= previous:
            c.fail(f"{path}.cumulative", f"must exceed the previous level's {previous}, found {cumulative}")
        previous = cumulative
    # Training stations (R25, R40).
    stations = c.array(c.field(doc, "TRAINING_AREAS", ""), "TRAINING_AREAS",
                       counts["stations"] if counts else None)
    for i, st in enumerate(stations):
        path = f"TRAINING_AREAS[{i}]"
        c.keys(st, path, "training area")
        c.name(c.field(st, "name", path), f"{path}.name")
        c.choice(c.field(st, "stat", path), f"{path}.stat", STATS, "stat")
        c.integer(c.field(st, "bonus", path), f"{path}.bonus", 0, 100)
        c.integer(c.field(st, "time", path), f"{path}.time", 0, 10)
        c.integer(c.field(st, "endurance", path), f"{path}.endurance", 0, 1000)
    # Routes (R1-R4).
    features = set()                # every hold and move feature a route has (R49)
    routes = c.field(doc, "ROUTES", "")
    if not isinstance(routes, dict):
        c.fail("ROUTES", f"expected an object keyed by area, found {_kind(routes)}")
    for area in routes:
        c.choice(area, f"ROUTES.{_key(area)}", AREAS, "area")
    seen_names = {}
    for area in AREAS:
        deck = c.array(c.field(routes, area, "ROUTES"), f"ROUTES.{area}",
                       counts["routes"][area] if counts else None)
        if len(deck) < 5:
            c.fail(f"ROUTES.{area}", f"an area needs at least 5 routes to show (R15), found {len(deck)}")
        for i, r in enumerate(deck):
            path = f"ROUTES.{area}[{i}]"
            c.keys(r, path, "route")
            name = c.name(c.field(r, "name", path), f"{path}.name")
            if name in seen_names:
                c.fail(f"{path}.name", f"route name {name!r} is already used at {seen_names[name]}; "
                                       "route names must be unique (R1)")
            seen_names[name] = path
            c.string(c.field(r, "grade", path), f"{path}.grade")
            for s in STATS:
                c.integer(c.field(r, s, path), f"{path}.{s}", 0, 500)
            c.integer(c.field(r, "time", path), f"{path}.time", 1, 10)
            c.integer(c.field(r, "endurance", path), f"{path}.endurance", 0, 1000)
            c.integer(c.field(r, "xpSuccess", path), f"{path}.xpSuccess", 0, 10000)
            c.integer(c.field(r, "xpFail", path), f"{path}.xpFail", 0, 10000)
            effects = c.array(c.field(r, "rollEffect", path), f"{path}.rollEffect")
            if len(effects) > 3:
                c.fail(f"{path}.rollEffect", f"at most 3 effects are supported (R3), found {len(effects)}")
            for j, eff in enumerate(effects):
                epath = f"{path}.rollEffect[{j}]"
                c.keys(eff, epath, "roll effect")
                c.choice(c.field(eff, "stat", epath), f"{epath}.stat", STATS, "stat")
                mod = c.integer(c.field(eff, "modifier", epath), f"{epath}.modifier")
                c.choice(mod, f"{epath}.modifier", (-1, 1), "modifier (-1 buff, +1 nerf)")
            c.choice(c.field(r, "tag", path), f"{path}.tag", TAGS + (None,), "tag")
            c.choice(c.field(r, "routeType", path), f"{path}.routeType", ROUTE_TYPES,
                     "route type (what a gear card's routeFilter names, R49)")
            for key in ("holdFeatures", "moveFeatures"):
                for j, feat in enumerate(c.array(c.field(r, key, path), f"{path}.{key}")):
                    features.add(c.string(feat, f"{path}.{key}[{j}]"))
    # Gear (R30, R41-R43, §10).
    gear = c.array(c.field(doc, "GEAR_SHOP", ""), "GEAR_SHOP", counts["gear"] if counts else None)
    names = []
    columns = {}
    for i, card in enumerate(gear):
        path = f"GEAR_SHOP[{i}]"
        c.keys(card, path, "gear card")
        name = c.name(c.field(card, "name", path), f"{path}.name")
        if name in names:
            c.fail(f"{path}.name", f"gear card {name!r} appears twice; card names must be unique")
        key = record_key(name)
        if key in columns:
            c.fail(f"{path}.name", f"gear card {name!r} and {columns[key]!r} differ only in case, "
                                   f"spaces or hyphens; their record columns (owns_{key}) would "
                                   f"collide: rename one")
        columns[key] = name
        names.append(name)
    for i, card in enumerate(gear):
        path = f"GEAR_SHOP[{i}]"
        c.integer(c.field(card, "cost", path), f"{path}.cost", 0, 100000)
        c.choice(c.field(card, "statEffect", path), f"{path}.statEffect", STAT_EFFECTS, "statEffect")
        c.integer(c.field(card, "value", path), f"{path}.value", -100, 100)
        for key, allowed in (("routeFilter", ROUTE_FILTERS), ("holdFeatureFilter", None)):
            for j, entry in enumerate(c.array(c.field(card, key, path), f"{path}.{key}")):
                if allowed is None:
                    # R49 matches it against the routes' hold and move features: one that no
                    # route has (a typo) would silently switch the card's bonus off
                    c.choice(c.string(entry, f"{path}.{key}[{j}]"), f"{path}.{key}[{j}]",
                             sorted(features), "hold or move feature of a route in this file")
                else:
                    c.choice(entry, f"{path}.{key}[{j}]", allowed, "route filter")
        if "effectKind" in card:
            c.choice(card["effectKind"], f"{path}.effectKind", EFFECT_KINDS, "effectKind")
            if card["effectKind"] in DICE_CARD_VALUES:
                low, high = DICE_CARD_VALUES[card["effectKind"]]
                c.integer(card["value"], f"{path}.value", low, high)
        if "tagFilter" in card:
            c.choice(card["tagFilter"], f"{path}.tagFilter", TAGS + (None,), "tag")
        for j, pre in enumerate(c.array(c.field(card, "prerequisiteItems", path),
                                        f"{path}.prerequisiteItems")):
            c.choice(pre, f"{path}.prerequisiteItems[{j}]", names, "gear card (prerequisite)")
            if pre == card["name"]:
                c.fail(f"{path}.prerequisiteItems[{j}]", "a card cannot require itself")
        c.integer(c.field(card, "prerequisiteLevel", path), f"{path}.prerequisiteLevel", 1,
                  len(table))
        c.integer(c.field(card, "restBonus", path), f"{path}.restBonus", 0, 1000)
    _refuse_prerequisite_cycles(c, gear)
    access = [n for n in names if n in ACCESS_CARDS_V040]
    if counts and len(access) != counts["access"]:
        c.fail("GEAR_SHOP", f"expected {counts['access']} access cards of "
                            f"{', '.join(ACCESS_CARDS_V040)} (R1, R16), found {len(access)}")
    if len(names) - len(access) < 3:
        c.fail("GEAR_SHOP", "the shop rotation needs at least 3 non-access cards (R16)")
    if sha256 is None:
        sha256 = hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()
    return GameData(characters=chars, xp_table=table, stations=stations, routes=routes,
                    gear=gear, source=filename, sha256=sha256)
