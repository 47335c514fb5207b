"""`planner`: plans a route of up to 8 pitches toward the objectives it can complete.

Route. Every hex gets a worth: its pitch points (value - N), +1 on a summit, the objectives in
play it advances (per-pitch and Headwall points in full; a step toward a type, ridge, traverse
or All-Arounding threshold as a share of its points, the whole of it when the step completes
it), its personal objectives likewise, minus the units its own character pays there at a cost
per unit (engine.units_to_pay, so every requirement ability counts; face-down tiles: the
average). A depth-limited search over the legal moves (own route excluded, the best `branch`
neighbours first) gives each destination its best route value.

Turn: climb the destination with the best now-points + future-weight x route value - spend
weight x assets spent (a payable pitch offered only as a risk counts as a climb: F71); risk
the best such destination when nothing can be climbed and its value clears the risk
threshold; otherwise play own-turn tokens, trade toward what the planned target lacks, or
rest. Rests keep water and psych at a floor, then take the cards the
planned target lacks; draws take the Spread card it lacks, then wilds, then the deck.
Climbing-card options are valued like greedy's, with technique tokens worth more when they
complete a set this round.

Knobs (params, the `tuned` policy fits them per character):
    0 future weight, 1 cost per requirement unit, 2 share of a threshold objective per step,
    3 share of a personal objective per step, 4 risk threshold, 5 spend weight per asset,
    6 water/psych floor when resting, 7 technique token worth, 8 Summit Beta worth,
    9 card worth, 10 search depth, 11 branch
"""
import numpy as np

from policies.first_ascent.greedy import (
    VERB_WORTH, common_choice, payment_work, pick_of_type, zeroed_counts)
from sim.core.bits import popcount, trailing_zeros
from sim.core.policies import compiled_on_use, register
from sim.core.jit import njit_noalloc
from sim.games.first_ascent import engine as E
from sim.games.first_ascent.data import (
    BM_HEADWALL, BM_NORTH, BM_ROW, BM_SOUTH, E_AMOUNT, E_PART, E_TECH, E_VERB, E_WHO,
    MAX_ENTRIES, N_HEX, SO_A, SO_B, SO_FIELDS, SO_KIND, SO_POINTS, T_B_NEIGH, T_B_VALUE, T_KIND_TECH,
    T_KIND_TYPE, T_P_SHADE, T_P_TYPE, T_P_VALUE, T_PO_MASK, T_PO_POINTS, T_SO)
from sim.games.first_ascent.memory import (
    PLANNER_PLAN_CACHE, RF_BEST, RF_DEPTH, RF_MOVE_WORTH, RF_MOVES, RF_PICKS, RF_SIZE,
    RF_TAKEN, RF_VISITED, ROUTE_SEARCH_LEVELS, W_HEX_WORTH, W_REQUIREMENT, W_ROUTE_SEARCH,
    W_WORTHS_KNOWN)
from sim.games.first_ascent.policy_api import POLICY_SIGNATURE
from sim.games.first_ascent.state import (
    A_PASS, A_PLAY_SB, A_REST, A_RISK, A_STOP, A_TRADE, D_CARD, D_DISCARD_PICK, D_DRAW, D_OPTION,
    D_PILE, D_REST, D_TURN, DRAW_DECK, G_AUX, G_ROUND, G_SHARED, G_SIDE, REST_PSYCH,
    REST_WATER, S_ELITIST_LOST, S_OBJ_DONE, S_PERSONAL, S_PSYCH, S_ROUTE_MASK, S_ROUTE_N, S_TECH,
    S_TYPE_N, S_WATER, SB_ENERGY_DRINK, SEAT_FIELDS, SPREAD, TILE, WITH_JESUS)

PLANNER_KNOBS = ("future_weight", "cost_per_unit", "objective_step_share",
                 "personal_step_share", "risk_threshold", "spend_weight", "track_floor",
                 "technique_token_worth", "summit_beta_worth", "card_worth", "search_depth",
                 "branch")
DEFAULT_PARAMS = (0.6, 0.25, 0.35, 0.4, 1.5, 0.25, 2.0, 0.8, 1.3, 1.0, 4.0, 2.0)
# the range each knob is searched over when tuning (depth and branch stay small for speed)
PLANNER_BOUNDS = ((0.0, 1.2), (0.0, 1.0), (0.0, 1.0), (0.0, 1.0), (-2.0, 6.0), (0.0, 1.0),
                  (0.0, 5.0), (0.0, 3.0), (0.0, 3.0), (0.0, 2.5), (1.0, 5.0), (1.0, 3.0))
