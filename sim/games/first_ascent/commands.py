"""The `ascent` subcommands for First Ascent (`--game first-ascent`): simulate, replay, rules."""
import sys
from pathlib import Path

GAME = "first-ascent"


class FirstAscentUsageError(ValueError):
    pass


def rules_from_args(players, rule_args, set_args=None, preset=None, data=None):
    from sim.core.args import refuse_repeats
    from sim.games.first_ascent.rules import RuleError, build_rules, split_assignment
    if set_args:
        raise FirstAscentUsageError("--set: First Ascent has no data knobs yet; its options are "
                                    "--rule NAME=VALUE (see `ascent rules --game first-ascent`)")
    if preset not in (None, "v0.4.0"):
        raise FirstAscentUsageError("--preset: First Ascent has no presets (one spec, "
                                    "../shared/first-ascent/RULES.md)")
    if data:
        raise FirstAscentUsageError("--data: First Ascent reads its bundled data.json only")
    try:
        pairs = [split_assignment(r) for r in (rule_args or [])]
        refuse_repeats("--rule", [name for name, _ in pairs], FirstAscentUsageError)
        changes = dict(pairs)
        return build_rules(players, changes)
    except RuleError as exc:
        raise FirstAscentUsageError(f"--rule: {exc}") from None


def seat_policy_names(policy, seat_policies, players):
    from policies.registry import DEFAULT_POLICY, policy_names
    known = policy_names(GAME)
    names = [p.strip() for p in seat_policies.split(",")] if seat_policies \
        else [policy or DEFAULT_POLICY[GAME]] * players
    if len(names) != players:
        raise FirstAscentUsageError(f"--seat-policies: {len(names)} policies for {players} "
                                    f"players")
    for n in names:
        if n not in known:
            raise FirstAscentUsageError(f"unknown First Ascent policy {n!r}; available: "
                                        f"{', '.join(known)}")
    return names


def characters_from_arg(text, players):
    from sim.games.first_ascent.data import CHARACTER_KEYS
    if text in (None, "random"):
        return "random"
    keys = [c.strip() for c in text.split(",") if c.strip()]
    allowed = sorted(CHARACTER_KEYS.values())
    for key in keys:
        if key not in allowed:
            raise FirstAscentUsageError(f"--characters: unknown First Ascent character {key!r}; "
                                        f"allowed: {', '.join(allowed)} (or 'random')")
    if len(keys) != players:
        raise FirstAscentUsageError(f"--characters: {len(keys)} characters for --players "
                                    f"{players}")
    if len(set(keys)) != len(keys):
        raise FirstAscentUsageError(f"--characters: characters must be distinct (F22), got "
                                    f"{text}")
    return keys


def check_players(players):
    if players not in (2, 3, 4, 5):
        raise FirstAscentUsageError(f"--players: First Ascent is for 2 to 5 players (F1), got "
                                    f"{players}")


def simulate(args, command_line):
    from sim.core.simulate import run_identity, simulate_to_folder
    from sim.games.first_ascent.batch import run_games
    from sim.games.first_ascent.records import RECORD_SCHEMA_VERSION, games_table, seats_table
    check_players(args.players)
    rules = rules_from_args(args.players, args.rule, args.set, args.preset, args.data)
    names = seat_policy_names(args.policy, args.seat_policies, args.players)
    chars = characters_from_arg(args.characters, args.players)
    return simulate_to_folder(
        args, command_line, GAME,
        run_identity(rules, names, GAME, rotate=args.rotate_seats, characters=chars),
        {"rules": rules.as_dict(), "rules_changed": rules.changed(),
         "rules_fingerprint": rules.fingerprint, "seat_policies": names, "characters": chars},
        lambda n, first: run_games(n, args.seed, rules, names, chars, first_index=first,
                                   threads=args.threads, rotate=args.rotate_seats),
        lambda batch: (games_table(batch, rules), seats_table(batch, rules)),
        RECORD_SCHEMA_VERSION, summary_text, SUMMARY_COLUMNS)


SUMMARY_COLUMNS = (("end_reason", "rounds"), ("character", "won", "score"))


def summary_text(games, seats):
    from sim.core.stats import wilson_interval
    lines = ["win rate by character (shared wins count for every winner; 95% Wilson interval):"]
    for char, grp in seats.groupby("character", observed=True):
        n = len(grp)
        wins = int(grp["won"].sum())
        lo, hi = wilson_interval(wins, n)
        lines.append(f"  {char:<22} {wins / n:7.2%}  [{lo:6.2%}, {hi:6.2%}]  "
                     f"mean score {grp['score'].mean():5.1f}  n={n:,}")
    n = len(games)
    for reason in ("eight_pitches", "stranded", "round_cap", "policy_error"):
        k = int((games["end_reason"] == reason).sum())
        if k:
            lo, hi = wilson_interval(k, n)
            lines.append(f"  ended by {reason:<14} {k / n:7.2%}  [{lo:6.2%}, {hi:6.2%}]")
    lines.append(f"  mean length: {games['rounds'].mean():.2f} rounds")
    return "\n".join(lines)


def replay(args):
    from sim.games.first_ascent.game import FirstAscentGame
    if not args.players:
        raise FirstAscentUsageError("--players: required for --game first-ascent (2 to 5)")
    check_players(args.players)
    rules = rules_from_args(args.players, args.rule, args.set, args.preset, args.data)
    names = seat_policy_names(args.policy, args.seat_policies, args.players)
    chars = characters_from_arg(args.characters, args.players)
    game = FirstAscentGame(args.seed, args.players, chars, rules=rules)
    game.play(names)
    text = game.transcript_jsonl() if args.format == "jsonl" else game.replay_text()
    if args.out:
        Path(args.out).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def catalogue():
    from sim.games.first_ascent.rules import catalogue as text
    return text()
