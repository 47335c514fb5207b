"""One packed rules configuration: validated data + preset -> numeric tables for the core.

The core never sees a string. Everything it needs about the data (and about the preset's
switches and numbers) is in one `Tables` namedtuple of int64 arrays, built once per rules
configuration. Every per-(character, level) and per-(route, card) quantity is precomputed here.
"""
import hashlib
import json
import os
from collections import OrderedDict, namedtuple
from dataclasses import dataclass, replace

import numpy as np

from sim.core.jit import njit_noalloc
from sim.games.all_in_ascent import data as gamedata
from sim.games.all_in_ascent.state import (
    AREA_LOC, MAX_ACCESS, MAX_GEAR, MAX_LEVEL, N_AREAS, N_CHARACTERS, N_STATS,
    N_TIERS, STATION_LOC)

# Indices into Tables.params: the preset's numbers, so a rule reads one array, not globals.
_PARAM_NAMES = (
    "MAX_ROUNDS",            # R17/R72: 0 here = no round cap
    "START_TIME",            # R11/R68: time at the start of every round
    "VISIBLE_PER_AREA",      # R15/R69
    "TECH_TIME_PLUS",        # R47
    "TECH_REQ_MINUS",        # R52
    "SPRINT_TIME_MINUS",     # R47
    "SPRINT_XP_PCT",         # R54: the Sprinter's XP factor, in percent (50)
    "SPRINT_FAIL_SCALED",    # R54: 1 = the factor applies to fail XP too (engine), 0 = success only
    "IRON_FAIL_PENALTY",     # R55
    "ROUTE_READER_NEEDS",    # R53: stats that must pass for the Route Reader
    "BETA_BOOST",            # R49
    "BELAYERS_START",        # R17/R33
    "BELAYERS_2_ROUND",      # R70
    "BELAYERS_3_ROUND",      # R70
    "CAPACITY_OPEN",         # R32: bouldering, rest, shop, lobby
    "TRAIN_CAPACITY",        # R32
    "PURCHASE_TIME",         # R30/R41
    "REST_TIME",             # R24/R38
    "N_ACCESS",              # how many access cards the deck has
    "N_NON_ACCESS",          # how many cards can be in the rotation (R16)
    "N_ROUTES",              # all routes of all areas
    "JOINT_READY",           # 1 when the joint requirement tables below are built
    "SPRINT_EXTRA_NERF",     # R50: 1 = the Sprinter's extra focus-nerf effect
    "IRON_FAIL_XP_PCT",      # R54: the Iron Lung's fail XP bonus, in percent (50)
    "FREE_SOLO_BYPASS",      # R26: 1 = the Free Solo needs no access gear
    "TR_STATIONS",           # L6-L13 (v0.6.0): Top Rope belay stations
    "LEAD_CAPACITY",         # L11: 0 = the belayer count (R32); else this many climbers
    "SHARED_BELAYERS",       # rulebook: Top Rope and Lead climbers share the belayer pool
    "SUCCESS_CLAMP",         # R56: 1 = every success clamps endurance to max
    "POWER_TAP_BEST",        # R51: 0 = keep the lowest dice (engine), 1 = the highest (rulebook)
    "CARABINER_KEPT",        # R62: 1 = Locking Carabiner's +5 survives level-ups (rulebook)
    "TRAINING_PER_ROUND",    # R34/R82: 1 = a station is taken for the round by its first user
    "SPENDABLE_KEPT",        # R64: 1 = level from XP earned, all unspent XP spendable (rulebook)
    "REDISTRIBUTION",        # §9 rulebook: 1 = the Route Reader's once-per-round redistribution
    "REDIST_POINTS",         # §9 rulebook: the most points it moves (10)
    "CHOICE_BEST",           # R51/R52: 1 = "your choice" gear picks its die to the player's
                             # best advantage (rulebook), 0 = the engine's fixed choice
    "SPRINT_OWN_DIE",        # R50/R79: 1 = the Sprinter's focus nerf rolls one die more than
                             # max(2, route effects) (rulebook), 0 = it counts among them
)
PARAM = {name: i for i, name in enumerate(_PARAM_NAMES)}
# module-level ints, so numba reads them as constants
PARAM_MAX_ROUNDS = PARAM["MAX_ROUNDS"]
PARAM_START_TIME = PARAM["START_TIME"]
PARAM_VISIBLE_PER_AREA = PARAM["VISIBLE_PER_AREA"]
PARAM_TECH_TIME_PLUS = PARAM["TECH_TIME_PLUS"]
PARAM_TECH_REQ_MINUS = PARAM["TECH_REQ_MINUS"]
PARAM_SPRINT_TIME_MINUS = PARAM["SPRINT_TIME_MINUS"]
PARAM_SPRINT_XP_PCT = PARAM["SPRINT_XP_PCT"]
PARAM_SPRINT_FAIL_SCALED = PARAM["SPRINT_FAIL_SCALED"]
PARAM_SPRINT_OWN_DIE = PARAM["SPRINT_OWN_DIE"]
PARAM_IRON_FAIL_PENALTY = PARAM["IRON_FAIL_PENALTY"]
PARAM_ROUTE_READER_NEEDS = PARAM["ROUTE_READER_NEEDS"]
PARAM_BETA_BOOST = PARAM["BETA_BOOST"]
PARAM_BELAYERS_START = PARAM["BELAYERS_START"]
PARAM_BELAYERS_2_ROUND = PARAM["BELAYERS_2_ROUND"]
PARAM_BELAYERS_3_ROUND = PARAM["BELAYERS_3_ROUND"]
PARAM_CAPACITY_OPEN = PARAM["CAPACITY_OPEN"]
PARAM_TRAIN_CAPACITY = PARAM["TRAIN_CAPACITY"]
PARAM_PURCHASE_TIME = PARAM["PURCHASE_TIME"]
PARAM_REST_TIME = PARAM["REST_TIME"]
PARAM_N_ACCESS = PARAM["N_ACCESS"]
PARAM_N_NON_ACCESS = PARAM["N_NON_ACCESS"]
PARAM_N_ROUTES = PARAM["N_ROUTES"]
PARAM_JOINT_READY = PARAM["JOINT_READY"]
PARAM_SPRINT_EXTRA_NERF = PARAM["SPRINT_EXTRA_NERF"]
PARAM_IRON_FAIL_XP_PCT = PARAM["IRON_FAIL_XP_PCT"]
PARAM_FREE_SOLO_BYPASS = PARAM["FREE_SOLO_BYPASS"]
PARAM_TR_STATIONS = PARAM["TR_STATIONS"]
PARAM_LEAD_CAPACITY = PARAM["LEAD_CAPACITY"]
PARAM_SHARED_BELAYERS = PARAM["SHARED_BELAYERS"]
PARAM_SUCCESS_CLAMP = PARAM["SUCCESS_CLAMP"]
PARAM_POWER_TAP_BEST = PARAM["POWER_TAP_BEST"]
PARAM_CARABINER_KEPT = PARAM["CARABINER_KEPT"]
PARAM_TRAINING_PER_ROUND = PARAM["TRAINING_PER_ROUND"]
PARAM_SPENDABLE_KEPT = PARAM["SPENDABLE_KEPT"]
PARAM_REDISTRIBUTION = PARAM["REDISTRIBUTION"]
PARAM_REDIST_POINTS = PARAM["REDIST_POINTS"]
PARAM_CHOICE_BEST = PARAM["CHOICE_BEST"]

