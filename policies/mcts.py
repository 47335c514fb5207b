"""Open-loop Monte Carlo tree search: one implementation for every game that lets a caller take
each action (the game protocol's stepping games).

A game takes part with a search module (its `search.py`) of five numba functions over its own
state and packed rules (C-contiguous int64 vectors):

    legal(state, tables, out) -> n              the legal actions of the position (the engine's)
    step(state, tables, action, work)           play one action (the engine's; `work` is the
                                                search's scratch: All-In Ascent's trace, then
                                                its rollout bot's work memory)
    mover(state) -> seat                        the seat to act, or -1 once the game is over
    hide_future(state, tables, seat, stream)    re-sample everything `seat` cannot know (future
                                                dice, refills, hidden tiles) from `stream`
    evaluate(state, tables, values)             each seat's value of the position, in [0, 1]:
                                                1 for a winner, 0 for a loser, else the game's
                                                own estimate (milestones, score lead)

and a rollout module with `rollout(state, tables, legal, n, stream, params, work) -> action`
(this module's own is a uniform legal action; a bot module may offer one that plays the bot,
reading its knobs from params after N_SEARCH_PARAMS; `work` is the caller's scratch, the same
array `step` gets, which a bot that needs memory, such as a view and its notes, may use).
`make_mcts(search_module, rollout_module)` gives the compiled search; a game's policy calls
it. The search is a closure over the two modules: numba caches a closure by pickling what it
closes over, and a module pickles as its name, so the compiled search is cached per (game,
rollout bot), and no bot compiles another's code.

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
from numba import njit

from sim.core.rng import stream_below

MAX_SEATS = 8
P_ITERATIONS, P_DEPTH, P_EXPLORATION, P_WIDENING, P_TREE_DEPTH, P_MARGIN = 0, 1, 2, 3, 4, 5
N_SEARCH_PARAMS = 6     # a rollout bot keeps its own knobs after these
SEARCH_FUNCTIONS = ("legal", "step", "mover", "hide_future", "evaluate")
NO_NODE = -1


@njit(cache=True)
def _param(params, k, default):
    return params[k] if params.shape[0] > k else default


@njit(cache=True)
def rollout(state, tables, legal, n, stream, params, work):
    """A uniform legal action: the rollout of a search with no bot in it."""
    return legal[stream_below(stream, n)]


# --- the tree: one implementation, whatever drives the game ------------------------------------
# A tree of at most n nodes is seven arrays: first_child, next_sibling, n_children, node_action
# (int64) and visits, available, value[:, MAX_SEATS] (float64); node 0 is the root. A game
# stepped by its caller (mcts_decide below) and a game that asks its bots from inside its rules
# (policies/first_ascent/mcts.py) both walk it with these functions.

@njit(cache=True)
def find_child(first_child, next_sibling, node_action, node, action):
    child = first_child[node]
    while child != NO_NODE:
        if node_action[child] == action:
            return child
        child = next_sibling[child]
    return NO_NODE


@njit(cache=True)
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


@njit(cache=True)
def should_expand(n_children, visits, node, n_new, n, widening):
    """Progressive widening: a new child only while the node has fewer than
    ceil(widening * visits^0.5) (always when no legal action has a child yet)."""
    if n_new == 0:
        return False
    return widening <= 0.0 or n_new == n or \
        n_children[node] < math.ceil(widening * math.sqrt(visits[node]))


@njit(cache=True)
def add_child(first_child, next_sibling, n_children, node_action, available, node, action,
              child):
    node_action[child] = action
    next_sibling[child] = first_child[node]
    first_child[node] = child
    n_children[node] += 1
    available[child] = 1.0


@njit(cache=True)
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


@njit(cache=True)
def back_up(path, path_len, visits, value, values):
    for k in range(path_len):
        node = path[k]
        visits[node] += 1.0
        for p in range(MAX_SEATS):
            value[node, p] += values[p]


@njit(cache=True)
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


def make_mcts(game, rollouts=None):
    """The search over `game`'s search module with `rollouts`' rollout bot (None: uniform)."""
    bot = sys.modules[__name__] if rollouts is None else rollouts
    for module, names in ((game, SEARCH_FUNCTIONS), (bot, ("rollout",))):
        missing = [name for name in names if not hasattr(module, name)]
        if missing:
            raise TypeError(f"{module.__name__} lacks the search function(s) "
                            f"{', '.join(missing)} (policies/mcts.py)")
    return _search(game, bot)


def _search(game, bot):
    @njit(cache=True)
    def mcts_decide(state, tables, seat, legal, n_legal, stream, params, step_work):
        """The most visited root action of an open-loop search from `state` for `seat` (see
        the module's docstring); `legal[:n_legal]` are the root's legal actions."""
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
        n_nodes = 1

        work = np.empty_like(state)
        buf = np.empty_like(legal)
        unexpanded = np.empty_like(legal)
        child_of = np.empty_like(legal)      # the child of each legal action, or NO_NODE
        path = np.empty(n_nodes_max + 1, np.int64)
        values = np.zeros(MAX_SEATS, np.float64)

        for _ in range(iterations):
            work[:] = state
            game.hide_future(work, tables, seat, stream)
            node = 0
            path[0] = 0
            path_len = 1
            # selection and expansion
            while True:
                if max_tree_depth > 0 and path_len > max_tree_depth:
                    break           # below the tree's depth limit the rollout takes over
                mover = game.mover(work)
                if mover < 0:
                    break
                n = game.legal(work, tables, buf)
                if n == 0:
                    break
                n_new = sort_children(first_child, next_sibling, node_action, node, buf, n,
                                      child_of, unexpanded)
                if should_expand(n_children, visits, node, n_new, n, widening):
                    if n_children[node] == 0:
                        # the rollout bot's own choice first: with a bot in the rollouts, a
                        # small budget refines its play instead of trying actions at random
                        action = bot.rollout(work, tables, buf, n, stream, params, step_work)
                    else:
                        action = unexpanded[stream_below(stream, n_new)]
                    child = n_nodes
                    n_nodes += 1
                    add_child(first_child, next_sibling, n_children, node_action, available,
                              node, action, child)
                    game.step(work, tables, action, step_work)
                    path[path_len] = child
                    path_len += 1
                    break
                best = ucb_child(child_of, n, visits, available, value, mover, exploration)
                game.step(work, tables, node_action[best], step_work)
                node = best
                path[path_len] = node
                path_len += 1
            # rollout
            for _d in range(depth):
                if game.mover(work) < 0:
                    break
                n = game.legal(work, tables, buf)
                if n == 0:
                    break
                action = bot.rollout(work, tables, buf, n, stream, params, step_work)
                game.step(work, tables, action, step_work)
            game.evaluate(work, tables, values)
            back_up(path, path_len, visits, value, values)
        return root_decision(first_child, next_sibling, node_action, visits, value, legal,
                             n_legal, seat, margin)

    return mcts_decide
