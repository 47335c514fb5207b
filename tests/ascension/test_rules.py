"""Rule tests A1-A59 of RULES.md (each test cites the rules it checks)."""
import numpy as np
import pytest

from asc_helpers import (CABLE, CHASM, JOKER, LADDER, MATTRESS, SPRING, Builder, E,
                         IllegalActionError, MovePawn, Pick, Place, PlaceJoker, S, Stay, clone,
                         dests_for, eliminate, finish_turn, give_summit, half, idle_piece_move,
                         junk_top, make_privileged, move_piece, nb, new_game, origins,
                         pawn_actions, piece_square, ride_only_pawn, run_turns, sq, start_turn,
                         turn_kind)

CORNERS4 = [0, 8, 80, 72]
FREE = [s for s in range(81) if s not in (0, 8, 72, 80, 40)]


# ============================================================================== 2. Setup

@pytest.mark.parametrize("players, sw, corners", [
    (4, {}, [0, 8, 80, 72]), (3, {}, [0, 8, 80]), (2, {}, [0, 80]),
    (2, {"two_player_corners": "adjacent"}, [0, 8])])
def test_a1_seats_corners_and_unused_groups(players, sw, corners):
    # A1, A4, A6: seat -> corner; pawns on their corners; unused corners' half-cube groups are
    # out of play (p_sq = -2) and unused corners stay empty.
    g = new_game(players, seed=3, **sw)
    assert [g.pawn(p) for p in range(players)] == corners
    used = [CORNERS4.index(c) for c in corners]
    for k in range(4):
        for j in range(4):
            assert piece_square(g, 76 + 4 * k + j) == (-1 if k in used else -2)
    for c in CORNERS4:
        assert g.stack(c) == [] and g.height(c) == 0
        if c not in corners:
            assert int(g.state[S.B_PAWN_ON + c]) == -1


def test_a1_seat_shapes():
    # A1, A25: seat p's shape is its corner's shape: its shaped reserve half may go on its own
    # bare corner and on no other corner.
    g = new_game(4, seed=4)
    for p in range(4):
        g.move_pawn_to(p, [sq(2, 2), sq(2, 6), sq(6, 6), sq(6, 2)][p])
    for p in range(4):
        start_turn(g, p)
        corner_dests = {d for d, _ in dests_for(g, "shaped") if d in CORNERS4}
        assert corner_dests == {CORNERS4[p]}


ONE_SHAPE_CUBE = {1: 36, 2: 38, 4: 40, 8: 42}      # §1.3: a cube drawn with that shape alone
NEAR_CORNER = [(sq(1, 1), sq(2, 1)), (sq(1, 7), sq(2, 7)), (sq(7, 7), sq(6, 7)),
               (sq(7, 1), sq(6, 1))]   # per corner k: its diagonal neighbour, and a square
#                                        next to that one but not to the corner


@pytest.mark.parametrize("layout, corner", [("opposite", 2), ("adjacent", 1)])
def test_a1_two_player_seat_shape_follows_its_corner(layout, corner):
    # A1, §1.5, D1: with 2 players seat 1 plays corner 2 (opposite) or 1 (adjacent), and
    # SHAPE(1) is that corner's shape, not 1 << seat (the same thing with 3 or 4 players,
    # which the other shape tests use). Its pawn may step onto a face-up cube of its own shape
    # only (A29(d)); it may place only onto its own shape (A23), puts its shaped half-cube on
    # its own corner only, showing its shape (A25, A4); it enters no corner but its own
    # (A29(b)) and wins there (A45).
    own = 1 << corner
    g = new_game(2, seed=7, two_player_corners=layout)
    b = Builder(g)
    pawn = sq(2, 6)
    g.move_pawn_to(1, pawn)
    faced = {sq(2, 7): own}                            # level 2-hu squares, one shape each
    faced.update(zip((sq(1, 6), sq(2, 5), sq(3, 6)), [1 << k for k in range(4) if k != corner]))
    for s, shape in faced.items():
        b.set_height(s, 0)
        b.put(ONE_SHAPE_CUBE[shape], s, up=True)
        assert g.shown(s)[0] == shape and g.height(s) == g.height(pawn) == 2
    start_turn(g, 1)
    assert {d for d, _ in dests_for(g, junk_top(g)) if d in faced} == {sq(2, 7)}
    assert {d for d, _ in dests_for(g, "shaped") if d in CORNERS4} == {CORNERS4[corner]}
    move_piece(g, "shaped", CORNERS4[corner], True)
    assert g.shown(CORNERS4[corner])[0] == own
    steps = pawn_actions(g)
    assert sq(2, 7) in steps and not steps & (set(faced) - {sq(2, 7)})
    # A29(b), A45: from a 0-hu square next to corner k (another 0-hu square keeps a move open)
    # the pawn may step onto corner k only if it is its own, and wins there with summit status
    for k, (d, e) in enumerate(NEAR_CORNER):
        g = new_game(2, seed=7, two_player_corners=layout)
        b = Builder(g)
        g.move_pawn_to(0, sq(4, 1))                    # seat 0's pawn leaves corner 0 free
        g.move_pawn_to(1, d)
        b.set_height(d, 0)
        b.set_height(e, 0)
        give_summit(g, 1)
        start_turn(g, 1)
        idle_piece_move(g)
        steps = pawn_actions(g)
        assert e in steps and (CORNERS4[k] in steps) == (k == corner), (k, steps)
        if k == corner:
            g.step(MovePawn(CORNERS4[k]))
            assert g.is_over and g.winner == 1


def test_a1_three_players_unused_corner():
    # A1, A23, A29(b): the unused corner (circle, 72) takes no piece and no pawn.
    g = new_game(3, seed=5)
    b = Builder(g)
    b.set_height(sq(7, 1), 0)
    b.set_height(sq(8, 1), 0)
    g.move_pawn_to(0, sq(7, 1))
    b.put(48, sq(6, 4))                     # ★● cube: would show circle face up
    for p in range(3):
        start_turn(g, p)
        for o in (sq(6, 4), "shaped", "neutral"):
            assert all(d != 72 for d, _ in dests_for(g, o))
    start_turn(g, 0)
    idle_piece_move(g)
    assert pawn_actions(g) == {sq(8, 1)}    # level 0-hu neighbours: (8,1) yes, 72 no


def test_a2_board():
    # A2: the pillar on 40 with an empty stack at 9 hu; the corners empty at 0 hu.
    g = new_game(4, seed=6)
    assert g.stack(S.PILLAR) == [] and g.height(S.PILLAR) == 9
    for c in CORNERS4:
        assert g.stack(c) == [] and g.height(c) == 0


@pytest.mark.parametrize("players, seed", [(4, 0), (4, 12345), (3, 1), (2, 1)])
def test_a3_cubes(players, seed):
    # A3: all 76 cubes, one per free square, face down, unknown, for every N; H = 2 there.
    g = new_game(players, seed=seed)
    seen = []
    for s in FREE:
        st = g.stack(s)
        assert len(st) == 1 and g.height(s) == 2
        x = st[0]
        assert 0 <= x < 76 and not g.face_up(x)
        assert int(g.state[S.B_KNOWN + x]) == 0
        seen.append(x)
    assert sorted(seen) == list(range(76))


def test_a3_permutation_is_seeded_and_uniform():
    # A3: the permutation depends on the seed only, and is spread uniformly.
    from sim.games.ascension.rules import build_rules
    t = build_rules(4).config
    st = np.zeros(S.STATE_SIZE, np.int64)

    def layout(seed):
        E.setup(st, t, np.int64(seed))
        return tuple(int(st[S.B_STACK + s * S.MAX_STACK_CAP]) for s in FREE)

    assert layout(7) == layout(7)
    assert layout(7) != layout(8)
    n = 600
    layouts = [layout(seed) for seed in range(n)]
    on_first = [lay[0] for lay in layouts]
    assert len(set(on_first)) > 60
    neutral = sum(1 for x in on_first if x < 36) / n      # expected 36/76 = 0.474
    assert 0.40 < neutral < 0.55
    # The shuffle starts from cube f on F[f] (engine.setup). Under a uniform π each cube stays
    # on its own F[f] with chance 1/76, so a deal has 1 such fixed point on average (about
    # Poisson(1): none in 1/e of the deals). An off-by-one Fisher-Yates (Sattolo's, j < i)
    # still moves every cube and looks spread, but never leaves one in place.
    fixed = [sum(1 for f, x in enumerate(lay) if x == f) for lay in layouts]
    assert 0.8 * n < sum(fixed) < 1.2 * n                  # sd about 0.04 n
    assert 0.30 < fixed.count(0) / n < 0.44                # 1/e = 0.368, sd about 0.02


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a4_reserves(players):
    # A4: 2 shaped + 2 neutral half-cubes per seat; 8/12/16 in play.
    g = new_game(players, seed=1)
    in_reserve = [x for x in range(76, 92) if piece_square(g, x) == -1]
    assert len(in_reserve) == 4 * players
    for p in range(players):
        info = g.seat(p)
        assert info["res_shaped"] == 2 and info["res_neutral"] == 2


