"""Open-loop MCTS (policies/mcts.py), one implementation for the stepping games: it never sees
the real future, plays legal actions only, is a pure function of its inputs at any thread count,
and plays well where the answer is known (issue 20)."""
import json
import subprocess
import sys

import numpy as np
import pytest

from policies.mcts import make_mcts
from sim.core.game import get_game
from sim.core.policies import get_policy
from sim.core.stats import wilson_interval

dice_race = pytest.importorskip("dice_race", reason="pip install -e examples/dice_race")

from dice_race import state as DS  # noqa: E402
from dice_race.engine import setup as dice_setup  # noqa: E402
from dice_race import search as dice_search  # noqa: E402
from numba import njit  # noqa: E402
from sim.core.rng import mulberry32_step, scale_draw, stream_below  # noqa: E402
from sim.games.all_in_ascent import engine as E, state as S  # noqa: E402
from sim.games.all_in_ascent.policy_api import MAX_POLICY_PARAMS, PolicyContext  # noqa: E402
from sim.games.all_in_ascent.memory import WORK_SIZE as AIA_WORK_SIZE  # noqa: E402
from tests.all_in_ascent import test_regression as regression  # noqa: E402

DICE = get_game("dice-race")
AIA = get_game("all-in-ascent")


# This module doubles as a search module that peeks: Dice Race's own functions, except that
# the imagined future is the real one.
legal, step, mover, evaluate = (dice_search.legal, dice_search.step, dice_search.mover,
                                dice_search.evaluate)


@njit(cache=True)
def hide_future(st, c, seat, stream):
    pass


def dice_position(rng, turn_total=12):
    st = np.zeros(DS.STATE_SIZE, np.int64)
    rules = DICE.build_rules(2)
    dice_setup(st, rules.config, np.int64(1), np.int64(2))
    st[DS.G_TURN_TOTAL] = turn_total
    st[DS.G_RNG] = rng
    return st, rules


def next_face(rng):
    return scale_draw(mulberry32_step(rng)[1], 6) + 1


def dice_decision(st, rules, decide, seed=5, iterations=300):
    """The decision of search `decide` for seat 0."""
    legal_actions = np.empty(DS.N_ACTIONS, np.int64)
    n = dice_search.legal(st, rules.config, legal_actions)
    params = np.array([iterations, 1.0, 0.7, 0.0])
    return decide(st, rules.config, np.int64(0), legal_actions, np.int64(n),
                  np.array([seed], np.uint64), params, np.empty(0, np.int64))


def test_dice_race_mcts_does_not_peek_at_the_next_roll():
    # Positions that differ only in the stream of future rolls. A search that peeks decides
    # differently on some of them (checked, so the test can fail); ours decides alike on all.
    peeking, hiding = make_mcts(sys.modules[__name__]), make_mcts(dice_search)
    streams = [r for r in range(1, 400) if next_face(r) in (1, 6)][:30]
    positions = [dice_position(r) for r in streams]
    assert len({dice_decision(st, rules, peeking) for st, rules in positions}) == 2
    assert len({dice_decision(st, rules, hiding) for st, rules in positions}) == 1


def aia_position(seed, n_random_actions):
    """A position of a 4-player game after some random play."""
    rules = AIA.build_rules(4)
    t = rules.tables
    st = np.zeros(S.STATE_SIZE, np.int64)
    E.setup(st, t, seed, np.array([0, 1, 2, 3], np.int64), 4)
    legal = np.empty(S.N_ACTIONS, np.int64)
    trace = np.empty(S.TRACE_SIZE, np.int64)
    draws = np.random.default_rng(seed)
    for _ in range(n_random_actions):
        n = E.legal_actions(st, t, legal)
        E.apply_action(st, t, legal[draws.integers(n)], trace)
    return st, t


