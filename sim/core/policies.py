"""Policy registry: (game, name) -> compiled policy and its default parameter vector.

Registering a policy is one decorator on its function, in a module the game's GameSpec names
(`policy_modules`, imported on first use); nothing else changes:

    @register("all-in-ascent", "random")
    @compiled_on_use(POLICY_SIGNATURE)
    def random_policy(ctx): ...

`compiled_on_use` compiles a bot for its signature when a run first asks for it (get_policy),
not when its module is imported, so a run compiles only the bots it plays: from an empty
cache, `--policy random` no longer waits for every bot of the game. A function handed to an
engine outside the registry (a test's scripted seat) is compiled by `compile_waiting`;
`registered_policy` reads a bot's registration without compiling it.
"""
import importlib
from dataclasses import dataclass, field, replace

import numpy as np


@dataclass(frozen=True)
class RegisteredPolicy:
    game: str
    name: str
    function: object
    default_params: np.ndarray = field(repr=False)
    description: str = ""
    # Hidden-information games (Ascension): False gives the policy a view that forgets every
    # face it has seen (sim/games/ascension/view.py).
    remembers: bool = True
    # Ascension: False for a bot that never reads its view's per-piece block (every board
    # piece, under the tops too: view.V_SLOT, V_LOCK_SLOT), which only a search's sampler
    # needs; it is then handed views without it, which cost a third less to build.
    reads_piece_slots: bool = True
    # The parameter a budget suffix sets (`mcts-tuned@128`: iterations per decision), or None
    budget_param: object = None
    # True for a bot that plays the knobs in the game's tuned.json (tuned, and the bots that
    # roll it out or search with it): a run under other rules than theirs is flagged.
    plays_tuned_knobs: bool = False
    # The bot whose way of playing this one builds on (a search names its rollout bot's; None:
    # its own): two bots of one family are one witness, so a report that checks a verdict
    # against a stronger bot of the same family says so.
    family: object = None

    @property
    def family_name(self):
        return self.family or self.name.partition(BUDGET_MARK)[0]


BUDGET_MARK = "@"
MAX_BUDGET = 10**7
_REGISTRY = {}
_NOT_YET_COMPILED = {}      # dispatcher -> (its signature, its prepare, its cells) until used
_PARTS = {}                 # dispatcher -> its parts (compiled_on_use's `parts`)


def compiled_on_use(signature, noalloc=False, prepare=None, cache=True, parts=(), cells=()):
    """numba's njit(signature, cache=True), but compiled on first use (see above). `noalloc`
    compiles it without numba's runtime, as sim/core/jit.njit_noalloc does. `prepare`, if
    given, is called just before, in each process, cached or not (a search bot compiles the
    functions it calls there, and fills their function cells). cache=False for a function
    that holds compiled functions as constants (numba cannot cache those, and would say so in
    a warning every run; a search bot calls through function cells instead). `parts`: what
    `prepare` compiles, as pairs ("module:qualname" of the jitted function a part compiles, a
    function that compiles it into numba's cache), independent of each other, so that the
    two processes of a cold start can compile them apart (compile_parts). `cells`: the cells the
    function calls through (sim/core/function_cells.py), which `prepare` must have bound
    before it compiles or loads: a null address called from a kernel cannot raise."""
    def decorate(fn):
        from numba import njit

        from sim.core.jit import compile_noalloc
        dispatcher = compile_noalloc(fn, first_class=True) if noalloc else \
            njit(cache=cache)(fn)
        _NOT_YET_COMPILED[dispatcher] = (signature, prepare, tuple(cells))
        if parts:
            _PARTS[dispatcher] = tuple(parts)
        return dispatcher
    return decorate


def policy_parts(game, name):
    """The parts of bot `name` (compiled_on_use's `parts`), () for a bot compiled whole."""
    return _PARTS.get(registered_policy(game, name).function, ())