# Gear effect kinds (RULES.md §10); a card's kind is its `effectKind`, or one derived from
# statEffect for the cards that have none.
KIND_NONE = 0
EFFECT_KIND_IDS = {name: i + 1 for i, name in enumerate(gamedata.EFFECT_KINDS)}
N_KINDS = len(EFFECT_KIND_IDS) + 1
KIND_REROLL_ON_TAG = EFFECT_KIND_IDS["rerollOnTag"]
KIND_TIME_REDUCTION = EFFECT_KIND_IDS["timeCostReduction"]
KIND_ENDURANCE_HALVED = EFFECT_KIND_IDS["enduranceHalvedOnTag"]
KIND_EXTRA_DIE = EFFECT_KIND_IDS["extraDieBestN"]
KIND_IGNORE_FAIL_PENALTY = EFFECT_KIND_IDS["ignoreFailPenalty"]
KIND_DIE_AS_ONE = EFFECT_KIND_IDS["treatOneDieAsValue"]
KIND_FAIL_BONUS_XP = EFFECT_KIND_IDS["failBonusXp"]
KIND_SUCCESS_HEAL = EFFECT_KIND_IDS["successHealEndurance"]
KIND_TRAINING_BOOST = EFFECT_KIND_IDS["trainingBonusBoost"]
KIND_MILESTONE_DICE = EFFECT_KIND_IDS["milestoneDiceBonus"]
KIND_NEGATE_NERF = EFFECT_KIND_IDS["negateOneNerfDie"]

TAG_IDS = {None: 0, "Pinch/Crimp": 1, "Dynamic": 2, "Toe/Heel Hook": 3, "Roof/Sloper": 4}

Tables = namedtuple("Tables", [
    "params",
    # characters x levels
    "level_stats", "level_max_endurance", "xp_cumulative",
    # stations
    "station_stat", "station_bonus", "station_time", "station_endurance",
    # routes (by route id)
    "route_area", "route_slot_bit", "route_req", "route_time", "route_endurance",
    "route_xp_success", "route_xp_fail", "route_tag", "route_n_effects",
    "route_effect_stat", "route_effect_mod", "route_bonus_cards", "route_gear_bonus",
    "area_first", "area_count",
    # milestones
    "bucket_routes", "bucket_count",
    # gear (by card id)
    "card_cost", "card_is_access", "card_prereq_mask", "card_prereq_level", "card_rest_bonus",
    "card_kind", "card_tag", "card_value", "card_max_endurance", "card_time_per_round",
    "card_repeated_only", "kind_mask", "access_cards", "non_access_cards", "area_access_mask",
    # probability.py: for dice-coupling gear, the distinct requirement vectors of an attempt
    # with their counts, per (character, route, gear flags): index = (start, count) pairs
    "joint_index", "joint_entries",
    # engine.attempt_limits, per (character, route): the most XP an attempt can bring and the
    # least time it can take, over every gear (0: no floor known). Derived, as the joint tables
    # are: tables changed after build_rules need every derived table worked out again, or bots
    # prune wrongly and the planner counts wrong gaps
    "route_xp_ceiling", "route_time_floor",
    # engine.requirement_tables, per (character, Mountain Mentor or not, route, stat): R52 with
    # every die at 0, and the dice's summed modifier (derived, as above)
    "requirement_no_dice", "requirement_dice_weight",
])

