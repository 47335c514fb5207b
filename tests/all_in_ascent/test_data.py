"""The data loader (sim/games/all_in_ascent/data.py) and the data.js reader (sim/core/jsdata.py).

RULES.md §1 (R1-R4) states what the bundled v0.4.0 data contains; the rest checks that bad data
is refused with ONE line naming the file, the JavaScript-style path and what is allowed, and
that the designers' data.js form gives exactly the same game as the JSON.
"""
import copy
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from sim.core.jsdata import JsDataError, parse_js_exports
from sim.games.all_in_ascent.data import (V040_COUNTS, V060_COUNTS, DataError, bundled_path,
                                          load_data, validate)
from sim.games.all_in_ascent.rules import pack

REPO = Path(__file__).resolve().parents[2]
DATA_FILE = REPO / "sim" / "games" / "all_in_ascent" / "data" / "data-v0.4.0.json"
# shared/ sits beside the repository (for developers and in CI)
SPEC_DATA_FILE = Path(__file__).resolve().parents[3] / "shared" / "all-in-ascent" / "data-v0.4.0.json"
FIXTURE_JS = REPO / "tests" / "fixtures" / "data-v0.4.0-sample.js"
RAW = json.loads(DATA_FILE.read_text())

STATS = ("strength", "technique", "focus", "flexibility")
AREAS = ("bouldering", "topRope", "leadClimbing")
ACCESS = ("Harness", "Belay Device", "Locking Carabiner", "Lead Rope")
CHARACTER_KEYS = ("technician", "sprinter", "ironLung", "freeSolo", "routeReader")


@pytest.fixture(scope="module")
def data():
    return load_data()


def all_routes(doc=RAW):
    return [(area, r) for area in AREAS for r in doc["ROUTES"][area]]


def by_name(name):
    for area, r in all_routes():
        if r["name"] == name:
            return area, r
    raise KeyError(name)


# --- helpers: edit a copy of the JSON at a JS-style path, load it from a file ----------------

_STEP = re.compile(r"\.?([A-Za-z_$][\w$]*)|\[(\d+)\]")


def _steps(path):
    steps, pos = [], 0
    while pos < len(path):
        m = _STEP.match(path, pos)
        assert m, f"bad path {path!r} at {pos}"
        steps.append(m.group(1) if m.group(1) is not None else int(m.group(2)))
        pos = m.end()
    return steps


def edited(path, value=None, delete=False, doc=RAW):
    """A deep copy of `doc` with the entry at `path` (e.g. ROUTES.topRope[4].time) replaced or
    deleted."""
    out = copy.deepcopy(doc)
    *parents, last = _steps(path)
    node = out
    for step in parents:
        node = node[step]
    if delete:
        del node[last]
    else:
        node[last] = value
    return out


def get(path, doc=RAW):
    node = doc
    for step in _steps(path):
        node = node[step]
    return node


def assert_one_line(msg):
    assert msg and "\n" not in msg and "\r" not in msg, f"not one line: {msg!r}"
    assert "Traceback" not in msg


def load_error(tmp_path, doc=None, text=None, raw=None, name="data-bad.json"):
    """Write bad data to tmp_path/name, load it, return the DataError message (checked to be
    one line that starts with the file name)."""
    p = tmp_path / name
    if raw is None:
        raw = (text if text is not None else json.dumps(doc, indent=2)).encode()
    p.write_bytes(raw)
    with pytest.raises(DataError) as exc_info:
        load_data(p)
    msg = str(exc_info.value)
    assert_one_line(msg)
    assert msg.startswith(f"{name}: "), msg
    return msg


# ===== R1: contents of the bundled v0.4.0 data =================================================

def test_bundled_data_counts(data):
    # R1
    assert len(data.characters) == 5
    assert set(data.characters) == set(CHARACTER_KEYS)
    assert len(data.xp_table) == 15
    assert len(data.stations) == 4
    assert {a: len(data.routes[a]) for a in AREAS} == {"bouldering": 26, "topRope": 23,
                                                       "leadClimbing": 23}
    assert sum(len(data.routes[a]) for a in AREAS) == 72
    assert len(data.gear) == 18
    names = data.gear_names
    assert [n for n in names if n in ACCESS] == list(ACCESS)  # 4 access cards, in data order
    assert len([n for n in names if n not in ACCESS]) == 14     # the rotation pool (R16)


