"""`ascent`: the command line. Thin: parse, call, print. Bad input exits 2 with one line."""
import argparse
import json
import os
import shlex
import sys
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path

from sim.core.args import whole_number


class UsageError(ValueError):
    pass


GIVEN = "_options_given"        # the namespace's record of the options given (_given_once)


def _given_once(action_class):
    """`action_class` refusing a second occurrence of its option: argparse keeps the last
    value, so `--seed 1 --seed 2` ran seed 2 without a word (a review found it), as a repeated
    --rule did before sim/core/args.py refused it."""
    class Once(action_class):
        def __call__(self, parser, namespace, values, option_string=None):
            given = namespace.__dict__.setdefault(GIVEN, set())
            if self.dest in given:
                parser.error(f"argument {'/'.join(self.option_strings)}: given twice; give "
                             f"it once")
            given.add(self.dest)
            super().__call__(parser, namespace, values, option_string)
    Once.__name__ = f"Once{action_class.__name__}"
    return Once


class _Parser(argparse.ArgumentParser):
    """Its errors are one line, as every other bad input's (`ascent: error: ...`), not
    argparse's usage block; the subcommands' parsers are of this class too. An option that
    takes one value (or is a flag) may be given once (_given_once); --rule, --set and the
    other repeatable ones append."""

    def error(self, message):
        self.exit(2, f"ascent: error: {message} (see `{self.prog} --help`)\n")

    def add_argument(self, *args, **kwargs):
        action = super().add_argument(*args, **kwargs)
        if action.option_strings and isinstance(action, (
                argparse._StoreAction, argparse._StoreConstAction)):
            action.__class__ = _given_once(type(action))
        return action

    def parse_known_args(self, args=None, namespace=None):
        parsed, rest = super().parse_known_args(args, namespace)
        parsed.__dict__.pop(GIVEN, None)
        return parsed, rest


def _whole_number(text):
    value = whole_number(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}")
    return value


def _positive_int(text):
    value = _whole_number(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def _count_at_most(text, most, what):
    """A count from 1 to `most`; `what` follows the bound in the refusal."""
    value = _positive_int(text)
    if value > most:
        raise argparse.ArgumentTypeError(f"expected at most {most:,} {what}, got {value}")
    return value


def _game_count(text):
    """--games: 1 to 10**12 (a million games a second for eleven days; more is a typo)."""
    return _count_at_most(text, 10**12, "games")


def _chunk(text):
    """--chunk: 1 to 10**8 games, an experiment spec's own bound (sweep and skill write one:
    a larger chunk passed here failed only on that file, and the failed file then blocked the
    corrected command)."""
    from sim.experiment.spec import MAX_CHUNK
    return _count_at_most(text, MAX_CHUNK, "games a chunk")


def _seed(text):
    value = _whole_number(text)
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"expected a seed from 0 to 2**63-1, got {value}")
    return value


def _game_seed(text):
    """A game's own seed (replay): the engines seed a game with 32 bits (sim/core/rng.py), so a
    larger number replayed another seed's game under its own (4294967297 played seed 1's)."""
    value = _whole_number(text)
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(f"expected a game seed from 0 to 4294967295 (2**32-1), "
                                         f"got {value}")
    return value


# games a command holds in memory at once (a ladder's pairing, a tuning run's evaluation): a
# larger count failed with numpy's allocation traceback, a tuning run's validation only after
# its whole search
MAX_IN_MEMORY_GAMES = 10**8


def _games_in_memory(text):
    return _count_at_most(text, MAX_IN_MEMORY_GAMES, "games (they are held in memory at once)")


def _results_folder(text):
    """report's folder: given empty, it read as the current folder and wrote a report there."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected a simulate or experiment folder, got "
                                         f"{text!r}")
    return text


def _jobs(text):
    """--jobs: local worker processes. More than a few per core only wait for a core, each
    with its own compiled copy of the game (--jobs 999 started one per chunk); a cluster is
    --scheduler's."""
    return _count_at_most(text, 4 * (os.cpu_count() or 1),
                          "(4 per core on this machine; a Dask cluster is --scheduler's)")


def _name(text):
    """A name or path option: given empty, it would read as not given and run the default."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected a name, got {text!r} (leave the option out "
                                         f"for the default)")
    return text


def _game(args):
    from sim.core.game import get_game
    return get_game(args.game)


def _rules(args, game, players):
    """--preset, --rule, --set and --data -> the game's packed rules for `players` players."""
    from sim.core.args import rule_changes
    rules, knobs = rule_changes(args.rule, args.set, UsageError)
    return game.build_rules(players, args.preset, rules, knobs, args.data)


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


def _seat_policies(args, game, players):
    listed = [p.strip() for p in args.seat_policies.split(",")] if args.seat_policies else None
    return game.seat_policies(args.policy, listed, players)


def cmd_rules(args):
    game = _game(args)
    # --players' help sends the reader here for the game's range, which no catalogue printed
    print(f"{game.title}: {game.player_counts} players ({game.players_rule})\n")
    print(game.api.catalogue())
    return 0


