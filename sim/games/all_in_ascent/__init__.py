"""All-In Ascent: the designers' JavaScript engine v0.4.0, exactly (../shared/all-in-ascent/RULES.md),
with presets for later versions. Registered as a game through `GAME` (sim/core/game.py)."""
from sim.core.game import GameSpec

GAME = GameSpec(
    name="all-in-ascent",
    title="All-In Ascent",
    players=(1, 2, 3, 4),
    players_rule="R10",
    rules_source="../shared/all-in-ascent/RULES.md",
    adapter="sim.games.all_in_ascent.protocol",
    policy_modules=("policies.all_in_ascent",),
    # each game's default is its strongest bot a 2,000-game run can afford (results/LADDER.md,
    # ASCENSION.md, FIRST_ASCENT.md): a baseline such as greedy reports the bot, not the game
    default_policy="tuned",
    summary_columns=(("winner_seat", "rounds", "end_reason"), ("character", "won")),
    characters_rule="R10",
    presets=("v0.4.0", "v0.5.0", "v0.6.0"),     # rules.PRESETS (a test keeps them equal)
    data_files=True,
    rotate_seats=False,      # characters are seated at random per game (R10)
    bool_words=("on", "off"),
    replay_needs_characters=True,
    ladder_results="results/LADDER.md",
    ladder_module="sim.games.all_in_ascent.ladder",
    ladder_policies=("random", "greedy", "designers-heuristic", "planner", "tuned", "lookahead"),
    tuning_module="policies.all_in_ascent.tuning",
    benchmarks="results/benchmarks.json",
)
