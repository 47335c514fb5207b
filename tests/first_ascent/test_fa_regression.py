"""Recorded outcomes: a digest of 200 First Ascent games per configuration (4 for the search
bots), so that no change to the engine, the kernel or a built-in bot alters a game without a
test saying so. When a change is meant to alter games, regenerate with
`python tests/first_ascent/test_fa_regression.py --write` and say why in the commit.

The digest reads the record through state.py's named offsets (winners, end, round, decisions;
each seat's character, score and its parts, route, permanent tokens, tracks), so adding state
fields does not change it; changing any game does."""
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from sim.games.first_ascent import state as S
from sim.games.first_ascent.batch import run_games
from sim.games.first_ascent.rules import build_rules

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "first_ascent_outcomes.json"
CONFIGURATIONS = {
    "random, 3 players": dict(players=3, seats=["random"] * 3, rules={}, seed=21),
    "greedy and planner, 4 players": dict(players=4, seats=["greedy", "planner"] * 2, rules={},
                                          seed=22),
    "tuned, 5 players, BGA readings": dict(players=5, seats=["tuned"] * 5,
                                           rules={"readings": "bga"}, seed=23),
    "planner, 2 players, uneven die": dict(players=2, seats=["planner"] * 2,
                                           rules={"risk_die_odds": "1:2:1"}, seed=24),
    "search bots, 3 players": dict(players=3, seats=["mcts-tuned@4", "mcts@4", "planner"],
                                   rules={}, seed=25, games=4),
}
SEAT_FIELDS = (S.S_CHAR, S.S_SCORE, S.S_SC_PITCH, S.S_SC_SUMMIT, S.S_SC_SHARED, S.S_SC_SETS,
               S.S_SC_SPIDER, S.S_SC_PERSONAL, S.S_ROUTE_N, S.S_ROUTE_MASK, S.S_PERM_GAINED,
               S.S_WATER, S.S_PSYCH)


def outcome_digest(records, players):
    cols = [records[:, S.G_WINNER], records[:, S.G_END_REASON], records[:, S.G_ROUND],
            records[:, S.G_DECISIONS]]
    for seat in range(players):
        for field in SEAT_FIELDS:
            cols.append(records[:, field + seat * S.SEAT_FIELDS])
    return hashlib.sha256(np.stack(cols).astype(np.int64).tobytes()).hexdigest()


def digest_of(name):
    c = CONFIGURATIONS[name]
    batch = run_games(c.get("games", 200), c["seed"], build_rules(c["players"], c["rules"]),
                      c["seats"])
    return outcome_digest(batch.records, c["players"])


@pytest.mark.parametrize("name", list(CONFIGURATIONS))
def test_recorded_outcomes_are_unchanged(name):
    recorded = json.loads(FIXTURE.read_text())
    assert digest_of(name) == recorded[name], \
        f"{name}: games changed; if intended, regenerate the fixture (see this module's docstring)"


if __name__ == "__main__" and "--write" in sys.argv:
    FIXTURE.write_text(json.dumps({n: digest_of(n) for n in CONFIGURATIONS}, indent=1) + "\n")
    print(f"wrote {FIXTURE}")
