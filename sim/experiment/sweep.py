"""`ascent sweep`: how each knob moves the game.

A sweep is an experiment (sim/experiment/runner.py) whose variants differ from its baseline, the
current rules, in the swept knobs only. `ascent sweep` writes that experiment's spec into its
output folder as `sweep.toml`, so the folder resumes like any experiment (the same command, or
`ascent run OUT/sweep.toml`) and says exactly what was played.

Axes: a KEY with a dot is a data knob (`--set PATH=VALUE`, e.g.
characters.technician.passive.requirement_reduction); a KEY without one is a rule option
(`--rule NAME=VALUE`, e.g. Ascension's max_stack). Several axes are swept one at a time (each
on its own, the others at their current value) or, with `grid`, in every combination.

Every variant plays the baseline's games (same master seed, same game indices, same seatings),
so each value is compared with the current rules game by game (common random numbers). Whether
that pairing survives a knob depends on the game's random streams (GameSpec.random_streams): a
value that changes how many draws setup makes shifts every later draw of a single-stream game,
and its games are then no longer alike. The sweep report measures what pairing bought for every
value rather than assuming it.
"""
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from itertools import product
from pathlib import Path

from sim.experiment.spec import (is_rule_option, toml_string, variant_toml,
                                 write_spec_file)

MAX_VALUES = 60          # per axis: a longer list is a typo in a range, not a sweep
MAX_VARIANTS = 200       # a grid larger than this would take days; split it


class SweepError(ValueError):
    """Bad sweep arguments; the message names the flag."""


@dataclass(frozen=True)
class Axis:
    key: str            # a data knob path or a rule option name
    values: tuple       # value texts, in the order given

    @property
    def is_rule(self):
        return is_rule_option(self.key)

    @property
    def flag(self):
        return "--rule" if self.is_rule else "--set"


def parse_values(key, text):
    """'3,4,6' -> ('3', '4', '6')."""
    values = tuple(v.strip() for v in text.split(","))
    if not text.strip() or any(not v for v in values):
        raise SweepError(f"--values for {key}: expected comma-separated values such as 3,4,5, "
                         f"got {text!r}")
    return _checked(key, "--values", values)


def parse_range(key, text):
    """'lo:hi:step' -> every value from lo to hi (inclusive) in steps of step, in decimal
    arithmetic (0.1:0.3:0.1 gives 0.1, 0.2, 0.3, not 0.30000000000000004)."""
    parts = text.split(":")
    try:
        if len(parts) != 3:
            raise InvalidOperation
        lo, hi, step = (Decimal(p.strip()) for p in parts)
        if not all(x.is_finite() for x in (lo, hi, step)):
            raise InvalidOperation
    except InvalidOperation:
        raise SweepError(f"--range for {key}: expected LOW:HIGH:STEP such as 3:7:1, got "
                         f"{text!r}") from None
    if step <= 0 or hi < lo:
        raise SweepError(f"--range for {key}: expected LOW <= HIGH and STEP > 0, got {text!r}")
    count = int((hi - lo) / step) + 1
    if count > MAX_VALUES:
        raise SweepError(f"--range for {key}: {count} values; at most {MAX_VALUES} per knob")
    return _checked(key, "--range", tuple(_decimal_text(lo + k * step) for k in range(count)))


def _decimal_text(value):
    if value == value.to_integral_value():
        return str(int(value))
    return format(value.normalize(), "f")


def _checked(key, flag, values):
    if len(values) > MAX_VALUES:
        raise SweepError(f"{flag} for {key}: {len(values)} values; at most {MAX_VALUES} per knob")
    if len(set(values)) != len(values):
        raise SweepError(f"{flag} for {key}: each value once, got {', '.join(values)}")
    for v in values:
        # a value names a variant, and a variant names a folder
        if any(ch in "/\\\"" or ord(ch) < 32 for ch in v) or v.startswith("."):
            raise SweepError(f"{flag} for {key}: {v!r} cannot be a value here (no slashes, "
                             f"quotes, control characters or leading '.')")
    return values


def axes_from_arguments(knobs, levels):
    """--knob KEY, each followed by --values V,V or --range LO:HI:STEP -> Axis list. `levels`
    is [(kind, text)] in the order given."""
    if not knobs:
        raise SweepError("--knob: give at least one knob to sweep (see `ascent rules`)")
    if len(levels) != len(knobs):
        raise SweepError(f"--knob: {len(knobs)} knob(s) but {len(levels)} --values/--range; "
                         f"give one --values or --range after each --knob")
    if len(set(knobs)) != len(knobs):
        raise SweepError("--knob: each knob once")
    axes = []
    for key, (kind, text) in zip(knobs, levels):
        key = key.strip()
        if not key or "=" in key:
            raise SweepError(f"--knob: expected a knob path or rule name such as "
                             f"characters.technician.passive.requirement_reduction, got {key!r}")
        axes.append(Axis(key, parse_values(key, text) if kind == "values"
                         else parse_range(key, text)))
    return axes


