"""RULES.md §5: every switch and balance knob changes the behaviour it names, and bad names or
values fail with RuleError naming the switch."""
import pytest

from asc_helpers import (JOKER, LADDER, MATTRESS, SPRING, Builder, MovePawn, PlaceJoker,
                         RuleError, S, Stay, bivouac_landing, build_rules, dests_for, eliminate,
                         give_summit, half, holder_blocked, idle_piece_move,
                         junk_top, make_privileged, move_piece, nb, new_game, origins,
                         pawn_actions, piece_square, run_turns, sq, start_turn, turn_kind)
from sim.games.ascension.rules import KNOBS, SWITCHES, default_values


# ------------------------------------------------------------------ validation

def test_every_spec_switch_exists_with_its_default():
    # §5: the switch names and their defaults (default first).
    expected = {
        "two_player_corners": "opposite", "pawn_pins_stack": "true",
        "allow_flip_in_place": "false", "corner_place_anyone": "false",
        "corner_safe_always": "true", "corner_may_wait": "false",
        "pillar_piece_movable": "true", "mattress_mode": "onto", "spring_bonus": "step",
        "bivouac_mode": "forced", "joker_extra_move": "false", "joker_on_loss": "pass",
        "privilege_transfer": "earliest_holder", "privilege_reclaimable": "true",
        "extra_turn_block_permanent": "false", "last_pawn_wins": "false",
        "partnership": "false", "pillar_hidden_special": "allow",
        "extra_turns_enabled": "true", "joker_enabled": "true", "specials_enabled": "all",
        "reserve_shaped": 2, "reserve_neutral": 2, "max_stack": 16}
    for players in (2, 3, 4):
        values = default_values(players)
        for name, value in expected.items():
            assert values[name] == value, name
        assert values["max_turns"] == 200 * players           # D33


BAD_VALUES = {
    "two_player_corners": "diagonal", "pawn_pins_stack": "maybe", "allow_flip_in_place": "2",
    "corner_place_anyone": "yes", "corner_safe_always": "never", "corner_may_wait": "x",
    "pillar_piece_movable": "no", "mattress_mode": "under", "spring_bonus": "double",
    "bivouac_mode": "sometimes", "joker_extra_move": "1", "joker_on_loss": "keep",
    "privilege_transfer": "random", "privilege_reclaimable": "perhaps",
    "extra_turn_block_permanent": "y", "last_pawn_wins": "n", "max_turns": "many",
    "max_stack": "tall", "partnership": "team", "pillar_hidden_special": "deny",
    "extra_turns_enabled": "off", "joker_enabled": "off", "specials_enabled": "dragon",
    "reserve_shaped": "two", "reserve_neutral": "none"}


@pytest.mark.parametrize("name", sorted(BAD_VALUES))
def test_bad_value_names_the_switch(name):
    # §5: a bad value fails with RuleError naming the switch.
    assert name in SWITCHES or name in KNOBS
    with pytest.raises(RuleError, match=name):
        build_rules(4, {name: BAD_VALUES[name]})


@pytest.mark.parametrize("name, value", [
    ("max_turns", 0), ("max_stack", 0), ("max_stack", 33), ("reserve_shaped", 3),
    ("reserve_neutral", -1)])
def test_out_of_range_numbers(name, value):
    with pytest.raises(RuleError, match=name):
        build_rules(4, {name: value})


def test_unknown_switch_and_bad_players():
    with pytest.raises(RuleError, match="no_such_switch"):
        build_rules(4, {"no_such_switch": "true"})
    with pytest.raises(RuleError):
        build_rules(5)
    with pytest.raises(RuleError, match="partnership"):          # A48: 4 players only
        build_rules(2, {"partnership": "true"})
    with pytest.raises(RuleError, match="max_stack"):
        new_game(4, max_stack=99)


@pytest.mark.parametrize("name", sorted(BAD_VALUES))
def test_every_alternative_value_is_accepted(name):
    allowed = (SWITCHES.get(name) or KNOBS.get(name))[0]
    if allowed == "int":
        value = 5 if name == "max_turns" else 1
    elif allowed == "symbols":
        value = "ladder,spring"
    else:
        value = allowed[-1]
    r = build_rules(4, {name: value})
    assert name in r.changed()


# ------------------------------------------------------------------ behaviour

def test_two_player_corners():
    # D1, A1: opposite (default) puts seat 1 on corner 2 (square); adjacent on corner 1.
    g = new_game(2, seed=1)
    assert g.pawn(1) == 80 and piece_square(g, half(2, True)) == -1
    assert piece_square(g, half(1, True)) == -2
    g = new_game(2, seed=1, two_player_corners="adjacent")
    assert g.pawn(1) == 8 and piece_square(g, half(1, True)) == -1
    assert piece_square(g, half(2, True)) == -2


