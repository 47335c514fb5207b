"""One Ascension game from Python: the same rule functions as the batch kernel.

    game = AscensionGame(seed=1, players=4)
    game.legal_actions()            # [Pick(square=10), Pick(reserve='shaped'), ...]
    game.step(game.legal_actions()[0])
    game.play(["stair-builder"] * 4)
    print(game.board_text())        # a text board a person can follow
    game.transcript                 # one line per decision, and the turn structure

Actions are small values that say what they do. `step` refuses an illegal action and says why.
For rule tests and what-if questions, `move_piece_to` and `move_pawn_to` rearrange the board
(pieces are moved, never created, so the 93 pieces stay conserved).
"""
from dataclasses import dataclass

import numpy as np

from sim.core.bot_exceptions import raising_bot_exceptions
from sim.core.rng import to_uint32
from sim.core.seeding import policy_streams
from sim.core.single_game import Action, IllegalActionError, SingleGame
from sim.games.ascension import engine as E
from sim.games.ascension import state as S
from sim.games.ascension.kernel import play_game
from sim.games.ascension.policy_api import WORK_SIZE
from sim.games.ascension.rules import AscensionRules, build_rules
from sim.games.ascension.view import KERNEL_VIEWS_SIZE, WHOLE, build_view

MAX_API_DECISIONS = 100_000


def square_name(s):
    return f"({s // 9},{s % 9})"


@dataclass(frozen=True)
class Pick(Action):
    """Piece phase, first stage (A14-A15): a board top by square, or a reserve/the joker."""
    square: int = -1
    reserve: str = ""           # "shaped", "neutral" or "joker"

    def __str__(self):
        if self.reserve:
            return f"pick {self.reserve}"
        return f"pick the top of {square_name(self.square)}"


@dataclass(frozen=True)
class Place(Action):
    """Piece phase, second stage (A16-A17): destination and orientation."""
    square: int
    face_up: bool

    def __str__(self):
        return f"place on {square_name(self.square)} face {'up' if self.face_up else 'down'}"


@dataclass(frozen=True)
class PlaceJoker(Action):
    """joker_extra_move (A57): the joker too, after the piece move."""
    square: int

    def __str__(self):
        return f"place the joker on {square_name(self.square)}"


@dataclass(frozen=True)
class MovePawn(Action):
    square: int

    def __str__(self):
        return f"pawn to {square_name(self.square)}"


@dataclass(frozen=True)
class Stay(Action):
    """Keep the pawn still (optional bivouac, corner_may_wait), decline the spring step or the
    extra joker placement."""
    text = "stay"


_RESERVE_CODES = {"shaped": S.ORIGIN_SHAPED, "neutral": S.ORIGIN_NEUTRAL, "joker": S.ORIGIN_JOKER}


def encode(phase, action):
    if phase == S.PHASE_ORIGIN and isinstance(action, Pick):
        return _RESERVE_CODES[action.reserve] if action.reserve else action.square
    if phase == S.PHASE_PLACE and isinstance(action, Place):
        return 2 * action.square + int(action.face_up)
    if phase == S.PHASE_JOKER:
        if isinstance(action, PlaceJoker):
            return 2 * action.square + 1
        if isinstance(action, Stay):
            return S.JOKER_DECLINE
    if phase in (S.PHASE_PAWN, S.PHASE_SPRING):
        if isinstance(action, MovePawn):
            return action.square
        if isinstance(action, Stay):
            return S.STAY
    return None


def decode(phase, code):
    code = int(code)
    if phase == S.PHASE_ORIGIN:
        for name, c in _RESERVE_CODES.items():
            if c == code:
                return Pick(reserve=name)
        return Pick(square=code)
    if phase == S.PHASE_PLACE:
        return Place(code >> 1, bool(code & 1))
    if phase == S.PHASE_JOKER:
        return Stay() if code == S.JOKER_DECLINE else PlaceJoker(code >> 1)
    return Stay() if code == S.STAY else MovePawn(code)


