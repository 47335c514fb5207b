"""Dice Race's side of ascent's game protocol (sim/core/game.py)."""
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from dice_race import state as S
from sim.core.game import GameError, Played
from sim.core.options import Option, OptionTable, fingerprint
from sim.core.options import describe_changed as describe_rules  # noqa: F401 (the protocol's)

RECORD_SCHEMA_VERSION = 1
OPTIONS = OptionTable("Dice Race", [
    Option("target", "int", 30, (5, 500), "D5", "the score that wins on banking"),
    Option("bust_face", "int", 1, (1, 6), "D3", "the face that loses the turn total"),
    Option("max_turns", "int", 0, (0, 100_000), "D6",
           "turn cap, counting every turn (0: 50 x players)"),
    Option("head_start", "int", 0, (0, 20), "D7",
           "points per seat number each seat starts with (seat k: k x head_start)"),
])


@dataclass(frozen=True)
class DiceRaceRules:
    players: int
    values: dict
    config: np.ndarray = field(repr=False)

    @property
    def fingerprint(self):
        return fingerprint({"players": self.players, **self.values})


def build_rules(players, preset, rules, knobs, data):
    if knobs:
        raise GameError("Dice Race has no data knobs; its options are --rule NAME=VALUE",
                        "set")
    values = OPTIONS.parse(rules)
    cap = values["max_turns"] or 50 * players
    return DiceRaceRules(players, values,
                         np.array([values["target"], values["bust_face"], cap,
                                     values["head_start"]], np.int64))


def knob_value(rules, key):
    """The value a rule option has in built rules."""
    return rules.values[key]


def rules_manifest(rules):
    return {"rules": {"players": rules.players, **rules.values},
            "rules_changed": OPTIONS.changed(rules.values),
            "rules_fingerprint": rules.fingerprint}


def play(rules, n_games, master_seed, seat_policies, characters, first_index=0, threads=None,
         rotate=False):
    from dice_race.engine import MAX_POLICY_PARAMS, MAX_SLOTS, play_batch, play_one
    from sim.core.batch import (by_address, check_master_seed, game_seeds, item_type,
                                kernel_threads, row_type, seat_rotation)
    from sim.core.policies import policy_slots
    check_master_seed(master_seed)
    distinct, slots, _ = seat_rotation(list(seat_policies), n_games, first_index, rotate,
                                       S.MAX_PLAYERS)
    fns, params, _ = policy_slots("dice-race", distinct, MAX_SLOTS, MAX_POLICY_PARAMS)
    seeds = game_seeds(master_seed, first_index, n_games)
    out = np.empty((n_games, S.STATE_SIZE), np.int64)
    seat_slots = np.where(slots >= 0, slots, 0)
    one_game = by_address(play_one, np.empty(S.STATE_SIZE, np.int64), rules.config,
                          np.int64(rules.players), item_type(seeds), fns, row_type(seat_slots),
                          params)
    with kernel_threads(threads, 16, bots=distinct) as elapsed:
        play_batch(rules.config, np.int64(rules.players), seeds, fns, seat_slots, params, out,
                   one_game)
        seconds = elapsed()
    return Played(*tables(out, seeds, slots, distinct, first_index, rules.players), seconds)


def tables(out, seeds, slots, distinct, first_index, players):
    n = len(seeds)
    games = pd.DataFrame({
        "game": np.arange(first_index, first_index + n, dtype=np.int64),
        "seed": seeds, "players": np.full(n, players, np.int64),
        "winner_seat": out[:, S.G_WINNER],
        "end_reason": pd.Categorical([S.END_REASON_NAMES[e] for e in out[:, S.G_END_REASON]],
                                     categories=list(S.END_REASON_NAMES[1:])),
        "turns": out[:, S.G_TURNS], "decisions": out[:, S.G_DECISIONS]})
    seat = np.tile(np.arange(players), n)
    rows = np.repeat(np.arange(n), players)
    seats = pd.DataFrame({
        "game": games["game"].to_numpy()[rows], "seat": seat,
        "policy": pd.Categorical([distinct[k] for k in slots[rows, seat]], categories=distinct),
        "won": out[rows, S.G_WINNER] == seat,
        "score": out[rows, S.S_SCORE + seat], "rolls": out[rows, S.S_ROLLS + seat],
        "banks": out[rows, S.S_BANKS + seat]})
    return games, seats


def summary(games, seats):
    from sim.core.stats import rate_line
    lines = ["win rate by seat (95% Wilson interval):"]
    for seat, grp in seats.groupby("seat"):
        lines.append(rate_line(f"seat {seat + 1} ", int(grp["won"].sum()), len(grp)))
    lines.append(f"  median length: {games['turns'].median():g} turns")
    return "\n".join(lines)


def replay(seed, players, rules, seat_policies, characters, fmt):
    game = new_game(rules, seed, characters)
    game.play(seat_policies)
    return game.jsonl() if fmt == "jsonl" else game.text()


def new_game(rules, seed, characters):
    from dice_race.game import DiceRaceGame
    return DiceRaceGame(seed, rules)


def catalogue():
    return OPTIONS.catalogue("examples/dice_race/RULES.md")


def render_report(page, results, plt, results_dir):
    from dice_race.report import render
    return render(page, results, plt)


def variant_rules_changed(variant, players):
    return dict(variant.get("rules", {}))


def flow_row(run):
    return {"mean turns": f"{run.games['turns'].mean():.1f}"}
