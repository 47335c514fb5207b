"""The rules of All-In Ascent v0.4.0 as numba functions over one game's state vector.

Every rule of RULES.md lives here once, under its number; the batch kernel and the single-game
API both call these functions. `st` is one game's int64 vector (layout in state.py), `t` the
packed Tables of a rules configuration (rules.py), `trace` a TRACE_SIZE vector that receives
what an action did (for transcripts) and doubles as the climb's working record.

All randomness is the game's mulberry32 stream in st[G_RNG], drawn in the order of R8.
"""

import numpy as np

from sim.core.bits import trailing_zeros
from sim.core.jit import njit_noalloc
from sim.core.rng import mulberry32_step, scale_draw
from sim.games.all_in_ascent.rules import (  # the flat tables
    at, F_ACCESS_CARDS, F_AREA_ACCESS_MASK, F_AREA_COUNT, F_AREA_FIRST, F_BUCKET_COUNT,
    F_BUCKET_ROUTES, F_CARD_COST, F_CARD_IS_ACCESS, F_CARD_MAX_ENDURANCE, F_CARD_PREREQ_LEVEL,
    F_CARD_PREREQ_MASK, F_CARD_REPEATED_ONLY, F_CARD_REST_BONUS, F_CARD_TAG,
    F_CARD_TIME_PER_ROUND, F_CARD_VALUE, F_KIND_MASK, F_LEVEL_MAX_ENDURANCE, F_LEVEL_STATS,
    F_NON_ACCESS_CARDS, F_ROUTE_AREA, F_ROUTE_BONUS_CARDS, F_ROUTE_EFFECT_MOD,
    F_ROUTE_EFFECT_STAT, F_ROUTE_ENDURANCE, F_ROUTE_GEAR_BONUS, F_ROUTE_N_EFFECTS,
    F_ROUTE_REQ, F_ROUTE_SLOT_BIT, F_ROUTE_TAG, F_ROUTE_TIME, F_ROUTE_XP_FAIL,
    F_ROUTE_XP_SUCCESS, F_STATION_BONUS, F_STATION_ENDURANCE, F_STATION_STAT, F_STATION_TIME,
    F_XP_CUMULATIVE, PARAM_N_NON_ACCESS, PARAM_N_ROUTES)
from sim.games.all_in_ascent.rules import (
    KIND_DIE_AS_ONE, KIND_ENDURANCE_HALVED, KIND_EXTRA_DIE, KIND_FAIL_BONUS_XP,
    KIND_IGNORE_FAIL_PENALTY, KIND_MILESTONE_DICE, KIND_NEGATE_NERF, KIND_REROLL_ON_TAG,
    KIND_SUCCESS_HEAL, KIND_TIME_REDUCTION, KIND_TRAINING_BOOST, PARAM_BELAYERS_2_ROUND,
    PARAM_BELAYERS_3_ROUND, PARAM_BELAYERS_START, PARAM_BETA_BOOST, PARAM_CAPACITY_OPEN,
    PARAM_IRON_FAIL_PENALTY, PARAM_MAX_ROUNDS, PARAM_N_ACCESS, PARAM_PURCHASE_TIME,
    PARAM_REST_TIME, PARAM_ROUTE_READER_NEEDS, PARAM_SPRINT_TIME_MINUS, PARAM_SPRINT_XP_PCT,
    PARAM_START_TIME, PARAM_TECH_REQ_MINUS, PARAM_TECH_TIME_PLUS, PARAM_TRAIN_CAPACITY,
    PARAM_VISIBLE_PER_AREA, PARAM_SPRINT_FAIL_SCALED, PARAM_SPRINT_EXTRA_NERF,
    PARAM_SPRINT_OWN_DIE,
    PARAM_IRON_FAIL_XP_PCT, PARAM_FREE_SOLO_BYPASS, PARAM_TR_STATIONS, PARAM_LEAD_CAPACITY,
    PARAM_SHARED_BELAYERS, PARAM_SUCCESS_CLAMP, PARAM_POWER_TAP_BEST, PARAM_CARABINER_KEPT,
    PARAM_TRAINING_PER_ROUND, PARAM_SPENDABLE_KEPT, PARAM_REDISTRIBUTION, PARAM_REDIST_POINTS,
    PARAM_CHOICE_BEST)
from sim.games.all_in_ascent.state import (
    AREA_LOC, BUY_ACCESS, BUY_ROTATION, CLIMB, END_MAX_ROUNDS, END_TURN, END_WINNER, FREE_SOLO,
    G_BELAYERS, G_CURRENT, G_END_REASON, G_MILESTONES, G_N_ACTIONS, G_N_PLAYERS, G_N_ROTATION,
    G_N_VISIBLE, G_OVER, G_RNG, G_ROTATION, G_ROUND, G_SEED, G_TOKEN, G_VISIBLE, G_WINNER,
    G_STATION_CLAIM, P_BELAY_STATION, P_REDIST, P_REDIST_USED, REDISTRIBUTE, MAX_REDISTRIBUTION,
    GEAR_SHOP_LOC, IRON_LUNG, LEAD, LOBBY, MAX_DICE, MAX_GEAR, MAX_LEVEL, MAX_PLAYERS, MAX_VISIBLE,
    MILESTONE, N_ACTIONS, N_AREAS, N_CHARACTERS, N_STATIONS, N_STATS, N_TIERS, P_BETA,
    P_CHARACTER,
    P_CLIMBS, P_CLIMBS_OK, P_DONE, P_EARLY_ENDS, P_ENDURANCE, P_GEAR, P_GEAR_ROUND, P_LEVEL,
    P_LOCATION, P_MARKS, P_MAX_ENDURANCE, P_MS_ROUND, P_MS_TRIES, P_RESTS, P_STATS, P_TIME,
    P_TRAINING, P_TRAININGS, P_XP, P_XP_SPENT, PLAYER_BASE, PLAYER_SIZE, REPLACEMENT_NONE,
    REPLACEMENT_SLOT_REMOVED, REST, REST_LOC, ROTATION_SIZE, ROUTE_READER, SCRATCH, SPRINTER,
    STAGE_FINAL, STAGE_POWER_TAP, STAGE_REROLL, STAGE_ROLLED, STAGE_SEQMEM, STATION_LOC,
    T_ACTION, T_ACTOR, T_BETA_USED, T_CARD, T_CLEARED_AREA, T_DICE, T_EFF_ENDURANCE,
    T_EFF_STATS, T_EFF_TIME, T_EFFECT_DIE, T_EFFECT_MOD, T_EFFECT_STAT, T_HEAL,
    T_LEVELS_GAINED, T_MENTOR_INDEX, T_N_DICE, T_N_EFFECTS, T_PASSED, T_PENALTY, T_REPLACEMENT,
    T_REQ, T_REROLL_INDEX, T_ROUND_ENDED, T_ROUTE, T_SEQMEM_INDEX, T_SUCCESS, T_XP_GAINED,
    T_ENDURANCE_AFTER, T_LOCATION_AFTER, T_TIME_AFTER, T_WORK, TRACE_SIZE,
    TECHNICIAN, TOP_ROPE, TRAIN, new_state)

DICE_BUF = SCRATCH          # the dice of the attempt being resolved
SHUFFLE_BUF = SCRATCH + 8   # pickN's copy of the list

# Reasons an action is illegal (0 = legal). Messages live in game.py.
OK = 0
ILLEGAL_GAME_OVER = 1
ILLEGAL_UNKNOWN_ACTION = 2
ILLEGAL_NO_TIME = 3
ILLEGAL_NO_ENDURANCE = 4
ILLEGAL_OCCUPIED = 5
ILLEGAL_NO_ACCESS = 6
ILLEGAL_NO_ROUTE = 7
ILLEGAL_ALREADY_TRIED = 8
ILLEGAL_FREE_SOLO = 9
ILLEGAL_MILESTONE_DONE = 10
ILLEGAL_NO_CARD = 11
ILLEGAL_OWNED = 12
ILLEGAL_NO_XP = 13
ILLEGAL_LEVEL = 14
ILLEGAL_PREREQUISITE = 15
ILLEGAL_NO_REDISTRIBUTION = 16      # the switch route_reader_redistribution is off
ILLEGAL_NOT_ROUTE_READER = 17
ILLEGAL_REDISTRIBUTED = 18          # already this round
ILLEGAL_REDISTRIBUTION_POINTS = 19  # more than the passive allows, or than the stat has

# The Sprinter's extra effect (R50): one focus nerf.
SPRINTER_EXTRA_STAT = 2
SPRINTER_EXTRA_MOD = 1


# --- RNG (R5-R8) -----------------------------------------------------------------------------

@njit_noalloc(inline="always")
def draw(st):
    """One mulberry32 draw from the game's own stream (R5, R6)."""
    s, k = mulberry32_step(st[G_RNG])
    st[G_RNG] = s
    return k


@njit_noalloc(inline="always")
def roll_die(st):
    """R7 rollDie: floor(next() * 6) + 1."""
    return scale_draw(draw(st), 6) + 1


