"""Game transcripts: a JSON Lines record and a play-by-play a designer can follow.

The header holds everything setup decided (seed, seats, preset, data hash, milestones, the
visible routes, the shop). Each event holds one action: who did what, time and endurance before
and after, every die at each stage of R50-R51, the effects and requirements of R52, the
effective stats of R49 and R53's comparison, XP, level-ups, purchases, round ends and the end of
the game. With RULES.md and a transcript every rule of that game can be checked by hand.
"""
import json

from sim.games.all_in_ascent import engine as E
from sim.games.all_in_ascent import state as S
from sim.games.all_in_ascent.data import AREAS, STATS, TIERS

STAGE_NAMES = ("rolled", "after_reroll", "after_power_tap", "after_sequence_memorization",
               "final")


class Transcript:
    def __init__(self, game):
        self.game = game
        self.header = {
            "type": "header",
            "game": "all-in-ascent",
            "seed": game.seed,
            "preset": game.rules.config.preset,
            "rules": game.rules.config.as_dict(),
            "data_file": game.rules.data.source,
            "data_sha256": game.rules.data.sha256,
            "characters": list(game.characters),
            "milestones": [
                {"tier": tier, "route": name, "area": game.rules.route_areas[
                    int(game.state[S.G_MILESTONES + i])]}
                for i, (tier, name) in enumerate(zip(TIERS, game.milestone_names()))],
            "visible": {area: game.visible_names(area) for area in AREAS},
            "shop": game.rotation_names(),
            "rng_state": int(game.state[S.G_RNG]),
        }
        self.events = []

    def add_action(self, before, after, trace):
        g = self.game
        seat = int(trace[S.T_ACTOR])
        code = int(trace[S.T_ACTION])
        b = S.player_offset(seat)
        event = {
            "type": "action",
            "n": len(self.events) + 1,
            "round": int(before[S.G_ROUND]),
            "seat": seat,
            "character": g.characters[seat],
            "action": _action_json(g, before, code),
            "time": [int(before[b + S.P_TIME]), int(trace[S.T_TIME_AFTER])],
            "endurance": [int(before[b + S.P_ENDURANCE]), int(trace[S.T_ENDURANCE_AFTER])],
            "xp": [int(before[b + S.P_XP]), int(after[b + S.P_XP])],
            "location": g.location_name(int(trace[S.T_LOCATION_AFTER])),
        }
        if S.CLIMB <= code < S.BUY_ROTATION:
            event["attempt"] = _attempt_json(g, trace)
        if code == S.REST and after[b + S.P_BETA] != 0:                # R39, as the engine set it
            event["beta_boost"] = True
        if code >= S.REDISTRIBUTE:
            event["stat_shift"] = {s: int(after[b + S.P_REDIST + i])
                                   for i, s in enumerate(STATS)}
        elif code >= S.BUY_ROTATION:
            card = int(trace[S.T_CARD])
            event["purchase"] = {"card": g.rules.card_names[card],
                                 "cost": int(g.rules.named.card_cost[card]),
                                 "max_endurance": int(after[b + S.P_MAX_ENDURANCE])}
            rep = int(trace[S.T_REPLACEMENT])
            if not g.rules.named.card_is_access[card]:
                event["purchase"]["replacement"] = (
                    None if rep == S.REPLACEMENT_SLOT_REMOVED else g.rules.card_names[rep])
                event["purchase"]["shop"] = _rotation(g, after)
        if int(trace[S.T_LEVELS_GAINED]) > 0:
            event["level_up"] = {
                "from": int(before[b + S.P_LEVEL]), "to": int(after[b + S.P_LEVEL]),
                "stats": {s: int(after[b + S.P_STATS + i]) for i, s in enumerate(STATS)},
                "max_endurance": int(after[b + S.P_MAX_ENDURANCE])}
        if int(trace[S.T_ROUND_ENDED]):
            area = int(trace[S.T_CLEARED_AREA])
            event["round_end"] = {
                "round": int(before[S.G_ROUND]),
                "cleared": AREAS[area],
                "new_routes": _visible(g, after, area),
                "belayers": int(after[S.G_BELAYERS]),
                "next_round": int(after[S.G_ROUND])}
        if int(after[S.G_OVER]):
            w = int(after[S.G_WINNER])
            event["game_over"] = {
                "reason": S.END_REASON_NAMES[int(after[S.G_END_REASON])],
                "winner_seat": None if w < 0 else w,
                "winner": None if w < 0 else g.characters[w]}
        else:
            event["next_seat"] = int(after[S.G_CURRENT])
        self.events.append(event)
        return event

    def records(self):
        return [self.header] + self.events

    def to_jsonl(self):
        return "\n".join(json.dumps(r, separators=(",", ":")) for r in self.records()) + "\n"

    def to_text(self):
        return render_text(self.records())


