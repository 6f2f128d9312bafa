"""Game records: a PGN-like text of tag pairs and numbered moves, read and written byte for byte.

The format is specified in ``docs/records.md``; python-chess's ``chess.pgn`` is the model.
"""

from __future__ import annotations

import datetime
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Final, TextIO

from bluegray.errors import BlueGrayError, IllegalMoveError, InvalidRecordError, quoted
from bluegray.game import Game
from bluegray.moves import Move
from bluegray.outcome import RESULT_TOKENS, Outcome, Termination, winner_from_result
from bluegray.pieces import Side
from bluegray.position import Position
from bluegray.rules import DEFAULT_RULES_NAME, RuleSet

ROSTER: Final = ("Event", "Site", "Date", "Blue", "Gray", "Result", "Rules")
"""The tags every written record has, in this order."""

GAME_TAGS: Final = ("Result", "Rules", "Position", "Termination")
"""Tags that state facts of the game itself: the writer takes them from the game, never from
``GameRecord.tags``, so a record cannot contradict its own moves."""

UNKNOWN: Final = "?"
UNKNOWN_DATE: Final = "????.??.??"
UNFINISHED: Final = "*"
LINE_LENGTH: Final = 79

_TAG_NAME: Final = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_DATE: Final = re.compile(r"(\d{4}|\?{4})\.(\d{2}|\?{2})\.(\d{2}|\?{2})")
_NUMBER: Final = re.compile(r"(\d+)(\.\.\.|\.)(.*)")
_RESULT_CHARACTERS: Final = frozenset("0123456789/½*-")
"""What a result token is made of: a word of these holding one of ``/*-`` was meant as one."""
_WORD_END: Final = re.compile(r"[\s{}\[]")
_BLANK: Final = re.compile(r"\s+")


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
            _check_tag(name, value)
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
    lines = [f'[{name} "{_escape(value)}"]' for name, value in record.header().items()]
    return "\n".join(lines) + "\n\n" + record.movetext() + "\n"


def write_records(records: Iterable[GameRecord]) -> str:
    """The text of several records, separated by one blank line."""
    return "\n".join(write_record(record) for record in records)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _check_tag(name: str, value: str) -> None:
    if not isinstance(name, str) or not _TAG_NAME.fullmatch(name):
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


def _normal_comment(text: str) -> str:
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
        words.append("{" + _normal_comment(comments[0]) + "}")
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
            words.append("{" + _normal_comment(comments[ply]) + "}")
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


# -- reading -----------------------------------------------------------------------------------


