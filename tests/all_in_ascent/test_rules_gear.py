"""Rest, training, gear purchases and levels: R35, R38-R43, R61-R64, R74, R75, R82, and the
§12 stats-by-level table."""
import pytest

from helpers import (DATA, INC, MASK, STATS, Buy, EndTurn, Game, IllegalActionError, PyRng,
                     Rest, S, Train, climb, give, owns, pget, pset, set_training)

ACCESS = ["Harness", "Belay Device", "Locking Carabiner", "Lead Rope"]
NON_ACCESS = [c["name"] for c in DATA["GEAR_SHOP"] if c["name"] not in ACCESS]
CUMULATIVE = {row["level"]: row["cumulative"] for row in DATA["XP_TABLE"]}


def end_round(g):
    r = g.round
    while g.round == r and not g.is_over:
        g.step(EndTurn())


def show_in_rotation(g, name, slot=0):
    """Put card `name` into rotation slot `slot` (it must not be shown elsewhere)."""
    assert name not in g.rotation_names()
    g.state[S.G_ROTATION + slot] = g.rules.card_id(name)


def all_owned(g):
    return {c for p in g.as_dict()["players"] for c in p["gear"]}


# --- R38 rest ----------------------------------------------------------------------------------

@pytest.mark.parametrize("gear,endurance,want", [
    ([], 50, 100),                                           # min(100, 150)
    ([], 130, 100),                                          # above the cap: lowered
    (["Beta Reading Book"], 130, 110),
    (["Beta Reading Book"], 60, 110),
    (["Pre-Climb Stretching"], 60, 112),
    (["Beta Reading Book", "Pre-Climb Stretching"], 60, 122),  # stacks to 22
    (["Beta Reading Book", "Pre-Climb Stretching"], 5, 105),   # min(122, 5 + 100)
    (["Beta Reading Book", "Pre-Climb Stretching"], 0, 100),
])
def test_rest_formula(gear, endurance, want):
    g = Game(1, ["technician"])                              # max endurance 100
    give(g, 0, *gear)
    pset(g, 0, endurance=endurance)
    ev = g.step(Rest())
    # R38: currentEndurance <- min(max + restBonus, current + max); time -1; location rest
    assert pget(g, 0, "endurance") == want
    assert ev["time"] == [10, 9]
    assert g.player_dict(0)["location"] == "rest"


def test_route_reader_rest_sets_beta_boost():
    g = Game(1, ["routeReader", "technician"])
    ev = g.step(Rest())
    # R39: resting sets Beta Boost for the Route Reader only
    assert ev["beta_boost"] is True and g.player_dict(0)["beta_boost"]
    g.step(Rest())
    assert not g.player_dict(1)["beta_boost"]


# --- R40 training --------------------------------------------------------------------------------

@pytest.mark.parametrize("station,stat,cost", [("Grip Board", "focus", 10),
                                               ("Campus Board", "strength", 15),
                                               ("Continuous MoonBoard", "technique", 12),
                                               ("Balance and Core", "flexibility", 8)])
@pytest.mark.parametrize("journal", [False, True])
def test_training(station, stat, cost, journal):
    g = Game(1, ["sprinter"])
    if journal:
        give(g, 0, "Old Climbing Journal")
    ev = g.step(Train(station))
    # R40: location <- station; time -2; endurance -station cost; +5 (+6 with the Journal)
    assert g.player_dict(0)["location"] == station
    assert ev["time"] == [10, 8]
    assert ev["endurance"] == [85, 85 - cost]
    bonus = g.player_dict(0)["training"]
    assert bonus == {s: (6 if journal else 5) if s == stat else 0 for s in STATS}


def test_training_is_permanent():
    g = Game(1, ["ironLung"])
    g.step(Train("Campus Board"))
    g.step(Train("Campus Board"))
    pset(g, 0, xp=CUMULATIVE[3])
    g.step(Rest())                                           # level-up happens here
    assert g.player_dict(0)["level"] == 3
    end_round(g)
    # R40 / R62: training bonuses survive level-ups and round ends
    assert g.player_dict(0)["training"]["strength"] == 10


def test_no_per_round_limits():
    g = Game(1, ["routeReader"])
    pset(g, 0, level=14, xp=CUMULATIVE[14] + 260, endurance=300)   # 260 spendable, no level-up
    # R82: no per-round purchase limit and no per-round training limit
    g.step(Buy("Harness"))
    g.step(Buy("Belay Device"))
    g.step(Buy("Confidence Building"))                       # rotation of seed 1
    g.step(Train("Grip Board"))
    g.step(Train("Grip Board"))
    g.step(Train("Balance and Core"))
    assert g.round == 1
    assert g.player_dict(0)["gear"] == ["Harness", "Belay Device", "Confidence Building"]
    assert g.player_dict(0)["training"]["focus"] == 10


