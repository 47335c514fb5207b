"""First Ascent data knobs: `--set PATH=VALUE` on the characters and the cards of data.json.

    characters.<key>.start_water | start_psych | max_water_psych   0..7
    characters.<key>.permanent_token_limit | rest_assets            0..12
    characters.<key>.permanent_threshold.<gear|face|crack|slab>    1..12
    characters.<key>.ability.<name>                                a character ability (F64-F75,
                                                                   ABILITY_KNOBS below), on any
                                                                   character
    asset_cards.<kind>.count                                       1..20 (the deck stays 124:
                                                                   move cards between kinds)
    asset_cards.<kind>.technique                                   a technique or none
    pitches.<key>.value                                            1..5 (its points)

A knob changes the data the engine and the bots read (the packed tables), then the whole file is
validated again, so a knob can never make data the bundled validation would refuse."""
import copy

from sim.core.args import whole_number
from sim.games.first_ascent.data import (
    ABILITY_FLAGS, ABILITY_NUMBERS, ASSET_TYPES, DATA, IGNORED_BY_VALUE, REQUIREMENTS,
    SUBSTITUTE_PAYMENTS, TECHNIQUES, DataError, pack_tables, validate_data)
from sim.games.first_ascent.rules import RuleError

CHARACTER_FIELDS = ("start_water", "start_psych", "max_water_psych", "permanent_token_limit",
                    "rest_assets")
# characters.<key>.ability.<knob>: the number knobs take a whole number in ABILITY_NUMBERS'
# range, the switches `on` or `off`. `off` (or `none`) removes the ability, which is what the
# engine reads for a character without it.
NUMBER_ABILITIES = ("water_requirement_minus", "gear_requirement_cap", "starting_summit_beta",
                    "ignore_units_below_ledge", "climbing_cards_drawn")
ABILITY_DEFAULTS = {"water_requirement_minus": 0, "gear_requirement_cap": "none",
                    "starting_summit_beta": 0, "ignore_units_below_ledge": 0,
                    "climbing_cards_drawn": 1, "gear_cards_technique": "none",
                    "substitute": "none", **{f: "off" for f in ABILITY_FLAGS},
                    **{f"ignore_units_by_printed_value.{v}": 0 for v in IGNORED_BY_VALUE}}
ABILITY_KNOBS = tuple(ABILITY_DEFAULTS)


class KnobError(RuleError):
    """A bad data knob: a rule error that names the knob (--set, an experiment's `set`)."""


def _key(name):
    return name.lower().replace(" ", "_").replace("-", "_").replace("'", "")


def _by_name(item):
    """An asset card's or a pitch's knob key: its name written as a key."""
    return _key(item["name"])


def _find(items, key, path, what, keyed=lambda x: x["key"]):
    for item in items:
        if keyed(item) == key:
            return item
    raise KnobError(f"{path}: unknown {what} {key!r}; allowed: "
                    f"{', '.join(sorted(keyed(x) for x in items))}")


def _number(path, text, also=""):
    value = whole_number(text)
    if value is None:
        raise KnobError(f"{path}: expected a whole number{also}, got {text!r}")
    return value


def apply(data, path, text):
    parts = path.split(".")
    head = parts[0]
    if head == "characters" and len(parts) in (3, 4, 5):
        ch = _find(data["characters"], parts[1], path, "character")
        if len(parts) == 3 and parts[2] in CHARACTER_FIELDS:
            ch[parts[2]] = _number(path, text)
            return
        if len(parts) == 4 and parts[2] == "permanent_threshold" and parts[3] in ASSET_TYPES:
            ch["permanent_threshold"][parts[3]] = _number(path, text)
            return
        if parts[2] == "ability":
            _apply_ability(ch["ability"], path, ".".join(parts[3:]), text)
            return
        raise KnobError(f"{path}: a character knob is characters.<key>.<field>, field one of "
                        f"{', '.join(CHARACTER_FIELDS)}, permanent_threshold."
                        f"<{'|'.join(ASSET_TYPES)}>, or ability.<{'|'.join(ABILITY_KNOBS)}>")
    if head == "asset_cards" and len(parts) == 3:
        kind = _find(data["asset_kinds"], parts[1], path, "asset card", _by_name)
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
        pitch = _find(data["pitches"], parts[1], path, "pitch", _by_name)
        pitch["value"] = _number(path, text)
        return
    raise KnobError(f"unknown knob {path!r}; knobs start with characters.<key>., "
                    f"asset_cards.<kind>. or pitches.<pitch>. (see `ascent rules --game "
                    f"first-ascent`)")