class AscensionGame(SingleGame):
    layout = S

    def __init__(self, seed, players=4, rules: AscensionRules = None, **switches):
        self.rules = rules or build_rules(players, switches)
        if rules is not None and switches:
            raise ValueError("give either rules or switches, not both")
        self.seed = to_uint32(seed)
        self.t = self.rules.config
        self.state = np.zeros(S.STATE_SIZE, np.int64)
        self._legal = np.empty(S.N_ACTIONS, np.int64)
        self.transcript = []
        E.setup(self.state, self.t, np.int64(self.seed))
        self._last_turn = 0
        self._note_turn()

    # --- reading -------------------------------------------------------------------------
    @property
    def players(self):
        return self.rules.players

    @property
    def current(self):
        """The seat to decide (Ascension's name for `current_seat`)."""
        return self.current_seat

    @property
    def phase(self):
        return S.PHASE_NAMES[int(self.state[S.G_PHASE])]

    @property
    def turn_count(self):
        return int(self.state[S.G_TURN_COUNT])

    def height(self, square):
        return int(self.state[S.B_H + square])

    def stack(self, square):
        n = int(self.state[S.B_STACK_N + square])
        base = S.B_STACK + square * S.MAX_STACK_CAP
        return [int(x) for x in self.state[base:base + n]]

    def top(self, square):
        st = self.stack(square)
        return st[-1] if st else None

    def shown(self, square):
        """(shapes mask, symbol name) the square shows (§1.4)."""
        return (int(self.state[S.B_SHAPES + square]),
                S.SYMBOL_NAMES[int(self.state[S.B_SYMBOL + square])])

    def pawn(self, seat):
        s = int(self.state[S.S_PAWN_SQ + seat])
        return None if s < 0 else s

    def seat(self, seat):
        st = self.state
        return {name.lower(): int(st[S.SEAT_BASE + S.MAX_PLAYERS * i + seat])
                for i, name in enumerate(S.SEAT_FIELDS)}

    def face_up(self, piece):
        return bool(self.state[S.B_P_UP + piece])

    def knows(self, seat, piece):
        return bool(self.state[S.B_KNOWN + piece] & (1 << seat))

    @property
    def privileged(self):
        p = int(self.state[S.G_PRIVILEGED])
        return None if p < 0 else p

    @property
    def joker_state(self):
        return ("box", "hand", "board", "gone")[int(self.state[S.G_JOKER_STATE])]

    def legal_codes(self):
        if self.is_over:
            return []
        n = E.legal_actions(self.state, self.t, self._legal)
        return [int(c) for c in self._legal[:n]]

    def legal_actions(self):
        phase = int(self.state[S.G_PHASE])
        return [decode(phase, c) for c in self.legal_codes()]

    def pawn_moves(self, seat=None):
        """Legal pawn moves (A32) of a seat's pawn as the board stands."""
        seat = self.current if seat is None else seat
        out = np.empty(S.N_ACTIONS, np.int64)
        n = E.pawn_moves(self.state, self.t, seat, self.state[S.S_PAWN_SQ + seat], out)
        return [int(x) for x in out[:n]]

    def won_seats(self):
        """The seats that won: the winner, and under the switch partnership its partner too
        (A48: a team wins when either partner wins), as the records' `won`."""
        if self.winner is None:
            return []
        if self.rules.values["partnership"] != "true":
            return [self.winner]
        return [s for s in range(self.players) if s % 2 == self.winner % 2]

    def view(self, seat, remember=True):
        """What seat's bot is given (view.py)."""
        v = np.empty(S.STATE_SIZE, np.int64)
        build_view(self.state, self.t, seat, remember, v, True, WHOLE)
        return v

    # --- acting --------------------------------------------------------------------------
    def step(self, action):
        if self.is_over:
            raise IllegalActionError("the game is over")
        phase = int(self.state[S.G_PHASE])
        code = action if isinstance(action, (int, np.integer)) else encode(phase, action)
        legal = self.legal_codes()
        if code is None or code not in legal:
            raise IllegalActionError(
                f"{action} is not legal for seat {self.current} in the {self.phase} decision; "
                f"legal: {', '.join(str(decode(phase, c)) for c in legal[:12])}"
                f"{' ...' if len(legal) > 12 else ''}")
        seat, turn = self.current, self.turn_count
        E.apply_action(self.state, self.t, np.int64(code))
        self.transcript.append({"turn": turn, "seat": seat, "phase": S.PHASE_NAMES[phase],
                                "action": str(decode(phase, code))})
        self._note_turn()

    def _note_turn(self):
        if self.turn_count != self._last_turn or self.is_over:
            self._last_turn = self.turn_count
            if self.is_over:
                self.transcript.append({"event": "end", "reason": self.end_reason,
                                        "winner": self.winner, "turns": self.turn_count})
            else:
                self.transcript.append({"event": "turn", "turn": self.turn_count,
                                        "seat": self.current,
                                        "kind": S.TURN_KIND_NAMES[int(self.state[S.G_TURN_KIND])],
                                        "board": self.board_text(heading=False)})

    def play(self, policies, params=None, policy_seed=None, max_decisions=MAX_API_DECISIONS):
        """Play to the end with one policy name per seat (the kernel's own play_game)."""
        actions, probe = self.bot_actions(policies, params, policy_seed, max_decisions)
        # Replay through step() so that the transcript is written; the kernel decides.
        for code in actions:
            self.step(int(code))
        if not np.array_equal(probe[:S.RECORD_SIZE], self.state[:S.RECORD_SIZE]):
            raise AssertionError("kernel and single-game replay disagree")  # pragma: no cover
        return self

    def bot_actions(self, policies, params=None, policy_seed=None,
                    max_decisions=MAX_API_DECISIONS):
        """The action codes the bots (one policy name per seat) play from here to the end,
        decided by the kernel's own play_game on a copy of the state; (codes, the copy's final
        state). This game is left as it is: step() through the codes to follow the game."""
        from sim.core.batch import seat_rotation
        from sim.games.ascension.batch import policy_slots
        names, slots, _ = seat_rotation(list(policies), 1, 0, False, S.MAX_PLAYERS)
        fns, slot_params, views = policy_slots(names, params)
        streams = policy_streams(np.int64(self.seed if policy_seed is None else policy_seed),
                                 S.MAX_PLAYERS)
        actions = np.empty(max_decisions, np.int64)
        probe = self.state.copy()
        with raising_bot_exceptions(names):
            n = play_game(probe, self.t, fns, np.where(slots[0] >= 0, slots[0], 0),
                          slot_params, views, streams, np.empty(S.N_ACTIONS, np.int64),
                          np.empty(KERNEL_VIEWS_SIZE, np.int64), np.zeros(WORK_SIZE, np.int64),
                          actions, max_decisions)
        return actions[:n].copy(), probe

    # --- editing (tests, what-if) -------------------------------------------------------
    def move_piece_to(self, piece, square, face_up=False):
        """Move a piece (from the board, a reserve or the box) onto a square's stack, bypassing
        the rules; the caches stay consistent and nothing is created or destroyed."""
        st, t = self.state, self.t
        where = int(st[S.B_P_SQ + piece])
        if where >= 0:
            base = S.B_STACK + where * S.MAX_STACK_CAP
            n = int(st[S.B_STACK_N + where])
            items = [int(x) for x in st[base:base + n]]
            for _ in range(n):
                E.pop_piece(st, t, where)
            for x in items:
                if x != piece:
                    E.push_piece(st, t, where, x, st[S.B_P_UP + x])
        up = 1 if (face_up or S.P_KIND[piece] != S.CUBE) else 0
        E.push_piece(st, t, square, piece, up)
        if up and S.P_KIND[piece] == S.CUBE:
            st[S.B_KNOWN + piece] = 15
        return self

    def clear_square(self, square, to_square):
        """Move every piece of a square onto another (bottom first)."""
        for x in self.stack(square):
            self.move_piece_to(x, to_square, self.face_up(x))
        return self

    def move_pawn_to(self, seat, square):
        st = self.state
        old = int(st[S.S_PAWN_SQ + seat])
        if old >= 0:
            st[S.B_PAWN_ON + old] = -1
        st[S.B_PAWN_ON + square] = seat
        st[S.S_PAWN_SQ + seat] = square
        return self

    def set(self, offset, value):
        """Set one state field (state.py offsets), for constructed positions."""
        self.state[offset] = value
        return self

    # --- text ----------------------------------------------------------------------------
    def board_text(self, heading=True):
        """The 9x9 board: height in hu, what the top shows, and pawns (seat digit)."""
        rows = []
        for r in range(9):
            cells = []
            for c in range(9):
                s = 9 * r + c
                shp, sym = self.shown(s)
                face = ""
                if sym != "none":
                    face = {"ladder": "L", "mattress": "M", "spring": "S", "cable_car": "C",
                            "chasm": "X", "bivouac": "B", "dragon": "J"}[sym]
                elif shp:
                    face = "".join(S.SHAPE_SYMBOLS[k] for k in range(4) if shp >> k & 1)
                pawn = int(self.state[S.B_PAWN_ON + s])
                mark = f"@{pawn + 1}" if pawn >= 0 else ""   # seats counted from 1 in text
                cells.append(f"{self.height(s):>2}{face:<4}{mark:<2}")
            rows.append(" ".join(cells))
        seats = []
        for p in range(self.players):
            info = self.seat(p)
            status = "out" if not info["active"] else ("summit" if info["summit"] else "climbing")
            seats.append(f"seat {p + 1} ({S.SHAPE_NAMES[self._corner_index(p)]}): {status}, "
                         f"blocks {info['blocks']}, reserve {info['res_shaped']}+"
                         f"{info['res_neutral']}")
        head = (f"turn {self.turn_count}, seat {self.current + 1} to play ({self.phase}); "
                f"privileged: {self.privileged}, joker: {self.joker_state}")
        return "\n".join(([head] if heading else []) + rows + seats)

    def _corner_index(self, seat):
        return [0, 8, 80, 72].index(int(self.t[E.C_CORNER_OF + seat]))

    def transcript_jsonl(self):
        import json
        return "".join(json.dumps(e) + "\n" for e in self.transcript)

    def replay_text(self):
        """The transcript with the board drawn at the start of every turn (`ascent replay`)."""
        lines = [self.legend()]
        for e in self.transcript:
            if e.get("event") == "turn":
                lines.append(f"\n-- turn {e['turn']}: seat {e['seat'] + 1} ({e['kind']})")
                lines.append(e["board"])
            elif e.get("event") == "end":
                lines.append(f"\n== game over: {e['reason']}, winner {_seat_text(e['winner'])}, "
                             f"{e['turns']} turns")
                lines.append(self.board_text())
            else:
                lines.append(f"   {e['phase']}: {e['action']}")
        return "\n".join(lines) + "\n"

    @staticmethod
    def legend():
        return ("Board: each cell is the height in half-cubes (the pillar is the 9 at (4,4)), "
                "then what its top shows (*^#o: star, triangle, square, circle shapes; L ladder, "
                "M mattress, S spring, C cable car, X chasm, B bivouac, J joker), then @n for "
                "seat n's pawn (seats counted from 1). Squares are (row, column) from the top "
                "left.")

    def transcript_text(self):
        lines = []
        for e in self.transcript:
            if e.get("event") == "turn":
                lines.append(f"-- turn {e['turn']}: seat {e['seat'] + 1} ({e['kind']})")
            elif e.get("event") == "end":
                lines.append(f"== game over: {e['reason']}, winner {_seat_text(e['winner'])}, "
                             f"{e['turns']} turns")
            else:
                lines.append(f"   seat {e['seat'] + 1} {e['phase']}: {e['action']}")
        return "\n".join(lines) + "\n"


def _seat_text(seat):
    """A winner for people: 'seat 2', or 'none'."""
    return "none" if seat is None or seat < 0 else f"seat {seat + 1}"
