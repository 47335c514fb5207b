"""One line on the first screen: which bot produced the numbers, and how strong it plays.

Every balance number is a statement about how the bots play. Where a skill ladder has been run
(`ascent ladder --out results/LADDER.md`, All-In Ascent), the line quotes the ladder's steps
around the bot; elsewhere it says where the bot's strength was measured, or that it was not.
"""
import re
from pathlib import Path

from sim.core.game import get_game

ROOT = Path(__file__).resolve().parents[2]

# Bots that exist to be beaten: their games say little about the game itself.
BASELINES = {"random", "random-safe", "greedy"}


def describe_seating(policies, rotated=False, games=None):
    """'tuned in every seat', 'mixed seats: seat 1 a, seat 2 b, ...', or, where the seats were
    rotated (game i shifts the list by i seats), the bots in their order, that each took
    every seat in turn and, given the run's `games`, how often each sat in each seat: equally
    often only over a multiple of the player count (never a Python list)."""
    policies = [str(p) for p in policies]
    if not policies:
        return "unknown bots"
    if len(set(policies)) == 1:
        return f"{policies[0]} in every seat"
    if rotated:
        text = (f"{', '.join(policies)}, rotated: the list moves one seat a game, so each bot "
                f"takes every seat in turn")
        if games:
            seats = len(policies)
            each = games // seats
            text += (f" ({games:,} games: {each:,} in each seat)" if games % seats == 0 else
                     f" ({games:,} games, not a multiple of {seats} seats: {each:,} or "
                     f"{each + 1:,} in each seat)")
        return text
    return "mixed seats: " + ", ".join(f"seat {i + 1} {p}" for i, p in enumerate(policies))


def ladder_steps(policy, path):
    """The ladder's step verdicts that involve `policy`, as text; [] without a ladder file."""
    try:
        text = Path(path).read_text()
    except OSError:
        return []
    lines = []
    header = re.search(r"^Command: `([^`]*)`", text, re.M)
    for row in re.finditer(r"^\| (\S+) \| (\S+) \| ([^|]+) \| ([^|]+) \|$", text, re.M):
        weaker, stronger, diff, verdict = (g.strip() for g in row.groups())
        if policy not in (weaker, stronger) or not diff.startswith(("+", "-")):
            continue
        other = stronger if policy == weaker else weaker
        found = re.match(r"([+-][\d.]+) \[([+-][\d.]+), ([+-][\d.]+)\]", diff)
        if not found:
            continue
        mid, lo, hi = (float(x) for x in found.groups())      # stronger minus weaker
        if policy == weaker:
            mid, lo, hi = -mid, -hi, -lo                      # this bot minus the other
        word = "beats" if mid > 0 else "loses to"
        if mid < 0:                                           # in the units of "loses by"
            mid, lo, hi = -mid, -hi, -lo
        lines.append(f"{word} {other} by {mid:.1f} points [{lo:.1f}, {hi:.1f}]")
    if lines and header:
        # n: how many games each pairing played, as the ladder's file says
        per = re.search(r"^([\d,]+) games per pairing", text, re.M)
        lines.append(f"from `{header.group(1)}`" +
                     (f", {per.group(1)} games a pairing" if per else ""))
    return lines


def bot_line(game, policies, rotated=False, games=None):
    """The sentence: who played (`rotated`: the run's rotate_seats, over `games` games), and
    what is known of their strength."""
    seating = describe_seating(policies, rotated, games)
    names = sorted(set(str(p) for p in policies))
    text = f"Bots: {seating}."
    weak = [n for n in names if n in BASELINES]
    if weak:
        what = "is a baseline bot that plays" if len(weak) == 1 else "are baseline bots that play"
        text += (f" {' and '.join(weak)} {what} badly on purpose: these numbers describe the "
                 f"bots as much as the game.")
    spec = get_game(game)
    if spec.ladder_results:
        notes, source = [], ""
        for name in names:
            steps = ladder_steps(name, ROOT / spec.ladder_results)
            if steps and steps[-1].startswith("from"):
                source = steps.pop()[len("from "):]
            if steps:
                notes.append(f"{name} {'; '.join(steps)}")
        if notes:
            text += " Skill ladder: " + "; ".join(notes) + (f" ({source})" if source else "") + "."
        else:
            # the ladder's name alone: a bot missing from it may still be a skill-curve level,
            # which the first screen names
            text += (f" The skill ladder ({spec.ladder_results}, written by `ascent ladder`) "
                     f"has no row for these bots.")
    elif spec.strength_note:
        text += f" Strength: {spec.strength_note}."
    return text + " Verdicts can change under stronger play."
