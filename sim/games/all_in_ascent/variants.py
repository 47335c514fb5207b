"""Rule switches and data knobs: what a designer can change without code.

A *switch* is a named rule reading (RULES.md, "Where the v0.4.0 engine and the seed rulebook
differ"): the engine's reading is the default, the rulebook's is the other value. A *knob* is a
number addressed by path: any numeric field of the data (characters, gear, routes, stations,
XP table) or a number of a character's passive. Both end up in the packed tables; the core
reads them from there (rules.PARAM_*, or the data the tables are built from).

    switch   max_rounds=none, sprinter_fail_xp_halved=off, shared_belayer_pool=on, ...
    knob     characters.technician.startingStats.technique=24
             characters.technician.passive.requirement_reduction=3
             gear."Mountain Mentor".cost=150
             routes.topRope."The Standard".xpSuccess=60
             stations."Grip Board".bonus=6
             xp_table.5=800                  (the cumulative XP of level 5)

Every unknown name, path or bad value is a VariantError naming the key and what is allowed.
"""
import copy
import re
from dataclasses import dataclass

from sim.core.args import decimal_number, whole_number
from sim.games.all_in_ascent import data as gamedata
from sim.games.all_in_ascent.state import MAX_REDISTRIBUTION


# the largest round cap: far beyond any game (v0.4.0's is 45), and within the engine's int64
# state and the records' int32 round column (a larger one failed with an OverflowError)
MAX_ROUND_CAP = 1_000_000


class VariantError(ValueError):
    """A switch or knob that does not exist, or a value it cannot take. One line."""


@dataclass(frozen=True)
class Switch:
    name: str
    kind: str            # "bool", "rounds" or a tuple of choices
    default: object
    engine: str          # what the v0.4.0 engine does (the default)
    rulebook: str        # the seed rulebook's wording (the other reading)
    rule: str
    param: str = ""      # the rules.PARAM it sets, if any


SWITCHES = {s.name: s for s in (
    Switch("max_rounds", "rounds", 45,
           "the game ends after round 45 with no winner (v0.5.0 and later: no cap)",
           "the game ends after round 45 with no winner", "R72, L1"),
    Switch("sprinter_fail_xp_halved", "bool", True,
           "both success and fail XP are halved for the Sprinter",
           "only successful climbs give 50%", "R54", "SPRINT_FAIL_SCALED"),
    Switch("sprinter_extra_die", "bool", True,
           "the Sprinter adds a focus-nerf effect (dice = max(2, effects))",
           "rolls one extra d6 nerf die (dice = max(2, route effects) + 1, the last one his)",
           "R50, R79"),
    Switch("shared_belayer_pool", "bool", False,
           "Top Rope and Lead are each limited to the belayer count separately",
           "both limited by the belayer count, 'same pool'", "R32, R34", "SHARED_BELAYERS"),
    Switch("training_station_per_round", "bool", False,
           "a station is blocked only while another player is located there",
           "one player per station per round; if taken this round, wait for next round",
           "R34, R82", "TRAINING_PER_ROUND"),
    Switch("access_gear_as_printed", "bool", False,
           "Harness, Belay Device and Lead Rope add +2 all / +2 / +3 strength to the climber",
           "'-2 to all stats on any rope route', '-2 Strength', '-3 Strength' (penalties)",
           "R49"),
    Switch("carabiner_kept_at_level_up", "bool", False,
           "Locking Carabiner's +5 max endurance is lost at the next level-up",
           "+5 max endurance, permanent", "R42, R62", "CARABINER_KEPT"),
    Switch("power_tap_keeps", ("lowest", "best"), "lowest",
           "Power Tap Belt keeps the 2 lowest dice",
           "extra die, use the best 2 (here: the 2 highest)", "R51, R78", "POWER_TAP_BEST"),
    Switch("spendable_xp_kept_at_level_up", "bool", False,
           "spendable XP = xp above the current level's threshold: a level-up uses up that "
           "step (130 -> 30); purchases lower the same counter that levels are read from",
           "spendable XP does not reset at level-up ('whatever you had before, you keep'); "
           "here: levels from XP earned, every unspent XP spendable", "R64",
           "SPENDABLE_KEPT"),
    Switch("success_clamps_endurance", "bool", True,
           "every successful climb clamps current endurance to max",
           "Power Spotting: '+5 endurance' (no clamp mentioned)", "R56", "SUCCESS_CLAMP"),
    Switch("route_reader_redistribution", "bool", False,
           "not implemented: the Route Reader has no such action",
           "'Once per round you may redistribute up to 10 stat points between any two "
           "attributes (lasts until end of round)': an action of no time that moves 1..10 points "
           "of stats + training from one stat to another until the round ends", "§9, R68",
           "REDISTRIBUTION"),
    Switch("your_choice_gear", ("engine", "best"), "engine",
           "Crimp Sequence Decoder re-rolls the first highest die, Sequence Memorization sets "
           "the first highest die to 1, Mountain Mentor cancels the first nerf effect",
           "'re-roll one die of your choice', 'one die as 1, your choice', 'one nerf die as 0': "
           "each choice made to the player's best advantage (the re-roll die before its new "
           "value is known)", "R51, R52", "CHOICE_BEST"),
)}

