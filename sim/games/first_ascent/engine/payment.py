"""Paying a pitch: the exact shortfall S and the plan that pays it (F31-F34, F64-F75,
F77-F83, F123).
"""
import numpy as np
from numba import njit

from sim.core.bits import popcount, trailing_zeros
from sim.core.jit import njit_noalloc
from sim.games.first_ascent.data import (
    BM_BELOW_LEDGE, CH_BIONIC, CH_FS_CONVERT, CH_GEAR_CAP, CH_GEAR_WILD, CH_IGNORE_BELOW_LEDGE,
    CH_IGNORE_V4, CH_IGNORE_V5, CH_MUST_RISK, CH_SUB_KIND, CH_SUB_REPLACES, CH_WATER_MINUS,
    N_KINDS, SUB_GEAR_CARD, SUB_PSYCH, T_KIND_TECH, T_KIND_TYPE, T_P_REQ, T_P_VALUE)
from sim.games.first_ascent.engine.board import climbed_by_others, legal_destinations
from sim.games.first_ascent.engine.common import (
    CRACK, FACE, GEAR, INF, PL_CARDS, PL_COST, PL_EXTRA_GEAR, PL_IGNORED, PL_N, PL_PERMANENT,
    PL_PSYCH, PL_S,
    PL_TOKENS, PL_UNPAID, PL_WATER, R_ANY, R_PSYCH, R_WATER, SLAB, WILD, board_mask, ch)
from sim.games.first_ascent.memory import (
    CO_PAYMENT, CO_PLAN, PAYMENT_BUFFER, PAY_RESOURCES, PAY_SHORTFALL, PAY_TRIAL_PLAN, PLAN_SIZE,
    RES_SIZE, SHORTFALL_SIZE, SH_ANY_CARDS, SH_PAID_CARDS, SH_PAID_TOKENS, SH_REQ, SH_UNPAID)
from sim.games.first_ascent.rules import C_CRAG_MAMA_ANY, C_RISK_WITH_TOKENS
from sim.games.first_ascent.state import (
    BOARD_UP, HAND, PAYING_TOKENS, REQ_TOKENS, SB_BORROWED_RACK, SB_EXTRA_WATER, SB_GUIDEBOOK,
    SB_JUMAR, SEAT_FIELDS, S_PERM, S_PSYCH, S_SB, S_TECH, S_WATER, TILE)


@njit_noalloc
def pitch_requirement(st, t, h, req):
    """F31: printed requirements + requirement tokens on the tile."""
    tile = st[TILE + h]
    for r in range(7):
        req[r] = t[T_P_REQ + 7 * tile + r]
    for a in range(4):
        req[a] += st[REQ_TOKENS + 4 * h + a]


@njit_noalloc
def character_requirement(req, res):
    """F32b: the requirement changes of the paying seat's character (`res`: its
    payment_resources) applied to `req` (F31's seven units). Returns the gear units turned into
    any_skill (F77 reads them)."""
    minus = res[R_WATER_MINUS]                                   # F64
    if req[R_WATER] > 0 and minus > 0:
        req[R_WATER] = max(0, req[R_WATER] - minus)
    converted = 0
    if res[R_FS_CONVERT]:                                        # F65
        converted = req[GEAR]
        req[R_ANY] += req[GEAR]
        req[GEAR] = 0
    cap = res[R_GEAR_CAP]                                        # F70
    if cap >= 0 and req[GEAR] > cap:
        req[GEAR] = cap
    return converted


ALL_UNITS, SKILL_UNITS = 0b1111111, 0b0011110     # requirement masks (bit r: unit r)


@njit_noalloc(inline="always")
def crag_scope(t):
    """F72: the units Crag Mama's ignore may cover (Decision 6: any unit with the BGA flag)."""
    return ALL_UNITS if t[C_CRAG_MAMA_ANY] != 0 else SKILL_UNITS


