"""Sides and pieces: Blue and Gray; captains, guards and privates; their letters in §6 notation."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from bluegray.errors import InvalidPositionError


class Side(enum.Enum):
    """One of the two players. Blue moves first."""

    BLUE = "blue"
    GRAY = "gray"

    @property
    def other(self) -> Side:
        """The opponent."""
        return Side.GRAY if self is Side.BLUE else Side.BLUE

    @property
    def letter(self) -> str:
        """The side-to-move field of the position notation: ``b`` or ``g``."""
        return "b" if self is Side.BLUE else "g"

    @property
    def index(self) -> int:
        """0 for Blue, 1 for Gray: the index used by the bitboard core."""
        return 0 if self is Side.BLUE else 1

    @property
    def title(self) -> str:
        """The name for people: ``Blue`` or ``Gray``."""
        return self.value.capitalize()

    @classmethod
    def from_letter(cls, letter: str) -> Side:
        if letter == "b":
            return cls.BLUE
        if letter == "g":
            return cls.GRAY
        raise InvalidPositionError(f"invalid side to move {letter!r}: expected 'b' or 'g'")


BLUE = Side.BLUE
GRAY = Side.GRAY
SIDES = (BLUE, GRAY)


class Kind(enum.Enum):
    """A kind of piece."""

    CAPTAIN = "C"
    GUARD = "G"
    PRIVATE = "P"

    @property
    def is_soldier(self) -> bool:
        return self is not Kind.CAPTAIN


@dataclass(frozen=True)
class Piece:
    """A piece: its kind and its side. Its symbol is its §6 letter, upper case for Blue."""

    kind: Kind
    side: Side

    @property
    def symbol(self) -> str:
        letter = self.kind.value
        return letter if self.side is Side.BLUE else letter.lower()

    @classmethod
    def from_symbol(cls, symbol: str) -> Piece:
        try:
            kind = Kind(symbol.upper())
        except ValueError:
            raise InvalidPositionError(
                f"invalid piece letter {symbol!r}: expected C, G or P (upper case Blue, lower Gray)"
            ) from None
        return cls(kind, Side.BLUE if symbol.isupper() else Side.GRAY)

    def __str__(self) -> str:
        return self.symbol
