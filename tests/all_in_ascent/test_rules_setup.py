"""Setup rules R10-R17 (and R81), with the §12 setup test vectors of RULES.md."""
import numpy as np
import pytest

from helpers import AREAS, DATA, INC, MASK, STATS, Climb, Game, PyRng, S
from sim.games.all_in_ascent import engine as E

CHARS = ("technician", "sprinter", "ironLung", "freeSolo", "routeReader")
ACCESS = ("Harness", "Belay Device", "Locking Carabiner", "Lead Rope")


# --- a reference createGame written from R12-R16 ------------------------------------------------

def js_to_uint32(seed):
    """R6: truncate toward zero, then reduce modulo 2^32."""
    return int(seed) % 2**32


_CHAIN = (  # R13, first match wins
    (None, {"V0", "V1", "V2"}, 0),
    (None, {"V3", "V4", "V5", "V6", "V7"}, 1),
    (None, {"V8", "V9", "V10", "V11", "V12"}, 2),
    (None, {"5.6", "5.7", "5.8"}, 0),
    (None, {"5.9", "5.10a", "5.10b", "5.10d", "5.11b", "5.11c"}, 1),
    (None, {"5.12a", "5.12b", "5.12d", "5.13a", "5.13c"}, 2),
    ("leadClimbing", {"5.8", "5.9"}, 0),
    ("leadClimbing", {"5.10a", "5.10b", "5.10d", "5.11a", "5.11b", "5.11c"}, 1),
    ("leadClimbing", {"5.12a", "5.12b", "5.12d", "5.13a", "5.14a"}, 2),
)


def ref_buckets():
    buckets = [[], [], []]
    for area in AREAS:
        for r in DATA["ROUTES"][area]:
            for only, grades, tier in _CHAIN:
                if (only is None or only == area) and r["grade"] in grades:
                    buckets[tier].append((area, r["name"]))
                    break
    return buckets


def ref_create_game(seed):
    rng = PyRng(js_to_uint32(seed))
    b = ref_buckets()
    beg = rng.pick(b[0])                                                    # R14
    inter = rng.pick([x for x in b[1] if x[0] != beg[0]])
    exp = rng.pick([x for x in b[2] if x[0] not in (beg[0], inter[0])])
    visible = {a: rng.pick_n([r["name"] for r in DATA["ROUTES"][a]], 5) for a in AREAS}  # R15
    shop = rng.pick_n([c["name"] for c in DATA["GEAR_SHOP"] if c["name"] not in ACCESS], 3)  # R16
    return {"milestones": [beg, inter, exp], "visible": visible, "shop": shop,
            "rng": rng.s, "draws": rng.draws}


def milestones_with_areas(game):
    return [(game.rules.route_areas[int(game.state[S.G_MILESTONES + t])], n)
            for t, n in enumerate(game.milestone_names())]


# --- §12 test vectors ---------------------------------------------------------------------------

