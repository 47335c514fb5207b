"""First Ascent's search bots (policies/first_ascent/mcts.py): no peeking, the replay from the
segment's checkpoint, determinism at any thread count, legal answers, and strength."""
import numpy as np
import pytest

from sim.core.policies import get_policy
from sim.games.first_ascent import search
from sim.games.first_ascent.batch import run_games
from sim.games.first_ascent.data import N_HEX, N_KINDS, T_B_POOL, T_B_POOL_N, T_KIND_TYPE
from sim.games.first_ascent.engine.board import hex_face_up
from sim.games.first_ascent.memory import (
    SEGMENT_CHECKPOINT, SEGMENT_FIRST, SEGMENT_TURN_SEAT)
from sim.games.first_ascent.policy_api import PolicyContext
from sim.games.first_ascent.positions import capture_position
from sim.games.first_ascent.rules import build_rules
from sim.games.first_ascent.state import (
    BOARD_DOWN, BOARD_UP, CDECK, DECK, DISCARD, D_TURN, G_CDECK_POS, G_DECISIONS, G_DECK_N,
    G_PLAYERS, G_RNG, G_RNG_DRAW, G_RNG_RISK, G_SB_N, G_SIDE, HAND, PILE, PILE_CAP, PILE_N,
    SB_SUPPLY, SEAT_FIELDS, SPREAD, STATE_SIZE, S_PERSONAL, S_SB, TILE)


def decide(name, st, t, work, legal, n, stream_seed=11):
    policy = get_policy("first-ascent", name)
    params = np.zeros(160, np.float64)
    params[:len(policy.default_params)] = policy.default_params
    ctx = PolicyContext(st, t, np.int64(0), np.int64(D_TURN), legal, np.int64(n),
                        np.array([stream_seed], np.uint64), params, work)
    return int(policy.function(ctx))


def tile_values(st, t):
    """tile id -> its value (1-5) on the side in play: the packed pools (F13)."""
    side = int(st[G_SIDE])
    return {int(t[T_B_POOL + 16 * (6 * side + v) + i]): v for v in range(1, 6)
            for i in range(int(t[T_B_POOL_N + 6 * side + v]))}


def face_down_hexes(st, t):
    return [h for h in range(1, N_HEX) if st[TILE + h] and not hex_face_up(st, t, h)]


def hidden_variant(st, t, seat):
    """The same position for `seat` with every hidden thing different: two opponents' hands
    each trade a card with the deck, the deck and the remaining climbing deck reversed, an
    opponent's Summit Beta token swapped with the supply's, the opponents' personal
    objectives rotated, the face-down tiles of each value rotated among their hexes, the
    engine's streams changed."""
    v = st.copy()
    value = tile_values(st, t)
    for val in range(1, 6):
        hexes = [h for h in face_down_hexes(st, t) if value[int(st[TILE + h])] == val]
        for h, g in zip(hexes, hexes[1:] + hexes[:1]):
            v[TILE + g] = st[TILE + h]
    P = int(st[G_PLAYERS])
    n_deck = int(v[G_DECK_N])
    for q in range(P):
        if q == seat:
            continue
        kinds = [k for k in range(1, N_KINDS) if v[HAND + q * N_KINDS + k] > 0]
        for i in range(n_deck):
            if kinds and v[DECK + i] != kinds[0]:
                k_deck = int(v[DECK + i])
                v[DECK + i] = kinds[0]
                v[HAND + q * N_KINDS + kinds[0]] -= 1
                v[HAND + q * N_KINDS + k_deck] += 1
                break
    v[DECK:DECK + n_deck] = v[DECK:DECK + n_deck][::-1].copy()
    pos = int(v[G_CDECK_POS])
    v[CDECK + pos:CDECK + 70] = v[CDECK + pos:CDECK + 70][::-1].copy()
    q = (seat + 1) % P
    held = [b for b in range(1, 13) if v[S_SB + q * SEAT_FIELDS] >> b & 1]
    if held and v[G_SB_N] > 0:
        top = int(v[SB_SUPPLY + v[G_SB_N] - 1])
        v[S_SB + q * SEAT_FIELDS] += (1 << top) - (1 << held[0])
        v[SB_SUPPLY + v[G_SB_N] - 1] = held[0]
    others = [q for q in range(P) if q != seat]
    pos_ = [tuple(st[S_PERSONAL + q * SEAT_FIELDS:S_PERSONAL + q * SEAT_FIELDS + 2])
            for q in others]
    for q, po in zip(others, pos_[1:] + pos_[:1]):
        v[S_PERSONAL + q * SEAT_FIELDS:S_PERSONAL + q * SEAT_FIELDS + 2] = po
    v[G_RNG] ^= 0x5A5A5A5A
    v[G_RNG_RISK] ^= 0x1234567
    v[G_RNG_DRAW] ^= 0x7654321
    return v


