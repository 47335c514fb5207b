"""The numbers of a designer report, as pandas tables. Every rate carries n and a 95% Wilson
interval. The families on the first screen (characters, seats, milestone draws, gear cards) are
corrected together (first_screen.screen_holm): "significant" there means Holm-corrected across
every test of the screen.

Inputs are the record tables of a run (records.py): `games` (one row per game) and `seats` (one
row per game and seat).
"""
import json
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from sim.core.game import DEFAULT_GAME, game_names, get_game
from sim.core.stats import clustered_rate_interval, fisher_exact_p, holm, wilson_interval
from sim.report import first_screen as FS

ALPHA = FS.ALPHA
TIERS = ("beginner", "intermediate", "expert")
# a milestone-draw cell is tested only when the character's usual rate predicts at least this many
# wins and losses in it: below that no test has power and a z-test's p-values are far too small
MIN_EXPECTED = 5


@lru_cache(maxsize=1)
def character_names():
    """Character key -> the name a designer reads ('freeSolo' -> 'Free Solo'), from the bundled
    data (the keys are fixed by R74; a custom data file names the same characters)."""
    from sim.games.all_in_ascent.data import load_data
    names = {k: str(v.get("name", k)) for k, v in load_data().characters.items()}
    return {k: v[4:] if v.startswith("The ") else v for k, v in names.items()}


def display(key, names):
    return names.get(str(key), str(key))


GAME_NUMBER_STRIDE = 10**9     # an experiment's game numbers: players x this + the index


@dataclass
class Results:
    label: str
    games: pd.DataFrame
    seats: pd.DataFrame
    meta: dict


def load_results(path, variant=None):
    """A `simulate` folder (games/seats parquet + manifest.json) or one variant of an experiment
    folder (experiment.json + chunks/)."""
    from sim.experiment.runner import load_variant
    path = Path(path)
    if (path / "games.parquet").exists() or (path / "manifest.json").exists():
        from sim.core.output import verify_run_folder
        meta = verify_run_folder(path)      # refuses a mixed, truncated or foreign folder
        _check_record_version(path, meta)
        from sim.core.output import read_table
        return Results(path.name, read_table(path / "games.parquet"),
                       read_table(path / "seats.parquet"), meta)
    if (path / "experiment.json").exists():
        doc = _experiment_doc(path / "experiment.json")
        check_experiment_record_version(path, doc)
        variants = list(doc.get("variant_order") or doc["identity"]["variants"])
        variant = variant or ("baseline" if "baseline" in variants else variants[0])
        if variant not in variants:
            raise ValueError(f"{path}: no variant {variant!r}; variants: {', '.join(variants)}")
        games, seats = [], []
        for players in doc["identity"]["players"]:
            g = load_variant(path, variant, players, table="games")
            s = load_variant(path, variant, players)
            if g is not None:
                # game numbers restart per player count: keep them apart
                offset = players * GAME_NUMBER_STRIDE
                games.append(g.assign(game=g["game"] + offset))
                seats.append(s.assign(game=s["game"] + offset))
        if not games:
            raise ValueError(f"{path}: variant {variant!r} has no finished chunks yet")
        meta = {"experiment": doc["name"], "variant": variant,
                "default_variant": variant == ("baseline" if "baseline" in variants
                                               else variants[0]),
                "game": doc["identity"].get("game", DEFAULT_GAME),
                "master_seed": doc["identity"]["seed"],
                "rules": doc["identity"]["variants"][variant],
                # `policy = "tuned"` in a spec is one bot in every seat: a list, as a
                # simulate folder's manifest has it (a bare string would read as letters)
                "seat_policies": _as_seat_list(doc["identity"]["seat_policies"]),
                "characters": doc["identity"].get("characters", "random"),
                "rotate_seats": doc["identity"].get("rotate_seats", False)}
        meta["rules_changed"] = get_game(meta["game"]).api.variant_rules_changed(
            meta["rules"], doc["identity"]["players"])
        meta["rules_fingerprints"] = _variant_fingerprints(meta["game"], meta["rules"],
                                                           doc["identity"]["players"])
        return Results(f"{doc['name']}/{variant}", pd.concat(games, ignore_index=True),
                       pd.concat(seats, ignore_index=True), meta)
    if not Path(path).exists():
        raise ValueError(f"{path}: no such folder")
    raise ValueError(f"{path}: neither a simulate folder (games.parquet) nor an experiment "
                     f"folder (experiment.json)")


