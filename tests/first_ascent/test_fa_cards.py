"""Constructed-state tests: the 70 climbing cards (F39-F48, F84, F106-F118, F128, F132), the
Summit Beta tokens (F76-F87) and the characters (F64-F75), plus the shortfall S (F34, F123).

Expected effects are written from RULES.md (Appendix A for the cards, Appendix B for the
pitches), never read from the data tables. Choices the rules leave to a player are taken by
the scripted agent (first legal code unless scripted); where that choice is free, the checks
only pin what the rules pin (e.g. "one card of a listed type").
"""
import json
import itertools

import numpy as np
import pytest

from fa_helpers import agents, clear_cards, give, logged, new_game, seat_at
from sim.games.first_ascent import engine
from sim.games.first_ascent.data import DATA_PATH
from sim.games.first_ascent.state import (
    A_PASS, A_PLAY_SB, A_STOP, BOARD_DOWN, BOARD_UP, CDECK, D_CARD, D_CHALKBAG, D_OPTION,
    D_PERMANENT, D_PILE, D_REQ_TOKEN, D_SB_WINDOW, DISCARD, DRAW_DECK, G_CDECK_POS, G_DISCARD_N,
    G_HEADWALL_UP, G_POLICY_ERROR, G_RNG_RISK, G_SB_N, HAND, PILE_N, REQ_TOKENS, S_HEX, S_PERM,
    S_PSYCH, S_ROUTE,
    S_ROUTE_MASK, S_ROUTE_N, S_SB, S_SC_SETS, S_SC_SPIDER, S_STATUS, S_TECH, S_WATER,
    SB_BOMBER_ANCHOR, SB_BORROWED_RACK, SB_DISCARD, SB_ENERGY_DRINK, SB_EXTRA_WATER, SB_GUIDEBOOK,
    SB_JESUS_PIECE, SB_JUMAR, SB_LUCKY_CHALKBAG, SB_NEW_RUBBER, SB_RERACK, SB_SIMUL_CLIMB,
    SB_SPIDER_STICK, SPREAD, STATUS_NONE, STATUS_PENALISED, T_CARD_PASSES, T_CARD_ROLLS,
    T_CHALKBAG_REROLLS, T_JESUS_USES, T_RISKS, TILE, WITH_JESUS, FACE_CHECK, FACE_MINUS_2)

N_KINDS = 38
TYPES = "gfcs"                   # gear, face, crack, slab (asset type index 0..3)
# kind ids by type (RULES schema: 1-7 crack, 8-14 slab, 15-21 face, 22-37 gear)
KIND = {"g": 28, "f": 16, "c": 2, "s": 9}
OTHER_KIND = {"g": 17, "f": 3, "c": 10, "s": 3}
PREC, BAL, PAIN, POW, CHOICE = 1, 2, 3, 4, 0


def ktype(k):
    if 1 <= k <= 7:
        return "c"
    if 8 <= k <= 14:
        return "s"
    if 15 <= k <= 21:
        return "f"
    return "g"


# ============================================================================================
# Appendix A, written out by hand. Entries:
#   ('w'|'p', amount, who)  who: self, all, others, selfopp (you and a chosen opponent), sunny
#   ('lose', types, n, src) src: 'hb' hand then board, 'h' hand only (F42, F108)
#   ('give', types, n, src)                                                   (F43, F109)
#   ('pl', types, who, n)   Portaledge cards (F110)
#   ('tech', technique, who) technique 0 = choice (F111)
#   ('sb', who)  who: self, opp (F112);  ('sb2',) draw 2 keep 1 give 1 (19B)
#   ('steal', types, to)  (F113);  ('place', types)  (F114)
#   ('req', types, target) target 'any' / 'lower'  (F48, F115)
#   ('roll',)  (F45, F116);  ('spread', n)  (F117)
# types: 'g','f','c','s', 'fcs' = skill card, 'gfcs' = any card.
# ============================================================================================
def W(n, who="self"):
    return ("w", n, who)


def P(n, who="self"):
    return ("p", n, who)


def LOSE(ty, n=1, src="hb"):
    return ("lose", ty, n, src)


def GIVE(ty, n, src="h"):
    return ("give", ty, n, src)


def PL(ty, who="self", n=1):
    return ("pl", ty, who, n)


def TECH(x, who="self"):
    return ("tech", x, who)


def SB(who="self"):
    return ("sb", who)


SB2 = ("sb2",)
ROLL = ("roll",)
ANY, SKILL = "gfcs", "fcs"


def STEAL(ty, to):
    return ("steal", ty, to)


def PLACE(ty):
    return ("place", ty)


def REQ(ty, target="any"):
    return ("req", ty, target)


def opt(cost, gain):
    return (list(cost), list(gain))


CARDS = {
    1: [opt([W(-1)], [TECH(POW)]), opt([LOSE("g")], [W(1)])],
    2: [opt([], [REQ("g")])],
    3: [opt([W(-1)], [SB()]), opt([LOSE(ANY)], [STEAL("g", "board")])],
    4: [opt([W(-1)], [TECH(PAIN)]), opt([LOSE("f")], [W(1)])],
    5: [opt([], [W(2, "all")]), opt([], [W(1)])],
    6: [opt([], [REQ(SKILL)])],
    7: [opt([W(-1)], [TECH(PAIN)]), opt([LOSE("c")], [PL("s")])],
    8: [opt([LOSE(ANY, 1, "h")], [STEAL("g", "board")]), opt([LOSE("g")], [SB()])],
    9: [opt([P(-1)], [SB()]), opt([], [TECH(CHOICE, "selfopp")])],
    10: [opt([], [P(2, "all")]), opt([], [P(1)])],
    11: [opt([P(-1)], [TECH(BAL)]), opt([W(-1)], [PL("f")])],
    12: [opt([LOSE(ANY, 2)], [TECH(CHOICE)]), opt([W(-1)], [PL("f")])],
    13: [opt([LOSE(ANY)], [TECH(BAL)]), opt([W(-1)], [PL(SKILL)])],
    14: [opt([], [STEAL("g", "hand")]), opt([LOSE("g")], [TECH(PREC)])],
    15: [opt([W(-1)], [TECH(POW)]), opt([], [PL("g", "others")])],
    16: [opt([P(-1)], [TECH(PREC)]), opt([], [ROLL])],
    17: [opt([LOSE("g")], [W(1)]), opt([P(-1)], [TECH(PAIN)])],
    18: [opt([W(-1)], [TECH(POW)]), opt([LOSE(SKILL)], [W(1)])],
    19: [opt([W(-1)], [TECH(POW)]), opt([], [SB2])],
    20: [opt([P(-1)], [TECH(POW)]), opt([LOSE("s")], [W(1)])],
    21: [opt([LOSE(ANY)], [TECH(BAL)]), opt([P(-1)], [TECH(PREC)])],
    22: [opt([LOSE("s")], [P(1)]), opt([], [ROLL])],
    23: [opt([W(-1)], [SB()]), opt([LOSE(ANY)], [STEAL(ANY, "hand")])],
    24: [opt([W(-1)], [PL("f")]), opt([], [TECH(PAIN), PL("g", "others")])],
    25: [opt([GIVE(ANY, 2)], [SB()]), opt([P(-1)], [STEAL(ANY, "hand")])],
    26: [opt([P(-1)], [SB()]), opt([LOSE(ANY)], [STEAL(ANY, "hand")])],
    27: [opt([LOSE("f")], [TECH(PREC)]), opt([P(-1)], [PL("f")])],
    28: [opt([LOSE("s")], [TECH(PAIN)]), opt([], [PLACE(ANY)])],
    29: [opt([P(-1)], [TECH(BAL)]), opt([], [PL(ANY, "all")])],
    30: [opt([], [PLACE("g")]), opt([P(-1)], [PL(SKILL)])],
    31: [opt([LOSE(SKILL)], [PL("g")]), opt([GIVE("g", 1, "hb")], [PL(ANY)])],
    32: [opt([LOSE("c")], [SB()]), opt([P(-1)], [PL("c")])],
    33: [opt([], [W(2, "all")]), opt([], [W(1)])],
    34: [opt([P(-1)], [PL(SKILL)]), opt([LOSE("g")], [P(1)])],
    35: [opt([P(-1)], [PL("s")]), opt([], [ROLL])],
    36: [opt([], [REQ(SKILL)])],
    37: [opt([P(-1)], [PL("g")]), opt([], [PL(ANY, "others")])],
    38: [opt([P(-1)], [PL("c")]), opt([LOSE("g")], [W(1)])],
    39: [opt([W(-1)], [SB()]), opt([P(-1)], [TECH(PAIN)])],
    40: [opt([], [PLACE("g")]), opt([P(-1)], [PL(SKILL)])],
    41: [opt([], [REQ(SKILL)])],
    42: [opt([], [W(1, "all"), P(1, "all")]), opt([], [W(1)])],
    43: [opt([P(-1)], [SB()]), opt([], [ROLL])],
    44: [opt([], [P(1, "all")]), opt([W(-1)], [PL(ANY)])],
    45: [opt([P(-1)], [PL(SKILL)]), opt([GIVE(ANY, 2)], [SB()])],
    46: [opt([W(-1)], [PL("c")]), opt([LOSE("c")], [PL("g")])],
    47: [opt([W(-1)], [PL(ANY)]), opt([], [PL(ANY, "others")])],
    48: [opt([W(-1)], [PL("c")]), opt([LOSE("g")], [PL("f")])],
    49: [opt([P(-1, "selfopp")], [PL("g", "selfopp")]), opt([LOSE("g")], [P(1)])],
    50: [opt([], [REQ(SKILL, "lower")])],
    51: [opt([LOSE("g")], [P(1)]), opt([], [ROLL])],
    52: [opt([], [P(2, "all")]), opt([], [P(1)])],
    53: [opt([W(-1)], [PL(SKILL)]), opt([GIVE(ANY, 2)], [PL(ANY)])],
    54: [opt([], [REQ("g")])],
    55: [opt([W(-1, "sunny")], []), opt([], [P(1, "sunny")])],
    56: [opt([W(-1)], [PL("g")]), opt([LOSE("g")], [P(1)])],
    57: [opt([LOSE(SKILL)], [PL("g")]), opt([LOSE("g")], [("spread", 1)])],
    58: [opt([LOSE("g")], [W(1)]), opt([], [ROLL])],
    59: [opt([LOSE("g")], [P(1)]), opt([W(-1)], [PL(SKILL)])],
    60: [opt([], [PL(ANY, "others")]), opt([P(-1)], [SB()])],
    61: [opt([W(-1)], [PL("s")]), opt([P(-1)], [W(1)])],
    62: [opt([LOSE("g")], [P(1)]), opt([], [ROLL])],
    63: [opt([], [REQ(SKILL)])],
    64: [opt([LOSE("f")], [W(1)]), opt([], [ROLL])],
    65: [opt([GIVE(ANY, 1)], [W(1)]), opt([P(-1)], [PL(SKILL)])],
    66: [opt([], [PL(ANY, "all")]), opt([LOSE("f")], [P(1)])],
    67: [opt([P(-1, "others")], []), opt([], [P(2, "all")])],
    68: [opt([GIVE(ANY, 2)], [PL(ANY, "self", 2)]), opt([], [P(1, "sunny")])],
    69: [opt([], [SB("opp")]), opt([P(-1)], [PL(ANY)])],
    70: [opt([P(-1)], [PL("s")]), opt([LOSE("s")], [P(1)])],
}
assert sorted(CARDS) == list(range(1, 71))
SINGLE = {2, 6, 36, 41, 50, 54, 63}                 # F4
assert {c for c, o in CARDS.items() if len(o) == 1} == SINGLE
ALL_OPTIONS = [(c, o) for c in CARDS for o in range(len(CARDS[c]))]


