"""The skill ladder: every policy against every other on common seeds, seats rotated.

A pairing (A, B) plays the run's games 0..n-1 (the same seeds and random seatings for every
pairing). Seats alternate between the two policies (A B A B), and every other game swaps them
(B A B A), so each policy sits in each seat equally often. Per game, d = [A won] - [B won]; the
pairing's difference is the mean of d, with Tango's score interval for a paired difference
and the exact McNemar p (sim/core/stats.py): one game has one winner, so every game A or B won
is a discordant pair, and a normal interval on d collapsed where one side won every game (a
review helper found +100.00 [+100.00, +100.00] and -99.98 [-100.01, -99.95] in LADDER.md).

Per-character win rates under each policy come from self-play (all seats the same policy) on the
same seeds.
"""
from dataclasses import asdict, dataclass

import numpy as np

from sim.core.output import PartsError, load_parts, save_parts
from sim.core.stats import mcnemar_exact_p, paired_proportion_difference, wilson_interval
from sim.games.all_in_ascent.batch import play_fixed_games, random_seating
from sim.games.all_in_ascent.data import CHARACTER_KEYS
from sim.games.all_in_ascent.rules import default_rules
from sim.games.all_in_ascent.state import G_WINNER

EXPECTED_ORDER = ("random", "greedy", "designers-heuristic", "planner", "tuned", "lookahead")


def arrangement(a, b, n_players, swap):
    first, second = (b, a) if swap else (a, b)
    return [first if s % 2 == 0 else second for s in range(n_players)]


def pairing_difference(a_wins, b_wins, games):
    """(A's win rate minus B's, its 95% low and high, p) on the same `games` games, where no game
    has both winning: Tango's score interval and the exact McNemar p."""
    diff, low, high = paired_proportion_difference(b_wins, a_wins, games)
    return float(diff), float(low), float(high), float(mcnemar_exact_p(b_wins, a_wins))


@dataclass
class Pairing:
    a: str
    b: str
    games: int
    a_wins: int
    b_wins: int
    diff: float
    diff_low: float
    diff_high: float
    p_value: float


def play_pairing(a, b, n_players, seeds, chars, threads=None, rules=None):
    n = len(seeds)
    a_won = np.zeros(n, np.int8)
    b_won = np.zeros(n, np.int8)
    for swap in (0, 1):
        rows = np.arange(swap, n, 2)
        seats = arrangement(a, b, n_players, swap)
        final = play_fixed_games(seeds[rows], chars[rows], n_players, seats, rules=rules,
                                 threads=threads)
        w = final[:, G_WINNER]
        for s, name in enumerate(seats):
            if name == a:
                a_won[rows] |= (w == s)
            else:
                b_won[rows] |= (w == s)
    assert not (a_won & b_won).any()                # one winner a game
    a_wins, b_wins = int(a_won.sum()), int(b_won.sum())
    return Pairing(a, b, n, a_wins, b_wins, *pairing_difference(a_wins, b_wins, n))


def self_play(policy, n_players, seeds, chars, threads=None, rules=None):
    """Per character: (games, wins) with every seat playing `policy`."""
    final = play_fixed_games(seeds, chars, n_players, [policy] * n_players, rules=rules,
                             threads=threads)
    w = final[:, G_WINNER]
    out = {}
    for c, key in enumerate(CHARACTER_KEYS):
        games = wins = 0
        for s in range(n_players):
            at_seat = chars[:, s] == c
            games += int(at_seat.sum())
            wins += int((at_seat & (w == s)).sum())
        out[key] = (games, wins)
    return out


def parts_key(n_players, n_games, seed, rules=None):
    """What a ladder's finished pairings depend on, kept with them (run_ladder's `parts`):
    the settings, the rules, and the bots' code and data too: a ladder rerun after `ascent tune
    --store` (tuned.json) or an engine fix reused the pairings of the old bots and printed
    their verdict. The code that plays the game (sim.play_code_key), as a run folder's: an
    edit to a report does not void finished pairings."""
    from sim import played_with_key
    return {"players": n_players, "games": n_games, "seed": seed,
            "rules": (rules or default_rules()).fingerprint,
            **played_with_key("all-in-ascent")}


def run_ladder(policies, n_players, n_games, seed, threads=None, rules=None, log=print,
               parts=None):
    """Every pairing and every self-play. With `parts` (a JSON file path), each finished piece is
    saved there as soon as it ends and reused by a rerun with the same settings, so an
    interrupted ladder loses no finished pairing and plays none twice."""
    seeds, chars = random_seating(seed, n_games, n_players)
    key = parts_key(n_players, n_games, seed, rules)
    done = _load_parts(parts, key)
    pairings = []
    for i, a in enumerate(policies):
        for b in policies[i + 1:]:
            name = f"pairing {a} {b}"
            if name not in done:
                done[name] = asdict(play_pairing(a, b, n_players, seeds, chars, threads, rules))
                _save_parts(parts, key, done)
                log(f"  {a} vs {b}: done")
            pairings.append(Pairing(**_checked_pairing(parts, name, done[name], a, b,
                                                       n_games)))
    characters = {}
    for p in policies:
        name = f"self-play {p}"
        if name not in done:
            done[name] = self_play(p, n_players, seeds, chars, threads, rules)
            _save_parts(parts, key, done)
            log(f"  {p} self-play: done")
        characters[p] = _checked_self_play(parts, name, done[name])
    return pairings, characters


