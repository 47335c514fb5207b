"""The `ascent` subcommands for Ascension (`--game ascension`): simulate, replay, rules."""
import sys
from pathlib import Path


class AscensionUsageError(ValueError):
    pass


def rules_from_args(players, rule_args, set_args=None, preset=None, data=None):
    from sim.core.args import refuse_repeats
    from sim.games.ascension.rules import RuleError, build_rules, split_assignment
    if set_args:
        raise AscensionUsageError("--set: Ascension has no data knobs; its switches and balance "
                                  "knobs are all --rule NAME=VALUE (see `ascent rules --game "
                                  "ascension`)")
    if preset not in (None, "v0.4.0"):
        raise AscensionUsageError("--preset: Ascension has no presets (one spec, "
                                  "../shared/ascension/RULES.md)")
    if data:
        raise AscensionUsageError("--data: Ascension has no data file")
    try:
        pairs = [split_assignment(r) for r in (rule_args or [])]
        refuse_repeats("--rule", [name for name, _ in pairs], AscensionUsageError)
        changes = dict(pairs)
        return build_rules(players, changes)
    except RuleError as exc:
        raise AscensionUsageError(f"--rule: {exc}") from None


def seat_policy_names(policy, seat_policies, players):
    from policies.registry import DEFAULT_POLICY, policy_names
    known = policy_names("ascension")
    names = [p.strip() for p in seat_policies.split(",")] if seat_policies \
        else [policy or DEFAULT_POLICY["ascension"]] * players
    if len(names) != players:
        raise AscensionUsageError(f"--seat-policies: {len(names)} policies for {players} players")
    for n in names:
        if n not in known:
            raise AscensionUsageError(f"unknown Ascension policy {n!r}; available: "
                                      f"{', '.join(known)}")
    return names


def simulate(args, command_line):
    from sim.core.simulate import run_identity, simulate_to_folder
    from sim.games.ascension.batch import run_games
    from sim.games.ascension.records import RECORD_SCHEMA_VERSION, games_table, seats_table
    if args.characters not in (None, "random"):
        raise AscensionUsageError("--characters: Ascension has no characters")
    if args.players not in (2, 3, 4):
        raise AscensionUsageError(f"--players: Ascension is for 2 to 4 players (A1), got "
                                  f"{args.players}")
    rules = rules_from_args(args.players, args.rule, args.set, args.preset, args.data)
    names = seat_policy_names(args.policy, args.seat_policies, args.players)
    return simulate_to_folder(
        args, command_line, "ascension",
        run_identity(rules, names, "ascension", rotate=args.rotate_seats),
        {"rules": rules.as_dict(), "rules_changed": rules.changed(),
         "rules_fingerprint": rules.fingerprint, "seat_policies": names},
        lambda n, first: run_games(n, args.seed, rules, names, first_index=first,
                                   threads=args.threads, rotate=args.rotate_seats),
        lambda batch: (games_table(batch, rules), seats_table(batch, rules)),
        RECORD_SCHEMA_VERSION, summary_text, SUMMARY_COLUMNS)


SUMMARY_COLUMNS = (("end_reason", "turns"), ("seat", "won"))


def summary_text(games, seats):
    from sim.core.stats import wilson_interval
    lines = ["win rate by seat (95% Wilson interval):"]
    for seat, grp in seats.groupby("seat"):
        n = len(grp)
        wins = int(grp["won"].sum())
        lo, hi = wilson_interval(wins, n)
        lines.append(f"  seat {seat + 1}  {wins / n:7.2%}  [{lo:6.2%}, {hi:6.2%}]  n={n:,}")
    n = len(games)
    for reason in ("win", "cap", "all_eliminated"):
        k = int((games["end_reason"] == reason).sum())
        lo, hi = wilson_interval(k, n)
        lines.append(f"  ended by {reason:<15} {k / n:7.2%}  [{lo:6.2%}, {hi:6.2%}]")
    lines.append(f"  median length: {games['turns'].median():g} turns")
    return "\n".join(lines)


def replay(args):
    from sim.games.ascension.game import AscensionGame
    if not args.players:
        raise AscensionUsageError("--players: required for --game ascension (2, 3 or 4)")
    if args.players not in (2, 3, 4):
        raise AscensionUsageError(f"--players: Ascension is for 2 to 4 players (A1), got "
                                  f"{args.players}")
    rules = rules_from_args(args.players, args.rule, args.set, args.preset, args.data)
    names = seat_policy_names(args.policy, args.seat_policies, args.players)
    game = AscensionGame(args.seed, rules=rules)
    game.play(names)
    text = game.transcript_jsonl() if args.format == "jsonl" else game.replay_text()
    if args.out:
        Path(args.out).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def catalogue():
    from sim.games.ascension.rules import catalogue as text
    return text()
