"""Ascension's rule switches (RULES.md §5) and balance knobs, packed into one int64 vector.

Every switch of §5 is here under its spec name, with its default first among the allowed
values. `build_rules(players, {"name": "value", ...})` validates the names and values and
returns AscensionRules; its `.config` is what the numba engine reads (C_* offsets below).
A bad name or value raises RuleError naming the switch and what is allowed.
"""
import hashlib
import json
from dataclasses import dataclass, field

import numpy as np

from sim.core.args import whole_number
from sim.core.layout import layout
from sim.games.ascension.state import (
    CORNERS, MAX_STACK_CAP, N_PIECES, P_SHAPES_DRAWN, P_SYMBOL_DRAWN, SPECIAL_SYMBOLS,
    SYMBOL_NAMES)


class RuleError(ValueError):
    """A rule switch or knob that does not exist, or a value it does not allow."""


BOOL = ("true", "false")

# name -> (allowed values, default first; or "int" ranges), spec reference, one-line meaning.
SWITCHES = {
    "two_player_corners": (("opposite", "adjacent"), "D1", "2 players: seat 1 on corner 2 or 1"),
    "pawn_pins_stack": (("true", "false"), "D3/A12b/A21",
                        "a pawn pins its square: no piece taken from under it or put on it"),
    "allow_flip_in_place": (("false", "true"), "D4/A20/A56",
                            "a piece may go back on its own square if turned over"),
    "corner_place_anyone": (("false", "true"), "D10/A23",
                            "anyone may start a stack on a bare corner"),
    "corner_safe_always": (("true", "false"), "D12/A39",
                           "false: the own corner is safe only until the pawn first leaves"),
    "corner_may_wait": (("false", "true"), "D13/A28", "a pawn on its own corner may stay"),
    "pillar_piece_movable": (("true", "false"), "D17/A12e", "the pillar piece may be moved away"),
    "mattress_mode": (("onto", "from"), "D20/A30",
                      "2-hu drop onto a mattress, or from one"),
    "spring_bonus": (("step", "full_turn"), "D21/A34", "the spring gives a step or a whole turn"),
    "bivouac_mode": (("forced", "optional"), "D23/A35", "the bivouac stay is forced or optional"),
    "joker_extra_move": (("false", "true"), "D26/A57",
                         "the joker is placed in addition to the piece move"),
    "joker_on_loss": (("pass", "retire"), "D28/A42", "the joker passes on, or is gone for good"),
    "privilege_transfer": (("earliest_holder", "next_arrival", "none"), "D29/A42",
                           "who takes the first summiter's privileges after a block"),
    "privilege_reclaimable": (("true", "false"), "D29/A40",
                              "a seat that lost the privileges may win them back"),
    "extra_turn_block_permanent": (("false", "true"), "D30/A44",
                                   "a summiter stops extra turns even after being blocked"),
    "last_pawn_wins": (("false", "true"), "D32/A46", "the last active seat wins at once"),
    "max_turns": ("int", "D33/A47", "turn cap, counting every turn (default 200 x players)"),
    "max_stack": ("int", "D34/A24", f"pieces per square, 1..{MAX_STACK_CAP} (default 16)"),
    "partnership": (("false", "true"), "D35/A48", "2 v 2: seats 0+2 against 1+3 (4 players)"),
    "pillar_hidden_special": (("allow", "bar"), "D38/A59",
                              "whether a face-down symbol cube may raise the pillar"),
}
KNOBS = {
    "extra_turns_enabled": (("true", "false"), "§5 knobs", "the first summiter's extra turns"),
    "joker_enabled": (("true", "false"), "§5 knobs", "false: the joker is gone from setup"),
    "specials_enabled": ("symbols", "§5 knobs",
                         "comma-separated symbols kept (all, none, or e.g. ladder,spring); "
                         "a disabled special is a neutral cube"),
    "reserve_shaped": ("int", "§5 knobs", "shaped half-cubes per reserve, 0..2 (default 2)"),
    "reserve_neutral": ("int", "§5 knobs", "neutral half-cubes per reserve, 0..2 (default 2)"),
}
INT_RANGES = {"max_turns": (1, 1_000_000), "max_stack": (1, MAX_STACK_CAP),
              "reserve_shaped": (0, 2), "reserve_neutral": (0, 2)}