@njit_noalloc(inline="always")
def pick_index(st, n):
    """R7 pick: the index floor(next() * n)."""
    return scale_draw(draw(st), n)


@njit_noalloc
def shuffle_buffer(st, length):
    """R7 shuffle of the `length` items at SHUFFLE_BUF, in place: len-1 draws. pickN(list, n) is
    the first n items afterwards."""
    for i in range(length - 1, 0, -1):
        j = scale_draw(draw(st), i + 1)
        a = st[SHUFFLE_BUF + i]
        st[SHUFFLE_BUF + i] = st[SHUFFLE_BUF + j]
        st[SHUFFLE_BUF + j] = a


# --- Small accessors ---------------------------------------------------------------------------

@njit_noalloc(inline="always")
def pbase(seat):
    return PLAYER_BASE + seat * PLAYER_SIZE


@njit_noalloc(inline="always")
def owned_card_of_kind(t, gear, kind, tag):
    """The first owned card of an effect kind (whose tag filter equals `tag` when tag >= 0),
    or -1."""
    mask = gear & at(t, F_KIND_MASK, kind)
    while mask != 0:
        g = trailing_zeros(mask)
        if tag < 0 or at(t, F_CARD_TAG, g) == tag:
            return g
        mask &= mask - 1
    return -1


@njit_noalloc(inline="always")
def visible_route(st, area, slot):
    if slot >= st[G_N_VISIBLE + area]:
        return -1
    return st[G_VISIBLE + area * MAX_VISIBLE + slot]


# --- Setup (R10-R17) ---------------------------------------------------------------------------

@njit_noalloc
def visible_count(st, t, area):
    """R15; L7: with belay stations, Top Rope shows 2 routes per station."""
    if t[PARAM_TR_STATIONS] != 0 and area == TOP_ROPE:
        return 2 * st[G_BELAYERS]
    return t[PARAM_VISIBLE_PER_AREA]


@njit_noalloc
def refresh_area(st, t, area):
    """R15/R69: the area's visible row becomes pickN(full area deck, 5): a shuffle of the
    area's distinct routes, so a row never holds one twice (R81)."""
    first = at(t, F_AREA_FIRST, area)
    count = at(t, F_AREA_COUNT, area)
    for i in range(count):
        st[SHUFFLE_BUF + i] = first + i
    shuffle_buffer(st, count)
    n = min(visible_count(st, t, area), count)
    st[G_N_VISIBLE + area] = n
    for j in range(MAX_VISIBLE):
        st[G_VISIBLE + area * MAX_VISIBLE + j] = st[SHUFFLE_BUF + j] if j < n else -1


@njit_noalloc
def pick_milestones(st, t):
    """R14: beginner, then intermediate outside its area, then expert outside both areas.
    R80: a milestone is kept apart from the visible rows (G_MILESTONES), so the same route may
    be both a milestone and visible in its area."""
    used_areas = 0
    for tier in range(N_TIERS):
        n = 0
        for i in range(at(t, F_BUCKET_COUNT, tier)):
            if (used_areas >> at(t, F_ROUTE_AREA, at(t, F_BUCKET_ROUTES, tier * t[PARAM_N_ROUTES] + i))) & 1 == 0:
                n += 1
        k = pick_index(st, n)
        for i in range(at(t, F_BUCKET_COUNT, tier)):
            rid = at(t, F_BUCKET_ROUTES, tier * t[PARAM_N_ROUTES] + i)
            if (used_areas >> at(t, F_ROUTE_AREA, rid)) & 1 == 0:
                if k == 0:
                    st[G_MILESTONES + tier] = rid
                    used_areas |= 1 << at(t, F_ROUTE_AREA, rid)
                    break
                k -= 1


@njit_noalloc
def setup(st, t, seed, characters, n_players):
    """createGame (R10-R17). `characters[i]` is seat i's character id; seed is already uint32."""
    st[:] = 0
    st[G_RNG] = seed
    st[G_SEED] = seed
    st[G_N_PLAYERS] = n_players
    st[G_ROUND] = 1                                        # R17
    st[G_CURRENT] = 0
    st[G_TOKEN] = 0
    st[G_BELAYERS] = t[PARAM_BELAYERS_START]
    if t[PARAM_TR_STATIONS] != 0:                          # L6: players - 1, for good
        st[G_BELAYERS] = n_players - 1
    st[G_WINNER] = -1
    for k in range(N_STATIONS):
        st[G_STATION_CLAIM + k] = -1
    for seat in range(MAX_PLAYERS):                        # R11
        b = pbase(seat)
        if seat >= n_players:
            st[b + P_CHARACTER] = -1
            continue
        c = characters[seat]
        st[b + P_CHARACTER] = c
        st[b + P_LEVEL] = 1
        st[b + P_ENDURANCE] = at(t, F_LEVEL_MAX_ENDURANCE, c * (MAX_LEVEL + 1) + 1)
        st[b + P_MAX_ENDURANCE] = at(t, F_LEVEL_MAX_ENDURANCE, c * (MAX_LEVEL + 1) + 1)
        for s in range(N_STATS):
            st[b + P_STATS + s] = at(t, F_LEVEL_STATS, (c * (MAX_LEVEL + 1) + 1) * N_STATS + s)
        st[b + P_TIME] = t[PARAM_START_TIME]
        st[b + P_LOCATION] = LOBBY
        st[b + P_BELAY_STATION] = -1
    pick_milestones(st, t)                                 # R12 (1), R13-R14
    for area in range(N_AREAS):                            # R12 (2), R15
        refresh_area(st, t, area)
    n_pool = t[PARAM_N_NON_ACCESS]                   # R12 (3), R16
    for i in range(n_pool):
        st[SHUFFLE_BUF + i] = at(t, F_NON_ACCESS_CARDS, i)
    shuffle_buffer(st, n_pool)
    n_rot = min(ROTATION_SIZE, n_pool)
    st[G_N_ROTATION] = n_rot
    for k in range(ROTATION_SIZE):
        st[G_ROTATION + k] = st[SHUFFLE_BUF + k] if k < n_rot else -1


# --- Access, capacity, costs (R26-R36, R47-R48) -----------------------------------------------

@njit_noalloc(inline="always")
def access_bypassed(st, t, seat):
    """R26: the Free Solo needs no access gear (knob characters.freeSolo.passive.access_bypass).
    Bots ask this too, so that the knob changes their play as it changes the game."""
    return st[pbase(seat) + P_CHARACTER] == FREE_SOLO and t[PARAM_FREE_SOLO_BYPASS] != 0


@njit_noalloc(inline="always")
def has_area_access(st, t, seat, area):
    """R26: the area's access cards are owned, or the player needs none."""
    if access_bypassed(st, t, seat):
        return True
    need = at(t, F_AREA_ACCESS_MASK, area)
    b = pbase(seat)
    return (st[b + P_GEAR] & need) == need


@njit_noalloc(inline="always")
def capacity(st, t, location):
    """R32-R33."""
    if location == AREA_LOC + LEAD and t[PARAM_LEAD_CAPACITY] > 0:       # L11
        return t[PARAM_LEAD_CAPACITY]
    if location == AREA_LOC + TOP_ROPE or location == AREA_LOC + LEAD:
        return st[G_BELAYERS]
    if location >= STATION_LOC:
        return t[PARAM_TRAIN_CAPACITY]
    return t[PARAM_CAPACITY_OPEN]


@njit_noalloc(inline="always")
def can_enter(st, t, seat, location):
    """R34, R36: already there, or fewer players located there than its capacity."""
    if st[pbase(seat) + P_LOCATION] == location:
        return True
    rope = location == AREA_LOC + TOP_ROPE or location == AREA_LOC + LEAD
    shared = rope and t[PARAM_SHARED_BELAYERS] != 0    # switch shared_belayer_pool
    n = 0
    for other in range(st[G_N_PLAYERS]):
        where = st[pbase(other) + P_LOCATION]
        if where == location or (shared and other != seat and
                                 (where == AREA_LOC + TOP_ROPE or where == AREA_LOC + LEAD)):
            n += 1
    return n < capacity(st, t, location)


@njit_noalloc(inline="always")
def effective_time(st, t, seat, rid):
    """R47: time cost of a climb for this player."""
    b = pbase(seat)
    c = st[b + P_CHARACTER]
    cost = at(t, F_ROUTE_TIME, rid)
    if c == SPRINTER:
        cost = max(1, cost - t[PARAM_SPRINT_TIME_MINUS])
    elif c == TECHNICIAN:
        cost = cost + t[PARAM_TECH_TIME_PLUS]
    tag = at(t, F_ROUTE_TAG, rid)
    if tag != 0:
        mask = st[b + P_GEAR] & at(t, F_KIND_MASK, KIND_TIME_REDUCTION)
        while mask != 0:
            g = trailing_zeros(mask)
            if at(t, F_CARD_TAG, g) == tag:
                cost = max(1, cost - at(t, F_CARD_VALUE, g))
            mask &= mask - 1
    return cost


