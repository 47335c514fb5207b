"""First Ascent's rules as numba functions over one state vector (state.py) and the packed
tables (data.py T_*, rules.py C_*). Every rule lives here; find it by its F number.

The engine is a straight program of one game. Wherever the rules give a player a choice it
calls `ask`, which puts the legal codes to that seat's policy (policy_api.py). `ag`, the
agents bundle, carries the policies and their streams:
    ag = (policy functions, slot of each seat, parameters per slot, stream per seat,
          work memory, decision log (rows: seat, decision, code, n_legal, round, context),
          legal buffer, an all-zero reservation per asset kind (never written),
          the engine's scratch (SCRATCH_SIZE int64, layout at SCR_PAYMENT))
No function here allocates (sim/core/jit.py): the ones that run every action are compiled
without numba's reference counting, and take their work vectors from the scratch. Only
`setup` (once a game) and `plan_payment` (a convenience for tests) allocate.

Choices the engine makes itself (documented in docs/first-ascent.md, "What the engine
chooses"): which hand cards of a type pay a pitch (the ones whose technique symbols help
this round's sets), which units the discount and ignore effects remove (unpaid ones first,
then the costliest paid), and which unit Phil leaves unpaid. The shortfall S itself is exact
(F123).
"""
import numpy as np
from numba import njit

from sim.core.jit import njit_noalloc
from sim.core.rng import mulberry32_step, scale_draw
from sim.games.first_ascent.data import (
    BM_BELOW_LEDGE, BM_FACE_UP_START, BM_HEADWALL, BM_NORTH, BM_ROW, BM_SOUTH, BM_SUMMIT,
    CH_BIONIC, CH_CARDS_DRAWN, CH_FIELDS, CH_FS_CONVERT, CH_GEAR_CAP, CH_GEAR_WILD,
    CH_IGNORE_BELOW_LEDGE, CH_IGNORE_V4, CH_IGNORE_V5, CH_LIMIT, CH_MAX, CH_MUST_RISK,
    CH_NO_GEAR_COLUMN, CH_REST, CH_START_PSYCH, CH_START_SB, CH_START_WATER, CH_SUB_KIND,
    CH_SUB_REPLACES, CH_THRESH, CH_WATER_MINUS, E_AMOUNT, E_CTYPE, E_FROM, E_PART, E_TECH, E_TO,
    E_TYPES, E_VERB, E_WHO, ENTRY_FIELDS, MAX_ENTRIES, MAX_GROUP, N_BOARD_MASKS, N_HEX, N_KINDS,
    PART_COST, SETUP_PITCHES_TO_END, SETUP_PORTALEDGE, SETUP_RERACK, SETUP_RERACK_PENALISED,
    SETUP_SET_POINTS, SO_A, SO_B, SO_C, SO_D, SO_E, SO_FIELDS, SO_KIND, SO_POINTS, SUB_GEAR_CARD,
    SUB_PSYCH, T_B_FIXED, T_B_GROUP_HEX, T_B_GROUP_NHEX, T_B_LOWER, T_B_MASK, T_B_NEIGH, T_B_POOL,
    T_B_POOL_N, T_B_ROW, T_CC_EFF, T_CC_FS_BAN, T_CC_NOPT, T_CH, T_HAND_BY_SEAT, T_KIND_COUNT,
    T_KIND_TECH, T_KIND_TYPE, T_P_REQ, T_P_SHADE, T_P_TYPE, T_P_VALUE, T_PO_GROUPED, T_PO_GROUPS,
    T_PO_MASK, T_PO_NGROUPS, T_PO_POINTS, T_SB_PARAM, T_SETUP, T_SO, T_SO_BGA_TILES)
from sim.games.first_ascent.policy_api import PolicyContext
from sim.games.first_ascent.rules import (
    C_ABILITY_OFF, C_CALL_IT_PITCHES, C_CARD_48B_CRACK, C_CARD_67A_SELF, C_CRAG_MAMA_ANY,
    C_CRIMPER_FREE, C_DECK_NEVER, C_JESUS_ON_PITCH, C_N_PLAYERS, C_ODDS, C_PERM_OBJ_BGA,
    C_PHIL_NOTHING_CLIMBS, C_PHIL_PAY_THEN_ROLL, C_PSYCH_LOST, C_RISK_WITH_TOKENS,
    C_ROUND_CAP, C_SB_LOST, C_SETS_GREEDY, C_SPREAD_EACH, C_STRANDED_PLAY_ON, C_SUMMIT_ONCE,
    C_TRIFECTA_BGA, ODDS_SCALE)
from sim.games.first_ascent.state import (
    A_CLIMB, A_CONTINUE, A_PASS, A_PLAY_SB, A_REST, A_RISK, A_STOP, A_TRADE, BOARD_DOWN, BOARD_UP,
    CDECK, D_CARD, D_CHALKBAG, D_DISCARD_PICK, D_DRAW, D_OPPONENT, D_OPTION, D_PERMANENT, D_PILE,
    D_REQ_TOKEN, D_REST, D_SB_KEEP, D_SB_WINDOW, D_STEAL, D_TECHNIQUE, D_TURN, DECK, DISCARD,
    DRAW_DECK, END_EIGHT_PITCHES, END_POLICY_ERROR, END_ROUND_CAP, END_STRANDED, FACE_CHECK,
    FACE_MINUS_1, FACE_MINUS_2, G_CDECK_POS, G_CLIMB_RESHUFFLES, G_CURRENT, G_DECISIONS,
    G_DECK_DRY, G_DECK_N, G_DECK_RESHUFFLES, G_DISCARD_N, G_AUX, G_ELITIST_START, G_END_REASON,
    G_FIRST, G_HEADWALL_UP, G_N_WINNERS, G_OVER, G_PLAYERS, G_POLICY_ERROR, G_RNG, G_ROUND,
    G_SB_N, G_SB_RESHUFFLES, G_SEED, G_SHARED, G_SIDE, G_SPREAD_STUCK, G_STRANDED_END, G_WINNER,
    HAND, MAX_PLAYERS, PERM_STOP, PILE, PILE_CAP, PILE_N, REQ_TOKENS, REST_PSYCH, REST_WATER,
    S_CHAR, S_ELITIST_LOST, S_HEX, S_OBJ_DONE, S_PERM, S_PERM_GAINED, S_PERSONAL,
    S_PERSONAL_SCORED, S_PSYCH, S_ROUTE, S_ROUTE_MASK, S_ROUTE_N, S_SB, S_SC_PERSONAL, S_SC_PITCH,
    S_SC_SETS, S_SC_SHARED, S_SC_SPIDER, S_SC_SUMMIT, S_SCORE, S_STATUS, S_TECH, S_TYPE_N,
    S_WATER, SB_BOMBER_ANCHOR, SB_BORROWED_RACK, SB_DISCARD, SB_ENERGY_DRINK, SB_EXTRA_WATER,
    SB_GUIDEBOOK, SB_JESUS_PIECE, SB_JUMAR, SB_LUCKY_CHALKBAG, SB_NEW_RUBBER, SB_RERACK,
    SB_SIMUL_CLIMB, SB_SPIDER_STICK, SB_SUPPLY, SEAT_FIELDS, SPREAD, SPREAD_LAST, SRC_BOARD_DOWN,
    SRC_BOARD_UP, SRC_HAND, STATUS_CLIMBED, STATUS_NONE, STATUS_PENALISED, STATUS_RESTED,
    T_CARD_PASSES, T_CARD_ROLLS, T_CARDS_GIVEN, T_CARDS_RECEIVED, T_CHALKBAG_REROLLS,
    T_CLIMB_CARDS, T_CLIMBS, T_FORCED_RESTS, T_HEADWALL, T_JESUS_USES, T_PERM_TOKENS, T_RESTS,
    T_RISK_CHECK, T_RISK_MINUS1, T_RISK_MINUS2, T_RISK_RETREATS, T_RISKS, T_ROUND_8TH,
    T_SB_GAINED, T_SB_USED, T_SETS, T_SHARED_POINTS, T_STRANDED, T_SUMMITS, T_TRADES, TILE,
    WITH_JESUS)

GEAR, FACE, CRACK, SLAB = 0, 1, 2, 3
R_ANY, R_WATER, R_PSYCH = 4, 5, 6
CT_ANY_SKILL, CT_ANY = 4, 5              # data.CARD_TYPES
TRIFECTA = 36
PT_ANY = 6
WILD = 5
# effect verbs (data.VERBS)
V_WATER, V_PSYCH, V_LOSE, V_GIVE, V_PORTALEDGE, V_TECH_TOKEN, V_SUMMIT_BETA, V_SB_2_KEEP_1, \
    V_STEAL, V_PLACE, V_REQ_TOKEN, V_ROLL, V_DRAW_SPREAD = range(13)
# who (data.WHO)
W_SELF, W_ALL, W_OTHERS, W_SELF_AND_OPP, W_OPP, W_SUNNY = range(6)
# shared objective kinds (data.SHARED_KINDS)
K_RIDGE, K_PER_PITCH, K_TYPE_COUNT, K_GRAND_TRAVERSE, K_ALL_TYPES, K_ELITIST, \
    K_PER_HEADWALL, K_PERMANENT = range(8)
# payment plan layout (plan_payment)
PL_S, PL_TOKENS, PL_CARDS, PL_WATER, PL_PSYCH, PL_N, PL_UNPAID, PL_EXTRA_GEAR, PL_COST, \
    PL_IGNORED = 0, 1, 2, 6, 7, 8, 9, 10, 11, 12
PLAN_SIZE = 20
INF = 1 << 30


# === small readers ==========================================================================

@njit_noalloc(inline="always")
def n_players(st):
    return st[G_PLAYERS]


@njit_noalloc
def ch(st, t, seat, field):
    """A character number of `seat` (data.CH_*). With the character's ability switched off
    (rules `abilities_off`), the ability fields read as a character without one."""
    c = st[S_CHAR + seat * SEAT_FIELDS]
    value = t[T_CH + CH_FIELDS * c + field]
    if (t[C_ABILITY_OFF] >> c) & 1:
        if field == CH_GEAR_CAP:
            return -1
        if field == CH_CARDS_DRAWN:
            return 1
        if field >= CH_THRESH and field < CH_THRESH + 4:
            return 4
        if field >= CH_WATER_MINUS and field != CH_MAX:
            return 0
    return value


@njit_noalloc(inline="always")
def bit_index(low):
    """The index of the single set bit of `low` (a power of two), by halving: 6 steps."""
    x = 0
    if low >> 32:
        x += 32
        low >>= 32
    if low >> 16:
        x += 16
        low >>= 16
    if low >> 8:
        x += 8
        low >>= 8
    if low >> 4:
        x += 4
        low >>= 4
    if low >> 2:
        x += 2
        low >>= 2
    if low >> 1:
        x += 1
    return x


