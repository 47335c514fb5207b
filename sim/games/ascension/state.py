"""The fixed-array layout of one Ascension game, the component list and the action codes.

A game is ONE int64 vector of length STATE_SIZE (as for All-In Ascent). The record that leaves
the batch kernel is its prefix [0, RECORD_SIZE): globals, seats and tallies, not the board.

    index          block              contents
    -------------  -----------------  --------------------------------------------------------
    0..            GLOBAL             players, turn count, cursor (A44), current seat, phase,
                                      turn kind, pending extra-turn check, pending bonus turn,
                                      privileged seat, priv_dead, joker state and square,
                                      summit counter, game over, winner, end reason, held piece,
                                      its origin and former orientation, game seed, decisions
                   GLOBAL TALLY       reveals per symbol [8], pillar raises, privilege passes
                                      and losses, first summit (seat, turn), skipped piece
                                      phases, tallest stack (pieces), joker removals
    SEAT_BASE      SEAT[field] x 4    active, pawn square, blocks, summit, ever_summit,
                                      summit stamp, bivouac pending, lock, reserve counts,
                                      left-corner flag, lost-privileges flag
    TALLY_BASE     TALLY[field] x 4   per-seat counters for the records (never read by rules)
    -------------  RECORD_SIZE ------------------------------------------------------------
    SQUARE blocks  [81] each          stack size, height H (hu), shown shapes, shown symbol,
                                      pawn on the square (-1 none)
    STACK          [81 x MAX_STACK_CAP]  piece ids bottom to top
    PIECE blocks   [93] each          face up, square (-1 reserve, -2 out of play/box),
                                      knowledge bitmask (A15)
    VERSION        [81]               per square: a count of the pushes and pops on its
                                      stack (a trial lift too), read by no rule: the kernel
                                      builds a seat's view on its last one, but for the
                                      squares that changed (view.py)

Shown shapes and symbol (§1.4) are cached per square like H, and updated wherever a stack
changes, so that pawn rules and bots read them in O(1). Squares are s = 9*r + c.

Action codes depend on the phase (the legal list says which are open):
    PHASE_ORIGIN   square s (pick the top of s), ORIGIN_SHAPED, ORIGIN_NEUTRAL, ORIGIN_JOKER
    PHASE_PLACE    2*d + up  (up = 1: face up)
    PHASE_PAWN     square d, or STAY (bivouac_mode optional, corner_may_wait)
    PHASE_SPRING   square d, or STAY (decline the spring step, A34)
    PHASE_JOKER    2*d + 1 (place the joker too, A57), or JOKER_DECLINE
"""
import numpy as np

from sim.core.layout import layout

N_SQUARES = 81
N_PIECES = 93
N_CUBES = 76
MAX_PLAYERS = 4
MAX_STACK_CAP = 32          # the array bound; the rule cap is the switch max_stack (A24)
PILLAR = 40
PILLAR_BASE = 9
CORNERS = np.array([0, 8, 80, 72], np.int64)       # corner k, clockwise from top left (§1.1)
SHAPE_NAMES = ("star", "triangle", "square", "circle")
SHAPE_SYMBOLS = ("*", "^", "#", "o")

# Piece kinds and symbols (§1.3)
CUBE, HALF, JOKER = 0, 1, 2
SYM_NONE, SYM_LADDER, SYM_MATTRESS, SYM_SPRING, SYM_CABLE, SYM_CHASM, SYM_BIVOUAC, SYM_DRAGON = \
    0, 1, 2, 3, 4, 5, 6, 7
SYMBOL_NAMES = ("none", "ladder", "mattress", "spring", "cable_car", "chasm", "bivouac", "dragon")
SPECIAL_SYMBOLS = SYMBOL_NAMES[1:7]
JOKER_ID = 92