class _TokenError(Exception):
    """A syntax problem found by the tokenizer, before the reader knows which game it is in."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


_TAG, _COMMENT, _WORD = "tag", "comment", "word"


@dataclass(frozen=True)
class _Token:
    kind: str
    text: str
    line: int
    value: str = ""
    """The value of a tag (``text`` is then its name)."""


def _tokens(text: str) -> Iterator[_Token]:
    """The tag pairs, comments and words of a record text; whitespace only separates them."""
    i = 0
    line = 1
    end = len(text)
    while i < end:
        char = text[i]
        blank = _BLANK.match(text, i)
        if blank is not None:
            line += blank.group().count("\n")
            i = blank.end()
        elif char == "[":
            token, i = _tag(text, i, line)
            yield token
        elif char == "{":
            close = text.find("}", i + 1)
            if close < 0:
                raise _TokenError(line, f"unterminated comment {_excerpt(text[i:])!r}: no '}}'")
            body = text[i + 1 : close]
            yield _Token(_COMMENT, body, line)
            line += body.count("\n")
            i = close + 1
        elif char == "}":
            raise _TokenError(
                line, f"'}}' without a '{{' before it, in {quoted(_line_at(text, i))}"
            )
        else:
            match = _WORD_END.search(text, i)
            stop = end if match is None else match.start()
            yield _Token(_WORD, text[i:stop], line)
            i = stop


def _tag(text: str, start: int, line: int) -> tuple[_Token, int]:
    """The tag pair at ``text[start] == "["``, and where it ends; ``[Name "value"]`` on one
    line, spaces allowed around the parts."""

    def problem(why: str) -> _TokenError:
        # The line is found only for the message: looking for it at every tag would read a
        # long line once per tag on it.
        return _TokenError(line, f"malformed tag line {quoted(_line_at(text, start))}: {why}")

    i = start + 1
    i = _skip_blanks(text, i)
    match = _TAG_NAME.match(text, i)
    if match is None:
        raise problem('expected [Name "value"], the name a letter then letters, digits or _')
    name = match.group()
    i = match.end()
    after_name = _skip_blanks(text, i)
    if after_name == i or after_name >= len(text) or text[after_name] != '"':
        raise problem(f'expected a space and a "quoted value" after the tag name {quoted(name)}')
    i = after_name + 1
    value: list[str] = []
    while True:
        if i >= len(text) or text[i] == "\n":
            raise problem("the value has no closing '\"'")
        char = text[i]
        if char == '"':
            break
        if char == "\\":
            escaped = text[i + 1 : i + 2]
            if escaped not in ('"', "\\"):
                raise problem(f"unknown escape '\\{escaped}': only \\\\ and \\\" are escapes")
            value.append(escaped)
            i += 2
            continue
        value.append(char)
        i += 1
    i = _skip_blanks(text, i + 1)
    if i >= len(text) or text[i] != "]":
        raise problem("expected ']' after the value")
    return _Token(_TAG, name, line, "".join(value)), i + 1


def _looks_like_a_result(word: str) -> bool:
    """Whether a word that is no move was meant as a result token (``1:0`` is not; ``2-0``
    is). A set test rather than a regular expression, which backtracked over long words."""
    return set(word) <= _RESULT_CHARACTERS and any(char in "/*-" for char in word)


def _skip_blanks(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t":
        i += 1
    return i


def _line_at(text: str, i: int) -> str:
    start = text.rfind("\n", 0, i) + 1
    stop = text.find("\n", i)
    return text[start : len(text) if stop < 0 else stop].strip()


def _excerpt(text: str, length: int = 40) -> str:
    first = text.split("\n", 1)[0]
    return first if len(first) <= length else first[:length] + "..."


class _GameReader:
    """Builds one game from its tokens; every problem becomes an ``InvalidRecordError`` that
    names the game, the line and the offending text."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.tags: dict[str, str] = {}
        self.tag_lines: dict[str, int] = {}
        self.comments: dict[int, list[str]] = {}
        """The comments after each ply, joined only at the end: joining each to the ones before
        as it came would make a record of n comments cost n² characters."""
        self.game: Game | None = None
        self.pending: _Token | None = None  # a move number waiting for its move
        self.comment_line = 0  # where the first comment is

    def error(self, line: int, message: str) -> InvalidRecordError:
        return InvalidRecordError(f"game {self.index}, line {line}: {message}")

    def only_comments(self) -> bool:
        """Whether this 'game' is only comments following another game's result token."""
        return (
            self.index > 1
            and not self.tags
            and self.game is not None
            and self.game.ply == 0
            and bool(self.comments)
        )

    def feed(self, token: _Token) -> GameRecord | None:
        """Take one token; the finished record once the result token arrives."""
        if token.kind == _TAG:
            self._tag(token)
            return None
        if token.kind == _COMMENT:
            game = self._game(token.line)
            self.comment_line = self.comment_line or token.line
            self.comments.setdefault(game.ply, []).append(token.text)
            return None
        word = token.text
        if word in RESULT_TOKENS or word == UNFINISHED:
            return self._finish(token)
        game = self._game(token.line)
        number = _NUMBER.fullmatch(word)
        if number is not None:
            self._number(game, token, number.group(1) + number.group(2))
            if number.group(3):  # a number written against its move: "1.d2-d3"
                return self.feed(_Token(_WORD, number.group(3), token.line))
            return None
        self._move(game, token)
        return None

    def _tag(self, token: _Token) -> None:
        shown = f'[{token.text} "{_escape(token.value)}"]'
        if self.only_comments():
            raise self.error(
                self.comment_line,
                f"a comment after the result token of game {self.index - 1}: comments stand "
                "before the result token",
            )
        if self.game is not None:
            raise self.error(
                token.line,
                f"tag {shown} after the move text: the moves before it have no result token "
                "(1-0, 0-1, 1/2-1/2 or *)",
            )
        if token.text in self.tags:
            raise self.error(
                token.line,
                f"tag {shown} given twice (first on line {self.tag_lines[token.text]})",
            )
        self.tags[token.text] = token.value
        self.tag_lines[token.text] = token.line

    def _game(self, line: int) -> Game:
        """The game the tags set up, made when the move text begins."""
        if self.game is not None:
            return self.game
        tags = self.tags

        def where(name: str) -> int:
            return self.tag_lines.get(name, line)

        for name, value in tags.items():
            try:
                _check_tag(name, value)
            except InvalidRecordError as error:
                raise self.error(where(name), str(error)) from None
        for name in ("Result", "Termination"):
            self._check_token(name, where(name))
        rules_text = tags.get("Rules", DEFAULT_RULES_NAME)
        try:
            rules = RuleSet.parse(rules_text)
        except BlueGrayError as error:
            raise self.error(where("Rules"), f"Rules tag {quoted(rules_text)}: {error}") from None
        position = tags.get("Position")
        try:
            self.game = Game(rules, position)
        except BlueGrayError as error:
            raise self.error(
                where("Position"), f"Position tag {quoted(position or '')} under {rules}: {error}"
            ) from None
        return self.game

    def _check_token(self, name: str, line: int) -> None:
        value = self.tags.get(name)
        if value is None:
            return
        if name == "Result" and value not in (*RESULT_TOKENS, UNFINISHED):
            raise self.error(
                line,
                f"unknown result {quoted(value)} in the Result tag: expected 1-0, 0-1, 1/2-1/2 "
                "or *",
            )
        if name == "Termination" and value not in {t.value for t in Termination}:
            raise self.error(
                line,
                f"unknown termination {quoted(value)} in the Termination tag: expected one of "
                + ", ".join(t.value for t in Termination),
            )

    def _expected_number(self, game: Game) -> str:
        start = game.start
        plies = game.ply + (start.turn is Side.GRAY)
        return f"{start.number + plies // 2}{'.' if plies % 2 == 0 else '...'}"

    def _number(self, game: Game, token: _Token, number: str) -> None:
        if self.pending is not None:
            raise self.error(
                token.line, f"move number {quoted(self.pending.text)} is not followed by a move"
            )
        expected = self._expected_number(game)
        if number != expected:
            raise self.error(
                token.line,
                f"move number {quoted(number)} does not match the position: {game.turn.title} "
                f"is to move, so the number is {expected!r}",
            )
        self.pending = token

    def _move(self, game: Game, token: _Token) -> None:
        self.pending = None
        text = token.text
        label = f"move {self._expected_number(game)} {quoted(text)}"
        try:
            move = Move.parse(text)
        except BlueGrayError as error:
            if _looks_like_a_result(text):
                raise self.error(
                    token.line,
                    f"unknown result token {quoted(text)}: expected 1-0, 0-1, 1/2-1/2 or *",
                ) from None
            raise self.error(token.line, f"{label} is not move text: {error}") from None
        outcome = game.outcome()
        if outcome is not None:
            raise self.error(
                token.line,
                f"{label} comes after the end of the game ({outcome.describe()})",
            )
        try:
            game.push(move)
        except IllegalMoveError as error:
            raise self.error(token.line, f"{label} is illegal: {error}") from None

    def _finish(self, token: _Token) -> GameRecord:
        game = self._game(token.line)
        if self.pending is not None:
            raise self.error(
                self.pending.line,
                f"move number {quoted(self.pending.text)} is not followed by a move",
            )
        result = token.text
        tagged = self.tags.get("Result")
        if tagged is not None and tagged != result:
            raise self.error(
                token.line,
                f"result token {quoted(result)} differs from the Result tag {quoted(tagged)} "
                f"(line {self.tag_lines['Result']})",
            )
        termination_text = self.tags.get("Termination")
        termination = None if termination_text is None else Termination(termination_text)
        outcome = game.outcome()
        if outcome is not None:
            if result != outcome.result:
                raise self.error(
                    token.line,
                    f"result {quoted(result)} contradicts the moves: the game is over by the rules "
                    f"with {outcome.result} ({outcome.describe()})",
                )
            if termination is not None and termination is not outcome.termination:
                raise self.error(
                    self.tag_lines["Termination"],
                    f"Termination {termination_text!r} contradicts the moves: the game ended "
                    f"by {outcome.termination.value!r} ({outcome.describe()})",
                )
        elif result == UNFINISHED:
            if termination is not None:
                raise self.error(
                    self.tag_lines["Termination"],
                    f"Termination {termination_text!r} for an unfinished game (result '*')",
                )
        else:
            game.declare(self._declared(result, termination, game))
        comments = {ply: _normal_comment(" ".join(texts)) for ply, texts in self.comments.items()}
        return GameRecord(game, self.tags, comments)

    def _declared(self, result: str, termination: Termination | None, game: Game) -> Outcome:
        """The ending outside the rules that a result on an unfinished game records; with no
        Termination tag it is taken to be an agreement."""
        winner = winner_from_result(result)
        if termination is None:
            return Outcome(Termination.AGREEMENT, winner)
        line = self.tag_lines["Termination"]
        if termination.by_rules:
            raise self.error(
                line,
                f"Termination {termination.value!r} contradicts the moves: the rules have not "
                f"ended the game ({game.turn.title} is to move in {game.position})",
            )
        if winner is None and termination is not Termination.AGREEMENT:
            raise self.error(
                line,
                f"Termination {termination.value!r} with the draw 1/2-1/2: only an agreement "
                "can draw a game the rules have not ended",
            )
        return Outcome(termination, winner)


