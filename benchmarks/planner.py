"""Where an All-In Ascent planner decision spends its time. Run: python -m benchmarks.planner

Records the decision states of games the planner plays (4 players, characters at random), then
times, in one numba loop each over all those states (one thread, best of --repeats):
- `plan` itself, with the tuned knobs;
- its parts, each over every state (so a part that `plan` reaches only sometimes is counted
  here on every state): the milestone odds (step 1), the purchase checks (2-3), the scoring of
  every legal climb (6), the target milestone's gaps (5), the training choice (5: on the
  states with a legal training, its time divided by all states);
- the engine's legal-action listing, the reference measured in the same run (absolute figures
  on a shared machine vary by 2x).
Prints a markdown table; writes nothing. To compare two commits on the same states, run it in
each checkout: the states depend only on --games and the code's decisions.
"""
import argparse
import time

import numpy as np
from numba import njit

from policies.all_in_ascent.helpers import (
    card_is_useful, clears_the_way_to_access, expected_attempt_xp, needed_tag_mask)
from policies.all_in_ascent.planner import (
    N_PLANNER_KNOBS, best_redistribution, best_training, plan, target_tier)
from policies.all_in_ascent.tuned import load_tuned, tuned_vector
from sim.games.all_in_ascent import engine as E
from sim.games.all_in_ascent import state as S
from sim.games.all_in_ascent.memory import WORK_SIZE
from sim.games.all_in_ascent.policy_api import PolicyContext
from sim.games.all_in_ascent.rules import default_rules


def decision_states(t, params, games):
    """(states, seats, legal rows, legal counts) of every decision in `games` planner games."""
    draws = np.random.default_rng(1)
    states, seats, legals, counts = [], [], [], []
    trace = S.new_trace()
    stream = np.zeros(1, np.uint64)
    work = np.zeros(WORK_SIZE, np.int64)
    for g in range(games):
        st = S.new_state()
        characters = draws.permutation(5)[:4].astype(np.int64)   # ids 0-4
        E.setup(st, t, np.int64(g + 1), characters, np.int64(4))
        legal = np.zeros(S.N_ACTIONS, np.int64)
        while not st[S.G_OVER]:
            n = E.legal_actions(st, t, legal)
            seat = st[S.G_CURRENT]
            c = st[E.pbase(seat) + S.P_CHARACTER]
            ctx = PolicyContext(st, np.int64(seat), legal, np.int64(n), t, stream, params, work)
            action = plan(ctx, params[c * N_PLANNER_KNOBS:(c + 1) * N_PLANNER_KNOBS].copy())
            states.append(st.copy())
            seats.append(seat)
            legals.append(legal.copy())
            counts.append(n)
            E.apply_action(st, t, np.int64(action), trace)
    return (np.array(states), np.array(seats, np.int64), np.array(legals),
            np.array(counts, np.int64))


# Each part runs `per_state` times on a state before the next: the 24,000-odd recorded states
# and their legal rows take about 120 MB, so a single pass would time fetching each state from
# memory more than the work, while in a game the state a bot reads is in the cache. The calls on
# one state also train the branch predictor on it, so the figures are lower bounds.

@njit
def time_plan(states, seats, legals, counts, t, params, per_state):
    out = 0
    stream = np.zeros(1, np.uint64)
    work = np.zeros(WORK_SIZE, np.int64)
    for i in range(counts.shape[0]):
        st = states[i]
        c = st[E.pbase(seats[i]) + S.P_CHARACTER]
        ctx = PolicyContext(st, seats[i], legals[i], counts[i], t, stream, params, work)
        for _ in range(per_state):
            out += plan(ctx, params[c * N_PLANNER_KNOBS:(c + 1) * N_PLANNER_KNOBS])
    return out


@njit
def time_milestone_odds(states, seats, legals, counts, t, params, per_state):
    out = 0.0
    stream = np.zeros(1, np.uint64)
    work = np.zeros(WORK_SIZE, np.int64)
    for i in range(counts.shape[0]):
        st = states[i]
        ctx = PolicyContext(st, seats[i], legals[i], counts[i], t, stream, params, work)
        for _ in range(per_state):
            for k in range(counts[i]):
                a = legals[i, k]
                if S.MILESTONE <= a < S.BUY_ROTATION:
                    out += best_redistribution(ctx, st[S.G_MILESTONES + a - S.MILESTONE],
                                               True)[1]
    return out


