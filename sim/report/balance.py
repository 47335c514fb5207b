"""balance.md (and balance_trace.png) in a balance folder: the verdict first (the patch, how far
every character still is from the target, where it holds on fresh seeds), then the Pareto front,
each knob's share, the finalists and the search trace."""
import json

import numpy as np

from sim.core.game import get_game
from sim.core.stats import wilson_interval
from sim.experiment.balance import (
    KEEP, _tuning_for_rules, bound_pushes, goals_out_of_reach, pareto_front, trace)
from sim.report.first_screen import points_interval
from sim.report.validity import tuned_knob_bots

ON_TARGET = 0.03        # the "within +/- 3 points" of the target


def _points(x):
    return f"{100 * x:+.1f}"


def _rate_ci(rate, n):
    """'12.3% [11.0, 13.7]': a rate of n with its 95% Wilson interval."""
    lo, hi = wilson_interval(np.rint(rate * n), n)
    return f"{100 * rate:.1f}% [{100 * float(lo):.1f}, {100 * float(hi):.1f}]"


def _rate_label(game, spec, group):
    """A rates key's group as words: a character, "A against B" (head to head), or a seat."""
    if spec.group != "character":
        return f"seat {group}"
    return " against ".join(game.api.character_name(g) for g in group.split(" vs "))


def _rate_table(spec, before, after, after_label):
    """The per-group table, the start against `after` (its column headed `after_label`)."""
    return [f"| players | group | current rules [95%] (gap) | {after_label} [95%] (gap) "
            "| target (current / patch, where they differ) | n |",
            "|---|---|---|---|---|---|"] + _rate_rows(spec, before, after)


def _rate_rows(spec, before, after):
    """Per player count and group: the start's and the patch's rates against the target."""
    game = get_game(spec.game)
    rows = []
    for key, (rate, n, goal) in after["rates"].items():
        players, group = key.split("|")
        old_rate, old_n, old_goal = before["rates"][key]
        # a goal scaled by its rules' effective parity moves with the patch (ties, games no
        # one won): each gap is against its own rules' goal, and the column shows both
        target = f"{100 * goal:.1f}%" if f"{old_goal:.3f}" == f"{goal:.3f}" else \
            f"{100 * old_goal:.1f}% / {100 * goal:.1f}%"
        rows.append(f"| {players} | {_rate_label(game, spec, group)} | "
                    f"{_rate_ci(old_rate, old_n)} ({_points(old_rate - old_goal)}) | "
                    f"{_rate_ci(rate, n)} ({_points(rate - goal)}) | {target} | {n:,} |")
    return rows


def _choice_text(choice, spec=None):
    """`key = value (was current)` for each knob the choice moves."""
    current = {k.key: k.current for k in spec.knobs} if spec else {}
    parts = [f"`{k} = {v}`" + (f" (was {current[k]})" if current.get(k) is not None else "")
             for k, v in choice.items() if v != KEEP and v != current.get(k)]
    return ", ".join(parts) if parts else "no change (the current rules)"


def _trace_figure(spec, study):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sim.report.render import png_bytes
    points = trace(study)
    if not points:
        return None
    numbers, distances, knobs = (np.array(x) for x in zip(*points))
    fig, ax = plt.subplots(figsize=(7, 3.2))
    for k in sorted(set(knobs)):
        sel = knobs == k
        ax.scatter(numbers[sel], distances[sel] * 100, s=12, label=f"{k} knob(s) changed")
    ax.plot(numbers, np.minimum.accumulate(distances) * 100, color="#333", lw=1,
            label="best so far")
    ax.axhline(ON_TARGET * 100, color="#a00", ls="--", lw=1, label="3 points")
    ax.set_xlabel("candidate (trial number)")
    ax.set_ylabel("largest gap from target, points")
    ax.set_title(f"Search: {len(points)} candidates on {spec.games:,} games each", fontsize=10)
    ax.legend(fontsize=7, loc="upper right")
    ax.grid(alpha=.3)
    (spec.out / "balance_trace.png").write_bytes(png_bytes(fig))
    return "balance_trace.png"


