"""`ascent balance SPEC.toml`: the smallest rules patch that brings a game to a designer's target.

    game = "all-in-ascent"
    players = [4]                  # one or several player counts, balanced at once
    policy = "tuned"               # the bots every candidate is played by
    preset = "v0.4.0"              # optional; rules = {...} and set = {...}: the starting rules
    target = "parity"              # or a table: [target] freeSolo = 0.25 ... (every character,
                                   # or every seat "1".."N" in a game without characters;
                                   # rates for one winner a game, averaging 1/players: where
                                   # ties, partners or undecided games move the rates' mean,
                                   # each target is scaled by it)
    max_changed = 2                # the most knobs a patch may change
    budget = 80                    # candidates the search evaluates
    batch = 1                      # candidates proposed at once, played in parallel with
                                   # --jobs or on Dask with --scheduler (same candidates
                                   # wherever they are played)
    games = 2000                   # games per candidate and player count (the same games)
    finalists = 5                  # the best candidates, re-scored on rescore_games
    rescore_games = 20000
    validation_games = 100000      # the chosen patch on fresh seeds, paired against the start
    validation_policy = "planner"  # optional: a second bot the patch is validated under
    seed = 1
    validation_seed = 2            # optional: the validation's master seed (default seed + 1)
    sampler = "tpe"                # tpe (default), nsga2 or random: Optuna's samplers
    threads = 2                    # optional: numba threads a game batch plays on
    description = "..."            # optional: what this spec is for, in words
    coadapt = false                # optional: re-tune the tuned bot for the patch (below), with
    coadapt_budget = 40            # CMA-ES evaluations per character
    coadapt_games = 1000           # and games per evaluation
    out = "../results/balance_aia" # relative to this file

    [knobs."characters.freeSolo.startingStats.technique"]
    low = 15                       # or values = [15, 17, 19]
    high = 23
    step = 1

The search (Optuna, three objectives): the distance from the target, the largest gap over
characters and player counts in points; the number of knobs changed; and the relative size of
the change (relative_change). Each knob is a choice
"keep it" or one of its values, so the current rules are a candidate (the first one evaluated)
and a patch never needs the knobs' current values. Every candidate plays the same games (common
random numbers): a difference between two candidates is the rules', not the dice's. The study is
a journal file in the output folder: a killed search resumes where it stopped, and a resumed
study whose spec changed is refused.

After the search, the finalists (the Pareto front first, then the nearest to the target) are
re-scored on more games; the nearest becomes the patch. Each of its knobs' contribution is
measured by leaving that knob out. The patch is then validated on fresh seeds through `ascent
run` (an experiment in OUT/validation, resumable, on Dask if asked): paired against the
starting rules, under the search's bot and, if named, a second bot.

With `coadapt = true` the tuned bot is re-tuned for the patch's rules and the patch re-scored
with it (tune_each_for_rules in policies/cmaes.py). The search's candidates, the other finalists
and the validation are played by the stored bot; the report says so next to the numbers.
"""
import hashlib
import json
import math
import sys
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from sim.experiment.spec import (EXPERIMENT_ONLY, identity_sha256, is_rule_option,
                                 read_spec_document, toml_inline_table, toml_string,
                                 variant_toml)


KEYS = {"game", "players", "policy", "preset", "rules", "set", "target", "max_changed", "budget",
        "games", "finalists", "rescore_games", "validation_games", "validation_policy", "seed",
        "validation_seed", "sampler", "out", "knobs", "threads", "description", "coadapt",
        "coadapt_budget", "coadapt_games", "batch"}
KNOB_KEYS = {"low", "high", "step", "values"}
SAMPLERS = ("tpe", "nsga2", "random")
KEEP = "keep"


class BalanceError(ValueError):
    """A bad balance spec or a refused resume; the message names the file and the key."""


def _fail(path, key, message):
    raise BalanceError(f"{path}: {key}: {message}")


@dataclass(frozen=True)
class Knob:
    key: str            # a data knob path (with dots) or a rule option name
    values: tuple       # value texts the search may pick
    current: object = None      # its value under the starting rules (text), if the game says

    @property
    def is_rule(self):
        return is_rule_option(self.key)


@dataclass(frozen=True)
class BalanceSpec:
    path: str
    game: str
    players: tuple
    policy: str
    preset: object
    rules: dict
    knobs_set: dict
    target: object                  # "parity" or {group key: rate}
    knobs: tuple
    max_changed: int
    budget: int
    games: int
    finalists: int
    rescore_games: int
    validation_games: int
    validation_policy: object
    seed: int
    validation_seed: int
    sampler: str
    out: Path
    threads: object = None
    description: str = ""
    group: str = field(default="character")
    coadapt: bool = False           # re-tune the bots for the patch's rules and re-score it
    coadapt_budget: int = 40        # CMA-ES evaluations per character
    coadapt_games: int = 1000       # games per evaluation
    batch: int = 1                  # candidates proposed at once (and played in parallel)

    def identity(self):
        """What the search's evaluations depend on: a resume needs it unchanged (the budget,
        the finalists and the validation may change)."""
        from sim import package_data_key
        from sim.core.policies import policy_params_key
        doc = {"game": self.game, "players": list(self.players), "policy": self.policy,
               "preset": self.preset, "rules": self.rules, "set": self.knobs_set,
               "target": self.target, "knobs": {k.key: list(k.values) for k in self.knobs},
               "max_changed": self.max_changed, "games": self.games, "seed": self.seed,
               "sampler": self.sampler, "objectives": 3,
               "current": {k.key: k.current for k in self.knobs}}
        if self.batch != 1:             # (studies from before batches existed resume as they are)
            doc["batch"] = self.batch
        if isinstance(self.target, dict) and "head_to_head" in self.target:
            # 2: a game both won counts half for each (636d7ef); a study scored the old way
            # is not resumed with the new
            doc["head_to_head_shares"] = 2
        elif isinstance(self.target, dict):
            # a table's goals scale with the effective parity (b00bebe); a study scored
            # against the bare rates is not resumed with the new
            doc["target_scaled_to_parity"] = 1
        # a retuned bot or an edited data file plays other games
        doc["bots_and_data"] = hashlib.sha256((package_data_key(game=self.game) + policy_params_key(
            self.game, [self.policy] * max(self.players))).encode()).hexdigest()[:16]
        return doc

    def identity_hash(self):
        return identity_sha256(self.identity())

    def candidate(self, choice):
        """{knob key: value text or KEEP} -> (rules, knobs) to build the game with."""
        rules, knobs = dict(self.rules), dict(self.knobs_set)
        for key, value in choice.items():
            if value != KEEP:
                (rules if is_rule_option(key) else knobs)[key] = value
        return rules, list(knobs.items())


