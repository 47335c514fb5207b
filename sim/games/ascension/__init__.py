"""Ascension (1982): the abstract cube-stacking race of ../shared/ascension/RULES.md.
Registered as a game through `GAME` (sim/core/game.py)."""
from sim.core.game import GameSpec

GAME = GameSpec.declared_in(__name__)      # game.toml, beside this file
