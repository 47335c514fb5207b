"""The fixed-array layout of one First Ascent game, and the decision and action codes.

A game is ONE int64 vector of length STATE_SIZE. The record that leaves the batch kernel is
its prefix [0, RECORD_SIZE): globals, seats and tallies.

    block          contents
    -------------  -----------------------------------------------------------------------
    GLOBAL         players, board side (0 desert, 1 forest), round, first player, current
                   seat, game over, end reason, winner (-1 shared), game seed, rng state,
                   decisions, headwall revealed, shared objectives in play [3], counts of
                   deck / discard / Summit Beta supply, climbing-deck position, tallies,
                   the context of the decision being asked (G_AUX: the climbing cards)
    SEAT x 5       character, water, psych, hex, route [8] and its length and hex mask,
                   permanent tokens [4] (+ gained), technique tokens [4], Summit Beta held
                   (bit id), personal objectives [2], score and its parts, this round's
                   Rerack status, objectives met (bit id), pitch-type counts [7]
    TALLY x 5      counters for the records (never read by a rule)
    -------------  RECORD_SIZE ----------------------------------------------------------
    CARDS          hand, face-up board and face-down board of each seat, per asset kind [38];
                   discard pile per kind [38]; deck (kinds, top = last) [124]; Spread [4];
                   Portaledge piles [4 x 48] (top = last) and their sizes
    TILES          tile on each hex [44]; requirement tokens per hex and asset type [44 x 4]
    DECKS          climbing-card order [70]; Summit Beta supply order [12]

Cards of one kind are identical, so hands, boards and the discard pile are counts per kind;
only the deck and the Portaledge piles have an order.

Decisions (D_*) and their action codes: a policy gets the decision kind and the list of
legal codes, and returns one of them.
    D_TURN        REST, CLIMB + hex, RISK + hex, TRADE + 4*given type + pile, PLAY_SB + id
    D_OPTION      2*card + option (card 0 or 1: Cool-Headed Crimper's two), + WITH_JESUS; PASS
    D_OPPONENT    seat
    D_PILE        asset type (a Portaledge pile)
    D_TECHNIQUE   technique 1..4
    D_CARD        kind + 64*source (SRC_HAND, SRC_BOARD_DOWN, SRC_BOARD_UP); STOP (optional)
    D_STEAL       256*victim + 64*source + kind
    D_REQ_TOKEN   4*hex + asset type
    D_DRAW        Spread slot 0..3, or DRAW_DECK
    D_REST        asset type (a Portaledge card), REST_WATER, REST_PSYCH
    D_SB_KEEP     Summit Beta id
    D_PERMANENT   asset type (take one permanent token), STOP
    D_CHALKBAG    0 keep the result, 1 reroll
    D_SB_WINDOW   CONTINUE, PLAY_SB + id (own-turn tokens during a risk or a Rerack step)
    D_DISCARD_PICK asset kind taken from the discard pile (Rerack token)
"""
from sim.core.layout import layout
from sim.games.first_ascent.data import N_CARDS, N_HEX, N_KINDS

MAX_PLAYERS = 5
ROUTE_MAX = 8
PILE_CAP = 48

# --- globals --------------------------------------------------------------------------------
(G_PLAYERS, G_SIDE, G_ROUND, G_FIRST, G_CURRENT, G_OVER, G_END_REASON, G_WINNER, G_SEED,
 G_RNG, G_DECISIONS, G_HEADWALL_UP, G_SHARED, _shared_2, _shared_3, G_DECK_N, G_DISCARD_N, G_SB_N,
 G_CDECK_POS, G_POLICY_ERROR, G_N_WINNERS,
 # tallies
 G_DECK_RESHUFFLES, G_DECK_DRY, G_SPREAD_STUCK, G_SB_RESHUFFLES, G_ELITIST_START,
 G_STRANDED_END, G_CLIMB_RESHUFFLES, G_AUX,
 # the Risk Die's and play's own random streams (G_RNG deals the setup)
 G_RNG_RISK, G_RNG_DRAW) = range(31)
GLOBAL_SIZE = 32
END_NONE, END_EIGHT_PITCHES, END_STRANDED, END_ROUND_CAP, END_POLICY_ERROR = range(5)
END_REASON_NAMES = ("none", "eight_pitches", "stranded", "round_cap", "policy_error")