def _description(path, doc):
    value = doc.get("description", "")
    if not isinstance(value, str):
        _fail(path, "description", f"expected text in quotes, got {value!r}")
    return value


def _int(path, doc, key, default, low=1, high=10**12):
    value = doc.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        _fail(path, key, f"expected a whole number from {low} to {high:,}, got {value!r}")
    return value


def _text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _knob_values(p, key, body):
    where = f"knobs.{json.dumps(key)}"
    if not isinstance(body, dict):
        _fail(p, where, "expected a table with low, high, step, or values")
    for k in body:
        if k not in KNOB_KEYS:
            _fail(p, f"{where}.{k}", f"unknown key; allowed: {', '.join(sorted(KNOB_KEYS))}")
    if "values" in body:
        if set(body) != {"values"}:
            _fail(p, where, "give values, or low, high and step, not both")
        values = body["values"]
        if not isinstance(values, list) or not values:
            _fail(p, f"{where}.values", "expected a non-empty list")
        texts = tuple(_text(v) for v in values)
    else:
        missing = [k for k in ("low", "high", "step") if k not in body]
        if missing:
            _fail(p, where, f"missing {', '.join(missing)} (or give values = [...])")
        try:
            lo, hi, step = (Decimal(str(body[k])) for k in ("low", "high", "step"))
        except ArithmeticError:
            _fail(p, where, "low, high and step must be numbers")
        if any(isinstance(body[k], bool) or not isinstance(body[k], (int, float))
               for k in ("low", "high", "step")):
            _fail(p, where, "low, high and step must be numbers")
        if step <= 0 or hi < lo:
            _fail(p, where, f"expected low <= high and step > 0, got {body['low']}, "
                            f"{body['high']}, {body['step']}")
        count = int((hi - lo) / step) + 1
        if count > 200:
            _fail(p, where, f"{count} values; at most 200 per knob")
        texts = tuple(_text(int(v) if v == v.to_integral_value() else float(v))
                      for v in (lo + k * step for k in range(count)))
    if len(set(texts)) != len(texts):
        _fail(p, f"{where}.values", "each value once")
    return texts


def _base_key(exc):
    """The spec key a GameError about the base rules names: rules, set, or (a game whose
    errors do not say which) both."""
    return {"rule": "rules", "set": "set"}.get(exc.option, "rules or set")


