"""Ascension's open-loop MCTS (policies/ascension/mcts.py, issue 20): a state sampled from a
seat's view that the seat cannot tell from the real one (RULES.md §1.8, A15), re-dealt hidden
cubes, no peeking, legal and reproducible games at any thread count, and no staircase-bot code."""
import json
import subprocess
import sys

import numpy as np
import pytest
from asc_helpers import Builder, new_game, ride_only_pawn
from numba import njit

from policies.mcts import make_mcts
from sim.core.policies import get_policy
from sim.games.ascension import search
from sim.games.ascension import state as S
from sim.games.ascension.batch import run_games
from sim.games.ascension.engine import legal_actions
from sim.games.ascension.game import AscensionGame
from sim.games.ascension.policy_api import MAX_POLICY_PARAMS, WORK_SIZE, PolicyContext
from sim.games.ascension.rules import (C_P_SHAPES, C_P_SYMBOL, C_PILLAR_BAR_HIDDEN_SPECIAL,
                                       default_rules)
from sim.games.ascension.view import WHOLE, build_view, deal_pillar_cube, sample_state

# This module doubles as a search module that peeks: Ascension's own functions, with no
# re-dealing, run on the real state.
legal, step, mover, evaluate = search.legal, search.step, search.mover, search.evaluate


@njit(cache=True)
def hide_future(st, t, seat, stream):
    pass


def positions(bots, seeds=(1, 2), players=(2, 3, 4), every=7, decisions=150):
    """(game, seat) at every `every`-th decision of a few games, all phases."""
    out = []
    for seed in seeds:
        for n in players:
            game = AscensionGame(seed, players=n)
            for k in range(decisions):
                if game.state[S.G_OVER]:
                    break
                if k % every == 0:
                    snapshot = AscensionGame(seed, players=n)
                    snapshot.state[:] = game.state
                    out.append((snapshot, int(game.state[S.G_CURRENT])))
                game.play([bots[k % len(bots)]] * n, max_decisions=1)
    return out


def view_of(game, seat, remember=True):
    v = np.empty(S.STATE_SIZE, np.int64)
    build_view(game.state, game.t, seat, remember, v, True, WHOLE)
    return v


def faces(t, ids):
    return sorted((int(t[C_P_SHAPES + x]), int(t[C_P_SYMBOL + x])) for x in ids)


def unseen(st, seat):
    """Board cubes face down whose face `seat` does not know."""
    return [x for x in range(S.N_CUBES) if st[S.B_P_SQ + x] >= 0 and st[S.B_P_UP + x] == 0
            and not st[S.B_KNOWN + x] & (1 << seat) and x != st[S.G_HELD]]


@pytest.fixture(scope="module")
def played():
    """Positions of games played by three bots, shared by the tests below (played on first use,
    not at collection: both test workers collect every file)."""
    return positions(["random", "hybrid", "stair-builder"])


def test_a_sampled_state_looks_to_its_seat_like_the_real_one(played):
    # §1.8: the sampled state gives the same view back (with memory and without, A15), the same
    # legal actions, and deals the seat's unseen cubes: the same faces, other places
    a = np.empty(S.N_ACTIONS, np.int64)
    b = np.empty(S.N_ACTIONS, np.int64)
    held = 0
    for game, seat in played:
        held += game.state[S.G_HELD] >= 0
        for remember in (True, False):
            view = view_of(game, seat, remember)
            st = np.empty(S.STATE_SIZE, np.int64)
            assert sample_state(view, game.t, seat, np.array([7], np.uint64), st)
            sampled = AscensionGame(0, players=int(game.state[S.G_N_PLAYERS]))
            sampled.state[:] = st
            assert np.array_equal(view_of(sampled, seat, remember), view)
            n = legal_actions(game.state, game.t, a)
            assert legal_actions(st, game.t, b) == n and np.array_equal(a[:n], b[:n])
            if remember:
                assert faces(game.t, unseen(st, seat)) == faces(game.t, unseen(game.state, seat))
    assert held >= 5 and len(played) >= 60      # place decisions are among them