@njit_noalloc(inline="always")
def ignored_by_value(t, tile, res):
    """F75: the units the character ignores on a tile of this printed value."""
    value = t[T_P_VALUE + tile]
    if value == 4:
        return res[R_IGNORE_V4]
    if value == 5:
        return res[R_IGNORE_V5]
    return 0


@njit_noalloc
def units_to_pay(st, t, seat, h, res, req):
    """The requirement units the seat's character pays on hex h from its own assets: F31 with
    its character's changes (character_requirement) less the units it ignores there (F72 below
    the Ledge, F75 by printed value). It leaves out what depends on the moment of paying: the
    order-of-climbing discount, Summit Beta and the once-per-pitch substitutes. The bots price a
    pitch with it, so every ability knob reaches their plans. `req`: 7 int64 of scratch."""
    pitch_requirement(st, t, h, req)
    character_requirement(req, res)
    units = 0
    for r in range(7):
        units += req[r]
    ignored = ignored_by_value(t, st[TILE + h], res)
    if res[R_CRAG] > 0 and (board_mask(st, t, BM_BELOW_LEDGE) >> h) & 1:
        scope = crag_scope(t)
        in_scope = 0
        for r in range(7):
            if (scope >> r) & 1:
                in_scope += req[r]
        ignored += min(res[R_CRAG], in_scope)
    return max(0, units - ignored)