def aia_decision(name, st, t, params=(60.0, 20.0, 0.7, 0.0), stream_seed=11):
    fn = get_policy("all-in-ascent", name).function
    legal = np.empty(S.N_ACTIONS, np.int64)
    n = E.legal_actions(st, t, legal)
    vec = get_policy("all-in-ascent", name).default_params.copy()
    vec[:len(params)] = params
    padded = np.zeros(MAX_POLICY_PARAMS)
    padded[:len(vec)] = vec
    return fn(PolicyContext(st, np.int64(st[S.G_CURRENT]), legal, np.int64(n), t,
                            np.array([stream_seed], np.uint64), padded,
                            np.zeros(AIA_WORK_SIZE, np.int64)))


def aia_twin_positions():
    """Pairs of positions that differ only in the future: R5-R8's dice, route refreshes and
    shop draws all come from st[G_RNG]."""
    for seed in range(3, 11):
        for depth in (5, 30, 60):
            st, t = aia_position(seed, depth)
            if not st[S.G_OVER]:
                other = st.copy()
                other[S.G_RNG] = (st[S.G_RNG] * 7 + 12345) & 0xFFFFFFFF
                yield st, other, t


@pytest.mark.parametrize("name", ["mcts", "mcts-tuned"])
def test_all_in_ascent_mcts_does_not_peek_at_dice_or_refills(name):
    # The same decision from the same policy stream, whatever the real future
    twins = list(aia_twin_positions())
    assert len(twins) >= 20
    for st, other, t in twins:
        assert aia_decision(name, st, t) == aia_decision(name, other, t)


def test_a_search_that_peeks_at_the_real_dice_decides_otherwise_on_the_same_twins():
    # The control: All-In Ascent's search functions, but the imagined future is the real one
    # (this module's hide_future, which hides nothing). It tells some twins apart, so the test
    # above can fail. Measured: 9 of the 36 twins of seeds 3 to 14 at these settings.
    import types
    from sim.games.all_in_ascent import search as aia_search
    from sim.games.all_in_ascent.memory import SEARCH_WORK_SIZE
    peek = types.ModuleType("all_in_ascent_peeking")
    for name in ("legal", "step", "mover", "evaluate"):
        setattr(peek, name, getattr(aia_search, name))
    peek.hide_future = hide_future
    peeking = make_mcts(peek)
    params = np.array([60.0, 20.0, 0.7, 0.0, 0.0, 0.0])

    def decide(st, t):
        legal_actions = np.empty(S.N_ACTIONS, np.int64)
        n = E.legal_actions(st, t, legal_actions)
        return peeking(st, t, np.int64(st[S.G_CURRENT]), legal_actions, np.int64(n),
                       np.array([11], np.uint64), params, np.zeros(SEARCH_WORK_SIZE, np.int64))
    assert any(decide(st, t) != decide(other, t) for st, other, t in aia_twin_positions())


def test_mcts_decisions_come_from_its_own_stream():
    # The stream is the only source of randomness: same stream, same decision; and the stream
    # matters (else the search would not be sampling anything)
    st, t = aia_position(4, 30)
    first = aia_decision("mcts", st, t, params=(8.0, 20.0, 0.7, 0.0), stream_seed=1)
    assert aia_decision("mcts", st, t, params=(8.0, 20.0, 0.7, 0.0),
                        stream_seed=1) == first
    others = {aia_decision("mcts", st, t, params=(8.0, 20.0, 0.7, 0.0), stream_seed=s)
              for s in range(2, 12)}
    assert len(others | {first}) > 1


def small_budget(name, iterations=24.0, depth=10.0):
    vec = get_policy("all-in-ascent", name).default_params.copy()
    vec[0], vec[1] = iterations, depth
    return {name: vec}


@pytest.mark.parametrize("name", ["mcts", "mcts-greedy", "mcts-tuned"])
def test_all_in_ascent_mcts_plays_legal_actions_and_is_thread_invariant(name):
    rules = AIA.build_rules(4)
    seats = [name, "random", name, "greedy"]
    one = AIA.api.play(rules, 4, 7, seats, "random", threads=1, policy_params=small_budget(name))
    two = AIA.api.play(rules, 4, 7, seats, "random", threads=2, policy_params=small_budget(name))
    # R73: a winner or the round cap; never a policy error (an illegal action) or the action cap
    assert one.games.end_reason.isin(["winner", "max_rounds"]).all()
    assert one.games.equals(two.games) and one.seats.equals(two.seats)


