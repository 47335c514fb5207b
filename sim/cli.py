"""`ascent`: the command line. Thin: parse, call, print. Bad input exits 2 with one line."""
import argparse
import json
import shlex
import sys
import time
from pathlib import Path


class UsageError(ValueError):
    pass


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def _game_count(text):
    """--games: 1 to 10**12 (a million games a second for eleven days; more is a typo)."""
    value = _positive_int(text)
    if value > 10**12:
        raise argparse.ArgumentTypeError(f"expected at most 1,000,000,000,000 games, got {value}")
    return value


def _seed(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"expected a seed from 0 to 2**63-1, got {value}")
    return value


def _rules(args):
    from sim.core.args import refuse_repeats
    from sim.games.all_in_ascent.rules import build_rules, get_preset
    from sim.games.all_in_ascent.variants import VariantError, split_assignment
    try:
        get_preset(args.preset)
    except ValueError as exc:
        raise UsageError(f"--preset: {exc}") from None
    try:
        pairs = [split_assignment(r, "--rule") for r in (args.rule or [])]
        refuse_repeats("--rule", [name for name, _ in pairs], UsageError)
        refuse_repeats("--set", [split_assignment(k, "--set")[0] for k in (args.set or [])],
                       UsageError)
        return build_rules(args.preset, dict(pairs), list(args.set or []), args.data)
    except VariantError as exc:
        raise UsageError(str(exc)) from None


def _check_policy_flags(args):
    if getattr(args, "seat_policies", None) and getattr(args, "policy", None):
        raise UsageError("--policy and --seat-policies: give one (--seat-policies names every "
                         "seat's bot)")


def _check_threads(args):
    import numba
    threads = getattr(args, "threads", None)
    if threads is not None and threads > numba.config.NUMBA_NUM_THREADS:
        raise UsageError(f"--threads: at most {numba.config.NUMBA_NUM_THREADS} on this machine "
                         f"(its cores), got {threads}")


def _check_game_can_end(rules, players):
    from sim.games.all_in_ascent.rules import check_game_can_end
    from sim.games.all_in_ascent.variants import VariantError
    try:
        check_game_can_end(rules.config, players)
    except VariantError as exc:
        raise UsageError(str(exc)) from None


def _ascension(args):
    """The Ascension commands module, with its usage errors mapped to ours."""
    from sim.games.ascension import commands
    return commands


def _first_ascent(args):
    from sim.games.first_ascent import commands
    return commands


def cmd_rules(args):
    if args.game == "first-ascent":
        print(_first_ascent(args).catalogue())
        return 0
    if args.game == "ascension":
        print(_ascension(args).catalogue())
        return 0
    from sim.games.all_in_ascent.rules import PRESETS
    from sim.games.all_in_ascent.variants import catalogue
    print(catalogue(PRESETS))
    return 0


def _characters(text, players=None):
    from sim.games.all_in_ascent.data import CHARACTER_KEYS
    if text == "random":
        return "random"
    keys = [c.strip() for c in text.split(",") if c.strip()]
    for key in keys:
        if key not in CHARACTER_KEYS:
            raise UsageError(f"--characters: unknown character {key!r}; allowed: "
                             f"{', '.join(CHARACTER_KEYS)} (or 'random')")
    if len(set(keys)) != len(keys):
        raise UsageError(f"--characters: characters must be distinct (R10), got {text}")
    if players is not None and len(keys) != players:
        raise UsageError(f"--characters: {len(keys)} characters for --players {players}")
    if not 1 <= len(keys) <= 4:
        raise UsageError(f"--characters: 1 to 4 characters (R10), got {len(keys)}")
    return keys


def _policies(args, players):
    from policies.registry import DEFAULT_POLICY, policy_names
    known = policy_names("all-in-ascent")
    names = [p.strip() for p in args.seat_policies.split(",")] if getattr(args, "seat_policies", None) \
        else [args.policy or DEFAULT_POLICY["all-in-ascent"]] * players
    if len(names) != players:
        raise UsageError(f"--seat-policies: {len(names)} policies for {players} players")
    for n in names:
        if n not in known:
            raise UsageError(f"unknown policy {n!r}; available: {', '.join(known)}")
    return names


