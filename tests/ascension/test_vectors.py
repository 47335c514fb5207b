"""RULES.md §4 test vectors 1-19, one test each (test_vector_NN)."""
import pytest

from asc_helpers import (BIVOUAC, CABLE, CHASM, JOKER, LADDER, MATTRESS, SPRING, Builder,
                         IllegalActionError, MovePawn, Pick, Place, S, Stay, clone, dests,
                         dests_for, finish_turn, give_summit, idle_piece_move, make_privileged,
                         move_piece, nb, new_game, junk_top, origins, pawn_actions, piece_square,
                         run_turns, sq, start_turn, turn_kind, eliminate)

CORNER = {0: 0, 1: 8, 2: 80, 3: 72}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_vector_01(players):
    # A6, A39: at the start every pawn is at 0 hu among 2-hu neighbours, with no legal move,
    # and a pawn on its own corner is never blocked: its turn ends after the piece phase.
    g = new_game(players, seed=11)
    for p in range(players):
        assert g.height(g.pawn(p)) == 0
        assert g.pawn_moves(p) == []
    for p in range(players):
        assert g.current == p and g.phase == "origin"
        idle_piece_move(g)
        # A39: no pawn decision, no block: the next seat is already to play
        assert g.current == (p + 1) % players and g.phase == "origin"
    corners = {2: [0, 80], 3: [0, 8, 80], 4: [0, 8, 80, 72]}[players]
    for p in range(players):
        info = g.seat(p)
        assert info["blocks"] == 0 and info["active"] == 1
        assert g.pawn(p) == corners[p]


def test_vector_02():
    # A28: star moves the cube from (1,1); its pawn then has exactly one legal move, to
    # (1,1), and must take it (no stay is offered).
    g = new_game(4, seed=5)
    assert g.current == 0
    move_piece(g, sq(1, 1), sq(6, 4), False)
    assert g.height(sq(1, 1)) == 0
    assert g.phase == "pawn" and g.current == 0
    assert g.legal_actions() == [MovePawn(sq(1, 1))]
    with pytest.raises(IllegalActionError):
        g.step(Stay())
    g.step(MovePawn(sq(1, 1)))
    assert g.pawn(0) == sq(1, 1)
    assert g.current == 1 and g.phase == "origin"


def test_vector_03():
    # A23, A25, D10: a bare corner shows its own shape; only its owner may start it, and only
    # with a piece showing that shape. Then only seats whose shape the top shows may add.
    g = new_game(4, seed=2)
    b = Builder(g)
    b.set_height(sq(1, 1), 0)
    g.move_pawn_to(0, sq(1, 1))
    b.put(44, sq(2, 6))                     # a ★▲ cube (face down for now) on (2,6)
    start_turn(g, 1)                         # triangle
    d = dests_for(g, sq(2, 6))
    assert (sq(3, 6), True) in d            # it may be shown elsewhere
    assert (0, True) not in d and (0, False) not in d      # A23: bare star corner shows only ★
    start_turn(g, 0)                         # star
    assert "shaped" in origins(g)
    assert (0, True) in dests_for(g, "shaped")
    assert all(dd != 0 for dd, _ in dests_for(g, "neutral"))   # A25: a neutral half never
    g.step(Pick(reserve="shaped"))
    g.step(Place(0, True))
    assert g.height(0) == 1 and g.shown(0) == (1, "none")
    # star's pawn may step back onto its corner (Δ = +1)
    assert pawn_actions(g) == {0}
    h = clone(g)
    # from now on triangle may not add: the top shows ★ only (A23)
    start_turn(h, 1)
    assert (0, True) not in dests_for(h, sq(2, 6))
    # star may add the ★▲ cube face up (it shows ★, A25), but not face down
    start_turn(h, 0)
    d = dests_for(h, sq(2, 6))
    assert (0, True) in d and (0, False) not in d
    g.step(MovePawn(0))
    assert g.pawn(0) == 0 and not g.is_over


