"""`planner`: milestone-directed and character-aware.

Where the designers' bot checks printed requirements, the planner asks the exact success
probability (probability.climb_success_probability_in), which already knows every character rule
and card: the Technician's -5 and nerf immunity, the Route Reader's 3 of 4 and Beta Boost, the
Sprinter's extra nerf die, the Free Solo's zeroed dice, Coach, Mentor, Power Tap and the rest.
So each passive is played through the numbers rather than by special cases.

Each decision, the first that applies:
1. attempt the legal milestone with the best success probability if it reaches the threshold
   (a lower threshold in the last rounds, when waiting no longer pays);
2. buy an access card that opens the area of a milestone still to do, or a prerequisite it
   lacks (the Harness), if the player needs access gear at all (engine.access_bypassed: not
   the Free Solo unless a knob says so);
3. buy the most useful affordable card: one whose tag matches a needed milestone first, then the
   cheapest card its character can use (helpers.card_is_useful);
4. rest if endurance is below a fraction of the maximum, or if endurance alone keeps it from a
   milestone it would attempt;
5. train toward its target milestone (the one with the smallest total gap; a gap is measured
   against the requirement expected after the player's own dice, R52, and the gaps R53 lets it
   leave unmet, the Route Reader's largest, are left out), when that is worth more than the
   best climb's expected XP per time unit: the training that most raises the milestone's exact
   success probability, or, where no one training raises it, the one with the largest gap;
6. the climb with the best expected XP per time unit;
7. where no climb is legal, train toward the visible route nearest to being allowed among
   those that only the sure-routes guarantee (R28) forbids: the legal training that closes
   the largest of that route's shortfalls;
8. rest if it is not at full endurance, else end the turn.

Under the switch route_reader_redistribution the Route Reader first moves stat points when that
raises the success probability of the milestone (step 1) or climb (step 6) it is about to attempt
by at least REDISTRIBUTION_GAIN; the move is the one (of all legal moves) that raises it most.

params (knobs for `tuned`):
    0 milestone_threshold   success probability needed to attempt a milestone
    1 late_rounds           rounds before the cap at which the late threshold applies
    2 late_threshold        success probability needed in those last rounds
    3 train_value           XP per time unit that closing a stat gap is worth
    4 rest_fraction         rest below this fraction of maximum endurance
"""
import numpy as np

from policies.all_in_ascent.helpers import (
    attempt_xp_bound, card_is_useful, clears_the_way_to_access, expected_attempt_xp,
    needed_tag_mask)
from sim.core.jit import njit_noalloc
from sim.core.policies import compiled_on_use, register
from sim.games.all_in_ascent.engine import (
    ILLEGAL_FREE_SOLO, ILLEGAL_NO_ENDURANCE, action_route, attempt_reason, effective_time,
    guarantee_shortfall, illegal_reason, pbase, redistribute, section_reason, shop_card,
    stats_needed, training_gain, zero_dice_row)
from sim.games.all_in_ascent.memory import W_GAPS, W_TRIAL_STATE
from sim.games.all_in_ascent.policy_api import POLICY_SIGNATURE
from sim.games.all_in_ascent.probability import (
    attempt_effective_stats, climb_success_probability_in, climb_success_probability_of,
    sure_stats_of, with_stat_added)
from sim.games.all_in_ascent.rules import (
    F_CARD_COST, F_CARD_IS_ACCESS, F_CARD_TAG, F_REQUIREMENT_DICE_WEIGHT, F_REQUIREMENT_NO_DICE,
    F_ROUTE_AREA, F_ROUTE_TIME_FLOOR, F_ROUTE_XP_CEILING, F_STATION_STAT, PARAM_MAX_ROUNDS,
    PARAM_N_ROUTES, PARAM_REDISTRIBUTION, at)
from sim.games.all_in_ascent.state import (
    BUY_ROTATION, CLIMB, END_TURN, G_MILESTONES, G_ROUND, MILESTONE, N_STATS, N_TIERS,
    P_CHARACTER, P_DONE, P_ENDURANCE, P_GEAR, P_MAX_ENDURANCE, P_REDIST,
    REDISTRIBUTE, REST, STATE_SIZE, TAG_NONE, TRAIN)

PLANNER_DEFAULTS = (0.45, 6.0, 0.15, 50.0, 0.3)
PLANNER_KNOBS = ("milestone_threshold", "late_rounds", "late_threshold", "train_value",
                 "rest_fraction")