def _pawn_on_stack(**sw):
    g = new_game(4, seed=2, **sw)
    b = Builder(g)
    s = sq(2, 4)
    b.heights({n: 4 for n in nb(s)})
    b.set_height(s, 4)
    g.move_pawn_to(1, s)
    return g, s


def test_pawn_pins_stack():
    # D3, A12(b), A21, A37, A50: by default a pawn's square neither loses nor gains pieces;
    # with false, both happen and the pawn drops or rides.
    g, s = _pawn_on_stack()
    assert s not in origins(g)
    assert all(d != s for d, _ in dests_for(g, junk_top(g)))
    g, s = _pawn_on_stack(pawn_pins_stack="false")
    assert s in origins(g)
    move_piece(g, s, sq(6, 6), False)
    assert g.pawn(1) == s and g.height(s) == 2          # it dropped with the stack
    start_turn(g, 0)
    assert (s, False) in dests_for(g, junk_top(g))
    move_piece(g, junk_top(g), s, False)
    assert g.pawn(1) == s and g.height(s) == 4           # it rides on top


def test_pawn_pins_stack_joker_on_a_pawn():
    # A41, D3: the joker follows A21 and its switch.
    for pins, allowed in (("true", False), ("false", True)):
        g = new_game(4, seed=3, pawn_pins_stack=pins)
        make_privileged(g, 0, joker="hand")
        g.move_pawn_to(0, sq(2, 2))
        g.move_pawn_to(1, sq(2, 6))
        assert ((sq(2, 6), True) in dests_for(g, "joker")) == allowed


def test_allow_flip_in_place():
    # D4, A20, A56: by default a piece never returns to its square; with true, a drawn cube
    # may be turned over in place.
    g = new_game(4, seed=4)
    b = Builder(g)
    b.put(LADDER[0], sq(6, 2))
    assert all(d != sq(6, 2) for d, _ in dests_for(g, sq(6, 2)))
    g = new_game(4, seed=4, allow_flip_in_place="true")
    b = Builder(g)
    b.put(LADDER[0], sq(6, 2))
    assert (sq(6, 2), True) in dests_for(g, sq(6, 2))


def test_corner_place_anyone():
    # D10, A23, A25: with true, anyone may start a bare corner, still only with a piece that
    # shows the corner's shape.
    for anyone, allowed in (("false", False), ("true", True)):
        g = new_game(4, seed=5, corner_place_anyone=anyone)
        b = Builder(g)
        g.move_pawn_to(0, sq(2, 2))
        b.put(44, sq(6, 2))                 # ★▲
        b.put(38, sq(6, 3))                 # ▲
        start_turn(g, 1)
        d = dests_for(g, sq(6, 2))
        assert ((0, True) in d) == allowed
        assert (0, False) not in d
        assert all(dd != 0 for dd, _ in dests_for(g, sq(6, 3)))


def test_corner_safe_always():
    # D12, A39, A38: with false a pawn that has left its corner may be blocked on it, and then
    # simply stays there; a pawn that never left is still safe.
    g = new_game(4, seed=6, corner_safe_always="false")
    idle_piece_move(g)
    assert g.seat(0)["blocks"] == 0                      # never left
    start_turn(g, 0)
    g.set(S.S_LEFT_CORNER + 0, 1)
    idle_piece_move(g)
    assert g.seat(0)["blocks"] == 1 and g.pawn(0) == 0
    g = new_game(4, seed=6)
    g.set(S.S_LEFT_CORNER + 0, 1)
    idle_piece_move(g)
    assert g.seat(0)["blocks"] == 0


def test_corner_safe_always_flag_set_on_leaving():
    # A39: has_left_corner becomes true the first time the pawn moves off its corner.
    g = new_game(4, seed=7, corner_safe_always="false")
    b = Builder(g)
    b.set_height(sq(1, 1), 1)
    assert g.seat(0)["left_corner"] == 0
    idle_piece_move(g)
    g.step(MovePawn(sq(1, 1)))
    assert g.seat(0)["left_corner"] == 1