@njit_noalloc(inline="always")
def board_mask(st, t, m):
    return t[T_B_MASK + N_BOARD_MASKS * st[G_SIDE] + m]


@njit_noalloc(inline="always")
def hex_row(st, t, h):
    return t[T_B_ROW + N_HEX * st[G_SIDE] + h]


@njit_noalloc(inline="always")
def holds_sb(st, seat, sb):
    return (st[S_SB + seat * SEAT_FIELDS] >> sb) & 1


@njit_noalloc
def hand_of_type(st, t, seat, typ):
    n = 0
    base = HAND + seat * N_KINDS
    for k in range(1, N_KINDS):
        if t[T_KIND_TYPE + k] == typ:
            n += st[base + k]
    return n


@njit_noalloc
def count_matching(st, t, base, ctype):
    """Cards at st[base + kind] that match a card_type (gear..slab, any_skill, any)."""
    n = 0
    for k in range(1, N_KINDS):
        if type_matches(t, k, ctype):
            n += st[base + k]
    return n


@njit_noalloc(inline="always")
def type_matches(t, k, ctype):
    typ = t[T_KIND_TYPE + k]
    if ctype == CT_ANY:
        return True
    if ctype == CT_ANY_SKILL:
        return typ != GEAR
    return typ == ctype


@njit_noalloc
def hand_size(st, seat):
    n = 0
    for k in range(1, N_KINDS):
        n += st[HAND + seat * N_KINDS + k]
    return n


@njit_noalloc
def track_max(st, t, seat):
    return ch(st, t, seat, CH_MAX)


@njit_noalloc
def add_water(st, t, seat, amount):
    """F7/F107: change a track, then clamp it to 0..maximum."""
    at = S_WATER + seat * SEAT_FIELDS
    st[at] = min(max(st[at] + amount, 0), track_max(st, t, seat))


@njit_noalloc
def add_psych(st, t, seat, amount):
    at = S_PSYCH + seat * SEAT_FIELDS
    st[at] = min(max(st[at] + amount, 0), track_max(st, t, seat))


@njit_noalloc
def add_score(st, seat, part, points):
    st[part + seat * SEAT_FIELDS] += points
    st[S_SCORE + seat * SEAT_FIELDS] += points


# === randomness (the game's own stream) =====================================================

@njit_noalloc
def rand_below(st, n):
    s, k = mulberry32_step(st[G_RNG])
    st[G_RNG] = s
    return scale_draw(k, n)


@njit_noalloc
def shuffle_range(st, lo, n):
    for i in range(n - 1, 0, -1):
        j = rand_below(st, i + 1)
        a = st[lo + i]
        st[lo + i] = st[lo + j]
        st[lo + j] = a


# === asking the policies ====================================================================

@njit_noalloc
def ask(st, t, ag, seat, decision, n):
    """Put the first n codes of ag's legal buffer to `seat`'s policy; return the chosen code.
    A single legal code is taken without asking. An answer that is not legal ends the game
    (END_POLICY_ERROR) and the first legal code is used so the engine can unwind."""
    fns, seat_slots, slot_params, streams, work, log, legal = ag[0], ag[1], ag[2], ag[3], \
        ag[4], ag[5], ag[6]
    if n == 1:
        code = legal[0]
    else:
        slot = seat_slots[seat]
        ctx = PolicyContext(st, t, np.int64(seat), np.int64(decision), legal, np.int64(n),
                            streams[seat], slot_params[slot], work)
        code = fns[slot](ctx)
        ok = False
        for i in range(n):
            if legal[i] == code:
                ok = True
                break
        if not ok:
            st[G_POLICY_ERROR] = 1 + seat
            code = legal[0]
    d = st[G_DECISIONS]
    if d < log.shape[0]:
        log[d, 0] = seat
        log[d, 1] = decision
        log[d, 2] = code
        log[d, 3] = n
        log[d, 4] = st[G_ROUND]
        log[d, 5] = st[G_AUX]
    st[G_DECISIONS] = d + 1
    return code


@njit_noalloc(inline="always")
def legal_buffer(ag):
    return ag[6]


@njit_noalloc(inline="always")
def no_reservation(ag):
    """Zeros per asset kind: no hand card is committed to a pitch (shared, never written)."""
    return ag[7]


@njit_noalloc(inline="always")
def engine_scratch(ag):
    """The engine's work vectors (SCR_* regions), allocated once a game."""
    return ag[8]


# === asset deck, discard, Spread, Portaledge (F17-F18, F46-F47, F120-F122) ==================

@njit_noalloc
def discard_card(st, k):
    st[DISCARD + k] += 1
    st[G_DISCARD_N] += 1


@njit_noalloc
def rebuild_deck(st):
    """Decision 2: an empty deck is rebuilt from the shuffled discard pile."""
    n = 0
    for k in range(1, N_KINDS):
        for _ in range(st[DISCARD + k]):
            st[DECK + n] = k
            n += 1
        st[DISCARD + k] = 0
    st[G_DISCARD_N] = 0
    st[G_DECK_N] = n
    shuffle_range(st, DECK, n)
    st[G_DECK_RESHUFFLES] += 1


@njit_noalloc
def deck_can_draw(st, t):
    return st[G_DECK_N] > 0 or (t[C_DECK_NEVER] == 0 and st[G_DISCARD_N] > 0)


@njit_noalloc
def deck_draw(st, t):
    """Top card of the asset deck (Decision 2 when empty); 0 if there is none."""
    if st[G_DECK_N] == 0:
        st[G_DECK_DRY] = 1
        if t[C_DECK_NEVER] != 0 or st[G_DISCARD_N] == 0:
            return 0
        rebuild_deck(st)
    st[G_DECK_N] -= 1
    return st[DECK + st[G_DECK_N]]


@njit_noalloc
def other_type_left(st, t, typ):
    """F121(2): a card of another type in the deck, or in the discard pile if it can refill."""
    for i in range(st[G_DECK_N]):
        if t[T_KIND_TYPE + st[DECK + i]] != typ:
            return True
    if t[C_DECK_NEVER] == 0:
        for k in range(1, N_KINDS):
            if st[DISCARD + k] > 0 and t[T_KIND_TYPE + k] != typ:
                return True
    return False


@njit_noalloc
def spread_single_type(st, t):
    typ = -1
    for s in range(4):
        k = st[SPREAD + s]
        if k == 0:
            return -1
        if typ < 0:
            typ = t[T_KIND_TYPE + k]
        elif t[T_KIND_TYPE + k] != typ:
            return -1
    return typ


@njit_noalloc
def refill_spread(st, t):
    """F121: deal up to 4, then replace the card dealt last while all 4 share a type."""
    for s in range(4):
        if st[SPREAD + s] == 0:
            k = deck_draw(st, t)
            if k == 0:
                return
            st[SPREAD + s] = k
            st[SPREAD_LAST] = s
    while True:
        typ = spread_single_type(st, t)
        if typ < 0:
            return
        if not other_type_left(st, t, typ):
            st[G_SPREAD_STUCK] += 1
            return
        last = st[SPREAD_LAST]
        discard_card(st, st[SPREAD + last])
        st[SPREAD + last] = 0
        k = deck_draw(st, t)
        if k == 0:
            return
        st[SPREAD + last] = k


@njit_noalloc
def pile_available(st, t, typ):
    """F122: a pile may be chosen if it holds a card after its refill."""
    if st[PILE_N + typ] > 0:
        return True
    for k in range(1, N_KINDS):
        if st[DISCARD + k] > 0 and t[T_KIND_TYPE + k] == typ:
            return True
    for i in range(st[G_DECK_N]):
        if t[T_KIND_TYPE + st[DECK + i]] == typ:
            return True
    return False


@njit_noalloc
def refill_pile(st, t, typ):
    """F46/F122: before a draw from a pile of 0 or 1 card, add up to 7 cards of its type:
    from the discard pile first (at random), then the first ones from the deck's top."""
    want = t[T_SETUP + SETUP_PORTALEDGE]
    added = 0
    while added < want:
        total = 0
        for k in range(1, N_KINDS):
            if t[T_KIND_TYPE + k] == typ:
                total += st[DISCARD + k]
        if total == 0:
            break
        r = rand_below(st, total)
        for k in range(1, N_KINDS):
            if t[T_KIND_TYPE + k] == typ:
                if r < st[DISCARD + k]:
                    st[DISCARD + k] -= 1
                    st[G_DISCARD_N] -= 1
                    push_pile(st, typ, k)
                    added += 1
                    break
                r -= st[DISCARD + k]
    i = st[G_DECK_N] - 1
    while added < want and i >= 0:
        k = st[DECK + i]
        if t[T_KIND_TYPE + k] == typ:
            for j in range(i, st[G_DECK_N] - 1):
                st[DECK + j] = st[DECK + j + 1]
            st[G_DECK_N] -= 1
            push_pile(st, typ, k)
            added += 1
        i -= 1


@njit_noalloc
def push_pile(st, typ, k):
    n = st[PILE_N + typ]
    # the card already there stays on top: new cards go underneath
    for j in range(n, 0, -1):
        st[PILE + typ * PILE_CAP + j] = st[PILE + typ * PILE_CAP + j - 1]
    st[PILE + typ * PILE_CAP] = k
    st[PILE_N + typ] = n + 1


@njit_noalloc
def pile_draw(st, t, typ):
    """The top card of a Portaledge pile after F122's refill; 0 if it stays empty."""
    if st[PILE_N + typ] <= 1:
        refill_pile(st, t, typ)
    n = st[PILE_N + typ]
    if n == 0:
        return 0
    st[PILE_N + typ] = n - 1
    return st[PILE + typ * PILE_CAP + n - 1]


@njit_noalloc
def gain_portaledge(st, t, ag, seat, types_mask):
    """F110: take one card from a listed pile of the seat's choice; lost if none can."""
    legal = legal_buffer(ag)
    n = 0
    for typ in range(4):
        if (types_mask >> typ) & 1 and pile_available(st, t, typ):
            legal[n] = typ
            n += 1
    if n == 0:
        return
    typ = ask(st, t, ag, seat, D_PILE, n)
    k = pile_draw(st, t, typ)
    if k > 0:
        st[HAND + seat * N_KINDS + k] += 1


@njit_noalloc
def draw_cards(st, t, ag, seat, n_cards, spread_only):
    """F120: take Spread cards of the seat's choice, then the rest from the deck top; refill
    the Spread once at the end (Decision 24; each card with spread_refill=each_card)."""
    legal = legal_buffer(ag)
    from_deck = False
    for _ in range(n_cards):
        k = 0
        if from_deck:
            k = deck_draw(st, t)
            if k == 0:
                from_deck = False       # deck and discard empty: Spread cards may follow
        if k == 0:
            n = 0
            for s in range(4):
                if st[SPREAD + s] > 0:
                    legal[n] = s
                    n += 1
            if not spread_only and deck_can_draw(st, t):
                legal[n] = DRAW_DECK
                n += 1
            if n == 0:
                break
            code = ask(st, t, ag, seat, D_DRAW, n)
            if code == DRAW_DECK:
                from_deck = True
                k = deck_draw(st, t)
            else:
                k = st[SPREAD + code]
                st[SPREAD + code] = 0
        if k > 0:
            st[HAND + seat * N_KINDS + k] += 1
        if t[C_SPREAD_EACH] != 0:
            refill_spread(st, t)
    refill_spread(st, t)


