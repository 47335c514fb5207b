"""A run of no games gives no records in every game. The kernels take their one-game function
by address, typed from the run's arrays; typing it from the first row broke this once."""
import pytest

from sim.games.all_in_ascent.batch import run_games as all_in_games
from sim.games.ascension.batch import run_games as ascension_games
from sim.games.ascension.rules import build_rules as ascension_rules
from sim.games.first_ascent.batch import run_games as first_ascent_games
from sim.games.first_ascent.rules import build_rules as first_ascent_rules

# each game's records of a run of n games
RUNS = {
    "all-in-ascent": lambda n: all_in_games(n, 1, 4, "random", threads=1).final,
    "ascension": lambda n: ascension_games(n, 1, ascension_rules(4), ["random"] * 4,
                                           threads=1).records,
    "first-ascent": lambda n: first_ascent_games(n, 1, first_ascent_rules(4), ["random"] * 4,
                                                 threads=1).records,
}


@pytest.mark.parametrize("game", sorted(RUNS))
def test_a_run_of_no_games_has_no_records(game):
    assert RUNS[game](0).shape[0] == 0
    assert RUNS[game](2).shape[0] == 2
