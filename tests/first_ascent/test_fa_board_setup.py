"""First Ascent data and setup rules (RULES.md F1-F24): the component counts, data.json's
validation, the board tables (adjacency, rows, named areas, hex values, printed tiles) and
engine.setup / engine.deal_starting_hands on several seeds and player counts.

Expected values come from RULES.md (parsed from its text where it prints lists) or are
written out here; the engine's packed tables and set-up states are checked against them."""
import copy
import json
import re
from pathlib import Path

import numpy as np
import pytest

from fa_helpers import agents, new_game
from sim.games.first_ascent import engine
from sim.games.first_ascent.data import (
    BM_BELOW_LEDGE, BM_FACE_UP_START, BM_HEADWALL, BM_NORTH, BM_ROW, BM_SOUTH, BM_SUMMIT,
    CH_FIELDS, CH_LIMIT, CH_MAX, CH_REST, CH_START_PSYCH, CH_START_SB, CH_START_WATER, DATA,
    DATA_PATH, N_BOARD_MASKS, N_HEX, N_KINDS, SO_FIELDS, SO_POINTS, T_B_FIXED, T_B_GEO,
    T_B_LOWER, T_B_MASK, T_B_NEIGH, T_B_NHEX, T_B_ROW, T_B_USED, T_B_VALUE, T_CC_NOPT, T_CH,
    T_CH_BOARD, T_HAND_BY_SEAT, T_KIND_COUNT, T_KIND_TECH, T_KIND_TYPE, T_P_SHADE, T_P_TYPE,
    T_P_VALUE, T_SO, TABLES, DataError, load_data)
from sim.games.first_ascent.state import (
    BOARD_DOWN, BOARD_UP, CDECK, DECK, DISCARD, G_CDECK_POS, G_CURRENT, G_DECK_N,
    G_DISCARD_N, G_ELITIST_START, G_FIRST, G_POLICY_ERROR, G_HEADWALL_UP, G_OVER, G_PLAYERS, G_ROUND, G_SB_N,
    G_SHARED, G_SIDE, HAND, MAX_PLAYERS, PILE, PILE_CAP, PILE_N, S_CHAR, S_HEX, S_PERSONAL,
    S_PSYCH, S_ROUTE_MASK, S_ROUTE_N, S_SB, S_SC_SHARED, S_SCORE, S_WATER, SB_DISCARD,
    SB_SUPPLY, SEAT_FIELDS, SPREAD, TILE)

RULES_MD = Path(__file__).resolve().parents[3] / "shared" / "first-ascent" / "RULES.md"
SIDES = ("desert", "forest")
GEAR, FACE, CRACK, SLAB = 0, 1, 2, 3
ELITIST = 11
PHIL = 8
SEEDS = (1, 2, 3, 7, 11, 42, 1234, 99991)


def rules_text():
    if not RULES_MD.exists():
        pytest.skip("RULES.md not available")
    return RULES_MD.read_text()


def bits(mask):
    return {h for h in range(64) if (int(mask) >> h) & 1}


def seat(field, s):
    return field + s * SEAT_FIELDS


def board(side):
    return DATA["boards"][SIDES[side]]


# spec rows (F8), written out from the rule text
ROWS = {
    0: [range(1, 9), range(9, 16), range(16, 22), range(22, 27), range(27, 31), range(31, 33)],
    1: [range(1, 11), range(11, 20), range(20, 28), range(28, 35), range(35, 41),
        range(41, 44)],
}
NHEX = {0: 32, 1: 43}


def row_of(side, h):
    for r, hexes in enumerate(ROWS[side], start=1):
        if h in hexes:
            return r
    raise KeyError(h)


# =========================================================================================
# data counts (F2-F6)
# =========================================================================================

