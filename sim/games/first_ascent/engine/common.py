"""Small readers of the state and the packed rules, the game's own random stream, and
`ask`, which puts a choice to the deciding seat's policy.
"""
import numpy as np

from sim.core.jit import njit_noalloc
from sim.core.rng import mulberry32_step, scale_draw
from sim.games.first_ascent.data import (
    CH_CARDS_DRAWN, CH_FIELDS, CH_GEAR_CAP, CH_MAX, CH_THRESH, CH_WATER_MINUS, N_BOARD_MASKS,
    N_HEX, N_KINDS, T_B_MASK, T_B_ROW, T_CH, T_KIND_TYPE)
from sim.games.first_ascent.memory import MAX_SEGMENT_DECISIONS, SEGMENT_CODES, SEGMENT_FIRST
from sim.games.first_ascent.policy_api import PolicyContext
from sim.games.first_ascent.rules import C_ABILITY_OFF
from sim.games.first_ascent.state import (
    G_AUX, G_DECISIONS, G_PLAYERS, G_POLICY_ERROR, G_RNG, G_ROUND, G_SIDE, HAND, SEAT_FIELDS,
    S_CHAR, S_PSYCH, S_SB, S_SCORE, S_WATER)

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
    PL_IGNORED, PL_PERMANENT = 0, 1, 2, 6, 7, 8, 9, 10, 11, 12, 13
INF = 1 << 30


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


# Three random streams per game, each a mulberry32 state in the record: G_RNG deals the setup
# (F13-F23), G_RNG_RISK rolls the Risk Die, G_RNG_DRAW reshuffles and picks during play. The
# spec fixes no draw order, so each kind of chance draws from its own stream: a rule or knob
# that changes how often one of them is used (more risks, a deck that runs out sooner) leaves
# the others' values where they were, and two variants' games stay alike for longer (a paired
# comparison measures the rules, not reshuffled dice).
@njit_noalloc
def draw_below(st, stream, n):
    """A uniform integer 0..n-1 from the stream whose state is st[stream]."""
    s, k = mulberry32_step(st[stream])
    st[stream] = s
    return scale_draw(k, n)


@njit_noalloc
def shuffle_in(st, stream, lo, n):
    """Fisher-Yates on st[lo:lo+n], drawing from the stream st[stream]."""
    for i in range(n - 1, 0, -1):
        j = draw_below(st, stream, i + 1)
        a = st[lo + i]
        st[lo + i] = st[lo + j]
        st[lo + j] = a


@njit_noalloc
def rand_below(st, n):
    """A draw of the setup's stream (G_RNG)."""
    return draw_below(st, G_RNG, n)


@njit_noalloc
def shuffle_range(st, lo, n):
    """A shuffle with the setup's stream (G_RNG)."""
    shuffle_in(st, G_RNG, lo, n)


@njit_noalloc
def ask(st, t, ag, seat, decision, n):
    """Put the first n codes of ag's legal buffer to `seat`'s policy; return the chosen code.
    A single legal code is taken without asking. An answer that is not legal ends the game
    (END_POLICY_ERROR) and the first legal code is used so the engine can unwind. The code
    also goes into the segment's list in the work memory (memory.py, SEGMENT_*), which a
    search bot replays."""
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
    k = d - work[SEGMENT_FIRST]
    if 0 <= k < MAX_SEGMENT_DECISIONS:
        work[SEGMENT_CODES + k] = code
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
