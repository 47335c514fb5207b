"""Ascension bots see only what their seat may know (RULES.md §1.8), draw only from their own
streams, and play legal, reproducible games."""
import numpy as np
import pytest

from asc_helpers import Builder, new_game, sq
from sim.core.policies import get_policy, policy_names
from sim.games.ascension import engine as E
from sim.games.ascension import state as S
from sim.games.ascension.game import AscensionGame
from sim.games.ascension.policy_api import MAX_POLICY_PARAMS, WORK_SIZE, PolicyContext
from sim.games.ascension.rules import C_P_SHAPES, C_PILLAR_PIECE_MOVABLE, default_rules
from sim.games.ascension.view import V_FACE_SHAPES, V_FACE_SYMBOL, V_TOP_H, VIEW_END

BOTS = ["random", "random-safe", "stair-builder", "stair-builder-forgetful", "blocker", "hybrid"]


def test_every_section_7_bot_is_registered():
    assert set(BOTS) <= set(policy_names("ascension"))
    assert get_policy("ascension", "stair-builder").remembers
    assert not get_policy("ascension", "stair-builder-forgetful").remembers


def _hidden_cubes(game, seat):
    """Board tops that are face-down cubes whose face `seat` does not know."""
    out = []
    for s in range(81):
        x = game.top(s)
        if x is not None and x < S.N_CUBES and not game.face_up(x) and not game.knows(seat, x):
            out.append((s, x))
    return out


def _swap_ids(game, a, b):
    """Exchange two pieces everywhere in the state: same board, different hidden faces."""
    st = game.state
    sa, sb = int(st[S.B_P_SQ + a]), int(st[S.B_P_SQ + b])
    for s in (sa, sb):
        base = S.B_STACK + s * S.MAX_STACK_CAP
        for k in range(int(st[S.B_STACK_N + s])):
            if st[base + k] == a:
                st[base + k] = b
            elif st[base + k] == b:
                st[base + k] = a
    for block in (S.B_P_UP, S.B_P_SQ, S.B_KNOWN):
        st[block + a], st[block + b] = st[block + b], st[block + a]


def test_a_view_does_not_change_when_unknown_faces_do():
    """Swapping two face-down cubes that seat 0 has never seen (a ladder for a chasm, say)
    leaves seat 0's view, and so every decision of its bot, unchanged."""
    game = AscensionGame(4, players=4)
    game.play(["stair-builder"] * 4, max_decisions=40)
    hidden = _hidden_cubes(game, 0)
    other = next(x for s, x in hidden if x < 36)              # a neutral cube
    special = next(x for s, x in hidden if x >= 36)           # a drawn one (shapes or symbol)
    before = game.view(0)
    twin = AscensionGame(4, players=4)
    twin.state[:] = game.state
    _swap_ids(twin, special, other)
    assert not np.array_equal(game.state, twin.state)
    assert np.array_equal(before, twin.view(0))
    # the engine, which knows everything, does see the difference
    assert game.top(int(game.state[S.B_P_SQ + special])) != twin.top(
        int(game.state[S.B_P_SQ + special]))


def test_a_view_does_not_change_when_buried_unknown_faces_do():
    """§1.8, §1.4: a covered piece shows nothing (A36), and a seat that never looked at it does
    not know its face, so swapping two unseen cubes that lie under other pieces (a ladder for a
    neutral cube directly under a top, whose face the view's V_UNDER_* block would give away;
    a ★▲ cube for another neutral one two deep, read only by the per-piece slots) leaves that
    seat's view unchanged. _hidden_cubes above only swaps tops."""
    game = new_game(4, seed=3)
    b = Builder(game)
    ladder, shaped, plain_a, plain_b = 67, 44, 5, 6
    b.reserved.update({ladder, shaped, plain_a, plain_b})   # never taken as covers
    for x, s, covers in ((ladder, sq(2, 4), 1), (plain_a, sq(2, 6), 1),
                         (shaped, sq(3, 2), 2), (plain_b, sq(3, 6), 2)):
        b.put(x, s)
        for _ in range(covers):
            b.put(b.take_cube(), s)
    for x in (ladder, shaped, plain_a, plain_b):
        assert not game.face_up(x) and int(game.state[S.B_KNOWN + x]) == 0
        game.set(S.B_KNOWN + x, 0b10)               # seat 1 has looked at all four, seat 0 not
    twin = new_game(4, seed=3)
    twin.state[:] = game.state
    _swap_ids(twin, ladder, plain_a)
    _swap_ids(twin, shaped, plain_b)
    assert game.stack(sq(2, 4))[-2] == ladder and twin.stack(sq(2, 4))[-2] == plain_a
    assert game.stack(sq(3, 2))[-3] == shaped and twin.stack(sq(3, 2))[-3] == plain_b
    for remember in (True, False):
        assert np.array_equal(game.view(0, remember), twin.view(0, remember))
    # the swap is visible to a seat that knows those faces, so the check above can fail
    assert not np.array_equal(game.view(1), twin.view(1))


