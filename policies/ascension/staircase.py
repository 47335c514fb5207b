"""The staircase plan of the Ascension bots: where to climb, and which piece move builds it.

Climb distance (RULES.md §7): the least number of piece moves that make some path from the
pawn to its goal walkable (the pillar; the own corner once the seat holds summit status).
§7's per-edge estimate, ceil((|dH| - 1) / 2), does not see that a stair is a chain: raising the
middle of a 2-2-9 path lowers one edge's cost exactly as much as it raises the next, so a
greedy bot on it never starts a staircase. Here the distance is exact for a relaxed problem
instead: choose a path and a target height g for every square on it so that each step is legal
by height (A30: up 1, or 2 off a shown ladder; down 1, or 2 onto a shown mattress, or off one
under the switch mattress_mode=from), paying ceil(|g - H| / 2) piece moves per square (a cube
moves 2 hu). That is a shortest path over
(square, target height) nodes, solved backwards from the goal with Dijkstra's algorithm.
Closed squares (other pawns, foreign or unused corners) cost INF; a square showing a chasm or
a foreign shape is open only at a changed height (a piece on it, or its top lifted, changes
what it shows); a square takes no more pieces than its stack cap leaves room for (A24, A55:
switch max_stack); the own pawn's square is pinned at its height (A37), but under the switch
pawn_pins_stack=false (D3), where pieces may be slid under the pawn or taken from under it, and
the pawn may stand at any height of its square (A50), so its cost is the least over them.

`plan_costs` fills C[node] = cost to go from (square, target height) and the bots read:
- the pawn move: the legal neighbour d with the least C[d, H(d)] (standing_cost: under
  pawn_pins_stack=false the least over d's heights);
- the piece move: walk the best plan from the pawn and fix its first square whose target
  differs from its height, with a piece from a square off the plan (or from the plan itself,
  where it stands too high).
Everything reads the seat's view (view.py), never the state.
"""

import numpy as np
# an LLVM intrinsic that numba keeps in its unsafe module (in every numba that pyproject.toml
# allows): the search walks a neighbour's open heights by it
from numba.cpython.unsafe.numbers import trailing_zeros

from sim.core.jit import njit_noalloc
from sim.games.ascension.engine import is_corner
from sim.games.ascension.rules import (
    C_CORNER_OF, C_MATTRESS_FROM, C_MAX_STACK, C_PAWN_PINS, C_PILLAR_PIECE_MOVABLE, C_SHAPE_OF)
from sim.games.ascension.state import (
    B_H, B_PAWN_ON, B_SHAPES, B_STACK, B_STACK_N, B_SYMBOL, MAX_PLAYERS, N_SQUARES, NB, PILLAR,
    PILLAR_BASE, S_PAWN_SQ, S_SUMMIT, SYM_CHASM, SYM_DRAGON, SYM_LADDER, SYM_MATTRESS)

NH = 14                         # target heights 0..13 hu (the pillar: 9..11)
N_NODES = N_SQUARES * NH
INF = 1 << 30
MAX_COST = 4095                 # plans dearer than this count as unreachable
MOVE_WEIGHT = 64                # a piece move costs 64, a pawn step 1: among plans needing
                                # equally few piece moves, the shortest walk wins
# ctx.work layout: [0, B_STACK) a scratch copy of the view's board, where a decision edits one
# (board.copy_board: the pawn decision, the blocker's trials; the builder searches its view), then
W_C = B_STACK                   # C[node], cost to go
W_SUCC = W_C + N_NODES          # the next node on a cheapest plan
W_HEAD = W_SUCC + N_NODES       # bucket queue: the first node queued at each cost (-1: none)
W_LINK = W_HEAD + MAX_COST + 1  # per node: the next node in its bucket (a node is queued once
                                # at most, so the node is its own entry)
W_PLAN = W_LINK + N_NODES       # plan squares, then plan targets
W_PLAN_G = W_PLAN + N_SQUARES + 1
W_STASH = W_PLAN_G + N_SQUARES + 1   # a build decided at the origin decision: its key (the
                                # place decision's count), destination and plan length
W_TARGET_STASH = W_STASH + 3    # whom the origin decision blocked: its key, the seat (-1: none)
                                # (builder.py; two keys, so a block never reads a build's)
