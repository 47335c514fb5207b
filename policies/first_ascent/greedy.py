"""`greedy`: the most points per asset spent this turn, aware of the order-of-climbing discount.

Turn: climb the destination with the best (value - N + summit) / (assets spent + 1), where N
is the discount (F32a) and the assets are the cards, water and psych the engine's payment
takes (a payable pitch offered only as a risk, for a character who risks every climb, counts as
a climb); risk only when nothing can be climbed; otherwise play an own-turn token, trade toward
the cheapest destination's missing unit, or rest. Every other choice takes what the cheapest
next climb lacks (draws, piles, rest assets), keeps what it needs (losses, gifts), and hits
the leader (opponents). Climbing-card options are valued by a fixed table of effect worths.
"""
import numpy as np

from sim.core.policies import compiled_on_use, register
from sim.core.jit import njit_noalloc
from sim.games.first_ascent import engine as E
from sim.games.first_ascent.data import (
    E_AMOUNT, E_PART, E_VERB, E_WHO, MAX_ENTRIES, N_HEX, N_KINDS, T_KIND_TECH, T_KIND_TYPE)
from sim.games.first_ascent.memory import GREEDY_TARGET_CACHE, W_COUNTS, W_PAYMENT, W_PLAN
from sim.games.first_ascent.policy_api import POLICY_SIGNATURE
from sim.games.first_ascent.state import (
    A_CONTINUE, A_PASS, A_PLAY_SB, A_REST, A_RISK, A_STOP, A_TRADE, D_CARD, D_CHALKBAG,
    D_DISCARD_PICK, D_DRAW, D_OPPONENT, D_OPTION, D_PERMANENT, D_PILE, D_REQ_TOKEN, D_REST,
    D_SB_WINDOW, D_STEAL, D_TECHNIQUE, D_TURN, DRAW_DECK, G_AUX, G_PLAYERS, G_ROUND, HAND,
    PERM_STOP,
    REST_PSYCH, REST_WATER, S_PSYCH, S_ROUTE_N, S_SCORE, S_TECH, S_WATER, SEAT_FIELDS,
    SPREAD,
    TILE,
    WITH_JESUS)

# worth of one unit of each effect verb (engine V_*), for climbing-card options
VERB_WORTH = np.array([1.0, 1.0, -1.0, -1.2, 1.0, 0.8, 1.3, 1.5, 1.2, 0.6, 0.3, 0.2, 1.0])


@njit_noalloc
def climb_value(st, t, seat, h, plan, res, buffer):
    """(points, assets spent, S) of climbing hex h now (res: E.payment_resources)."""
    s = E.plan_payment_from(st, t, seat, h, plan, E.ANY_TOKENS, res, buffer)
    points = E.pitch_points(t, st[TILE + h], plan) + E.summit_points(st, t, seat, h)
    spent = plan[E.PL_COST]
    return points, spent, s


# greedy's vectors live in the work memory's per-decision blocks, and its target in its own
# cache block (W_*, GREEDY_TARGET_CACHE: sim/games/first_ascent/memory.py), so that it never
# allocates (sim/core/jit.py)


@njit_noalloc(inline="always")
def payment_work(work):
    """(plan, buffer, res) views into the work memory, for plan_payment_from."""
    buffer = work[W_PAYMENT:W_PAYMENT + E.PAYMENT_BUFFER]
    return work[W_PLAN:W_PLAN + E.PLAN_SIZE], buffer, buffer[0:E.RES_SIZE]


@njit_noalloc(inline="always")
def zeroed_counts(work, n):
    counts = work[W_COUNTS:W_COUNTS + n]
    for a in range(n):
        counts[a] = 0
    return counts


@njit_noalloc
def target_hex(st, t, seat, work):
    """(hex, first unpaid unit kind) of the legal destination closest to affordable (the
    smallest S > 0), found once per seat, round and route; (-1, -1) if every destination is
    affordable or there is none. The unit kind is the engine's payment plan's (PL_UNPAID), so
    the character's abilities and Summit Beta are counted as the climb would count them."""
    key = 1 + seat * 100000 + st[G_ROUND] * 100 + st[S_ROUTE_N + seat * SEAT_FIELDS]
    if work[GREEDY_TARGET_CACHE] == key:
        return work[GREEDY_TARGET_CACHE + 1], work[GREEDY_TARGET_CACHE + 2]
    plan, buffer, res = payment_work(work)
    E.payment_resources(st, t, seat, res)
    dest = E.legal_destinations(st, t, seat)
    best_s = 1 << 30
    target = -1
    kind = -1
    for h in range(1, N_HEX):
        if (dest >> h) & 1:
            s = E.plan_payment_from(st, t, seat, h, plan, E.ANY_TOKENS, res, buffer)
            if 0 < s < best_s:
                best_s = s
                target = h
                kind = plan[E.PL_UNPAID]
    work[GREEDY_TARGET_CACHE] = key
    work[GREEDY_TARGET_CACHE + 1] = target
    work[GREEDY_TARGET_CACHE + 2] = kind
    return target, kind