# Passive numbers: knob path under characters.<key>.passive -> (rules PARAM, default, low, high)
PASSIVES = {
    "technician": {"requirement_reduction": ("TECH_REQ_MINUS", 5, 0, 100),
                   "time_penalty": ("TECH_TIME_PLUS", 1, 0, 10)},
    "sprinter": {"time_reduction": ("SPRINT_TIME_MINUS", 2, 0, 10),
                 "xp_percent": ("SPRINT_XP_PCT", 50, 0, 200),
                 "extra_nerf_die": ("SPRINT_EXTRA_NERF", 1, 0, 1)},
    "ironLung": {"fail_xp_bonus_percent": ("IRON_FAIL_XP_PCT", 50, 0, 200),
                 "fail_endurance_penalty": ("IRON_FAIL_PENALTY", 5, 0, 100)},
    "routeReader": {"beta_boost": ("BETA_BOOST", 3, 0, 50),
                    "stats_needed": ("ROUTE_READER_NEEDS", 3, 1, 4),
                    "redistribution_points": ("REDIST_POINTS", 10, 1, MAX_REDISTRIBUTION)},
    "freeSolo": {"access_bypass": ("FREE_SOLO_BYPASS", 1, 0, 1)},
}

# Which way each passive number makes its character stronger (+1: a larger number helps it,
# -1: a smaller one), read from RULES.md's passive rules: a reduction, a bonus or a bypass
# helps; a penalty, an extra nerf die or more stats needed (R53) hurts.
STRONGER_WHEN = {
    "technician": {"requirement_reduction": +1, "time_penalty": -1},
    "sprinter": {"time_reduction": +1, "xp_percent": +1, "extra_nerf_die": -1},
    "ironLung": {"fail_xp_bonus_percent": +1, "fail_endurance_penalty": -1},
    "routeReader": {"beta_boost": +1, "stats_needed": -1, "redistribution_points": +1},
    "freeSolo": {"access_bypass": +1},
}


def strictly_stronger(base_knobs, variant_knobs):
    """{character key: [(number, base value, variant value)]} for every character whose
    passive numbers changed, all of them in the direction that helps it (STRONGER_WHEN).
    Knobs: {path: value} as a run's manifest records them (absent: the default)."""
    found = {}
    for key, numbers in PASSIVES.items():
        changes, helps = [], True
        for number, (_, default, _, _) in numbers.items():
            path = f"characters.{key}.passive.{number}"
            old = float(base_knobs.get(path, default))
            new = float(variant_knobs.get(path, default))
            if old != new:
                changes.append((number, old, new))
                helps &= (new - old) * STRONGER_WHEN[key][number] > 0
        if changes and helps:
            found[key] = changes
    return found


NUMERIC_ROUTE_FIELDS = ("strength", "technique", "focus", "flexibility", "time", "endurance",
                        "xpSuccess", "xpFail")