REBUILD = ("move it away and run the experiment's `ascent run` command again: it writes the "
           "file anew (finished chunks are kept and checked)")


def _experiment_doc(path):
    """experiment.json, or an error naming it: a damaged one failed with a bare JSON error or
    a KeyError."""
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: unreadable ({exc}); {REBUILD}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("identity"), dict) or \
            not isinstance(doc["identity"].get("variants"), (dict, list)) or "name" not in doc:
        raise ValueError(f"{path}: not an experiment's manifest (no identity, variants or "
                         f"name); {REBUILD}")
    # the chunks are checked against identity_sha256: an identity edited since (another game,
    # other rules) would have them read as what they are not
    from sim.experiment.spec import identity_sha256
    if doc.get("identity_sha256") != identity_sha256(doc["identity"]):
        raise ValueError(f"{path}: its identity does not match its identity_sha256 (an edited "
                         f"file); {REBUILD}")
    return doc


def _as_seat_list(seat_policies):
    return [seat_policies] if isinstance(seat_policies, str) else list(seat_policies)


def _variant_fingerprints(game, rules, players):
    """{player count: the rules fingerprint} of an experiment's variant, as its games were
    played (runner._packed_rules), so that a report can tell whether a skill curve covers it."""
    from sim.core.game import GameError
    from sim.experiment.runner import _packed_rules
    found = {}
    for n in players:
        try:
            found[int(n)] = _packed_rules(game, n, rules.get("preset"),
                                          tuple(sorted((rules.get("rules") or {}).items())),
                                          tuple((rules.get("set") or {}).items())).fingerprint
        except (GameError, ValueError):
            # rules this version no longer builds: the report still loads, unchecked
            continue
    return found


def _check_record_version(path, meta):
    """The tables were written by this version's record schema, for a game it knows."""
    game = meta.get("game")
    if game not in game_names():
        raise ValueError(f"{path}: manifest.json names no known game ({game!r}); known: "
                         f"{', '.join(game_names())}")
    expected = get_game(game).record_schema_version
    if meta.get("record_schema_version") != expected and not get_game(game).reads_records_of(
            meta.get("record_schema_version"), [meta.get("rules") or {}]):
        raise ValueError(f"{path}: record schema {meta.get('record_schema_version')!r}, this "
                         f"version of ascent reads {expected}; rerun the simulate command")


def check_experiment_record_version(path, doc):
    """An experiment's chunks were written by this version's record schema (its identity names
    the schema once it differs from the one of folders that name none: GameSpec.
    record_schema_unnamed)."""
    game = doc.get("identity", {}).get("game", DEFAULT_GAME)
    if game not in game_names():
        raise ValueError(f"{path}: experiment.json names no known game ({game!r}); known: "
                         f"{', '.join(game_names())}")
    spec = get_game(game)
    expected = spec.record_schema_version
    written = doc["identity"].get("record_schema", spec.record_schema_unnamed)
    variants = doc["identity"].get("variants", {})
    if written != expected and not spec.reads_records_of(
            written, [v.get("rules") or {} for v in variants.values()]):
        raise ValueError(f"{path}: record schema {written}, this version of ascent reads "
                         f"{expected}; rerun the experiment into a new out folder")


def with_players(r):
    """seats with the game's player count (computed once per Results)."""
    if "players" not in r.seats.columns:
        players = r.games.set_index("game")["players"].reindex(r.seats["game"]).to_numpy()
        r.seats["players"] = players
    return r.seats


def rate_table(wins, n):
    wins = np.asarray(wins, float)
    n = np.asarray(n, float)
    lo, hi = wilson_interval(wins, n)
    return {"n": n.astype(np.int64), "wins": wins.astype(np.int64),
            "rate": np.divide(wins, n, out=np.full_like(wins, np.nan), where=n > 0),
            "ci_low": lo, "ci_high": hi}


# --- characters --------------------------------------------------------------------------------