# === Summit Beta supply (F19, F112, Decision 3) =============================================

@njit_noalloc
def draw_summit_beta(st, t):
    if st[G_SB_N] == 0:
        if t[C_SB_LOST] != 0 or st[SB_DISCARD] == 0:
            return 0
        n = 0
        for sb in range(1, 13):
            if (st[SB_DISCARD] >> sb) & 1:
                st[SB_SUPPLY + n] = sb
                n += 1
        st[SB_DISCARD] = 0
        st[G_SB_N] = n
        shuffle_range(st, SB_SUPPLY, n)
        st[G_SB_RESHUFFLES] += 1
    st[G_SB_N] -= 1
    return st[SB_SUPPLY + st[G_SB_N]]


@njit_noalloc
def give_summit_beta(st, seat, sb):
    if sb > 0:
        st[S_SB + seat * SEAT_FIELDS] |= 1 << sb
        st[T_SB_GAINED + seat] += 1


@njit_noalloc
def use_summit_beta(st, seat, sb):
    st[S_SB + seat * SEAT_FIELDS] &= ~(1 << sb)
    st[SB_DISCARD] |= 1 << sb
    st[T_SB_USED + seat * 13 + sb] += 1


# === card choices: lose, give, place, steal (F42-F43, F108-F109, F113-F114) =================

@njit_noalloc
def card_sources(st, t, ag, seat, ctype, from_board, reserved, exclude_fs_gear):
    """Fill the legal buffer with D_CARD codes: hand cards of ctype (minus `reserved`, the
    cards committed to a pitch), and only when there are none, board cards (F42: hand first)."""
    legal = legal_buffer(ag)
    n = 0
    for k in range(1, N_KINDS):
        if type_matches(t, k, ctype) and st[HAND + seat * N_KINDS + k] - reserved[k] > 0:
            if exclude_fs_gear and t[T_KIND_TYPE + k] == GEAR:
                continue
            legal[n] = k + 64 * SRC_HAND
            n += 1
    if n > 0 or not from_board:
        return n
    for k in range(1, N_KINDS):
        if type_matches(t, k, ctype):
            if st[BOARD_DOWN + seat * N_KINDS + k] > 0:
                legal[n] = k + 64 * SRC_BOARD_DOWN
                n += 1
            if st[BOARD_UP + seat * N_KINDS + k] > 0:
                legal[n] = k + 64 * SRC_BOARD_UP
                n += 1
    return n


@njit_noalloc
def take_card(st, seat, code):
    """Remove the card a D_CARD code names from the seat; return its kind."""
    k = code % 64
    src = code // 64
    if src == SRC_HAND:
        st[HAND + seat * N_KINDS + k] -= 1
    elif src == SRC_BOARD_DOWN:
        st[BOARD_DOWN + seat * N_KINDS + k] -= 1
    else:
        st[BOARD_UP + seat * N_KINDS + k] -= 1
    return k


@njit_noalloc
def eligible_cards(st, t, seat, ctype, from_board, reserved):
    """The seat's cards of ctype that may be lost or given: hand minus `reserved`, and the
    board if from_board."""
    n = held_cards(st, t, seat, ctype, from_board)
    for k in range(1, N_KINDS):
        if type_matches(t, k, ctype):
            n -= reserved[k]
    return n


@njit_noalloc
def held_cards(st, t, seat, ctype, from_board):
    n = 0
    for k in range(1, N_KINDS):
        if type_matches(t, k, ctype):
            n += st[HAND + seat * N_KINDS + k]
            if from_board:
                n += st[BOARD_DOWN + seat * N_KINDS + k] + st[BOARD_UP + seat * N_KINDS + k]
    return n


@njit_noalloc
def move_cards(st, t, ag, seat, ctype, n_cards, from_board, to_seat, reserved):
    """Lose (to_seat < 0: to the discard pile) or give n cards, one choice at a time."""
    for _ in range(n_cards):
        n = card_sources(st, t, ag, seat, ctype, from_board, reserved, False)
        if n == 0:
            return
        code = ask(st, t, ag, seat, D_CARD, n)
        k = take_card(st, seat, code)
        if to_seat < 0:
            discard_card(st, k)
        else:
            st[HAND + to_seat * N_KINDS + k] += 1
            st[T_CARDS_GIVEN + seat] += 1
            st[T_CARDS_RECEIVED + to_seat] += 1


@njit_noalloc
def choose_opponent(st, t, ag, seat):
    legal = legal_buffer(ag)
    n = 0
    P = n_players(st)
    for k in range(1, P):
        legal[n] = (seat + k) % P
        n += 1
    return ask(st, t, ag, seat, D_OPPONENT, n)


# === the board (F8-F14, F30) ================================================================

@njit_noalloc
def hex_face_up(st, t, h):
    """F13/F14: rows 1-3 are face up from the start; the Headwall once revealed."""
    if (board_mask(st, t, BM_FACE_UP_START) >> h) & 1:
        return True
    return st[G_HEADWALL_UP] != 0 and h > 0


@njit_noalloc
def legal_destinations(st, t, seat):
    """F30: neighbour, not on the own route, not occupied (except summits), face up."""
    h = st[S_HEX + seat * SEAT_FIELDS]
    mask = t[T_B_NEIGH + N_HEX * st[G_SIDE] + h] & ~st[S_ROUTE_MASK + seat * SEAT_FIELDS]
    mask &= ~np.int64(1)                       # F9: nobody returns to hex 0
    summits = board_mask(st, t, BM_SUMMIT)
    P = n_players(st)
    for q in range(P):
        if q != seat:
            o = st[S_HEX + q * SEAT_FIELDS]
            if o > 0 and not (summits >> o) & 1:
                mask &= ~(np.int64(1) << o)
    out = np.int64(0)
    m = mask
    while m:
        low = m & -m
        x = bit_index(low)
        if hex_face_up(st, t, x):
            out |= low
        m ^= low
    return out


@njit_noalloc
def climbed_by_others(st, seat, h):
    """F32a: N = the other players whose route contains hex h."""
    n = 0
    for q in range(n_players(st)):
        if q != seat and (st[S_ROUTE_MASK + q * SEAT_FIELDS] >> h) & 1:
            n += 1
    return n


# === paying a pitch (F31-F34, F64-F75, F77-F83, F123) =======================================

@njit_noalloc
def pitch_requirement(st, t, h, req):
    """F31: printed requirements + requirement tokens on the tile."""
    tile = st[TILE + h]
    for r in range(7):
        req[r] = t[T_P_REQ + 7 * tile + r]
    for a in range(4):
        req[a] += st[REQ_TOKENS + 4 * h + a]


@njit_noalloc
def _shortfall_for(st, t, seat, h, tokens, bionic, n_others, res, plan, scratch):
    """S and the payment for one choice of waiver tokens (bitmask) and Bionic conversion
    (-1 none, else 1..3). `res`: payment_resources. Writes `plan`.
    `scratch` (26 int64) holds the working vectors, so the hot path allocates nothing."""
    scratch[:] = 0
    req = scratch[0:7]
    paid_tok = scratch[7:11]
    paid_card = scratch[11:15]
    unpaid = scratch[15:22]
    any_cards = scratch[22:26]
    pitch_requirement(st, t, h, req)
    tile = st[TILE + h]
    # F32b: character effects
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
    for a in range(1, 4):
        use = min(need_any, res[a] - paid_tok[a])
        need_any -= use
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
            if not _cover(unpaid, 0b1111111 if any_unit else 0b0011110):
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
    ignores = n_others + crag_left                               # F32a, F75
    value = t[T_P_VALUE + tile]
    if value == 4:
        ignores += res[R_IGNORE_V4]
    elif value == 5:
        ignores += res[R_IGNORE_V5]
    ignored = 0
    while ignores > 0 and _cover(unpaid, 0b1111111):
        ignores -= 1
        ignored += 1
    s = 0
    for r in range(7):
        s += unpaid[r]
    # leftover ignores spare the costliest paid units: cards, then psych, then water
    while ignores > 0:
        if _uncover_card(paid_card, any_cards, 0b1111):
            pass
        elif paid_p > 0:
            paid_p -= 1
        elif paid_w > 0:
            paid_w -= 1
        else:
            break
        ignores -= 1
        ignored += 1
    n_tok = 0
    for sb in (SB_BORROWED_RACK, SB_JUMAR, SB_EXTRA_WATER, SB_GUIDEBOOK):
        if (tokens >> sb) & 1:
            n_tok += 1
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
RES_SIZE = 20
PAYMENT_BUFFER = RES_SIZE + 20 + 26       # res, a trial plan (PLAN_SIZE), scratch
CLIMB_OPTIONS_BUFFER = PAYMENT_BUFFER + PLAN_SIZE

# The engine's scratch (ag[8]): one region per function that needs work vectors. None of
# these functions is re-entered while its region is live (attempt_climb keeps its plan and
# picked cards across the asks of a risk; no choice inside leads back to a climb).
SCR_PAYMENT = 0                                  # CLIMB_OPTIONS_BUFFER: turn_legal, attempt_climb
SCR_PLAN = SCR_PAYMENT + CLIMB_OPTIONS_BUFFER    # PLAN_SIZE: attempt_climb's payment
SCR_SPARE = SCR_PLAN + PLAN_SIZE                 # PLAN_SIZE: Phil's plan without tokens
SCR_PICKED = SCR_SPARE + PLAN_SIZE               # N_KINDS: the hand cards that pay
SCR_HAVE = SCR_PICKED + N_KINDS                  # 6: pick_payment_cards' symbols shown
SCR_WHO = SCR_HAVE + 6                           # MAX_PLAYERS: resolve_option's targets
SCR_FOLLOW = SCR_WHO + MAX_PLAYERS               # 16: follow_phase's counts, tokens, used
SCR_SETS = SCR_FOLLOW + 16                       # SETS_SCRATCH: best_sets / greedy_sets
SETS_SCRATCH = 24
SCRATCH_SIZE = SCR_SETS + SETS_SCRATCH


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
    res = buffer[0:RES_SIZE]
    payment_resources(st, t, seat, res)
    return plan_payment_from(st, t, seat, h, plan, allow_tokens, res, buffer)