def load_balance_spec(path):
    """Read and validate a balance spec: every knob value is built for every player count, so a
    bound outside a knob's legal range is refused before any game is played."""
    from sim.core.game import GameError
    from sim.core.policies import policy_name_problem
    p, doc, game = read_spec_document(path, KEYS, BalanceError, EXPERIMENT_ONLY)
    players = doc.get("players", [4])
    players = [players] if isinstance(players, int) and not isinstance(players, bool) else players
    if not isinstance(players, list) or not players or any(
            isinstance(n, bool) or not isinstance(n, int) or n not in game.players
            for n in players) or len(set(players)) != len(players):
        _fail(p, "players", f"a player count or a list of distinct ones from "
                            f"{min(game.players)}..{max(game.players)}, got {players!r}")
    policy = doc.get("policy", game.default_policy)
    second = doc.get("validation_policy")
    for key, name in (("policy", policy), ("validation_policy", second)):
        problem = None if name is None else policy_name_problem(game.name, str(name))
        if problem:
            _fail(p, key, problem)
    preset = doc.get("preset", game.presets[0] if game.presets else None)
    if preset is not None and preset not in game.presets:
        _fail(p, "preset", f"unknown preset {preset!r}; available: "
                           f"{', '.join(game.presets) or 'none'}")
    base = {}
    for table in ("rules", "set"):
        value = doc.get(table, {})
        if not isinstance(value, dict):
            _fail(p, table, "expected a table of NAME = VALUE")
        base[table] = {k: _text(v) for k, v in value.items()}
    knob_doc = doc.get("knobs")
    if not isinstance(knob_doc, dict) or not knob_doc:
        _fail(p, "knobs", "expected at least one [knobs.\"PATH\"] table: the knobs the search "
                          "may move (see `ascent rules`)")
    knobs = tuple(Knob(k, _knob_values(p, k, v)) for k, v in knob_doc.items())
    reader = getattr(game.api, "knob_value", None)
    if reader is not None:
        try:
            start = game.build_rules(players[0], preset, base["rules"], list(base["set"].items()))
        except GameError as exc:        # named by file and key, as below (it was neither)
            _fail(p, _base_key(exc), exc.detail)
        current = {}
        for knob in knobs:
            try:
                current[knob.key] = _text(reader(start, knob.key))
            except (KeyError, ValueError, GameError):
                current[knob.key] = None    # an unknown key is refused just below, by name
        knobs = tuple(Knob(k.key, k.values, current[k.key]) for k in knobs)
    for knob in knobs:
        if knob.key in base["rules"] or knob.key in base["set"]:
            _fail(p, f"knobs.{json.dumps(knob.key)}", "also set in rules or set: the search "
                                                      "moves it; give it in one place")
    for knob in knobs:
        for value in knob.values:
            rules, knob_list = dict(base["rules"]), dict(base["set"])
            (rules if knob.is_rule else knob_list)[knob.key] = value
            for n in players:
                try:
                    game.build_rules(n, preset, rules, list(knob_list.items()))
                except GameError as exc:
                    _fail(p, f"knobs.{json.dumps(knob.key)}", f"value {value}: {exc.detail}")
    for n in players:
        try:
            game.build_rules(n, preset, base["rules"], list(base["set"].items()))
        except GameError as exc:
            _fail(p, _base_key(exc), exc.detail)
    group = game.group(True)
    target = doc.get("target", "parity")
    if target != "parity":
        target = _targets(p, target, game, group, players)
    budget = _int(p, doc, "budget", None) if "budget" in doc else \
        _fail(p, "budget", "required: the number of candidates the search evaluates (>= 1)")
    games = _int(p, doc, "games", 2000)
    rescore = _int(p, doc, "rescore_games", max(games, 10 * games))
    if rescore < games:
        _fail(p, "rescore_games", f"at least games ({games}): the finalists are re-scored on "
                                  f"more games, not fewer")
    seed = _int(p, doc, "seed", 1, low=0, high=2**63 - 1)
    # the next seed, kept in the range: seed 2**63 - 1 without validation_seed was refused
    validation_seed = _int(p, doc, "validation_seed", (seed + 1) % 2**63, low=0,
                           high=2**63 - 1)
    if validation_seed == seed:
        _fail(p, "validation_seed", "must differ from seed: validation plays fresh games")
    sampler = doc.get("sampler", "tpe")
    if sampler not in SAMPLERS:
        _fail(p, "sampler", f"unknown sampler {sampler!r}; allowed: {', '.join(SAMPLERS)}")
    if not isinstance(doc.get("out"), str) or not doc["out"].strip():
        _fail(p, "out", "required: the output folder")
    threads = doc.get("threads")
    if threads is not None:
        threads = _int(p, doc, "threads", None)
    coadapt = doc.get("coadapt", False)
    if not isinstance(coadapt, bool):
        _fail(p, "coadapt", f"expected true or false, got {coadapt!r}")
    if coadapt and not _tuning_for_rules(game, policy):
        _fail(p, "coadapt", f"re-tuning for a patch's rules is built for the tuned bot of a "
                            f"game whose tuning takes rules (All-In Ascent, First Ascent); "
                            f"{game.title} with {policy!r} has none")
    return BalanceSpec(
        path=p, game=game.name, players=tuple(players), policy=policy, preset=preset,
        rules=base["rules"], knobs_set=base["set"], target=target, knobs=knobs,
        max_changed=_int(p, doc, "max_changed", len(knobs), high=len(knobs)),
        budget=budget, games=games, finalists=_int(p, doc, "finalists", 5, high=50),
        rescore_games=rescore, validation_games=_int(p, doc, "validation_games", 100_000),
        validation_policy=second, seed=seed, validation_seed=validation_seed, sampler=sampler,
        out=(Path(path).resolve().parent / doc["out"]).resolve(), threads=threads,
        description=_description(p, doc), group=group, coadapt=coadapt,
        coadapt_budget=_int(p, doc, "coadapt_budget", 40, high=10_000),
        coadapt_games=_int(p, doc, "coadapt_games", 1000),
        batch=_int(p, doc, "batch", 1, high=256))


def _tuning_for_rules(game, policy):
    """The game's tuning module, if it can re-fit `policy` under other rules (else None)."""
    if policy != "tuned" or not game.tuning_module:
        return None
    import importlib
    module = importlib.import_module(game.tuning_module)
    return module if hasattr(module, "tune_for_rules") and hasattr(module, "policy_params") \
        else None


def _targets(p, target, game, group, players):
    """[target] KEY = rate for every character (or seat): rates in 0..1 whose mean is the
    parity of every player count (a seat wins 1/players of the games on average, one winner a
    game). Where games have more winners or none, distance scales them to the games' own
    effective parity."""
    if not isinstance(target, dict):
        _fail(p, "target", f"expected \"parity\" or a table of rates, got {target!r}")
    if "head_to_head" in target:
        return _head_to_head(p, target, game, group)
    keys = game.character_keys() if group == "character" else \
        [str(s + 1) for s in range(max(players))]
    for k, v in target.items():
        if k not in keys:
            _fail(p, f"target.{k}", f"unknown {group}; allowed: {', '.join(keys)}")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
            _fail(p, f"target.{k}", f"expected a win rate from 0 to 1, got {v!r}")
    missing = [k for k in keys if k not in target]
    if missing:
        _fail(p, "target", f"give every {group} a rate; missing {', '.join(missing)}")
    if group == "seat" and len(players) > 1:
        _fail(p, "target", "seat targets need a single player count")
    mean = sum(target.values()) / len(target)
    for n in players:
        if abs(mean - 1 / n) > 0.02:
            _fail(p, "target", f"the rates average {mean:.3f}, but with {n} players a seat "
                               f"wins {1 / n:.3f} of the games on average (one winner a game): "
                               f"the targets must average 1/{n} +/- 0.02")
    return {k: float(v) for k, v in target.items()}