def _rotation(g, st):
    n = int(st[S.G_N_ROTATION])
    return [g.rules.card_names[int(c)] for c in st[S.G_ROTATION:S.G_ROTATION + n]]


def _visible(g, st, area):
    n = int(st[S.G_N_VISIBLE + area])
    base = S.G_VISIBLE + area * S.MAX_VISIBLE
    return [g.rules.route_names[int(r)] for r in st[base:base + n]]


def _action_json(g, before, code):
    if code == S.END_TURN:
        return {"kind": "endTurn"}
    if code == S.REST:
        return {"kind": "rest"}
    if code < S.CLIMB:
        return {"kind": "train", "station": g.rules.station_names[code - S.TRAIN]}
    if code < S.MILESTONE:
        area, slot = divmod(code - S.CLIMB, S.MAX_VISIBLE)
        rid = int(before[S.G_VISIBLE + area * S.MAX_VISIBLE + slot])
        return {"kind": "climb", "area": AREAS[area], "slot": slot,
                "route": g.rules.route_names[rid]}
    if code < S.BUY_ROTATION:
        tier = code - S.MILESTONE
        rid = int(before[S.G_MILESTONES + tier])
        return {"kind": "milestone", "tier": TIERS[tier], "area": g.rules.route_areas[rid],
                "route": g.rules.route_names[rid]}
    if code >= S.REDISTRIBUTE:
        source, target, points = E.redistribution_move(code)
        return {"kind": "redistribute", "from": STATS[source], "to": STATS[target],
                "points": int(points)}
    card = int(E.shop_card(before, g.tables, code))
    return {"kind": "buyGear", "card": g.rules.card_names[card]}


def _attempt_json(g, trace):
    rid = int(trace[S.T_ROUTE])
    stages = {}
    for k, name in enumerate(STAGE_NAMES):
        n = int(trace[S.T_N_DICE + k])
        stages[name] = [int(d) for d in trace[S.T_DICE + k * S.MAX_DICE:S.T_DICE + k * S.MAX_DICE + n]]
    n_eff = int(trace[S.T_N_EFFECTS])
    effects = []
    route_effects = int(g.rules.named.route_n_effects[rid])
    for i in range(n_eff):
        stat = int(trace[S.T_EFFECT_STAT + i])
        printed = (int(g.rules.named.route_effect_mod[rid, i]) if i < route_effects else 1)
        effects.append({"stat": STATS[stat], "modifier": printed,
                        "applied_modifier": int(trace[S.T_EFFECT_MOD + i]),
                        "die": int(trace[S.T_EFFECT_DIE + i]),
                        "source": "route" if i < route_effects else "sprinter"})
    req = {s: int(trace[S.T_REQ + i]) for i, s in enumerate(STATS)}
    eff = {s: int(trace[S.T_EFF_STATS + i]) for i, s in enumerate(STATS)}
    return {
        "route": g.rules.route_names[rid],
        "tag": g.rules.route_tags[rid],
        "base_requirements": {s: int(g.rules.named.route_req[rid, i]) for i, s in enumerate(STATS)},
        "time_cost": int(trace[S.T_EFF_TIME]),
        "endurance_cost": int(trace[S.T_EFF_ENDURANCE]),
        "beta_boost": int(trace[S.T_BETA_USED]),
        "dice": stages,
        "reroll_index": _opt(trace[S.T_REROLL_INDEX]),
        "sequence_memorization_index": _opt(trace[S.T_SEQMEM_INDEX]),
        "mountain_mentor_effect": _opt(trace[S.T_MENTOR_INDEX]),
        "effects": effects,
        "requirements": req,
        "effective_stats": eff,
        "passed": [s for s in STATS if eff[s] >= req[s]],
        "success": bool(trace[S.T_SUCCESS]),
        "xp_gained": int(trace[S.T_XP_GAINED]),
        "fail_penalty": int(trace[S.T_PENALTY]),
        "success_heal": int(trace[S.T_HEAL]),
    }


def _opt(v):
    v = int(v)
    return None if v < 0 else v