def test_asset_cards_f2():
    # F2: 124 cards of 37 kinds; gear 40, face 28, crack 28, slab 28
    kinds = [k for k in range(1, N_KINDS) if TABLES[T_KIND_COUNT + k] > 0]
    assert len(kinds) == 37 and len(DATA["asset_kinds"]) == 37
    assert int(TABLES[T_KIND_COUNT:T_KIND_COUNT + N_KINDS].sum()) == 124
    by_type = [0, 0, 0, 0]
    for k in kinds:
        by_type[int(TABLES[T_KIND_TYPE + k])] += int(TABLES[T_KIND_COUNT + k])
    assert by_type == [40, 28, 28, 28]
    # F2: 15 wild cards, all gear: Locker, Rope, Helmet, Belay Device, Harness, 3 each
    wild = {DATA["asset_kinds"][k - 1]["name"]: int(TABLES[T_KIND_COUNT + k])
            for k in kinds if TABLES[T_KIND_TECH + k] == 5}
    assert wild == {"Locker": 3, "Rope": 3, "Helmet": 3, "Belay Device": 3, "Harness": 3}
    assert all(TABLES[T_KIND_TYPE + k] == GEAR for k in kinds if TABLES[T_KIND_TECH + k] == 5)
    # F2: 28 cards without a symbol: 8 each of crack, face, slab and 4 gear
    plain = [0, 0, 0, 0]
    for k in kinds:
        if TABLES[T_KIND_TECH + k] == 0:
            plain[int(TABLES[T_KIND_TYPE + k])] += int(TABLES[T_KIND_COUNT + k])
    assert plain == [4, 8, 8, 8] and sum(plain) == 28
    # F2: at most one symbol per card: the technique code is one of none..wild
    assert all(0 <= TABLES[T_KIND_TECH + k] <= 5 for k in kinds)


def test_pitch_tiles_f3():
    # F3: 43 tiles; 7 of each of six types + The Trifecta (36, type any, shade both)
    assert len(DATA["pitches"]) == 43
    types = [int(TABLES[T_P_TYPE + i]) for i in range(1, 44)]
    assert sorted(types.count(x) for x in range(6)) == [7] * 6
    assert types.count(6) == 1 and types[36 - 1] == 6
    # F3: printed values 1-5 on 12/12/7/6/6 tiles
    values = [int(TABLES[T_P_VALUE + i]) for i in range(1, 44)]
    assert [values.count(v) for v in range(1, 6)] == [12, 12, 7, 6, 6]
    # F3: shade sun/shade, The Trifecta both
    shades = [int(TABLES[T_P_SHADE + i]) for i in range(1, 44)]
    assert shades[36 - 1] == 2
    assert all(s in (0, 1) for i, s in enumerate(shades, start=1) if i != 36)


def test_climbing_cards_f4():
    # F4: 70 distinct cards; 2, 6, 36, 41, 50, 54, 63 have a single effect, the rest A or B
    assert sorted(c["id"] for c in DATA["climbing_cards"]) == list(range(1, 71))
    single = {i for i in range(1, 71) if TABLES[T_CC_NOPT + i] == 1}
    assert single == {2, 6, 36, 41, 50, 54, 63}
    assert all(TABLES[T_CC_NOPT + i] == 2 for i in range(1, 71) if i not in single)
    for c in DATA["climbing_cards"]:
        labels = [o["label"] for o in c["options"]]
        assert labels == (["A"] if c["id"] in single else ["A", "B"]), c["id"]


def test_tokens_objectives_characters_f5():
    # F5: 12 Summit Beta, 16 shared, 12 personal, 12 characters on 6 double-sided boards
    assert sorted(x["id"] for x in DATA["summit_beta_tokens"]) == list(range(1, 13))
    assert sorted(x["id"] for x in DATA["shared_objectives"]) == list(range(1, 17))
    assert sorted(x["id"] for x in DATA["personal_objectives"]) == list(range(1, 13))
    assert sorted(x["id"] for x in DATA["characters"]) == list(range(1, 13))
    # F5: pairs 1/2, 3/4, ..., 11/12 share a board (packed and in the data)
    for c in DATA["characters"]:
        assert c["player_board"] == (c["id"] + 1) // 2
        assert TABLES[T_CH_BOARD + c["id"]] == (c["id"] + 1) // 2


def test_character_numbers_f7_f50_f56_f64_f75():
    # F7: tracks 0..6, Phil 0..7; F64-F75: start values; F50: token limits; F56/F65/F71: rests
    start = {1: 4, 2: 6, 3: 4, 4: 5, 5: 6, 6: 4, 7: 5, 8: 7, 9: 4, 10: 6, 11: 4, 12: 6}
    limit = {i: 6 for i in range(1, 13)}
    limit.update({1: 5, 6: 4, 11: 4})
    for i in range(1, 13):
        at = T_CH + CH_FIELDS * i
        assert TABLES[at + CH_START_WATER] == TABLES[at + CH_START_PSYCH] == start[i], i
        assert TABLES[at + CH_MAX] == (7 if i == PHIL else 6), i
        assert TABLES[at + CH_LIMIT] == limit[i], i
        assert TABLES[at + CH_REST] == (6 if i in (2, PHIL) else 5), i
        assert TABLES[at + CH_START_SB] == (2 if i == PHIL else 0), i


