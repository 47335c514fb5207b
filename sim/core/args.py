"""Checks on command-line arguments that every game's commands share."""


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