def cmd_replay(args):
    if args.game == "first-ascent":
        return _first_ascent(args).replay(args)
    if args.game == "ascension":
        return _ascension(args).replay(args)
    from sim.games.all_in_ascent.game import Game
    if not args.characters:
        raise UsageError("--characters: required for All-In Ascent, e.g. technician,sprinter")
    if args.policy is None:
        args.policy = "random"
    rules = _rules(args)
    chars = _characters(args.characters)
    if chars == "random":
        raise UsageError("--characters: replay needs explicit characters, e.g. technician,sprinter")
    _check_game_can_end(rules, len(chars))
    game = Game(args.seed, chars, rules=rules)
    game.play(_policies(args, len(chars)))
    text = game.transcript.to_jsonl() if args.format == "jsonl" else game.transcript.to_text()
    if args.out:
        Path(args.out).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def _default_out(args):
    from policies.registry import DEFAULT_POLICY
    policy = args.policy or DEFAULT_POLICY[args.game]
    if args.seat_policies:
        policy = "mixed"
    return str(Path("results") / "simulate" /
               f"{args.game}-p{args.players}-{policy}-g{args.games}-s{args.seed}")


def cmd_simulate(args):
    if args.out is None:
        args.out = _default_out(args)
    if args.game == "first-ascent":
        return _first_ascent(args).simulate(args, _command_line(args))
    if args.game == "ascension":
        return _ascension(args).simulate(args, _command_line(args))
    if args.players == 5:
        raise UsageError("--players: All-In Ascent is for 1 to 4 players (R10)")
    if args.rotate_seats:
        raise UsageError("--rotate-seats: only for --game ascension (All-In Ascent seats "
                         "characters at random)")
    from sim.core.simulate import run_identity, simulate_to_folder
    from sim.games.all_in_ascent.batch import run_games
    from sim.games.all_in_ascent.records import RECORD_SCHEMA_VERSION, games_table, seats_table
    rules = _rules(args)
    _check_game_can_end(rules, args.players)
    chars = _characters(args.characters or "random", args.players)
    names = _policies(args, args.players)
    return simulate_to_folder(
        args, _command_line(args), "all-in-ascent",
        run_identity(rules, names, "all-in-ascent", characters=chars),
        {"preset": rules.config.preset, "rules": rules.config.as_dict(),
         "data_file": rules.data.source, "data_sha256": rules.data.sha256,
         "rules_fingerprint": rules.fingerprint, "characters": chars, "seat_policies": names,
         "card_names": list(rules.card_names)},
        lambda n, first: run_games(n, args.seed, args.players, names, chars, first_index=first,
                                   rules=rules, threads=args.threads),
        lambda batch: (games_table(batch, rules), seats_table(batch, rules)),
        RECORD_SCHEMA_VERSION, summary_table,
        (("winner_seat", "rounds", "end_reason"), ("character", "won")))


def _command_line(args):
    return "ascent " + " ".join(shlex.quote(a) for a in args.argv)


def _policy_list(text):
    from policies.registry import policy_names
    names = [p.strip() for p in text.split(",") if p.strip()]
    known = policy_names("all-in-ascent")
    for name in names:
        if name not in known:
            raise UsageError(f"--policies: unknown policy {name!r}; available: {', '.join(known)}")
    if len(names) < 2 or len(set(names)) != len(names):
        raise UsageError(f"--policies: give at least two distinct policies, got {text!r}")
    return names


def cmd_ladder(args):
    from sim.games.all_in_ascent.ladder import LadderPartsError, ladder_markdown, run_ladder
    rules = _rules(args)
    policies = _policy_list(args.policies)
    started = time.perf_counter()
    log = (lambda *a: None) if args.quiet else (lambda m: print(m, file=sys.stderr))
    parts = Path(args.out).with_name(Path(args.out).name + ".parts.json") if args.out else None
    try:
        pairings, characters = run_ladder(policies, args.players, args.games, args.seed,
                                          args.threads, rules, log, parts)
    except LadderPartsError as exc:
        raise UsageError(str(exc)) from None
    text = ladder_markdown(policies, pairings, characters, args.players, args.games, args.seed,
                           _command_line(args))
    resumed = f" (this invocation; finished pairings are kept in {parts})" if parts else ""
    text += f"\nWall time: {time.perf_counter() - started:.0f} s{resumed}.\n"
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text)
    if not args.quiet:
        print(text)
    return 0


