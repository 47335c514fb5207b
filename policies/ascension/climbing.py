"""What Ascension bots compute about the board: climb distances and candidate piece moves.

All of it reads a seat's view (sim/games/ascension/view.py), never the state, and calls the
engine's own rule functions (step_is_legal, place_is_legal, count_pawn_moves) on a scratch copy
of the view's square blocks, so that a bot's idea of a legal step is the rules' idea.

Climb distance (RULES.md §7 suggests ceil((|dH| - 1) / 2) piece moves per infeasible edge).
That count is flat under most single moves: raising the middle of a 2-2-9 path lowers one edge
as much as it raises the next, so a greedy bot on it never starts a staircase. The search and the
bots' scores therefore price an edge by its squared excess in hu (0 if the step is legal as the
board stands), which rewards evening out a climb one piece at a time; `path_moves` still reports
§7's count of piece moves along the chosen path (the hybrid's k threshold uses it).
Edges are closed into another pawn, a foreign or unused corner, a shown chasm or a foreign
shape. A shown cable car links to every other free station at cost 0. Distances are computed
backwards from the goal (the pillar, or the own corner once the seat holds summit status) with
Dijkstra's algorithm.

Scratch layout in ctx.work (WORK_SIZE int64):
    [0, B_STACK)            a copy of the view's square blocks, modified and restored in place
    DIST (81), NEXT (81)    distances to the goal and the next square on a best path
    HEAP (8 * 81)           Dijkstra's heap of packed (distance, square) keys
    PATH (82)               the best path from the pawn, pawn first
    OPP_DIST/OPP_PATH       the same for each opponent (4 x 81, 4 x 82)
"""
from numba import njit

from sim.core.rng import stream_below

from sim.games.ascension.engine import count_pawn_moves, place_is_legal, step_is_legal
from sim.games.ascension.rules import C_CORNER_OF, C_N_PLAYERS, C_SHAPE_OF
from sim.games.ascension.state import (
    B_H, B_PAWN_ON, B_SHAPES, B_STACK, B_STACK_N, B_SYMBOL, CUBE, HALF, JOKER, N_SQUARES, NB,
    G_PRIVILEGED, ORIGIN_JOKER, ORIGIN_NEUTRAL, ORIGIN_SHAPED, PILLAR, S_ACTIVE, S_PAWN_SQ,
    S_SUMMIT, STAY,
    SYM_CABLE, SYM_CHASM, SYM_DRAGON, SYM_LADDER, SYM_MATTRESS)
from sim.games.ascension.rules import C_MATTRESS_FROM
from sim.games.ascension.view import (
    V_FACE_SHAPES, V_FACE_SYMBOL, V_HELD_H, V_HELD_KIND, V_HELD_ORIGIN, V_HELD_SHAPES,
    V_HELD_SYMBOL, V_HELD_WAS_UP, V_TOP_H, V_TOP_KIND, V_TOP_UP, V_UNDER_SHAPES,
    V_UNDER_SYMBOL)

INF = 1 << 20
W_DIST = B_STACK
W_NEXT = W_DIST + N_SQUARES
W_HEAP = W_NEXT + N_SQUARES
W_PATH = W_HEAP + 8 * N_SQUARES + 8
W_OPP_DIST = W_PATH + N_SQUARES + 1
W_OPP_PATH = W_OPP_DIST + 4 * N_SQUARES
W_OPP_LEN = W_OPP_PATH + 4 * (N_SQUARES + 1)
W_OPP_COST = W_OPP_LEN + 4
W_END = W_OPP_COST + 4


@njit(cache=True)
def copy_board(view, b):
    """The view's square blocks (and globals/seats) into scratch b[0:B_STACK]."""
    b[:B_STACK] = view[:B_STACK]


@njit(cache=True, inline="always")
def goal_of(b, t, seat):
    return t[C_CORNER_OF + seat] if b[S_SUMMIT + seat] else PILLAR


@njit(cache=True)
def can_enter(b, t, seat, d):
    """The parts of A29 a piece move cannot change quickly: pawns, corners, chasm, shapes."""
    occupant = b[B_PAWN_ON + d]
    if occupant >= 0 and occupant != seat:
        return False
    if (d == 0 or d == 8 or d == 72 or d == 80) and d != t[C_CORNER_OF + seat]:
        return False
    if b[B_SYMBOL + d] == SYM_CHASM:
        return False
    g = b[B_SHAPES + d]
    return g == 0 or (g & t[C_SHAPE_OF + seat]) != 0


