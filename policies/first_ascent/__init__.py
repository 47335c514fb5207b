"""First Ascent's built-in policies (importing this module registers them)."""
from policies.first_ascent import greedy, mcts, planner, random_policy, tuned  # noqa: F401
