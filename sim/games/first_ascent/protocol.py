"""First Ascent's side of the game protocol (sim/core/game.py): what `ascent` and the
experiments call, in the protocol's words."""
from sim.core.game import GameError, Played
from sim.core.options import describe_changed as describe_rules  # noqa: F401 (the protocol's)
from sim.games.first_ascent.records import RECORD_SCHEMA_VERSION  # noqa: F401 (the protocol's)


def build_rules(players, preset, rules, knobs, data):
    from sim.games.first_ascent.knobs import KnobError
    from sim.games.first_ascent.rules import RuleError
    from sim.games.first_ascent.rules import build_rules as build
    try:
        return build(players, rules, knobs)
    except KnobError as exc:
        raise GameError(str(exc), "set") from None
    except RuleError as exc:
        raise GameError(str(exc), "rule") from None


def knob_value(rules, key):
    """The value a data knob (a path) or a rule option (a name) has in built rules."""
    if "." not in key:
        return rules.values[key]
    from sim.games.first_ascent.knobs import knob_value as value
    return value(key, rules.knobs)


def rules_manifest(rules):
    return {"rules": rules.as_dict(), "rules_changed": rules.changed(),
            "rules_fingerprint": rules.fingerprint}


def character_keys():
    from sim.games.first_ascent.data import CHARACTER_KEYS
    return sorted(CHARACTER_KEYS.values())


def seating_error(characters):
    from sim.games.first_ascent.batch import seating_error as problem
    return problem(characters)


def play(rules, n_games, master_seed, seat_policies, characters, first_index=0, threads=None,
         rotate=False, policy_params=None):
    """policy_params: {policy name: parameter vector} instead of the registered ones (a bot
    re-tuned for these rules: `ascent balance`'s co-adaptation)."""
    from sim.games.first_ascent.batch import run_games
    from sim.games.first_ascent.records import games_table, seats_table
    chars = characters if characters == "random" else list(characters)
    batch = run_games(n_games, master_seed, rules, list(seat_policies), chars,
                      first_index=first_index, threads=threads, rotate=rotate,
                      params=policy_params)
    return Played(games_table(batch, rules), seats_table(batch, rules), batch.seconds)


def summary(games, seats):
    """The lines `ascent simulate` prints: the report's headline measure first (the win share: a
    shared win counts 1/k for each of its k winners), then the wins with every winner counted
    (the measure of paired comparisons) and the mean score, each with its 95% interval."""
    import numpy as np
    from sim.core.records import category_rows, label_counts, values
    from sim.core.stats import rate_line, wilson_interval
    lines = ["win share by character (a shared win counts 1/k for each of its k winners, as the "
             "report ranks them),", "then wins with every winner counted, and the mean score; "
             "95% intervals:"]
    won, score, game = values(seats, "won"), values(seats, "score"), values(seats, "game")
    _, slot = np.unique(game, return_inverse=True)
    winners = np.bincount(slot, weights=won.astype(float))[slot]
    share = np.divide(won.astype(float), winners, out=np.zeros(len(won)), where=winners > 0)
    for char, seated in category_rows(seats, "character"):
        n = int(seated.sum())
        wins = int(won[seated].sum())
        lo, hi = wilson_interval(wins, n)
        mean = score[seated].mean()
        half = 1.96 * score[seated].std(ddof=1) / np.sqrt(n) if n > 1 else float("nan")
        spread = f"[{mean - half:5.1f}, {mean + half:5.1f}]" if n > 1 else "[    –,     –]"
        lines.append(rate_line(
            f"{char:<22}", float(share[seated].sum()), n,
            f"  won {wins / n:7.2%} [{lo:6.2%}, {hi:6.2%}]  mean score {mean:5.1f} "
            f"{spread}  n={n:,}"))
    ended = label_counts(games, "end_reason")
    for reason in ("eight_pitches", "stranded", "round_cap", "policy_error"):
        k = ended.get(reason, 0)
        if k:
            lines.append(rate_line(f"ended by {reason:<14}", k, games.num_rows))
    lines.append(f"  mean length: {values(games, 'rounds').mean():.2f} rounds")
    return "\n".join(lines)


def replay(seed, players, rules, seat_policies, characters, fmt):
    game = new_game(rules, seed, characters)
    game.play(seat_policies)
    return game.transcript_jsonl() if fmt == "jsonl" else game.replay_text()


def new_game(rules, seed, characters):
    from sim.games.first_ascent.game import FirstAscentGame
    return FirstAscentGame(seed, rules.players, characters, rules=rules)


def catalogue():
    from sim.games.first_ascent.knobs import catalogue as knobs
    from sim.games.first_ascent.rules import catalogue as text
    return text() + "\n\n" + knobs()


def render_report(page, results, plt, results_dir):
    from sim.report import first_ascent
    first_ascent.render(page, results, plt)
    return f"First Ascent report: {results.label}"


def variant_rules_changed(variant, players):
    """An experiment variant's options as they differ from the defaults (readings=bga spelled
    out; an option given at its default value left out); the spec's words if they no longer
    build."""
    from sim.games.first_ascent.rules import RuleError
    from sim.games.first_ascent.rules import build_rules as build
    rules = dict(variant.get("rules", {}))
    try:
        return build(int(players[0]), rules, list(variant.get("set", {}).items())).changed()
    except (RuleError, IndexError, ValueError, TypeError):
        return rules


def character_name(key):
    """A character's name as the reports print it (a key not in the data: itself)."""
    from sim.games.first_ascent.data import CHARACTER_NAME_OF_KEY
    return CHARACTER_NAME_OF_KEY.get(key, str(key))


def flow_row(run):
    """The comparison page's flow figures of a run: length, how games ended (each share with
    its 95% interval), mean score."""
    from sim.core.stats import rate_row
    from sim.report.first_screen import pct_interval
    g = run.games
    row = {"mean rounds": f"{g['rounds'].mean():.2f}"}
    for reason in ("eight_pitches", "stranded", "round_cap"):
        ended = rate_row(int((g["end_reason"] == reason).sum()), len(g))
        row[reason.replace("_", " ")] = pct_interval(ended["rate"], ended["ci_low"],
                                                     ended["ci_high"])
    row["mean score"] = f"{run.seats['score'].mean():.2f}"
    return row


def validity_warnings(r):
    """First Ascent's own checks (sim/report/validity.py): a character that never reaches a
    summit, or never scores one of its personal objectives."""
    from sim.report.validity import never_warning
    return (never_warning(r.seats, "character", "summits", character_name, "reached a summit")
            + never_warning(r.seats, "character", "personal_scored", character_name,
                            "scored a personal objective"))


def stronger_abilities(base_meta, variant_meta):
    """{character key: what changed} for each character the variant makes strictly stronger
    than the baseline (every one of its changed knobs helps it, knobs.STRONGER_WHEN): the
    comparison page warns when such a character's win rate falls (sim/report/compare.py)."""
    from sim.games.first_ascent.knobs import strictly_stronger

    def knobs(meta):
        return (meta.get("rules") or {}).get("knobs") or {}
    found = strictly_stronger(knobs(base_meta), knobs(variant_meta))
    return {key: ", ".join(f"{name} {old} → {new}" for name, old, new in changes)
            for key, changes in found.items()}
