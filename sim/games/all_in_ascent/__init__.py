"""All-In Ascent: the designers' JavaScript engine v0.4.0, exactly (../shared/all-in-ascent/RULES.md),
with presets for later versions. Registered as a game through `GAME` (sim/core/game.py)."""
from sim.core.game import GameSpec

GAME = GameSpec.declared_in(__name__)      # game.toml, beside this file