# Joker states (§1.7)
JOKER_BOX, JOKER_HAND, JOKER_BOARD, JOKER_GONE = 0, 1, 2, 3
# Phases of a decision
# PHASE_TURN_END: no decision pending; the engine starts the next turn (engine.settle).
PHASE_ORIGIN, PHASE_PLACE, PHASE_PAWN, PHASE_SPRING, PHASE_JOKER, PHASE_TURN_END = 0, 1, 2, 3, 4, 5
PHASE_NAMES = ("origin", "place", "pawn", "spring", "joker", "turn_end")
# Turn kinds (A10, A44, D21)
TURN_NORMAL, TURN_EXTRA, TURN_BONUS = 0, 1, 2
TURN_KIND_NAMES = ("normal", "extra", "bonus")
# End reasons (A45-A47); ACTION_CAP/POLICY_ERROR are not rules (the kernel's safety stops)
END_NONE, END_WIN, END_ALL_ELIMINATED, END_CAP, END_POLICY_ERROR = 0, 1, 2, 3, 4
END_REASON_NAMES = ("", "win", "all_eliminated", "cap", "policy_error")
# Phases of a pawn's race, for block statistics (§6 Q4)
RACE_ASCENT, RACE_SUMMIT, RACE_DESCENT = 0, 1, 2
RACE_NAMES = ("ascent", "summit", "descent")

# Action codes
ORIGIN_SHAPED, ORIGIN_NEUTRAL, ORIGIN_JOKER = 81, 82, 83
STAY = 81
JOKER_DECLINE = 2 * N_SQUARES
N_ACTIONS = 2 * N_SQUARES + 1   # the longest legal list: every (destination, orientation)


def _piece_tables():
    """kind, drawn shape mask, drawn symbol and height of the 93 pieces (§1.3)."""
    kind = np.zeros(N_PIECES, np.int64)
    shapes = np.zeros(N_PIECES, np.int64)
    symbol = np.zeros(N_PIECES, np.int64)
    height = np.full(N_PIECES, 2, np.int64)
    for i, k in enumerate(range(4)):                          # 36-43: one shape, two each
        shapes[36 + 2 * k] = shapes[37 + 2 * k] = 1 << k
    for i, mask in enumerate((3, 5, 9, 6, 10, 12, 14, 13, 11, 7)):   # 44-63: 2 and 3 shapes
        shapes[44 + 2 * i] = shapes[45 + 2 * i] = mask
    for ids, sym in (((64, 65, 66), SYM_CABLE), ((67, 68), SYM_LADDER),
                     ((69, 70), SYM_MATTRESS), ((71, 72), SYM_SPRING), ((73, 74), SYM_CHASM),
                     ((75,), SYM_BIVOUAC)):
        for x in ids:
            symbol[x] = sym
    for k in range(4):                              # half-cube group k: ids N_CUBES + 4k .. + 3
        for j in range(4):
            x = N_CUBES + 4 * k + j
            kind[x] = HALF
            height[x] = 1
            shapes[x] = (1 << k) if j < 2 else 0
    kind[JOKER_ID] = JOKER
    height[JOKER_ID] = 1
    symbol[JOKER_ID] = SYM_DRAGON
    return kind, shapes, symbol, height


P_KIND, P_SHAPES_DRAWN, P_SYMBOL_DRAWN, P_HEIGHT = _piece_tables()


def _neighbours():
    nb = np.full((N_SQUARES, 8), -1, np.int64)
    for s in range(N_SQUARES):
        r, c = divmod(s, 9)
        k = 0
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if (dr or dc) and 0 <= r + dr < 9 and 0 <= c + dc < 9:
                    nb[s, k] = 9 * (r + dr) + c + dc
                    k += 1
    return nb


NB = _neighbours()
CORNER_BIT = np.zeros(N_SQUARES, np.int64)        # shape bit printed on a corner, 0 elsewhere
for _k in range(4):
    CORNER_BIT[CORNERS[_k]] = 1 << _k