def _head_to_head(p, target, game, group):
    """[target.head_to_head] A.B = rate: in games where both A and B sit and one of them wins,
    the share A wins. A pair given both ways must sum to 1 (one of the two wins)."""
    if set(target) != {"head_to_head"}:
        _fail(p, "target", "give per-character rates or [target.head_to_head], not both")
    if group != "character":
        _fail(p, "target.head_to_head", f"head-to-head targets are between characters; "
                                        f"{game.title} has none")
    keys = game.character_keys()
    table = target["head_to_head"]
    pairs = {}
    if not isinstance(table, dict) or not table:
        _fail(p, "target.head_to_head", "expected entries such as freeSolo.sprinter = 0.5")
    for a, row in table.items():
        where = f"target.head_to_head.{a}"
        if a not in keys:
            _fail(p, where, f"unknown character; allowed: {', '.join(keys)}")
        if not isinstance(row, dict):
            _fail(p, where, "expected A.B = rate (the share of A's wins in games A or B wins)")
        for b, rate in row.items():
            if b not in keys or b == a:
                _fail(p, f"{where}.{b}", f"expected another character; allowed: "
                                         f"{', '.join(k for k in keys if k != a)}")
            if isinstance(rate, bool) or not isinstance(rate, (int, float)) or \
                    not 0 <= rate <= 1:
                _fail(p, f"{where}.{b}", f"expected a share from 0 to 1, got {rate!r}")
            pairs[(a, b)] = float(rate)
    for (a, b), rate in pairs.items():
        if (b, a) in pairs and abs(rate + pairs[(b, a)] - 1) > 1e-9:
            _fail(p, f"target.head_to_head.{a}.{b}",
                  f"{rate} and {b}.{a} = {pairs[(b, a)]} must sum to 1: in a game one of the "
                  f"two wins, so A's share and B's share are complementary")
    return {"head_to_head": {f"{a}|{b}": r for (a, b), r in pairs.items()}}


def head_to_head_rates(seats, group):
    """{(A, B): (A's wins, games A or B won)} over games where both sat. A game both won (a
    First Ascent tie) counts half for each, so A's share and B's add up to 1; a group in
    several seats of a game (not a balance study's characters, which are distinct) would
    count once there."""
    import pandas as pd
    s = seats[["game", group, "won"]].astype({group: str, "won": bool}) \
        .groupby(["game", group], observed=True)["won"].any().reset_index()
    both = s.merge(s, on="game", suffixes=("_a", "_b"))
    both = both[both[f"{group}_a"] != both[f"{group}_b"]]
    decided = both[both["won_a"] | both["won_b"]]
    wins = decided["won_a"].astype(float) - 0.5 * (decided["won_a"] & decided["won_b"])
    grouped = wins.groupby([decided[f"{group}_a"], decided[f"{group}_b"]], observed=True)
    return pd.DataFrame({"wins": grouped.sum(), "games": grouped.count()})


# --- evaluating a candidate --------------------------------------------------------------------

def seat_columns(spec):
    """The seats table's columns a distance reads."""
    return ["game", "seat", "won"] + ([spec.group] if spec.group != "seat" else [])


def play_candidate(spec, choice, games, seed, policy=None, chunk=20_000, policy_params=None):
    """Per player count, the candidate's games: seats tables (game, seat, group, won).
    policy_params: parameters instead of the registered bot's (a bot re-tuned for the
    candidate)."""
    import pandas as pd
    from sim.core.game import get_game
    game = get_game(spec.game)
    rules, knobs = spec.candidate(choice)
    extra = {"policy_params": policy_params} if policy_params is not None else {}
    columns = seat_columns(spec)
    out = {}
    for n in spec.players:
        packed = game.build_rules(n, spec.preset, rules, knobs)
        frames = []
        for first in range(0, games, chunk):
            played = game.api.play(packed, min(chunk, games - first), seed,
                                   [policy or spec.policy] * n, "random", first_index=first,
                                   threads=spec.threads, **extra)
            frames.append(played.seats[columns])
        out[n] = pd.concat(frames, ignore_index=True)
    return out


def distance(spec, seats_by_players):
    """The largest gap from the target over every group and player count, and the rates."""
    gaps, rates = [], {}
    if isinstance(spec.target, dict) and "head_to_head" in spec.target:
        for n, seats in seats_by_players.items():
            table = head_to_head_rates(seats, spec.group)
            for pair, goal in spec.target["head_to_head"].items():
                a, b = pair.split("|")
                wins, games = table.loc[(a, b)] if (a, b) in table.index else (0, 0)
                rate = wins / games if games else 0.0
                gaps.append(abs(rate - goal) if games else 1.0)
                rates[f"{n}|{a} vs {b}"] = [round(float(rate), 6), int(games), round(goal, 6)]
        return float(max(gaps)), rates
    for n, seats in seats_by_players.items():
        key = seats[spec.group] if spec.group != "seat" else (seats["seat"] + 1).astype(str)
        won = seats["won"].astype(float)
        grouped = won.groupby(key.astype(str), observed=True)
        per, seats_n = grouped.mean(), grouped.count()
        parity = float(won.mean())          # effective parity: wins per seat over all seats
        # no game won at this player count: a parity of 0 that every rate of 0 met scored the
        # search's best (0) for a patch under which nobody wins (a review found it); it is the
        # farthest from balance instead, as a head-to-head pair that never met
        undecided = parity == 0
        # a table's rates are for one winner a game (they average 1/n); ties (First Ascent,
        # F63), partners (Ascension, A48) and games nobody wins move the rates' mean to the
        # effective parity, so each target moves with it: a table averaging 1/4 could not be
        # met where the rates average 25.9% (a review found it), nor a partnership's 45.7%
        scale = 1.0 if spec.target == "parity" else parity * n
        for k, rate in per.items():
            goal = parity if spec.target == "parity" else spec.target[k] * scale
            gaps.append(1.0 if undecided else abs(rate - goal))
            rates[f"{n}|{k}"] = [round(float(rate), 6), int(seats_n[k]), round(goal, 6)]
    return float(max(gaps)), rates


def goals_out_of_reach(rates):
    """The rates keys (distance's "PLAYERS|GROUP") whose goal is above 100%: a table's target
    scaled to a high effective parity (a 0.6 under Ascension's partnership, about 1.8 times),
    which no rate can meet; the verdict names them, as the search would chase them unsaid."""
    return [key for key, (_, _, goal) in rates.items() if goal > 1]


def normalized(spec, choice):
    """The choice with every knob set to its current value written as KEEP: two choices that
    play the same rules have the same normalized form."""
    current = {k.key: k.current for k in spec.knobs}
    return {key: KEEP if v == current[key] else v for key, v in choice.items()}