def test_a5_a7_initial_status():
    # A5, A7: joker in the box, no privileged seat; counters cleared; the first turn has begun.
    g = new_game(4, seed=2)
    assert g.joker_state == "box" and g.privileged is None
    assert piece_square(g, JOKER) == -2
    for p in range(4):
        info = g.seat(p)
        assert info["blocks"] == 0 and info["summit"] == 0 and info["ever_summit"] == 0
        assert info["biv"] == 0 and info["lock"] == -1 and info["active"] == 1
    assert int(g.state[S.G_SEQ]) == 0
    assert g.turn_count == 1            # A10: turn_count was 0 and seat 0's turn has started


def test_a6_pawns_start_on_corners():
    # A6: each pawn on its corner at height 0.
    g = new_game(4, seed=2)
    for p in range(4):
        assert g.pawn(p) == CORNERS4[p] and g.height(g.pawn(p)) == 0
        assert int(g.state[S.B_PAWN_ON + CORNERS4[p]]) == p


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a8_order(players):
    # A8: seat 0 first, then increasing seat index, cyclic.
    g = new_game(players, seed=3)
    seq = run_turns(g, 2 * players + 1)
    assert [s for s, _ in seq] == [i % players for i in range(2 * players + 1)]
    assert all(k == "normal" for _, k in seq)


# ============================================================================ 3.1 Turns

def test_a9_turn_structure_piece_then_pawn_then_spring():
    # A9: piece phase, then pawn phase, then the spring step; the piece move cannot be skipped
    # and no pawn move comes before it.
    g = new_game(4, seed=4)
    b = Builder(g)
    a, sp = sq(2, 2), sq(2, 3)
    b.set_height(sp, 0)
    b.put(SPRING[0], sp, up=True)
    g.move_pawn_to(0, a)
    assert g.phase == "origin"
    assert all(isinstance(x, Pick) for x in g.legal_actions())
    for bad in (Stay(), MovePawn(sp)):
        with pytest.raises(IllegalActionError):
            g.step(bad)
    g.step(Pick(square=junk_top(g)))
    assert g.phase == "place"
    g.step([x for x in g.legal_actions() if x.square == sq(6, 6)][0])
    assert g.phase == "pawn" and g.current == 0
    g.step(MovePawn(sp))
    assert g.phase == "spring" and g.current == 0
    g.step(Stay())
    assert g.current == 1 and g.phase == "origin"


def test_a10_turn_counter_and_cap():
    # A10, A47: +1 at the start of every turn; at max_turns the game ends before a new turn.
    g = new_game(4, seed=5, max_turns=6)
    assert g.turn_count == 1
    run_turns(g, 3)
    assert g.turn_count == 4 and not g.is_over
    run_turns(g, 10)
    assert g.is_over and g.end_reason == "cap" and g.winner is None
    assert g.turn_count == 6
    assert g.legal_actions() == []
    with pytest.raises(IllegalActionError):
        g.step(Pick(square=sq(6, 4)))


def test_a10_extra_turns_count():
    # A10: extra turns count as turns.
    g = new_game(4, seed=6)
    make_privileged(g, 2)
    g.move_pawn_to(2, sq(2, 6))
    start_turn(g, 3)
    t0 = g.turn_count
    seq = run_turns(g, 2, {2: (sq(2, 6), sq(2, 7))})
    assert seq == [(3, "normal"), (2, "extra")]
    assert g.turn_count == t0 + 2


def test_a11_block_ends_the_turn():
    # A11, A38: once blocked, nothing more of that turn happens; the next seat plays.
    g = new_game(4, seed=7)
    b = Builder(g)
    b.pit(sq(2, 5))
    g.move_pawn_to(0, sq(2, 5))
    idle_piece_move(g)
    assert g.seat(0)["blocks"] == 1 and g.pawn(0) == 0
    assert g.current == 1 and g.phase == "origin"


def test_a11_win_ends_the_game():
    # A11, A45: a win ends the game at once: no further decision of that turn or any other.
    g = new_game(4, seed=8)
    b = Builder(g)
    b.set_height(sq(1, 1), 0)
    g.move_pawn_to(0, sq(1, 1))
    give_summit(g, 0)
    idle_piece_move(g)
    g.step(MovePawn(0))
    assert g.is_over and g.winner == 0 and g.end_reason == "win"
    assert g.legal_actions() == []
    with pytest.raises(IllegalActionError):
        g.step(Stay())


# ================================================================ 3.2 Which pieces move

def test_a12a_only_the_top_moves():
    # A12(a): only the top of a stack can be picked; the piece under it stays.
    g = new_game(4, seed=9)
    b = Builder(g)
    s = sq(2, 4)
    b.set_height(s, 0)
    x, y = b.take_cube(), None
    b.put(x, s)
    y = b.take_cube()
    b.put(y, s)
    assert g.stack(s) == [x, y]
    assert s in origins(g)
    g.step(Pick(square=s))
    assert g.stack(s) == [x] and int(g.state[S.G_HELD]) == y


def test_a12b_a37_pawn_covers_its_square():
    # A12(b), A21, A37: no piece is taken from or put on a square with a pawn.
    g = new_game(4, seed=10)
    s = sq(2, 4)
    g.move_pawn_to(1, s)
    assert s not in origins(g)
    assert all(d != s for d, _ in dests_for(g, junk_top(g)))
    assert all(d != s for d, _ in dests_for(g, "neutral"))


def test_a12c_joker_never_moves():
    # A12(c), A41: nobody can move the joker, not even its holder.
    g = new_game(4, seed=11)
    b = Builder(g)
    b.put(JOKER, sq(2, 4))
    make_privileged(g, 0, joker="board")
    for p in range(4):
        start_turn(g, p)
        assert sq(2, 4) not in origins(g) and "joker" not in origins(g)


def test_a12d_lock_released_by_elimination():
    # A12(d): a lock is cleared when its seat is eliminated.
    g = new_game(4, seed=12)
    b = Builder(g)
    b.pit(sq(2, 5))
    g.move_pawn_to(0, sq(2, 5))
    g.set(S.S_BLOCKS + 0, 1)
    o = junk_top(g)
    x = g.top(o)
    move_piece(g, o, sq(6, 6) if o != sq(6, 6) else sq(6, 5), False)
    assert g.seat(0)["active"] == 0 and g.seat(0)["lock"] == -1   # eliminated at once
    where = piece_square(g, x)
    assert g.current == 1 and where in origins(g)


def test_a12_anyone_may_move_other_pieces():
    # A12, D37: pieces on other players' corners, the pillar piece, revealed specials and
    # other players' shaped half-cubes may all be moved by anyone.
    g = new_game(4, seed=13)
    b = Builder(g)
    g.move_pawn_to(1, sq(2, 6))
    b.put(half(1, True), 8)                 # triangle's shaped half on its corner
    b.put(b.take_cube(), S.PILLAR)
    b.put(LADDER[0], sq(2, 2), up=True)
    b.put(half(2, True), sq(2, 3))          # square's shaped half
    start_turn(g, 0)
    o = origins(g)
    assert {8, S.PILLAR, sq(2, 2), sq(2, 3)} <= o


def test_a13_reserve_origins_are_own():
    # A13, A17: a seat places half-cubes from its own reserve only; they leave the reserve.
    g = new_game(4, seed=14)
    g.move_pawn_to(0, sq(2, 2))
    assert {"shaped", "neutral"} <= origins(g)
    assert "joker" not in origins(g)
    move_piece(g, "neutral", sq(6, 4), True)
    assert g.top(sq(6, 4)) in (half(0, False), half(0, False, 1))
    assert g.seat(0)["res_neutral"] == 1
    assert g.seat(0)["lock"] == g.top(sq(6, 4))
    start_turn(g, 0)
    move_piece(g, "neutral", sq(6, 5), True)
    assert g.seat(0)["res_neutral"] == 0
    assert {g.top(sq(6, 4)), g.top(sq(6, 5))} == {half(0, False), half(0, False, 1)}
    start_turn(g, 0)
    assert "neutral" not in origins(g) and "shaped" in origins(g)
    start_turn(g, 1)
    assert {"shaped", "neutral"} <= origins(g)
    move_piece(g, "shaped", sq(6, 6), True)
    assert g.top(sq(6, 6)) in (half(1, True), half(1, True, 1))


