"""Recorded outcomes: a digest of 200 Ascension games per configuration (6 for the search bots),
so that no change to the engine, the kernel or a built-in bot alters a game without a test
saying so. When a change is meant to alter games, regenerate with
`python tests/ascension/test_asc_regression.py --write` and say why in the commit.

The digest reads the record through state.py's named offsets (winner, end, turns, decisions,
first summit; each seat's standing, pawn square, blocks, summit and tallies of its turns and
moves), so adding state fields does not change it; changing any game does."""
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from sim.games.ascension import state as S
from sim.games.ascension.batch import run_games
from sim.games.ascension.rules import build_rules

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "ascension_outcomes.json"
CONFIGURATIONS = {
    "random, 2 players": dict(seats=["random"] * 2, rules={}, seed=31, rotate=False),
    "mixed bots, 4 players, rotated": dict(
        seats=["random-safe", "stair-builder", "blocker", "hybrid"], rules={}, seed=32,
        rotate=True),
    "stair-builder, 3 players, rulebook readings": dict(
        seats=["stair-builder", "stair-builder-forgetful", "random-safe"],
        rules={"mattress_mode": "from", "spring_bonus": "full_turn", "joker_on_loss": "retire"},
        seed=33, rotate=False),
    "search bots, 4 players": dict(seats=["mcts-hybrid@8", "mcts@8", "hybrid", "stair-builder"],
                                   rules={}, seed=25, rotate=False, games=6),
}
SEAT_FIELDS = (S.S_ACTIVE, S.S_PAWN_SQ, S.S_BLOCKS, S.S_SUMMIT, S.S_EVER_SUMMIT, S.T_TURNS,
               S.T_PIECE_MOVES, S.T_PAWN_MOVES, S.T_ELIM_TURN, S.T_BEST_HEIGHT)


def outcome_digest(records, players):
    cols = [records[:, S.G_WINNER], records[:, S.G_END_REASON], records[:, S.G_TURN_COUNT],
            records[:, S.G_DECISIONS], records[:, S.G_FIRST_SUMMIT_SEAT],
            records[:, S.G_FIRST_SUMMIT_TURN]]
    for seat in range(players):
        for field in SEAT_FIELDS:
            cols.append(records[:, field + seat])
    return hashlib.sha256(np.stack(cols).astype(np.int64).tobytes()).hexdigest()


def digest_of(name):
    c = CONFIGURATIONS[name]
    players = len(c["seats"])
    batch = run_games(c.get("games", 200), c["seed"], build_rules(players, c["rules"]), c["seats"],
                      rotate=c["rotate"])
    return outcome_digest(batch.records, players)


@pytest.mark.parametrize("name", list(CONFIGURATIONS))
def test_recorded_outcomes_are_unchanged(name):
    recorded = json.loads(FIXTURE.read_text())
    assert digest_of(name) == recorded[name], \
        f"{name}: games changed; if intended, regenerate the fixture (see this module's docstring)"


if __name__ == "__main__" and "--write" in sys.argv:
    FIXTURE.write_text(json.dumps({n: digest_of(n) for n in CONFIGURATIONS}, indent=1) + "\n")
    print(f"wrote {FIXTURE}")