def test_corner_may_wait():
    # D13, A28: with true a pawn on its own corner may stay even with a legal move.
    for wait in ("false", "true"):
        g = new_game(4, seed=8, corner_may_wait=wait)
        b = Builder(g)
        b.set_height(sq(1, 1), 1)
        idle_piece_move(g)
        acts = pawn_actions(g)
        assert sq(1, 1) in acts
        assert ("stay" in acts) == (wait == "true")
        if wait == "true":
            g.step(Stay())
            assert g.pawn(0) == 0 and g.current == 1
    g = new_game(4, seed=8, corner_may_wait="true")          # elsewhere: no stay
    b = Builder(g)
    b.set_height(sq(2, 2), 2)
    g.move_pawn_to(0, sq(2, 2))
    idle_piece_move(g)
    assert "stay" not in pawn_actions(g)


def test_pillar_piece_movable():
    # D17, A12(e): with false the pillar piece stays for good.
    for movable in ("true", "false"):
        g = new_game(4, seed=9, pillar_piece_movable=movable)
        b = Builder(g)
        b.put(b.take_cube(), S.PILLAR)
        assert (S.PILLAR in origins(g)) == (movable == "true")


def test_mattress_mode():
    # D20, A30: onto (default) = 2-hu drop landing on a mattress; from = 2-hu drop leaving one.
    def position(mode, on_mattress):
        g = new_game(4, seed=10, mattress_mode=mode)
        b = Builder(g)
        s = sq(2, 4)
        b.heights({n: 0 for n in nb(s)})
        b.set_height(s, 2)
        if on_mattress:
            b.put(MATTRESS[0], s, up=True)  # pawn at 4 on a mattress
        else:
            b.put(3, s)                     # pawn at 4 on a plain cube
        b.set_height(sq(1, 4), 0)
        b.put(MATTRESS[1] if not on_mattress else 5, sq(1, 4), up=not on_mattress)
        g.move_pawn_to(0, s)
        return g
    assert sq(1, 4) in position("onto", False).pawn_moves(0)
    assert sq(1, 4) not in position("onto", True).pawn_moves(0)
    assert sq(1, 4) not in position("from", False).pawn_moves(0)
    assert sq(1, 4) in position("from", True).pawn_moves(0)


def _spring_position(**sw):
    g = new_game(4, seed=11, **sw)
    b = Builder(g)
    a, sp, sp2 = sq(3, 1), sq(3, 2), sq(2, 2)
    b.heights({sp: 0, sp2: 0})
    b.put(SPRING[0], sp, up=True)
    b.put(SPRING[1], sp2, up=True)
    make_privileged(g, 2)
    g.move_pawn_to(2, sq(2, 6))
    g.move_pawn_to(3, a)
    start_turn(g, 3)
    return g, a, sp, sp2


def test_spring_bonus_step_default():
    # D21, A34: by default the spring gives one optional step in the same turn.
    g, a, sp, sp2 = _spring_position()
    idle_piece_move(g)
    g.step(MovePawn(sp))
    assert g.phase == "spring" and g.current == 3


def test_spring_bonus_full_turn():
    # D21: full_turn: a complete bonus turn for the same seat, before the A44 extra-turn check,
    # counted by turn_count, earning no further bonus.
    g, a, sp, sp2 = _spring_position(spring_bonus="full_turn")
    t0 = g.turn_count
    idle_piece_move(g)
    g.step(MovePawn(sp))
    assert g.current == 3 and turn_kind(g) == "bonus" and g.phase == "origin"
    assert g.turn_count == t0 + 1
    idle_piece_move(g)
    g.step(MovePawn(sp2))                   # onto another spring in the bonus turn
    assert g.current == 2 and turn_kind(g) == "extra"     # no second bonus; then A44
    seq = run_turns(g, 2, {2: (sq(2, 6), sq(2, 7))})
    assert seq == [(2, "extra"), (0, "normal")]


def test_bivouac_mode():
    # D23, A35: forced (default): no pawn decision on the stay turn; optional: move or stay.
    g, b, a, c = bivouac_landing()
    idle_piece_move(g)
    assert g.current == 1 and g.pawn(0) == c
    g, b, a, c = bivouac_landing(bivouac_mode="optional")
    idle_piece_move(g)
    acts = pawn_actions(g)
    assert "stay" in acts and a in acts
    g.step(MovePawn(a))
    assert g.pawn(0) == a and g.seat(0)["biv"] == 0


def test_bivouac_optional_never_blocked():
    # D23: optional mode: with no move on the stay turn the pawn is not blocked.
    g, b, a, c = bivouac_landing(bivouac_mode="optional")
    b.heights({n: 6 for n in nb(c)})
    idle_piece_move(g)
    assert g.current == 1 and g.seat(0)["blocks"] == 0 and g.pawn(0) == c


