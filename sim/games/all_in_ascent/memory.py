"""The work memory of All-In Ascent's bots, laid out in named blocks in this one place.

A bot's decision needs a few vectors (a trial copy of the state, the gaps to a milestone, the
dice of an exact probability count). So that the bots and the probability module never
allocate (sim/core/jit.py), those vectors come from one int64 buffer that the kernel allocates
and zeroes once a game and hands to every policy as `ctx.work` (policy_api.py). Every block is
per decision: a decision may overwrite any of them, and nothing is kept from one decision to
the next. `sim.core.layout` assigns the offsets, so a block grows or is added here only.
"""
from sim.core.layout import layout
from sim.games.all_in_ascent.state import MAX_DICE, N_STATS, STATE_SIZE, TRACE_SIZE

# probability.py's exact counts over coupled dice (_enumerated_count, _chosen_count)
_PROBABILITY, PROBABILITY_WORK = layout([
    ("dice", MAX_DICE),                 # one outcome of the rolled dice
    ("dice_work", 2 * MAX_DICE),        # best_final_choice's scratch
    ("trace", TRACE_SIZE),              # the engine's trace, zeroed for each count
    ("eff", N_STATS),                   # the effective stats as an array
    ("memo", 6 ** MAX_DICE),            # each dice vector's success, computed once
])
PR_DICE, PR_DICE_WORK, PR_TRACE, PR_EFF, PR_MEMO = _PROBABILITY.values()

# the policies' work memory (ctx.work)
_WORK, WORK_SIZE = layout([
    ("probability", PROBABILITY_WORK),  # at offset 0: a probability count's blocks (PR_*)
    ("trial_state", STATE_SIZE),        # the planner's trial redistribution
    ("gaps", N_STATS),                  # the planner's milestone gaps, as float64 bits
])
W_PROBABILITY, W_TRIAL_STATE, W_GAPS = _WORK.values()

# A search (policies/mcts.py) hands `step` and its rollout bot one array: the engine's trace,
# then a policy work memory for the bot, then a knob vector a bot may build there (as float64
# bits: a search's iterations may not allocate)
_SEARCH, SEARCH_WORK_SIZE = layout([("trace", TRACE_SIZE), ("policy_work", WORK_SIZE),
                                    ("rollout_knobs", 1)])
S_TRACE, S_POLICY_WORK, S_ROLLOUT_KNOBS = _SEARCH.values()