NUMERIC_GEAR_FIELDS = ("cost", "value", "restBonus", "prerequisiteLevel")
NUMERIC_STATION_FIELDS = ("bonus", "time", "endurance")


def parse_bool(name, text):
    if isinstance(text, bool):
        return text
    # on/off, the words `ascent rules` lists (a spec's true/false arrive as them); true/false
    # too, Ascension's words. Not yes/no or 1/0: a number here is more likely a slip
    value = str(text).strip().lower()
    if value in ("on", "true"):
        return True
    if value in ("off", "false"):
        return False
    raise VariantError(f"switch {name}: expected on or off, got {text!r}")


def parse_switch(name, text):
    if name not in SWITCHES:
        raise VariantError(f"unknown switch {name!r}; switches: {', '.join(SWITCHES)}")
    sw = SWITCHES[name]
    if sw.kind == "bool":
        return parse_bool(name, text)
    if sw.kind == "rounds":
        if str(text).strip().lower() in ("none", "off", "no"):
            return None
        allowed = f"expected a number of rounds from 1 to {MAX_ROUND_CAP:,} or none"
        value = whole_number(text)
        if value is None:
            raise VariantError(f"switch {name}: {allowed}, got {text!r}")
        if not 1 <= value <= MAX_ROUND_CAP:
            raise VariantError(f"switch {name}: {allowed}, got {value}")
        return value
    if text not in sw.kind:
        raise VariantError(f"switch {name}: expected one of {', '.join(sw.kind)}, got {text!r}")
    return text


def split_assignment(text, what):
    """'a.b="c d".e=5' -> ('a.b="c d".e', '5')."""
    if "=" not in text:
        raise VariantError(f"{what} {text!r}: expected NAME=VALUE")
    key, value = text.rsplit("=", 1)
    return key.strip(), value.strip()


_PATH_PART = re.compile(r'"([^"]+)"|([^.]+)')


def split_path(path):
    parts = []
    pos = 0
    while pos < len(path):
        m = _PATH_PART.match(path, pos)
        if not m:
            raise VariantError(f"knob {path!r}: cannot read the path")
        parts.append(m.group(1) if m.group(1) is not None else m.group(2))
        pos = m.end()
        if pos < len(path):
            if path[pos] != ".":
                raise VariantError(f"knob {path!r}: expected '.' after {parts[-1]!r}")
            pos += 1
    return parts


def _number(path, text, integer=True):
    value = whole_number(text) if integer else decimal_number(text)
    if value is None:
        kind = "a whole number" if integer else "a number"
        raise VariantError(f"knob {path}: expected {kind}, got {text!r}")
    return value


def _named(items, name, path, what):
    for item in items:
        if item["name"] == name:
            return item
    raise VariantError(f"knob {path}: no {what} named {name!r}; {what}s: "
                       f"{', '.join(i['name'] for i in items)}")