W_WANTED = W_TARGET_STASH + 2   # 1 for nodes whose cost the caller needs (early stop)
W_DISTANCES = W_WANTED + N_NODES    # every seat's climb distance (strategic.py)
W_HEADS_USED = W_DISTANCES + MAX_PLAYERS    # the bucket heads the next search must clear:
                                # 1 + the dearest bucket the last search pushed to (0: a new
                                # game, every head)
W_RELAXED = W_HEADS_USED + 1    # per square: bit g set once node (square, g) is relaxed, or
                                # from the search's start where g is past the stack cap's reach
                                # (A24: it is never relaxed)
W_STEP_2 = W_RELAXED + N_SQUARES   # per square s: the height g_d at which a pawn on s enters a
                                # square next to it by a 2-hu step off s's face (A30; -99: none)
W_FACTS = W_STEP_2 + N_SQUARES  # per square: square_facts, for this search's seat
W_EDIT_ROW = W_FACTS + N_SQUARES   # per square: edit_row, for this search's seat
W_PLAN_AT = W_EDIT_ROW + N_SQUARES  # per square: its first place on a plan (builder.plan_places)
MEMO_PIECES = 16                # builder.block_move: the pieces whose counts it keeps, a row
MEMO_ROW = 9                    # each: its signature, then a count per neighbour of the target
W_BLOCK_MEMO = W_PLAN_AT + N_SQUARES
W_SCRATCH_FRESH = W_BLOCK_MEMO + MEMO_PIECES * MEMO_ROW   # 1: the board block (ctx.work[0:
#                                 B_STACK]) is a copy of this decision's view (builder._scratch)
W_END = W_SCRATCH_FRESH + 1
ALL_HEIGHTS = (1 << NH) - 1


# what a square's edit costs depend on, packed by square_facts: its kind (the low 3 bits), its
# height (8 bits), whether its top is a half-cube, and the pieces its stack may still take (A24,
# 3 bits, where ROOM_ENOUGH stands for as many as any target needs: a bare square takes 7
# pieces to reach 13 hu)
OPEN, SHOWS_BARRED, OWN_PAWN, CLOSED, FROZEN, OWN_FREE = 0, 1, 2, 3, 4, 5
FACTS_H_SHIFT = 3
FACTS_HALF_TOP = 1 << 11
FACTS_ROOM_SHIFT = 12
ROOM_ENOUGH = NH // 2
# a stack cap this high leaves room for every target below NH (every piece is at least 1 hu, so
# a square of h hu holds at most h pieces and has room for 13 - h, which is at least the
# (13 - h + 1) // 2 that its highest target needs), and the search skips the cap's marks
CAP_NEVER_BINDS = NH - 1


@njit_noalloc
def square_facts(b, t, seat, s, top_height):
    """What square s's edit costs for seat depend on (edit_cost), read once a search: the
    kind OPEN; SHOWS_BARRED (a chasm or a foreign shape: open only at a changed height);
    OWN_PAWN (A37: pinned at its height); CLOSED (another pawn, A29(b)'s corners); FROZEN
    (is_frozen); its height; whether its top is a half-cube; room for ROOM_ENOUGH pieces.
    Under the stack switches the search adjusts two of them (_read_stack_switches): the own
    square is OWN_FREE under pawn_pins_stack=false, and a square's room is its own under a low
    cap.
    Every case is worked out, and the first that holds wins (the last select below), with
    selects rather than branches: which case holds is a coin flip to the processor, and a
    search reads all 81 squares. With branches the search's reading of the squares took twice
    as long (0.50 against 0.26 us on 3,464 recorded positions)."""
    h = b[B_H + s]
    occupant = b[B_PAWN_ON + s]
    sym = b[B_SYMBOL + s]
    shp = b[B_SHAPES + s]
    barred = (sym == SYM_CHASM) | ((shp != 0) & ((shp & t[C_SHAPE_OF + seat]) == 0))
    kind = SHOWS_BARRED if barred else OPEN
    kind = FROZEN if is_frozen(b, t, s) else kind
    kind = CLOSED if is_corner(s) & (s != t[C_CORNER_OF + seat]) else kind
    kind = (OWN_PAWN if occupant == seat else CLOSED) if occupant >= 0 else kind
    # two facts are left to the search's own adjustments (with_stack_room, own_square_free),
    # made only under the switches where they matter: one more select here, or the stack's
    # count read, cost the search 10-15% at the defaults (benchmarks.staircase)
    return kind | (min(h, 255) << FACTS_H_SHIFT) | (FACTS_HALF_TOP if top_height == 1 else 0) \
        | (ROOM_ENOUGH << FACTS_ROOM_SHIFT)