@njit_noalloc
def _shortfall_for(st, t, seat, h, tokens, bionic, n_others, discount, scope, res, plan,
                   scratch):
    """S and the payment for one choice of waiver tokens (bitmask), Bionic conversion (-1 none,
    else 1..3) and order-of-climbing discount: `discount` units (F32a; n_others but under a
    gear cap, discount_choices) of the kinds in `scope` (a requirement mask, ALL_UNITS but
    under a cap). `res`: payment_resources. Writes `plan`. `scratch` (SHORTFALL_SIZE int64,
    blocks SH_* in memory.py) holds the working vectors, so the hot path allocates nothing."""
    scratch[:] = 0
    req = scratch[SH_REQ:SH_REQ + 7]
    paid_tok = scratch[SH_PAID_TOKENS:SH_PAID_TOKENS + 4]
    paid_card = scratch[SH_PAID_CARDS:SH_PAID_CARDS + 4]
    unpaid = scratch[SH_UNPAID:SH_UNPAID + 7]
    any_cards = scratch[SH_ANY_CARDS:SH_ANY_CARDS + 4]
    pitch_requirement(st, t, h, req)
    tile = st[TILE + h]
    converted = character_requirement(req, res)                  # F32b
    if bionic > 0:                                               # F74
        if req[bionic] == 0:
            return INF
        req[bionic] -= 1
        req[R_ANY] += 1
    # F32c: Summit Beta waivers
    if (tokens >> SB_BORROWED_RACK) & 1:                         # F77
        req[GEAR] = 0
        req[R_ANY] = max(0, req[R_ANY] - converted)
    if (tokens >> SB_JUMAR) & 1:                                 # F78
        if n_others == 0:
            return INF
        req[FACE] = 0
        req[CRACK] = 0
        req[SLAB] = 0
        req[R_ANY] = 0
    if (tokens >> SB_EXTRA_WATER) & 1:                           # F80
        req[R_WATER] = 0
    # F33: pay from permanent tokens and cards of the unit's own type, then any_skill
    for a in range(4):
        paid_tok[a] = min(req[a], res[a])
        paid_card[a] = min(req[a] - paid_tok[a], res[4 + a])
        unpaid[a] = req[a] - paid_tok[a] - paid_card[a]
    # any_skill: leftover skill tokens first, then leftover skill cards
    need_any = req[R_ANY]
    any_tokens = 0
    for a in range(1, 4):
        use = min(need_any, res[a] - paid_tok[a])
        need_any -= use
        any_tokens += use
    while need_any > 0:                  # a skill card of the type left over most
        best_a = 0
        best_left = 0
        for a in range(1, 4):
            left = res[4 + a] - paid_card[a] - any_cards[a]
            if left > best_left:
                best_left = left
                best_a = a
        if best_a == 0:
            break
        any_cards[best_a] += 1
        need_any -= 1
    unpaid[R_ANY] = need_any
    paid_w = min(req[R_WATER], res[8])
    paid_p = min(req[R_PSYCH], res[9])
    unpaid[R_WATER] = req[R_WATER] - paid_w
    unpaid[R_PSYCH] = req[R_PSYCH] - paid_p
    # F123: limited helpers, most restricted first
    if (tokens >> SB_GUIDEBOOK) & 1:                             # F83
        if not _cover(unpaid, 0b0011110):
            # a Guidebook that covers nothing unpaid pays a skill card unit instead
            _uncover_card(paid_card, any_cards, 0b1110)
    crag = res[R_CRAG]
    crag_left = 0
    if crag > 0 and (board_mask(st, t, BM_BELOW_LEDGE) >> h) & 1:  # F72
        any_unit = t[C_CRAG_MAMA_ANY] != 0
        for _ in range(crag):
            if not _cover(unpaid, crag_scope(t)):
                if any_unit:
                    crag_left += 1       # an unused ignore of any unit spares a paid unit
                else:
                    _uncover_card(paid_card, any_cards, 0b1110)    # only a skill card
    extra_gear = 0
    extra_psych = 0
    sub = res[R_SUB_KIND]
    if sub == SUB_GEAR_CARD:                                     # F66
        spare = res[4 + GEAR] - paid_card[GEAR]
        if spare > 0 and _cover(unpaid, res[R_SUB_REPLACES]):
            extra_gear = 1
    elif sub == SUB_PSYCH:                                       # F68
        spare = res[9] - paid_p
        if spare > 0 and _cover(unpaid, res[R_SUB_REPLACES]):
            extra_psych = 1
    ignores = discount + crag_left + ignored_by_value(t, tile, res)  # F32a, F75
    ignored = 0
    if scope != ALL_UNITS:
        # the discount may not take gear: the other ignores take it first
        while ignores > discount and unpaid[GEAR] > 0:
            unpaid[GEAR] -= 1
            ignores -= 1
            ignored += 1
    while ignores > 0 and _cover(unpaid, scope):
        ignores -= 1
        ignored += 1
    s = 0
    for r in range(7):
        s += unpaid[r]
    # leftover ignores spare the costliest paid units: cards, then psych, then water (no gear
    # card where the discount may not take gear, which can change the price, never S), then
    # units permanent tokens pay (free, but F125 asks whether any unit remains)
    permanent = paid_tok[0] + paid_tok[1] + paid_tok[2] + paid_tok[3] + any_tokens
    while ignores > 0:
        if _uncover_card(paid_card, any_cards, scope & 0b1111):
            pass
        elif paid_p > 0:
            paid_p -= 1
        elif paid_w > 0:
            paid_w -= 1
        elif permanent > 0:
            permanent -= 1
        else:
            break
        ignores -= 1
        ignored += 1
    n_tok = popcount(tokens)                 # plan_payment_from passes paying tokens only
    cost = extra_gear + paid_w + paid_p + extra_psych
    for a in range(4):
        plan[PL_CARDS + a] = paid_card[a] + any_cards[a]
        cost += paid_card[a] + any_cards[a]
    plan[PL_CARDS + GEAR] += extra_gear
    plan[PL_S] = s
    plan[PL_TOKENS] = tokens
    plan[PL_WATER] = paid_w
    plan[PL_PSYCH] = paid_p + extra_psych
    plan[PL_N] = n_others
    plan[PL_EXTRA_GEAR] = extra_gear
    plan[PL_COST] = cost
    plan[PL_IGNORED] = ignored
    plan[PL_PERMANENT] = permanent
    plan[PL_UNPAID] = -1
    for r in range(7):
        if unpaid[r] > 0:
            plan[PL_UNPAID] = r
            break
    # ranking: S first, then the fewest tokens, then the cheapest payment
    return s * 10000 + n_tok * 100 + cost