def _switch(path, text):
    if text not in ("on", "off"):
        raise KnobError(f"{path}: allowed on or off; got {text!r}")
    return text == "on"


def _apply_ability(ab, path, name, text):
    """Set one ability knob on a character's `ability` block (ABILITY_KNOBS)."""
    if name in NUMBER_ABILITIES:
        if name == "gear_requirement_cap" and text == "none":
            ab.pop(name, None)
            return
        lo, hi = ABILITY_NUMBERS[name]
        extra = " or none" if name == "gear_requirement_cap" else ""
        value = _number(path, text, extra)
        if not lo <= value <= hi:
            raise KnobError(f"{path}: allowed {lo}..{hi}{extra}; got {value}")
        ab[name] = value
    elif name in ABILITY_FLAGS:
        if _switch(path, text):
            ab[name] = True
        else:
            ab.pop(name, None)
    elif name == "gear_cards_technique":
        if text not in ("wild", "none"):
            raise KnobError(f"{path}: allowed wild or none; got {text!r}")
        if text == "wild":
            ab[name] = "wild"
        else:
            ab.pop(name, None)
    elif name == "substitute":
        if text not in SUBSTITUTE_PAYMENTS + ("none",):
            raise KnobError(f"{path}: allowed {', '.join(SUBSTITUTE_PAYMENTS)} or none; "
                            f"got {text!r}")
        if text == "none":
            ab.pop(name, None)
        elif ab.get(name, {}).get("pay_with") != text:
            # a new substitute replaces every requirement but the one it is paid with (F66, F68)
            paid = "gear" if text == "gear_card" else "psych"
            ab[name] = {"pay_with": text, "replaces": [r for r in REQUIREMENTS if r != paid],
                        "per_pitch": 1}
    elif name.startswith("ignore_units_by_printed_value.") and \
            name.split(".", 1)[1] in IGNORED_BY_VALUE:
        value = _number(path, text)
        if not 0 <= value <= 9:
            raise KnobError(f"{path}: allowed 0..9; got {value}")
        table = ab.setdefault("ignore_units_by_printed_value", {})
        table[name.split(".", 1)[1]] = value
    else:
        raise KnobError(f"{path}: unknown ability knob {name!r}; allowed: "
                        f"{', '.join(ABILITY_KNOBS)}")


def _ability_value(ab, name):
    """An ability knob's value as the knob would set it (ABILITY_DEFAULTS when absent)."""
    if name.startswith("ignore_units_by_printed_value."):
        return ab.get("ignore_units_by_printed_value", {}).get(name.split(".", 1)[1], 0)
    if name not in ab:
        return ABILITY_DEFAULTS[name]
    value = ab[name]
    if name in ABILITY_FLAGS:
        return "on" if value else "off"
    if name == "substitute":
        return value["pay_with"]
    return value


def _data_with(knobs):
    """A copy of the bundled data with the knobs [(path, value text)] applied."""
    if isinstance(knobs, (dict, str)):
        raise KnobError(f"knobs: a list of (path, value) pairs, got a {type(knobs).__name__}")
    data = copy.deepcopy(DATA)
    seen = set()
    for item in knobs:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise KnobError(f"knobs: a list of (path, value) pairs, got the item {item!r}")
        path, text = item
        if path in seen:                  # the CLI refuses a repeat; so does the library
            raise KnobError(f"{path}: set twice")
        seen.add(path)
        apply(data, path, str(text).strip())
    return data


