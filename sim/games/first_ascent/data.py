"""First Ascent's component data (data.json, schema at the end of RULES.md): load, validate, pack.

`load_data(path)` reads and checks the file; a wrong file fails with DataError naming the
file, the field and what is allowed. `pack_tables(data)` turns it into ONE int64 vector that
the numba engine reads through the T_* offsets below (rules.py appends the rule options).

Encodings shared with the engine (state.py re-exports them):
    asset types     GEAR 0, FACE 1, CRACK 2, SLAB 3
    techniques      NONE 0, PRECISION 1, BALANCE 2, PAIN_TOLERANCE 3, POWER 4, WILD 5
    requirement     GEAR 0, FACE 1, CRACK 2, SLAB 3, ANY_SKILL 4, WATER 5, PSYCH 6
    pitch types     SLAB 0, ROOF 1, CORNER 2, ARETE 3, FLAKE 4, CRACK 5, ANY 6 (The Trifecta)
    shades          SUN 0, SHADE 1, BOTH 2
Hex sets are int64 bitmasks (bit h = hex h, 0..43); pitch sets likewise (bit = tile id).
"""
import json
from pathlib import Path

import numpy as np

from sim.core.layout import layout
from sim.core.game import GameError

DATA_PATH = Path(__file__).with_name("data") / "data.json"


class DataError(GameError):
    """A First Ascent data file that does not match the schema."""


ASSET_TYPES = ("gear", "face", "crack", "slab")
TECHNIQUES = ("none", "precision", "balance", "pain_tolerance", "power", "wild")
REQUIREMENTS = ("gear", "face", "crack", "slab", "any_skill", "water", "psych")
PITCH_TYPES = ("slab", "roof", "corner", "arete", "flake", "crack", "any")
SHADES = ("sun", "shade", "both")
SIDES = ("desert", "forest")

N_KINDS = 38            # asset kind ids 1..37
N_CARDS = 124
N_TILES = 44            # tile ids 1..43
N_HEX = 44              # hex ids 0..43 (0 = the start)
N_CLIMB = 71            # climbing card ids 1..70
N_SB = 13               # Summit Beta ids 1..12
N_SHARED = 17           # shared objective ids 1..16
N_PERSONAL = 13         # personal objective ids 1..12
N_CHARS = 13            # character ids 1..12
MAX_ENTRIES = 3         # effects per option (cost + gain); data.json has at most 2
ENTRY_FIELDS = 9
MAX_GROUP = 6           # personal objective groups (card 3 has 5)

# --- effect vocabulary (F44, F106-F118) ------------------------------------------------------
VERBS = ("water", "psych", "lose_cards", "give_cards", "gain_portaledge", "gain_technique_token",
         "gain_summit_beta", "draw_2_summit_beta_keep_1_give_1", "steal_board_card",
         "place_hand_card_on_board", "add_requirement_token", "roll_risk_die",
         "draw_from_spread")
WHO = ("self", "all", "others", "self_and_chosen_opponent", "chosen_opponent",
       "players_on_sunny_pitch")
CARD_TYPES = ("gear", "face", "crack", "slab", "any_skill", "any")
FROM = ("hand_then_board", "hand")
STEAL_TO = ("hand", "board")
TARGETS = ("any_face_up_pitch", "same_row_or_lower_neighbour_of_own_hex")
# entry fields
E_PART, E_VERB, E_AMOUNT, E_WHO, E_CTYPE, E_FROM, E_TO, E_TYPES, E_TECH = range(ENTRY_FIELDS)
PART_NONE, PART_COST, PART_GAIN = 0, 1, 2

SHARED_KINDS = ("ridge", "per_pitch", "type_count", "grand_traverse", "all_types", "elitist",
                "per_headwall_pitch", "permanent_tokens")
SO_FIELDS = 8
SO_KIND, SO_POINTS, SO_A, SO_B, SO_C, SO_D, SO_E, SO_F = range(SO_FIELDS)

# character fields
CH_FIELDS = 24
(CH_START_WATER, CH_START_PSYCH, CH_MAX, CH_LIMIT, CH_REST, CH_THRESH, _t1, _t2, _t3,
 CH_WATER_MINUS, CH_FS_CONVERT, CH_NO_GEAR_COLUMN, CH_SUB_KIND, CH_SUB_REPLACES,
 CH_GEAR_WILD, CH_GEAR_CAP, CH_MUST_RISK, CH_START_SB, CH_IGNORE_BELOW_LEDGE,
 CH_CARDS_DRAWN, CH_BIONIC, CH_IGNORE_V4, CH_IGNORE_V5, _unused) = range(CH_FIELDS)