@njit_noalloc
def _cover(unpaid, scope):
    for r in range(7):
        if (scope >> r) & 1 and unpaid[r] > 0:
            unpaid[r] -= 1
            return True
    return False


@njit_noalloc
def _uncover_card(paid_card, any_cards, type_mask):
    """Free one card-paid unit (any_skill first, then face/crack/slab, then gear)."""
    for a in range(1, 4):
        if (type_mask >> a) & 1 and any_cards[a] > 0:
            any_cards[a] -= 1
            return True
    for a in (1, 2, 3, 0):
        if (type_mask >> a) & 1 and paid_card[a] > 0:
            paid_card[a] -= 1
            return True
    return False


# payment_resources layout: what a seat can pay with, and its character's payment numbers
R_PERM, R_HAND, R_TRACK_W, R_TRACK_P = 0, 4, 8, 9
(R_WATER_MINUS, R_FS_CONVERT, R_GEAR_CAP, R_CRAG, R_SUB_KIND, R_SUB_REPLACES, R_IGNORE_V4,
 R_IGNORE_V5, R_BIONIC) = range(10, 19)


@njit_noalloc
def payment_resources(st, t, seat, res):
    """Fill `res` (RES_SIZE) once for a seat; plan_payment_from reads it for any hex."""
    for a in range(4):
        res[R_PERM + a] = st[S_PERM + seat * SEAT_FIELDS + a]
        res[R_HAND + a] = 0
    base = HAND + seat * N_KINDS
    for k in range(1, N_KINDS):
        res[R_HAND + t[T_KIND_TYPE + k]] += st[base + k]
    res[R_TRACK_W] = st[S_WATER + seat * SEAT_FIELDS]
    res[R_TRACK_P] = st[S_PSYCH + seat * SEAT_FIELDS]
    res[R_WATER_MINUS] = ch(st, t, seat, CH_WATER_MINUS)
    res[R_FS_CONVERT] = ch(st, t, seat, CH_FS_CONVERT)
    res[R_GEAR_CAP] = ch(st, t, seat, CH_GEAR_CAP)
    res[R_CRAG] = ch(st, t, seat, CH_IGNORE_BELOW_LEDGE)
    res[R_SUB_KIND] = ch(st, t, seat, CH_SUB_KIND)
    res[R_SUB_REPLACES] = ch(st, t, seat, CH_SUB_REPLACES)
    res[R_IGNORE_V4] = ch(st, t, seat, CH_IGNORE_V4)
    res[R_IGNORE_V5] = ch(st, t, seat, CH_IGNORE_V5)
    res[R_BIONIC] = ch(st, t, seat, CH_BIONIC)


@njit(cache=True)
def plan_payment(st, t, seat, h, plan, allow_tokens):
    """F123: the smallest shortfall S over every legal choice, and a payment reaching it.
    Returns S. allow_tokens=False ignores the paying Summit Beta tokens (Decision 33 flag)."""
    buffer = np.zeros(PAYMENT_BUFFER, np.int64)
    res = buffer[PAY_RESOURCES:PAY_RESOURCES + RES_SIZE]
    payment_resources(st, t, seat, res)
    return plan_payment_from(st, t, seat, h, plan, ANY_TOKENS if allow_tokens else 0, res,
                             buffer)


@njit_noalloc(inline="always")
def discount_choices(st, t, h, n_others, res):
    """(discount, choices): how _shortfall_for may spend the order-of-climbing discount.

    F32 applies the discount (a) before a gear cap (b), the F123 erratum: a discount unit
    spent on gear counts only once the gear left is under the cap, so the first of them, as
    many as the gear units the cap removes, are lost. Without a cap at work: (n_others, 1),
    F123's cheap way. Under one: two choices, the discount on any unit less the lost ones
    (n_others - excess), or on the other units alone, whole."""
    cap = res[R_GEAR_CAP]
    if cap < 0 or n_others == 0 or res[R_FS_CONVERT]:      # F65 leaves no gear to cap
        return n_others, 1
    excess = t[T_P_REQ + 7 * st[TILE + h] + GEAR] + st[REQ_TOKENS + 4 * h + GEAR] - cap
    if excess <= 0:
        return n_others, 1
    return max(0, n_others - excess), 2