def test_bundled_route_tags(data):
    # R1
    tags = Counter(r["tag"] for a in AREAS for r in data.routes[a])
    assert tags == {"Pinch/Crimp": 16, "Dynamic": 14, "Toe/Heel Hook": 9, "Roof/Sloper": 8,
                    None: 25}


def test_bundled_route_names_unique(data):
    # R1
    names = [r["name"] for a in AREAS for r in data.routes[a]]
    assert len(names) == 72
    assert len(set(names)) == 72
    assert len(set(data.gear_names)) == 18


def test_load_data_default_is_the_bundled_v040_file(data):
    # R1: load_data() with no path reads the bundled v0.4.0 JSON.
    assert Path(str(bundled_path("v0.4.0"))).resolve() == DATA_FILE.resolve()
    assert data.source == "data-v0.4.0.json"
    explicit = load_data(DATA_FILE)
    assert explicit.routes == data.routes and explicit.gear == data.gear
    assert explicit.sha256 == data.sha256
    assert data.characters == RAW["CHARACTERS"] and data.routes == RAW["ROUTES"]


@pytest.mark.skipif(not SPEC_DATA_FILE.exists(), reason="spec data file not available")
def test_bundled_data_is_the_spec_data_file():
    # R1: the bundled file is the specification's data-v0.4.0.json, byte for byte.
    assert DATA_FILE.read_bytes() == SPEC_DATA_FILE.read_bytes()


def test_bundled_v060_data_loads_with_its_counts():
    # Later versions L3: 17 cards (3 access), everything else as v0.4.0.
    d6 = load_data(bundled_path("v0.6.0"), V060_COUNTS)
    assert len(d6.gear) == 17 and "Harness" not in d6.gear_names
    assert d6.routes == RAW["ROUTES"]
    with pytest.raises(DataError, match=r"GEAR_SHOP: expected 17 entries"):
        load_data(DATA_FILE, V060_COUNTS)


# ===== R2: the fields the engine reads are on every record =====================================

def test_character_fields_present(data):
    # R2
    for key, ch in data.characters.items():
        assert set(ch["startingStats"]) == set(STATS), key
        assert all(isinstance(ch["startingStats"][s], int) for s in STATS)
        assert isinstance(ch["startingEndurance"], int)
        assert set(ch["growth"]) == set(STATS) | {"endurance"}, key
        for field in ("name", "archetype"):
            assert isinstance(ch[field], str) and ch[field]
        assert isinstance(ch["specialAbility"]["name"], str)


def test_route_fields_present(data):
    # R2
    needed = set(STATS) | {"time", "endurance", "xpSuccess", "xpFail", "rollEffect", "tag",
                           "routeType", "holdFeatures", "moveFeatures", "grade", "name"}
    for area in AREAS:
        for i, r in enumerate(data.routes[area]):
            missing = needed - set(r)
            assert not missing, f"ROUTES.{area}[{i}] lacks {sorted(missing)}"
            assert isinstance(r["holdFeatures"], list) and isinstance(r["moveFeatures"], list)


def test_gear_fields_present(data):
    # R2. effectKind/tagFilter are read with a default: they are absent on cards without such
    # an effect (Beta Reading Book, Pre-Climb Stretching, the access cards, Approach Shoes).
    needed = {"name", "cost", "statEffect", "value", "routeFilter", "holdFeatureFilter",
              "prerequisiteItems", "prerequisiteLevel", "restBonus"}
    for i, card in enumerate(data.gear):
        missing = needed - set(card)
        assert not missing, f"GEAR_SHOP[{i}] lacks {sorted(missing)}"
    with_kind = [c["name"] for c in data.gear if "effectKind" in c]
    assert len(with_kind) == 11
    with_tag = {c["name"]: c["tagFilter"] for c in data.gear if "tagFilter" in c}
    assert with_tag == {"Crimp Sequence Decoder": "Pinch/Crimp",
                        "Trick Foot Manual": "Toe/Heel Hook",
                        "Body Tension Belt": "Roof/Sloper", "Power Tap Belt": "Dynamic"}


def test_xp_table_and_station_fields_present(data):
    # R2
    for i, row in enumerate(data.xp_table):
        assert row["level"] == i + 1 and isinstance(row["cumulative"], int)
    for st in data.stations:
        assert {"name", "stat", "bonus", "time", "endurance"} <= set(st)
        assert st["stat"] in STATS


