"""First Ascent data knobs: `--set PATH=VALUE` on the characters and the cards of data.json.

    characters.<key>.start_water | start_psych | max_water_psych   0..7
    characters.<key>.permanent_token_limit | rest_assets            0..12
    characters.<key>.permanent_threshold.<gear|face|crack|slab>    1..12
    asset_cards.<kind>.count                                       1..20 (the deck stays 124:
                                                                   move cards between kinds)
    asset_cards.<kind>.technique                                   a technique or none
    pitches.<key>.value                                            1..5 (its points)

A knob changes the data the engine and the bots read (the packed tables), then the whole file is
validated again, so a knob can never make data the bundled validation would refuse."""
import copy

from sim.games.first_ascent.data import (ASSET_TYPES, DATA, TECHNIQUES, DataError, pack_tables,
                                         validate_data)
from sim.games.first_ascent.rules import RuleError

CHARACTER_FIELDS = ("start_water", "start_psych", "max_water_psych", "permanent_token_limit",
                    "rest_assets")


class KnobError(RuleError):
    """A bad data knob: a rule error that names the knob (--set, an experiment's `set`)."""


def _key(name):
    return name.lower().replace(" ", "_").replace("-", "_").replace("'", "")


def _find(items, key, path, what, keyed=lambda x: x["key"]):
    for item in items:
        if keyed(item) == key:
            return item
    raise KnobError(f"{path}: unknown {what} {key!r}; allowed: "
                    f"{', '.join(sorted(keyed(x) for x in items))}")


def _number(path, text):
    try:
        return int(text)
    except ValueError:
        raise KnobError(f"{path}: expected a whole number, got {text!r}") from None


def apply(data, path, text):
    parts = path.split(".")
    head = parts[0]
    if head == "characters" and len(parts) in (3, 4):
        ch = _find(data["characters"], parts[1], path, "character")
        if len(parts) == 3 and parts[2] in CHARACTER_FIELDS:
            ch[parts[2]] = _number(path, text)
            return
        if len(parts) == 4 and parts[2] == "permanent_threshold" and parts[3] in ASSET_TYPES:
            ch["permanent_threshold"][parts[3]] = _number(path, text)
            return
        raise KnobError(f"{path}: a character knob is characters.<key>.<field>, field one of "
                        f"{', '.join(CHARACTER_FIELDS)}, or permanent_threshold."
                        f"<{'|'.join(ASSET_TYPES)}>")
    if head == "asset_cards" and len(parts) == 3:
        kind = _find(data["asset_kinds"], parts[1], path, "asset card",
                     lambda x: _key(x["name"]))
        if parts[2] == "count":
            kind["count"] = _number(path, text)
            return
        if parts[2] == "technique":
            if text not in TECHNIQUES:
                raise KnobError(f"{path}: allowed {', '.join(TECHNIQUES)}; got {text!r}")
            kind["technique"] = None if text == "none" else text
            return
        raise KnobError(f"{path}: an asset card knob is asset_cards.<kind>.count or .technique")
    if head == "pitches" and len(parts) == 3 and parts[2] == "value":
        pitch = _find(data["pitches"], parts[1], path, "pitch", lambda x: _key(x["name"]))
        pitch["value"] = _number(path, text)
        return
    raise KnobError(f"unknown knob {path!r}; knobs start with characters.<key>., "
                    f"asset_cards.<kind>. or pitches.<pitch>. (see `ascent rules --game "
                    f"first-ascent`)")


def _data_with(knobs):
    """A copy of the bundled data with the knobs [(path, value text)] applied."""
    data = copy.deepcopy(DATA)
    for path, text in knobs:
        apply(data, path, str(text).strip())
    return data


def knob_value(path, knobs):
    """The value of a data knob once `knobs` [(path, value text)] are applied."""
    data = _data_with(knobs)
    parts = path.split(".")
    if parts[0] == "characters" and len(parts) in (3, 4):
        value = _find(data["characters"], parts[1], path, "character")
        for part in parts[2:]:
            value = value[part]
        return value
    if parts[0] == "asset_cards" and len(parts) == 3:
        kind = _find(data["asset_kinds"], parts[1], path, "asset card", lambda x: _key(x["name"]))
        value = kind[parts[2]]
        return "none" if parts[2] == "technique" and value is None else value
    if parts[0] == "pitches" and len(parts) == 3:
        return _find(data["pitches"], parts[1], path, "pitch", lambda x: _key(x["name"]))["value"]
    raise KnobError(f"unknown knob {path!r}")


def tables_with_knobs(knobs):
    """[(path, value text)] -> the packed data tables with the knobs applied and validated."""
    data = _data_with(knobs)
    try:
        validate_data(data, "data.json with knobs")
    except DataError as exc:
        raise KnobError(f"the knobs make the data invalid: {exc}") from None
    return pack_tables(data)


def catalogue():
    kinds = sorted(_key(k["name"]) for k in DATA["asset_kinds"])
    return "\n".join([
        "data knobs (--set PATH=VALUE; the data is validated again with them):",
        "  characters.<key>.start_water | start_psych | max_water_psych    0..7",
        "  characters.<key>.permanent_token_limit | rest_assets             0..12",
        f"  characters.<key>.permanent_threshold.<{'|'.join(ASSET_TYPES)}>     1..12",
        "  asset_cards.<kind>.count      1..20; the deck stays 124 cards: move cards between "
        "kinds",
        f"  asset_cards.<kind>.technique  {' | '.join(TECHNIQUES)}",
        "  pitches.<pitch>.value         1..5",
        "asset card kinds: " + ", ".join(kinds)])