# --- seat fields ----------------------------------------------------------------------------
_seat_layout = [
    ("CHAR", 1), ("WATER", 1), ("PSYCH", 1), ("HEX", 1), ("ROUTE", ROUTE_MAX), ("ROUTE_N", 1),
    ("ROUTE_MASK", 1), ("PERM", 4), ("PERM_GAINED", 1), ("TECH", 5), ("SB", 1),
    ("PERSONAL", 2), ("SCORE", 1), ("SC_PITCH", 1), ("SC_SUMMIT", 1), ("SC_SHARED", 1),
    ("SC_SETS", 1), ("SC_SPIDER", 1), ("SC_PERSONAL", 1), ("STATUS", 1), ("OBJ_DONE", 1),
    ("TYPE_N", 7), ("ELITIST_LOST", 1), ("PERSONAL_SCORED", 1),
]
SEAT_BASE = GLOBAL_SIZE
_seat_off, SEAT_FIELDS = layout(_seat_layout)
S_CHAR = SEAT_BASE + _seat_off["CHAR"]
S_WATER = SEAT_BASE + _seat_off["WATER"]
S_PSYCH = SEAT_BASE + _seat_off["PSYCH"]
S_HEX = SEAT_BASE + _seat_off["HEX"]
S_ROUTE = SEAT_BASE + _seat_off["ROUTE"]
S_ROUTE_N = SEAT_BASE + _seat_off["ROUTE_N"]
S_ROUTE_MASK = SEAT_BASE + _seat_off["ROUTE_MASK"]
S_PERM = SEAT_BASE + _seat_off["PERM"]          # F6: tokens are unlimited, so plain counts
S_PERM_GAINED = SEAT_BASE + _seat_off["PERM_GAINED"]
S_TECH = SEAT_BASE + _seat_off["TECH"]            # [1..4] used
S_SB = SEAT_BASE + _seat_off["SB"]
S_PERSONAL = SEAT_BASE + _seat_off["PERSONAL"]
S_SCORE = SEAT_BASE + _seat_off["SCORE"]
S_SC_PITCH = SEAT_BASE + _seat_off["SC_PITCH"]
S_SC_SUMMIT = SEAT_BASE + _seat_off["SC_SUMMIT"]
S_SC_SHARED = SEAT_BASE + _seat_off["SC_SHARED"]
S_SC_SETS = SEAT_BASE + _seat_off["SC_SETS"]
S_SC_SPIDER = SEAT_BASE + _seat_off["SC_SPIDER"]
S_SC_PERSONAL = SEAT_BASE + _seat_off["SC_PERSONAL"]
S_STATUS = SEAT_BASE + _seat_off["STATUS"]
S_OBJ_DONE = SEAT_BASE + _seat_off["OBJ_DONE"]
S_TYPE_N = SEAT_BASE + _seat_off["TYPE_N"]
S_ELITIST_LOST = SEAT_BASE + _seat_off["ELITIST_LOST"]
S_PERSONAL_SCORED = SEAT_BASE + _seat_off["PERSONAL_SCORED"]
# Rerack status of the round (F54-F56)
STATUS_NONE, STATUS_CLIMBED, STATUS_RESTED, STATUS_PENALISED = 0, 1, 2, 3

# --- tallies (records only) -----------------------------------------------------------------
_tally_names = ("CLIMBS", "RISKS", "RISK_RETREATS", "RISK_CHECK", "RISK_MINUS2", "RISK_MINUS1",
                "RESTS", "FORCED_RESTS", "TRADES", "CARD_PASSES", "CARD_ROLLS", "SETS",
                "PERM_TOKENS", "SB_GAINED", "CHALKBAG_REROLLS", "JESUS_USES", "CARDS_GIVEN",
                "CARDS_RECEIVED", "CLIMB_CARDS", "SUMMITS", "HEADWALL", "ROUND_8TH",
                "STRANDED")
TALLY_BASE = SEAT_BASE + MAX_PLAYERS * SEAT_FIELDS
T_FIELDS = {}
for _k, _n in enumerate(_tally_names):
    T_FIELDS[_n] = TALLY_BASE + _k * MAX_PLAYERS
(T_CLIMBS, T_RISKS, T_RISK_RETREATS, T_RISK_CHECK, T_RISK_MINUS2, T_RISK_MINUS1, T_RESTS,
 T_FORCED_RESTS, T_TRADES, T_CARD_PASSES, T_CARD_ROLLS, T_SETS, T_PERM_TOKENS, T_SB_GAINED,
 T_CHALKBAG_REROLLS, T_JESUS_USES, T_CARDS_GIVEN, T_CARDS_RECEIVED, T_CLIMB_CARDS, T_SUMMITS,
 T_HEADWALL, T_ROUND_8TH, T_STRANDED) = (T_FIELDS[n] for n in _tally_names)
