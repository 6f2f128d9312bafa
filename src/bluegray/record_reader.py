"""The reader of game records: text (one record or a file of many) into ``GameRecord``s, each
move checked by the rules and each problem reported as an ``InvalidRecordError`` naming the game,
the line and the offending text (``docs/records.md``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final, TextIO

from bluegray.errors import BlueGrayError, IllegalMoveError, InvalidRecordError, quoted
from bluegray.game import Game
from bluegray.game_record import (
    TAG_NAME,
    UNFINISHED,
    GameRecord,
    check_tag,
    escape,
    normal_comment,
)
from bluegray.moves import Move
from bluegray.outcome import RESULT_TOKENS, Outcome, Termination, winner_from_result
from bluegray.pieces import Side
from bluegray.rules import DEFAULT_RULES_NAME, RuleSet

_NUMBER: Final = re.compile(r"(\d+)(\.\.\.|\.)(.*)")
_RESULT_CHARACTERS: Final = frozenset("0123456789/½*-")
"""What a result token is made of: a word of these holding one of ``/*-`` was meant as one."""
_WORD_END: Final = re.compile(r"[\s{}\[]")
_BLANK: Final = re.compile(r"\s+")


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
    match = TAG_NAME.match(text, i)
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
        shown = f'[{token.text} "{escape(token.value)}"]'
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
                check_tag(name, value)
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
        comments = {ply: normal_comment(" ".join(texts)) for ply, texts in self.comments.items()}
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
