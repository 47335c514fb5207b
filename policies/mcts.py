"""Open-loop Monte Carlo tree search: one implementation for every game. A game that lets a
caller take each action (the game protocol's stepping games) is searched by make_mcts; a game
whose engine asks its bots from inside its rules drives the same tree and walk from its bots.

A game takes part with a search module (its `search.py`) of five numba functions over its own
state and packed rules (C-contiguous int64 vectors):

    legal(state, tables, out) -> n              the legal actions of the position (the engine's)
    step(state, tables, action, work)           play one action (the engine's; `work` is the
                                                search's scratch: All-In Ascent's trace, then
                                                its rollout bot's work memory); may not
                                                allocate
    mover(state) -> seat                        the seat to act, or -1 once the game is over
                                                (may not allocate, nor may `legal`)
    hide_future(state, tables, seat, stream)    re-sample everything `seat` cannot know (future
                                                dice, refills, hidden tiles) from `stream`
    evaluate(state, tables, values)             each seat's value of the position, in [0, 1]:
                                                1 for a winner, 0 for a loser, else the game's
                                                own estimate (milestones, score lead)

and a rollout module with `rollout(state, tables, legal, n, stream, params, work) -> action`
(this module's own is a uniform legal action; a bot module may offer one that plays the bot,
reading its knobs from params after N_SEARCH_PARAMS; `work` is the caller's scratch, the same
array `step` gets, which a bot that needs memory, such as a view and its notes, may use; it
may not allocate). The walk is compiled without numba's runtime (walk_from), hence those
"may not allocate": numba refuses, at compile time, a search whose functions do, and a rollout
bot is compiled the same way (njit_noalloc(first_class=True)).
`make_mcts(search_module, rollout_module)` gives the search, callable from Python; a game's
registered bots are search_bot's. A game whose engine asks its bots from inside its rules
cannot be stepped; it drives the same walk from its bots instead (policies/first_ascent/mcts.py),
so the tree, the walk down it, the back-up and the decision below are one implementation for
every game.

The search is a closure over the game's search module only (numba caches a closure by pickling
what it closes over, and a module pickles as its name), and it takes the rollout bot as an
argument, a first-class function value that it calls by address (rollout_value). So numba
compiles and optimises one search per game, cached, for all of that game's search bots, and a
rollout bot's code once, on its own. With the bot linked into the search (as before), each
search bot optimised its rollout bot's code and the engine's again with its own, and the two
could not be compiled apart (in the two processes of a cold start, sim/core/compiling.py).

Open loop: a tree node is a sequence of actions from the root, not a state. Each iteration
copies the real position, calls `hide_future` with this bot's own stream (so the search never sees
the real game's future: a no-peeking test per game checks that two positions differing only in
their hidden future get the same decision), and walks the tree through the actions that are
legal in that imagined world. Because the legal set changes between imagined worlds, selection
is UCB1 over the children legal now, with each child's *availability* count in place of its
parent's visits (information-set MCTS). A node's first child is the rollout bot's choice; the
others come in an order drawn from the stream. Where a position has many actions, progressive
widening admits a new child only while the node has fewer than ceil(widening * visits^0.5).

Values are kept per seat, and each node's UCB reads the value of the seat that moves there, so
the search is the max^n of a many-player game. The decision is the most visited root action
(ties: the earlier legal action). Everything random comes from `stream`, this seat's own
policy stream, so the same state and stream give the same decision at any thread count.

params (a float vector; a game with fewer slots leaves the tail at its default):
    0 iterations per decision           (>= 1)
    1 rollout depth, in actions          (0: evaluate at the new leaf)
    2 exploration constant c of UCB1     (0.7 suits values in [0, 1])
    3 progressive widening (0: off, every legal action is a candidate at once)
    4 tree depth limit, in actions (0: none; 1: a bandit over the root's actions, every
      iteration's continuation played by the rollout bot)
    5 margin: the rollout bot's own choice at the root (the first child) is kept unless the
      most visited action's mean value beats it by this much (0: the most visited wins)
then the rollout bot's own knobs, if it has any.
"""
import math
import sys

import numpy as np
from numba import njit, typeof, types

from sim.core.compile_order import address_of as address_of_function
from sim.core.function_cells import bind, called_through, function_cell
from sim.core.jit import CalleeCompiler, copy_into, njit_noalloc
from sim.core.policies import compiled_on_use, compiled_value
from sim.core.rng import stream_below