@njit_noalloc
def missing_unit(st, t, seat, work):
    """The unit kind (0..6: gear, face, crack, slab, any_skill, water, psych) the target lacks
    first, as its exact payment finds it; -1 if none."""
    return target_hex(st, t, seat, work)[1]


@njit_noalloc
def needed_type(st, t, seat, work):
    """The asset type the target lacks (any_skill: the skill type held least); else the type
    held least."""
    kind = missing_unit(st, t, seat, work)
    if 0 <= kind <= 3:
        return kind
    counts = zeroed_counts(work, 4)
    for k in range(1, N_KINDS):
        counts[t[T_KIND_TYPE + k]] += st[HAND + seat * N_KINDS + k]
    first = 1 if kind == 4 else 0
    pick = first
    for a in range(first, 4):
        if counts[a] < counts[pick]:
            pick = a
    return pick


@njit_noalloc
def leader(st, seat):
    best = -1
    pick = -1
    for q in range(st[G_PLAYERS]):
        if q != seat and st[S_SCORE + q * SEAT_FIELDS] > best:
            best = st[S_SCORE + q * SEAT_FIELDS]
            pick = q
    return pick


@njit_noalloc
def trailer(st, seat):
    worst = 1 << 30
    pick = -1
    for q in range(st[G_PLAYERS]):
        if q != seat and st[S_SCORE + q * SEAT_FIELDS] < worst:
            worst = st[S_SCORE + q * SEAT_FIELDS]
            pick = q
    return pick


@njit_noalloc
def option_worth(t, card, option, jesus):
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
        if verb <= 1:                               # water / psych
            who = t[at + E_WHO]
            sign = 1.0 if amount > 0 else -1.0
            if who == 2 or who == 4:                # others / chosen opponent only
                sign = -0.3 * sign
            w += sign * min(abs(amount), 2) * VERB_WORTH[verb]
        elif verb == 2 or verb == 3 or verb == 4 or verb == 6:
            w += amount * VERB_WORTH[verb]
        else:
            w += VERB_WORTH[verb]
    if jesus:
        w -= 1.0                                     # the Jesus Piece itself is worth keeping
    return w


@njit_noalloc
def pick_of_type(t, legal, n, d, want):
    """D_PILE / D_DISCARD_PICK: the first legal pile or kind of the wanted asset type."""
    for i in range(n):
        c = legal[i]
        typ = c if d == D_PILE else t[T_KIND_TYPE + c]
        if typ == want:
            return c
    return legal[0]


@njit_noalloc
def common_choice(ctx):
    """The choices greedy and planner make alike: gifts to the trailing opponent, steals and
    requirement tokens against the leader, the technique closest to a set, every permanent
    token, every reroll and token offered."""
    st = ctx.state
    t = ctx.tables
    seat = ctx.seat
    legal = ctx.legal
    n = ctx.n_legal
    d = ctx.decision
    if d == D_OPPONENT:
        # gifts and psych go to the trailing player, who threatens least
        q = trailer(st, seat)
        for i in range(n):
            if legal[i] == q:
                return q
        return legal[0]
    if d == D_STEAL:
        target = leader(st, seat)
        for i in range(n):
            if legal[i] // 256 == target:
                return legal[i]
        return legal[0]
    if d == D_REQ_TOKEN:
        # a token where the leader can go next and this seat cannot
        target = leader(st, seat)
        own = E.legal_destinations(st, t, seat)
        theirs = E.legal_destinations(st, t, target) if target >= 0 else 0
        for i in range(n):
            h = legal[i] // 4
            if (theirs >> h) & 1 and not (own >> h) & 1:
                return legal[i]
        for i in range(n):
            h = legal[i] // 4
            if not (own >> h) & 1:
                return legal[i]
        return legal[0]
    if d == D_TECHNIQUE:
        counts = zeroed_counts(ctx.work, 6)
        E.technique_counts(st, t, seat, counts)
        best = -1
        pick = legal[0]
        for i in range(n):
            x = legal[i]
            # symbols toward this technique's next set of 3, the wild ones included (F49;
            # technique_counts counts a character's wild gear too, F67)
            v = (counts[x] + st[S_TECH + seat * SEAT_FIELDS + x] + counts[5]) % 3
            if v > best:
                best = v
                pick = x
        return pick
    if d == D_PERMANENT:
        for i in range(n):
            if legal[i] != PERM_STOP:
                return legal[i]
        return PERM_STOP
    if d == D_CHALKBAG:
        return 1
    if d == D_SB_WINDOW:
        for i in range(n):
            if legal[i] != A_CONTINUE:
                return legal[i]
        return A_CONTINUE
    return legal[0]


