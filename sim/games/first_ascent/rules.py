"""First Ascent's rule options (RULES.md "Decisions"), packed after the data tables.

Every option has the spec's recommended default first. `build_rules(players, {name: value})`
validates names and values and returns FirstAscentRules; its `.tables` is the one int64
vector the engine reads: the data tables (data.py T_*) followed by the options (C_*).
`readings=bga` switches every card-text contradiction of Decision 6 to BGA's reading at once;
a single option given as well overrides it.
"""
import hashlib
import json
from dataclasses import dataclass, field

import numpy as np

from sim.core.args import decimal_number, whole_number
from sim.core.layout import layout
from sim.games.first_ascent.data import CHARACTER_KEYS, TABLES, TABLES_SIZE


class RuleError(ValueError):
    """A rule option that does not exist, or a value it does not allow."""


# name -> (allowed values, default first | "int" | "odds" | "characters"), spec ref, meaning
OPTIONS = {
    "risk_die_odds": ("odds", "Decision 1 / F116",
                      "weights of check : -2 cards : -1 card -1 psych (default 1:1:1)"),
    "deck_runs_out": (("reshuffle_discard", "bga_never"), "Decision 2",
                      "an empty asset deck is rebuilt from the discard pile, or stays empty"),
    "summit_beta_runs_out": (("reshuffle_used", "lost"), "Decision 3",
                             "an empty Summit Beta supply is rebuilt from the used tokens"),
    "card_48b": (("gear", "crack"), "Decision 6 / F132", "Big scary roof B loses a gear card "
                 "(card text) or a crack card (BGA)"),
    "card_67a": (("others", "self"), "Decision 6 / F132",
                 "Crag dog A: the other players lose 1 psych (card text) or the active one (BGA)"),
    "permanent_objectives": (("text", "bga"), "Decision 6 / F102-F103",
                             "Stonemaster / Off-Width: 2 + 2 of the named types, or a sum >= 4"),
    "crag_mama": (("skill_unit", "any_unit"), "Decision 6 / F72",
                  "Crag Mama ignores a skill unit (card text) or any unit (BGA)"),
    "trifecta_objectives": (("every_type", "bga_crack_only"), "Decision 7 / F92-F99",
                            "The Trifecta counts for every type objective, or for Jolly "
                            "Jammer only"),
    "call_it_like_you_see_it": (("distinct_words", "any_pitches"), "Decision 8 / F105",
                                "personal objective 3 counts route words or listed pitches"),
    "phil_full_payment": (("leave_one_unpaid", "pay_then_roll"), "Decision 9 / F34",
                          "Phil with a full payment leaves a unit unpaid, or pays and rolls"),
    "jesus_piece_on_pitch_roll": (("false", "true"), "Decision 11 / F116e",
                                  "Jesus Piece may cancel a pitch Risk Die penalty"),
    "technique_sets": (("optimal", "bga_greedy"), "Decision 13 / F49",
                       "technique sets: the most sets with the fewest tokens, or BGA's greedy"),
    "round_cap": ("int", "Decision 19 / F53", "rounds before the game stops (default 30)"),
    "psych_given": (("gained", "lost"), "Decision 29 / F116d",
                    "the psych of -1 card -1 psych goes to the opponent, or is lost"),
    "phil_nothing_to_pay": (("rolls", "climbs"), "Decision 30 / F125",
                            "Phil with nothing left to pay still rolls, or just climbs"),
    "stranded_table": (("ends", "play_to_cap"), "Decision 31 / F127",
                       "the game ends when nobody can move, or plays on to the round cap"),
    "crimper_choice": (("must_resolve", "free"), "Decision 32 / F128",
                       "Cool-Headed Crimper must pick a resolvable card, or picks freely"),
    "risk_with_tokens": (("false", "true"), "Decision 33 / F123",
                         "a player who could pay in full with a Summit Beta token may risk"),
    "spread_refill": (("once", "each_card"), "Decision 24 / F120",
                      "a draw of several cards refills the Spread once, or after each card"),
    "summit_bonus": (("each_summit", "once"), "Decision 36 / F35",
                     "+1 for each summit hex entered, or once per player"),
    "abilities_off": ("characters", "experiments",
                      "comma-separated character keys whose ability is switched off "
                      "(none by default)"),
}
BOOL_OPTIONS = ("jesus_piece_on_pitch_roll", "risk_with_tokens")
INT_RANGES = {"round_cap": (1, 1000)}
INT_DEFAULTS = {"round_cap": 30}
BGA_READINGS = {"card_48b": "crack", "card_67a": "self", "permanent_objectives": "bga",
                "crag_mama": "any_unit", "trifecta_objectives": "bga_crack_only"}