def character_table(r):
    """Per player count and character: win share against the effective parity (share of decided
    games / players; first_screen.py says why), with `rate` = the share, `vs_parity` = share -
    parity and `p_vs_parity` uncorrected."""
    df = FS.parity_table(r.games, r.seats, "character")
    df["character"] = df["character"].astype(str)
    return df.assign(rate=df["share"], vs_parity=df["effect"], p_vs_parity=df["p"])


def seat_table(r):
    """The same per seat (seat numbers 0-based in the table, shown 1-based)."""
    df = FS.parity_table(r.games, r.seats, "seat")
    df["seat"] = df["seat"].astype(int)
    return df.assign(rate=df["share"], vs_parity=df["effect"], p_vs_parity=df["p"])


def presence_table(r):
    """Win rate of each character when another character is at the table."""
    s = r.seats
    codes = s["character"].cat.codes.to_numpy()
    names = list(s["character"].cat.categories)
    game_idx, games = pd.factorize(s["game"])
    present = np.zeros(len(games), np.int64)
    np.bitwise_or.at(present, game_idx, 1 << codes.astype(np.int64))
    here = present[game_idx]
    won = s["won"].to_numpy()
    rows = []
    for c, name in enumerate(names):
        mine = codes == c
        for o, other in enumerate(names):
            if o == c:
                continue
            sel = mine & ((here >> o) & 1 == 1)
            n, w = int(sel.sum()), int(won[sel].sum())
            if n == 0:
                continue
            lo, hi = wilson_interval(w, n)
            rows.append({"character": name, "with": other, "n": n, "wins": w, "rate": w / n,
                         "ci_low": float(lo), "ci_high": float(hi)})
    return pd.DataFrame(rows)


def head_to_head(r):
    """2-player games only: row character's win rate against the column character."""
    s = with_players(r)
    s = s[s["players"] == 2][["game", "character", "won"]]
    if s.empty:
        return None
    pairs = s.merge(s[["game", "character"]], on="game", suffixes=("", "_vs"))
    pairs = pairs[pairs["character"].astype(str) != pairs["character_vs"].astype(str)]
    out = pairs.groupby(["character", "character_vs"], observed=True)["won"] \
        .agg(["sum", "count"]).reset_index()
    t = rate_table(out["sum"], out["count"])
    for k, v in t.items():
        out[k] = v
    return out.drop(columns=["sum", "count"])


# --- gear ----------------------------------------------------------------------------------------

def card_columns(seats):
    return [c[len("owns_"):] for c in seats.columns if c.startswith("owns_")]


def card_names(meta=None):
    """Record column key -> the card's printed name: the run's own cards (its manifest lists
    them), else the bundled data files' (records.py makes the key: lower case, spaces and
    hyphens to underscores)."""
    from sim.games.all_in_ascent.data import record_key
    listed = (meta or {}).get("card_names")
    if listed:
        return {record_key(name): name for name in listed}
    return dict(_bundled_card_names())


@lru_cache(maxsize=1)
def _bundled_card_names():
    """card_names of the bundled data files, read and validated once a process (a screen
    asked for them at every call: an eighth of its time)."""
    from sim.games.all_in_ascent.data import BUNDLED, bundled_path, load_data, record_key
    names = {}
    for version in BUNDLED:
        for name in load_data(bundled_path(version), counts=None).gear_names:
            names[record_key(name)] = name
    return names


