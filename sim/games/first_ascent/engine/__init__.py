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

The package is split by concern; each module imports only from the ones above it:
    common          readers of the state and rules, the game's own stream, `ask`
    supply          asset deck, discard, Spread, Portaledge, Summit Beta supply, card moves
    board           reachable hexes and what they show (F8-F14, F30)
    payment         the shortfall S and the plan that pays a pitch (F31-F34, F64-F83, F123)
    risk            the Risk Die, its penalties, own-turn Summit Beta windows (F36, F45, F116)
    objectives      shared objectives (F59-F62, F88-F103, F129)
    climbing_cards  climbing cards, their options and effects (F39-F45, F84, F106-F118, F128)
    climbing        a climb attempt and what completing it brings (F35-F36)
    turn            a Climb-phase turn, the Follow phase, the Rerack (F28-F29, F49-F57)
    setup           setting up a game (F15-F24)
    rounds          rounds, the end check, final scoring, `play_game` and `play` (F26, F58-F63,
                    F127)
This package re-exports every name, so `engine.X` reads the same as before the split.
"""
from sim.games.first_ascent.engine.common import (  # noqa: F401
    CRACK, CT_ANY, CT_ANY_SKILL, FACE, GEAR, INF, K_ALL_TYPES, K_ELITIST, K_GRAND_TRAVERSE,
    K_PERMANENT, K_PER_HEADWALL, K_PER_PITCH, K_RIDGE, K_TYPE_COUNT, PL_CARDS, PL_COST,
    PL_EXTRA_GEAR, PL_IGNORED, PL_N, PL_PERMANENT, PL_PSYCH, PL_S, PL_TOKENS, PL_UNPAID,
    PL_WATER, PT_ANY, R_ANY,
    R_PSYCH, R_WATER, SLAB, TRIFECTA, V_DRAW_SPREAD, V_GIVE, V_LOSE, V_PLACE, V_PORTALEDGE,
    V_PSYCH, V_REQ_TOKEN, V_ROLL, V_SB_2_KEEP_1, V_STEAL, V_SUMMIT_BETA, V_TECH_TOKEN, V_WATER,
    WILD, W_ALL, W_OPP, W_OTHERS, W_SELF, W_SELF_AND_OPP, W_SUNNY, add_psych, add_score, add_water,
    ask, board_mask, ch, count_matching, engine_scratch, hand_of_type, hand_size,
    draw_below, hex_row, holds_sb, legal_buffer, n_players, no_reservation, rand_below,
    shuffle_in, shuffle_range, track_max, type_matches)
from sim.games.first_ascent.engine.supply import (  # noqa: F401
    card_sources, choose_opponent, deck_can_draw, deck_draw, discard_card, draw_cards,
    draw_summit_beta, eligible_cards, gain_portaledge, give_summit_beta, held_cards, move_cards,
    other_type_left, pile_available, pile_draw, push_pile, rebuild_deck, refill_pile,
    refill_spread, spread_single_type, take_card, use_summit_beta)
from sim.games.first_ascent.engine.board import (  # noqa: F401
    climbed_by_others, hex_face_up, legal_destinations)
from sim.games.first_ascent.engine.payment import (  # noqa: F401
    R_BIONIC, R_CRAG, R_FS_CONVERT, R_GEAR_CAP, R_HAND, R_IGNORE_V4, R_IGNORE_V5, R_PERM,
    R_SUB_KIND, R_SUB_REPLACES, R_TRACK_P, R_TRACK_W, R_WATER_MINUS, _cover, _shortfall_for,
    _uncover_card, ANY_TOKENS, character_requirement, climb_options, fewest_tokens_plan,
    leave_one_unpaid, nothing_to_pay, payment_resources, pick_payment_cards, pitch_requirement,
    plan_payment, plan_payment_from, units_to_pay)
from sim.games.first_ascent.engine.risk import (  # noqa: F401
    add_own_turn_tokens, maybe_chalkbag, own_turn_window, pay_penalty, penalty_payable,
    play_own_turn_token, roll_risk_die)
from sim.games.first_ascent.engine.objectives import (  # noqa: F401
    all_types_met, check_permanent_objectives, counts_for_type_objective, has_traverse,
    route_tiles, score_objective, type_count, update_shared_objectives)
from sim.games.first_ascent.engine.climbing_cards import (  # noqa: F401
    card_risk_roll, draw_climbing_card, entry_at, entry_ctype, entry_who,
    is_free_soloist_gear_banned, option_choosable, option_has_cost, option_needs_opponent,
    place_requirement_token, resolve_climbing_cards, resolve_option, steal, steal_targets, targets)
from sim.games.first_ascent.engine.climbing import (  # noqa: F401
    attempt_climb, complete_climb, pitch_points, summit_points)
from sim.games.first_ascent.engine.turn import (  # noqa: F401
    best_sets, follow_phase, greedy_sets, permanent_tokens, play_turn, rerack, technique_counts,
    turn_legal)
from sim.games.first_ascent.engine.setup import deal_starting_hands, setup  # noqa: F401
from sim.games.first_ascent.engine.rounds import (  # noqa: F401
    PLAY_GAME, anyone_can_move, begin_segment, end_game, personal_objective_points, play,
    play_game, play_on, play_round)
from sim.games.first_ascent.memory import (  # noqa: F401
    BS_HIGH, BS_LOW, BS_SUMS, CLIMB_OPTIONS_BUFFER, CO_PAYMENT, CO_PLAN, GS_COUNTS, GS_ORDER,
    GS_REMAINING, PAYMENT_BUFFER, PAY_RESOURCES, PAY_SHORTFALL, PAY_TRIAL_PLAN, PLAN_SIZE,
    RES_SIZE, SCRATCH_SIZE, SCR_FOLLOW_COUNTS, SCR_FOLLOW_TOKENS, SCR_FOLLOW_USED, SCR_HAVE,
    SCR_PAYMENT, SCR_PICKED, SCR_PLAN, SCR_SETS, SCR_WHO, SETS_SCRATCH, SHORTFALL_SIZE,
    SH_ANY_CARDS, SH_PAID_CARDS, SH_PAID_TOKENS, SH_REQ, SH_UNPAID)
