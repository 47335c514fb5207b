"""Rounds, the end check and final scoring (F26, F53, F58-F63, F127); `play_game` plays a
set-up game to its end; `play` is the engine's one entry point from other compiled code.
"""
from sim.core.bits import popcount
from sim.core.jit import njit_noalloc
from sim.games.first_ascent.data import (
    MAX_GROUP, SETUP_PITCHES_TO_END, T_PO_GROUPED, T_PO_GROUPS, T_PO_MASK, T_PO_NGROUPS,
    T_PO_POINTS, T_SETUP)
from sim.games.first_ascent.engine.board import legal_destinations
from sim.games.first_ascent.engine.common import INF, add_score, hex_row, n_players
from sim.games.first_ascent.engine.objectives import route_tiles
from sim.games.first_ascent.engine.setup import deal_starting_hands
from sim.games.first_ascent.engine.turn import follow_phase, play_turn, rerack
from sim.games.first_ascent.memory import (
    SEGMENT_CHECKPOINT, SEGMENT_DEALING, SEGMENT_FIRST, SEGMENT_TURN_SEAT)
from sim.games.first_ascent.rules import C_CALL_IT_PITCHES, C_ROUND_CAP, C_STRANDED_PLAY_ON
from sim.games.first_ascent.state import (
    END_EIGHT_PITCHES, END_POLICY_ERROR, END_ROUND_CAP, END_STRANDED, G_CURRENT, G_DECISIONS,
    G_END_REASON, G_FIRST, G_HEADWALL_UP, G_N_WINNERS, G_OVER, G_POLICY_ERROR, G_ROUND,
    G_STRANDED_END, G_WINNER, SEAT_FIELDS, STATE_SIZE, S_PERM_GAINED, S_PERSONAL, S_PERSONAL_SCORED, S_ROUTE, S_ROUTE_N,
    S_SCORE, S_SC_PERSONAL, T_STRANDED)


@njit_noalloc
def anyone_can_move(st, t):
    for seat in range(n_players(st)):
        if legal_destinations(st, t, seat) != 0:
            return True
    return False


@njit_noalloc
def begin_segment(st, ag, dealing):
    """The checkpoint a search bot resumes from (memory.py, SEGMENT_*): the state as the deal
    (dealing=1) or a round (0) begins; `ask` then lists the segment's decisions."""
    work = ag[4]
    work[SEGMENT_FIRST] = st[G_DECISIONS]
    work[SEGMENT_DEALING] = dealing
    work[SEGMENT_TURN_SEAT] = -1
    for i in range(STATE_SIZE):
        work[SEGMENT_CHECKPOINT + i] = st[i]


@njit_noalloc
def play_round(st, t, ag):
    P = n_players(st)
    work = ag[4]
    for k in range(P):                                           # Climb phase
        seat = (st[G_FIRST] + k) % P
        st[G_CURRENT] = seat
        work[SEGMENT_TURN_SEAT] = seat
        play_turn(st, t, ag, seat)
        if st[G_POLICY_ERROR] != 0:
            return
    work[SEGMENT_TURN_SEAT] = -1
    if st[G_HEADWALL_UP] == 0:                                   # F14
        for seat in range(P):
            base = seat * SEAT_FIELDS
            for i in range(st[S_ROUTE_N + base]):
                if hex_row(st, t, st[S_ROUTE + base + i]) >= 3:
                    st[G_HEADWALL_UP] = 1
    follow_phase(st, t, ag)
    for seat in range(P):                                        # F53 (F37: 8 hexes)
        if st[S_ROUTE_N + seat * SEAT_FIELDS] >= t[T_SETUP + SETUP_PITCHES_TO_END]:
            end_game(st, t, END_EIGHT_PITCHES)
            return
    if t[C_STRANDED_PLAY_ON] == 0 and not anyone_can_move(st, t):   # F127
        st[G_STRANDED_END] = 1
        end_game(st, t, END_STRANDED)
        return
    if st[G_ROUND] >= t[C_ROUND_CAP]:                            # Decision 19
        end_game(st, t, END_ROUND_CAP)
        return
    rerack(st, t, ag)
    st[G_ROUND] += 1