def test_a_forgetful_seats_search_deals_again_the_cubes_it_has_forgotten(played):
    # §6 Q10's forgetful seat (A15 without memory): in the state sampled from its view, the
    # cubes it looked at and forgot are unseen by it, so hide_future deals them again
    tried = 0
    for game, seat in played:
        looked = [x for x in range(S.N_CUBES) if game.state[S.B_P_SQ + x] >= 0
                  and game.state[S.B_P_UP + x] == 0 and game.state[S.B_KNOWN + x] & (1 << seat)
                  and x != game.state[S.G_HELD]]
        if not looked:
            continue
        tried += 1
        st = np.empty(S.STATE_SIZE, np.int64)
        assert sample_state(view_of(game, seat, False), game.t, seat, np.array([7], np.uint64),
                            st)
        face_down = [x for x in range(S.N_CUBES) if st[S.B_P_SQ + x] >= 0
                     and st[S.B_P_UP + x] == 0 and x != st[S.G_HELD]]
        assert sorted(unseen(st, seat)) == sorted(face_down)
    assert tried >= 10


def test_the_sampler_deals_from_the_seats_own_stream(played):
    game, seat = next((g, s) for g, s in played if len(unseen(g.state, s)) > 40)
    view = view_of(game, seat)
    deals = []
    for stream in (1, 1, 2, 3):
        st = np.empty(S.STATE_SIZE, np.int64)
        sample_state(view, game.t, seat, np.array([stream], np.uint64), st)
        deals.append(tuple(st[S.B_STACK:S.B_STACK + S.N_SQUARES * S.MAX_STACK_CAP]))
    assert deals[0] == deals[1] and len(set(deals)) == 3


def test_a_view_the_piece_set_cannot_fill_is_refused(played):
    game, seat = played[10]
    view = view_of(game, seat)
    view[S.S_RES_SHAPED + seat] = 3             # A4: a seat holds two shaped half-cubes at most
    assert not sample_state(view, game.t, seat, np.array([1], np.uint64),
                            np.empty(S.STATE_SIZE, np.int64))


def test_a_view_without_the_per_piece_block_is_refused(played):
    """build_view(piece_slots=False) is for bots that never sample: the sampler refuses it,
    rather than dealing every piece as a face-down cube (the block read as zeros)."""
    game, seat = played[10]
    view = np.empty(S.STATE_SIZE, np.int64)
    build_view(game.state, game.t, seat, True, view, False, WHOLE)
    assert not sample_state(view, game.t, seat, np.array([1], np.uint64),
                            np.empty(S.STATE_SIZE, np.int64))
    build_view(game.state, game.t, seat, True, view, True, WHOLE)
    assert sample_state(view, game.t, seat, np.array([1], np.uint64),
                        np.empty(S.STATE_SIZE, np.int64))


def test_hide_future_re_deals_only_what_the_seat_has_not_seen(played):
    moved = 0
    for game, seat in played[::4]:
        st = game.state.copy()
        search.hide_future(st, game.t, seat, np.array([5], np.uint64))
        twin = AscensionGame(0, players=int(st[S.G_N_PLAYERS]))
        twin.state[:] = st
        twin.state[S.G_DECISIONS] = game.state[S.G_DECISIONS]     # numbered afresh (below)
        # the seat sees the same board, and the same cubes are still unseen, elsewhere
        assert np.array_equal(view_of(twin, seat), view_of(game, seat))
        assert sorted(unseen(st, seat)) == sorted(unseen(game.state, seat))
        for x in range(S.N_PIECES):
            if x not in unseen(game.state, seat):
                assert st[S.B_P_SQ + x] == game.state[S.B_P_SQ + x]
        moved += not np.array_equal(st, game.state)
    assert moved >= 5


def pillar_scene(switch):
    """A face-down shape cube on the pillar that seat 1 put there and seat 0 (to move) never
    saw; under A59's `bar` it cannot be a symbol cube, and seat 0 can tell that much."""
    g = new_game(4, seed=67, pillar_hidden_special=switch)
    Builder(g).put(44, S.PILLAR)
    g.set(S.B_KNOWN + 44, 1 << 1)
    assert g.current == 0 and 44 in unseen(g.state, 0)
    return g


def pillar_cube(st):
    return int(st[S.B_STACK + S.PILLAR * S.MAX_STACK_CAP])


def test_the_pillar_deal_is_uniform_over_the_deals_that_keep_a59():
    # A59: a uniform order, then deal_pillar_cube's swap, gives every order that puts an
    # allowed cube on the pillar equally often (5 cubes, 2 of them symbol cubes)
    from collections import Counter
    from itertools import permutations
    t = default_rules(4).config.copy()
    t[C_PILLAR_BAR_HIDDEN_SPECIAL] = 1
    cubes = [0, 40, 67, 50, 71]                        # neutral, shape, ladder, shape, spring
    barred = {x for x in cubes if t[C_P_SYMBOL + x] != 0}
    assert len(barred) == 2
    rng = np.random.default_rng(5)
    for at in (0, 2, 4):
        seen = Counter()
        for k in range(18000):
            order = np.array(rng.permutation(cubes), np.int64)
            j = deal_pillar_cube(t, order, 5, at, np.array([k + 1], np.uint64))
            order[at], order[j] = order[j], order[at]
            seen[tuple(order)] += 1
        allowed = [p for p in permutations(cubes) if p[at] not in barred]
        assert set(seen) == set(allowed) and len(allowed) == 72
        assert max(seen.values()) < 1.4 * 250 and min(seen.values()) > 0.6 * 250


