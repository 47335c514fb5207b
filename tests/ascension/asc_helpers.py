"""Shared helpers for the Ascension rule tests (../shared/ascension/RULES.md).

Written from RULES.md: positions are built with the single-game API's editing helpers
(pieces are moved, never created, so the 93 pieces stay conserved), then real decisions are
driven with `step` and the engine's answers are checked.

Board regions used by the tests (rows 6-8 are kept away from every scenario):
    QUARRY  rows 6-7, columns 2-6: cubes are taken from here to build heights
    DUMP    row 8, columns 2-6: pieces cleared off built squares go here
    JUNK    QUARRY + DUMP: where "idle" piece moves pick and place (far from every pawn,
            corner and the pillar)
"""
import copy

import numpy as np

from sim.games.ascension import engine as E
from sim.games.ascension import state as S
from sim.games.ascension.game import (AscensionGame, IllegalActionError, MovePawn, Pick, Place,
                                      PlaceJoker, Stay)
from sim.games.ascension.rules import RuleError, build_rules

__all__ = ["E", "S", "AscensionGame", "IllegalActionError", "MovePawn", "Pick", "Place",
           "PlaceJoker", "Stay", "RuleError", "build_rules", "sq", "QUARRY", "DUMP", "JUNK",
           "Builder", "new_game", "clone", "start_turn", "origins", "dests", "dests_for",
           "pawn_actions", "move_piece", "idle_piece_move", "junk_top", "run_turns", "turn_kind", "nb",
           "seat_of_group", "give_summit", "make_privileged", "eliminate", "piece_square",
           "STAR", "TRIANGLE", "SQUARE", "CIRCLE", "LADDER", "MATTRESS", "SPRING", "CABLE",
           "CHASM", "BIVOUAC", "JOKER", "half", "pawn_decision", "finish_turn",
           "bivouac_landing", "holder_blocked"]

STAR, TRIANGLE, SQUARE, CIRCLE = 1, 2, 4, 8
CABLE = (64, 65, 66)
LADDER = (67, 68)
MATTRESS = (69, 70)
SPRING = (71, 72)
CHASM = (73, 74)
BIVOUAC = 75
JOKER = S.JOKER_ID


def sq(r, c):
    return 9 * r + c


QUARRY = [sq(6, c) for c in range(2, 7)] + [sq(7, c) for c in range(2, 7)]
DUMP = [sq(8, c) for c in range(2, 7)]
JUNK = QUARRY + DUMP


def nb(s):
    """The king-move neighbours of s (§1.1), computed here independently of the engine."""
    r, c = divmod(s, 9)
    return [9 * (r + dr) + c + dc for dr in (-1, 0, 1) for dc in (-1, 0, 1)
            if (dr or dc) and 0 <= r + dr < 9 and 0 <= c + dc < 9]


def half(corner, shaped, j=0):
    """Id of a half-cube of corner group k (§1.3): 76+4k,77+4k shaped; 78+4k,79+4k neutral."""
    return 76 + 4 * corner + (0 if shaped else 2) + j


def new_game(players=4, seed=1, **switches):
    return AscensionGame(seed, players=players, **switches)


def clone(g):
    h = copy.copy(g)
    h.state = g.state.copy()
    h._legal = np.empty_like(g._legal)
    h.transcript = list(g.transcript)
    return h


def piece_square(g, x):
    return int(g.state[S.B_P_SQ + x])


def seat_of_group(g, k):
    """The seat that plays corner k, or None."""
    for p in range(g.players):
        if int(g.t[E.C_CORNER_OF + p]) == int(S.CORNERS[k]):
            return p
    return None