@njit_noalloc(inline="always")
def effective_endurance(st, t, seat, rid):
    """R48: endurance cost of a climb for this player."""
    cost = at(t, F_ROUTE_ENDURANCE, rid)
    tag = at(t, F_ROUTE_TAG, rid)
    if tag != 0:
        mask = st[pbase(seat) + P_GEAR] & at(t, F_KIND_MASK, KIND_ENDURANCE_HALVED)
        while mask != 0:
            g = trailing_zeros(mask)
            if at(t, F_CARD_TAG, g) == tag:
                cost = (cost + 1) // 2
            mask &= mask - 1
    return cost


@njit_noalloc(inline="always")
def sure_routes_only(character):
    """R28: whether the character may only attempt routes its base + training stats meet."""
    return character == FREE_SOLO


@njit_noalloc(inline="always")
def free_solo_guarantee(st, t, seat, rid):
    """R28: a Free Solo may only attempt routes its base + training stats already meet."""
    if not sure_routes_only(st[pbase(seat) + P_CHARACTER]):
        return True
    for s in range(N_STATS):
        if guarantee_shortfall(st, t, seat, rid, s) > 0:
            return False
    return True


@njit_noalloc(inline="always")
def guarantee_shortfall(st, t, seat, rid, s):
    """R28: how many points stat s (base + training) lacks of the route's printed requirement,
    the measure the guarantee holds a Free Solo to; 0 where it meets it."""
    b = pbase(seat)
    return max(0, at(t, F_ROUTE_REQ, rid * N_STATS + s) - st[b + P_STATS + s]
               - st[b + P_TRAINING + s])


@njit_noalloc(inline="always")
def spendable_xp(st, t, seat):
    """R64: xp above the current level's threshold. Switch spendable_xp_kept_at_level_up: every
    unspent XP (the xp counter, from which purchases are taken)."""
    b = pbase(seat)
    if t[PARAM_SPENDABLE_KEPT] != 0:
        return max(0, st[b + P_XP])
    return max(0, st[b + P_XP] - at(t, F_XP_CUMULATIVE, st[b + P_LEVEL]))


@njit_noalloc(inline="always")
def section_reason(st, t, seat, area):
    """R26, R36: the player may climb in this area now (access gear, room in the section)."""
    if not has_area_access(st, t, seat, area):
        return ILLEGAL_NO_ACCESS
    if t[PARAM_TR_STATIONS] != 0 and area == TOP_ROPE:
        return OK                 # L9: no section capacity; each route's station decides
    if not can_enter(st, t, seat, AREA_LOC + area):
        return ILLEGAL_OCCUPIED
    return OK


@njit_noalloc
def belay_station_taken(st, seat, station):
    """L8: another player is located at Top Rope on this belay station."""
    for other in range(st[G_N_PLAYERS]):
        b = pbase(other)
        if other != seat and st[b + P_LOCATION] == AREA_LOC + TOP_ROPE and \
                st[b + P_BELAY_STATION] == station:
            return True
    return False


@njit_noalloc
def top_rope_station_of(st, rid):
    """L7: route i of the Top Rope row belongs to station i // 2."""
    for slot in range(st[G_N_VISIBLE + TOP_ROPE]):
        if st[G_VISIBLE + TOP_ROPE * MAX_VISIBLE + slot] == rid:
            return slot // 2
    return -1


@njit_noalloc
def milestone_belay_station(st, seat):
    """L10: the player's own station if it is at Top Rope with one, else the lowest station not
    taken by others; -1 if there is none."""
    b = pbase(seat)
    if st[b + P_LOCATION] == AREA_LOC + TOP_ROPE and st[b + P_BELAY_STATION] >= 0:
        return st[b + P_BELAY_STATION]
    for station in range(st[G_BELAYERS]):
        if not belay_station_taken(st, seat, station):
            return station
    return -1


@njit_noalloc(inline="always")
def attempt_reason(st, t, seat, rid, section):
    """What a climb and a milestone attempt share (R27, R29): the area's `section_reason`, then
    time (R47), endurance (R48) and the Free Solo guarantee (R28)."""
    if section != OK:
        return section
    b = pbase(seat)
    if st[b + P_TIME] < effective_time(st, t, seat, rid):
        return ILLEGAL_NO_TIME
    if st[b + P_ENDURANCE] < effective_endurance(st, t, seat, rid):
        return ILLEGAL_NO_ENDURANCE
    if not free_solo_guarantee(st, t, seat, rid):
        return ILLEGAL_FREE_SOLO
    return OK