def test_hide_future_forgets_the_real_hidden_values():
    # F25: two positions that differ only in what seat 0 cannot know come out of hide_future
    # identical, drawn from the same stream (the kind of check that catches a re-deal that
    # starts from the real order instead of the pooled counts)
    st, t, work, legal, n = capture_position(300)
    v = hidden_variant(st, t, 0)
    assert not np.array_equal(st, v)
    a, b = st.copy(), v.copy()
    scratch = np.zeros(search.HIDE_SCRATCH, np.int64)
    search.hide_future(a, t, 0, np.array([99], np.uint64), -1, scratch)
    search.hide_future(b, t, 0, np.array([99], np.uint64), -1, scratch)
    assert np.array_equal(a, b)
    # and it deals a world, not the real one, with the public facts kept
    assert not np.array_equal(a, st)
    P = int(st[G_PLAYERS])
    total = lambda s, k: (int(s[DECK:DECK + s[G_DECK_N]].tolist().count(k)) + int(s[DISCARD + k])  # noqa: E731
                          + sum(int(s[base + q * N_KINDS + k]) for q in range(P)
                                for base in (HAND, BOARD_UP, BOARD_DOWN))
                          + sum(int(s[PILE + p * PILE_CAP:PILE + p * PILE_CAP + s[PILE_N + p]]
                                    .tolist().count(k)) for p in range(4))
                          + int(s[SPREAD:SPREAD + 4].tolist().count(k)))
    for k in range(1, N_KINDS):
        assert total(a, k) == total(st, k)
    for q in range(P):
        assert a[HAND + q * N_KINDS:HAND + (q + 1) * N_KINDS].sum() == \
            st[HAND + q * N_KINDS:HAND + (q + 1) * N_KINDS].sum()
        assert bin(int(a[S_SB + q * SEAT_FIELDS])).count("1") == \
            bin(int(st[S_SB + q * SEAT_FIELDS])).count("1")
    assert np.array_equal(a[HAND:HAND + N_KINDS], st[HAND:HAND + N_KINDS])     # own hand
    for p in range(4):                       # a Portaledge pile keeps its type
        for i in range(int(a[PILE_N + p])):
            assert t[T_KIND_TYPE + a[PILE + p * PILE_CAP + i]] == p
    assert sorted(a[CDECK + st[G_CDECK_POS]:CDECK + 70]) == \
        sorted(st[CDECK + st[G_CDECK_POS]:CDECK + 70])


def test_hide_future_deals_the_face_down_tiles_anew():
    # F13, F16: before the Headwall shows (decision 100 here), sixteen hexes are face down:
    # only their value shows. Two positions whose face-down tiles differ come out of
    # hide_future identical; a face-up hex keeps its tile, a face-down hex gets a tile of its
    # own value, and no tile is dealt twice
    st, t, work, legal, n = capture_position(100)
    value = tile_values(st, t)
    down = face_down_hexes(st, t)
    up = [h for h in range(1, N_HEX) if st[TILE + h] and hex_face_up(st, t, h)]
    v = hidden_variant(st, t, 0)
    assert up and len(down) == 16 and v[TILE + down[0]] != st[TILE + down[0]]
    a, b = st.copy(), v.copy()
    scratch = np.zeros(search.HIDE_SCRATCH, np.int64)
    search.hide_future(a, t, 0, np.array([99], np.uint64), -1, scratch)
    search.hide_future(b, t, 0, np.array([99], np.uint64), -1, scratch)
    assert np.array_equal(a, b)
    assert [a[TILE + h] for h in up] == [st[TILE + h] for h in up]
    assert [value[int(a[TILE + h])] for h in down] == [value[int(st[TILE + h])] for h in down]
    dealt = [int(a[TILE + h]) for h in range(1, N_HEX) if a[TILE + h]]
    assert len(dealt) == len(set(dealt))
    assert any(a[TILE + h] != st[TILE + h] for h in down)