@njit_noalloc(inline="always")
def is_frozen(b, t, s):
    """No piece of square s may move and none may go on it: the joker's stack (A12(c), A22),
    and the pillar's piece where the switch pillar_piece_movable is off (D17, A12(e))."""
    pillar_fixed = (s == PILLAR) & (b[B_H + s] > PILLAR_BASE) & (t[C_PILLAR_PIECE_MOVABLE] == 0)
    return (b[B_SYMBOL + s] == SYM_DRAGON) | pillar_fixed


@njit_noalloc
def with_stack_room(b, t, s, facts):
    """square_facts of square s with the pieces its stack may still take (A24, A55: not the
    pillar, whose one piece is A27's); the search asks it where the cap is below
    CAP_NEVER_BINDS."""
    room = ROOM_ENOUGH if s == PILLAR else max(0, min(ROOM_ENOUGH,
                                                      t[C_MAX_STACK] - b[B_STACK_N + s]))
    return (facts & ~(7 << FACTS_ROOM_SHIFT)) | (room << FACTS_ROOM_SHIFT)


@njit_noalloc
def own_square_free(b, t, s, facts):
    """square_facts of the own pawn's square s under pawn_pins_stack=false (D3): OWN_FREE, as
    any other square the pawn stands on (A50), but a frozen one (is_frozen), which no one may
    change under the pawn either."""
    return (facts & ~7) | (FROZEN if is_frozen(b, t, s) else OWN_FREE)


@njit_noalloc
def edit_cost(s, g, facts):
    """MOVE_WEIGHT x the piece moves that make square s (its square_facts) stand at g hu and
    be enterable by the seat; INF: never."""
    kind = facts & 7
    h = (facts >> FACTS_H_SHIFT) & 255
    if kind == CLOSED:
        return INF                                   # another pawn; A29(b)
    if kind == OWN_PAWN:
        return 0 if g == h else INF                  # A37: a pawn pins its square
    if s == PILLAR and (g < PILLAR_BASE or g > PILLAR_BASE + 2):
        return INF                                   # A27
    if kind == FROZEN:
        return 0 if g == h else INF                  # the joker's stack is frozen
    if s == PILLAR and g > h > PILLAR_BASE:
        # A27: the pillar holds one piece, so its half-cube comes off before a cube goes on
        return INF if kind == OWN_FREE else 2 * MOVE_WEIGHT
    if g == h:
        return INF if kind == SHOWS_BARRED else 0    # OWN_FREE: standing is not entering, A50
    if kind == OWN_FREE:
        # the pawn must step off in the turn its square changes (A28), so only a change of
        # one move counts, the one made just before the step: a piece slid under the pawn (1
        # or 2 hu, where the cap leaves room), or the top taken from under it
        top = 1 if facts & FACTS_HALF_TOP else 2
        one_up = (g - h == 1 or g - h == 2) and (facts >> FACTS_ROOM_SHIFT) & 7 > 0
        return MOVE_WEIGHT if one_up or h - g == top else INF
    if g > h:
        pieces = (g - h + 1) // 2                    # cubes, and a half-cube if odd
        return INF if pieces > (facts >> FACTS_ROOM_SHIFT) & 7 else pieces * MOVE_WEIGHT
    diff = h - g
    # an odd drop under a cube: lift cubes, then add a half-cube
    moves = (diff + 1) // 2 if diff % 2 == 0 or facts & FACTS_HALF_TOP else diff // 2 + 2
    return moves * MOVE_WEIGHT


