"""Checks on command-line arguments that every game's commands share."""


def refuse_repeats(flag, names, error):
    """A switch or knob given twice would let the last one win silently: raise `error`."""
    seen = set()
    for name in names:
        if name in seen:
            raise error(f"{flag}: {name} is given twice; give each once")
        seen.add(name)