N_KNOBS = len(PLANNER_KNOBS)
AVERAGE_UNITS = 6.5
K_RIDGE, K_PER_PITCH, K_TYPE_COUNT, K_GRAND_TRAVERSE, K_ALL_TYPES, K_ELITIST, \
    K_PER_HEADWALL, K_PERMANENT = range(8)


@njit_noalloc(inline="always")
def worth_work(work):
    """The float64 hex-worth vector, kept in the work memory so the planner never allocates."""
    return work[W_HEX_WORTH:W_HEX_WORTH + N_HEX].view(np.float64)


@njit_noalloc
def hex_worth(st, t, seat, h, params, res, req):
    """The planning worth of climbing hex h next (module docstring). `res`: the seat's
    payment_resources; `req`: 7 int64 of scratch."""
    return worth_on_route(st, t, seat, h, params, res, req, E.route_tiles(st, seat))


@njit_noalloc
def worth_on_route(st, t, seat, h, params, res, req, tiles):
    """hex_worth with the seat's route tiles (E.route_tiles) given, read once per decision."""
    side = st[G_SIDE]
    base = seat * SEAT_FIELDS
    tile = st[TILE + h]
    face_up = E.hex_face_up(st, t, h)
    # F35(3) scores the tile's value (a knob may change it); a face-down tile shows only the
    # board's printed value for its hex
    value = t[T_P_VALUE + tile] if face_up else t[T_B_VALUE + N_HEX * side + h]
    w = max(0, value - E.climbed_by_others(st, seat, h)) * 1.0 + E.summit_points(st, t, seat, h)
    headwall = (E.board_mask(st, t, BM_HEADWALL) >> h) & 1
    share = params[2]
    for i in range(3):
        so = st[G_SHARED + i]
        at = T_SO + SO_FIELDS * so
        kind = t[at + SO_KIND]
        pts = t[at + SO_POINTS]
        if (st[S_OBJ_DONE + base] >> so) & 1:
            continue
        if kind == K_PER_HEADWALL and headwall:
            w += pts
        elif kind == K_PER_PITCH and face_up and (t[at + SO_A] >> t[T_P_SHADE + tile]) & 1:
            w += pts
        elif kind == K_ELITIST and face_up and t[T_P_VALUE + tile] == t[at + SO_A] and \
                st[S_ELITIST_LOST + base] == 0:
            w -= pts
        elif kind == K_TYPE_COUNT and face_up:
            if E.counts_for_type_objective(t, so, tile):
                have = st[S_TYPE_N + base + t[at + SO_A]]
                w += pts if have + 1 >= t[at + SO_B] else pts * share
        elif kind == K_RIDGE:
            ridge = E.board_mask(st, t, BM_NORTH if t[at + SO_A] == 0 else BM_SOUTH)
            if (ridge >> h) & 1:
                have = popcount(st[S_ROUTE_MASK + base] & ridge)
                w += pts if have + 1 >= t[at + SO_B] else pts * share * 0.7
        elif kind == K_ALL_TYPES and face_up:
            if st[S_TYPE_N + base + t[T_P_TYPE + tile]] == 0 or \
                    (tile == E.TRIFECTA and t[at + SO_B] != 0):        # F99's own fill
                w += pts * share * 0.5
        elif kind == K_GRAND_TRAVERSE:
            row = E.board_mask(st, t, BM_ROW + E.hex_row(st, t, h) - 1)
            if popcount(st[S_ROUTE_MASK + base] & row) > 0:
                w += pts * share * 0.5
    if face_up:
        for i in range(2):
            po = st[S_PERSONAL + base + i]
            if (t[T_PO_MASK + po] >> tile) & 1 and not (tiles >> tile) & 1:
                have = popcount(tiles & t[T_PO_MASK + po])
                if have < 3:
                    w += t[T_PO_POINTS + po] * (1.0 if have == 2 else params[3])
        units = E.units_to_pay(st, t, seat, h, res, req)
    else:
        units = AVERAGE_UNITS
    return w - params[1] * units


@njit_noalloc
def begin_worths(st, seat, work):
    """Begin a decision's worth table with no hex worked out: the search works out the hexes
    it reads (known_worths), and a hex it never reaches costs nothing."""
    work[W_WORTHS_KNOWN] = 0
    work[W_WORTHS_KNOWN + 1] = E.route_tiles(st, seat)