@njit_noalloc
def plan_payment_from(st, t, seat, h, plan, allow_tokens, res, buffer):
    """plan_payment with the seat's payment_resources already in `res`; `buffer`
    (PAYMENT_BUFFER int64, whose first RES_SIZE may be `res` itself) is scratch space."""
    trial = buffer[RES_SIZE:RES_SIZE + PLAN_SIZE]
    scratch = buffer[RES_SIZE + PLAN_SIZE:RES_SIZE + PLAN_SIZE + 26]
    held = st[S_SB + seat * SEAT_FIELDS] if allow_tokens else 0
    paying = held & ((1 << SB_BORROWED_RACK) | (1 << SB_JUMAR) | (1 << SB_EXTRA_WATER) |
                     (1 << SB_GUIDEBOOK))
    n_others = climbed_by_others(st, seat, h)
    bionic_max = 3 if res[R_BIONIC] else 0
    best = INF
    sub = paying
    while True:
        for b in range(-1, bionic_max + 1):
            if b == 0:
                continue
            key = _shortfall_for(st, t, seat, h, sub, b, n_others, res, trial, scratch)
            if key < best:
                best = key
                for i in range(PLAN_SIZE):
                    plan[i] = trial[i]
        if sub == 0:
            break
        sub = (sub - 1) & paying
    return plan[PL_S]


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
    buffer = work[0:PAYMENT_BUFFER]
    plan = work[PAYMENT_BUFFER:PAYMENT_BUFFER + PLAN_SIZE]
    res = buffer[0:RES_SIZE]
    payment_resources(st, t, seat, res)
    must_risk = ch(st, t, seat, CH_MUST_RISK)
    c = np.int64(0)
    r = np.int64(0)
    m = dest
    while m:
        low = m & -m
        h = bit_index(low)
        m ^= low
        s = plan_payment_from(st, t, seat, h, plan, True, res, buffer)
        if must_risk:
            if s <= 1:
                r |= low
        elif s == 0:
            c |= low
            if t[C_RISK_WITH_TOKENS] != 0 and plan[PL_TOKENS] != 0:
                if plan_payment_from(st, t, seat, h, plan, False, res, buffer) == 1:
                    r |= low
        elif s == 1:
            r |= low
    return c, r


# === the Risk Die (F36, F45, F116) ==========================================================

@njit_noalloc
def roll_risk_die(st, t):
    r = rand_below(st, ODDS_SCALE)
    if r < t[C_ODDS]:
        return FACE_CHECK
    if r < t[C_ODDS] + t[C_ODDS + 1]:
        return FACE_MINUS_2
    return FACE_MINUS_1


@njit_noalloc
def penalty_payable(st, t, seat, face, reserved, psych_committed):
    cards = eligible_cards(st, t, seat, CT_ANY, True, reserved)
    if face == FACE_MINUS_2:
        return cards >= 2
    return cards >= 1 and st[S_PSYCH + seat * SEAT_FIELDS] >= psych_committed + 1


@njit_noalloc
def pay_penalty(st, t, ag, seat, face, reserved):
    opp = choose_opponent(st, t, ag, seat)
    if face == FACE_MINUS_2:
        move_cards(st, t, ag, seat, CT_ANY, 2, True, opp, reserved)
    else:
        move_cards(st, t, ag, seat, CT_ANY, 1, True, opp, reserved)
        add_psych(st, t, seat, -1)
        if t[C_PSYCH_LOST] == 0:
            add_psych(st, t, opp, 1)


@njit_noalloc
def maybe_chalkbag(st, t, ag, seat, face):
    """F86: after a penalty face the owner may reroll once; the new result stands."""
    if face != FACE_CHECK and holds_sb(st, seat, SB_LUCKY_CHALKBAG):
        legal = legal_buffer(ag)
        legal[0] = 0
        legal[1] = 1
        if ask(st, t, ag, seat, D_CHALKBAG, 2) == 1:
            use_summit_beta(st, seat, SB_LUCKY_CHALKBAG)
            st[T_CHALKBAG_REROLLS + seat] += 1
            return roll_risk_die(st, t)
    return face


@njit_noalloc
def own_turn_window(st, t, ag, seat, reserved):
    """F119: the own-turn tokens may be played before a penalty is settled (or in the
    Rerack step). One decision per token; CONTINUE ends the window."""
    while True:
        legal = legal_buffer(ag)
        n = 1
        legal[0] = A_CONTINUE
        n = add_own_turn_tokens(st, t, seat, legal, n)
        if n == 1:
            return
        code = ask(st, t, ag, seat, D_SB_WINDOW, n)
        if code == A_CONTINUE:
            return
        play_own_turn_token(st, t, ag, seat, code - A_PLAY_SB, reserved)


@njit_noalloc
def add_own_turn_tokens(st, t, seat, legal, n):
    """F76, F79, F81, F85: own-turn tokens that can do something now."""
    legal_now = legal
    if holds_sb(st, seat, SB_RERACK) and st[G_DISCARD_N] > 0:
        legal_now[n] = A_PLAY_SB + SB_RERACK
        n += 1
    if holds_sb(st, seat, SB_ENERGY_DRINK):
        legal_now[n] = A_PLAY_SB + SB_ENERGY_DRINK
        n += 1
    if holds_sb(st, seat, SB_SIMUL_CLIMB):
        legal_now[n] = A_PLAY_SB + SB_SIMUL_CLIMB
        n += 1
    if holds_sb(st, seat, SB_BOMBER_ANCHOR) and hand_size(st, seat) > 0:
        legal_now[n] = A_PLAY_SB + SB_BOMBER_ANCHOR
        n += 1
    return n


@njit_noalloc
def play_own_turn_token(st, t, ag, seat, sb, reserved):
    use_summit_beta(st, seat, sb)
    if sb == SB_RERACK:                                          # F76
        for _ in range(2):
            legal = legal_buffer(ag)
            n = 0
            for k in range(1, N_KINDS):
                if st[DISCARD + k] > 0:
                    legal[n] = k
                    n += 1
            if n == 0:
                break
            k = ask(st, t, ag, seat, D_DISCARD_PICK, n)
            st[DISCARD + k] -= 1
            st[G_DISCARD_N] -= 1
            st[HAND + seat * N_KINDS + k] += 1
    elif sb == SB_ENERGY_DRINK:                                  # F79
        add_water(st, t, seat, t[T_SB_PARAM + 2 * SB_ENERGY_DRINK])
        add_psych(st, t, seat, t[T_SB_PARAM + 2 * SB_ENERGY_DRINK + 1])
    elif sb == SB_SIMUL_CLIMB:                                   # F81
        draw_cards(st, t, ag, seat, t[T_SB_PARAM + 2 * SB_SIMUL_CLIMB], False)
    elif sb == SB_BOMBER_ANCHOR:                                 # F85: discard, then draw
        k_done = 0
        for _ in range(t[T_SB_PARAM + 2 * SB_BOMBER_ANCHOR]):
            n = card_sources(st, t, ag, seat, CT_ANY, False, reserved, False)
            if n == 0:
                break
            legal = legal_buffer(ag)
            if k_done > 0:
                legal[n] = A_STOP
                n += 1
            code = ask(st, t, ag, seat, D_CARD, n)
            if code == A_STOP:
                break
            discard_card(st, take_card(st, seat, code))
            k_done += 1
        for _ in range(k_done):
            gain_portaledge(st, t, ag, seat, 0b1111)


# === climbing (F35-F36) =====================================================================

@njit_noalloc
def attempt_climb(st, t, ag, seat, h, risk):
    """Climb (F35) or risk (F36) onto hex h. Returns True if the climber moved."""
    work = engine_scratch(ag)
    buffer = work[SCR_PAYMENT:SCR_PAYMENT + PAYMENT_BUFFER]
    res = buffer[0:RES_SIZE]
    plan = work[SCR_PLAN:SCR_PLAN + PLAN_SIZE]
    payment_resources(st, t, seat, res)
    plan_payment_from(st, t, seat, h, plan, True, res, buffer)
    if risk and plan[PL_S] == 0 and t[C_RISK_WITH_TOKENS] != 0 and plan[PL_TOKENS] != 0 \
            and not ch(st, t, seat, CH_MUST_RISK):
        plan_payment_from(st, t, seat, h, plan, False, res, buffer)   # Decision 33 flag
    if ch(st, t, seat, CH_MUST_RISK) and plan[PL_TOKENS] != 0:
        # Phil rolls at S = 0 or 1 alike: a paying token that only lowers S to 0 is kept
        spare = work[SCR_SPARE:SCR_SPARE + PLAN_SIZE]
        if plan_payment_from(st, t, seat, h, spare, False, res, buffer) <= 1:
            for i in range(PLAN_SIZE):
                plan[i] = spare[i]
    rolls = risk
    if ch(st, t, seat, CH_MUST_RISK):                            # F34, F71, F125
        rolls = True
        if plan[PL_S] == 0:
            if t[C_PHIL_PAY_THEN_ROLL] == 0:
                if not leave_one_unpaid(plan) and t[C_PHIL_NOTHING_CLIMBS] != 0:
                    rolls = False
    picked = work[SCR_PICKED:SCR_PICKED + N_KINDS]
    pick_payment_cards(st, t, seat, plan, picked, work[SCR_HAVE:SCR_HAVE + 6])
    if rolls:
        st[T_RISKS + seat] += 1
        face = roll_risk_die(st, t)
        face = maybe_chalkbag(st, t, ag, seat, face)
        if face == FACE_CHECK:
            st[T_RISK_CHECK + seat] += 1
        else:
            if face == FACE_MINUS_2:
                st[T_RISK_MINUS2 + seat] += 1
            else:
                st[T_RISK_MINUS1 + seat] += 1
            settled = False
            if t[C_JESUS_ON_PITCH] != 0 and holds_sb(st, seat, SB_JESUS_PIECE):
                legal = legal_buffer(ag)
                legal[0] = A_CONTINUE
                legal[1] = A_PLAY_SB + SB_JESUS_PIECE
                if ask(st, t, ag, seat, D_SB_WINDOW, 2) != A_CONTINUE:
                    use_summit_beta(st, seat, SB_JESUS_PIECE)
                    st[T_JESUS_USES + seat] += 1
                    settled = True
            if not settled:
                own_turn_window(st, t, ag, seat, picked)         # F36(5), F116(e), F119
                if penalty_payable(st, t, seat, face, picked, plan[PL_PSYCH]):
                    pay_penalty(st, t, ag, seat, face, picked)
                else:                                            # F36(6): retreat
                    st[T_RISK_RETREATS + seat] += 1
                    st[S_STATUS + seat * SEAT_FIELDS] = STATUS_PENALISED
                    return False
    complete_climb(st, t, ag, seat, h, plan, picked)
    return True