def has_cost(card, o):
    return len(CARDS[card][o][0]) > 0


# ============================================================================================
# constructed states
# ============================================================================================
SUN_TILE, SHADE_TILE, BOTH_TILE = 2, 1, 36       # Appendix B: Roger's Roof sun, Dinkus Dog shade


def place_seat(st, seat, h, tile=None):
    if tile is not None:
        st[TILE + h] = tile
    st[seat_at(S_HEX, seat)] = h
    if h > 0:
        n = st[seat_at(S_ROUTE_N, seat)]
        st[seat_at(S_ROUTE, seat) + n] = h
        st[seat_at(S_ROUTE_N, seat)] = n + 1
        st[seat_at(S_ROUTE_MASK, seat)] |= 1 << h


def card_state(rules=None, chars=(6, 4, 3), seed=11):
    """3 players (desert). Seat 0 (active): water=psych=3, 2 cards of each type in hand, on
    hex 1 (sunny tile). Seat 1: water=psych=3, 1 crack in hand, a gear card face down and a
    face card face up on its board, on hex 2 (shade). Seat 2: water=psych=3, nothing, hex 0."""
    st, t = new_game(3, chars, seed, rules)
    for s in range(3):
        clear_cards(st, s)
        st[seat_at(S_SB, s)] = 0
        st[seat_at(S_WATER, s)] = 3
        st[seat_at(S_PSYCH, s)] = 3
    for ty in TYPES:
        give(st, 0, KIND[ty], 2)
    give(st, 1, 3)
    give(st, 1, 33, 1, BOARD_DOWN)
    give(st, 1, 17, 1, BOARD_UP)
    place_seat(st, 0, 1, SUN_TILE)
    place_seat(st, 1, 2, SHADE_TILE)
    st[SPREAD:SPREAD + 4] = [28, 16, 2, 9]     # one of each type
    return st, t


def type_count(st, base, seat, ty):
    return int(sum(st[base + seat * N_KINDS + k] for k in range(1, N_KINDS) if ktype(k) == ty))


def features(st):
    f = {}
    for s in range(3):
        f[(s, "water", ".")] = int(st[seat_at(S_WATER, s)])
        f[(s, "psych", ".")] = int(st[seat_at(S_PSYCH, s)])
        f[(s, "sb", ".")] = bin(int(st[seat_at(S_SB, s)])).count("1")
        for x in range(1, 5):
            f[(s, "tech", str(x))] = int(st[seat_at(S_TECH, s) + x])
        for ty in TYPES:
            f[(s, "hand", ty)] = type_count(st, HAND, s, ty)
            f[(s, "up", ty)] = type_count(st, BOARD_UP, s, ty)
            f[(s, "board", ty)] = type_count(st, BOARD_UP, s, ty) + type_count(st, BOARD_DOWN, s, ty)
    for i, ty in enumerate(TYPES):
        f[("discard", ty)] = int(sum(st[DISCARD + k] for k in range(1, N_KINDS) if ktype(k) == ty))
        f[("pile", ty)] = int(st[PILE_N + i])
        f[("req", ty)] = int(sum(st[REQ_TOKENS + 4 * h + i] for h in range(44)))
    f[("sbsupply", ".")] = int(st[G_SB_N])
    return f


def check_deltas(before, after, contribs):
    """contribs: (prefix, subs, amount, maybe). A single-sub contribution is exact; several
    subs spread the amount over them (the player's choice); `maybe` may not happen at all."""
    prefixes = {k[:-1] for k in before}
    for pre in prefixes:
        subs = [k[-1] for k in before if k[:-1] == pre]
        lo = {s: 0 for s in subs}
        hi = {s: 0 for s in subs}
        tlo = thi = 0
        for (p, types, a, maybe) in contribs:
            if p != pre:
                continue
            if len(types) == 1 and not maybe:
                lo[types] += a
                hi[types] += a
            else:
                for s in types:
                    lo[s] += min(0, a)
                    hi[s] += max(0, a)
            if maybe:
                tlo += min(0, a)
                thi += max(0, a)
            else:
                tlo += a
                thi += a
        total = sum(after[pre + (s,)] - before[pre + (s,)] for s in subs)
        assert tlo <= total <= thi, (pre, total, (tlo, thi))
        for s in subs:
            d = after[pre + (s,)] - before[pre + (s,)]
            assert lo[s] <= d <= hi[s], (pre, s, d, (lo[s], hi[s]))


WHO_SEATS = {"self": [0], "all": [0, 1, 2], "others": [1, 2], "selfopp": [0, 1],
             "sunny": [0], "opp": [1]}


def expected_contribs(card, o, jesus):
    """The change Appendix A's text predicts in card_state (opponent = seat 1, the first
    one offered; card rolls under risk_die_odds 1:0:0 = check)."""
    cost, gain = CARDS[card][o]
    out = []
    for part, entries in (("cost", cost), ("gain", gain)):
        for e in entries:
            v = e[0]
            skip_self = jesus and part == "cost"           # F84
            if v in ("w", "p"):
                for q in WHO_SEATS[e[2]]:
                    if q == 0 and skip_self:
                        continue
                    out.append(((q, "water" if v == "w" else "psych"), ".", e[1], False))
            elif v == "lose":
                if not skip_self:
                    out += [((0, "hand"), e[1], -e[2], False), (("discard",), e[1], e[2], False)]
            elif v == "give":
                if not skip_self:
                    out += [((0, "hand"), e[1], -e[2], False), ((1, "hand"), e[1], e[2], False)]
            elif v == "pl":
                for q in WHO_SEATS[e[2]]:
                    out += [((q, "hand"), e[1], e[3], False), (("pile",), e[1], -e[3], False)]
            elif v == "tech":
                for q in WHO_SEATS[e[2]]:
                    out.append(((q, "tech"), "1234" if e[1] == 0 else str(e[1]), 1, False))
            elif v == "sb":
                out += [((WHO_SEATS[e[1]][0], "sb"), ".", 1, False), (("sbsupply",), ".", -1, False)]
            elif v == "sb2":
                out += [((0, "sb"), ".", 1, False), ((1, "sb"), ".", 1, False),
                        (("sbsupply",), ".", -2, False)]
            elif v == "steal":
                got = "g" if e[1] == "g" else "gf"     # seat 1's board: gear (down), face (up)
                out.append(((1, "board"), got, -1, False))
                if got == "gf":
                    out.append(((1, "up"), "f", -1, True))
                if e[2] == "board":
                    out += [((0, "board"), got, 1, False), ((0, "up"), got, 1, False)]
                else:
                    out.append(((0, "hand"), got, 1, False))
            elif v == "place":
                out += [((0, "hand"), e[1], -1, False), ((0, "board"), e[1], 1, False),
                        ((0, "up"), e[1], 1, False)]
            elif v == "req":
                out.append((("req",), e[1], 1, False))
            elif v == "roll":
                out += [((0, "hand"), ANY, 3, False), (("pile",), ANY, -3, False)]
            elif v == "spread":
                out.append(((0, "hand"), ANY, e[1], False))
    return out


with open(DATA_PATH) as _f:
    _DATA = json.load(_f)
LOWER_OF_HEX1 = [int(h) for h in _DATA["boards"]["desert"]["same_row_or_lower_neighbours"]["1"]]


@pytest.mark.parametrize("card,o,jesus",
                         [(c, o, False) for c, o in ALL_OPTIONS] +
                         [(c, o, True) for c, o in ALL_OPTIONS if has_cost(c, o)])
def test_card_effect(card, o, jesus):
    # F39-F48, F106-F117 (each card's text, Appendix A); F84 with jesus (cost cancelled)
    st, t = card_state({"risk_die_odds": "1:0:0"})
    ag = agents()
    assert engine.option_choosable(st, t, 0, card, o, jesus)            # F40
    before = features(st)
    engine.resolve_option(st, t, ag, 0, card, o, jesus)
    assert st[G_POLICY_ERROR] == 0
    check_deltas(before, features(st), expected_contribs(card, o, jesus))
    assert st[seat_at(S_STATUS, 0)] == STATUS_NONE
    for e in CARDS[card][o][0] + CARDS[card][o][1]:
        if e[0] == "req":                                                 # F48, F115
            rows = [r for r in logged(ag, st) if r[1] == D_REQ_TOKEN]
            assert len(rows) == 1
            hexes = LOWER_OF_HEX1 if e[2] == "lower" else list(range(1, 22))  # face-up rows 1-3
            assert rows[0][3] == len(e[1]) * len(hexes)
            placed = [h for h in range(44) for a in range(4) if st[REQ_TOKENS + 4 * h + a]]
            assert placed and placed[0] in hexes
        if e[0] == "roll":
            assert st[T_CARD_ROLLS + 0] == 1