MAX_SEATS = 8
P_ITERATIONS, P_DEPTH, P_EXPLORATION, P_WIDENING, P_TREE_DEPTH, P_MARGIN = 0, 1, 2, 3, 4, 5
N_SEARCH_PARAMS = 6     # a rollout bot keeps its own knobs after these
SEARCH_FUNCTIONS = ("legal", "step", "mover", "hide_future", "evaluate")
NO_NODE = -1


@njit_noalloc       # one copy for every slot: a plain njit compiled one per literal slot number
def _param(params, k, default):
    return params[k] if params.shape[0] > k else default


@njit_noalloc(first_class=True)
def rollout(state, tables, legal, n, stream, params, work):
    """A uniform legal action: the rollout of a search with no bot in it."""
    return legal[stream_below(stream, n)]


# --- the tree: one implementation, whatever drives the game ------------------------------------
# A tree of at most n nodes is seven arrays: first_child, next_sibling, n_children, node_action
# (int64) and visits, available, value[:, MAX_SEATS] (float64); node 0 is the root. An
# iteration walks it from the root, one decision of the imagined game at a time (the walk
# below), then backs the position's values up its path. A game stepped by its caller
# (mcts_decide below) and a game that asks its bots from inside its rules
# (policies/first_ascent/mcts.py) share these; they differ in who plays the decisions the walk
# answers, and in where the rollout ends: after exactly `depth` actions for a stepped game,
# at the end of the turn under way for the other.

@njit(cache=True, pipeline_class=CalleeCompiler)
def find_child(first_child, next_sibling, node_action, node, action):
    child = first_child[node]
    while child != NO_NODE:
        if node_action[child] == action:
            return child
        child = next_sibling[child]
    return NO_NODE


@njit(cache=True, pipeline_class=CalleeCompiler)
def sort_children(first_child, next_sibling, node_action, node, legal, n, child_of, unexpanded):
    """child_of[i]: the child of legal[i] (NO_NODE if none yet); the actions without one go to
    unexpanded; returns their count."""
    n_new = 0
    for i in range(n):
        child_of[i] = find_child(first_child, next_sibling, node_action, node, legal[i])
        if child_of[i] == NO_NODE:
            unexpanded[n_new] = legal[i]
            n_new += 1
    return n_new


@njit(cache=True, pipeline_class=CalleeCompiler)
def should_expand(n_children, visits, node, n_new, n, widening):
    """Progressive widening: a new child only while the node has fewer than
    ceil(widening * visits^0.5) (always when no legal action has a child yet)."""
    if n_new == 0:
        return False
    return widening <= 0.0 or n_new == n or \
        n_children[node] < math.ceil(widening * math.sqrt(visits[node]))


@njit(cache=True, pipeline_class=CalleeCompiler)
def add_child(first_child, next_sibling, n_children, node_action, available, node, action,
              child):
    node_action[child] = action
    next_sibling[child] = first_child[node]
    first_child[node] = child
    n_children[node] += 1
    available[child] = 1.0


@njit(cache=True, pipeline_class=CalleeCompiler)
def ucb_child(child_of, n, visits, available, value, mover, exploration):
    """UCB1 over the children legal in this imagined world, each with its availability count
    in place of its parent's visits."""
    best = NO_NODE
    best_score = -1.0
    for i in range(n):
        child = child_of[i]
        if child == NO_NODE:
            continue
        available[child] += 1.0
        if visits[child] == 0.0:
            score = 1e300
        else:
            score = value[child, mover] / visits[child] + exploration * math.sqrt(
                math.log(available[child]) / visits[child])
        if score > best_score:
            best_score = score
            best = child
    return best


@njit(cache=True, pipeline_class=CalleeCompiler)
def back_up(path, path_len, visits, value, values):
    for k in range(path_len):
        node = path[k]
        visits[node] += 1.0
        for p in range(MAX_SEATS):
            value[node, p] += values[p]


@njit(cache=True, pipeline_class=CalleeCompiler)
def root_decision(first_child, next_sibling, node_action, visits, value, legal, n_legal, seat,
                  margin):
    """The most visited root action; ties go to the earlier legal action. Node 1 is the root's
    first child, the rollout bot's own choice: another action replaces it only if its mean
    value is higher by the margin (a few noisy rollouts should not overrule a good bot)."""
    best_action = legal[0]
    best = NO_NODE
    best_visits = -1.0
    for i in range(n_legal):
        child = find_child(first_child, next_sibling, node_action, 0, legal[i])
        v = visits[child] if child != NO_NODE else 0.0
        if v > best_visits:
            best_visits = v
            best_action = legal[i]
            best = child
    if margin > 0.0 and best != 1 and best != NO_NODE and visits[1] > 0.0 and \
            value[best, seat] / visits[best] < value[1, seat] / visits[1] + margin:
        return node_action[1]
    return best_action