def changed(spec, choice):
    """Knobs the choice moves away from their current value."""
    current = {k.key: k.current for k in spec.knobs}
    return sum(1 for key, v in choice.items() if v != KEEP and v != current[key])


def relative_change(spec, choice):
    """The edit's size in the knobs' own units: the sum over moved knobs of |new - current| /
    |current| (a switch or a text value that moves counts 1; a current 0 counts the new value's
    size in steps of 1)."""
    total = 0.0
    for k in spec.knobs:
        v = choice.get(k.key, KEEP)
        if v == KEEP or v == k.current:
            continue
        try:
            new, old = float(v), float(k.current)
        except (TypeError, ValueError):
            total += 1.0
            continue
        total += abs(new - old) / abs(old) if old else abs(new - old)
    return round(total, 6)


# --- the search --------------------------------------------------------------------------------

def _sampler(spec, seed=None):
    import optuna
    import numpy as np
    if seed is None:
        # the samplers take seeds below 2**32; a spec may name any seed up to 2**63-1 (as
        # `ascent simulate` does), and the seeds below 2**32 keep the searches they gave
        seed = spec.seed if spec.seed < 2**32 else \
            int(np.random.SeedSequence([spec.seed]).generate_state(1)[0])
    if spec.sampler == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=seed)
    if spec.sampler == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    # group: the value of a knob is asked only when the knob changes (a conditional space)
    return optuna.samplers.TPESampler(seed=seed, multivariate=True, group=True,
                                      n_startup_trials=min(10, max(2, spec.budget // 4)))


def _ask(study, spec):
    """The study's next trial, from a sampler seeded by its place in the search (_seed_place),
    not from one whose random state runs on from the start of this process: a review helper's
    resumed searches asked other candidates, and 3 of 7 ended with another patch."""
    _seed_place(study, spec, len(study.trials))
    return study.ask()


def _reopen(study, spec, number):
    """A trial a killed search left running, taken up again in its place: the same trial, with
    the sampler its place seeds (its knobs already asked are kept), so that the study reads as
    one never interrupted. Marked failed and asked anew, a cut batch came out other than an
    uninterrupted one (review helpers': the sampler saw other trials, numbered otherwise)."""
    import optuna
    _seed_place(study, spec, number)
    return optuna.trial.Trial(study, study.get_trials(deepcopy=False)[number]._trial_id)


def _seed_place(study, spec, number):
    """Give the study a sampler seeded by the spec's seed and the place of trial `number`: the
    trials before it that were asked and not failed. The sampler reads the finished ones, so a
    search killed and resumed asks what one never interrupted asks."""
    import numpy as np
    from optuna.trial import TrialState
    place = sum(1 for t in study.get_trials(deepcopy=False) if t.number < number and t.state in (
        TrialState.COMPLETE, TrialState.PRUNED, TrialState.RUNNING))
    study.sampler = _sampler(spec, int(np.random.SeedSequence([spec.seed, place])
                                       .generate_state(1)[0]))


def open_study(spec):
    """The search's study, in OUT/study.journal: created, or resumed if its spec is unchanged.
    The trials a killed run left running are named in `study.ascent_reopen`, for search to take
    up again first (_reopen)."""
    import optuna
    from optuna.storages.journal import JournalFileBackend, JournalStorage
    from optuna.trial import TrialState
    import warnings
    from sim import play_code_changed, play_code_key
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    # multivariate TPE is marked experimental; it is what lets the search learn which knobs
    # move together
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    spec.out.mkdir(parents=True, exist_ok=True)
    storage = JournalStorage(JournalFileBackend(str(spec.out / "study.journal")))
    identity = spec.identity_hash()
    names = [s.study_name for s in optuna.get_all_study_summaries(storage)]
    if "balance" in names:
        study = optuna.load_study(study_name="balance", storage=storage,
                                  sampler=_sampler(spec))
        if study.user_attrs.get("identity_sha256") != identity:
            raise BalanceError(
                f"{spec.path}: the spec changed since the study in {spec.out} began (its "
                f"games, knobs, target, bots or seed differ); use a new out folder, or restore "
                f"the spec")
        # as an experiment's folder (runner._refuse_other_play_code): a study begun before
        # the key was kept has none, and resumes as before
        why = play_code_changed(spec.game, study.user_attrs.get("play_code"), "the study")
        if why is not None:
            raise BalanceError(
                f"{spec.path}: the study in {spec.out} was begun under other code: {why}; its "
                f"candidates' scores would mix two versions; use a new out folder, or restore "
                f"the code")
        left = sorted(study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)),
                      key=lambda t: t.number)
        # the trials of the batch a kill cut short are taken up again first (_reopen); where
        # some of that batch had been told, they are its whole remainder and make a batch of
        # their own, so that the next batch is asked as the uninterrupted search asks it
        # (filled up with a new candidate, the batches ran out of step: a review helper's,
        # killed between two results of a batch of three)
        batches = {t.user_attrs.get("batch_of") for t in left} - {None}
        told = [t for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
                if t.user_attrs.get("batch_of") in batches]
        study.ascent_reopen = [t.number for t in left]
        study.ascent_reopen_alone = bool(told)
        return study
    # the largest gap from the target, the knobs changed, the relative size of the change
    study = optuna.create_study(study_name="balance", storage=storage, sampler=_sampler(spec),
                                directions=["minimize", "minimize", "minimize"])
    study.set_user_attr("identity_sha256", identity)
    study.set_user_attr("identity", spec.identity())
    study.set_user_attr("play_code", play_code_key(spec.game))
    study.enqueue_trial({f"change:{k.key}": False for k in spec.knobs})
    study.ascent_reopen, study.ascent_reopen_alone = [], False
    return study


def _choose(trial, spec):
    """Per knob: keep it, or change it to one of its values. The value is asked as an index, so
    the sampler sees the order of a numeric range (5 lies between 4 and 6)."""
    choice = {}
    for k in spec.knobs:
        if trial.suggest_categorical(f"change:{k.key}", (False, True)):
            choice[k.key] = k.values[trial.suggest_int(f"value:{k.key}", 0, len(k.values) - 1)]
        else:
            choice[k.key] = KEEP
    return choice


def choice_of(spec, params):
    """A finished trial's parameters -> {knob key: value text or KEEP}."""
    return {k.key: k.values[params[f"value:{k.key}"]] if params.get(f"change:{k.key}") else KEEP
            for k in spec.knobs}


def evaluate_candidate(spec, choice):
    """A worker's task: one candidate on the search's games (a pure function of its inputs, so
    any process or Dask node gives the same answer)."""
    return distance(spec, play_candidate(spec, choice, spec.games, spec.seed))


def _evaluate_batch(spec, choices, jobs, scheduler):
    """The batch's candidates, in order: in this process, on local processes (joblib/loky) or
    on a Dask cluster (joblib's dask backend), as `ascent run` does."""
    if len(choices) == 1 or (not scheduler and (jobs or 1) == 1):
        return [evaluate_candidate(spec, c) for c in choices]
    from joblib import Parallel, delayed
    from sim.experiment.runner import on_dask
    tasks = [delayed(evaluate_candidate)(spec, c) for c in choices]
    if not scheduler:
        return Parallel(n_jobs=min(jobs, len(choices)), backend="loky")(tasks)
    with on_dask(scheduler):
        return Parallel(n_jobs=-1)(tasks)


def search(spec, log=print, jobs=None, scheduler=None, quiet=True, validation=True):
    """Run (or resume) the search until `budget` candidates are evaluated; returns the study.

    Optuna's ask and tell: the sampler proposes `batch` candidates at a time (a spec key, so the
    candidates it proposes never depend on where they are played), and the batch is evaluated
    here, on local processes (`jobs`) or on a Dask cluster (`scheduler`)."""
    from optuna.trial import TrialState
    study = open_study(spec)
    done = {}
    for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        done[json.dumps(normalized(spec, choice_of(spec, t.params)), sort_keys=True)] = t.values
    complete = len(done)
    if complete < spec.budget and not scheduler:   # a cluster's workers may be other machines
        compile_before_search(spec, quiet)
    started = time.perf_counter()
    evaluated = 0
    best = min((v[0] for v in done.values()), default=math.inf)
    asked, cap = 0, max(1, spec.budget - complete) * 20
    reopen = list(study.ascent_reopen)         # open_study: the trials a kill left running
    alone = study.ascent_reopen_alone          # ... and whether they are a batch on their own
    while complete < spec.budget and asked < cap:
        trials, choices = [], []
        size = min(spec.batch, spec.budget - complete)
        first = None                # the batch's first trial names it (open_study reads it)
        while asked < cap:
            if reopen:
                trial = _reopen(study, spec, reopen.pop(0))
                first = trial.user_attrs.get("batch_of", trial.number) if first is None \
                    else first
            elif alone or len(trials) >= size:
                break
            else:
                trial = _ask(study, spec)
                first = trial.number if first is None else first
            trial.set_user_attr("batch_of", first)
            asked += 1
            choice = _choose(trial, spec)
            key = json.dumps(normalized(spec, choice), sort_keys=True)
            # outside the allowed edit, or asked again (the same games would give the same
            # answer): not a new candidate, never played, not counted against the budget
            if changed(spec, choice) > spec.max_changed or key in done or \
                    any(json.dumps(normalized(spec, c), sort_keys=True) == key
                        for c in choices):
                study.tell(trial, state=TrialState.PRUNED)
                continue
            trials.append(trial)
            choices.append(choice)
        was_alone, alone = alone, False
        if not trials:
            if was_alone:           # a remainder of duplicates only: on to the next batch
                continue
            break
        for trial, choice, (dist, rates) in zip(trials, choices,
                                                _evaluate_batch(spec, choices, jobs, scheduler)):
            trial.set_user_attr("rates", rates)
            values = (dist, changed(spec, choice), relative_change(spec, choice))
            study.tell(trial, values)
            done[json.dumps(normalized(spec, choice), sort_keys=True)] = values
            complete += 1
            evaluated += 1
            best = min(best, dist)
            rate = (time.perf_counter() - started) / evaluated
            log(f"candidate {complete}/{spec.budget}: {100 * dist:.1f} points from the target "
                f"with {changed(spec, choice)} knob(s) changed; best {100 * best:.1f}; "
                f"ETA {max(0, spec.budget - complete) * rate / 60:.1f} min for the search"
                + after_search_line(spec, rate, validation))
    return study


def games_after_search(spec, validation=True):
    """The most games the steps after the search play: the finalists and the current rules
    re-scored, the patch less each of its knobs (a patch of two knobs or more), and, with
    `validation`, the patch and the starting rules on fresh seeds under each validation bot;
    co-adaptation not counted."""
    players = len(spec.players)
    most = min(spec.max_changed, len(spec.knobs))
    shares = most if most >= 2 else 0
    games = (spec.finalists + 1 + shares) * spec.rescore_games * players
    if validation:
        bots = 2 if spec.validation_policy and spec.validation_policy != spec.policy else 1
        games += 2 * spec.validation_games * players * bots
    return games


def after_search_line(spec, seconds_per_candidate, validation=True):
    """'; then up to N games more (...), about M min at the search's rate'."""
    games = games_after_search(spec, validation)
    per_game = seconds_per_candidate / (spec.games * len(spec.players))
    steps = "re-scoring, each knob's share" + (", validation" if validation else "")
    extra = "; co-adaptation comes on top (not counted)" if spec.coadapt else ""
    return (f"; then up to {games:,} games more ({steps}), about "
            f"{games * per_game / 60:.1f} min at the search's rate{extra}")


def finalists(spec, study):
    """The Pareto front's candidates, then the nearest others, up to `finalists`; the current
    rules always among them (the patch must beat them)."""
    from optuna.trial import TrialState
    trials = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    front = {t.number for t in study.best_trials}
    ordered = sorted(trials, key=lambda t: (t.number not in front, t.values[0], t.values[1]))
    seen, out = set(), []
    for t in ordered:
        choice = choice_of(spec, t.params)
        key = json.dumps(normalized(spec, choice), sort_keys=True)
        if key not in seen and (len(out) < spec.finalists or changed(spec, choice) == 0):
            seen.add(key)
            out.append((t.number, choice))
    baseline = {k.key: KEEP for k in spec.knobs}
    if json.dumps(baseline, sort_keys=True) not in seen:
        out.append((None, baseline))
    return out


def patch_toml(spec, choice):
    """The patch as an experiment variant's `set` and `rules` tables (paste under
    [variants.NAME]), with the same knobs as --set/--rule flags in a comment."""
    current = {k.key: k.current for k in spec.knobs}
    moved = {k: v for k, v in choice.items() if v != KEEP and v != current[k]}
    rules = {k: v for k, v in moved.items() if is_rule_option(k)}
    knobs = {k: v for k, v in moved.items() if not is_rule_option(k)}
    flags = " ".join([f"--rule '{k}={v}'" for k, v in rules.items()] +
                     [f"--set '{k}={v}'" for k, v in knobs.items()])
    lines = [f"# ascent balance {spec.path}: the chosen patch for {spec.game}",
             f"# as flags: {flags or '(no change: the current rules were nearest the target)'}"]
    if knobs:
        lines.append(f"set = {toml_inline_table(knobs.items())}")
    if rules:
        lines.append(f"rules = {toml_inline_table(rules.items())}")
    return "\n".join(lines) + "\n"


def validation_spec_text(spec, choice, policy, name):
    """The validation experiment: the starting rules and the patch, on fresh seeds."""
    rules, knobs = spec.candidate(choice)
    lines = [f"# Written by ascent balance {spec.path}: the patch on fresh seeds",
             f"name = {toml_string(name)}", f"game = {toml_string(spec.game)}",
             f"players = [{', '.join(str(n) for n in spec.players)}]",
             f"games = {spec.validation_games}", f"seed = {spec.validation_seed}",
             f"policy = {toml_string(policy)}", 'out = "."', "chunk = 20000"]
    if spec.preset is not None:
        lines.append(f"preset = {toml_string(spec.preset)}")
    return "\n".join(lines) + "\n\n" + variant_toml("baseline", spec.rules, spec.knobs_set) + \
        "\n\n" + variant_toml("patch", rules, dict(knobs)) + "\n"


def validate(spec, choice, jobs=None, scheduler=None, quiet=False):
    """Run the validation experiments (resumable, OUT/validation/<policy>); returns
    {policy: (paired table of the patch against the starting rules, the patch's largest gap
    from the target on these games)}."""
    from sim.experiment.paired import experiment_comparisons
    from sim.experiment.runner import load_variant, run_experiment
    from sim.experiment.spec import load_spec, write_spec_file
    policies = [spec.policy] + ([spec.validation_policy] if spec.validation_policy and
                                spec.validation_policy != spec.policy else [])
    out = {}
    for policy in policies:
        folder = spec.out / "validation" / policy
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "experiment.toml"
        if not write_spec_file(path, validation_spec_text(spec, choice, policy,
                                                          f"validation-{policy}")):
            raise BalanceError(f"{spec.path}: {folder} validated another patch; remove it to "
                               f"validate this one")
        xspec = load_spec(path)
        run_experiment(xspec, jobs=jobs, scheduler=scheduler, quiet=quiet)
        seats = {n: load_variant(xspec.out, "patch", n, seat_columns(spec))
                 for n in spec.players}
        out[policy] = (experiment_comparisons(xspec.out, xspec)[1], distance(spec, seats)[0])
    return out


def log_to_stderr(quiet):
    return (lambda *a: None) if quiet else (lambda m: print(m, file=sys.stderr, flush=True))


def pareto_front(spec, study):
    """The search's non-dominated candidates (distance, knobs changed, relative change), by
    knobs changed, then distance."""
    rows, seen = [], set()
    for t in sorted(study.best_trials, key=lambda t: (t.values[1], t.values[0], t.number)):
        choice = normalized(spec, choice_of(spec, t.params))
        if json.dumps(choice, sort_keys=True) in seen:
            continue
        seen.add(json.dumps(choice, sort_keys=True))
        rows.append({"trial": t.number, "distance": t.values[0], "changed": int(t.values[1]),
                     "relative_change": t.values[2] if len(t.values) > 2 else None,
                     "choice": choice})
    return rows


def trace(study):
    from optuna.trial import TrialState
    return [(t.number, t.values[0], int(t.values[1]))
            for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))]