def test_a_seat_sees_the_faces_it_has_looked_at_and_forgets_them_if_memoryless():
    game = AscensionGame(2, players=2)
    # seat 0 picks the top of (1,1): it learns that cube's face (A15); place it face down
    x = game.top(10)
    game.step(game.legal_actions()[[str(a) for a in game.legal_actions()].index(
        "pick the top of (1,1)")])
    assert game.knows(0, x) and not game.knows(1, x)
    place = next(a for a in game.legal_actions() if not getattr(a, "face_up", True))
    game.step(place)
    s = int(game.state[S.B_P_SQ + x])
    shapes = int(game.rules.config[C_P_SHAPES + x])
    remembered = game.view(0)
    assert remembered[V_FACE_SHAPES + s] == shapes
    assert game.view(1)[V_FACE_SHAPES + s] == -1
    assert game.view(0, remember=False)[V_FACE_SHAPES + s] == -1
    assert game.view(0, remember=False)[V_FACE_SYMBOL + s] == -1
    # no piece id and no seed in a view
    assert (game.view(1)[S.B_P_SQ:S.B_P_SQ + 93] == 0).all()
    assert game.view(1)[S.G_SEED] == 0


@pytest.mark.parametrize("bot", BOTS)
def test_bots_play_legal_reproducible_games(bot):
    a = AscensionGame(9, players=3).play([bot] * 3)
    b = AscensionGame(9, players=3).play([bot] * 3)
    assert a.is_over and a.end_reason in ("win", "cap", "all_eliminated")
    assert np.array_equal(a.state, b.state)
    if bot == "random":
        # the bots' choices come from their own streams (seeded from the game seed by
        # default): another policy seed plays another game from the same setup
        c = AscensionGame(9, players=3).play([bot] * 3, policy_seed=12345)
        assert not np.array_equal(c.state, a.state)


def test_a_view_without_piece_slots_is_the_full_view_with_that_block_zeroed():
    """build_view(piece_slots=False), as the kernel hands it to a bot registered with
    reads_piece_slots=False: every other word equal, the per-piece block zeros, also in a
    buffer that last held another seat's full view (nothing of it left over)."""
    from sim.games.ascension.view import V_SLOT, VIEW_END, WHOLE, build_view
    game = AscensionGame(4, players=4)
    game.play(["stair-builder"] * 4, max_decisions=120)
    buffer = np.empty(S.STATE_SIZE, np.int64)
    for seat in range(4):
        full = game.view(seat)
        build_view(game.state, game.t, (seat + 1) % 4, True, buffer, True, WHOLE)
        assert buffer[V_SLOT:VIEW_END].any()
        build_view(game.state, game.t, seat, True, buffer, False, WHOLE)
        assert np.array_equal(buffer[:V_SLOT], full[:V_SLOT])
        assert not buffer[V_SLOT:].any()
        assert full[V_SLOT:VIEW_END].any()


# games (seed, switches): default rules; the joker's extra move (A57) and turning a piece over
# in place (A56); stacks that pawns do not pin, capped at 3
_VIEW_GAMES = ((0, {}), (4, {"joker_extra_move": "true", "allow_flip_in_place": "true"}),
               (2, {"pawn_pins_stack": "false", "max_stack": 3}))
_VIEW_KINDS = ((True, True), (True, False), (False, True), (False, False))