# edit_cost for every square but the pillar, as a table read by the search: a square's edit
# costs depend on its kind, whether its top is a half-cube and g - H, and a table read has no
# branch (whether g is above, at or below H, and the parity of the gap, are coin flips to the
# processor: the search ran 7% faster on the table). A row holds g - H from -EDIT_DROPS to
# NH - 1. A square higher than EDIT_DROPS reads the row of one that high: from there every
# target costs over MAX_COST (unreachable) either way. The pillar's targets are bounded by
# height (A27), not by g - H, so the search asks edit_cost for the pillar. The rows are those
# of a stack with ROOM_ENOUGH: the search never relaxes a target past the cap's reach
# (cap_reach; it marks those nodes relaxed from its start), so no row needs the room.
EDIT_DROPS = 2 * (MAX_COST // MOVE_WEIGHT + 1) + NH
EDIT_ROW = EDIT_DROPS + NH


def _edit_costs():
    """EDIT_COSTS: a row for every kind and top (row 2 kind + half), worked out by edit_cost
    itself, so that the rule stays in one place."""
    kinds = (OPEN, SHOWS_BARRED, OWN_PAWN, CLOSED, FROZEN, OWN_FREE)
    rows = np.zeros((len(kinds), 2, EDIT_ROW), np.int64)
    for kind in kinds:
        for half in (0, 1):
            facts = kind | (EDIT_DROPS << FACTS_H_SHIFT) | (FACTS_HALF_TOP if half else 0) | \
                (ROOM_ENOUGH << FACTS_ROOM_SHIFT)
            for i in range(EDIT_ROW):
                rows[kind, half, i] = edit_cost.py_func(0, i, facts)
    return rows.reshape(-1)


EDIT_COSTS = _edit_costs()


@njit_noalloc(inline="always")
def edit_row(facts):
    """Where a square's edit costs (its square_facts) sit in EDIT_COSTS: its cost at target g
    is EDIT_COSTS[edit_row(facts) + g], but on the pillar (and for a square higher than
    EDIT_DROPS, a cost over MAX_COST, as edit_cost's is)."""
    h = (facts >> FACTS_H_SHIFT) & 255
    row = 2 * (facts & 7) + (1 if facts & FACTS_HALF_TOP else 0)
    return row * EDIT_ROW + EDIT_DROPS - min(h, EDIT_DROPS)


@njit_noalloc(inline="always")
def cap_reach(facts):
    """The targets a square's stack cap leaves within reach (A24, A55), as bits of g: those
    no more than 2 hu a piece above its height (edit_cost's own test, in one mask)."""
    h = (facts >> FACTS_H_SHIFT) & 255
    top = min(NH - 1, h + 2 * ((facts >> FACTS_ROOM_SHIFT) & 7))
    return (2 << top) - 1


@njit_noalloc
def goal_square(b, t, seat):
    return t[C_CORNER_OF + seat] if b[S_SUMMIT + seat] else PILLAR


@njit_noalloc
def plan_costs(b, t, seat, work, top_heights, wanted_squares, n_wanted):
    """C[s * NH + g] = MOVE_WEIGHT x piece moves + pawn steps to reach the goal from standing
    on s at g (after paying for s itself). Returns the climb distance at the pawn (piece
    moves), INF if unreachable.
    Costs are small integers, so Dijkstra runs on a bucket queue (Dial's algorithm). It stops
    once the pawn's node and the nodes of `wanted_squares` at their present heights have a
    cost: their costs, and those of every node on their cheapest plans, are then final."""
    return _dijkstra_until(b, t, seat, work, top_heights, wanted_squares, n_wanted, True, 0,
                           MAX_COST)


@njit_noalloc
def climb_distance_within(b, t, seat, work, top_heights, most):
    """plan_costs' climb distance at the pawn, where it is at most `most` piece moves; INF
    otherwise. The search stops once every plan that cheap is found: the strategic bots
    compare an opponent's distance with a bound (hybrid: its own less k; blocker: the least
    found so far), and what lies beyond it cannot change their choice. `most` < 0 searches
    nothing."""
    if most < 0:
        return INF
    bound = min(MAX_COST, most * MOVE_WEIGHT + MOVE_WEIGHT - 1)
    # no wanted squares: top_heights stands in for the list (n_wanted 0), of the type the
    # other searches pass, so that no other copy of the search is compiled
    return _dijkstra_until(b, t, seat, work, top_heights, top_heights, 0, True, 0, bound)


@njit_noalloc
def candidate_costs(b, t, seat, work, top_heights, squares, n_squares, with_pawn):
    """The costs the pawn decision reads: plan_costs' search for `squares` at their present
    heights (and the pawn's square if `with_pawn`), stopped once all of them but one have
    their cost and those cost at most c, the bucket being searched. The one left then costs
    more than c (its cheapest successor is not settled yet) and reads INF. So it is read as
    dearer than every other by at least 1, every other exactly, and the pawn decision,
    whose score is 4 x cost less at most 2, then makes the same choice and the same tie draws
    as with every cost exact. A pawn decision's dearest destination is often far dearer than
    the others, and that is the search this saves.
    This holds where every candidate is searched for. One standing at NH hu or higher (a cable
    car can reach such a square) is not: it reads INF, and so would the one left, and the two
    would tie. Then every candidate's cost is found, as plan_costs does."""
    left = 1
    for i in range(n_squares):
        if b[B_H + squares[i]] >= NH:
            left = 0
    pawn = b[S_PAWN_SQ + seat]
    if with_pawn and (pawn < 0 or b[B_H + pawn] >= NH):
        left = 0
    _dijkstra_until(b, t, seat, work, top_heights, squares, n_squares, with_pawn, left,
                    MAX_COST)


@njit_noalloc(one_copy=True)
def _mark_wanted(b, work, pawn, with_pawn, wanted_squares, n_wanted, mark):
    """Set the wanted mark (1: wanted, 0: not) of the pawn's node (if with_pawn) and of
    wanted_squares' nodes at their present heights; returns how many marks changed."""
    changed = 0
    if with_pawn and pawn >= 0 and b[B_H + pawn] < NH and \
            work[W_WANTED + pawn * NH + b[B_H + pawn]] != mark:
        work[W_WANTED + pawn * NH + b[B_H + pawn]] = mark
        changed += 1
    for i in range(n_wanted):
        s = wanted_squares[i]
        if b[B_H + s] < NH and work[W_WANTED + s * NH + b[B_H + s]] != mark:
            work[W_WANTED + s * NH + b[B_H + s]] = mark
            changed += 1
    return changed


@njit_noalloc(inline="always")    # numba's copy: called, the search lost 5%
def _reach(work, node, total, successor, dearest, remaining, wanted_dearest):
    """Node's first relaxation, its cost to go `total` (final; INF above MAX_COST), reached
    from `successor` (-1: the goal): record the cost, queue the node, and count it if it is
    wanted. Returns the search's (dearest, remaining, wanted_dearest) after it."""
    if total > MAX_COST:
        total = INF
    else:
        work[W_SUCC + node] = successor
        work[W_LINK + node] = work[W_HEAD + total]
        work[W_HEAD + total] = node
        dearest = max(dearest, total)
    work[W_C + node] = total
    if work[W_WANTED + node]:
        work[W_WANTED + node] = 0
        remaining -= 1
        wanted_dearest = max(wanted_dearest, total)
    return dearest, remaining, wanted_dearest


@njit_noalloc
def _read_stack_switches(b, t, work, pawn, remaining):
    """The search's facts under the stack switches, where they differ from square_facts'
    (kept out of the search's own body, which is as fast as before at the defaults): under
    pawn_pins_stack=false the own square may change under the pawn (own_square_free), and a
    pawn's cost is the least over its square's heights (standing_cost), which no wanted node
    at its present height gives, so the search runs to its bound (the remaining count
    returned); under a cap below CAP_NEVER_BINDS each square's room, and its targets past the
    cap's reach marked relaxed, so that the search never relaxes them (A24)."""
    if not t[C_PAWN_PINS]:
        remaining = INF
        if pawn >= 0:
            facts = own_square_free(b, t, pawn, work[W_FACTS + pawn])
            work[W_FACTS + pawn] = facts
            work[W_EDIT_ROW + pawn] = edit_row(facts)
    if t[C_MAX_STACK] < CAP_NEVER_BINDS:
        for s in range(N_SQUARES):
            facts = with_stack_room(b, t, s, work[W_FACTS + s])
            work[W_FACTS + s] = facts
            work[W_RELAXED + s] |= ALL_HEIGHTS & ~cap_reach(facts)
    return remaining


@njit_noalloc(optimised_alone=True, one_copy=True)   # jit.py: 5% faster games alone
def _dijkstra_until(b, t, seat, work, top_heights, wanted_squares, n_wanted, with_pawn, left,
                    bound):
    """The search of plan_costs and candidate_costs: Dijkstra from the goal, until every
    wanted node has its cost but at most `left` of them, each of those `left` dearer by at least
    1 than every wanted node's cost found, or every node of cost `bound` or less is settled.
    Returns the climb distance at the pawn (as plan_costs; INF where the pawn's node costs
    more than `bound`)."""
    goal = goal_square(b, t, seat)
    mattress_from = t[C_MATTRESS_FROM] != 0
    # A node's first relaxation is its cheapest: nodes settle in order of cost, and a
    # relaxation adds the node's own fixed edit cost. So a node relaxed once is never relaxed
    # again (nine in ten relaxations improved nothing), and its cost to go and successor are
    # final from then on: a wanted node is done once relaxed, not once settled. W_C holds a
    # node's cost only where W_RELAXED says it was relaxed (cost_at reads through it), and
    # W_SUCC its successor only where that cost is below INF (extract_plan follows it from
    # there), so neither is cleared; the goal's nodes start with their cost
    # Every square's facts, read once per search (`b` may be `work`, which the search writes,
    # so the compiler cannot hoist reads of it): what its edit costs depend on, and A30's
    # 2-hu steps its own face allows, up off a ladder it shows (from its height h onto
    # h + 2), and under mattress_mode=from down off a mattress (from h onto h - 2)
    for s in range(N_SQUARES):
        sym_s = b[B_SYMBOL + s]
        h_s = b[B_H + s]
        # selects, as in square_facts
        off_mattress = mattress_from & (sym_s == SYM_MATTRESS) & (h_s < NH)
        work[W_STEP_2 + s] = h_s + 2 if sym_s == SYM_LADDER else (
            h_s - 2 if off_mattress else -99)
        facts = square_facts(b, t, seat, s, top_heights[s])
        work[W_FACTS + s] = facts
        work[W_EDIT_ROW + s] = edit_row(facts)
    work[W_RELAXED:W_RELAXED + N_SQUARES] = 0
    pawn = b[S_PAWN_SQ + seat]
    remaining = _mark_wanted(b, work, pawn, with_pawn, wanted_squares, n_wanted, 1)
    if not t[C_PAWN_PINS] or t[C_MAX_STACK] < CAP_NEVER_BINDS:
        remaining = _read_stack_switches(b, t, work, pawn, remaining)
    work[W_RELAXED + goal] = ALL_HEIGHTS
    # only the buckets the last search pushed to can hold entries (all of them in a new game)
    stale = MAX_COST + 1 if work[W_HEADS_USED] == 0 else work[W_HEADS_USED]
    for c in range(stale):
        work[W_HEAD + c] = -1
    dearest = 0
    wanted_dearest = -1             # the dearest cost found of a wanted node
    goal_facts = work[W_FACTS + goal]
    for g in range(NH):
        dearest, remaining, wanted_dearest = _reach(
            work, goal * NH + g, edit_cost(goal, g, goal_facts), -1, dearest, remaining,
            wanted_dearest)
    done = remaining == 0 or (remaining <= left and wanted_dearest <= 0)
    for cost in range(MAX_COST + 1):
        # Every node not yet relaxed costs more than `cost`: its cheapest successor is not
        # settled yet. So the `left` wanted nodes without a cost are dearer than every wanted
        # one found, where those cost at most `cost`
        if done or cost > dearest or cost > bound or (remaining <= left and
                                                      wanted_dearest <= cost):
            break           # all wanted found (but `left`), the rest too dear, or none left
        while work[W_HEAD + cost] >= 0:
            node = work[W_HEAD + cost]
            work[W_HEAD + cost] = work[W_LINK + node]
            d = node // NH
            g_d = node - d * NH
            # A30's window for a step from (s, g_s) onto (d, g_d): up 1, or 2 off a ladder s
            # shows at g_s; down 1, or 2 onto a mattress d shows at g_d (switch
            # mattress_mode=from: off a mattress s shows at g_s), as bits of g_s. The board's
            # facts are read into locals (`b` may be `work`, which this loop writes)
            window = (7 << g_d) >> 1                             # g_d - 1 .. g_d + 1
            if not mattress_from and b[B_SYMBOL + d] == SYM_MATTRESS and g_d == b[B_H + d]:
                window |= 1 << (g_d + 2)
            window &= ALL_HEIGHTS
            for k in range(8):
                s = NB[d, k]
                if s < 0:
                    break
                open_heights = window
                step = work[W_STEP_2 + s]
                if step == g_d:
                    h_s = b[B_H + s]
                    open_heights |= 1 << h_s                     # 2 hu off s's own face
                relaxed = work[W_RELAXED + s]
                open_heights &= ~relaxed
                if open_heights == 0:
                    continue
                work[W_RELAXED + s] = relaxed | open_heights
                # each node's edit cost is read once, at its one relaxation (EDIT_COSTS, and
                # edit_cost on the pillar): a search relaxes a few hundred of the 1,134 nodes
                facts = work[W_FACTS + s]
                row = work[W_EDIT_ROW + s]
                while open_heights:
                    # the heights in increasing order, one set bit at a time
                    g_s = trailing_zeros(open_heights)
                    open_heights &= open_heights - 1
                    edit = edit_cost(s, g_s, facts) if s == PILLAR else EDIT_COSTS[row + g_s]
                    dearest, remaining, wanted_dearest = _reach(
                        work, s * NH + g_s, cost + 1 + edit, node,
                        dearest, remaining, wanted_dearest)
                    done = remaining == 0
                if done:
                    break
            if done or (remaining <= left and wanted_dearest <= cost):
                break
        if done:
            break
    work[W_HEADS_USED] = dearest + 1
    # the wanted nodes not reached: unmarked for the next search
    _mark_wanted(b, work, pawn, with_pawn, wanted_squares, n_wanted, 0)
    if pawn < 0:
        return INF
    c = standing_cost(b, t, work, pawn)
    # the search stops at the bound: a cost above it is found only by chance, and is reported
    # as beyond it, as every other
    return INF if c >= INF or c > bound else c // MOVE_WEIGHT


@njit_noalloc
def cost_at(b, work, s):
    """Cost to go from square s as it stands (a pawn stepping there now)."""
    h = b[B_H + s]
    if h >= NH or (work[W_RELAXED + s] >> h) & 1 == 0:
        return INF
    return work[W_C + s * NH + h]


@njit_noalloc(inline="always")    # the pawn decision reads it per candidate
def standing_cost(b, t, work, s):
    """Cost to go for a pawn standing on square s (the own pawn's, or one it steps onto now):
    cost_at; under pawn_pins_stack=false (D3), where pieces may be slid under a standing pawn
    or taken from under it (A50), the least over the heights the search relaxed within the
    stack cap's reach. Read after a search of the seat (its facts are in W_FACTS)."""
    if t[C_PAWN_PINS]:
        return cost_at(b, work, s)
    g = _cheapest_height(work, s)
    return INF if g < 0 else work[W_C + s * NH + g]


@njit_noalloc(inline="always")
def one_move_heights(s, facts):
    """The heights square s (its facts) may take in the one move a pawn standing on it allows
    before it must step off (A28, under pawn_pins_stack=false, D3), as bits of g: its own; 1 or
    2 hu more (a piece slid under the pawn, where the cap leaves room, and on the pillar only
    while it is bare, A27); its top taken."""
    h = (facts >> FACTS_H_SHIFT) & 255
    drop = h - (1 if facts & FACTS_HALF_TOP else 2)
    up = 0 if s == PILLAR and h > PILLAR_BASE else 2
    bits = 0
    for g in (drop, h, h + 1, h + 2):
        if 0 <= g < NH and g - h <= up:
            bits |= 1 << g
    return bits & cap_reach(facts)


@njit_noalloc
def _cheapest_height(work, s):
    """The relaxed height of square s, among those one move away (one_move_heights), with the
    least cost to go (the lowest among equals); -1 if none is below INF. A square the pawn
    steps onto is read so too: its costs at other heights (the search's, as for any square)
    take more moves than the pawn may wait there."""
    reached = work[W_RELAXED + s] & one_move_heights(s, work[W_FACTS + s])
    best = -1
    best_cost = INF
    for g in range(NH):
        if (reached >> g) & 1 and work[W_C + s * NH + g] < best_cost:
            best_cost = work[W_C + s * NH + g]
            best = g
    return best


@njit_noalloc
def extract_plan(b, t, seat, work):
    """Follow the cheapest plan from the pawn; its squares and target heights go to W_PLAN /
    W_PLAN_G (pawn first; under pawn_pins_stack=false its own square's target may differ from
    its height). Returns the number of squares (0: no plan)."""
    s = b[S_PAWN_SQ + seat]
    if s < 0:
        return 0
    if t[C_PAWN_PINS]:
        if b[B_H + s] >= NH or cost_at(b, work, s) >= INF:
            return 0
        node = s * NH + b[B_H + s]
    else:
        g = _cheapest_height(work, s)
        if g < 0:
            return 0
        node = s * NH + g
    n = 0
    while node >= 0 and n < N_SQUARES:
        work[W_PLAN + n] = node // NH
        work[W_PLAN_G + n] = node % NH
        n += 1
        node = work[W_SUCC + node]
    return n


def _check_layout():
    from sim.games.ascension.policy_api import WORK_SIZE
    assert W_END <= WORK_SIZE, (W_END, WORK_SIZE)


_check_layout()
