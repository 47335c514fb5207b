"""Dice Race: a push-your-luck race to a target score (the rules are in RULES.md beside this
package). Registered with ascent by the entry point in this folder's pyproject.toml."""
from sim.core.game import GameSpec

GAME = GameSpec(
    name="dice-race",
    title="Dice Race",
    players=(2, 3, 4),
    players_rule="D1",
    rules_source="examples/dice_race/RULES.md",
    adapter="dice_race.protocol",
    policy_modules=("dice_race.policies",),
    default_policy="hold-at",
    summary_columns=(("end_reason", "turns"), ("seat", "won")),
    strength_note="hold-at (bank at a turn total of 20) is the textbook heuristic; random "
                  "banks or rolls with even odds",
)
