"""The goal-directed bots' staircase search (policies/ascension/staircase.py, RULES.md §7's
climb distance) against a plain reading of its definition, on positions of real
`stair-builder` games.

The reference below is written from the module's own definition: a node is (square, target
height); standing on s at height g costs the piece moves that make s stand at g (x
MOVE_WEIGHT) plus 1 per pawn step, a step must be legal by height (A30), and the cost to go
is the least total to the goal. It is a textbook Dijkstra with a heap over every node, with
none of the search's bucket queue, early stop or reused memory."""
import heapq

import numpy as np
import pytest

from benchmarks.staircase import recorded_positions
from policies.ascension import board, builder, strategic
from policies.ascension import staircase as SC
from policies.ascension.board import copy_board
from sim.games.ascension import engine as E
from sim.games.ascension import state as S
from sim.games.ascension.game import AscensionGame
from sim.games.ascension.policy_api import MAX_POLICY_PARAMS, WORK_SIZE, PolicyContext
from sim.games.ascension.rules import (
    C_CORNER_OF, C_MATTRESS_FROM, C_MAX_STACK, C_PAWN_PINS, C_SHAPE_OF, build_rules,
    default_rules)
from sim.games.ascension.view import V_TOP_H

CORNERS = (0, 8, 72, 80)


@pytest.fixture(scope="module")
def positions():
    """(view, seat, the pawn decision's squares, rules) of every origin and pawn decision of
    two stair-builder games."""
    t = default_rules(4).config
    return [(view, seat, squares, t) for view, seat, squares, _ in recorded_positions((3, 11))]


def _edit_moves(b, t, seat, s, g, top_height):
    """Piece moves that make s stand at g and be enterable by seat (or, for the own pawn's
    square, stood on); None: never."""
    h = b[S.B_H + s]
    occupant = b[S.B_PAWN_ON + s]
    sym = b[S.B_SYMBOL + s]
    shp = b[S.B_SHAPES + s]
    own = occupant == seat
    if occupant >= 0 and not own:
        return None                                                       # A29
    if own and t[C_PAWN_PINS]:
        return 0 if g == h else None                                      # A37
    if s in CORNERS and s != t[C_CORNER_OF + seat] and not own:
        return None                                                       # A29(b)
    if s == S.PILLAR and not S.PILLAR_BASE <= g <= S.PILLAR_BASE + 2:
        return None                                                       # A27
    if sym == S.SYM_DRAGON:
        return 0 if g == h else None
    if s == S.PILLAR and g > h > S.PILLAR_BASE:
        return None if own else 2         # A27: one piece on the pillar, so take it off first
    if g == h:
        # D3's variant (pawn_pins_stack=false): the own pawn stands there, and standing is not
        # entering (A50)
        foreign = shp != 0 and (shp & t[C_SHAPE_OF + seat]) == 0
        return None if (sym == S.SYM_CHASM or foreign) and not own else 0
    if own:
        # the pawn steps off in the turn its square changes (A28): one move, a piece slid
        # under it (if the cap leaves room) or its top taken
        room = s == S.PILLAR or b[S.B_STACK_N + s] < t[C_MAX_STACK]
        return 1 if (g - h in (1, 2) and room) or h - g == top_height else None
    if g > h:
        pieces = (g - h + 1) // 2                   # cubes of 2 hu, a half-cube for an odd gap
        full = s != S.PILLAR and b[S.B_STACK_N + s] + pieces > t[C_MAX_STACK]
        return None if full else pieces                                   # A24, A55
    drop = h - g
    if drop % 2 == 0 or top_height == 1:
        return (drop + 1) // 2
    return drop // 2 + 2                            # lift cubes, then add a half-cube


def test_the_edit_cost_table_holds_edit_cost():  # A24 A27 A29 A37 A55
    """The search reads a square's edit costs from EDIT_COSTS (edit_cost itself on the
    pillar), and never relaxes a target past cap_reach (the stack cap, A24): for every kind,
    top, room left under the cap and height up to 255 hu, the cost it reads at every target is
    edit_cost's, or both are over MAX_COST (unreachable alike)."""
    kinds = (SC.OPEN, SC.SHOWS_BARRED, SC.OWN_PAWN, SC.CLOSED, SC.FROZEN, SC.OWN_FREE)
    differ = []
    capped = 0
    for kind in kinds:
        for top in (0, SC.FACTS_HALF_TOP):
            for room in range(SC.ROOM_ENOUGH + 1):
                for h in range(256):
                    facts = kind | (h << SC.FACTS_H_SHIFT) | top | (room << SC.FACTS_ROOM_SHIFT)
                    row = SC.edit_row.py_func(facts)
                    reach = SC.cap_reach.py_func(facts)
                    for g in range(SC.NH):
                        exact = SC.edit_cost.py_func(S.PILLAR + 1, g, facts)
                        read = SC.EDIT_COSTS[row + g] if (reach >> g) & 1 else SC.INF
                        capped += exact >= SC.INF and SC.EDIT_COSTS[row + g] <= SC.MAX_COST
                        if exact != read and min(exact, read) <= SC.MAX_COST:
                            differ.append((kind, top, room, h, g, exact, read))
    assert differ == []
    assert capped > 0                         # the cap does close targets the table holds


