"""Every work vector of a First Ascent game, laid out in named blocks in this one place.

Nothing in the engine or the bots allocates per action (sim/core/jit.py), so their vectors
come from two buffers that `kernel.play_one` allocates once a game:
- the engine's scratch (`SCRATCH_SIZE` int64): blocks `SCR_*`, one per use;
- the policies' work memory (`WORK_SIZE` int64, `ctx.work`), zeroed at the start of every
  game: a per-decision area any decision may overwrite (`W_*`), then each bot's caches, which
  live across decisions (`GREEDY_TARGET_CACHE`, `PLANNER_PLAN_CACHE`), then the segment a
  search bot resumes from, which the engine writes (`SEGMENT_*`).
A function that splits a vector further (the payment buffer, the set-scoring scratch) finds
its sub-blocks here too. `sim.core.layout` assigns the offsets in order, so a block grows or
is added here and nowhere else.
"""
from sim.core.layout import layout
from sim.games.first_ascent.data import N_HEX, N_KINDS
from sim.games.first_ascent.state import MAX_PLAYERS, STATE_SIZE

PLAN_SIZE = 20      # a payment plan (engine.common, PL_* fields)
RES_SIZE = 20       # a seat's payment resources (engine.payment.payment_resources)

# payment._shortfall_for: its working vectors
_SHORTFALL, SHORTFALL_SIZE = layout([
    ("requirements", 7), ("paid_tokens", 4), ("paid_cards", 4), ("unpaid", 7), ("any_cards", 4)])
SH_REQ, SH_PAID_TOKENS, SH_PAID_CARDS, SH_UNPAID, SH_ANY_CARDS = _SHORTFALL.values()

# payment.plan_payment_from: the resources, a trial plan, the shortfall's vectors
_PAYMENT, PAYMENT_BUFFER = layout([
    ("resources", RES_SIZE), ("trial_plan", PLAN_SIZE), ("shortfall", SHORTFALL_SIZE)])
PAY_RESOURCES, PAY_TRIAL_PLAN, PAY_SHORTFALL = _PAYMENT.values()

# payment.climb_options: a payment buffer, then the plan it fills
_CLIMB_OPTIONS, CLIMB_OPTIONS_BUFFER = layout([("payment", PAYMENT_BUFFER), ("plan", PLAN_SIZE)])
CO_PAYMENT, CO_PLAN = _CLIMB_OPTIONS.values()

# turn.best_sets and turn.greedy_sets (F49), two readings over one block
_BEST_SETS, _best_size = layout([("low", 5), ("high", 5), ("sums", 5)])
BS_LOW, BS_HIGH, BS_SUMS = _BEST_SETS.values()
_GREEDY_SETS, _greedy_size = layout([("counts", 6), ("order", 4), ("remaining", 5)])
GS_COUNTS, GS_ORDER, GS_REMAINING = _GREEDY_SETS.values()
SETS_SCRATCH = max(_best_size, _greedy_size)

# the engine's scratch (ag[8]): one block per use. No function is re-entered while its block
# is live (attempt_climb keeps its plan and picked cards across the asks of a risk; no choice
# inside leads back to a climb).
_SCRATCH, SCRATCH_SIZE = layout([
    ("payment", CLIMB_OPTIONS_BUFFER),  # turn_legal's climb options; attempt_climb's payment
    ("plan", PLAN_SIZE),                # attempt_climb's payment plan
    ("picked", N_KINDS),                # the hand cards that pay
    ("have", 6),                        # pick_payment_cards' symbols shown
    ("who", MAX_PLAYERS),               # resolve_option's targets
    ("follow_counts", 6),               # follow_phase: cards per type,
    ("follow_tokens", 5),               # technique tokens,
    ("follow_used", 5),                 # and tokens used
    ("sets", SETS_SCRATCH),             # best_sets / greedy_sets
])
(SCR_PAYMENT, SCR_PLAN, SCR_PICKED, SCR_HAVE, SCR_WHO, SCR_FOLLOW_COUNTS,
 SCR_FOLLOW_TOKENS, SCR_FOLLOW_USED, SCR_SETS) = _SCRATCH.values()

