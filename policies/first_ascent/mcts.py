"""Open-loop MCTS for First Ascent: `mcts` and `mcts-tuned`, on the tree of policies/mcts.py.

First Ascent's engine is a straight program that asks its bots from inside the rules
(engine.ask), so a search cannot take the position of a decision and step it. It resumes instead:
the engine keeps a checkpoint of the state where the current segment began (the deal, then each
round) and the code of every decision since (memory.py, SEGMENT_*). Each iteration of a search
copies the checkpoint and plays it on with the engine's `play_on` (through `engine.play`, by
address: the same compiled code as the kernel's), every seat asked by this module's tree
agent, which
1. answers the segment's past decisions with their recorded codes (the past, so the real hidden
   values are used; nothing of them reaches the decision but through the state at the root);
2. at the root (the decision being searched) checks that the replay arrived at the same seat,
   decision and legal codes, and deals everything the seat cannot know again from the search's
   own stream (search.hide_future: the no-peeking test checks that the real hidden values do
   not change the decision);
3. then answers every seat's asked decisions with the walk of policies/mcts.py, the one every
   game's search uses (walk_wants_bot, walk_answer, rollout_answer: UCB1 with availability
   counts, progressive widening, the rollout bot's choice as each node's first child, then
   the rollout bot for `depth` asked decisions);
4. once the walk is finished, sets G_POLICY_ERROR to SEARCH_STOP, which makes the engine end
   the imagined game at the end of the turn under way (or of the round's Follow and Rerack
   phases), still played by the rollout bot; search.evaluate scores that position and the path
   backs it up.
A tree node is a sequence of asked actions from the root (open loop).

Everything random comes from this seat's own policy stream (the imagined seats' streams are drawn
from it), so the same state and stream give the same decision at any thread count. Each search
allocates its tree once; the agents and the engine under them do not allocate.

params: policies/mcts.py's six (iterations, rollout depth in asked decisions, exploration,
widening, tree depth, margin); `mcts@N` runs N iterations per decision; `mcts-tuned` then has
tuned's twelve characters' knob vectors.
"""
import numpy as np
from numba import njit, types

from policies.first_ascent.planner import N_KNOBS, decide
from policies.first_ascent.tuned import load_tuned, tuned_vector
from policies.mcts import (
    MAX_SEATS, N_SEARCH_PARAMS, NO_ACTION, NO_NODE, P_DEPTH, P_EXPLORATION, P_ITERATIONS,
    P_MARGIN, P_TREE_DEPTH, P_WIDENING, WALK_FINISHED, WALK_N_MAX, WALK_NOT_STARTED,
    WALK_PATH_LEN, WALK_PHASE, WALK_SIZE, WALK_TREE, back_up, rollout_answer, root_decision,
    start_tree, start_walk, walk_answer, walk_wants_bot)
from sim.core.compile_order import address_of as address_of_function
from sim.core.function_cells import bind, called_through, function_cell
from sim.core.game import get_game
from sim.core.jit import copy_into, njit_noalloc
from sim.core.layout import layout
from sim.core.policies import as_function_value, compiled_on_use, compiled_value, register
from sim.core.rng import stream_below
from sim.games.first_ascent.data import N_KINDS
from sim.games.first_ascent.engine import SCRATCH_SIZE, play
from sim.games.first_ascent.kernel import MAX_SLOTS, engine_signature, engine_value
from sim.games.first_ascent.memory import (
    MAX_SEGMENT_DECISIONS, SEGMENT, SEGMENT_CHECKPOINT, SEGMENT_CODES, SEGMENT_DEALING,
    SEGMENT_FIRST, SEGMENT_TURN_SEAT, WORK_SIZE)
from sim.games.first_ascent.policy_api import MAX_POLICY_PARAMS, POLICY_SIGNATURE
from sim.games.first_ascent.state import (
    G_DECISIONS, G_POLICY_ERROR, MAX_LEGAL, MAX_PLAYERS, SEAT_FIELDS, STATE_SIZE, S_CHAR)

# the search's view of the game, as game.toml's search_module declares it
_SEARCH_MODULE = get_game("first-ascent").search
HIDE_SCRATCH, evaluate, hide_future = (_SEARCH_MODULE.HIDE_SCRATCH, _SEARCH_MODULE.evaluate,
                                       _SEARCH_MODULE.hide_future)

# iterations, rollout depth, exploration, widening, tree depth, margin
MCTS_DEFAULTS = (64.0, 24.0, 0.7, 1.0, 0.0, 0.0)
MCTS_TUNED_SEARCH = (16.0, 24.0, 0.7, 1.0, 0.0, 0.1)
SEARCH_STOP = 1 << 20       # G_POLICY_ERROR's value when a search ends an imagined game

