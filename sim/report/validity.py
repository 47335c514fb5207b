"""Validity warnings: what in a run's own records says that a number may describe the bots, not
the game (principle 6). Every report shows them on its first screen, above the ranking.

Shared checks, for every game: games a bot ended with an illegal action, games stopped by a
cap without a winner (GameSpec.cap_end_reasons), and a tuned bot whose knobs were fitted under
other rules than the run's. A game adds its own through its adapter's optional
`validity_warnings(results)` (All-In Ascent: a character that never attempts its top
milestone; turns ended with time left. First Ascent: a character that never summits or never
scores a personal objective. Ascension: a bot that never reaches the summit). Turns ended
with something left to do are counted for All-In Ascent only: its turns spend a time budget
(R37), and ending one early is a choice a bot can misuse. A First Ascent turn is one choice,
rest or climb (F29; resting is a move of its own, not a turn left unused), and both phases of
an Ascension turn are compulsory (A9), so neither game has a turn to end early. The comparison
page (compare.py) shows each run's warnings, and the game's optional
`stronger_abilities(base_meta, variant_meta)`: a character made strictly stronger that loses
games (All-In Ascent: variants.STRONGER_WHEN; First Ascent: knobs.STRONGER_WHEN).

Verdicts the game's skill curve does not back (GameSpec.skill_results, written by `ascent
skill`) are marked on the rows themselves, next to the number (skill_check and
SkillCheck.caution, read by the first screen): a character (or seat) this run finds over- or
under-powered that the curve's strongest bot judges otherwise, or whose verdict flips between
the curve's two strongest bots.
"""
import json
from dataclasses import dataclass, field
from pathlib import Path

from sim.core.game import get_game


def _share(n, total):
    return f"{n:,} of {total:,} games ({100 * n / total:.1f}%)"


def policy_error_warning(games):
    n = int((games["end_reason"].astype(str) == "policy_error").sum())
    if not n:
        return None
    return (f"{_share(n, len(games))} ended because a bot returned an illegal action; their "
            f"outcomes are not the game's.")


def cap_warning(games, caps):
    reasons = games["end_reason"].astype(str)
    capped = reasons.isin(caps)
    n = int(capped.sum())
    if not n:
        return None
    which = ", ".join(sorted(set(reasons[capped])))
    return (f"{_share(n, len(games))} were stopped by a cap (end reason {which}) before anyone "
            f"won; win shares count decided games only, and a bot that stalls makes more of "
            f"them.")


def tuned_rules_warning(game, meta, policies):
    """The tuned knobs name the rules they were fitted under; a run under other rules plays a
    bot tuned for another game. Every bot that plays those knobs (tuned, and the bots that roll
    it out or search with it: RegisteredPolicy.plays_tuned_knobs) is named."""
    bots = tuned_knob_bots(game, policies)
    if not bots:
        return None
    # a simulate folder's one fingerprint, or an experiment variant's, one per player count
    played = set((meta.get("rules_fingerprints") or {}).values()) or \
        {meta.get("rules_fingerprint")} - {None}
    if not played:
        return None
    import importlib
    try:
        tuning = importlib.import_module(game.tuning_module)
        records = json.loads(Path(tuning.TUNED_PATH).read_text()).get("characters", {})
    except (ImportError, AttributeError, OSError, ValueError):
        return None
    # a record that names no rules was stored by `ascent tune`, which fits under the defaults
    # only: the tuning module says what those are (First Ascent's records predate naming them)
    unnamed = getattr(tuning, "fitted_rules_record", lambda: {})()
    fitted = {}
    for key, rec in records.items():
        rec = rec if fitted_fingerprints(rec) else unnamed
        prints = fitted_fingerprints(rec)
        if prints and not prints & played:
            fitted[key] = rec.get("rules", "unrecorded rules")
    if not fitted:
        return None
    under = sorted(set(fitted.values()))
    chars = ", ".join(sorted(fitted))
    who = f"The tuned bot's knobs for {chars}" if bots == ["tuned"] else \
        f"The tuned knobs for {chars}, which {' and '.join(bots)} " \
        f"{'plays' if len(bots) == 1 else 'play'},"
    return (f"{who} were fitted under "
            f"{', '.join(under)}, not under this run's rules: those characters are played by a "
            f"bot tuned for another game (`ascent tune` fits under the defaults only; a "
            f"balance spec's `coadapt = true` re-fits the knobs under its patch).")