def test_a13_joker_origin_only_for_holder_in_hand():
    # A13, A41: only the privileged seat, with the joker in hand, may place it.
    g = new_game(4, seed=15)
    make_privileged(g, 1, joker="hand")
    g.move_pawn_to(1, sq(2, 6))
    for p in (0, 2, 3):
        start_turn(g, p)
        assert "joker" not in origins(g)
    start_turn(g, 1)
    assert "joker" in origins(g)
    g.set(S.G_JOKER_STATE, S.JOKER_BOX)
    start_turn(g, 1)
    assert "joker" not in origins(g)


# ============================================================ 3.3 Picking and placing

def _full_board(seed=16, **sw):
    """max_stack = 1, every free square full, the pillar raised: only corners are open.
    Star's pawn stands on the square with a neutral half-cube (1 hu)."""
    g = new_game(3, seed=seed, max_stack=1, **sw)
    src = sq(6, 4)
    x = g.top(src)
    g.move_piece_to(x, S.PILLAR, False)
    g.move_piece_to(half(3, False), src)    # out-of-play half of the unused corner
    g.move_pawn_to(0, src)
    return g, src


def _no_star_halves(g):
    """Star's shaped halves leave its reserve for its corner (1 piece: full at max_stack 1)."""
    g.set(S.S_RES_SHAPED + 0, 0)
    g.move_piece_to(half(0, True), 0)
    g.move_piece_to(half(0, True, 1), 0)


def test_a14_pickability_uses_the_default_orientation():
    # A14: an origin is pickable only if it has a destination in its default orientation
    # (cubes face down). Here a face-down ★ cube could only go face up on the bare star
    # corner, so it is not pickable; the star half-cube is.
    g, _ = _full_board()
    start_turn(g, 0)
    assert g.phase == "origin"
    assert origins(g) == {"shaped"}
    assert (0, True) in dests_for(g, "shaped")


def test_a14_a58_skipped_piece_phase_pawn_phase_still_happens():
    # A14, A58, A12(d): no pickable origin: the piece phase is skipped, lock = -1, and the pawn
    # phase still takes place.
    g, src = _full_board()
    _no_star_halves(g)
    g.set(S.S_LOCK + 0, g.top(sq(5, 5)))
    skips = int(g.state[S.G_PIECE_SKIPS])
    start_turn(g, 0)
    assert g.current == 0 and g.phase == "pawn"
    assert g.seat(0)["lock"] == -1
    assert int(g.state[S.G_PIECE_SKIPS]) == skips + 1
    assert pawn_actions(g) == set(nb(src)) - {S.PILLAR}


def test_a58_skipped_piece_phase_block_check_still_happens():
    # A58, A38: with no pickable origin the block check still runs.
    g, src = _full_board()
    _no_star_halves(g)
    keep = nb(src) + [src, S.PILLAR]
    walls = [w for w in (42, 43, 38, 39, 40, 41, 50, 51, 52, 53, 54, 55, 56, 57)   # no star
             if piece_square(g, w) not in keep]
    for n, w in zip(nb(src), walls):
        old = piece_square(g, w)
        orig = g.stack(n)[0]
        g.move_piece_to(w, n, True)
        g.move_piece_to(orig, old, False)
    assert all(len(g.stack(s)) == 1 for s in FREE)
    assert g.pawn_moves(0) == []
    skips = int(g.state[S.G_PIECE_SKIPS])
    start_turn(g, 0)
    assert g.seat(0)["blocks"] == 1 and g.pawn(0) == 0
    # nobody can move a piece: seats 1 and 2 skip too (safe on their corners); seat 0's next
    # turn skips its piece phase and stops at its pawn decision (home at 2 hu, level steps)
    assert int(g.state[S.G_PIECE_SKIPS]) == skips + 4
    assert g.current == 0 and g.phase == "pawn"


def test_a14_pickability_ignores_hidden_faces():
    # A14: whether a board cube is pickable never depends on its hidden face. On the full
    # board only the bare star corner is open to seat 0, and only to a piece showing ★ (A23,
    # A25): a face-down cube has no destination there, so its square is no origin even when
    # its hidden face is ★ (face up it could go there, but only the default orientation
    # counts). The origins are the same whatever cube lies there: a hidden ★, ★▲ or ladder
    # cube, or a neutral cube.
    s = sq(2, 4)
    lists = []
    for x in (36, 44, LADDER[0], 5):
        g, _ = _full_board()
        y = g.top(s)
        old = piece_square(g, x)
        assert old not in (S.PILLAR, s) and not g.face_up(x)  # the pillar keeps its piece
        g.move_piece_to(x, s, False)                          # x and y change squares
        g.move_piece_to(y, old, False)
        assert g.stack(s) == [x] and g.stack(old) == [y] and not g.knows(0, x)
        start_turn(g, 0)
        lists.append(origins(g))
    assert all(found == {"shaped"} for found in lists), lists
    # and on an open board a hidden ladder is as pickable as a neutral cube
    lists = []
    for x in (LADDER[0], 5):
        g = new_game(4, seed=17)
        Builder(g).put(x, s)
        lists.append(origins(g))
    assert lists[0] == lists[1] and s in lists[0]


def _may_pick_agrees_with_the_origins(g):
    """For every seat: whether the engine opens a piece phase (has_pickable_origin, which stops
    counting the open squares at two) is whether the seat's list of origins is not empty."""
    out = np.empty(S.N_ACTIONS, np.int64)
    for p in range(g.players):
        listed = E.pickable_origins(g.state, g.t, p, out)
        assert E.has_pickable_origin(g.state, g.t, p) == (listed > 0), (p, listed)


def test_a14_a_piece_phase_opens_iff_an_origin_is_pickable():
    # A14, A13: at the start of a game, with the reserves empty, every movable top stands on a
    # square open to it, so an origin is pickable only through another open square: a count
    # of open squares stopped at one would read each origin's own square as the only one
    g = new_game(4, seed=21)
    for p in range(4):
        g.set(S.S_RES_NEUTRAL + p, 0)
        g.set(S.S_RES_SHAPED + p, 0)
        assert E.has_pickable_origin(g.state, g.t, p)
    _may_pick_agrees_with_the_origins(g)
    # A14, A58: full boards (no open square), and random games that fill the board
    g, src = _full_board()
    _may_pick_agrees_with_the_origins(g)
    _no_star_halves(g)
    _may_pick_agrees_with_the_origins(g)
    rng = np.random.default_rng(5)
    for max_stack in (1, 2):
        g = new_game(4, seed=21, max_stack=max_stack, max_turns=60)
        while not g.is_over:
            _may_pick_agrees_with_the_origins(g)
            codes = g.legal_codes()
            g.step(int(codes[rng.integers(len(codes))]))


def test_a15_looking_commits():
    # A15: the mover learns the face of the cube it picks (only the mover); the piece must be
    # placed this turn: no other origin, no stay.
    g = new_game(4, seed=18)
    o = junk_top(g)
    x = g.top(o)
    assert not any(g.knows(p, x) for p in range(4))
    g.step(Pick(square=o))
    assert g.knows(0, x) and not any(g.knows(p, x) for p in (1, 2, 3))
    assert g.phase == "place" and all(isinstance(a, Place) for a in g.legal_actions())
    with pytest.raises(IllegalActionError):
        g.step(Pick(square=sq(6, 6)))
    with pytest.raises(IllegalActionError):
        g.step(Stay())
    g.step(Place(sq(6, 6) if o != sq(6, 6) else sq(6, 5), False))
    assert g.knows(0, x) and not g.knows(1, x)      # knowledge is never lost; a face-down
    #                                                 placement teaches nobody else


def test_a16_orientations():
    # A16: neutral cube face down only; drawn face-down cube either way; face-up cube must go
    # face down; half-cubes face up only.
    g = new_game(4, seed=19)
    b = Builder(g)
    b.put(3, sq(6, 2))                      # neutral cube
    b.put(67, sq(6, 3))                     # ladder, face down
    b.put(45, sq(6, 4), up=True)            # ★▲ face up
    b.put(half(3, True), sq(6, 5))          # circle's shaped half on the board
    assert {up for _, up in dests_for(g, sq(6, 2))} == {False}
    assert {up for _, up in dests_for(g, sq(6, 3))} == {False, True}
    assert {up for _, up in dests_for(g, sq(6, 4))} == {False}
    assert {up for _, up in dests_for(g, sq(6, 5))} == {True}
    assert {up for _, up in dests_for(g, "neutral")} == {True}
    assert {up for _, up in dests_for(g, "shaped")} == {True}