# a level of the planner's route search (policies/first_ascent/planner.py, route_value): the
# route so far (mask), the climbs left, the moves on, those searched and how many, and the best
# value found and the worth of the move being searched, both as float64 bits. A route has 8
# pitches, so a search has at most 7 climbs left and stacks at most 6 levels (the last level is
# worked out without one); 8 leave room.
_ROUTE_FRAME, RF_SIZE = layout([("visited", 1), ("depth", 1), ("moves", 1), ("taken", 1),
                                ("picks", 1), ("best", 1), ("move_worth", 1)])
RF_VISITED, RF_DEPTH, RF_MOVES, RF_TAKEN, RF_PICKS, RF_BEST, RF_MOVE_WORTH = \
    _ROUTE_FRAME.values()
ROUTE_SEARCH_LEVELS = 8

# the policies' per-decision area: greedy's vectors, then the planner's
_DECISION, DECISION_SIZE = layout([
    ("payment", PAYMENT_BUFFER),        # payment_resources and plan_payment_from's buffer
    ("plan", PLAN_SIZE),                # a trial payment
    ("counts", 6),                      # cards or symbols per type
    ("hex_worth", N_HEX),               # the planner's hex worths, as float64 bits
    ("worths_known", 2),                # the hexes whose worth is worked out this decision
                                        # (a mask), and the deciding seat's route tiles
    ("requirement", 7),                 # a pitch's units for the planner (units_to_pay)
    ("route_search", ROUTE_SEARCH_LEVELS * RF_SIZE),  # the planner's route search, a frame
                                        # (RF_* fields) per level
])
(W_PAYMENT, W_PLAN, W_COUNTS, W_HEX_WORTH, W_WORTHS_KNOWN, W_REQUIREMENT,
 W_ROUTE_SEARCH) = _DECISION.values()

# The segment a search bot resumes from (policies/first_ascent/mcts.py). The engine is a
# straight program, so a search cannot step it from the position of a decision; instead the
# engine keeps a checkpoint of the state where the current segment began (the deal, then each
# round) and the code of every decision since, and a search replays those from the checkpoint.
# Written by the engine (rounds.begin_segment, common.ask, rounds.play_round), read by bots.
MAX_SEGMENT_DECISIONS = 1024        # the most seen in a round is under 100
_SEGMENT, SEGMENT_SIZE = layout([
    ("first", 1),                       # the decision count (G_DECISIONS) at the checkpoint
    ("dealing", 1),                     # 1: the segment is the deal (F24), 0: a round
    ("turn_seat", 1),                   # the seat whose Climb-phase turn is under way, or -1
    ("checkpoint", STATE_SIZE),         # the state where the segment began
    ("codes", MAX_SEGMENT_DECISIONS),   # decision k of the segment's code (first + k);
                                        # past the end, ask stops writing
])
SEG_FIRST, SEG_DEALING, SEG_TURN_SEAT, SEG_CHECKPOINT, SEG_CODES = _SEGMENT.values()

# the policies' work memory
_WORK, WORK_SIZE = layout([
    ("decision", DECISION_SIZE),
    ("greedy_target", 3),               # key (seat, round, route length), target hex, its
                                        # first unpaid unit kind
    ("planner_plan", 3),                # key, planned target hex, its missing unit kind
    ("segment", SEGMENT_SIZE),
])
_, GREEDY_TARGET_CACHE, PLANNER_PLAN_CACHE, SEGMENT = _WORK.values()
(SEGMENT_FIRST, SEGMENT_DEALING, SEGMENT_TURN_SEAT, SEGMENT_CHECKPOINT, SEGMENT_CODES) = (
    SEGMENT + off for off in (SEG_FIRST, SEG_DEALING, SEG_TURN_SEAT, SEG_CHECKPOINT, SEG_CODES))
