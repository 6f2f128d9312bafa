"""The library's exceptions: each is a ``ValueError`` whose message names the bad text and why."""

from __future__ import annotations


class BlueGrayError(ValueError):
    """Base class of every error raised for bad input to bluegray."""


class InvalidPointError(BlueGrayError):
    """Text or numbers that do not name a point of the board."""


class InvalidMoveError(BlueGrayError):
    """Move text that is not well-formed §6 notation."""


class IllegalMoveError(BlueGrayError):
    """A well-formed move that is not legal in the position (or the game is over)."""


class InvalidPositionError(BlueGrayError):
    """Position text that is malformed or describes a position invalid under the rule set."""


class UnknownRulesError(BlueGrayError):
    """A rule-set name that is not one of the published presets."""


class InvalidRulesError(BlueGrayError):
    """A rule-set description with an unknown setting or a bad value."""


class InvalidRecordError(BlueGrayError):
    """A game record that cannot be read: bad syntax, tags, or moves."""


class GameOverError(IllegalMoveError):
    """A move was pushed onto a game that has already ended."""


class InvalidOutcomeError(BlueGrayError):
    """An ending that cannot be declared: one only the rules decide, or on a finished game."""


class InvalidNumberError(BlueGrayError):
    """Text that is not a whole number within the bounds the notation allows there."""


QUOTED_LENGTH = 120
"""The most characters of a bad text that an error message repeats."""


def quoted(text: str) -> str:
    """``text`` as an error message names it: quoted, and cut short when it is long (a text of
    a million characters must not become a message of a million characters)."""
    if len(text) <= QUOTED_LENGTH:
        return repr(text)
    return f"{text[:QUOTED_LENGTH]!r}... ({len(text):,} characters)"