@njit(cache=True)
def edge_excess(b, t, seat, a, d):
    """hu by which the step a -> d misses A30's height window; INF if closed."""
    if not can_enter(b, t, seat, d):
        return INF
    delta = b[B_H + d] - b[B_H + a]
    up = 2 if b[B_SYMBOL + a] == SYM_LADDER else 1
    down = 1
    if t[C_MATTRESS_FROM]:
        if b[B_SYMBOL + a] == SYM_MATTRESS:
            down = 2
    elif b[B_SYMBOL + d] == SYM_MATTRESS:
        down = 2
    if delta > up:
        return delta - up
    if delta < -down:
        return -down - delta
    return 0


@njit(cache=True)
def edge_cost(b, t, seat, a, d):
    """The search's price of the step a -> d: squared excess; INF if closed."""
    e = edge_excess(b, t, seat, a, d)
    return INF if e >= INF else e * e


@njit(cache=True)
def path_moves(b, t, seat, path, n):
    """§7's piece-move count along a path: sum of ceil(excess / 2); INF if it is closed."""
    total = 0
    for i in range(n - 1):
        a = path[i]
        d = path[i + 1]
        if b[B_SYMBOL + a] == SYM_CABLE and b[B_SYMBOL + d] == SYM_CABLE:
            continue
        e = edge_excess(b, t, seat, a, d)
        if e >= INF:
            return INF
        total += (e + 1) // 2
    return total


@njit(cache=True)
def _heap_push(heap, size, key):
    i = size
    heap[i] = key
    while i > 0:
        parent = (i - 1) >> 1
        if heap[parent] <= heap[i]:
            break
        heap[parent], heap[i] = heap[i], heap[parent]
        i = parent
    return size + 1


@njit(cache=True)
def _heap_pop(heap, size):
    top = heap[0]
    size -= 1
    heap[0] = heap[size]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        child = left
        if left + 1 < size and heap[left + 1] < heap[left]:
            child = left + 1
        if heap[i] <= heap[child]:
            break
        heap[i], heap[child] = heap[child], heap[i]
        i = child
    return top, size


@njit(cache=True)
def distances_to_goal(b, t, seat, goal, dist, nxt, heap):
    """Backward Dijkstra: dist[s] = climb distance from s to goal, nxt[s] = next square."""
    for s in range(N_SQUARES):
        dist[s] = INF
        nxt[s] = -1
    dist[goal] = 0
    size = _heap_push(heap, 0, goal)
    while size > 0:
        key, size = _heap_pop(heap, size)
        u = key & 127
        du = key >> 7
        if du > dist[u]:
            continue
        if not can_enter(b, t, seat, u) and u != goal:
            continue
        for k in range(8):
            a = NB[u, k]
            if a < 0:
                break
            c = edge_cost(b, t, seat, a, u)
            if c >= INF:
                continue
            if du + c < dist[a]:
                dist[a] = du + c
                nxt[a] = u
                size = _heap_push(heap, size, ((du + c) << 7) | a)
        if b[B_SYMBOL + u] == SYM_CABLE and b[B_PAWN_ON + u] < 0:    # A31: rides into u
            for a in range(N_SQUARES):
                if a != u and b[B_SYMBOL + a] == SYM_CABLE and du < dist[a]:
                    dist[a] = du
                    nxt[a] = u
                    size = _heap_push(heap, size, (du << 7) | a)
    return dist[b[S_PAWN_SQ + seat]] if b[S_PAWN_SQ + seat] >= 0 else INF


@njit(cache=True)
def extract_path(b, seat, nxt, path):
    """The best path from seat's pawn, pawn square first; returns its length (squares)."""
    s = b[S_PAWN_SQ + seat]
    n = 0
    while s >= 0 and n < N_SQUARES:
        path[n] = s
        n += 1
        s = nxt[s]
    return n


@njit(cache=True)
def seat_plan(view, t, seat, b, work):
    """Distances and best path of `seat`; returns (distance, path length)."""
    dist = work[W_DIST:W_DIST + N_SQUARES]
    nxt = work[W_NEXT:W_NEXT + N_SQUARES]
    heap = work[W_HEAP:W_HEAP + 8 * N_SQUARES + 8]
    d = distances_to_goal(b, t, seat, goal_of(b, t, seat), dist, nxt, heap)
    if d >= INF:
        return INF, 0
    path = work[W_PATH:W_PATH + N_SQUARES + 1]
    n = extract_path(b, seat, nxt, path)
    return path_moves(b, t, seat, path, n), n


