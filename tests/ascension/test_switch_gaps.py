"""RULES.md §5 switches at the edges the other switch tests leave open: each test here was
written against a wrong engine that the rest of the suite let through (a has-left-corner flag
that a block resets, a corner wait taken for a departure, an off-by-one stack cap, partners'
locks in the view, and so on)."""
from asc_helpers import (JOKER, Builder, MovePawn, PlaceJoker, S, Stay, bivouac_landing,
                         dests_for, give_summit, half, holder_blocked,
                         idle_piece_move, junk_top, make_privileged, move_piece, new_game,
                         origins, pawn_actions, piece_square, run_turns, sq, start_turn)
from sim.games.ascension.view import V_MOVABLE


def _tally(g, field, p=0):
    return int(g.state[field + p])


def _left_corner_then_blocked_home(**sw):
    """Seat 0's pawn really leaves its corner, is then blocked in a pit and sent home; the
    game is returned with the pawn back on corner 0 after that first block."""
    g = new_game(4, seed=101, **sw)
    b = Builder(g)
    b.set_height(sq(1, 1), 1)
    idle_piece_move(g)
    g.step(MovePawn(sq(1, 1)))
    assert g.seat(0)["left_corner"] == 1
    b.pit(sq(2, 4))
    g.move_pawn_to(0, sq(2, 4))
    start_turn(g, 0)
    idle_piece_move(g)
    assert g.seat(0)["blocks"] == 1 and g.pawn(0) == 0
    return g, b


def test_corner_unsafe_after_return_and_flag_set_by_spring_step():  # A39, A38, A52
    # A39: has_left_corner "is never reset", so with corner_safe_always = false a pawn that a
    # block sent home is no longer protected there: walled in, its second block eliminates it
    # (A38.3). The default keeps the corner safe for good (D12).
    g, b = _left_corner_then_blocked_home(corner_safe_always="false")
    assert g.seat(0)["left_corner"] == 1
    b.set_height(sq(1, 1), 2)
    start_turn(g, 0)
    idle_piece_move(g)
    assert g.seat(0)["blocks"] == 2 and g.seat(0)["active"] == 0 and g.pawn(0) is None
    g, b = _left_corner_then_blocked_home()
    b.set_height(sq(1, 1), 2)
    start_turn(g, 0)
    idle_piece_move(g)
    assert g.seat(0)["blocks"] == 1 and g.seat(0)["active"] == 1 and g.pawn(0) == 0
    # A39 counts any move off the corner, and A52 makes a spring step a full move. Legal play
    # never starts a spring step on the own corner (A25: a corner never shows a spring), so
    # the spring decision is set up directly.
    g = new_game(4, seed=102, corner_safe_always="false")
    Builder(g).set_height(sq(1, 1), 1)
    idle_piece_move(g)
    assert g.phase == "pawn" and g.pawn(0) == 0
    g.set(S.G_PHASE, S.PHASE_SPRING)
    assert pawn_actions(g) == {sq(1, 1), "stay"}
    g.step(MovePawn(sq(1, 1)))
    assert g.pawn(0) == sq(1, 1) and _tally(g, S.T_SPRING_STEPS) == 1
    assert g.seat(0)["left_corner"] == 1


def test_corner_wait_is_not_leaving_and_stay_only_on_own_corner():  # A28, A39
    # A39's flag is set by moving off the corner; a corner wait (A28, corner_may_wait) moves
    # nothing, so the corner stays safe even with corner_safe_always = false.
    g = new_game(4, seed=103, corner_may_wait="true", corner_safe_always="false")
    b = Builder(g)
    b.set_height(sq(1, 1), 1)
    idle_piece_move(g)
    assert pawn_actions(g) == {sq(1, 1), "stay"}
    g.step(Stay())
    assert g.pawn(0) == 0 and g.seat(0)["left_corner"] == 0
    b.set_height(sq(1, 1), 2)
    start_turn(g, 0)
    idle_piece_move(g)
    assert g.seat(0)["blocks"] == 0 and g.pawn(0) == 0 and g.current == 1
    # A28's exception is the pawn's own corner only: summit status elsewhere earns no wait.
    g = new_game(4, seed=103, corner_may_wait="true")
    b = Builder(g)
    b.set_height(sq(2, 2), 2)
    g.move_pawn_to(0, sq(2, 2))
    give_summit(g, 0)
    idle_piece_move(g)
    acts = pawn_actions(g)
    assert acts and "stay" not in acts