def gear_table(r):
    s = r.seats
    printed = card_names(r.meta)
    won = s["won"].to_numpy()
    n_winners = int(won.sum())
    rows = []
    for key in card_columns(s):
        owns = s[f"owns_{key}"].to_numpy()
        rounds = s[f"bought_round_{key}"].to_numpy()[owns]
        on, ow = int(owns.sum()), int(won[owns].sum())
        nn, nw = len(owns) - on, n_winners - ow
        olo, ohi = wilson_interval(ow, on)
        nlo, nhi = wilson_interval(nw, nn)
        pr_lo, pr_hi = wilson_interval(on, len(owns))
        wl, wh = wilson_interval(ow, n_winners)
        rows.append({
            "card": printed.get(key, key.replace("_", " ")),
            "purchase_rate": on / len(owns), "purchase_ci_low": pr_lo, "purchase_ci_high": pr_hi,
            "seats": len(owns),
            "median_round": float(np.median(rounds[rounds > 0])) if (rounds > 0).any()
            else np.nan,
            "winners_owning": ow / n_winners if n_winners else np.nan,
            "winners_ci_low": wl, "winners_ci_high": wh, "winners": n_winners,
            "owner_win_rate": ow / on if on else np.nan, "owner_ci_low": olo,
            "owner_ci_high": ohi, "owners": on,
            "non_owner_win_rate": nw / nn if nn else np.nan, "non_owner_ci_low": nlo,
            "non_owner_ci_high": nhi, "non_owners": nn,
            "association": (ow / on if on else np.nan) - (nw / nn if nn else np.nan),
            "wins_owning": ow,
        })
    df = pd.DataFrame(rows)
    if not df.empty:
        # owners and non-owners are different seats: Newcombe's interval for the difference
        from statsmodels.stats.proportion import confint_proportions_2indep
        both = (df["owners"] > 0) & (df["non_owners"] > 0)
        df["association_ci_low"] = df["association_ci_high"] = np.nan
        if both.any():
            lo, hi = confint_proportions_2indep(
                df.loc[both, "wins_owning"].to_numpy(), df.loc[both, "owners"].to_numpy(),
                n_winners - df.loc[both, "wins_owning"].to_numpy(),
                df.loc[both, "non_owners"].to_numpy(), method="newcomb")
            df.loc[both, "association_ci_low"] = lo
            df.loc[both, "association_ci_high"] = hi
        within = FS.within_group_association(with_players(r),
                                             [f"owns_{key}" for key in card_columns(s)])
        df["within_character"] = within["effect"].to_numpy()
        df["within_ci_low"] = within["ci_low"].to_numpy()
        df["within_ci_high"] = within["ci_high"].to_numpy()
        df["compared_owners"] = within["flagged_seats"].to_numpy()
        df["compared_non_owners"] = within["compared_seats"].to_numpy()
        df["p"] = within["p"].to_numpy()
    return df


# --- milestone draws ----------------------------------------------------------------------------

def milestone_draw_table(r):
    """Per milestone route: how often drawn, completion rate among seats of those games."""
    g, s = r.games, r.seats
    rows = []
    for tier in TIERS:
        col = f"milestone_{tier}"
        done_round = s[f"milestone_{tier}_round"] > 0
        merged = s[["game"]].assign(done=done_round.to_numpy()).merge(
            g[["game", col, f"{col}_area", f"{col}_tag"]], on="game")
        for route, grp in merged.groupby(col, observed=True):
            n_games = int((g[col] == route).sum())
            # the seats of one game share its draw and its pace: clustered by game
            per_game = grp.groupby("game")["done"].agg(["sum", "count"])
            rate, lo, hi, n = clustered_rate_interval(per_game["sum"].to_numpy(),
                                                      per_game["count"].to_numpy())
            drawn_lo, drawn_hi = wilson_interval(n_games, len(g))
            rows.append({"tier": tier, "route": str(route),
                         "area": str(grp[f"{col}_area"].iloc[0]),
                         "tag": str(grp[f"{col}_tag"].iloc[0]),
                         "drawn": n_games / len(g), "drawn_ci_low": drawn_lo,
                         "drawn_ci_high": drawn_hi, "games": n_games,
                         "completion_rate": rate, "completion_ci_low": lo,
                         "completion_ci_high": hi, "seats": n})
    return pd.DataFrame(rows)