def cmd_tune(args):
    if args.game == "first-ascent":
        from policies.first_ascent.tuning import KEYS, store, tune
        where = "policies/first_ascent/tuned.json"
        keys = KEYS
        if args.players not in (2, 3, 4, 5):
            raise UsageError(f"--players: First Ascent is for 2 to 5 players, got {args.players}")
    else:
        from policies.all_in_ascent.tuning import store, tune
        from sim.games.all_in_ascent.data import CHARACTER_KEYS as keys
        where = "policies/all_in_ascent/tuned.json"
        if args.players == 5:
            raise UsageError("--players: All-In Ascent is for 2 to 4 players")
    if args.character not in keys:
        raise UsageError(f"--character: unknown character {args.character!r}; allowed: "
                         f"{', '.join(keys)}")
    log = (lambda *a: None) if args.quiet else (lambda m: print(m, file=sys.stderr))
    result = tune(args.character, args.players, args.budget, args.games, args.seed,
                  args.validation_games, args.threads, log)
    print(json.dumps(result, indent=2))
    if args.store:
        store(args.character, result, _command_line(args))
        print(f"stored in {where}")
    return 0


def _benchmark_rate(policy):
    """games/s of a policy from results/benchmarks.json, if the benchmark has been run."""
    path = Path(__file__).resolve().parent.parent / "results" / "benchmarks.json"
    try:
        return json.loads(path.read_text())["games_per_second_2_threads"].get(policy)
    except (OSError, ValueError, KeyError, AttributeError):
        return None


def cmd_run(args):
    from sim.experiment.paired import character_win_rates, experiment_comparisons, \
        format_comparisons
    from sim.experiment.runner import dry_run_plan, load_variant, run_experiment
    from sim.experiment.spec import SpecError, load_spec
    try:
        spec = load_spec(args.spec)
    except SpecError as exc:
        raise UsageError(str(exc)) from None
    if args.dry_run:
        policy = spec.seat_policies if isinstance(spec.seat_policies, str) else None
        print(dry_run_plan(spec, _benchmark_rate(policy) if policy else None))
        return 0
    try:
        doc = run_experiment(spec, jobs=args.jobs, scheduler=args.scheduler, quiet=args.quiet)
    except SpecError as exc:
        raise UsageError(str(exc)) from None
    if not args.quiet:
        run = doc["runs"][-1]
        for players in spec.players:
            for v in spec.variants:
                seats = load_variant(spec.out, v.name, players, [spec.group, "won"])
                if seats is None:
                    continue
                print(f"{v.name}, {players} players:")
                for char, r in character_win_rates(seats, spec.group).iterrows():
                    label = f"seat {int(char) + 1}" if spec.group == "seat" else str(char)
                    print(f"  {label:<12} {r.win_rate:7.2%}  [{r.ci_low:6.2%}, {r.ci_high:6.2%}]"
                          f"  n={int(r.games):,}")
        if len(spec.variants) > 1:
            print(format_comparisons(*experiment_comparisons(spec.out, spec)))
        print(f"{run['games_played']:,} games played in {run['wall_seconds']:.1f} s "
              f"({run['games_per_second'] or 0:,.0f} games/s); results in {spec.out}/")
    return 0


def cmd_report(args):
    from sim.report.render import write_report
    for flag, value, folder in (("--variant", args.variant, args.results),
                                ("--against-variant", args.against_variant, args.against)):
        if value and folder and not (Path(folder) / "experiment.json").exists():
            raise UsageError(f"{flag}: {folder} is a simulate folder, which has no variants; "
                             f"--variant is for experiment folders")
    try:
        path = write_report(args.results, args.against, args.variant, args.against_variant)
    except (ValueError, OSError) as exc:
        raise UsageError(f"report: {exc}") from None
    print(f"report written: {path}")
    return 0