def bound_pushes(spec, patch_choice):
    """Knobs the patch moves to the far end of their range (away from the current value): the
    search wanted to go further. The end nearest the current value is not a push."""
    out = []
    for k in spec.knobs:
        v = patch_choice.get(k.key, KEEP)
        if v == KEEP or v == k.current or len(k.values) < 2 or v not in (k.values[0],
                                                                        k.values[-1]):
            continue
        side = "lowest" if v == k.values[0] else "highest"
        try:
            current = float(k.current)
            pushed = float(v) < current if side == "lowest" else float(v) > current
        except (TypeError, ValueError):
            pushed = True           # no order to tell the near end from the far one
        if pushed:
            out.append((k.key, v, side))
    return out


def _cached(path, key, compute):
    """A finished re-score or contribution, kept in OUT/rescored.json: a rerun after an
    interruption does not play it again."""
    try:
        cache = json.loads(path.read_text())
    except (OSError, ValueError):
        cache = {}
    if key not in cache:
        from sim.experiment.runner import write_json_atomic
        cache[key] = compute()
        write_json_atomic(path, cache)
    return cache[key]


def compile_before_search(spec, quiet):
    """From an empty cache, compile the game's kernel and the spec's bot once, here, with the
    compile line of `ascent simulate` (sim/core/compiling.py: the bot alongside the kernel),
    before candidates are dealt out: otherwise every local worker compiled the same code at
    once, and said nothing. The throw-away games are one game of the current rules per player
    count (a candidate that changes nothing)."""
    from sim.core.compiling import compile_first
    from sim.core.game import get_game
    seats = [spec.policy] * max(spec.players)
    compile_first(get_game(spec.game), seats, lambda: play_candidate(spec, {}, 1, spec.seed),
                  quiet=quiet,
                  play_kernel=lambda: play_candidate(spec, {}, 1, spec.seed, policy="random"))