def milestone_character_table(r, min_expected=MIN_EXPECTED):
    """Win rate of each character given each milestone route, against that character's rate in
    its other games (Fisher's exact test). Every cell is listed; a cell is tested only when the
    character's usual rate predicts at least `min_expected` wins and losses in it (`tested`)."""
    s = r.seats[["game", "character", "won"]]
    overall = s.groupby("character", observed=True)["won"].agg(["sum", "count"])
    frames = []
    for tier in TIERS:
        col = f"milestone_{tier}"
        m = s.merge(r.games[["game", col]], on="game")
        cell = m.groupby([col, "character"], observed=True)["won"].agg(["sum", "count"]) \
            .reset_index().rename(columns={col: "route", "sum": "wins", "count": "n"})
        cell.insert(0, "tier", tier)
        frames.append(cell)
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if df.empty:
        return df
    df["route"] = df["route"].astype(str)
    df["character"] = df["character"].astype(str)
    ow = overall["sum"].reindex(df["character"]).to_numpy(float)
    on = overall["count"].reindex(df["character"]).to_numpy(float)
    w, n = df["wins"].to_numpy(float), df["n"].to_numpy(float)
    lo, hi = wilson_interval(w, n)
    rest_n = on - n
    with np.errstate(invalid="ignore", divide="ignore"):
        rest = np.where(rest_n > 0, (ow - w) / rest_n, np.nan)
    expected = n * ow / on
    # the draw's games and the character's other games are different games: two independent
    # rates, so Newcombe's interval (from the two Wilson intervals) for their difference
    from statsmodels.stats.proportion import confint_proportions_2indep
    has_rest = rest_n > 0
    rest_lo, rest_hi, effect_lo, effect_hi = (np.full(len(df), np.nan) for _ in range(4))
    if has_rest.any():
        rest_lo[has_rest], rest_hi[has_rest] = wilson_interval((ow - w)[has_rest],
                                                               rest_n[has_rest])
        effect_lo[has_rest], effect_hi[has_rest] = confint_proportions_2indep(
            w[has_rest], n[has_rest], (ow - w)[has_rest], rest_n[has_rest], method="newcomb")
    df = df.assign(rate=w / n, ci_low=lo, ci_high=hi, character_rate=ow / on,
                   other_draws_rate=rest, other_draws_ci_low=rest_lo,
                   other_draws_ci_high=rest_hi, other_draws_n=rest_n.astype(np.int64),
                   other_draws_wins=(ow - w).astype(np.int64), expected_wins=expected,
                   effect=w / n - rest, effect_ci_low=effect_lo, effect_ci_high=effect_hi,
                   tested=(expected >= min_expected) & (n - expected >= min_expected)
                   & (rest_n > 0))
    p = fisher_exact_p(df["wins"].to_numpy(), df["n"].to_numpy(),
                       df["other_draws_wins"].to_numpy(), df["other_draws_n"].to_numpy())
    df["p"] = np.where(df["tested"], p, np.nan)
    return df


def other_draws_text(cells, digits=1):
    """'86.3% [85.9, 86.7]' per cell of milestone_character_table: the character's rate in its
    other games."""
    return [FS.pct_interval(v, lo, hi, digits) for v, lo, hi in
            zip(cells["other_draws_rate"], cells["other_draws_ci_low"],
                cells["other_draws_ci_high"])]


def effect_text(cells):
    """'-47.2 [-48.6, -45.8]' per cell of milestone_character_table."""
    return [FS.points_interval(v, lo, hi) for v, lo, hi in
            zip(cells["effect"], cells["effect_ci_low"], cells["effect_ci_high"])]


def milestone_combo_table(r):
    """Tier x area x tag of each drawn milestone: the game's length and no-winner rate."""
    rows = []
    g = r.games
    for tier in TIERS:
        for (area, tag), grp in g.groupby([f"milestone_{tier}_area", f"milestone_{tier}_tag"],
                                          observed=True):
            nw = int((grp["winner_seat"] < 0).sum())
            lo, hi = wilson_interval(nw, len(grp))
            rows.append({"tier": tier, "area": str(area), "tag": str(tag), "games": len(grp),
                         "median_rounds": float(grp["rounds"].median()),
                         "no_winner_rate": nw / len(grp), "no_winner_ci_low": lo,
                         "no_winner_ci_high": hi})
    return pd.DataFrame(rows)


def milestone_set_lengths(r, top=15):
    key = r.games["milestone_beginner"].astype(str) + " / " + \
        r.games["milestone_intermediate"].astype(str) + " / " + \
        r.games["milestone_expert"].astype(str)
    grp = r.games.assign(milestones=key).groupby("milestones")["rounds"]
    out = grp.agg(games="count", median_rounds="median", mean_rounds="mean")
    out = out.sort_values("games", ascending=False).head(top)
    q = grp.quantile([0.25, 0.75]).unstack()
    out["q25"] = q.loc[out.index, 0.25]
    out["q75"] = q.loc[out.index, 0.75]
    return out.reset_index()


# --- game flow -----------------------------------------------------------------------------------