@njit_noalloc
def known_worths(st, t, seat, params, res, work, w, need):
    """Work out hex_worth into w for the hexes of mask `need` not yet known this decision
    (-1e9 for a hex without a tile); `res`: the seat's payment_resources."""
    todo = need & ~work[W_WORTHS_KNOWN]
    if todo == 0:
        return
    work[W_WORTHS_KNOWN] |= todo
    req = work[W_REQUIREMENT:W_REQUIREMENT + 7]
    tiles = work[W_WORTHS_KNOWN + 1]
    while todo:
        low = todo & -todo
        h = trailing_zeros(low)
        todo ^= low
        w[h] = worth_on_route(st, t, seat, h, params, res, req, tiles) \
            if st[TILE + h] > 0 else -1e9


@njit_noalloc(inline="always")
def _moves_from(st, t, seat, w, h, visited, params, res, work):
    """The moves on from hex h off the route `visited` (never back to hex 0), their worths
    worked out into w."""
    moves = t[T_B_NEIGH + N_HEX * st[G_SIDE] + h] & ~visited & ~np.int64(1)
    if moves & ~work[W_WORTHS_KNOWN]:    # most levels find every worth known: spare the call
        known_worths(st, t, seat, params, res, work, w, moves)
    return moves


@njit_noalloc(inline="always")
def _highest_worth(w, moves):
    """(hex, worth) of the move in mask `moves` with the highest worth, the first in hex order
    among equals; (-1, -1e8) if none is worth more than -1e8 (a hex without a tile: -1e9)."""
    pick = -1
    pick_w = -1e8
    while moves:
        low = moves & -moves
        x = trailing_zeros(low)
        moves ^= low
        if w[x] > pick_w:
            pick_w = w[x]
            pick = x
    return pick, pick_w


@njit_noalloc
def _enter_level(st, t, seat, w, frames, values, level, h, visited, depth, params, res, work):
    """Begin level `level` of the route search (route_value) standing on hex h."""
    f = level * RF_SIZE
    frames[f + RF_VISITED] = visited
    frames[f + RF_DEPTH] = depth
    frames[f + RF_MOVES] = _moves_from(st, t, seat, w, h, visited, params, res, work)
    frames[f + RF_TAKEN] = 0
    frames[f + RF_PICKS] = 0
    values[f + RF_BEST] = 0.0


@njit_noalloc
def _best_last_step(st, t, seat, w, h, visited, params, res, work):
    """route_value at depth 1 (with a branch of at least 1), worked out directly: the first of
    the picks has the highest worth, and no later pick beats it, so the value is the highest
    worth of a move (0 if none is above 0)."""
    _, best = _highest_worth(w, _moves_from(st, t, seat, w, h, visited, params, res, work))
    return best if best > 0.0 else 0.0


@njit_noalloc
def route_value(st, t, seat, w, h, visited, depth, params, res, work):
    """The best worth of `depth` more climbs after standing on h (visited: route mask): of the
    `branch` neighbours with the highest worth (the first in hex order among equals), the best
    of its worth plus future weight x the best route on from it; 0 if none is better.

    The search goes depth first over an explicit stack of levels in the work memory
    (memory.py's RF_* frames) rather than by recursion: a call passes six arrays, and the calls
    cost more than the search's own work. The last level (depth 1, half of all levels) is worked
    out directly (_best_last_step)."""
    if depth <= 0:
        return 0.0
    frames = work[W_ROUTE_SEARCH:W_ROUTE_SEARCH + ROUTE_SEARCH_LEVELS * RF_SIZE]
    values = frames.view(np.float64)
    branch = int(params[11])
    level = 0
    _enter_level(st, t, seat, w, frames, values, 0, h, visited, depth, params, res, work)
    while True:
        f = level * RF_SIZE
        pick, pick_w = -1, 0.0
        if frames[f + RF_PICKS] < branch:
            pick, pick_w = _highest_worth(w, frames[f + RF_MOVES] & ~frames[f + RF_TAKEN])
        if pick >= 0:
            frames[f + RF_PICKS] += 1
            frames[f + RF_TAKEN] |= np.int64(1) << pick
            depth = frames[f + RF_DEPTH]
            if depth > 2:
                values[f + RF_MOVE_WORTH] = pick_w
                level += 1
                _enter_level(st, t, seat, w, frames, values, level, pick,
                             frames[f + RF_VISITED] | (np.int64(1) << pick), depth - 1, params,
                             res, work)
                continue
            v = pick_w
            if depth == 2:
                v += params[0] * _best_last_step(
                    st, t, seat, w, pick, frames[f + RF_VISITED] | (np.int64(1) << pick),
                    params, res, work)
            if v > values[f + RF_BEST]:
                values[f + RF_BEST] = v
            continue
        # this level is searched: its best goes to the move that led to it
        result = values[f + RF_BEST]
        if level == 0:
            return result
        level -= 1
        f = level * RF_SIZE
        v = values[f + RF_MOVE_WORTH] + params[0] * result
        if v > values[f + RF_BEST]:
            values[f + RF_BEST] = v


