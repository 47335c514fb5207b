"""Invariants checked after every decision of random-play games (RULES.md §1-§3).

Two kinds of player: uniformly random legal actions from a numpy generator, and the
registered `random` / `random-safe` policies (§7) driven one decision at a time."""
import numpy as np
import pytest

from asc_helpers import S, new_game
from sim.games.ascension.rules import C_CORNER_OF, C_MAX_STACK, C_MAX_TURNS, C_P_SHAPES, \
    C_P_SYMBOL

CORNER_BIT = {0: 1, 8: 2, 80: 4, 72: 8}


class Tracker:
    """Keeps what must be monotone across decisions: pieces on the board (A18) and knowledge
    (§1.4: never lost)."""

    def __init__(self, g):
        self.on_board = set()
        self.known = g.state[S.B_KNOWN:S.B_KNOWN + S.N_PIECES].copy()


def board_pieces(g):
    st = g.state
    out = {}
    for s in range(S.N_SQUARES):
        n = int(st[S.B_STACK_N + s])
        base = S.B_STACK + s * S.MAX_STACK_CAP
        out[s] = [int(x) for x in st[base:base + n]]
        assert all(int(x) == -1 for x in st[base + n:base + S.MAX_STACK_CAP])
    return out


def check(g, tr):
    st, t = g.state, g.t
    n_players = g.players
    stacks = board_pieces(g)
    held = int(st[S.G_HELD])
    max_stack = int(t[C_MAX_STACK])

    # §1.2: H(s) = base + sum of piece heights; the cached shown faces follow the top (§1.4)
    for s, pieces in stacks.items():
        base = S.PILLAR_BASE if s == S.PILLAR else 0
        assert g.height(s) == base + sum(int(S.P_HEIGHT[x]) for x in pieces), s
        if pieces:
            x = pieces[-1]
            up = bool(st[S.B_P_UP + x])
            kind = S.P_KIND[x]
            if kind == S.CUBE:
                shp = int(t[C_P_SHAPES + x]) if up else 0
                sym = int(t[C_P_SYMBOL + x]) if up else 0
            elif kind == S.HALF:
                shp, sym = int(S.P_SHAPES_DRAWN[x]), 0
            else:
                shp, sym = 0, S.SYM_DRAGON
        else:
            shp, sym = CORNER_BIT.get(s, 0), 0
        assert int(st[S.B_SHAPES + s]) == shp and int(st[S.B_SYMBOL + s]) == sym, s
        # A24, A55, A27: piece caps
        if s == S.PILLAR:
            assert len(pieces) <= 1
            for x in pieces:                 # A27: the pillar piece was placed plain
                assert not st[S.B_P_UP + x] or (S.P_KIND[x] == S.HALF
                                                and S.P_SHAPES_DRAWN[x] == 0)
                assert S.P_KIND[x] != S.JOKER
        else:
            assert len(pieces) <= max_stack
        # A26: everything on a corner shows that corner's shape
        if s in CORNER_BIT:
            for x in pieces:
                assert st[S.B_P_UP + x] and (S.P_SHAPES_DRAWN[x] & CORNER_BIT[s]), (s, x)

    # conservation: every one of the 93 pieces is in exactly one place
    where = {}
    for s, pieces in stacks.items():
        for x in pieces:
            assert x not in where, x
            where[x] = s
            assert int(st[S.B_P_SQ + x]) == s
    assert held not in where
    reserve = {p: [0, 0] for p in range(n_players)}
    corner_seat = {int(t[C_CORNER_OF + p]): p for p in range(n_players)}
    for x in range(S.N_PIECES):
        if x in where or x == held:
            continue
        loc = int(st[S.B_P_SQ + x])
        assert loc in (-1, -2), (x, loc)
        if loc == -1:
            assert S.P_KIND[x] == S.HALF, x
            k = (x - 76) // 4
            p = corner_seat[[0, 8, 80, 72][k]]
            reserve[p][0 if (x - 76) % 4 < 2 else 1] += 1
        else:
            assert S.P_KIND[x] != S.CUBE, x      # cubes are always on the board (A3, A18)
    for p in range(n_players):
        info = g.seat(p)
        r = reserve[p]
        if held >= 76 and held < 92 and st[S.B_P_SQ + held] == -1 and g.current == p:
            r[0 if (held - 76) % 4 < 2 else 1] += 1     # picked from the reserve, in hand
        assert (info["res_shaped"], info["res_neutral"]) == tuple(r), (p, r)
    assert len(where) + (held >= 0) + sum(1 for x in range(S.N_PIECES)
                                          if x not in where and x != held) == S.N_PIECES

    # A18: a piece on the board never leaves it, apart from the joker (A42)
    now = set(where) | ({held} if held >= 0 and int(st[S.B_P_SQ + held]) >= 0 else set())
    assert (tr.on_board - {S.JOKER_ID}) <= now, (tr.on_board - now)
    tr.on_board = now
    # §1.4: knowledge is never lost; face-up cubes are known to all
    known = st[S.B_KNOWN:S.B_KNOWN + S.N_PIECES]
    assert np.all((tr.known & ~known) == 0)
    tr.known = known.copy()
    for x in where:
        if S.P_KIND[x] == S.CUBE and st[S.B_P_UP + x]:
            assert int(known[x]) == 15

    # pawns: at most one per square; pawn_on and pawn_sq agree
    pawn_on = {s: int(st[S.B_PAWN_ON + s]) for s in range(S.N_SQUARES)}
    active = [p for p in range(n_players) if g.seat(p)["active"]]
    for p in range(n_players):
        info = g.seat(p)
        if info["active"]:
            s = info["pawn_sq"]
            assert 0 <= s < S.N_SQUARES and pawn_on[s] == p
            # A29(b): never on another seat's corner
            if s in CORNER_BIT:
                assert s == int(t[C_CORNER_OF + p])
        else:
            assert info["pawn_sq"] == -1 and info["lock"] == -1   # A38
        # A40: summit status implies ever_summit
        if info["summit"]:
            assert info["ever_summit"]
        assert info["blocks"] in (0, 1, 2)
        assert (info["blocks"] == 2) == (not info["active"])
    for s, p in pawn_on.items():
        if p >= 0:
            assert g.seat(p)["active"] and g.seat(p)["pawn_sq"] == s
    # the privileged seat holds summit status (A40, A42)
    f = g.privileged
    if f is not None:
        assert g.seat(f)["summit"] and g.seat(f)["active"]
    # the joker is on the board iff joker_state is board, and nothing covers it (A22, A41)
    jsq = int(st[S.B_P_SQ + S.JOKER_ID])
    if g.joker_state == "board":
        assert S.JOKER_ID in where and stacks[jsq][-1] == S.JOKER_ID
        assert int(st[S.G_JOKER_SQ]) == jsq
        assert f is not None
    else:
        assert S.JOKER_ID not in where
    if g.joker_state == "hand":
        assert f is not None
    # locks name pieces on the board (or the piece in hand) or -1 (A12(d), A49)
    for p in range(n_players):
        lk = g.seat(p)["lock"]
        assert lk == -1 or lk in where or lk == held, (p, lk)
    # A10, A47
    assert g.turn_count <= int(t[C_MAX_TURNS])
    # the game ends only by a win, the cap or all_eliminated
    if g.is_over:
        reason = g.end_reason
        assert reason in ("win", "cap", "all_eliminated")
        if reason == "win":
            w = g.winner
            if g.rules.values["last_pawn_wins"] == "true" and len(active) == 1:
                assert active == [w]
            else:
                assert g.seat(w)["summit"] and g.pawn(w) == int(t[C_CORNER_OF + w])  # A45
        elif reason == "cap":
            assert g.winner is None and g.turn_count == int(t[C_MAX_TURNS])       # A47
        else:
            assert g.winner is None and not active                                # A46
    else:
        assert active, "a running game with no active seat"