def knob_value(path, knobs):
    """The value of a data knob once `knobs` [(path, value text)] are applied."""
    data = _data_with(knobs)
    parts = path.split(".")
    if parts[0] == "characters" and len(parts) >= 4 and parts[2] == "ability":
        ch = _find(data["characters"], parts[1], path, "character")
        name = ".".join(parts[3:])
        if name not in ABILITY_KNOBS:
            raise KnobError(f"unknown knob {path!r}")
        return _ability_value(ch["ability"], name)
    if parts[0] == "characters" and len(parts) in (3, 4):
        value = _find(data["characters"], parts[1], path, "character")
        for part in parts[2:]:
            value = value[part]
        return value
    if parts[0] == "asset_cards" and len(parts) == 3:
        kind = _find(data["asset_kinds"], parts[1], path, "asset card", _by_name)
        value = kind[parts[2]]
        return "none" if parts[2] == "technique" and value is None else value
    if parts[0] == "pitches" and len(parts) == 3:
        return _find(data["pitches"], parts[1], path, "pitch", _by_name)["value"]
    raise KnobError(f"unknown knob {path!r}")


# data.json's collections as the validator names their items ("characters[id=8]") and as the
# knobs do ("characters.phil"); an item's knob key is its `key`, or its name written as a key
_COLLECTIONS = (("characters", "characters", lambda x: x["key"]),
                ("asset_kinds", "asset_cards", _by_name),
                ("pitches", "pitches", _by_name))


def _as_knob_path(field):
    """A field as the validator names it -> as a knob names it ("characters[id=8].start_water"
    -> "characters.phil.start_water"; "asset_kinds[].count" -> "asset_cards.<kind>.count")."""
    for collection, knob_head, keyed in _COLLECTIONS:
        if field.startswith(collection + "["):
            item, rest = field[len(collection) + 1:].split("]", 1)
            key = "<item>" if knob_head != "asset_cards" else "<kind>"
            if item.startswith("id="):
                key = next((keyed(x) for x in DATA[collection] if str(x["id"]) == item[3:]), key)
            return f"{knob_head}.{key}{rest}"
    return field


def _behind(field, knobs, reason=""):
    """The knobs behind an invalid `field` (a knob path): those that set it; or else those on
    its item that the reason names (a track maximum moved below the start), or else all on its
    item; or else those that set that field of other items (the deck's total of the card
    counts)."""
    head, item, rest = (field.split(".", 2) + ["", ""])[:3]
    on_item = f"{head}.{item}."
    for match in (lambda p: p == field or p.startswith(field + ".") or field.startswith(p + "."),
                  lambda p: p.startswith(on_item) and p.rsplit(".", 1)[1] in reason.split(),
                  lambda p: p.startswith(on_item),
                  lambda p: p.startswith(head + ".") and p.split(".", 2)[2:] == [rest]):
        found = [(p, v) for p, v in knobs if match(p)]
        if found:
            return found
    return []


def tables_with_knobs(knobs):
    """[(path, value text)] -> the packed data tables with the knobs applied and validated. A
    knob that makes the data invalid is named, with the validator's reason."""
    data = _data_with(knobs)
    try:
        validate_data(data, "data.json with knobs")
    except DataError as exc:
        field = getattr(exc, "field", None)
        blamed = _behind(_as_knob_path(field), knobs, exc.reason) if field else []
        if not blamed:
            raise KnobError(f"the knobs make the data invalid: {exc}") from None
        named = ", ".join(f"{p}={str(v).strip()}" for p, v in blamed)
        where = _as_knob_path(field)
        prefix = named if [where] == [p for p, _ in blamed] else f"{named}: {where}"
        raise KnobError(f"{prefix}: {exc.reason}") from None
    return pack_tables(data)


