"""Ascension policies (RULES.md §7). Importing this package registers every built-in policy."""
from policies.ascension import mcts, random_policy, strategic  # noqa: F401