def test_six_rope_and_setup_numbers_f6_f17_f24():
    # F6: 7 ropes each; F17: 7 per Portaledge pile; F18: 4 in the Spread; F24: 5/5/6/7/8
    s = DATA["setup"]
    assert s["ropes_per_player"] == 7 and s["portaledge_per_type"] == 7
    assert s["spread_size"] == 4
    assert list(TABLES[T_HAND_BY_SEAT:T_HAND_BY_SEAT + 5]) == [5, 5, 6, 7, 8]


# =========================================================================================
# load_data on broken copies: DataError names the file and the field
# =========================================================================================

def _broken(tmp_path, mutate, name="broken.json"):
    data = copy.deepcopy(json.loads(Path(DATA_PATH).read_text()))
    mutate(data)
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_load_data_accepts_the_shipped_file_f2_f5():
    # F2-F5: the shipped file loads and matches the shared copy
    assert load_data(DATA_PATH)["counts"]["asset_cards"] == 124


@pytest.mark.parametrize("mutate, field", [
    # F3: a pitch type outside slab/roof/corner/arete/flake/crack/any
    (lambda d: d["pitches"][4].__setitem__("type", "chimney"), "pitches[id=5].type"),
    # F3: a printed value outside 1-5
    (lambda d: d["pitches"][0].__setitem__("value", 6), "pitches[id=1].value"),
    # F7/F22: a character without a start value
    (lambda d: d["characters"][0].pop("start_water"), "characters[id=1].start_water"),
    # F3: a missing requirement
    (lambda d: d["pitches"][2]["requirements"].pop("psych"),
     "pitches[id=3].requirements.psych"),
    # F3: 42 pitches instead of 43
    (lambda d: d["pitches"].pop(), "pitches"),
    # F2: the counts add up to 125
    (lambda d: d["asset_kinds"][0].__setitem__("count", 5), "asset_kinds[].count"),
    # F4: a climbing card id twice
    (lambda d: d["climbing_cards"][1].__setitem__("id", 1), "climbing_cards[].id"),
    # F10: a neighbour outside the board
    (lambda d: d["boards"]["desert"]["neighbours"]["1"].append(40),
     "boards.desert.neighbours.1"),
    # F50: a token threshold missing a type
    (lambda d: d["characters"][5]["permanent_threshold"].pop("slab"), "characters[id=6]"),
])
def test_load_data_rejects_broken_copies_f2_f3_f5(tmp_path, mutate, field):
    # F2-F5, F10: a wrong file fails with DataError naming the file and the field
    path = _broken(tmp_path, mutate)
    with pytest.raises(DataError) as err:
        load_data(path)
    msg = str(err.value)
    assert str(path) in msg, msg
    assert field in msg, msg


