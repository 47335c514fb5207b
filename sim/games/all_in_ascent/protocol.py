"""All-In Ascent's side of the game protocol (sim/core/game.py): what `ascent` and the
experiments call, in the protocol's words."""
from sim.core.game import GameError, Played
from sim.games.all_in_ascent.records import RECORD_SCHEMA_VERSION  # noqa: F401 (the protocol's)


def build_rules(players, preset, rules, knobs, data):
    """A preset with switches, knobs and optionally another data file; refused up front if no
    game with `players` players could ever end under it."""
    from sim.games.all_in_ascent.rules import build_rules as build
    from sim.games.all_in_ascent.rules import check_game_can_end
    from sim.games.all_in_ascent.variants import VariantError
    try:
        packed = build(preset, rules, knobs, data)
        if players is not None:
            check_game_can_end(packed.config, players)
    except VariantError as exc:
        raise GameError(str(exc)) from None
    return packed


def knob_value(rules, key):
    """The value a knob (a path) or a switch (a name) has in built rules."""
    from sim.games.all_in_ascent.variants import knob_value as value
    return value(key, rules.data, rules.config)


def rules_manifest(rules):
    return {"preset": rules.config.preset, "rules": rules.config.as_dict(),
            "data_file": rules.data.source, "data_sha256": rules.data.sha256,
            "rules_fingerprint": rules.fingerprint, "card_names": list(rules.card_names)}


def character_keys():
    from sim.games.all_in_ascent.data import CHARACTER_KEYS
    return list(CHARACTER_KEYS)


def play(rules, n_games, master_seed, seat_policies, characters, first_index=0, threads=None,
         rotate=False, policy_params=None):
    """policy_params: {policy name: parameter vector} instead of the registered ones (a bot
    re-tuned for these rules: `ascent balance`'s co-adaptation)."""
    from sim.games.all_in_ascent.batch import run_games
    from sim.games.all_in_ascent.records import games_table, seats_table
    batch = run_games(n_games, master_seed, len(seat_policies), list(seat_policies),
                      characters, first_index=first_index, rules=rules, threads=threads,
                      params=policy_params)
    return Played(games_table(batch, rules), seats_table(batch, rules), batch.seconds)


def summary(games, seats):
    """Win rate per character with n and a 95% Wilson interval, the no-winner rate, rounds."""
    import numpy as np
    from sim.core.records import category_rows, label_counts, values
    from sim.core.stats import rate_line
    lines = ["win rate per character (95% Wilson interval):"]
    won = values(seats, "won")
    for char, seated in category_rows(seats, "character"):
        lines.append(rate_line(f"{char:<12}", int(won[seated].sum()), int(seated.sum())))
    n = games.num_rows
    lines.append(rate_line(f"{'no winner':<12}", int((values(games, "winner_seat") < 0).sum()), n))
    lines.append(f"  median rounds: {np.median(values(games, 'rounds')):g}")
    capped = label_counts(games, "end_reason").get("action_cap", 0)
    if capped:
        # not a rule: the kernel's safety stop. Under rules without a round cap (v0.6.0) a bot
        # that never goes for the expert milestone (greedy) would otherwise play forever.
        lines.append(f"  warning: {capped:,} of {n:,} games were stopped by the safety "
                     f"cap on actions, unfinished: the policy does not end games under these "
                     f"rules")
    return "\n".join(lines)


def replay(seed, players, rules, seat_policies, characters, fmt):
    if characters == "random":
        raise GameError("--characters: replay needs explicit characters, e.g. "
                        "technician,sprinter")
    game = new_game(rules, seed, characters)
    game.play(seat_policies)
    return game.transcript.to_jsonl() if fmt == "jsonl" else game.transcript.to_text()


def new_game(rules, seed, characters):
    from sim.games.all_in_ascent.game import Game
    return Game(seed, characters, rules=rules)


def catalogue():
    from sim.games.all_in_ascent.rules import PRESETS
    from sim.games.all_in_ascent.variants import catalogue as text
    return text(PRESETS)


def render_report(page, results, plt, results_dir):
    from sim.report import all_in_ascent
    return all_in_ascent.render(page, results, plt, results_dir)


def variant_rules_changed(variant, players):
    return {**variant.get("rules", {}), **variant.get("set", {})}


def describe_rules(meta):
    from sim.report.all_in_ascent import describe_rules as describe
    return describe(meta)


def character_name(key):
    from sim.report.analysis import character_names, display
    return display(key, character_names())


def flow_row(run):
    """The comparison page's flow figures of a run: no-winner rate, median rounds."""
    from sim.report import first_screen as FS
    from sim.report.analysis import flow_summary
    flow = flow_summary(run)
    return {"no winner": FS.pct_interval(flow["no_winner_rate"], flow["no_winner_ci_low"],
                                         flow["no_winner_ci_high"]),
            "median rounds": f"{flow['median_rounds']:g}"}


def validity_warnings(r):
    """All-In Ascent's own validity checks (sim/report/validity.py): a character that never
    attempts its expert milestone, and one that ends far more turns with time left than the
    others while more than resting was legal (engine.note_turn_end). Both are how the bots
    play, read from the records."""
    seats = r.seats
    if "milestone_expert_attempts" not in seats.columns:
        return []
    per = seats.groupby("character", observed=True).agg(
        n=("won", "size"), expert=("milestone_expert_attempts", "sum"),
        early=("turns_ended_early", "mean"))
    found = []
    for key, row in per.iterrows():
        if row.n >= 100 and row.expert == 0:
            found.append(f"{character_name(key)} never attempted its expert milestone in "
                         f"{int(row.n):,} games: its win share says how the bot plays it, "
                         f"not what the character can do.")
    for key, row in per.iterrows():
        others = per.drop(index=key)["early"]
        if len(others) and row.early > 1.0 and row.early > 2 * others.mean():
            found.append(f"{character_name(key)} ended {row.early:.1f} turns a game with time "
                         f"left while it could still train, climb, buy or redistribute (the others "
                         f"{others.mean():.1f}): a bot that stops early may be misreading its "
                         f"abilities.")
    return found


def stronger_abilities(base_meta, variant_meta):
    """{character key: what changed} for each character the variant makes strictly stronger
    than the baseline (every changed passive number helps it): the comparison page warns when
    such a character's win rate falls (sim/report/compare.py)."""
    from sim.games.all_in_ascent.variants import strictly_stronger

    def knobs(meta):
        return (meta.get("rules") or {}).get("knobs") or {}
    found = strictly_stronger(knobs(base_meta), knobs(variant_meta))
    return {key: ", ".join(f"{number} {old:g} → {new:g}" for number, old, new in changes)
            for key, changes in found.items()}