def _ladder_position(ladder_up):
    g = new_game(4, seed=1)
    b = Builder(g)
    s = sq(2, 2)
    b.heights({n: 2 for n in nb(s)})
    b.set_height(s, 2)
    b.put(LADDER[0], s, up=ladder_up)       # 4 hu, the ladder on top
    b.set_height(sq(1, 1), 6)
    b.set_height(sq(1, 2), 7)
    g.move_pawn_to(0, s)
    return g, s


def test_vector_04():
    # A30, A36: standing on a face-up ladder the pawn may climb +2 (6 from 4) but not +3;
    # on a plain cube (the same ladder face down) it cannot reach 6.
    g, s = _ladder_position(True)
    assert g.height(s) == 4 and g.shown(s)[1] == "ladder"
    idle_piece_move(g)
    assert pawn_actions(g) == {sq(1, 1)}
    g.step(MovePawn(sq(1, 1)))
    assert g.pawn(0) == sq(1, 1)
    g, s = _ladder_position(False)
    assert g.height(s) == 4 and g.shown(s)[1] == "none"
    idle_piece_move(g)
    # no legal move, not on its corner: blocked (A38) and sent home
    assert g.pawn(0) == 0 and g.seat(0)["blocks"] == 1


def test_vector_05():
    # A30: from 4 hu a 2-hu neighbour is reachable only if its top is a face-up mattress.
    g = new_game(4, seed=3)
    b = Builder(g)
    s = sq(2, 2)
    b.heights({n: 2 for n in nb(s)})
    b.set_height(s, 4)
    b.set_height(sq(1, 2), 0)
    b.put(MATTRESS[0], sq(1, 2), up=True)   # 2 hu, face-up mattress
    g.move_pawn_to(0, s)
    assert g.height(sq(1, 2)) == 2 and g.height(sq(2, 1)) == 2
    idle_piece_move(g)
    assert pawn_actions(g) == {sq(1, 2)}
    g.step(MovePawn(sq(1, 2)))
    assert g.pawn(0) == sq(1, 2) and g.height(sq(1, 2)) == 2


def test_vector_06():
    # A29(d), A23: triangle can neither enter nor place onto ★■●; both onto ★▲■ and onto any
    # face-down cube.
    g = new_game(4, seed=4)
    b = Builder(g)
    s = sq(2, 4)
    b.heights({n: 4 for n in nb(s)})
    b.set_height(s, 2)
    a, bb, c = sq(1, 3), sq(1, 4), sq(1, 5)
    for n in (a, bb, c):
        b.set_height(n, 0)
    b.put(58, a, up=True)                   # ★■● face up
    b.put(62, bb, up=True)                  # ★▲■ face up
    b.put(59, c, up=False)                  # ★■● face down: plain
    g.move_pawn_to(1, s)
    start_turn(g, 1)
    d = dests_for(g, junk_top(g))
    assert (a, False) not in d and (a, True) not in d
    assert (bb, False) in d and (c, False) in d
    idle_piece_move(g)
    assert pawn_actions(g) == {bb, c}


def test_vector_07_placement():
    # A27: the pillar takes one plain piece: a face-down ladder or a neutral half-cube, never a
    # star half-cube, never a face-up special, never a second piece.
    g = new_game(4, seed=6)
    b = Builder(g)
    b.put(LADDER[0], sq(6, 4))
    assert (S.PILLAR, False) in dests_for(g, sq(6, 4))
    assert (S.PILLAR, True) not in dests_for(g, sq(6, 4))
    assert (S.PILLAR, True) in dests_for(g, "neutral")
    assert all(d != S.PILLAR for d, _ in dests_for(g, "shaped"))
    move_piece(g, sq(6, 4), S.PILLAR, False)
    assert g.height(S.PILLAR) == 11 and g.stack(S.PILLAR) == [LADDER[0]]
    assert g.current == 1
    for o in (sq(6, 5), "neutral"):
        assert all(d != S.PILLAR for d, _ in dests_for(g, o))


@pytest.mark.parametrize("h, ladder, reachable", [
    (10, False, True), (11, False, True), (12, False, True), (9, False, False),
    (9, True, True), (13, False, False)])