# --- the walk: the search's answer at each decision of an imagined game -------------------------
# One iteration's progress, a small int64 vector: its phase, the node it stands at, its path's
# length (the path itself is an int64 array of the tree's size + 1), the rollout decisions
# left, and the tree's node count and capacity. At each decision a driver asks walk_wants_bot
# (is the rollout bot's answer needed?); in the tree, walk_answer gives the action; past it,
# the rollout bot's choice is played for `depth` decisions (rollout_answer counts them for a
# driver that asks the walk at every decision).
WALK_NOT_STARTED, WALK_TREE, WALK_ROLLOUT, WALK_FINISHED = range(4)
WALK_PHASE, WALK_NODE, WALK_PATH_LEN, WALK_DEPTH_LEFT, WALK_N_NODES, WALK_N_MAX = range(6)
WALK_SIZE = 6
NO_ACTION = -1


@njit(cache=True, pipeline_class=CalleeCompiler)
def start_tree(walk, n_max):
    """An empty tree of capacity n_max: the root only."""
    walk[WALK_N_NODES] = 1
    walk[WALK_N_MAX] = n_max


@njit(cache=True, inline="always")
def start_walk(walk, path):
    """An iteration's walk, at the root."""
    walk[WALK_PHASE] = WALK_TREE
    walk[WALK_NODE] = 0
    path[0] = 0
    walk[WALK_PATH_LEN] = 1


@njit(cache=True, inline="always")
def _start_rollout(walk, depth):
    walk[WALK_PHASE] = WALK_ROLLOUT
    walk[WALK_DEPTH_LEFT] = depth


@njit(cache=True, inline="always")
def walk_wants_bot(walk, n_children, max_tree_depth, depth):
    """Before a decision: whether the rollout bot's answer may be used (so that the bot is
    asked only where it is). A walk that has gone below the tree's depth limit (0 or less:
    none) turns into its rollout here."""
    if walk[WALK_PHASE] != WALK_TREE:
        return True
    if max_tree_depth > 0 and walk[WALK_PATH_LEN] > max_tree_depth:
        _start_rollout(walk, depth)
        return True
    return n_children[walk[WALK_NODE]] == 0       # a new node's first child is the bot's


@njit(cache=True, inline="always")
def rollout_answer(walk, bot_choice):
    """A rollout decision: the bot's choice, counted; after the walk's last, the walk is
    finished, and a driver that cannot stop at once goes on with the bot's choices."""
    if walk[WALK_PHASE] == WALK_ROLLOUT:
        if walk[WALK_DEPTH_LEFT] <= 0:
            walk[WALK_PHASE] = WALK_FINISHED
        else:
            walk[WALK_DEPTH_LEFT] -= 1
    return bot_choice


@njit(cache=True, inline="always")
def walk_answer(first_child, next_sibling, n_children, node_action, visits, available, value,
                walk, path, legal, n, mover, bot_choice, stream, child_of, unexpanded, widening,
                exploration, depth):
    """The search's action at a decision in the tree, `legal[:n]` legal, `mover` to act;
    `bot_choice` is the rollout bot's action where walk_wants_bot asked for it.

    UCB1 over the children legal in this imagined world, with progressive widening; where a
    node takes a new child (its first is the bot's choice, the others come in an order drawn
    from the stream), the walk leaves the tree there and its rollout of `depth` decisions
    begins at the next one."""
    node = walk[WALK_NODE]
    n_new = sort_children(first_child, next_sibling, node_action, node, legal, n, child_of,
                          unexpanded)
    if should_expand(n_children, visits, node, n_new, n, widening) and \
            walk[WALK_N_NODES] < walk[WALK_N_MAX]:
        if n_children[node] == 0:
            action = bot_choice
        else:
            action = unexpanded[stream_below(stream, n_new)]
        child = walk[WALK_N_NODES]
        walk[WALK_N_NODES] = child + 1
        add_child(first_child, next_sibling, n_children, node_action, available, node,
                  action, child)
        path[walk[WALK_PATH_LEN]] = child
        walk[WALK_PATH_LEN] += 1
        _start_rollout(walk, depth)
        return action
    best = ucb_child(child_of, n, visits, available, value, mover, exploration)
    if best != NO_NODE:
        path[walk[WALK_PATH_LEN]] = best
        walk[WALK_PATH_LEN] += 1
        walk[WALK_NODE] = best
        return node_action[best]
    # the tree is full and none of this node's children is legal here: the rollout begins
    _start_rollout(walk, depth)
    if bot_choice == NO_ACTION:
        bot_choice = legal[stream_below(stream, n)]
    return rollout_answer(walk, bot_choice)