INT_DEFAULTS = {"max_stack": 16, "reserve_shaped": 2, "reserve_neutral": 2}

_C, CONFIG_SIZE = layout((
        ("N_PLAYERS", 1), ("TWO_PLAYER_ADJACENT", 1), ("PAWN_PINS", 1), ("FLIP_IN_PLACE", 1),
        ("CORNER_PLACE_ANYONE", 1), ("CORNER_SAFE_ALWAYS", 1), ("CORNER_MAY_WAIT", 1),
        ("PILLAR_PIECE_MOVABLE", 1), ("MATTRESS_FROM", 1), ("SPRING_FULL_TURN", 1),
        ("BIVOUAC_OPTIONAL", 1), ("JOKER_EXTRA_MOVE", 1), ("JOKER_RETIRE", 1),
        ("PRIV_TRANSFER", 1), ("PRIV_RECLAIMABLE", 1), ("EXTRA_BLOCK_PERMANENT", 1),
        ("LAST_PAWN_WINS", 1), ("MAX_TURNS", 1), ("MAX_STACK", 1), ("PARTNERSHIP", 1),
        ("PILLAR_BAR_HIDDEN_SPECIAL", 1), ("EXTRA_TURNS", 1), ("JOKER_ENABLED", 1),
        ("SPECIALS_MASK", 1), ("RESERVE_SHAPED", 1), ("RESERVE_NEUTRAL", 1),
        ("CORNER_OF", 4), ("SHAPE_OF", 4), ("P_SHAPES", N_PIECES), ("P_SYMBOL", N_PIECES)))
C_N_PLAYERS = _C["N_PLAYERS"]
C_PAWN_PINS = _C["PAWN_PINS"]
C_FLIP_IN_PLACE = _C["FLIP_IN_PLACE"]
C_CORNER_PLACE_ANYONE = _C["CORNER_PLACE_ANYONE"]
C_CORNER_SAFE_ALWAYS = _C["CORNER_SAFE_ALWAYS"]
C_CORNER_MAY_WAIT = _C["CORNER_MAY_WAIT"]
C_PILLAR_PIECE_MOVABLE = _C["PILLAR_PIECE_MOVABLE"]
C_MATTRESS_FROM = _C["MATTRESS_FROM"]
C_SPRING_FULL_TURN = _C["SPRING_FULL_TURN"]
C_BIVOUAC_OPTIONAL = _C["BIVOUAC_OPTIONAL"]
C_JOKER_EXTRA_MOVE = _C["JOKER_EXTRA_MOVE"]
C_JOKER_RETIRE = _C["JOKER_RETIRE"]
C_PRIV_TRANSFER = _C["PRIV_TRANSFER"]
C_PRIV_RECLAIMABLE = _C["PRIV_RECLAIMABLE"]
C_EXTRA_BLOCK_PERMANENT = _C["EXTRA_BLOCK_PERMANENT"]
C_LAST_PAWN_WINS = _C["LAST_PAWN_WINS"]
C_MAX_TURNS = _C["MAX_TURNS"]
C_MAX_STACK = _C["MAX_STACK"]
C_PARTNERSHIP = _C["PARTNERSHIP"]
C_PILLAR_BAR_HIDDEN_SPECIAL = _C["PILLAR_BAR_HIDDEN_SPECIAL"]
C_EXTRA_TURNS = _C["EXTRA_TURNS"]
C_JOKER_ENABLED = _C["JOKER_ENABLED"]
C_SPECIALS_MASK = _C["SPECIALS_MASK"]
C_RESERVE_SHAPED = _C["RESERVE_SHAPED"]
C_RESERVE_NEUTRAL = _C["RESERVE_NEUTRAL"]
C_CORNER_OF = _C["CORNER_OF"]
C_SHAPE_OF = _C["SHAPE_OF"]
C_P_SHAPES = _C["P_SHAPES"]
C_P_SYMBOL = _C["P_SYMBOL"]

