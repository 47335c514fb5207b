"""The fixed-array layout of one All-In Ascent game, and the action codes.

A game is ONE int64 vector of length STATE_SIZE. The batch kernel keeps an (n_games, STATE_SIZE)
matrix; the single-game API keeps one row. Copying a game (for a look-ahead) is copying a row;
comparing two games is comparing rows.

    index        block                     contents
    ---------    ------------------------  -------------------------------------------------
    0..          GLOBAL                    round, current seat, clearing token, belayers,
                                           game-over flag, winner seat, end reason,
                                           mulberry32 state, players, actions taken, seed
                 MILESTONES   [3]          route id of the beginner/intermediate/expert milestone
                 N_VISIBLE    [3]          visible routes per area
                 VISIBLE      [3 x 6]      route ids shown, per area, in pickN order (-1 = none)
                 N_ROTATION, ROTATION [3]  the shop rotation: card ids (R16, R43)
                 STATION_CLAIM [4]         who took each training station this round
                                           (only with the training_station_per_round switch)
    PLAYER_BASE  PLAYER[seat] x 4, each PLAYER_SIZE long:
                   character, level, xp, endurance, max endurance, stats[4],
                   training bonuses[4], time left, Beta Boost flag, location,
                   gear bitmask (bit g = owns card g), milestone bitmask (bit t = tier t done),
                   attempted-route marks[3] (bit i of area a = route i of that area, R45),
                   belay station (v0.6.0 Top Rope, L6; -1 = none),
                   stat shifts[4] and used flag of this round's redistribution (switch
                   route_reader_redistribution; always 0 otherwise)
                 TALLY[seat] (records only; the rules read XP spent only under the
                 spendable_xp_kept_at_level_up switch):
                   milestone round[3], XP spent, card round bought[MAX_GEAR],
                   climbs tried/succeeded per area[3+3], milestone attempts[3],
                   trainings per stat[4], rests, turns ended with time left and more
                   than resting legal (engine.note_turn_end)
    SCRATCH      working memory of shuffles (not state; excluded from comparisons)

Route ids index all routes: bouldering first, then topRope, then leadClimbing, each in data
order. Card ids index GEAR_SHOP in data order. Locations: LOBBY, REST, GEAR_SHOP,
AREA_LOC + area, STATION_LOC + station.

Action codes (legal actions are always listed in increasing code, which is R22's order):
    END_TURN, REST, TRAIN + station, CLIMB + area * MAX_VISIBLE + slot, MILESTONE + tier,
    BUY_ROTATION + slot, BUY_ACCESS + k (k-th access card in data order),
    REDISTRIBUTE + (from_stat * 3 + k) * MAX_REDISTRIBUTION + points - 1 (the Route Reader moves
    `points` from from_stat to the k-th of the other three stats; only under the switch
    route_reader_redistribution).
"""
import numpy as np

from sim.core.layout import layout

N_STATS = 4
N_AREAS = 3
N_TIERS = 3
N_STATIONS = 4
MAX_PLAYERS = 4
MAX_VISIBLE = 6
ROTATION_SIZE = 3
MAX_ACCESS = 4
MAX_GEAR = 20
MAX_LEVEL = 15
MAX_DICE = 5  # max(2, 3 effects + Sprinter's) + Power Tap Belt's extra die
MAX_REDISTRIBUTION = 20  # the most points a redistribution action can name (the knob's bound)

# Areas (RULES.md conventions)
BOULDERING, TOP_ROPE, LEAD = 0, 1, 2
# Characters, in the order of RULES.md §9 (identity is the key, R74)
TECHNICIAN, SPRINTER, IRON_LUNG, FREE_SOLO, ROUTE_READER = 0, 1, 2, 3, 4
N_CHARACTERS = 5
# Route tags
TAG_NONE, TAG_PINCH_CRIMP, TAG_DYNAMIC, TAG_TOE_HEEL, TAG_ROOF_SLOPER = 0, 1, 2, 3, 4
# Locations (R31)
LOBBY, REST_LOC, GEAR_SHOP_LOC, AREA_LOC, STATION_LOC = 0, 1, 2, 3, 6
# End reasons (R73)
END_NONE, END_WINNER, END_MAX_ROUNDS = 0, 1, 2
END_REASON_NAMES = ("", "winner", "max_rounds")