def test_load_data_missing_file_and_bad_json(tmp_path):
    # F2: a file that is missing or not JSON is a DataError naming it
    with pytest.raises(DataError, match="nope.json"):
        load_data(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(DataError, match="bad.json"):
        load_data(bad)


# =========================================================================================
# the board (F8-F13)
# =========================================================================================

@pytest.mark.parametrize("side", [0, 1])
@pytest.mark.parametrize("key, off", [("neighbours", T_B_NEIGH),
                                      ("geometric_neighbours", T_B_GEO),
                                      ("same_row_or_lower_neighbours", T_B_LOWER)])
def test_packed_adjacency_equals_data_f10(side, key, off):
    # F10(e): the packed bitmasks are data.json's three adjacency lists, every hex
    table = board(side)[key]
    for h in range(N_HEX):
        want = set(table.get(str(h), []))
        assert bits(TABLES[off + N_HEX * side + h]) == want, (SIDES[side], key, h)


def _rules_geometric_lists():
    text = rules_text()
    start = text.index("The geometric lists:")
    end = text.index("**F11**")
    block = text[start:end]
    desert, forest = block.split("- Forest:")
    out = []
    for part in (desert.split("- Desert:")[1], forest):
        lists = {}
        for h, nbs in re.findall(r"(\d+):\s*(\d+(?:,\d+)*)", part):
            lists[int(h)] = {int(x) for x in nbs.split(",")}
        out.append(lists)
    return out


@pytest.mark.parametrize("side", [0, 1])
def test_geometric_neighbours_equal_rules_text_f10(side):
    # F10(e): data.json's geometric_neighbours are the lists printed in RULES.md
    printed = _rules_geometric_lists()[side]
    assert sorted(printed) == list(range(1, NHEX[side] + 1))
    for h in range(1, NHEX[side] + 1):
        assert bits(TABLES[T_B_GEO + N_HEX * side + h]) == printed[h], (SIDES[side], h)


@pytest.mark.parametrize("side", [0, 1])
def test_adjacency_rebuilt_from_f10_abcd(side):
    # F10(a)-(c) rebuild the geometric adjacency; (d) adds the Ledge; F9 hex 0 -> row 1
    rows = [list(r) for r in ROWS[side]]
    geo = {h: set() for h in range(1, NHEX[side] + 1)}

    def link(a, b):
        geo[a].add(b)
        geo[b].add(a)
    for r in range(5):                                   # F10(a): rows 1-5 consecutive
        for a, b in zip(rows[r], rows[r][1:]):
            link(a, b)
    for r in range(4):                                   # F10(b): staggered rows 1-5
        for i, h in enumerate(rows[r + 1]):
            link(h, rows[r][i])
            link(h, rows[r][i + 1])
    summits = {0: {31: (27, 28), 32: (29, 30)},          # F10(c)
               1: {41: (35, 36), 42: (37, 38), 43: (39, 40)}}[side]
    for s, below in summits.items():
        for h in below:
            link(s, h)
    for h in range(1, NHEX[side] + 1):
        assert bits(TABLES[T_B_GEO + N_HEX * side + h]) == geo[h], (SIDES[side], h)
    # F10(c): summits are not neighbours of each other, in any table
    for s in summits:
        for off in (T_B_NEIGH, T_B_GEO, T_B_LOWER):
            assert not bits(TABLES[off + N_HEX * side + s]) & set(summits), s
    # F10(d): rows 3 and 4 all-to-all in `neighbours`; nothing else added
    ledge = set(rows[2]) | set(rows[3])
    for h in range(1, NHEX[side] + 1):
        want = set(geo[h])
        if h in ledge:
            want |= ledge - {h}
        assert bits(TABLES[T_B_NEIGH + N_HEX * side + h]) == want, (SIDES[side], h)
    # F9: hex 0 neighbours exactly row 1
    assert bits(TABLES[T_B_NEIGH + N_HEX * side]) == set(rows[0])
    # card 50 (F48): same-row-or-lower = geometric neighbours not in a higher row
    for h in range(1, NHEX[side] + 1):
        want = {x for x in geo[h] if row_of(side, x) <= row_of(side, h)}
        assert bits(TABLES[T_B_LOWER + N_HEX * side + h]) == want, (SIDES[side], h)


@pytest.mark.parametrize("side", [0, 1])
@pytest.mark.parametrize("off", [T_B_NEIGH, T_B_GEO])
def test_adjacency_symmetric_no_self_f10e(side, off):
    # F10(e): adjacency is symmetric (hex 0 excepted: nobody returns there, F9); no self loops
    for h in range(1, N_HEX):
        nbs = bits(TABLES[off + N_HEX * side + h])
        assert h not in nbs and 0 not in nbs
        for x in nbs:
            assert h in bits(TABLES[off + N_HEX * side + x]), (SIDES[side], h, x)
        if h > NHEX[side]:
            assert not nbs


@pytest.mark.parametrize("side", [0, 1])
def test_rows_f8(side):
    # F8: hex count and row of each hex, numbered bottom-up, left to right
    assert TABLES[T_B_NHEX + side] == NHEX[side]
    for r, hexes in enumerate(ROWS[side], start=1):
        for h in hexes:
            assert TABLES[T_B_ROW + N_HEX * side + h] == r, (SIDES[side], h)
        mask = TABLES[T_B_MASK + N_BOARD_MASKS * side + BM_ROW + r - 1]
        assert bits(mask) == set(hexes)
    assert TABLES[T_B_ROW + N_HEX * side] == 0


def test_rows_f8_match_rules_text():
    # F8: the row ranges written in this test are the ones in RULES.md
    text = rules_text()
    for side, name in ((0, "Desert (32 hexes)"), (1, "Forest (43 hexes)")):
        line = text[text.index(name):]
        line = line[:line.index("\n  -")]              # the bullet, wrapped lines included
        found = [(int(a), int(b)) for a, b in re.findall(r"row \d = (\d+)–(\d+)", line)]
        assert found == [(r.start, r.stop - 1) for r in ROWS[side]]


NAMED = {   # F11, written out from the rule text
    0: {BM_BELOW_LEDGE: set(range(1, 22)), BM_HEADWALL: set(range(22, 33)),
        BM_SUMMIT: {31, 32}, BM_NORTH: {1, 9, 16, 22, 27, 31},
        BM_SOUTH: {8, 15, 21, 26, 30, 32}, BM_FACE_UP_START: set(range(1, 22))},
    1: {BM_BELOW_LEDGE: set(range(1, 28)), BM_HEADWALL: set(range(28, 44)),
        BM_SUMMIT: {41, 42, 43}, BM_NORTH: {1, 11, 20, 28, 35, 41},
        BM_SOUTH: {10, 19, 27, 34, 40, 43}, BM_FACE_UP_START: set(range(1, 28))},
}


@pytest.mark.parametrize("side", [0, 1])
def test_named_areas_f11_f13(side):
    # F11: Below the Ledge, Headwall, summits, ridges; F13: rows 1-3 face up at the start
    for m, want in NAMED[side].items():
        assert bits(TABLES[T_B_MASK + N_BOARD_MASKS * side + m]) == want, (SIDES[side], m)
    # F11: ridges are the first / last hex of each row
    assert NAMED[side][BM_NORTH] == {r.start for r in ROWS[side]}
    assert NAMED[side][BM_SOUTH] == {r.stop - 1 for r in ROWS[side]}


def _rules_hex_values():
    text = rules_text()
    f12 = text[text.index("**F12**"):text.index("**F13**")]
    out = []
    for name in ("Desert, rows 1→6:", "Forest, rows 1→6:"):
        seg = f12[f12.index(name) + len(name):]
        seg = seg[seg.index("`") + 1:]
        seg = seg[:seg.index("`")]
        out.append([int(x) for x in re.findall(r"\d", seg)])
    fixed = dict((int(a), int(b)) for a, b in
                 re.findall(r"(\d+)→(\d+)", f12[f12.index("These hexes"):]))
    return out, fixed


@pytest.mark.parametrize("side", [0, 1])
def test_hex_values_f12(side):
    # F12: every hex's printed value, rows 1→6, as printed in RULES.md
    values, _ = _rules_hex_values()
    assert len(values[side]) == NHEX[side]
    for h in range(1, NHEX[side] + 1):
        assert TABLES[T_B_VALUE + N_HEX * side + h] == values[side][h - 1], (SIDES[side], h)


def test_printed_tiles_f12():
    # F12: desert hex 5 = The Trifecta; forest printed tiles from RULES.md
    _, forest_fixed = _rules_hex_values()
    assert len(forest_fixed) == 11
    for side, want in ((0, {5: 36}), (1, forest_fixed)):
        got = {h: int(TABLES[T_B_FIXED + N_HEX * side + h]) for h in range(N_HEX)
               if TABLES[T_B_FIXED + N_HEX * side + h]}
        assert got == want, SIDES[side]
        # F12/F16: a printed tile sits on a hex of its own value
        for h, tile in want.items():
            assert TABLES[T_P_VALUE + tile] == TABLES[T_B_VALUE + N_HEX * side + h]


@pytest.mark.parametrize("side", [0, 1])
def test_tile_groups_f16(side):
    # F16: pools by value (1: 1-6, 2: 13-23, 3: 25-28, 4: 29-33, 5: 38-43); group hexes are
    # the hexes of that value without a printed tile
    pools = {1: range(1, 7), 2: range(13, 24), 3: range(25, 29), 4: range(29, 34),
             5: range(38, 44)}
    groups = board(side)["random_tile_groups"]
    fixed = {int(h) for h in board(side)["fixed_tiles"]}
    for v, pool in pools.items():
        g = groups[str(v)]
        assert sorted(g["tile_pool"]) == list(pool)
        assert all(TABLES[T_P_VALUE + x] == v for x in pool)
        want = {h for h in range(1, NHEX[side] + 1)
                if TABLES[T_B_VALUE + N_HEX * side + h] == v and h not in fixed}
        assert set(g["hexes"]) == want


# =========================================================================================
# setup (F1, F9, F13, F15-F24)
# =========================================================================================

def all_cards(st, P):
    """Per-kind count of every card in the game (hands, boards, discard, deck, Spread, piles)."""
    n = np.zeros(N_KINDS, np.int64)
    for s in range(P):
        for base in (HAND, BOARD_UP, BOARD_DOWN):
            n += st[base + s * N_KINDS: base + (s + 1) * N_KINDS]
    n += st[DISCARD:DISCARD + N_KINDS]
    for i in range(int(st[G_DECK_N])):
        n[st[DECK + i]] += 1
    for sl in range(4):
        if st[SPREAD + sl]:
            n[st[SPREAD + sl]] += 1
    for a in range(4):
        for i in range(int(st[PILE_N + a])):
            n[st[PILE + a * PILE_CAP + i]] += 1
    return n


GAMES = [(P, seed) for P in (2, 3, 4, 5) for seed in SEEDS]


@pytest.mark.parametrize("P, seed", GAMES)
def test_side_players_round_f1_f15_f21(P, seed):
    # F1, F15: 2-3 players desert, 4-5 forest; F21: seat 1 first, round 1
    st, t = new_game(players=P, seed=seed)
    assert st[G_PLAYERS] == P
    assert st[G_SIDE] == (0 if P <= 3 else 1)
    assert st[G_FIRST] == 0 and st[G_CURRENT] == 0 and st[G_ROUND] == 1
    assert st[G_OVER] == 0


@pytest.mark.parametrize("P, seed", GAMES)
def test_tiles_dealt_f16(P, seed):
    # F16: one tile per hex, by value group; printed tiles fixed; desert never uses 7-12, 24,
    # 34, 35, 37 and uses 5 of the six 5-point tiles; forest uses all 43
    st, t = new_game(players=P, seed=seed)
    side = int(st[G_SIDE])
    n = NHEX[side]
    tiles = [int(st[TILE + h]) for h in range(N_HEX)]
    assert tiles[0] == 0 and all(x == 0 for x in tiles[n + 1:])
    on_board = tiles[1:n + 1]
    assert all(x > 0 for x in on_board) and len(set(on_board)) == n
    for h in range(1, n + 1):
        # F16: a tile of the hex's value
        assert TABLES[T_P_VALUE + tiles[h]] == TABLES[T_B_VALUE + N_HEX * side + h], h
    for h, tile in board(side)["fixed_tiles"].items():
        assert tiles[int(h)] == tile
    used = set(on_board)
    if side == 0:
        assert not used & {7, 8, 9, 10, 11, 12, 24, 34, 35, 37}
        assert len(used & set(range(38, 44))) == 5
        assert used == {i for i in range(1, 44) if TABLES[T_B_USED + i]} - \
            (set(range(38, 44)) - used)
    else:
        assert used == set(range(1, 44))


@pytest.mark.parametrize("P", [2, 4])
def test_tiles_are_shuffled_f16(P):
    # F16: the pools are shuffled (different seeds give different layouts); in the desert
    # every 5-point tile is sometimes left out
    layouts = set()
    left_out = set()
    for seed in range(1, 41):
        st, _ = new_game(players=P, seed=seed)
        layouts.add(tuple(int(x) for x in st[TILE:TILE + N_HEX]))
        if P == 2:
            left_out |= set(range(38, 44)) - {int(x) for x in st[TILE:TILE + N_HEX]}
    assert len(layouts) >= 35
    if P == 2:
        assert left_out == set(range(38, 44))


@pytest.mark.parametrize("P, seed", GAMES)
def test_initial_face_up_f13_f14(P, seed):
    # F13: rows 1-3 face up, the Headwall face down; F14 reveal turns all face up
    st, t = new_game(players=P, seed=seed)
    side = int(st[G_SIDE])
    assert st[G_HEADWALL_UP] == 0
    for h in range(1, NHEX[side] + 1):
        assert bool(engine.hex_face_up(st, t, h)) == (row_of(side, h) <= 3), h
    st[G_HEADWALL_UP] = 1
    for h in range(1, NHEX[side] + 1):
        assert engine.hex_face_up(st, t, h), h


@pytest.mark.parametrize("P, seed", GAMES)
def test_cards_portaledge_spread_f17_f18(P, seed):
    # F17: 7 cards of each type in its Portaledge pile; 96 left in deck + Spread
    st, t = new_game(players=P, seed=seed)
    for a in range(4):
        assert st[PILE_N + a] == 7
        for i in range(7):
            assert TABLES[T_KIND_TYPE + st[PILE + a * PILE_CAP + i]] == a
    spread = [int(st[SPREAD + s]) for s in range(4)]
    assert st[G_DECK_N] + sum(1 for k in spread if k) == 96
    # F18: 4 Spread cards, not all one type
    assert all(k > 0 for k in spread)
    assert len({int(TABLES[T_KIND_TYPE + k]) for k in spread}) >= 2
    # F17: every card is somewhere, once; hands, boards and discard are empty
    assert list(all_cards(st, P)) == list(TABLES[T_KIND_COUNT:T_KIND_COUNT + N_KINDS])
    assert st[G_DISCARD_N] == 0 and not st[DISCARD:DISCARD + N_KINDS].any()
    for s in range(MAX_PLAYERS):
        for base in (HAND, BOARD_UP, BOARD_DOWN):
            assert not st[base + s * N_KINDS: base + (s + 1) * N_KINDS].any()


def test_spread_never_single_type_over_many_seeds_f18():
    # F18: over many set-ups the Spread always holds at least two asset types, and the
    # Portaledge piles are a random draw (not always the same cards)
    piles = set()
    for seed in range(1, 301):
        st, _ = new_game(players=2 + seed % 4, seed=seed)
        types = {int(TABLES[T_KIND_TYPE + st[SPREAD + s]]) for s in range(4)}
        assert len(types) >= 2, seed
        piles.add(tuple(int(x) for x in st[PILE:PILE + 7]))
    assert len(piles) > 100


@pytest.mark.parametrize("P, seed", GAMES)
def test_climbing_deck_and_summit_beta_supply_f19_f22(P, seed):
    # F19: the climbing deck is a permutation of 1..70, not yet drawn
    st, t = new_game(players=P, seed=seed)
    assert sorted(int(x) for x in st[CDECK:CDECK + 70]) == list(range(1, 71))
    assert st[G_CDECK_POS] == 0
    # F19, F22: supply + held tokens are 1..12, each once; nothing used yet
    supply = [int(x) for x in st[SB_SUPPLY:SB_SUPPLY + int(st[G_SB_N])]]
    held = []
    for s in range(P):
        held += sorted(bits(st[seat(S_SB, s)]))
    assert sorted(supply + held) == list(range(1, 13))
    assert st[SB_DISCARD] == 0
    phils = sum(1 for s in range(P) if st[seat(S_CHAR, s)] == PHIL)
    assert len(held) == 2 * phils and st[G_SB_N] == 12 - 2 * phils


def test_decks_are_shuffled_f19():
    # F19: different seeds give different climbing-deck and Summit Beta orders
    cd, sb = set(), set()
    for seed in range(1, 21):
        st, _ = new_game(players=3, characters=(1, 2, 3), seed=seed)
        cd.add(tuple(int(x) for x in st[CDECK:CDECK + 70]))
        sb.add(tuple(int(x) for x in st[SB_SUPPLY:SB_SUPPLY + 12]))
    assert len(cd) == 20 and len(sb) >= 19


def _find_seeds(P, with_elitist):
    out = []
    for seed in range(1, 400):
        st, _ = new_game(players=P, characters=tuple(range(1, P + 1)), seed=seed)
        shared = {int(x) for x in st[G_SHARED:G_SHARED + 3]}
        if (ELITIST in shared) == with_elitist:
            out.append(seed)
            if len(out) == 3:
                break
    return out


@pytest.mark.parametrize("P", [2, 3, 4, 5])
def test_shared_objectives_and_elitist_f20_f61(P):
    # F20: 3 distinct shared objectives out of 16; The Elitist (11) scores +4 up front (F61)
    seen = set()
    for seed in range(1, 60):
        st, _ = new_game(players=P, seed=seed)
        shared = [int(x) for x in st[G_SHARED:G_SHARED + 3]]
        assert len(set(shared)) == 3 and all(1 <= x <= 16 for x in shared)
        seen |= set(shared)
    assert len(seen) >= 14                       # F20: no other restriction
    with_e = _find_seeds(P, True)
    without = _find_seeds(P, False)
    assert with_e and without
    points = int(TABLES[T_SO + SO_FIELDS * ELITIST + SO_POINTS])
    assert points == 4
    for seed in with_e:
        st, _ = new_game(players=P, characters=tuple(range(1, P + 1)), seed=seed)
        assert st[G_ELITIST_START] == 1
        for s in range(P):
            assert st[seat(S_SCORE, s)] == 4 and st[seat(S_SC_SHARED, s)] == 4
    for seed in without:
        st, _ = new_game(players=P, characters=tuple(range(1, P + 1)), seed=seed)
        assert st[G_ELITIST_START] == 0
        for s in range(P):
            assert st[seat(S_SCORE, s)] == 0


CHAR_SETS = [(2, (8, 1)), (3, (2, 5, 12)), (4, (7, 8, 9, 10)), (5, (11, 3, 6, 4, 8)),
             (5, (1, 2, 3, 4, 5)), (4, (12, 11, 10, 9))]


@pytest.mark.parametrize("P, chars", CHAR_SETS)
def test_assigned_characters_f22(P, chars):
    # F22: assigned characters; water = psych = the character's start value (data.json);
    # Phil (8) draws 2 Summit Beta tokens after all picks; nobody else holds one
    start = {c["id"]: c["start_water"] for c in DATA["characters"]}
    for seed in (3, 17):
        st, _ = new_game(players=P, characters=chars, seed=seed)
        for s, c in enumerate(chars):
            assert st[seat(S_CHAR, s)] == c
            assert st[seat(S_WATER, s)] == start[c] == st[seat(S_PSYCH, s)]
            assert len(bits(st[seat(S_SB, s)])) == (2 if c == PHIL else 0)
            assert 0 not in bits(st[seat(S_SB, s)])
        for s in range(P, MAX_PLAYERS):
            assert st[seat(S_CHAR, s)] == 0


@pytest.mark.parametrize("P", [2, 3, 4, 5])
def test_random_characters_from_distinct_boards_f22_f130(P):
    # F22: characters=None draws n+1 distinct boards, one side each: never two characters of
    # one board (F130 player_board), all seats filled; over many seeds all 12 appear
    board_of = {c["id"]: c["player_board"] for c in DATA["characters"]}
    start = {c["id"]: c["start_water"] for c in DATA["characters"]}
    seen = set()
    for seed in range(1, 121):
        st, _ = new_game(players=P, seed=seed)
        chars = [int(st[seat(S_CHAR, s)]) for s in range(P)]
        assert all(1 <= c <= 12 for c in chars), chars
        assert len({board_of[c] for c in chars}) == P, (seed, chars)
        for s, c in enumerate(chars):
            assert st[seat(S_WATER, s)] == start[c] == st[seat(S_PSYCH, s)]
        seen |= set(chars)
    assert seen == set(range(1, 13))


@pytest.mark.parametrize("P, seed", GAMES)
def test_personal_objectives_f23(P, seed):
    # F23: two personal objectives each, from the 12, all distinct
    st, _ = new_game(players=P, seed=seed)
    dealt = []
    for s in range(P):
        dealt += [int(st[seat(S_PERSONAL, s) + i]) for i in range(2)]
    assert len(dealt) == 2 * P and len(set(dealt)) == 2 * P
    assert all(1 <= x <= 12 for x in dealt)


@pytest.mark.parametrize("P, seed", GAMES)
def test_climbers_start_at_hex_0_f9(P, seed):
    # F9: every climber starts at hex 0 with an empty route; its legal moves are row 1 (F30)
    st, t = new_game(players=P, seed=seed)
    side = int(st[G_SIDE])
    for s in range(P):
        assert st[seat(S_HEX, s)] == 0 and st[seat(S_ROUTE_N, s)] == 0
        assert st[seat(S_ROUTE_MASK, s)] == 0
        assert bits(engine.legal_destinations(st, t, s)) == set(ROWS[side][0])


@pytest.mark.parametrize("P", [2, 3, 4, 5])
@pytest.mark.parametrize("script", ["spread_first", "deck"])
def test_starting_hands_f24_f120(P, script):
    # F24: seats 1..5 take 5/5/6/7/8 cards, from the Spread and/or the deck; the Spread is
    # refilled to 4 (F47, F121) and no card is created or lost
    for seed in (5, 6, 21):
        st, t = new_game(players=P, seed=seed)
        deck_before = int(st[G_DECK_N])
        spread_before = [int(x) for x in st[SPREAD:SPREAD + 4]]
        # first legal = Spread slot 0; the deck script answers DRAW_DECK (4) every time
        ag = agents(script=[] if script == "spread_first" else [4] * 64)
        engine.deal_starting_hands(st, t, ag)
        assert st[G_OVER] == 0
        assert st[G_POLICY_ERROR] == 0
        sizes = [int(st[HAND + s * N_KINDS: HAND + (s + 1) * N_KINDS].sum()) for s in range(P)]
        assert sizes == [5, 5, 6, 7, 8][:P]
        assert all(st[SPREAD + s] > 0 for s in range(4))
        assert list(all_cards(st, P)) == list(TABLES[T_KIND_COUNT:T_KIND_COUNT + N_KINDS])
        dealt = sum(sizes)
        # F120/F121: the deck gave every dealt card or Spread replacement (discards included)
        assert deck_before - int(st[G_DECK_N]) == dealt + int(st[G_DISCARD_N])
        if script == "deck":
            # every card came from the deck top: the Spread was never touched
            assert st[G_DISCARD_N] == 0
            assert [int(x) for x in st[SPREAD:SPREAD + 4]] == spread_before