@njit_noalloc(inline="always")
def climb_route_reason(st, t, seat, area, slot, section):
    """R27 before the attempt's own checks (attempt_reason): (the slot's route, reason): a
    visible route, not yet attempted this round (R46), its Top Rope station free (L7-L9)."""
    rid = visible_route(st, area, slot)
    if rid < 0:
        return rid, ILLEGAL_NO_ROUTE
    if (st[pbase(seat) + P_MARKS + area] >> at(t, F_ROUTE_SLOT_BIT, rid)) & 1:
        return rid, ILLEGAL_ALREADY_TRIED
    if t[PARAM_TR_STATIONS] != 0 and area == TOP_ROPE and section == OK and \
            belay_station_taken(st, seat, slot // 2):                 # L7-L9
        return rid, ILLEGAL_OCCUPIED
    return rid, OK


@njit_noalloc(inline="always")
def climb_reason(st, t, seat, area, slot, section):
    """R27: a visible route, not yet attempted this round (R46), and an attempt is possible."""
    rid, reason = climb_route_reason(st, t, seat, area, slot, section)
    if reason != OK:
        return reason
    return attempt_reason(st, t, seat, rid, section)


@njit_noalloc(inline="always")
def milestone_route_reason(st, t, seat, tier, section):
    """R29 before the attempt's own checks (attempt_reason): (the tier's route, reason): not
    completed yet (no once-per-round limit), a belay station for it at Top Rope (L10)."""
    rid = st[G_MILESTONES + tier]
    if (st[pbase(seat) + P_DONE] >> tier) & 1:
        return rid, ILLEGAL_MILESTONE_DONE
    if t[PARAM_TR_STATIONS] != 0 and at(t, F_ROUTE_AREA, rid) == TOP_ROPE and section == OK \
            and milestone_belay_station(st, seat) < 0:                  # L10
        return rid, ILLEGAL_OCCUPIED
    return rid, OK


@njit_noalloc(inline="always")
def milestone_reason(st, t, seat, tier, section):
    """R29: not completed yet, and an attempt is possible."""
    rid, reason = milestone_route_reason(st, t, seat, tier, section)
    if reason != OK:
        return reason
    return attempt_reason(st, t, seat, rid, section)


@njit_noalloc(inline="always")
def train_reason(st, t, seat, k):
    """R25: time, endurance, and the station free (R32, R36)."""
    b = pbase(seat)
    if st[b + P_TIME] < at(t, F_STATION_TIME, k):
        return ILLEGAL_NO_TIME
    if st[b + P_ENDURANCE] < at(t, F_STATION_ENDURANCE, k):
        return ILLEGAL_NO_ENDURANCE
    if not can_enter(st, t, seat, STATION_LOC + k):
        return ILLEGAL_OCCUPIED
    if t[PARAM_TRAINING_PER_ROUND] != 0 and st[G_STATION_CLAIM + k] >= 0 and \
            st[G_STATION_CLAIM + k] != seat:                  # switch training_station_per_round
        return ILLEGAL_OCCUPIED
    return OK


@njit_noalloc(inline="always")
def action_route(st, action):
    """The route a climb or milestone action names (-1 for an empty slot or another action)."""
    if CLIMB <= action < MILESTONE:
        return visible_route(st, (action - CLIMB) // MAX_VISIBLE, (action - CLIMB) % MAX_VISIBLE)
    if MILESTONE <= action < BUY_ROTATION:
        return st[G_MILESTONES + action - MILESTONE]
    return -1


@njit_noalloc(inline="always")
def shop_card(st, t, action):
    """The card a buy action names, or -1 if that slot is empty."""
    if action < BUY_ACCESS:
        k = action - BUY_ROTATION
        return st[G_ROTATION + k] if k < st[G_N_ROTATION] else -1
    k = action - BUY_ACCESS
    return at(t, F_ACCESS_CARDS, k) if k < t[PARAM_N_ACCESS] else -1


@njit_noalloc(inline="always")
def buy_reason(st, t, seat, action):
    """R30: a card for sale, time, not owned, spendable XP (R64), level and prerequisites."""
    card = shop_card(st, t, action)
    if card < 0:
        return ILLEGAL_NO_CARD
    b = pbase(seat)
    if st[b + P_TIME] < t[PARAM_PURCHASE_TIME]:
        return ILLEGAL_NO_TIME
    if (st[b + P_GEAR] >> card) & 1:
        return ILLEGAL_OWNED
    if spendable_xp(st, t, seat) < at(t, F_CARD_COST, card):
        return ILLEGAL_NO_XP
    if st[b + P_LEVEL] < at(t, F_CARD_PREREQ_LEVEL, card):
        return ILLEGAL_LEVEL
    need = at(t, F_CARD_PREREQ_MASK, card)
    if (st[b + P_GEAR] & need) != need:
        return ILLEGAL_PREREQUISITE
    return OK


@njit_noalloc(inline="always")
def redistribution_move(action):
    """A redistribution action's (from stat, to stat, points); state.py has the encoding."""
    k = action - REDISTRIBUTE
    points = k % MAX_REDISTRIBUTION + 1
    pair = k // MAX_REDISTRIBUTION
    source = pair // (N_STATS - 1)
    target = pair % (N_STATS - 1)
    if target >= source:
        target += 1
    return source, target, points


def redistribution_action(source, target, points):
    """The action code of moving `points` from stat `source` to stat `target` (the inverse of
    redistribution_move)."""
    k = target if target < source else target - 1
    return REDISTRIBUTE + (source * (N_STATS - 1) + k) * MAX_REDISTRIBUTION + points - 1


@njit_noalloc(inline="always")
def redistribution_reason(st, t, seat, action):
    """Rulebook §9 (switch route_reader_redistribution): the Route Reader, once per round, moves
    1..REDIST_POINTS points of stats + training from one stat to another; the stat it takes
    from keeps at least 0."""
    if t[PARAM_REDISTRIBUTION] == 0:
        return ILLEGAL_NO_REDISTRIBUTION
    b = pbase(seat)
    if st[b + P_CHARACTER] != ROUTE_READER:
        return ILLEGAL_NOT_ROUTE_READER
    if st[b + P_REDIST_USED] != 0:
        return ILLEGAL_REDISTRIBUTED
    source, _, points = redistribution_move(action)
    if points > t[PARAM_REDIST_POINTS] or \
            points > st[b + P_STATS + source] + st[b + P_TRAINING + source]:
        return ILLEGAL_REDISTRIBUTION_POINTS
    return OK


@njit_noalloc
def illegal_reason(st, t, action):
    """Why the current player may not take `action` now (0 = it is legal). R22-R30, R36."""
    if st[G_OVER] != 0:
        return ILLEGAL_GAME_OVER
    if action < 0 or action >= N_ACTIONS:
        return ILLEGAL_UNKNOWN_ACTION
    seat = st[G_CURRENT]
    if action == END_TURN:                                     # R23
        return OK
    if action == REST:                                         # R24
        return OK if st[pbase(seat) + P_TIME] >= t[PARAM_REST_TIME] else ILLEGAL_NO_TIME
    if action < CLIMB:
        return train_reason(st, t, seat, action - TRAIN)
    if action < BUY_ROTATION:
        # climb_reason and milestone_reason, with one call site for section_reason and one for
        # attempt_reason: each inlined copy costs compile time (as in legal_actions)
        if action < MILESTONE:
            area = (action - CLIMB) // MAX_VISIBLE
        else:
            area = at(t, F_ROUTE_AREA, st[G_MILESTONES + action - MILESTONE])
        section = section_reason(st, t, seat, area)
        if action < MILESTONE:
            rid, reason = climb_route_reason(st, t, seat, area, (action - CLIMB) % MAX_VISIBLE,
                                             section)
        else:
            rid, reason = milestone_route_reason(st, t, seat, action - MILESTONE, section)
        if reason != OK:
            return reason
        return attempt_reason(st, t, seat, rid, section)
    if action < REDISTRIBUTE:
        return buy_reason(st, t, seat, action)
    return redistribution_reason(st, t, seat, action)


@njit_noalloc
def legal_actions(st, t, out):
    """R22: write the current player's legal actions into `out` in the engine's order (action
    codes increase in that order, state.py); return how many. The same reason functions as
    illegal_reason, with each area's access and capacity (R27: "checked once per area")
    evaluated once."""
    if st[G_OVER] != 0:
        return 0
    seat = st[G_CURRENT]
    n = 0
    out[n] = END_TURN               # R23: always legal, so play never deadlocks (R77)
    n += 1
    if st[pbase(seat) + P_TIME] >= t[PARAM_REST_TIME]:
        out[n] = REST
        n += 1
    for k in range(N_STATIONS):
        if train_reason(st, t, seat, k) == OK:
            out[n] = TRAIN + k
            n += 1
    # The reason functions are inlined where they are called, and each copy costs compile
    # time: legal_actions took 5 s of a first game's 23 with three copies of section_reason
    # and two of attempt_reason. So each has one call site: a loop over the areas, then one
    # over the areas' climbs and (as area N_AREAS) the milestones.
    open_areas = 0                      # bit `area`: section_reason is OK there
    for area in range(N_AREAS):
        if section_reason(st, t, seat, area) == OK:
            open_areas |= 1 << area
    for area in range(N_AREAS + 1):
        if area < N_AREAS:
            if not (open_areas >> area) & 1:
                continue
            count = st[G_N_VISIBLE + area]
        else:
            count = N_TIERS
        for i in range(count):
            if area < N_AREAS:
                action = CLIMB + area * MAX_VISIBLE + i
                section = OK
                rid, reason = climb_route_reason(st, t, seat, area, i, section)
            else:
                action = MILESTONE + i
                # only OK or not matters here, so any reason stands for a closed area
                section = OK if (open_areas >> at(t, F_ROUTE_AREA, st[G_MILESTONES + i])) & 1 \
                    else ILLEGAL_NO_ACCESS
                rid, reason = milestone_route_reason(st, t, seat, i, section)
            if reason == OK and attempt_reason(st, t, seat, rid, section) == OK:
                out[n] = action
                n += 1
    for action in range(BUY_ROTATION, REDISTRIBUTE):
        if buy_reason(st, t, seat, action) == OK:
            out[n] = action
            n += 1
    if t[PARAM_REDISTRIBUTION] != 0 and st[pbase(seat) + P_CHARACTER] == ROUTE_READER:
        for action in range(REDISTRIBUTE, N_ACTIONS):
            if redistribution_reason(st, t, seat, action) == OK:
                out[n] = action
                n += 1
    return n


# --- Climb resolution (R44-R59) -----------------------------------------------------------------

@njit_noalloc(inline="always")
def effect_count(t, character, rid):
    """R50: the route's effects, plus the Sprinter's focus nerf."""
    extra = 1 if character == SPRINTER and t[PARAM_SPRINT_EXTRA_NERF] != 0 else 0
    return at(t, F_ROUTE_N_EFFECTS, rid) + extra


@njit_noalloc(inline="always")
def dice_for_effects(t, character, rid):
    """R50: max(2, effects) dice. Under the rulebook's reading of the Sprinter (switch
    sprinter_extra_die=off) his focus nerf rolls one additional die on top of max(2, route
    effects), where the engine counts it among them (R79)."""
    n = effect_count(t, character, rid)
    if t[PARAM_SPRINT_OWN_DIE] != 0 and n > at(t, F_ROUTE_N_EFFECTS, rid):
        return max(2, n - 1) + 1
    return max(2, n)


@njit_noalloc(inline="always")
def effect_die(t, rid, i):
    """R52: the die effect i reads, d[i]; under the rulebook's reading of the Sprinter his
    focus nerf (the effect after the route's) reads his additional die, the last one R50 rolls
    before the Power Tap Belt's. The belt's R51.2 sorts every die rolled, his among them, so
    with the belt his index often finds no die kept and reads 0 (as R78 for the engine's)."""
    n_route = at(t, F_ROUTE_N_EFFECTS, rid)
    if t[PARAM_SPRINT_OWN_DIE] != 0 and i == n_route:
        return max(2, n_route)
    return i


@njit_noalloc(inline="always")
def effect_stat_mod(t, rid, i):
    """Effect i of the list of R50: (stat, modifier)."""
    if i < at(t, F_ROUTE_N_EFFECTS, rid):
        return at(t, F_ROUTE_EFFECT_STAT, rid * 3 + i), at(t, F_ROUTE_EFFECT_MOD, rid * 3 + i)
    return SPRINTER_EXTRA_STAT, SPRINTER_EXTRA_MOD


@njit_noalloc(inline="always")
def character_modifier(character, m):
    """R52: an effect's modifier after the character rules: the Free Solo ignores every dice
    modifier, the Technician every nerf."""
    if character == FREE_SOLO:
        return 0
    if character == TECHNICIAN and m == 1:
        return 0
    return m


@njit_noalloc
def dice_to_roll(t, character, gear, rid):
    """R50: how many dice are rolled, and whether the Power Tap Belt's extra die is among them."""
    n = dice_for_effects(t, character, rid)
    tag = at(t, F_ROUTE_TAG, rid)
    power_tap = tag != 0 and owned_card_of_kind(t, gear, KIND_EXTRA_DIE, tag) >= 0
    return (n + 1 if power_tap else n), power_tap


@njit_noalloc
def reroll_fires(t, gear, rid):
    """R51.1: the Crimp Sequence Decoder re-rolls on its tag."""
    tag = at(t, F_ROUTE_TAG, rid)
    return tag != 0 and owned_card_of_kind(t, gear, KIND_REROLL_ON_TAG, tag) >= 0


@njit_noalloc(inline="always")
def first_max_index(dice, n):
    best = 0
    for i in range(1, n):
        if dice[i] > dice[best]:
            best = i
    return best


@njit_noalloc(inline="always")
def _snapshot(trace, stage, dice, n):
    trace[T_N_DICE + stage] = n
    for i in range(MAX_DICE):
        trace[T_DICE + stage * MAX_DICE + i] = dice[i] if i < n else 0


@njit_noalloc(one_copy=True)
def dice_gear(t, gear, rid, is_milestone):
    """The numbers R51 needs from the gear owned, looked up once per attempt:
    (re-roll fires, Power Tap dice kept or 0, Sequence Memorization value or 0,
    Climbing Coach bonus or 0)."""
    tag = at(t, F_ROUTE_TAG, rid)
    reroll = reroll_fires(t, gear, rid)
    keep = 0
    if tag != 0:
        g = owned_card_of_kind(t, gear, KIND_EXTRA_DIE, tag)
        if g >= 0:
            keep = at(t, F_CARD_VALUE, g)
            if t[PARAM_POWER_TAP_BEST] != 0:   # switch power_tap_keeps=best: negative = highest
                keep = -keep
    g = owned_card_of_kind(t, gear, KIND_DIE_AS_ONE, -1)
    as_value = at(t, F_CARD_VALUE, g) if g >= 0 else 0
    return reroll, keep, as_value, climbing_coach_bonus(t, gear, is_milestone)


@njit_noalloc(inline="always")
def climbing_coach_bonus(t, gear, is_milestone):
    """R51.4: what Climbing Coach adds to every die of this attempt, or 0 (data.py keeps its
    value at 0 or more)."""
    if not is_milestone:
        return 0
    g = owned_card_of_kind(t, gear, KIND_MILESTONE_DICE, -1)
    return at(t, F_CARD_VALUE, g) if g >= 0 else 0


@njit_noalloc(one_copy=True)
def apply_dice_gear(dice, n, reroll_value, reroll, reroll_at, keep, as_value, seqmem_at, coach,
                    trace, record):
    """R51, in this exact order, with the gear's numbers from dice_gear. `reroll_value` is the
    Decoder's new die (drawn by the caller right after the roll, R8). `reroll_at` and
    `seqmem_at` name the die the Decoder and Sequence Memorization act on; -1 = the engine's
    first highest die (switch your_choice_gear: the player's pick). Returns the number of dice
    kept. With `record`, the dice after each stage go into the trace (for transcripts)."""
    if record:
        _snapshot(trace, STAGE_ROLLED, dice, n)
        trace[T_REROLL_INDEX] = -1
        trace[T_SEQMEM_INDEX] = -1
    if reroll:                                             # 1. Crimp Sequence Decoder
        i = first_max_index(dice, n) if reroll_at < 0 else reroll_at
        dice[i] = reroll_value
        if record:
            trace[T_REROLL_INDEX] = i
    if record:
        _snapshot(trace, STAGE_REROLL, dice, n)
    if keep != 0:                                          # 2. Power Tap Belt: keep lowest
        for i in range(1, n):                              # insertion sort, ascending
            v = dice[i]
            j = i - 1
            while j >= 0 and dice[j] > v:
                dice[j + 1] = dice[j]
                j -= 1
            dice[j + 1] = v
        if keep > 0:
            n = min(n, keep)
        else:                                              # the highest -keep, ascending
            k = min(n, -keep)
            for i in range(k):
                dice[i] = dice[n - k + i]
            n = k
    if record:
        _snapshot(trace, STAGE_POWER_TAP, dice, n)
    if as_value > 0:                                       # 3. Sequence Memorization
        i = first_max_index(dice, n) if seqmem_at < 0 else seqmem_at
        if dice[i] > as_value:
            dice[i] = as_value
            if record:
                trace[T_SEQMEM_INDEX] = i
    if record:
        _snapshot(trace, STAGE_SEQMEM, dice, n)
    if coach > 0:                                          # 4. Climbing Coach
        for i in range(n):
            dice[i] = min(6, dice[i] + coach)
    if record:
        _snapshot(trace, STAGE_FINAL, dice, n)
    return n


@njit_noalloc
def modify_dice(t, gear, rid, is_milestone, dice, n, reroll_value, power_tap, trace, record):
    """R51 for a player's gear (power_tap: whether R50 rolled the Power Tap Belt's die)."""
    reroll, keep, as_value, coach = dice_gear(t, gear, rid, is_milestone)
    return apply_dice_gear(dice, n, reroll_value, reroll, -1, keep if power_tap else 0, as_value,
                           -1, coach, trace, record)


MENTOR_NONE, MENTOR_FIRST_NERF = -1, -2    # requirements_from_dice's mentor_at, besides k >= 0


@njit_noalloc
def mentor_cancelled_effect(t, character, rid, mentor_at):
    """R52: the effect Mountain Mentor gives modifier 0, or -1. `mentor_at`: MENTOR_NONE (no
    Mountain Mentor), MENTOR_FIRST_NERF (the engine: the first nerf effect left after the
    character rules) or the effect the player cancels (switch your_choice_gear), which must
    still be a nerf after the character rules."""
    if mentor_at == MENTOR_NONE:
        return -1
    for i in range(effect_count(t, character, rid)):
        _, m = effect_stat_mod(t, rid, i)
        if character_modifier(character, m) == 1 and (mentor_at == i
                                                      or mentor_at == MENTOR_FIRST_NERF):
            return i
    return -1


@njit_noalloc
def requirements_from_dice(t, character, rid, dice, n_dice, mentor_at, trace):
    """R52: the route's requirements after the dice, into trace[T_REQ:T_REQ+4]. `mentor_at`:
    as mentor_cancelled_effect's."""
    for s in range(N_STATS):
        trace[T_REQ + s] = at(t, F_ROUTE_REQ, rid * N_STATS + s)
    mentor_index = mentor_cancelled_effect(t, character, rid, mentor_at)
    trace[T_MENTOR_INDEX] = mentor_index
    n_eff = effect_count(t, character, rid)
    trace[T_N_EFFECTS] = n_eff
    for i in range(n_eff):
        stat, m = effect_stat_mod(t, rid, i)
        j = effect_die(t, rid, i)
        die = dice[j] if j < n_dice else 0                 # R78, R79: missing dice count 0
        m = 0 if i == mentor_index else character_modifier(character, m)
        trace[T_EFFECT_STAT + i] = stat
        trace[T_EFFECT_MOD + i] = m
        trace[T_EFFECT_DIE + i] = die
        trace[T_REQ + stat] += m * die
    if character == TECHNICIAN:
        for s in range(N_STATS):
            trace[T_REQ + s] = max(0, trace[T_REQ + s] - t[PARAM_TECH_REQ_MINUS])


@njit_noalloc(inline="always")
def has_mountain_mentor(t, gear):
    """R52: whether the player's gear cancels a nerf die (Mountain Mentor)."""
    return owned_card_of_kind(t, gear, KIND_NEGATE_NERF, -1) >= 0


@njit_noalloc
def requirements_after_dice(t, character, gear, rid, dice, n_dice, trace):
    """R52 for a player's gear."""
    requirements_from_dice(t, character, rid, dice, n_dice,
                           MENTOR_FIRST_NERF if has_mountain_mentor(t, gear) else MENTOR_NONE,
                           trace)


def requirement_tables(flat, n_routes):
    """R52 with every die at 0, per (character, Mountain Mentor or not, route, stat), as two
    int64 arrays: the requirement, and the sum of the modifiers its dice carry after the
    character rules and Mountain Mentor (a die's weight in that stat's requirement). Worked
    out once per rules through requirements_after_dice itself; the planner reads a milestone's
    expected requirement from them (zero_dice_row). Nothing but the character, the route and
    whether Mountain Mentor is owned reaches R52 with no die rolled."""
    requirement = np.zeros((N_CHARACTERS, 2, n_routes, N_STATS), np.int64)
    weight = np.zeros((N_CHARACTERS, 2, n_routes, N_STATS), np.int64)
    trace = np.zeros(TRACE_SIZE, np.int64)
    mentor_gear = at(flat, F_KIND_MASK, KIND_NEGATE_NERF)
    for c in range(N_CHARACTERS):
        for mentor in range(2):
            for rid in range(n_routes):
                requirements_after_dice(flat, c, mentor_gear if mentor else 0, rid, trace[:0],
                                        0, trace)
                requirement[c, mentor, rid] = trace[T_REQ:T_REQ + N_STATS]
                for i in range(trace[T_N_EFFECTS]):
                    weight[c, mentor, rid, trace[T_EFFECT_STAT + i]] += trace[T_EFFECT_MOD + i]
    return requirement, weight


@njit_noalloc(inline="always")
def zero_dice_row(t, character, gear, rid):
    """Where (character, Mountain Mentor or not, route) starts in requirement_tables' arrays
    as they are packed (F_REQUIREMENT_NO_DICE, F_REQUIREMENT_DICE_WEIGHT), N_STATS entries."""
    mentor = 1 if has_mountain_mentor(t, gear) else 0
    return ((character * 2 + mentor) * t[PARAM_N_ROUTES] + rid) * N_STATS


@njit_noalloc(inline="always")
def character_fails_with_penalty(character):
    """R55: whether a failed climb costs the character endurance (the Iron Lung; the amount is
    the knob characters.ironLung.passive.fail_endurance_penalty)."""
    return character == IRON_LUNG


@njit_noalloc(inline="always")
def fail_endurance_penalty(t, character):
    """R55: the endurance a failed climb costs the character, before gear."""
    return t[PARAM_IRON_FAIL_PENALTY] if character_fails_with_penalty(character) else 0


@njit_noalloc(inline="always")
def stats_needed(t, character):
    """R53: how many stats must meet their requirement (the Route Reader: three)."""
    return t[PARAM_ROUTE_READER_NEEDS] if character == ROUTE_READER else N_STATS


@njit_noalloc(inline="always")
def meets_requirements(eff, trace, need):
    """R53 for stats `eff` against the requirements in trace[T_REQ:]."""
    passed = 0
    for s in range(N_STATS):
        if eff[s] >= trace[T_REQ + s]:
            passed += 1
    return passed >= need


# --- "Your choice" gear (switch your_choice_gear=best) ------------------------------------------
# The rulebook lets the player pick the Decoder's die, Sequence Memorization's die and the nerf
# Mountain Mentor cancels. To the player's best advantage means: a choice that makes the climb
# succeed if any does, and the engine's own choice when that already succeeds or nothing does
# (so the switch changes an outcome only where a choice matters). The Decoder's die is picked
# before its new value is known: the one with the most successful new values.

@njit_noalloc
def best_final_choice(t, c, rid, dice, n, keep, as_value, coach, mentor, eff, need, work, trace):
    """R51.2-R52 after the re-roll, with the player's picks: returns (seqmem_at, mentor_at,
    success). `dice` (after the re-roll) is left as it is; work holds 2 * MAX_DICE."""
    kept = work[0:MAX_DICE]
    final = work[MAX_DICE:2 * MAX_DICE]
    for i in range(n):
        kept[i] = dice[i]
    n_kept = apply_dice_gear(kept, n, 0, False, -1, keep, 0, -1, 0, trace, False)  # Power Tap
    n_seqmem = 1 + n_kept if as_value > 0 else 1          # -1 (the engine's) then each die
    n_mentor = 1 + effect_count(t, c, rid) if mentor else 1
    for a in range(n_seqmem):
        seqmem_at = a - 1
        for m in range(n_mentor):
            mentor_at = MENTOR_NONE
            if mentor:
                mentor_at = MENTOR_FIRST_NERF if m == 0 else m - 1
                if m > 0 and character_modifier(c, effect_stat_mod(t, rid, m - 1)[1]) != 1:
                    continue                               # not a nerf: nothing to cancel
            for i in range(n_kept):
                final[i] = kept[i]
            k = apply_dice_gear(final, n_kept, 0, False, -1, 0, as_value, seqmem_at, coach,
                                trace, False)
            requirements_from_dice(t, c, rid, final, k, mentor_at, trace)
            if meets_requirements(eff, trace, need):
                return seqmem_at, mentor_at, True
    return -1, (MENTOR_FIRST_NERF if mentor else MENTOR_NONE), False


@njit_noalloc
def best_reroll_index(t, c, rid, dice, n, keep, as_value, coach, mentor, eff, need, work,
                      trace):
    """The Decoder's die (R51.1) with the most new values that end in success after the best
    later picks; ties go to the engine's first highest die. `dice` is restored."""
    default = first_max_index(dice, n)
    best = default
    best_count = -1
    for j in range(n):
        i = default if j == 0 else (j - 1 if j - 1 < default else j)
        saved = dice[i]
        count = 0
        for v in range(1, 7):
            dice[i] = v
            count += best_final_choice(t, c, rid, dice, n, keep, as_value, coach, mentor, eff,
                                       need, work, trace)[2]
        dice[i] = saved
        if count > best_count:
            best_count = count
            best = i
    return best


@njit_noalloc
def chosen_dice_requirements(t, c, gear, rid, is_milestone, dice, n, reroll_value, power_tap,
                             trace):
    """R51-R52 with the player's picks (switch your_choice_gear=best); the stats are already in
    trace[T_EFF_STATS:]. Records the stages like modify_dice and requirements_after_dice."""
    reroll, keep, as_value, coach = dice_gear(t, gear, rid, is_milestone)
    if not power_tap:
        keep = 0
    mentor = has_mountain_mentor(t, gear)
    eff = trace[T_WORK:T_WORK + N_STATS]
    for i in range(N_STATS):
        eff[i] = trace[T_EFF_STATS + i]
    need = stats_needed(t, c)
    work = trace[T_WORK + N_STATS:T_WORK + N_STATS + 3 * MAX_DICE]
    rerolled = work[2 * MAX_DICE:3 * MAX_DICE]
    reroll_at = -1
    for i in range(n):
        rerolled[i] = dice[i]
    if reroll:
        reroll_at = best_reroll_index(t, c, rid, rerolled, n, keep, as_value, coach, mentor, eff,
                                      need, work, trace)
        rerolled[reroll_at] = reroll_value
    seqmem_at, mentor_at, _ = best_final_choice(t, c, rid, rerolled, n, keep, as_value, coach,
                                                mentor, eff, need, work, trace)
    n_kept = apply_dice_gear(dice, n, reroll_value, reroll, reroll_at, keep, as_value, seqmem_at,
                             coach, trace, True)
    requirements_from_dice(t, c, rid, dice, n_kept, mentor_at, trace)


@njit_noalloc
def effective_stat_values(st, t, seat, rid, marked, beta):
    """R49, the four stats as a tuple: stats + training + per-route gear (+ Beta Boost, + this
    round's redistribution shift under the switch route_reader_redistribution). `marked` says
    whether the route counts as attempted this round (cards filtered on "Repeated"). The four
    come from one pass over the gear: the bots ask this for every route they weigh."""
    b = pbase(seat)
    v0 = st[b + P_STATS] + st[b + P_TRAINING] + st[b + P_REDIST] + beta
    v1 = st[b + P_STATS + 1] + st[b + P_TRAINING + 1] + st[b + P_REDIST + 1] + beta
    v2 = st[b + P_STATS + 2] + st[b + P_TRAINING + 2] + st[b + P_REDIST + 2] + beta
    v3 = st[b + P_STATS + 3] + st[b + P_TRAINING + 3] + st[b + P_REDIST + 3] + beta
    mask = st[b + P_GEAR] & at(t, F_ROUTE_BONUS_CARDS, rid)
    while mask != 0:
        g = trailing_zeros(mask)
        if at(t, F_CARD_REPEATED_ONLY, g) == 0 or marked:
            k = (rid * MAX_GEAR + g) * N_STATS
            v0 += at(t, F_ROUTE_GEAR_BONUS, k)
            v1 += at(t, F_ROUTE_GEAR_BONUS, k + 1)
            v2 += at(t, F_ROUTE_GEAR_BONUS, k + 2)
            v3 += at(t, F_ROUTE_GEAR_BONUS, k + 3)
        mask &= mask - 1
    return v0, v1, v2, v3


@njit_noalloc
def effective_stats(st, t, seat, rid, beta, trace):
    """R49, into trace[T_EFF_STATS:+4]."""
    b = pbase(seat)
    marked = (st[b + P_MARKS + at(t, F_ROUTE_AREA, rid)] >> at(t, F_ROUTE_SLOT_BIT, rid)) & 1
    values = effective_stat_values(st, t, seat, rid, marked, beta)
    for s in range(N_STATS):
        trace[T_EFF_STATS + s] = values[s]


@njit_noalloc
def climb_outcome(t, character, trace):
    """R53: how many stats pass, and success (all four; the Route Reader three)."""
    passed = 0
    for s in range(N_STATS):
        if trace[T_EFF_STATS + s] >= trace[T_REQ + s]:
            passed += 1
    return passed, passed >= stats_needed(t, character)


@njit_noalloc
def climb_xp(t, character, gear, rid, success):
    """R54: XP gained, floor(x), computed in hundredths to stay exact in integers."""
    base = at(t, F_ROUTE_XP_SUCCESS, rid) if success else at(t, F_ROUTE_XP_FAIL, rid)
    x100 = 100 * base                                      # x in hundredths, exact
    if character == SPRINTER and (success or t[PARAM_SPRINT_FAIL_SCALED] != 0):
        x100 = base * t[PARAM_SPRINT_XP_PCT]               # x = base * 0.5
    if not success:
        if character == IRON_LUNG:                         # + floor(x * 0.5)
            x100 += 100 * ((x100 * t[PARAM_IRON_FAIL_XP_PCT]) // 10000)
        g = owned_card_of_kind(t, gear, KIND_FAIL_BONUS_XP, -1)
        if g >= 0:
            x100 += 100 * at(t, F_CARD_VALUE, g)
    return x100 // 100


# The most subsets of one tag's time-reduction cards attempt_limits walks for a route; beyond it
# the route gets no time floor (a deck of that many such cards is not one the data holds).
MAX_TIME_CARD_SUBSETS = 1 << 12


def attempt_limits(flat, n_routes):
    """Per (character, route), (xp_ceiling, time_floor) as int64 arrays of shape
    (N_CHARACTERS, n_routes): the most XP an attempt can bring, success or failure (R54), and
    the least time it can take (R47), over every gear a player can own; time_floor 0 where no
    floor is known. Worked out once per rules through climb_xp and effective_time themselves,
    so the rules stay here; bots leave out with them a climb that the player could not find
    worth its time whatever it buys (planner.best_climb_by_xp_rate). Per character, since the
    characters' own rules (the Sprinter's time and XP, the Technician's time) move them most.

    Both functions read a player only through its character and gear. climb_xp reads one
    fail-bonus card (the first owned), so no card or any one of them covers every gear; for
    effective_time, every subset of the time-reduction cards of the route's tag."""
    xp_ceiling = np.zeros((N_CHARACTERS, n_routes), np.int64)
    time_floor = np.zeros((N_CHARACTERS, n_routes), np.int64)
    fail_cards = [0] + [1 << g for g in range(MAX_GEAR)
                        if (at(flat, F_KIND_MASK, KIND_FAIL_BONUS_XP) >> g) & 1]
    time_cards = at(flat, F_KIND_MASK, KIND_TIME_REDUCTION)
    player = new_state()
    b = pbase(0)
    for rid in range(n_routes):
        tag = at(flat, F_ROUTE_TAG, rid)
        cards = [g for g in range(MAX_GEAR)
                 if (time_cards >> g) & 1 and tag != 0 and at(flat, F_CARD_TAG, g) == tag]
        for c in range(N_CHARACTERS):
            xp = max(climb_xp(flat, c, gear, rid, success)
                     for gear in fail_cards for success in (True, False))
            xp_ceiling[c, rid] = xp
            if xp < 0 or 1 << len(cards) > MAX_TIME_CARD_SUBSETS:
                continue        # a negative XP has no ceiling over time; too many subsets
            player[b + P_CHARACTER] = c
            least = None
            for subset in range(1 << len(cards)):
                player[b + P_GEAR] = sum(1 << g for k, g in enumerate(cards) if subset >> k & 1)
                cost = effective_time(player, flat, 0, rid)
                least = cost if least is None else min(least, cost)
            time_floor[c, rid] = max(least, 0)
    return xp_ceiling, time_floor


@njit_noalloc
def resolve_attempt(st, t, seat, rid, tier, trace):
    """R44-R58: a climb (tier < 0) or a milestone attempt (tier = 0, 1, 2)."""
    b = pbase(seat)
    c = st[b + P_CHARACTER]
    gear = st[b + P_GEAR]
    area = at(t, F_ROUTE_AREA, rid)
    is_milestone = tier >= 0
    trace[T_ROUTE] = rid
    st[b + P_LOCATION] = AREA_LOC + area                               # R44
    if t[PARAM_TR_STATIONS] != 0:                                      # L12
        if area != TOP_ROPE:
            st[b + P_BELAY_STATION] = -1
        elif is_milestone:
            st[b + P_BELAY_STATION] = milestone_belay_station(st, seat)
        else:
            st[b + P_BELAY_STATION] = top_rope_station_of(st, rid)
    if not is_milestone:                                               # R45
        st[b + P_MARKS + area] |= 1 << at(t, F_ROUTE_SLOT_BIT, rid)
    time_cost = effective_time(st, t, seat, rid)                       # R47
    st[b + P_TIME] -= time_cost
    end_cost = effective_endurance(st, t, seat, rid)                   # R48
    st[b + P_ENDURANCE] -= end_cost
    trace[T_EFF_TIME] = time_cost
    trace[T_EFF_ENDURANCE] = end_cost
    beta = 0                                                           # R49, R39
    if st[b + P_BETA] != 0:
        beta = t[PARAM_BETA_BOOST]
        st[b + P_BETA] = 0
    trace[T_BETA_USED] = beta
    effective_stats(st, t, seat, rid, beta, trace)
    n, power_tap = dice_to_roll(t, c, gear, rid)                       # R50
    for i in range(n):
        st[DICE_BUF + i] = roll_die(st)
    reroll_value = 0
    if reroll_fires(t, gear, rid):                                     # R51.1 draw
        reroll_value = roll_die(st)
    dice = st[DICE_BUF:DICE_BUF + MAX_DICE]
    if t[PARAM_CHOICE_BEST] != 0:                                      # switch your_choice_gear
        chosen_dice_requirements(t, c, gear, rid, is_milestone, dice, n, reroll_value, power_tap,
                                 trace)
    else:
        n_kept = modify_dice(t, gear, rid, is_milestone, dice, n, reroll_value, power_tap, trace,
                             True)
        requirements_after_dice(t, c, gear, rid, dice, n_kept, trace)  # R52
    passed, success = climb_outcome(t, c, trace)                       # R53
    gained = climb_xp(t, c, gear, rid, success)                        # R54
    st[b + P_XP] += gained
    trace[T_PASSED] = passed
    trace[T_SUCCESS] = 1 if success else 0
    trace[T_XP_GAINED] = gained
    penalty = 0
    heal = 0
    if not success:                                                    # R55
        if character_fails_with_penalty(c) and \
                owned_card_of_kind(t, gear, KIND_IGNORE_FAIL_PENALTY, -1) < 0:
            penalty = t[PARAM_IRON_FAIL_PENALTY]
            st[b + P_ENDURANCE] -= penalty
    else:                                                              # R56
        g = owned_card_of_kind(t, gear, KIND_SUCCESS_HEAL, -1)
        if g >= 0:
            heal = at(t, F_CARD_VALUE, g)
            st[b + P_ENDURANCE] += heal
        if t[PARAM_SUCCESS_CLAMP] != 0:
            st[b + P_ENDURANCE] = min(st[b + P_ENDURANCE], st[b + P_MAX_ENDURANCE])
    trace[T_PENALTY] = penalty
    trace[T_HEAL] = heal
    st[b + P_ENDURANCE] = max(0, st[b + P_ENDURANCE])                  # R57, R76
    if is_milestone:
        st[b + P_MS_TRIES + tier] += 1
        if success:                                                    # R58
            st[b + P_DONE] |= 1 << tier
            st[b + P_MS_ROUND + tier] = st[G_ROUND]
    else:
        st[b + P_CLIMBS + area] += 1
        if success:
            st[b + P_CLIMBS_OK + area] += 1


# --- Rest, train, buy (R37-R43) -----------------------------------------------------------------

@njit_noalloc
def rest(st, t, seat):
    """R38-R39."""
    b = pbase(seat)
    st[b + P_LOCATION] = REST_LOC
    st[b + P_TIME] -= t[PARAM_REST_TIME]
    bonus = 0
    mask = st[b + P_GEAR]
    while mask != 0:
        g = trailing_zeros(mask)
        bonus += at(t, F_CARD_REST_BONUS, g)
        mask &= mask - 1
    top = st[b + P_MAX_ENDURANCE]
    # R75: the bonus may carry endurance above the maximum, and a rest above it may lower it
    st[b + P_ENDURANCE] = min(top + bonus, st[b + P_ENDURANCE] + top)
    if st[b + P_CHARACTER] == ROUTE_READER:
        st[b + P_BETA] = 1
    st[b + P_RESTS] += 1


@njit_noalloc
def training_gain(st, t, seat, k):
    """R40: the points a training at station k adds to its stat: the station's bonus and any
    training boost card the player owns."""
    gain = at(t, F_STATION_BONUS, k)
    g = owned_card_of_kind(t, st[pbase(seat) + P_GEAR], KIND_TRAINING_BOOST, -1)
    if g >= 0:
        gain += at(t, F_CARD_VALUE, g)
    return gain


@njit_noalloc
def train(st, t, seat, k):
    """R40: training bonuses are permanent."""
    b = pbase(seat)
    st[b + P_LOCATION] = STATION_LOC + k
    if t[PARAM_TRAINING_PER_ROUND] != 0:
        st[G_STATION_CLAIM + k] = seat
    st[b + P_TIME] -= at(t, F_STATION_TIME, k)
    st[b + P_ENDURANCE] -= at(t, F_STATION_ENDURANCE, k)
    stat = at(t, F_STATION_STAT, k)
    st[b + P_TRAINING + stat] += training_gain(st, t, seat, k)
    st[b + P_TRAININGS + stat] += 1


@njit_noalloc
def buy(st, t, seat, action, trace):
    """R41-R43."""
    b = pbase(seat)
    card = shop_card(st, t, action)
    trace[T_CARD] = card
    trace[T_REPLACEMENT] = REPLACEMENT_NONE
    st[b + P_LOCATION] = GEAR_SHOP_LOC                                 # R41
    st[b + P_TIME] -= t[PARAM_PURCHASE_TIME]
    st[b + P_XP] -= at(t, F_CARD_COST, card)
    st[b + P_XP_SPENT] += at(t, F_CARD_COST, card)
    st[b + P_GEAR] |= 1 << card
    st[b + P_GEAR_ROUND + card] = st[G_ROUND]
    st[b + P_MAX_ENDURANCE] += at(t, F_CARD_MAX_ENDURANCE, card)              # R42
    if at(t, F_CARD_IS_ACCESS, card):
        return
    k = action - BUY_ROTATION                                          # R43
    owned = 0
    for other in range(st[G_N_PLAYERS]):
        owned |= st[pbase(other) + P_GEAR]
    n_pool = 0
    for i in range(t[PARAM_N_NON_ACCESS]):
        g = at(t, F_NON_ACCESS_CARDS, i)
        if (owned >> g) & 1:
            continue
        in_rotation = False
        for j in range(st[G_N_ROTATION]):
            if st[G_ROTATION + j] == g:
                in_rotation = True
        if not in_rotation:
            st[SHUFFLE_BUF + n_pool] = g
            n_pool += 1
    if n_pool == 0:
        n_rot = st[G_N_ROTATION]
        for j in range(k, n_rot - 1):
            st[G_ROTATION + j] = st[G_ROTATION + j + 1]
        st[G_ROTATION + n_rot - 1] = -1
        st[G_N_ROTATION] = n_rot - 1
        trace[T_REPLACEMENT] = REPLACEMENT_SLOT_REMOVED
    else:
        new_card = st[SHUFFLE_BUF + pick_index(st, n_pool)]
        st[G_ROTATION + k] = new_card
        trace[T_REPLACEMENT] = new_card


# --- After every action (R60-R73) ----------------------------------------------------------------

@njit_noalloc
def redistribute(st, seat, action):
    """Rulebook §9 (switch route_reader_redistribution): the shift lasts until the round ends
    (R68); it takes no time and does not move the player."""
    b = pbase(seat)
    source, target, points = redistribution_move(action)
    st[b + P_REDIST + source] -= points
    st[b + P_REDIST + target] += points
    st[b + P_REDIST_USED] = 1


@njit_noalloc
def level_up(st, t, seat):
    """R61-R63: recompute stats and max endurance from the level table; returns levels gained."""
    b = pbase(seat)
    c = st[b + P_CHARACTER]
    gained = 0
    # the engine levels on the xp counter (purchases included); the rulebook reading on the XP
    # earned, which adds back what was spent
    earned = st[b + P_XP] + (st[b + P_XP_SPENT] if t[PARAM_SPENDABLE_KEPT] != 0 else 0)
    while st[b + P_LEVEL] < MAX_LEVEL and earned >= at(t, F_XP_CUMULATIVE, st[b + P_LEVEL] + 1):
        st[b + P_LEVEL] += 1
        gained += 1
        level = st[b + P_LEVEL]
        for s in range(N_STATS):
            st[b + P_STATS + s] = at(t, F_LEVEL_STATS, (c * (MAX_LEVEL + 1) + level) * N_STATS + s)
        st[b + P_MAX_ENDURANCE] = at(t, F_LEVEL_MAX_ENDURANCE, c * (MAX_LEVEL + 1) + level)
        if t[PARAM_CARABINER_KEPT] != 0:           # switch carabiner_kept_at_level_up
            mask = st[b + P_GEAR]
            while mask != 0:
                g = trailing_zeros(mask)
                st[b + P_MAX_ENDURANCE] += at(t, F_CARD_MAX_ENDURANCE, g)
                mask &= mask - 1
    return gained


@njit_noalloc
def end_round(st, t, trace):
    """R67-R72: clear an area, reset players, unlock belayers, next round, round cap."""
    token = st[G_TOKEN]
    area = LEAD - token                                    # R69: Lead, Top Rope, Bouldering
    refresh_area(st, t, area)
    st[G_TOKEN] = (token + 1) % 3
    trace[T_ROUND_ENDED] = 1
    trace[T_CLEARED_AREA] = area
    for seat in range(st[G_N_PLAYERS]):                    # R68 (2)-(3)
        b = pbase(seat)
        extra = 0
        mask = st[b + P_GEAR]
        while mask != 0:
            g = trailing_zeros(mask)
            extra += at(t, F_CARD_TIME_PER_ROUND, g)          # R71 Approach Shoes
            mask &= mask - 1
        st[b + P_TIME] = t[PARAM_START_TIME] + extra
        st[b + P_LOCATION] = LOBBY
        st[b + P_BELAY_STATION] = -1                       # L13
        for a in range(N_AREAS):
            st[b + P_MARKS + a] = 0
        for s in range(N_STATS):                           # once-per-round abilities reset
            st[b + P_REDIST + s] = 0
        st[b + P_REDIST_USED] = 0
    for k in range(N_STATIONS):
        st[G_STATION_CLAIM + k] = -1
    next_round = st[G_ROUND] + 1                           # R70 (L13: no unlock)
    if t[PARAM_TR_STATIONS] == 0:
        if next_round >= t[PARAM_BELAYERS_2_ROUND] and st[G_BELAYERS] < 2:
            st[G_BELAYERS] = 2
        if next_round >= t[PARAM_BELAYERS_3_ROUND] and st[G_BELAYERS] < 3:
            st[G_BELAYERS] = 3
    st[G_ROUND] = next_round                               # R68 (5), R19
    st[G_CURRENT] = 0
    max_rounds = t[PARAM_MAX_ROUNDS]                # R72
    if max_rounds > 0 and st[G_ROUND] > max_rounds:
        st[G_OVER] = 1
        st[G_WINNER] = -1
        st[G_END_REASON] = END_MAX_ROUNDS


@njit_noalloc
def advance_turn(st, t, trace):
    """R20: who acts next, or the round ends (R67)."""
    n = st[G_N_PLAYERS]
    most = st[pbase(0) + P_TIME]
    for seat in range(1, n):
        most = max(most, st[pbase(seat) + P_TIME])
    if most <= 0:
        end_round(st, t, trace)
        return
    if st[pbase(st[G_CURRENT]) + P_TIME] >= most:
        return
    for seat in range(n):
        if st[pbase(seat) + P_TIME] == most:
            st[G_CURRENT] = seat
            return


@njit_noalloc
def note_turn_end(st, action, legal, n_legal):
    """Count the mover's turn ended with time left while it could still train, climb, buy or
    redistribute: more than ending and resting (R37, R38) among `legal[:n_legal]`, the legal
    actions in the engine's order. A statistic for the reports' validity warnings
    (P_EARLY_ENDS), not a rule: called where a seat decides (the kernel, the single-game API),
    before apply_action, so an imagined game of a search counts nothing."""
    if action != END_TURN or st[pbase(st[G_CURRENT]) + P_TIME] <= 0:
        return
    ending_or_resting = 2 if n_legal > 1 and legal[1] == REST else 1
    if n_legal > ending_or_resting:
        st[pbase(st[G_CURRENT]) + P_EARLY_ENDS] += 1


@njit_noalloc
def apply_action(st, t, action, trace):
    """Apply a LEGAL action of the current player (R18: only the current player acts; R37-R59),
    then the housekeeping of R60, which decides after every action who acts next. Callers check
    legality first (illegal_reason); like the designers' engine, this trusts it (R21)."""
    seat = st[G_CURRENT]
    b = pbase(seat)
    trace[:] = 0
    trace[T_ACTOR] = seat
    trace[T_ACTION] = action
    trace[T_ROUTE] = -1
    trace[T_CARD] = -1
    trace[T_CLEARED_AREA] = -1
    if action == END_TURN:                                             # R37
        st[b + P_TIME] = 0
    elif action == REST:
        rest(st, t, seat)
    elif action < CLIMB:
        train(st, t, seat, action - TRAIN)
    elif action < MILESTONE:
        resolve_attempt(st, t, seat, action_route(st, action), -1, trace)
    elif action < BUY_ROTATION:
        resolve_attempt(st, t, seat, action_route(st, action), action - MILESTONE, trace)
    elif action < REDISTRIBUTE:
        buy(st, t, seat, action, trace)
    else:
        redistribute(st, seat, action)
    st[G_N_ACTIONS] += 1
    trace[T_TIME_AFTER] = st[b + P_TIME]
    trace[T_ENDURANCE_AFTER] = st[b + P_ENDURANCE]
    trace[T_LOCATION_AFTER] = st[b + P_LOCATION]
    trace[T_LEVELS_GAINED] = level_up(st, t, seat)                     # R60 (1), R66
    if st[b + P_DONE] == (1 << N_TIERS) - 1:                           # R60 (2), R65
        st[G_OVER] = 1
        st[G_WINNER] = seat
        st[G_END_REASON] = END_WINNER
        return
    advance_turn(st, t, trace)                                         # R60 (3)-(4)