@njit(cache=True)
def opponent_plans(view, t, seat, b, work):
    """Best path and its cost for every other active seat (OPP_PATH/OPP_LEN/OPP_COST)."""
    for q in range(t[C_N_PLAYERS]):
        work[W_OPP_LEN + q] = 0
        work[W_OPP_COST + q] = INF
        if q == seat or not b[S_ACTIVE + q]:
            continue
        dist = work[W_OPP_DIST + q * N_SQUARES:W_OPP_DIST + (q + 1) * N_SQUARES]
        nxt = work[W_NEXT:W_NEXT + N_SQUARES]
        heap = work[W_HEAP:W_HEAP + 8 * N_SQUARES + 8]
        d = distances_to_goal(b, t, q, goal_of(b, t, q), dist, nxt, heap)
        if d < INF:
            base = W_OPP_PATH + q * (N_SQUARES + 1)
            path = work[base:base + N_SQUARES + 1]
            n = extract_path(b, q, nxt, path)
            work[W_OPP_LEN + q] = n
            work[W_OPP_COST + q] = path_moves(b, t, q, path, n)


# --- piece moves as board edits ------------------------------------------------------------

@njit(cache=True)
def lift_top(b, view, s, h):
    """Scratch edit: take the top (height h) off s; returns the saved (H, shapes, symbol, n)."""
    saved = (b[B_H + s], b[B_SHAPES + s], b[B_SYMBOL + s], b[B_STACK_N + s])
    b[B_H + s] -= h
    b[B_SHAPES + s] = view[V_UNDER_SHAPES + s]
    b[B_SYMBOL + s] = view[V_UNDER_SYMBOL + s]
    b[B_STACK_N + s] -= 1
    return saved


@njit(cache=True)
def put_on(b, d, h, shp, sym):
    saved = (b[B_H + d], b[B_SHAPES + d], b[B_SYMBOL + d], b[B_STACK_N + d])
    b[B_H + d] += h
    b[B_SHAPES + d] = shp
    b[B_SYMBOL + d] = sym
    b[B_STACK_N + d] += 1
    return saved


@njit(cache=True)
def restore(b, s, saved):
    b[B_H + s] = saved[0]
    b[B_SHAPES + s] = saved[1]
    b[B_SYMBOL + s] = saved[2]
    b[B_STACK_N + s] = saved[3]


@njit(cache=True)
def origin_piece(view, t, seat, origin):
    """(height, kind, known shapes, known symbol, was face up) of what an origin offers; the
    face is -1 when this seat does not know it."""
    if origin == ORIGIN_SHAPED:
        return 1, HALF, t[C_SHAPE_OF + seat], 0, 1
    if origin == ORIGIN_NEUTRAL:
        return 1, HALF, 0, 0, 1
    if origin == ORIGIN_JOKER:
        return 1, JOKER, 0, SYM_DRAGON, 1
    return (view[V_TOP_H + origin], view[V_TOP_KIND + origin], view[V_FACE_SHAPES + origin],
            view[V_FACE_SYMBOL + origin], view[V_TOP_UP + origin])


@njit(cache=True)
def held_piece(view):
    return (view[V_HELD_H], view[V_HELD_KIND], view[V_HELD_SHAPES], view[V_HELD_SYMBOL],
            view[V_HELD_WAS_UP])


@njit(cache=True)
def orientation_shows(kind, shapes, symbol, was_up, up):
    """What the piece would show placed with `up` (A16): (allowed, shapes, symbol)."""
    if kind == CUBE:
        if not up:
            return True, 0, 0
        if was_up or shapes < 0 or (shapes == 0 and symbol == 0):
            return False, 0, 0
        return True, shapes, symbol
    if not up:
        return False, 0, 0
    if kind == JOKER:
        return True, 0, SYM_DRAGON
    return True, shapes, 0


@njit(cache=True)
def mobility(b, t, seat):
    s = b[S_PAWN_SQ + seat]
    if s < 0:
        return 0
    return count_pawn_moves(b, t, seat, s)