# --- R41, R42 purchase ---------------------------------------------------------------------------

def test_payment():
    g = Game(1, ["technician"])
    pset(g, 0, xp=150)
    ev = g.step(Buy("Confidence Building"))
    # R41: location gearShop, time -1, xp -= cost (the total counter), card appended
    assert g.player_dict(0)["location"] == "gearShop"
    assert ev["time"] == [10, 9]
    assert ev["xp"] == [150, 40]
    assert g.player_dict(0)["gear"] == ["Confidence Building"]
    assert ev["purchase"]["cost"] == 110


def test_locking_carabiner_raises_max_only():
    g = Game(1, ["ironLung"])
    give(g, 0, "Harness", "Belay Device")
    pset(g, 0, xp=60, endurance=90)
    g.step(Buy("Locking Carabiner"))
    # R42: maxEndurance += 5, currentEndurance unchanged
    assert pget(g, 0, "max_endurance") == 125
    assert pget(g, 0, "endurance") == 90


def test_other_cards_have_no_purchase_effect():
    g = Game(1, ["ironLung"])
    pset(g, 0, xp=210, endurance=90)
    g.step(EndTurn())                                        # settle the level-up first
    pset(g, 0, time=10, xp=CUMULATIVE[2] + 210)
    g.state[S.G_CURRENT] = 0
    before = g.player_dict(0)
    g.step(Buy("Harness"))
    g.step(Buy("Mental Anchor"))
    after = g.player_dict(0)
    # R42: only the Locking Carabiner does anything at purchase time
    for k in ("max_endurance", "endurance", "stats", "training", "level"):
        assert after[k] == before[k]


# --- R43 rotation --------------------------------------------------------------------------------

def expected_after_buy(g, card_name):
    """Rotation and rng state after buying `card_name` from the rotation, per R43."""
    rot = g.rotation_names()
    k = rot.index(card_name)
    owned = all_owned(g) | {card_name}
    pool = [c for c in NON_ACCESS if c not in rot and c not in owned]
    if not pool:
        return rot[:k] + rot[k + 1:], int(g.state[S.G_RNG])
    r = PyRng(int(g.state[S.G_RNG]))
    rot[k] = r.pick(pool)
    return rot, r.s


def test_rotation_replacement_from_pool():
    g = Game(1, ["technician", "sprinter"])
    give(g, 1, "Power Spotting", "Approach Shoes", "Beta Reading Book")   # owned: excluded
    pset(g, 0, xp=500)
    rng_before = int(g.state[S.G_RNG])
    want_rot, want_rng = expected_after_buy(g, "Confidence Building")
    ev = g.step(Buy("Confidence Building"))                 # slot 1
    # R43: slot k <- pick(pool of unshown, unowned, non-access cards in data order)
    assert g.rotation_names() == want_rot
    assert g.rotation_names()[0] == "Mental Anchor" and g.rotation_names()[2] == \
        "Crimp Sequence Decoder"
    assert ev["purchase"]["replacement"] == want_rot[1]
    assert want_rot[1] not in {"Power Spotting", "Approach Shoes", "Beta Reading Book"}
    # R8: exactly one draw
    assert int(g.state[S.G_RNG]) == want_rng == (rng_before + INC) & MASK


def test_access_purchase_leaves_rotation_and_rng():
    g = Game(1, ["technician"])
    pset(g, 0, xp=100)
    rot, rng = g.rotation_names(), int(g.state[S.G_RNG])
    g.step(Buy("Harness"))
    # R43: replacement is for non-access cards only; R8: 0 draws
    assert g.rotation_names() == rot and int(g.state[S.G_RNG]) == rng


def test_rotation_drains_and_slots_disappear():
    g = Game(5, ["technician", "sprinter"])
    pset(g, 1, time=0)
    bought = []
    for i in range(len(NON_ACCESS)):
        pset(g, 0, xp=10_000, time=10, level=1)
        rot = g.rotation_names()
        want_rot, want_rng = expected_after_buy(g, rot[-1])
        g.step(Buy(rot[-1]))
        bought.append(rot[-1])
        # R43 (and R8: one draw, or none when the pool is empty)
        assert g.rotation_names() == want_rot
        assert int(g.state[S.G_RNG]) == want_rng
        # R35: a card owned by anyone never returns to the rotation
        assert not set(g.rotation_names()) & set(bought)
        if i >= len(NON_ACCESS) - 3:
            # R43: pool empty -> the slot is deleted; the rotation shrinks
            assert len(g.rotation_names()) == len(NON_ACCESS) - 1 - i
    assert sorted(bought) == sorted(NON_ACCESS)  # R35: each card has one owner at most
    pset(g, 0, xp=10_000, time=10)
    buys = [a.card for a in g.legal_actions() if isinstance(a, Buy)]
    assert buys == ["Harness"]