@njit_noalloc
def personal_objective_points(st, t, seat, po):
    """F60, F105, F129: 3 distinct listed pitches (card 3: distinct route words)."""
    tiles = route_tiles(st, seat)
    if t[T_PO_GROUPED + po] != 0 and t[C_CALL_IT_PITCHES] == 0:
        hit = 0
        for g in range(t[T_PO_NGROUPS + po]):
            if tiles & t[T_PO_GROUPS + MAX_GROUP * po + g]:
                hit += 1
    else:
        hit = popcount(tiles & t[T_PO_MASK + po])
    return t[T_PO_POINTS + po] if hit >= 3 else 0


@njit_noalloc
def end_game(st, t, reason):
    """F58-F63: personal objectives, then the winner (ties: most permanent tokens gained;
    a remaining tie is shared: G_WINNER is the bitmask of winning seats)."""
    P = n_players(st)
    for seat in range(P):
        base = seat * SEAT_FIELDS
        best = 0
        best_po = 0
        for i in range(2):
            po = st[S_PERSONAL + base + i]
            pts = personal_objective_points(st, t, seat, po)
            if pts > best:
                best = pts
                best_po = po
        if best > 0:
            add_score(st, seat, S_SC_PERSONAL, best)
            st[S_PERSONAL_SCORED + base] = best_po
        if legal_destinations(st, t, seat) == 0:
            st[T_STRANDED + seat] = 1
    top = -INF
    for seat in range(P):
        base = seat * SEAT_FIELDS
        key = st[S_SCORE + base] * 100 + st[S_PERM_GAINED + base]
        if key > top:
            top = key
    winners = 0
    count = 0
    for seat in range(P):
        base = seat * SEAT_FIELDS
        if st[S_SCORE + base] * 100 + st[S_PERM_GAINED + base] == top:
            winners |= 1 << seat
            count += 1
    st[G_WINNER] = winners
    st[G_N_WINNERS] = count
    st[G_END_REASON] = reason
    st[G_OVER] = 1


@njit_noalloc
def play_game(st, t, ag):
    """Deal the starting hands and play a set-up game to its end."""
    begin_segment(st, ag, 1)
    deal_starting_hands(st, t, ag)
    while st[G_OVER] == 0:
        begin_segment(st, ag, 0)
        play_round(st, t, ag)
        if st[G_POLICY_ERROR] != 0:
            end_game(st, t, END_POLICY_ERROR)
            break


@njit_noalloc(inline="always")   # in `play`: a callee of its own would be compiled on its
def play_on(st, t, ag, dealing):  # own by a cold start's second process (compile_order.py)
    """Play a copy of a segment's checkpoint on (a search bot's imagined game): the deal if
    `dealing`, then rounds until the game ends or a bot sets G_POLICY_ERROR, which ends the
    play at the end of the turn under way (or of the round's Follow and Rerack phases). Unlike
    play_game it writes no checkpoints of its own: `ag` is the search's bundle."""
    if dealing != 0:
        deal_starting_hands(st, t, ag)
    while st[G_OVER] == 0 and st[G_POLICY_ERROR] == 0:
        play_round(st, t, ag)


PLAY_GAME = -1      # play's `resume` for a set-up game (play_game); 0 or 1 resume (play_on)


@njit_noalloc(first_class=True)
def play(st, t, ag, resume):
    """play_game(st, t, ag) if resume is PLAY_GAME, else play_on(st, t, ag, dealing=resume).

    The kernel (kernel.play_one) and a search bot's imagined games (policies/first_ascent/
    mcts.py) both call the engine through this function, by address (kernel.engine_value):
    called by name, numba would link the engine into each of them and optimise and compile
    it again for each, about 7 s of a cold start with a search bot. One call by address per
    game or imagined game costs nothing measurable."""
    if resume == PLAY_GAME:
        play_game(st, t, ag)
    else:
        play_on(st, t, ag, resume)
