"""A game record (``GameRecord``: a game with its tags and comments) and how it is written: the
tag pairs in the roster's order and the numbered move text, wrapped (``docs/records.md``).

``record_reader`` reads what this writes, byte for byte; ``bluegray.record`` is where both are
imported from.
"""

from __future__ import annotations

import datetime
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from bluegray.errors import InvalidRecordError, quoted
from bluegray.game import Game
from bluegray.pieces import Side
from bluegray.position import Position

ROSTER: Final = ("Event", "Site", "Date", "Blue", "Gray", "Result", "Rules")
"""The tags every written record has, in this order."""

GAME_TAGS: Final = ("Result", "Rules", "Position", "Termination")
"""Tags that state facts of the game itself: the writer takes them from the game, never from
``GameRecord.tags``, so a record cannot contradict its own moves."""

UNKNOWN: Final = "?"
UNKNOWN_DATE: Final = "????.??.??"
UNFINISHED: Final = "*"
LINE_LENGTH: Final = 79

TAG_NAME: Final = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_DATE: Final = re.compile(r"(\d{4}|\?{4})\.(\d{2}|\?{2})\.(\d{2}|\?{2})")


@dataclass(eq=False)
class GameRecord:
    """A game with its tags and comments: what one record of a file holds.

    ``comments`` maps a ply number to the comment standing after that move (0: before the
    first). Records compare by identity, as their ``Game`` does.

    >>> game = Game("cooper")
    >>> game.push_all(["d2-d3", "f8-f7"])
    >>> record = GameRecord.from_game(game, Event="Club night")
    >>> print(record.movetext())
    1. d2-d3 f8-f7 *
    >>> from bluegray.record import read_record
    >>> read_record(str(record)).game.moves == game.moves
    True
    """

    game: Game
    tags: dict[str, str] = field(default_factory=dict)
    comments: dict[int, str] = field(default_factory=dict)

    @classmethod
    def from_game(cls, game: Game, **tags: str) -> GameRecord:
        """A record of ``game`` whose tags are the full roster and then ``tags``; unknown roster
        tags are ``?`` (the Date ``????.??.??``).

        Tags that the game decides (Result, Rules, Position, Termination) may be given only
        with the game's own value, so a contradiction shows up here and not in a file.
        """
        record = cls(game, dict(tags))
        header = record.header()
        for name in GAME_TAGS:
            actual = header.get(name)
            if name in tags and tags[name] != actual:
                what = f"has no {name}" if actual is None else f"says {actual!r}"
                raise InvalidRecordError(
                    f"tag {name} {tags[name]!r} contradicts the game, which {what}: the game "
                    "decides that tag"
                )
        record.tags = header
        return record

    def header(self) -> dict[str, str]:
        """The tags as they are written: the roster in order, with the game's own Result and
        Rules, then Position and Termination when they apply, then the other tags in order."""
        game = self.game
        outcome = game.outcome()
        header = {
            name: self.tags.get(name, UNKNOWN_DATE if name == "Date" else UNKNOWN)
            for name in ROSTER[:5]
        }
        header["Result"] = UNFINISHED if outcome is None else outcome.result
        header["Rules"] = str(game.rules)
        if game.start != Position.start(game.rules):
            header["Position"] = str(game.start)
        if outcome is not None:
            header["Termination"] = outcome.termination.value
        for name, value in self.tags.items():
            if name not in header and name not in GAME_TAGS:
                header[name] = value
        for name, value in header.items():
            check_tag(name, value)
        return header

    def movetext(self) -> str:
        """The numbered moves, comments and result token, wrapped at 79 characters."""
        return _wrap(_movetext_words(self))

    def __str__(self) -> str:
        return write_record(self)

    def __repr__(self) -> str:
        return f"<GameRecord {self.tags.get('Event', UNKNOWN)!r} {self.game!r}>"


# -- writing -----------------------------------------------------------------------------------


def write_record(record: GameRecord) -> str:
    """The text of one record: tag lines, a blank line, the move text, and a final newline.

    Raises ``InvalidRecordError`` for what cannot be written so that it reads back the same: a
    bad tag name, date or value, a comment holding ``}``, or a comment after no move.
    """
    lines = [f'[{name} "{escape(value)}"]' for name, value in record.header().items()]
    return "\n".join(lines) + "\n\n" + record.movetext() + "\n"