def summary_table(games, seats):
    """Win rate per character with n and a 95% Wilson interval, the no-winner rate, rounds."""
    from sim.core.stats import wilson_interval
    rows = []
    for char, grp in seats.groupby("character", observed=True):
        n = len(grp)
        wins = int(grp["won"].sum())
        lo, hi = wilson_interval(wins, n)
        rows.append(f"  {char:<12} {wins / n:7.2%}  [{lo:6.2%}, {hi:6.2%}]  n={n:,}")
    n = len(games)
    none = int((games["winner_seat"] < 0).sum())
    lo, hi = wilson_interval(none, n)
    lines = ["win rate per character (95% Wilson interval):"] + rows
    lines.append(f"  {'no winner':<12} {none / n:7.2%}  [{lo:6.2%}, {hi:6.2%}]  n={n:,}")
    lines.append(f"  median rounds: {games['rounds'].median():g}")
    capped = int((games["end_reason"] == "action_cap").sum())
    if capped:
        # not a rule: the kernel's safety stop. Under rules without a round cap (v0.6.0) a bot
        # that never goes for the expert milestone (greedy) would otherwise play forever.
        lines.append(f"  warning: {capped:,} of {n:,} games were stopped by the safety cap on "
                     f"actions, unfinished: the policy does not end games under these rules")
    return "\n".join(lines)