def _check_file_out(option, path, makes_folder=False):
    """An output file's path, checked before any game is played: a folder, or (for a command
    that does not make it) a missing parent folder failed only once the work was done, with a
    traceback."""
    if path is None:
        return
    if str(path).endswith(("/", os.sep)):   # Path() drops the slash: a file was written
        raise UsageError(f"{option} {path}: a folder's path; expected the path of a file to "
                         f"write")
    path = Path(path)
    if path.is_dir():
        raise UsageError(f"{option} {path}: a folder; expected the path of a file to write")
    if not makes_folder and not path.parent.is_dir():
        raise UsageError(f"{option} {path}: no folder {path.parent} to write it in")
    if makes_folder:
        # the folders it makes must go under a folder it may write: a file on the way said
        # "cannot write here (File exists)", /proc "No such file or directory", neither naming
        # the option
        ancestor = path.parent
        while not ancestor.exists() and ancestor != ancestor.parent:
            ancestor = ancestor.parent
        if not ancestor.is_dir():
            raise UsageError(f"{option} {path}: {ancestor} is a file, not a folder")
        if not os.access(ancestor, os.W_OK | os.X_OK):
            raise UsageError(f"{option} {path}: the folder {ancestor.resolve()} cannot be "
                             f"written")


def cmd_replay(args):
    game = _game(args)
    _check_file_out("--out", args.out)
    if game.replay_needs_characters and not args.characters:
        raise UsageError(f"--characters: required for {game.title}, e.g. "
                         f"{','.join(game.character_keys()[:2])}")
    chars = game.check_characters(args.characters, args.players)
    if game.replay_needs_characters and chars == "random":
        raise UsageError(f"--characters: replay needs explicit characters, e.g. "
                         f"{','.join(game.character_keys()[:2])}")
    players = args.players or (len(chars) if chars != "random" else None)
    if not players:
        raise UsageError(f"--players: required for --game {game.name} ({game.player_counts})")
    game.check_players(players)
    rules = _rules(args, game, players)
    names = _seat_policies(args, game, players)
    from sim.core.compiling import compile_first
    played = []         # a cold start's game is the replay itself, played once

    def replay():
        return game.api.replay(args.seed, players, rules, names, chars, args.format)
    compile_first(game, names, lambda: played.append(replay()), quiet=args.quiet,
                  entry="single-game engine")
    text = played[0] if played else replay()
    if args.out:
        Path(args.out).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def _default_out(args, game, rules, seat_policies, characters):
    """`ascent simulate`'s folder without --out: named by the command's settings, and, where
    it plays other rules, seats or characters than the plain command (--preset, --rule, --set,
    --data, --seat-policies, --characters, --rotate-seats), a hash of them: two variants of
    one command each keep their run, where the second was refused ("holds another run; pass
    --overwrite") and the way out offered discarded the first."""
    mixed = len(set(seat_policies)) > 1       # --seat-policies X,X,X,X plays --policy X's run
    policy = "mixed" if mixed else seat_policies[0]
    name = f"{game.name}-p{args.players}-{policy}-g{args.games}-s{args.seed}"
    variant = {}
    if rules.fingerprint != game.build_rules(args.players, None, {}, {}, None).fingerprint:
        variant["rules"] = rules.fingerprint
    if mixed:
        variant["seats"] = list(seat_policies)
    if characters != "random":
        variant["characters"] = characters
    if args.rotate_seats:
        variant["rotate"] = True
    if variant:
        name += "-" + _digest(variant)
    return str(Path("results") / "simulate" / name)


# how a check of an output path names it where the user gave no --out
_DEFAULT_OUT = "the default output (give --out PATH for another)"


def _default_file(command, game, settings, key, suffix):
    """The output file of a long command run without --out (ladder, tune), under
    results/COMMAND/: named by its main settings and a hash of everything its finished parts
    depend on (`key`: the parts file's own key, with the code and data files, and whatever
    else picks the file), so that the same command finds its parts beside it and resumes, as
    `ascent simulate` does, while other rules, bots, code or data files get a file of their
    own rather than a refusal to run. Without it an interrupted ladder or tuning lost every
    pairing or evaluation it had played."""
    return str(Path("results") / command /
               f"{game.name}-{'-'.join(settings)}-{_digest(key)}{suffix}")


def _digest(settings):
    """A short hash of settings for a default output's name (a run's fingerprint's own)."""
    from sim.core.output import run_fingerprint
    return run_fingerprint(settings)[:10]


def _parts_file(out):
    """The file beside a ladder's or tuning's output that keeps its finished parts."""
    return Path(f"{out}.parts.json")


def cmd_simulate(args):
    from sim.core.compiling import compiling_early
    from sim.core.simulate import simulate
    game = _game(args)
    game.check_players(args.players)
    if args.rotate_seats and not game.rotate_seats:
        raise UsageError(f"--rotate-seats: {game.title} seats its characters at random per game; "
                         f"there is nothing to rotate")
    names = _seat_policies(args, game, args.players)
    # from an empty cache the bots start compiling while the rules are packed
    with compiling_early(game, names, args.threads):
        rules = _rules(args, game, args.players)
        chars = game.check_characters(args.characters, args.players)
        out = args.out or _default_out(args, game, rules, names, chars)
        return simulate(game, out, args.players, args.games,
                        args.seed, rules, names, chars, rotate=args.rotate_seats,
                        threads=args.threads, chunk=args.chunk, overwrite=args.overwrite,
                        quiet=args.quiet, command_line=_command_line(args))


# options that cannot change a result (determinism: a result does not depend on processes,
# backend or progress output), left out of the command a results document quotes
_NO_RESULT_FLAGS = ("--quiet",)
_NO_RESULT_OPTIONS = ("--jobs", "--scheduler")


def _spelled(word, options):
    """Whether `word` is one of `options` as argparse reads it: whole, or a prefix of at least
    one letter after the dashes (argparse accepts an unambiguous abbreviation, and the command
    was parsed already)."""
    return len(word) > 2 and word.startswith("--") and any(o.startswith(word) for o in options)