# per-seat, per-Summit-Beta-id uses; per-seat shared-objective points
T_SB_USED = TALLY_BASE + len(_tally_names) * MAX_PLAYERS          # [seat * 13 + id]
T_SHARED_POINTS = T_SB_USED + MAX_PLAYERS * 13                   # [seat * 17 + id]
RECORD_SIZE = T_SHARED_POINTS + MAX_PLAYERS * 17

# --- cards, tiles, decks --------------------------------------------------------------------
HAND = RECORD_SIZE                               # [seat * N_KINDS + kind]
# F38: an asset board is counts per kind, face up until the next Follow phase (F52) and face
# down after it; its 4 visible slots a column are only how the cards lie, and not kept
BOARD_UP = HAND + MAX_PLAYERS * N_KINDS
BOARD_DOWN = BOARD_UP + MAX_PLAYERS * N_KINDS
DISCARD = BOARD_DOWN + MAX_PLAYERS * N_KINDS     # [kind]
DECK = DISCARD + N_KINDS                         # [position], top = G_DECK_N - 1
SPREAD = DECK + N_CARDS                          # [slot] kind, 0 = empty
SPREAD_LAST = SPREAD + 4                         # slot dealt last
PILE = SPREAD_LAST + 1                           # [type * PILE_CAP + position]
PILE_N = PILE + 4 * PILE_CAP
TILE = PILE_N + 4                                # [hex] tile id, 0 = none
REQ_TOKENS = TILE + N_HEX                        # [hex * 4 + type]
CDECK = REQ_TOKENS + 4 * N_HEX                   # climbing-card ids in draw order
SB_SUPPLY = CDECK + 70                           # Summit Beta ids, top = G_SB_N - 1
SB_DISCARD = SB_SUPPLY + 12                      # bit id
STATE_SIZE = SB_DISCARD + 1

# --- decisions and action codes -------------------------------------------------------------
(D_TURN, D_OPTION, D_OPPONENT, D_PILE, D_TECHNIQUE, D_CARD, D_STEAL, D_REQ_TOKEN, D_DRAW,
 D_REST, D_SB_KEEP, D_PERMANENT, D_CHALKBAG, D_SB_WINDOW, D_DISCARD_PICK) = range(15)
DECISION_NAMES = ("turn", "option", "opponent", "pile", "technique", "card", "steal",
                  "requirement_token", "draw", "rest", "summit_beta_keep", "permanent",
                  "chalkbag", "summit_beta_window", "discard_pick")
A_REST = 0
A_CLIMB = 0            # + hex (1..43)
A_RISK = 50            # + hex
A_TRADE = 100          # + 4 * given type + pile type
A_PLAY_SB = 120        # + Summit Beta id
A_CONTINUE = 0         # D_SB_WINDOW
WITH_JESUS = 4         # D_OPTION
A_PASS = 8             # D_OPTION
SRC_HAND, SRC_BOARD_DOWN, SRC_BOARD_UP = 0, 1, 2
A_STOP = 255           # D_CARD (optional discards), D_PERMANENT uses PERM_STOP
PERM_STOP = 4
DRAW_DECK = 4
REST_WATER, REST_PSYCH = 4, 5
MAX_LEGAL = 640

# Summit Beta ids (data.json)
SB_RERACK, SB_BORROWED_RACK, SB_JUMAR, SB_ENERGY_DRINK, SB_EXTRA_WATER, SB_NEW_RUBBER, \
    SB_SIMUL_CLIMB, SB_GUIDEBOOK, SB_BOMBER_ANCHOR, SB_JESUS_PIECE, SB_LUCKY_CHALKBAG, \
    SB_SPIDER_STICK = range(1, 13)
OWN_TURN_TOKENS = (SB_RERACK, SB_ENERGY_DRINK, SB_SIMUL_CLIMB, SB_BOMBER_ANCHOR)
PAYING_TOKENS = (SB_BORROWED_RACK, SB_JUMAR, SB_EXTRA_WATER, SB_GUIDEBOOK)

# Risk Die faces
FACE_CHECK, FACE_MINUS_2, FACE_MINUS_1 = 0, 1, 2
FACE_NAMES = ("check", "minus_2_cards", "minus_1_card_1_psych")