def play_random(g, rng, decisions):
    tr = Tracker(g)
    check(g, tr)
    for _ in range(decisions):
        if g.is_over:
            break
        codes = g.legal_codes()
        assert codes, "a pending decision with no legal action"
        g.step(int(codes[rng.integers(len(codes))]))
        check(g, tr)
    return g


def play_policy(g, policy, decisions, seed):
    tr = Tracker(g)
    check(g, tr)
    for k in range(decisions):
        if g.is_over:
            break
        before = g.state[S.G_DECISIONS]
        g.play([policy] * g.players, policy_seed=seed * 100_003 + k, max_decisions=1)
        assert g.state[S.G_DECISIONS] == before + 1
        check(g, tr)
    return g


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [1, 2])
def test_invariants_numpy_random(players, seed):
    # A18, A26, A27, A24, A55, A40, A41, A45, A46, A47 (see check)
    g = new_game(players, seed=seed, max_turns=60 if seed == 2 else 200 * players)
    play_random(g, np.random.default_rng(seed), 260)
    if seed == 2:
        assert g.is_over and g.end_reason in ("cap", "all_eliminated")


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("policy", ["random", "random-safe"])
def test_invariants_policies(players, policy):
    g = new_game(players, seed=10 + players)
    play_policy(g, policy, 150, seed=players)


