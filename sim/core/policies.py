"""Policy registry: (game, name) -> compiled policy and its default parameter vector.

Registering a policy is one decorator on its function, in a module the game's GameSpec names
(`policy_modules`, imported on first use); nothing else changes:

    @register("all-in-ascent", "random")
    @compiled_on_use(POLICY_SIGNATURE)
    def random_policy(ctx): ...

`compiled_on_use` compiles a bot for its signature when a run first asks for it (get_policy),
not when its module is imported, so a run compiles only the bots it plays: from an empty
cache, `--policy random` no longer waits for every bot of the game.
"""
import importlib
from dataclasses import dataclass, field

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


_REGISTRY = {}
_NOT_YET_COMPILED = {}      # bot dispatcher -> the signature it is compiled for on first use


def compiled_on_use(signature, noalloc=False):
    """numba's njit(signature, cache=True), but compiled on first use (see above). `noalloc`
    compiles it without numba's runtime, as sim/core/jit.njit_noalloc does."""
    def decorate(fn):
        from numba import njit

        from sim.core.jit import njit_noalloc
        dispatcher = njit_noalloc(fn) if noalloc else njit(cache=True)(fn)
        _NOT_YET_COMPILED[dispatcher] = signature
        return dispatcher
    return decorate


def _compiled(policy):
    signature = _NOT_YET_COMPILED.pop(policy.function, None)
    if signature is not None:
        policy.function.compile(signature)
        # one compiled signature and no more: numba then types the bot as a first-class
        # function, so that the kernels can hold different bots in one tuple
        policy.function.disable_compile()
    return policy


def register(game, name, params=(), description="", remembers=True):
    def decorate(fn):
        key = (game, name)
        if key in _REGISTRY and _REGISTRY[key].function is not fn:
            raise ValueError(f"policy {name!r} is already registered for {game}")
        _REGISTRY[key] = RegisteredPolicy(game, name, fn, np.asarray(params, np.float64),
                                          description or (fn.__doc__ or "").strip().split("\n")[0],
                                          remembers)
        return fn
    return decorate


def _load(game):
    from sim.core.game import get_game
    for module in get_game(game).policy_modules:
        importlib.import_module(module)


def get_policy(game, name):
    _load(game)
    try:
        return _compiled(_REGISTRY[(game, name)])
    except KeyError:
        raise ValueError(f"unknown policy {name!r} for {game}; available: "
                         f"{', '.join(policy_names(game))}") from None


def policy_names(game):
    _load(game)
    return sorted(n for g, n in _REGISTRY if g == game)


def policy_params_key(game, names):
    """A hash of the named policies' default parameter vectors: a retuned bot (`ascent tune
    --store` rewrites tuned.json) plays other games under the same name."""
    import hashlib
    digest = hashlib.sha256()
    for name in sorted(set(names)):
        digest.update(name.encode() + get_policy(game, name).default_params.tobytes())
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