def test_a17_placement_effects():
    # A17: the piece goes on top of d; lock = x; face up makes it known to all.
    g = new_game(4, seed=20)
    b = Builder(g)
    b.put(LADDER[1], sq(6, 3))
    d = sq(2, 4)
    g.step(Pick(square=sq(6, 3)))
    g.step(Place(d, True))
    assert g.top(d) == LADDER[1] and g.face_up(LADDER[1]) and g.height(d) == 4
    assert g.shown(d) == (0, "ladder")
    assert g.seat(0)["lock"] == LADDER[1]
    assert all(g.knows(p, LADDER[1]) for p in range(4))


def test_a19_free_placement():
    # A19: any distance, any height, on any shown symbol, next to pawns, on a square the mover's
    # own pawn needs.
    g = new_game(4, seed=21)
    b = Builder(g)
    b.put(CHASM[0], sq(2, 2), up=True)
    b.put(LADDER[0], sq(2, 3), up=True)
    b.put(MATTRESS[0], sq(2, 4), up=True)
    b.set_height(sq(3, 6), 12)
    b.set_height(sq(1, 1), 0)               # the square star's pawn needs to leave its corner
    d = dests_for(g, junk_top(g))
    for s in (sq(2, 2), sq(2, 3), sq(2, 4), sq(3, 6), sq(1, 1), sq(0, 1), sq(0, 7)):
        assert (s, False) in d


# ========================================================= 3.4 Placement restrictions

def test_a20_not_back_on_its_origin():
    # A20: a board piece never goes back on its own square (default).
    g = new_game(4, seed=22)
    for o in [s for s in origins(g) if isinstance(s, int)][:10]:
        assert all(d != o for d, _ in dests_for(g, o))


def test_a22_joker_never_covered():
    # A22, A41: nothing may be placed on the joker.
    g = new_game(4, seed=23)
    b = Builder(g)
    b.put(JOKER, sq(2, 4))
    make_privileged(g, 3, joker="board")
    for o in (junk_top(g), "neutral", "shaped"):
        assert all(d != sq(2, 4) for d, _ in dests_for(g, o))


def test_a23_shape_gate():
    # A23: onto a shown shape face only if the mover's shape is on it; a face-down top or a
    # neutral half is open to all; a shape covered by another piece has no effect (§1.4).
    g = new_game(4, seed=24)
    b = Builder(g)
    b.put(42, sq(2, 2), up=True)            # circle face up
    b.put(52, sq(2, 3), up=True)            # ▲● face up
    b.put(half(3, True), sq(2, 4))          # circle half on the board
    b.put(half(3, False), sq(2, 5))         # neutral half
    b.put(43, sq(2, 6), up=True)
    b.put(7, sq(2, 6))                      # circle covered by a neutral cube
    for p, ok in ((0, {sq(2, 5), sq(2, 6)}), (1, {sq(2, 3), sq(2, 5), sq(2, 6)}),
                  (3, {sq(2, 2), sq(2, 3), sq(2, 4), sq(2, 5), sq(2, 6)})):
        start_turn(g, p)
        d = {dd for dd, _ in dests_for(g, junk_top(g))}
        assert {s for s in range(sq(2, 2), sq(2, 7)) if s in d} == ok


def test_a25_a26_corners():
    # A25, A26: a corner takes only a piece that shows its shape as placed: a face-up cube with
    # that shape or the shaped half; never face down, a neutral half, a symbol or the joker.
    g = new_game(4, seed=25)
    b = Builder(g)
    g.move_pawn_to(0, sq(2, 2))
    b.put(44, sq(6, 2))                     # ★▲
    b.put(38, sq(6, 3))                     # ▲ only
    b.put(LADDER[0], sq(6, 4))
    b.put(half(1, True), sq(6, 5))          # triangle's half
    make_privileged(g, 0, joker="hand")
    start_turn(g, 0)
    assert (0, True) in dests_for(g, sq(6, 2)) and (0, False) not in dests_for(g, sq(6, 2))
    assert all(d != 0 for d, _ in dests_for(g, sq(6, 3)))
    assert all(d != 0 for d, _ in dests_for(g, sq(6, 4)))
    assert all(d != 0 for d, _ in dests_for(g, sq(6, 5)))
    assert all(d != 0 for d, _ in dests_for(g, "neutral"))
    assert all(d not in CORNERS4 for d, _ in dests_for(g, "joker"))
    assert (0, True) in dests_for(g, "shaped")
    move_piece(g, sq(6, 2), 0, True)
    start_turn(g, 0)
    move_piece(g, "shaped", 0, True)
    # A26: every piece on the corner showed star when it was placed, and still does
    for x in g.stack(0):
        assert g.face_up(x) and (S.P_SHAPES_DRAWN[x] & 1)
    assert g.height(0) == 3


def test_a27_pillar_piece_can_be_moved_and_pillar_raised_again():
    # A27, A12: the pillar piece may be moved away like any other; then the pillar may be
    # raised again; a half-cube raises it to 10.
    g = new_game(4, seed=26)
    b = Builder(g)
    b.put(b.take_cube(), S.PILLAR)
    assert g.height(S.PILLAR) == 11
    assert S.PILLAR in origins(g)
    move_piece(g, S.PILLAR, sq(6, 6), False)
    assert g.height(S.PILLAR) == 9
    start_turn(g, 1)
    move_piece(g, "neutral", S.PILLAR, True)
    assert g.height(S.PILLAR) == 10


# ================================================================== 3.5 Pawn phase

def _open_pawn(players=4, seed=30, s=sq(2, 4), h=2, around=2, p=0):
    g = new_game(players, seed=seed)
    b = Builder(g)
    b.heights({n: around for n in nb(s) if n != S.PILLAR and n not in CORNERS4})
    b.set_height(s, h)
    g.move_pawn_to(p, s)
    return g, b, s


def test_a28_pawn_move_compulsory():
    # A28: with a legal move, the pawn must move: no stay (not on a corner, no bivouac).
    g, b, s = _open_pawn()
    idle_piece_move(g)
    acts = pawn_actions(g)
    assert "stay" not in acts and acts == set(nb(s))
    with pytest.raises(IllegalActionError):
        g.step(Stay())


def test_a29a_no_two_pawns_on_a_square():
    # A29(a): a pawn never steps onto another pawn, the pillar included.
    g, b, s = _open_pawn(s=sq(3, 3), h=9, around=0)
    b.set_height(sq(2, 3), 9)
    g.move_pawn_to(1, S.PILLAR)
    g.move_pawn_to(2, sq(2, 3))
    assert g.pawn_moves(0) == []
    g.move_pawn_to(1, sq(1, 1))
    assert g.pawn_moves(0) == [S.PILLAR]


@pytest.mark.parametrize("players, seat, n, corner, ok", [
    (4, 1, sq(1, 1), 0, False), (4, 0, sq(1, 1), 0, True), (3, 0, sq(7, 1), 72, False),
    (4, 3, sq(7, 1), 72, True), (4, 0, sq(7, 1), 72, False)])
def test_a29b_corners(players, seat, n, corner, ok):
    # A29(b): a pawn enters its own corner only; never a foreign or unused corner.
    g = new_game(players, seed=31)
    b = Builder(g)
    for p in range(players):
        if g.pawn(p) == corner:
            g.move_pawn_to(p, sq(4, 8))
    b.set_height(n, 0)
    g.move_pawn_to(seat, n)
    assert g.height(n) == g.height(corner) == 0
    assert (corner in g.pawn_moves(seat)) == ok


def test_a29c_chasm():
    # A29(c), A36: a face-up chasm on top forbids entry; face down or covered it does not.
    g, b, s = _open_pawn(around=0)
    c = sq(1, 4)
    b.set_height(c, 0)
    b.put(CHASM[0], c, up=True)
    assert c not in g.pawn_moves(0)
    g.move_piece_to(CHASM[0], c, False)      # the same chasm, face down
    assert c in g.pawn_moves(0)
    g.move_piece_to(CHASM[0], c, True)
    assert c not in g.pawn_moves(0)
    b.set_height(sq(1, 5), 0)
    b.put(CHASM[1], sq(1, 5), up=True)
    b.put(half(3, False), sq(1, 5))         # covered: 3 hu, plain
    assert sq(1, 5) in g.pawn_moves(0)