# --------------------------------------------------------------------------------------------
# choosability (F40, F41, F84, F107, F113, F114, F118)
# --------------------------------------------------------------------------------------------
def requirements(card, o):
    cost, gain = CARDS[card][o]
    reqs = []
    for e in cost:
        if e[0] in ("w", "p") and e[2] in ("self", "selfopp"):      # F107: own loss only
            reqs.append(("track", e[0], -e[1]))
        elif e[0] in ("lose", "give"):
            reqs.append(("cards", e[1], e[2], e[3]))
    for e in cost + gain:
        if e[0] == "steal":
            reqs.append(("steal", e[1]))
        elif e[0] == "place":
            reqs.append(("place", e[1]))
    return reqs


def bare_state(chars=(6, 4, 3), rules=None):
    st, t = card_state(rules, chars)
    for s in range(3):
        clear_cards(st, s)
    st[seat_at(S_WATER, 0)] = 0
    st[seat_at(S_PSYCH, 0)] = 0
    return st, t


def build(st, reqs, deficient=None):
    """Give seat 0 exactly what `reqs` need; the requirement `deficient` is one short."""
    for i, r in enumerate(reqs):
        short = i == deficient
        if r[0] == "track":
            st[seat_at(S_WATER if r[1] == "w" else S_PSYCH, 0)] = r[2] - (1 if short else 0)
        elif r[0] == "cards":
            ty, n, src = r[1], r[2], r[3]
            where = BOARD_DOWN if src == "hb" else HAND
            k = KIND[ty[0]] if len(ty) < 4 else KIND["c"]
            give(st, 0, k, n - (1 if short else 0), where)
            if short and len(ty) < 4:
                give(st, 0, OTHER_KIND[ty] if len(ty) == 1 else KIND["g"], 1, where)
        elif r[0] == "steal":
            if not short:
                give(st, 1, KIND["g"] if r[1] == "g" else KIND["f"], 1, BOARD_DOWN)
            else:
                give(st, 0, KIND["g"], 1, BOARD_DOWN)        # own board: not a target
                if r[1] == "g":
                    give(st, 2, KIND["f"], 1, BOARD_UP)      # opponent, wrong type
        elif r[0] == "place":
            if not short:
                give(st, 0, KIND["g"] if r[1] == "g" else KIND["s"])
            elif r[1] == "g":
                give(st, 0, KIND["f"])


@pytest.mark.parametrize("card,o", ALL_OPTIONS)
def test_choosable_empty(card, o):
    # F40, F84: with no water, psych or cards, only options without an own cost (and no steal
    # or placement) can be chosen; Jesus Piece cancels costs but supplies no target (F41)
    st, t = bare_state()
    reqs = requirements(card, o)
    assert engine.option_choosable(st, t, 0, card, o, False) == (len(reqs) == 0)
    assert engine.option_choosable(st, t, 0, card, o, True) == \
        all(r[0] not in ("steal", "place") for r in reqs)


@pytest.mark.parametrize("card,o", [(c, o) for c, o in ALL_OPTIONS if requirements(c, o)])
def test_choosable_exact(card, o):
    # F40, F108, F109, F113, F114: exactly enough is enough; one short blocks (a cost can be
    # cancelled by Jesus Piece F84; a steal target or a card to place cannot, F41)
    reqs = requirements(card, o)
    st, t = bare_state()
    build(st, reqs)
    assert engine.option_choosable(st, t, 0, card, o, False)
    for i, r in enumerate(reqs):
        st, t = bare_state()
        build(st, reqs, deficient=i)
        assert not engine.option_choosable(st, t, 0, card, o, False), r
        assert engine.option_choosable(st, t, 0, card, o, True) == (r[0] == "track" or
                                                                    r[0] == "cards"), r


@pytest.mark.parametrize("card,o", [(8, 0), (25, 0), (45, 1), (53, 1), (65, 0), (68, 0)])
def test_hand_only_costs_ignore_board(card, o):
    # F40, F108: 8A loses a card from hand only; 'give' options need the cards in hand
    reqs = requirements(card, o)
    st, t = bare_state()
    build(st, reqs)
    n = [r for r in reqs if r[0] == "cards"][0][2]
    clear_cards(st, 0)
    give(st, 0, KIND["c"], n + 2, BOARD_DOWN)
    give(st, 0, KIND["f"], n + 2, BOARD_UP)
    assert not engine.option_choosable(st, t, 0, card, o, False)


def test_31b_gear_from_board():
    # F40, F109: 31B's gear card may come from the asset board
    st, t = bare_state()
    give(st, 0, KIND["g"], 1, BOARD_UP)
    assert engine.option_choosable(st, t, 0, 31, 1, False)
    ag = agents()
    engine.resolve_option(st, t, ag, 0, 31, 1, False)
    assert type_count(st, BOARD_UP, 0, "g") == 0
    assert type_count(st, HAND, 1, "g") == 1               # F43: into the opponent's hand


def test_lose_hand_first_then_board():
    # F42, F108: hand first; only the shortfall comes from the board
    st, t = bare_state()
    give(st, 0, KIND["c"], 1)
    give(st, 0, 4, 1, BOARD_UP)
    give(st, 0, 5, 1, BOARD_DOWN)
    ag = agents()
    engine.resolve_option(st, t, ag, 0, 46, 1, False)        # 46B: lose 1 crack card
    assert type_count(st, HAND, 0, "c") == 0
    assert type_count(st, BOARD_UP, 0, "c") + type_count(st, BOARD_DOWN, 0, "c") == 2
    st, t = bare_state()
    give(st, 0, KIND["c"], 1)
    give(st, 0, 4, 1, BOARD_UP)
    engine.resolve_option(st, t, agents(), 0, 12, 0, False)  # 12A: lose 2 cards
    assert type_count(st, HAND, 0, "c") == 0 and type_count(st, BOARD_UP, 0, "c") == 0
    assert st[DISCARD + KIND["c"]] == 1 and st[DISCARD + 4] == 1


FS_BANNED = [(3, 1), (8, 0), (30, 0), (40, 0)]


@pytest.mark.parametrize("card,o", FS_BANNED)
def test_free_soloist_banned_options(card, o):
    # F40, F65, F118: Free Soloist may not choose 3B, 8A, 30A, 40A (even with everything)
    reqs = requirements(card, o)
    for chars, expect in (((2, 4, 3), False), ((6, 4, 3), True)):
        st, t = bare_state(chars)
        build(st, reqs)
        assert engine.option_choosable(st, t, 0, card, o, False) == expect
        assert engine.option_choosable(st, t, 0, card, o, True) == expect


def test_free_soloist_other_options_not_banned():
    # F118: only those four options are banned for him
    for card, o in ALL_OPTIONS:
        if (card, o) in FS_BANNED or card == 28:
            continue
        reqs = requirements(card, o)
        st, t = bare_state((2, 4, 3))
        build(st, reqs)
        assert engine.option_choosable(st, t, 0, card, o, False), (card, o)


def test_free_soloist_28b_skill_only():
    # F40, F114: on 28B Free Soloist must place a skill card
    st, t = bare_state((2, 4, 3))
    give(st, 0, KIND["g"], 2)
    assert not engine.option_choosable(st, t, 0, 28, 1, False)
    give(st, 0, KIND["s"])
    assert engine.option_choosable(st, t, 0, 28, 1, False)
    engine.resolve_option(st, t, agents(), 0, 28, 1, False)
    assert type_count(st, BOARD_UP, 0, "s") == 1 and type_count(st, BOARD_UP, 0, "g") == 0
    st, t = bare_state((6, 4, 3))
    give(st, 0, KIND["g"])
    assert engine.option_choosable(st, t, 0, 28, 1, False)   # others may place gear


def test_free_soloist_ban_follows_abilities_off():
    # F118 with abilities_off=free_soloist: plain behaviour, 30A choosable
    st, t = bare_state((2, 4, 3), {"abilities_off": "free_soloist"})
    give(st, 0, KIND["g"])
    assert engine.option_choosable(st, t, 0, 30, 0, False)


# --------------------------------------------------------------------------------------------
# passing, Jesus Piece, Crimper (F41, F84, F128)
# --------------------------------------------------------------------------------------------
def set_top_cards(st, *cards):
    pos = st[G_CDECK_POS]
    for i, c in enumerate(cards):
        j = [x for x in range(70) if st[CDECK + x] == c][0]
        st[CDECK + j], st[CDECK + pos + i] = st[CDECK + pos + i], st[CDECK + j]


def legal_option_codes(st, t):
    """Which D_OPTION codes resolve_climbing_cards accepts (scripting each in turn)."""
    ok = []
    for code in list(range(0, 4)) + list(range(WITH_JESUS, WITH_JESUS + 4)) + [A_PASS]:
        s2 = st.copy()
        ag = agents(script=[code])
        engine.resolve_climbing_cards(s2, t, ag, 0)
        rows = [r for r in logged(ag, s2) if r[1] == D_OPTION]
        # an illegal scripted code is replaced by legal[0] in the log, so equality suffices
        if rows and rows[0][2] == code:
            ok.append(code)
    return ok


def test_pass_when_nothing_choosable():
    # F41, F55: 25A (give 2 cards) and 25B (-1 psych, steal) both fail -> passed, penalised
    st, t = bare_state()
    set_top_cards(st, 25)
    ag = agents()
    engine.resolve_climbing_cards(st, t, ag, 0)
    rows = [r for r in logged(ag, st) if r[1] == D_OPTION]
    assert rows == [(0, D_OPTION, A_PASS, 1)]
    assert st[seat_at(S_STATUS, 0)] == STATUS_PENALISED
    assert st[T_CARD_PASSES + 0] == 1


def test_no_pass_when_one_option_choosable():
    # F41: 25B choosable (psych 1, a steal target) -> no pass
    st, t = bare_state()
    st[seat_at(S_PSYCH, 0)] = 1
    give(st, 1, KIND["f"], 1, BOARD_DOWN)
    set_top_cards(st, 25)
    assert legal_option_codes(st, t) == [1]