# The core reads the tables from ONE flat int64 array: [params | offsets of each table | tables].
# A namedtuple of 40 arrays would be flattened into hundreds of arguments at every call.
TABLE_FIELDS = Tables._fields[1:]
FIELD = {name: len(_PARAM_NAMES) + k for k, name in enumerate(TABLE_FIELDS)}
HEADER_SIZE = len(_PARAM_NAMES) + len(TABLE_FIELDS)
F_LEVEL_STATS = FIELD['level_stats']
F_LEVEL_MAX_ENDURANCE = FIELD['level_max_endurance']
F_XP_CUMULATIVE = FIELD['xp_cumulative']
F_STATION_STAT = FIELD['station_stat']
F_STATION_BONUS = FIELD['station_bonus']
F_STATION_TIME = FIELD['station_time']
F_STATION_ENDURANCE = FIELD['station_endurance']
F_ROUTE_AREA = FIELD['route_area']
F_ROUTE_SLOT_BIT = FIELD['route_slot_bit']
F_ROUTE_REQ = FIELD['route_req']
F_ROUTE_TIME = FIELD['route_time']
F_ROUTE_ENDURANCE = FIELD['route_endurance']
F_ROUTE_XP_SUCCESS = FIELD['route_xp_success']
F_ROUTE_XP_FAIL = FIELD['route_xp_fail']
F_ROUTE_TAG = FIELD['route_tag']
F_ROUTE_N_EFFECTS = FIELD['route_n_effects']
F_ROUTE_EFFECT_STAT = FIELD['route_effect_stat']
F_ROUTE_EFFECT_MOD = FIELD['route_effect_mod']
F_ROUTE_BONUS_CARDS = FIELD['route_bonus_cards']
F_ROUTE_GEAR_BONUS = FIELD['route_gear_bonus']
F_AREA_FIRST = FIELD['area_first']
F_AREA_COUNT = FIELD['area_count']
F_BUCKET_ROUTES = FIELD['bucket_routes']
F_BUCKET_COUNT = FIELD['bucket_count']
F_CARD_COST = FIELD['card_cost']
F_CARD_IS_ACCESS = FIELD['card_is_access']
F_CARD_PREREQ_MASK = FIELD['card_prereq_mask']
F_CARD_PREREQ_LEVEL = FIELD['card_prereq_level']
F_CARD_REST_BONUS = FIELD['card_rest_bonus']
F_CARD_KIND = FIELD['card_kind']
F_CARD_TAG = FIELD['card_tag']
F_CARD_VALUE = FIELD['card_value']
F_CARD_MAX_ENDURANCE = FIELD['card_max_endurance']
F_CARD_TIME_PER_ROUND = FIELD['card_time_per_round']
F_CARD_REPEATED_ONLY = FIELD['card_repeated_only']
F_KIND_MASK = FIELD['kind_mask']
F_ACCESS_CARDS = FIELD['access_cards']
F_NON_ACCESS_CARDS = FIELD['non_access_cards']
F_AREA_ACCESS_MASK = FIELD['area_access_mask']
F_JOINT_INDEX = FIELD['joint_index']
F_JOINT_ENTRIES = FIELD['joint_entries']
F_ROUTE_XP_CEILING = FIELD['route_xp_ceiling']
F_ROUTE_TIME_FLOOR = FIELD['route_time_floor']
F_REQUIREMENT_NO_DICE = FIELD['requirement_no_dice']
F_REQUIREMENT_DICE_WEIGHT = FIELD['requirement_dice_weight']


@njit_noalloc(inline="always")
def at(flat, field, i):
    """Entry i of table `field` (an F_ constant) in the flat tables."""
    return flat[flat[field] + i]


def flatten_tables(tables):
    """The flat int64 array the core reads, from a Tables namedtuple of arrays."""
    parts = [np.asarray(tables.params, np.int64)]
    header = np.zeros(len(TABLE_FIELDS), np.int64)
    at_ = HEADER_SIZE
    bodies = []
    for k, name in enumerate(TABLE_FIELDS):
        arr = np.ascontiguousarray(getattr(tables, name), np.int64).ravel()
        header[k] = at_
        bodies.append(arr)
        at_ += arr.size
    return np.concatenate(parts + [header] + bodies)


# R13: the milestone grade chain, first match wins.
_MILESTONE_CHAIN = (
    (None, ("V0", "V1", "V2"), 0),
    (None, ("V3", "V4", "V5", "V6", "V7"), 1),
    (None, ("V8", "V9", "V10", "V11", "V12"), 2),
    (None, ("5.6", "5.7", "5.8"), 0),
    (None, ("5.9", "5.10a", "5.10b", "5.10d", "5.11b", "5.11c"), 1),
    (None, ("5.12a", "5.12b", "5.12d", "5.13a", "5.13c"), 2),
    ("leadClimbing", ("5.8", "5.9"), 0),
    ("leadClimbing", ("5.10a", "5.10b", "5.10d", "5.11a", "5.11b", "5.11c"), 1),
    ("leadClimbing", ("5.12a", "5.12b", "5.12d", "5.13a", "5.14a"), 2),
)