def _step_is_legal(b, t, s, g_s, d, g_d):
    """A30 on target heights: up 1, or 2 off a ladder s shows at its height; down 1, or 2
    onto a mattress d shows at its height (switch mattress_mode=from: off a mattress s shows
    at its height)."""
    up = 2 if b[S.B_SYMBOL + s] == S.SYM_LADDER and g_s == b[S.B_H + s] else 1
    mattress = (s, g_s) if t[C_MATTRESS_FROM] else (d, g_d)
    down = 2 if (b[S.B_SYMBOL + mattress[0]] == S.SYM_MATTRESS
                 and mattress[1] == b[S.B_H + mattress[0]]) else 1
    return -down <= g_d - g_s <= up


def _reference_costs(b, t, seat, top_heights):
    """Cost to go of every node (None: unreachable within MAX_COST), and each node's edit
    cost."""
    nh = SC.NH
    edit = {}
    for s in range(S.N_SQUARES):
        for g in range(nh):
            m = _edit_moves(b, t, seat, s, g, top_heights[s])
            if m is not None:
                edit[(s, g)] = m * SC.MOVE_WEIGHT
    goal = t[C_CORNER_OF + seat] if b[S.S_SUMMIT + seat] else S.PILLAR
    cost = {}
    heap = [(edit[(goal, g)], goal, g) for g in range(nh) if (goal, g) in edit]
    heapq.heapify(heap)
    while heap:
        c, d, g_d = heapq.heappop(heap)
        if (d, g_d) in cost or c > SC.MAX_COST:
            continue
        cost[(d, g_d)] = c
        for s in S.NB[d]:
            if s < 0:
                break
            for g_s in range(nh):
                if (s, g_s) in edit and (s, g_s) not in cost and \
                        _step_is_legal(b, t, s, g_s, d, g_d):
                    heapq.heappush(heap, (c + 1 + edit[(s, g_s)], s, g_s))
    return cost, edit


def _reference_start(b, t, ref, s, top_height):
    """The node a pawn standing on s starts from: s at its height; under pawn_pins_stack=false
    (D3, A50: pieces may be slid under the pawn or taken from it) the cheapest of s's nodes one
    move away (the pawn steps off in the turn its square changes, A28: its height, 1 or 2 hu
    more where the cap leaves room, or its top taken), the lowest among equals."""
    h = int(b[S.B_H + s])
    if t[C_PAWN_PINS]:
        return (s, h)
    room = b[S.B_STACK_N + s] < t[C_MAX_STACK] if s != S.PILLAR else h == S.PILLAR_BASE  # A27
    near = {h, h - (top_height if top_height else 2)} | ({h + 1, h + 2} if room else set())
    reached = [(ref[(s, g)], g) for g in sorted(near) if (s, g) in ref]
    return (s, min(reached)[1]) if reached else (s, h)


def _search(view, seat, legal, t, work):
    """plan_costs on the view as the bots call it; (distance, the pawn's and the wanted
    squares' costs, the extracted plan)."""
    copy_board(view, work)
    wanted = np.array(legal + [0], np.int64)
    distance = SC.plan_costs(work, t, np.int64(seat), work, view[V_TOP_H:V_TOP_H + S.N_SQUARES],
                             wanted, np.int64(len(legal)))
    costs = [int(SC.standing_cost(work, t, work, s)) for s in legal]
    n = SC.extract_plan(work, t, np.int64(seat), work) if distance < SC.INF else 0
    plan = [(int(work[SC.W_PLAN + i]), int(work[SC.W_PLAN_G + i])) for i in range(n)]
    return int(distance), costs, plan