def test_jesus_piece_on_climbing_card():
    # F41, F84: with Jesus Piece an option whose only obstacle is its cost can be chosen
    # (code + WITH_JESUS); it does not supply a missing steal target
    st, t = bare_state()
    st[seat_at(S_SB, 0)] |= 1 << SB_JESUS_PIECE
    set_top_cards(st, 25)
    assert legal_option_codes(st, t) == [0 + WITH_JESUS]        # 25B: no target
    give(st, 1, KIND["f"], 1, BOARD_DOWN)
    assert legal_option_codes(st, t) == [0 + WITH_JESUS, 1 + WITH_JESUS]
    ag = agents(script=[1 + WITH_JESUS])
    engine.resolve_climbing_cards(st, t, ag, 0)
    assert st[G_POLICY_ERROR] == 0
    assert st[seat_at(S_PSYCH, 0)] == 0                          # cost cancelled
    assert type_count(st, HAND, 0, "f") == 1                     # gain kept
    assert not (st[seat_at(S_SB, 0)] >> SB_JESUS_PIECE) & 1 and (st[SB_DISCARD] >> SB_JESUS_PIECE) & 1
    assert st[T_JESUS_USES + 0] == 1
    assert st[seat_at(S_STATUS, 0)] != STATUS_PENALISED


def test_jesus_piece_not_offered_without_cost():
    # F84: options with a cost offer both codes; free options only the plain one
    st, t = card_state()
    st[seat_at(S_SB, 0)] |= 1 << SB_JESUS_PIECE
    set_top_cards(st, 5)                                         # 5A, 5B free
    assert legal_option_codes(st, t) == [0, 1]
    set_top_cards(st, 1)                                         # 1A water, 1B lose gear
    assert legal_option_codes(st, t) == [0, 1, WITH_JESUS, 1 + WITH_JESUS]


def test_49a_opponent_psych_only_if_they_have_it():
    # F44, F107, 49A: you need 1 psych; the chosen opponent loses 1 only if they have it
    st, t = card_state()
    st[seat_at(S_PSYCH, 2)] = 0
    ag = agents(script=[2])                                      # choose seat 2
    engine.resolve_option(st, t, ag, 0, 49, 0, False)
    assert st[G_POLICY_ERROR] == 0
    assert st[seat_at(S_PSYCH, 0)] == 2 and st[seat_at(S_PSYCH, 2)] == 0
    assert st[seat_at(S_PSYCH, 1)] == 3
    assert type_count(st, HAND, 2, "g") == 1 and type_count(st, HAND, 0, "g") == 3
    st, t = card_state()
    st[seat_at(S_PSYCH, 0)] = 0
    st[seat_at(S_PSYCH, 1)] = 0
    assert not engine.option_choosable(st, t, 0, 49, 0, False)
    assert engine.option_choosable(st, t, 0, 49, 0, True)
    st[seat_at(S_PSYCH, 0)] = 1
    assert engine.option_choosable(st, t, 0, 49, 0, False)       # opponent's 0 never blocks
    # F84: with Jesus Piece the opponent still loses psych
    st, t = card_state()
    engine.resolve_option(st, t, agents(script=[1]), 0, 49, 0, True)
    assert st[seat_at(S_PSYCH, 0)] == 3 and st[seat_at(S_PSYCH, 1)] == 2


def test_chosen_opponent_is_used():
    # F106c, F43: the named opponent (seat 2) receives the given cards / the token
    st, t = card_state()
    engine.resolve_option(st, t, agents(script=[2]), 0, 25, 0, False)
    assert type_count(st, HAND, 2, "g") + type_count(st, HAND, 2, "f") + \
        type_count(st, HAND, 2, "c") + type_count(st, HAND, 2, "s") == 2
    assert sum(type_count(st, HAND, 1, ty) for ty in TYPES) == 1
    st, t = card_state()
    engine.resolve_option(st, t, agents(script=[2]), 0, 69, 0, False)   # 69A
    assert bin(int(st[seat_at(S_SB, 2)])).count("1") == 1 and st[seat_at(S_SB, 0)] == 0
    st, t = card_state()
    engine.resolve_option(st, t, agents(script=[2, 4, 3]), 0, 9, 1, False)  # 9B: you + seat 2
    assert st[seat_at(S_TECH, 0) + 4] == 1 and st[seat_at(S_TECH, 2) + 3] == 1
    assert sum(st[seat_at(S_TECH, 1) + x] for x in range(1, 5)) == 0


def sunny_state():
    st, t = card_state()
    place_seat(st, 2, 5, BOTH_TILE)                              # The Trifecta: shade both
    return st, t


def test_55a_sunny_players_lose_water():
    # F44, F106d, 55A: every player on a sun/both pitch loses 1 water; hex 0 / shade unaffected
    st, t = sunny_state()
    engine.resolve_option(st, t, agents(), 0, 55, 0, False)
    assert [st[seat_at(S_WATER, s)] for s in range(3)] == [2, 3, 2]
    st, t = sunny_state()
    st[seat_at(S_WATER, 0)] = 0
    assert engine.option_choosable(st, t, 0, 55, 0, False)       # F40: even with no water
    # F84: with Jesus Piece only the active player is spared
    st, t = sunny_state()
    engine.resolve_option(st, t, agents(), 0, 55, 0, True)
    assert [st[seat_at(S_WATER, s)] for s in range(3)] == [3, 3, 2]
    # a player at hex 0 is on no pitch
    st, t = card_state()
    engine.resolve_option(st, t, agents(), 0, 55, 0, False)
    assert [st[seat_at(S_WATER, s)] for s in range(3)] == [2, 3, 3]


@pytest.mark.parametrize("card", [55, 68])
def test_sunny_psych_gain(card):
    # F44, F106d: 55B, 68B +1 psych to players on sun/both pitches
    st, t = sunny_state()
    engine.resolve_option(st, t, agents(), 0, card, 1, False)
    assert [st[seat_at(S_PSYCH, s)] for s in range(3)] == [4, 3, 4]
    st, t = sunny_state()
    st[seat_at(S_HEX, 0)] = 2                                    # active player in the shade
    engine.resolve_option(st, t, agents(), 0, card, 1, False)
    assert [st[seat_at(S_PSYCH, s)] for s in range(3)] == [3, 3, 4]


def test_67a_card_text_and_bga_flag():
    # F44, F107, Decision 6, F132: 67A others lose 1 psych (text); flag 'self': the active one,
    # and then the loss counts for F40
    st, t = card_state()
    st[seat_at(S_PSYCH, 2)] = 0
    engine.resolve_option(st, t, agents(), 0, 67, 0, False)
    assert [st[seat_at(S_PSYCH, s)] for s in range(3)] == [3, 2, 0]
    st[seat_at(S_PSYCH, 0)] = 0
    assert engine.option_choosable(st, t, 0, 67, 0, False)
    st, t = card_state({"card_67a": "self"})
    engine.resolve_option(st, t, agents(), 0, 67, 0, False)
    assert [st[seat_at(S_PSYCH, s)] for s in range(3)] == [2, 3, 3]
    st[seat_at(S_PSYCH, 0)] = 0
    assert not engine.option_choosable(st, t, 0, 67, 0, False)
    assert engine.option_choosable(st, t, 0, 67, 0, True)


def test_48b_gear_and_bga_crack():
    # Decision 6, F132: 48B loses a gear card (text) or a crack card (BGA flag), gains a face
    for rules, lost in ((None, "g"), ({"card_48b": "crack"}, "c")):
        st, t = bare_state(rules=rules)
        other = "c" if lost == "g" else "g"
        give(st, 0, KIND[other], 2)
        assert not engine.option_choosable(st, t, 0, 48, 1, False)
        give(st, 0, KIND[lost], 1)
        assert engine.option_choosable(st, t, 0, 48, 1, False)
        engine.resolve_option(st, t, agents(), 0, 48, 1, False)
        assert type_count(st, HAND, 0, lost) == 0 and type_count(st, HAND, 0, other) == 2
        assert type_count(st, HAND, 0, "f") == 1


def test_crimper_draws_two():
    # F39, F73, F128: Cool-Headed Crimper draws 2 and resolves one (codes 0-3)
    st, t = card_state(chars=(10, 4, 3))
    set_top_cards(st, 5, 10)
    pos = st[G_CDECK_POS]
    assert legal_option_codes(st, t) == [0, 1, 2, 3]
    engine.resolve_climbing_cards(st, t, agents(script=[2]), 0)  # second card (10), option A
    assert st[G_CDECK_POS] == pos + 2
    assert [st[seat_at(S_PSYCH, s)] for s in range(3)] == [5, 5, 5]
    assert [st[seat_at(S_WATER, s)] for s in range(3)] == [3, 3, 3]
    # with one single-effect card: codes 0, 2, 3
    st, t = card_state(chars=(10, 4, 3))
    set_top_cards(st, 2, 10)
    assert legal_option_codes(st, t) == [0, 2, 3]
    # F128: she must resolve a resolvable card: 25 unresolvable, 5 resolvable -> no pass
    st, t = bare_state(chars=(10, 4, 3))
    set_top_cards(st, 25, 5)
    assert legal_option_codes(st, t) == [2, 3]
    # abilities_off: one card only
    st, t = card_state({"abilities_off": "cool-headed_crimper"}, chars=(10, 4, 3))
    set_top_cards(st, 5, 10)
    pos = st[G_CDECK_POS]
    assert legal_option_codes(st, t) == [0, 1]
    engine.resolve_climbing_cards(st, t, agents(), 0)
    assert st[G_CDECK_POS] == pos + 1


def test_plain_player_draws_one():
    # F39: one card, codes 0/1 only
    st, t = card_state()
    set_top_cards(st, 5, 10)
    pos = st[G_CDECK_POS]
    assert legal_option_codes(st, t) == [0, 1]
    engine.resolve_climbing_cards(st, t, agents(script=[1]), 0)
    assert st[G_CDECK_POS] == pos + 1
    assert st[seat_at(S_WATER, 0)] == 4                          # 5B +1 water