ODDS_SCALE = 1 << 20

_C, RULES_SIZE = layout((("N_PLAYERS", 1), ("ODDS", 3), ("DECK_NEVER", 1), ("SB_LOST", 1),
                    ("CARD_48B_CRACK", 1), ("CARD_67A_SELF", 1), ("PERM_OBJ_BGA", 1),
                    ("CRAG_MAMA_ANY", 1), ("TRIFECTA_BGA", 1), ("CALL_IT_PITCHES", 1),
                    ("PHIL_PAY_THEN_ROLL", 1), ("JESUS_ON_PITCH", 1), ("SETS_GREEDY", 1),
                    ("ROUND_CAP", 1), ("PSYCH_LOST", 1), ("PHIL_NOTHING_CLIMBS", 1),
                    ("STRANDED_PLAY_ON", 1), ("CRIMPER_FREE", 1), ("RISK_WITH_TOKENS", 1),
                    ("SPREAD_EACH", 1), ("SUMMIT_ONCE", 1), ("ABILITY_OFF", 1)), TABLES_SIZE)
C_N_PLAYERS = _C["N_PLAYERS"]
C_ODDS = _C["ODDS"]
C_DECK_NEVER = _C["DECK_NEVER"]
C_SB_LOST = _C["SB_LOST"]
C_CARD_48B_CRACK = _C["CARD_48B_CRACK"]
C_CARD_67A_SELF = _C["CARD_67A_SELF"]
C_PERM_OBJ_BGA = _C["PERM_OBJ_BGA"]
C_CRAG_MAMA_ANY = _C["CRAG_MAMA_ANY"]
C_TRIFECTA_BGA = _C["TRIFECTA_BGA"]
C_CALL_IT_PITCHES = _C["CALL_IT_PITCHES"]
C_PHIL_PAY_THEN_ROLL = _C["PHIL_PAY_THEN_ROLL"]
C_JESUS_ON_PITCH = _C["JESUS_ON_PITCH"]
C_SETS_GREEDY = _C["SETS_GREEDY"]
C_ROUND_CAP = _C["ROUND_CAP"]
C_PSYCH_LOST = _C["PSYCH_LOST"]
C_PHIL_NOTHING_CLIMBS = _C["PHIL_NOTHING_CLIMBS"]
C_STRANDED_PLAY_ON = _C["STRANDED_PLAY_ON"]
C_CRIMPER_FREE = _C["CRIMPER_FREE"]
C_RISK_WITH_TOKENS = _C["RISK_WITH_TOKENS"]
C_SPREAD_EACH = _C["SPREAD_EACH"]
C_SUMMIT_ONCE = _C["SUMMIT_ONCE"]
C_ABILITY_OFF = _C["ABILITY_OFF"]            # bit character id