_G, GLOBAL_SIZE = layout([
    ("ROUND", 1), ("CURRENT", 1), ("TOKEN", 1), ("BELAYERS", 1), ("OVER", 1), ("WINNER", 1),
    ("END_REASON", 1), ("RNG", 1), ("N_PLAYERS", 1), ("N_ACTIONS", 1), ("SEED", 1),
    ("MILESTONES", N_TIERS), ("N_VISIBLE", N_AREAS), ("VISIBLE", N_AREAS * MAX_VISIBLE),
    ("N_ROTATION", 1), ("ROTATION", ROTATION_SIZE),
    ("STATION_CLAIM", N_STATIONS),
])
G_ROUND, G_CURRENT, G_TOKEN, G_BELAYERS = _G["ROUND"], _G["CURRENT"], _G["TOKEN"], _G["BELAYERS"]
G_OVER, G_WINNER, G_END_REASON, G_RNG = _G["OVER"], _G["WINNER"], _G["END_REASON"], _G["RNG"]
G_N_PLAYERS, G_N_ACTIONS, G_SEED = _G["N_PLAYERS"], _G["N_ACTIONS"], _G["SEED"]
G_MILESTONES, G_N_VISIBLE, G_VISIBLE = _G["MILESTONES"], _G["N_VISIBLE"], _G["VISIBLE"]
G_N_ROTATION, G_ROTATION = _G["N_ROTATION"], _G["ROTATION"]
# switch training_station_per_round: the seat that took each station this round, -1 = free
G_STATION_CLAIM = _G["STATION_CLAIM"]

_P, PLAYER_SIZE = layout([
    ("CHARACTER", 1), ("LEVEL", 1), ("XP", 1), ("ENDURANCE", 1), ("MAX_ENDURANCE", 1),
    ("STATS", N_STATS), ("TRAINING", N_STATS), ("TIME", 1), ("BETA", 1), ("LOCATION", 1),
    ("GEAR", 1), ("DONE", 1), ("MARKS", N_AREAS), ("BELAY_STATION", 1),
    ("REDIST", N_STATS), ("REDIST_USED", 1),
    # tallies for the records
    ("MS_ROUND", N_TIERS), ("XP_SPENT", 1), ("GEAR_ROUND", MAX_GEAR),
    ("CLIMBS", N_AREAS), ("CLIMBS_OK", N_AREAS), ("MS_TRIES", N_TIERS),
    ("TRAININGS", N_STATS), ("RESTS", 1), ("EARLY_ENDS", 1),
])
P_CHARACTER, P_LEVEL, P_XP = _P["CHARACTER"], _P["LEVEL"], _P["XP"]
P_ENDURANCE, P_MAX_ENDURANCE = _P["ENDURANCE"], _P["MAX_ENDURANCE"]
P_STATS, P_TRAINING, P_TIME, P_BETA = _P["STATS"], _P["TRAINING"], _P["TIME"], _P["BETA"]
P_LOCATION, P_GEAR, P_DONE, P_MARKS = _P["LOCATION"], _P["GEAR"], _P["DONE"], _P["MARKS"]
P_BELAY_STATION = _P["BELAY_STATION"]     # v0.6.0 (L6): Top Rope belay station, -1 = none
# switch route_reader_redistribution: this round's shift of each stat, and whether it was used
P_REDIST, P_REDIST_USED = _P["REDIST"], _P["REDIST_USED"]
P_MS_ROUND, P_XP_SPENT, P_GEAR_ROUND = _P["MS_ROUND"], _P["XP_SPENT"], _P["GEAR_ROUND"]
P_CLIMBS, P_CLIMBS_OK, P_MS_TRIES = _P["CLIMBS"], _P["CLIMBS_OK"], _P["MS_TRIES"]
P_TRAININGS, P_RESTS, P_EARLY_ENDS = _P["TRAININGS"], _P["RESTS"], _P["EARLY_ENDS"]
PLAYER_RULES_SIZE = _P["MS_ROUND"]  # the part of a player block the rules read

PLAYER_BASE = GLOBAL_SIZE
SCRATCH = PLAYER_BASE + MAX_PLAYERS * PLAYER_SIZE
SCRATCH_SIZE = 64  # dice (8) + a shuffle buffer for up to 56 items
STATE_SIZE = SCRATCH + SCRATCH_SIZE