def build_parser():
    parser = argparse.ArgumentParser(prog="ascent", description="Balance lab for climbing board games.")
    sub = parser.add_subparsers(dest="command", required=True)

    def rules_args(p):
        p.add_argument("--preset", default="v0.4.0", help="rules preset (default v0.4.0)")
        p.add_argument("--data", help="a data file (.json, or the designers' data.js)")
        p.add_argument("--rule", action="append", metavar="NAME=VALUE",
                       help="a rule switch (see `ascent rules`); repeatable")
        p.add_argument("--set", action="append", metavar="PATH=VALUE",
                       help="a data knob (see `ascent rules`); repeatable")

    def game_arg(p):
        p.add_argument("--game", choices=("all-in-ascent", "ascension", "first-ascent"),
                       default="all-in-ascent",
                       help="which game (default all-in-ascent)")

    cp = sub.add_parser("rules", help="list the presets, rule switches and data knobs")
    game_arg(cp)
    cp.set_defaults(func=cmd_rules)

    rp = sub.add_parser("replay", help="play one game and print its transcript")
    game_arg(rp)
    rp.add_argument("--seed", type=_seed, required=True)
    rp.add_argument("--characters", help="All-In Ascent: comma-separated, one per seat")
    rp.add_argument("--players", type=int, help="Ascension: 2, 3 or 4; First Ascent: 2 to 5")
    rp.add_argument("--policy", default=None,
                    help="default: random for All-In Ascent, hybrid for Ascension, tuned for "
                         "First Ascent")
    rp.add_argument("--seat-policies", help="comma-separated policy per seat")
    rp.add_argument("--format", choices=("text", "jsonl"), default="text")
    rp.add_argument("--out", help="write to this file instead of stdout")
    rules_args(rp)
    rp.set_defaults(func=cmd_replay)

    sp = sub.add_parser("simulate", help="play many games in parallel, write parquet")
    game_arg(sp)
    sp.add_argument("--players", type=int, choices=(1, 2, 3, 4, 5), required=True)
    sp.add_argument("--games", type=_game_count, required=True)
    sp.add_argument("--seed", type=_seed, default=1, help="master seed (default 1)")
    sp.add_argument("--policy", default=None,
                    help="the bot in every seat; by default each game's strongest affordable "
                         "bot: tuned for All-In Ascent, hybrid for Ascension, tuned for First "
                         "Ascent (baselines such as greedy or random by name)")
    sp.add_argument("--seat-policies", help="comma-separated policy per seat")
    sp.add_argument("--rotate-seats", action="store_true",
                    help="Ascension, First Ascent: game i shifts the seat policies by i seats")
    sp.add_argument("--characters", default=None,
                    help="All-In Ascent: 'random' (default: distinct, random seats per game) "
                         "or a list")
    sp.add_argument("--threads", type=_positive_int, default=None)
    sp.add_argument("--chunk", type=_positive_int, default=20_000,
                    help="games per batch, written to disk as it finishes: memory grows with "
                         "the chunk, not with --games (results do not depend on it)")
    sp.add_argument("--out", help="output folder (default results/simulate/GAME-pPLAYERS-POLICY-"
                                  "gGAMES-sSEED: the same command writes the same games there)")
    sp.add_argument("--overwrite", action="store_true",
                    help="replace a folder that holds another run (never needed to rerun the "
                         "same command: a finished identical run is kept, not played again)")
    sp.add_argument("--quiet", action="store_true")
    rules_args(sp)
    sp.set_defaults(func=cmd_simulate)

    rp2 = sub.add_parser("report", help="write report.html, figures/ and tables/ for a run")
    rp2.add_argument("results", help="a simulate folder or an experiment folder")
    rp2.add_argument("--against", help="a baseline run of the same games: writes compare.html "
                                       "(compare-VARIANT.html in an experiment folder), the "
                                       "paired comparison, and leaves report.html alone")
    rp2.add_argument("--variant", help="which variant of an experiment folder (default baseline)")
    rp2.add_argument("--against-variant", help="which variant of the --against folder")
    rp2.set_defaults(func=cmd_report)

    xp = sub.add_parser("run", help="run (or resume) an experiment spec (experiments/*.toml)")
    xp.add_argument("spec")
    xp.add_argument("--dry-run", action="store_true", help="print the plan, play nothing")
    xp.add_argument("--jobs", type=_positive_int, help="local worker processes")
    xp.add_argument("--scheduler", help="a Dask scheduler address, e.g. tcp://host:8786")
    xp.add_argument("--quiet", action="store_true")
    xp.set_defaults(func=cmd_run)

    lp = sub.add_parser("ladder", help="every policy against every other, on common seeds")
    lp.add_argument("--players", type=int, choices=(2, 3, 4), default=4)
    lp.add_argument("--games", type=_positive_int, required=True, help="games per pairing")
    lp.add_argument("--seed", type=_seed, default=1, help="master seed")
    lp.add_argument("--policies",
                    default="random,greedy,designers-heuristic,planner,tuned,lookahead")
    lp.add_argument("--threads", type=_positive_int, default=None)
    lp.add_argument("--out", help="write the markdown table here (e.g. results/LADDER.md); "
                    "finished pairings are kept beside it in OUT.parts.json, so a rerun "
                    "resumes")
    lp.add_argument("--quiet", action="store_true")
    rules_args(lp)
    lp.set_defaults(func=cmd_ladder)

    tp = sub.add_parser("tune", help="tune the planner's knobs for one character (CMA-ES)")
    tp.add_argument("--game", choices=("all-in-ascent", "first-ascent"), default="all-in-ascent")
    tp.add_argument("--character", required=True)
    tp.add_argument("--players", type=int, choices=(2, 3, 4, 5), default=4)
    tp.add_argument("--budget", type=_positive_int, required=True,
                    help="candidate evaluations")
    tp.add_argument("--games", type=_positive_int, default=2000,
                    help="games per evaluation (the same games for every candidate)")
    tp.add_argument("--validation-games", type=_positive_int, default=20000)
    tp.add_argument("--seed", type=_seed, default=1)
    tp.add_argument("--threads", type=_positive_int, default=None)
    tp.add_argument("--store", action="store_true",
                    help="write the result into policies/all_in_ascent/tuned.json")
    tp.add_argument("--quiet", action="store_true")
    tp.set_defaults(func=cmd_tune)
    return parser


def main(argv=None):
    from sim.games.all_in_ascent.data import DataError
    from sim.games.ascension.commands import AscensionUsageError
    from sim.core.output import OutputError
    from sim.games.first_ascent.commands import FirstAscentUsageError
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    try:
        _check_policy_flags(args)
        _check_threads(args)
        return args.func(args)
    except (DataError, UsageError, AscensionUsageError, FirstAscentUsageError,
            OutputError) as exc:
        print(f"ascent: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