SUB_NONE, SUB_GEAR_CARD, SUB_PSYCH = 0, 1, 2

# board masks
BM_FACE_UP_START, BM_HEADWALL, BM_BELOW_LEDGE, BM_SUMMIT, BM_NORTH, BM_SOUTH = range(6)
BM_ROW = 6                    # rows 1..6 at BM_ROW + r - 1
N_BOARD_MASKS = 12

# --- packed table offsets -------------------------------------------------------------------
_layout = [
    ("KIND_TYPE", N_KINDS), ("KIND_TECH", N_KINDS), ("KIND_COUNT", N_KINDS),
    ("P_TYPE", N_TILES), ("P_VALUE", N_TILES), ("P_SHADE", N_TILES), ("P_REQ", N_TILES * 7),
    ("B_NHEX", 2), ("B_ROW", 2 * N_HEX), ("B_VALUE", 2 * N_HEX), ("B_NEIGH", 2 * N_HEX),
    ("B_GEO", 2 * N_HEX), ("B_LOWER", 2 * N_HEX), ("B_FIXED", 2 * N_HEX),
    ("B_MASK", 2 * N_BOARD_MASKS), ("B_GROUP_HEX", 2 * 6 * 16), ("B_GROUP_NHEX", 2 * 6),
    ("B_POOL", 2 * 6 * 16), ("B_POOL_N", 2 * 6), ("B_USED", 2 * N_TILES),
    ("CC_NOPT", N_CLIMB), ("CC_FS_BAN", N_CLIMB),
    ("CC_EFF", N_CLIMB * 2 * MAX_ENTRIES * ENTRY_FIELDS),
    ("SB_PARAM", N_SB * 2),
    ("SO", N_SHARED * SO_FIELDS), ("SO_BGA_TILES", N_SHARED),
    ("PO_POINTS", N_PERSONAL), ("PO_MASK", N_PERSONAL), ("PO_GROUPED", N_PERSONAL),
    ("PO_NGROUPS", N_PERSONAL), ("PO_GROUPS", N_PERSONAL * MAX_GROUP),
    ("CH", N_CHARS * CH_FIELDS), ("CH_BOARD", N_CHARS),
    ("HAND_BY_SEAT", 5), ("SETUP", 16),
]
_offsets, TABLES_SIZE = layout(_layout)
T_KIND_TYPE = _offsets["KIND_TYPE"]
T_KIND_TECH = _offsets["KIND_TECH"]
T_KIND_COUNT = _offsets["KIND_COUNT"]
T_P_TYPE = _offsets["P_TYPE"]
T_P_VALUE = _offsets["P_VALUE"]
T_P_SHADE = _offsets["P_SHADE"]
T_P_REQ = _offsets["P_REQ"]
T_B_NHEX = _offsets["B_NHEX"]
T_B_ROW = _offsets["B_ROW"]
T_B_VALUE = _offsets["B_VALUE"]
T_B_NEIGH = _offsets["B_NEIGH"]
T_B_GEO = _offsets["B_GEO"]
T_B_LOWER = _offsets["B_LOWER"]
T_B_FIXED = _offsets["B_FIXED"]
T_B_MASK = _offsets["B_MASK"]
T_B_GROUP_HEX = _offsets["B_GROUP_HEX"]
T_B_GROUP_NHEX = _offsets["B_GROUP_NHEX"]
T_B_POOL = _offsets["B_POOL"]
T_B_POOL_N = _offsets["B_POOL_N"]
T_B_USED = _offsets["B_USED"]
T_CC_NOPT = _offsets["CC_NOPT"]
T_CC_FS_BAN = _offsets["CC_FS_BAN"]
T_CC_EFF = _offsets["CC_EFF"]
T_SB_PARAM = _offsets["SB_PARAM"]
T_SO = _offsets["SO"]
T_SO_BGA_TILES = _offsets["SO_BGA_TILES"]
T_PO_POINTS = _offsets["PO_POINTS"]
T_PO_MASK = _offsets["PO_MASK"]
T_PO_GROUPED = _offsets["PO_GROUPED"]
T_PO_NGROUPS = _offsets["PO_NGROUPS"]
T_PO_GROUPS = _offsets["PO_GROUPS"]
T_CH = _offsets["CH"]
T_CH_BOARD = _offsets["CH_BOARD"]
T_HAND_BY_SEAT = _offsets["HAND_BY_SEAT"]
T_SETUP = _offsets["SETUP"]
# T_SETUP + k
SETUP_SPREAD, SETUP_PORTALEDGE, SETUP_REST, SETUP_RERACK, SETUP_RERACK_PENALISED, \
    SETUP_SET_SIZE, SETUP_SET_POINTS, SETUP_PITCHES_TO_END, SETUP_SHARED_IN_PLAY, \
    SETUP_PERSONAL_DEALT, SETUP_ROPES = range(11)