def test_hide_future_keeps_the_hand_of_the_seat_whose_turn_is_under_way():
    st, t, work, legal, n = capture_position(300)
    a = st.copy()
    scratch = np.zeros(search.HIDE_SCRATCH, np.int64)
    search.hide_future(a, t, 0, np.array([3], np.uint64), 2, scratch)
    assert np.array_equal(a[HAND + 2 * N_KINDS:HAND + 3 * N_KINDS],
                          st[HAND + 2 * N_KINDS:HAND + 3 * N_KINDS])
    assert not np.array_equal(a[HAND + N_KINDS:HAND + 2 * N_KINDS],
                              st[HAND + N_KINDS:HAND + 2 * N_KINDS]) or \
        not np.array_equal(a[HAND + 3 * N_KINDS:HAND + 4 * N_KINDS],
                           st[HAND + 3 * N_KINDS:HAND + 4 * N_KINDS])


def test_the_checkpoint_is_where_the_segment_began():
    # memory.py SEGMENT_*: the engine's checkpoint and its decision count, as a search reads them
    st, t, work, legal, n = capture_position(300)
    check = work[SEGMENT_CHECKPOINT:SEGMENT_CHECKPOINT + STATE_SIZE]
    assert check[G_DECISIONS] == work[SEGMENT_FIRST] <= st[G_DECISIONS]
    assert work[SEGMENT_TURN_SEAT] == 0


@pytest.mark.parametrize("name", ["mcts@8", "mcts-tuned@4"])
def test_no_peeking_at_a_round_start(name):
    # the searched decision is the first of its round (seat 0 moves first and nothing came
    # before), so the checkpoint is the position itself: change every hidden thing in both and
    # the decision stays
    checked = 0
    for seed, target in ((seed, target) for seed in range(5, 9) for target in range(50, 400, 25)):
        try:
            st, t, work, legal, n = capture_position(target, seed)
        except ValueError:          # the game ended before it
            continue
        if st[G_DECISIONS] != work[SEGMENT_FIRST] or n <= 2:
            continue
        v = hidden_variant(st, t, 0)
        work_v = work.copy()
        work_v[SEGMENT_CHECKPOINT:SEGMENT_CHECKPOINT + STATE_SIZE] = v
        a = decide(name, st, t, work.copy(), legal, n)
        b = decide(name, st, t, work_v, legal, n)
        assert a == b, target
        assert a in legal[:n]
        checked += 1
        if checked == 4:
            break
    assert checked == 4, "fewer than 4 rounds began with seat 0's turn"


def test_the_search_replays_the_segment_to_the_decision():
    # deep in a round (many decisions since its checkpoint): the search reaches the same
    # position, or it would answer -1 (the kernel's policy error)
    for target in range(150, 400, 10):
        st, t, work, legal, n = capture_position(target)
        if st[G_DECISIONS] - work[SEGMENT_FIRST] > 10:
            break
    else:
        pytest.fail("no turn of seat 0 came late in its round")
    code = decide("mcts@8", st, t, work, legal, n)
    assert code in legal[:n]
    # a corrupted record of the past is caught, not searched from a wrong position
    bad = work.copy()
    bad[SEGMENT_FIRST] -= 1
    assert decide("mcts@8", st, t, bad, legal, n) == -1


def _records(threads, n_games=4):
    b = run_games(n_games, 2026, build_rules(4), ["mcts@4", "random", "mcts-tuned@2", "tuned"],
                  threads=threads, first_index=3)
    return b.records


def test_same_games_at_any_thread_count():
    one = _records(1)
    assert np.array_equal(one, _records(2))
    assert np.array_equal(one, _records(1))


def test_search_games_end_without_a_policy_error():
    from sim.games.first_ascent.records import games_table
    b = run_games(6, 7, build_rules(3), ["mcts@6", "mcts-tuned@3", "random"], rotate=True)
    games = games_table(b, build_rules(3)).to_pandas()
    assert (games["end_reason"] != "policy_error").all()


