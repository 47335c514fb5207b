"""First Ascent (2022): the hex-wall climbing card game of ../shared/first-ascent/RULES.md.
Registered as a game through `GAME` (sim/core/game.py)."""
from sim.core.game import GameSpec

GAME = GameSpec.declared_in(__name__)      # game.toml, beside this file
