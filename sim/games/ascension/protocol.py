"""Ascension's side of the game protocol (sim/core/game.py): what `ascent` and the experiments
call, in the protocol's words."""
from sim.core.game import GameError, Played
from sim.core.options import describe_changed as describe_rules  # noqa: F401 (the protocol's)
from sim.games.ascension.records import (  # noqa: F401 (the protocol's)
    RECORD_SCHEMA_UNNAMED, RECORD_SCHEMA_VERSION)


def reads_records_of(schema, rules):
    """Whether tables of an older record schema read as today's, for runs with these rules
    (each a {switch: value} of a run or an experiment's variant): schema 2 differs only where
    the switch partnership is on (3: `won` became the team's, A48), and lacks `own_win`,
    which nothing but `ascent simulate`'s own summary reads."""
    return schema == 2 and all(str(r.get("partnership", "false")).lower() == "false"
                               for r in rules)


def build_rules(players, preset, rules, knobs, data):
    from sim.games.ascension.rules import RuleError
    from sim.games.ascension.rules import build_rules as build
    if knobs:
        raise GameError("Ascension has no data knobs; its switches and balance knobs "
                        "are all --rule NAME=VALUE (see `ascent rules --game ascension`)", "set")
    try:
        return build(players, rules)
    except RuleError as exc:
        raise GameError(str(exc), "rule") from None


def knob_value(rules, key):
    """The value a rule option has in built rules."""
    return rules.values[key]


def rules_manifest(rules):
    return {"rules": rules.as_dict(), "rules_changed": rules.changed(),
            "rules_fingerprint": rules.fingerprint}


def play(rules, n_games, master_seed, seat_policies, characters, first_index=0, threads=None,
         rotate=False):
    from sim.games.ascension.batch import run_games
    from sim.games.ascension.records import games_table, seats_table
    batch = run_games(n_games, master_seed, rules, seat_policies, first_index=first_index,
                      threads=threads, rotate=rotate)
    return Played(games_table(batch, rules), seats_table(batch, rules), batch.seconds)


def summary(games, seats):
    import numpy as np
    from sim.core.records import label_counts, values
    from sim.core.stats import rate_line
    seat, won = values(seats, "seat"), values(seats, "won")
    # under partnership (A48) `won` is the team's; the seats' rates then add up to over 100%
    teams = bool((won != values(seats, "own_win")).any())
    lines = ["win rate by seat (95% Wilson interval" +
             ("; partnership: a team's win counts for both partners, A48):" if teams else "):")]
    for s in np.unique(seat):
        seated = seat == s
        lines.append(rate_line(f"seat {int(s) + 1} ", int(won[seated].sum()), int(seated.sum())))
    ended = label_counts(games, "end_reason")
    for reason in ("win", "cap", "all_eliminated"):
        lines.append(rate_line(f"ended by {reason:<15}", ended.get(reason, 0), games.num_rows))
    lines.append(f"  median length: {np.median(values(games, 'turns')):g} turns")
    return "\n".join(lines)


def replay(seed, players, rules, seat_policies, characters, fmt):
    game = new_game(rules, seed, characters)
    game.play(seat_policies)
    return game.transcript_jsonl() if fmt == "jsonl" else game.replay_text()


def new_game(rules, seed, characters):
    from sim.games.ascension.game import AscensionGame
    return AscensionGame(seed, rules=rules)


def catalogue():
    from sim.games.ascension.rules import catalogue as text
    return text()


def render_report(page, results, plt, results_dir):
    from sim.report import ascension
    ascension.render(page, results, plt)
    return f"Ascension report: {results.label}"


def variant_rules_changed(variant, players):
    return dict(variant.get("rules", {}))


def flow_row(run):
    """The comparison page's flow figures of a run: length and the share of won games (with
    its 95% interval)."""
    from sim.core.stats import rate_row
    from sim.report.first_screen import pct_interval
    won = rate_row(int((run.games["end_reason"] == "win").sum()), len(run.games))
    return {"mean turns": f"{run.games['turns'].mean():.1f}",
            "won games": pct_interval(won["rate"], won["ci_low"], won["ci_high"])}


def validity_warnings(r):
    """Ascension's own check (sim/report/validity.py): a bot whose pawn never reaches the
    summit (A38), so that it can never win."""
    from sim.report.validity import never_warning
    return never_warning(r.seats, "policy", "ever_summit", lambda name: f"The bot {name}",
                         "reached the summit")