def test_empty_pool_removes_slot_and_shifts():
    g = Game(1, ["technician", "sprinter"])     # rotation: Mental Anchor, Confidence Building,
    rot = g.rotation_names()                    # Crimp Sequence Decoder
    give(g, 1, *[c for c in NON_ACCESS if c not in rot])
    pset(g, 1, time=0)
    pset(g, 0, xp=500)
    rng = int(g.state[S.G_RNG])
    ev = g.step(Buy("Mental Anchor"))
    # R43: empty pool -> slot 0 deleted, later slots move up, no draw (R8)
    assert g.rotation_names() == ["Confidence Building", "Crimp Sequence Decoder"]
    assert ev["purchase"]["replacement"] is None
    assert int(g.state[S.G_RNG]) == rng
    pset(g, 0, xp=500)
    g.step(Buy("Crimp Sequence Decoder"))
    assert g.rotation_names() == ["Confidence Building"]
    end_round(g)
    # R43: never refilled, not refreshed at round end
    assert g.rotation_names() == ["Confidence Building"]


def test_shop_not_refreshed_at_round_end():
    g = Game(42, ["technician", "sprinter"])
    rot = g.rotation_names()
    for _ in range(4):
        end_round(g)
    # R43: the shop is not refreshed at round end
    assert g.rotation_names() == rot


def test_sold_card_cannot_be_bought_by_another_player():
    g = Game(1, ["technician", "sprinter"])
    pset(g, 0, xp=200)
    pset(g, 1, xp=200)
    g.step(Buy("Confidence Building"))
    assert g.current_seat == 1
    # R35: the card has one owner; it is no longer offered
    with pytest.raises(IllegalActionError, match="not in the shop rotation"):
        g.step(Buy("Confidence Building"))
    # R35: access cards: each player may own one of each
    g.state[S.G_CURRENT] = 0
    g.step(Buy("Harness"))
    g.state[S.G_CURRENT] = 1
    g.step(Buy("Harness"))
    assert owns(g, 0, "Harness") and owns(g, 1, "Harness")


# --- R61-R63 levels ------------------------------------------------------------------------------

LEVEL_TABLE = [  # §12: character, level, str/tech/focus/flex, max endurance
    ("technician", 2, (14, 31, 21, 16), 105), ("technician", 3, (15, 35, 23, 18), 110),
    ("technician", 15, (33, 89, 53, 42), 170),
    ("sprinter", 2, (26, 16, 14, 19), 88), ("sprinter", 15, (78, 42, 33, 51), 127),
    ("ironLung", 2, (19, 20, 22, 16), 128), ("ironLung", 15, (51, 52, 61, 42), 232),
    ("freeSolo", 2, (13, 27, 23, 19), 106), ("freeSolo", 15, (32, 79, 62, 51), 184),
    ("routeReader", 2, (17, 23, 26, 16), 117), ("routeReader", 3, (19, 26, 30, 17), 124),
    ("routeReader", 15, (43, 68, 78, 35), 208),
]


@pytest.mark.parametrize("char,level,stats,max_end", LEVEL_TABLE)
def test_stats_by_level(char, level, stats, max_end):
    g = Game(1, [char])
    pset(g, 0, xp=CUMULATIVE[level], endurance=33)
    ev = g.step(Rest())
    # R61: stats = round_half_up(start + growth * (L - 1)); §12 table; R63 half rates
    p = g.player_dict(0)
    assert p["level"] == level
    assert tuple(p["stats"][s] for s in STATS) == stats
    assert p["max_endurance"] == max_end
    assert ev["level_up"]["from"] == 1 and ev["level_up"]["to"] == level
    # R62: current endurance unchanged by the level-up (the rest set it first)
    assert p["endurance"] == ev["endurance"][1]


def test_half_rates_alternate():
    # R63: Technician strength 12, 14, 15, 17, ... (growth 1.5, round half up)
    g = Game(1, ["technician"])
    got = []
    for level in range(1, 6):
        pset(g, 0, xp=CUMULATIVE[level], time=10)
        g.step(Rest())
        got.append(g.player_dict(0)["stats"]["strength"])
    assert got == [12, 14, 15, 17, 18]


@pytest.mark.parametrize("xp,level", [(99, 1), (100, 2), (249, 2), (250, 3), (5999, 14),
                                      (6000, 15), (100_000, 15)])
def test_level_thresholds_and_cap(xp, level):
    g = Game(1, ["ironLung"])
    pset(g, 0, xp=xp)
    g.step(Rest())
    # R61: repeat while level < 15 and xp >= cumulative(level + 1); level 15 is the cap
    assert g.player_dict(0)["level"] == level


