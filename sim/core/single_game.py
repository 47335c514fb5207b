"""What every game's single-game Python API shares: actions as small values that say what they
do, one error for an illegal action, and the outcome fields every state layout has.

A game's `game.py` subclasses `Action` for its actions and `SingleGame` for its game object;
the rules themselves stay in the game's numba engine, which both the API and the kernel call.
"""
from dataclasses import dataclass, fields
from typing import ClassVar


class IllegalActionError(ValueError):
    """An action the current seat may not take now; the message says why."""


@dataclass(frozen=True)
class Action:
    """An action value. A subclass is a frozen dataclass whose `text` is a format string over
    its fields ("train at {station}"), so that a transcript reads as words."""
    text: ClassVar[str] = ""

    def __str__(self):
        return self.text.format(**{f.name: getattr(self, f.name) for f in fields(self)})


class SingleGame:
    """The outcome fields of a game object whose `state` is laid out by the module `layout`
    (a game's state.py), which declares G_CURRENT, G_OVER, G_WINNER, G_END_REASON and
    END_REASON_NAMES."""
    layout = None

    @property
    def current_seat(self):
        return int(self.state[self.layout.G_CURRENT])

    @property
    def is_over(self):
        return bool(self.state[self.layout.G_OVER])

    @property
    def winner(self):
        """The winning seat, or None (no winner yet, or the game ended without one)."""
        seat = int(self.state[self.layout.G_WINNER])
        return None if seat < 0 else seat

    def won_seats(self):
        """The seats that won (a game with shared wins overrides this)."""
        return [] if self.winner is None else [self.winner]

    @property
    def end_reason(self):
        """Why the game ended, or None while it runs."""
        return self.layout.END_REASON_NAMES[int(self.state[self.layout.G_END_REASON])] or None
