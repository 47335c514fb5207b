"""First Ascent (2022): the hex-wall climbing card game of ../shared/first-ascent/RULES.md.
Registered as a game through `GAME` (sim/core/game.py)."""
from sim.core.game import GameSpec

GAME = GameSpec(
    name="first-ascent",
    title="First Ascent",
    players=(2, 3, 4, 5),
    players_rule="F1",
    rules_source="../shared/first-ascent/RULES.md",
    adapter="sim.games.first_ascent.protocol",
    policy_modules=("policies.first_ascent",),
    default_policy="tuned",
    summary_columns=(("end_reason", "rounds"), ("character", "won", "score")),
    characters_rule="F22",
    tuning_module="policies.first_ascent.tuning",
    strength_note="results/FIRST_ASCENT.md compares its bots (planner beats greedy, tuned "
                  "beats planner for 10 of 12 characters); there is no full skill ladder yet",
)