SETUP_VECTORS = {
    1: dict(
        milestones=[("bouldering", "The Gauntlet Opener"), ("topRope", "The Standard"),
                    ("leadClimbing", "The Elite Lead")],
        visible={"bouldering": ["Heel Hook Heaven", "The Roof of Doom", "Dyno Chain",
                                "Redemption Arc", "Crimson Ladder"],
                 "topRope": ["The Upper Echelon", "The Power Endurance", "Power Climb",
                             "Sustained Difficulty", "The Sure Thing"],
                 "leadClimbing": ["The Known Route", "Reach Specialist", "The Compression Lead",
                                  "Gambler's Ascent", "Power Lead"]},
        shop=["Mental Anchor", "Confidence Building", "Crimp Sequence Decoder"]),
    42: dict(
        milestones=[("bouldering", "The Gauntlet Opener"), ("topRope", "Win or Learn"),
                    ("leadClimbing", "Clench Mode")],
        visible={"bouldering": ["The Impossible Pinch", "Redemption Arc", "Brute Start",
                                "Crimson Ladder", "Power Pulley"],
                 "topRope": ["Dynamic Moves", "Overhang Initiation", "The Big Gamble",
                             "The Wall Flower", "The Upper Echelon"],
                 "leadClimbing": ["Endurance Lead", "The Runout Nightmare", "First Overhang Lead",
                                  "World Class Leading", "Advanced Clipping"]},
        shop=["Mountain Mentor", "Crimp Sequence Decoder", "Pre-Climb Stretching"]),
    12345: dict(
        milestones=[("leadClimbing", "Lead Introduction"), ("bouldering", "Focus Gauntlet"),
                    ("topRope", "The Upper Echelon")],
        visible={"bouldering": ["Redemption Arc", "Warm-Up Wonder", "Crimper's Delight",
                                "Beginner's Fortune", "Open Door"],
                 "topRope": ["Overhang Initiation", "The Wall Flower", "Win or Learn",
                             "Professional Grade", "Quick Clip"],
                 "leadClimbing": ["The Known Route", "Gambler's Ascent", "The Sprint Lead",
                                  "Advanced Clipping", "Endurance Lead"]},
        shop=["Climbing Coach", "Old Climbing Journal", "Crimp Sequence Decoder"]),
}


@pytest.mark.parametrize("seed", sorted(SETUP_VECTORS))
def test_setup_vectors(seed):
    # R12 R13 R14 R15 R16: the §12 createGame vectors, milestones, visible rows and shop
    want = SETUP_VECTORS[seed]
    g = Game(seed, ["technician", "sprinter"])
    assert milestones_with_areas(g) == want["milestones"]  # R14
    for area in AREAS:
        assert g.visible_names(area) == want["visible"][area]  # R15
    assert g.rotation_names() == want["shop"]  # R16


def test_seed1_rng_state_after_setup():
    # R12 (85 setup draws, R8): rng state afterwards 1064271450 = 1 + 85 * 0x6D2B79F5 mod 2^32
    g = Game(1, ["ironLung"])
    assert int(g.state[S.G_RNG]) == 1064271450
    assert (1 + 85 * INC) & MASK == 1064271450


def test_seed12345_next_four_dice():
    # R12: setup consumes exactly its draws; the next four rollDie() of seed 12345 are 6, 4, 1, 4
    g = Game(12345, ["routeReader", "technician"])
    st = g.state.copy()
    assert [int(E.roll_die(st)) for _ in range(4)] == [6, 4, 1, 4]
    r = PyRng(int(g.state[S.G_RNG]))
    assert [r.roll_die() for _ in range(4)] == [6, 4, 1, 4]
    # and a first climb really rolls them: Warm-Up Wonder (3 effects) is bouldering slot 1
    ev = g.step(Climb("bouldering", 1))
    assert ev["attempt"]["route"] == "Warm-Up Wonder"
    assert ev["attempt"]["dice"]["rolled"] == [6, 4, 1]


def test_mulberry32_vectors():
    # §12 RNG vectors (R5-R7) through the engine's own draw function
    st = np.zeros(S.STATE_SIZE, np.int64)
    st[S.G_RNG] = 12345
    got = [int(E.draw(st)) / 2**32 for _ in range(5)]
    assert got == [0.9797282677609473, 0.3067522644996643, 0.484205421525985,
                   0.817934412509203, 0.5094283693470061]
    st[S.G_RNG] = 1
    assert [int(E.roll_die(st)) for _ in range(10)] == [4, 1, 4, 6, 6, 2, 4, 5, 3, 6]


SEEDS = list(range(60)) + [2**31 - 1, 2**32 - 1, 987654321, 3_000_000_000]


@pytest.mark.parametrize("seed", SEEDS)
def test_setup_matches_reference(seed):
    # R12: order milestones -> visible (bouldering, topRope, lead) -> shop; no other draws
    # R13 R14 R15 R16 against a reference written from the spec
    ref = ref_create_game(seed)
    g = Game(seed, ["freeSolo", "routeReader", "technician"])
    assert milestones_with_areas(g) == ref["milestones"]
    assert {a: g.visible_names(a) for a in AREAS} == ref["visible"]
    assert g.rotation_names() == ref["shop"]
    assert ref["draws"] == 85
    assert int(g.state[S.G_RNG]) == ref["rng"] == (js_to_uint32(seed) + 85 * INC) & MASK