# plan_payment_from's `tokens`: every paying Summit Beta token held (F32c, F83), or 0
ANY_TOKENS = sum(1 << sb for sb in PAYING_TOKENS)


@njit_noalloc(one_copy=True)
def plan_payment_from(st, t, seat, h, plan, tokens, res, buffer):
    """plan_payment with the seat's payment_resources already in `res`, using only the paying
    Summit Beta tokens in the bitmask `tokens` (ANY_TOKENS: all it holds); `buffer`
    (PAYMENT_BUFFER int64, whose first RES_SIZE may be `res` itself) is scratch space."""
    trial = buffer[PAY_TRIAL_PLAN:PAY_TRIAL_PLAN + PLAN_SIZE]
    scratch = buffer[PAY_SHORTFALL:PAY_SHORTFALL + SHORTFALL_SIZE]
    paying = st[S_SB + seat * SEAT_FIELDS] & tokens & ANY_TOKENS
    n_others = climbed_by_others(st, seat, h)
    bionic_max = 3 if res[R_BIONIC] else 0
    discount, choices = discount_choices(st, t, h, n_others, res)
    best = INF
    sub = paying
    while True:
        for b in range(-1, bionic_max + 1):
            if b == 0:
                continue
            for choice in range(choices):          # one call site, so that it stays inlined
                key = _shortfall_for(st, t, seat, h, sub, b, n_others,
                                     discount if choice == 0 else n_others,
                                     ALL_UNITS if choice == 0 else ALL_UNITS & ~1,
                                     res, trial, scratch)
                if key < best:
                    best = key
                    for i in range(PLAN_SIZE):
                        plan[i] = trial[i]
        if sub == 0:
            break
        sub = (sub - 1) & paying
    return plan[PL_S]


@njit_noalloc
def fewest_tokens_plan(st, t, seat, h, plan, res, buffer, exactly_one):
    """The payment with S <= 1 (`exactly_one`: S = 1) that uses the fewest paying Summit Beta
    tokens, the rest kept (ties: the lower S, then plan_payment_from's order). Phil rolls at
    S = 0 or 1 alike (F34, F71), so a token that only lowers his S to 0 is kept; under the
    Decision 33 flag a player may risk (S = 1) with tokens left unused, any of them. Returns
    the plan's S, or plan_payment_from's with every token where no subset qualifies."""
    held = st[S_SB + seat * SEAT_FIELDS] & ANY_TOKENS
    for k in range(popcount(held) + 1):
        best_key = INF
        best_tokens = -1
        sub = held
        while True:         # the subsets of k tokens: smaller ones have failed already
            if popcount(sub) == k:
                s = plan_payment_from(st, t, seat, h, plan, sub, res, buffer)
                if s == 1 or (s == 0 and not exactly_one):
                    key = s * 10000 + plan[PL_COST]
                    if key < best_key:
                        best_key = key
                        best_tokens = sub
            if sub == 0:
                break
            sub = (sub - 1) & held
        if best_tokens >= 0:
            return plan_payment_from(st, t, seat, h, plan, best_tokens, res, buffer)
    return plan_payment_from(st, t, seat, h, plan, ANY_TOKENS, res, buffer)


@njit_noalloc
def nothing_to_pay(plan):
    """F125: no unit remains after the reductions (F32): the plan pays nothing with cards,
    tracks, permanent tokens or the Guidebook, and leaves nothing unpaid."""
    return plan[PL_S] == 0 and plan[PL_COST] == 0 and plan[PL_PERMANENT] == 0 and \
        not (plan[PL_TOKENS] >> SB_GUIDEBOOK) & 1