def _command_line(args, results_only=False):
    """The command as typed; with `results_only`, without the options that cannot change
    its results (for a document that says how its numbers were made)."""
    words = list(args.argv)
    if results_only:
        kept = []
        skip = False
        for word in words:
            name, has_value = word.split("=", 1)[0], "=" in word
            if skip:
                skip = False
            elif _spelled(name, _NO_RESULT_FLAGS):
                continue
            elif _spelled(name, _NO_RESULT_OPTIONS):
                skip = not has_value
            else:
                kept.append(word)
        words = kept
    return "ascent " + " ".join(shlex.quote(a) for a in words)


def _policy_list(game, text):
    from sim.core.policies import policy_name_problem
    names = [p.strip() for p in text.split(",")]
    if not all(names):
        raise UsageError(f"--policies: an empty policy in {text!r}; write one name per policy, "
                         f"comma-separated")
    for name in names:
        problem = policy_name_problem(game.name, name)
        if problem:
            raise UsageError(f"--policies: {problem}")
    if len(names) < 2 or len(set(names)) != len(names):
        raise UsageError(f"--policies: give at least two distinct policies, got {text!r}")
    return names


def _module(game, kind, flag):
    import importlib
    name = getattr(game, kind)
    if not name:
        raise UsageError(f"{flag}: {game.title} has no {kind.replace('_module', '')} yet")
    return importlib.import_module(name)


def cmd_ladder(args):
    game = _game(args)
    chosen_out = args.out is not None
    _check_file_out("--out", args.out, makes_folder=True)     # its lock makes the folder
    ladder = _module(game, "ladder_module", f"ascent ladder --game {game.name}")
    game.check_players(args.players)
    if args.players < 2:        # alone, each policy played its own games: nothing was paired
        raise UsageError(f"--players: a ladder seats the policies against each other: 2 or "
                         f"more, got {args.players}")
    _check_own_out(args.out, "a ladder's", "a ladder's table", "LADDER.md", _is_ladder_table)
    rules = _rules(args, game, args.players)
    policies = _policy_list(game, args.policies or ",".join(game.ladder_policies))
    option = "--out" if chosen_out else _DEFAULT_OUT
    if not chosen_out:
        key = dict(ladder.parts_key(args.players, args.games, args.seed, rules),
                   policies=policies)
        args.out = _default_file("ladder", game, [f"p{args.players}", f"g{args.games}",
                                                  f"s{args.seed}"], key, ".md")
        _check_file_out(option, args.out, makes_folder=True)
    started = time.perf_counter()
    from sim.core.output import PartsError
    log = (lambda *a: None) if args.quiet else (lambda m: print(m, file=sys.stderr))
    parts = _parts_file(args.out)
    if not chosen_out:
        log(f"the table goes to {args.out} and finished pairings to {parts}: the same "
            f"command resumes an interrupted ladder")
    with _locked(args.out, option):
        _compile_ladder(game, rules, args.players, policies, args.seed, args.threads,
                        args.quiet)
        try:
            pairings, characters = ladder.run_ladder(policies, args.players, args.games,
                                                     args.seed, args.threads, rules, log, parts)
        except PartsError as exc:        # unreadable, other settings, or a damaged entry
            raise UsageError(str(exc)) from None
        text = ladder.ladder_markdown(policies, pairings, characters, args.players, args.games,
                                      args.seed, _command_line(args))
        text += (f"\nWall time: {time.perf_counter() - started:.0f} s (this invocation; "
                 f"finished pairings are kept in {parts}).\n")
        from sim.core.output import write_text_atomic
        write_text_atomic(args.out, text)
    if not args.quiet or not chosen_out:    # --quiet: no progress; the table is the answer
        print(text)
    return 0


def _check_own_out(out, owner, thing, example, is_own):
    """An --out that is a command's own file (`thing`): the bookkeeping files `owner` keeps
    beside it, or any other file there, are refused (a ladder replaced a spec and another
    ladder's parts file without a word)."""
    if out is None:
        return
    path = Path(out)
    if path.name.endswith((".parts.json", ".lock")):
        raise UsageError(f"--out {out}: the name of {owner} own bookkeeping file; expected the "
                         f"path of {thing} (e.g. {example})")
    if path.is_file() and not is_own(path):
        raise UsageError(f"--out {out}: a file that is not {thing}; choose another path, or "
                         f"remove it")


def _is_ladder_table(path):
    try:
        with open(path, encoding="utf-8") as f:
            first = f.readline()
    except (OSError, UnicodeDecodeError):
        return False
    return first.startswith("# ") and "ladder" in first


def _is_tuning_record(path):
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    return isinstance(doc, dict) and "knobs" in doc


@contextmanager
def _locked(out, option="--out"):
    """The output file `out` (None: none) locked against a second ascent command writing it
    (sim/core/output.py's lock): two ladders into one --out both played every pairing, and
    the later one's parts file dropped the other's finished pairings."""
    if out is None:
        yield
        return
    from sim.core.output import OutputError, folder_lock, remove_killed_writes
    with ExitStack() as stack:
        try:
            stack.enter_context(folder_lock(Path(out)))
        except OutputError as exc:
            # the lock's own message names the folder, not the option (a folder where the
            # permission bits allow writing, /proc as root, fails only here)
            raise OutputError(f"{option}: {exc}") from None
        remove_killed_writes(out)       # a table a killed ladder left half written
        remove_killed_writes(_parts_file(out))     # and its parts file (ladder, tune)
        yield


def _compile_ladder(game, rules, players, policies, seed, threads, quiet):
    """A ladder's compile, with `ascent simulate`'s line (sim/core/compiling.py): throw-away
    games through the game's run entry, which the ladder's games go through too, seating
    the bots `players` at a time (the last ones with repeats)."""
    from sim.core.compiling import compile_first

    def throw_away(seats):
        return lambda: game.api.play(rules, 1, seed, seats, "random", threads=threads)

    def every_bot():
        for i in range(0, len(policies), players):
            group = list(policies[i:i + players])
            throw_away((group * players)[:players])()

    compile_first(game, policies, every_bot, quiet=quiet,
                  play_kernel=throw_away(["random"] * players), threads=threads)