def test_joker_extra_move_switch():
    # D26, A13, A57: default: the joker is a piece move of its own and no joker decision follows
    # a piece move; true: it follows the ordinary piece move.
    g = new_game(4, seed=13)
    make_privileged(g, 1, joker="hand")
    g.move_pawn_to(1, sq(2, 6))
    start_turn(g, 1)
    assert "joker" in origins(g)
    idle_piece_move(g)
    assert g.phase == "pawn"
    g = new_game(4, seed=13, joker_extra_move="true")
    make_privileged(g, 1, joker="hand")
    g.move_pawn_to(1, sq(2, 6))
    start_turn(g, 1)
    idle_piece_move(g)
    assert g.phase == "joker"
    acts = g.legal_actions()
    assert all(isinstance(a, (PlaceJoker, Stay)) for a in acts)
    g.step(PlaceJoker(sq(4, 7)))
    assert g.joker_state == "board" and g.top(sq(4, 7)) == JOKER
    assert g.phase == "pawn"


def test_joker_on_loss():
    # D28, A42: pass -> the new holder receives the joker; retire -> it is gone.
    g, _ = holder_blocked()
    assert g.privileged == 0 and g.joker_state == "hand"
    g, _ = holder_blocked(joker_on_loss="retire")
    assert g.privileged == 0 and g.joker_state == "gone"


def _arrive(g, b, p, n=sq(3, 4)):
    b.set_height(n, 8)
    g.move_pawn_to(p, n)
    start_turn(g, p)
    idle_piece_move(g)
    g.step(MovePawn(S.PILLAR))


def test_privilege_transfer_next_arrival():
    # D29, A42: next_arrival ignores seats already on the way down; the next arrival takes them.
    g, b = holder_blocked(privilege_transfer="next_arrival")
    assert g.privileged is None and g.joker_state == "box"
    _arrive(g, b, 3)
    assert g.privileged == 3 and g.joker_state == "hand"


def test_privilege_transfer_none():
    # D29, A42, A40: none: the privileges vanish for good.
    g, b = holder_blocked(privilege_transfer="none")
    assert g.privileged is None and int(g.state[S.G_PRIV_DEAD]) == 1
    _arrive(g, b, 3)
    assert g.seat(3)["summit"] == 1 and g.privileged is None and g.joker_state == "box"


def test_privilege_reclaimable():
    # D29, A40, A42: with false a seat that lost the privileges cannot win them back, and
    # earliest_holder skips it.
    for reclaim in ("true", "false"):
        g = new_game(4, seed=15, privilege_reclaimable=reclaim)
        b = Builder(g)
        b.pit(sq(2, 6))
        g.move_pawn_to(2, sq(2, 6))
        make_privileged(g, 2)
        start_turn(g, 2)
        idle_piece_move(g)
        assert g.privileged is None
        _arrive(g, b, 2)
        assert g.privileged == (2 if reclaim == "true" else None)
    g = new_game(4, seed=16, privilege_reclaimable="false")
    b = Builder(g)
    b.pit(sq(2, 6))
    g.move_pawn_to(2, sq(2, 6))
    make_privileged(g, 2)
    give_summit(g, 1)
    g.set(S.S_LOST_PRIV + 1, 1)              # barred
    give_summit(g, 3)
    start_turn(g, 2)
    idle_piece_move(g)
    assert g.privileged == 3


def test_extra_turn_block_permanent():
    # D30, A44: a summiter who has been blocked since stops F's extra turns only with true.
    for permanent, expected in (("false", [(1, "normal"), (3, "extra"), (2, "normal")]),
                                ("true", [(1, "normal"), (2, "normal")])):
        g = new_game(4, seed=17, extra_turn_block_permanent=permanent)
        make_privileged(g, 3)
        g.move_pawn_to(3, sq(2, 6))
        g.set(S.S_EVER_SUMMIT + 1, 1)           # seat 1 reached the summit and was blocked
        start_turn(g, 1)
        seq = run_turns(g, len(expected), {3: (sq(2, 6), sq(2, 7))})
        assert seq == expected


def test_last_pawn_wins():
    # D32, A46: by default the last active seat plays on; with true it wins at once.
    for last, over in (("false", False), ("true", True)):
        g = new_game(3, seed=18, last_pawn_wins=last)
        b = Builder(g)
        b.pit(sq(2, 4))
        eliminate(g, 2)
        g.move_pawn_to(1, sq(2, 4))
        g.set(S.S_BLOCKS + 1, 1)
        start_turn(g, 1)
        idle_piece_move(g)
        assert g.seat(1)["active"] == 0
        assert g.is_over == over
        if over:
            assert g.winner == 0 and g.end_reason == "win"
        else:
            assert g.current == 0