_FLAG_OFFSETS = {
    "deck_runs_out": C_DECK_NEVER, "summit_beta_runs_out": C_SB_LOST, "card_48b": C_CARD_48B_CRACK,
    "card_67a": C_CARD_67A_SELF, "permanent_objectives": C_PERM_OBJ_BGA,
    "crag_mama": C_CRAG_MAMA_ANY, "trifecta_objectives": C_TRIFECTA_BGA,
    "call_it_like_you_see_it": C_CALL_IT_PITCHES, "phil_full_payment": C_PHIL_PAY_THEN_ROLL,
    "jesus_piece_on_pitch_roll": C_JESUS_ON_PITCH, "technique_sets": C_SETS_GREEDY,
    "psych_given": C_PSYCH_LOST, "phil_nothing_to_pay": C_PHIL_NOTHING_CLIMBS,
    "stranded_table": C_STRANDED_PLAY_ON, "crimper_choice": C_CRIMPER_FREE,
    "risk_with_tokens": C_RISK_WITH_TOKENS, "spread_refill": C_SPREAD_EACH,
    "summit_bonus": C_SUMMIT_ONCE,
}


def default_values():
    from sim.core.options import table_defaults
    return table_defaults(OPTIONS, {"int": lambda name: str(INT_DEFAULTS[name]),
                                    "odds": lambda name: "1:1:1",
                                    "characters": lambda name: "none"})


def _parse_odds(value):
    weights = [decimal_number(p) for p in value.split(":")]
    if len(weights) != 3 or any(w is None or w < 0 for w in weights) or \
            sum(weights) <= 0:
        raise RuleError(f"risk_die_odds: expected three non-negative weights CHECK:MINUS2:MINUS1 "
                        f"with a positive sum (e.g. 1:1:1 or 2:1:1), got {value!r}")
    total = sum(weights)
    scaled = [int(round(w / total * ODDS_SCALE)) for w in weights]
    scaled[0] = ODDS_SCALE - scaled[1] - scaled[2]
    if any(w > 0 and x <= 0 for w, x in zip(weights, scaled)):
        raise RuleError(f"risk_die_odds: a face's weight is positive but below 1/{ODDS_SCALE:,} "
                        f"of the sum, which the die cannot roll; got {value!r} (use 0 to "
                        f"remove a face)")
    return scaled


def _parse_characters(value):
    """abilities_off -> a bit per character id."""
    if value == "none":
        return 0
    keys = {v: k for k, v in CHARACTER_KEYS.items()}
    mask = 0
    # '' had meant none, recorded as '' (another fingerprint than the defaults' for the same
    # rules); an empty or repeated item is a slip too
    for key in value.split(","):
        key = key.strip()
        if key not in keys:
            raise RuleError(f"abilities_off: unknown character {key!r}; allowed: none or "
                            f"{', '.join(sorted(keys))}")
        if mask & (1 << keys[key]):
            raise RuleError(f"abilities_off: {key!r} is listed twice")
        mask |= 1 << keys[key]
    return mask


def _characters_written_once(value):
    """abilities_off as it is recorded: the same characters are the same rules, so one spelling
    (the data's order, no spaces) and one fingerprint, however they were listed."""
    mask = _parse_characters(value)
    if not mask:
        return "none"
    return ",".join(key for i, key in sorted(CHARACTER_KEYS.items()) if (mask >> i) & 1)


def _knobs_without_effect(values, knobs):
    """A knob on a character whose ability abilities_off switches off is never read: such a
    character reads as one without an ability, its permanent thresholds 4 (engine.common.ch).
    Refused rather than silently dropped."""
    off = set(values["abilities_off"].split(",")) - {"none"}
    for path, text in knobs:
        parts = str(path).split(".")
        if parts[0] == "characters" and len(parts) >= 4 and parts[1] in off and \
                parts[2] in ("ability", "permanent_threshold"):
            from sim.games.first_ascent.knobs import KnobError
            raise KnobError(f"{path}={str(text).strip()}: has no effect while abilities_off "
                            f"lists {parts[1]} (a character with its ability off has none, and "
                            f"permanent thresholds of 4); drop the knob or take {parts[1]} out "
                            f"of abilities_off")