def test_mcts_beats_random_by_a_wide_margin():
    from sim.core.stats import wilson_interval
    from sim.games.first_ascent.records import seats_table
    rules = build_rules(4)
    b = run_games(100, 11, rules, ["mcts@16", "random", "random", "random"], rotate=True)
    seats = seats_table(b, rules).to_pandas()
    won = seats[seats["policy"] == "mcts@16"]["won"]
    low, _ = wilson_interval(int(won.sum()), len(won))
    assert low > 0.4            # a random seat's share is about a quarter



def reachable_functions(*roots):
    """Every Python function the roots can call, read from their code: the globals, module
    attributes and closure cells each names, through numba dispatchers to their Python
    functions. Static, so nothing is compiled (a compile of the search takes a minute)."""
    import inspect
    import types
    seen, todo = set(), list(roots)
    while todo:
        fn = todo.pop()
        fn = getattr(fn, "py_func", fn)
        if not isinstance(fn, types.FunctionType) or fn in seen:
            continue
        seen.add(fn)
        codes, names = [fn.__code__], set()
        while codes:
            code = codes.pop()
            names |= set(code.co_names)
            codes += [c for c in code.co_consts if inspect.iscode(c)]
        found = [fn.__globals__.get(n) for n in names]
        found += [getattr(m, n, None) for m in found if inspect.ismodule(m) for n in names]
        for cell in fn.__closure__ or ():
            value = cell.cell_contents
            found += list(value) if isinstance(value, tuple) else [value]
        todo += [f for f in found if callable(f) and not inspect.isclass(f)]
    return seen


def test_the_independent_mcts_reaches_no_planner_or_greedy_code():
    """Issue 20: `mcts` (random rollouts, a generic score-lead estimate) shares no code with
    planner, tuned or greedy; `mcts-tuned` reaches the planner, which shows the check can
    fail."""
    from policies.first_ascent import mcts

    def modules_reached(*roots):     # a search policy, and what hands it its agents
        return {f.__module__ for f in reachable_functions(*roots)}
    bots = {"policies.first_ascent.planner", "policies.first_ascent.greedy",
            "policies.first_ascent.tuned"}
    independent = modules_reached(mcts.mcts_policy, mcts._prepare_random)
    # the walk reaches the search, the shared tree and the engine it plays on
    assert {"sim.games.first_ascent.search", "policies.mcts",
            "sim.games.first_ascent.engine.turn"} <= independent
    assert not independent & bots
    assert "policies.first_ascent.planner" in modules_reached(mcts.mcts_tuned_policy,
                                                              mcts._prepare_tuned)


@pytest.mark.parametrize("name", ["mcts", "mcts-tuned"])
def test_the_search_compiles_no_string_code(name):
    """The search copies arrays with copy_into: a slice assignment would link numba's string
    formatting into it (2 s of a first run, compiled for nothing)."""
    from tests.compiled_code import string_code_in
    get_policy("first-ascent", name)
    compiled, found = string_code_in({"policies.mcts", "policies.first_ascent.mcts",
                                      "sim.games.first_ascent.search"})
    assert compiled >= 2
    assert not found


def test_the_kernel_and_the_search_share_one_compiled_engine():
    """Issue 22: the kernel (play_one) and the search bots' imagined games call the engine
    through engine.play, by address, so numba optimises and compiles its code once, not once
    more inside each of them (about 7 s of a cold start with a search bot)."""
    from policies.first_ascent import mcts
    from sim.games.first_ascent import engine, kernel
    from tests.compiled_code import linked_functions
    run_games(1, 3, seat_policies=["mcts-tuned@2", "random", "random", "random"])
    engine_code = {"10play_round", "13attempt_climb", "14_shortfall_for"}

    def engine_in(dispatcher):
        names = linked_functions(dispatcher)
        assert names                            # compiled in this process, or loaded
        return {part for part in engine_code if any(part in n for n in names)}
    assert engine_in(engine.play) == engine_code
    assert engine_in(kernel.play_one) == set()
    assert engine_in(mcts.search) == set()