def _views_built_on_the_last(seed, switches, forget=None):
    """Random play of a four-player game. At every decision, the deciding seat's view built
    on its last one (as the kernel builds it) and built whole, for every kind of view (memory
    of faces, per-piece block). `forget` (None, "versions", "pawns", "locks") makes what the
    last view kept blind to that kind of change, a mutant. Returns (views built on the last,
    those that differ from the whole view)."""
    from sim.games.ascension.engine import lock_against
    from sim.games.ascension.view import (
        ON_LAST, V_KEPT_LOCK, V_KEPT_VERSION, VIEW_KEPT_END, WHOLE, WHOLE_KEPT, build_view)
    game = AscensionGame(seed, players=4, **switches)
    rng = np.random.default_rng(seed)
    last = {}
    checked = differ = 0
    while not game.is_over:
        seat = game.current
        st = game.state
        if switches.get("joker_extra_move") and st[S.G_PHASE] == S.PHASE_ORIGIN and \
                game.turn_count >= 30 and st[S.G_JOKER_STATE] != S.JOKER_BOARD:
            # the joker off the board (in the box, or even retired) put in the hand of the
            # seat to move, made privileged, from a turn where pawns leave their corners (so
            # that a pawn decision follows the joker's, A57): positions no game reaches, but
            # what a view reads of them (the joker's state, the privileged seat) is copied
            game.set(S.G_PRIVILEGED, seat).set(S.G_JOKER_STATE, S.JOKER_HAND)
        for remember, piece_slots in _VIEW_KINDS:
            whole = np.empty(S.STATE_SIZE, np.int64)
            build_view(st, game.t, seat, remember, whole, piece_slots, WHOLE)
            view = last.get((seat, remember, piece_slots))
            if view is None:
                view = np.empty(VIEW_KEPT_END, np.int64)
                build_view(st, game.t, seat, remember, view, piece_slots, WHOLE_KEPT)
            else:
                if forget == "versions":
                    view[V_KEPT_VERSION:V_KEPT_VERSION + S.N_SQUARES] = \
                        st[S.B_VERSION:S.B_VERSION + S.N_SQUARES]
                elif forget == "pawns":
                    view[S.B_PAWN_ON:S.B_PAWN_ON + S.N_SQUARES] = \
                        st[S.B_PAWN_ON:S.B_PAWN_ON + S.N_SQUARES]
                elif forget == "locks":
                    view[V_KEPT_LOCK:V_KEPT_LOCK + S.MAX_PLAYERS] = [
                        lock_against(st, game.t, seat, q) for q in range(S.MAX_PLAYERS)]
                build_view(st, game.t, seat, remember, view, piece_slots, ON_LAST)
                checked += 1
                differ += not np.array_equal(view[:VIEW_END], whole[:VIEW_END])
            last[(seat, remember, piece_slots)] = view
        legal = game.legal_codes()
        action = int(legal[rng.integers(len(legal))])
        if st[S.G_PHASE] == S.PHASE_JOKER and rng.random() < 0.5:
            action = S.JOKER_DECLINE                # one code of many, as often as the rest
        game.step(action)
    return checked, differ


def test_a_view_built_on_the_seats_last_view_is_the_view_built_whole():
    """The kernel keeps each seat's last view and builds the next on it: only the squares
    whose stack or pawn changed since, and those of pieces whose lock for the seat changed
    (view.squares_changed). At every decision of three random games (default rules; the
    joker's extra move, placed and declined, and turning over in place; unpinned stacks
    capped at 3), such a view equals the one built whole, for every kind of view. And each
    of the three kinds of change matters: blind to it, views built on the last differ.
    (The kernel's use of it is held by the recorded outcomes, test_asc_regression.py.)"""
    for seed, switches in _VIEW_GAMES:
        checked, differ = _views_built_on_the_last(seed, switches)
        assert checked > 1000 and differ == 0, (switches, checked, differ)
    for forget in ("versions", "pawns", "locks"):
        assert _views_built_on_the_last(*_VIEW_GAMES[0], forget=forget)[1] > 0, forget


def test_the_kernel_refuses_a_views_buffer_too_short():
    """play_game keeps a view per seat in its `views` buffer (numba checks no bounds): one
    sized for a single view, as before the seats had theirs, is refused, not overrun."""
    from sim.core.seeding import policy_streams
    from sim.games.ascension.batch import policy_slots
    from sim.games.ascension.kernel import play_game
    game = AscensionGame(1, players=4)
    fns, params, views = policy_slots(["random"])
    with pytest.raises(ValueError, match="KERNEL_VIEWS_SIZE"):
        play_game(game.state.copy(), game.t, fns, np.zeros(S.MAX_PLAYERS, np.int64), params,
                  views, policy_streams(np.int64(1), S.MAX_PLAYERS),
                  np.empty(S.N_ACTIONS, np.int64), np.empty(S.STATE_SIZE, np.int64),
                  np.zeros(WORK_SIZE, np.int64), np.empty(10, np.int64))