# The search's memory, one int64 vector: the agents' `ctx.work`. The rollout bots' work memory
# comes first, where they expect it; the tree's float arrays are float64 views of its tail.
# The walk (policies/mcts.py) is not started while the imagined game replays the segment's past.
_CONTROL, CONTROL_SIZE = layout([(name, 1) for name in (
    "first", "replay", "seat", "decision", "n_legal", "diverged")])
C_FIRST, C_REPLAY, C_SEAT, C_DECISION, C_N_LEGAL, C_DIVERGED = (
    WORK_SIZE + off for off in _CONTROL.values())
_SEARCH, SEARCH_FIXED = layout([
    ("control", CONTROL_SIZE),
    ("walk", WALK_SIZE),
    ("codes", MAX_SEGMENT_DECISIONS),   # the segment's past decisions, copied from the game
    ("root_legal", MAX_LEGAL),
    ("child_of", MAX_LEGAL),
    ("unexpanded", MAX_LEGAL),
    ("hide", HIDE_SCRATCH),
    ("values", MAX_SEATS),              # float64 bits
], start=WORK_SIZE)
_, M_WALK, M_CODES, M_ROOT_LEGAL, M_CHILD_OF, M_UNEXPANDED, M_HIDE, M_VALUES = \
    _SEARCH.values()
# then, for a tree of n nodes: first_child, next_sibling, n_children, node_action, path (n + 1)
# as int64; visits, available, value (n x MAX_SEATS) as float64 bits
N_INT_ARRAYS = 4
N_FLOAT_PER_NODE = 2 + MAX_SEATS


@njit(cache=True)
def search_size(n_max):
    return SEARCH_FIXED + N_INT_ARRAYS * n_max + (n_max + 1) + N_FLOAT_PER_NODE * n_max


@njit_noalloc(inline="always")
def _int_array(work, k):
    """The tree's k-th int64 array (0 first_child, 1 next_sibling, 2 n_children, 3
    node_action)."""
    n = work[M_WALK + WALK_N_MAX]
    return work[SEARCH_FIXED + k * n:SEARCH_FIXED + (k + 1) * n]


@njit_noalloc(inline="always")
def _tree(work):
    n = work[M_WALK + WALK_N_MAX]
    at = SEARCH_FIXED
    first_child = _int_array(work, 0)
    next_sibling = _int_array(work, 1)
    n_children = _int_array(work, 2)
    node_action = _int_array(work, 3)
    path = work[at + 4 * n:at + 5 * n + 1]
    floats = work[at + 5 * n + 1:at + 5 * n + 1 + N_FLOAT_PER_NODE * n].view(np.float64)
    visits = floats[:n]
    available = floats[n:2 * n]
    value = floats[2 * n:].reshape((n, MAX_SEATS))
    return first_child, next_sibling, n_children, node_action, path, visits, available, value


@njit_noalloc
def _enter_root(ctx):
    """The replay has reached the searched decision: check it, then deal a fresh hidden world."""
    w = ctx.work
    same = ctx.seat == w[C_SEAT] and ctx.decision == w[C_DECISION] and \
        ctx.n_legal == w[C_N_LEGAL]
    if same:
        for i in range(ctx.n_legal):
            if ctx.legal[i] != w[M_ROOT_LEGAL + i]:
                same = False
                break
    walk = w[M_WALK:M_WALK + WALK_SIZE]
    if not same:
        w[C_DIVERGED] = 1
        walk[WALK_PHASE] = WALK_FINISHED
        ctx.state[G_POLICY_ERROR] = SEARCH_STOP
        return
    turn_seat = w[SEGMENT_TURN_SEAT]
    hide_future(ctx.state, ctx.tables, ctx.seat, ctx.stream,
                turn_seat if turn_seat != ctx.seat else -1, w[M_HIDE:M_HIDE + HIDE_SCRATCH])
    first_child, next_sibling, n_children, node_action, path, visits, available, value = \
        _tree(w)
    start_walk(walk, path)


@njit_noalloc
def needs_bot(ctx):
    """Whether this decision's answer may be the rollout bot's (called first by an agent, so
    that the bot is asked only where its answer is used). Moves the replay into the tree."""
    w = ctx.work
    walk = w[M_WALK:M_WALK + WALK_SIZE]
    if walk[WALK_PHASE] == WALK_NOT_STARTED:
        if ctx.state[G_DECISIONS] - w[C_FIRST] < w[C_REPLAY]:
            return False
        _enter_root(ctx)
    return walk_wants_bot(walk, _int_array(w, 2), int(ctx.params[P_TREE_DEPTH]),
                          int(ctx.params[P_DEPTH]))


