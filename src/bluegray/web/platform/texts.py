"""Free text that players set (a tournament's name, an API token's description): one line of
printable characters, checked when it comes in (``OneLine``), and made so when the site shows or
writes text it holds from before (``one_line``), so that a record download never fails on it."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Final

from pydantic import AfterValidator

UNPRINTABLE: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""The Unicode categories a line of text may not hold: controls (the line breaks among them),
format characters (direction overrides that make text read otherwise), surrogates, private use,
unassigned code points, and the line and paragraph separators."""


def unprintable(text: str) -> str | None:
    """The first character of ``text`` that is not printable on one line (``None``: all are)."""
    return next((char for char in text if unicodedata.category(char) in UNPRINTABLE), None)


def _check_one_line(text: str) -> str:
    char = unprintable(text)
    if char is not None:
        raise ValueError(
            f"must be one line of printable characters: it holds U+{ord(char):04X} "
            f"({unicodedata.name(char, 'a control character')})"
        )
    stripped = text.strip()
    if not stripped:
        raise ValueError("must hold something besides spaces")
    return stripped


OneLine = Annotated[str, AfterValidator(_check_one_line)]
"""A request's free text: one line of printable characters, without the spaces around it."""


def one_line(text: str) -> str:
    """``text`` as one printable line: every unprintable character a space, runs of spaces one
    (for text stored before it was checked)."""
    cleaned = "".join(" " if unicodedata.category(char) in UNPRINTABLE else char for char in text)
    return " ".join(cleaned.split()) or "?"