# --------------------------------------------------------------------------------------------
# climbing-card Risk Die (F45, F116, F86, F84)
# --------------------------------------------------------------------------------------------
ROLL_CARDS = [c for c, opts in CARDS.items() for oo in opts if ("roll",) in oo[1]]


@pytest.mark.parametrize("card", ROLL_CARDS)
def test_card_roll_check(card):
    # F45, F116b: check -> 3 Portaledge cards (any piles)
    st, t = card_state({"risk_die_odds": "1:0:0"})
    o = [i for i, oo in enumerate(CARDS[card]) if ("roll",) in oo[1]][0]
    before = sum(type_count(st, HAND, 0, ty) for ty in TYPES)
    engine.resolve_option(st, t, agents(), 0, card, o, False)
    assert sum(type_count(st, HAND, 0, ty) for ty in TYPES) == before + 3
    assert st[PILE_N:PILE_N + 4].sum() == 28 - 3
    assert st[seat_at(S_STATUS, 0)] == STATUS_NONE


def roll_state(odds, hand=0, board=0, psych=3):
    st, t = bare_state(rules={"risk_die_odds": odds})
    give(st, 0, KIND["c"], hand)
    give(st, 0, KIND["g"], board, BOARD_DOWN)
    st[seat_at(S_PSYCH, 0)] = psych
    st[seat_at(S_PSYCH, 1)] = 6
    return st, t


def cards_of(st, seat):
    return sum(type_count(st, b, seat, ty) for ty in TYPES for b in (HAND, BOARD_UP, BOARD_DOWN))


def test_card_roll_minus_2():
    # F45, F116c: give 2 cards, hand first, then board, to the named opponent
    st, t = roll_state("0:1:0", hand=1, board=2)
    engine.resolve_option(st, t, agents(script=[2]), 0, 16, 1, False)
    assert type_count(st, HAND, 0, "c") == 0 and type_count(st, BOARD_DOWN, 0, "g") == 1
    assert type_count(st, HAND, 2, "c") == 1 and type_count(st, HAND, 2, "g") == 1
    assert st[seat_at(S_STATUS, 0)] == STATUS_NONE
    # unpayable: 1 card only -> nothing paid, penalised (F116f, F55)
    st, t = roll_state("0:1:0", hand=1)
    engine.resolve_option(st, t, agents(), 0, 16, 1, False)
    assert cards_of(st, 0) == 1 and cards_of(st, 1) == 0
    assert st[seat_at(S_STATUS, 0)] == STATUS_PENALISED


def test_card_roll_minus_1():
    # F45, F116d: give 1 card and 1 psych; the opponent gains it within the maximum
    st, t = roll_state("0:0:1", board=1, psych=2)
    engine.resolve_option(st, t, agents(), 0, 22, 1, False)
    assert cards_of(st, 0) == 0 and type_count(st, HAND, 1, "g") == 1
    assert st[seat_at(S_PSYCH, 0)] == 1 and st[seat_at(S_PSYCH, 1)] == 6   # capped (F7)
    st, t = roll_state("0:0:1", board=1, psych=2)
    st[seat_at(S_PSYCH, 1)] = 2
    engine.resolve_option(st, t, agents(), 0, 22, 1, False)
    assert st[seat_at(S_PSYCH, 1)] == 3
    # unpayable: no psych -> nothing paid, penalised
    st, t = roll_state("0:0:1", hand=2, psych=0)
    engine.resolve_option(st, t, agents(), 0, 22, 1, False)
    assert cards_of(st, 0) == 2 and st[seat_at(S_PSYCH, 1)] == 6
    assert st[seat_at(S_STATUS, 0)] == STATUS_PENALISED
    # unpayable: no card
    st, t = roll_state("0:0:1", psych=3)
    engine.resolve_option(st, t, agents(), 0, 22, 1, False)
    assert st[seat_at(S_PSYCH, 0)] == 3 and st[seat_at(S_STATUS, 0)] == STATUS_PENALISED


def test_card_roll_jesus_cancels_penalty():
    # F84, F116e: an unused Jesus Piece cancels a card-roll penalty
    st, t = roll_state("0:1:0", hand=0)
    st[seat_at(S_SB, 0)] |= 1 << SB_JESUS_PIECE
    ag = agents(script=[A_PLAY_SB + SB_JESUS_PIECE])
    engine.resolve_option(st, t, ag, 0, 16, 1, False)
    assert st[G_POLICY_ERROR] == 0
    assert any(r[1] == D_SB_WINDOW for r in logged(ag, st))
    assert st[seat_at(S_STATUS, 0)] == STATUS_NONE
    assert not (st[seat_at(S_SB, 0)] >> SB_JESUS_PIECE) & 1
    # already used on the card (jesus=True): no second use -> penalised
    st, t = roll_state("0:1:0", hand=0)
    st[seat_at(S_SB, 0)] |= 1 << SB_JESUS_PIECE
    ag = agents()
    engine.resolve_option(st, t, ag, 0, 16, 1, True)
    assert st[seat_at(S_STATUS, 0)] == STATUS_PENALISED
    assert not any(r[1] == D_SB_WINDOW and r[2] != 0 for r in logged(ag, st))


def rng_for(t, st, first, second):
    """A Risk Die stream state (G_RNG_RISK) whose first two rolls are (first, second)."""
    for seed in range(1, 5000):
        s2 = st.copy()
        s2[G_RNG_RISK] = seed
        if engine.roll_risk_die(s2, t) == first and engine.roll_risk_die(s2, t) == second:
            return seed
    raise AssertionError


def test_lucky_chalkbag_reroll_card_roll():
    # F86, F116a: after a penalty face the owner may reroll; the new result stands
    st, t = roll_state("1:1:1", hand=3)
    st[seat_at(S_SB, 0)] |= 1 << SB_LUCKY_CHALKBAG
    st[G_RNG_RISK] = rng_for(t, st, FACE_MINUS_2, FACE_CHECK)
    s2 = st.copy()
    ag = agents(script=[1])
    engine.resolve_option(st, t, ag, 0, 16, 1, False)
    assert (0, D_CHALKBAG, 1, 2) in logged(ag, st)
    assert cards_of(st, 0) == 3 + 3 and cards_of(st, 1) == 0        # check after reroll
    assert st[T_CHALKBAG_REROLLS + 0] == 1 and not (st[seat_at(S_SB, 0)] >> SB_LUCKY_CHALKBAG) & 1
    ag = agents(script=[0])                                           # keep: pay -2 cards
    engine.resolve_option(s2, t, ag, 0, 16, 1, False)
    assert cards_of(s2, 0) == 1 and cards_of(s2, 1) == 2
    assert (s2[seat_at(S_SB, 0)] >> SB_LUCKY_CHALKBAG) & 1
    # on a check face nothing is asked
    st, t = roll_state("1:0:0", hand=3)
    st[seat_at(S_SB, 0)] |= 1 << SB_LUCKY_CHALKBAG
    ag = agents()
    engine.resolve_option(st, t, ag, 0, 16, 1, False)
    assert not any(r[1] == D_CHALKBAG for r in logged(ag, st))


# ============================================================================================
# Summit Beta tokens (F76-F87)
# ============================================================================================
def hold(st, seat, *sbs):
    for sb in sbs:
        st[seat_at(S_SB, seat)] |= 1 << sb


def no_res():
    return np.zeros(N_KINDS, np.int64)


def test_rerack_token():
    # F76: take 2 cards of your choice from the asset discard pile (all if fewer)
    st, t = bare_state()
    st[DISCARD + 3] = 2
    st[DISCARD + 20] = 1
    st[G_DISCARD_N] = 3
    hold(st, 0, SB_RERACK)
    ag = agents(script=[20, 3])
    engine.play_own_turn_token(st, t, ag, 0, SB_RERACK, no_res())
    assert st[G_POLICY_ERROR] == 0
    assert st[HAND + 20] == 1 and st[HAND + 3] == 1
    assert st[DISCARD + 3] == 1 and st[DISCARD + 20] == 0 and st[G_DISCARD_N] == 1
    assert st[seat_at(S_SB, 0)] == 0 and (st[SB_DISCARD] >> SB_RERACK) & 1
    st, t = bare_state()
    st[DISCARD + 3] = 1
    st[G_DISCARD_N] = 1
    hold(st, 0, SB_RERACK)
    engine.play_own_turn_token(st, t, agents(), 0, SB_RERACK, no_res())
    assert st[HAND + 3] == 1 and st[G_DISCARD_N] == 0


def test_energy_drink():
    # F79, F7: +1 water +1 psych, capped at the maximum (Phil 7)
    st, t = bare_state()
    st[seat_at(S_WATER, 0)] = 3
    st[seat_at(S_PSYCH, 0)] = 6
    hold(st, 0, SB_ENERGY_DRINK)
    engine.play_own_turn_token(st, t, agents(), 0, SB_ENERGY_DRINK, no_res())
    assert (st[seat_at(S_WATER, 0)], st[seat_at(S_PSYCH, 0)]) == (4, 6)
    assert st[seat_at(S_SB, 0)] == 0
    st, t = bare_state(chars=(8, 4, 3))
    st[seat_at(S_WATER, 0)] = 6
    st[seat_at(S_PSYCH, 0)] = 7
    hold(st, 0, SB_ENERGY_DRINK)
    engine.play_own_turn_token(st, t, agents(), 0, SB_ENERGY_DRINK, no_res())
    assert (st[seat_at(S_WATER, 0)], st[seat_at(S_PSYCH, 0)]) == (7, 7)


def test_simul_climb():
    # F81, F120: draw 3 from the Spread and/or the deck
    st, t = bare_state()
    hold(st, 0, SB_SIMUL_CLIMB)
    ag = agents(script=[1, DRAW_DECK])
    engine.play_own_turn_token(st, t, ag, 0, SB_SIMUL_CLIMB, no_res())
    assert st[G_POLICY_ERROR] == 0
    assert st[HAND + 16] == 1                                   # Spread slot 1
    assert sum(type_count(st, HAND, 0, ty) for ty in TYPES) == 3
    assert all(st[SPREAD + i] > 0 for i in range(4))            # refilled (F47)