@pytest.mark.parametrize("name", regression.SEARCH_CONFIGURATIONS)
def test_all_in_ascent_search_games_keep_their_recorded_outcomes(name):
    """tests/all_in_ascent/test_regression.py's search configurations (here, where the search
    bots compile anyway): no change alters a search bot's games without a test saying so."""
    recorded = json.loads(regression.FIXTURE.read_text())
    assert regression.digest_of(name) == recorded[name], \
        f"{name}: games changed; if intended, regenerate the fixture (see " \
        f"tests/all_in_ascent/test_regression.py)"


def test_dice_race_mcts_is_deterministic_thread_invariant_and_beats_random_widely():
    rules = DICE.build_rules(2)
    runs = [DICE.api.play(rules, 300, 3, ["mcts", "random"], None, threads=th, rotate=True)
            for th in (1, 2)]
    assert runs[0].games.equals(runs[1].games) and runs[0].seats.equals(runs[1].seats)
    again = DICE.api.play(rules, 300, 3, ["mcts", "random"], None, threads=2, rotate=True)
    assert again.seats.equals(runs[1].seats)
    seats = runs[0].seats
    assert (runs[0].games.end_reason == "target").all()    # legal actions only
    wins = int(seats[seats.policy == "mcts"].won.sum())
    low, _ = wilson_interval(wins, 300)
    assert low > 0.65, wins       # measured: 78% at 400 games (random against random: 50%)


def test_a_search_module_missing_a_function_is_named():
    with pytest.raises(TypeError, match="lacks the search function.*hide_future"):
        make_mcts(np)


