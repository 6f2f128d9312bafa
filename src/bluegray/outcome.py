"""How a game ended: the termination of docs/rules-reference.md §4 and the winner, as values."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from bluegray import bitboard
from bluegray.pieces import Side


class Termination(enum.Enum):
    """Why a game ended, spelled as docs/rules-reference.md §4 names the reasons."""

    CENTER = "center"
    """A captain reached the centre."""
    LEAD = "lead"
    """A captain got the lead rule's number of steps ahead of the other."""
    REPETITION = "repetition"
    """The same position stood for the third time: an impasse."""
    NO_PROGRESS = "no-progress"
    """The no-progress count reached the rule set's limit: an impasse."""
    STALEMATE = "stalemate"
    """The side to move had no legal move."""
    RESIGN = "resign"
    """A player resigned (outside the rules of play)."""
    AGREEMENT = "agreement"
    """The players agreed a result (outside the rules of play)."""
    TIME = "time"
    """A player's clock ran out (outside the rules of play)."""

    @property
    def by_rules(self) -> bool:
        """Whether the rules of play ended the game (not resignation, agreement or a clock)."""
        return self in _RULE_TERMINATIONS

    @property
    def description(self) -> str:
        """The reason in words, for people."""
        return _DESCRIPTIONS[self]


_RULE_TERMINATIONS = frozenset(
    {
        Termination.CENTER,
        Termination.LEAD,
        Termination.REPETITION,
        Termination.NO_PROGRESS,
        Termination.STALEMATE,
    }
)

_DESCRIPTIONS = {
    Termination.CENTER: "captain reached the centre",
    Termination.LEAD: "captain far enough ahead",
    Termination.REPETITION: "position repeated three times",
    Termination.NO_PROGRESS: "no progress",
    Termination.STALEMATE: "no legal move",
    Termination.RESIGN: "resignation",
    Termination.AGREEMENT: "agreement",
    Termination.TIME: "time ran out",
}


@dataclass(frozen=True)
class Outcome:
    """The end of a game: why, who won (``None`` for a draw), and whether it was an impasse."""

    termination: Termination
    winner: Side | None
    impasse: bool = False
    """True when the rules ended the game in an impasse (decided by the ``impasse`` setting)."""

    @property
    def result(self) -> str:
        """The result token of game records: ``1-0`` Blue wins, ``0-1`` Gray wins, ``1/2-1/2``."""
        if self.winner is Side.BLUE:
            return "1-0"
        if self.winner is Side.GRAY:
            return "0-1"
        return "1/2-1/2"

    def describe(self) -> str:
        """The outcome in words, e.g. ``Gray wins: impasse (no legal move), captain farther
        advanced``."""
        reason = self.termination.description
        if self.impasse:
            reason = f"impasse ({reason})"
            if self.winner is not None:
                reason += ", captain farther advanced"
        if self.winner is None:
            return f"Draw: {reason}"
        return f"{self.winner.title} wins: {reason}"


RESULT_TOKENS = ("1-0", "0-1", "1/2-1/2")


def winner_from_result(token: str) -> Side | None:
    """The winner a finished game's result token names (``None`` for the draw ``1/2-1/2``)."""
    if token not in RESULT_TOKENS:
        raise ValueError(
            f"{token!r} is not the result of a finished game: expected one of "
            + ", ".join(RESULT_TOKENS)
        )
    return {"1-0": Side.BLUE, "0-1": Side.GRAY}.get(token)


_TERMINATIONS = {
    bitboard.CENTER_REACHED: Termination.CENTER,
    bitboard.LEAD: Termination.LEAD,
    bitboard.REPETITION: Termination.REPETITION,
    bitboard.NO_PROGRESS: Termination.NO_PROGRESS,
    bitboard.STALEMATE: Termination.STALEMATE,
}


def outcome_of(board: bitboard.Board, code: int) -> Outcome | None:
    """The ``Outcome`` for a game-end code of the bitboard core on ``board``."""
    if code == bitboard.ONGOING:
        return None
    winner = board.winner(code)
    return Outcome(
        _TERMINATIONS[code],
        None if winner is None else (Side.BLUE, Side.GRAY)[winner],
        board.is_impasse(code),
    )
