"""Recorded outcomes: a digest of 300 games per configuration (6 for the search bots), so that
no change to the engine, the kernel or a built-in bot alters a game without a test saying so.
When a change is meant to alter games, regenerate with
`python -m tests.all_in_ascent.test_regression --write` and say why in the commit.

The digest reads the final state through the named offsets of state.py (winner, end, round,
actions; each seat's XP, level, milestones, gear, endurance and stats), so adding state fields
does not change it; changing any game does."""
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from sim.games.all_in_ascent import state as S
from sim.games.all_in_ascent.batch import run_games
from sim.games.all_in_ascent.rules import build_rules

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "all_in_ascent_outcomes.json"
CONFIGURATIONS = {
    "v0.4.0 mixed bots": dict(preset="v0.4.0", seats=["greedy", "designers-heuristic", "planner",
                                                      "tuned"], seed=11),
    "v0.4.0 random, 3 players": dict(preset="v0.4.0", seats=["random"] * 3, seed=12),
    "v0.6.0 tuned": dict(preset="v0.6.0", seats=["tuned"] * 4, seed=13),
    # the planner's trial redistribution and the exact count of your-choice gear at its best
    # (probability._chosen_count), which the presets' games do not reach
    "v0.4.0 bots, redistribution and your-choice gear at best": dict(
        preset="v0.4.0", seats=["tuned", "greedy", "planner", "tuned"], seed=14,
        switches={"route_reader_redistribution": "on", "your_choice_gear": "best"}),
    # search bots at a small budget, a few games: tested in tests/test_mcts.py, which compiles
    # them anyway (the suite's workers split the tests by folder and file)
    "v0.4.0 search bots": dict(preset="v0.4.0", seats=["mcts-tuned@8", "mcts@8", "tuned",
                                                       "greedy"], seed=15, games=6),
}
SEARCH_CONFIGURATIONS = [name for name, c in CONFIGURATIONS.items()
                         if any("mcts" in seat for seat in c["seats"])]


def outcome_digest(final, n_players):
    cols = [final[:, S.G_WINNER], final[:, S.G_END_REASON], final[:, S.G_ROUND],
            final[:, S.G_N_ACTIONS]]
    for seat in range(n_players):
        b = S.player_offset(seat)
        for field in (S.P_XP, S.P_LEVEL, S.P_DONE, S.P_GEAR, S.P_ENDURANCE):
            cols.append(final[:, b + field])
        for s in range(S.N_STATS):
            cols.append(final[:, b + S.P_STATS + s] + final[:, b + S.P_TRAINING + s])
    return hashlib.sha256(np.stack(cols).astype(np.int64).tobytes()).hexdigest()


def digest_of(name):
    c = CONFIGURATIONS[name]
    batch = run_games(c.get("games", 300), c["seed"], len(c["seats"]), c["seats"],
                      characters="random",
                      rules=build_rules(c["preset"], switches=c.get("switches")))
    return outcome_digest(batch.final, len(c["seats"]))


@pytest.mark.parametrize("name", [n for n in CONFIGURATIONS if n not in SEARCH_CONFIGURATIONS])
def test_recorded_outcomes_are_unchanged(name):
    recorded = json.loads(FIXTURE.read_text())
    assert digest_of(name) == recorded[name], \
        f"{name}: games changed; if intended, regenerate the fixture (see this module's docstring)"


if __name__ == "__main__" and "--write" in sys.argv:
    FIXTURE.write_text(json.dumps({n: digest_of(n) for n in CONFIGURATIONS}, indent=1) + "\n")
    print(f"wrote {FIXTURE}")