# The range each knob is searched over when tuning.
PLANNER_BOUNDS = ((0.05, 0.95), (0.0, 20.0), (0.0, 0.9), (0.0, 60.0), (0.0, 0.8))
MILESTONE_THRESHOLD, LATE_ROUNDS, LATE_THRESHOLD, TRAIN_VALUE, REST_FRACTION = range(5)
N_PLANNER_KNOBS = len(PLANNER_DEFAULTS)
# The least rise in success probability for which the Route Reader redistributes.
REDISTRIBUTION_GAIN = 0.02


@njit_noalloc(one_copy=True)
def best_redistribution(ctx, rid, is_milestone):
    """(action, success probability after it, probability now) of the legal redistribution
    that most raises the probability of an attempt at `rid`; action -1 when none raises it.
    The move is tried on a copy of the state (in ctx.work) through the engine's own rule."""
    st = ctx.state
    t = ctx.tables
    seat = ctx.seat
    now = climb_success_probability_in(st, t, seat, rid, is_milestone, ctx.work)
    b = pbase(seat)
    movable = False             # the rules say, through the legal actions, who may move points
    for i in range(ctx.n_legal):
        movable = movable or ctx.legal[i] >= REDISTRIBUTE
    if not movable:
        return -1, now, now
    trial = ctx.work[W_TRIAL_STATE:W_TRIAL_STATE + STATE_SIZE]
    for i in range(STATE_SIZE):
        trial[i] = st[i]
    best = -1
    best_p = now
    for i in range(ctx.n_legal):
        a = ctx.legal[i]
        if a < REDISTRIBUTE:
            continue
        for s in range(N_STATS):
            trial[b + P_REDIST + s] = st[b + P_REDIST + s]
        redistribute(trial, seat, a)
        prob = climb_success_probability_in(trial, t, seat, rid, is_milestone, ctx.work)
        if prob > best_p:
            best_p = prob
            best = a
    return best, best_p, now


# A die's mean, 3.5, in half points: the gaps are counted in halves, exactly, as integers.
MEAN_DIE_HALVES = 7


@njit_noalloc(inline="always")
def _expected_gap_in_halves(t, row, stat):
    """Twice a stat's gap to its requirement with each of its dice at a die's mean, from R52
    with no die as the rules pack it (engine.zero_dice_row's `row`, the stat's entry); may be
    below 0."""
    return 2 * (at(t, F_REQUIREMENT_NO_DICE, row) - stat) + \
        MEAN_DIE_HALVES * at(t, F_REQUIREMENT_DICE_WEIGHT, row)


@njit_noalloc
def _gaps_in_halves(st, t, seat, rid):
    """stat_gaps in half points, as (total, gap 0, gap 1, gap 2, gap 3), then the four stats
    an attempt at `rid` would use now (attempt_effective_stats), which the gaps are counted
    from: every gap is a whole number of halves (a requirement and a stat are whole, a die's
    mean is 3.5), so integers count them exactly and tuples keep them out of memory."""
    b = pbase(seat)
    c = st[b + P_CHARACTER]
    row = zero_dice_row(t, c, st[b + P_GEAR], rid)
    e0, e1, e2, e3 = attempt_effective_stats(st, t, seat, rid, True)
    # training is permanent: this round's redistribution shift is left out of the stats
    h0 = max(0, _expected_gap_in_halves(t, row, e0 - st[b + P_REDIST]))
    h1 = max(0, _expected_gap_in_halves(t, row + 1, e1 - st[b + P_REDIST + 1]))
    h2 = max(0, _expected_gap_in_halves(t, row + 2, e2 - st[b + P_REDIST + 2]))
    h3 = max(0, _expected_gap_in_halves(t, row + 3, e3 - st[b + P_REDIST + 3]))
    total = h0 + h1 + h2 + h3
    dropped = 0                      # bit s: gap s left unmet (R53), largest first
    for _ in range(N_STATS - stats_needed(t, c)):
        largest = -1
        largest_gap = 0
        for s in range(N_STATS):
            gap = (h0, h1, h2, h3)[s]
            if not (dropped >> s) & 1 and (largest < 0 or gap > largest_gap):
                largest = s
                largest_gap = gap
        dropped |= 1 << largest
        total -= largest_gap
    return total, h0, h1, h2, h3, e0, e1, e2, e3


@njit_noalloc(inline="always")
def _write_halves(gaps, h0, h1, h2, h3):
    gaps[0] = 0.5 * h0
    gaps[1] = 0.5 * h1
    gaps[2] = 0.5 * h2
    gaps[3] = 0.5 * h3