@njit(cache=True)
def placement_ok(b, t, seat, shp, sym, d, origin):
    if d == origin:
        return False
    return place_is_legal(b, t, seat, shp, sym, d)


@njit(cache=True)
def step_ok(b, t, seat, s, d):
    return step_is_legal(b, t, seat, s, d)


# --- choosing a piece move ------------------------------------------------------------------

W_POS = W_END                      # position of each square in each seat's path, -1 if not
W_MARK = W_POS + 4 * N_SQUARES     # relevant squares (on a path or next to a pawn)
W_GROUP = W_MARK + N_SQUARES       # per origin: its group representative, for irrelevant origins
W_FINAL = W_GROUP + 96
EDGE_COST_CAP = 1000        # a closed edge, priced like a 31-hu wall

OBJ_STAIR, OBJ_BLOCK = 0, 1


@njit(cache=True)
def _index_paths(b, t, seat, work, own_len):
    """pos tables and the relevant-square marks for the current plans."""
    for k in range(4 * N_SQUARES):
        work[W_POS + k] = -1
    for s in range(N_SQUARES):
        work[W_MARK + s] = 0
    for i in range(own_len):
        s = work[W_PATH + i]
        work[W_POS + seat * N_SQUARES + s] = i
        work[W_MARK + s] = 1
    for q in range(t[C_N_PLAYERS]):
        if q == seat:
            continue
        base = W_OPP_PATH + q * (N_SQUARES + 1)
        for i in range(work[W_OPP_LEN + q]):
            s = work[base + i]
            work[W_POS + q * N_SQUARES + s] = i
            work[W_MARK + s] = 1
    for q in range(t[C_N_PLAYERS]):
        s = b[S_PAWN_SQ + q]
        if s < 0:
            continue
        for k in range(8):
            d = NB[s, k]
            if d < 0:
                break
            work[W_MARK + d] = 1
    work[W_MARK + PILLAR] = 1


@njit(cache=True)
def _path_delta(b, t, q, work, path_base, length, s, old_b_h, old_shp, old_sym):
    """Change in seat q's path cost when square s changed (b already holds the new values;
    the old ones are given). Only the two path edges at s are re-priced."""
    i = work[W_POS + q * N_SQUARES + s]
    if i < 0:
        return 0
    new_total = 0
    old_total = 0
    for j in (i - 1, i):
        if j < 0 or j + 1 >= length:
            continue
        a = work[path_base + j]
        d = work[path_base + j + 1]
        new_c = edge_cost(b, t, q, a, d)
        # the old price, with s put back as it was
        nh, ns, ny = b[B_H + s], b[B_SHAPES + s], b[B_SYMBOL + s]
        b[B_H + s], b[B_SHAPES + s], b[B_SYMBOL + s] = old_b_h, old_shp, old_sym
        old_c = edge_cost(b, t, q, a, d)
        b[B_H + s], b[B_SHAPES + s], b[B_SYMBOL + s] = nh, ns, ny
        new_total += min(new_c, EDGE_COST_CAP)
        old_total += min(old_c, EDGE_COST_CAP)
    return new_total - old_total


@njit(cache=True)
def post_repair_mobility(b, view, t, target, locked_sq):
    """The target's legal-move count after its best single repair (§7 blocker's 1-ply).

    Repairs: take the top off a neighbour (not the piece just moved, locked by A12d), or put a
    half-cube (+1) or a cube (+2, face down) on a neighbour that is open to it."""
    s = b[S_PAWN_SQ + target]
    best = count_pawn_moves(b, t, target, s)
    for k in range(8):
        n = NB[s, k]
        if n < 0:
            break
        if best >= 2:
            return best
        # lower
        if b[B_STACK_N + n] > 0 and n != locked_sq and b[B_PAWN_ON + n] < 0 \
                and b[B_SYMBOL + n] != SYM_DRAGON:
            h = view[V_TOP_H + n] if view[V_TOP_H + n] > 0 else 2
            saved = lift_top(b, view, n, h)
            m = count_pawn_moves(b, t, target, s)
            restore(b, n, saved)
            if m > best:
                best = m
        # raise by 1 or 2 with a plain piece
        if place_is_legal(b, t, target, 0, 0, n):
            for h in (1, 2):
                saved = put_on(b, n, h, 0, 0)
                m = count_pawn_moves(b, t, target, s)
                restore(b, n, saved)
                if m > best:
                    best = m
    return best