@pytest.mark.parametrize("deal", ["sample_state", "hide_future"])
def test_under_a59_bar_a_search_never_imagines_a_symbol_cube_face_down_on_the_pillar(deal):
    # A59: under bar the sampler and the re-deal put only cubes with no symbol face down on the
    # pillar, uniformly among them; under allow, any unseen cube (symbol cubes among them)
    def dealt_to_pillar(switch, draws=1200):
        g = pillar_scene(switch)
        view = view_of(g, 0)
        out = []
        for stream in range(1, draws + 1):
            st = g.state.copy()
            if deal == "sample_state":
                assert sample_state(view, g.t, 0, np.array([stream], np.uint64), st)
            else:
                search.hide_future(st, g.t, 0, np.array([stream], np.uint64))
            x = pillar_cube(st)
            out.append((int(g.t[C_P_SHAPES + x]), int(g.t[C_P_SYMBOL + x])))
        return out

    g = pillar_scene("allow")
    pool = faces(g.t, unseen(g.state, 0))
    allowed = [f for f in pool if f[1] == 0]
    allow, bar = dealt_to_pillar("allow"), dealt_to_pillar("bar")
    assert not any(symbol for _, symbol in bar)
    share = sum(symbol != 0 for _, symbol in allow) / len(allow)
    assert abs(share - (len(pool) - len(allowed)) / len(pool)) < 0.04 and share > 0.08
    # uniform among the cubes that may lie there: the neutral cubes' share
    neutral = sum(f == (0, 0) for f in bar) / len(bar)
    assert abs(neutral - allowed.count((0, 0)) / len(allowed)) < 0.05


def mcts_decision(fn, game, seat, board, iterations=48, stream=3, extra=()):
    params = np.zeros(MAX_POLICY_PARAMS)
    params[:4] = (iterations, 6.0, 0.7, 1.0)
    params[6:6 + len(extra)] = extra
    legal_list = np.empty(S.N_ACTIONS, np.int64)
    n = legal_actions(game.state, game.t, legal_list)
    return fn(PolicyContext(board, np.int64(seat), game.state[S.G_PHASE], legal_list,
                            np.int64(n), game.t, np.array([stream], np.uint64), params,
                            np.zeros(WORK_SIZE, np.int64)))


def redealt(game, seat):
    """The game with seat's unseen cubes dealt again (hide_future), its decision count kept."""
    twin = AscensionGame(0, players=int(game.state[S.G_N_PLAYERS]))
    twin.state[:] = game.state
    search.hide_future(twin.state, game.t, seat, np.array([99], np.uint64))
    twin.state[S.G_DECISIONS] = game.state[S.G_DECISIONS]
    return twin


def test_ascension_mcts_does_not_peek_at_unseen_faces(played):
    # Positions that differ only in where the mover's unseen cubes lie (dealt again by
    # hide_future, which keeps the view, as tested above). A search run on the real state that
    # peeks decides differently on some (so the test can fail); the bot, from its view,
    # decides alike on all.
    policy = get_policy("ascension", "mcts").function
    peeking = make_mcts(sys.modules[__name__])
    differs_peeking = differs_bot = tried = 0
    for game, seat in played:
        if len(unseen(game.state, seat)) < 20:
            continue
        twin = redealt(game, seat)
        assert np.array_equal(view_of(game, seat), view_of(twin, seat))
        tried += 1
        differs_bot += mcts_decision(policy, game, seat, view_of(game, seat)) != \
            mcts_decision(policy, twin, seat, view_of(twin, seat))
        legal_list = np.empty(S.N_ACTIONS, np.int64)
        n = legal_actions(game.state, game.t, legal_list)
        params = np.array([48.0, 6.0, 0.7, 1.0])
        real = [peeking(g.state, g.t, np.int64(seat), legal_list, np.int64(n),
                        np.array([3], np.uint64), params, g.state[:0]) for g in (game, twin)]
        differs_peeking += real[0] != real[1]
    assert tried >= 40
    assert differs_bot == 0
    assert differs_peeking > 0, tried