@njit_noalloc
def complete_climb(st, t, ag, seat, h, plan, picked):
    """F35 (1)-(7)."""
    base = seat * SEAT_FIELDS
    # (1) paid cards go face up onto the board; tracks and paying tokens are spent
    for k in range(1, N_KINDS):
        if picked[k] > 0:
            st[HAND + seat * N_KINDS + k] -= picked[k]
            st[BOARD_UP + seat * N_KINDS + k] += picked[k]
    add_water(st, t, seat, -plan[PL_WATER])
    add_psych(st, t, seat, -plan[PL_PSYCH])
    for sb in (SB_BORROWED_RACK, SB_JUMAR, SB_EXTRA_WATER, SB_GUIDEBOOK):
        if (plan[PL_TOKENS] >> sb) & 1:
            use_summit_beta(st, seat, sb)
    # (2) move; the rope stays on the hex left (F131)
    n = st[S_ROUTE_N + base]
    st[S_ROUTE + base + n] = h
    st[S_ROUTE_N + base] = n + 1
    st[S_ROUTE_MASK + base] |= np.int64(1) << h
    st[S_HEX + base] = h
    st[S_STATUS + base] = STATUS_CLIMBED
    st[T_CLIMBS + seat] += 1
    tile = st[TILE + h]
    value = t[T_P_VALUE + tile]
    ptype = t[T_P_TYPE + tile]
    st[S_TYPE_N + base + ptype] += 1
    # (3) pitch points
    add_score(st, seat, S_SC_PITCH, max(0, value - plan[PL_N]))
    # (4) summit
    if (board_mask(st, t, BM_SUMMIT) >> h) & 1:
        st[T_SUMMITS + seat] += 1
        if t[C_SUMMIT_ONCE] == 0 or st[S_SC_SUMMIT + base] == 0:
            add_score(st, seat, S_SC_SUMMIT, 1)
    if (board_mask(st, t, BM_HEADWALL) >> h) & 1:
        st[T_HEADWALL + seat] += 1
    if n + 1 == t[T_SETUP + SETUP_PITCHES_TO_END]:
        st[T_ROUND_8TH + seat] = st[G_ROUND]
    # (5) shared objectives
    update_shared_objectives(st, t, seat, h)
    # (6) Spider Stick (F87)
    if holds_sb(st, seat, SB_SPIDER_STICK) and value <= 2:
        use_summit_beta(st, seat, SB_SPIDER_STICK)
        add_score(st, seat, S_SC_SPIDER, 2)
    # (7) climbing card
    resolve_climbing_cards(st, t, ag, seat)


# === shared objectives (F59-F62, F88-F103, F129) ============================================

@njit_noalloc
def popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit_noalloc
def route_tiles(st, seat):
    m = np.int64(0)
    base = seat * SEAT_FIELDS
    for i in range(st[S_ROUTE_N + base]):
        m |= np.int64(1) << st[TILE + st[S_ROUTE + base + i]]
    return m


@njit_noalloc
def score_objective(st, seat, so, points):
    add_score(st, seat, S_SC_SHARED, points)
    st[T_SHARED_POINTS + seat * 17 + so] += points


@njit_noalloc
def type_count(st, t, seat, so, ptype):
    """F92-F97 + Decision 7: tiles of the type on the route, The Trifecta counting for every
    type objective (or, flagged, BGA's tile list: crack only)."""
    tiles = route_tiles(st, seat)
    if t[C_TRIFECTA_BGA] != 0:
        return popcount(tiles & t[T_SO_BGA_TILES + so])
    n = 0
    m = tiles
    while m:
        low = m & -m
        k = bit_index(low)
        m ^= low
        if t[T_P_TYPE + k] == ptype or k == TRIFECTA:
            n += 1
    return n


@njit_noalloc
def update_shared_objectives(st, t, seat, h):
    base = seat * SEAT_FIELDS
    tile = st[TILE + h]
    for i in range(3):
        so = st[G_SHARED + i]
        at = T_SO + SO_FIELDS * so
        kind = t[at + SO_KIND]
        points = t[at + SO_POINTS]
        done = (st[S_OBJ_DONE + base] >> so) & 1
        if kind == K_PER_PITCH:                                  # F90, F91
            if (t[at + SO_A] >> t[T_P_SHADE + tile]) & 1:
                score_objective(st, seat, so, points)
        elif kind == K_PER_HEADWALL:                             # F101
            if (board_mask(st, t, BM_HEADWALL) >> h) & 1:
                score_objective(st, seat, so, points)
        elif kind == K_ELITIST:                                  # F61
            if t[T_P_VALUE + tile] == t[at + SO_A] and st[S_ELITIST_LOST + base] == 0:
                st[S_ELITIST_LOST + base] = 1
                score_objective(st, seat, so, -points)
        elif done == 0:
            met = False
            if kind == K_RIDGE:                                  # F88, F89
                ridge = board_mask(st, t, BM_NORTH if t[at + SO_A] == 0 else BM_SOUTH)
                met = popcount(st[S_ROUTE_MASK + base] & ridge) >= t[at + SO_B]
            elif kind == K_TYPE_COUNT:                           # F92-F97
                met = type_count(st, t, seat, so, t[at + SO_A]) >= t[at + SO_B]
            elif kind == K_GRAND_TRAVERSE:                       # F98
                met = has_traverse(st, t, st[S_ROUTE_MASK + base], t[at + SO_A])
            elif kind == K_ALL_TYPES:                            # F99
                met = all_types_met(st, t, seat, t[at + SO_A], t[at + SO_B])
            if met:
                st[S_OBJ_DONE + base] |= 1 << so
                score_objective(st, seat, so, points)


@njit_noalloc
def has_traverse(st, t, route_mask, run):
    for r in range(6):
        row = board_mask(st, t, BM_ROW + r)
        streak = 0
        for h in range(1, N_HEX):
            if (row >> h) & 1:
                if (route_mask >> h) & 1:
                    streak += 1
                    if streak >= run:
                        return True
                else:
                    streak = 0
    return False


@njit_noalloc
def all_types_met(st, t, seat, types_mask, trifecta_fills):
    tiles = route_tiles(st, seat)
    have = 0
    m = tiles
    while m:
        low = m & -m
        k = bit_index(low)
        m ^= low
        have |= 1 << t[T_P_TYPE + k]
    missing = popcount(types_mask & ~have)
    if missing == 0:
        return True
    return missing == 1 and trifecta_fills != 0 and (tiles >> TRIFECTA) & 1


@njit_noalloc
def check_permanent_objectives(st, t, seat):
    """F51, F62, F102-F103: Stonemaster and Off-Width Aficionado after the grants."""
    base = seat * SEAT_FIELDS
    for i in range(3):
        so = st[G_SHARED + i]
        at = T_SO + SO_FIELDS * so
        if t[at + SO_KIND] != K_PERMANENT or (st[S_OBJ_DONE + base] >> so) & 1:
            continue
        a = st[S_PERM + base + t[at + SO_A]]
        b = st[S_PERM + base + t[at + SO_C]]
        if t[C_PERM_OBJ_BGA] != 0:
            met = a + b >= t[at + SO_E]
        else:
            met = a >= t[at + SO_B] and b >= t[at + SO_D]
        if met:
            st[S_OBJ_DONE + base] |= 1 << so
            score_objective(st, seat, so, t[at + SO_POINTS])


# === climbing cards (F39-F45, F84, F106-F118, F128) =========================================

@njit_noalloc(inline="always")
def entry_at(card, option, k):
    return T_CC_EFF + ((card * 2 + option) * MAX_ENTRIES + k) * ENTRY_FIELDS


@njit_noalloc
def entry_ctype(t, card, at):
    ctype = t[at + E_CTYPE]
    if card == 48 and t[at + E_VERB] == V_LOSE and t[C_CARD_48B_CRACK] != 0:
        ctype = CRACK                                            # F132, Decision 6
    return ctype


@njit_noalloc
def entry_who(t, card, at):
    who = t[at + E_WHO]
    if card == 67 and t[at + E_VERB] == V_PSYCH and t[at + E_PART] == PART_COST and \
            t[C_CARD_67A_SELF] != 0:
        who = W_SELF                                             # F132, Decision 6
    return who


@njit_noalloc
def is_free_soloist_gear_banned(st, t, seat):
    return ch(st, t, seat, CH_NO_GEAR_COLUMN) != 0


@njit_noalloc
def option_choosable(st, t, seat, card, option, jesus):
    """F40, F113, F114, F118: can `seat` choose this option (with Jesus Piece: F84)?"""
    if (t[T_CC_FS_BAN + card] >> option) & 1 and is_free_soloist_gear_banned(st, t, seat):
        return False
    base = seat * SEAT_FIELDS
    for k in range(MAX_ENTRIES):
        at = entry_at(card, option, k)
        part = t[at + E_PART]
        if part == 0:
            break
        verb = t[at + E_VERB]
        if part == PART_COST and not jesus:
            if verb == V_WATER or verb == V_PSYCH:
                who = entry_who(t, card, at)
                if who == W_SELF or who == W_SELF_AND_OPP or who == W_ALL:
                    track = st[(S_WATER if verb == V_WATER else S_PSYCH) + base]
                    if t[at + E_AMOUNT] < 0 and track < -t[at + E_AMOUNT]:
                        return False
            elif verb == V_LOSE or verb == V_GIVE:
                from_board = t[at + E_FROM] == 0
                if held_cards(st, t, seat, entry_ctype(t, card, at), from_board) < \
                        t[at + E_AMOUNT]:
                    return False
        if verb == V_STEAL:
            if steal_targets(st, t, seat, t[at + E_CTYPE]) == 0:
                return False
        elif verb == V_PLACE:
            ctype = t[at + E_CTYPE]
            if ch(st, t, seat, CH_NO_GEAR_COLUMN) and ctype == CT_ANY:
                ctype = CT_ANY_SKILL                             # F40: 28B skill card only
            if count_matching(st, t, HAND + seat * N_KINDS, ctype) == 0:
                return False
    return True


@njit_noalloc
def option_has_cost(t, card, option):
    for k in range(MAX_ENTRIES):
        at = entry_at(card, option, k)
        if t[at + E_PART] == PART_COST:
            return True
    return False


@njit_noalloc
def steal_targets(st, t, seat, ctype):
    n = 0
    for q in range(n_players(st)):
        if q != seat:
            n += count_matching(st, t, BOARD_UP + q * N_KINDS, ctype)
            n += count_matching(st, t, BOARD_DOWN + q * N_KINDS, ctype)
    return n


@njit_noalloc
def draw_climbing_card(st):
    """F19, Decision 4: the top climbing card; the deck is reshuffled if it ever runs out."""
    if st[G_CDECK_POS] >= 70:
        shuffle_range(st, CDECK, 70)
        st[G_CDECK_POS] = 0
        st[G_CLIMB_RESHUFFLES] += 1
    c = st[CDECK + st[G_CDECK_POS]]
    st[G_CDECK_POS] += 1
    return c