PRIV_EARLIEST, PRIV_NEXT_ARRIVAL, PRIV_NONE = 0, 1, 2


@dataclass(frozen=True)
class AscensionRules:
    players: int
    values: dict                      # every switch and knob, as strings/ints, defaults filled
    config: np.ndarray = field(repr=False)

    @property
    def fingerprint(self):
        return hashlib.sha256(self.config.tobytes()).hexdigest()[:16]

    def changed(self):
        """The switches and knobs that differ from the defaults."""
        base = default_values(self.players)
        return {k: v for k, v in self.values.items() if base[k] != v}

    def as_dict(self):
        return {"players": self.players, **self.values}


def default_values(players):
    from sim.core.options import table_defaults
    return table_defaults({**SWITCHES, **KNOBS}, {
        "int": lambda name: 200 * players if name == "max_turns" else INT_DEFAULTS[name],
        "symbols": lambda name: "all"})


def _parse_symbols(text):
    allowed = f"allowed: {', '.join(SPECIAL_SYMBOLS)}, 'all' or 'none'"
    text = text.strip()
    if text == "all":
        return list(SPECIAL_SYMBOLS)
    if text == "none":
        return []
    # an empty list, or an empty or repeated item, is a slip: '' had meant none, every
    # special off without a word
    names = [s.strip() for s in text.split(",")]
    for s in names:
        if s not in SPECIAL_SYMBOLS:
            raise RuleError(f"specials_enabled: unknown symbol {s!r}; {allowed}")
        if names.count(s) > 1:
            raise RuleError(f"specials_enabled: {s!r} is listed twice")
    return names


def build_rules(players, changes=None):
    """Validated rules for `players` seats with `changes` ({name: value}) over the defaults."""
    if players not in (2, 3, 4):
        raise RuleError(f"players must be 2, 3 or 4 (A1), got {players}")
    values = default_values(players)
    catalogue = {**SWITCHES, **KNOBS}
    for name, raw in (changes or {}).items():
        if name not in catalogue:
            raise RuleError(f"unknown Ascension rule switch {name!r}; allowed: "
                            f"{', '.join(catalogue)}")
        allowed = catalogue[name][0]
        text = str(raw).strip().lower() if not isinstance(raw, bool) else str(raw).lower()
        if allowed == "int":
            value = whole_number(text)
            if value is None:
                raise RuleError(f"{name}: expected a whole number, got {raw!r}")
            lo, hi = INT_RANGES[name]
            if not lo <= value <= hi:
                raise RuleError(f"{name}: {value} is outside {lo}..{hi}")
            values[name] = value
        elif allowed == "symbols":
            kept = _parse_symbols(text)
            values[name] = "all" if len(kept) == len(SPECIAL_SYMBOLS) \
                else (",".join(kept) or "none")
        else:
            if text not in allowed:
                raise RuleError(f"{name}: {raw!r} is not allowed; allowed: {', '.join(allowed)}")
            values[name] = text
    if values["partnership"] == "true" and players != 4:
        raise RuleError(f"partnership: needs 4 players (A48), got {players}")
    return AscensionRules(players, values, _pack(players, values))