@njit_noalloc
def stat_gaps(st, t, seat, rid, gaps):
    """How far each stat falls short of the route's requirement expected after the player's own
    dice, into gaps[4]; returns the total without the gaps the character may leave unmet (R53,
    stats_needed: the Route Reader needs three of four).

    The expectation is read from the engine's own R52 with no die rolled, as the rules pack it
    (engine.requirement_tables): the requirements at a die of 0 and the dice's summed modifier
    after the character's rules and Mountain Mentor, so the Sprinter's extra nerf die, the
    Technician's ignored nerfs and reduction and the Free Solo's ignored dice count as the
    packed rules say. Each die then adds its modifier times a die's mean. Training is
    permanent, so this round's redistribution shift is left out."""
    total, h0, h1, h2, h3, _, _, _, _ = _gaps_in_halves(st, t, seat, rid)
    _write_halves(gaps, h0, h1, h2, h3)
    return 0.5 * total


@njit_noalloc
def _target_and_stats(st, t, seat, gaps):
    """target_tier, with the four stats an attempt at that milestone would use now
    (attempt_effective_stats, with this round's redistribution shift, which the gaps and
    best_training leave out; zeros when every milestone is done): best_training weighs its
    trainings on them."""
    done = st[pbase(seat) + P_DONE]
    best = -1
    best_total = 0
    b0 = b1 = b2 = b3 = 0
    s0 = s1 = s2 = s3 = 0
    for tier in range(N_TIERS):
        if (done >> tier) & 1:
            continue
        total, h0, h1, h2, h3, e0, e1, e2, e3 = _gaps_in_halves(
            st, t, seat, st[G_MILESTONES + tier])
        if best < 0 or total < best_total:
            best_total = total
            best = tier
            b0, b1, b2, b3 = h0, h1, h2, h3
            s0, s1, s2, s3 = e0, e1, e2, e3
    if best >= 0:
        _write_halves(gaps, b0, b1, b2, b3)
    return best, s0, s1, s2, s3


@njit_noalloc
def target_tier(st, t, seat, gaps):
    """The milestone still to do with the smallest total gap (stat_gaps; ties to the lower
    tier); -1 if all are done. Leaves that milestone's gaps in `gaps`."""
    return _target_and_stats(st, t, seat, gaps)[0]


@njit_noalloc
def best_climb_by_xp_rate(ctx, floor):
    """(action, score) of the legal climb with the best expected XP per time unit (R54), the
    earliest legal one among equals; (-1, 0.0) if none scores above 0.

    A success probability is the costly part, so a climb is not scored where even a sure
    success (attempt_xp_bound) could not beat the best so far or reach `floor`. So where the
    answer's score reaches `floor`, it is the answer scoring every climb gives; where it does
    not, every legal climb scores below `floor`. At floor 0 it is always the full answer.

    Before the player's own bound, the route's bound for its character whatever it owns (the
    rules' attempt limits: the most XP over the least time, engine.attempt_limits) leaves out
    nearly every climb against a training's worth: the same climbs are left out, at the cost
    of two reads. Division rounds monotonically, so the player's bound never exceeds it."""
    st = ctx.state
    t = ctx.tables
    seat = ctx.seat
    limits = st[pbase(seat) + P_CHARACTER] * t[PARAM_N_ROUTES]    # its character's row
    best_climb = -1
    best_score = 0.0
    for i in range(ctx.n_legal):
        a = ctx.legal[i]
        if CLIMB <= a < MILESTONE:
            rid = action_route(st, a)
            least_time = at(t, F_ROUTE_TIME_FLOOR, limits + rid)
            if least_time > 0:
                route_reach = at(t, F_ROUTE_XP_CEILING, limits + rid) / least_time * \
                    (1.0 + 1e-9)
                if route_reach <= best_score or route_reach < floor:
                    continue
            time = effective_time(st, t, seat, rid)
            # 1e-9 covers the rounding of p * xp_success + (1 - p) * xp_failure
            reach = attempt_xp_bound(st, t, seat, rid) / time * (1.0 + 1e-9)
            if reach <= best_score or reach < floor:
                continue
            _, xp = expected_attempt_xp(st, t, seat, rid, False, ctx.work)
            score = xp / time
            if score > best_score:
                best_score = score
                best_climb = a
    return best_climb, best_score