@njit_noalloc
def resolve_climbing_cards(st, t, ag, seat):
    """F39-F41, F128: draw 1 (Cool-Headed Crimper 2), choose a card and an option, resolve."""
    n_draw = ch(st, t, seat, CH_CARDS_DRAWN)
    card_0 = draw_climbing_card(st)
    card_1 = draw_climbing_card(st) if n_draw == 2 else 0
    st[T_CLIMB_CARDS + seat] += 1
    no_reserve = no_reservation(ag)
    st[G_AUX] = card_0 + 100 * card_1
    own_turn_window(st, t, ag, seat, no_reserve)                 # F119: while resolving
    has_jesus = holds_sb(st, seat, SB_JESUS_PIECE)
    legal = legal_buffer(ag)
    n = 0
    for i in range(n_draw):
        c = card_0 if i == 0 else card_1
        for o in range(t[T_CC_NOPT + c]):
            if option_choosable(st, t, seat, c, o, False):
                legal[n] = 2 * i + o
                n += 1
            if has_jesus and option_has_cost(t, c, o) and option_choosable(st, t, seat, c, o,
                                                                          True):
                legal[n] = 2 * i + o + WITH_JESUS
                n += 1
    if n_draw == 2 and t[C_CRIMPER_FREE] != 0:
        # Decision 32 flag: she may pick an unresolvable card and pass
        for i in range(2):
            resolvable = False
            for j in range(n):
                if legal[j] != A_PASS and (legal[j] % WITH_JESUS) // 2 == i:
                    resolvable = True
            if not resolvable:
                legal[n] = A_PASS
                n += 1
                break
    if n == 0:
        legal[0] = A_PASS
        n = 1
    code = ask(st, t, ag, seat, D_OPTION, n)
    st[G_AUX] = 0
    if code == A_PASS:                                           # F41
        st[T_CARD_PASSES + seat] += 1
        st[S_STATUS + seat * SEAT_FIELDS] = STATUS_PENALISED
        return
    jesus = code >= WITH_JESUS
    code = code % WITH_JESUS
    card = card_0 if code // 2 == 0 else card_1
    option = code % 2
    if jesus:
        use_summit_beta(st, seat, SB_JESUS_PIECE)
        st[T_JESUS_USES + seat] += 1
    resolve_option(st, t, ag, seat, card, option, jesus)


@njit_noalloc
def option_needs_opponent(t, card, option):
    for k in range(MAX_ENTRIES):
        at = entry_at(card, option, k)
        if t[at + E_PART] == 0:
            break
        who = t[at + E_WHO]
        if who == W_SELF_AND_OPP or who == W_OPP or t[at + E_VERB] == V_GIVE:
            return True
    return False


@njit_noalloc
def targets(st, t, seat, who, opp, out):
    """F106d: the players an entry acts on, in its order."""
    P = n_players(st)
    n = 0
    if who == W_SELF:
        out[0] = seat
        n = 1
    elif who == W_ALL:
        for k in range(P):
            out[n] = (seat + k) % P
            n += 1
    elif who == W_OTHERS:
        for k in range(1, P):
            out[n] = (seat + k) % P
            n += 1
    elif who == W_SELF_AND_OPP:
        out[0] = seat
        out[1] = opp
        n = 2
    elif who == W_OPP:
        out[0] = opp
        n = 1
    else:                                                        # players on a sunny pitch
        for k in range(P):
            q = (seat + k) % P
            h = st[S_HEX + q * SEAT_FIELDS]
            if h > 0 and t[T_P_SHADE + st[TILE + h]] != 1:
                out[n] = q
                n += 1
    return n


@njit_noalloc
def resolve_option(st, t, ag, seat, card, option, jesus):
    """F106: the cost list, then the gain list, each in order; Jesus Piece skips the
    active player's negative part (F84)."""
    opp = -1
    if option_needs_opponent(t, card, option):
        opp = choose_opponent(st, t, ag, seat)
    who_list = engine_scratch(ag)[SCR_WHO:SCR_WHO + MAX_PLAYERS]
    no_reserve = no_reservation(ag)
    jesus_left = not jesus and holds_sb(st, seat, SB_JESUS_PIECE)
    for k in range(MAX_ENTRIES):
        at = entry_at(card, option, k)
        part = t[at + E_PART]
        if part == 0:
            break
        verb = t[at + E_VERB]
        amount = t[at + E_AMOUNT]
        if verb == V_WATER or verb == V_PSYCH:                   # F107
            who = entry_who(t, card, at)
            n = targets(st, t, seat, who, opp, who_list)
            for i in range(n):
                q = who_list[i]
                if q == seat and jesus and part == PART_COST:
                    continue
                if verb == V_WATER:
                    add_water(st, t, q, amount)
                else:
                    add_psych(st, t, q, amount)
        elif verb == V_LOSE:                                     # F108
            if not (jesus and part == PART_COST):
                move_cards(st, t, ag, seat, entry_ctype(t, card, at), amount,
                           t[at + E_FROM] == 0, -1, no_reserve)
        elif verb == V_GIVE:                                     # F109
            if not (jesus and part == PART_COST):
                move_cards(st, t, ag, seat, entry_ctype(t, card, at), amount,
                           t[at + E_FROM] == 0, opp, no_reserve)
        elif verb == V_PORTALEDGE:                               # F110
            n = targets(st, t, seat, t[at + E_WHO], opp, who_list)
            for i in range(n):
                for _ in range(amount):
                    gain_portaledge(st, t, ag, who_list[i], t[at + E_TYPES])
        elif verb == V_TECH_TOKEN:                               # F111
            n = targets(st, t, seat, t[at + E_WHO], opp, who_list)
            for i in range(n):
                q = who_list[i]
                tech = t[at + E_TECH]
                if tech == 0:
                    legal = legal_buffer(ag)
                    for x in range(4):
                        legal[x] = x + 1
                    tech = ask(st, t, ag, q, D_TECHNIQUE, 4)
                st[S_TECH + q * SEAT_FIELDS + tech] += 1
        elif verb == V_SUMMIT_BETA:                              # F112
            n = targets(st, t, seat, t[at + E_WHO], opp, who_list)
            for i in range(n):
                for _ in range(amount):
                    give_summit_beta(st, who_list[i], draw_summit_beta(st, t))
        elif verb == V_SB_2_KEEP_1:                              # F112 (19B)
            a = draw_summit_beta(st, t)
            b = draw_summit_beta(st, t) if a > 0 else 0
            if b == 0:
                give_summit_beta(st, seat, a)
            else:
                legal = legal_buffer(ag)
                legal[0] = a
                legal[1] = b
                keep = ask(st, t, ag, seat, D_SB_KEEP, 2)
                give_summit_beta(st, seat, keep)
                other = b if keep == a else a
                give_summit_beta(st, choose_opponent(st, t, ag, seat), other)
        elif verb == V_STEAL:                                    # F113
            steal(st, t, ag, seat, t[at + E_CTYPE], t[at + E_TO])
        elif verb == V_PLACE:                                    # F114
            ctype = t[at + E_CTYPE]
            if ch(st, t, seat, CH_NO_GEAR_COLUMN) and ctype == CT_ANY:
                ctype = CT_ANY_SKILL
            n = card_sources(st, t, ag, seat, ctype, False, no_reserve, False)
            if n > 0:
                kk = take_card(st, seat, ask(st, t, ag, seat, D_CARD, n))
                st[BOARD_UP + seat * N_KINDS + kk] += 1
        elif verb == V_REQ_TOKEN:                                # F48, F115
            place_requirement_token(st, t, ag, seat, t[at + E_TYPES], t[at + E_TO])
        elif verb == V_ROLL:                                     # F45, F116
            card_risk_roll(st, t, ag, seat, jesus_left)
        elif verb == V_DRAW_SPREAD:                              # F117
            draw_cards(st, t, ag, seat, amount, True)


@njit_noalloc
def steal(st, t, ag, seat, ctype, to_board):
    legal = legal_buffer(ag)
    n = 0
    for q in range(n_players(st)):
        if q == seat:
            continue
        for k in range(1, N_KINDS):
            if type_matches(t, k, ctype):
                if st[BOARD_DOWN + q * N_KINDS + k] > 0:
                    legal[n] = 256 * q + 64 * SRC_BOARD_DOWN + k
                    n += 1
                if st[BOARD_UP + q * N_KINDS + k] > 0:
                    legal[n] = 256 * q + 64 * SRC_BOARD_UP + k
                    n += 1
    if n == 0:
        return
    code = ask(st, t, ag, seat, D_STEAL, n)
    victim = code // 256
    k = take_card(st, victim, code % 256)
    if to_board == 1:
        st[BOARD_UP + seat * N_KINDS + k] += 1
    else:
        st[HAND + seat * N_KINDS + k] += 1


@njit_noalloc
def place_requirement_token(st, t, ag, seat, types_mask, target):
    legal = legal_buffer(ag)
    n = 0
    own = st[S_HEX + seat * SEAT_FIELDS]
    lower = t[T_B_LOWER + N_HEX * st[G_SIDE] + own]
    for h in range(1, N_HEX):
        if st[TILE + h] == 0 or not hex_face_up(st, t, h):      # Decision 22
            continue
        if target == 1 and not (lower >> h) & 1:
            continue
        for a in range(4):
            if (types_mask >> a) & 1:
                legal[n] = 4 * h + a
                n += 1
    if n == 0:
        return
    code = ask(st, t, ag, seat, D_REQ_TOKEN, n)
    st[REQ_TOKENS + code] += 1


@njit_noalloc
def card_risk_roll(st, t, ag, seat, jesus_available):
    """F45, F116 on a climbing card: check = 3 Portaledge cards; a penalty is paid in full,
    cancelled by an unused Jesus Piece, or not at all (penalised)."""
    st[T_CARD_ROLLS + seat] += 1
    face = maybe_chalkbag(st, t, ag, seat, roll_risk_die(st, t))
    if face == FACE_CHECK:
        for _ in range(3):
            gain_portaledge(st, t, ag, seat, 0b1111)
        return
    no_reserve = no_reservation(ag)
    if jesus_available and holds_sb(st, seat, SB_JESUS_PIECE):
        legal = legal_buffer(ag)
        legal[0] = A_CONTINUE
        legal[1] = A_PLAY_SB + SB_JESUS_PIECE
        if ask(st, t, ag, seat, D_SB_WINDOW, 2) != A_CONTINUE:
            use_summit_beta(st, seat, SB_JESUS_PIECE)
            st[T_JESUS_USES + seat] += 1
            return
    own_turn_window(st, t, ag, seat, no_reserve)                  # F116(e), F119
    if penalty_payable(st, t, seat, face, no_reserve, 0):
        pay_penalty(st, t, ag, seat, face, no_reserve)
    else:
        st[S_STATUS + seat * SEAT_FIELDS] = STATUS_PENALISED


# === a Climb-phase turn (F28-F29) ===========================================================