@pytest.mark.parametrize("path", [
    "CHARACTERS.sprinter.startingStats",
    "CHARACTERS.sprinter.startingStats.focus",
    "CHARACTERS.ironLung.startingEndurance",
    "CHARACTERS.freeSolo.growth",
    "CHARACTERS.freeSolo.growth.endurance",
    "XP_TABLE[3].cumulative",
    "XP_TABLE[3].level",
    "TRAINING_AREAS[1].name",
    "TRAINING_AREAS[1].stat",
    "TRAINING_AREAS[1].bonus",
    "TRAINING_AREAS[1].time",
    "TRAINING_AREAS[1].endurance",
    "ROUTES.bouldering[0].name",
    "ROUTES.bouldering[0].grade",
    "ROUTES.bouldering[0].strength",
    "ROUTES.bouldering[0].flexibility",
    "ROUTES.bouldering[0].endurance",
    "ROUTES.bouldering[0].xpSuccess",
    "ROUTES.bouldering[0].xpFail",
    "ROUTES.bouldering[0].rollEffect",
    "ROUTES.bouldering[0].tag",
    "ROUTES.bouldering[0].routeType",
    "ROUTES.bouldering[0].holdFeatures",
    "ROUTES.leadClimbing[22].moveFeatures",
    "ROUTES.leadClimbing[22].rollEffect[0].modifier",
    "ROUTES.leadClimbing",
    "GEAR_SHOP[9].name",
    "GEAR_SHOP[9].cost",
    "GEAR_SHOP[9].statEffect",
    "GEAR_SHOP[9].value",
    "GEAR_SHOP[9].routeFilter",
    "GEAR_SHOP[9].holdFeatureFilter",
    "GEAR_SHOP[9].prerequisiteItems",
    "GEAR_SHOP[9].prerequisiteLevel",
    "GEAR_SHOP[9].restBonus",
    "GEAR_SHOP",
    "ROUTES",
])
def test_missing_read_field_is_refused(path):
    # R2: a field the rules read may not be missing; the message names its path.
    with pytest.raises(DataError) as exc_info:
        validate(edited(path, delete=True), "data-bad.json")
    msg = str(exc_info.value)
    assert_one_line(msg)
    assert msg == f"data-bad.json: {path}: missing field"


@pytest.mark.parametrize("path", [
    "ROUTES.topRope[4].gearModifiers",            # legacy, never read
    "XP_TABLE[3].needed",
    "GEAR_SHOP[0].category",
    "GEAR_SHOP[0].accessRequirement",
    "GEAR_SHOP[5].effectKind",
    "GEAR_SHOP[5].tagFilter",
    "TRAINING_AREAS[0].description",
    "CHARACTERS.technician.name",                 # logs only
    "CHARACTERS.technician.archetype",
    "CHARACTERS.technician.specialAbility",
])
def test_fields_not_read_by_the_rules_are_optional(path):
    # R2: fields the rules never read are not required.
    assert validate(edited(path, delete=True), "x.json").routes is not None


# ===== R3: rollEffect ===========================================================================

def test_roll_effect_modifiers_and_lengths(data):
    # R3
    lengths = Counter()
    for area in AREAS:
        for r in data.routes[area]:
            lengths[len(r["rollEffect"])] += 1
            for eff in r["rollEffect"]:
                assert set(eff) == {"stat", "modifier"}
                assert eff["stat"] in STATS
                assert eff["modifier"] in (-1, 1) and isinstance(eff["modifier"], int)
    assert set(lengths) == {0, 1, 2, 3}
    assert sum(lengths.values()) == 72


def test_roll_effect_same_stat_twice(data):
    # R3: the same stat may appear more than once (Shoulder Shredder: strength nerf twice).
    _, r = by_name("Shoulder Shredder")
    assert r["rollEffect"] == [{"stat": "strength", "modifier": 1},
                               {"stat": "strength", "modifier": 1},
                               {"stat": "technique", "modifier": -1}]
    repeated = [r["name"] for _, r in all_routes()
                if len({e["stat"] for e in r["rollEffect"]}) < len(r["rollEffect"])]
    assert "Shoulder Shredder" in repeated and len(repeated) >= 2


@pytest.mark.parametrize("modifier", [0, 2, -2, "1", 1.5, True, None])
def test_roll_effect_bad_modifier_refused(tmp_path, modifier):
    # R3: only -1 and +1.
    path = "ROUTES.topRope[4].rollEffect[0].modifier"
    msg = load_error(tmp_path, edited(path, modifier))
    assert path in msg


