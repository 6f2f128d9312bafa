"""The whole numbers written in the notations: ASCII digits, bounded before they are converted.

A number is checked against its bounds by its length first, so a text of thousands of digits is
refused with the library's own error and never reaches ``int()`` (which refuses more than 4,300
digits with a plain ``ValueError``), and a number too large for the engine's 64-bit counters
never reaches the engine.
"""

from __future__ import annotations

import math
import re
from typing import Final

from bluegray.errors import InvalidNumberError, quoted

MAX_NOTATION_NUMBER: Final = 999_999_999
"""The largest number a position's counters (its no-progress count and move number) may hold.
Every real game stays far below it; a game may still play a thousand million plies from it
before either counter leaves a 32-bit integer, let alone the engine's 64-bit ones. (A rule set's
numbers have bounds of their own, in ``rules``.)"""

MAX_INT64: Final = 2**63 - 1
"""The largest signed 64-bit integer: the bound of the engine protocol's numbers, which the
search keeps in 64-bit counters."""

_DIGITS: Final = re.compile(r"[0-9]+")
_LONGEST_SHOWN: Final = 20
"""Numbers of more digits than this (or than their bound) are described, not converted."""


def parse_number(
    text: str,
    *,
    least: int,
    most: int,
    signed: bool = False,
    leading_zeros: bool = True,
) -> int:
    """The number ``text`` writes, from ``least`` to ``most``: ASCII digits, with a minus sign
    first if ``signed``, and no leading zero (but for ``0`` itself) unless ``leading_zeros``.

    Raises ``InvalidNumberError`` whose message completes a sentence naming the number
    (``"must be at most 999999999, not 1000000000"``); callers prefix what the number is.

    >>> parse_number("0042", least=0, most=100)
    42
    >>> parse_number("9" * 5000, least=0, most=100)
    Traceback (most recent call last):
    ...
    bluegray.errors.InvalidNumberError: must be at most 100, not a number of 5,000 digits
    """
    digits = text[1:] if signed and text.startswith("-") else text
    if not _DIGITS.fullmatch(digits) or (
        not leading_zeros and len(digits) > 1 and digits[0] == "0"
    ):
        kind = "a whole number" + ("" if leading_zeros else " without leading zeros")
        raise InvalidNumberError(f"must be {kind}, not {quoted(text)}")
    significant = digits.lstrip("0")
    negative = digits is not text and bool(significant)
    bound = least if negative else most
    # Longer than any bound it might meet (and than the widest 64-bit number): too far out to
    # be worth converting, and perhaps too long for Python to convert at all.
    if len(significant) > max(len(str(abs(bound))), _LONGEST_SHOWN):
        side, kind = ("least", "a negative number") if negative else ("most", "a number")
        raise InvalidNumberError(
            f"must be at {side} {bound}, not {kind} of {len(significant):,} digits"
        )
    value = int(text)
    if value < least:
        raise InvalidNumberError(f"must be at least {least}, not {value}")
    if value > most:
        raise InvalidNumberError(f"must be at most {most}, not {value}")
    return value


def shown_value(value: object) -> str:
    """``value`` as an error message names it: quoted and cut short if it is text, described if
    it is an integer too long to print (Python refuses to write more than 4,300 digits)."""
    if isinstance(value, str):
        return quoted(value)
    if isinstance(value, int) and value.bit_length() > 64:
        digits = int(value.bit_length() * math.log10(2)) + 1
        kind = "a negative number" if value < 0 else "a number"
        return f"{kind} of about {digits:,} digits"
    return repr(value)