def test_bomber_anchor():
    # F85, F119: discard up to 3 hand cards first, then take as many Portaledge cards
    st, t = bare_state()
    give(st, 0, 3, 1)
    give(st, 0, 9, 1)
    give(st, 0, 16, 1)
    hold(st, 0, SB_BOMBER_ANCHOR)
    ag = agents(script=[3, 9, A_STOP, 0, 0])                   # discard 2, then gear x2
    engine.play_own_turn_token(st, t, ag, 0, SB_BOMBER_ANCHOR, no_res())
    assert st[G_POLICY_ERROR] == 0
    assert st[HAND + 3] == 0 and st[HAND + 9] == 0 and st[HAND + 16] == 1
    assert st[DISCARD + 3] == 1 and st[DISCARD + 9] == 1
    assert type_count(st, HAND, 0, "g") == 2 and st[PILE_N + 0] == 5
    assert [r[1] for r in logged(ag, st)] == [D_CARD, D_CARD, D_CARD, D_PILE, D_PILE]


def pay_state(chars=(6, 4, 3), tile=1, hand=(), water=0, psych=0, perm=(0, 0, 0, 0), h=3,
              rules=None, sbs=()):
    """Seat 0 at hex 0 facing hex h (desert row 1) with tile `tile` (Appendix B)."""
    st, t = new_game(3, chars, 11, rules)
    for s in range(3):
        clear_cards(st, s)
        st[seat_at(S_SB, s)] = 0                 # Phil's starting tokens (F22) removed
    st[TILE + h] = tile
    for k in hand:
        give(st, 0, KIND[k] if isinstance(k, str) else k)
    st[seat_at(S_WATER, 0)] = water
    st[seat_at(S_PSYCH, 0)] = psych
    for a in range(4):
        st[seat_at(S_PERM, 0) + a] = perm[a]
    hold(st, 0, *sbs)
    return st, t


def S_of(st, t, h=3, seat=0, tokens=True):
    plan = np.zeros(engine.PLAN_SIZE, np.int64)
    return int(engine.plan_payment(st, t, seat, h, plan, tokens))


def test_borrowed_rack():
    # F77, F32c: tile 2 Roger's Roof G2 A1 W1; face + water pay A, W -> gear short 2
    st, t = pay_state(tile=2, hand="f", water=1)
    assert S_of(st, t) == 2
    hold(st, 0, SB_BORROWED_RACK)
    assert S_of(st, t) == 0
    # Free Soloist: the any_skill units that came from gear are waived too
    st, t = pay_state((2, 4, 3), tile=2, hand="f", water=1)
    assert S_of(st, t) == 2
    hold(st, 0, SB_BORROWED_RACK)
    assert S_of(st, t) == 0


def test_jumar():
    # F78: only on a pitch another player climbed: no face/crack/slab/any_skill units
    st, t = pay_state(tile=1, water=1, sbs=(SB_JUMAR,))          # S2 A1 W1
    assert S_of(st, t) == 3                                      # N = 0: Jumar unusable
    place_seat(st, 1, 3)                                         # seat 1 climbed hex 3
    st[seat_at(S_HEX, 1)] = 0
    assert S_of(st, t) == 0
    assert S_of(st, t, tokens=False) == 2                        # F32a: N = 1 ignores one


def test_extra_water():
    # F80: tile 4 Rebuffat's Arete G1 A1 W2
    st, t = pay_state(tile=4, hand="gf", water=0)
    assert S_of(st, t) == 2
    hold(st, 0, SB_EXTRA_WATER)
    assert S_of(st, t) == 0


def test_guidebook():
    # F83: pays one face/crack/slab/any_skill unit, not gear
    st, t = pay_state(tile=1, hand="sf", water=1)                # S2 A1 W1: one slab short
    assert S_of(st, t) == 1
    hold(st, 0, SB_GUIDEBOOK)
    assert S_of(st, t) == 0
    st, t = pay_state(tile=2, hand="gf", water=1, sbs=(SB_GUIDEBOOK,))  # G2 A1 W1: gear short
    assert S_of(st, t) == 1
    st, t = pay_state(tile=1, hand="s", water=1, sbs=(SB_GUIDEBOOK,))   # two skill short
    assert S_of(st, t) == 1


def test_paying_token_blocks_risk():
    # F34, F123, Decision 33: a player who could pay in full with a token climbs, not risks
    st, t = pay_state(tile=1, hand="sf", water=1, sbs=(SB_GUIDEBOOK,))
    c, r = climb_sets(st, t)
    assert (c >> 3) & 1 and not (r >> 3) & 1
    st[seat_at(S_SB, 0)] = 0
    c, r = climb_sets(st, t)
    assert not (c >> 3) & 1 and (r >> 3) & 1


@pytest.mark.parametrize("flag", ["false", "true"])
def test_risking_with_a_token_left_unused(flag):
    # Decision 33 flag (BGA): a player may leave tokens unused and risk. Tile 1 S2 A1 W1, two
    # slab cards, no water; Extra Water and the Guidebook: both pay in full (S = 0), either
    # alone leaves 1 (the W or the A unit), neither 2. Risking with one token is then legal,
    # and the engine spends one, keeping the other; by default the player must climb
    st, t = pay_state(tile=1, hand="ss", water=0, sbs=(SB_EXTRA_WATER, SB_GUIDEBOOK),
                      rules={"risk_with_tokens": flag, "risk_die_odds": "1:0:0"})
    assert S_of(st, t) == 0 and S_of(st, t, tokens=False) == 2
    c, r = climb_sets(st, t)
    assert (c >> 3) & 1 and bool((r >> 3) & 1) == (flag == "true")
    if flag == "true":
        assert engine.attempt_climb(st, t, agents(), 0, 3, True)
        assert st[T_RISKS] == 1 and popcount_of(st[seat_at(S_SB, 0)]) == 1


def popcount_of(x):
    return bin(int(x)).count("1")


def climb_sets(st, t, seat=0):
    c, r = engine.climb_options(st, t, seat, np.zeros(engine.CLIMB_OPTIONS_BUFFER, np.int64))
    return int(c), int(r)


def test_new_rubber():
    # F82, F49: one wild symbol, used only when it completes a set
    st, t = bare_state()
    give(st, 0, 18, 2, BOARD_UP)                                 # Gaston: face, precision
    hold(st, 0, SB_NEW_RUBBER)
    engine.follow_phase(st, t, agents())
    assert st[seat_at(S_SC_SETS, 0)] == 2
    assert not (st[seat_at(S_SB, 0)] >> SB_NEW_RUBBER) & 1
    st, t = bare_state()
    give(st, 0, 18, 3, BOARD_UP)
    hold(st, 0, SB_NEW_RUBBER)
    engine.follow_phase(st, t, agents())
    assert st[seat_at(S_SC_SETS, 0)] == 2
    assert (st[seat_at(S_SB, 0)] >> SB_NEW_RUBBER) & 1          # not needed: kept
    st, t = bare_state()
    give(st, 0, 18, 2, BOARD_UP)
    engine.follow_phase(st, t, agents())
    assert st[seat_at(S_SC_SETS, 0)] == 0


def spider_climb(tile, value_hex=3):
    st, t = pay_state(tile=tile, sbs=(SB_SPIDER_STICK,), h=value_hex)
    plan = np.zeros(engine.PLAN_SIZE, np.int64)
    engine.complete_climb(st, t, agents(), 0, value_hex, plan, no_res())
    return st


@pytest.mark.parametrize("tile,value", [(1, 1), (13, 2), (25, 3), (29, 4), (38, 5)])
def test_spider_stick(tile, value):
    # F87, F35(6): +2 and discarded on a value 1-2 climb; kept on 3-5
    st = spider_climb(tile)
    if value <= 2:
        assert st[seat_at(S_SC_SPIDER, 0)] == 2
        assert not (st[seat_at(S_SB, 0)] >> SB_SPIDER_STICK) & 1
        assert (st[SB_DISCARD] >> SB_SPIDER_STICK) & 1
    else:
        assert st[seat_at(S_SC_SPIDER, 0)] == 0
        assert (st[seat_at(S_SB, 0)] >> SB_SPIDER_STICK) & 1


def test_jesus_piece_not_on_pitch_roll():
    # F36(5), Decision 11: Jesus Piece does not cancel a pitch Risk Die penalty
    st, t = pay_state(tile=1, hand="ss", water=1, rules={"risk_die_odds": "0:1:0"},
                      sbs=(SB_JESUS_PIECE,))
    ag = agents()
    moved = engine.attempt_climb(st, t, ag, 0, 3, True)         # S=1, no spare cards
    assert not moved
    assert not any(r[1] == D_SB_WINDOW for r in logged(ag, st))
    assert (st[seat_at(S_SB, 0)] >> SB_JESUS_PIECE) & 1
    assert st[seat_at(S_STATUS, 0)] == STATUS_PENALISED
    assert type_count(st, HAND, 0, "s") == 2 and st[seat_at(S_WATER, 0)] == 1   # F124


@pytest.mark.parametrize("face,climbs", [("0:1:0", False), ("1:0:0", True)])
def test_a_paying_token_is_spent_only_when_the_climb_succeeds(face, climbs):
    # F124, F36(6), F35(1), Decision 28: tile 1 S2 A1 W1; the slab card and the Guidebook pay
    # the slab units, the water the W unit, the any_skill unit stays unpaid (S = 1). A retreat
    # gives back what was committed: the Guidebook stays his; a success discards it
    st, t = pay_state(tile=1, hand="s", water=1, rules={"risk_die_odds": face},
                      sbs=(SB_GUIDEBOOK,))
    assert S_of(st, t) == 1 and S_of(st, t, tokens=False) == 2
    moved = engine.attempt_climb(st, t, agents(), 0, 3, True)
    assert moved == climbs
    held = bool((st[seat_at(S_SB, 0)] >> SB_GUIDEBOOK) & 1)
    discarded = bool((st[SB_DISCARD] >> SB_GUIDEBOOK) & 1)
    assert (held, discarded) == ((False, True) if climbs else (True, False))
    if not climbs:
        assert type_count(st, HAND, 0, "s") == 1 and st[seat_at(S_WATER, 0)] == 1


