"""Dice Race state: one int64 array per game. Layout:

    [0] PLAYERS  [1] CURRENT  [2] TURN_TOTAL  [3] TURNS  [4] OVER  [5] WINNER  [6] END_REASON
    [7] RNG      [8] DECISIONS  [9] LAST_ROLL
    [10 + seat]  SCORE of each seat          (4 seats)
    [14 + seat]  ROLLS made by each seat     (a tally; no rule reads it)
    [18 + seat]  BANKS made by each seat     (a tally)

The record of a game is the whole state (STATE_SIZE). Actions: ROLL = 0, BANK = 1.
"""
MAX_PLAYERS = 4
(G_PLAYERS, G_CURRENT, G_TURN_TOTAL, G_TURNS, G_OVER, G_WINNER, G_END_REASON, G_RNG,
 G_DECISIONS, G_LAST_ROLL) = range(10)
S_SCORE = 10
S_ROLLS = S_SCORE + MAX_PLAYERS
S_BANKS = S_ROLLS + MAX_PLAYERS
STATE_SIZE = S_BANKS + MAX_PLAYERS
ROLL, BANK = 0, 1
N_ACTIONS = 2
END_REASON_NAMES = ("", "target", "turn_cap", "policy_error")
END_TARGET, END_TURN_CAP, END_POLICY_ERROR = 1, 2, 3
# the packed rules: [target, bust_face, max_turns]
C_TARGET, C_BUST_FACE, C_MAX_TURNS, C_HEAD_START = range(4)