_G, _end = layout([
    ("N_PLAYERS", 1), ("TURN_COUNT", 1), ("CURSOR", 1), ("CURRENT", 1), ("PHASE", 1),
    ("TURN_KIND", 1), ("EXTRA_CHECK", 1), ("BONUS_PENDING", 1), ("PRIVILEGED", 1),
    ("PRIV_DEAD", 1), ("JOKER_STATE", 1), ("JOKER_SQ", 1), ("SEQ", 1), ("OVER", 1),
    ("WINNER", 1), ("END_REASON", 1), ("HELD", 1), ("HELD_ORIGIN", 1), ("HELD_WAS_UP", 1),
    ("SEED", 1), ("DECISIONS", 1), ("STAY_OK", 1),
    # global tallies (records only)
    ("REVEALS", 8), ("PILLAR_RAISES", 1), ("PRIV_PASSES", 1), ("PRIV_LOSSES", 1),
    ("FIRST_SUMMIT_SEAT", 1), ("FIRST_SUMMIT_TURN", 1), ("PIECE_SKIPS", 1),
    ("TALLEST_STACK", 1), ("JOKER_REMOVALS", 1),
])
G_N_PLAYERS = _G["N_PLAYERS"]
G_TURN_COUNT = _G["TURN_COUNT"]
G_CURSOR = _G["CURSOR"]
G_CURRENT = _G["CURRENT"]
G_PHASE = _G["PHASE"]
G_TURN_KIND = _G["TURN_KIND"]
G_EXTRA_CHECK = _G["EXTRA_CHECK"]
G_BONUS_PENDING = _G["BONUS_PENDING"]
G_PRIVILEGED = _G["PRIVILEGED"]
G_PRIV_DEAD = _G["PRIV_DEAD"]
G_JOKER_STATE = _G["JOKER_STATE"]
G_JOKER_SQ = _G["JOKER_SQ"]
G_SEQ = _G["SEQ"]
G_OVER = _G["OVER"]
G_WINNER = _G["WINNER"]
G_END_REASON = _G["END_REASON"]
G_HELD = _G["HELD"]
G_HELD_ORIGIN = _G["HELD_ORIGIN"]
G_HELD_WAS_UP = _G["HELD_WAS_UP"]
G_SEED = _G["SEED"]
G_DECISIONS = _G["DECISIONS"]
G_STAY_OK = _G["STAY_OK"]
G_REVEALS = _G["REVEALS"]
G_PILLAR_RAISES = _G["PILLAR_RAISES"]
G_PRIV_PASSES = _G["PRIV_PASSES"]
G_PRIV_LOSSES = _G["PRIV_LOSSES"]
G_FIRST_SUMMIT_SEAT = _G["FIRST_SUMMIT_SEAT"]
G_FIRST_SUMMIT_TURN = _G["FIRST_SUMMIT_TURN"]
G_PIECE_SKIPS = _G["PIECE_SKIPS"]
G_TALLEST_STACK = _G["TALLEST_STACK"]
G_JOKER_REMOVALS = _G["JOKER_REMOVALS"]

SEAT_FIELDS = ("ACTIVE", "PAWN_SQ", "BLOCKS", "SUMMIT", "EVER_SUMMIT", "SUMMIT_SEQ", "BIV",
               "LOCK", "RES_SHAPED", "RES_NEUTRAL", "LEFT_CORNER", "LOST_PRIV")
SEAT_BASE = _end
_S = {name: SEAT_BASE + MAX_PLAYERS * i for i, name in enumerate(SEAT_FIELDS)}
S_ACTIVE = _S["ACTIVE"]
S_PAWN_SQ = _S["PAWN_SQ"]
S_BLOCKS = _S["BLOCKS"]
S_SUMMIT = _S["SUMMIT"]
S_EVER_SUMMIT = _S["EVER_SUMMIT"]
S_SUMMIT_SEQ = _S["SUMMIT_SEQ"]
S_BIV = _S["BIV"]
S_LOCK = _S["LOCK"]
S_RES_SHAPED = _S["RES_SHAPED"]
S_RES_NEUTRAL = _S["RES_NEUTRAL"]
S_LEFT_CORNER = _S["LEFT_CORNER"]
S_LOST_PRIV = _S["LOST_PRIV"]