def check_knob(path, text, data):
    """Validate one knob against the data; return (parts, value)."""
    parts = split_path(path)
    head = parts[0] if parts else ""
    if head == "characters" and len(parts) == 4 and parts[2] == "passive":
        key, number = parts[1], parts[3]
        if key not in PASSIVES:
            raise VariantError(f"knob {path}: unknown character {key!r}; allowed: "
                               f"{', '.join(PASSIVES)}")
        if number not in PASSIVES[key]:
            raise VariantError(f"knob {path}: {key} has no passive number {number!r}; allowed: "
                               f"{', '.join(PASSIVES[key])}")
        _, _, low, high = PASSIVES[key][number]
        value = _number(path, text)
        if not low <= value <= high:
            raise VariantError(f"knob {path}: {value} is out of range {low}..{high}")
        return parts, value
    if head == "characters" and len(parts) in (3, 4):
        key = parts[1]
        if key not in data.characters:
            raise VariantError(f"knob {path}: unknown character {key!r}; allowed: "
                               f"{', '.join(data.characters)}")
        if len(parts) == 3 and parts[2] == "startingEndurance":
            return parts, _number(path, text)
        if len(parts) == 4 and parts[2] == "startingStats" and parts[3] in gamedata.STATS:
            return parts, _number(path, text)
        if len(parts) == 4 and parts[2] == "growth" and \
                parts[3] in gamedata.STATS + ("endurance",):
            return parts, _number(path, text, integer=False)
        raise VariantError(f"knob {path}: allowed under a character: startingEndurance, "
                           f"startingStats.<stat>, growth.<stat or endurance>, "
                           f"passive.<number>; stats: {', '.join(gamedata.STATS)}")
    if head == "gear" and len(parts) == 3:
        card = _named(data.gear, parts[1], path, "card")
        if parts[2] == "in_deck":          # 0 takes the card out of the game (ablation)
            value = _number(path, text)
            if value not in (0, 1):
                raise VariantError(f"knob {path}: expected 0 (removed) or 1, got {value}")
            if value == 0 and card["name"] in gamedata.ACCESS_CARDS_V040:
                raise VariantError(f"knob {path}: access cards cannot be removed")
            return parts, value
        if parts[2] not in NUMERIC_GEAR_FIELDS:
            raise VariantError(f"knob {path}: numeric card fields: "
                               f"{', '.join(NUMERIC_GEAR_FIELDS)}")
        return parts, _number(path, text)
    if head == "routes" and len(parts) == 4:
        if parts[1] not in gamedata.AREAS:
            raise VariantError(f"knob {path}: unknown area {parts[1]!r}; allowed: "
                               f"{', '.join(gamedata.AREAS)}")
        _named(data.routes[parts[1]], parts[2], path, "route")
        if parts[3] not in NUMERIC_ROUTE_FIELDS:
            raise VariantError(f"knob {path}: numeric route fields: "
                               f"{', '.join(NUMERIC_ROUTE_FIELDS)}")
        return parts, _number(path, text)
    if head == "stations" and len(parts) == 3:
        _named(data.stations, parts[1], path, "station")
        if parts[2] not in NUMERIC_STATION_FIELDS:
            raise VariantError(f"knob {path}: numeric station fields: "
                               f"{', '.join(NUMERIC_STATION_FIELDS)}")
        return parts, _number(path, text)
    if head == "xp_table" and len(parts) == 2:
        level = _number(path, parts[1])
        if not 2 <= level <= len(data.xp_table):
            raise VariantError(f"knob {path}: levels 2..{len(data.xp_table)} "
                               f"(level 1 is always 0)")
        return parts, _number(path, text)
    raise VariantError(f"unknown knob {path!r}; knobs start with characters.<key>., gear.<card>., "
                       f"routes.<area>.<route>., stations.<station>. or xp_table.<level>")


def apply_data_knobs(data, knobs):
    """A new GameData with the data knobs applied and validated again (passive knobs are
    skipped here; they set rules params)."""
    data_knobs = [(p, v) for p, v in knobs if not _is_passive(p)]
    if not data_knobs:
        return data
    doc = {"CHARACTERS": copy.deepcopy(data.characters), "XP_TABLE": copy.deepcopy(data.xp_table),
           "TRAINING_AREAS": copy.deepcopy(data.stations), "ROUTES": copy.deepcopy(data.routes),
           "GEAR_SHOP": copy.deepcopy(data.gear)}
    for path, value in data_knobs:
        parts = split_path(path)
        head = parts[0]
        if head == "characters":
            target = doc["CHARACTERS"][parts[1]]
            for p in parts[2:-1]:
                target = target[p]
            target[parts[-1]] = value
        elif head == "gear" and parts[2] == "in_deck":
            if value == 0:
                doc["GEAR_SHOP"] = [c for c in doc["GEAR_SHOP"] if c["name"] != parts[1]]
        elif head == "gear":
            _named(doc["GEAR_SHOP"], parts[1], path, "card")[parts[2]] = value
        elif head == "routes":
            _named(doc["ROUTES"][parts[1]], parts[2], path, "route")[parts[3]] = value
        elif head == "stations":
            _named(doc["TRAINING_AREAS"], parts[1], path, "station")[parts[2]] = value
        elif head == "xp_table":
            doc["XP_TABLE"][int(parts[1]) - 1]["cumulative"] = value
    counts = None
    try:
        return gamedata.validate(doc, f"{data.source} with knobs", counts)
    except gamedata.DataError as exc:
        raise VariantError(f"the knobs make the data invalid: {exc}") from None