def _assert_search_is_the_reference(view, seat, legal, t, work):
    """The climb distance, the pawn decision's costs and the plan at one position agree with
    the reference; returns whether the pawn reaches its goal."""
    b = view
    tops = view[V_TOP_H:V_TOP_H + S.N_SQUARES]
    ref, edit = _reference_costs(b, t, seat, tops)
    distance, costs, plan = _search(view, seat, legal, t, work)
    pawn = int(b[S.S_PAWN_SQ + seat])
    start = _reference_start(b, t, ref, pawn, tops[pawn])
    for s, c in zip(legal, costs):
        node = _reference_start(b, t, ref, s, tops[s])
        assert c == ref.get(node, SC.INF), (s, c, ref.get(node))
    if start not in ref:
        assert distance == SC.INF and plan == []
        return False
    assert distance == ref[start] // SC.MOVE_WEIGHT
    # the plan: from the pawn to the goal, legal steps, and its cost is the least
    assert plan[0] == start
    goal = t[C_CORNER_OF + seat] if b[S.S_SUMMIT + seat] else S.PILLAR
    assert plan[-1][0] == goal
    total = sum(edit[node] for node in plan) + len(plan) - 1
    assert total == ref[start]
    for (s, g_s), (d, g_d) in zip(plan, plan[1:]):
        assert d in S.NB[s] and _step_is_legal(b, t, s, g_s, d, g_d)
    return True


def test_the_staircase_search_finds_the_least_cost_plan(positions):  # A27 A29 A30 A37
    """The climb distance, the pawn decision's costs and the plan the bots follow agree with
    a plain Dijkstra over every node, at every captured position."""
    work = np.zeros(WORK_SIZE, np.int64)
    checked = positions[::10]                 # the reference is slow Python: one in ten
    reached = sum(_assert_search_is_the_reference(*position, work) for position in checked)
    assert reached > 0.9 * len(checked)


@pytest.mark.parametrize("mattress_mode", ["onto", "from"])
def test_the_staircase_search_reads_the_mattress_switch(positions, mattress_mode):  # A30
    """A30's 2-hu drop, onto a shown mattress or (switch mattress_mode=from) off one, in the
    search as in the reference: two captured positions with a mattress shown on squares where
    the two readings give the pawn other climb costs."""
    t = build_rules(4, {"mattress_mode": mattress_mode}).config
    onto = default_rules(4).config
    work = np.zeros(WORK_SIZE, np.int64)
    readings_differ = 0
    for index, squares in ((56, (18, 27, 37)), (140, (28, 54, 63, 65, 73))):
        view, seat, legal, _ = positions[index]
        for square in squares:
            assert view[S.B_SYMBOL + square] == 0
            shown = view.copy()
            shown[S.B_SYMBOL + square] = S.SYM_MATTRESS
            _assert_search_is_the_reference(shown, seat, legal, t, work)
            pawn = int(shown[S.S_PAWN_SQ + seat])
            start = (pawn, int(shown[S.B_H + pawn]))
            tops = shown[V_TOP_H:V_TOP_H + S.N_SQUARES]
            readings_differ += (_reference_costs(shown, t, seat, tops)[0].get(start)
                                != _reference_costs(shown, onto, seat, tops)[0].get(start))
    assert readings_differ == (0 if mattress_mode == "onto" else 8)


def test_the_pillar_takes_one_piece():  # A27
    """The pillar holds one piece: from its half-cube (10 hu) to 11 hu is two moves (the half
    off, a cube on), not one; from the bare base (9 hu) one move reaches 10 or 11 hu."""
    half = SC.OPEN | ((S.PILLAR_BASE + 1) << SC.FACTS_H_SHIFT) | SC.FACTS_HALF_TOP | \
        (SC.ROOM_ENOUGH << SC.FACTS_ROOM_SHIFT)
    bare = SC.OPEN | (S.PILLAR_BASE << SC.FACTS_H_SHIFT) | (SC.ROOM_ENOUGH << SC.FACTS_ROOM_SHIFT)
    cost = SC.edit_cost.py_func
    assert cost(S.PILLAR, S.PILLAR_BASE + 2, half) == 2 * SC.MOVE_WEIGHT
    assert cost(S.PILLAR, S.PILLAR_BASE + 2, bare) == SC.MOVE_WEIGHT
    assert cost(S.PILLAR, S.PILLAR_BASE + 1, bare) == SC.MOVE_WEIGHT
    assert cost(S.PILLAR, S.PILLAR_BASE, half) == SC.MOVE_WEIGHT
    whole = SC.OPEN | ((S.PILLAR_BASE + 2) << SC.FACTS_H_SHIFT) | \
        (SC.ROOM_ENOUGH << SC.FACTS_ROOM_SHIFT)
    assert cost(S.PILLAR, S.PILLAR_BASE + 1, whole) == 2 * SC.MOVE_WEIGHT   # cube off, half on
    # a pawn standing there may change it by one move only (A28): from the half-cube, down
    own_free = half & ~7 | SC.OWN_FREE
    assert cost(S.PILLAR, S.PILLAR_BASE + 2, own_free) >= SC.INF
    heights = SC.one_move_heights.py_func
    assert heights(S.PILLAR, half) == 1 << S.PILLAR_BASE | 1 << (S.PILLAR_BASE + 1)
    assert heights(S.PILLAR, bare) >> S.PILLAR_BASE == 0b111     # (below it edit_cost says INF)