def run_balance(spec, jobs=None, scheduler=None, quiet=False, validation=True):
    """The whole job: search, re-score the finalists, pick the patch, measure each knob's
    share, validate on fresh seeds, write patch.toml and balance.md. Every stage resumes. The
    out folder is locked (sim/core/output.py): a second balance run on it marked the first
    one's running candidate failed, and the first then crashed (a review helper found it)."""
    from sim.core.output import folder_lock
    from sim.experiment.runner import check_threads
    # before anything is written: numba refused it only once the search had begun, with a
    # traceback and a journal left behind (a review's audit)
    check_threads(spec.path, spec.threads, scheduler)
    with folder_lock(spec.out):
        return _run_balance_locked(spec, jobs, scheduler, quiet, validation)


def _run_balance_locked(spec, jobs, scheduler, quiet, validation):
    from sim.report.balance import write_balance_report
    log = log_to_stderr(quiet)
    started = time.perf_counter()
    study = search(spec, log, jobs, scheduler, quiet, validation)
    searched = time.perf_counter() - started
    cache = spec.out / "rescored.json"
    scored = []
    for number, choice in finalists(spec, study):
        key = json.dumps({"choice": choice, "games": spec.rescore_games}, sort_keys=True)

        def compute(choice=choice):
            dist, rates = distance(spec, play_candidate(spec, choice, spec.rescore_games,
                                                        spec.seed))
            return {"distance": dist, "rates": rates}
        got = _cached(cache, key, compute)
        shown = {k: v for k, v in choice.items() if v != KEEP}
        log(f"finalist {shown or 'current rules'}: "
            f"{100 * got['distance']:.2f} points on {spec.rescore_games:,} games")
        scored.append({"trial": number, "choice": choice, "changed": changed(spec, choice),
                       "relative_change": relative_change(spec, choice), **got})
    patch = min(scored, key=lambda r: (round(r["distance"], 4), r["changed"],
                                       r["relative_change"]))
    shares = []
    current = {k.key: k.current for k in spec.knobs}
    for key_name, value in patch["choice"].items():
        if value == KEEP or value == current.get(key_name) or patch["changed"] < 2:
            continue
        without = dict(patch["choice"], **{key_name: KEEP})
        key = json.dumps({"choice": without, "games": spec.rescore_games}, sort_keys=True)
        got = _cached(cache, key, lambda w=without: dict(zip(
            ("distance", "rates"), distance(spec, play_candidate(spec, w, spec.rescore_games,
                                                                 spec.seed)))))
        shares.append({"knob": key_name, "value": value, "distance_without": got["distance"]})
    coadapted = coadapt(spec, patch, cache, log) if spec.coadapt and patch["changed"] else None
    (spec.out / "patch.toml").write_text(patch_toml(spec, patch["choice"]))
    validated = validate(spec, patch["choice"], jobs, scheduler, quiet) \
        if validation and patch["changed"] else {}
    wall = time.perf_counter() - started
    return write_balance_report(spec, study, scored, patch, shares, validated,
                                {"search_seconds": searched, "wall_seconds": wall}, coadapted)