def catalogue():
    kinds = sorted(_key(k["name"]) for k in DATA["asset_kinds"])
    return "\n".join([
        "data knobs (--set PATH=VALUE; the data is validated again with them):",
        "  characters.<key>.start_water | start_psych | max_water_psych    0..7",
        "  characters.<key>.permanent_token_limit | rest_assets             0..12",
        f"  characters.<key>.permanent_threshold.<{'|'.join(ASSET_TYPES)}>     1..12",
        "  characters.<key>.ability.<name>   a character ability (F64-F75), on any character:",
        "      water_requirement_minus 0..7 (F64)   gear_requirement_cap 0..9 | none (F70)",
        "      ignore_units_below_ledge 0..9 (F72)  ignore_units_by_printed_value.4|.5 0..9 (F75)",
        "      starting_summit_beta 0..3 (F71)      climbing_cards_drawn 1..2 (F73)",
        "      gear_requirements_become_any_skill | no_gear_column (F65) | must_risk_every_climb",
        "      (F71) | convert_one_skill_unit_to_any_skill (F74): on | off",
        "      gear_cards_technique wild | none (F67)  substitute gear_card | psych | none (F66, F68)",
        "  asset_cards.<kind>.count      1..20; the deck stays 124 cards: move cards between "
        "kinds",
        f"  asset_cards.<kind>.technique  {' | '.join(TECHNIQUES)}",
        "  pitches.<pitch>.value         1..5",
        "asset card kinds: " + ", ".join(kinds)])


# Which way a character knob helps its character, for the comparison page's check that a
# strictly stronger character does not lose games (sim/report/compare.py): +1 a larger value
# helps, -1 a smaller one. A knob left out is not ordered: gear_requirements_become_any_skill
# trades gear units for skill units, and which helps depends on the hand; one substitute
# payment is not better than the other (only gaining one helps, `_helps`).
STRONGER_WHEN = {
    "start_water": +1, "start_psych": +1, "max_water_psych": +1,        # F22, F7
    "permanent_token_limit": +1, "rest_assets": +1,                     # F50, F56
    "permanent_threshold": -1,                                          # F50: fewer cards
    "water_requirement_minus": +1,                                      # F64
    "no_gear_column": -1,                                               # F65: on restricts
    "gear_requirement_cap": -1,                                         # F70 (none: no cap)
    "must_risk_every_climb": -1, "starting_summit_beta": +1,            # F71
    "ignore_units_below_ledge": +1,                                     # F72
    "climbing_cards_drawn": +1,                                         # F73: a choice of 2
    "convert_one_skill_unit_to_any_skill": +1,                          # F74
    "ignore_units_by_printed_value": +1,                                # F75
    "gear_cards_technique": +1,                                         # F67: wild over none
}
_ORDERED = {"off": 0, "on": 1, "none": 0, "wild": 1}


def _helps(name, old, new):
    """True if the knob `name` moving from `old` to `new` helps its character."""
    if name == "substitute":                    # F66, F68: gaining a payment helps
        return old == "none" and new != "none"
    if name == "gear_requirement_cap":          # no cap is the weakest cap
        old, new = (10**6 if v == "none" else int(v) for v in (old, new))
    else:
        old, new = (_ORDERED.get(v, v) if isinstance(v, str) else v for v in (old, new))
    way = STRONGER_WHEN.get(name)
    return way is not None and (float(new) - float(old)) * way > 0


def strictly_stronger(base_knobs, variant_knobs):
    """{character key: [(knob, base value, variant value)]} for every character whose own knobs
    (characters.<key>.*) differ between the runs, every one of them in the way that helps it
    (STRONGER_WHEN). Knobs: {path: value text} as a run's manifest records them."""
    base_list, variant_list = list(base_knobs.items()), list(variant_knobs.items())
    per = {}
    for path in sorted(set(base_knobs) | set(variant_knobs)):
        parts = path.split(".")
        if parts[0] != "characters" or len(parts) < 3:
            continue
        old, new = knob_value(path, base_list), knob_value(path, variant_list)
        if str(old) == str(new):
            continue
        name = ".".join(parts[3:]) if parts[2] == "ability" else ".".join(parts[2:])
        per.setdefault(parts[1], []).append((name, old, new))
    return {key: changes for key, changes in per.items()
            if all(_helps(n.split(".")[0], o, v) for n, o, v in changes)}
