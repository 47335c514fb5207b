"""Bot policies, registered by game and name (see policies/README.md)."""
