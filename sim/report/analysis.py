"""The numbers of a designer report, as pandas tables. Every rate carries n and a 95% Wilson
interval; every "significant" is after a Holm correction across the family it belongs to.

Inputs are the record tables of a run (records.py): `games` (one row per game) and `seats` (one
row per game and seat).
"""
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from sim.core.stats import Z95, binomial_p_value, holm, two_proportion_p_value, wilson_interval

ALPHA = 0.05
TIERS = ("beginner", "intermediate", "expert")


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
    if (path / "games.parquet").exists():
        meta = json.loads((path / "manifest.json").read_text()) \
            if (path / "manifest.json").exists() else {}
        return Results(path.name, pd.read_parquet(path / "games.parquet"),
                       pd.read_parquet(path / "seats.parquet"), meta)
    if (path / "experiment.json").exists():
        doc = json.loads((path / "experiment.json").read_text())
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
                offset = players * 10**9
                games.append(g.assign(game=g["game"] + offset))
                seats.append(s.assign(game=s["game"] + offset))
        if not games:
            raise ValueError(f"{path}: variant {variant!r} has no finished chunks yet")
        meta = {"experiment": doc["name"], "variant": variant,
                "game": doc["identity"].get("game", "all-in-ascent"),
                "master_seed": doc["identity"]["seed"],
                "rules": doc["identity"]["variants"][variant],
                "seat_policies": doc["identity"]["seat_policies"]}
        if meta["game"] == "ascension":
            meta["rules_changed"] = doc["identity"]["variants"][variant].get("rules", {})
        if meta["game"] == "first-ascent":
            meta["rules_changed"] = _first_ascent_changed(
                doc["identity"]["variants"][variant].get("rules", {}), doc["identity"]["players"])
            meta["characters"] = doc["identity"]["characters"]
            meta["rotate_seats"] = doc["identity"].get("rotate_seats", False)
        return Results(f"{doc['name']}/{variant}", pd.concat(games, ignore_index=True),
                       pd.concat(seats, ignore_index=True), meta)
    raise ValueError(f"{path}: neither a simulate folder (games.parquet) nor an experiment "
                     f"folder (experiment.json)")


def _first_ascent_changed(rules, players):
    """A First Ascent variant's options as they differ from the defaults (readings=bga spelled
    out; an option given at its default value left out); the spec's words if they no longer
    build."""
    from sim.games.first_ascent.rules import RuleError, build_rules
    try:
        return build_rules(int(players[0]), dict(rules)).changed()
    except (RuleError, IndexError, ValueError, TypeError):
        return dict(rules)


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
    s = with_players(r)
    rows = []
    for (players, char), grp in s.groupby(["players", "character"], observed=True):
        n, wins = len(grp), int(grp["won"].sum())
        lo, hi = wilson_interval(wins, n)
        rows.append({"players": int(players), "character": str(char), "parity": 1 / players,
                     "n": n, "wins": wins, "rate": wins / n, "ci_low": float(lo),
                     "ci_high": float(hi)})
    df = pd.DataFrame(rows)
    df["p_vs_parity"] = [binomial_p_value(w, n, p) for w, n, p in
                         zip(df["wins"], df["n"], df["parity"])]
    df["p_holm"] = holm(df["p_vs_parity"])
    df["significant"] = df["p_holm"] < ALPHA
    df["vs_parity"] = df["rate"] - df["parity"]
    return df


def seat_table(r):
    s = with_players(r)
    rows = []
    for (players, seat), grp in s.groupby(["players", "seat"]):
        t = rate_table([grp["won"].sum()], [len(grp)])
        rows.append({"players": players, "seat": int(seat) + 1,
                     **{k: v[0] for k, v in t.items()}, "parity": 1 / players})
    df = pd.DataFrame(rows)
    df["p_vs_parity"] = [binomial_p_value(w, n, p) for w, n, p in
                         zip(df["wins"], df["n"], df["parity"])]
    df["p_holm"] = holm(df["p_vs_parity"])
    return df


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


def gear_table(r):
    s = r.seats
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
            "card": key.replace("_", " "),
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
            "p": two_proportion_p_value(ow, on, nw, nn),
        })
    df = pd.DataFrame(rows)
    if not df.empty:
        df["p_holm"] = holm(df["p"])
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
            t = rate_table([grp["done"].sum()], [len(grp)])
            rows.append({"tier": tier, "route": str(route),
                         "area": str(grp[f"{col}_area"].iloc[0]),
                         "tag": str(grp[f"{col}_tag"].iloc[0]),
                         "drawn": n_games / len(g), "games": n_games,
                         "completion_rate": t["rate"][0], "completion_ci_low": t["ci_low"][0],
                         "completion_ci_high": t["ci_high"][0], "seats": t["n"][0]})
    return pd.DataFrame(rows)


def milestone_character_table(r, min_n=30):
    """Win rate of each character given each milestone route, against that character's
    overall rate; significant cells after Holm across all cells."""
    s = with_players(r)[["game", "character", "won"]]
    overall = s.groupby("character", observed=True)["won"].agg(["sum", "count"])
    rows = []
    for tier in TIERS:
        col = f"milestone_{tier}"
        m = s.merge(r.games[["game", col]], on="game")
        for (route, char), grp in m.groupby([col, "character"], observed=True):
            n, w = len(grp), int(grp["won"].sum())
            if n < min_n:
                continue
            ow, on = int(overall.loc[char, "sum"]), int(overall.loc[char, "count"])
            lo, hi = wilson_interval(w, n)
            rows.append({"tier": tier, "route": str(route), "character": str(char), "n": n,
                         "rate": w / n, "ci_low": lo, "ci_high": hi,
                         "character_rate": ow / on,
                         "effect": w / n - ow / on,
                         "p": two_proportion_p_value(w, n, ow - w, on - n)})
    df = pd.DataFrame(rows)
    if not df.empty:
        df["p_holm"] = holm(df["p"])
        df["significant"] = df["p_holm"] < ALPHA
    return df


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
            rows.append({"character": str(char), "round": rnd,
                         "at_least_1": (done >= 1).mean(), "at_least_2": (done >= 2).mean(),
                         "all_3": (done >= 3).mean()})
    return pd.DataFrame(rows)


