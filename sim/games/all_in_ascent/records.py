"""Final states -> the per-game and per-seat tables (the record schema downstream code reads).

RECORD_SCHEMA_VERSION goes into every manifest; change it whenever a column changes meaning.
"""
import numpy as np

from sim.core.records import column as _col
from sim.core.records import codes_of, games_columns, rows_of, table
from sim.core.records import seats_table as build_seats_table
from sim.games.all_in_ascent import state as S
from sim.games.all_in_ascent.data import AREAS, CHARACTER_KEYS, STATS, TIERS, record_key
from sim.games.all_in_ascent.kernel import END_ACTION_CAP, END_POLICY_ERROR

RECORD_SCHEMA_VERSION = 2     # 2: turns_ended_early counts only while more than resting was legal
END_REASONS = {S.END_WINNER: "winner", S.END_MAX_ROUNDS: "max_rounds",
               END_ACTION_CAP: "action_cap", END_POLICY_ERROR: "policy_error"}
# the engine's end reason numbers, in the order of the column's categories; 0 (no end) is "none"
END_REASON_KEYS = (*END_REASONS, 0)



def games_table(batch, rules):
    f = batch.final
    n = f.shape[0]
    winner = _col(f, S.G_WINNER)
    chars = batch.characters
    winner_char = np.where(winner >= 0, chars[np.arange(n), np.maximum(winner, 0)], -1)
    cols = {
        **games_columns(batch.first_index, batch.seeds, _col(f, S.G_N_PLAYERS)),
        "winner_seat": winner,
        "winner_character": winner_char + 1,
        # rounds played: a round-cap end has already advanced the round counter past the cap
        "rounds": _col(f, S.G_ROUND) - (_col(f, S.G_END_REASON) == S.END_MAX_ROUNDS),
        "end_reason": codes_of("end_reason", _col(f, S.G_END_REASON), END_REASON_KEYS),
        "actions": _col(f, S.G_N_ACTIONS),
    }
    tags = [t or "none" for t in rules.route_tags]
    # categories from the rules, not from the games of one chunk: a table's dtypes and category
    # order must not depend on how the run was chunked
    route_names = list(dict.fromkeys(rules.route_names))
    tag_names = sorted(set(tags))
    categories = {"winner_character": ["none"] + list(CHARACTER_KEYS),
                  "end_reason": list(END_REASONS.values()) + ["none"]}
    # each route's code in the three categorical columns of a milestone
    route_code = np.array([route_names.index(name) for name in rules.route_names])
    area_code = np.array([AREAS.index(area) for area in rules.route_areas])
    tag_code = np.array([tag_names.index(tag) for tag in tags])
    for tier, tname in enumerate(TIERS):
        rid = _col(f, S.G_MILESTONES + tier)
        cols[f"milestone_{tname}"] = route_code[rid]
        cols[f"milestone_{tname}_area"] = area_code[rid]
        cols[f"milestone_{tname}_tag"] = tag_code[rid]
        categories.update({f"milestone_{tname}": route_names,
                           f"milestone_{tname}_area": list(AREAS),
                           f"milestone_{tname}_tag": tag_names})
    return table(cols, categories)


def seats_table(batch, rules):
    f = batch.final
    winner = f[:, S.G_WINNER]

    policies = list(dict.fromkeys(batch.seat_policies))

    def seat_columns(seat, rows):
        b = S.player_offset(seat)
        sub = rows_of(f, rows)
        cols = {
            "character": batch.characters[rows, seat],
            "policy": np.full(rows.sum(), policies.index(batch.seat_policies[seat])),
            "won": winner[rows] == seat,
            "milestones": ((sub[:, b + S.P_DONE] & 1) + ((sub[:, b + S.P_DONE] >> 1) & 1)
                           + ((sub[:, b + S.P_DONE] >> 2) & 1)).astype(np.int8),
        }
        # small dtypes: a million-game run has four million seat rows
        for tier, tname in enumerate(TIERS):
            r = sub[:, b + S.P_MS_ROUND + tier].astype(np.int16)
            cols[f"milestone_{tname}_round"] = np.where(r > 0, r, np.int16(-1))
        cols["level"] = sub[:, b + S.P_LEVEL].astype(np.int16)
        cols["xp_total"] = (sub[:, b + S.P_XP] + sub[:, b + S.P_XP_SPENT]).astype(np.int32)
        cols["xp_spent"] = sub[:, b + S.P_XP_SPENT].astype(np.int32)
        gear = sub[:, b + S.P_GEAR].astype(np.int64)
        for g, card in enumerate(rules.card_names):
            key = record_key(card)
            cols[f"owns_{key}"] = (gear >> g) & 1 == 1
            r = sub[:, b + S.P_GEAR_ROUND + g].astype(np.int16)
            cols[f"bought_round_{key}"] = np.where(r > 0, r, np.int16(-1))
        for a, area in enumerate(AREAS):
            cols[f"climbs_{area}"] = sub[:, b + S.P_CLIMBS + a].astype(np.int32)
            cols[f"climbs_ok_{area}"] = sub[:, b + S.P_CLIMBS_OK + a].astype(np.int32)
        for tier, tname in enumerate(TIERS):
            cols[f"milestone_{tname}_attempts"] = sub[:, b + S.P_MS_TRIES + tier].astype(np.int32)
        for s, stat in enumerate(STATS):
            cols[f"trainings_{stat}"] = sub[:, b + S.P_TRAININGS + s].astype(np.int32)
        cols["rests"] = sub[:, b + S.P_RESTS].astype(np.int32)
        cols["turns_ended_early"] = sub[:, b + S.P_EARLY_ENDS].astype(np.int32)
        return cols

    return build_seats_table(batch.first_index, f[:, S.G_N_PLAYERS], seat_columns,
                             {"character": CHARACTER_KEYS, "policy": policies})
