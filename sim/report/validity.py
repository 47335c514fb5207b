"""Validity warnings: what in a run's own records says that a number may describe the bots, not
the game (principle 6). Every report shows them on its first screen, above the ranking.

Shared checks, for every game: games a bot ended with an illegal action, games stopped by a
cap without a winner (GameSpec.cap_end_reasons), and a tuned bot whose knobs were fitted under
other rules than the run's. A game adds its own through its adapter's optional
`validity_warnings(results)` (All-In Ascent: a character that never attempts its top
milestone; turns ended with time left. First Ascent: a character that never summits or never
scores a personal objective. Ascension: a bot that never reaches the summit).
"""
import json
from pathlib import Path

from sim.core.game import get_game


def _share(n, total):
    return f"{n:,} of {total:,} games ({100 * n / total:.1f}%)"


def policy_error_warning(games):
    n = int((games["end_reason"].astype(str) == "policy_error").sum())
    if not n:
        return None
    return (f"{_share(n, len(games))} ended because a bot returned an illegal action; their "
            f"outcomes are not the game's.")


def cap_warning(games, caps):
    reasons = games["end_reason"].astype(str)
    capped = reasons.isin(caps)
    n = int(capped.sum())
    if not n:
        return None
    which = ", ".join(sorted(set(reasons[capped])))
    return (f"{_share(n, len(games))} were stopped by a cap (end reason {which}) before anyone "
            f"won; win shares count decided games only, and a bot that stalls makes more of "
            f"them.")


def tuned_rules_warning(game, meta, policies):
    """The tuned bot's stored knobs name the rules they were fitted under; a run under other
    rules plays a bot tuned for another game."""
    if "tuned" not in policies or not game.tuning_module:
        return None
    fingerprint = meta.get("rules_fingerprint")
    if not fingerprint:
        return None
    import importlib
    try:
        path = Path(importlib.import_module(game.tuning_module).TUNED_PATH)
        records = json.loads(path.read_text()).get("characters", {})
    except (ImportError, AttributeError, OSError, ValueError):
        return None
    fitted = {key: rec.get("rules", "unrecorded rules") for key, rec in records.items()
              if rec.get("rules_fingerprint") not in (None, fingerprint)}
    if not fitted:
        return None
    under = sorted(set(fitted.values()))
    return (f"The tuned bot's knobs for {', '.join(sorted(fitted))} were fitted under "
            f"{', '.join(under)}, not under this run's rules: those characters are played by a "
            f"bot tuned for another game (re-tune with `ascent tune`).")


def never_warning(seats, group, column, label, what, least=100):
    """One warning per group value that sat in at least `least` games and never scored
    `column` (a per-seat count): e.g. a character that never reached a summit."""
    if column not in seats.columns or group not in seats.columns:
        return []
    per = seats.groupby(group, observed=True)[column].agg(["size", "sum"])
    return [f"{label(key)} never {what} in {int(row['size']):,} games: its numbers say how the "
            f"bot plays it, not what it can do." for key, row in per.iterrows()
            if row["size"] >= least and row["sum"] == 0]


def validity_warnings(r, policies):
    """Every warning that applies to the run `r` (analysis.Results) played by `policies`."""
    game = get_game(r.meta["game"])
    found = [policy_error_warning(r.games), cap_warning(r.games, game.cap_end_reasons),
             tuned_rules_warning(game, r.meta, policies)]
    own = getattr(game.api, "validity_warnings", None)
    if own is not None:
        found.extend(own(r))
    return [w for w in found if w]