def test_roll_effect_more_than_three_refused(tmp_path):
    # R3: at most 3 effects.
    four = [{"stat": "focus", "modifier": 1}] * 4
    msg = load_error(tmp_path, edited("ROUTES.topRope[4].rollEffect", four))
    assert "ROUTES.topRope[4].rollEffect" in msg and "3" in msg
    # three (with a repeated stat) is fine
    three = [{"stat": "focus", "modifier": 1}] * 3
    assert validate(edited("ROUTES.topRope[4].rollEffect", three), "x.json")


# ===== R4: real data ranges =====================================================================

def _range(area, field, data):
    return min(r[field] for r in data.routes[area]), max(r[field] for r in data.routes[area])


def test_real_data_ranges(data):
    # R4
    assert _range("bouldering", "time", data) == (1, 6)
    assert by_name("The Gauntlet Opener") == ("bouldering", by_name("The Gauntlet Opener")[1])
    assert by_name("The Gauntlet Opener")[1]["time"] == 1
    assert [r["name"] for r in data.routes["bouldering"] if r["time"] == 1] == ["The Gauntlet Opener"]

    assert _range("topRope", "time", data) == (2, 7)
    assert by_name("The Grind")[0] == "topRope" and by_name("The Grind")[1]["time"] == 2

    assert _range("topRope", "xpFail", data) == (10, 97)
    assert by_name("The Big Gamble")[0] == "topRope"
    assert by_name("The Big Gamble")[1]["xpFail"] == 97

    assert _range("leadClimbing", "time", data) == (2, 8)
    assert by_name("The Quick Send")[0] == "leadClimbing"
    assert by_name("The Quick Send")[1]["time"] == 2
    assert by_name("The Sprint Lead")[1]["time"] == 3

    endurance = [r["endurance"] for _, r in all_routes()]
    assert (min(endurance), max(endurance)) == (12, 100)


# ===== malformed data: one clear line ===========================================================

def test_missing_field_message(tmp_path):
    msg = load_error(tmp_path, edited("ROUTES.topRope[4].time", delete=True))
    assert "data-bad.json" in msg
    assert "ROUTES.topRope[4].time" in msg
    assert "missing" in msg


def test_unknown_stat_message_lists_allowed(tmp_path):
    msg = load_error(tmp_path, edited("ROUTES.topRope[4].rollEffect[0].stat", "power"))
    assert "ROUTES.topRope[4].rollEffect[0].stat" in msg
    assert "'power'" in msg
    allowed = msg.split("allowed", 1)[1]
    for s in STATS:
        assert s in allowed


def test_bad_type_message(tmp_path):
    msg = load_error(tmp_path, edited("GEAR_SHOP[5].cost", "110"))
    assert "GEAR_SHOP[5].cost" in msg
    assert "integer" in msg and "string" in msg


@pytest.mark.parametrize("path,value,words", [
    ("GEAR_SHOP[5].cost", 110.5, ["integer"]),
    ("GEAR_SHOP[5].cost", None, ["integer", "null"]),
    ("GEAR_SHOP[5].cost", -1, ["out of range"]),
    ("GEAR_SHOP[5].routeFilter", "All", ["array"]),
    ("GEAR_SHOP[5].routeFilter", ["Everywhere"], ["route filter", "Top Rope"]),
    ("GEAR_SHOP[5].statEffect", "luck", ["statEffect", "strength"]),
    ("GEAR_SHOP[5].effectKind", "teleport", ["effectKind", "rerollOnTag"]),
    ("GEAR_SHOP[5].tagFilter", "Slab", ["tag", "Pinch/Crimp"]),
    ("GEAR_SHOP[5].prerequisiteLevel", 16, ["out of range", "1..15"]),
    # R51: the dice cards' values the engine has no reading for
    ("GEAR_SHOP[16].value", -2, ["out of range", "0..100"]),
    ("GEAR_SHOP[11].value", 0, ["out of range", "1..6"]),
    ("GEAR_SHOP[7].value", 0, ["out of range", "1..100"]),
    ("ROUTES.topRope[4].tag", "Slab", ["tag", "Dynamic", "null"]),
    # R49 matches these against each other: a typo silently took a route out of every type
    # filter, or switched a card's feature bonus off
    ("ROUTES.topRope[4].routeType", "Slabb", ["route type", "Slab, Vertical, Overhang"]),
    ("GEAR_SHOP[0].holdFeatureFilter", ["Crimpz"],
     ["'Crimpz' is not a known hold or move feature of a route in this file", "Crimp, Dynamic"]),
    ("ROUTES.topRope[4].time", 0, ["out of range"]),
    ("ROUTES.topRope[4].time", "5", ["integer", "string"]),
    ("ROUTES.topRope[4].strength", 45.5, ["integer"]),
    ("ROUTES.topRope[4].grade", 5, ["string"]),
    ("ROUTES.topRope[4].rollEffect", {"stat": "focus"}, ["array"]),
    ("ROUTES.topRope[4]", None, ["object", "null"]),
    ("ROUTES.topRope", {}, ["array"]),
    ("ROUTES.bogus", [], ["area", "bouldering"]),
    ("CHARACTERS.technician.growth.strength", "1.5", ["number", "string"]),
    ("CHARACTERS.technician.startingStats", [12, 26, 18, 14], ["object", "array"]),
    ("CHARACTERS.technician.startingStats.luck", 3, ["stat", "strength"]),
    ("TRAINING_AREAS[2].stat", "stamina", ["stat", "flexibility"]),
    ("XP_TABLE[3].cumulative", 5, ["250"]),
    ("XP_TABLE[3].level", 5, ["level 4"]),
    ("XP_TABLE[0].cumulative", 10, ["0"]),
])
def test_bad_values_are_one_clear_line(tmp_path, path, value, words):
    msg = load_error(tmp_path, edited(path, value))
    assert path in msg or path.rsplit(".", 1)[0] in msg, msg
    for word in words:
        assert word in msg, (word, msg)


