"""One dialect for a game's rule options: each switch or knob declared once, with its type,
default, allowed values, rule citation and meaning; parsing, validation, the `ascent rules`
listing and the manifest's "what changed" all come from the declaration.

    OPTIONS = OptionTable("Dice Race", [
        Option("target", "int", 30, (10, 200), "D5", "score that wins on banking"),
        Option("mode", "choice", "fast", ("fast", "slow"), "D7", "..."),
    ])
    values = OPTIONS.parse({"target": "40"})      # GameError(option="rule") if not allowed
"""
import hashlib
import json
from dataclasses import dataclass

from sim.core.args import whole_number
from sim.core.game import GameError


@dataclass(frozen=True)
class Option:
    name: str
    kind: str              # "int" (allowed = (low, high)) or "choice" (allowed = the words)
    default: object
    allowed: tuple
    rule: str              # the rule it changes, cited in the listing and in errors
    meaning: str

    def parse(self, text):
        text = str(text).strip()
        if self.kind == "int":
            low, high = self.allowed
            value = whole_number(text)
            if value is None or not low <= value <= high:
                raise GameError(f"{self.name}: expected a whole number from {low} to {high} "
                                f"({self.rule}), got {text!r}", "rule")
            return value
        if text not in self.allowed:
            raise GameError(f"{self.name}: allowed {', '.join(self.allowed)} ({self.rule}); "
                            f"got {text!r}", "rule")
        return text

    def shown(self):
        if self.kind == "int":
            return f"int {self.allowed[0]}..{self.allowed[1]}, default {self.default}"
        return " | ".join([self.default] + [a for a in self.allowed if a != self.default])


class OptionTable:
    def __init__(self, title, options):
        self.title = title
        self.options = {o.name: o for o in options}

    def defaults(self):
        return {name: o.default for name, o in self.options.items()}

    def parse(self, changes):
        """{name: text} -> every option's value, the defaults filled in."""
        values = self.defaults()
        for name, text in changes.items():
            if name not in self.options:
                raise GameError(f"unknown {self.title} rule {name!r}; allowed: "
                                f"{', '.join(self.options)}", "rule")
            values[name] = self.options[name].parse(text)
        return values

    def changed(self, values):
        return {k: v for k, v in values.items() if self.options[k].default != v}

    def catalogue(self, source):
        lines = [f"{self.title} rule options ({source}); --rule NAME=VALUE, default first", ""]
        for o in self.options.values():
            lines.append(f"  {o.name:<14} {o.shown():<28} {o.rule}: {o.meaning}")
        return "\n".join(lines)


def table_defaults(options, kind_defaults):
    """A game's older option table {name: (allowed, rule, meaning)} -> {name: default}: the
    first allowed word, or for a named kind ("int", ...) kind_defaults[kind](name)."""
    return {name: kind_defaults[allowed](name) if isinstance(allowed, str) else allowed[0]
            for name, (allowed, _, _) in options.items()}


def describe_changed(meta):
    """A run's rules in a phrase, from the options its manifest lists as changed
    ("rules_changed"): 'target=40, bust_face=2', or 'default rules'."""
    changed = {k: v for k, v in (meta.get("rules_changed") or {}).items()
               if v not in ({}, [], None, "")}
    return ", ".join(f"{k}={v}" for k, v in changed.items()) if changed else "default rules"


def fingerprint(doc):
    """A short hash of a JSON-able description of everything the games read."""
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:16]