def _compile_tuning(game, tuning, args):
    """A tuning run's compile, with `ascent simulate`'s line (sim/core/compiling.py): one
    throw-away tuning game, through the entry the tuning's games go through."""
    from sim.core.compiling import compile_first

    def throw_away(every_seat=None):
        return lambda: tuning.throw_away_game(args.character, args.players, args.seed,
                                              args.threads, every_seat)

    compile_first(game, tuning.seat_policies(args.players, 0), throw_away(), quiet=args.quiet,
                  play_kernel=throw_away("random"), threads=args.threads)


def cmd_tune(args):
    game = _game(args)
    tuning = _module(game, "tuning_module", f"ascent tune --game {game.name}")
    game.check_players(args.players)
    if args.players < 2:
        raise UsageError("--players: tuning plays against others: 2 or more")
    keys = game.character_keys()
    if args.character not in keys:
        raise UsageError(f"--character: unknown character {args.character!r}; allowed: "
                         f"{', '.join(keys)}")
    chosen_out = args.out is not None
    option = "--out" if chosen_out else _DEFAULT_OUT
    key = _tuning_key(args, game)
    if not chosen_out:
        args.out = _default_file("tune", game, [
            args.character, f"p{args.players}", f"b{args.budget}", f"g{args.games}",
            f"v{args.validation_games}", f"s{args.seed}"], key, ".json")
    _check_file_out(option, args.out, makes_folder=True)
    _check_own_out(args.out, "a tuning run's", "a tuning record", "tune-sprinter.json",
                   _is_tuning_record)
    log = (lambda *a: None) if args.quiet else (lambda m: print(m, file=sys.stderr))
    if not chosen_out:
        log(f"the record goes to {args.out} and finished evaluations to "
            f"{_parts_file(args.out)}: the same command resumes an interrupted tuning")
    with _locked(args.out, option):
        _compile_tuning(game, tuning, args)
        memo, save = _tuning_parts(args.out, key)
        result = tuning.tune(args.character, args.players, args.budget, args.games, args.seed,
                             args.validation_games, args.threads, log, memo=memo, save=save)
        from sim.core.output import write_text_atomic
        write_text_atomic(args.out, json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    if args.store:
        tuning.store(args.character, result, _command_line(args))
        print(f"stored in {tuning.TUNED_PATH}")
    return 0


def _tuning_key(args, game):
    """What a tuning's finished evaluations depend on, kept with them (_tuning_parts): the
    code that plays the game (sim.play_code_key, its tuning module among its bots), as a run
    folder's, so that an edit to a report does not void them."""
    from sim import played_with_key
    return {"game": game.name, "character": args.character, "players": args.players,
            "budget": args.budget, "games": args.games, "validation_games": args.validation_games,
            "seed": args.seed, **played_with_key(game.name)}


def _tuning_parts(out, key):
    """(memo, save) for a tuning run into `out` with parts key `key` (_tuning_key): its
    finished evaluations, kept in OUT.parts.json as each ends, so that the same command
    resumes an interrupted run (CMA-ES is seeded: it asks the same candidates again) and plays
    only what is left. Other settings, code or data files are refused, not mixed in."""
    from sim.core.output import PartsError, load_parts, save_parts
    parts = _parts_file(out)
    try:
        memo = load_parts(parts, key, "evaluations", "tuning")
    except PartsError as exc:
        raise UsageError(str(exc)) from None
    if not all(isinstance(v, list) and all(w in (0, 1) for w in v) for v in memo.values()):
        raise UsageError(f"{parts}: unreadable tuning parts (evaluations: expected lists of 0 "
                         f"and 1); remove the file to start afresh")
    return memo, lambda evaluations: save_parts(parts, key, "evaluations", evaluations)


def _benchmark_rate(game, policy):
    """games/s of a policy from the game's benchmark figures (results/benchmarks.json for
    All-In Ascent), if they have been measured."""
    if not game.benchmarks:
        return None
    path = Path(__file__).resolve().parent.parent / game.benchmarks
    try:
        return json.loads(path.read_text())["games_per_second_2_threads"].get(policy)
    except (OSError, ValueError, KeyError, AttributeError):
        return None


def cmd_run(args):
    from sim.experiment.paired import (OWN_WIN, character_win_rates, experiment_comparisons,
                                       format_comparisons, wins_are_a_team_s)
    from sim.experiment.runner import (check_out_folder, check_threads, dry_run_plan,
                                       load_variant, run_experiment)
    from sim.experiment.spec import SpecError, load_spec
    from sim.core.game import get_game
    try:
        spec = load_spec(args.spec)
    except SpecError as exc:
        raise UsageError(str(exc)) from None
    if args.dry_run:
        try:            # what the run would refuse before playing, the plan refuses too
            check_threads(spec.path, spec.threads, args.scheduler or spec.scheduler)
            check_out_folder(spec)
        except SpecError as exc:
            raise UsageError(str(exc)) from None
        policy = spec.seat_policies if isinstance(spec.seat_policies, str) else None
        print(dry_run_plan(spec, _benchmark_rate(get_game(spec.game), policy) if policy
                           else None))
        return 0
    try:
        doc = run_experiment(spec, jobs=args.jobs, scheduler=args.scheduler, quiet=args.quiet)
    except SpecError as exc:
        raise UsageError(str(exc)) from None
    if not args.quiet:
        run = doc["runs"][-1]
        for players in spec.players:
            for v in spec.variants:
                seats = load_variant(spec.out, v.name, players, ["game", spec.group, "won"],
                                     optional=[OWN_WIN])
                if seats is None:
                    continue
                shared = " (a win is the team's: partners win together)" \
                    if wins_are_a_team_s(seats) else ""
                print(f"{v.name}, {players} players{shared}:")
                for char, r in character_win_rates(seats, spec.group).iterrows():
                    label = f"seat {int(char) + 1}" if spec.group == "seat" else str(char)
                    print(f"  {label:<12} {r.win_rate:7.2%}  [{r.ci_low:6.2%}, {r.ci_high:6.2%}]"
                          f"  n={int(r.games):,}")
        if len(spec.variants) > 1:
            print(format_comparisons(*experiment_comparisons(spec.out, spec)))
        print(f"{run['games_played']:,} games played in {run['wall_seconds']:.1f} s "
              f"({run['games_per_second'] or 0:,.0f} games/s); results in {spec.out}/")
    return 0


def cmd_sweep(args):
    from sim.experiment.runner import run_experiment
    from sim.experiment.spec import SpecError, load_spec
    from sim.experiment.sweep import SweepError, axes_from_arguments, spec_text, \
        sweep_variants, write_spec
    from sim.core.args import rule_changes
    from sim.core.game import GameError
    from sim.report.sweep import write_sweep_report
    game = _game(args)
    try:
        players = [int(p) for p in args.players.split(",")]
    except ValueError:
        raise UsageError(f"--players: expected a player count or a list such as 2,3,4, got "
                         f"{args.players!r}") from None
    if len(set(players)) != len(players):
        raise UsageError(f"--players: each player count once, got {args.players}")
    for p in players:
        game.check_players(p)
    if args.grid and len(args.knob or []) < 2:
        raise UsageError("--grid: a grid needs two or more --knob")
    try:
        axes = axes_from_arguments(args.knob or [], args.levels or [])
        variants = sweep_variants(axes, args.grid)
    except SweepError as exc:
        raise UsageError(str(exc)) from None
    base_rules, base_knobs = rule_changes(args.rule, args.set, UsageError)
    base_knobs = dict(base_knobs)
    for axis in axes:
        given = base_rules if axis.is_rule else base_knobs
        if axis.key in given:
            raise UsageError(f"{axis.flag}: {axis.key} is swept by --knob; give its values there, "
                             f"not in {axis.flag}")
    if len(set(players)) > 1 and (args.seat_policies or
                                   (args.characters and args.characters != "random")):
        raise UsageError("--seat-policies and --characters name every seat: give one player "
                         "count with them")
    game.build_rules(players[0], args.preset, base_rules, list(base_knobs.items()))
    for axis in axes:
        for value in axis.values:
            rules, knobs = dict(base_rules), dict(base_knobs)
            (rules if axis.is_rule else knobs)[axis.key] = value
            for p in players:
                try:
                    game.build_rules(p, args.preset, rules, list(knobs.items()))
                except GameError as exc:
                    raise UsageError(f"--knob {axis.key} = {value}: {exc.detail}") from None
    names = _seat_policies(args, game, max(players))
    characters = game.check_characters(args.characters, players[0])
    preset = args.preset or (game.presets[0] if game.presets else None)
    text = spec_text(game, players, args.games, args.seed, names, characters, preset,
                     base_rules, base_knobs, variants, args.chunk,
                     _command_line(args, results_only=True),
                     f"sweep of {', '.join(a.key for a in axes)}")
    try:
        path = write_spec(args.out, text)
        spec = load_spec(path)
        run_experiment(spec, jobs=args.jobs, scheduler=args.scheduler, quiet=args.quiet)
    except (SweepError, SpecError) as exc:
        raise UsageError(str(exc)) from None
    report = write_sweep_report(spec.out, _command_line(args, results_only=True))
    print(f"sweep written: {report} (resume or extend: the same command; spec {path})")
    return 0


def cmd_balance(args):
    from sim.experiment.balance import BalanceError, load_balance_spec, run_balance
    from sim.experiment.spec import SpecError
    try:
        spec = load_balance_spec(args.spec)
        path = run_balance(spec, jobs=args.jobs, scheduler=args.scheduler, quiet=args.quiet,
                           validation=not args.no_validation)
    except (BalanceError, SpecError) as exc:
        raise UsageError(str(exc)) from None
    print(f"balance written: {path} (patch: {spec.out / 'patch.toml'})")
    return 0


def cmd_skill(args):
    from sim.core.args import rule_changes
    from sim.core.game import GameError
    from sim.core.policies import policy_name_problem
    from sim.experiment.skill import SkillError, SkillPlan, run_curve
    from sim.experiment.spec import SpecError
    game = _game(args)
    game.check_players(args.players)
    if args.levels:
        levels = tuple(p.strip() for p in args.levels.split(",") if p.strip())
    elif game.skill_levels:
        levels = game.skill_levels
    else:
        raise UsageError(f"--levels: {game.title} declares no default skill levels; name the "
                         f"bots, weakest first")
    if len(levels) < 2 or len(set(levels)) != len(levels):
        raise UsageError(f"--levels: give at least two distinct bots, weakest first, got "
                         f"{', '.join(levels)}")
    for name in levels:
        problem = policy_name_problem(game.name, name)
        if problem:
            raise UsageError(f"--levels: {problem}")
    rules, knobs = rule_changes(args.rule, args.set, UsageError)
    try:
        game.build_rules(args.players, args.preset, rules, knobs)
    except GameError as exc:
        raise UsageError(str(exc)) from None
    plan = SkillPlan(game, args.players, levels, args.games, args.search_games or args.games,
                     args.seed, Path(args.out).resolve(), args.preset, tuple(rules.items()),
                     tuple(knobs), args.chunk)
    try:
        path = run_curve(plan, _command_line(args, results_only=True), jobs=args.jobs,
                         scheduler=args.scheduler, quiet=args.quiet)
    except (SkillError, SpecError) as exc:
        raise UsageError(str(exc)) from None
    print(f"skill curve written: {path} (resume or extend: the same command)")
    return 0


class _Levels(argparse.Action):
    """--values and --range, in the order given, each paired with the --knob before it."""

    def __call__(self, parser, namespace, value, option_string=None):
        kind = "values" if option_string == "--values" else "range"
        levels = list(getattr(namespace, self.dest) or [])
        levels.append((kind, value))
        setattr(namespace, self.dest, levels)


def cmd_report(args):
    from sim.report.render import write_report
    if args.against_variant and not args.against:
        raise UsageError("--against-variant: names a variant of the --against folder; give "
                         "--against too")
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


def build_parser():
    from sim.core.game import DEFAULT_GAME, game_names
    parser = _Parser(prog="ascent", description="Balance lab for climbing board games.")
    sub = parser.add_subparsers(dest="command", required=True)

    def experiment_args(p, chunk=None, out_help=None):
        """The flags of a command that plays resumable experiments (sim/experiment/runner.py)."""
        if chunk:
            p.add_argument("--chunk", type=_chunk, default=chunk,
                           help="games per chunk, the unit of resume (results do not depend "
                                "on it)")
        p.add_argument("--jobs", type=_jobs, help="local worker processes")
        p.add_argument("--scheduler", type=_name,
                       help="a Dask scheduler address, e.g. tcp://host:8786")
        if out_help:
            p.add_argument("--out", type=_name, required=True, help=out_help)
        p.add_argument("--quiet", action="store_true")

    def rules_args(p, data=True):
        """data=False for the commands that play experiment specs (sweep, skill): a spec plays
        the game's bundled data, and --data given there was read by nothing (a review found
        a sweep 'of' a designer's file that played the bundled one)."""
        p.add_argument("--preset", type=_name, default=None,
                       help="rules preset, for games that have them (default: the game's first, "
                            "see `ascent rules`)")
        if data:
            p.add_argument("--data", type=_name,
                           help="a data file (.json, or the designers' data.js)")
        p.add_argument("--rule", action="append", metavar="NAME=VALUE",
                       help="a rule switch (see `ascent rules`); repeatable")
        p.add_argument("--set", action="append", metavar="PATH=VALUE",
                       help="a data knob (see `ascent rules`); repeatable")

    def game_arg(p):
        p.add_argument("--game", choices=game_names(), default=DEFAULT_GAME,
                       help=f"which game (default {DEFAULT_GAME})")

    cp = sub.add_parser("rules", help="list the presets, rule switches and data knobs")
    game_arg(cp)
    cp.set_defaults(func=cmd_rules)

    rp = sub.add_parser("replay", help="play one game and print its transcript")
    game_arg(rp)
    rp.add_argument("--seed", type=_game_seed, required=True,
                    help="the game's seed, 0 to 4294967295")
    rp.add_argument("--characters", type=_name,
                    help="comma-separated, one per seat (games with characters; 'random' where "
                         "the game allows it)")
    rp.add_argument("--players", type=_whole_number,
                    help="player count (default: one per character)")
    rp.add_argument("--policy", type=_name, default=None,
                    help="the bot in every seat (default: the game's default bot, as in "
                         "simulate)")
    rp.add_argument("--seat-policies", type=_name, help="comma-separated policy per seat")
    rp.add_argument("--format", choices=("text", "jsonl"), default="text")
    rp.add_argument("--out", type=_name, help="write to this file instead of stdout")
    rp.add_argument("--quiet", action="store_true",
                    help="no compile line on standard error (first run of this code only)")
    rules_args(rp)
    rp.set_defaults(func=cmd_replay)

    sp = sub.add_parser("simulate", help="play many games in parallel, write parquet")
    game_arg(sp)
    sp.add_argument("--players", type=_whole_number, required=True,
                    help="player count (the game's range: see `ascent rules --game GAME`)")
    sp.add_argument("--games", type=_game_count, required=True)
    sp.add_argument("--seed", type=_seed, default=1, help="master seed (default 1)")
    sp.add_argument("--policy", type=_name, default=None,
                    help="the bot in every seat; by default each game's strongest affordable "
                         "bot: tuned for All-In Ascent, hybrid for Ascension, tuned for First "
                         "Ascent (baselines such as greedy or random by name)")
    sp.add_argument("--seat-policies", type=_name, help="comma-separated policy per seat")
    sp.add_argument("--rotate-seats", action="store_true",
                    help="Ascension, First Ascent: game i shifts the seat policies by i seats")
    sp.add_argument("--characters", type=_name, default=None,
                    help="games with characters: 'random' (default: drawn per game, as the "
                         "game's rules draw them) or a list, one per seat")
    sp.add_argument("--threads", type=_positive_int, default=None)
    sp.add_argument("--chunk", type=_chunk, default=20_000,
                    help="games per batch, written to disk as it finishes: memory grows with "
                         "the chunk, not with --games, and an interrupted run keeps its "
                         "finished chunks for the same command to go on from (results do not "
                         "depend on it)")
    sp.add_argument("--out", type=_name,
                    help="output folder (default results/simulate/GAME-pPLAYERS-POLICY-"
                         "gGAMES-sSEED, and -HASH of the rules, seats, characters and seat "
                         "rotation where they are not the plain command's: the same command "
                         "writes the same games there)")
    sp.add_argument("--overwrite", action="store_true",
                    help="replace a folder that holds another run (never needed to rerun the "
                         "same command: a finished identical run is kept, not played again)")
    sp.add_argument("--quiet", action="store_true")
    rules_args(sp)
    sp.set_defaults(func=cmd_simulate)

    rp2 = sub.add_parser("report", help="write report.html, figures/ and tables/ for a run")
    rp2.add_argument("results", type=_results_folder,
                     help="a simulate folder or an experiment folder")
    rp2.add_argument("--against", type=_name,
                     help="a baseline run of the same games: writes compare.html "
                          "(compare-VARIANT.html in an experiment folder), the "
                          "paired comparison, and leaves report.html alone")
    rp2.add_argument("--variant", type=_name,
                     help="which variant of an experiment folder (default baseline)")
    rp2.add_argument("--against-variant", type=_name, help="which variant of the --against folder")
    rp2.set_defaults(func=cmd_report)

    xp = sub.add_parser("run", help="run (or resume) an experiment spec (experiments/*.toml)")
    xp.add_argument("spec")
    xp.add_argument("--dry-run", action="store_true", help="print the plan, play nothing")
    experiment_args(xp)
    xp.set_defaults(func=cmd_run)

    wp = sub.add_parser("sweep", help="how knobs move every character's win rate: each value "
                                      "against the current rules on the same games")
    game_arg(wp)
    wp.add_argument("--knob", action="append", metavar="KEY",
                    help="a data knob path (with dots, as in --set) or a rule option (as in "
                         "--rule); repeatable, each followed by --values or --range")
    wp.add_argument("--values", action=_Levels, dest="levels", metavar="V,V,...",
                    help="the values of the --knob before it, e.g. 3,4,6,7")
    wp.add_argument("--range", action=_Levels, dest="levels", metavar="LOW:HIGH:STEP",
                    help="the values of the --knob before it, HIGH included, e.g. 3:7:1")
    wp.add_argument("--grid", action="store_true",
                    help="every combination of the knobs' values (default: one knob at a time, "
                         "the others at their current value)")
    wp.add_argument("--players", default="4", help="a player count or a list, e.g. 2,3,4 "
                                                   "(default 4)")
    wp.add_argument("--games", type=_game_count, required=True, help="games per value")
    wp.add_argument("--seed", type=_seed, default=1, help="master seed (default 1)")
    wp.add_argument("--policy", type=_name, default=None,
                    help="the bot in every seat (default: the game's default bot)")
    wp.add_argument("--seat-policies", type=_name, help="comma-separated policy per seat")
    wp.add_argument("--characters", type=_name, default=None,
                    help="games with characters: 'random' (default) or one per seat")
    experiment_args(wp, 20_000, "the sweep's folder (its spec, games and sweep.html)")
    rules_args(wp, data=False)
    wp.set_defaults(func=cmd_sweep)

    bp = sub.add_parser("balance", help="search the smallest rules patch that meets a target "
                                        "(a balance spec: docs/balancing.md)")
    bp.add_argument("spec")
    bp.add_argument("--jobs", type=_jobs,
                    help="local worker processes: a batch of candidates (the spec's batch) and "
                         "the validation runs")
    bp.add_argument("--scheduler", type=_name,
                    help="a Dask scheduler address: the batches of candidates "
                         "and the validation runs play there")
    bp.add_argument("--no-validation", action="store_true",
                    help="stop after the search and the re-score (no fresh-seed validation)")
    bp.add_argument("--quiet", action="store_true")
    bp.set_defaults(func=cmd_balance)

    kp = sub.add_parser("skill", help="self-play and head to head at a ladder of bot strengths: "
                                      "do the balance verdicts hold as the bots get stronger?")
    game_arg(kp)
    kp.add_argument("--players", type=_whole_number, default=4, help="player count (default 4)")
    kp.add_argument("--levels", type=_name,
                    help="comma-separated bots, weakest first; BOT@N runs a bot "
                         "with a budget (mcts-tuned@128). Default: the game's "
                         "skill_levels (game.toml)")
    kp.add_argument("--games", type=_game_count, required=True,
                    help="games per run of a bot without a budget")
    kp.add_argument("--search-games", type=_game_count,
                    help="games per run with a budgeted bot (default: --games)")
    kp.add_argument("--seed", type=_seed, default=1, help="master seed (default 1)")
    experiment_args(kp, 2_000, "the curve's folder (its runs, SKILL.md and skill.png)")
    rules_args(kp, data=False)
    kp.set_defaults(func=cmd_skill)

    lp = sub.add_parser("ladder", help="every policy against every other, on common seeds")
    game_arg(lp)
    lp.add_argument("--players", type=_whole_number, default=4)
    lp.add_argument("--games", type=_games_in_memory, required=True, help="games per pairing")
    lp.add_argument("--seed", type=_seed, default=1, help="master seed")
    lp.add_argument("--policies", type=_name, default=None,
                    help="comma-separated (default: the game's ladder bots)")
    lp.add_argument("--threads", type=_positive_int, default=None)
    lp.add_argument("--out", type=_name,
                    help="write the markdown table here (e.g. results/LADDER.md; default "
                         "results/ladder/GAME-pPLAYERS-gGAMES-sSEED-HASH.md, the hash of the "
                         "bots, rules, code and data files too, and the table printed); "
                         "finished pairings are kept beside it in OUT.parts.json, so a rerun "
                         "with the same settings, code and data files resumes")
    lp.add_argument("--quiet", action="store_true",
                    help="no progress lines (the table is still printed where there is no --out)")
    rules_args(lp)
    lp.set_defaults(func=cmd_ladder)

    tp = sub.add_parser("tune", help="tune the planner's knobs for one character (CMA-ES)")
    game_arg(tp)
    tp.add_argument("--character", required=True)
    tp.add_argument("--players", type=_whole_number, default=4)
    tp.add_argument("--budget", type=_positive_int, required=True,
                    help="candidate evaluations: CMA-ES asks whole generations (4 to 10 "
                         "candidates) and stops after the one that reaches the budget, which "
                         "may be one more (--budget 40: 50); the record gives the count made")
    tp.add_argument("--games", type=_games_in_memory, default=2000,
                    help="games per evaluation (the same games for every candidate)")
    tp.add_argument("--validation-games", type=_games_in_memory, default=20000)
    tp.add_argument("--seed", type=_seed, default=1)
    tp.add_argument("--threads", type=_positive_int, default=None)
    tp.add_argument("--store", action="store_true",
                    help="write the result into the game's tuned bot file "
                         "(policies/<game>/tuned.json)")
    tp.add_argument("--out", type=_name,
                    help="write the record (JSON) here too (default results/tune/GAME-"
                         "CHARACTER-pPLAYERS-bBUDGET-gGAMES-vVALIDATION-sSEED-HASH.json, the "
                         "hash of the code and data files too); finished evaluations are kept "
                         "beside it in OUT.parts.json, so the same command resumes an "
                         "interrupted run")
    tp.add_argument("--quiet", action="store_true")
    tp.set_defaults(func=cmd_tune)
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM (a job scheduler's time limit, `kill`), raised where the command is, so that it
    stops as Ctrl-C stops it: its locks released and its half-written files removed, not left
    by a process that vanished without a word."""


def _terminated(signum, frame):
    raise Terminated()


NUMBA_SAVE_INTERRUPTED = "no compiled object yet"    # numba's codegen, after a dropped Ctrl-C


@contextmanager
def _interruptions_in_callbacks(on_main_thread):
    """Yields a list of the interruptions (Ctrl-C, Terminated) raised inside a C callback
    (none where `main` does not run on the main thread, which the signals go to).

    A Ctrl-C or SIGTERM that lands while numba saves a function to its cache is raised inside
    llvmlite's callback, where Python cannot raise it: it printed "Exception ignored on
    calling ctypes callback function" and a traceback, then dropped it. Here it is kept, and
    delivered to the main thread again once the callback is left (from another thread: the
    hook itself would receive it), so that the command stops where it is; or numba fails
    first, on the object the callback never kept (main's NUMBA_SAVE_INTERRUPTED)."""
    import _thread
    import signal
    import threading
    dropped = []
    if not on_main_thread:
        yield dropped
        return
    previous = sys.unraisablehook
    over = threading.Event()        # the command has stopped: nothing to deliver any more

    def deliver_again(signum):
        if not over.wait(REDELIVERY_DELAY):
            _thread.interrupt_main(signum)

    def hook(unraisable):
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            previous(unraisable)
            return
        dropped.append(unraisable.exc_value)
        signum = signal.SIGTERM if isinstance(unraisable.exc_value, Terminated) else \
            signal.SIGINT
        threading.Thread(target=deliver_again, args=(signum,), daemon=True).start()
    sys.unraisablehook = hook
    try:
        yield dropped
    finally:
        over.set()
        sys.unraisablehook = previous


REDELIVERY_DELAY = 0.05     # seconds: the callback and numba's C code have returned by then


def main(argv=None):
    import signal
    import threading
    on_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminated) if on_main_thread else None
    try:
        with _interruptions_in_callbacks(on_main_thread) as dropped:
            try:
                return _run(argv)
            except RuntimeError as exc:
                # numba's failure after an interruption that llvmlite's callback dropped is
                # that interruption (the cache is intact)
                if str(exc).startswith(NUMBA_SAVE_INTERRUPTED):
                    raise (dropped[-1] if dropped else KeyboardInterrupt()) from exc
                raise
    except KeyboardInterrupt as exc:
        # one line, not a traceback, also while the command is still importing; what a
        # command had finished is kept (a run's chunks, a ladder's pairings), and the same
        # command again goes on from there
        if isinstance(exc, Terminated):
            print("\nascent: terminated (SIGTERM)", file=sys.stderr)
            return 128 + signal.SIGTERM
        print("\nascent: interrupted", file=sys.stderr)
        return 130
    finally:
        if on_main_thread and previous is not None:      # None: not set from Python
            signal.signal(signal.SIGTERM, previous)
        if argv is None:
            # the command line's own process, which ends now: its objects are left out of
            # the collections the interpreter runs on its way out (0.1-0.2 s of a warm start,
            # under perf most of the time after the command's last line)
            import gc
            gc.freeze()


def _run(argv):
    import warnings
    from sim.core.bot_exceptions import BotError
    from sim.core.game import GameError
    from sim.core.output import OutputError
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    # joblib's note on the tasks an interrupted Parallel abandoned: the command's own line
    # ("interrupted", "terminated") says it, and what was finished is kept
    warnings.filterwarnings("ignore", category=UserWarning, module=r"joblib\.parallel",
                            message=r"\d+ tasks (which were still being processed|have been "
                                    r"successfully executed)")
    try:
        _check_policy_flags(args)
        _check_threads(args)
        return args.func(args)
    except (GameError, UsageError, OutputError) as exc:
        print(f"ascent: error: {exc}", file=sys.stderr)
        return 2
    except BotError as exc:
        # the bot's own line is in the message; the games finished before it are kept
        print(f"ascent: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
