"""All-In Ascent policies. Importing this package registers every built-in policy."""
from policies.all_in_ascent import random_policy, greedy, designers_heuristic  # noqa: F401