@njit
def time_purchases(states, seats, legals, counts, t, params, per_state):
    out = 0
    for i in range(counts.shape[0]):
        st = states[i]
        for _ in range(per_state):
            out += needed_tag_mask(st, t, seats[i])
            for k in range(counts[i]):
                a = legals[i, k]
                if S.BUY_ROTATION <= a < S.REDISTRIBUTE:
                    card = E.shop_card(st, t, a)
                    if card_is_useful(st, t, seats[i], card):
                        out += clears_the_way_to_access(st, t, seats[i], card)
    return out


@njit
def time_every_climb(states, seats, legals, counts, t, params, per_state):
    out = 0.0
    work = np.zeros(WORK_SIZE, np.int64)
    for i in range(counts.shape[0]):
        st = states[i]
        for _ in range(per_state):
            for k in range(counts[i]):
                a = legals[i, k]
                if S.CLIMB <= a < S.MILESTONE:
                    rid = E.action_route(st, a)
                    out += expected_attempt_xp(st, t, seats[i], rid, False, work)[1] / \
                        E.effective_time(st, t, seats[i], rid)
    return out


@njit
def time_target_gaps(states, seats, legals, counts, t, params, per_state):
    out = 0
    gaps = np.empty(S.N_STATS, np.float64)
    for i in range(counts.shape[0]):
        for _ in range(per_state):
            out += target_tier(states[i], t, seats[i], gaps)
    return out


@njit
def time_training(states, seats, legals, counts, t, params, per_state):
    out = 0
    stream = np.zeros(1, np.uint64)
    work = np.zeros(WORK_SIZE, np.int64)
    for i in range(counts.shape[0]):
        trainable = False
        for k in range(counts[i]):
            trainable = trainable or S.TRAIN <= legals[i, k] < S.CLIMB
        if not trainable:
            continue
        ctx = PolicyContext(states[i], seats[i], legals[i], counts[i], t, stream, params, work)
        for _ in range(per_state):
            out += best_training(ctx)
    return out


@njit
def time_legal_actions(states, seats, legals, counts, t, params, per_state):
    out = 0
    legal = np.empty(legals.shape[1], np.int64)
    for i in range(counts.shape[0]):
        for _ in range(per_state):
            out += E.legal_actions(states[i], t, legal)
    return out


PARTS = (("plan (the whole decision)", time_plan),
         ("step 1: milestone odds, every legal milestone", time_milestone_odds),
         ("steps 2-3: purchase checks", time_purchases),
         ("step 6: every legal climb scored", time_every_climb),
         ("step 5: target milestone's gaps", time_target_gaps),
         ("step 5: the training choice, where a training is legal (best_training)",
          time_training),
         ("engine: legal actions (reference)", time_legal_actions))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5, help="best of this many passes")
    parser.add_argument("--per-state", type=int, default=8,
                        help="each part's calls on a state before the next (see above)")
    args = parser.parse_args(argv)
    t = default_rules().tables
    params = tuned_vector(load_tuned())
    data = decision_states(t, params, args.games) + (t, params, args.per_state)
    n = data[3].shape[0]
    rows = []
    for name, fn in PARTS:
        fn(*(x[:10] if i < 4 else x for i, x in enumerate(data)))        # compile
        best = min(_seconds(fn, data) for _ in range(args.repeats))
        rows.append((name, best / (n * args.per_state) * 1e9))
    reference = rows[-1][1]
    print(f"`python -m benchmarks.planner --games {args.games} --per-state {args.per_state}`: "
          f"{n:,} decision states, each part {args.per_state} times on a state, one thread, "
          f"best of {args.repeats}\n")
    print("| part | ns per decision state | x legal actions |")
    print("|---|---|---|")
    for name, ns in rows:
        print(f"| {name} | {ns:,.0f} | {ns / reference:.2f}x |")


def _seconds(fn, data):
    start = time.perf_counter()
    fn(*data)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