def test_vector_07(h, ladder, reachable):
    # A27, A30, A40: with a cube on it the pillar is at 11 hu; a neighbour at 10, 11 or 12
    # (level included) reaches it, 9 only from a face-up ladder, 13 never.
    g = new_game(4, seed=7)
    b = Builder(g)
    n = sq(3, 3)
    b.put(b.take_cube(), S.PILLAR)
    assert g.height(S.PILLAR) == 11
    if ladder:
        b.set_height(n, h - 2)
        b.put(LADDER[1], n, up=True)
    else:
        b.set_height(n, h)
    assert g.height(n) == h
    g.move_pawn_to(0, n)
    idle_piece_move(g)
    if reachable:
        assert S.PILLAR in pawn_actions(g)
        g.step(MovePawn(S.PILLAR))
        assert g.pawn(0) == S.PILLAR and g.seat(0)["summit"] == 1
    else:
        assert g.phase != "pawn" or S.PILLAR not in pawn_actions(g)


def test_vector_08():
    # A16, D8: a face-up cube must be placed face down at its next move; at a later move it
    # may be revealed again.
    g = new_game(4, seed=8)
    b = Builder(g)
    b.put(44, sq(6, 4), up=True)
    d = dests_for(g, sq(6, 4))
    assert d and all(not up for _, up in d)
    move_piece(g, sq(6, 4), sq(6, 5), False)
    assert not g.face_up(44)
    start_turn(g, 0)
    d = dests_for(g, sq(6, 5))
    assert any(up for _, up in d) and any(not up for _, up in d)
    move_piece(g, sq(6, 5), sq(6, 6), True)
    assert g.face_up(44) and g.shown(sq(6, 6)) == (3, "none")


def test_vector_09():
    # A12(d), D5: triangle moves x; circle may not move x before triangle has played again;
    # triangle itself may move x again; once triangle has moved something else, x is free.
    g = new_game(4, seed=9)
    start_turn(g, 1)
    A, B = sq(6, 2), sq(6, 3)
    x = g.top(A)
    move_piece(g, A, B, False)
    assert g.seat(1)["lock"] == x and g.top(B) == x
    assert g.current == 2
    idle_piece_move(g, avoid=(B,))
    assert g.current == 3
    assert B not in origins(g)
    idle_piece_move(g, avoid=(B,))
    idle_piece_move(g, avoid=(B,))
    assert g.current == 1
    assert B in origins(g)
    idle_piece_move(g, avoid=(B,))          # triangle moves something else: x is released
    assert g.seat(1)["lock"] != x
    assert g.current == 2 and B in origins(g)


def _summit_pair(g, b):
    """A square next to the pillar at 8 hu, so that a pawn can shuttle on and off it."""
    n = sq(3, 3)
    b.set_height(n, 8)
    return n


def test_vector_10():
    # A40, A44, A54: seat 2 reaches the summit first, in its normal turn; it gets no extra turn
    # after that turn, then plays after every other seat except where its own turn comes next;
    # once seat 0 also has summit status, seat 0 no longer gives it an extra turn.
    g = new_game(4, seed=10)
    b = Builder(g)
    n = _summit_pair(g, b)
    g.move_pawn_to(2, n)
    start_turn(g, 2)
    idle_piece_move(g)
    assert S.PILLAR in pawn_actions(g)
    g.step(MovePawn(S.PILLAR))
    assert g.seat(2)["summit"] == 1 and g.privileged == 2 and g.joker_state == "hand"
    shuttle = {2: (n, S.PILLAR), 0: (sq(2, 6), sq(2, 7))}
    seq = run_turns(g, 12, shuttle)
    assert seq == [(3, "normal"), (2, "extra"), (0, "normal"), (2, "extra"), (1, "normal"),
                   (2, "normal"), (3, "normal"), (2, "extra"), (0, "normal"), (2, "extra"),
                   (1, "normal"), (2, "normal")]
    assert g.current == 3
    g.move_pawn_to(0, sq(2, 6))
    give_summit(g, 0)
    seq = run_turns(g, 10, shuttle)
    assert [s for s, _ in seq] == [3, 2, 0, 1, 2, 3, 2, 0, 1, 2]
    assert [k for _, k in seq] == ["normal", "extra", "normal", "normal", "normal",
                                   "normal", "extra", "normal", "normal", "normal"]
    assert g.privileged == 2