def test_the_independent_mcts_compiles_no_bot_of_the_planner_family():
    """Issue 20: one MCTS configuration shares no code with planner/tuned/lookahead/greedy
    (a fresh process, so that no other test has compiled them)."""
    script = """
import json
import numpy as np
from policies.all_in_ascent import planner, greedy, helpers
from sim.core.game import get_game
from sim.core.policies import get_policy
g = get_game("all-in-ascent")
vec = get_policy("all-in-ascent", "mcts").default_params.copy(); vec[0] = 4; vec[1] = 4
g.api.play(g.build_rules(2), 1, 1, ["mcts", "mcts"], "random", threads=1,
           policy_params={"mcts": vec})
print(json.dumps({"plan": len(planner.plan.signatures),
                  "card_is_useful": len(helpers.card_is_useful.signatures),
                  "greedy": len(greedy.greedy_policy.signatures)}))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout
    assert json.loads(out.strip().splitlines()[-1]) == {"plan": 0, "card_is_useful": 0,
                                                        "greedy": 0}


def test_a_large_margin_keeps_the_rollout_bots_own_choice():
    # params[5]: the root's first child is the rollout bot's choice, kept unless another beats
    # it by the margin. With a margin no value in [0, 1] can beat, mcts-tuned plays `tuned`;
    # without one it departs from it somewhere (so the check can fail)
    tuned = get_policy("all-in-ascent", "tuned")
    same, departs = [], []
    for seed, depth in [(3, 40), (4, 80), (9, 120), (5, 10), (6, 200)]:
        st, t = aia_position(seed, depth)
        legal = np.empty(S.N_ACTIONS, np.int64)
        n = E.legal_actions(st, t, legal)
        params = np.zeros(MAX_POLICY_PARAMS)
        params[:len(tuned.default_params)] = tuned.default_params
        own = tuned.function(PolicyContext(st, np.int64(st[S.G_CURRENT]), legal, np.int64(n), t,
                                           np.array([1], np.uint64), params,
                                           np.zeros(AIA_WORK_SIZE, np.int64)))
        same.append(aia_decision("mcts-tuned", st, t, params=(24.0, 20.0, 0.7, 1.0, 0.0, 2.0))
                    == own)
        departs.append(aia_decision("mcts-tuned", st, t, params=(24.0, 20.0, 0.7, 1.0, 0.0, 0.0))
                       != own)
    assert all(same) and any(departs)


class HandWalk:
    """The walk of policies/mcts.py driven by hand, as a game's driver drives it: a tree of
    `n_max` nodes, one seat, and the rollout bot's answer always `bot`."""

    def __init__(self, n_max, seed=1):
        from policies import mcts as M
        self.M = M
        self.first_child = np.full(n_max, M.NO_NODE, np.int64)
        self.next_sibling = np.full(n_max, M.NO_NODE, np.int64)
        self.n_children = np.zeros(n_max, np.int64)
        self.node_action = np.full(n_max, M.NO_NODE, np.int64)
        self.visits = np.zeros(n_max)
        self.available = np.zeros(n_max)
        self.value = np.zeros((n_max, M.MAX_SEATS))
        self.walk = np.zeros(M.WALK_SIZE, np.int64)
        self.path = np.zeros(n_max + 1, np.int64)
        self.stream = np.array([seed], np.uint64)
        M.start_tree(self.walk, n_max)

    def decide(self, legal, bot, tree_depth=0, depth=2, widening=0.0):
        """walk_wants_bot, then walk_answer (in the tree) or rollout_answer, with the bot's
        answer where it was wanted, as a driver that asks the walk at every decision does."""
        M = self.M
        legal = np.array(legal, np.int64)
        wants = M.walk_wants_bot(self.walk, self.n_children, tree_depth, depth)
        bot = bot if wants else M.NO_ACTION
        if self.walk[M.WALK_PHASE] != M.WALK_TREE:
            return wants, M.rollout_answer(self.walk, bot)
        scratch = np.empty(len(legal), np.int64), np.empty(len(legal), np.int64)
        return wants, M.walk_answer(
            self.first_child, self.next_sibling, self.n_children, self.node_action, self.visits,
            self.available, self.value, self.walk, self.path, legal, len(legal), 0, bot,
            self.stream, *scratch, widening, 0.7, depth)

    def back_up(self, v):
        values = np.zeros(self.M.MAX_SEATS)
        values[0] = v
        self.M.back_up(self.path, self.walk[self.M.WALK_PATH_LEN], self.visits, self.value,
                       values)


def test_the_walk_takes_the_bots_choice_as_a_new_nodes_first_child_then_rolls_out():
    from policies import mcts as M
    w = HandWalk(8)
    M.start_walk(w.walk, w.path)
    assert w.decide([4, 7, 9], bot=7) == (True, 7)            # the root's first child
    assert w.n_children[0] == 1 and w.node_action[1] == 7
    assert w.walk[M.WALK_PHASE] == M.WALK_ROLLOUT             # it left the tree there
    assert w.decide([1, 2], bot=2) == (True, 2)               # rollout decisions: the bot's
    assert w.walk[M.WALK_DEPTH_LEFT] == 1
    assert w.decide([1, 2], bot=1) == (True, 1)
    assert w.walk[M.WALK_DEPTH_LEFT] == 0                      # depth 2: a stepped game stops
    assert w.decide([1, 2], bot=2) == (True, 2)               # a driver that cannot stop goes
    assert w.walk[M.WALK_PHASE] == M.WALK_FINISHED             # on with the bot's choices
    w.back_up(1.0)
    assert list(w.visits[:2]) == [1.0, 1.0] and w.value[1, 0] == 1.0