def test_unknown_character_key(tmp_path):
    # §9: the character keys are the identities the rules are keyed on.
    doc = copy.deepcopy(RAW)
    doc["CHARACTERS"]["climber"] = doc["CHARACTERS"].pop("technician")
    msg = load_error(tmp_path, doc)
    assert "CHARACTERS.climber" in msg and "character" in msg
    for key in CHARACTER_KEYS:
        assert key in msg


def test_prerequisite_naming_unknown_card(tmp_path):
    msg = load_error(tmp_path, edited("GEAR_SHOP[1].prerequisiteItems[0]", "Harnes"))
    assert "GEAR_SHOP[1].prerequisiteItems[0]" in msg
    assert "'Harnes'" in msg
    assert "Harness" in msg.split("allowed", 1)[1]


def test_prerequisite_on_itself_refused(tmp_path):
    msg = load_error(tmp_path, edited("GEAR_SHOP[1].prerequisiteItems", ["Belay Device"]))
    assert "GEAR_SHOP[1].prerequisiteItems[0]" in msg and "itself" in msg


@pytest.mark.parametrize("path,drop,expected", [
    ("ROUTES.topRope", 1, "ROUTES.topRope: expected 23 entries"),
    ("ROUTES.bouldering", 1, "ROUTES.bouldering: expected 26 entries"),
    ("XP_TABLE", 1, "XP_TABLE: expected 15 entries"),
    ("TRAINING_AREAS", 1, "TRAINING_AREAS: expected 4 entries"),
    ("GEAR_SHOP", 1, "GEAR_SHOP: expected 18 entries"),
])
def test_wrong_count(tmp_path, path, drop, expected):
    # R1 counts are enforced for the v0.4.0 preset.
    doc = edited(path, get(path)[:-drop])
    msg = load_error(tmp_path, doc)
    assert expected in msg
    assert f"found {len(get(path)) - drop}" in msg


def test_wrong_character_count(tmp_path):
    doc = edited("CHARACTERS.routeReader", delete=True)
    msg = load_error(tmp_path, doc)
    assert "CHARACTERS" in msg and "5" in msg and "4" in msg


def test_wrong_access_card_count(tmp_path):
    doc = edited("GEAR_SHOP[3].name", "Lead Rope Deluxe")
    doc = edited("GEAR_SHOP[3].prerequisiteItems", [], doc=doc)
    msg = load_error(tmp_path, doc)
    assert "GEAR_SHOP" in msg and "access" in msg and "found 3" in msg


def test_counts_none_skips_count_checks():
    # validate(doc, filename, counts): counts=None checks shapes only.
    doc = edited("ROUTES.topRope", RAW["ROUTES"]["topRope"][:-1])
    with pytest.raises(DataError):
        validate(doc, "x.json")
    short = validate(doc, "x.json", None)
    assert len(short.routes["topRope"]) == 22
    assert validate(RAW, "x.json", V040_COUNTS).source == "x.json"


def test_duplicate_route_name(tmp_path):
    first = RAW["ROUTES"]["bouldering"][0]["name"]
    msg = load_error(tmp_path, edited("ROUTES.leadClimbing[3].name", first))
    assert "ROUTES.leadClimbing[3].name" in msg
    assert "ROUTES.bouldering[0]" in msg
    assert "unique" in msg