# ============================================================================================
# characters (F64-F75) and the shortfall (F34, F123)
# ============================================================================================
CHAR_CASES = [
    # (id, key, tile, hand, water, psych, h, S with ability, S without)
    (1, "rope_gun", 4, "gf", 1, 0, 3, 0, 1),            # F64: G1 A1 W2 -> W1
    (2, "free_soloist", 2, "fff", 1, 0, 3, 0, 2),       # F65: G2 -> any_skill
    (2, "free_soloist", 2, "ggf", 1, 0, 3, 2, 0),       # F65: gear cards cannot pay
    (3, "the_dirtbag", 1, "ssg", 1, 0, 3, 0, 1),        # F66: gear card for the A unit
    (3, "the_dirtbag", 1, "ssgg", 0, 0, 3, 1, 2),       # F66: once per pitch
    (5, "the_overstoker", 1, "ssf", 0, 1, 3, 0, 1),     # F68: psych for the W unit
    (5, "the_overstoker", 1, "ss", 0, 2, 3, 1, 2),      # F68: once per pitch
    (7, "bold_brit", 26, "gfcc", 0, 0, 3, 0, 2),        # F70: G3 F1 C2, gear capped at 1
    (9, "crag_mama", 1, "ss", 1, 0, 3, 0, 1),           # F72: skill unit below the Ledge
    (9, "crag_mama", 1, "ss", 1, 0, 22, 1, 1),          # F72: not on the Headwall
    (9, "crag_mama", 1, "ssf", 0, 0, 3, 1, 1),          # F72: text scope: not water
    (9, "crag_mama", 2, "f", 1, 0, 3, 2, 2),            # F72: text scope: not gear
    (11, "bionic_woman", 1, "sff", 1, 0, 3, 0, 1),      # F74: S -> any_skill
    (12, "buff_boulderer", 29, "ggfffc", 0, 0, 3, 0, 1),   # F75: value 4 ignores 1
    (12, "buff_boulderer", 38, "ggs", 1, 2, 3, 0, 2),   # F75: value 5 ignores 2
    (12, "buff_boulderer", 26, "gggfc", 0, 0, 3, 1, 1),  # F75: value 3 nothing
]


@pytest.mark.parametrize("cid,key,tile,hand,water,psych,h,s_on,s_off", CHAR_CASES)
def test_character_payment(cid, key, tile, hand, water, psych, h, s_on, s_off):
    # F64-F75, F32b, F123; abilities_off gives the plain behaviour
    st, t = pay_state((cid, 4, 3), tile=tile, hand=hand, water=water, psych=psych, h=h)
    assert S_of(st, t, h) == s_on
    st, t = pay_state((cid, 4, 3), tile=tile, hand=hand, water=water, psych=psych, h=h,
                      rules={"abilities_off": key})
    assert S_of(st, t, h) == s_off


def test_crag_mama_bga_any_unit():
    # F72, Decision 6: with crag_mama=any_unit she may ignore the water unit
    st, t = pay_state((9, 4, 3), tile=1, hand="ssf", rules={"crag_mama": "any_unit"})
    assert S_of(st, t) == 0


def test_rope_gun_no_water_pitch():
    # F64: only if the pitch needs water: tile 15 G2 F1 S2 has none
    st, t = pay_state((1, 4, 3), tile=15, hand="ggfs", water=0)
    assert S_of(st, t) == 1


def test_phil_must_risk():
    # F34, F71: Phil risks every climbable hex (S <= 1); abilities_off -> ordinary climb
    for rules, climb in ((None, False), ({"abilities_off": "phil"}, True)):
        st, t = pay_state((8, 4, 3), tile=1, hand="ssf", water=1, rules=rules)
        c, r = climb_sets(st, t)
        assert bool((c >> 3) & 1) == climb and bool((r >> 3) & 1) != climb


def test_phil_rolls_with_full_payment():
    # F36, F71, F125 / Decision 9: Phil rolls and leaves one unit unpaid
    st, t = pay_state((8, 4, 3), tile=1, hand="ssf", water=1, rules={"risk_die_odds": "1:0:0"})
    set_top_cards(st, 10)                                       # 10A: psych only
    assert engine.attempt_climb(st, t, agents(), 0, 3, False)
    assert st[T_RISKS + 0] == 1
    assert sum(type_count(st, BOARD_UP, 0, ty) for ty in TYPES) + \
        (1 - st[seat_at(S_WATER, 0)]) == 3                      # 4 units, one left unpaid


def test_sendy_jammer_gear_wild():
    # F67, F49: her gear cards are wild (also without symbol); off -> printed symbols
    for rules, sets in ((None, 1), ({"abilities_off": "sendy_jammer"}, 0)):
        st, t = bare_state((4, 6, 3), rules)
        for k in (22, 24, 28):                                   # precision, pain, none
            give(st, 0, k, 1, BOARD_UP)
        engine.follow_phase(st, t, agents())
        assert st[seat_at(S_SC_SETS, 0)] == 2 * sets


def test_young_prodigy_thresholds():
    # F69, F50: 3 skill cards (5 gear) per permanent token; off -> 4
    st, t = bare_state((6, 4, 3))
    give(st, 0, 16, 3, BOARD_DOWN)
    give(st, 0, 28, 4, BOARD_DOWN)
    ag = agents(script=[1])
    engine.permanent_tokens(st, t, ag, 0)
    assert st[seat_at(S_PERM, 0) + 1] == 1 and type_count(st, BOARD_DOWN, 0, "f") == 0
    assert [r[3] for r in logged(ag, st) if r[1] == D_PERMANENT][0] == 2   # face + stop only
    st, t = bare_state((6, 4, 3), {"abilities_off": "young_prodigy"})
    give(st, 0, 16, 3, BOARD_DOWN)
    give(st, 0, 28, 4, BOARD_DOWN)
    ag = agents(script=[0])
    engine.permanent_tokens(st, t, ag, 0)
    assert st[seat_at(S_PERM, 0) + 0] == 1 and st[seat_at(S_PERM, 0) + 1] == 0


# --- F123 brute force -----------------------------------------------------------------------
REQ_LETTERS = "GFCSAWP"


def tile_req(t_id):
    """Appendix B requirements for the tiles used below."""
    table = {1: "S2 A1 W1", 2: "G2 A1 W1", 4: "G1 A1 W2", 5: "G1 F1 A1 W1", 13: "G1 F1 S1 P2",
             14: "G1 S2 W1 P1", 15: "G2 F1 S2", 20: "F1 S1 W1 P2", 21: "F2 C2 S1",
             22: "F1 C2 W1 P1", 26: "G3 F1 C2", 29: "G2 F3 C2", 31: "G1 F1 C1 S2 P2",
             36: "G2 F1 C1 S1 A1 W1 P1", 38: "G2 S3 W1 P2", 41: "G3 F1 C1 S1 W1 P1"}
    r = [0] * 7
    for part in table[t_id].split():
        r[REQ_LETTERS.index(part[0])] = int(part[1:])
    return r, table


VALUE = {1: 1, 2: 1, 4: 1, 5: 1, 13: 2, 14: 2, 15: 2, 20: 2, 21: 2, 22: 2, 26: 3, 29: 4,
         31: 4, 36: 3, 38: 5, 41: 5}


def brute_S(r, res, water, psych, ignores, guidebook, gear_cap=None):
    """Enumerate ignored units, the Guidebook's unit, and how skill resources split between
    their own units and any_skill units (F32a, F75, F83, F33). `ignores` are the discount's
    (F32a); `gear_cap` caps the gear left after them (F70, F32b: the F123 erratum's order)."""
    best = 99
    kinds = range(7)

    def vectors(k, left):
        if k == 7:
            yield ()
            return
        for v in range(min(r[k], left) + 1):
            for rest in vectors(k + 1, left - v):
                yield (v,) + rest

    for ign in vectors(0, ignores):
        r1 = [r[k] - ign[k] for k in kinds]
        if gear_cap is not None:
            r1[0] = min(r1[0], gear_cap)
        for gb in ([None] + [1, 2, 3, 4] if guidebook else [None]):
            r2 = list(r1)
            if gb is not None:
                if r2[gb] == 0:
                    continue
                r2[gb] -= 1
            unpaid_g = max(0, r2[0] - res[0])
            for x in itertools.product(*[range(min(res[a], r2[a]) + 1) for a in (1, 2, 3)]):
                spec = sum(r2[a] - x[a - 1] for a in (1, 2, 3))
                left = sum(res[a] - x[a - 1] for a in (1, 2, 3))
                s = unpaid_g + spec + max(0, r2[4] - left) + max(0, r2[5] - water) + \
                    max(0, r2[6] - psych)
                best = min(best, s)
    return best


@pytest.mark.parametrize("seed", range(30))
def test_shortfall_is_minimum(seed):
    # F123, F32a, F33, F75, F83: S equals a brute-force minimum
    rng = np.random.default_rng(seed)
    tile = int(rng.choice(list(VALUE)))
    cid = (6, 12, 7)[seed % 3]                         # Young Prodigy, Buff Boulderer, Bold Brit
    if cid == 7:                    # where his cap meets the discount: gear 2 or more, N >= 1
        tile = int(rng.choice([k for k in VALUE if tile_req(k)[0][0] >= 2]))
    st, t = pay_state((cid, 4, 3), tile=tile)
    r, _ = tile_req(tile)
    for a in range(4):                                          # requirement tokens (F31)
        extra = int(rng.integers(0, 2)) if rng.random() < 0.3 else 0
        st[REQ_TOKENS + 4 * 3 + a] = extra
        r[a] += extra
    res = [0] * 4
    for a, ty in enumerate(TYPES):
        n = int(rng.integers(0, 4))
        give(st, 0, KIND[ty], n)
        p = int(rng.integers(0, 2)) if rng.random() < 0.3 else 0
        st[seat_at(S_PERM, 0) + a] = p
        res[a] = n + p
    water, psych = int(rng.integers(0, 4)), int(rng.integers(0, 4))
    st[seat_at(S_WATER, 0)] = water
    st[seat_at(S_PSYCH, 0)] = psych
    n_others = int(rng.integers(1 if cid == 7 else 0, 3))
    for q in range(1, 1 + n_others):
        st[seat_at(S_ROUTE_MASK, q)] |= 1 << 3
    guidebook = bool(rng.random() < 0.4)
    if guidebook:
        hold(st, 0, SB_GUIDEBOOK)
    ignores = n_others + (({4: 1, 5: 2}.get(VALUE[tile], 0)) if cid == 12 else 0)
    gear_cap = 1 if cid == 7 else None
    assert S_of(st, t) == brute_S(r, res, water, psych, ignores, guidebook, gear_cap)