@njit_noalloc
def destination_value(st, t, seat, w, h, params, res, work):
    """Climbing h next: its worth plus future weight x the best route on from it. The
    decision's worth table must have begun (begin_worths)."""
    base = seat * SEAT_FIELDS
    left = 8 - st[S_ROUTE_N + base] - 1
    depth = min(left, int(params[10]))
    known_worths(st, t, seat, params, res, work, w, np.int64(1) << h)
    return w[h] + params[0] * route_value(
        st, t, seat, w, h, st[S_ROUTE_MASK + base] | (np.int64(1) << h), depth, params, res,
        work)


@njit_noalloc
def planned_target(st, t, seat, params, work):
    """(hex, missing unit kind) of the best-valued legal destination, remembered for the
    seat's round and route."""
    base = seat * SEAT_FIELDS
    key = 1 + seat * 100000 + st[G_ROUND] * 100 + st[S_ROUTE_N + base]
    if work[PLANNER_PLAN_CACHE] == key:
        return work[PLANNER_PLAN_CACHE + 1], work[PLANNER_PLAN_CACHE + 2]
    dest = E.legal_destinations(st, t, seat)
    plan, buffer, res = payment_work(work)
    E.payment_resources(st, t, seat, res)
    w = worth_work(work)
    begin_worths(st, seat, work)
    best = -1e9
    target = -1
    kind = -1
    for h in range(1, N_HEX):
        if (dest >> h) & 1:
            s = E.plan_payment_from(st, t, seat, h, plan, E.ANY_TOKENS, res, buffer)
            v = destination_value(st, t, seat, w, h, params, res, work) - 0.8 * s
            if v > best:
                best = v
                target = h
                kind = plan[E.PL_UNPAID] if s > 0 else -1
    work[PLANNER_PLAN_CACHE] = key
    work[PLANNER_PLAN_CACHE + 1] = target
    work[PLANNER_PLAN_CACHE + 2] = kind
    return target, kind


@njit_noalloc
def wanted_type(st, t, seat, params, work):
    """The asset type the planned target lacks (any_skill: the skill held least); else the
    type held least."""
    target, kind = planned_target(st, t, seat, params, work)
    if 0 <= kind <= 3:
        return kind
    low = 1 << 30
    pick = 0
    first = 1 if kind == 4 else 0
    for a in range(first, 4):
        n = E.hand_of_type(st, t, seat, a)
        if n < low:
            low = n
            pick = a
    return pick


@njit_noalloc
def option_worth(st, t, seat, card, option, jesus, params, work):
    counts = zeroed_counts(work, 6)
    E.technique_counts(st, t, seat, counts)
    w = 0.0
    for k in range(MAX_ENTRIES):
        at = E.entry_at(card, option, k)
        part = t[at + E_PART]
        if part == 0:
            break
        if jesus and part == 1:
            continue
        verb = t[at + E_VERB]
        amount = t[at + E_AMOUNT]
        if verb <= 1:
            who = t[at + E_WHO]
            sign = 1.0 if amount > 0 else -1.0
            if who == 2 or who == 4:
                sign = -0.3 * sign
            w += sign * min(abs(amount), 2) * VERB_WORTH[verb]
        elif verb == 2 or verb == 3:
            w -= amount * params[9] * (1.2 if verb == 3 else 1.0)
        elif verb == 4:
            w += amount * params[9]
        elif verb == 5:
            tech = t[at + E_TECH]
            bonus = 0.0
            if tech > 0 and (counts[tech] + st[S_TECH + seat * SEAT_FIELDS + tech] +
                             counts[5]) % 3 == 2:
                bonus = 1.2
            w += params[7] + bonus
        elif verb == 6:
            w += amount * params[8]
        else:
            w += VERB_WORTH[verb]
    if jesus:
        w -= params[8]
    return w