@pytest.mark.parametrize("seed,expected", [(-7, 4294967289), (3.9, 3), (2**32 + 5, 5)])
def test_seed_to_uint32(seed, expected):
    # R6 (used by R10's createGame input): ToUint32 of the seed
    g = Game(seed, ["sprinter"])
    assert g.seed == expected
    ref = ref_create_game(expected)
    assert g.rotation_names() == ref["shop"]


# --- R10 inputs ---------------------------------------------------------------------------------

@pytest.mark.parametrize("chars", [[], list(CHARS), ["technician", "technician"],
                                   ["technician", "climber"], ["Technician"]])
def test_invalid_character_lists_are_errors(chars):
    # R10: 1-4 distinct keys from the five; anything else is an error. R74: one per character
    with pytest.raises((ValueError, TypeError, KeyError)):
        Game(1, chars)


@pytest.mark.parametrize("chars", [["routeReader"], ["freeSolo", "ironLung"],
                                   ["sprinter", "routeReader", "technician", "freeSolo"]])
def test_valid_character_lists(chars):
    # R10: seat i gets characterKeys[i]; 1 to 4 players
    g = Game(7, chars)
    assert int(g.state[S.G_N_PLAYERS]) == len(chars)
    assert [p["character"] for p in g.as_dict()["players"]] == chars
    assert [p["seat"] for p in g.as_dict()["players"]] == list(range(len(chars)))


# --- R11 initial player state --------------------------------------------------------------------

@pytest.mark.parametrize("chars", [["technician", "sprinter", "ironLung", "freeSolo"],
                                   ["routeReader"]])
def test_initial_player_state(chars):
    g = Game(5, chars)
    for seat, key in enumerate(chars):
        ch = DATA["CHARACTERS"][key]
        p = g.player_dict(seat)
        # R11: level 1, xp 0, endurance = max = startingEndurance, starting stats, no gear,
        # training 0, time 10, no Beta Boost, in the lobby, no milestones
        assert p["level"] == 1
        assert p["xp"] == 0
        assert p["endurance"] == p["max_endurance"] == ch["startingEndurance"]
        assert p["stats"] == {s: ch["startingStats"][s] for s in STATS}
        assert p["gear"] == []
        assert p["training"] == {s: 0 for s in STATS}
        assert p["time"] == 10
        assert p["beta_boost"] is False
        assert p["location"] == "lobby"
        assert p["milestones"] == []


# --- R13 buckets ---------------------------------------------------------------------------------

BEGINNER = ["Beginner's Fortune", "Power Pulley", "Open Door", "Brute Start", "Warm-Up Wonder",
            "Crimson Ladder", "The Gauntlet Opener", "First Timer's Friend", "Learning Curve",
            "Lead Introduction"]
INTERMEDIATE = ["Toe Hook Traverse", "Crimper's Delight", "Dyno Dilemma", "Heel Hook Heaven",
                "The Roof of Doom", "Strength Silo", "Focus Gauntlet", "The Triple Down",
                "Spray Wall Chaos", "The Clean Line", "Redemption Arc", "Speed Crimp",
                "The Standard", "Crimson Wall", "Overhang Initiation", "Crimp Central",
                "Power Climb", "Sustained Difficulty", "The Wall Flower", "Hip Opener",
                "Win or Learn", "The Grind", "Clip and Climb", "First Overhang Lead",
                "Pump Management", "Power Lead", "The Steep Lead", "Runout Section",
                "Overhang Lead Challenge", "The Dialed Lead", "The Quick Send"]
