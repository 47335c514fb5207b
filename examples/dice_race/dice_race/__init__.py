"""Dice Race: a push-your-luck race to a target score (the rules are in RULES.md beside this
package). Registered with ascent by the entry point in this folder's pyproject.toml."""
from sim.core.game import GameSpec

GAME = GameSpec.declared_in(__name__)      # game.toml, beside this file