def read_records(source: str | TextIO) -> Iterator[GameRecord]:
    """Every record in a text or text file, in order.

    Whitespace only separates (any amount, ``\\r\\n`` included); the content is checked
    strictly, and the first problem raises ``InvalidRecordError`` naming the game, the line,
    the offending text and why. Records before it have already been yielded. A file is read
    whole before the first record is made.
    """
    text = source if isinstance(source, str) else source.read()
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    index = 0
    last_line = 1
    reader: _GameReader | None = None
    tokens = _tokens(text)
    while True:
        try:
            token = next(tokens, None)
        except _TokenError as problem:
            number = index if reader is not None else index + 1
            raise InvalidRecordError(
                f"game {number}, line {problem.line}: {problem.message}"
            ) from None
        if token is None:
            break
        last_line = token.line
        if reader is None:
            index += 1
            reader = _GameReader(index)
        record = reader.feed(token)
        if record is not None:
            yield record
            reader = None
    if reader is not None:
        if reader.only_comments():
            raise reader.error(
                reader.comment_line,
                f"a comment after the result token of game {index - 1}: comments stand "
                "before the result token",
            )
        raise reader.error(
            last_line, "the game has no result token (1-0, 0-1, 1/2-1/2 or *) at its end"
        )


def read_record(text: str | TextIO) -> GameRecord:
    """The one record in a text; ``InvalidRecordError`` if it holds none or several."""
    records = read_records(text)
    first = next(records, None)
    if first is None:
        raise InvalidRecordError("no game record in the text: expected exactly one")
    if next(records, None) is not None:
        raise InvalidRecordError(
            "more than one game record in the text: expected exactly one (use read_records)"
        )
    return first