def milestone_tier(area, grade):
    """R13: the tier a route can be a milestone of, or -1."""
    for only_area, grades, tier in _MILESTONE_CHAIN:
        if (only_area is None or only_area == area) and grade in grades:
            return tier
    return -1


def round_half_up(x):
    """JavaScript Math.round for the non-negative values of this game (RULES.md §0.2)."""
    return int(np.floor(x + 0.5))


@dataclass(frozen=True)
class RulesConfig:
    """A rules preset plus the switches and knobs a run sets (variants.py). v0.4.0 is the
    designers' engine at that version (RULES.md R1-R82); v0.5.0 and v0.6.0 follow "Later
    versions" (L1-L14)."""
    preset: str = "v0.4.0"
    description: str = "the designers' engine v0.4.0 (RULES.md R1-R82), the default"
    data_version: str = "v0.4.0"                 # the bundled data file
    max_rounds: object = 45    # None = no round cap; 0 = 45, as the engine reads it (R17)
    access_cards: tuple = gamedata.ACCESS_CARDS_V040
    # area -> access cards needed (R26)
    area_access: tuple = ((), ("Harness", "Belay Device"),
                          ("Harness", "Belay Device", "Locking Carabiner", "Lead Rope"))
    top_rope_stations: bool = False              # L6-L13
    switches: tuple = ()                         # ((name, value), ...), sorted by name
    knobs: tuple = ()                            # ((path, value), ...), in the order given

    def as_dict(self):
        return {"preset": self.preset, "data_version": self.data_version,
                "max_rounds": self.max_rounds,
                "access_cards": list(self.access_cards),
                "area_access": [list(a) for a in self.area_access],
                "top_rope_stations": self.top_rope_stations,
                "switches": {k: v for k, v in self.switches},
                "knobs": {k: v for k, v in self.knobs}}

    def apply_params(self, params):
        from sim.games.all_in_ascent.variants import apply_params
        apply_params(params, self, PARAM)

    def switch(self, name):
        from sim.games.all_in_ascent.variants import SWITCHES
        return dict(self.switches).get(name, SWITCHES[name].default)

    def with_variants(self, switches=(), knobs=(), data=None):
        """A copy with switches {name: text} and knobs [(path, text)] checked and applied.
        `data` (GameData) is needed to check data knobs."""
        from sim.games.all_in_ascent import variants as V
        merged = dict(self.switches)
        max_rounds = self.max_rounds
        for name, text in dict(switches).items():
            value = V.parse_switch(name, text)
            if name == "max_rounds":
                max_rounds = value
            elif value == V.SWITCHES[name].default:
                # the engine's reading asked for by name is the default game: the same rules,
                # fingerprint and report header as a run that names no switch
                merged.pop(name, None)
            else:
                merged[name] = value
        if self.top_rope_stations and merged.get("shared_belayer_pool"):
            # a reading of v0.4.0's capacities (R32, R34); the stations' own (L6, L9, L11)
            # leave it no meaning the rulebook gives: played, one Top Rope climber shut Lead
            # and Lead never limited Top Rope (a review found it)
            raise V.VariantError(f"switch shared_belayer_pool: a reading of v0.4.0's Top Rope "
                                 f"and Lead capacities (R32, R34); preset {self.preset} has "
                                 f"belay stations instead (L6, L9, L11), so the two do not "
                                 f"combine")
        checked = list(self.knobs)
        for path, text in knobs:
            if data is None:
                raise V.VariantError("knobs need the data they change")
            _, value = V.check_knob(path, text, data)
            checked.append((path, value))
        return replace(self, max_rounds=max_rounds, switches=tuple(sorted(merged.items())),
                       knobs=tuple(checked))


V050_CONFIG = RulesConfig(
    preset="v0.5.0", description="v0.4.0 without the round cap (L1-L2)", max_rounds=None)
V060_CONFIG = RulesConfig(
    preset="v0.6.0",
    description="no Harness, open Top Rope with belay stations, Lead capacity 1, no round cap "
                "(L3-L14)",
    data_version="v0.6.0", max_rounds=None,
    access_cards=("Belay Device", "Locking Carabiner", "Lead Rope"),
    area_access=((), (), ("Belay Device", "Locking Carabiner", "Lead Rope")),
    top_rope_stations=True)
PRESETS = {"v0.4.0": RulesConfig(), "v0.5.0": V050_CONFIG, "v0.6.0": V060_CONFIG}


def get_preset(name):
    if name not in PRESETS:
        raise ValueError(f"unknown rules preset {name!r}; available: {', '.join(PRESETS)}")
    return PRESETS[name]


@dataclass(frozen=True)
class PackedRules:
    """What a run needs: the flat tables for the core, the same tables by name for Python, and
    the names to print and record."""
    tables: np.ndarray
    named: Tables
    config: RulesConfig
    data: gamedata.GameData
    route_names: tuple
    route_areas: tuple
    route_grades: tuple
    route_tags: tuple
    card_names: tuple
    station_names: tuple
    fingerprint: str

    def route_id(self, name):
        try:
            return self.route_names.index(name)
        except ValueError:
            raise KeyError(f"no route named {name!r}") from None

    def card_id(self, name):
        try:
            return self.card_names.index(name)
        except ValueError:
            raise KeyError(f"no gear card named {name!r}; cards: {', '.join(self.card_names)}") from None