@njit_noalloc
def turn_legal(st, t, seat, legal, work):
    """D_TURN codes: rest, climbs, risks, trades, own-turn tokens. `work`:
    CLIMB_OPTIONS_BUFFER int64."""
    n = 0
    legal[n] = A_REST
    n += 1
    climbs, risks = climb_options(st, t, seat, work)
    for h in range(1, N_HEX):
        if (climbs >> h) & 1:
            legal[n] = A_CLIMB + h
            n += 1
    for h in range(1, N_HEX):
        if (risks >> h) & 1:
            legal[n] = A_RISK + h
            n += 1
    for g in range(4):                                           # F28
        if hand_of_type(st, t, seat, g) >= 3:
            for p in range(4):
                # the 3 cards go to the discard pile first, so they can refill pile g (F122)
                if p == g or pile_available(st, t, p):
                    legal[n] = A_TRADE + 4 * g + p
                    n += 1
    return add_own_turn_tokens(st, t, seat, legal, n)


@njit_noalloc
def play_turn(st, t, ag, seat):
    no_reserve = no_reservation(ag)
    base = seat * SEAT_FIELDS
    st[S_STATUS + base] = STATUS_NONE
    while True:
        legal = legal_buffer(ag)
        n = turn_legal(st, t, seat, legal,
                       engine_scratch(ag)[SCR_PAYMENT:SCR_PAYMENT + CLIMB_OPTIONS_BUFFER])
        could_move = False
        for i in range(n):
            if legal[i] > A_REST and legal[i] < A_TRADE:
                could_move = True
                break
        code = ask(st, t, ag, seat, D_TURN, n)
        if st[G_POLICY_ERROR] != 0:
            return
        if code == A_REST:
            st[S_STATUS + base] = STATUS_RESTED
            st[T_RESTS + seat] += 1
            if not could_move:
                st[T_FORCED_RESTS + seat] += 1
            return
        if code >= A_PLAY_SB:
            play_own_turn_token(st, t, ag, seat, code - A_PLAY_SB, no_reserve)
        elif code >= A_TRADE:
            g = (code - A_TRADE) // 4
            p = (code - A_TRADE) % 4
            move_cards(st, t, ag, seat, g, 3, False, -1, no_reserve)
            k = pile_draw(st, t, p)
            if k > 0:
                st[HAND + seat * N_KINDS + k] += 1
            st[T_TRADES + seat] += 1
        elif code >= A_RISK:
            attempt_climb(st, t, ag, seat, code - A_RISK, True)
            return
        else:
            attempt_climb(st, t, ag, seat, code - A_CLIMB, False)
            return


# === Follow phase (F49-F53) =================================================================

@njit_noalloc
def technique_counts(st, t, seat, counts):
    """F49: face-up symbols per technique (index 5 = wild; F67 for Sendy Jammer)."""
    for x in range(6):
        counts[x] = 0
    gear_wild = ch(st, t, seat, CH_GEAR_WILD)
    for k in range(1, N_KINDS):
        n = st[BOARD_UP + seat * N_KINDS + k]
        if n == 0:
            continue
        tech = t[T_KIND_TECH + k]
        if gear_wild and t[T_KIND_TYPE + k] == GEAR:
            tech = WILD
        counts[tech] += n


@njit_noalloc
def best_sets(c, w, tok, nr, out, work):
    """F49 (Decision 13 default): the most sets of 3, then the fewest technique tokens, then
    keeping New Rubber. c[1..4] card symbols, w card wilds, tok[1..4] tokens, nr 0/1.
    Writes out[1..4] tokens used and out[0] New Rubber used; returns the number of sets.
    `work`: SETS_SCRATCH int64."""
    lo = work[0:5]
    hi = work[5:10]
    s = work[10:15]
    for x in range(5):
        lo[x] = 0
        hi[x] = 0
        s[x] = 0
    for x in range(1, 5):
        lo[x] = c[x] // 3
        hi[x] = (c[x] + tok[x] + w + nr) // 3
    best_sets_n = -1
    best_tokens = INF
    best_nr = INF
    s[1] = lo[1]
    while True:
        # evaluate s[1..4]
        need_total = 0
        forced_wild = 0
        for x in range(1, 5):
            need = max(0, 3 * s[x] - c[x])
            need_total += need
            forced_wild += max(0, need - tok[x])
        wilds = w + nr
        if forced_wild <= wilds:
            m_max = (wilds - forced_wild) // 3
            for m in range(m_max + 1):
                spare = wilds - 3 * m
                wild_used = min(need_total, spare)
                tokens = need_total - wild_used
                sets = s[1] + s[2] + s[3] + s[4] + m
                nr_used = max(0, wild_used + 3 * m - w)
                if sets > best_sets_n or (sets == best_sets_n and (
                        tokens < best_tokens or (tokens == best_tokens and nr_used < best_nr))):
                    best_sets_n = sets
                    best_tokens = tokens
                    best_nr = nr_used
                    # tokens per technique: as many as allowed, then wilds replace them
                    spare_w = spare
                    for x in range(1, 5):
                        need = max(0, 3 * s[x] - c[x])
                        forced = max(0, need - tok[x])
                        out[x] = need - forced
                        spare_w -= forced
                    for x in range(1, 5):
                        give = min(out[x], spare_w)
                        out[x] -= give
                        spare_w -= give
                    out[0] = nr_used
        # next combination
        x = 1
        while x <= 4:
            s[x] += 1
            if s[x] <= hi[x]:
                break
            s[x] = lo[x]
            x += 1
        if x > 4:
            break
    return best_sets_n


@njit_noalloc
def greedy_sets(c, w, tok, nr, out, work):
    """F49, BGA's greedy order (Decision 13 flag). `work`: SETS_SCRATCH int64."""
    cc = work[0:6]
    order = work[6:10]
    rem = work[10:15]
    for x in range(6):
        cc[x] = c[x]
    for x in range(5):
        rem[x] = 0
    ww = w
    nrr = nr
    for x in range(5):
        out[x] = 0
    for i in range(4):
        order[i] = i + 1
    for i in range(4):                       # techniques by descending card count
        for j in range(i + 1, 4):
            if cc[order[j]] > cc[order[i]]:
                a = order[i]
                order[i] = order[j]
                order[j] = a
    sets = 0
    for i in range(4):
        x = order[i]
        sets += cc[x] // 3
        rem[x] = cc[x] % 3
    for i in range(4):                       # complete leftovers with wilds
        x = order[i]
        if rem[x] > 0 and 3 - rem[x] <= ww:
            ww -= 3 - rem[x]
            rem[x] = 0
            sets += 1
    for i in range(4):                       # wilds + New Rubber + tokens
        x = order[i]
        if rem[x] > 0:
            need = 3 - rem[x]
            use_w = min(ww, need)
            use_nr = min(nrr, need - use_w)
            use_t = need - use_w - use_nr
            if use_t <= tok[x] - out[x]:
                ww -= use_w
                nrr -= use_nr
                out[0] += use_nr
                out[x] += use_t
                rem[x] = 0
                sets += 1
    sets += ww // 3                          # sets of leftover wilds
    ww %= 3
    for x in range(1, 5):                    # tokens + remaining wilds
        while True:
            avail = tok[x] - out[x]
            if avail <= 0:
                break
            need = 3 - min(avail, 3)
            if need <= ww:
                used = min(avail, 3)
                out[x] += used
                ww -= need
                sets += 1
            else:
                break
    return sets


@njit_noalloc
def follow_phase(st, t, ag):
    """F49-F52 for every seat (turn order from the first player, Decision 23)."""
    P = n_players(st)
    work = engine_scratch(ag)
    counts = work[SCR_FOLLOW:SCR_FOLLOW + 6]
    tok = work[SCR_FOLLOW + 6:SCR_FOLLOW + 11]
    used = work[SCR_FOLLOW + 11:SCR_FOLLOW + 16]
    sets_work = work[SCR_SETS:SCR_SETS + SETS_SCRATCH]
    for x in range(5):
        tok[x] = 0
        used[x] = 0
    for k in range(P):
        seat = (st[G_FIRST] + k) % P
        base = seat * SEAT_FIELDS
        technique_counts(st, t, seat, counts)
        for x in range(1, 5):
            tok[x] = st[S_TECH + base + x]
        nr = holds_sb(st, seat, SB_NEW_RUBBER)
        if t[C_SETS_GREEDY] != 0:
            sets = greedy_sets(counts, counts[5], tok, nr, used, sets_work)
        else:
            sets = best_sets(counts, counts[5], tok, nr, used, sets_work)
        if sets > 0:
            for x in range(1, 5):
                st[S_TECH + base + x] -= used[x]
            if used[0] > 0:
                use_summit_beta(st, seat, SB_NEW_RUBBER)
            add_score(st, seat, S_SC_SETS, sets * t[T_SETUP + SETUP_SET_POINTS])
            st[T_SETS + seat] += sets
        permanent_tokens(st, t, ag, seat)
        check_permanent_objectives(st, t, seat)
    for seat in range(P):                                        # F52
        for k in range(1, N_KINDS):
            st[BOARD_DOWN + seat * N_KINDS + k] += st[BOARD_UP + seat * N_KINDS + k]
            st[BOARD_UP + seat * N_KINDS + k] = 0


@njit_noalloc
def permanent_tokens(st, t, ag, seat):
    """F50: take up to count // threshold tokens per type, within the character's limit;
    each discards `threshold` board cards of the type (face-down first, Decision 21)."""
    base = seat * SEAT_FIELDS
    while True:
        total = 0
        for a in range(4):
            total += st[S_PERM + base + a]
        if total >= ch(st, t, seat, CH_LIMIT):
            return
        legal = legal_buffer(ag)
        n = 0
        for a in range(4):
            thr = ch(st, t, seat, CH_THRESH + a)
            cnt = 0
            for k in range(1, N_KINDS):
                if t[T_KIND_TYPE + k] == a:
                    cnt += st[BOARD_UP + seat * N_KINDS + k] + st[BOARD_DOWN + seat * N_KINDS + k]
            if cnt >= thr:
                legal[n] = a
                n += 1
        if n == 0:
            return
        legal[n] = PERM_STOP
        n += 1
        a = ask(st, t, ag, seat, D_PERMANENT, n)
        if a == PERM_STOP:
            return
        left = ch(st, t, seat, CH_THRESH + a)
        for src in (BOARD_DOWN, BOARD_UP):
            for k in range(1, N_KINDS):
                if t[T_KIND_TYPE + k] == a:
                    while left > 0 and st[src + seat * N_KINDS + k] > 0:
                        st[src + seat * N_KINDS + k] -= 1
                        discard_card(st, k)
                        left -= 1
        st[S_PERM + base + a] += 1
        st[S_PERM_GAINED + base] += 1
        st[T_PERM_TOKENS + seat] += 1


# === Rerack (F54-F57) =======================================================================