def test_the_walk_tries_each_legal_action_then_follows_ucb_and_respects_the_tree_depth():
    from policies import mcts as M
    w = HandWalk(16)
    expected_stream = w.stream.copy()         # the draws the walk should make, made alike
    tried = []
    for v in (0.0, 1.0, 0.0):                 # widening off: every legal action gets a child
        M.start_walk(w.walk, w.path)
        wants, action = w.decide([4, 7, 9], bot=7)
        tried.append(action)
        w.back_up(v)
    stream_below(expected_stream, 2)          # the second and third children's order; the
    stream_below(expected_stream, 1)          # first child is the bot's and costs no draw
    assert sorted(tried) == [4, 7, 9] and w.n_children[0] == 3 and tried[0] == 7
    assert w.stream[0] == expected_stream[0]
    best = tried[1]                           # the one whose rollout won
    M.start_walk(w.walk, w.path)
    wants, action = w.decide([4, 7, 9], bot=7, tree_depth=1)    # the root is within depth 1
    assert not wants and action == best       # every child visited once: UCB picks the winner
    assert w.walk[M.WALK_PHASE] == M.WALK_TREE and list(w.path[:2]) == [0, tried.index(best) + 1]
    assert w.stream[0] == expected_stream[0]  # UCB draws nothing
    # below a tree depth of 1 the walk turns into its rollout before the bot is asked
    wants, action = w.decide([5, 6], bot=6, tree_depth=1)
    assert wants and action == 6 and w.walk[M.WALK_PHASE] == M.WALK_ROLLOUT
    assert w.walk[M.WALK_DEPTH_LEFT] == 1     # that decision was the rollout's first


def test_a_full_tree_rolls_out_from_where_it_stands():
    from policies import mcts as M
    w = HandWalk(2)                           # the root and one child
    M.start_walk(w.walk, w.path)
    w.decide([4, 7], bot=7)
    w.back_up(0.5)
    M.start_walk(w.walk, w.path)
    expected_stream = w.stream.copy()
    expected = [4, 9][stream_below(expected_stream, 2)]
    wants, action = w.decide([4, 9], bot=4)   # 7 is not legal here and no node is left:
    assert not wants and action == expected   # the bot was not asked; one draw from the legal
    assert w.stream[0] == expected_stream[0]
    assert w.walk[M.WALK_PHASE] == M.WALK_ROLLOUT
    assert w.walk[M.WALK_DEPTH_LEFT] == 1     # that decision was the rollout's first of 2
    assert w.n_children[0] == 1 and w.walk[M.WALK_PATH_LEN] == 1


@njit(cache=True)
def rollout(st, c, legal, n, stream, params, work):
    """This module as a rollout module: a uniform legal action, counting its calls in work[0]."""
    work[0] += 1
    return legal[stream_below(stream, n)]


@pytest.mark.parametrize("iterations, depth, calls", [(1, 0, 1), (2, 0, 1), (1, 3, 4),
                                                      (2, 3, 7)])
def test_a_search_asks_its_rollout_bot_only_for_first_children_and_rollouts(iterations, depth,
                                                                              calls):
    # widening off: the root's first child is the bot's choice, the second a draw; then each
    # iteration's rollout of `depth` actions (a Dice Race game cannot end within three)
    search = make_mcts(dice_search, sys.modules[__name__])
    st, rules = dice_position(1)
    legal_actions = np.empty(DS.N_ACTIONS, np.int64)
    n = dice_search.legal(st, rules.config, legal_actions)
    counted = np.zeros(1, np.int64)
    search(st, rules.config, np.int64(0), legal_actions, np.int64(n), np.array([5], np.uint64),
           np.array([iterations, depth, 0.7, 0.0]), counted)
    assert n == 2 and counted[0] == calls


@pytest.mark.parametrize("name", ["mcts", "mcts-tuned"])
def test_all_in_ascents_search_compiles_no_string_code(name):
    """The generic search copies arrays with copy_into: a slice assignment would link numba's
    string formatting into it (2 s of a first run, compiled for nothing)."""
    from tests.compiled_code import string_code_in
    get_policy("all-in-ascent", name)
    compiled, found = string_code_in({"policies.mcts", "policies.all_in_ascent.mcts",
                                      "sim.games.all_in_ascent.search"})
    assert compiled >= 1
    assert not found