def test_a_cap_of_cap_never_binds_leaves_room_for_every_target():  # A24 A55 D34
    """The search reads each square's room under the stack cap only under a cap below
    CAP_NEVER_BINDS. At that cap or more, every square below NH hu has room for its every
    target (a square of h hu holds between h / 2 and h pieces); one less does not."""
    def binds(cap):
        return any((g - h + 1) // 2 > cap - pieces
                   for h in range(SC.NH) for pieces in range((h + 1) // 2, h + 1)
                   for g in range(h + 1, SC.NH))
    assert not binds(SC.CAP_NEVER_BINDS) and binds(SC.CAP_NEVER_BINDS - 1)
    assert default_rules(4).config[C_MAX_STACK] >= SC.CAP_NEVER_BINDS


def _own_square_differs(view, seat, t):
    """Whether the reference climb distance differs from that of the defaults."""
    pawn = int(view[S.S_PAWN_SQ + seat])
    tops = view[V_TOP_H:V_TOP_H + S.N_SQUARES]
    defaults = default_rules(4).config
    ref, _ = _reference_costs(view, t, seat, tops)
    ref_default, _ = _reference_costs(view, defaults, seat, tops)
    return ref.get(_reference_start(view, t, ref, pawn, tops[pawn])) != \
        ref_default.get(_reference_start(view, defaults, ref_default, pawn, tops[pawn]))


@pytest.mark.parametrize("switches", [{"max_stack": 4}, {"max_stack": 1},
                                      {"pawn_pins_stack": "false"},
                                      {"pawn_pins_stack": "false", "max_stack": 3}])
def test_the_staircase_search_reads_the_stack_switches(positions, switches):
    # A24 A37 A50 A55 D3 D34: the search reads the stack cap (a square takes no more pieces
    # than max_stack leaves room for) and pawn_pins_stack (false: pieces may be slid under the
    # own pawn or taken from under it, so a pawn's cost is its square's cheapest height), as
    # the reference does, on captured positions where the switch changes the climb distance
    t = build_rules(4, switches).config
    work = np.zeros(WORK_SIZE, np.int64)
    changed = 0
    for view, seat, legal, _ in positions[::12]:
        _assert_search_is_the_reference(view, seat, legal, t, work)
        changed += _own_square_differs(view, seat, t)
    assert changed > 0, "no position where the switch matters: the test would test nothing"


def test_the_search_does_not_depend_on_what_its_memory_held(positions):
    """The bots reuse one work memory for a whole game (the search leaves its bucket queue
    as it was and clears only what it used): every answer equals the one on a zeroed
    memory."""
    reused = np.zeros(WORK_SIZE, np.int64)
    for view, seat, legal, t in positions:
        assert _search(view, seat, legal, t, reused) == \
            _search(view, seat, legal, t, np.zeros(WORK_SIZE, np.int64))


def _inexact_candidate_reads(view, seat, legal, t, work):
    """candidate_costs on a pawn decision's candidates, with and without the pawn's own
    square (STAY): checks that every candidate but at most one is read at its cost, and that
    the one left is read at no less than its cost and costs at least 1 more than every other;
    returns how many were left."""
    b = view
    tops = view[V_TOP_H:V_TOP_H + S.N_SQUARES]
    ref, _ = _reference_costs(b, t, seat, tops)
    pawn = int(b[S.S_PAWN_SQ + seat])
    left = 0
    for with_pawn in (False, True):
        squares = legal + ([pawn] if with_pawn else [])
        copy_board(view, work)
        SC.candidate_costs(work, t, np.int64(seat), work, view[V_TOP_H:V_TOP_H + S.N_SQUARES],
                           np.array(legal + [0], np.int64), np.int64(len(legal)), with_pawn)
        read = [int(SC.standing_cost(work, t, work, s)) for s in squares]
        true = [ref.get(_reference_start(b, t, ref, s, tops[s]), SC.INF) for s in squares]
        inexact = [i for i in range(len(squares)) if read[i] != true[i]]
        assert len(inexact) <= 1
        for i in inexact:
            left += 1
            assert read[i] > true[i]
            assert all(true[i] >= true[j] + 1 for j in range(len(squares)) if j != i)
    return left


def test_the_pawn_decision_reads_every_cost_but_the_dearest_exactly(positions):  # A30
    """candidate_costs stops with one candidate without its cost: every other candidate's is
    exact, and the one left is read at no less than its cost and above every other by at
    least 1, so a choice of the least cost (4 x cost less at most 2) cannot change."""
    work = np.zeros(WORK_SIZE, np.int64)
    left_without_cost = sum(_inexact_candidate_reads(view, seat, legal, t, work)
                            for view, seat, legal, t in [p for p in positions if p[2]][::6])
    # the saving is real: the search did stop short in some positions
    assert left_without_cost > 0


@pytest.mark.parametrize("switches", [{"max_stack": 4}, {"pawn_pins_stack": "false"},
                                      {"pawn_pins_stack": "false", "max_stack": 3}])
def test_the_pawn_decision_reads_the_stack_switches(positions, switches):
    # A24 A28 A50 D3 D34: the pawn decision's costs under the stack switches, as the reference
    # reads them (under pawn_pins_stack=false a square's cheapest height one move away, and
    # every cost exact: the search runs to its bound there)
    t = build_rules(4, switches).config
    work = np.zeros(WORK_SIZE, np.int64)
    left = sum(_inexact_candidate_reads(view, seat, legal, t, work)
               for view, seat, legal, _ in [p for p in positions if p[2]][::12])
    if switches.get("pawn_pins_stack") == "false":
        assert left == 0


def test_a_candidate_too_high_to_search_for_makes_the_search_cost_every_other():  # A30 A34
    """A cable car (A34) can take a pawn to a square of NH hu or more, which no search node
    holds: it reads INF. Left without its cost, another candidate would read INF too and tie
    with it. Seat 0 rides a cable from square 60 (row 6) to square 1 (16 hu) or square 4
    (4 hu)."""
    game = AscensionGame(1, 4)
    st = game.state
    for q in range(4):                                    # every pawn off the board
        if st[S.S_PAWN_SQ + q] >= 0:
            st[S.B_PAWN_ON + st[S.S_PAWN_SQ + q]] = -1
            st[S.S_PAWN_SQ + q] = -1
    game.move_piece_to(64, 60, face_up=True)
    for x in range(8):                                   # neutral cubes: 16 hu under the cable
        game.move_piece_to(x, 1)
    game.move_piece_to(65, 1, face_up=True)
    game.move_piece_to(66, 4, face_up=True)
    game.move_pawn_to(0, 60)
    view = game.view(0)
    out = np.empty(S.N_ACTIONS, np.int64)
    legal = [int(c) for c in out[:E.pawn_moves(st, game.t, 0, 60, out)]]
    assert 1 in legal and 4 in legal and view[S.B_H + 1] >= SC.NH
    assert _inexact_candidate_reads(view, 0, legal, game.t, np.zeros(WORK_SIZE, np.int64)) == 0


def _exact_distance(view, seat, t, work):
    copy_board(view, work)
    return int(SC.plan_costs(work, t, np.int64(seat), work,
                             view[V_TOP_H:V_TOP_H + S.N_SQUARES], np.zeros(1, np.int64),
                             np.int64(0)))


def test_a_bounded_search_reads_a_distance_within_its_bound_exactly(positions):
    """climb_distance_within, the strategic bots' search for an opponent's distance: the
    distance where it is at most the bound, INF where it is more (its search stopped
    early), and nothing searched for a bound below 0."""
    work = np.zeros(WORK_SIZE, np.int64)
    stopped_short = 0
    for view, _, _, t in positions[::5]:
        for q in range(4):
            if view[S.S_PAWN_SQ + q] < 0:
                continue
            exact = _exact_distance(view, q, t, work)
            for most in sorted({-1, 0, 1, exact - 2, exact - 1, exact, exact + 1, 63}):
                copy_board(view, work)
                read = SC.climb_distance_within(work, t, np.int64(q), work,
                                                view[V_TOP_H:V_TOP_H + S.N_SQUARES],
                                                np.int64(most))
                assert read == (exact if exact <= most else SC.INF), (q, most, exact, read)
                stopped_short += exact < SC.INF and most < exact
    assert stopped_short > 0


def _with_summit_variants(positions):
    """Each position, and variants: the next active opponent holds summit status (A40), once
    privileged, once not (the hybrid targets only a privileged one); the own pawn off the board
    (no own distance); the next opponent out of the game."""
    for view, seat, squares, t in positions:
        yield view, seat, squares, t
        pawn = view[S.S_PAWN_SQ + seat]
        if pawn >= 0:
            variant = view.copy()
            variant[S.B_PAWN_ON + pawn] = -1
            variant[S.S_PAWN_SQ + seat] = -1
            yield variant, seat, squares, t
        out = view.copy()
        out[S.S_ACTIVE + (seat + 1) % 4] = 0
        yield out, seat, squares, t
        q = next((q for q in range(1, 4) if view[S.S_ACTIVE + (seat + q) % 4]), None)
        if q is None or view[S.G_PRIVILEGED] >= 0:
            continue
        q = (seat + q) % 4
        for privileged in (q, -1):
            variant = view.copy()
            variant[S.S_SUMMIT + q] = 1
            variant[S.G_PRIVILEGED] = privileged
            yield variant, seat, squares, t


def _context(view, seat, t, work):
    return PolicyContext(view, np.int64(seat), np.int64(S.PHASE_ORIGIN),
                         np.zeros(S.N_ACTIONS, np.int64), np.int64(0), t,
                         np.zeros(1, np.uint64), np.zeros(MAX_POLICY_PARAMS, np.float64), work)


@pytest.mark.parametrize("hybrid_k", [-1.0, -0.0, 0.0, 2.0 ** -51, 1.5 * 2.0 ** -50, 1.0, 2.0,
                                      3.5, 1e9, float("inf"), float("nan")])
def test_the_target_choice_is_the_same_on_bounded_distances(positions, hybrid_k):
    """climb_distances bounds the opponents' searches (the hybrid by its own distance less
    k, the blocker by the nearest found so far) and skips them where a seat with summit
    status is the target: the hybrid's and the blocker's target, the own distance and the
    own plan left for the move are those read off every seat's exact distance, also for a k
    so small that d - k and e + k round apart."""
    work = np.zeros(WORK_SIZE, np.int64)
    bounded = np.zeros(S.MAX_PLAYERS, np.int64)
    exact = np.full(S.MAX_PLAYERS, -1, np.int64)
    targets = set()
    for view, seat, _, t in _with_summit_variants(positions[::3]):
        exact[:] = -1
        for q in range(4):
            if view[S.S_ACTIVE + q]:
                exact[q] = _exact_distance(view, q, t, work)
        _exact_distance(view, seat, t, work)              # the own search last, for its plan
        n_plan = SC.extract_plan(work, t, np.int64(seat), work) if exact[seat] < SC.INF else 0
        plan = work[SC.W_PLAN:SC.W_PLAN + n_plan].copy(), \
            work[SC.W_PLAN_G:SC.W_PLAN_G + n_plan].copy()
        ctx = _context(view, seat, t, work)
        assert builder.climb_distances(ctx, bounded, hybrid_k) == n_plan
        assert bounded[seat] == exact[seat]
        assert np.array_equal(work[SC.W_PLAN:SC.W_PLAN + n_plan], plan[0])
        assert np.array_equal(work[SC.W_PLAN_G:SC.W_PLAN_G + n_plan], plan[1])
        target = strategic.choose_target(ctx, exact, hybrid_k)
        assert strategic.choose_target(ctx, bounded, hybrid_k) == target
        targets.add(target)
    assert len(targets) > 1           # the positions give the choice something to choose


@pytest.mark.parametrize("partnership", ["false", "true"])
def test_the_blocker_and_the_hybrid_never_target_a_partner(positions, partnership):  # A48
    """Under the switch partnership, seats 0+2 play against 1+3 and a team wins when either
    partner wins: the blocker's leader and the hybrid's target are always opponents (without
    the switch, the same positions give seats of the own parity as targets)."""
    t = build_rules(4, {"partnership": partnership}).config
    work = np.zeros(WORK_SIZE, np.int64)
    distances = np.zeros(S.MAX_PLAYERS, np.int64)
    targets = partners = 0
    for view, seat, _, _ in _with_summit_variants(positions[::3]):
        ctx = _context(view, seat, t, work)
        for hybrid_k in (-1.0, 1.0):
            builder.climb_distances(ctx, distances, hybrid_k)
            target = strategic.choose_target(ctx, distances, hybrid_k)
            if target >= 0:
                targets += 1
                partners += target % 2 == seat % 2
    assert targets > 20
    assert (partners == 0) if partnership == "true" else (partners > 5)


@pytest.mark.parametrize("movable, pillar_target, distance", [("true", 9, 1), ("false", 11, 5)])
def test_the_search_leaves_a_fixed_pillar_piece_where_it_is(movable, pillar_target, distance):
    # D17, A12(e): with pillar_piece_movable off the first piece on the pillar stays for good,
    # so the search must climb to the pillar at its height (11 hu: a cube on the 9-hu base)
    # rather than plan to lower it; before, the builders waited forever beside it. A pawn on
    # an 8-hu square next to the pillar: one move (the cube off) when the piece may move, else
    # a staircase up to 10 hu
    from asc_helpers import Builder, new_game, sq, start_turn
    g = new_game(2, seed=3, pillar_piece_movable=movable)
    b = Builder(g)
    b.heights({sq(3, 3): 8, sq(2, 3): 8})
    b.put(b.take_cube(), S.PILLAR)
    g.move_pawn_to(0, sq(3, 3))
    start_turn(g, 0)
    assert g.height(S.PILLAR) == 11
    work = np.zeros(WORK_SIZE, np.int64)
    d, n = builder.plan_for(_context(g.view(0), 0, g.t, work), 0)
    plan = [(int(work[SC.W_PLAN + i]), int(work[SC.W_PLAN_G + i])) for i in range(n)]
    assert plan[-1] == (S.PILLAR, pillar_target) and d == distance, plan


def _beside_a_fixed_pillar(heights, two_halves=(), **switches):
    """A 2-player game whose pillar piece stays for good (11 hu: a cube on the 9-hu base), the
    squares of `heights` at their heights and those of `two_halves` two neutral half-cubes high,
    seat 0's pawn on square 30 and its turn: (game, its climb distance, its plan)."""
    from asc_helpers import Builder, new_game, sq, start_turn
    g = new_game(2, seed=3, pillar_piece_movable="false", **switches)
    b = Builder(g)
    b.heights(heights)
    for s in two_halves:
        b.clear(s)
        b.put(b.free_neutral_half(), s)
        b.put(b.free_neutral_half(), s)
    b.put(b.take_cube(), S.PILLAR)
    g.move_pawn_to(0, sq(3, 3))
    start_turn(g, 0)
    work = np.zeros(WORK_SIZE, np.int64)
    d, n = builder.plan_for(_context(g.view(0), 0, g.t, work), 0)
    return g, d, [(int(work[SC.W_PLAN + i]), int(work[SC.W_PLAN_G + i])) for i in range(n)]


def _decide(g, decide):
    """Ask a builder decision of the seat to move, on its view with the legal codes."""
    codes = g.legal_codes()
    legal = np.zeros(S.N_ACTIONS, np.int64)
    legal[:len(codes)] = codes
    ctx = PolicyContext(g.view(g.current), np.int64(g.current), np.int64(g.state[S.G_PHASE]),
                        legal, np.int64(len(codes)), g.t, np.zeros(1, np.uint64),
                        np.zeros(MAX_POLICY_PARAMS, np.float64), _decide.work)
    return int(decide(ctx))


_decide.work = np.zeros(WORK_SIZE, np.int64)


@pytest.mark.parametrize("pins, own_target, distance", [("true", 8, 5), ("false", 10, 1)])
def test_the_builder_raises_its_own_square_where_the_pawn_does_not_pin_it(pins, own_target,
                                                                            distance):
    # D3 A37 A50: under pawn_pins_stack=false a piece may be slid under the own pawn, and the
    # pawn rides on it. The pillar's piece fixed (11 hu), a pawn on an 8-hu square next to it
    # can reach it in one move, a cube under itself (8 -> 10 hu, then a 1-hu step); with the
    # default it must build a staircase beside it. The builder plans so, and plays so: its
    # origin decision picks a cube, its place decision puts it under its own pawn, and the
    # pawn then steps onto the pillar
    from asc_helpers import sq
    g, d, plan = _beside_a_fixed_pillar({sq(3, 3): 8, sq(2, 3): 8}, pawn_pins_stack=pins)
    assert plan[0] == (sq(3, 3), own_target) and plan[-1][0] == S.PILLAR and d == distance, plan
    if pins == "true":
        return
    g.step(_decide(g, builder.build_origin))
    assert g.phase == "place"
    g.step(_decide(g, lambda ctx: builder.build_place(ctx, False)))
    assert g.height(sq(3, 3)) == 10 and g.pawn(0) == sq(3, 3)
    assert g.phase in ("pawn", "spring")
    assert _decide(g, builder.pawn_decision) == S.PILLAR


def test_the_builder_plans_within_the_stack_cap():  # A24 A55 D34
    # A square may take no more pieces than max_stack leaves room for. The pillar's piece
    # fixed (11 hu), a pawn on an 8-hu square two steps from it: the cheapest staircase (5
    # moves) raises square 21 to 9 hu and square 31, two half-cubes, to 10 hu with four cubes,
    # six pieces. Under max_stack 5 the builder plans the next cheapest (8 moves), through
    # squares 22 and 32, each left with five pieces
    from asc_helpers import sq
    plans = {}
    for cap in (16, 5):
        g, d, plan = _beside_a_fixed_pillar({sq(3, 3): 8, sq(2, 3): 8}, two_halves=[sq(3, 4)],
                                            max_stack=cap)
        pieces = [len(g.stack(s)) + (g_s - g.height(s) + 1) // 2 for s, g_s in plan[1:-1]]
        plans[cap] = d, [s for s, _ in plan], pieces
    assert plans[16] == (5, [sq(3, 3), sq(2, 3), sq(3, 4), S.PILLAR], [5, 6])
    assert plans[5] == (8, [sq(3, 3), sq(2, 4), sq(3, 5), S.PILLAR], [5, 5])


def test_the_builder_changes_its_own_square_only_as_the_move_before_its_step():
    # D3 A28 A38: the pawn must move in the turn it changes its own square, so the builder
    # makes that change only where it takes the square to its plan's target and the plan's
    # next square is ready. Here the plan raises the own square 6 -> 8 hu, then square 21
    # (6 hu) to 9 and square 31 to 10, to step onto the fixed pillar (11 hu). The own square
    # raised first would leave no legal step (its neighbours stand at 6 hu or less), a block:
    # the builder raises square 21 instead, and the pawn keeps its step onto square 39
    from asc_helpers import sq
    g, d, plan = _beside_a_fixed_pillar({sq(3, 3): 6, sq(2, 3): 6, sq(4, 3): 6},
                                        pawn_pins_stack="false")
    assert (d, plan) == (7, [(sq(3, 3), 8), (sq(2, 3), 9), (sq(3, 4), 10), (S.PILLAR, 11)])
    origin = _decide(g, builder.build_origin)
    assert origin != sq(3, 3)
    g.step(origin)
    place = _decide(g, lambda ctx: builder.build_place(ctx, False))
    assert place >> 1 == sq(2, 3)
    g.step(place)
    assert g.height(sq(3, 3)) == 6 and g.phase == "pawn" and g.pawn_moves(0) == [sq(4, 3)]


@pytest.mark.parametrize("pins, mobility, block", [("true", 1, -1), ("false", 8, "own")])
def test_the_blocker_reads_pawn_pins_stack(pins, mobility, block):
    # D3 A12(b) A21 (RULES.md §7 blocker: the piece move that leaves the leader the fewest
    # legal moves after its best single repair). A pawn on a 6-hu square whose neighbours all
    # stand at 8 hu has no step. Its best repair under the default lowers a neighbour (one
    # step); under pawn_pins_stack=false it slides a cube under itself (eight steps), and the
    # blocker's best move takes the top from under that pawn (after it, no repair gives a
    # step), a move the default forbids
    from asc_helpers import Builder, nb, new_game, sq, start_turn
    g = new_game(2, seed=3, pawn_pins_stack=pins)
    s = sq(2, 2)
    Builder(g).heights({s: 6, **{n: 8 for n in nb(s)}})
    g.move_pawn_to(0, s)
    start_turn(g, 1)
    view = g.view(1)
    b = np.zeros(WORK_SIZE, np.int64)
    copy_board(view, b)
    assert board.post_repair_mobility(b, view, g.t, 0, -1) == mobility
    assert _decide(g, lambda ctx: builder.block_move(ctx, 0, False)) == \
        (s if block == "own" else block)


@pytest.mark.parametrize("pins", ["true", "false"])
def test_the_blocker_may_slide_a_piece_under_the_leader(pins):
    # D3 A21 (§7 blocker): a pawn on a 1-hu square with bare neighbours has eight steps, and
    # no piece on a neighbour or lifted from one takes a step away after its best repair.
    # Under pawn_pins_stack=false a cube slid under the pawn (3 hu) leaves it one step after
    # its best repair: the blocker's origin decision finds that move (it looked only at the
    # neighbours' placements before), and its place decision puts the cube under the pawn
    from asc_helpers import Builder, nb, new_game, sq, start_turn
    g = new_game(2, seed=3, pawn_pins_stack=pins)
    s = sq(2, 2)
    Builder(g).heights({s: 1, **{n: 0 for n in nb(s)}})
    g.move_pawn_to(0, s)
    g.set(S.S_RES_SHAPED + 1, 0)                  # the blocker holds no half-cube
    g.set(S.S_RES_NEUTRAL + 1, 0)
    start_turn(g, 1)
    origin = _decide(g, lambda ctx: builder.block_move(ctx, 0, False))
    if pins == "true":
        assert origin == -1                       # nothing blocks: the hybrid builds
        return
    assert 0 <= origin < S.N_SQUARES
    g.step(origin)
    assert _decide(g, lambda ctx: builder.block_move(ctx, 0, True)) >> 1 == s


def test_the_blocker_compares_counts_cut_short_alike():
    # §7 blocker, D3: post_repair_mobility stops counting at two moves. Under
    # pawn_pins_stack=false the target's own-square repair is tried before that stop, so a
    # target with a step (a neighbour at 7 hu) does not read fewer moves than one without
    # (every neighbour at 8 hu): both read the eight steps a cube under the pawn gives
    from asc_helpers import Builder, nb, new_game, sq, start_turn
    counts = []
    for seven in (False, True):
        g = new_game(2, seed=3, pawn_pins_stack="false")
        s = sq(2, 2)
        heights = {s: 6, **{n: 8 for n in nb(s)}}
        if seven:
            heights[nb(s)[-1]] = 7
        Builder(g).heights(heights)
        g.move_pawn_to(0, s)
        start_turn(g, 1)
        view = g.view(1)
        b = np.zeros(WORK_SIZE, np.int64)
        copy_board(view, b)
        counts.append(board.post_repair_mobility(b, view, g.t, 0, -1))
    assert counts == [8, 8]