@pytest.mark.parametrize("seat0_summit", [True, False])
def test_vector_11(seat0_summit):
    # A38, A42, A45: the privileged seat 2, with the joker on the board, is blocked for the first
    # time: home without winning, the joker leaves the board, the privileges pass to the
    # earliest current summiter (seat 0, with an unused joker) or stay vacant.
    g = new_game(4, seed=12)
    b = Builder(g)
    b.pit(sq(2, 6))
    g.move_pawn_to(2, sq(2, 6))
    b.put(JOKER, sq(2, 2))
    assert g.height(sq(2, 2)) == 3
    make_privileged(g, 2, joker="board")
    if seat0_summit:
        give_summit(g, 0)
    start_turn(g, 2)
    idle_piece_move(g)
    assert g.pawn(2) == 80 and not g.is_over and g.winner is None
    info = g.seat(2)
    assert info["blocks"] == 1 and info["summit"] == 0 and info["active"] == 1
    assert piece_square(g, JOKER) == -2 and g.height(sq(2, 2)) == 2
    assert JOKER not in g.stack(sq(2, 2))
    if seat0_summit:
        assert g.privileged == 0 and g.joker_state == "hand"
        assert g.current == 0 and turn_kind(g) == "extra"          # A54
    else:
        assert g.privileged is None and g.joker_state == "box"
        assert g.current == 3 and turn_kind(g) == "normal"


def _bivouac_position():
    g = new_game(2, seed=13)
    b = Builder(g)
    a, c = sq(2, 2), sq(2, 3)
    for n in nb(c):
        if n != a:
            b.set_height(n, 4)
    b.set_height(a, 2)
    b.set_height(c, 0)
    b.put(BIVOUAC, c, up=True)
    g.move_pawn_to(0, a)
    return g, a, c


def test_vector_12():
    # A35, A38: after landing on a face-up bivouac the pawn stays one turn (the piece move still
    # happens) and cannot be blocked then; on the turn after, with no move, it is blocked.
    g, a, c = _bivouac_position()
    idle_piece_move(g)
    assert c in pawn_actions(g)
    g.step(MovePawn(c))
    assert g.seat(0)["biv"] == 1
    finish_turn(g)                          # seat 1
    assert g.current == 0
    move_piece(g, junk_top(g), a, False)    # wall the pawn in with its own piece move
    assert g.pawn_moves(0) == []
    assert g.current == 1 and g.pawn(0) == c          # the stay: no pawn decision, no block
    assert g.seat(0)["blocks"] == 0 and g.seat(0)["biv"] == 0
    finish_turn(g)
    assert g.current == 0
    idle_piece_move(g)
    assert g.seat(0)["blocks"] == 1 and g.pawn(0) == 0


def test_vector_12_exposed():
    # A50, A35: a bivouac that becomes exposed under a pawn (the joker taken off it) does
    # nothing: no stay is pending and the pawn must move on its next turn.
    g = new_game(2, seed=14)
    b = Builder(g)
    c = sq(2, 2)
    b.set_height(c, 0)
    b.put(BIVOUAC, c, up=True)
    b.put(JOKER, c)
    b.pit(sq(2, 6))
    g.move_pawn_to(1, sq(2, 6))
    g.move_pawn_to(0, c)
    make_privileged(g, 1, joker="board")
    start_turn(g, 1)
    idle_piece_move(g)
    assert g.seat(1)["blocks"] == 1
    assert g.pawn(0) == c and g.height(c) == 2 and g.shown(c)[1] == "bivouac"
    assert g.seat(0)["biv"] == 0
    assert g.current == 0
    idle_piece_move(g)
    assert g.phase == "pawn" and "stay" not in pawn_actions(g)