def tuned_knob_bots(game, policies):
    """The bots among `policies` that play the game's tuned knobs (RegisteredPolicy.
    plays_tuned_knobs), sorted; a name that is no registered bot is none of them."""
    if not game.tuning_module:
        return []
    from sim.core.policies import policy_name_problem, registered_policy
    return sorted(p for p in set(policies) if policy_name_problem(game.name, p) is None
                  and registered_policy(game.name, p).plays_tuned_knobs)


def fitted_fingerprints(record):
    """The rules fingerprints a tuning record was fitted under: one (`rules_fingerprint`), or
    one per player count where the game's fingerprint names the count (`rules_fingerprints`,
    First Ascent: the same rule options at each count)."""
    found = set((record.get("rules_fingerprints") or {}).values())
    if record.get("rules_fingerprint") is not None:
        found.add(record["rules_fingerprint"])
    return found


def never_warning(seats, group, column, label, what, least=100):
    """One warning per group value that sat in at least `least` games and never scored
    `column` (a per-seat count): e.g. a character that never reached a summit."""
    if column not in seats.columns or group not in seats.columns:
        return []
    per = seats.groupby(group, observed=True)[column].agg(["size", "sum"])
    return [f"{label(key)} never {what} in {int(row['size']):,} games: its numbers say how the "
            f"bot plays it, not what it can do." for key, row in per.iterrows()
            if row["size"] >= least and row["sum"] == 0]


def fixed_seating_warning(meta, policies):
    """Characters given one per seat, not dealt at random: without --rotate-seats each character
    always sat in the same seat, and with mixed bots it always played under the same bot (the
    rotation moves a seat's character and bot together), so its rate is also that seat's or that
    bot's (a review helper's run ranked 'Technician 89.5%' where the Technician was always seat 1
    and always `tuned`, against `random` in seat 4)."""
    characters = meta.get("characters")
    if not isinstance(characters, (list, tuple)):
        return None
    tied = ([] if meta.get("rotate_seats") else ["seat"]) + \
        (["bot"] if len(set(map(str, policies))) > 1 else [])
    if not tied:
        return None
    what = " and ".join(tied)
    return (f"Each character kept one {what} in every game (--characters), so a character's "
            f"rate is also its {what}'s: these effects cannot be told apart. Deal the characters "
            f"at random (the default) for a character verdict.")


def validity_warnings(r, policies, tuned_rules=True):
    """Every warning that applies to the run `r` (analysis.Results) played by `policies`;
    tuned_rules=False leaves out the tuned-knobs check (a sweep says it once for all values)."""
    game = get_game(r.meta["game"])
    found = [policy_error_warning(r.games), cap_warning(r.games, game.cap_end_reasons),
             tuned_rules_warning(game, r.meta, policies) if tuned_rules else None,
             fixed_seating_warning(r.meta, policies)]
    own = getattr(game.api, "validity_warnings", None)
    if own is not None:
        found.extend(own(r))
    return [w for w in found if w]


VERDICT_WORDS = {"over": "over-powered", "under": "under-powered",
                 "even": "not told apart from fair"}


