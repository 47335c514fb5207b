"""All-In Ascent policies. Importing this package registers every built-in policy."""
from policies.all_in_ascent import random_policy, greedy  # noqa: F401