def write_records(records: Iterable[GameRecord]) -> str:
    """The text of several records, separated by one blank line."""
    return "\n".join(write_record(record) for record in records)


def escape(value: str) -> str:
    """A tag value as it stands between the quotes of a tag pair."""
    return value.replace("\\", "\\\\").replace('"', '\\"')


def check_tag(name: str, value: str) -> None:
    """Raise ``InvalidRecordError`` for a tag that would not read back as it was written."""
    if not isinstance(name, str) or not TAG_NAME.fullmatch(name):
        raise InvalidRecordError(
            f"invalid tag name {quoted(name)}: a letter followed by letters, digits or underscores"
        )
    if not isinstance(value, str):
        raise InvalidRecordError(f"invalid value {quoted(value)} of tag {name}: expected text")
    # A control character (a line break above all) would not survive a line-based tag pair.
    for char in value:
        if char != "\t" and unicodedata.category(char) == "Cc":
            raise InvalidRecordError(
                f"invalid value {quoted(value)} of tag {name}: it holds the control character "
                f"{char!r}, and tag values are one line"
            )
    if name == "Date":
        _check_date(value)


def _check_date(value: str) -> None:
    match = _DATE.fullmatch(value)
    why = None
    if match is None:
        why = "expected YYYY.MM.DD, with ???? or ?? for unknown parts"
    else:
        year, month, day = (None if "?" in part else int(part) for part in match.groups())
        if month is not None and not 1 <= month <= 12:
            why = "the month must be 01 to 12"
        elif day is not None and not 1 <= day <= 31:
            why = "the day must be 01 to 31"
        elif year is not None and month is not None and day is not None:
            try:
                datetime.date(year, month, day)
            except ValueError:
                why = "there is no such day"
    if why is not None:
        raise InvalidRecordError(f"invalid Date {quoted(value)}: {why}")


def normal_comment(text: str) -> str:
    """A comment with its whitespace collapsed: the writer may break a line inside it."""
    return " ".join(text.split())


def _movetext_words(record: GameRecord) -> list[str]:
    game = record.game
    moves = game.moves
    comments = record.comments
    for ply, text in comments.items():
        if not isinstance(ply, int) or isinstance(ply, bool) or not 0 <= ply <= len(moves):
            raise InvalidRecordError(
                f"comment {text!r} stands after ply {ply!r}, but the game has plies 0 to "
                f"{len(moves)}"
            )
        if not isinstance(text, str) or "}" in text:
            raise InvalidRecordError(f"invalid comment {text!r}: a comment cannot hold '}}'")
    words: list[str] = []
    if 0 in comments:
        words.append("{" + normal_comment(comments[0]) + "}")
    number = game.start.number
    blue = game.start.turn is Side.BLUE
    after_blue = False  # Gray's move straight after Blue's shares Blue's number
    for ply, move in enumerate(moves, start=1):
        if blue:
            words.append(f"{number}.")
        elif not after_blue:
            words.append(f"{number}...")
        words.append(str(move))
        after_blue = blue
        if not blue:
            number += 1
        blue = not blue
        if ply in comments:
            words.append("{" + normal_comment(comments[ply]) + "}")
            after_blue = False
    outcome = game.outcome()
    words.append(UNFINISHED if outcome is None else outcome.result)
    return words


def _wrap(words: list[str]) -> str:
    """Words joined by spaces, broken into lines of at most 79 characters (a longer word stands
    on a line of its own); breaking only at spaces keeps the output deterministic."""
    lines: list[str] = []
    line = ""
    for word in " ".join(words).split(" "):
        if not line:
            line = word
        elif len(line) + 1 + len(word) <= LINE_LENGTH:
            line += " " + word
        else:
            lines.append(line)
            line = word
    lines.append(line)
    return "\n".join(lines)


__all__ = [
    "GAME_TAGS",
    "LINE_LENGTH",
    "ROSTER",
    "UNFINISHED",
    "UNKNOWN",
    "UNKNOWN_DATE",
    "GameRecord",
    "write_record",
    "write_records",
]