@dataclass(frozen=True)
class SkillCheck:
    """A run's rows against its game's skill curve: `verdicts` maps (players, group key) to
    the curve's skill.TopVerdict, for the run's one bot `policy`."""
    group: str              # the rows' key column: character or seat
    policy: str
    source: str             # the skill file, as GameSpec.skill_results names it
    verdicts: dict
    unchecked: dict = field(default_factory=dict)  # players -> why not checked
    converged: dict = field(default_factory=dict)  # players -> the curve's 2-point test
    # players -> the family (RegisteredPolicy.family_name) the run's bot shares with the
    # curve's strongest bot, where it does: a check within one family of bots
    shared_family: dict = field(default_factory=dict)

    def checked_note(self, players):
        """What backs the rows of a player count the curve checked, for the first screen: its
        strongest bot, and whether its two strongest levels passed the 2-point test; "" for a
        player count it did not check."""
        tops = [v for (p, _), v in self.verdicts.items() if p == int(players)]
        if not tops or int(players) in self.unchecked:
            return ""
        top = tops[0]
        converged = self.converged.get(int(players))
        if self.policy == top.strongest:
            # nothing stronger was played: the curve can only say where its own top two differ
            note = (f"Not checked against stronger play: {self.policy} is the strongest bot of "
                    f"the skill curve in {self.source}, so ⚠ marks only a verdict on which the "
                    f"curve's next-strongest bot, {top.second}, disagrees")
            if converged is False:
                note += (f"; those two levels have not passed the curve's 2-point test "
                         f"(UNCONVERGED), so the sizes may still move with stronger play")
            return note + "."
        note = (f"Checked against stronger play: the skill curve in {self.source} (self-play up "
                f"to {top.strongest}) marks with ⚠ each verdict here that it does not back")
        if converged is False:
            note += (f"; its two strongest levels ({top.second}, {top.strongest}) have not "
                     f"passed its 2-point test (UNCONVERGED), so an unmarked verdict is backed "
                     f"in direction, not yet in size")
        family = self.shared_family.get(int(players))
        if family:
            note += (f". Its strongest bot, {top.strongest}, builds on {family} as "
                     f"{self.policy} does: one family of bots, so this checks the verdicts "
                     f"against more skill at one way of playing, not against another way")
        return note + "."

    def caution(self, players, key, effect, significant):
        """Why a row's verdict may be a bot artifact, or "" if the curve backs it (or the row
        claims nothing: a share not told apart from parity is no verdict)."""
        top = self.verdicts.get((int(players), key))
        if top is None or not significant:
            return ""
        claim = "over" if effect > 0 else "under"
        mine = f"{self.policy} finds it {VERDICT_WORDS[claim]}"
        if top.verdict == "no decided game":
            # checked_note promises a mark on every verdict the curve does not back
            return ("" if self.policy == top.strongest else
                    f"{mine}; {top.strongest}, the skill curve's strongest bot, decided no game "
                    f"in which it sat")
        theirs = f"{VERDICT_WORDS[top.verdict]}" + (
            f" in {top.decided:,} decided games" if top.decided else "")
        if top.flipped and self.policy == top.strongest:
            return (f"{mine}, but {top.second}, the skill curve's next-strongest bot, does "
                    f"not: the curve has not converged on it")
        if top.flipped:
            return (f"{mine}, and the skill curve has not converged on it ({top.strongest} "
                    f"finds it {theirs}, {top.second} does not)")
        # the same bot as the curve's strongest: a difference is one of samples, not of bots
        if top.verdict != claim and self.policy != top.strongest:
            return f"{mine}; {top.strongest}, the skill curve's strongest bot, finds it {theirs}"
        return ""


def skill_file(game):
    """The game's skill file (GameSpec.skill_results), relative to the folder that holds the
    game's top-level package (GameSpec.project_file)."""
    return game.project_file(game.skill_results)


def skill_check(r, policies):
    """The SkillCheck of run `r`, or None without a skill file or with several bots at the
    table (the curve is self-play). A player count is checked where the file has a curve for
    it, played under this run's rules (the curve's are the game's defaults: the same rules
    fingerprint); `unchecked` says why another is not."""
    from sim.experiment.skill import read_convergence, read_verdicts
    from sim.report.compare import group_label
    game = get_game(r.meta["game"])
    # a simulate folder has one player count and one fingerprint; an experiment's variant one
    # per player count
    fingerprints = r.meta.get("rules_fingerprints") or {}
    names = sorted(set(map(str, policies)))
    if not game.skill_results or len(names) != 1:
        return None
    try:
        text = skill_file(game).read_text(encoding="utf-8")
    except OSError:
        return None
    group = game.group(True)
    found, unchecked, converged, shared = {}, {}, {}, {}
    family = _family(game, names[0])
    for players in sorted(int(p) for p in r.games["players"].unique()):
        fingerprint = fingerprints.get(players, r.meta.get("rules_fingerprint"))
        verdicts, why = read_verdicts(text, game.title, players)
        if not verdicts:
            unchecked[players] = f"{game.skill_results} has {why}"
            continue
        if fingerprint is None:
            unchecked[players] = "this run does not record its rules in a form to compare"
            continue
        if game.build_rules(players).fingerprint != fingerprint:
            unchecked[players] = (f"the skill curve in {game.skill_results} was played under "
                                  f"the default rules, not this run's")
            continue
        converged[players] = read_convergence(text, game.title, players)
        keys = game.character_keys() if group == "character" else range(players)
        for key in keys:
            # a skill file written before First Ascent's reports named characters has keys
            for label in (group_label(game.name, group, key), str(key)):
                if label in verdicts:
                    found[(players, key)] = verdicts[label]
                    break
        if family is not None and \
                _family(game, next(iter(verdicts.values())).strongest) == family:
            shared[players] = family
    return SkillCheck(group, names[0], game.skill_results, found, unchecked, converged, shared)


def _family(game, policy):
    """The family a bot of `game` builds on (RegisteredPolicy.family_name), or None for a
    name this version does not register (a skill file may be older than the bots)."""
    from sim.core.policies import policy_name_problem, registered_policy
    if policy_name_problem(game.name, policy) is not None:
        return None
    return registered_policy(game.name, policy).family_name