def pack(data: gamedata.GameData, config: RulesConfig = RulesConfig(),
         keep_derived=False) -> PackedRules:
    """The packed rules; `keep_derived`: keep the derived tables on disk (derived_tables), as
    a preset's own rules do."""
    from sim.games.all_in_ascent.variants import apply_data_knobs
    data = apply_data_knobs(data, config.knobs)
    S = gamedata.STATS
    i64 = np.int64
    params = np.zeros(len(PARAM), i64)
    # R17: like the designers' engine, a zero round cap means 45; None means no cap (v0.5.0+).
    if config.max_rounds is None:
        params[PARAM["MAX_ROUNDS"]] = 0
    elif config.max_rounds < 0:
        raise ValueError(f"max_rounds must be a positive number of rounds or None, got {config.max_rounds}")
    else:
        params[PARAM["MAX_ROUNDS"]] = config.max_rounds or 45
    params[PARAM["START_TIME"]] = 10
    params[PARAM["VISIBLE_PER_AREA"]] = 5
    params[PARAM["TECH_TIME_PLUS"]] = 1
    params[PARAM["TECH_REQ_MINUS"]] = 5
    params[PARAM["SPRINT_TIME_MINUS"]] = 2
    params[PARAM["SPRINT_XP_PCT"]] = 50
    params[PARAM["SPRINT_FAIL_SCALED"]] = 1
    params[PARAM["SPRINT_EXTRA_NERF"]] = 1
    params[PARAM["IRON_FAIL_XP_PCT"]] = 50
    params[PARAM["FREE_SOLO_BYPASS"]] = 1
    params[PARAM["SUCCESS_CLAMP"]] = 1
    params[PARAM["TR_STATIONS"]] = 1 if config.top_rope_stations else 0
    params[PARAM["LEAD_CAPACITY"]] = 1 if config.top_rope_stations else 0
    params[PARAM["IRON_FAIL_PENALTY"]] = 5
    params[PARAM["ROUTE_READER_NEEDS"]] = 3
    params[PARAM["BETA_BOOST"]] = 3
    params[PARAM["REDIST_POINTS"]] = 10
    params[PARAM["BELAYERS_START"]] = 1
    params[PARAM["BELAYERS_2_ROUND"]] = 5
    params[PARAM["BELAYERS_3_ROUND"]] = 12
    params[PARAM["CAPACITY_OPEN"]] = 10
    params[PARAM["TRAIN_CAPACITY"]] = 1
    params[PARAM["PURCHASE_TIME"]] = 1
    params[PARAM["REST_TIME"]] = 1
    config.apply_params(params)      # switches and passive knobs, after every default

    # R61-R63: stats and max endurance by level, round half up, computed once.
    n_levels = len(data.xp_table)
    if n_levels != MAX_LEVEL:
        raise gamedata.DataError(f"{data.source}: XP_TABLE: the core supports {MAX_LEVEL} levels, "
                                 f"found {n_levels}")
    level_stats = np.zeros((N_CHARACTERS, MAX_LEVEL + 1, N_STATS), i64)
    level_max_end = np.zeros((N_CHARACTERS, MAX_LEVEL + 1), i64)
    for key, ch in data.characters.items():
        c = gamedata.CHARACTER_KEYS.index(key)
        for level in range(1, MAX_LEVEL + 1):
            for s, stat in enumerate(S):
                level_stats[c, level, s] = round_half_up(
                    ch["startingStats"][stat] + ch["growth"][stat] * (level - 1))
            level_max_end[c, level] = round_half_up(
                ch["startingEndurance"] + ch["growth"]["endurance"] * (level - 1))
    xp_cumulative = np.full(MAX_LEVEL + 2, np.iinfo(np.int64).max // 4, i64)
    for row in data.xp_table:
        xp_cumulative[int(row["level"])] = int(row["cumulative"])

    st = data.stations
    station_stat = np.array([S.index(x["stat"]) for x in st], i64)
    station_bonus = np.array([int(x["bonus"]) for x in st], i64)
    station_time = np.array([int(x["time"]) for x in st], i64)
    station_end = np.array([int(x["endurance"]) for x in st], i64)

    routes = [(a, r) for a in gamedata.AREAS for r in data.routes[a]]
    n_routes = len(routes)
    cards = data.gear
    n_cards = len(cards)
    if n_cards > MAX_GEAR:
        raise gamedata.DataError(f"{data.source}: GEAR_SHOP: the core supports at most {MAX_GEAR} "
                                 f"cards, found {n_cards}")
    names = [c["name"] for c in cards]
    for needed in config.access_cards:
        if needed not in names:
            raise gamedata.DataError(f"{data.source}: GEAR_SHOP: preset {config.preset} needs the "
                                     f"access card {needed!r}, which is not in the data")
    area_first = np.zeros(N_AREAS, i64)
    area_count = np.zeros(N_AREAS, i64)
    at = 0
    for a, area in enumerate(gamedata.AREAS):
        area_first[a] = at
        area_count[a] = len(data.routes[area])
        at += area_count[a]
    route_area = np.array([gamedata.AREAS.index(a) for a, _ in routes], i64)
    route_slot_bit = np.array([rid - area_first[route_area[rid]] for rid in range(n_routes)], i64)
    route_req = np.array([[int(r[s]) for s in S] for _, r in routes], i64)
    route_time = np.array([int(r["time"]) for _, r in routes], i64)
    route_end = np.array([int(r["endurance"]) for _, r in routes], i64)
    route_xp_s = np.array([int(r["xpSuccess"]) for _, r in routes], i64)
    route_xp_f = np.array([int(r["xpFail"]) for _, r in routes], i64)
    route_tag = np.array([TAG_IDS[r["tag"]] for _, r in routes], i64)
    route_n_eff = np.array([len(r["rollEffect"]) for _, r in routes], i64)
    route_eff_stat = np.zeros((n_routes, 3), i64)
    route_eff_mod = np.zeros((n_routes, 3), i64)
    for rid, (_, r) in enumerate(routes):
        for j, eff in enumerate(r["rollEffect"]):
            route_eff_stat[rid, j] = S.index(eff["stat"])
            route_eff_mod[rid, j] = int(eff["modifier"])

    # R49: per-route gear bonuses by the engine's general algorithm, once per (route, card).
    route_gear_bonus = np.zeros((n_routes, MAX_GEAR, N_STATS), i64)
    route_bonus_cards = np.zeros(n_routes, i64)
    card_repeated_only = np.zeros(MAX_GEAR, i64)
    area_label = {"bouldering": "Bouldering", "topRope": "Top Rope", "leadClimbing": "Lead"}
    as_printed = config.switch("access_gear_as_printed")
    for g, card in enumerate(cards):
        rf = card["routeFilter"]
        hf = card["holdFeatureFilter"]
        effect = card["statEffect"]
        value = int(card["value"])
        if effect in ("endurance", "time", "special", "timePerRound", "leadDiscount") or value > 0:
            continue
        if effect not in S and effect != "all":
            continue
        card_repeated_only[g] = 1 if "Repeated" in rf else 0
        route_present = bool(rf) and "All" not in rf and "Repeated" not in rf
        feature_present = bool(hf)
        for rid, (area, r) in enumerate(routes):
            route_ok = (area_label[area] in rf) or (r["routeType"] in rf)
            feature_ok = any(f in hf for f in r["holdFeatures"] + r["moveFeatures"])
            if route_present and feature_present:
                passes = route_ok or feature_ok
            elif route_present:
                passes = route_ok
            elif feature_present:
                passes = feature_ok
            else:
                passes = True
            if not passes or value == 0:
                continue
            for s, stat in enumerate(S):
                if effect == "all" or effect == stat:
                    # R49: the engine adds the printed penalty as a bonus; the rulebook
                    # reading keeps the printed sign
                    route_gear_bonus[rid, g, s] += value if as_printed else abs(value)
            route_bonus_cards[rid] |= 1 << g

    # R13: milestone buckets, in area order then data order.
    buckets = [[], [], []]
    for rid, (area, r) in enumerate(routes):
        tier = milestone_tier(area, r["grade"])
        if tier >= 0:
            buckets[tier].append(rid)
    for tier, bucket in enumerate(buckets):
        if not bucket:
            raise gamedata.DataError(f"{data.source}: ROUTES: no route has a grade of the "
                                     f"{gamedata.TIERS[tier]} milestone tier (R13)")
    bucket_routes = np.full((N_TIERS, n_routes), -1, i64)
    bucket_count = np.array([len(b) for b in buckets], i64)
    for tier, bucket in enumerate(buckets):
        bucket_routes[tier, :len(bucket)] = bucket

    card_cost = np.zeros(MAX_GEAR, i64)
    card_is_access = np.zeros(MAX_GEAR, i64)
    card_prereq_mask = np.zeros(MAX_GEAR, i64)
    card_prereq_level = np.ones(MAX_GEAR, i64)
    card_rest_bonus = np.zeros(MAX_GEAR, i64)
    card_kind = np.zeros(MAX_GEAR, i64)
    card_tag = np.zeros(MAX_GEAR, i64)
    card_value = np.zeros(MAX_GEAR, i64)
    card_max_end = np.zeros(MAX_GEAR, i64)
    card_time_per_round = np.zeros(MAX_GEAR, i64)
    kind_mask = np.zeros(N_KINDS, i64)
    for g, card in enumerate(cards):
        card_cost[g] = int(card["cost"])
        card_is_access[g] = 1 if card["name"] in config.access_cards else 0
        for pre in card["prerequisiteItems"]:
            card_prereq_mask[g] |= 1 << names.index(pre)
        card_prereq_level[g] = int(card["prerequisiteLevel"])
        card_rest_bonus[g] = int(card["restBonus"])
        kind = EFFECT_KIND_IDS.get(card.get("effectKind"), KIND_NONE)
        card_kind[g] = kind
        kind_mask[kind] |= 1 << g
        card_tag[g] = TAG_IDS[card.get("tagFilter")]
        card_value[g] = int(card["value"])
        if card["statEffect"] == "endurance":          # R42: Locking Carabiner
            card_max_end[g] = int(card["value"])
        if card["statEffect"] == "timePerRound":        # R68: Approach Shoes
            card_time_per_round[g] = int(card["value"])
    access_cards = np.full(MAX_ACCESS, -1, i64)
    access_list = [g for g in range(n_cards) if card_is_access[g]]
    access_cards[:len(access_list)] = access_list
    params[PARAM["N_ACCESS"]] = len(access_list)
    non_access = np.array([g for g in range(n_cards) if not card_is_access[g]], i64)
    params[PARAM["N_NON_ACCESS"]] = len(non_access)
    params[PARAM["N_ROUTES"]] = n_routes
    area_access_mask = np.zeros(N_AREAS, i64)
    for a, needed in enumerate(config.area_access):
        for name in needed:
            area_access_mask[a] |= 1 << names.index(name)
    assert AREA_LOC + N_AREAS == STATION_LOC

    tables = Tables(
        params=params, level_stats=level_stats, level_max_endurance=level_max_end,
        xp_cumulative=xp_cumulative, station_stat=station_stat, station_bonus=station_bonus,
        station_time=station_time, station_endurance=station_end, route_area=route_area,
        route_slot_bit=route_slot_bit, route_req=route_req, route_time=route_time,
        route_endurance=route_end, route_xp_success=route_xp_s, route_xp_fail=route_xp_f,
        route_tag=route_tag, route_n_effects=route_n_eff, route_effect_stat=route_eff_stat,
        route_effect_mod=route_eff_mod, route_bonus_cards=route_bonus_cards,
        route_gear_bonus=route_gear_bonus, area_first=area_first, area_count=area_count,
        bucket_routes=bucket_routes, bucket_count=bucket_count, card_cost=card_cost,
        card_is_access=card_is_access, card_prereq_mask=card_prereq_mask,
        card_prereq_level=card_prereq_level, card_rest_bonus=card_rest_bonus,
        card_kind=card_kind, card_tag=card_tag, card_value=card_value,
        card_max_endurance=card_max_end, card_time_per_round=card_time_per_round,
        card_repeated_only=card_repeated_only, kind_mask=kind_mask, access_cards=access_cards,
        non_access_cards=non_access, area_access_mask=area_access_mask,
        joint_index=np.zeros(0, i64), joint_entries=np.zeros(0, i64),
        route_xp_ceiling=np.zeros(0, i64), route_time_floor=np.zeros(0, i64),
        requirement_no_dice=np.zeros(0, i64), requirement_dice_weight=np.zeros(0, i64),
    )
    # The joint tables, the attempt limits and the requirements with no die are computed with
    # the engine's own functions, which read the flat tables: build those first (once; no
    # derived table reads another), then add the derived tables.
    derived = derived_tables(tables, flatten_tables(tables), len(routes), keep=keep_derived)
    tables = tables._replace(**{name: derived[name] for name in DERIVED_LIMITS})
    if derived["joint_ready"]:
        params[PARAM["JOINT_READY"]] = 1
        tables = tables._replace(params=params, joint_index=derived["joint_index"],
                                 joint_entries=derived["joint_entries"])
    fingerprint = hashlib.sha256(json.dumps(
        {"data": data.sha256, "rules": config.as_dict()}, sort_keys=True).encode()).hexdigest()
    return PackedRules(
        tables=flatten_tables(tables), named=tables, config=config, data=data,
        route_names=tuple(r["name"] for _, r in routes),
        route_areas=tuple(a for a, _ in routes),
        route_grades=tuple(r["grade"] for _, r in routes),
        route_tags=tuple(r["tag"] for _, r in routes),
        card_names=tuple(names), station_names=tuple(x["name"] for x in st),
        fingerprint=fingerprint)


DERIVED_LIMITS = ("route_xp_ceiling", "route_time_floor", "requirement_no_dice",
                  "requirement_dice_weight")
DERIVED_FOLDER = "ascent-derived"        # in the numba cache folder, keyed by the sources


def derived_tables(named, flat, n_routes, keep=False):
    """The tables the engine's own functions derive from the flat tables (the attempt limits,
    R52 with no die, the joint dice tables), as {name: array} and "joint_ready".

    With `keep`, worked out once per version of the code, then read back: the joint tables'
    enumeration and the engine functions the limits load took 0.15 s of every start (issue 22's
    warm start). Only a preset's own rules keep them (0.9 MB each): a sweep or a balance search
    builds hundreds of variants, in runs where 0.15 s a start does not count. They are kept in
    the numba cache folder, whose name is the hash of the sources (sim/__init__.py), so an edit
    to the engine starts afresh, under the hash of the flat tables they are computed from,
    which hold every input. (joblib.Memory would do it, but its import costs 0.06 s of the
    0.15.) A file is read back only whole and matching its own digest, else worked out again;
    it is written to a temporary file of its own and renamed into place."""
    if not keep:
        return _derive(named, flat, n_routes)
    import os
    import uuid
    from pathlib import Path
    folder = Path(os.environ["NUMBA_CACHE_DIR"]) / DERIVED_FOLDER
    path = folder / f"all-in-ascent-{hashlib.sha256(flat.tobytes()).hexdigest()[:32]}.npz"
    try:
        with np.load(path) as saved:
            kept = {name: saved[name] for name in saved.files}
        digest = kept.pop("digest")
        if np.array_equal(digest, _digest_of(kept)):
            return kept | {"joint_ready": bool(kept["joint_ready"])}
    except Exception:          # noqa: BLE001 (not written yet under this code, or damaged:
        pass                   # a damaged zip raises a dozen kinds; each is worked out again)
    derived = _derive(named, flat, n_routes)
    partial = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # a name no other process or thread picks; the mode numba's own cache files get (the
        # umask's), so that another user of a shared cache folder can read it too
        name = folder / f".{path.stem}.{uuid.uuid4().hex}.tmp.npz"
        handle = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        partial = name                  # ours to remove only once we created it
        with os.fdopen(handle, "wb") as out:
            np.savez(out, digest=_digest_of(derived), **derived)
        os.replace(partial, path)
    except OSError:            # a read-only or full cache folder: worked out at every start
        if partial is not None:
            Path(partial).unlink(missing_ok=True)
    return derived


def _digest_of(arrays):
    """A hash of every array with its name, dtype and shape: a kept file is read back only if
    it matches (a zip checks its contents only when a reader reads to a member's end, and
    numpy's header can be damaged into another shape)."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        h.update(f"{name}:{array.dtype.str}:{array.shape};".encode())
        h.update(array.tobytes())
    return np.frombuffer(h.digest(), np.uint8)


def _derive(named, flat, n_routes):
    from sim.games.all_in_ascent.engine import attempt_limits, requirement_tables
    from sim.games.all_in_ascent.probability import joint_tables
    derived = dict(zip(DERIVED_LIMITS, (*attempt_limits(flat, n_routes),
                                        *requirement_tables(flat, n_routes))))
    joint_index, joint_entries = joint_tables(named, flat)
    derived["joint_ready"] = joint_index is not None
    if derived["joint_ready"]:
        derived.update(joint_index=joint_index, joint_entries=joint_entries)
    return derived


_DEFAULT = {}


def load_preset_data(config):
    """The bundled data file of a preset, checked against that version's counts (R1, L3)."""
    counts = gamedata.V060_COUNTS if config.data_version == "v0.6.0" else gamedata.V040_COUNTS
    return gamedata.load_data(gamedata.bundled_path(config.data_version), counts)


def build_rules(preset="v0.4.0", switches=None, knobs=(), data_path=None):
    """Packed rules of a preset with rule switches ({name: value}), data knobs
    ([(path, value)] or ["path=value"]) and optionally another data file.
    Raises VariantError / DataError with one clear line for anything unknown or out of range."""
    from sim.games.all_in_ascent.variants import split_assignment
    config = get_preset(preset)
    if not switches and not knobs and data_path is None:
        return default_rules(preset)
    pairs = [split_assignment(k, "knob") if isinstance(k, str) else k for k in knobs]
    key = _variant_key(preset, switches, pairs, data_path)
    if key in _VARIANTS:
        _VARIANTS.move_to_end(key)
        return _VARIANTS[key]
    counts = gamedata.V060_COUNTS if config.data_version == "v0.6.0" else gamedata.V040_COUNTS
    data = gamedata.load_data(data_path, counts) if data_path else load_preset_data(config)
    config = config.with_variants(switches or {}, pairs, data)
    packed = pack(data, config)
    if key is not None:
        _VARIANTS[key] = packed
        if len(_VARIANTS) > KEPT_VARIANTS:
            _VARIANTS.popitem(last=False)
    return packed


# The last variants packed, as default_rules keeps the presets': the packed rules do not depend
# on the player count, yet a balancer or an experiment spec asks for them once per player count
# (0.1 s a pack, against a candidate's 2,000 games of 0.2 s; issue 22).
KEPT_VARIANTS = 8
_VARIANTS = OrderedDict()


def _variant_key(preset, switches, pairs, data_path):
    """The inputs of a variant, exactly: every value with its type (a quoted "3" is refused where
    a 3 is taken, so the two must not share a key), the data file by its path, size and time of
    change. None (not kept) for inputs it cannot read: building them raises the clear error."""
    def typed(value):
        if isinstance(value, (list, tuple)):
            return [type(value).__qualname__, [typed(v) for v in value]]
        if isinstance(value, dict):
            return ["dict", sorted([typed(k), typed(v)] for k, v in value.items())]
        return f"{type(value).__module__}.{type(value).__qualname__}:{value!r}"
    try:
        data = None
        if data_path is not None:
            stat = os.stat(data_path)
            data = [os.path.abspath(data_path), stat.st_size, stat.st_mtime_ns]
        return json.dumps([preset, typed(dict(switches or {})), typed(list(pairs)), data])
    except (OSError, TypeError, ValueError):
        return None


def check_game_can_end(config, players):
    """Refuse, up front, a rule set under which no game with `players` players can end.

    L6/L10: with belay stations (v0.6.0) there are players - 1 of them, so alone at the table no
    Top Rope milestone can ever be attempted; every game needs one, and without a round cap
    (L1) nothing else ends the game: every game would run to the kernel's safety cap."""
    from sim.games.all_in_ascent.variants import VariantError
    if config.top_rope_stations and players == 1 and config.max_rounds is None:
        raise VariantError(f"--players 1 with preset {config.preset}: belay stations = players - 1 "
                           f"= 0 (L6), so no Top Rope milestone can be attempted (L10) and with "
                           f"no round cap the game can never end; play 2 to 4 players or set a "
                           f"round cap (--rule max_rounds=45)")


def default_rules(preset="v0.4.0"):
    """The packed rules of a preset with its bundled data (cached per process)."""
    if preset not in _DEFAULT:
        config = get_preset(preset)
        _DEFAULT[preset] = pack(load_preset_data(config), config, keep_derived=True)
    return _DEFAULT[preset]
