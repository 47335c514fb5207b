"""Where cards and tokens come from and go: the asset deck, discard, Spread and Portaledge
(F17-F18, F46-F47, F120-F122), the Summit Beta supply (F19, F112) and the card choices of
losing, giving, placing and stealing (F42-F43, F108-F109, F113-F114).
"""
from sim.core.jit import njit_noalloc
from sim.games.first_ascent.data import N_KINDS, SETUP_PORTALEDGE, T_KIND_TYPE, T_SETUP
from sim.games.first_ascent.engine.common import (
    GEAR, ask, draw_below, legal_buffer, n_players, shuffle_in, type_matches)
from sim.games.first_ascent.rules import C_DECK_NEVER, C_SB_LOST, C_SPREAD_EACH
from sim.games.first_ascent.state import (
    BOARD_DOWN, BOARD_UP, DECK, DISCARD, DRAW_DECK, D_CARD, D_DRAW, D_OPPONENT, D_PILE, G_DECK_DRY,
    G_DECK_N, G_DECK_RESHUFFLES, G_DISCARD_N, G_RNG_DRAW, G_SB_N, G_SB_RESHUFFLES, G_SPREAD_STUCK, HAND, PILE,
    PILE_CAP, PILE_N, SB_DISCARD, SB_SUPPLY, SEAT_FIELDS, SPREAD, SPREAD_LAST, SRC_BOARD_DOWN,
    SRC_BOARD_UP, SRC_HAND, S_SB, T_CARDS_GIVEN, T_CARDS_RECEIVED, T_SB_GAINED, T_SB_USED)


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
    shuffle_in(st, G_RNG_DRAW, DECK, n)
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
    """F47, as F121 fixes it: deal up to 4, then replace the card dealt last while all 4 share
    a type."""
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
        r = draw_below(st, G_RNG_DRAW, total)
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


@njit_noalloc(one_copy=True)
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
        shuffle_in(st, G_RNG_DRAW, SB_SUPPLY, n)
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


@njit_noalloc(one_copy=True)
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


@njit_noalloc(one_copy=True)
def held_cards(st, t, seat, ctype, from_board):
    n = 0
    for k in range(1, N_KINDS):
        if type_matches(t, k, ctype):
            n += st[HAND + seat * N_KINDS + k]
            if from_board:
                n += st[BOARD_DOWN + seat * N_KINDS + k] + st[BOARD_UP + seat * N_KINDS + k]
    return n


@njit_noalloc(one_copy=True)
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