def flow_summary(r):
    g = r.games
    n = len(g)
    nw = int((g["winner_seat"] < 0).sum())
    lo, hi = wilson_interval(nw, n)
    return {"games": n, "no_winner": nw, "no_winner_rate": nw / n, "no_winner_ci_low": lo,
            "no_winner_ci_high": hi, "median_rounds": float(g["rounds"].median()),
            "end_reasons": g["end_reason"].astype(str).value_counts().to_dict()}


def milestone_progress(r):
    """Per character and round: the share of seats with at least k milestones done by then."""
    s = r.seats
    max_round = int(r.games["rounds"].max())
    rows = []
    for char, grp in s.groupby("character", observed=True):
        rounds = np.stack([grp[f"milestone_{t}_round"].to_numpy() for t in TIERS], axis=1)
        rounds = np.where(rounds > 0, rounds, 10**6)
        for rnd in range(1, max_round + 1):
            done = (rounds <= rnd).sum(axis=1)
            row = {"character": str(char), "round": rnd, "seats": len(done)}
            for k, name in ((1, "at_least_1"), (2, "at_least_2"), (3, "all_3")):
                count = int((done >= k).sum())
                lo, hi = wilson_interval(count, len(done))
                row.update({name: count / len(done), f"{name}_ci_low": lo,
                            f"{name}_ci_high": hi})
            rows.append(row)
    return pd.DataFrame(rows)


