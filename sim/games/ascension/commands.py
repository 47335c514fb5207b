"""The `ascent` subcommands for Ascension (`--game ascension`): simulate, replay, rules."""
import json
import platform
import sys
import time
from pathlib import Path

DEFAULT_POLICY = "stair-builder"


class AscensionUsageError(ValueError):
    pass


def rules_from_args(players, rule_args, set_args=None, preset=None, data=None):
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
        changes = dict(split_assignment(r) for r in (rule_args or []))
        return build_rules(players, changes)
    except RuleError as exc:
        raise AscensionUsageError(f"--rule: {exc}") from None


def seat_policy_names(policy, seat_policies, players):
    from policies.registry import policy_names
    known = policy_names("ascension")
    names = [p.strip() for p in seat_policies.split(",")] if seat_policies \
        else [policy or DEFAULT_POLICY] * players
    if len(names) != players:
        raise AscensionUsageError(f"--seat-policies: {len(names)} policies for {players} players")
    for n in names:
        if n not in known:
            raise AscensionUsageError(f"unknown Ascension policy {n!r}; available: "
                                      f"{', '.join(known)}")
    return names


def simulate(args, command_line):
    import numba
    import pandas as pd
    from importlib.metadata import version

    from sim.games.ascension.batch import run_games
    from sim.games.ascension.records import RECORD_SCHEMA_VERSION, games_table, seats_table
    if args.characters not in (None, "random"):
        raise AscensionUsageError("--characters: Ascension has no characters")
    if args.players not in (2, 3, 4):
        raise AscensionUsageError(f"--players: Ascension is for 2 to 4 players (A1), got "
                                  f"{args.players}")
    rules = rules_from_args(args.players, args.rule, args.set, args.preset, args.data)
    names = seat_policy_names(args.policy, args.seat_policies, args.players)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    games_parts, seats_parts = [], []
    done = 0
    while done < args.games:
        n = min(args.chunk, args.games - done)
        batch = run_games(n, args.seed, rules, names, first_index=done, threads=args.threads,
                          rotate=args.rotate_seats)
        games_parts.append(games_table(batch, rules))
        seats_parts.append(seats_table(batch, rules))
        done += n
        if args.games > args.chunk and not args.quiet:
            rate = done / (time.perf_counter() - started)
            print(f"\r{done:,}/{args.games:,} games  {rate:,.0f} games/s  "
                  f"ETA {(args.games - done) / rate:,.0f} s", end="", file=sys.stderr, flush=True)
    if args.games > args.chunk and not args.quiet:
        print(file=sys.stderr)
    games = pd.concat(games_parts, ignore_index=True)
    seats = pd.concat(seats_parts, ignore_index=True)
    games.to_parquet(out / "games.parquet", index=False)
    seats.to_parquet(out / "seats.parquet", index=False)
    wall = time.perf_counter() - started
    manifest = {
        "game": "ascension",
        "record_schema_version": RECORD_SCHEMA_VERSION,
        "ascent_version": version("ascent"),
        "numba_version": numba.__version__,
        "python": platform.python_version(),
        "rules": rules.as_dict(),
        "rules_changed": rules.changed(),
        "rules_fingerprint": rules.fingerprint,
        "master_seed": args.seed,
        "games": args.games,
        "players": args.players,
        "seat_policies": names,
        "rotate_seats": bool(args.rotate_seats),
        "threads": args.threads or numba.get_num_threads(),
        "command": command_line,
        "wall_seconds": round(wall, 3),
        "games_per_second": round(args.games / wall, 1),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    if not args.quiet:
        print(summary_text(games, seats))
        print(f"{args.games:,} games in {wall:.1f} s ({args.games / wall:,.0f} games/s); "
              f"written to {out}/")
    return 0


def summary_text(games, seats):
    from sim.core.stats import wilson_interval
    lines = ["win rate by seat (95% Wilson interval):"]
    for seat, grp in seats.groupby("seat"):
        n = len(grp)
        wins = int(grp["won"].sum())
        lo, hi = wilson_interval(wins, n)
        lines.append(f"  seat {seat}  {wins / n:7.2%}  [{lo:6.2%}, {hi:6.2%}]  n={n:,}")
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