@njit_noalloc
def decide(ctx, params):
    """The planner's answer with the knob vector `params` (module docstring)."""
    st = ctx.state
    t = ctx.tables
    seat = ctx.seat
    legal = ctx.legal
    n = ctx.n_legal
    d = ctx.decision
    base = seat * SEAT_FIELDS
    if d == D_TURN:
        plan, buffer, res = payment_work(ctx.work)
        E.payment_resources(st, t, seat, res)
        w = worth_work(ctx.work)
        begin_worths(st, seat, ctx.work)
        best = -1e9
        pick = -1
        best_risk = -1e9
        risk_pick = -1
        trade = False
        token = -1
        for i in range(n):
            c = legal[i]
            if c == A_REST:
                continue
            if c >= A_PLAY_SB:
                if token < 0 or c - A_PLAY_SB != SB_ENERGY_DRINK:
                    token = c
            elif c >= A_TRADE:
                trade = True
            else:
                h = c - A_RISK if c >= A_RISK else c
                s = E.plan_payment_from(st, t, seat, h, plan, E.ANY_TOKENS, res, buffer)
                v = destination_value(st, t, seat, w, h, params, res, ctx.work) - \
                    params[5] * plan[E.PL_COST]
                # a payable pitch offered only as a risk (a character who risks every climb,
                # F71) is that character's climb
                if c >= A_RISK and s > 0:
                    if v > best_risk:
                        best_risk = v
                        risk_pick = c
                elif v > best:
                    best = v
                    pick = c
        if pick >= 0:
            return pick
        if token >= 0:
            return token
        if trade:
            want = wanted_type(st, t, seat, params, ctx.work)
            for i in range(n):
                c = legal[i]
                if A_TRADE <= c < A_PLAY_SB and (c - A_TRADE) % 4 == want and \
                        (c - A_TRADE) // 4 != want:
                    return c
        if risk_pick >= 0 and best_risk >= params[4]:
            return risk_pick
        return A_REST
    if d == D_OPTION:
        cards = st[G_AUX]
        best = -1e9
        pick = legal[0]
        for i in range(n):
            c = legal[i]
            if c == A_PASS:
                v = -2.0
            else:
                jesus = c >= WITH_JESUS
                cc = c % WITH_JESUS
                card = cards % 100 if cc // 2 == 0 else cards // 100
                v = option_worth(st, t, seat, card, cc % 2, jesus, params, ctx.work)
            if v > best:
                best = v
                pick = c
        return pick
    if d == D_PILE or d == D_DISCARD_PICK:
        return pick_of_type(t, legal, n, d, wanted_type(st, t, seat, params, ctx.work))
    if d == D_DRAW:
        want = wanted_type(st, t, seat, params, ctx.work)
        for i in range(n):
            c = legal[i]
            if c != DRAW_DECK and t[T_KIND_TYPE + st[SPREAD + c]] == want:
                return c
        # a printed wild only, on purpose: with F67's wild gear read here, its character took
        # a Spread gear card in place of most deck draws and won 5.1 points less (results/
        # BOTS_READ_THE_RULES.md, "Two choices that read only printed wild symbols")
        for i in range(n):
            c = legal[i]
            if c != DRAW_DECK and t[T_KIND_TECH + st[SPREAD + c]] == E.WILD:
                return c
        for i in range(n):
            if legal[i] == DRAW_DECK:
                return DRAW_DECK
        return legal[0]
    if d == D_REST:
        water = st[S_WATER + base]
        psych = st[S_PSYCH + base]
        floor = params[6]
        target, kind = planned_target(st, t, seat, params, ctx.work)
        if kind == 5 or (water < floor and water <= psych):
            for i in range(n):
                if legal[i] == REST_WATER:
                    return REST_WATER
        if kind == 6 or psych < floor:
            for i in range(n):
                if legal[i] == REST_PSYCH:
                    return REST_PSYCH
        want = wanted_type(st, t, seat, params, ctx.work)
        for i in range(n):
            if legal[i] == want:
                return want
        for i in range(n):
            if legal[i] < 4:
                return legal[i]
        return legal[0]
    if d == D_CARD:
        want = wanted_type(st, t, seat, params, ctx.work)
        best = -1e9
        pick = legal[0]
        for i in range(n):
            c = legal[i]
            if c == A_STOP:
                continue
            k = c % 64
            src = c // 64
            typ = t[T_KIND_TYPE + k]
            v = E.hand_of_type(st, t, seat, typ) * 4.0 - (8.0 if typ == want else 0.0) + \
                (2.0 if src == 1 else 0.0) - (2.0 if t[T_KIND_TECH + k] == E.WILD else 0.0)
            if v > best:
                best = v
                pick = c
        return pick
    return common_choice(ctx)


@register("first-ascent", "planner", params=DEFAULT_PARAMS)
@compiled_on_use(POLICY_SIGNATURE, noalloc=True)
def planner(ctx):
    """plans a route toward the objectives in play and its personal objectives"""
    return decide(ctx, ctx.params)
