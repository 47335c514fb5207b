"""Ascension (1982): the abstract cube-stacking race of ../shared/ascension/RULES.md.
Registered as a game through `GAME` (sim/core/game.py)."""
from sim.core.game import GameSpec

GAME = GameSpec(
    name="ascension",
    title="Ascension",
    players=(2, 3, 4),
    players_rule="A1",
    rules_source="../shared/ascension/RULES.md",
    adapter="sim.games.ascension.protocol",
    policy_modules=("policies.ascension",),
    default_policy="hybrid",
    summary_columns=(("end_reason", "turns"), ("seat", "won")),
    strength_note="results/ASCENSION.md compares its bots head to head (hybrid, the strongest, "
                  "beats stair-builder in mixed games); there is no full skill ladder yet",
)