# Action codes
END_TURN = 0
REST = 1
TRAIN = 2
CLIMB = TRAIN + N_STATIONS
MILESTONE = CLIMB + N_AREAS * MAX_VISIBLE
BUY_ROTATION = MILESTONE + N_TIERS
BUY_ACCESS = BUY_ROTATION + ROTATION_SIZE
REDISTRIBUTE = BUY_ACCESS + MAX_ACCESS
N_ACTIONS = REDISTRIBUTE + N_STATS * (N_STATS - 1) * MAX_REDISTRIBUTION

# The trace: what one action did, for transcripts (written by apply_action, never read by it).
_T, TRACE_SIZE = layout([
    ("ACTOR", 1), ("ACTION", 1), ("ROUTE", 1), ("EFF_TIME", 1), ("EFF_ENDURANCE", 1),
    ("N_DICE", 5), ("DICE", 5 * MAX_DICE),            # 5 stages: rolled, after re-roll,
    ("REROLL_INDEX", 1), ("SEQMEM_INDEX", 1),        # after Power Tap, after Sequence
    ("N_EFFECTS", 1), ("EFFECT_STAT", 4), ("EFFECT_MOD", 4), ("EFFECT_DIE", 4),  # Mem., final
    ("MENTOR_INDEX", 1), ("REQ", N_STATS), ("EFF_STATS", N_STATS), ("PASSED", 1),
    ("SUCCESS", 1), ("XP_GAINED", 1), ("PENALTY", 1), ("HEAL", 1), ("BETA_USED", 1),
    ("LEVELS_GAINED", 1), ("CARD", 1), ("REPLACEMENT", 1), ("ROUND_ENDED", 1),
    ("CLEARED_AREA", 1), ("TIME_AFTER", 1), ("ENDURANCE_AFTER", 1), ("LOCATION_AFTER", 1),
    ("WORK", N_STATS + 3 * MAX_DICE),    # chosen_dice_requirements' vectors, not a trace field
])
T_ACTOR, T_ACTION, T_ROUTE = _T["ACTOR"], _T["ACTION"], _T["ROUTE"]
T_EFF_TIME, T_EFF_ENDURANCE = _T["EFF_TIME"], _T["EFF_ENDURANCE"]
T_N_DICE, T_DICE, T_REROLL_INDEX, T_SEQMEM_INDEX = (_T["N_DICE"], _T["DICE"], _T["REROLL_INDEX"],
                                                   _T["SEQMEM_INDEX"])
T_N_EFFECTS, T_EFFECT_STAT, T_EFFECT_MOD, T_EFFECT_DIE = (_T["N_EFFECTS"], _T["EFFECT_STAT"],
                                                          _T["EFFECT_MOD"], _T["EFFECT_DIE"])
T_MENTOR_INDEX, T_REQ, T_EFF_STATS, T_PASSED = (_T["MENTOR_INDEX"], _T["REQ"], _T["EFF_STATS"],
                                                _T["PASSED"])
T_SUCCESS, T_XP_GAINED, T_PENALTY, T_HEAL, T_BETA_USED = (_T["SUCCESS"], _T["XP_GAINED"],
                                                          _T["PENALTY"], _T["HEAL"], _T["BETA_USED"])
T_LEVELS_GAINED, T_CARD, T_REPLACEMENT = _T["LEVELS_GAINED"], _T["CARD"], _T["REPLACEMENT"]
T_ROUND_ENDED, T_CLEARED_AREA = _T["ROUND_ENDED"], _T["CLEARED_AREA"]
# the actor's time, endurance and location right after the action, before any round end
T_TIME_AFTER, T_ENDURANCE_AFTER = _T["TIME_AFTER"], _T["ENDURANCE_AFTER"]
T_LOCATION_AFTER = _T["LOCATION_AFTER"]
T_WORK = _T["WORK"]
# dice stages
STAGE_ROLLED, STAGE_REROLL, STAGE_POWER_TAP, STAGE_SEQMEM, STAGE_FINAL = 0, 1, 2, 3, 4
REPLACEMENT_NONE, REPLACEMENT_SLOT_REMOVED = -1, -2


def new_state():
    return np.zeros(STATE_SIZE, dtype=np.int64)


def new_trace():
    return np.zeros(TRACE_SIZE, dtype=np.int64)


def player_offset(seat):
    return PLAYER_BASE + seat * PLAYER_SIZE