def test_a29d_shapes():
    # A29(d): a shown shape face must contain the pawn's shape (star here).
    g, b, s = _open_pawn(around=0)
    n1, n2, n3 = sq(1, 3), sq(1, 4), sq(1, 5)
    b.put(42, n1, up=True)                  # circle: 2 hu
    b.put(48, n2, up=True)                  # ★●: 2 hu
    b.set_height(n3, 1)
    b.put(half(3, True), n3)                # circle half on a neutral half: 2 hu
    assert g.height(n1) == g.height(n2) == g.height(n3) == 2
    assert set(g.pawn_moves(0)) == {n2}
    start_turn(g, 3)
    g.move_pawn_to(3, s)
    g.move_pawn_to(0, sq(4, 8))
    assert set(g.pawn_moves(3)) == {n1, n2, n3}


@pytest.mark.parametrize("dh, ok", [(-2, False), (-1, True), (0, True), (1, True), (2, False)])
def test_a30_height_rule(dh, ok):
    # A30: -1 <= Δ <= +1 without symbols.
    g, b, s = _open_pawn(h=4, around=0)
    b.set_height(sq(1, 4), 4 + dh)
    assert (sq(1, 4) in g.pawn_moves(0)) == ok


def test_a30_ladder_up_only_and_mattress_down_only():
    # A30, D19, D20: a ladder under the pawn allows +2 (not -2); a mattress allows landing
    # 2 lower (not climbing 2).
    g, b, s = _open_pawn(h=2, around=0)
    b.put(LADDER[0], s, up=True)            # pawn at 4 on a ladder
    b.set_height(sq(1, 3), 6)
    b.set_height(sq(1, 4), 2)
    assert set(g.pawn_moves(0)) == {sq(1, 3)}
    g2, b2, s2 = _open_pawn(h=4, around=0, seed=33)
    b2.set_height(sq(1, 3), 0)
    b2.put(MATTRESS[0], sq(1, 3), up=True)  # 2 hu mattress
    b2.set_height(sq(1, 4), 4)
    b2.put(MATTRESS[1], sq(1, 4), up=True)  # 6 hu mattress: +2 is not allowed
    assert set(g2.pawn_moves(0)) == {sq(1, 3)}


def test_a31_cable_car_ride():
    # A31: from a face-up cable car to any other face-up cable car without a pawn, ignoring
    # distance, height and shapes; optional (steps stay legal); it may be repeated.
    g, b, s = _open_pawn(h=0, around=2)
    b.put(CABLE[0], s, up=True)             # 2 hu station, level steps all around
    far = sq(6, 7)
    b.set_height(far, 12)
    b.put(CABLE[1], far, up=True)           # 14 hu station far away
    other = sq(5, 1)
    b.set_height(other, 0)
    b.put(CABLE[2], other, up=True)
    g.move_pawn_to(1, other)                # occupied station: no ride there
    idle_piece_move(g)
    acts = pawn_actions(g)
    assert far in acts and other not in acts
    assert set(nb(s)) <= acts               # the ride is optional
    g.step(MovePawn(far))
    assert g.pawn(0) == far and g.height(far) == 14
    g.move_pawn_to(1, sq(5, 2))             # the third station is free now
    start_turn(g, 0)
    idle_piece_move(g)
    assert {s, other} <= pawn_actions(g)    # it may ride again from the arrival station


def test_a32_legal_set_is_steps_plus_rides_and_decides_blocks():
    # A32, A38: a pawn with no step but a ride is not blocked; the ride is its legal move.
    g = ride_only_pawn()
    idle_piece_move(g, avoid=(sq(6, 6),))
    assert pawn_actions(g) == {sq(6, 6)}
    assert g.seat(0)["blocks"] == 0


def test_a32_a34_spring_under_a_pawn_gives_no_move():
    # A32, A34: standing on a spring adds nothing to the legal move set; with no step the
    # pawn is blocked (the spring step only follows a landing).
    g = new_game(4, seed=35)
    b = Builder(g)
    b.pit(sq(2, 4))
    b.put(SPRING[0], sq(2, 4), up=True)
    b.heights({n: 5 for n in nb(sq(2, 4))})
    g.move_pawn_to(0, sq(2, 4))
    idle_piece_move(g)
    assert g.seat(0)["blocks"] == 1


def test_a33_a40_summit_arrival():
    # A33, A40: landing on the pillar is a summit arrival: summit, ever_summit, stamp = seq++,
    # privileges when vacant, the joker from the box to the hand.
    g = new_game(4, seed=36)
    b = Builder(g)
    n = sq(3, 4)
    b.set_height(n, 8)
    g.move_pawn_to(0, n)
    idle_piece_move(g)
    g.step(MovePawn(S.PILLAR))
    info = g.seat(0)
    assert info["summit"] == 1 and info["ever_summit"] == 1 and info["summit_seq"] == 0
    assert int(g.state[S.G_SEQ]) == 1
    assert g.privileged == 0 and g.joker_state == "hand"


def test_a40_later_summiter_no_privileges_and_repeat_arrival_nothing():
    # A40: a second summiter gets status and a stamp but not the privileges; a pawn with summit
    # status gets nothing from coming back to the pillar.
    g = new_game(4, seed=37)
    b = Builder(g)
    n = sq(3, 4)
    b.set_height(n, 8)
    make_privileged(g, 2)
    g.set(S.S_SUMMIT_SEQ + 2, 0)
    g.set(S.G_SEQ, 1)
    g.move_pawn_to(2, sq(2, 6))
    g.move_pawn_to(1, n)
    start_turn(g, 1)
    idle_piece_move(g)
    g.step(MovePawn(S.PILLAR))
    assert g.seat(1)["summit"] == 1 and g.seat(1)["summit_seq"] == 1
    assert g.privileged == 2 and g.joker_state == "hand"
    start_turn(g, 1)
    idle_piece_move(g)
    g.step(MovePawn(n))
    start_turn(g, 1)
    idle_piece_move(g)
    g.step(MovePawn(S.PILLAR))
    assert g.seat(1)["summit_seq"] == 1 and int(g.state[S.G_SEQ]) == 2


def test_a40_arrival_on_raised_pillar_and_must_leave():
    # A40, A28: the summit counts at 11 hu too; next turn the pawn must step off.
    g = new_game(4, seed=38)
    b = Builder(g)
    b.put(b.take_cube(), S.PILLAR)
    n = sq(3, 4)
    b.set_height(n, 10)
    g.move_pawn_to(0, n)
    idle_piece_move(g)
    g.step(MovePawn(S.PILLAR))
    assert g.seat(0)["summit"] == 1
    start_turn(g, 0)
    idle_piece_move(g)
    assert pawn_actions(g) == {n}


def test_a34_spring_step_options():
    # A34: the spring step is optional and does not chain.
    g = new_game(2, seed=39)
    b = Builder(g)
    a, sp, sp2 = sq(2, 2), sq(2, 3), sq(2, 4)
    b.heights({sp: 0, sp2: 0})
    b.put(SPRING[0], sp, up=True)
    b.put(SPRING[1], sp2, up=True)
    g.move_pawn_to(0, a)
    h = clone(g)
    idle_piece_move(g)
    g.step(MovePawn(sp))
    acts = pawn_actions(g)
    assert "stay" in acts and sp2 in acts
    g.step(MovePawn(sp2))                   # onto another spring: nothing more
    assert g.current == 1 and g.pawn(0) == sp2
    idle_piece_move(h)
    h.step(MovePawn(sp))
    h.step(Stay())                          # declined
    assert h.current == 1 and h.pawn(0) == sp


def test_a34_no_spring_step_without_a_move():
    # A34: with no legal extra move nothing happens: no decision and never a block. The pawn
    # climbed +2 from a ladder and cannot step back down 2.
    g = new_game(2, seed=40)
    b = Builder(g)
    a, sp = sq(2, 2), sq(2, 3)
    b.heights({n: 8 for n in nb(sp) if n != a})
    b.set_height(a, 0)
    b.put(LADDER[0], a, up=True)            # 2 hu ladder
    b.set_height(sp, 2)
    b.put(SPRING[0], sp, up=True)           # 4 hu spring
    g.move_pawn_to(0, a)
    idle_piece_move(g)
    assert sp in pawn_actions(g)
    g.step(MovePawn(sp))
    assert g.current == 1 and g.phase == "origin"
    assert g.seat(0)["blocks"] == 0 and g.pawn(0) == sp