def validation_warnings(spec, validated):
    """Each validation run's validity warnings (caps, policy errors, the game's own checks),
    named by its bot and rules; the tuned-knobs check is left to the verdict's own line."""
    from sim.report.analysis import load_results
    from sim.report.render import run_policies
    from sim.report.validity import validity_warnings
    found = []
    for policy in validated:
        folder = spec.out / "validation" / policy
        for variant, what in (("baseline", "the current rules"), ("patch", "the patch")):
            r = load_results(folder, variant)
            # under the patch, the verdict's Bots line says it of the searched bot; the current
            # rules may already differ from the ones the knobs were fitted under, and a second
            # validation bot has no such line
            check = variant == "baseline" or policy != spec.policy
            found += [f"{policy}, {what}: {w}"
                      for w in validity_warnings(r, run_policies(r), tuned_rules=check)]
    return found


def write_balance_report(spec, study, scored, patch, shares, validated, times, coadapted=None):
    game = get_game(spec.game)
    before = next(r for r in scored if r["changed"] == 0)
    target = "effective parity (each player count's wins per seat)" if spec.target == "parity" \
        else "the spec's head-to-head shares (A's wins in games A or B won)" \
        if "head_to_head" in spec.target else \
        "the spec's rates, each times the player count's effective parity over 1/players " \
        "(ties, partners and games without a winner move it)"
    lines = [f"# {game.title}: balance by `ascent balance`", "",
             f"Spec: `{spec.path}`. Bots: {spec.policy} in every seat; players "
             f"{', '.join(str(n) for n in spec.players)}; target: {target}; at most "
             f"{spec.max_changed} knob(s) changed; {spec.budget} candidates on {spec.games:,} "
             f"games each (master seed {spec.seed}), finalists re-scored on "
             f"{spec.rescore_games:,} games.", ""]
    gap_after, gap_before = patch["distance"], before["distance"]
    # a parity of 0 (no re-scored game had a winner) is met by every rate of 0 without any
    # balance: greedy's All-In Ascent games read "within 3 points" (a review found it)
    # (a table's targets scale with the parity, so there every goal of the player count is 0)
    goals = {}
    for key, (_, _, goal) in patch["rates"].items():
        goals.setdefault(int(key.split("|")[0]), []).append(goal)
    undecided = [] if "head_to_head" in spec.target else \
        sorted(n for n, g in goals.items() if not any(g))
    met = gap_after <= ON_TARGET and not undecided
    lines += ["## Verdict", "",
              f"- **Patch:** {_choice_text(patch['choice'], spec)} (`patch.toml`).",
              f"- **Largest gap from the target:** {100 * gap_before:.1f} points under the "
              f"current rules, {100 * gap_after:.1f} points with the patch (re-score, "
              f"{spec.rescore_games:,} games a player count). "
              + ("Every group is within 3 points." if met else
                 "The 3-point target is **not** reached with these knobs.")]
    if undecided:
        lines.append(f"- **No game had a winner** at {', '.join(map(str, undecided))} "
                     f"player(s): the parity there is 0, which a rate of 0 meets without any "
                     f"balance. These bots decide no game; balance with a bot that does.")
    beyond = goals_out_of_reach(patch["rates"])
    if beyond:
        named = ", ".join(f"{_rate_label(game, spec, key.split('|')[1])} "
                          f"({key.split('|')[0]} players: {100 * patch['rates'][key][2]:.1f}%)"
                          for key in beyond)
        lines.append(f"- **Out of reach by the table itself:** {named}. The target's rate, "
                     f"scaled to the games' effective parity, is above 100%.")
    if not met and not undecided:
        worst = sorted(((abs(r - g), k) for k, (r, n, g) in patch["rates"].items()),
                       reverse=True)[:3]
        names = []
        for gap, key in worst:
            if gap <= ON_TARGET:
                continue
            players, group = key.split("|")
            names.append(f"{_rate_label(game, spec, group)} ({players} players, "
                         f"{100 * gap:.1f} points off)")
        lines.append(f"- **Still off the target:** {', '.join(names)}. Either no knob of the "
                     f"spec moves them far enough, or the search ran out of budget: the Pareto "
                     f"front and the bounds below tell which.")
    pushes = bound_pushes(spec, patch["choice"])
    if pushes:
        lines.append("- **Against a bound:** " + "; ".join(
            f"`{k}` at its {side} allowed value {v}" for k, v, side in pushes)
            + ": the search wanted to go further; widen the range to look beyond it.")
    if coadapted is not None:
        lines.append(f"- **Bots re-tuned for the patch** (co-adaptation, {spec.coadapt_budget} "
                     f"CMA-ES evaluations of {spec.coadapt_games:,} games per character): "
                     f"largest gap {100 * coadapted['distance']:.1f} points on the same "
                     f"{spec.rescore_games:,} games, against {100 * gap_after:.1f} with the bot "
                     f"fitted for the current rules. The search and the validation below play "
                     f"the stored bot.")
    elif tuned_knob_bots(game, [spec.policy]):
        lines.append(f"- **Bots:** {spec.policy} plays every candidate with the tuned knobs as "
                     "they were fitted for the current rules; they were not re-tuned for the "
                     "patch" + (" (`coadapt = true` does)" if _tuning_for_rules(game, spec.policy)
                                else "") +
                     ", so a patch that asks for other play may be under-rated.")
    cautions = validation_warnings(spec, validated)
    if cautions:
        # the first screen's checks speak of its win shares (decided games); this page's rates
        # are wins per seat, so a game no one won counts here, as a loss for every seat
        lines += ["", "**Read with care:** what the validation runs' own records say about the "
                  "bots (the checks of every report's first screen, whose win shares count "
                  "decided games only; the rates on this page count every game, and a game no "
                  "one won is a loss for every seat):", ""] + \
            [f"- {w}" for w in cautions]
    lines += ["", "## Per group, before and after (re-score)", ""] + \
        _rate_table(spec, before, patch, "patch")
    if coadapted is not None:
        lines += ["", "With the bot re-tuned for the patch (same games):", ""] + \
            _rate_table(spec, before, coadapted, "patch, re-tuned bot")
    lines += ["", "## Validation on fresh seeds", ""]
    if not validated:
        lines.append("Not run (the patch changes nothing, or validation was skipped).")
    for policy, (table, gap) in validated.items():
        lines += [f"### {policy}, master seed {spec.validation_seed}", "",
                  "| players | group | current rules [95%] | patch [95%] | "
                  "difference [paired 95%] | n |",
                  "|---|---|---|---|---|---|"]
        for r in table.itertuples():
            key = getattr(r, table.columns[2])
            label = game.api.character_name(key) if spec.group == "character" else \
                f"seat {int(key) + 1}"
            lines.append(f"| {r.players} | {label} | {_rate_ci(r.base_win_rate, r.games)} | "
                         f"{_rate_ci(r.variant_win_rate, r.games)} | "
                         f"{points_interval(r.difference, r.paired_ci_low, r.paired_ci_high)} | "
                         f"{r.games:,} |")
        lines += ["", f"Largest gap from the target with the patch under {policy}: "
                      f"{100 * gap:.1f} points ({'within' if gap <= ON_TARGET else 'outside'} "
                      f"3).", ""]
    front = pareto_front(spec, study)
    lines += ["", "## Pareto front of the search", "",
              "No candidate on it is nearer the target with fewer knobs changed and a smaller "
              "relative change (the sum over moved knobs of |new - current| / |current|). "
              + (f"The first 25 of {len(front)}, by knobs changed then gap." if len(front) > 25
                 else ""), "",
              "| knobs changed | relative change | largest gap (search games) | patch | trial |",
              "|---|---|---|---|---|"]
    for row in front[:25]:
        rel = "–" if row["relative_change"] is None else f"{row['relative_change']:.2f}"
        lines.append(f"| {row['changed']} | {rel} | {100 * row['distance']:.1f} | "
                     f"{_choice_text(row['choice'], spec)} | {row['trial']} |")
    if shares:
        lines += ["", "## Each knob's share", "",
                  "| knob | value | largest gap without it | with the whole patch |",
                  "|---|---|---|---|"]
        for s in shares:
            lines.append(f"| `{s['knob']}` | {s['value']} | {100 * s['distance_without']:.1f} | "
                         f"{100 * gap_after:.1f} |")
    lines += ["", "## Finalists (re-scored on the same games)", "",
              "| candidate | knobs changed | largest gap |", "|---|---|---|"]
    for r in sorted(scored, key=lambda r: r["distance"]):
        lines.append(f"| {_choice_text(r['choice'], spec)} | {r['changed']} | "
                     f"{100 * r['distance']:.2f} |")
    figure = _trace_figure(spec, study)
    lines += ["", "## Search", "",
              f"{len(trace(study))} candidates evaluated ({spec.sampler} sampler, Optuna); "
              f"search {times['search_seconds'] / 60:.1f} min, whole job "
              f"{times['wall_seconds'] / 60:.1f} min in this invocation."]
    if figure:
        lines += ["", f"![search trace]({figure})"]
    (spec.out / "balance.json").write_text(json.dumps(
        {"patch": patch, "finalists": scored, "shares": shares, "times": times}, indent=1))
    path = spec.out / "balance.md"
    path.write_text("\n".join(lines) + "\n")
    return path