def test_ascension_mcts_plays_legal_reproducible_games_at_any_thread_count():
    rules = default_rules(4)
    vec = get_policy("ascension", "mcts").default_params.copy()
    vec[0], vec[1] = 6.0, 4.0
    seats = ["mcts", "random", "mcts", "hybrid"]
    runs = [run_games(4, 9, rules, seats, threads=th, params={"mcts": vec}, rotate=True)
            for th in (1, 2, 1)]
    assert np.array_equal(runs[0].records, runs[1].records)
    assert np.array_equal(runs[0].records, runs[2].records)
    ends = runs[0].records[:, S.G_END_REASON]
    assert not (ends == S.END_POLICY_ERROR).any()       # every decision was a legal action


def test_ascension_mcts_compiles_no_staircase_bot_code():
    """Issue 20: `mcts` is a witness independent of stair-builder, blocker and hybrid (a fresh
    process, so that no other test has compiled them)."""
    script = """
import json
from policies.ascension import builder, staircase, strategic
from sim.core.policies import get_policy
from sim.games.ascension.batch import run_games
from sim.games.ascension.rules import default_rules
vec = get_policy("ascension", "mcts").default_params.copy(); vec[0] = 3; vec[1] = 2
run_games(1, 1, default_rules(2), ["mcts", "mcts"], threads=1, params={"mcts": vec})
print(json.dumps({"plan_costs": len(staircase.plan_costs.signatures),
                  "build_origin": len(builder.build_origin.signatures),
                  "hybrid": len(strategic.hybrid.signatures)}))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout
    assert json.loads(out.strip().splitlines()[-1]) == {"plan_costs": 0, "build_origin": 0,
                                                        "hybrid": 0}


def test_the_estimate_ranks_a_winner_first_and_an_eliminated_seat_last(played):
    # A45: once a seat wins, its value is 1 and the others' 0; A38: an eliminated seat has no
    # race progress left
    game, seat = played[-1]
    st = game.state.copy()
    st[S.S_ACTIVE + 1] = 0
    assert search.race_progress(st, game.t, 1, np.empty(81, np.int64),
                                np.empty(81, np.int64)) == 0.0
    st[S.G_OVER], st[S.G_WINNER] = 1, 0
    values = np.zeros(8)
    search.evaluate(st, game.t, values)
    assert values[0] == 1.0 and values[1:].sum() == 0.0


def test_under_partnership_the_estimate_gives_partners_their_team_s_value():  # A48
    """A team wins when either partner wins: the winner's partner scores 1 too, and before the
    end partners share their team's best progress against the other team's."""
    game = AscensionGame(5, players=4, partnership="true")
    rng = np.random.default_rng(5)
    for _ in range(60):
        game.step(int(rng.choice(game.legal_codes())))
    st, values = game.state.copy(), np.zeros(8)
    search.evaluate(st, game.t, values)
    assert values[0] == values[2] and values[1] == values[3]
    assert values[0] + values[1] == pytest.approx(1.0)
    cost, done = np.empty(81, np.int64), np.empty(81, np.int64)
    progress = [search.race_progress(st, game.t, p, cost, done) for p in range(4)]
    assert (values[0] > 0.5) == (max(progress[0], progress[2]) > max(progress[1], progress[3]))
    st[S.G_OVER], st[S.G_WINNER] = 1, 3
    search.evaluate(st, game.t, values)
    assert values[:4].tolist() == [0.0, 1.0, 0.0, 1.0]
    alone = AscensionGame(5, players=4)       # the free-for-all: the winner alone
    st = alone.state.copy()
    st[S.G_OVER], st[S.G_WINNER] = 1, 3
    search.evaluate(st, alone.t, values)
    assert values[:4].tolist() == [0.0, 0.0, 0.0, 1.0]


def test_the_estimate_uses_section_7s_climb_distance():
    # §7: a step costs ceil((|dH| - 1) / 2) piece moves if A30 forbids it now. From its corner
    # (0 hu) onto the 2-hu cubes costs 1, across them 0, up the 9-hu pillar ceil(6 / 2) = 3
    game = AscensionGame(3, players=4)
    cost, done = np.empty(81, np.int64), np.empty(81, np.int64)
    seat = int(game.state[S.G_CURRENT])
    assert search.climb_distance_estimate(game.state, game.t, seat, S.PILLAR, cost, done) == 4
    # a pawn standing on the pillar's neighbour at 8 hu needs nothing more (A30: up 1)
    game.move_pawn_to(seat, 31)
    game.state[S.B_H + 31] = 8
    assert search.climb_distance_estimate(game.state, game.t, seat, S.PILLAR, cost, done) == 0


def test_mcts_hybrid_does_not_peek_and_plays_legal_reproducible_games(played):
    # the same re-dealt positions as above: alike from the view; then legal games at any
    # thread count (its rollouts step without the kernel's legality check)
    policy = get_policy("ascension", "mcts-hybrid").function
    tried = 0
    for game, seat in played[::3]:
        if len(unseen(game.state, seat)) < 20:
            continue
        twin = redealt(game, seat)
        tried += 1
        assert mcts_decision(policy, game, seat, view_of(game, seat), 6, extra=(2.0,)) == \
            mcts_decision(policy, twin, seat, view_of(twin, seat), 6, extra=(2.0,))
    assert tried >= 10
    vec = get_policy("ascension", "mcts-hybrid").default_params.copy()
    vec[0], vec[1] = 3.0, 4.0
    seats = ["mcts-hybrid", "hybrid", "mcts-hybrid", "random"]
    runs = [run_games(3, 9, default_rules(4), seats, threads=th, params={"mcts-hybrid": vec})
            for th in (1, 2)]
    assert np.array_equal(runs[0].records, runs[1].records)
    assert not (runs[0].records[:, S.G_END_REASON] == S.END_POLICY_ERROR).any()


def test_each_imagined_world_numbers_its_decisions_afresh(played):
    # a rollout bot keys its notes by the decision count (policy_api.py); hide_future moves the
    # count far from the real one and from other worlds', so a note never crosses worlds
    game, seat = played[5]
    counts = set()
    stream = np.array([4], np.uint64)
    for _ in range(20):
        st = game.state.copy()
        search.hide_future(st, game.t, seat, stream)
        assert st[S.G_DECISIONS] - game.state[S.G_DECISIONS] >= 1 << 20
        counts.add(int(st[S.G_DECISIONS]))
    assert len(counts) == 20


def test_a_sampled_piece_in_hand_keeps_who_has_looked_at_it(played):
    # A15: who has looked at a piece is public. The view in hand carries it, so after the
    # same placement the sampled and the real game still look alike to the seat (found in
    # review: the sampler had credited only the mover)
    a = np.empty(S.N_ACTIONS, np.int64)
    placed = 0
    for game, seat in played:
        held = int(game.state[S.G_HELD])
        if held < 0 or held >= S.N_CUBES:
            continue
        st = np.empty(S.STATE_SIZE, np.int64)
        assert sample_state(view_of(game, seat), game.t, seat, np.array([2], np.uint64), st)
        assert st[S.B_KNOWN + st[S.G_HELD]] == game.state[S.B_KNOWN + held]
        n = legal_actions(game.state, game.t, a)
        real, sampled = game.state.copy(), st.copy()
        step(real, game.t, a[0], real[:0])
        step(sampled, game.t, a[0], sampled[:0])
        for board, name in ((real, "real"), (sampled, "sampled")):
            twin = AscensionGame(0, players=int(game.state[S.G_N_PLAYERS]))
            twin.state[:] = board
            if name == "real":
                expected = view_of(twin, seat)
            else:
                assert np.array_equal(view_of(twin, seat), expected)
        placed += n > 0
    assert placed >= 5


def test_the_estimate_counts_a_cable_car_ride_as_a_way_out():
    # A31, A32, A38: a pawn whose only legal move is a ride is not blocked. The estimate
    # counts its ways out with the engine's own rule (one ride here), so it takes the
    # one-exit penalty, not the blocked one; a test-local flag for "no penalty" is the
    # bivouac (the estimate skips a pawn that bivouacs)
    g = ride_only_pawn()
    cost, done = np.empty(81, np.int64), np.empty(81, np.int64)
    st = g.state.copy()
    penalised = search.race_progress(st, g.t, 0, cost, done)
    st[S.S_BIV + 0] = 1
    unpenalised = search.race_progress(st, g.t, 0, cost, done)
    assert abs((unpenalised - penalised) - search.BLOCK / 3.0) < 1e-12


@pytest.mark.parametrize("name", ["mcts", "mcts-hybrid"])
def test_the_search_compiles_no_string_code(name):
    """The search and the view's sampler copy arrays with copy_into: a slice assignment would
    link numba's string formatting into them (compiled for nothing at a first run)."""
    from tests.compiled_code import string_code_in
    get_policy("ascension", name)
    compiled, found = string_code_in({"policies.mcts", "policies.ascension.mcts",
                                      "sim.games.ascension.search", "sim.games.ascension.view"})
    assert compiled >= 1
    assert not found