@njit_noalloc
def pick_payment_cards(st, t, seat, plan, picked, have):
    """Which hand cards pay: per type, the plan's count, the engine's own pick among kinds
    (module docstring): a wild card first (Sendy Jammer: any gear card), then a card whose
    symbol this round already shows most (face-up board by printed symbol, tokens, the cards
    already picked), then any card with a symbol. `have`: 6 int64 of work space."""
    for x in range(6):
        have[x] = 0
    for q in range(1, N_KINDS):
        have[t[T_KIND_TECH + q]] += st[BOARD_UP + seat * N_KINDS + q]
    for x in range(1, 5):
        have[x] += st[S_TECH + seat * SEAT_FIELDS + x]
    gear_wild = ch(st, t, seat, CH_GEAR_WILD)
    for k in range(N_KINDS):
        picked[k] = 0
    for a in range(4):
        for _ in range(plan[PL_CARDS + a]):
            best_k = -1
            best_v = -1
            for k in range(1, N_KINDS):
                if t[T_KIND_TYPE + k] == a and st[HAND + seat * N_KINDS + k] - picked[k] > 0:
                    tech = t[T_KIND_TECH + k]
                    if tech == WILD or (gear_wild and a == GEAR):
                        v = 50
                    elif tech == 0:
                        v = 0
                    else:
                        v = 10 + have[tech]
                    if v > best_v:
                        best_v = v
                        best_k = k
            if best_k < 0:
                break
            picked[best_k] += 1
            tech = t[T_KIND_TECH + best_k]
            if tech != WILD:
                have[tech] += 1


@njit_noalloc
def leave_one_unpaid(plan):
    """Phil (F34, F71): with S = 0 he leaves one unit unpaid, his choice; the engine leaves a
    card if it can (saving it), else psych, else water. Returns False if nothing is paid."""
    for a in (1, 2, 3, 0):
        if plan[PL_CARDS + a] > 0:
            plan[PL_CARDS + a] -= 1
            plan[PL_UNPAID] = a
            plan[PL_S] = 1
            return True
    if plan[PL_PSYCH] > 0:
        plan[PL_PSYCH] -= 1
        plan[PL_UNPAID] = R_PSYCH
        plan[PL_S] = 1
        return True
    if plan[PL_WATER] > 0:
        plan[PL_WATER] -= 1
        plan[PL_UNPAID] = R_WATER
        plan[PL_S] = 1
        return True
    return False


@njit_noalloc
def climb_options(st, t, seat, work):
    """(climbs, risks): the destinations the seat may climb (S = 0) and risk (S = 1, or
    every climb for Phil) as hex bitmasks (F29, F34, F126). `work`: CLIMB_OPTIONS_BUFFER
    int64."""
    dest = legal_destinations(st, t, seat)
    buffer = work[CO_PAYMENT:CO_PAYMENT + PAYMENT_BUFFER]
    plan = work[CO_PLAN:CO_PLAN + PLAN_SIZE]
    res = buffer[PAY_RESOURCES:PAY_RESOURCES + RES_SIZE]
    payment_resources(st, t, seat, res)
    must_risk = ch(st, t, seat, CH_MUST_RISK)
    c = np.int64(0)
    r = np.int64(0)
    m = dest
    while m:
        low = m & -m
        h = trailing_zeros(low)
        m ^= low
        s = plan_payment_from(st, t, seat, h, plan, ANY_TOKENS, res, buffer)
        if must_risk:
            if s <= 1:
                r |= low
        elif s == 0:
            c |= low
            if t[C_RISK_WITH_TOKENS] != 0 and plan[PL_TOKENS] != 0:     # Decision 33 flag
                if fewest_tokens_plan(st, t, seat, h, plan, res, buffer, True) == 1:
                    r |= low
        elif s == 1:
            r |= low
    return c, r