def knob_value(path, data, config):
    """A knob's value in built rules: `data` is their GameData (knobs applied), `config` their
    RulesConfig (switches, passive numbers). A switch name without dots gives its value."""
    if "." not in path:
        if path not in SWITCHES:
            raise VariantError(f"unknown switch {path!r}")
        return config.switch(path)
    # the path only: check_knob would also check a value against the knob's range
    parts = split_path(path)
    head = parts[0]
    if _is_passive(path):
        if parts[1] not in PASSIVES or parts[3] not in PASSIVES[parts[1]]:
            raise VariantError(f"unknown knob {path!r}")
        return dict(config.knobs).get(path, PASSIVES[parts[1]][parts[3]][1])
    if head == "characters":
        value = data.characters[parts[1]]
        for part in parts[2:]:
            value = value[part]
        return value
    if head == "gear":
        if parts[2] == "in_deck":
            return 1 if parts[1] in data.gear_names else 0
        return _named(data.gear, parts[1], path, "card")[parts[2]]
    if head == "routes":
        return _named(data.routes[parts[1]], parts[2], path, "route")[parts[3]]
    if head == "stations":
        return _named(data.stations, parts[1], path, "station")[parts[2]]
    return data.xp_table[int(parts[1]) - 1]["cumulative"]


def _is_passive(path):
    parts = split_path(path)
    return len(parts) == 4 and parts[0] == "characters" and parts[2] == "passive"


def apply_params(params, config, param_index):
    """Switches and passive knobs into the packed params."""
    values = dict(config.switches)
    for name, value in values.items():
        sw = SWITCHES[name]
        if sw.param:
            if sw.kind == "bool":
                params[param_index[sw.param]] = 1 if value else 0
            else:
                params[param_index[sw.param]] = 1 if value == sw.kind[1] else 0
    if "sprinter_extra_die" in values:      # off: the rulebook's own die for the nerf (R50)
        params[param_index["SPRINT_OWN_DIE"]] = 0 if values["sprinter_extra_die"] else 1
    for path, value in config.knobs:
        if _is_passive(path):
            _, key, _, number = split_path(path)
            params[param_index[PASSIVES[key][number][0]]] = value


def catalogue(presets):
    """The text of `ascent rules`."""
    lines = ["Presets:"]
    for name, cfg in presets.items():
        lines.append(f"  {name:<8} {cfg.description}")
    lines += ["", "Switches (--rule NAME=VALUE; the default is the v0.4.0 engine's reading):"]
    for sw in SWITCHES.values():
        allowed = ("on|off" if sw.kind == "bool" else "N|none" if sw.kind == "rounds"
                   else "|".join(sw.kind))
        default = ("on" if sw.default is True else "off" if sw.default is False
                   else str(sw.default))
        lines.append(f"  {sw.name}={allowed}  (default {default}; {sw.rule})")
        lines.append(f"      engine:   {sw.engine}")
        lines.append(f"      rulebook: {sw.rulebook}")
    lines += ["", "Knobs (--set PATH=VALUE):",
              "  characters.<key>.startingStats.<stat>, characters.<key>.startingEndurance,",
              "  characters.<key>.growth.<stat|endurance>",
              f"  gear.\"<card>\".<{'|'.join(NUMERIC_GEAR_FIELDS)}>",
              "  gear.\"<card>\".in_deck=0   (the card is taken out of the game)",
              f"  routes.<area>.\"<route>\".<{'|'.join(NUMERIC_ROUTE_FIELDS)}>",
              f"  stations.\"<station>\".<{'|'.join(NUMERIC_STATION_FIELDS)}>",
              "  xp_table.<level>   (cumulative XP of that level)",
              "  passive numbers:"]
    for key, numbers in PASSIVES.items():
        for number, (_, default, low, high) in numbers.items():
            lines.append(f"    characters.{key}.passive.{number}  (default {default}, "
                         f"{low}..{high})")
    return "\n".join(lines)
