"""The shipped book of engine games: one gzipped JSON file per rule set
(``books/NAME.json.gz``), written by ``bluegray explorer book`` and loaded into the explorer's
``book`` source by ``bluegray explorer fill`` (and ``bluegray db upgrade``).

A file holds each game's first ``MAX_PLIES`` moves (all the explorer counts) and its result:
``{"format": 1, "rules": NAME, "players": ..., "games": [["c2-c3 h8-h7 ...", "1-0"], ...]}``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Final

from bluegray.errors import BlueGrayError
from bluegray.rules import PRESETS
from bluegray.web.explorer.positions import MAX_PLIES, CountedGame

FORMAT: Final = 1
RESULTS: Final = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}
"""A game's result as written, and Blue's score."""


class BookError(BlueGrayError):
    """A book file that cannot be read."""


@dataclass(frozen=True)
class Book:
    """A book as read: its rule set, the file's digest and its games."""

    rules: str
    digest: str
    games: list[CountedGame]


def shipped_path(rules: str) -> Path:
    """Where the book of ``rules`` is shipped (in the package)."""
    return Path(str(resources.files("bluegray.web.explorer").joinpath("books", f"{rules}.json.gz")))


def shipped_books() -> list[str]:
    """The rule sets with a shipped book, in the presets' order."""
    return [rules for rules in PRESETS if shipped_path(rules).is_file()]


def encode_book(rules: str, players: str, games: Sequence[tuple[Sequence[str], str]]) -> bytes:
    """A book file's bytes: ``games`` as (moves, result), each cut to its first ``MAX_PLIES``
    moves; the same games give the same bytes."""
    body = {
        "format": FORMAT,
        "rules": rules,
        "players": players,
        "games": [[" ".join(moves[:MAX_PLIES]), result] for moves, result in games],
    }
    text = json.dumps(body, separators=(",", ":")).replace('],["', '],\n["')
    return gzip.compress(text.encode(), mtime=0)


def decode_book(data: bytes) -> Book:
    """A book file read. ``BookError`` if it is not one."""
    try:
        body = json.loads(gzip.decompress(data))
        rules = body["rules"]
        if body["format"] != FORMAT or rules not in PRESETS:
            raise BookError(f"not a book of format {FORMAT} of a preset rule set")
        games = [
            CountedGame(rules, moves.split(), RESULTS[result]) for moves, result in body["games"]
        ]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise BookError(f"not a book file: {error}") from None
    return Book(rules, hashlib.sha256(data).hexdigest(), games)


def read_book(path: Path) -> Book:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise BookError(f"cannot read the book {path}: {error.strerror}") from None
    return decode_book(data)