def test_level_up_keeps_current_endurance_and_drops_carabiner_bonus():
    g = Game(1, ["sprinter"])
    give(g, 0, "Harness", "Belay Device")
    pset(g, 0, xp=60 + 95)
    g.step(Buy("Locking Carabiner"))                           # xp 95, max 90
    assert pget(g, 0, "max_endurance") == 90 and pget(g, 0, "endurance") == 85
    pset(g, 0, endurance=89)
    pset(g, 0, xp=100)
    g.step(EndTurn())                                          # any action: level-up check
    # R62: max recomputed (85 + 3 = 88): Carabiner's +5 is lost, max drops by 2
    assert g.player_dict(0)["level"] == 2
    assert pget(g, 0, "max_endurance") == 88
    # R62: current endurance unchanged, even above the new max (R75)
    assert pget(g, 0, "endurance") == 89


def test_level_up_overflow_persists_until_a_success():
    g = Game(1, ["routeReader"])
    give(g, 0, "Harness", "Belay Device")
    pset(g, 0, xp=160)
    g.step(Buy("Locking Carabiner"))                           # max 115
    g.step(Rest())                                             # endurance 115
    pset(g, 0, xp=CUMULATIVE[2])
    g.step(Rest())                                             # level 2: max 117, no change
    assert pget(g, 0, "max_endurance") == 117
    pset(g, 0, endurance=200)
    end_round(g)
    # R75: endurance above max persists across rounds until spent or clamped
    assert pget(g, 0, "endurance") == 200
    ev = climb(g, "Project Zero", [6, 6])                     # failure: no clamp
    assert not ev["attempt"]["success"] and pget(g, 0, "endurance") == 100
    pset(g, 0, endurance=200)
    ev = climb(g, "Open Door", [1, 1])                        # success: clamp (R56)
    assert ev["attempt"]["success"] and pget(g, 0, "endurance") == 117


# --- R64 spendable XP ----------------------------------------------------------------------------

def test_spendable_xp():
    g = Game(1, ["technician"])
    pset(g, 0, xp=130)
    # R64: 130 XP at level 1 = 130 spendable
    assert g.player_dict(0)["spendable_xp"] == 130
    assert "Confidence Building" in [a.card for a in g.legal_actions() if isinstance(a, Buy)]
    g.step(Rest())                                             # level 2
    # R64: after reaching level 2 it is 30
    assert g.player_dict(0)["level"] == 2
    assert g.player_dict(0)["spendable_xp"] == 30
    assert [a.card for a in g.legal_actions() if isinstance(a, Buy)] == []


def test_purchases_reduce_xp_needed_for_next_level():
    g = Game(1, ["technician"])
    pset(g, 0, xp=90, endurance=200)
    set_training(g, 0, [1, 0, 0, 0])
    g.step(Buy("Harness"))                                     # xp 10
    assert pget(g, 0, "xp") == 10
    ev = climb(g, "Open Door", [1, 1])                        # +25 -> 35
    # R64: XP spent on gear must be earned again before the next level-up
    assert ev["attempt"]["success"] and pget(g, 0, "xp") == 35
    assert g.player_dict(0)["level"] == 1


def test_xp_never_below_level_threshold():
    g = Game(1, ["technician"])
    pset(g, 0, xp=CUMULATIVE[3] + 80, level=3)
    g.step(Buy("Harness"))
    # R64: spendable is max(0, xp - cumulative(level)); buying down to exactly the threshold
    assert pget(g, 0, "xp") == CUMULATIVE[3]
    assert g.player_dict(0)["spendable_xp"] == 0
    assert g.player_dict(0)["level"] == 3


# --- R74 ---------------------------------------------------------------------------------------

def test_passives_follow_the_character_not_the_seat():
    g = Game(1, ["ironLung", "sprinter", "technician"])
    pset(g, 0, time=0)
    pset(g, 1, time=0)
    g.state[S.G_CURRENT] = 2
    pset(g, 2, endurance=200)
    ev = climb(g, "Warm-Up Wonder", [5, 5, 5])
    # R74: passives are keyed on the character key: the Technician in seat 2
    assert ev["attempt"]["time_cost"] == 3
    assert [ev["attempt"]["requirements"][s] for s in STATS] == [17, 15, 8, 15]


# --- draws of non-climb actions (R8 with R37, R38, R40, R41) -------------------------------------

def test_rest_train_end_turn_and_access_buys_draw_nothing():
    g = Game(1, ["technician", "sprinter"])
    pset(g, 0, xp=90)
    rng = int(g.state[S.G_RNG])
    g.step(Rest())              # R38
    g.step(Train("Grip Board"))  # R40
    g.step(Buy("Harness"))      # R41 (access card: no replacement, R43)
    g.step(EndTurn())           # R37 (the round does not end: seat 1 still has time)
    assert g.round == 1
    assert int(g.state[S.G_RNG]) == rng
