"""First Ascent records -> the per-game and per-seat tables (the schema downstream code reads).

RECORD_SCHEMA_VERSION goes into every manifest; change it whenever a column changes meaning.
Counters are the tallies of state.py; no rule reads them.
"""
import numpy as np

from sim.core.records import column as _col
from sim.core.records import games_columns, rows_of, table
from sim.core.records import seats_table as build_seats_table
from sim.games.first_ascent import state as S
from sim.games.first_ascent.data import CHARACTER_KEYS, SB_NAMES

RECORD_SCHEMA_VERSION = 1
GAME = "first-ascent"



def games_table(batch, rules):
    r = batch.records
    cols = {
        **games_columns(batch.first_index, batch.seeds, _col(r, S.G_PLAYERS)),
        "board": (_col(r, S.G_SIDE) != 0).astype(np.int8),      # side 0: desert
        "rounds": _col(r, S.G_ROUND),
        # reason 0 (no end) has no category: missing, as in a game still in play
        "end_reason": _col(r, S.G_END_REASON) - 1,
        "winners": _col(r, S.G_N_WINNERS),
        "decisions": _col(r, S.G_DECISIONS),
        "deck_rebuilds": _col(r, S.G_DECK_RESHUFFLES),
        "deck_ran_dry": _col(r, S.G_DECK_DRY) == 1,
        "spread_stuck": _col(r, S.G_SPREAD_STUCK),
        "summit_beta_reshuffles": _col(r, S.G_SB_RESHUFFLES),
        **{f"shared_{i + 1}": _col(r, S.G_SHARED + i) for i in range(3)},
    }
    return table(cols, {"board": ["desert", "forest"], "end_reason": S.END_REASON_NAMES[1:]})


SEAT_FIELDS = {
    "score": S.S_SCORE, "points_pitches": S.S_SC_PITCH, "points_summits": S.S_SC_SUMMIT,
    "points_shared": S.S_SC_SHARED, "points_sets": S.S_SC_SETS,
    "points_spider_stick": S.S_SC_SPIDER, "points_personal": S.S_SC_PERSONAL,
    "pitches": S.S_ROUTE_N, "permanent_gained": S.S_PERM_GAINED, "water": S.S_WATER,
    "psych": S.S_PSYCH, "personal_1": S.S_PERSONAL, "personal_2": S.S_PERSONAL + 1,
    "personal_scored": S.S_PERSONAL_SCORED,
}
TALLIES = {
    "climbs": S.T_CLIMBS, "risks": S.T_RISKS, "risk_retreats": S.T_RISK_RETREATS,
    "risk_check": S.T_RISK_CHECK, "risk_minus_2_cards": S.T_RISK_MINUS2,
    "risk_minus_1_card_1_psych": S.T_RISK_MINUS1, "rests": S.T_RESTS,
    "forced_rests": S.T_FORCED_RESTS, "trades": S.T_TRADES, "card_passes": S.T_CARD_PASSES,
    "card_rolls": S.T_CARD_ROLLS, "sets": S.T_SETS, "permanent_tokens": S.T_PERM_TOKENS,
    "summit_beta_gained": S.T_SB_GAINED, "chalkbag_rerolls": S.T_CHALKBAG_REROLLS,
    "jesus_piece_uses": S.T_JESUS_USES, "cards_given": S.T_CARDS_GIVEN,
    "cards_received": S.T_CARDS_RECEIVED, "climbing_cards": S.T_CLIMB_CARDS,
    "summits": S.T_SUMMITS, "headwall_pitches": S.T_HEADWALL, "round_of_8th": S.T_ROUND_8TH,
    "stranded": S.T_STRANDED,
}
SB_KEYS = {i: SB_NAMES[i].lower().replace(" ", "_") for i in SB_NAMES}


def seats_table(batch, rules):
    r = batch.records
    winners = r[:, S.G_WINNER]

    def seat_columns(seat, rows):
        sub = rows_of(r, rows)
        off = seat * S.SEAT_FIELDS
        won = (winners[rows] >> seat) & 1 == 1
        cols = {
            "policy": batch.seat_policies[rows, seat],
            # characters are numbered from 1; 0 (none) reads as missing
            "character": sub[:, S.S_CHAR + off] - 1,
            "won": won,
            "won_alone": won & (sub[:, S.G_N_WINNERS] == 1),
            "win_share": np.where(won, 1.0 / np.maximum(sub[:, S.G_N_WINNERS], 1), 0.0),
        }
        for name, at in SEAT_FIELDS.items():
            cols[name] = sub[:, at + off].astype(np.int32)
        for name, at in TALLIES.items():
            cols[name] = sub[:, at + seat].astype(np.int32)
        for sb, key in SB_KEYS.items():
            cols[f"used_{key}"] = sub[:, S.T_SB_USED + seat * 13 + sb].astype(np.int16)
        for so in range(1, 17):
            cols[f"shared_points_{so}"] = sub[:, S.T_SHARED_POINTS + seat * 17 + so].astype(
                np.int16)
        return cols

    return build_seats_table(batch.first_index, r[:, S.G_PLAYERS], seat_columns,
                             {"policy": batch.policies,
                              "character": [CHARACTER_KEYS[i] for i in range(1, 13)]})