@pytest.mark.parametrize("retire", [False, True])
def test_vector_13(retire):
    # A49, A42, A12(d): the walled-in holder places the joker as a rescue attempt that fails:
    # blocked in the same turn, the joker comes off at once, lock[2] = -1, and seat 0 (summit
    # status) becomes privileged, with the joker unused in hand (gone under retire).
    sw = {"joker_on_loss": "retire"} if retire else {}
    g = new_game(4, seed=15, **sw)
    b = Builder(g)
    b.pit(sq(2, 6))
    g.move_pawn_to(2, sq(2, 6))
    make_privileged(g, 2, joker="hand")
    give_summit(g, 0)
    start_turn(g, 2)
    assert "joker" in origins(g)
    g.step(Pick(reserve="joker"))
    target = sq(6, 4)
    h0 = g.height(target)
    assert (target, True) in dests(g)
    g.step(Place(target, True))
    info = g.seat(2)
    assert g.pawn(2) == 80 and info["blocks"] == 1 and info["summit"] == 0
    assert info["lock"] == -1
    assert piece_square(g, JOKER) == -2 and g.height(target) == h0
    assert g.privileged == 0
    assert g.joker_state == ("gone" if retire else "hand")


def test_vector_14():
    # A37, A50, A42: seat 1 stands on the joker, on a face-up chasm, on a cube (5 hu). The holder
    # is blocked; the joker comes off and seat 1 stays on the chasm at 4 hu, unblocked. On its
    # next turn it is checked like any pawn.
    g = new_game(4, seed=16)
    b = Builder(g)
    c = sq(2, 2)
    b.heights({n: 2 for n in nb(c)})
    b.set_height(sq(1, 2), 3)
    b.set_height(c, 2)
    b.put(CHASM[0], c, up=True)
    b.put(JOKER, c)
    assert g.height(c) == 5
    b.pit(sq(2, 6))
    g.move_pawn_to(2, sq(2, 6))
    g.move_pawn_to(1, c)
    make_privileged(g, 2, joker="board")
    start_turn(g, 2)
    idle_piece_move(g)
    assert g.seat(2)["blocks"] == 1
    assert g.pawn(1) == c and g.height(c) == 4 and g.shown(c) == (0, "chasm")
    assert g.seat(1)["blocks"] == 0 and g.seat(1)["active"] == 1
    assert g.current == 3
    finish_turn(g)
    finish_turn(g)
    assert g.current == 1
    idle_piece_move(g)
    assert pawn_actions(g) == {sq(1, 2)}


def test_vector_15():
    # A31, A51: on the only face-up cable car there is no ride; once a second one is turned
    # face up on an unoccupied square, the ride to it is offered (and taken).
    g = new_game(4, seed=17)
    b = Builder(g)
    s = sq(2, 2)
    b.set_height(s, 0)
    b.put(CABLE[0], s, up=True)
    b.put(CABLE[1], sq(6, 4))
    g.move_pawn_to(0, s)
    assert g.shown(s)[1] == "cable_car"
    far = sq(5, 7)
    assert far not in nb(s)
    h = clone(g)
    idle_piece_move(h)
    assert all(d in nb(s) for d in pawn_actions(h))
    assert g.current == 0
    g.step(Pick(square=sq(6, 4)))
    assert (far, True) in dests(g)
    g.step(Place(far, True))
    acts = pawn_actions(g)
    assert far in acts
    g.step(MovePawn(far))
    assert g.pawn(0) == far


def test_vector_16():
    # A34, A52, A35: step onto a face-up spring, spring-step onto a face-up bivouac: biv is set
    # and the next turn is a stay.
    g = new_game(2, seed=18)
    b = Builder(g)
    a, sp, bv = sq(2, 2), sq(2, 3), sq(2, 4)
    for s in (a, sp, bv):
        b.set_height(s, 0)
    b.set_height(a, 2)
    b.put(SPRING[0], sp, up=True)
    b.put(BIVOUAC, bv, up=True)
    g.move_pawn_to(0, a)
    idle_piece_move(g)
    g.step(MovePawn(sp))
    assert g.phase == "spring" and g.current == 0
    acts = pawn_actions(g)
    assert bv in acts and "stay" in acts and a in acts
    g.step(MovePawn(bv))
    assert g.pawn(0) == bv and g.seat(0)["biv"] == 1
    assert g.current == 1
    finish_turn(g)
    assert g.current == 0
    idle_piece_move(g)
    assert g.current == 1 and g.pawn(0) == bv and g.seat(0)["biv"] == 0