def climb_success_table(r):
    s = r.seats
    rows = []
    for char, grp in s.groupby("character", observed=True):
        for area in ("bouldering", "topRope", "leadClimbing"):
            n = int(grp[f"climbs_{area}"].sum())
            ok = int(grp[f"climbs_ok_{area}"].sum())
            lo, hi = wilson_interval(ok, n)
            rows.append({"character": str(char), "area": area, "climbs": n,
                         "success_rate": ok / n if n else np.nan, "ci_low": lo, "ci_high": hi})
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


# --- findings ------------------------------------------------------------------------------------

def findings(chars, gear, ms_chars, k=3):
    """The k most important significant effects, by size: characters against parity, milestone
    draws that favour a character, gear ownership (association)."""
    cands = []
    for _, row in chars[chars["significant"]].iterrows():
        word = "over" if row["vs_parity"] > 0 else "under"
        cands.append((abs(row["vs_parity"]),
                      f"{row['character']} is {word}-powered with {row['players']} players: wins "
                      f"{100 * row['rate']:.1f}% [{100 * row['ci_low']:.1f}, "
                      f"{100 * row['ci_high']:.1f}] against a parity of "
                      f"{100 * row['parity']:.1f}% (n={row['n']:,}, Holm p={row['p_holm']:.2g})"))
    if ms_chars is not None and not ms_chars.empty:
        for _, row in ms_chars[ms_chars["significant"]].iterrows():
            word = "favours" if row["effect"] > 0 else "hurts"
            cands.append((abs(row["effect"]),
                          f"The {row['tier']} milestone {row['route']} {word} the "
                          f"{row['character']}: {100 * row['rate']:.1f}% [{100 * row['ci_low']:.1f}, "
                          f"{100 * row['ci_high']:.1f}] against its usual "
                          f"{100 * row['character_rate']:.1f}% (n={row['n']:,}, Holm "
                          f"p={row['p_holm']:.2g})"))
    if gear is not None and not gear.empty:
        for _, row in gear[gear["p_holm"] < ALPHA].iterrows():
            cands.append((abs(row["association"]) * 0.5,   # association counts for less
                          f"Owners of {row['card']} win {100 * row['owner_win_rate']:.1f}% vs "
                          f"{100 * row['non_owner_win_rate']:.1f}% for non-owners (association, "
                          f"not effect; n={row['owners']:,}/{row['non_owners']:,})"))
    cands.sort(key=lambda c: -c[0])
    return [text for _, text in cands[:k]]


def paired_table(base, variant):
    """Per character and player count: the paired difference of win rates on the same games."""
    from sim.experiment.paired import paired_differences
    b = with_players(base)
    v = with_players(variant)
    frames = []
    for players in sorted(set(b["players"]) & set(v["players"])):
        bp, vp = b[b["players"] == players], v[v["players"] == players]
        same = bp.merge(vp[["game", "seat"]], on=["game", "seat"])
        if len(same) != len(bp) or len(same) != len(vp):
            n = min(bp["game"].max(), vp["game"].max()) + 1
            bp, vp = bp[bp["game"] < n], vp[vp["game"] < n]
        df = paired_differences(bp, vp)
        df.insert(0, "players", players)
        frames.append(df)
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if not out.empty:
        out["p_holm"] = holm(out["p_value"])
        out["significant"] = out["p_holm"] < ALPHA
    return out


def same_games(base, variant):
    """Whether two runs played the same seeds (so a paired comparison is valid)."""
    a = base.games[["game", "seed"]]
    b = variant.games[["game", "seed"]]
    m = a.merge(b, on="game")
    return len(m) > 0 and bool((m["seed_x"] == m["seed_y"]).all())


def z_halfwidth(p, n):
    return Z95 * np.sqrt(p * (1 - p) / n)


def ablation_table(path):
    """For an experiment folder whose variants take cards out of the deck (gear."X".in_deck=0):
    per card and character, the paired difference in win rate against the baseline. That is the
    card's causal effect (removing it), not an association. None if there is no such variant."""
    from sim.experiment.paired import compare_to_baseline
    path = Path(path)
    if not (path / "experiment.json").exists():
        return None
    doc = json.loads((path / "experiment.json").read_text())
    variants = doc["identity"]["variants"]
    if "baseline" not in variants:
        return None
    removed = {}
    for name, v in variants.items():
        cards = [k.split('"')[1] for k, val in v.get("set", {}).items()
                 if k.endswith(".in_deck") and str(val) == "0" and '"' in k]
        if len(cards) == 1:
            removed[name] = cards[0]
    out = compare_to_baseline(path, "baseline", list(removed), doc["identity"]["players"])
    if out.empty:
        return None
    out.insert(0, "card_removed", out.pop("variant").map(removed))
    # the card's effect is the opposite of its removal's
    out["card_effect"] = -out["difference"]
    out["p_holm"] = holm(out["p_value"])
    out["significant"] = out["p_holm"] < ALPHA
    return out