def test_a36_symbols_only_when_shown_on_top():
    # A36: a covered or face-down ladder is an ordinary cube; the joker's dragon stops no pawn.
    g, b, s = _open_pawn(h=2, around=0)
    b.put(LADDER[0], s, up=True)
    b.put(half(3, False), s)                # ladder covered: plain top at 5 hu
    b.set_height(sq(1, 3), 7)
    assert g.pawn_moves(0) == []            # +2 from a plain top
    g.move_piece_to(half(3, False), sq(8, 4))
    b.set_height(sq(1, 3), 6)
    assert g.height(s) == 4 and g.pawn_moves(0) == [sq(1, 3)]   # +2 from the shown ladder
    g.move_piece_to(LADDER[0], s, False)    # the same ladder face down: plain
    assert g.pawn_moves(0) == []
    b.set_height(sq(1, 5), 4)
    b.put(JOKER, sq(1, 5))
    g.set(S.G_PRIVILEGED, 2)
    assert g.shown(sq(1, 5)) == (0, "dragon")
    assert sq(1, 5) in g.pawn_moves(0)      # 4 -> 5 onto the joker


# ========================================================= 3.6 Blocks and elimination

def test_a38_first_block():
    # A38: blocks += 1, biv cleared, summit cleared, pawn home, turn over.
    g = new_game(4, seed=41)
    b = Builder(g)
    b.pit(sq(2, 4))
    g.move_pawn_to(0, sq(2, 4))
    give_summit(g, 0)
    g.set(S.S_BIV + 0, 0)
    idle_piece_move(g)
    info = g.seat(0)
    assert info["blocks"] == 1 and info["summit"] == 0 and info["ever_summit"] == 1
    assert g.pawn(0) == 0 and int(g.state[S.B_PAWN_ON + sq(2, 4)]) == -1
    assert not g.is_over


def test_a38_second_block_eliminates():
    # A38: the second block eliminates: inactive, pawn removed, lock cleared, no more turns;
    # its pieces stay; its reserve is unused.
    g = new_game(4, seed=42)
    b = Builder(g)
    b.pit(sq(2, 4))
    g.move_pawn_to(1, sq(2, 4))
    g.set(S.S_BLOCKS + 1, 1)
    start_turn(g, 1)
    move_piece(g, "neutral", sq(6, 6), True)
    placed = g.top(sq(6, 6))
    info = g.seat(1)
    assert info["active"] == 0 and info["blocks"] == 2 and info["lock"] == -1
    assert g.pawn(1) is None and int(g.state[S.B_PAWN_ON + sq(2, 4)]) == -1
    assert g.top(sq(6, 6)) == placed and piece_square(g, placed) == sq(6, 6)
    assert info["res_shaped"] == 2
    seq = run_turns(g, 7)
    assert 1 not in [s for s, _ in seq]


def test_a38_stuck_pawn_only_checked_in_own_turn():
    # A38, D14: nothing happens to a stuck pawn during other players' turns.
    g = new_game(4, seed=43)
    b = Builder(g)
    b.pit(sq(2, 4))
    g.move_pawn_to(2, sq(2, 4))
    run_turns(g, 2)                          # seats 0 and 1
    assert g.seat(2)["blocks"] == 0 and g.pawn(2) == sq(2, 4)
    assert g.current == 2
    idle_piece_move(g)
    assert g.seat(2)["blocks"] == 1


def test_a38_self_inflicted_block_counts():
    # A38: a block caused by the player's own piece move counts.
    g, b, s = _open_pawn(h=2, around=0)
    b.set_height(sq(1, 4), 2)
    assert g.pawn_moves(0) == [sq(1, 4)]
    move_piece(g, junk_top(g), sq(1, 4), False)
    assert g.seat(0)["blocks"] == 1 and g.pawn(0) == 0


def test_a39_corner_is_safe_but_must_leave_when_it_can():
    # A39, A28: no move on the own corner: no block; a legal move: it must leave.
    g = new_game(4, seed=44)
    idle_piece_move(g)
    assert g.seat(0)["blocks"] == 0 and g.current == 1
    g2 = new_game(4, seed=44)
    b = Builder(g2)
    b.set_height(sq(0, 1), 1)
    idle_piece_move(g2)
    assert pawn_actions(g2) == {sq(0, 1)}


def test_a39_returned_pawn_safe_on_corner():
    # A39, D12: the corner stays safe after the pawn has left and come back.
    g = new_game(4, seed=45)
    g.set(S.S_LEFT_CORNER + 0, 1)
    g.set(S.S_BLOCKS + 0, 1)
    idle_piece_move(g)
    assert g.seat(0)["blocks"] == 1 and g.seat(0)["active"] == 1


def test_a41_joker_placement_rules():
    # A41: the joker follows A20-A27: not on a pawn, not against the shape gate, never on a
    # corner or the pillar; then it is a 1-hu step for every pawn and is placed once per holding.
    g = new_game(4, seed=46)
    b = Builder(g)
    make_privileged(g, 1, joker="hand")
    g.move_pawn_to(1, sq(2, 6))
    b.put(42, sq(2, 2), up=True)            # circle face up: closed to triangle
    g.move_pawn_to(3, sq(2, 3))
    g.move_pawn_to(0, sq(2, 4))
    start_turn(g, 1)
    d = {dd for dd, up in dests_for(g, "joker")}
    assert all(up for _, up in dests_for(g, "joker"))
    for bad in CORNERS4 + [S.PILLAR, sq(2, 2), sq(2, 3), sq(2, 4), sq(2, 6)]:
        assert bad not in d
    assert sq(2, 5) in d
    g.step(Pick(reserve="joker"))
    g.step(Place(sq(2, 5), True))
    assert g.joker_state == "board" and g.height(sq(2, 5)) == 3
    assert g.shown(sq(2, 5)) == (0, "dragon")
    start_turn(g, 1)
    assert "joker" not in origins(g)        # once per holding
    # every pawn may use it as a step: seat 0 at 2 hu next to it
    assert sq(2, 5) in g.pawn_moves(0)
    # and seat 3 too (from 2 hu? (2,3) is not next to (2,5)): move it next to it
    g.move_pawn_to(3, sq(3, 5))
    assert sq(2, 5) in g.pawn_moves(3)


def test_a42_earliest_holder_by_stamp():
    # A42: the new holder is the active current summiter with the smallest stamp.
    g = new_game(4, seed=47)
    b = Builder(g)
    b.pit(sq(2, 4))
    g.move_pawn_to(2, sq(2, 4))
    make_privileged(g, 2, joker="hand")
    g.set(S.S_SUMMIT_SEQ + 2, 0)
    give_summit(g, 0, stamp=7)
    give_summit(g, 3, stamp=5)
    give_summit(g, 1, stamp=2)
    g.set(S.S_SUMMIT + 1, 0)                # seat 1 was blocked since: not a candidate
    g.set(S.G_SEQ, 8)
    start_turn(g, 2)
    idle_piece_move(g)
    assert g.privileged == 3 and g.joker_state == "hand"
    assert g.seat(2)["lost_priv"] == 1


def test_a42_vacant_then_f_again():
    # A42, A40: with nobody else on the summit the privileges are vacant; F may win them back
    # by climbing again, with the joker from the box.
    g = new_game(4, seed=48)
    b = Builder(g)
    b.pit(sq(2, 4))
    n = sq(3, 4)
    b.set_height(n, 8)
    g.move_pawn_to(2, sq(2, 4))
    make_privileged(g, 2, joker="hand")
    start_turn(g, 2)
    idle_piece_move(g)
    assert g.privileged is None and g.joker_state == "box"
    g.move_pawn_to(2, n)
    start_turn(g, 2)
    idle_piece_move(g)
    g.step(MovePawn(S.PILLAR))
    assert g.privileged == 2 and g.joker_state == "hand"


def test_a43_joker_next_turn_not_arrival_turn():
    # A43: the joker cannot be placed in the turn of arrival (the piece phase is over); it can
    # in the holder's next turn, an extra turn included.
    g = new_game(4, seed=49)
    b = Builder(g)
    n = sq(3, 4)
    b.set_height(n, 8)
    g.move_pawn_to(2, n)
    start_turn(g, 2)
    assert g.joker_state == "box"          # the joker reaches the hand on arrival (A40)
    idle_piece_move(g)
    g.step(MovePawn(S.PILLAR))
    # the arrival turn ends with the pawn move: no piece decision of seat 2 is left in it
    assert g.joker_state == "hand" and g.current == 3
    finish_turn(g)
    assert g.current == 2 and turn_kind(g) == "extra"
    assert "joker" in origins(g)


