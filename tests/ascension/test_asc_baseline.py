"""The engine against the spec's own random-play baseline (RULES.md §10: a prototype of the same
rules, 2,000 random games per player count). Our random bot plays 300 games per count; each
per-game mean must lie within 4 standard errors of the spec's figure. Fixed seeds: this does
not flake, and it fails if a rule change moves these counters."""
import numpy as np
import pytest

from sim.games.ascension import state as S
from sim.games.ascension.batch import run_games
from sim.games.ascension.rules import build_rules

# players -> (blocks, eliminations, pillar raises, face-up placements, tallest stack) per game
SPEC_SECTION_10 = {2: (0.81, 0.12, 3.1, 69, 7.5), 3: (2.12, 0.47, 4.5, 97, 8.4),
                   4: (3.90, 1.13, 6.1, 123, 9.0)}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_play_matches_the_spec_baseline(players):
    rec = run_games(300, 77, build_rules(players), "random").records.astype(np.int64)
    seats = range(players)
    blocks = sum(rec[:, S.S_BLOCKS + p] for p in seats)
    elims = sum((rec[:, S.T_ELIM_RACE + p] >= 0).astype(np.int64) for p in seats)
    faceup = sum(rec[:, S.T_FACE_UP_PLACEMENTS + p] for p in seats)
    ours = (blocks, elims, rec[:, S.G_PILLAR_RAISES], faceup, rec[:, S.G_TALLEST_STACK])
    for name, values, spec in zip(("blocks", "eliminations", "pillar raises", "face-up",
                                   "tallest stack"), ours, SPEC_SECTION_10[players]):
        se = values.std(ddof=1) / np.sqrt(len(values))
        assert abs(values.mean() - spec) <= 4 * se + 0.02 * spec, (name, values.mean(), spec)
    # random play essentially never finishes (§10): caps, the odd all-eliminated draw
    assert (rec[:, S.G_END_REASON] == S.END_CAP).mean() > 0.97
    assert (rec[:, S.G_TURN_COUNT] <= 200 * players).all()