SWITCHED = [
    dict(pawn_pins_stack="false"),
    dict(allow_flip_in_place="true"),
    dict(spring_bonus="full_turn"),
    dict(joker_extra_move="true"),
    dict(bivouac_mode="optional"),
    dict(corner_may_wait="true"),
    dict(corner_safe_always="false", max_stack=4, max_turns=40),
    dict(max_turns=25, privilege_transfer="none", joker_on_loss="retire"),
    dict(pillar_hidden_special="bar", specials_enabled="ladder,chasm", reserve_shaped=1),
]


@pytest.mark.parametrize("k", range(len(SWITCHED)))
def test_invariants_switches(k):
    sw = SWITCHED[k]
    players = 2 + k % 3
    g = new_game(players, seed=100 + k, **sw)
    play_random(g, np.random.default_rng(k), 200)
    if "max_turns" in sw:
        play_random(g, np.random.default_rng(k + 50), 2000)
        assert g.is_over


def test_invariants_with_summits():
    # A40-A45 under random play from a position where seat 0 is on the summit with the joker:
    # privileges, the joker and extra turns are exercised too.
    from asc_helpers import Builder, make_privileged, sq
    for seed in (1, 2, 3):
        g = new_game(4, seed=seed, max_turns=120)
        b = Builder(g)
        b.set_height(sq(3, 4), 8)
        b.set_height(sq(3, 3), 7)
        g.move_pawn_to(0, S.PILLAR)
        make_privileged(g, 0, joker="hand")
        g.move_pawn_to(1, sq(3, 3))
        play_random(g, np.random.default_rng(seed), 250)


def test_the_checker_catches_corruption():
    # the invariant checker is not vacuous: each corruption below must be caught
    import copy
    base = new_game(4, seed=5)

    def corrupt(edit):
        g = copy.copy(base)
        g.state = base.state.copy()
        tr = Tracker(g)
        edit(g)
        with pytest.raises(AssertionError):
            check(g, tr)

    corrupt(lambda g: g.set(S.B_H + 10, 5))                          # height cache
    corrupt(lambda g: g.set(S.B_STACK + 11 * S.MAX_STACK_CAP,
                            int(g.state[S.B_STACK + 10 * S.MAX_STACK_CAP])))   # a piece twice
    corrupt(lambda g: g.set(S.B_PAWN_ON + 0, -1))                    # pawn_on vs pawn_sq
    corrupt(lambda g: g.set(S.S_SUMMIT + 1, 1))                      # summit w/o ever_summit
    corrupt(lambda g: g.set(S.G_PRIVILEGED, 2))                      # privileged w/o summit
    corrupt(lambda g: g.set(S.G_JOKER_STATE, S.JOKER_BOARD))         # joker state
    corrupt(lambda g: g.set(S.S_LOCK + 3, 92))                       # lock off the board
    corrupt(lambda g: g.set(S.S_RES_NEUTRAL + 2, 1))                 # reserve count
    corrupt(lambda g: (g.set(S.G_OVER, 1), g.set(S.G_END_REASON, S.END_CAP)))   # early cap
    corrupt(lambda g: (g.set(S.G_OVER, 1), g.set(S.G_END_REASON, S.END_WIN),
                       g.set(S.G_WINNER, 0)))                        # win without summit