def climb_success_table(r):
    s = r.seats
    rows = []
    for char, grp in s.groupby("character", observed=True):
        for area in ("bouldering", "topRope", "leadClimbing"):
            # a seat's climbs in one game share its character, stats and gear: the interval
            # allows for that (clustered_rate_interval), where independent climbs would not
            rate, lo, hi, n = clustered_rate_interval(grp[f"climbs_ok_{area}"].to_numpy(),
                                                      grp[f"climbs_{area}"].to_numpy())
            rows.append({"character": str(char), "area": area, "climbs": n,
                         "success_rate": rate, "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows)


def action_mix(r):
    s = r.seats
    cols = {"climbs": [f"climbs_{a}" for a in ("bouldering", "topRope", "leadClimbing")],
            "milestone attempts": [f"milestone_{t}_attempts" for t in TIERS],
            "trainings": [c for c in s.columns if c.startswith("trainings_")],
            "rests": ["rests"],
            "purchases": [c for c in s.columns if c.startswith("owns_")]}
    out = pd.DataFrame({k: s[v].sum(axis=1) for k, v in cols.items()})
    out["character"] = s["character"]
    return out.groupby("character", observed=True).mean().reset_index()


# --- the first screen ----------------------------------------------------------------------------

@dataclass
class Screen:
    families: list
    tests: int

    def family(self, name):
        return next(f for f in self.families if f.name == name)


def screen(r):
    """The four families of the first screen, Holm-corrected together, each with its findings."""
    names = character_names()
    chars = character_table(r)
    counts = sorted(chars["players"].unique().tolist()) if len(chars) else []
    fam_chars = FS.parity_family("characters", chars,
                                 lambda row: display(row.character, names), counts)
    seats = seat_table(r)
    fam_seats = FS.parity_family("seats", seats, lambda row: f"Seat {row.seat + 1}", counts)
    cells = milestone_character_table(r)
    if len(cells):
        cells["finding"] = [
            f"The {row.tier} milestone {row.route} {'favours' if row.effect > 0 else 'hurts'} "
            f"the {display(row.character, names)}: wins "
            f"{FS.pct_interval(row.rate, row.ci_low, row.ci_high)} of {row.n:,} seats with this "
            f"draw, {others} of {row.other_draws_n:,} in its other games ({effect} points, "
            f"{{p}})" for row, others, effect in zip(
                cells.itertuples(), other_draws_text(cells), effect_text(cells))]
    fam_cells = FS.Family("milestone draws", cells if len(cells) else
                          pd.DataFrame(columns=["p", "effect", "finding"]),
                          untested_note=f"cells with fewer than {MIN_EXPECTED} expected wins or "
                                        f"losses are listed, not tested")
    gear = gear_table(r)
    if len(gear):
        gear["effect"] = gear["within_character"]
        within = [FS.points_interval(v, lo, hi) for v, lo, hi in
                  zip(gear["within_character"], gear["within_ci_low"], gear["within_ci_high"])]
        gear["finding"] = [
            f"Owners of {row.card} win {abs(100 * row.within_character):.1f} points "
            f"{'more' if row.within_character > 0 else 'less'} than non-owners of the same "
            f"character ({text}; n = {row.compared_owners:,} owners against "
            f"{row.compared_non_owners:,} non-owners of their characters, {{p}}); an "
            f"association, not the card's effect. All seats: owners win {owners} of "
            f"{row.owners:,}, non-owners {others} of {row.non_owners:,}"
            for row, text, owners, others in zip(
                gear.itertuples(), within,
                FS.pct_ci(gear, "owner_win_rate", "owner_ci_low", "owner_ci_high"),
                FS.pct_ci(gear, "non_owner_win_rate", "non_owner_ci_low",
                          "non_owner_ci_high"))]
    fam_gear = FS.Family("gear cards", gear if len(gear) else
                         pd.DataFrame(columns=["p", "effect", "finding"]))
    families = [fam_chars, fam_seats, fam_cells, fam_gear]
    total = FS.screen_holm(families)
    FS.finalize_findings(families)
    return Screen(families, total)


def numbered_as_an_experiment(r):
    """`r` with each game numbered as an experiment numbers it (load_results): players x
    GAME_NUMBER_STRIDE + its index in the run. A `simulate` run numbers its games from 0, so
    paired against a variant of an experiment no game matched and the two were refused as
    'seeds differ' (a review found it); numbered alike, the seeds are compared game by game."""
    if not len(r.games) or (r.games["game"] >= GAME_NUMBER_STRIDE).all():
        return r
    players = r.games.set_index("game")["players"]
    renumber = players.index.to_numpy() + players.to_numpy() * GAME_NUMBER_STRIDE
    mapping = pd.Series(renumber, index=players.index)
    return replace(r, games=r.games.assign(game=renumber),
                   seats=r.seats.assign(game=mapping.reindex(r.seats["game"]).to_numpy()))


def same_games(base, variant):
    """Whether two runs played the same seeds (so a paired comparison is valid)."""
    a = base.games[["game", "seed"]]
    b = variant.games[["game", "seed"]]
    m = a.merge(b, on="game")
    return len(m) > 0 and bool((m["seed_x"] == m["seed_y"]).all())


NEVER_BOUGHT_COST = 100_000     # the data's largest legal price: beyond any seat's XP in a game


def card_treatments(identity):
    """An experiment's variants that treat one gear card: {variant: (card, treatment, new
    cost)}. Treatments: "taken out of the deck" (gear."X".in_deck = 0: changes every later draw),
    "never bought" (gear."X".cost = NEVER_BOUGHT_COST: the card is still dealt) and "price"
    (another cost)."""
    out = {}
    for name, v in identity["variants"].items():
        knobs = v.get("set", {})
        if len(knobs) != 1 or v.get("rules"):
            continue
        (key, value), = knobs.items()
        m = re.fullmatch(r'gear\."(.+)"\.(in_deck|cost)', key)
        if not m:
            continue
        card, field = m.groups()
        if field == "in_deck" and str(value) == "0":
            out[name] = (card, "taken out of the deck", None)
        elif field == "cost":
            cost = int(value)
            out[name] = (card, "never bought" if cost >= NEVER_BOUGHT_COST else "price", cost)
    return out


def ablation_table(path):
    """For an experiment folder whose variants treat one card each (card_treatments): per card,
    treatment and character, the paired difference in win rate against the baseline, with what
    pairing bought (unpaired over paired interval width). card_effect is the card's worth to the
    character where the treatment takes the card away (the opposite of the difference). None if
    there is no such variant."""
    from sim.experiment.paired import compare_to_baseline
    path = Path(path)
    if not (path / "experiment.json").exists():
        return None
    doc = json.loads((path / "experiment.json").read_text())
    check_experiment_record_version(path, doc)
    identity = doc["identity"]
    if "baseline" not in identity["variants"]:
        return None
    treated = card_treatments(identity)
    out = compare_to_baseline(path, "baseline", list(treated), identity["players"])
    if out.empty:
        return None
    costs = _baseline_costs(identity)
    variant = out.pop("variant")
    out.insert(0, "card_removed", variant.map(lambda v: treated[v][0]))
    out.insert(1, "treatment", variant.map(lambda v: treated[v][1]))
    out.insert(2, "cost", out["card_removed"].map(costs))
    out.insert(3, "new_cost", variant.map(lambda v: treated[v][2]))
    # the card's effect is the opposite of taking it away
    out["card_effect"] = np.where(out["treatment"] == "price", np.nan, -out["difference"])
    out["p_holm"] = holm(out["p_value"])
    out["significant"] = out["p_holm"] < ALPHA
    return out


def _baseline_costs(identity):
    """Each card's price under the experiment's baseline rules (its preset, its data knobs)."""
    base = identity["variants"]["baseline"]
    rules = get_game(identity.get("game", DEFAULT_GAME)).build_rules(
        max(identity["players"]), base.get("preset") or None, base.get("rules", {}),
        list(base.get("set", {}).items()))
    return {card["name"]: int(card["cost"]) for card in rules.data.gear}


def _picked_interval(row, choices):
    """The worth interval (the opposite of the paired difference's) of a row picked as the
    largest of `choices`: Tango's score interval at the Bonferroni level 0.05 / choices, so
    that the chance any of them misses stays at most 5%; where the row's seats share games
    (a bot in several seats: clustered) its own interval is widened by the same ratio of z."""
    from scipy.stats import norm
    from sim.core.stats import Z95, paired_proportion_difference
    z = float(norm.ppf(1 - 0.025 / max(1, choices)))
    if row.get("seats_a_game", 1) <= 1 and {"base_only", "variant_only", "games"} <= set(
            row.index):
        _, lo, hi = paired_proportion_difference(int(row["base_only"]),
                                                 int(row["variant_only"]), int(row["games"]),
                                                 z=z)
        return -float(hi), -float(lo)
    d = row["difference"]
    lo = d - (d - row["paired_ci_low"]) * z / Z95
    hi = d + (row["paired_ci_high"] - d) * z / Z95
    return -hi, -lo


def card_worth_ranking(ablation):
    """Per card (and player count, where the experiment has several): its worth to the
    character it helps most (never bought, or out of the deck), that worth per 100 XP of its
    price, and the price slope (points of win rate per 10 XP) of the character whose rate moves
    most with the price, from half price to half as much again.

    The worth is the largest of the card's k character-and-treatment effects, so its interval
    is corrected for that choice (_picked_interval: Bonferroni over the k): an ordinary 95%
    interval on the largest of k null effects lay wholly above 0 in 11% of runs, not 2.5% (a
    review measured it). The * stays the Holm test across the whole table."""
    if ablation is None or ablation.empty:
        return pd.DataFrame()
    several = "players" in ablation and ablation["players"].nunique() > 1
    keys = ["card_removed", "players"] if several else ["card_removed"]
    rows = []
    for key, grp in ablation.groupby(keys, sort=False):
        card = key[0] if isinstance(key, tuple) else key
        row = {"card": card, **({"players": int(key[1])} if several else {}),
               "cost": grp["cost"].iloc[0]}
        away = grp[grp["treatment"].isin(["never bought", "taken out of the deck"])]
        if len(away):
            best = away.loc[away["card_effect"].idxmax()]
            low, high = _picked_interval(best, len(away))
            row.update(treatment=best["treatment"], helps_most=best["character"],
                       worth=best["card_effect"], worth_ci_low=low, worth_ci_high=high,
                       worth_choices=len(away), worth_significant=bool(best["significant"]),
                       worth_per_100_xp=best["card_effect"] / row["cost"] * 100)
        prices = grp[grp["treatment"] == "price"]
        if prices["new_cost"].nunique() >= 2:
            lo, hi = prices["new_cost"].min(), prices["new_cost"].max()
            a = prices[prices["new_cost"] == lo].set_index("character")["difference"]
            b = prices[prices["new_cost"] == hi].set_index("character")["difference"]
            slope = (b - a) / (hi - lo) * 10
            who = slope.abs().idxmax()
            row.update(price_range=f"{int(lo)}..{int(hi)}", most_price_sensitive=who,
                       points_per_10_xp=slope[who])
        rows.append(row)
    out = pd.DataFrame(rows)
    if "worth_per_100_xp" in out:
        out = out.sort_values("worth_per_100_xp", ascending=False, na_position="last")
    return out.reset_index(drop=True)
