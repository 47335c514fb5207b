"""A round's phases after the board is set: a Climb-phase turn (F28-F29), the Follow phase
(F49-F53) and the Rerack (F54-F57).
"""
from sim.core.jit import njit_noalloc
from sim.games.first_ascent.data import (
    CH_GEAR_WILD, CH_LIMIT, CH_REST, CH_THRESH, N_HEX, N_KINDS, SETUP_RERACK,
    SETUP_RERACK_PENALISED, SETUP_SET_POINTS, T_KIND_TECH, T_KIND_TYPE, T_SETUP)
from sim.games.first_ascent.engine.climbing import attempt_climb
from sim.games.first_ascent.engine.common import (
    GEAR, INF, WILD, add_psych, add_score, add_water, ask, ch, engine_scratch, hand_of_type,
    holds_sb, legal_buffer, n_players, no_reservation, track_max)
from sim.games.first_ascent.engine.objectives import check_permanent_objectives
from sim.games.first_ascent.engine.payment import climb_options
from sim.games.first_ascent.engine.risk import (
    add_own_turn_tokens, own_turn_window, play_own_turn_token)
from sim.games.first_ascent.engine.supply import (
    discard_card, draw_cards, move_cards, pile_available, pile_draw, use_summit_beta)
from sim.games.first_ascent.memory import (
    BS_HIGH, BS_LOW, BS_SUMS, CLIMB_OPTIONS_BUFFER, GS_COUNTS, GS_ORDER, GS_REMAINING,
    SCR_FOLLOW_COUNTS, SCR_FOLLOW_TOKENS, SCR_FOLLOW_USED, SCR_PAYMENT, SCR_SETS, SETS_SCRATCH)
from sim.games.first_ascent.rules import C_SETS_GREEDY
from sim.games.first_ascent.state import (
    A_CLIMB, A_PLAY_SB, A_REST, A_RISK, A_TRADE, BOARD_DOWN, BOARD_UP, D_PERMANENT, D_REST, D_TURN,
    G_FIRST, G_POLICY_ERROR, HAND, PERM_STOP, REST_PSYCH, REST_WATER, SB_NEW_RUBBER, SEAT_FIELDS,
    STATUS_CLIMBED, STATUS_NONE, STATUS_PENALISED, STATUS_RESTED, S_PERM, S_PERM_GAINED, S_PSYCH,
    S_SC_SETS, S_STATUS, S_TECH, S_WATER, T_FORCED_RESTS, T_PERM_TOKENS, T_RESTS, T_SETS, T_TRADES)


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


@njit_noalloc(inline="always")
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
        else:
            # one call with the flag as a value: a literal True and False would each compile
            # the whole climb (njit_noalloc specializes literal booleans)
            risk = code >= A_RISK
            attempt_climb(st, t, ag, seat, code - (A_RISK if risk else A_CLIMB), risk)
            return


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
    lo = work[BS_LOW:BS_LOW + 5]
    hi = work[BS_HIGH:BS_HIGH + 5]
    s = work[BS_SUMS:BS_SUMS + 5]
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
    cc = work[GS_COUNTS:GS_COUNTS + 6]
    order = work[GS_ORDER:GS_ORDER + 4]
    rem = work[GS_REMAINING:GS_REMAINING + 5]
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
    counts = work[SCR_FOLLOW_COUNTS:SCR_FOLLOW_COUNTS + 6]
    tok = work[SCR_FOLLOW_TOKENS:SCR_FOLLOW_TOKENS + 5]
    used = work[SCR_FOLLOW_USED:SCR_FOLLOW_USED + 5]
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
        nr = holds_sb(st, seat, SB_NEW_RUBBER)         # F82: one wild symbol
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