def coadapt(spec, patch, cache, log):
    """Re-tune the bot for the patch's rules (at the largest player count), then re-score the
    patch with it on the re-score games. Kept in OUT/rescored.json."""
    from sim.core.game import get_game
    game = get_game(spec.game)
    tuning = _tuning_for_rules(game, spec.policy)
    key = json.dumps({"coadapt": patch["choice"], "games": spec.rescore_games,
                      "budget": spec.coadapt_budget, "per_evaluation": spec.coadapt_games},
                     sort_keys=True)

    def compute():
        rules, knobs = spec.candidate(patch["choice"])
        players = max(spec.players)
        packed = game.build_rules(players, spec.preset, rules, knobs)
        log(f"co-adaptation: re-tuning {spec.policy} for the patch ({spec.coadapt_budget} "
            f"evaluations of {spec.coadapt_games:,} games per character)")
        # each character's fit is kept as it ends (OUT/coadapt.partial.json), so an interrupted
        # co-adaptation goes on at the next character (it started over: minutes of CMA-ES lost)
        from sim.experiment.runner import write_json_atomic
        partial = spec.out / "coadapt.partial.json"
        try:
            saved = json.loads(partial.read_text())
        except (OSError, ValueError):
            saved = {}
        finished = saved.get("records", {}) if saved.get("key") == key else {}

        def save(character, record):
            finished[character] = record
            write_json_atomic(partial, {"key": key, "records": finished})
        vectors, records = tuning.tune_for_rules(
            packed, players, spec.coadapt_budget, spec.coadapt_games, spec.seed,
            4 * spec.coadapt_games, spec.threads, log, finished=dict(finished), save=save)
        dist, rates = distance(spec, play_candidate(
            spec, patch["choice"], spec.rescore_games, spec.seed,
            policy_params=tuning.policy_params(vectors)))
        log(f"co-adapted: {100 * dist:.2f} points on {spec.rescore_games:,} games")
        return {"distance": dist, "rates": rates, "vectors": vectors,
                "validation": {c: r.get("validation") for c, r in records.items()}}
    result = _cached(cache, key, compute)
    (spec.out / "coadapt.partial.json").unlink(missing_ok=True)     # kept in rescored.json
    return result