def make_mcts(game, rollouts=None):
    """The search over `game`'s search module with `rollouts`' rollout bot (None: uniform), as
    a Search: callable from Python, and the two compiled halves a registered bot holds
    (search_bot)."""
    bot = sys.modules[__name__] if rollouts is None else rollouts
    for module, names in ((game, SEARCH_FUNCTIONS), (bot, ("rollout",))):
        missing = [name for name in names if not hasattr(module, name)]
        if missing:
            raise TypeError(f"{module.__name__} lacks the search function(s) "
                            f"{', '.join(missing)} (policies/mcts.py)")
    return Search(search_of(game), bot)


_SEARCHES = {}      # a game's search module -> its compiled search


def search_of(game):
    """`game`'s compiled search, whatever its rollout bot: mcts_decide below, which takes the
    bot as its last argument, a first-class function (rollout_value). One per game, so that
    numba compiles and optimises it once for all of a game's search bots, and never again
    with a rollout bot's code linked into it (nor that bot's code with it)."""
    if game not in _SEARCHES:
        _SEARCHES[game] = _search(game)
    return _SEARCHES[game]


_I64 = types.Array(types.int64, 1, "C")


def rollout_signature(tables, stream, params, work=_I64):
    """The type of a rollout bot as the search calls it: (state, tables, legal, n, stream,
    params, work) -> action; the state and the legal actions are the search's own C-ordered
    int64 vectors, the rest as the search was given them (numba types)."""
    return types.int64(_I64, tables, _I64, types.int64, stream, params, work)


def context_rollout_type(context_type, tables="tables"):
    """rollout_signature for a search given a bot context's (numba type) packed rules (the
    field `tables`), stream and params."""
    fields = list(context_type.fields)
    return rollout_signature(*(context_type[fields.index(name)]
                               for name in (tables, "stream", "params")))


def rollout_value(module, signature):
    """`module.rollout` compiled for `signature` as a first-class function value that carries
    its address (sim.core.policies.compiled_value): the search calls it by address, its code
    optimised once, on its own. It is compiled without numba's runtime where the module
    declares it so (njit_noalloc(first_class=True)): the search's walk may not allocate."""
    return compiled_value(module.rollout, signature)


class Search:
    """make_mcts's answer: `search(state, tables, seat, legal, n_legal, stream, params, work)`
    from Python decides with `decide` (the game's search) and the rollout bot's function
    value."""

    def __init__(self, decide, bot):
        self.decide = decide
        self.bot = bot

    def rollout_value(self, tables, stream, params, work=_I64):
        return rollout_value(self.bot, rollout_signature(tables, stream, params, work))

    def __call__(self, state, tables, seat, legal, n_legal, stream, params, work):
        rollout = self.rollout_value(typeof(tables), typeof(stream), typeof(params),
                                     typeof(work))
        return self.decide(state, tables, seat, legal, n_legal, stream, params, work, rollout)


def search_bot(searching, signature, rollouts, rollout_type):
    """A registered search bot, compiled on use (sim.core.policies.compiled_on_use):
    `bot(ctx) = searching(ctx, rollout)`, with `rollouts`' rollout bot (None: uniform) as a
    function value of type `rollout_type` (a rollout_signature), `searching` a game's jitted
    decision (one for all its search bots, the game's search linked into it, cached). The bot
    calls both by address, read from function cells (sim/core/function_cells.py) that
    `prepare` fills in each process: called by name, the search and the rollout bot would be
    linked into the bot and optimised again with it, and held as constants (function values
    with this process's addresses) they kept numba from caching the bot, which then compiled
    in every process. First Ascent's search bots do the same."""
    bot = sys.modules[__name__] if rollouts is None else rollouts
    key = (signature.args[0], types.FunctionType(rollout_type))
    searching_cell = function_cell(searching, signature.return_type(*key))
    rollout_cell = function_cell(bot.rollout, rollout_type)

    # numba caches a closure under what it closes over: the two cells' names only
    def search_policy(ctx):
        return called_through(searching_cell)(ctx, called_through(rollout_cell))
    search_policy.__module__ = searching.__module__     # the game's bot module

    def compile_rollout():
        bind(rollout_cell, rollout_value(bot, rollout_type))

    def compile_searching():
        bind(searching_cell, compiled_value(searching, key))

    def prepare():
        compile_rollout()
        compile_searching()

    # apart, in the two processes of a cold start (sim/core/compiling.py): the rollout bot
    # (All-In Ascent's tuned planner, Ascension's hybrid) in the second, while the run compiles
    # its kernel, then the search, unless the run has started it by then
    parts = ((address_of_function(bot.rollout), compile_rollout),
             (address_of_function(searching), compile_searching))
    return compiled_on_use(signature, prepare=prepare, parts=parts,
                           cells=(searching_cell, rollout_cell))(search_policy)