def _whole(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _checked_pairing(path, name, entry, a, b, n_games):
    """A saved pairing, as the ladder wrote it: a hand-edited or damaged one gave a traceback,
    or a win rate of 2475%."""
    fields = set(Pairing.__dataclass_fields__)
    ok = isinstance(entry, dict) and set(entry) == fields and \
        (entry["a"], entry["b"], entry["games"]) == (a, b, n_games) and \
        all(_whole(entry[k]) and 0 <= entry[k] <= n_games for k in ("a_wins", "b_wins")) and \
        all(isinstance(entry[k], (int, float)) and not isinstance(entry[k], bool)
            for k in ("diff", "diff_low", "diff_high", "p_value"))
    if not ok:
        raise LadderPartsError(f"{path}: {name}: not as a ladder writes it (fields "
                               f"{', '.join(sorted(fields))}; wins from 0 to {n_games:,}); "
                               f"remove the file to start the ladder afresh")
    return entry


def _checked_self_play(path, name, entry):
    """A saved self-play: (games, wins) per character, 0 <= wins <= games."""
    ok = isinstance(entry, dict) and set(entry) == set(CHARACTER_KEYS) and all(
        isinstance(v, (list, tuple)) and len(v) == 2 and all(_whole(x) for x in v) and
        0 <= v[1] <= v[0] for v in entry.values())
    if not ok:
        raise LadderPartsError(f"{path}: {name}: not as a ladder writes it ((games, wins) for "
                               f"each of {', '.join(CHARACTER_KEYS)}); remove the file to start "
                               f"the ladder afresh")
    return {c: tuple(v) for c, v in entry.items()}


class LadderPartsError(PartsError):
    """A saved pairing or self-play that is not as a ladder writes it."""


_KEY_FIELDS = {"players": "--players", "games": "--games", "seed": "--seed",
               "rules": "rules", "code": "code (sim/core, its engine, its bots)",
               "data": "data files (the game's data, tuned.json)"}


def _load_parts(path, key):
    return load_parts(path, key, "parts", "ladder", _KEY_FIELDS)


def _save_parts(path, key, done):
    if path is not None:
        save_parts(path, key, "parts", done)


def _pct(x):
    return f"{100 * x:.2f}%"


def ladder_markdown(policies, pairings, characters, n_players, n_games, seed, command):
    lines = [f"# All-In Ascent skill ladder ({n_players} players)", "",
             f"Command: `{command}`", "",
             f"{n_games:,} games per pairing, master seed {seed}: every pairing plays the same "
             "seeds and random character seatings; the two policies alternate seats (A B A B) "
             "and swap every other game. Difference = A's win rate minus B's on the same games, "
             "with Tango's 95% score interval for a paired difference; p from the exact "
             "McNemar test.", "",
             "## Head to head", "",
             "| A | B | A wins (95% CI) | B wins (95% CI) | A − B (95% CI) | p |",
             "|---|---|---|---|---|---|"]
    for p in pairings:
        alo, ahi = wilson_interval(p.a_wins, p.games)
        blo, bhi = wilson_interval(p.b_wins, p.games)
        p_text = f"{p.p_value:.2g}" if p.p_value > 0 else "< 1e-300"   # an exact p underflows
        lines.append(f"| {p.a} | {p.b} | {_pct(p.a_wins / p.games)} [{_pct(alo)}, {_pct(ahi)}] "
                     f"| {_pct(p.b_wins / p.games)} [{_pct(blo)}, {_pct(bhi)}] "
                     f"| {100 * p.diff:+.2f} [{100 * p.diff_low:+.2f}, {100 * p.diff_high:+.2f}] "
                     f"| {p_text} |")
    lines += ["", "## The expected order, step by step", "",
              "Expected: " + " < ".join(x for x in EXPECTED_ORDER if x in policies) + ". "
              "A step holds when the stronger policy beats the weaker head to head with the "
              "interval above zero.", "",
              "| weaker | stronger | stronger − weaker (95% CI) | verdict |", "|---|---|---|---|"]
    by_pair = {(p.a, p.b): p for p in pairings}
    order = [x for x in EXPECTED_ORDER if x in policies]
    for weak, strong in zip(order, order[1:]):
        p = by_pair.get((strong, weak))
        sign = 1
        if p is None:
            p, sign = by_pair[(weak, strong)], -1
        d, lo, hi = sign * p.diff, min(sign * p.diff_low, sign * p.diff_high), \
            max(sign * p.diff_low, sign * p.diff_high)
        verdict = ("holds (significant)" if lo > 0 else
                   "reversed (significant)" if hi < 0 else "not significant")
        lines.append(f"| {weak} | {strong} | {100 * d:+.2f} [{100 * lo:+.2f}, {100 * hi:+.2f}] "
                     f"| {verdict} |")
    # a game nobody wins (the round cap) is a loss for every seat, so a policy's even rate is
    # its wins per seat over all seats, not 1/players (random's games are mostly capped)
    parity = {policy: sum(w for _, w in characters[policy].values()) /
              max(1, sum(g for g, _ in characters[policy].values())) for policy in policies}
    lines += ["", "## Win rate per character under each policy (self-play)", "",
              "Every seat plays the policy; the same seeds and seatings. Parity, a seat's wins "
              f"over all its games (1/{n_players} of the games somebody won; a game nobody wins "
              "is a loss for every seat): "
              + ", ".join(f"{policy} {_pct(parity[policy])}" for policy in policies) + ".", "",
              "| policy | " + " | ".join(CHARACTER_KEYS) + " |",
              "|---|" + "---|" * len(CHARACTER_KEYS)]
    for policy in policies:
        cells = []
        for key in CHARACTER_KEYS:
            games, wins = characters[policy][key]
            if games == 0:
                cells.append("–")
                continue
            lo, hi = wilson_interval(wins, games)
            cells.append(f"{_pct(wins / games)} [{_pct(lo)}, {_pct(hi)}] n={games:,}")
        lines.append(f"| {policy} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
