"""First Ascent's built-in policies (importing this module registers them)."""
from policies.first_ascent import greedy, random_policy  # noqa: F401