def compile_parts(game, name, skip=(), last_only=False):
    """Compile the parts of bot `name` into numba's cache, in order, but those whose jitted
    function another process has started (`skip`, a container of "module:qualname"), or
    with `last_only`, its last part alone (none of a bot of one part). The bot itself
    compiles, or loads from the cache, on use (a search bot's few lines, which call its parts
    through function cells: sim/core/function_cells.py); from the cache, its parts then only
    load. A bot without parts compiles whole (get_policy)."""
    parts = policy_parts(game, name)
    if not parts:
        if not last_only:
            get_policy(game, name)
        return
    if last_only:
        parts = parts[-1:] if len(parts) > 1 else ()
    for address, compile_part in parts:
        if address not in skip:
            compile_part()


def as_function_value(dispatcher, signature):
    """`dispatcher` compiled for its one signature and no more, as a first-class function value
    that carries its address: for a function cell (First Ascent's search bots' imagined seats)
    or a constant a jitted function holds. numba lowers a Dispatcher constant of function type
    without its address, so every call through it would take the GIL and ask Python for the
    address (about 25 us a call); a CompileResultWAP carries the compiled wrapper's address
    instead, and the call is native."""
    check_has_wrapper(dispatcher)
    compile_only_for(dispatcher, signature)
    return address_of(dispatcher, tuple(signature.args))


def check_has_wrapper(dispatcher):
    """Refuse, before anything is compiled, a function compiled without the C-callable wrapper
    that a call by address goes through: numba would raise 'function address is null' at the
    first call, deep in a game."""
    if dispatcher.targetoptions.get("no_cfunc_wrapper"):
        raise TypeError(f"{dispatcher.py_func.__qualname__} is compiled without the wrapper a "
                        "function value needs: declare it @njit_noalloc(first_class=True)")


def compiled_value(dispatcher, signature):
    """`dispatcher` compiled for `signature` (a numba signature, or a tuple of argument types),
    unless it is already, as a function value that carries its address (address_of): for a
    function that other compiled code takes as an argument and calls by address. One without
    the wrapper such a call goes through is refused first (check_has_wrapper)."""
    check_has_wrapper(dispatcher)
    key = tuple(getattr(signature, "args", signature))
    if key not in dispatcher.overloads:
        dispatcher.compile(signature)
    return address_of(dispatcher, key)


def address_of(dispatcher, argument_types):
    """The compiled overload of `dispatcher` for `argument_types` (a tuple of numba types) as a
    function value that carries its address."""
    from numba.core.types.function_type import CompileResultWAP
    return CompileResultWAP(dispatcher.overloads[argument_types])


def compile_only_for(dispatcher, signature):
    """Compile `dispatcher` for `signature` and no other: numba then types the bot as a
    first-class function, so that the kernels can hold different bots in one tuple."""
    if dispatcher._can_compile:
        dispatcher.compile(signature)
        dispatcher.disable_compile()
    if tuple(signature.args) not in dispatcher.overloads:
        raise TypeError(f"{dispatcher.py_func.__qualname__} is compiled for "
                        f"{list(dispatcher.overloads)} only, not for {signature}")


def compile_waiting(dispatcher):
    """Compile a `compiled_on_use` function for its signature now, if not yet done, and return
    it: for one handed to an engine outside the bot registry (a test's scripted seat), so that
    importing its module compiles nothing."""
    waiting = _NOT_YET_COMPILED.get(dispatcher)
    if waiting is not None:
        signature, prepare, cells = waiting
        if prepare is not None:
            prepare()
        if cells:
            from sim.core.function_cells import check_bound
            check_bound(cells, dispatcher.py_func.__qualname__)
        compile_only_for(dispatcher, signature)
        # forgotten only once compiled: a compile that failed fails again at the next call,
        # instead of leaving a dispatcher that compiles for any argument types
        del _NOT_YET_COMPILED[dispatcher]
    return dispatcher


def declared_signatures(game, name):
    """The signatures bot `name` is (or will be) compiled for, without compiling it."""
    _load(game)
    function = _REGISTRY[(game, name.partition(BUDGET_MARK)[0])].function
    waiting = _NOT_YET_COMPILED.get(function)
    if waiting is not None:
        return [tuple(waiting[0].args)]
    return list(function.signatures)