@dataclass
class FirstAscentRules:
    players: int
    values: dict
    tables: np.ndarray = field(repr=False)
    knobs: tuple = ()                 # (path, value) data knobs (knobs.py), in the order given

    def as_dict(self):
        return {"players": self.players, **self.values,
                **({"knobs": dict(self.knobs)} if self.knobs else {})}

    def changed(self):
        base = default_values()
        return {**{k: v for k, v in self.values.items() if base[k] != v}, **dict(self.knobs)}

    @property
    def fingerprint(self):
        return hashlib.sha256(json.dumps(self.as_dict(), sort_keys=True).encode()).hexdigest()[:16]


def build_rules(players, changes=None, knobs=()):
    """Validated rules for `players` seats: rule options `changes` ({name: value}) over the
    defaults, and data knobs ([(path, value)], knobs.py) on the characters and cards."""
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or \
            not 2 <= players <= 5:
        raise RuleError(f"players: First Ascent is for 2 to 5 players (F1), got {players!r}")
    changes = dict(changes or {})
    values = default_values()
    if "readings" in changes:
        reading = changes.pop("readings")
        if reading not in ("card_text", "bga"):
            raise RuleError(f"readings: allowed card_text or bga, got {reading!r}")
        if reading == "bga":
            values.update(BGA_READINGS)
    for name, value in changes.items():
        if name not in OPTIONS:
            raise RuleError(f"unknown First Ascent rule {name!r}; allowed: readings, "
                            f"{', '.join(OPTIONS)}")
        allowed = OPTIONS[name][0]
        if isinstance(value, (bool, np.bool_)):       # TOML's true and false
            value = "true" if value else "false"
        # written as allowed: 'GEAR' for gear is refused, as every other game's options do
        value = str(value).strip() if allowed not in ("characters",) else str(value)
        if allowed == "int":
            lo, hi = INT_RANGES[name]
            number = whole_number(value)
            if number is None or not lo <= number <= hi:
                raise RuleError(f"{name}: expected an integer from {lo} to {hi}, got {value!r}")
            value = str(number)
        elif allowed == "odds":
            _parse_odds(value)
        elif allowed == "characters":
            value = _characters_written_once(value)
        elif value not in allowed:
            raise RuleError(f"{name}: allowed {', '.join(allowed)}; got {value!r}")
        values[name] = value
    t = np.zeros(RULES_SIZE, np.int64)
    if knobs:
        from sim.games.first_ascent.knobs import tables_with_knobs
        t[:TABLES_SIZE] = tables_with_knobs(knobs)     # KnobError, a RuleError
        _knobs_without_effect(values, knobs)
    else:
        t[:TABLES_SIZE] = TABLES
    t[C_N_PLAYERS] = players
    t[C_ODDS:C_ODDS + 3] = _parse_odds(values["risk_die_odds"])
    for name, off in _FLAG_OFFSETS.items():
        t[off] = 0 if values[name] == OPTIONS[name][0][0] else 1
    t[C_ROUND_CAP] = int(values["round_cap"])
    t[C_ABILITY_OFF] = _parse_characters(values["abilities_off"])
    return FirstAscentRules(int(players), values, t, tuple((k, str(v)) for k, v in knobs))


def default_rules(players=4):
    return build_rules(players)


def catalogue():
    lines = ["First Ascent rule options (../shared/first-ascent/RULES.md, Decisions); "
             "default first", "",
             "  readings                    card_text | bga   (sets every Decision 6 "
             "contradiction to BGA's reading)"]
    for name, (allowed, ref, meaning) in OPTIONS.items():
        shown = {"int": f"int, default {INT_DEFAULTS.get(name)}", "odds": "W:W:W, default 1:1:1",
                 "characters": "none | key,key,..."}.get(allowed) if isinstance(allowed, str) \
            else " | ".join(allowed)
        lines.append(f"  {name:<27} {shown:<38} {ref}: {meaning}")
    lines.append("")
    lines.append("characters: " + ", ".join(CHARACTER_KEYS[i] for i in sorted(CHARACTER_KEYS)))
    return "\n".join(lines)