@njit_noalloc
def tree_answer(ctx, bot_choice):
    """The search agent's answer (module docstring); bot_choice is the rollout bot's answer
    where needs_bot said so, else NO_ACTION. A finished walk makes the engine end the imagined
    game at the end of the turn under way."""
    w = ctx.work
    walk = w[M_WALK:M_WALK + WALK_SIZE]
    if walk[WALK_PHASE] == WALK_NOT_STARTED:
        return w[M_CODES + ctx.state[G_DECISIONS] - w[C_FIRST]]
    params = ctx.params
    finished = walk[WALK_PHASE] == WALK_FINISHED
    if walk[WALK_PHASE] == WALK_TREE:
        first_child, next_sibling, n_children, node_action, path, visits, available, value = \
            _tree(w)
        action = walk_answer(first_child, next_sibling, n_children, node_action, visits,
                             available, value, walk, path, ctx.legal, ctx.n_legal, ctx.seat,
                             bot_choice, ctx.stream, w[M_CHILD_OF:M_CHILD_OF + MAX_LEGAL],
                             w[M_UNEXPANDED:M_UNEXPANDED + MAX_LEGAL], params[P_WIDENING],
                             params[P_EXPLORATION], int(params[P_DEPTH]))
    else:
        action = rollout_answer(walk, bot_choice)
    if walk[WALK_PHASE] == WALK_FINISHED and not finished:      # once, as the walk ends
        ctx.state[G_POLICY_ERROR] = SEARCH_STOP
    return action


@njit_noalloc(first_class=True)
def random_agent(ctx):
    """The search agent of `mcts`: uniform legal actions past the tree."""
    bot = ctx.legal[stream_below(ctx.stream, ctx.n_legal)] if needs_bot(ctx) else NO_ACTION
    return tree_answer(ctx, bot)


@njit_noalloc(first_class=True)
def tuned_agent(ctx):
    """The search agent of `mcts-tuned`: tuned's choice past the tree and as each node's first
    child, with the deciding seat's character's knobs."""
    bot = NO_ACTION
    if needs_bot(ctx):
        c = ctx.state[S_CHAR + ctx.seat * SEAT_FIELDS]
        at = N_SEARCH_PARAMS + (c - 1) * N_KNOBS
        bot = decide(ctx, ctx.params[at:at + N_KNOBS])
    return tree_answer(ctx, bot)


@njit(cache=True)
def search(ctx, agents, engine):
    """The decision of an open-loop search from ctx's position, every imagined seat played by
    `agents` (a tuple of the one search agent, one per policy slot), the imagined games by
    `engine` (engine.play as a function value: kernel.engine_value)."""
    if ctx.n_legal == 1:
        return ctx.legal[0]
    real = ctx.work
    replay = ctx.state[G_DECISIONS] - real[SEGMENT_FIRST]
    if replay < 0 or replay >= MAX_SEGMENT_DECISIONS:
        return -1           # the segment's codes are not all kept: the kernel's policy error
    params = ctx.params
    iterations = max(1, int(params[P_ITERATIONS]))
    n_max = iterations + 1
    w = np.zeros(search_size(n_max), np.int64)
    walk = w[M_WALK:M_WALK + WALK_SIZE]
    start_tree(walk, n_max)
    w[C_FIRST] = real[SEGMENT_FIRST]
    w[C_REPLAY] = replay
    w[C_SEAT] = ctx.seat
    w[C_DECISION] = ctx.decision
    w[C_N_LEGAL] = ctx.n_legal
    for i in range(replay):
        w[M_CODES + i] = real[SEGMENT_CODES + i]
    for i in range(ctx.n_legal):
        w[M_ROOT_LEGAL + i] = ctx.legal[i]
    dealing = real[SEGMENT_DEALING]
    checkpoint = real[SEGMENT_CHECKPOINT:SEGMENT_CHECKPOINT + STATE_SIZE]
    # the imagined game's bundle (engine/__init__.py, `ag`); every seat on slot 0
    slot_params = np.zeros((1, params.shape[0]), np.float64)
    copy_into(slot_params[0], params)
    streams = np.empty((MAX_PLAYERS, 1), np.uint64)
    for q in range(MAX_PLAYERS):
        streams[q, 0] = np.uint64(stream_below(ctx.stream, 1 << 32)) << np.uint64(32) | \
            np.uint64(stream_below(ctx.stream, 1 << 32))
    st = np.empty(STATE_SIZE, np.int64)
    ag = (agents, np.zeros(MAX_PLAYERS, np.int64), slot_params, streams, w,
          np.empty((0, 6), np.int64), np.zeros(MAX_LEGAL, np.int64), np.zeros(N_KINDS, np.int64),
          np.zeros(SCRATCH_SIZE, np.int64))
    first_child, next_sibling, n_children, node_action, path, visits, available, value = \
        _tree(w)
    first_child[:] = NO_NODE            # the tree walk follows these lists to NO_NODE
    next_sibling[:] = NO_NODE
    node_action[:] = NO_NODE
    values = w[M_VALUES:M_VALUES + MAX_SEATS].view(np.float64)
    for _ in range(iterations):
        copy_into(st, checkpoint)
        w[:SEGMENT] = 0                 # the rollout bots' caches start afresh; the imagined
        w[SEGMENT_FIRST] = real[SEGMENT_FIRST]  # engine rewrites its own segment block
        w[SEGMENT_TURN_SEAT] = -1
        walk[WALK_PHASE] = WALK_NOT_STARTED
        walk[WALK_PATH_LEN] = 0
        engine(st, ctx.tables, ag, dealing)
        if w[C_DIVERGED] != 0 or walk[WALK_PHASE] == WALK_NOT_STARTED:
            return -1       # the replay did not reach this decision: a bug, made loud
        evaluate(st, ctx.tables, values)
        back_up(path, walk[WALK_PATH_LEN], visits, value, values)
    return root_decision(first_child, next_sibling, node_action, visits, value, ctx.legal,
                         ctx.n_legal, ctx.seat, params[P_MARGIN])


