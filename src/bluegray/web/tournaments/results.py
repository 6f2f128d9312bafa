"""The words the tournaments share: a game's result and the errors of bad tournament input."""

from __future__ import annotations

import enum

from bluegray.errors import BlueGrayError
from bluegray.pieces import Side


class TournamentError(BlueGrayError):
    """Bad input to a tournament's algorithm: the message names what and why."""


class Result(enum.Enum):
    """A finished game's result, spelled as game records (and `Outcome.result`) spell it."""

    BLUE_WINS = "1-0"
    GRAY_WINS = "0-1"
    DRAW = "1/2-1/2"

    @classmethod
    def of(cls, winner: Side | None) -> Result:
        """The result of a game that ``winner`` won (``None``: a draw)."""
        if winner is None:
            return cls.DRAW
        return cls.BLUE_WINS if winner is Side.BLUE else cls.GRAY_WINS

    @property
    def winner(self) -> Side | None:
        """The side that won, or ``None`` for a draw."""
        if self is Result.DRAW:
            return None
        return Side.BLUE if self is Result.BLUE_WINS else Side.GRAY

    def points(self, side: Side) -> float:
        """What the game scored for ``side``: 1 a win, 0.5 a draw, 0 a loss."""
        if self is Result.DRAW:
            return 0.5
        return 1.0 if self.winner is side else 0.0