UNITS = ("gear", "face", "crack", "slab", "any_skill", "water", "psych")
PAYING = (SB_BORROWED_RACK, SB_JUMAR, SB_EXTRA_WATER, SB_GUIDEBOOK)


def splits(units, most):
    """Every way to take at most `most` units out of the requirement `units`."""
    if not units:
        yield ()
        return
    for v in range(min(units[0], most) + 1):
        for rest in splits(units[1:], most - v):
            yield (v,) + rest


def less(units, taken):
    return [u - x for u, x in zip(units, taken)]


def one_less(units, k):
    return [u - (i == k) for i, u in enumerate(units)]


def enumerated_shortfall(req, ability, cards, perm, water, psych, n_others, tokens, below_ledge,
                         value, crag_any):
    """S by trying every choice in F32's order: the discount's N units (a); the character's
    changes (b: Rope Gun, Free Soloist, Bold Brit's cap, Buff Boulderer's and Crag Mama's
    ignores, Bionic Woman's conversion); the waiver tokens (c: Borrowed Rack, Jumar, Extra
    Water); the Guidebook; the Dirtbag's or Overstoker's substitute; then paying (F33), skill
    cards of a type on their own units before any_skill."""
    G, A, W, P = 0, 4, 5, 6
    sub = ability.get("substitute")
    best = 99
    for taken in splits(req, n_others):                                      # F32a
        r = less(req, taken)
        if ability.get("water_requirement_minus") and r[W] > 0:               # F64
            r[W] = max(0, r[W] - ability["water_requirement_minus"])
        converted = r[G] if ability.get("gear_requirements_become_any_skill") else 0   # F65
        r[A] += converted
        r[G] -= converted
        if "gear_requirement_cap" in ability:                                 # F70
            r[G] = min(r[G], ability["gear_requirement_cap"])
        by_value = ability.get("ignore_units_by_printed_value", {}).get(str(value), 0)   # F75
        for ignored in splits(r, by_value):
            r2 = less(r, ignored)
            crag = [None]                                                     # F72
            if ability.get("ignore_units_below_ledge") and below_ledge:
                crag += [k for k in (range(7) if crag_any else (1, 2, 3, 4)) if r2[k] > 0]
            bionic = [None] + ([k for k in (1, 2, 3) if r2[k] > 0]             # F74
                               if ability.get("convert_one_skill_unit_to_any_skill") else [])
            for c, b in itertools.product(crag, bionic):
                r3 = list(r2) if c is None else one_less(r2, c)
                if b is not None:
                    if r3[b] == 0:
                        continue
                    r3 = one_less(r3, b)
                    r3[A] += 1
                for used in itertools.product((0, 1), repeat=4):
                    if any(u and x not in tokens for u, x in zip(used, PAYING)):
                        continue
                    rack, jumar, extra_water, guidebook = used
                    if jumar and n_others == 0:
                        continue
                    r4 = list(r3)
                    if rack:                                                  # F77
                        r4[G] = 0
                        r4[A] = max(0, r4[A] - converted)
                    if jumar:                                                 # F78
                        r4[1:5] = [0, 0, 0, 0]
                    if extra_water:                                           # F80
                        r4[W] = 0
                    books = [None] + ([k for k in (1, 2, 3, 4) if r4[k] > 0] if guidebook else [])
                    subs = [None] + ([UNITS.index(x) for x in sub["replaces"]] if sub else [])
                    for book, swap in itertools.product(books, subs):         # F83, F66, F68
                        r5 = list(r4) if book is None else one_less(r4, book)
                        if swap is not None:
                            if r5[swap] == 0:
                                continue
                            r5 = one_less(r5, swap)
                        gear_paid = min(r5[G], perm[0] + cards[0])
                        short = r5[G] - gear_paid
                        spare = 0
                        for k in (1, 2, 3):
                            have = perm[k] + cards[k]
                            short += max(0, r5[k] - have)
                            spare += max(0, have - r5[k])
                        short += max(0, r5[A] - spare) + max(0, r5[W] - water) + \
                            max(0, r5[P] - psych)
                        if swap is not None:      # the substitute must be a spare one
                            if sub["pay_with"] == "gear_card":
                                left = cards[0] - max(0, gear_paid - perm[0])
                            else:
                                left = psych - min(psych, r5[P])
                            if left < 1:
                                continue
                        best = min(best, short)
    return best


@pytest.mark.parametrize("seed", range(8))
def test_shortfall_matches_an_enumeration_for_every_character(seed):
    # F123, F32-F34, F64-F75, F77-F83: S is the minimum over every legal choice, for each of
    # the 12 characters, with requirement tokens, permanent tokens, the four paying Summit Beta
    # tokens, 0-2 other climbers, both Crag Mama readings (Decision 6) and both boards' rows
    from sim.games.first_ascent.data import DATA, T_P_REQ, T_P_VALUE
    rng = np.random.default_rng(seed)
    abilities = {c["id"]: c["ability"] for c in DATA["characters"]}
    crag_any = seed % 2 == 1
    for cid in abilities:
        for _ in range(12):
            tile = int(rng.integers(1, 44))
            below_ledge = bool(rng.random() < 0.5)
            h = 3 if below_ledge else 23
            others = [x for x in (4, 6, 3) if x != cid][:2]
            st, t = pay_state((cid, *others), tile=tile, h=h,
                              rules={"crag_mama": "any_unit"} if crag_any else None)
            st[G_HEADWALL_UP] = 1
            req = [int(t[T_P_REQ + 7 * tile + k]) for k in range(7)]
            for a in range(4):
                extra = int(rng.integers(0, 2)) if rng.random() < 0.25 else 0
                st[REQ_TOKENS + 4 * h + a] = extra
                req[a] += extra
            cards = [int(rng.integers(0, 4)) for _ in range(4)]
            perm = [int(rng.random() < 0.2) for _ in range(4)]
            for a, ty in enumerate(TYPES):
                give(st, 0, KIND[ty], cards[a])
                st[seat_at(S_PERM, 0) + a] = perm[a]
            water, psych = int(rng.integers(0, 4)), int(rng.integers(0, 4))
            st[seat_at(S_WATER, 0)] = water
            st[seat_at(S_PSYCH, 0)] = psych
            n_others = int(rng.integers(0, 3))
            for q in range(1, 1 + n_others):
                st[seat_at(S_ROUTE_MASK, q)] |= 1 << h
            tokens = [x for x in PAYING if rng.random() < 0.3]
            hold(st, 0, *tokens)
            expect = enumerated_shortfall(req, abilities[cid], cards, perm, water, psych,
                                          n_others, tokens, below_ledge,
                                          int(t[T_P_VALUE + tile]), crag_any)
            assert S_of(st, t, h) == expect, (cid, tile, req, cards, perm, water, psych,
                                              n_others, tokens, below_ledge)


@pytest.mark.parametrize("n_others,gear_cards,expect", [(0, 0, 1), (1, 0, 1), (2, 0, 0),
                                                        (1, 1, 0)])
def test_bold_brits_cap_comes_after_the_discount(n_others, gear_cards, expect):
    # F123 erratum, F32a before F32b, F70: tile 15 is G2 F1 S2; face, slab, slab pay the rest.
    # With N = 1 the discount on a gear unit leaves 2 - 1 = 1, still 1 after the cap, so one
    # gear unit stays unpaid (capping first and ignoring after would reach S = 0); N = 2 takes
    # both gear units, and a gear card pays the capped one
    st, t = pay_state((7, 4, 3), tile=15, hand="fss" + "g" * gear_cards)
    for q in range(1, 1 + n_others):
        st[seat_at(S_ROUTE_MASK, q)] |= 1 << 3
    assert S_of(st, t) == expect
    r, _ = tile_req(15)
    assert brute_S(r, [gear_cards, 1, 0, 2], 0, 0, n_others, False, gear_cap=1) == expect


def test_bold_brits_discount_goes_to_another_unit_when_the_gear_cannot_take_it():
    # F123 erratum: with N = 1 on G2 F1 S2 and no face card, the discount ignores the face unit
    # (the gear left is capped at 1 and paid by his gear card); S = 0, so he climbs
    st, t = pay_state((7, 4, 3), tile=15, hand="gss")
    st[seat_at(S_ROUTE_MASK, 1)] |= 1 << 3
    plan = np.zeros(engine.PLAN_SIZE, np.int64)
    assert int(engine.plan_payment(st, t, 0, 3, plan, True)) == 0
    assert plan[engine.PL_CARDS + 0] == 1 and plan[engine.PL_IGNORED] == 1


def test_climb_options_by_shortfall():
    # F34, F29, F126: S=0 climb, S=1 risk, S>=2 neither (row-1 hexes from hex 0)
    st, t = pay_state(tile=1, hand="ssf", water=1, h=3)          # S2 A1 W1: S=0
    st[TILE + 4] = 2                                             # G2 A1 W1: gear short 2
    st[TILE + 5] = 4                                             # G1 A1 W2: G1, W1 short = 2
    st[TILE + 6] = 5                                             # G1 F1 A1 W1: G1 F? -> see below
    for h in (1, 2, 7, 8):
        st[TILE + h] = 26                                        # G3 F1 C2: far short
    plan = np.zeros(engine.PLAN_SIZE, np.int64)
    expect_c = expect_r = 0
    for h in range(1, 9):
        s = int(engine.plan_payment(st, t, 0, h, plan, True))
        r, _ = tile_req(int(st[TILE + h]))
        assert s == brute_S(r, [0, 1, 0, 2], 1, 0, 0, False)
        if s == 0:
            expect_c |= 1 << h
        elif s == 1:
            expect_r |= 1 << h
    c, rk = climb_sets(st, t)
    assert (c, rk) == (expect_c, expect_r)
    assert (c >> 3) & 1 and (rk >> 6) & 1 and not ((c | rk) >> 4) & 1