def _fail(path, field, message):
    error = DataError(f"{path}: {field}: {message}")
    error.field, error.reason = field, message     # for knobs.py to name the knob behind it
    raise error


def _req(obj, key, path, where):
    if not isinstance(obj, dict) or key not in obj:
        _fail(path, f"{where}.{key}", "missing")
    return obj[key]


def _int(value, path, field, lo, hi):
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        _fail(path, field, f"must be an integer from {lo} to {hi}, got {value!r}")
    return value


def _choice(value, allowed, path, field):
    if value not in allowed:
        _fail(path, field, f"must be one of {', '.join(map(str, allowed))}, got {value!r}")
    return allowed.index(value)


def load_data(path=DATA_PATH):
    """Read and validate a First Ascent data file; returns the parsed dict."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: not valid JSON ({exc})") from None
    return validate_data(data, path)


def validate_data(data, path):
    """Check a parsed data file (or the bundled one with knobs applied); returns it."""
    # F2-F5 (and F104: twelve personal objectives): the components, counted
    expected = {"asset_kinds": 37, "pitches": 43, "climbing_cards": 70,
                "summit_beta_tokens": 12, "shared_objectives": 16, "personal_objectives": 12,
                "characters": 12}
    for key, n in expected.items():
        items = _req(data, key, path, "$")
        if not isinstance(items, list) or len(items) != n:
            _fail(path, key, f"must be a list of {n} entries")
        ids = [_req(x, "id", path, f"{key}[]") for x in items]
        if sorted(ids) != list(range(1, n + 1)):
            _fail(path, f"{key}[].id", f"must be the ids 1..{n}, each once")
    total = 0
    for k in data["asset_kinds"]:
        where = f"asset_kinds[id={k['id']}]"
        _choice(_req(k, "type", path, where), ASSET_TYPES, path, f"{where}.type")
        _choice(k.get("technique") or "none", TECHNIQUES, path, f"{where}.technique")
        total += _int(_req(k, "count", path, where), path, f"{where}.count", 1, 20)
    if total != N_CARDS:
        _fail(path, "asset_kinds[].count", f"must add up to {N_CARDS} cards, got {total}")
    for p in data["pitches"]:
        where = f"pitches[id={p['id']}]"
        _choice(_req(p, "type", path, where), PITCH_TYPES, path, f"{where}.type")
        _int(_req(p, "value", path, where), path, f"{where}.value", 1, 5)
        _choice(_req(p, "shade", path, where), SHADES, path, f"{where}.shade")
        req = _req(p, "requirements", path, where)
        for r in REQUIREMENTS:
            _int(_req(req, r, path, f"{where}.requirements"), path,
                 f"{where}.requirements.{r}", 0, 9)
    for c in data["climbing_cards"]:
        where = f"climbing_cards[id={c['id']}]"
        opts = _req(c, "options", path, where)
        if not isinstance(opts, list) or len(opts) not in (1, 2):
            _fail(path, f"{where}.options", "must hold 1 or 2 options")
        for o in opts:
            n = len(_req(o, "cost", path, where)) + len(_req(o, "gain", path, where))
            if n > MAX_ENTRIES:
                _fail(path, f"{where}.options", f"at most {MAX_ENTRIES} effects per option")
            for part in ("cost", "gain"):
                for e in o[part]:
                    _check_entry(e, path, f"{where}.{o.get('label', '?')}.{part}")
        if "free_soloist_cannot_choose" in c:
            _choice(c["free_soloist_cannot_choose"], ("A", "B"), path,
                    f"{where}.free_soloist_cannot_choose")
    for o in data["shared_objectives"]:
        _choice(_req(o, "kind", path, f"shared_objectives[id={o['id']}]"), SHARED_KINDS, path,
                f"shared_objectives[id={o['id']}].kind")
    for o in data["personal_objectives"]:
        where = f"personal_objectives[id={o['id']}]"
        for pid in _req(o, "pitch_ids", path, where):
            _int(pid, path, f"{where}.pitch_ids", 1, 43)
        _choice(_req(o, "count_rule", path, where), ("distinct_pitches", "distinct_groups"),
                path, f"{where}.count_rule")
    for ch in data["characters"]:
        where = f"characters[id={ch['id']}]"
        for key in ("start_water", "start_psych", "max_water_psych"):
            _int(_req(ch, key, path, where), path, f"{where}.{key}", 0, 7)
        for key in ("start_water", "start_psych"):        # F22, F7: a track starts within its max
            if ch[key] > ch["max_water_psych"]:
                _fail(path, f"{where}.{key}", f"must be at most the track maximum "
                      f"max_water_psych = {ch['max_water_psych']}, got {ch[key]}")
        _int(_req(ch, "permanent_token_limit", path, where), path,
             f"{where}.permanent_token_limit", 0, 12)
        _int(_req(ch, "rest_assets", path, where), path, f"{where}.rest_assets", 0, 12)
        for a in ASSET_TYPES:
            _int(_req(_req(ch, "permanent_threshold", path, where), a, path, where), path,
                 f"{where}.permanent_threshold.{a}", 1, 12)
        validate_ability(_req(ch, "ability", path, where), path, f"{where}.ability")
    boards = _req(data, "boards", path, "$")
    for side in SIDES:
        b = _req(boards, side, path, "boards")
        n = _int(_req(b, "hex_count", path, f"boards.{side}"), path,
                 f"boards.{side}.hex_count", 1, N_HEX - 1)
        for key in ("neighbours", "geometric_neighbours", "same_row_or_lower_neighbours"):
            table = _req(b, key, path, f"boards.{side}")
            for h, nbs in table.items():
                for x in nbs:
                    _int(x, path, f"boards.{side}.{key}.{h}", 0, n)
    return data


# F130: the ability keys a character may carry. Each is read by the engine (payment.py, setup,
# climbing cards) and by the bots through it; a key outside this list would be ignored, so it is
# refused instead.
ABILITY_NUMBERS = {"water_requirement_minus": (0, 7), "gear_requirement_cap": (0, 9),
                   "starting_summit_beta": (0, 3), "ignore_units_below_ledge": (0, 9),
                   "climbing_cards_drawn": (1, 2), "climbing_cards_resolved": (1, 1),
                   "per_pitch": (1, 1)}
ABILITY_FLAGS = ("gear_requirements_become_any_skill", "no_gear_column",
                 "must_risk_every_climb", "convert_one_skill_unit_to_any_skill")
SUBSTITUTE_PAYMENTS = ("gear_card", "psych")
IGNORED_BY_VALUE = ("4", "5")       # the printed values the engine reads (CH_IGNORE_V4, _V5)
ABILITY_KEYS = (tuple(ABILITY_NUMBERS) + ABILITY_FLAGS +
                ("substitute", "gear_cards_technique", "ignore_units_by_printed_value",
                 "text_scope", "bga_scope"))


def validate_ability(ab, path, where):
    """One character's `ability` block (F130); fails naming the field and what is allowed."""
    if not isinstance(ab, dict):
        _fail(path, where, "must be an object of ability keys (may be empty)")
    for key, value in ab.items():
        field = f"{where}.{key}"
        if key in ABILITY_NUMBERS:
            _int(value, path, field, *ABILITY_NUMBERS[key])
        elif key in ABILITY_FLAGS:
            if not isinstance(value, bool):
                _fail(path, field, f"must be true or false, got {value!r}")
        elif key == "substitute":
            _choice(_req(value, "pay_with", path, field), SUBSTITUTE_PAYMENTS, path,
                    f"{field}.pay_with")
            replaces = _req(value, "replaces", path, field)
            if not isinstance(replaces, list) or not replaces:
                _fail(path, f"{field}.replaces", "must be a non-empty list of requirements")
            for r in replaces:
                _choice(r, REQUIREMENTS, path, f"{field}.replaces")
            _int(value.get("per_pitch", 1), path, f"{field}.per_pitch", 1, 1)
        elif key == "gear_cards_technique":
            _choice(value, ("wild",), path, field)
        elif key == "ignore_units_by_printed_value":
            if not isinstance(value, dict):
                _fail(path, field, "must map printed values 4 and 5 to unit counts")
            for v, units in value.items():
                _choice(v, IGNORED_BY_VALUE, path, f"{field} (a printed value)")
                _int(units, path, f"{field}.{v}", 0, 9)
        elif key == "text_scope":
            for r in value if isinstance(value, list) else [value]:
                _choice(r, REQUIREMENTS, path, field)
        elif key == "bga_scope":
            if not isinstance(value, str):
                _fail(path, field, f"must be text, got {value!r}")
        else:
            _fail(path, field, f"unknown ability; allowed: {', '.join(ABILITY_KEYS)}")