# Per-seat tallies: records only, never read by a rule.
TALLY_FIELDS = (
    "TURNS", "EXTRA_TURNS", "BONUS_TURNS", "PIECE_MOVES", "FACE_UP_PLACEMENTS", "REVEALS_OWN",
    "PILLAR_RAISES", "HALF_PLACED", "JOKER_PLACED", "FIRST_SUMMIT_TURN", "SUMMIT_ARRIVALS",
    "PRIV_GAINED", "BLOCK_ASCENT", "BLOCK_SUMMIT", "BLOCK_DESCENT", "ELIM_RACE", "ELIM_TURN",
    "BEST_HEIGHT", "PAWN_MOVES", "LADDER_CLIMBS", "MATTRESS_DROPS", "SPRING_STEPS",
    "CABLE_RIDES", "BIVOUAC_STAYS", "CHASM_DENIALS", "CORNER_WAITS", "FIRST_BLOCK_RACE")
TALLY_BASE = SEAT_BASE + MAX_PLAYERS * len(SEAT_FIELDS)
T = {name: TALLY_BASE + MAX_PLAYERS * i for i, name in enumerate(TALLY_FIELDS)}
RECORD_SIZE = TALLY_BASE + MAX_PLAYERS * len(TALLY_FIELDS)
T_TURNS = T["TURNS"]
T_EXTRA_TURNS = T["EXTRA_TURNS"]
T_BONUS_TURNS = T["BONUS_TURNS"]
T_PIECE_MOVES = T["PIECE_MOVES"]
T_FACE_UP_PLACEMENTS = T["FACE_UP_PLACEMENTS"]
T_REVEALS_OWN = T["REVEALS_OWN"]
T_PILLAR_RAISES = T["PILLAR_RAISES"]
T_HALF_PLACED = T["HALF_PLACED"]
T_JOKER_PLACED = T["JOKER_PLACED"]
T_FIRST_SUMMIT_TURN = T["FIRST_SUMMIT_TURN"]
T_SUMMIT_ARRIVALS = T["SUMMIT_ARRIVALS"]
T_PRIV_GAINED = T["PRIV_GAINED"]
T_BLOCK_ASCENT = T["BLOCK_ASCENT"]
T_BLOCK_SUMMIT = T["BLOCK_SUMMIT"]
T_BLOCK_DESCENT = T["BLOCK_DESCENT"]
T_ELIM_RACE = T["ELIM_RACE"]
T_ELIM_TURN = T["ELIM_TURN"]
T_BEST_HEIGHT = T["BEST_HEIGHT"]
T_PAWN_MOVES = T["PAWN_MOVES"]
T_LADDER_CLIMBS = T["LADDER_CLIMBS"]
T_MATTRESS_DROPS = T["MATTRESS_DROPS"]
T_SPRING_STEPS = T["SPRING_STEPS"]
T_CABLE_RIDES = T["CABLE_RIDES"]
T_BIVOUAC_STAYS = T["BIVOUAC_STAYS"]
T_CHASM_DENIALS = T["CHASM_DENIALS"]
T_CORNER_WAITS = T["CORNER_WAITS"]
T_FIRST_BLOCK_RACE = T["FIRST_BLOCK_RACE"]

_B, STATE_SIZE = layout([
    ("STACK_N", N_SQUARES), ("H", N_SQUARES), ("SHAPES", N_SQUARES), ("SYMBOL", N_SQUARES),
    ("PAWN_ON", N_SQUARES), ("STACK", N_SQUARES * MAX_STACK_CAP),
    ("P_UP", N_PIECES), ("P_SQ", N_PIECES), ("KNOWN", N_PIECES), ("VERSION", N_SQUARES),
], RECORD_SIZE)
B_STACK_N = _B["STACK_N"]
B_H = _B["H"]
B_SHAPES = _B["SHAPES"]
B_SYMBOL = _B["SYMBOL"]
B_PAWN_ON = _B["PAWN_ON"]
B_STACK = _B["STACK"]
B_P_UP = _B["P_UP"]
B_P_SQ = _B["P_SQ"]
B_KNOWN = _B["KNOWN"]
B_VERSION = _B["VERSION"]