_SHORT = {"strength": "Str", "technique": "Tec", "focus": "Foc", "flexibility": "Flx"}


def render_text(records):
    """The play-by-play: one line per action, with the dice and the comparison for climbs."""
    head = records[0]
    out = [f"All-In Ascent {head['preset']} - seed {head['seed']} - data {head['data_file']} "
           f"(sha256 {head['data_sha256'][:12]})",
           # people count seats from 1 (the JSONL and the tables keep the 0-based index)
           "Seats: " + ", ".join(f"{i + 1}={c}" for i, c in enumerate(head["characters"])),
           "Milestones: " + "; ".join(f"{m['tier']} {m['route']} ({m['area']})"
                                      for m in head["milestones"]),
           ]
    for area, routes in head["visible"].items():
        out.append(f"  {area}: " + ", ".join(routes))
    out.append("Shop: " + ", ".join(head["shop"]))
    # R51.2: which dice the Power Tap Belt keeps follows the switch the game was played under
    kept = "highest" if head["rules"]["switches"].get("power_tap_keeps") == "best" else "lowest"
    current_round = None
    for ev in records[1:]:
        if ev["round"] != current_round:
            current_round = ev["round"]
            out.append(f"-- Round {current_round} --")
        who = f"[{ev['seat'] + 1}] {ev['character']}"
        act = ev["action"]
        t0, t1 = ev["time"]
        e0, e1 = ev["endurance"]
        res = f"(time {t0}->{t1}, end {e0}->{e1})"
        kind = act["kind"]
        if kind == "endTurn":
            line = f"{who} ends the turn {res}"
        elif kind == "rest":
            line = f"{who} rests {res}" + (", Beta Boost ready" if ev.get("beta_boost") else "")
        elif kind == "train":
            line = f"{who} trains at {act['station']} {res}"
        elif kind in ("climb", "milestone"):
            a = ev["attempt"]
            what = (f"climbs {a['route']} ({act['area']})" if kind == "climb"
                    else f"attempts the {act['tier']} milestone {a['route']} ({act['area']})")
            dice = a["dice"]
            d = f"dice {dice['rolled']}"
            if a["reroll_index"] is not None:
                d += f" -> re-roll #{a['reroll_index']} {dice['after_reroll']}"
            if dice["after_power_tap"] != dice["after_reroll"]:
                d += f" -> keep {kept} {dice['after_power_tap']}"
            if a["sequence_memorization_index"] is not None:
                d += f" -> memorized {dice['after_sequence_memorization']}"
            if dice["final"] != dice["after_sequence_memorization"]:
                d += f" -> coach {dice['final']}"
            cmp = " ".join(
                f"{_SHORT[s]} {a['effective_stats'][s]}{'>=' if s in a['passed'] else '<'}"
                f"{a['requirements'][s]}" for s in STATS)
            verdict = "SUCCESS" if a["success"] else "fail"
            line = (f"{who} {what}: {d}; {cmp}; {verdict}, +{a['xp_gained']} XP {res}")
            if a["beta_boost"]:
                line += f" [Beta Boost +{a['beta_boost']}]"
        elif kind == "redistribute":
            line = (f"{who} moves {act['points']} points from {act['from']} to {act['to']} "
                    f"for this round {res}")
        else:
            p = ev["purchase"]
            line = f"{who} buys {p['card']} for {p['cost']} XP {res}"
            if "replacement" in p:
                line += (f"; shop slot refilled with {p['replacement']}" if p["replacement"]
                         else "; shop slot removed (nothing left)")
        out.append(line)
        if "level_up" in ev:
            lu = ev["level_up"]
            stats = "/".join(str(lu["stats"][s]) for s in STATS)
            out.append(f"    level {lu['from']} -> {lu['to']}: stats {stats}, "
                       f"max endurance {lu['max_endurance']}")
        if "round_end" in ev:
            re_ = ev["round_end"]
            out.append(f"== End of round {re_['round']}: {re_['cleared']} cleared -> "
                       f"{', '.join(re_['new_routes'])}; belayers {re_['belayers']}")
        if "game_over" in ev:
            go = ev["game_over"]
            if go["winner"] is not None:
                out.append(f"** Game over: seat {go['winner_seat'] + 1} ({go['winner']}) completes "
                           f"all three milestones and wins.")
            else:
                out.append(f"** Game over: {go['reason']}, no winner.")
    return "\n".join(out) + "\n"