def _check_entry(e, path, where):
    verb = _choice(_req(e, "do", path, where), VERBS, path, f"{where}.do")
    if "who" in e:
        _choice(e["who"], WHO, path, f"{where}.who")
    if "card_type" in e:
        _choice(e["card_type"], CARD_TYPES, path, f"{where}.card_type")
    if "from" in e:
        _choice(e["from"], FROM, path, f"{where}.from")
    if VERBS[verb] in ("water", "psych"):
        _int(_req(e, "amount", path, where), path, f"{where}.amount", -6, 6)
    if "n" in e:
        _int(e["n"], path, f"{where}.n", 1, 6)
    for t in e.get("types", []) + e.get("token_types", []):
        _choice(t, ASSET_TYPES, path, f"{where}.types")
    if "technique" in e and e["technique"] != "choice":
        _choice(e["technique"], TECHNIQUES[1:5], path, f"{where}.technique")


def _mask(items):
    m = 0
    for x in items:
        m |= 1 << int(x)
    return m


def pack_tables(data):
    """The int64 vector the engine reads (T_* offsets)."""
    t = np.zeros(TABLES_SIZE, np.int64)
    card_kinds = []
    for k in data["asset_kinds"]:
        i = k["id"]
        t[T_KIND_TYPE + i] = ASSET_TYPES.index(k["type"])
        t[T_KIND_TECH + i] = TECHNIQUES.index(k.get("technique") or "none")
        t[T_KIND_COUNT + i] = k["count"]
        card_kinds += [i] * k["count"]
    for p in data["pitches"]:
        i = p["id"]
        t[T_P_TYPE + i] = PITCH_TYPES.index(p["type"])
        t[T_P_VALUE + i] = p["value"]
        t[T_P_SHADE + i] = SHADES.index(p["shade"])
        for r, name in enumerate(REQUIREMENTS):
            t[T_P_REQ + 7 * i + r] = p["requirements"][name]
        for s, side in enumerate(SIDES):
            t[T_B_USED + N_TILES * s + i] = 1 if p["used_on"][side] else 0
    for s, side in enumerate(SIDES):
        b = data["boards"][side]
        t[T_B_NHEX + s] = b["hex_count"]
        base = N_HEX * s
        for r, row in enumerate(b["rows"], start=1):
            for h in row:
                t[T_B_ROW + base + h] = r
        for h, v in b["hex_value"].items():
            t[T_B_VALUE + base + int(h)] = v
        for key, off in (("neighbours", T_B_NEIGH), ("geometric_neighbours", T_B_GEO),
                         ("same_row_or_lower_neighbours", T_B_LOWER)):
            for h, nbs in b[key].items():
                t[off + base + int(h)] = _mask(nbs)
        for h, tile in b["fixed_tiles"].items():
            t[T_B_FIXED + base + int(h)] = tile
        masks = (b["face_up_at_start_hexes"], b["headwall_hexes"], b["below_ledge_hexes"],
                 b["summit_hexes"], b["north_ridge_hexes"], b["south_ridge_hexes"])
        for m, hexes in enumerate(masks):
            t[T_B_MASK + N_BOARD_MASKS * s + m] = _mask(hexes)
        for r, row in enumerate(b["rows"]):
            t[T_B_MASK + N_BOARD_MASKS * s + BM_ROW + r] = _mask(row)
        for v, group in b["random_tile_groups"].items():
            v = int(v)
            g = 6 * s + v
            t[T_B_GROUP_NHEX + g] = len(group["hexes"])
            t[T_B_POOL_N + g] = len(group["tile_pool"])
            for k, h in enumerate(group["hexes"]):
                t[T_B_GROUP_HEX + 16 * g + k] = h
            for k, tile in enumerate(group["tile_pool"]):
                t[T_B_POOL + 16 * g + k] = tile
    for c in data["climbing_cards"]:
        i = c["id"]
        t[T_CC_NOPT + i] = len(c["options"])
        if "free_soloist_cannot_choose" in c:
            t[T_CC_FS_BAN + i] = 1 << ("AB".index(c["free_soloist_cannot_choose"]))
        for o, opt in enumerate(c["options"]):
            entries = [(PART_COST, e) for e in opt["cost"]] + [(PART_GAIN, e) for e in opt["gain"]]
            for k, (part, e) in enumerate(entries):
                at = T_CC_EFF + ((i * 2 + o) * MAX_ENTRIES + k) * ENTRY_FIELDS
                t[at + E_PART] = part
                t[at + E_VERB] = VERBS.index(e["do"])
                t[at + E_AMOUNT] = e.get("amount", e.get("n", 1))
                t[at + E_WHO] = WHO.index(e.get("who", "self"))
                t[at + E_CTYPE] = CARD_TYPES.index(e.get("card_type", "any"))
                t[at + E_FROM] = FROM.index(e.get("from", "hand_then_board"))
                t[at + E_TO] = (STEAL_TO.index(e["to"]) if e.get("to") in STEAL_TO else
                                TARGETS.index(e["target"]) if "target" in e else 0)
                t[at + E_TYPES] = sum(1 << ASSET_TYPES.index(x)
                                      for x in e.get("types", []) + e.get("token_types", []))
                tech = e.get("technique")
                t[at + E_TECH] = 0 if tech in (None, "choice") else TECHNIQUES.index(tech)
    for sb in data["summit_beta_tokens"]:
        i = sb["id"]
        if sb["effect"] == "gain":
            t[T_SB_PARAM + 2 * i] = sb.get("water", 0)
            t[T_SB_PARAM + 2 * i + 1] = sb.get("psych", 0)
        else:
            t[T_SB_PARAM + 2 * i] = sb.get("n", sb.get("max", 0))
    for o in data["shared_objectives"]:
        at = T_SO + SO_FIELDS * o["id"]
        kind = SHARED_KINDS.index(o["kind"])
        t[at + SO_KIND] = kind
        t[at + SO_POINTS] = o.get("points", o.get("points_each", 0))
        if o["kind"] == "ridge":
            t[at + SO_A] = ("north", "south").index(o["ridge"])
            t[at + SO_B] = o["threshold"]
        elif o["kind"] == "per_pitch":
            t[at + SO_A] = sum(1 << SHADES.index(x) for x in o["shade"])
        elif o["kind"] == "type_count":
            t[at + SO_A] = PITCH_TYPES.index(o["pitch_type"])
            t[at + SO_B] = o["threshold"]
            t[T_SO_BGA_TILES + o["id"]] = _mask(o["bga_pitch_ids"])
        elif o["kind"] == "grand_traverse":
            t[at + SO_A] = o["run"]
        elif o["kind"] == "all_types":
            t[at + SO_A] = sum(1 << PITCH_TYPES.index(x) for x in o["types"])
            t[at + SO_B] = 1 if o["trifecta_counts_as_missing_type"] else 0
        elif o["kind"] == "elitist":
            t[at + SO_A] = o["lost_on_pitch_value"]
        elif o["kind"] == "permanent_tokens":
            (ta, na), (tb, nb) = o["text_rule"].items()
            t[at + SO_A] = ASSET_TYPES.index(ta)
            t[at + SO_B] = na
            t[at + SO_C] = ASSET_TYPES.index(tb)
            t[at + SO_D] = nb
            t[at + SO_E] = int(o["bga_rule"].split(">=")[1])
    for o in data["personal_objectives"]:
        i = o["id"]
        t[T_PO_POINTS + i] = o["points"]
        t[T_PO_MASK + i] = _mask(o["pitch_ids"])
        if o["count_rule"] == "distinct_groups":
            t[T_PO_GROUPED + i] = 1
            t[T_PO_NGROUPS + i] = len(o["groups"])
            for g, ids in enumerate(o["groups"].values()):
                t[T_PO_GROUPS + MAX_GROUP * i + g] = _mask(ids)
    for ch in data["characters"]:
        i = ch["id"]
        at = T_CH + CH_FIELDS * i
        ab = ch["ability"]
        t[at + CH_START_WATER] = ch["start_water"]
        t[at + CH_START_PSYCH] = ch["start_psych"]
        t[at + CH_MAX] = ch["max_water_psych"]
        t[at + CH_LIMIT] = ch["permanent_token_limit"]
        t[at + CH_REST] = ch["rest_assets"]
        for a, name in enumerate(ASSET_TYPES):
            t[at + CH_THRESH + a] = ch["permanent_threshold"][name]
        t[at + CH_WATER_MINUS] = ab.get("water_requirement_minus", 0)
        t[at + CH_FS_CONVERT] = 1 if ab.get("gear_requirements_become_any_skill") else 0
        t[at + CH_NO_GEAR_COLUMN] = 1 if ab.get("no_gear_column") else 0
        sub = ab.get("substitute")
        if sub:
            t[at + CH_SUB_KIND] = SUB_GEAR_CARD if sub["pay_with"] == "gear_card" else SUB_PSYCH
            t[at + CH_SUB_REPLACES] = sum(1 << REQUIREMENTS.index(x) for x in sub["replaces"])
        t[at + CH_GEAR_WILD] = 1 if ab.get("gear_cards_technique") == "wild" else 0
        t[at + CH_GEAR_CAP] = ab.get("gear_requirement_cap", -1) if "gear_requirement_cap" in ab \
            else -1
        t[at + CH_MUST_RISK] = 1 if ab.get("must_risk_every_climb") else 0
        t[at + CH_START_SB] = ab.get("starting_summit_beta", 0)
        t[at + CH_IGNORE_BELOW_LEDGE] = ab.get("ignore_units_below_ledge", 0)
        t[at + CH_CARDS_DRAWN] = ab.get("climbing_cards_drawn", 1)
        t[at + CH_BIONIC] = 1 if ab.get("convert_one_skill_unit_to_any_skill") else 0
        by_value = ab.get("ignore_units_by_printed_value", {})
        t[at + CH_IGNORE_V4] = by_value.get("4", 0)
        t[at + CH_IGNORE_V5] = by_value.get("5", 0)
        t[T_CH_BOARD + i] = ch["player_board"]
    setup = data["setup"]
    for k, n in enumerate(setup["starting_hand_by_seat"]):
        t[T_HAND_BY_SEAT + k] = n
    t[T_SETUP + SETUP_SPREAD] = setup["spread_size"]
    t[T_SETUP + SETUP_PORTALEDGE] = setup["portaledge_per_type"]
    t[T_SETUP + SETUP_REST] = setup["rest_assets"]
    t[T_SETUP + SETUP_RERACK] = setup["rerack_draw"]
    t[T_SETUP + SETUP_RERACK_PENALISED] = setup["rerack_draw_penalised"]
    t[T_SETUP + SETUP_SET_SIZE] = setup["technique_set_size"]
    t[T_SETUP + SETUP_SET_POINTS] = setup["technique_set_points"]
    t[T_SETUP + SETUP_PITCHES_TO_END] = setup["pitches_to_end"]
    t[T_SETUP + SETUP_SHARED_IN_PLAY] = setup["shared_objectives_in_play"]
    t[T_SETUP + SETUP_PERSONAL_DEALT] = setup["personal_objectives_dealt"]
    t[T_SETUP + SETUP_ROPES] = setup["ropes_per_player"]
    return t


def character_keys(data):
    return {c["key"]: c["id"] for c in data["characters"]}


DATA = load_data()
TABLES = pack_tables(DATA)
CHARACTER_NAMES = {c["id"]: c["name"] for c in DATA["characters"]}
CHARACTER_KEYS = {c["id"]: c["key"] for c in DATA["characters"]}
CHARACTER_NAME_OF_KEY = {c["key"]: c["name"] for c in DATA["characters"]}    # for reports
SHARED_NAMES = {o["id"]: o["name"] + (" North" if o["key"].endswith("north") else
                                      " South" if o["key"].endswith("south") else "")
                for o in DATA["shared_objectives"]}
PERSONAL_NAMES = {o["id"]: o["name"] for o in DATA["personal_objectives"]}
SB_NAMES = {o["id"]: o["name"] for o in DATA["summit_beta_tokens"]}
CLIMBING_NAMES = {o["id"]: o["name"] for o in DATA["climbing_cards"]}
PITCH_NAMES = {o["id"]: o["name"] for o in DATA["pitches"]}
KIND_NAMES = {o["id"]: o["name"] for o in DATA["asset_kinds"]}