def test_vector_17():
    # A53, A44, A46: 4 players, seat 2 privileged, seat 1 eliminated: 3, 2*, 0, 2, 3, 2*, 0, 2.
    g = new_game(4, seed=19)
    make_privileged(g, 2)
    g.move_pawn_to(2, sq(2, 6))
    eliminate(g, 1)
    start_turn(g, 3)
    seq = run_turns(g, 8, {2: (sq(2, 6), sq(2, 7))})
    assert seq == [(3, "normal"), (2, "extra"), (0, "normal"), (2, "normal")] * 2


def test_vector_17_three_players():
    # A53: 3 players, seat 1 eliminated: 0, 2, 0, 2 with no extra turns.
    g = new_game(3, seed=20)
    make_privileged(g, 2)
    g.move_pawn_to(2, sq(2, 6))
    eliminate(g, 1)
    start_turn(g, 0)
    seq = run_turns(g, 6, {2: (sq(2, 6), sq(2, 7))})
    assert seq == [(0, "normal"), (2, "normal")] * 3


def test_vector_17_lone_seat():
    # A46, A53, A47: seat 2 alone plays every turn, no extra turns, until the cap.
    g = new_game(4, seed=21, max_turns=9)
    make_privileged(g, 2)
    g.move_pawn_to(2, sq(2, 6))
    for p in (0, 1, 3):
        eliminate(g, p)
    start_turn(g, 2)
    seq = run_turns(g, 20, {2: (sq(2, 6), sq(2, 7))})
    assert g.is_over and g.end_reason == "cap" and g.winner is None
    assert g.turn_count == 9
    assert set(seq) == {(2, "normal")} and len(seq) == 9 - 1


def test_vector_18():
    # A54, A42: seat 2 privileged, seat 0 with summit status; seat 2 blocked in its normal turn:
    # 2 (blocked), 0*, 3, 0, 1, 0*, 2, 0*, 3, 0.
    g = new_game(4, seed=22)
    b = Builder(g)
    b.pit(sq(2, 6))
    g.move_pawn_to(2, sq(2, 6))
    make_privileged(g, 2)
    g.move_pawn_to(0, sq(2, 2))
    give_summit(g, 0)
    start_turn(g, 2)
    seq = run_turns(g, 10, {0: (sq(2, 2), sq(2, 3))})
    assert g.seat(2)["blocks"] == 1 and g.pawn(2) == 80
    assert g.privileged == 0
    assert seq == [(2, "normal"), (0, "extra"), (3, "normal"), (0, "normal"), (1, "normal"),
                   (0, "extra"), (2, "normal"), (0, "extra"), (3, "normal"), (0, "normal")]


def test_vector_19():
    # A24, A55: a 16-piece square accepts no piece, its top may still be moved, and a pawn at
    # 31 or 32 hu next to it may step onto it.
    g = new_game(2, seed=23)
    b = Builder(g, spare_neighbours=False)
    A, B, C = sq(1, 3), sq(1, 2), sq(1, 4)
    b.area.update({A, B, C})
    b.set_height(A, 32)
    b.set_height(B, 31)
    b.set_height(C, 32)
    for s in (A, B, C):
        assert len(g.stack(s)) == 16
    assert g.height(A) == 32 and g.height(B) == 31
    g.move_pawn_to(0, B)
    assert g.current == 0
    assert A in origins(g) and C in origins(g)
    for o in (junk_top(g), "neutral"):
        d = dests_for(g, o)
        assert d and all(dd not in (A, B, C) for dd, _ in d)
    assert A in g.pawn_moves(0)              # 31 -> 32
    h = clone(g)
    h.move_pawn_to(0, C)
    assert A in h.pawn_moves(0)              # 32 -> 32
    h.move_pawn_to(0, A)
    assert {B, C} <= set(h.pawn_moves(0))    # 32 -> 31 and 32 -> 32
    idle_piece_move(g)
    assert A in pawn_actions(g)
    g.step(MovePawn(A))
    assert g.pawn(0) == A