@njit(cache=True)
def choose_piece_move(ctx, objective, target, opp_weight, held):
    """The best legal (origin or placement) code for the pending piece decision.

    objective OBJ_STAIR: least own climb distance, then mobility, then opponents' distances
    (weighted by opp_weight). OBJ_BLOCK: least post-repair mobility of `target` first.
    held: the decision is a placement of the held piece (PLACE/JOKER phase)."""
    view = ctx.board
    t = ctx.config
    seat = ctx.seat
    work = ctx.work
    b = work
    copy_board(view, b)
    own_d, own_len = seat_plan(view, t, seat, b, work)
    opponent_plans(view, t, seat, b, work)
    _index_paths(b, t, seat, work, own_len)
    pawn = b[S_PAWN_SQ + seat]
    base_mob = mobility(b, t, seat)
    target_sq = b[S_PAWN_SQ + target] if objective == OBJ_BLOCK and target >= 0 else -1
    base_target = post_repair_mobility(b, view, t, target, -1) if target_sq >= 0 else 0
    best_score = 1e300
    best_code = ctx.legal[0]
    ties = 0
    n_groups = 0
    for i in range(ctx.n_legal):
        code = ctx.legal[i]
        if held:
            if code >= 2 * N_SQUARES:                      # declining the joker (A57)
                continue
            origin = view[V_HELD_ORIGIN]
            h, kind, fshp, fsym, was_up = held_piece(view)
        else:
            origin = code
            h, kind, fshp, fsym, was_up = origin_piece(view, t, seat, origin)
            # An origin off every path and away from every pawn only matters through its
            # piece: one evaluation per kind of piece.
            if origin < N_SQUARES and work[W_MARK + origin] == 0:
                key = (h * 64 + kind * 16 + (fshp + 1)) * 16 + (fsym + 1) + 2048 * was_up
                seen = False
                for g in range(n_groups):
                    if work[W_GROUP + g] == key:
                        seen = True
                if seen:
                    continue
                if n_groups < 96:
                    work[W_GROUP + n_groups] = key
                    n_groups += 1
        saved_o = (0, 0, 0, 0)
        lifted = origin >= 0 and origin < N_SQUARES and not held
        if lifted:
            saved_o = lift_top(b, view, origin, h)
        score_origin = 0.0
        if lifted:
            score_origin = _score_change(b, t, seat, work, own_len, origin, saved_o,
                                         opp_weight)
        best_here = 1e300
        for d in range(N_SQUARES):
            if held:
                up = code & 1
                if d != code >> 1:
                    continue
                ups_lo, ups_hi = up, up
            else:
                ups_lo, ups_hi = 0, 1
            if not held and work[W_MARK + d] == 0 and d != pawn:
                continue
            for up in range(ups_lo, ups_hi + 1):
                allowed, shp, sym = orientation_shows(kind, fshp, fsym, was_up, up)
                if not allowed:
                    continue
                if not held and not placement_ok(b, t, seat, shp, sym, d, origin):
                    continue
                saved_d = put_on(b, d, h, shp, sym)
                score = score_origin + _score_change(b, t, seat, work, own_len, d, saved_d,
                                                     opp_weight)
                if d == pawn or origin == pawn or _near(pawn, d) or (lifted and _near(pawn, origin)):
                    m = mobility(b, t, seat)
                else:
                    m = base_mob
                score -= 0.5 * min(m, 2)
                if target_sq >= 0:
                    if _near(target_sq, d) or (lifted and _near(target_sq, origin)):
                        score += 10000.0 * post_repair_mobility(b, view, t, target, d)
                    else:
                        score += 10000.0 * base_target
                if up == 1 and kind == CUBE:
                    score += 0.05                          # keep faces hidden unless it pays
                restore(b, d, saved_d)
                if score < best_here:
                    best_here = score
        if not held and best_here == 1e300:
            # only irrelevant destinations: the move's worth is its origin alone
            best_here = score_origin - 0.5 * min(base_mob, 2) + 0.1 + 10000.0 * base_target
        if lifted:
            restore(b, origin, saved_o)
        if best_here < best_score - 1e-9:
            best_score = best_here
            best_code = code
            ties = 1
        elif abs(best_here - best_score) <= 1e-9:
            ties += 1
            if stream_below(ctx.stream, ties) == 0:
                best_code = code
    if not held and best_code < N_SQUARES and work[W_MARK + best_code] == 0:
        best_code = _random_group_member(ctx, view, t, seat, best_code)
    _ = own_d
    return best_code