def _kernel_actions(bots, seed, piece_slots):
    """The actions of the kernel's game `seed` (seat k plays bots[k]), every slot handed views
    with the per-piece block or without (`piece_slots`), whatever its bot registered."""
    from sim.games.ascension.view import KERNEL_VIEWS_SIZE, VIEW_PIECE_SLOTS
    from sim.core.seeding import policy_streams
    from sim.games.ascension.batch import policy_slots
    from sim.games.ascension.kernel import play_game
    game = AscensionGame(seed, players=len(bots))
    names = list(dict.fromkeys(bots))
    fns, params, registered_views = policy_slots(names)
    seat_slots = np.zeros(S.MAX_PLAYERS, np.int64)
    seat_slots[:len(bots)] = [names.index(b) for b in bots]
    views = registered_views | VIEW_PIECE_SLOTS if piece_slots else \
        registered_views & ~VIEW_PIECE_SLOTS
    actions = np.empty(20_000, np.int64)
    n = play_game(game.state.copy(), game.t, fns, seat_slots, params, views,
                  policy_streams(np.int64(seed), S.MAX_PLAYERS), np.empty(S.N_ACTIONS, np.int64),
                  np.empty(KERNEL_VIEWS_SIZE, np.int64), np.zeros(WORK_SIZE, np.int64), actions)
    return actions[:n]


def test_a_bot_registered_without_piece_slots_plays_the_same_games_with_them():
    """A bot registered with reads_piece_slots=False is handed views without the per-piece
    block (build_view's cheaper third): it must not read it. Handed the full views, every
    such bot plays the same games, decision by decision; the search bots, whose sampler reads
    the block, are registered with it."""
    from sim.core.policies import registered_policy
    without = [n for n in policy_names("ascension")
               if not registered_policy("ascension", n).reads_piece_slots]
    assert set(BOTS) <= set(without)
    assert registered_policy("ascension", "mcts").reads_piece_slots
    assert registered_policy("ascension", "mcts-hybrid").reads_piece_slots
    line_ups = [without[k:k + 4] for k in range(0, len(without), 4)]
    line_ups[-1] = (line_ups[-1] + without)[:4]
    for seed, bots in enumerate(line_ups + [list(reversed(without))[:4]], start=1):
        plain = _kernel_actions(bots, seed, False)
        full = _kernel_actions(bots, seed, True)
        assert len(plain) > 100
        assert np.array_equal(plain, full), bots


def _mobility_counted_whole(b, view, t, target, locked_sq):
    """post_repair_mobility as written before it counted only the step a repair changes: the
    target's moves counted whole after every repair."""
    from policies.ascension import board
    s = int(b[S.S_PAWN_SQ + target])
    best = E.count_pawn_moves(b, t, target, s)
    for n in S.NB[s]:
        n = int(n)
        if n < 0:
            break
        if best >= 2:
            return best
        pillar_stays = n == S.PILLAR and not t[C_PILLAR_PIECE_MOVABLE]        # A12(e)
        if b[S.B_STACK_N + n] > 0 and n != locked_sq and b[S.B_PAWN_ON + n] < 0 \
                and b[S.B_SYMBOL + n] != S.SYM_DRAGON and not pillar_stays:
            h = int(view[V_TOP_H + n]) if view[V_TOP_H + n] > 0 else 2
            saved = board.lift_top(b, view, n, h)
            best = max(best, E.count_pawn_moves(b, t, target, s))
            board.restore(b, n, saved)
        if E.place_is_legal(b, t, target, 0, 0, n):
            for h in (1, 2):
                saved = board.put_on(b, n, h, 0, 0)
                best = max(best, E.count_pawn_moves(b, t, target, s))
                board.restore(b, n, saved)
    return best