def test_a44_extra_turns_follow_every_other_player():
    # A44: with F = 3 in a 4-player game: 3 plays after 0 and 1 but not after 2.
    g = new_game(4, seed=50)
    make_privileged(g, 3)
    g.move_pawn_to(3, sq(2, 6))
    start_turn(g, 0)
    seq = run_turns(g, 9, {3: (sq(2, 6), sq(2, 7))})
    assert seq == [(0, "normal"), (3, "extra"), (1, "normal"), (3, "extra"), (2, "normal"),
                   (3, "normal"), (0, "normal"), (3, "extra"), (1, "normal")]


def test_a44_every_other_player_on_the_summit():
    # A44: if every other active player has summit status, F plays once per cycle.
    g = new_game(3, seed=51)
    make_privileged(g, 1)
    give_summit(g, 0)
    give_summit(g, 2)
    for p, s in ((0, sq(2, 2)), (1, sq(2, 5)), (2, sq(5, 2))):
        g.move_pawn_to(p, s)
    shuttle = {0: (sq(2, 2), sq(2, 3)), 1: (sq(2, 5), sq(2, 6)), 2: (sq(5, 2), sq(5, 3))}
    seq = run_turns(g, 6, shuttle)
    assert seq == [(0, "normal"), (1, "normal"), (2, "normal")] * 2


def test_a45_any_summiter_wins_on_own_corner():
    # A45: a seat with summit status (not privileged) wins on landing on its own corner,
    # whatever the corner's height (it may carry its shape).
    g = new_game(4, seed=52)
    b = Builder(g)
    b.put(half(1, True), 8)
    b.set_height(sq(1, 7), 2)
    g.move_pawn_to(1, sq(1, 7))
    make_privileged(g, 0)
    g.move_pawn_to(0, sq(4, 0))
    give_summit(g, 1)
    start_turn(g, 1)
    idle_piece_move(g)
    assert 8 in pawn_actions(g)
    g.step(MovePawn(8))
    assert g.is_over and g.winner == 1 and g.end_reason == "win"


def test_a45_no_win_without_summit_status():
    # A45: stepping home without summit status wins nothing.
    g = new_game(4, seed=53)
    b = Builder(g)
    b.set_height(sq(1, 1), 0)
    g.move_pawn_to(0, sq(1, 1))
    idle_piece_move(g)
    g.step(MovePawn(0))
    assert not g.is_over and g.current == 1


def test_a46_all_eliminated_is_a_draw():
    # A46: when the last active seat is eliminated the game ends as all_eliminated.
    g = new_game(2, seed=54)
    b = Builder(g)
    b.pit(sq(2, 4))
    eliminate(g, 1)
    g.move_pawn_to(0, sq(2, 4))
    g.set(S.S_BLOCKS + 0, 1)
    start_turn(g, 0)
    idle_piece_move(g)
    assert g.is_over and g.end_reason == "all_eliminated" and g.winner is None


@pytest.mark.parametrize("partnership, free", [("true", True), ("false", False)])
def test_a48_partnership_locks(partnership, free):
    # A48, A12(d): a partner's lock does not bind; an opponent's does.
    g = new_game(4, seed=55, partnership=partnership)
    run_turns(g, 1)                          # seat 0 moves x
    x = g.seat(0)["lock"]
    where = piece_square(g, x)
    assert g.current == 1 and where not in origins(g)      # seat 1: an opponent
    idle_piece_move(g, avoid=(where,))
    assert g.current == 2 and g.top(where) == x
    assert (where in origins(g)) == free                    # seat 2: the partner


# ==================================================================== A49-A59

def test_a49_lock_naming_joker_cleared():
    # A49, A12(d): a lock naming the joker becomes -1 when the joker leaves the board.
    g = new_game(4, seed=56)
    b = Builder(g)
    b.pit(sq(2, 4))
    g.move_pawn_to(2, sq(2, 4))
    make_privileged(g, 2, joker="hand")
    start_turn(g, 2)
    move_piece(g, "joker", sq(6, 6), True)
    assert g.seat(2)["lock"] == -1 and piece_square(g, JOKER) == -2
    assert g.privileged is None and g.joker_state == "box"


def test_a49_placed_joker_then_blocked_later_pass_to_new_holder_unused():
    # A49, A42: placed in an earlier turn, the joker comes off when the holder is blocked and
    # reaches a new holder's hand unused.
    g = new_game(4, seed=57)
    b = Builder(g)
    make_privileged(g, 2, joker="hand")
    g.move_pawn_to(2, sq(2, 6))
    give_summit(g, 0)
    start_turn(g, 2)
    move_piece(g, "joker", sq(4, 7), True)
    assert g.seat(2)["lock"] == JOKER
    g.step(MovePawn(sq(2, 7)))
    b.pit(sq(2, 7))
    start_turn(g, 2)
    idle_piece_move(g)
    assert g.privileged == 0 and g.joker_state == "hand"
    assert JOKER not in g.stack(sq(4, 7)) and g.seat(2)["lock"] != JOKER


def test_a50_exposed_ladder_acts_at_once():
    # A50, A37: the joker taken off from under a pawn: the pawn stays, 1 hu lower, and the
    # newly exposed ladder acts at once.
    g = new_game(4, seed=58)
    b = Builder(g)
    c = sq(2, 2)
    b.heights({n: 6 for n in nb(c)})
    b.set_height(c, 2)
    b.put(LADDER[0], c, up=True)
    b.put(JOKER, c)                          # 5 hu: ladder under the joker
    g.move_pawn_to(0, c)
    b.pit(sq(2, 6))
    g.move_pawn_to(2, sq(2, 6))
    make_privileged(g, 2, joker="board")
    start_turn(g, 2)
    idle_piece_move(g)
    assert g.height(c) == 4 and g.pawn(0) == c
    assert set(g.pawn_moves(0)) == set(nb(c))   # 4 -> 6 thanks to the exposed ladder
    assert g.seat(0)["blocks"] == 0


def test_a50_pawn_stays_on_exposed_foreign_shape():
    # A50: the joker taken off exposes a circle face under the star pawn: it stays there,
    # unblocked, and leaves by the ordinary rules on its next turn.
    g = new_game(4, seed=70)
    b = Builder(g)
    c = sq(2, 2)
    b.heights({n: 2 for n in nb(c)})
    b.set_height(c, 0)
    b.put(42, c, up=True)
    b.put(JOKER, c)
    g.move_pawn_to(0, c)
    b.pit(sq(2, 6))
    g.move_pawn_to(2, sq(2, 6))
    make_privileged(g, 2, joker="board")
    start_turn(g, 2)
    idle_piece_move(g)
    assert g.pawn(0) == c and g.shown(c) == (8, "none") and g.seat(0)["blocks"] == 0
    start_turn(g, 0)
    idle_piece_move(g)
    assert pawn_actions(g) == set(nb(c))


def test_a51_lone_station_blocked():
    # A51: on a lone station with no step the pawn is blocked.
    g = new_game(4, seed=59)
    b = Builder(g)
    b.pit(sq(2, 4))
    b.put(CABLE[0], sq(2, 4), up=True)
    b.heights({n: 4 for n in nb(sq(2, 4))})
    g.move_pawn_to(0, sq(2, 4))
    b.put(CABLE[1], sq(6, 6), up=True)
    g.move_pawn_to(1, sq(6, 6))             # the other station is occupied
    idle_piece_move(g, avoid=(sq(6, 6),))
    assert g.seat(0)["blocks"] == 1


def test_a52_spring_step_to_summit_and_to_win():
    # A52, A40, A45: a spring step onto the pillar is a summit arrival; onto the own corner
    # with summit status it wins.
    g = new_game(4, seed=60)
    b = Builder(g)
    a, sp = sq(2, 3), sq(3, 3)
    b.set_height(a, 7)
    b.set_height(sp, 6)
    b.put(SPRING[0], sp, up=True)            # 8 hu spring next to the pillar
    g.move_pawn_to(0, a)
    idle_piece_move(g)
    g.step(MovePawn(sp))
    assert S.PILLAR in pawn_actions(g)
    g.step(MovePawn(S.PILLAR))
    assert g.seat(0)["summit"] == 1 and g.privileged == 0

    g = new_game(4, seed=61)
    b = Builder(g)
    a, sp = sq(2, 2), sq(1, 1)
    b.set_height(sp, 0)
    b.put(SPRING[1], sp, up=True)
    g.move_pawn_to(0, a)
    give_summit(g, 0)
    b.put(half(0, True), 0)                  # corner at 1 hu
    idle_piece_move(g)
    g.step(MovePawn(sp))
    assert {0, a} <= pawn_actions(g)         # may also go back where it came from
    g.step(MovePawn(0))
    assert g.is_over and g.winner == 0