EXPERT = ["Shoulder Shredder", "Dyno Chain", "Precision Impossible", "The Impossible Pinch",
          "Project Zero", "Static Control", "Hail Mary", "Dynamic Moves", "The Power Endurance",
          "Micro Hold Heaven", "The Upper Echelon", "Professional Grade", "The Punishment Wall",
          "The Dialed Rope", "Quick Clip", "Advanced Clipping", "The Compression Lead",
          "Endurance Lead", "The Elite Lead", "World Class Leading", "Clench Mode",
          "Gambler's Ascent"]
NEVER = ["The Fear Factor", "The Sure Thing", "The Big Gamble", "Reach Specialist",
         "The Runout Nightmare", "The Crux Gauntlet", "The Known Route", "All In",
         "The Sprint Lead"]


def test_milestone_buckets_in_index_order():
    # R13: bucket contents and index order (what pick indexes into)
    g = Game(1, ["technician"])
    t = g.rules.named
    got = [[g.route_name(int(t.bucket_routes[k, i])) for i in range(int(t.bucket_count[k]))]
           for k in range(3)]
    assert got == [BEGINNER, INTERMEDIATE, EXPERT]
    assert [[n for _, n in b] for b in ref_buckets()] == [BEGINNER, INTERMEDIATE, EXPERT]
    all_names = [r["name"] for a in AREAS for r in DATA["ROUTES"][a]]
    assert sorted(set(all_names) - set(BEGINNER + INTERMEDIATE + EXPERT)) == sorted(NEVER)


def test_never_milestone_routes_never_drawn_and_areas_distinct():
    # R13: the nine unbucketed routes are never milestones; R14: milestones cover all 3 areas
    seen_areas_of_beginner = set()
    for seed in range(400):
        g = Game(seed, ["sprinter"])
        ms = milestones_with_areas(g)
        assert sorted(a for a, _ in ms) == sorted(AREAS)  # R14
        assert ms[0][1] in BEGINNER and ms[1][1] in INTERMEDIATE and ms[2][1] in EXPERT
        assert not set(n for _, n in ms) & set(NEVER)  # R13
        seen_areas_of_beginner.add(ms[0][0])
    assert seen_areas_of_beginner == set(AREAS)  # R14: beginner can be in any area


# --- R15, R16, R81 -------------------------------------------------------------------------------

def test_visible_rows_and_shop_over_many_seeds():
    milestone_also_visible = False
    for seed in range(300):
        g = Game(seed, ["technician", "sprinter"])
        for area in AREAS:
            names = g.visible_names(area)
            deck = [r["name"] for r in DATA["ROUTES"][area]]
            assert len(names) == 5 and all(n in deck for n in names)  # R15
            assert len(set(names)) == 5  # R81: no duplicates within an area
        ms = set(g.milestone_names())
        if ms & set(n for a in AREAS for n in g.visible_names(a)):
            milestone_also_visible = True
        shop = g.rotation_names()
        assert len(shop) == 3 and len(set(shop)) == 3  # R16
        assert not set(shop) & set(ACCESS)  # R16: access cards are never in the rotation
    # R15: drawn from the full deck, so a milestone route may also be visible
    assert milestone_also_visible


def test_access_cards_always_purchasable():
    # R16: the 4 access cards are outside the rotation but always purchasable (R30)
    g = Game(3, ["technician"])
    g.state[S.player_offset(0) + S.P_XP] = 80
    assert "Harness" in [getattr(a, "card", None) for a in g.legal_actions()]


# --- R17 -----------------------------------------------------------------------------------------

def test_global_initial_state():
    g = Game(99, ["ironLung", "freeSolo", "sprinter"])
    st = g.state
    # R17: round 1, current player 0, token 0, 1 belayer, not over, no winner, maxRounds 45
    assert int(st[S.G_ROUND]) == 1
    assert int(st[S.G_CURRENT]) == 0
    assert int(st[S.G_TOKEN]) == 0
    assert int(st[S.G_BELAYERS]) == 1
    assert not g.is_over and g.winner is None and g.end_reason is None
    assert g.rules.config.max_rounds == 45
    for seat in range(3):  # R17: attempted-route sets empty
        assert all(int(st[S.player_offset(seat) + S.P_MARKS + a]) == 0 for a in range(3))