def test_max_turns():
    # D33, A47: the cap counts every turn.
    g = new_game(2, seed=19, max_turns=3)
    run_turns(g, 10)
    assert g.is_over and g.end_reason == "cap" and g.turn_count == 3
    g = new_game(2, seed=19)
    run_turns(g, 10)
    assert not g.is_over and g.turn_count == 11


def test_max_stack():
    # D34, A24: a square holding max_stack pieces accepts none.
    g = new_game(4, seed=20, max_stack=3)
    b = Builder(g)
    b.set_height(sq(2, 4), 6)
    b.set_height(sq(2, 5), 4)
    d = {dd for dd, _ in dests_for(g, junk_top(g))}
    assert sq(2, 4) not in d and sq(2, 5) in d
    g = new_game(4, seed=20)
    b = Builder(g)
    b.set_height(sq(2, 4), 6)
    assert sq(2, 4) in {dd for dd, _ in dests_for(g, junk_top(g))}


def test_pillar_hidden_special_switch():
    # D38, A59: allow (default) lets a face-down ladder raise the pillar; bar does not.
    for mode, ok in (("allow", True), ("bar", False)):
        g = new_game(4, seed=21, pillar_hidden_special=mode)
        b = Builder(g)
        b.put(LADDER[0], sq(6, 2))
        assert ((S.PILLAR, False) in dests_for(g, sq(6, 2))) == ok


def test_extra_turns_enabled():
    # §5 knob, A44: false removes the extra turns.
    g = new_game(4, seed=22, extra_turns_enabled="false")
    make_privileged(g, 2)
    g.move_pawn_to(2, sq(2, 6))
    start_turn(g, 3)
    seq = run_turns(g, 5, {2: (sq(2, 6), sq(2, 7))})
    assert seq == [(3, "normal"), (0, "normal"), (1, "normal"), (2, "normal"), (3, "normal")]


def test_joker_enabled():
    # §5 knob, A5, A40: false: the joker is GONE from setup; the first summiter still gets the
    # extra turns but no joker.
    g = new_game(4, seed=23, joker_enabled="false")
    assert g.joker_state == "gone"
    b = Builder(g)
    _arrive(g, b, 0)
    assert g.privileged == 0 and g.joker_state == "gone"
    start_turn(g, 0)
    assert "joker" not in origins(g)


def test_specials_enabled():
    # §5 knob, A36: a disabled special is a neutral cube (no face to show).
    g = new_game(4, seed=24, specials_enabled="spring")
    b = Builder(g)
    b.put(LADDER[0], sq(6, 2))
    b.put(SPRING[0], sq(6, 3))
    assert {up for _, up in dests_for(g, sq(6, 2))} == {False}       # neutral: face down only
    assert {up for _, up in dests_for(g, sq(6, 3))} == {False, True}
    g = new_game(4, seed=24)
    b = Builder(g)
    b.put(LADDER[0], sq(6, 2))
    assert {up for _, up in dests_for(g, sq(6, 2))} == {False, True}
    g = new_game(4, seed=25, specials_enabled="none")
    b = Builder(g)
    s = sq(2, 4)
    b.set_height(s, 2)
    b.put(LADDER[0], s, up=True)            # forced face up: shows nothing when disabled
    assert g.shown(s) == (0, "none")


@pytest.mark.parametrize("shaped, neutral", [(0, 2), (1, 0), (2, 1)])
def test_reserve_sizes(shaped, neutral):
    # §5 knobs, A4: reserve sizes; the halves not dealt are out of play.
    g = new_game(4, seed=26, reserve_shaped=shaped, reserve_neutral=neutral)
    for p in range(4):
        info = g.seat(p)
        assert info["res_shaped"] == shaped and info["res_neutral"] == neutral
        for j in range(2):
            assert piece_square(g, half(p, True, j)) == (-1 if j < shaped else -2)
            assert piece_square(g, half(p, False, j)) == (-1 if j < neutral else -2)
    o = origins(g)
    assert ("shaped" in o) == (shaped > 0)
    assert ("neutral" in o) == (neutral > 0)


@pytest.mark.parametrize("value, words", [
    ("", "unknown symbol ''"), (",", "unknown symbol ''"), ("ladder,", "unknown symbol ''"),
    ("ladder,ladder", "'ladder' is listed twice")])
def test_an_empty_or_repeated_special_is_refused(value, words):
    # '' (a --rule specials_enabled= cut short) had turned every special off without a word
    with pytest.raises(RuleError, match=f"specials_enabled: {words}"):
        build_rules(4, {"specials_enabled": value})
