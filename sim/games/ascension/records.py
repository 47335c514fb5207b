"""Ascension records -> the per-game and per-seat tables (the schema downstream code reads).

RECORD_SCHEMA_VERSION goes into every manifest; change it whenever a column changes meaning.
Counters are defined in state.py (TALLY_FIELDS, global tallies); no rule reads them. In the
seat table, first_summit_turn and elimination_turn are -1 for "never". `won` is the seat's win
as the rules define it: under the switch partnership a team wins when either partner wins (A48),
so both partners have won, as a tie is a win for each winner elsewhere; `own_win` is the seat
that finished the race itself (the games table's winner_seat).
"""
import numpy as np

from sim.core.records import column as _col
from sim.core.records import games_columns, rows_of, table
from sim.core.records import seats_table as build_seats_table
from sim.games.ascension import state as S
from sim.games.ascension.rules import C_PARTNERSHIP

# 2: first_block_phase; 3: under partnership `won` is the team's win (A48), `own_win` the seat's
RECORD_SCHEMA_VERSION = 3
RECORD_SCHEMA_UNNAMED = 2     # an experiment identity that names no schema (GameSpec)
GAME = "ascension"



def games_table(batch, rules):
    r = batch.records
    n = r.shape[0]
    winner = _col(r, S.G_WINNER)
    first = _col(r, S.G_FIRST_SUMMIT_SEAT)
    players = _col(r, S.G_N_PLAYERS)
    blocks = np.zeros(n, np.int64)
    elims = np.zeros(n, np.int64)
    for seat in range(S.MAX_PLAYERS):
        blocks += _col(r, S.S_BLOCKS + seat)
        elims += (_col(r, S.T_ELIM_RACE + seat) >= 0).astype(np.int64)
    cols = {
        **games_columns(batch.first_index, batch.seeds, players),
        "winner_seat": winner,
        "winner_policy": np.where(winner >= 0,
                                  batch.seat_policies[np.arange(n), np.maximum(winner, 0)],
                                  len(batch.policies)),
        # reason 0 (no end) has no category: missing, as in a game still in play
        "end_reason": _col(r, S.G_END_REASON) - 1,
        "turns": _col(r, S.G_TURN_COUNT),
        "decisions": _col(r, S.G_DECISIONS),
        "first_summit_seat": first,
        "first_summit_turn": _col(r, S.G_FIRST_SUMMIT_TURN),
        "winner_first_summiter": (winner >= 0) & (winner == first),
        "privileged_at_end": _col(r, S.G_PRIVILEGED),
        "privilege_losses": _col(r, S.G_PRIV_LOSSES),
        # losses whose privileges went at once to a pawn already holding summit status (A42,
        # earliest_holder); privileges left vacant and taken later are not counted
        "privilege_passes": _col(r, S.G_PRIV_PASSES),
        "joker_removals": _col(r, S.G_JOKER_REMOVALS),
        "pillar_raises": _col(r, S.G_PILLAR_RAISES),
        "piece_phases_skipped": _col(r, S.G_PIECE_SKIPS),
        "tallest_stack": _col(r, S.G_TALLEST_STACK),
        "blocks": blocks,
        "eliminations": elims,
        **{f"reveals_{S.SYMBOL_NAMES[sym]}": _col(r, S.G_REVEALS + sym) for sym in range(1, 7)},
    }
    return table(cols, {"winner_policy": list(batch.policies) + ["none"],
                        "end_reason": S.END_REASON_NAMES[1:]})


SEAT_COUNTERS = {
    "turns": S.T_TURNS, "extra_turns": S.T_EXTRA_TURNS, "bonus_turns": S.T_BONUS_TURNS,
    "piece_moves": S.T_PIECE_MOVES, "face_up_placements": S.T_FACE_UP_PLACEMENTS,
    "specials_revealed": S.T_REVEALS_OWN, "pillar_raises": S.T_PILLAR_RAISES,
    "half_cubes_placed": S.T_HALF_PLACED, "joker_placed": S.T_JOKER_PLACED,
    "first_summit_turn": S.T_FIRST_SUMMIT_TURN, "summit_arrivals": S.T_SUMMIT_ARRIVALS,
    "privileges_gained": S.T_PRIV_GAINED, "blocks_ascent": S.T_BLOCK_ASCENT,
    "blocks_summit": S.T_BLOCK_SUMMIT, "blocks_descent": S.T_BLOCK_DESCENT,
    "elimination_turn": S.T_ELIM_TURN, "best_height": S.T_BEST_HEIGHT,
    "pawn_moves": S.T_PAWN_MOVES, "ladder_climbs": S.T_LADDER_CLIMBS,
    "mattress_drops": S.T_MATTRESS_DROPS, "spring_steps": S.T_SPRING_STEPS,
    "cable_rides": S.T_CABLE_RIDES, "bivouac_stays": S.T_BIVOUAC_STAYS,
    "chasm_denials": S.T_CHASM_DENIALS, "corner_waits": S.T_CORNER_WAITS,
}


PHASES = ("none",) + S.RACE_NAMES


def seats_table(batch, rules):
    r = batch.records
    winner = r[:, S.G_WINNER]
    partnership = bool(rules.config[C_PARTNERSHIP])

    def seat_columns(seat, rows):
        sub = rows_of(r, rows)
        race = sub[:, S.T_ELIM_RACE + seat]
        first_block = sub[:, S.T_FIRST_BLOCK_RACE + seat]
        cols = {
            "policy": batch.seat_policies[rows, seat],
            # A48: seats 0+2 play against 1+3
            "won": ((winner[rows] >= 0) & (winner[rows] % 2 == seat % 2)) if partnership
            else winner[rows] == seat,
            "own_win": winner[rows] == seat,
            "blocks": sub[:, S.S_BLOCKS + seat].astype(np.int16),
            "eliminated": race >= 0,
            "elimination_phase": np.maximum(race, -1) + 1,      # -1 (never): "none"
            "first_block_phase": np.maximum(first_block, -1) + 1,
            "summit_at_end": sub[:, S.S_SUMMIT + seat] == 1,
            "ever_summit": sub[:, S.S_EVER_SUMMIT + seat] == 1,
        }
        for name, offset in SEAT_COUNTERS.items():
            cols[name] = sub[:, offset + seat].astype(np.int32)
        return cols

    return build_seats_table(batch.first_index, r[:, S.G_N_PLAYERS], seat_columns,
                             {"policy": batch.policies, "elimination_phase": PHASES,
                              "first_block_phase": PHASES})