@njit_noalloc
def rerack(st, t, ag):
    P = n_players(st)
    no_reserve = no_reservation(ag)
    for k in range(P):
        seat = (st[G_FIRST] + k) % P
        base = seat * SEAT_FIELDS
        own_turn_window(st, t, ag, seat, no_reserve)             # F119: own Rerack step
        status = st[S_STATUS + base]
        if status == STATUS_CLIMBED:                             # F54
            draw_cards(st, t, ag, seat, t[T_SETUP + SETUP_RERACK], False)
        elif status == STATUS_PENALISED:                         # F55
            draw_cards(st, t, ag, seat, t[T_SETUP + SETUP_RERACK_PENALISED], False)
        elif status == STATUS_RESTED:                            # F56
            for _ in range(ch(st, t, seat, CH_REST)):
                legal = legal_buffer(ag)
                n = 0
                for a in range(4):
                    if pile_available(st, t, a):
                        legal[n] = a
                        n += 1
                mx = track_max(st, t, seat)
                if st[S_WATER + base] < mx:
                    legal[n] = REST_WATER
                    n += 1
                if st[S_PSYCH + base] < mx:
                    legal[n] = REST_PSYCH
                    n += 1
                if n == 0:
                    break
                code = ask(st, t, ag, seat, D_REST, n)
                if code == REST_WATER:
                    add_water(st, t, seat, 1)
                elif code == REST_PSYCH:
                    add_psych(st, t, seat, 1)
                else:
                    kk = pile_draw(st, t, code)
                    if kk > 0:
                        st[HAND + seat * N_KINDS + kk] += 1
        own_turn_window(st, t, ag, seat, no_reserve)             # F119: before or after
    st[G_FIRST] = (st[G_FIRST] + 1) % P                          # F57, Decision 14


# === setup (F15-F24) ========================================================================

@njit(cache=True)
def setup(st, t, seed, characters):
    """A new game. `characters`: the character id of each seat (Decision 16: assigned);
    0 for every seat draws players+1 boards with a random side and deals them at random."""
    st[:] = 0
    P = t[C_N_PLAYERS]
    st[G_PLAYERS] = P
    st[G_SIDE] = 0 if P <= 3 else 1                               # F1, F15
    st[G_SEED] = seed
    st[G_RNG] = seed & 0xFFFFFFFF
    st[G_ROUND] = 1
    side = st[G_SIDE]
    # F16: tiles
    for h in range(N_HEX):
        st[TILE + h] = t[T_B_FIXED + N_HEX * side + h]
    pool = np.zeros(16, np.int64)
    for v in range(1, 6):
        g = 6 * side + v
        npool = t[T_B_POOL_N + g]
        for i in range(npool):
            pool[i] = t[T_B_POOL + 16 * g + i]
        for i in range(npool - 1, 0, -1):
            j = rand_below(st, i + 1)
            a = pool[i]
            pool[i] = pool[j]
            pool[j] = a
        for i in range(t[T_B_GROUP_NHEX + g]):
            st[TILE + t[T_B_GROUP_HEX + 16 * g + i]] = pool[i]
    # F17: asset cards, Portaledge
    n = 0
    for k in range(1, N_KINDS):
        for _ in range(t[T_KIND_COUNT + k]):
            st[DECK + n] = k
            n += 1
    st[G_DECK_N] = n
    shuffle_range(st, DECK, n)
    for a in range(4):
        for _ in range(t[T_SETUP + SETUP_PORTALEDGE]):
            i = st[G_DECK_N] - 1
            while i >= 0 and t[T_KIND_TYPE + st[DECK + i]] != a:
                i -= 1
            k = st[DECK + i]
            for j in range(i, st[G_DECK_N] - 1):
                st[DECK + j] = st[DECK + j + 1]
            st[G_DECK_N] -= 1
            st[PILE + a * PILE_CAP + st[PILE_N + a]] = k
            st[PILE_N + a] += 1
    # F18: the Spread (the last card goes to the bottom, the deck is shuffled)
    for s in range(4):
        st[G_DECK_N] -= 1
        st[SPREAD + s] = st[DECK + st[G_DECK_N]]
        st[SPREAD_LAST] = s
    while spread_single_type(st, t) >= 0:
        last = st[SPREAD_LAST]
        k = st[SPREAD + last]
        for j in range(st[G_DECK_N], 0, -1):
            st[DECK + j] = st[DECK + j - 1]
        st[DECK] = k
        st[G_DECK_N] += 1
        shuffle_range(st, DECK, st[G_DECK_N])
        st[G_DECK_N] -= 1
        st[SPREAD + last] = st[DECK + st[G_DECK_N]]
    # F19: climbing deck, Summit Beta supply
    for i in range(70):
        st[CDECK + i] = i + 1
    shuffle_range(st, CDECK, 70)
    for i in range(12):
        st[SB_SUPPLY + i] = i + 1
    st[G_SB_N] = 12
    shuffle_range(st, SB_SUPPLY, 12)
    # F20: shared objectives
    ids = np.arange(1, 17)
    for i in range(3):
        j = i + rand_below(st, 16 - i)
        a = ids[i]
        ids[i] = ids[j]
        ids[j] = a
        st[G_SHARED + i] = ids[i]
    # F22: characters
    chosen = np.zeros(MAX_PLAYERS, np.int64)
    if characters[0] == 0:
        boards = np.arange(1, 7)
        for i in range(P + 1):
            j = i + rand_below(st, 6 - i)
            a = boards[i]
            boards[i] = boards[j]
            boards[j] = a
        offered = np.zeros(6, np.int64)
        for i in range(P + 1):
            offered[i] = 2 * boards[i] - 1 + rand_below(st, 2)
        for seat in range(P - 1, -1, -1):                        # reverse seat order
            j = rand_below(st, seat + 2)
            chosen[seat] = offered[j]
            offered[j] = offered[seat + 1]
    else:
        for seat in range(P):
            chosen[seat] = characters[seat]
    for seat in range(P):
        base = seat * SEAT_FIELDS
        st[S_CHAR + base] = chosen[seat]
        st[S_WATER + base] = ch(st, t, seat, CH_START_WATER)
        st[S_PSYCH + base] = ch(st, t, seat, CH_START_PSYCH)
    for seat in range(P):
        for _ in range(ch(st, t, seat, CH_START_SB)):
            give_summit_beta(st, seat, draw_summit_beta(st, t))
    # F23: personal objectives
    po = np.arange(1, 13)
    for i in range(12 - 1, 0, -1):
        j = rand_below(st, i + 1)
        a = po[i]
        po[i] = po[j]
        po[j] = a
    for seat in range(P):
        st[S_PERSONAL + seat * SEAT_FIELDS] = po[2 * seat]
        st[S_PERSONAL + seat * SEAT_FIELDS + 1] = po[2 * seat + 1]
    # F20: The Elitist is scored up front
    for i in range(3):
        so = st[G_SHARED + i]
        if t[T_SO + SO_FIELDS * so + SO_KIND] == K_ELITIST:
            st[G_ELITIST_START] = 1
            for seat in range(P):
                score_objective(st, seat, so, t[T_SO + SO_FIELDS * so + SO_POINTS])


@njit_noalloc
def deal_starting_hands(st, t, ag):
    """F24, F120: seats in order take 5/5/6/7/8 cards from the Spread or the deck."""
    for seat in range(n_players(st)):
        draw_cards(st, t, ag, seat, t[T_HAND_BY_SEAT + seat], False)


# === rounds, the end check and final scoring (F26, F53, F58-F63, F127) ======================

@njit_noalloc
def anyone_can_move(st, t):
    for seat in range(n_players(st)):
        if legal_destinations(st, t, seat) != 0:
            return True
    return False


@njit_noalloc
def play_round(st, t, ag):
    P = n_players(st)
    for k in range(P):                                           # Climb phase
        seat = (st[G_FIRST] + k) % P
        st[G_CURRENT] = seat
        play_turn(st, t, ag, seat)
        if st[G_POLICY_ERROR] != 0:
            return
    if st[G_HEADWALL_UP] == 0:                                   # F14
        for seat in range(P):
            base = seat * SEAT_FIELDS
            for i in range(st[S_ROUTE_N + base]):
                if hex_row(st, t, st[S_ROUTE + base + i]) >= 3:
                    st[G_HEADWALL_UP] = 1
    follow_phase(st, t, ag)
    for seat in range(P):                                        # F53
        if st[S_ROUTE_N + seat * SEAT_FIELDS] >= t[T_SETUP + SETUP_PITCHES_TO_END]:
            end_game(st, t, END_EIGHT_PITCHES)
            return
    if t[C_STRANDED_PLAY_ON] == 0 and not anyone_can_move(st, t):   # F127
        st[G_STRANDED_END] = 1
        end_game(st, t, END_STRANDED)
        return
    if st[G_ROUND] >= t[C_ROUND_CAP]:                            # Decision 19
        end_game(st, t, END_ROUND_CAP)
        return
    rerack(st, t, ag)
    st[G_ROUND] += 1


@njit_noalloc
def personal_objective_points(st, t, seat, po):
    """F60, F105, F129: 3 distinct listed pitches (card 3: distinct route words)."""
    tiles = route_tiles(st, seat)
    if t[T_PO_GROUPED + po] != 0 and t[C_CALL_IT_PITCHES] == 0:
        hit = 0
        for g in range(t[T_PO_NGROUPS + po]):
            if tiles & t[T_PO_GROUPS + MAX_GROUP * po + g]:
                hit += 1
    else:
        hit = popcount(tiles & t[T_PO_MASK + po])
    return t[T_PO_POINTS + po] if hit >= 3 else 0


@njit_noalloc
def end_game(st, t, reason):
    """F58-F63: personal objectives, then the winner (ties: most permanent tokens gained;
    a remaining tie is shared: G_WINNER is the bitmask of winning seats)."""
    P = n_players(st)
    for seat in range(P):
        base = seat * SEAT_FIELDS
        best = 0
        best_po = 0
        for i in range(2):
            po = st[S_PERSONAL + base + i]
            pts = personal_objective_points(st, t, seat, po)
            if pts > best:
                best = pts
                best_po = po
        if best > 0:
            add_score(st, seat, S_SC_PERSONAL, best)
            st[S_PERSONAL_SCORED + base] = best_po
        if legal_destinations(st, t, seat) == 0:
            st[T_STRANDED + seat] = 1
    top = -INF
    for seat in range(P):
        base = seat * SEAT_FIELDS
        key = st[S_SCORE + base] * 100 + st[S_PERM_GAINED + base]
        if key > top:
            top = key
    winners = 0
    count = 0
    for seat in range(P):
        base = seat * SEAT_FIELDS
        if st[S_SCORE + base] * 100 + st[S_PERM_GAINED + base] == top:
            winners |= 1 << seat
            count += 1
    st[G_WINNER] = winners
    st[G_N_WINNERS] = count
    st[G_END_REASON] = reason
    st[G_OVER] = 1


@njit_noalloc
def play_game(st, t, ag):
    """Deal the starting hands and play a set-up game to its end."""
    deal_starting_hands(st, t, ag)
    while st[G_OVER] == 0:
        play_round(st, t, ag)
        if st[G_POLICY_ERROR] != 0:
            end_game(st, t, END_POLICY_ERROR)
            break