@njit_noalloc
def best_training(ctx):
    """The legal training that most raises the exact success probability of the target
    milestone (target_tier), or -1 if none closes a gap.

    Each training adds the engine's own gain (R40: its station's bonus and any training boost
    card) to the stat it trains, and the milestone's odds are counted with the player's own
    dice (climb_success_probability_of, which reads the state only through the stats). A
    milestone several points away has odds of 0 before and after one training; there the
    largest expected gap (stat_gaps) decides. Odds rise with every stat, so where every legal
    training at once leaves them at 0, or where it leaves them as they are, no one training is
    counted, nor one of a stat that passes at every roll (sure_stats_of). This round's
    redistribution shift is left out: training is permanent. The target milestone is worked
    out only where training could be chosen."""
    st = ctx.state
    t = ctx.tables
    seat = ctx.seat
    b = pbase(seat)
    gaps = ctx.work[W_GAPS:W_GAPS + N_STATS].view(np.float64)
    tier, e0, e1, e2, e3 = _target_and_stats(st, t, seat, gaps)
    if tier < 0:
        return -1
    best_train = -1                    # by the largest expected gap
    best_gap = 0.0
    for i in range(ctx.n_legal):
        a = ctx.legal[i]
        if TRAIN <= a < CLIMB:
            gap = gaps[at(t, F_STATION_STAT, a - TRAIN)]
            if gap > best_gap:
                best_gap = gap
                best_train = a
    rid = st[G_MILESTONES + tier]
    c = st[b + P_CHARACTER]
    gear = st[b + P_GEAR]
    e0 -= st[b + P_REDIST]
    e1 -= st[b + P_REDIST + 1]
    e2 -= st[b + P_REDIST + 2]
    e3 -= st[b + P_REDIST + 3]
    g0 = g1 = g2 = g3 = 0              # every legal training at once
    for i in range(ctx.n_legal):
        a = ctx.legal[i]
        if TRAIN <= a < CLIMB:
            g0, g1, g2, g3 = with_stat_added(g0, g1, g2, g3, at(t, F_STATION_STAT, a - TRAIN),
                                             training_gain(st, t, seat, a - TRAIN))
    every = climb_success_probability_of(t, c, gear, rid, True,
                                         (e0 + g0, e1 + g1, e2 + g2, e3 + g3), ctx.work)
    if every == 0.0:
        return best_train
    now = climb_success_probability_of(t, c, gear, rid, True, (e0, e1, e2, e3), ctx.work)
    if now == every:                   # no training raises them (a sure milestone, say)
        return best_train
    sure = sure_stats_of(t, c, rid, (e0, e1, e2, e3))
    best_exact = -1
    best_rise = 0.0
    for i in range(ctx.n_legal):
        a = ctx.legal[i]
        if not TRAIN <= a < CLIMB:
            continue
        stat = at(t, F_STATION_STAT, a - TRAIN)
        if (sure >> stat) & 1:
            continue
        trained = with_stat_added(e0, e1, e2, e3, stat, training_gain(st, t, seat, a - TRAIN))
        rise = climb_success_probability_of(t, c, gear, rid, True, trained, ctx.work) - now
        if rise > best_rise:
            best_rise = rise
            best_exact = a
    return best_exact if best_exact >= 0 else best_train


@njit_noalloc
def training_toward_a_climb(ctx):
    """The legal training that closes the largest shortfall of the visible route nearest to
    being allowed, among those only the guarantee of R28 forbids now (the engine's own reason,
    ILLEGAL_FREE_SOLO, and its own measure, guarantee_shortfall); -1 if there is none. Nearest:
    the smallest total shortfall, ties to the earlier climb action."""
    st = ctx.state
    t = ctx.tables
    seat = ctx.seat
    best = -1
    best_total = 1 << 40
    for a in range(CLIMB, MILESTONE):
        if illegal_reason(st, t, a) != ILLEGAL_FREE_SOLO:
            continue
        rid = action_route(st, a)
        total = 0
        for s in range(N_STATS):
            total += guarantee_shortfall(st, t, seat, rid, s)
        if total >= best_total:
            continue
        closing = -1
        closed = 0
        for i in range(ctx.n_legal):
            k = ctx.legal[i] - TRAIN
            if 0 <= k < CLIMB - TRAIN:
                short = guarantee_shortfall(st, t, seat, rid, at(t, F_STATION_STAT, k))
                if short > closed:
                    closed = short
                    closing = ctx.legal[i]
        if closing >= 0:
            best_total = total
            best = closing
    return best