def _pack(players, v):
    c = np.zeros(CONFIG_SIZE, np.int64)
    c[C_N_PLAYERS] = players
    c[_C["TWO_PLAYER_ADJACENT"]] = v["two_player_corners"] == "adjacent"
    c[C_PAWN_PINS] = v["pawn_pins_stack"] == "true"
    c[C_FLIP_IN_PLACE] = v["allow_flip_in_place"] == "true"
    c[C_CORNER_PLACE_ANYONE] = v["corner_place_anyone"] == "true"
    c[C_CORNER_SAFE_ALWAYS] = v["corner_safe_always"] == "true"
    c[C_CORNER_MAY_WAIT] = v["corner_may_wait"] == "true"
    c[C_PILLAR_PIECE_MOVABLE] = v["pillar_piece_movable"] == "true"
    c[C_MATTRESS_FROM] = v["mattress_mode"] == "from"
    c[C_SPRING_FULL_TURN] = v["spring_bonus"] == "full_turn"
    c[C_BIVOUAC_OPTIONAL] = v["bivouac_mode"] == "optional"
    c[C_JOKER_EXTRA_MOVE] = v["joker_extra_move"] == "true"
    c[C_JOKER_RETIRE] = v["joker_on_loss"] == "retire"
    c[C_PRIV_TRANSFER] = ("earliest_holder", "next_arrival", "none").index(v["privilege_transfer"])
    c[C_PRIV_RECLAIMABLE] = v["privilege_reclaimable"] == "true"
    c[C_EXTRA_BLOCK_PERMANENT] = v["extra_turn_block_permanent"] == "true"
    c[C_LAST_PAWN_WINS] = v["last_pawn_wins"] == "true"
    c[C_MAX_TURNS] = v["max_turns"]
    c[C_MAX_STACK] = v["max_stack"]
    c[C_PARTNERSHIP] = v["partnership"] == "true"
    c[C_PILLAR_BAR_HIDDEN_SPECIAL] = v["pillar_hidden_special"] == "bar"
    c[C_EXTRA_TURNS] = v["extra_turns_enabled"] == "true"
    c[C_JOKER_ENABLED] = v["joker_enabled"] == "true"
    kept = _parse_symbols(v["specials_enabled"])
    mask = 0
    for s in kept:
        mask |= 1 << SYMBOL_NAMES.index(s)
    c[C_SPECIALS_MASK] = mask
    c[C_RESERVE_SHAPED] = v["reserve_shaped"]
    c[C_RESERVE_NEUTRAL] = v["reserve_neutral"]
    # A1 / D1: seat -> corner
    corners = [0, 1, 2, 3][:players]
    if players == 2:
        corners = [0, 1] if v["two_player_corners"] == "adjacent" else [0, 2]
    for seat in range(4):
        k = corners[seat] if seat < players else -1
        c[C_CORNER_OF + seat] = CORNERS[k] if k >= 0 else -1
        c[C_SHAPE_OF + seat] = (1 << k) if k >= 0 else 0
    # specials_enabled: a disabled special is a neutral cube (no drawn face at all)
    for x in range(N_PIECES):
        sym = P_SYMBOL_DRAWN[x]
        keep = sym == 0 or sym == 7 or (mask >> sym) & 1
        c[C_P_SHAPES + x] = P_SHAPES_DRAWN[x]
        c[C_P_SYMBOL + x] = sym if keep else 0
    return c


def default_rules(players):
    return build_rules(players)


def catalogue():
    """The switches and knobs as text, for `ascent rules --game ascension`."""
    lines = ["Ascension rule switches (RULES.md §5; default first):"]
    for name, (allowed, ref, meaning) in SWITCHES.items():
        shown = "integer" if allowed == "int" else " | ".join(allowed)
        lines.append(f"  {name:<28} {shown:<40} {ref:<12} {meaning}")
    lines.append("Balance knobs:")
    for name, (allowed, ref, meaning) in KNOBS.items():
        words = {"int": "integer", "symbols": "symbol list"}
        shown = words[allowed] if isinstance(allowed, str) else " | ".join(allowed)
        lines.append(f"  {name:<28} {shown:<40} {ref:<12} {meaning}")
    return "\n".join(lines)


def rules_json(rules):
    return json.dumps(rules.as_dict(), sort_keys=True)
