"""Random play over every character subset and 1-4 players, invariants checked after EVERY action.

The checker runs inside numba so that thousands of whole games stay cheap. It returns the first
violated invariant's code, so a failure names the game, the action and the rule.
"""
import itertools

import numpy as np
from numba import njit

from sim.core.rng import stream_below
from sim.games.all_in_ascent import state as S
from sim.games.all_in_ascent.data import CHARACTER_KEYS
from sim.games.all_in_ascent.engine import apply_action, legal_actions, pbase, setup
from sim.games.all_in_ascent.rules import F_CARD_IS_ACCESS, F_XP_CUMULATIVE, at, default_rules

VIOLATIONS = {
    1: "negative time (R76)",
    2: "negative endurance (R76)",
    3: "level does not match XP (R61)",
    4: "xp below the current level's threshold (R64)",
    5: "duplicate visible route in an area (R81)",
    6: "a non-access card with two owners (R35)",
    7: "section over capacity (R32-R36)",
    8: "a Free Solo failed a climb (R59)",
    9: "game ended other than by R65 or R72 (R73)",
    10: "winner without three milestones (R65)",
    11: "a player other than the actor changed (R66)",
}


@njit(cache=True)
def check_state(st, t):
    n = st[S.G_N_PLAYERS]
    owners = np.zeros(S.MAX_GEAR, np.int64)
    for seat in range(n):
        b = pbase(seat)
        if st[b + S.P_TIME] < 0:                                       # R76
            return 1
        if st[b + S.P_ENDURANCE] < 0:
            return 2
        level = st[b + S.P_LEVEL]
        xp = st[b + S.P_XP]
        if level < S.MAX_LEVEL and xp >= at(t, F_XP_CUMULATIVE, level + 1):  # R61
            return 3
        if xp < at(t, F_XP_CUMULATIVE, level):                        # R64
            return 4
        for g in range(S.MAX_GEAR):
            if (st[b + S.P_GEAR] >> g) & 1:
                owners[g] += 1
    for g in range(S.MAX_GEAR):                                        # R35
        if owners[g] > 1 and at(t, F_CARD_IS_ACCESS, g) == 0:
            return 6
    for area in range(S.N_AREAS):                                      # R81
        m = st[S.G_N_VISIBLE + area]
        base = S.G_VISIBLE + area * S.MAX_VISIBLE
        for i in range(m):
            for j in range(i + 1, m):
                if st[base + i] == st[base + j]:
                    return 5
    for k in range(6):                                                 # R32-R36
        loc = S.AREA_LOC + S.TOP_ROPE + k if k < 2 else S.STATION_LOC + k - 2
        here = 0
        for seat in range(n):
            if st[pbase(seat) + S.P_LOCATION] == loc:
                here += 1
        if here > (st[S.G_BELAYERS] if k < 2 else 1):
            return 7
    return 0


@njit(cache=True)
def play_and_check(t, seeds, characters, n_players, out_code, out_action, out_ends):
    st = np.zeros(S.STATE_SIZE, np.int64)
    before = np.zeros(S.STATE_SIZE, np.int64)
    legal = np.zeros(S.N_ACTIONS, np.int64)
    trace = np.zeros(S.TRACE_SIZE, np.int64)
    stream = np.zeros(1, np.uint64)
    for i in range(seeds.shape[0]):
        setup(st, t, seeds[i], characters[i], n_players[i])
        stream[0] = np.uint64(seeds[i]) * np.uint64(0x9E3779B97F4A7C15)
        code = check_state(st, t)
        k = 0
        while code == 0 and st[S.G_OVER] == 0:
            n = legal_actions(st, t, legal)
            action = legal[stream_below(stream, n)]
            before[:] = st
            apply_action(st, t, action, trace)
            k += 1
            code = check_state(st, t)
            actor = trace[S.T_ACTOR]
            if code == 0 and S.CLIMB <= action < S.BUY_ROTATION:       # R59
                if st[pbase(actor) + S.P_CHARACTER] == S.FREE_SOLO and trace[S.T_SUCCESS] == 0:
                    code = 8
            if code == 0 and trace[S.T_ROUND_ENDED] == 0:              # R66
                for seat in range(n_players[i]):
                    if seat == actor:
                        continue
                    for f in range(S.PLAYER_RULES_SIZE):
                        if st[pbase(seat) + f] != before[pbase(seat) + f]:
                            code = 11
        if code == 0:
            reason = st[S.G_END_REASON]                                # R73
            if reason == S.END_WINNER:
                if st[pbase(st[S.G_WINNER]) + S.P_DONE] != 7:
                    code = 10
            elif reason == S.END_MAX_ROUNDS:
                if st[S.G_ROUND] != 46:                                # R72
                    code = 9
            else:
                code = 9
        out_code[i] = code
        out_action[i] = k
        out_ends[i] = st[S.G_END_REASON]


def test_invariants_hold_after_every_action_in_random_play():
    """R35 R59 R61 R64 R65 R66 R72 R73 R76 R81 and R32-R36, over 3,000 random games."""
    rules = default_rules()
    subsets = [c for k in range(1, 5) for c in itertools.combinations(range(5), k)]
    seeds, chars, players = [], [], []
    for i, subset in enumerate(subsets):
        for rep in range(100):
            seeds.append((i * 100003 + rep * 7919 + 1) % 2**32)
            chars.append(list(subset) + [-1] * (4 - len(subset)))
            players.append(len(subset))
    seeds = np.array(seeds, np.int64)
    chars = np.array(chars, np.int64)
    players = np.array(players, np.int64)
    code = np.zeros(len(seeds), np.int64)
    actions = np.zeros(len(seeds), np.int64)
    ends = np.zeros(len(seeds), np.int64)
    play_and_check(rules.tables, seeds, chars, players, code, actions, ends)
    bad = np.nonzero(code)[0]
    if len(bad):
        i = bad[0]
        names = [CHARACTER_KEYS[c] for c in chars[i] if c >= 0]
        raise AssertionError(f"{len(bad)} games broke an invariant; first: seed {seeds[i]}, "
                             f"{names}, after action {actions[i]}: {VIOLATIONS[int(code[i])]}")
    assert len(seeds) == 3000
    # both ends occur, so both were checked
    assert (ends == S.END_WINNER).any() and (ends == S.END_MAX_ROUNDS).any()
