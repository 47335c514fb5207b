"""Climbing cards: drawing them after a climb, their options and effects (F39-F45, F84,
F106-F118, F128).
"""
from sim.core.jit import njit_noalloc
from sim.games.first_ascent.data import (
    CH_CARDS_DRAWN, CH_NO_GEAR_COLUMN, ENTRY_FIELDS, E_AMOUNT, E_CTYPE, E_FROM, E_PART, E_TECH,
    E_TO, E_TYPES, E_VERB, E_WHO, MAX_ENTRIES, N_HEX, N_KINDS, PART_COST, T_B_LOWER, T_CC_EFF,
    T_CC_FS_BAN, T_CC_NOPT, T_P_SHADE)
from sim.games.first_ascent.engine.board import hex_face_up
from sim.games.first_ascent.engine.common import (
    CRACK, CT_ANY, CT_ANY_SKILL, V_DRAW_SPREAD, V_GIVE, V_LOSE, V_PLACE, V_PORTALEDGE, V_PSYCH,
    V_REQ_TOKEN, V_ROLL, V_SB_2_KEEP_1, V_STEAL, V_SUMMIT_BETA, V_TECH_TOKEN, V_WATER, W_ALL,
    W_OPP, W_OTHERS, W_SELF, W_SELF_AND_OPP, add_psych, add_water, ask, ch, count_matching,
    engine_scratch, holds_sb, legal_buffer, n_players, no_reservation, shuffle_in, type_matches)
from sim.games.first_ascent.engine.risk import (
    maybe_chalkbag, own_turn_window, pay_penalty, penalty_payable, roll_risk_die)
from sim.games.first_ascent.engine.supply import (
    card_sources, choose_opponent, draw_cards, draw_summit_beta, gain_portaledge, give_summit_beta,
    held_cards, move_cards, take_card, use_summit_beta)
from sim.games.first_ascent.memory import SCR_WHO
from sim.games.first_ascent.rules import C_CARD_48B_CRACK, C_CARD_67A_SELF, C_CRIMPER_FREE
from sim.games.first_ascent.state import (
    A_CONTINUE, A_PASS, A_PLAY_SB, BOARD_DOWN, BOARD_UP, CDECK, D_CARD, D_OPTION, D_REQ_TOKEN,
    D_SB_KEEP, D_SB_WINDOW, D_STEAL, D_TECHNIQUE, FACE_CHECK, G_AUX, G_CDECK_POS,
    G_CLIMB_RESHUFFLES, G_RNG_DRAW, G_SIDE, HAND, MAX_PLAYERS, REQ_TOKENS, SB_JESUS_PIECE, SEAT_FIELDS,
    SRC_BOARD_DOWN, SRC_BOARD_UP, STATUS_PENALISED, S_HEX, S_PSYCH, S_STATUS, S_TECH, S_WATER,
    TILE, T_CARD_PASSES, T_CARD_ROLLS, T_CLIMB_CARDS, T_JESUS_USES, WITH_JESUS)


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


@njit_noalloc(one_copy=True)
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
        shuffle_in(st, G_RNG_DRAW, CDECK, 70)
        st[G_CDECK_POS] = 0
        st[G_CLIMB_RESHUFFLES] += 1
    c = st[CDECK + st[G_CDECK_POS]]
    st[G_CDECK_POS] += 1
    return c


@njit_noalloc(inline="always")
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


# called, not inlined (numba's inline="always"): inlined into attempt_climb it cost 2-3 s of CPU
# in every cold start (about 1 s of wall), for 1.7% of random play's speed (results/
# BENCHMARKS.md, "From an empty cache to the first game", twenty-sixth sitting)
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