@register("first-ascent", "greedy")
@compiled_on_use(POLICY_SIGNATURE, noalloc=True)
def greedy(ctx):
    """the most points per asset spent this turn (order-of-climbing discount included)"""
    st = ctx.state
    t = ctx.tables
    seat = ctx.seat
    legal = ctx.legal
    n = ctx.n_legal
    d = ctx.decision
    if d == D_TURN:
        plan, buffer, res = payment_work(ctx.work)
        E.payment_resources(st, t, seat, res)
        best = -1.0
        pick = -1
        best_risk = -1.0
        risk_pick = -1
        trade = -1
        token = -1
        for i in range(n):
            c = legal[i]
            if c == A_REST:
                continue
            if c >= A_PLAY_SB:
                token = c
            elif c >= A_TRADE:
                if trade < 0:
                    trade = c
            elif c >= A_RISK:
                pts, spent, s = climb_value(st, t, seat, c - A_RISK, plan, res, buffer)
                v = pts / (spent + 1.0)
                if s == 0:
                    # a pitch it can pay, offered only as a risk: its character risks every
                    # climb (F71), so this risk is its climb
                    if v > best:
                        best = v
                        pick = c
                elif v > best_risk:
                    best_risk = v
                    risk_pick = c
            else:
                pts, spent, s = climb_value(st, t, seat, c, plan, res, buffer)
                v = pts / (spent + 1.0)
                if v > best:
                    best = v
                    pick = c
        if pick >= 0:
            return pick
        if token >= 0:
            return token
        if trade >= 0:
            want = needed_type(st, t, seat, ctx.work)
            for i in range(n):
                c = legal[i]
                if A_TRADE <= c < A_PLAY_SB and (c - A_TRADE) % 4 == want and \
                        (c - A_TRADE) // 4 != want:
                    return c
        if risk_pick >= 0:
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
                v = option_worth(t, card, cc % 2, jesus)
            if v > best:
                best = v
                pick = c
        return pick
    if d == D_DRAW:
        want = needed_type(st, t, seat, ctx.work)
        for i in range(n):
            c = legal[i]
            if c != DRAW_DECK and t[T_KIND_TYPE + st[SPREAD + c]] == want:
                return c
        for i in range(n):
            if legal[i] == DRAW_DECK:
                return DRAW_DECK
        return legal[0]
    if d == D_REST:
        track = missing_unit(st, t, seat, ctx.work)
        base = seat * SEAT_FIELDS
        water = st[S_WATER + base]
        psych = st[S_PSYCH + base]
        want_w = track == 5 or water < 2
        want_p = track == 6 or psych < 2
        for i in range(n):
            if legal[i] == REST_WATER and want_w and water <= psych:
                return REST_WATER
            if legal[i] == REST_PSYCH and want_p:
                return REST_PSYCH
        for i in range(n):
            if legal[i] == REST_WATER and want_w:
                return REST_WATER
        want = needed_type(st, t, seat, ctx.work)
        for i in range(n):
            if legal[i] == want:
                return want
        for i in range(n):
            if legal[i] < 4:
                return legal[i]
        return legal[0]
    if d == D_PILE or d == D_DISCARD_PICK:
        return pick_of_type(t, legal, n, d, needed_type(st, t, seat, ctx.work))
    if d == D_CARD:
        # lose or give: the card of the type held most; board face-down before face-up
        want = needed_type(st, t, seat, ctx.work)
        counts = zeroed_counts(ctx.work, 4)
        for k in range(1, N_KINDS):
            counts[t[T_KIND_TYPE + k]] += st[HAND + seat * N_KINDS + k]
        best = -1
        pick = legal[0]
        for i in range(n):
            c = legal[i]
            if c == A_STOP:
                continue
            k = c % 64
            src = c // 64
            typ = t[T_KIND_TYPE + k]
            held = counts[typ]
            v = held * 4 - (8 if typ == want else 0) + (2 if src == 1 else 0) \
                - (2 if t[T_KIND_TECH + k] == E.WILD else 0)
            if v > best:
                best = v
                pick = c
        return pick
    return common_choice(ctx)