def short_names(keys):
    """The shortest dotted suffix of each key that no other key shares: 'requirement_reduction',
    or 'technician.passive.requirement_reduction' when two knobs end alike."""
    parts = {k: _split_dotted(k) for k in keys}
    names = {}
    for k in keys:
        for n in range(1, len(parts[k]) + 1):
            name = ".".join(parts[k][-n:])
            if not any(o != k and ".".join(parts[o][-n:]) == name for o in keys):
                break
        names[k] = name.replace('"', "")
    return names


def _split_dotted(path):
    """Split at dots outside quotes: gear."Power Tap Belt".cost -> [gear, "Power Tap Belt",
    cost]."""
    out, cur, quoted = [], "", False
    for ch in path:
        if ch == '"':
            quoted = not quoted
        if ch == "." and not quoted:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + [cur]


@dataclass(frozen=True)
class SweepVariant:
    name: str
    setting: tuple      # ((key, value), ...): what this variant changes against the baseline


def sweep_variants(axes, grid):
    """One variant per value of each axis (the others at their current value), or with `grid`
    one per combination."""
    names = short_names([a.key for a in axes])
    if grid and len(axes) > 1:
        combos = list(product(*[[(a.key, v) for v in a.values] for a in axes]))
    else:
        combos = [((a.key, v),) for a in axes for v in a.values]
    if len(combos) > MAX_VARIANTS:
        raise SweepError(f"--grid: {len(combos)} combinations; at most {MAX_VARIANTS} (sweep "
                         f"fewer values, or the knobs one at a time)")
    return [SweepVariant(",".join(f"{names[k]}={v}" for k, v in combo), tuple(combo))
            for combo in combos]


def spec_text(game, players, games, seed, seat_policies, characters, preset, base_rules,
              base_knobs, variants, chunk, command_line, description, name="sweep"):
    """The experiment spec of a sweep (or of another generated experiment: `name`), as TOML
    (written into its own folder: `out` is that folder)."""
    lines = [f"# Written by: {command_line}",
             "# Resume with the same command, or with `ascent run` on this file.",
             f"name = {toml_string(name)}",
             f"description = {toml_string(description)}",
             f"game = {toml_string(game.name)}",
             f"players = [{', '.join(str(p) for p in players)}]",
             f"games = {games}",
             f"seed = {seed}",
             f"chunk = {chunk}",
             'out = "."']
    if len(set(seat_policies)) == 1:
        lines.append(f"policy = {toml_string(seat_policies[0])}")
    else:
        lines.append(f"seat_policies = [{', '.join(toml_string(p) for p in seat_policies)}]")
    if game.has_characters and characters != "random":
        lines.append(f"characters = [{', '.join(toml_string(c) for c in characters)}]")
    if preset is not None:
        lines.append(f"preset = {toml_string(preset)}")

    def variant_table(name, extra):
        rules = dict(base_rules)
        knobs = dict(base_knobs)
        for key, value in extra:
            (rules if is_rule_option(key) else knobs)[key] = value
        return variant_toml(name, rules, knobs)

    tables = [variant_table("baseline", ())] + [variant_table(v.name, v.setting)
                                                for v in variants]
    return "\n".join(lines) + "\n\n" + "\n\n".join(tables) + "\n"


def sweep_settings(identity, order):
    """From an experiment's identity: each variant's setting against the baseline
    ({variant: ((key, value), ...)}), in the spec's order. Refused (ValueError) if a variant
    changes anything else than knobs and rule options (another preset), or drops one."""
    variants = identity["variants"]
    base = variants.get("baseline")
    if base is None:
        raise ValueError("a sweep compares its values with a variant named 'baseline'; this "
                         "experiment has none")
    settings = {}
    for name in order:
        if name == "baseline":
            continue
        v = variants[name]
        if v.get("preset") != base.get("preset"):
            raise ValueError(f"variant {name!r} changes the preset: not a sweep of knobs")
        setting = []
        for table in ("rules", "set"):
            old, new = base.get(table, {}), v.get(table, {})
            if set(old) - set(new):
                raise ValueError(f"variant {name!r} drops {', '.join(sorted(set(old) - set(new)))}"
                                 f": not a sweep of knobs")
            setting += [(k, new[k]) for k in new if old.get(k) != new[k]]
        settings[name] = tuple(setting)
    return settings


def write_spec(out, text):
    """Write the sweep's spec into its folder and return its path. A folder that holds another
    sweep (other games: a different identity), or files that are not an experiment's, is
    refused; the same sweep with more games (or another command line) takes the new text."""
    from sim.experiment.spec import SpecError
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise SweepError(f"--out: {out} is a file, not a folder")
    path = out / "sweep.toml"
    if not path.exists() and out.exists() and any(out.iterdir()):
        raise SweepError(f"--out: {out} is not empty and holds no sweep; choose a new folder")
    try:
        written = write_spec_file(path, text)
    except SpecError as exc:
        raise SweepError(f"--out: {out} holds a sweep.toml that no longer reads ({exc}); "
                         f"choose another --out") from None
    if not written:
        raise SweepError(f"--out: {out} holds another sweep (its sweep.toml plays other "
                         f"games); choose another --out, or rerun that sweep's own command "
                         f"(first line of {path})")
    return path