def test_a52_spring_step_onto_cable_car_rides_next_turn():
    # A52, A31: a spring step onto a cable car allows a ride on the next turn.
    g = new_game(2, seed=62)
    b = Builder(g)
    a, sp, cc = sq(2, 2), sq(2, 3), sq(2, 4)
    b.heights({sp: 0, cc: 0})
    b.put(SPRING[0], sp, up=True)
    b.put(CABLE[0], cc, up=True)
    b.put(CABLE[1], sq(5, 7), up=True)
    g.move_pawn_to(0, a)
    idle_piece_move(g)
    g.step(MovePawn(sp))
    assert sq(5, 7) not in pawn_actions(g)   # no ride from the spring itself
    g.step(MovePawn(cc))
    finish_turn(g)
    idle_piece_move(g)
    assert sq(5, 7) in pawn_actions(g)


def test_a53_a44_eliminated_in_own_turn_still_gives_extra_turn():
    # A53, A44: a seat eliminated during its own normal turn still counts as having played:
    # F's extra turn follows; afterwards the seat is skipped everywhere.
    g = new_game(4, seed=72)
    b = Builder(g)
    b.pit(sq(2, 4))
    g.move_pawn_to(0, sq(2, 4))
    g.set(S.S_BLOCKS + 0, 1)
    make_privileged(g, 2)
    g.move_pawn_to(2, sq(5, 7))
    start_turn(g, 0)
    seq = run_turns(g, 7, {2: (sq(5, 7), sq(4, 7))})
    assert g.seat(0)["active"] == 0
    assert seq == [(0, "normal"), (2, "extra"), (1, "normal"), (2, "normal"), (3, "normal"),
                   (2, "extra"), (1, "normal")]


def test_a54_blocked_in_extra_turn_slot_spent():
    # A54: the holder blocked in an extra turn: the new holder's extra turns start after the
    # next normal turn.
    g = new_game(4, seed=63)
    b = Builder(g)
    make_privileged(g, 2)
    g.move_pawn_to(2, sq(2, 6))
    g.move_pawn_to(0, sq(5, 1))
    give_summit(g, 0)
    start_turn(g, 3)
    finish_turn(g)                            # seat 3; now seat 2's extra turn
    assert g.current == 2 and turn_kind(g) == "extra"
    b.pit(sq(2, 6))
    idle_piece_move(g)
    assert g.privileged == 0 and g.seat(2)["blocks"] == 1
    seq = run_turns(g, 4, {0: (sq(5, 1), sq(5, 2))})
    assert seq == [(0, "normal"), (1, "normal"), (0, "extra"), (2, "normal")]


def test_a55_pillar_and_corner_caps():
    # A55: the piece cap counts corners too; the pillar keeps its own limit of one.
    g = new_game(4, seed=64, max_stack=2)
    b = Builder(g)
    g.move_pawn_to(0, sq(2, 2))
    b.put(half(0, True), 0)
    b.put(44, 0, up=True)                    # corner full (2 pieces)
    b.put(46, sq(6, 3))                      # ★■
    assert all(d != 0 for d, _ in dests_for(g, sq(6, 3)))
    assert (S.PILLAR, False) in dests_for(g, sq(6, 3))
    move_piece(g, sq(6, 3), S.PILLAR, False)
    start_turn(g, 0)
    assert all(d != S.PILLAR for d, _ in dests_for(g, junk_top(g)))


def test_a56_flip_in_place_lifted_checks():
    # A56: with allow_flip_in_place, a piece put back on its square must turn over; neutral
    # cubes and half-cubes never go back; the pillar piece and corner cubes cannot turn.
    g = new_game(4, seed=65, allow_flip_in_place="true")
    b = Builder(g)
    g.move_pawn_to(0, sq(2, 2))
    b.put(LADDER[0], sq(6, 2))               # face down drawn
    b.put(45, sq(6, 3), up=True)             # face up drawn
    b.put(3, sq(6, 4))                       # neutral
    b.put(half(3, False), sq(6, 5))
    b.put(56, S.PILLAR)                      # face-down ▲■● on the pillar
    b.put(44, 0, up=True)                    # ★▲ face up on the star corner
    d = dests_for(g, sq(6, 2))
    assert (sq(6, 2), True) in d and (sq(6, 2), False) not in d
    d = dests_for(g, sq(6, 3))
    assert (sq(6, 3), False) in d and (sq(6, 3), True) not in d
    assert all(dd != sq(6, 4) for dd, _ in dests_for(g, sq(6, 4)))
    assert all(dd != sq(6, 5) for dd, _ in dests_for(g, sq(6, 5)))
    assert all(dd != S.PILLAR for dd, _ in dests_for(g, S.PILLAR))
    assert all(dd != 0 for dd, _ in dests_for(g, 0))
    move_piece(g, sq(6, 2), sq(6, 2), True)
    assert g.face_up(LADDER[0]) and g.top(sq(6, 2)) == LADDER[0]
    assert g.seat(0)["lock"] == LADDER[0]


def test_a57_joker_extra_move():
    # A57, A49: with joker_extra_move, the holder may place the joker right after its ordinary
    # piece move (never before it); the lock keeps naming the ordinary piece; A38 is checked
    # after both.
    g = new_game(4, seed=66, joker_extra_move="true")
    b = Builder(g)
    make_privileged(g, 1, joker="hand")
    b.pit(sq(2, 4))
    g.move_pawn_to(1, sq(2, 4))
    start_turn(g, 1)
    assert "joker" not in origins(g)
    o = junk_top(g)
    x = g.top(o)
    g.step(Pick(square=o))
    g.step(Place(sq(6, 6) if o != sq(6, 6) else sq(6, 5), False))
    assert g.phase == "joker" and g.current == 1
    acts = g.legal_actions()
    assert Stay() in acts and PlaceJoker(sq(2, 3)) in acts
    assert PlaceJoker(S.PILLAR) not in acts and PlaceJoker(sq(2, 4)) not in acts
    g.step(PlaceJoker(sq(2, 3)))            # 3 hu next to a 0-hu pawn: no rescue
    assert g.seat(1)["blocks"] == 1
    assert piece_square(g, JOKER) == -2
    assert g.seat(1)["lock"] == x


def test_a57_joker_extra_move_declined():
    # A57: the extra joker placement may be declined; the joker stays in hand.
    g = new_game(4, seed=71, joker_extra_move="true")
    make_privileged(g, 1, joker="hand")
    g.move_pawn_to(1, sq(2, 4))
    start_turn(g, 1)
    idle_piece_move(g)
    assert g.phase == "joker"
    g.step(Stay())
    assert g.phase == "pawn" and g.joker_state == "hand"


def test_a59_pillar_hidden_special():
    # A59: with bar, a face-down symbol cube may not raise the pillar, a face-down shape cube
    # may; pickability still treats the pillar as open to any face-down cube.
    g = new_game(4, seed=67, pillar_hidden_special="bar")
    b = Builder(g)
    b.put(LADDER[0], sq(6, 2))
    b.put(44, sq(6, 3))
    assert all(d != S.PILLAR for d, _ in dests_for(g, sq(6, 2)))
    assert (S.PILLAR, False) in dests_for(g, sq(6, 3))
    g2 = new_game(4, seed=67)
    b2 = Builder(g2)
    b2.put(LADDER[0], sq(6, 2))
    assert (S.PILLAR, False) in dests_for(g2, sq(6, 2))


def test_a59_picked_cube_with_nowhere_to_go_stays():
    # A59, A58, A14: under bar, with every free square full (max_stack 1) and only the bare
    # pillar open, a hidden ladder is pickable (A14 ignores its face) but has no destination:
    # it stays where it was, the mover has seen it, and the piece phase is skipped.
    g = new_game(3, seed=68, max_stack=1, pillar_hidden_special="bar")
    src = piece_square(g, LADDER[0])
    assert src in origins(g)
    g.set(S.S_LOCK + 0, 5)
    skips = int(g.state[S.G_PIECE_SKIPS])
    g.step(Pick(square=src))
    assert g.stack(src) == [LADDER[0]] and not g.face_up(LADDER[0])
    assert g.knows(0, LADDER[0])
    assert g.seat(0)["lock"] == -1
    assert int(g.state[S.G_PIECE_SKIPS]) == skips + 1
    assert g.current == 1 and g.phase == "origin"       # pawn stuck on its corner: safe
