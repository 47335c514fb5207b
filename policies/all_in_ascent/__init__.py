"""All-In Ascent policies. Importing this package registers every built-in policy."""
from policies.all_in_ascent import (  # noqa: F401
    designers_heuristic, greedy, lookahead, mcts, planner, random_policy, tuned)