MCTS_TUNED_DEFAULTS = np.concatenate([MCTS_TUNED_SEARCH, tuned_vector(load_tuned())])
assert len(MCTS_TUNED_DEFAULTS) <= MAX_POLICY_PARAMS


# the types the search is compiled for: a bot context, the agents (one function value per
# policy slot) and the engine for that bundle
_CONTEXT = POLICY_SIGNATURE.args[0]
_AGENTS = types.UniTuple(types.FunctionType(POLICY_SIGNATURE), MAX_SLOTS)
_TABLES = _CONTEXT[list(_CONTEXT.fields).index("tables")]
_SEARCH_KEY = (_CONTEXT, _AGENTS, types.FunctionType(engine_signature(_TABLES, _AGENTS)))


def _search_policy(agent):
    """The registered search bot whose imagined seats are all played by `agent`. The agents
    and the engine reach the search as first-class function values, the types the kernel
    gives its bots and its engine, so the engine's code compiled for the kernel serves the
    search too, and the search stays cacheable. The policy reads them, and the search it
    calls, from function cells (sim/core/function_cells.py) that `prepare` fills in each
    process, so numba caches the policy too: held as constants (with this process's
    addresses) they made it compile in every process, and called by name, the search would
    be linked into the policy and optimised again with it. Returns the bot (compiled on use)
    and its `prepare`."""
    agents_cell = function_cell(agent, POLICY_SIGNATURE, copies=MAX_SLOTS)
    engine_cell = function_cell(play, engine_signature(_TABLES, _AGENTS))
    search_cell = function_cell(search, POLICY_SIGNATURE.return_type(*_SEARCH_KEY))

    # numba caches a closure under what it closes over: the three cells' names only
    def search_policy(ctx):
        return called_through(search_cell)(ctx, called_through(agents_cell),
                                           called_through(engine_cell))

    def compile_agent():
        bind(agents_cell, as_function_value(agent, POLICY_SIGNATURE))

    def compile_search():       # one for both search bots, cached
        bind(search_cell, compiled_value(search, _SEARCH_KEY))

    def prepare():
        compile_agent()
        bind(engine_cell, engine_value(_TABLES, _AGENTS))
        compile_search()

    # apart, in the two processes of a cold start (sim/core/compiling.py): the agent (with
    # the rollout bot in it) in the second, once it has compiled its end of the kernel; the
    # search, which only calls the engine, in the run once the run has compiled the engine
    parts = ((address_of_function(agent), compile_agent),
             (address_of_function(search), compile_search))
    bot = compiled_on_use(POLICY_SIGNATURE, prepare=prepare, parts=parts,
                          cells=(agents_cell, engine_cell, search_cell))(search_policy)
    return bot, prepare


_random_search, _prepare_random = _search_policy(random_agent)
_tuned_search, _prepare_tuned = _search_policy(tuned_agent)

mcts_policy = register(
    "first-ascent", "mcts", params=MCTS_DEFAULTS, budget_param=P_ITERATIONS,
    description="Open-loop MCTS resumed from the round's checkpoint, random rollouts, generic "
                "score-lead estimate: no planner code")(_random_search)
mcts_tuned_policy = register(
    "first-ascent", "mcts-tuned", params=MCTS_TUNED_DEFAULTS, budget_param=P_ITERATIONS,
    plays_tuned_knobs=True, family="planner",
    description="Open-loop MCTS with tuned's rollouts and first children, its own choice kept "
                "unless beaten by the margin")(_tuned_search)