def register(game, name, params=(), description="", remembers=True, budget_param=None,
             plays_tuned_knobs=False, family=None, reads_piece_slots=True):
    def decorate(fn):
        key = (game, name)
        if key in _REGISTRY and _REGISTRY[key].function is not fn:
            raise ValueError(f"policy {name!r} is already registered for {game}")
        _REGISTRY[key] = RegisteredPolicy(game, name, fn, np.asarray(params, np.float64),
                                          description or (fn.__doc__ or "").strip().split("\n")[0],
                                          remembers, reads_piece_slots, budget_param,
                                          plays_tuned_knobs, family)
        return fn
    return decorate


def _load(game):
    from sim.core.game import get_game
    for module in get_game(game).policy_modules:
        importlib.import_module(module)


def get_policy(game, name):
    """The registered bot `name`, compiled; `BOT@N` is a bot with a budget (budget_param) at
    N, e.g. `mcts-tuned@128`, registered under that name for the run."""
    policy = registered_policy(game, name)
    compile_waiting(policy.function)
    return policy


def registered_policy(game, name):
    """get_policy without compiling the bot: for what its registration alone says (its
    parameters), so that a first run's wait is all under its compile line."""
    _load(game)
    message = policy_name_problem(game, name)
    if message:
        raise ValueError(message)
    base, mark, budget = name.partition(BUDGET_MARK)
    policy = _REGISTRY[(game, base)]
    if not mark:
        return policy
    params = policy.default_params.copy()
    params[policy.budget_param] = int(budget)
    return replace(policy, name=name, default_params=params)


def policy_name_problem(game, name):
    """Why `name` is not a bot of `game` (one line naming what is allowed), or None."""
    _load(game)
    base, mark, budget = name.partition(BUDGET_MARK)
    if (game, base) not in _REGISTRY:
        from sim.core.game import get_game
        return f"unknown policy {name!r} for {get_game(game).title}; available: " \
               f"{', '.join(policy_names(game))}{_budget_hint(game)}"
    if not mark:
        return None
    if _REGISTRY[(game, base)].budget_param is None:
        return f"policy {base!r} takes no budget ({name!r}){_budget_hint(game)}"
    # ASCII digits only, as every other count: str.isdigit() takes '²' (int() then fails) and
    # '٨' (read as 8, under another name and so another run)
    # and no leading zero: 'mcts@08' played mcts@8's games under another name (another run)
    if not (budget.isascii() and budget.isdigit()) or budget.startswith("0") or \
            not 1 <= int(budget) <= MAX_BUDGET:
        return (f"the budget in {name!r} must be a whole number from 1 to {MAX_BUDGET} (no "
                f"leading 0)")
    return None


def _budget_hint(game):
    budgeted = sorted(n for (g, n), p in _REGISTRY.items()
                      if g == game and p.budget_param is not None)
    return f" (with a budget: {', '.join(b + BUDGET_MARK + 'N' for b in budgeted)})" \
        if budgeted else ""


def policy_names(game):
    _load(game)
    return sorted(n for g, n in _REGISTRY if g == game)


def policy_params_key(game, names):
    """A hash of the named policies' default parameter vectors: a retuned bot (`ascent tune
    --store` rewrites tuned.json) plays other games under the same name."""
    import hashlib
    digest = hashlib.sha256()
    for name in sorted(set(names)):
        digest.update(name.encode() + registered_policy(game, name).default_params.tobytes())
    return digest.hexdigest()[:16]


def policy_slots(game, names, max_slots, max_params, params=None):
    """Distinct policy names of a run -> (function tuple padded to max_slots, one parameter row
    per slot: the policy's defaults or params[name], the registered policies)."""
    if len(names) > max_slots:
        raise ValueError(f"at most {max_slots} distinct policies per run")
    registered = [get_policy(game, n) for n in names]
    fns = tuple(p.function for p in registered)
    fns = fns + (fns[0],) * (max_slots - len(fns))
    slot_params = np.zeros((max_slots, max_params), np.float64)
    for k, p in enumerate(registered):
        vec = p.default_params if params is None or names[k] not in params else \
            np.asarray(params[names[k]], np.float64)
        slot_params[k, :len(vec)] = vec
    return fns, slot_params, registered