@njit_noalloc
def plan(ctx, p):
    """The planner's decision with knob vector p (PLANNER_DEFAULTS' layout)."""
    st = ctx.state
    t = ctx.tables
    seat = ctx.seat
    b = pbase(seat)

    threshold = p[MILESTONE_THRESHOLD]
    if t[PARAM_MAX_ROUNDS] > 0 and t[PARAM_MAX_ROUNDS] - st[G_ROUND] < p[LATE_ROUNDS]:
        threshold = p[LATE_THRESHOLD]

    # 1. milestones (the probability after the best redistribution, where there is one)
    best_ms = -1
    best_ms_p = -1.0
    best_ms_move = -1
    for i in range(ctx.n_legal):
        a = ctx.legal[i]
        if MILESTONE <= a < BUY_ROTATION:
            rid = st[G_MILESTONES + a - MILESTONE]
            move, prob, now = best_redistribution(ctx, rid, True)
            if move < 0 or prob - now < REDISTRIBUTION_GAIN:
                move, prob = -1, now          # the odds it will really attempt at
            if prob > best_ms_p:
                best_ms_p = prob
                best_ms = a
                best_ms_move = move
    if best_ms >= 0 and best_ms_p >= threshold:
        return best_ms_move if best_ms_move >= 0 else best_ms

    # 2-3. purchases
    tags = needed_tag_mask(st, t, seat)
    access = -1
    tagged = -1
    cheapest = -1
    cheapest_cost = 1 << 40
    for i in range(ctx.n_legal):
        a = ctx.legal[i]
        if a < BUY_ROTATION or a >= REDISTRIBUTE:
            continue
        card = shop_card(st, t, a)
        if not card_is_useful(st, t, seat, card):
            continue
        if at(t, F_CARD_IS_ACCESS, card) or clears_the_way_to_access(st, t, seat, card):
            if access < 0:
                access = a
            continue
        tag = at(t, F_CARD_TAG, card)
        if tag != TAG_NONE:
            if (tags >> tag) & 1 and tagged < 0:
                tagged = a
            continue
        if at(t, F_CARD_COST, card) < cheapest_cost:
            cheapest_cost = at(t, F_CARD_COST, card)
            cheapest = a
    if access >= 0:
        return access
    if tagged >= 0:
        return tagged
    if cheapest >= 0:
        return cheapest

    # 4. rest when tired, or when endurance alone blocks a milestone worth attempting
    can_rest = False
    for i in range(ctx.n_legal):
        if ctx.legal[i] == REST:
            can_rest = True
    endurance = st[b + P_ENDURANCE]
    if can_rest:
        if endurance < p[REST_FRACTION] * st[b + P_MAX_ENDURANCE]:
            return REST
        done = st[b + P_DONE]
        for tier in range(N_TIERS):
            if (done >> tier) & 1:
                continue
            rid = st[G_MILESTONES + tier]
            section = section_reason(st, t, seat, at(t, F_ROUTE_AREA, rid))
            if attempt_reason(st, t, seat, rid, section) == ILLEGAL_NO_ENDURANCE and \
                    climb_success_probability_in(st, t, seat, rid, True, ctx.work) >= threshold:
                return REST

    # 5-6. training toward the target milestone against the best climb. The climbs' odds are
    # the costly part, so only climbs that could outscore training are scored at first: in
    # tuned games, 19 of 20 decisions with a legal climb then need no success probability. The
    # decision is the one scoring every climb gives.
    can_train = False
    for i in range(ctx.n_legal):
        can_train = can_train or TRAIN <= ctx.legal[i] < CLIMB
    floor = p[TRAIN_VALUE] if can_train else 0.0
    best_climb, best_score = best_climb_by_xp_rate(ctx, floor)
    if can_train and p[TRAIN_VALUE] > best_score:
        best_train = best_training(ctx)
        if best_train >= 0:
            return best_train
        if floor > 0.0:                    # no training after all: the climbs left out count
            best_climb, best_score = best_climb_by_xp_rate(ctx, 0.0)
    if best_climb >= 0:
        if t[PARAM_REDISTRIBUTION] != 0:
            move, prob, now = best_redistribution(ctx, action_route(st, best_climb), False)
            if move >= 0 and prob - now >= REDISTRIBUTION_GAIN:
                return move
        return best_climb
    # 7. no climb: work toward one that the sure-routes guarantee (R28) still forbids
    if can_train:
        toward = training_toward_a_climb(ctx)
        if toward >= 0:
            return toward
    if can_rest and endurance < st[b + P_MAX_ENDURANCE]:
        return REST
    return END_TURN


@register("all-in-ascent", "planner", params=PLANNER_DEFAULTS)
@compiled_on_use(POLICY_SIGNATURE, noalloc=True)
def planner_policy(ctx):
    """Milestone-directed: exact success odds, access and useful gear, targeted training."""
    return plan(ctx, ctx.params)