def test_duplicate_gear_name(tmp_path):
    msg = load_error(tmp_path, edited("GEAR_SHOP[9].name", "Mountain Mentor"))
    assert "GEAR_SHOP[" in msg and "Mountain Mentor" in msg


def test_invalid_json_names_the_line(tmp_path):
    lines = DATA_FILE.read_text().splitlines()
    lines.insert(9, "    oops,")              # becomes line 10, inside XP_TABLE
    msg = load_error(tmp_path, text="\n".join(lines))
    assert msg.startswith("data-bad.json: line 10: ")
    assert "JSON" in msg


def test_truncated_and_non_object_json(tmp_path):
    text = DATA_FILE.read_text()
    msg = load_error(tmp_path, text=text[: len(text) // 2])
    assert "line" in msg and "JSON" in msg
    msg = load_error(tmp_path, text="[1, 2, 3]")
    assert "(top level)" in msg and "CHARACTERS" in msg


def test_missing_file_is_a_data_error(tmp_path):
    with pytest.raises(DataError) as exc_info:
        load_data(tmp_path / "no-such-data.json")
    msg = str(exc_info.value)
    assert_one_line(msg)
    assert "no-such-data.json" in msg


def test_non_utf8_file_is_a_data_error(tmp_path):
    raw = DATA_FILE.read_bytes()
    raw = raw.replace(b"The Technician", b"The Techn\xefcian", 1)   # latin-1 byte
    msg = load_error(tmp_path, raw=raw)
    assert "UTF-8" in msg or "utf-8" in msg


def test_key_with_newline_still_gives_one_line(tmp_path):
    doc = copy.deepcopy(RAW)
    doc["CHARACTERS"]["tech\nnician"] = doc["CHARACTERS"].pop("technician")
    load_error(tmp_path, doc)


# --- data that used to change games silently ---------------------------------------------------

def test_a_key_given_twice_is_refused(tmp_path):
    # json keeps the last value: a pasted line once made the Technician's strength 480
    text = DATA_FILE.read_text()
    at = text.index('"strength"', text.index('"technician"'))
    end = text.index(",", at)
    bad = text[:end + 1] + ' "strength": 480,' + text[end + 1:]
    msg = load_error(tmp_path, text=bad)
    assert "CHARACTERS.technician.startingStats.strength" in msg and "twice" in msg


def test_a_key_given_twice_in_data_js_is_refused(tmp_path):
    text = FIXTURE_JS.read_text()
    bad = text.replace("strength: 12,", "strength: 12, strength: 480,", 1)
    assert bad != text
    msg = load_error(tmp_path, text=bad, name="data-bad.js")
    assert "line" in msg and "'strength' appears twice" in msg


@pytest.mark.parametrize("path, typo, field", [
    ("GEAR_SHOP[5]", "effectKnd", "effectKind"),
    ("GEAR_SHOP[5]", "tagFiltr", "tagFilter"),
    ("ROUTES.topRope[2]", "xpSucess", "xpSuccess"),
    ("CHARACTERS.sprinter", "startingEndurence", "startingEndurance"),
])
def test_an_unknown_key_is_refused_with_a_did_you_mean(tmp_path, path, typo, field):
    doc = copy.deepcopy(RAW)
    get(path, doc)[typo] = 1
    msg = load_error(tmp_path, doc)
    assert f"{path}.{typo}" in msg and f"did you mean '{field}'?" in msg


def test_a_prerequisite_cycle_is_refused(tmp_path):
    a, b, c = (RAW["GEAR_SHOP"][i]["name"] for i in (4, 5, 6))
    doc = edited("GEAR_SHOP[4].prerequisiteItems", [b])
    doc = edited("GEAR_SHOP[5].prerequisiteItems", [c], doc=doc)
    doc = edited("GEAR_SHOP[6].prerequisiteItems", [a], doc=doc)
    msg = load_error(tmp_path, doc)
    assert "prerequisite cycle" in msg and f"{a} -> {b} -> {c} -> {a}" in msg


def test_card_names_equal_after_normalising_are_refused(tmp_path):
    name = RAW["GEAR_SHOP"][5]["name"]
    msg = load_error(tmp_path, edited("GEAR_SHOP[6].name", name.upper().replace(" ", "-")))
    assert "GEAR_SHOP[6].name" in msg and "collide" in msg


@pytest.mark.parametrize("path, value, words", [
    ("ROUTES.bouldering[0].name", "Crimp\nLine", "control characters"),
    ("ROUTES.bouldering[0].name", "   ", "blank"),
    ("GEAR_SHOP[3].name", " Lead Rope", "spaces"),
    ("TRAINING_AREAS[1].name", "Gym\tWall", "control characters"),
])
def test_names_with_control_characters_or_blanks_are_refused(tmp_path, path, value, words):
    msg = load_error(tmp_path, edited(path, value))
    assert path in msg and words in msg


def test_deeply_nested_data_is_one_line(tmp_path):
    msg = load_error(tmp_path, text="[" * 100000 + "]" * 100000)
    assert "nested too deeply" in msg


# --- the CLI -----------------------------------------------------------------------------------

def _run_cli(bad_file):
    return subprocess.run(
        [sys.executable, "-m", "sim.cli", "replay", "--data", str(bad_file), "--seed", "1",
         "--characters", "technician", "--policy", "random"],
        capture_output=True, text=True, cwd=REPO, timeout=120)


def test_cli_reports_bad_data_in_one_line(tmp_path):
    bad = tmp_path / "data-bad.json"
    bad.write_text(json.dumps(edited("ROUTES.topRope[4].time", delete=True)))
    proc = _run_cli(bad)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    err = proc.stderr.strip()
    assert err and "\n" not in err, proc.stderr
    assert "data-bad.json" in err and "ROUTES.topRope[4].time" in err


def test_cli_reports_non_utf8_data_in_one_line(tmp_path):
    bad = tmp_path / "data-latin1.json"
    bad.write_bytes(DATA_FILE.read_bytes().replace(b"The Technician", b"The Techn\xefcian", 1))
    proc = _run_cli(bad)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr


# ===== data.js import ===========================================================================

def test_fixture_has_the_designers_style():
    # The fixture exercises what the reader must accept (it is a file, not generated here).
    src = FIXTURE_JS.read_text()
    for name in ("CHARACTERS", "XP_TABLE", "TRAINING_AREAS", "ROUTES", "GEAR_SHOP"):
        assert f"export const {name} = " in src
    assert "//" in src and "/*" in src                     # both comment forms
    assert re.search(r"^\s+[A-Za-z]\w*: ", src, re.M)     # unquoted keys
    assert re.search(r"^\s+'\w+': ", src, re.M) and re.search(r'"cumulative": ', src)
    assert "'Beginner\\'s Fortune'" in src and '"The Sprinter"' in src
    assert re.search(r",\s*\]", src) and re.search(r",\s*\}", src)    # trailing commas
    assert "modifier: -1" in src and "null" in src and "true" in src and "false" in src


def test_data_js_gives_the_same_data_as_the_json(data):
    js = load_data(FIXTURE_JS)
    assert js.source == "data-v0.4.0-sample.js"
    assert js.characters == data.characters
    assert js.xp_table == data.xp_table
    assert js.stations == data.stations
    assert js.routes == data.routes
    assert js.gear == data.gear
    # exact JSON types too (ints stay ints, 1.5 stays a float), in the same order
    exports = parse_js_exports(FIXTURE_JS.read_text(), FIXTURE_JS.name)
    for key in RAW:
        assert json.dumps(exports[key]) == json.dumps(RAW[key]), key
    assert exports["DATA_INFO"] == {"autoGenerated": True, "editedByHand": False, "note": None,
                                    "offset": -0.5}


def test_data_js_packs_to_identical_tables(data):
    js = pack(load_data(FIXTURE_JS))
    ref = pack(data)
    assert js.tables.dtype == ref.tables.dtype
    assert np.array_equal(js.tables, ref.tables)
    assert js.route_names == ref.route_names and js.card_names == ref.card_names


def test_parse_js_literals():
    src = """
    // comment with 'quotes' and "more"
    export const A = {
      plain: 'single', dq: "double", esc: 'it\\'s', tab: "a\\tb", uni: '\\u00e9',
      'quoted key': 1, "dq key": -2, 3: 4.5, neg: -0.25, exp: 1e3, half: .5,
      t: true, f: false, n: null, nested: [[], {}, [1, [2, ],], ],  /* block
      comment */ url: 'http://x/*y*/',
    };
    export let B = [1, 2, 3,]
    export var C = 'no semicolon'
    ;;
    """
    out = parse_js_exports(src, "t.js")
    assert out["A"] == {"plain": "single", "dq": "double", "esc": "it's", "tab": "a\tb",
                        "uni": "\u00e9", "quoted key": 1, "dq key": -2, "3": 4.5, "neg": -0.25,
                        "exp": 1000.0, "half": 0.5, "t": True, "f": False, "n": None,
                        "nested": [[], {}, [1, [2]]], "url": "http://x/*y*/"}
    assert out["B"] == [1, 2, 3] and out["C"] == "no semicolon"
    assert isinstance(out["A"]["dq key"], int)


def _fixture_with(old, new):
    src = FIXTURE_JS.read_text()
    assert src.count(old) >= 1, old
    i = src.index(old)
    line = src.count("\n", 0, i) + 1
    return src[:i] + new + src[i + len(old):], line


@pytest.mark.parametrize("old,new", [
    ("      time: 5,", "      time: Math.max(1, 5),"),     # a function call
    ("      time: 5,", "      time: `5`,"),                # a template string
    ("      time: 5,", "      time: 2 + 3,"),              # an expression
    ("      time: 5,", "      time: five,"),               # an identifier
    ("      time: 5,", "      ...BASE,"),                  # a spread
    ("      time: 5,", "      time: 0x5,"),                # hex: not data.js style
    ("      time: 5,", "      time: ,"),                   # hole
    ("      time: 5,", "      time: undefined,"),
])
def test_data_js_parse_errors_name_the_line(tmp_path, old, new):
    src, line = _fixture_with(old, new)
    with pytest.raises(JsDataError) as exc_info:
        parse_js_exports(src, "data-bad.js")
    msg = str(exc_info.value)
    assert_one_line(msg)
    assert msg.startswith(f"data-bad.js: line {line}: "), msg
    # through the loader: a DataError with the same line
    bad = tmp_path / "data-bad.js"
    bad.write_text(src)
    with pytest.raises(DataError) as exc_info:
        load_data(bad)
    assert str(exc_info.value) == msg


@pytest.mark.parametrize("src,line,words", [
    ("export const A = 1;\nexport const A = 2;\n", 2, ["twice"]),
    ("import X from './x.js';\nexport const A = 1;", 1, ["export const"]),
    ("export default {};", 1, ["const"]),
    ("export function f() {}", 1, []),
    ("const A = 1;", 1, ["export const"]),
    ("export const A = {\n  a: 1\n  b: 2,\n};", 3, ["','"]),
    ("export const A = [\n 1,\n 2\n", 4, ["end of file"]),
    ("export const A = {\n a: 'unterminated\n};", 2, ["unexpected character"]),
    ("export const A = 1; /* never closed\n", 1, ["unexpected character"]),
    ("export const A = {\n /* one\n two */\n a: NaN,\n};", 4, ["NaN"]),
])
def test_parse_js_errors(src, line, words):
    with pytest.raises(JsDataError) as exc_info:
        parse_js_exports(src, "x.js")
    msg = str(exc_info.value)
    assert_one_line(msg)
    assert msg.startswith(f"x.js: line {line}: "), msg
    for word in words:
        assert word in msg


def test_data_js_validation_errors_name_the_js_file(tmp_path):
    src, _ = _fixture_with("stat: 'technique', modifier: -1 }", "stat: 'tech', modifier: -1 }")
    bad = tmp_path / "data-bad.js"
    bad.write_text(src)
    with pytest.raises(DataError) as exc_info:
        load_data(bad)
    msg = str(exc_info.value)
    assert_one_line(msg)
    assert msg.startswith("data-bad.js: ROUTES.bouldering[0].rollEffect[0].stat: "), msg
    assert "strength" in msg


@pytest.mark.parametrize("literal,value", [
    (r"'\x41'", "A"),
    (r"'\u{1F3D4}'", "\U0001F3D4"),
    ("'ab\\\ncd'", "abcd"),                       # backslash-newline: a line continuation
    (r"'\uD83C\uDFD4'", "\U0001F3D4"),            # a surrogate pair is one character
])
def test_parse_js_string_escapes_like_javascript(literal, value):
    assert parse_js_exports(f"export const A = {literal};")["A"] == value


def test_parse_js_accepts_a_byte_order_mark():
    assert parse_js_exports("\ufeffexport const A = 1;") == {"A": 1}


def test_deeply_nested_data_js_is_one_line(tmp_path):
    msg = load_error(tmp_path, text="export const CHARACTERS = " + "[" * 100000 + "]" * 100000
                     + ";\n", name="data-bad.js")
    assert "nested too deeply" in msg