class Builder:
    """Builds constructed positions without creating pieces.

    `area` holds the squares a test cares about: cubes are never taken from them, from their
    neighbours, or from the neighbours of any pawn."""

    def __init__(self, g, quarry=QUARRY, dump=DUMP, spare_neighbours=True):
        self.g = g
        self.quarry = list(quarry)
        self.dump = list(dump)
        self.area = set()
        self.reserved = set()
        self.spare_neighbours = spare_neighbours

    # -- sources ---------------------------------------------------------------------------
    def _sensitive(self):
        bad = set(self.area) | {S.PILLAR} | {int(c) for c in S.CORNERS}
        if self.spare_neighbours:
            for s in list(self.area):
                bad.update(nb(s))
        for p in range(self.g.players):
            ps = self.g.pawn(p)
            if ps is not None:
                bad.add(ps)
                bad.update(nb(ps))
        return bad

    def take_cube(self):
        """A cube from a square nobody cares about (neutral cubes first); it is lifted off
        and returned (its new place is decided by the caller)."""
        g = self.g
        bad = self._sensitive()
        order = [s for s in self.quarry + self.dump if s not in bad]
        order += [s for s in range(S.N_SQUARES) if s not in bad and s not in order]
        best = None
        for rank, s in enumerate(order):
            for x in g.stack(s):
                if S.P_KIND[x] != S.CUBE or x in self.reserved:
                    continue
                cls = 0 if x < 36 else (1 if x < 64 else 2)
                key = (cls, rank)
                if best is None or key < best[0]:
                    best = (key, x)
        assert best is not None, "no spare cube left on the board"
        return best[1]

    def _dump_square(self):
        return min(self.dump, key=lambda s: (len(self.g.stack(s)), s))

    # -- building --------------------------------------------------------------------------
    def clear(self, s):
        """Empty square s (its pieces go to the dump)."""
        self.area.add(s)
        for x in reversed(self.g.stack(s)):
            self.g.move_piece_to(x, self._dump_square(), False if S.P_KIND[x] == S.CUBE else True)
        assert self.g.stack(s) == []
        return self

    def set_height(self, s, h, half_piece=None):
        """Make square s plain at h hu: h//2 face-down cubes, plus one neutral half-cube at the
        bottom when h is odd (taken from `half_piece`, default a free neutral half)."""
        self.clear(s)
        if h % 2:
            self.put(half_piece if half_piece is not None else self.free_neutral_half(), s)
        for _ in range(h // 2):
            self.g.move_piece_to(self.take_cube(), s, False)
        assert self.g.height(s) == h + (S.PILLAR_BASE if s == S.PILLAR else 0)
        return self

    def heights(self, mapping):
        for s in mapping:
            self.area.add(s)
        for s, h in mapping.items():
            self.set_height(s, h)
        return self

    def free_neutral_half(self):
        """A neutral half-cube: one out of play if any, else one from a reserve (the reserve
        count is lowered so that the state stays consistent)."""
        g = self.g
        for x in range(76, 92):
            if (x - 76) % 4 >= 2 and piece_square(g, x) == -2 and x not in self.reserved:
                return x
        for x in range(91, 75, -1):                    # the last seat's reserve first
            if (x - 76) % 4 >= 2 and piece_square(g, x) == -1 and x not in self.reserved:
                return x
        raise AssertionError("no neutral half-cube left")

    def put(self, x, s, up=False):
        """Put piece x on top of s (face up if `up`; halves and the joker always are). If x
        leaves a square that is not a quarry/dump square, that square gets a cube back so
        that its height is unchanged."""
        g = self.g
        self.area.add(s)
        self.reserved.add(x)
        old = piece_square(g, x)
        if old == -1 and S.P_KIND[x] == S.HALF:        # out of a reserve: lower its count
            k = (x - 76) // 4
            p = seat_of_group(g, k)
            field = S.S_RES_SHAPED if (x - 76) % 4 < 2 else S.S_RES_NEUTRAL
            g.set(field + p, int(g.state[field + p]) - 1)
        g.move_piece_to(x, s, up)
        if x == JOKER:
            g.set(S.G_JOKER_STATE, S.JOKER_BOARD)
            g.set(S.G_JOKER_SQ, s)
        corners = [int(c) for c in S.CORNERS]
        if old >= 0 and old != s and old not in self.quarry and old not in self.dump \
                and old != S.PILLAR and old not in corners and S.P_KIND[x] == S.CUBE:
            g.move_piece_to(self.take_cube(), old, False)
        return self

    def pit(self, s, depth_to=0):
        """Square s at `depth_to` hu with all its neighbours at depth_to + 2 (nothing reachable)."""
        self.area.add(s)
        for d in nb(s):
            if d != S.PILLAR and d not in (int(c) for c in S.CORNERS):
                self.area.add(d)
        self.set_height(s, depth_to)
        for d in nb(s):
            if d != S.PILLAR and d not in (int(c) for c in S.CORNERS):
                self.set_height(d, depth_to + 2)
        return self


# --- driving ------------------------------------------------------------------------------

def turn_kind(g):
    return S.TURN_KIND_NAMES[int(g.state[S.G_TURN_KIND])]


def start_turn(g, p):
    """Abandon whatever decision is pending (nothing may be held) and let the engine start a
    normal turn of seat p through its own turn loop (A44): cursor just before p."""
    st = g.state
    assert st[S.G_HELD] < 0
    n = g.players
    st[S.G_PHASE] = S.PHASE_TURN_END
    st[S.G_EXTRA_CHECK] = -1
    st[S.G_BONUS_PENDING] = 0
    st[S.G_STAY_OK] = 0
    cur = (p - 1) % n
    while not st[S.S_ACTIVE + cur] and cur != p:   # the first active seat after cur must be p
        cur = (cur - 1) % n
    st[S.G_CURSOR] = cur
    E.settle(st, g.t)
    g._last_turn = g.turn_count
    return g


def origins(g):
    """Legal origins in the origin phase: board squares (ints) and reserve names (str)."""
    assert g.phase == "origin", g.phase
    return {a.reserve if a.reserve else a.square for a in g.legal_actions()}


def dests(g):
    """Legal (square, face_up) pairs in the place phase."""
    assert g.phase == "place", g.phase
    return {(a.square, a.face_up) for a in g.legal_actions()}


def dests_for(g, origin):
    """The legal destinations after picking `origin` (int square or reserve name), on a copy."""
    h = clone(g)
    h.step(Pick(reserve=origin) if isinstance(origin, str) else Pick(square=origin))
    return dests(h)


def pawn_actions(g):
    """Legal choices in a pawn or spring decision: squares and 'stay'."""
    assert g.phase in ("pawn", "spring"), g.phase
    return {"stay" if isinstance(a, Stay) else a.square for a in g.legal_actions()}


def move_piece(g, origin, d, up=False):
    g.step(Pick(reserve=origin) if isinstance(origin, str) else Pick(square=origin))
    g.step(Place(d, up))


def junk_top(g, avoid=()):
    """A JUNK square whose top the current seat may pick (the fullest one)."""
    cands = [o for o in origins(g) if isinstance(o, int) and o in JUNK and o not in avoid]
    assert cands, "no junk origin"
    return max(cands, key=lambda s: (len(g.stack(s)), -s))


def idle_piece_move(g, avoid=()):
    """A piece move inside JUNK: the fullest junk square's top to the emptiest junk square,
    face down when allowed."""
    acts = g.legal_actions()
    cands = [a.square for a in acts if not a.reserve and a.square in JUNK and a.square not in avoid]
    assert cands, "no junk origin"
    o = max(cands, key=lambda s: (len(g.stack(s)), -s))
    g.step(Pick(square=o))
    places = [a for a in g.legal_actions() if a.square in JUNK and a.square not in avoid]
    assert places, "no junk destination"
    places.sort(key=lambda a: (a.face_up, len(g.stack(a.square)), a.square))
    g.step(places[0])
    return o


def pawn_decision(g, shuttle=None):
    """Make the pending pawn (or spring) decision: a shuttle pawn goes to the other square of
    its pair; otherwise the first legal move that is neither a corner nor the pillar."""
    p = g.current
    acts = g.legal_actions()
    squares = [a.square for a in acts if isinstance(a, MovePawn)]
    if g.phase == "spring":
        g.step(Stay())
        return
    if shuttle and p in shuttle:
        a, b = shuttle[p]
        target = b if g.pawn(p) == a else a
        assert target in squares, (p, g.pawn(p), target, squares)
        g.step(MovePawn(target))
        return
    ok = [s for s in squares if s != S.PILLAR and s not in (int(c) for c in S.CORNERS)]
    if ok:
        g.step(MovePawn(ok[0]))
    else:
        g.step(acts[0])


def finish_turn(g, shuttle=None):
    """Play the current turn to its end with idle decisions."""
    t0 = g.turn_count
    while not g.is_over and g.turn_count == t0:
        if g.phase == "origin":
            idle_piece_move(g)
        elif g.phase == "joker":
            g.step(Stay())
        else:
            pawn_decision(g, shuttle)


def run_turns(g, n, shuttle=None, on_turn=None):
    """Play n turns with idle decisions; returns [(seat, kind), ...] as the turns start.
    `on_turn(g, i)` may edit the position before turn i is played."""
    seq = []
    for i in range(n):
        if g.is_over:
            break
        if on_turn:
            on_turn(g, i)
        seq.append((g.current, turn_kind(g)))
        finish_turn(g, shuttle)
    return seq


# --- seat status --------------------------------------------------------------------------

def give_summit(g, p, stamp=None):
    """Summit status for seat p (A40 fields), with a summit stamp."""
    st = g.state
    if stamp is None:
        stamp = int(st[S.G_SEQ])
        st[S.G_SEQ] = stamp + 1
    st[S.S_SUMMIT + p] = 1
    st[S.S_EVER_SUMMIT + p] = 1
    st[S.S_SUMMIT_SEQ + p] = stamp
    return g


def make_privileged(g, p, joker="hand"):
    give_summit(g, p)
    g.set(S.G_PRIVILEGED, p)
    if joker == "hand":
        g.set(S.G_JOKER_STATE, S.JOKER_HAND)
    elif joker == "box":
        g.set(S.G_JOKER_STATE, S.JOKER_BOX)
    return g


def eliminate(g, p):
    st = g.state
    s = g.pawn(p)
    if s is not None:
        st[S.B_PAWN_ON + s] = -1
    st[S.S_PAWN_SQ + p] = -1
    st[S.S_ACTIVE + p] = 0
    st[S.S_BLOCKS + p] = 2
    st[S.S_LOCK + p] = -1
    return g


def ride_only_pawn():
    """Seat 0's pawn on a face-up cable car at 2 hu in a ring of 4-hu squares (no step, A30),
    with a second face-up cable car free at (6, 6): a ride is its only way out (A31, A32).
    Returns the game."""
    g = new_game(4, seed=34)
    b = Builder(g)
    b.pit(sq(2, 4))
    b.put(CABLE[0], sq(2, 4), up=True)
    b.heights({n: 4 for n in nb(sq(2, 4))})
    b.put(CABLE[1], sq(6, 6), up=True)
    g.move_pawn_to(0, sq(2, 4))
    return g


def bivouac_landing(**sw):
    """Seat 0 steps onto a face-up bivouac (2 players, rules `sw`); returns the game at its
    next turn's start, its Builder, the pawn's square before the bivouac (a way off) and the
    bivouac square."""
    g = new_game(2, seed=12, **sw)
    b = Builder(g)
    a, c = sq(2, 2), sq(2, 3)
    b.set_height(c, 0)
    b.put(BIVOUAC, c, up=True)
    g.move_pawn_to(0, a)
    idle_piece_move(g)
    g.step(MovePawn(c))
    finish_turn(g)
    assert g.current == 0 and g.seat(0)["biv"] == 1
    return g, b, a, c


def holder_blocked(**sw):
    """4 players, rules `sw`: the privileged seat 2 (the joker in hand) is blocked in a pit
    while seat 0 holds summit status; returns the game after that block and its Builder."""
    g = new_game(4, seed=14, **sw)
    b = Builder(g)
    b.pit(sq(2, 6))
    g.move_pawn_to(2, sq(2, 6))
    make_privileged(g, 2, joker="hand")
    g.move_pawn_to(0, sq(2, 2))
    give_summit(g, 0)
    start_turn(g, 2)
    idle_piece_move(g)
    assert g.seat(2)["blocks"] == 1
    return g, b