def test_the_blockers_repair_count_equals_counting_every_move_again():  # A29 A30 A31
    """The blocker's 1-ply (board.post_repair_mobility) counts, after a repair on a neighbour,
    only the step onto it: the same count as counting every move again, on positions of real
    games whose target is walled in by random stacks (ladders, mattresses, chasms), some with
    its pawn on a cable car and other cable cars about."""
    from benchmarks.staircase import recorded_positions
    from policies.ascension import board
    t = default_rules(4).config
    rng = np.random.default_rng(7)
    symbols = (S.SYM_NONE, S.SYM_LADDER, S.SYM_MATTRESS, S.SYM_CHASM, S.SYM_CABLE)
    work = np.zeros(WORK_SIZE, np.int64)
    loops = changed = cables = 0
    for view, _, _, _ in recorded_positions((5,))[::4]:
        for target in range(4):
            s = int(view[S.S_PAWN_SQ + target])
            if s < 0:
                continue
            neighbours = [int(n) for n in S.NB[s] if n >= 0]
            free = [n for n in neighbours if view[S.B_PAWN_ON + n] < 0]
            board.copy_board(view, work)
            if free and rng.random() < 0.3:
                # on a cable car, walled in, the one way out a ride to the cable car on a
                # neighbour's wall: a repair there can end the ride
                for n in free:
                    board.put_on(work, n, 2, 0, 0)
                    board.put_on(work, n, 2, 0, S.SYM_CABLE if n == free[0] else 0)
                work[S.B_SYMBOL + s] = S.SYM_CABLE
                cables += 1
            else:
                for n in free:
                    if rng.random() < 0.8:
                        for _ in range(int(rng.integers(1, 3))):
                            board.put_on(work, n, 2, 0, int(rng.choice(symbols)))
            for locked in (-1, neighbours[0]):
                before = E.count_pawn_moves(work, t, target, s)
                fast = board.post_repair_mobility(work, view, t, target, locked)
                assert fast == _mobility_counted_whole(work.copy(), view, t, target, locked)
                loops += before < 2
                changed += fast != before
    assert loops > 20 and changed > 5 and cables > 5, (loops, changed, cables)


def test_the_blockers_repair_takes_the_pillar_top_only_where_the_rules_let_it():  # A12(e)
    """Under pillar_piece_movable=false no repair takes the pillar's top piece off. Targets
    walled in beside the pillar, a little below its top: the blocker's 1-ply equals the plain
    recount under either setting, and counts fewer moves under `false` wherever only the
    lifted top opened a step (never more)."""
    from benchmarks.staircase import recorded_positions
    from policies.ascension import board
    from sim.games.ascension.rules import build_rules
    movable, fixed = (build_rules(4, {"pillar_piece_movable": v}).config for v in ("true",
                                                                                   "false"))
    work = np.zeros(WORK_SIZE, np.int64)
    held = 0
    for view, _, _, _ in recorded_positions((5,))[::8]:
        for s in (int(n) for n in S.NB[S.PILLAR] if n >= 0):
            if view[S.B_PAWN_ON + s] >= 0 or view[S.S_PAWN_SQ] < 0:
                continue
            board.copy_board(view, work)
            while work[S.B_H + s] < work[S.B_H + S.PILLAR] - 3:
                board.put_on(work, s, 2, 0, 0)
            work[S.B_PAWN_ON + work[S.S_PAWN_SQ]] = -1            # seat 0's pawn moves to s
            work[S.S_PAWN_SQ] = s
            work[S.B_PAWN_ON + s] = 0
            for n in (int(n) for n in S.NB[s] if n >= 0 and n != S.PILLAR):
                while work[S.B_PAWN_ON + n] < 0 and work[S.B_H + n] < work[S.B_H + s] + 3:
                    board.put_on(work, n, 2, 0, 0)
            counts = []
            for t in (movable, fixed):
                counts.append(board.post_repair_mobility(work, view, t, 0, -1))
                assert counts[-1] == _mobility_counted_whole(work.copy(), view, t, 0, -1)
            assert counts[1] <= counts[0]
            held += counts[1] < counts[0]
    assert held > 0


def test_the_builders_lookups_answer_as_a_scan_would():
    """The builder asks whether a code is legal by bisection (legal_has) and where a square
    lies on its plan from an index (plan_places, W_PLAN_AT); both answer as a scan of the list
    does, on plans that hold a square twice and on stale squares past the plan's length."""
    from policies.ascension import builder as B
    from policies.ascension import staircase as SC
    rng = np.random.default_rng(7)
    work = np.zeros(SC.W_END, np.int64)
    for _ in range(200):
        n_legal = int(rng.integers(0, 40))
        legal = np.sort(rng.choice(2 * S.N_SQUARES + 3, n_legal, replace=False))
        legal = np.concatenate([legal, rng.integers(0, 999, 5)]).astype(np.int64)
        for code in range(-1, 2 * S.N_SQUARES + 4):
            assert B.legal_has(legal, n_legal, code) == (code in legal[:n_legal])
        work[SC.W_PLAN:SC.W_PLAN + S.N_SQUARES + 1] = rng.integers(0, S.N_SQUARES,
                                                                   S.N_SQUARES + 1)
        n = int(rng.integers(0, S.N_SQUARES + 1))
        B.plan_places(work, n)
        plan = list(work[SC.W_PLAN:SC.W_PLAN + n])
        for s in range(S.N_SQUARES):
            assert work[SC.W_PLAN_AT + s] == (plan.index(s) if s in plan else -1)