def _search(game):
    @njit_noalloc
    def walk_from(work, tables, stream, params, step_work, depth, exploration, widening,
                  max_tree_depth, first_child, next_sibling, n_children, node_action, visits,
                  available, value, walk, buf, unexpanded, child_of, path, rollout):
        """An iteration's play from the imagined world `work`: the walk down the tree, then the
        rollout. Compiled without numba's runtime, so that the walk's functions are inlined
        with no reference counting around the tree's arrays (the runtime's counting made a
        Dice Race search about 1.7-2x slower); a game's hide_future and evaluate may
        allocate, so they run outside it. `rollout`: the rollout bot, called by address."""
        start_walk(walk, path)
        # the tree: walk_answer at each decision until the walk leaves it
        while True:
            mover = game.mover(work)
            if mover < 0:
                break
            wants_bot = walk_wants_bot(walk, n_children, max_tree_depth, depth)
            if walk[WALK_PHASE] != WALK_TREE:
                break
            n = game.legal(work, tables, buf)
            if n == 0:
                break
            bot_choice = NO_ACTION
            if wants_bot:
                bot_choice = rollout(work, tables, buf, n, stream, params, step_work)
            action = walk_answer(first_child, next_sibling, n_children, node_action, visits,
                                 available, value, walk, path, buf, n, mover, bot_choice,
                                 stream, child_of, unexpanded, widening, exploration, depth)
            game.step(work, tables, action, step_work)
        # the rollout: the bot's choices for the decisions the walk has left
        for _d in range(walk[WALK_DEPTH_LEFT] if walk[WALK_PHASE] == WALK_ROLLOUT else 0):
            if game.mover(work) < 0:
                break
            n = game.legal(work, tables, buf)
            if n == 0:
                break
            action = rollout(work, tables, buf, n, stream, params, step_work)
            game.step(work, tables, action, step_work)

    # a callee's pipeline (sim/core/jit.py): a game's search bot calls it through its
    # `searching` (search_bot), and numba optimises it with that code
    @njit(cache=True, pipeline_class=CalleeCompiler)
    def mcts_decide(state, tables, seat, legal, n_legal, stream, params, step_work, rollout):
        """The most visited root action of an open-loop search from `state` for `seat` (see
        the module's docstring); `legal[:n_legal]` are the root's legal actions; `rollout`
        the rollout bot, a function value (rollout_value)."""
        if n_legal == 1:
            return legal[0]
        iterations = max(1, int(_param(params, P_ITERATIONS, 200.0)))
        depth = max(0, int(_param(params, P_DEPTH, 40.0)))
        exploration = _param(params, P_EXPLORATION, 0.7)
        widening = _param(params, P_WIDENING, 0.0)
        max_tree_depth = int(_param(params, P_TREE_DEPTH, 0.0))
        margin = _param(params, P_MARGIN, 0.0)

        n_nodes_max = iterations + 1
        first_child = np.full(n_nodes_max, NO_NODE, np.int64)
        next_sibling = np.full(n_nodes_max, NO_NODE, np.int64)
        n_children = np.zeros(n_nodes_max, np.int64)
        node_action = np.full(n_nodes_max, NO_NODE, np.int64)
        visits = np.zeros(n_nodes_max, np.float64)
        available = np.zeros(n_nodes_max, np.float64)
        value = np.zeros((n_nodes_max, MAX_SEATS), np.float64)
        walk = np.empty(WALK_SIZE, np.int64)
        start_tree(walk, n_nodes_max)

        work = np.empty_like(state)
        buf = np.empty_like(legal)
        unexpanded = np.empty_like(legal)
        child_of = np.empty_like(legal)      # the child of each legal action, or NO_NODE
        path = np.empty(n_nodes_max + 1, np.int64)
        values = np.zeros(MAX_SEATS, np.float64)

        for _ in range(iterations):
            copy_into(work, state)
            game.hide_future(work, tables, seat, stream)
            walk_from(work, tables, stream, params, step_work, depth, exploration, widening,
                      max_tree_depth, first_child, next_sibling, n_children, node_action, visits,
                      available, value, walk, buf, unexpanded, child_of, path, rollout)
            game.evaluate(work, tables, values)
            back_up(path, walk[WALK_PATH_LEN], visits, value, values)
        return root_decision(first_child, next_sibling, node_action, visits, value, legal,
                             n_legal, seat, margin)

    return mcts_decide
