"""Checks on command-line arguments that every game's commands share."""
import math
import re

# numbers as a designer writes them: ASCII digits, a sign, a decimal point, an exponent.
# Python's int() and float() also take '1_0', ' 7 ', other scripts' digits ('２０', '١') and
# float() 'nan' and 'infinity', none of which a designer means as a count or a knob's value.
_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")
_DECIMAL_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def whole_number(text):
    """The int that `text` (a str, or a spec's int) writes as a whole number; None if it is
    not one. Every command-line count and every whole-number switch or knob is read by it."""
    text = str(text)
    if not _WHOLE_NUMBER.fullmatch(text):
        return None
    try:
        return int(text)
    except ValueError:        # beyond Python's 4,300 digits: no count or knob is that long
        return None


def decimal_number(text):
    """The float that `text` writes as a decimal number ('0.5', '2', '1e-3'); None if it is
    not one, or too large for a float ('1e999')."""
    text = str(text)
    if not _DECIMAL_NUMBER.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def refuse_repeats(flag, names, error):
    """A switch or knob given twice would let the last one win silently: raise `error`."""
    seen = set()
    for name in names:
        if name in seen:
            raise error(f"{flag}: {name} is given twice; give each once")
        seen.add(name)


def split_assignment(text, flag, error, last=False):
    """'NAME=VALUE' -> ('NAME', 'VALUE'). A knob path may hold '=' inside quotes
    ('gear."A=B".cost=3'), so knobs split at the last '=' (`last`), switches at the first."""
    if "=" not in text:
        raise error(f"{flag} {text!r}: expected NAME=VALUE")
    name, value = text.rsplit("=", 1) if last else text.split("=", 1)
    return name.strip(), value.strip()


def rule_changes(rule_args, set_args, error):
    """--rule and --set arguments -> ({switch: value}, [(knob path, value)]), each name once."""
    rules = [split_assignment(r, "--rule", error) for r in (rule_args or [])]
    refuse_repeats("--rule", [name for name, _ in rules], error)
    knobs = [split_assignment(k, "--set", error, last=True) for k in (set_args or [])]
    refuse_repeats("--set", [path for path, _ in knobs], error)
    return dict(rules), knobs