@njit(cache=True, inline="always")
def _adjacent(a, d):
    ra, ca = a // 9, a % 9
    rd, cd = d // 9, d % 9
    return max(abs(ra - rd), abs(ca - cd)) == 1


@njit(cache=True, inline="always")
def _near(pawn, s):
    return pawn >= 0 and (s == pawn or _adjacent(pawn, s))


@njit(cache=True)
def _score_change(b, t, seat, work, own_len, s, saved, opp_weight):
    """Own path change minus weighted opponents' path changes, for a change at s."""
    score = 1.0 * _path_delta(b, t, seat, work, W_PATH, own_len, s, saved[0], saved[1],
                                 saved[2])
    if opp_weight > 0:
        for q in range(t[C_N_PLAYERS]):
            if q == seat or work[W_OPP_LEN + q] == 0:
                continue
            base = W_OPP_PATH + q * (N_SQUARES + 1)
            score -= opp_weight * _path_delta(b, t, q, work, base, work[W_OPP_LEN + q], s,
                                              saved[0], saved[1], saved[2])
    return score


@njit(cache=True)
def _random_group_member(ctx, view, t, seat, representative):
    """A uniformly random irrelevant origin with the representative's kind of piece."""
    work = ctx.work
    h, kind, fshp, fsym, was_up = origin_piece(view, t, seat, representative)
    count = 0
    chosen = representative
    for i in range(ctx.n_legal):
        o = ctx.legal[i]
        if o >= N_SQUARES or work[W_MARK + o] != 0:
            continue
        h2, k2, s2, y2, u2 = origin_piece(view, t, seat, o)
        if h2 == h and k2 == kind and s2 == fshp and y2 == fsym and u2 == was_up:
            count += 1
            if stream_below(ctx.stream, count) == 0:
                chosen = o
    return chosen


@njit(cache=True)
def choose_pawn_move(ctx):
    """Pawn or spring decision: the legal square with the least climb distance from it, then
    the most legal moves from there (the §7 safety check), else stay/decline if that is as
    good."""
    view = ctx.board
    t = ctx.config
    seat = ctx.seat
    work = ctx.work
    b = work
    copy_board(view, b)
    seat_plan(view, t, seat, b, work)
    dist = work[W_DIST:W_DIST + N_SQUARES]
    s = b[S_PAWN_SQ + seat]
    best_code = ctx.legal[0]
    best_score = 1e300
    ties = 0
    for i in range(ctx.n_legal):
        d = ctx.legal[i]
        if d == STAY:
            score = 1.0 * min(dist[s], INF) - 0.5 * min(count_pawn_moves(b, t, seat, s), 2)
        else:
            if d == goal_of(b, t, seat):
                return d                                   # the summit, or the win (A40, A45)
            b[B_PAWN_ON + s] = -1
            b[B_PAWN_ON + d] = seat
            b[S_PAWN_SQ + seat] = d
            m = count_pawn_moves(b, t, seat, d)
            b[B_PAWN_ON + d] = -1
            b[B_PAWN_ON + s] = seat
            b[S_PAWN_SQ + seat] = s
            score = 1.0 * min(dist[d], INF) - 0.5 * min(m, 2)
        if score < best_score - 1e-9:
            best_score = score
            best_code = d
            ties = 1
        elif abs(score - best_score) <= 1e-9:
            ties += 1
            if stream_below(ctx.stream, ties) == 0:
                best_code = d
    return best_code


@njit(cache=True)
def leader(view, t, seat, work):
    """§7 blocker's target: a seat with summit status (the privileged one first), otherwise the
    opponent with the least climb distance (opponent_plans must have run). -1 if none."""
    best = -1
    for q in range(t[C_N_PLAYERS]):
        if q != seat and view[S_ACTIVE + q] and view[S_SUMMIT + q]:
            if best < 0 or view[G_PRIVILEGED] == q:
                best = q
    if best >= 0:
        return best
    best_d = INF
    for q in range(t[C_N_PLAYERS]):
        if q != seat and view[S_ACTIVE + q] and work[W_OPP_COST + q] < best_d:
            best_d = work[W_OPP_COST + q]
            best = q
    return best