def test_an_origin_decision_s_stash_clears_the_other_kind():
    """A build stash and a target stash exclude each other by key, not only because decision
    counts never repeat in one game's memory: each clears the other's key, so that a place
    decision can never read a build and a target both, even where counts start over (a
    search's imagined games)."""
    from policies.ascension import builder
    from policies.ascension.staircase import W_STASH
    view = AscensionGame(21, players=4).view(0)
    codes = np.zeros(S.N_ACTIONS, np.int64)
    work = np.zeros(WORK_SIZE, np.int64)
    origin = view.copy()
    place = view.copy()
    place[S.G_DECISIONS] = origin[S.G_DECISIONS] + 1
    builder.stash_target(_ctx(origin, 0, S.PHASE_ORIGIN, codes, 0, work), np.int64(2))
    builder.stash(_ctx(origin, 0, S.PHASE_ORIGIN, codes, 0, work), np.int64(40), np.int64(5))
    assert builder.stashed_target(_ctx(place, 0, S.PHASE_PLACE, codes, 0, work)) == -2
    builder.stash_target(_ctx(origin, 0, S.PHASE_ORIGIN, codes, 0, work), np.int64(2))
    assert builder.stashed_target(_ctx(place, 0, S.PHASE_PLACE, codes, 0, work)) == 2
    assert work[W_STASH] != place[S.G_DECISIONS]          # no build stashed for it


def test_a_place_after_an_origin_that_did_not_build_plans_afresh():
    """The blocker's and the hybrid's origin decision stashes whom it blocked, -1 where it
    drew an exploring origin, and no destination. Their place decision then builds, where it
    does not block, as the stair builder's does after an exploring origin: on a plan made
    afresh for the place decision. It never reads the destination and plan length that the
    game's last build stashed (the seats share the memory), which are another decision's,
    often another seat's. Both ways there: an exploring origin, and a block whose placement
    finds no move that hurts its target."""
    from policies.ascension import builder, strategic
    rng = np.random.default_rng(5)
    game = AscensionGame(21, players=4)
    explored = failed_blocks = 0
    while not game.is_over and explored < 120:
        legal = game.legal_codes()
        if game.phase == "place" and len(legal) > 1:
            seat = game.current
            view = game.view(seat)
            codes = np.zeros(S.N_ACTIONS, np.int64)
            codes[:len(legal)] = legal
            targets = [-1]
            for q in range(4):
                # a rival the place decision cannot hurt: the block falls to the build
                if q != seat and view[S.S_ACTIVE + q] and view[S.S_PAWN_SQ + q] >= 0 and \
                        builder.block_move(_ctx(view, seat, S.PHASE_PLACE, codes, len(legal),
                                                np.zeros(WORK_SIZE, np.int64)), q, True) < 0:
                    targets.append(q)
                    break
            stale_code = int(rng.choice([c for c in legal if c < 2 * S.N_SQUARES]))
            for target in targets:
                answers = []
                for stale in (False, True):
                    work = np.zeros(WORK_SIZE, np.int64)
                    if stale:
                        # a build stashed three decisions ago (another seat's), then this
                        # seat's origin decision, which blocked `target` or explored
                        earlier = view.copy()
                        earlier[S.G_DECISIONS] -= 3
                        builder.stash(_ctx(earlier, seat, S.PHASE_ORIGIN, codes, 0, work),
                                      np.int64(stale_code >> 1), np.int64(S.N_SQUARES))
                        origin = view.copy()
                        origin[S.G_DECISIONS] -= 1
                        builder.stash_target(_ctx(origin, seat, S.PHASE_ORIGIN, codes, 0, work),
                                             np.int64(target))
                    ctx = _ctx(view, seat, S.PHASE_PLACE, codes, len(legal), work)
                    answers.append(strategic.place_after(ctx))
                assert answers[0] == answers[1], (target, answers)
                if target < 0:
                    explored += 1
                else:
                    failed_blocks += 1
        game.step(int(rng.choice(legal)))
    assert explored == 120 and failed_blocks > 20, (explored, failed_blocks)


def _ctx(view, seat, phase, legal, n_legal, work):
    return PolicyContext(view, np.int64(seat), np.int64(phase), legal, np.int64(n_legal),
                         default_rules(4).config, np.array([77], np.uint64),
                         np.zeros(MAX_POLICY_PARAMS, np.float64), work)