def test_stay_and_privilege_pass_tallies():  # A35, A28, A42
    # §6 Q3/Q5 records: T_BIVOUAC_STAYS counts the turns a bivouac kept the pawn still,
    # forced (A35) or chosen (D23); T_CORNER_WAITS counts corner waits (A28) and only those;
    # G_PRIV_PASSES counts hand-overs of the privileges to a new holder (A42).
    g, _, a, c = bivouac_landing()
    assert _tally(g, S.T_BIVOUAC_STAYS) == 0
    idle_piece_move(g)                         # the forced stay: no pawn decision
    assert g.current == 1 and g.pawn(0) == c
    assert _tally(g, S.T_BIVOUAC_STAYS) == 1
    g, _, a, c = bivouac_landing(bivouac_mode="optional")
    idle_piece_move(g)
    g.step(Stay())
    assert g.pawn(0) == c and _tally(g, S.T_BIVOUAC_STAYS) == 1
    assert _tally(g, S.T_CORNER_WAITS) == 0
    g, _, a, c = bivouac_landing(bivouac_mode="optional")
    idle_piece_move(g)
    g.step(MovePawn(a))
    assert g.pawn(0) == a and _tally(g, S.T_BIVOUAC_STAYS) == 0
    g = new_game(4, seed=103, corner_may_wait="true")
    Builder(g).set_height(sq(1, 1), 1)
    idle_piece_move(g)
    g.step(Stay())
    assert _tally(g, S.T_CORNER_WAITS) == 1 and _tally(g, S.T_BIVOUAC_STAYS) == 0
    # the privileged seat 2 is blocked while seat 0 holds summit status (earliest_holder)
    g, _ = holder_blocked()
    assert g.privileged == 0
    assert int(g.state[S.G_PRIV_LOSSES]) == 1 and int(g.state[S.G_PRIV_PASSES]) == 1


def test_view_movable_frees_partner_lock_only_with_partnership():  # A48, A12
    # A12(d), A48: a partner's lock does not bind, so the view's A12 answer (V_MOVABLE) at
    # seat 0's locked piece is 1 for its partner seat 2 only; without partnership it binds all.
    for partnership, expected in (("true", [0, 1, 0]), ("false", [0, 0, 0])):
        g = new_game(4, seed=104, partnership=partnership)
        run_turns(g, 1)
        x = g.seat(0)["lock"]
        where = piece_square(g, x)
        assert x >= 0 and g.top(where) == x and g.current == 1
        assert [int(g.view(q)[V_MOVABLE + where]) for q in (1, 2, 3)] == expected
        assert where not in origins(g)             # the engine agrees for seat 1


def test_default_max_stack_open_at_15_pieces_full_at_16():  # A24, A55
    # A24 with the default cap 16 (D34): 15 pieces leave room for one more, 16 are full.
    # Test vector 19: the full square's top may still be moved.
    g = new_game(4, seed=105)
    b = Builder(g)
    s = sq(2, 4)
    b.set_height(s, 30)
    assert len(g.stack(s)) == 15
    assert s in {d for d, _ in dests_for(g, junk_top(g))}
    g.move_piece_to(b.take_cube(), s, False)
    assert len(g.stack(s)) == 16 and g.height(s) == 32
    assert s not in {d for d, _ in dests_for(g, junk_top(g))}
    assert s in origins(g)


def test_extra_joker_goes_onto_a_pawn_only_without_pins():  # A41, A21, A57
    # A41: the joker follows A21 and its switch also when it is placed after the ordinary
    # piece move (joker_extra_move, A57); with pins off the pawn rides on it (D3).
    for pins, allowed in (("false", True), ("true", False)):
        g = new_game(4, seed=106, joker_extra_move="true", pawn_pins_stack=pins)
        make_privileged(g, 0, joker="hand")
        g.move_pawn_to(0, sq(2, 2))
        g.move_pawn_to(1, sq(2, 6))
        start_turn(g, 0)
        idle_piece_move(g)
        assert g.phase == "joker"
        acts = g.legal_actions()
        assert PlaceJoker(sq(4, 7)) in acts
        assert (PlaceJoker(sq(2, 6)) in acts) == allowed
        if allowed:
            h = g.height(sq(2, 6))
            g.step(PlaceJoker(sq(2, 6)))
            assert g.top(sq(2, 6)) == JOKER and g.pawn(1) == sq(2, 6)
            assert g.height(sq(2, 6)) == h + 1


def test_corner_place_anyone_leaves_the_shape_gate_on_a_started_corner():  # A23, A25
    # corner_place_anyone (D10) opens only a *bare* corner: once the corner shows a shape,
    # A23 holds as usual. Corner 0 shows star (a star half-cube): triangle may not place a
    # face-up star-triangle cube there; star may.
    g = new_game(4, seed=107, corner_place_anyone="true")
    b = Builder(g)
    g.move_pawn_to(0, sq(2, 2))
    b.put(half(0, True), 0)
    b.put(44, sq(6, 2))                        # star-triangle, face down
    start_turn(g, 1)
    d = dests_for(g, sq(6, 2))
    assert (sq(3, 5), True) in d and (0, True) not in d
    start_turn(g, 0)
    assert (0, True) in dests_for(g, sq(6, 2))


def test_extra_joker_offered_after_a_reserve_half_placement():  # A57, A13
    # A57: the extra joker follows *any* ordinary piece move, and a reserve half-cube is one
    # (A13); the lock keeps naming that half-cube after the joker goes down.
    for kind, shaped in (("neutral", False), ("shaped", True)):
        g = new_game(4, seed=108, joker_extra_move="true")
        make_privileged(g, 1, joker="hand")
        g.move_pawn_to(1, sq(2, 6))
        start_turn(g, 1)
        move_piece(g, kind, sq(6, 4), True)
        x = half(1, shaped)
        assert piece_square(g, x) == sq(6, 4) and g.seat(1)["lock"] == x
        assert g.phase == "joker" and g.current == 1
        g.step(PlaceJoker(sq(4, 7)))
        assert g.joker_state == "board" and g.seat(1)["lock"] == x
