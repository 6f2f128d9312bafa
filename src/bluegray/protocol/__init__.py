"""BGI, the Blue and Gray Interface: a line-based engine protocol modelled on UCI.

This module is the vocabulary both ends share, and it owns its words (as python-chess's
``chess.engine`` does): the commands and replies that carry values (``position``, ``go``,
``info``, ``option``, ``bestmove``) as value types with a ``parse`` and a ``str`` that is its
exact inverse, the search limits a ``go`` stands for (``Limit``) and the scores (``Score``). It
and ``client`` import only the rules core. ``server`` is the engine side (``bluegray engine``),
``client`` the side that starts an engine and talks to it, and ``player`` plays such an engine
as a player of the engine's registry (``engine:COMMAND``). docs/protocol.md is the
specification.

>>> str(Go.parse("depth 3 btime 60000".split()))
'go depth 3 btime 60000'
>>> Info.parse("info depth 2 score win 3 nodes 40 pv e7-d6 d6-e5").score
Score(kind='win', value=3)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import Final, Literal, TypeVar, cast

from bluegray.errors import BlueGrayError, InvalidNumberError, quoted
from bluegray.game import Game
from bluegray.moves import Move
from bluegray.numerals import MAX_INT64, parse_number
from bluegray.position import Position
from bluegray.rules import RuleSet

PROTOCOL_VERSION: Final = 1
"""Sent by the engine in the handshake as ``id protocol 1``."""
NO_MOVE: Final = "(none)"
"""What ``bestmove`` says when there is no move to play (the game is over, or an error)."""
ERROR_PREFIX: Final = "error "
"""An ``info string`` that starts with this reports a rejected command."""


class ProtocolError(BlueGrayError):
    """A command or reply that does not follow the protocol's grammar."""


def parse_integer(text: str, what: str, *, least: int | None = None, most: int = MAX_INT64) -> int:
    """A decimal integer (ASCII digits, optional minus sign) from ``least`` (by default
    ``-MAX_INT64``) to ``most``: every number of the protocol fits a signed 64-bit integer, and
    a longer text is refused before it is converted."""
    try:
        return parse_number(
            text, least=-MAX_INT64 if least is None else least, most=most, signed=True
        )
    except InvalidNumberError as error:
        raise ProtocolError(f"{what} {error}") from None


# -- scores ---------------------------------------------------------------------------------------


ScoreKind = Literal["cp", "win", "loss"]


@dataclass(frozen=True)
class Score:
    """What a search thinks of the position, from the side to move's point of view.

    ``cp N``: evaluation units (Elo points of expected score, see ``expected``); ``win N`` /
    ``loss N``: the side to move wins / loses with best play in ``N`` plies.
    """

    kind: ScoreKind
    value: int

    @classmethod
    def parse(cls, kind: str, value: str) -> Score:
        if kind not in ("cp", "win", "loss"):
            raise ProtocolError(f"score kind must be cp, win or loss, not {quoted(kind)}")
        least = None if kind == "cp" else 0
        return cls(cast(ScoreKind, kind), parse_integer(value, f"score {kind}", least=least))

    @property
    def expected(self) -> float:
        """The side to move's expected score, 0 to 1: ``cp N`` is ``N`` Elo points of it."""
        if self.kind == "cp":
            return 1 / (1 + 10 ** (-self.value / 400))
        return 1.0 if self.kind == "win" else 0.0

    def __str__(self) -> str:
        return f"{self.kind} {self.value}"


# -- limits -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Limit:
    """When a search should stop, as a ``go`` can say it: a depth in plies, a number of nodes,
    a time in seconds (``None``: no limit of that kind)."""

    depth: int | None = None
    nodes: int | None = None
    time: float | None = None


# -- info -----------------------------------------------------------------------------------------

_INFO_NUMBERS: Final = ("depth", "seldepth", "nodes", "nps", "time")


@dataclass(frozen=True)
class Info:
    """One ``info`` line: what the search has found so far, or a message (``string``)."""

    depth: int | None = None
    seldepth: int | None = None
    score: Score | None = None
    nodes: int | None = None
    nps: int | None = None
    time: int | None = None
    """Milliseconds since the search started."""
    pv: tuple[Move, ...] = ()
    string: str | None = None

    @property
    def error(self) -> str | None:
        """The message of an ``info string error ...`` line, else ``None``."""
        if self.string is not None and self.string.startswith(ERROR_PREFIX):
            return self.string[len(ERROR_PREFIX) :]
        return None

    @classmethod
    def parse(cls, line: str) -> Info:
        """An ``info`` line; keys it does not know are skipped with their one value. ``pv``'s
        moves run to the end of the line or to ``string``, whose text is the rest of the line."""
        words = line.split()
        if not words or words[0] != "info":
            raise ProtocolError(f"not an info line: {quoted(line)}")
        values: dict[str, object] = {}
        index = 1
        while index < len(words):
            key = words[index]
            if key == "string":
                rest = index + 1 < len(words)
                values["string"] = line.strip().split(None, index + 1)[-1] if rest else ""
                break
            if key == "pv":
                end = index + 1
                while end < len(words) and words[end] != "string":
                    end += 1
                values["pv"] = tuple(_move(word) for word in words[index + 1 : end])
                index = end
                continue
            width = 2 if key == "score" else 1
            if index + width >= len(words):
                raise ProtocolError(f"info {quoted(key)} without its value in {quoted(line)}")
            if key == "score":
                values["score"] = Score.parse(words[index + 1], words[index + 2])
            elif key in _INFO_NUMBERS:
                values[key] = parse_integer(words[index + 1], f"info {key}", least=0)
            index += 1 + width
        return cls(**values)  # type: ignore[arg-type]

    def __str__(self) -> str:
        """The line ``parse`` reads back as this ``Info`` (``string`` last: it runs to the end
        of the line)."""
        words = ["info"]
        for name in ("depth", "seldepth", "score", "nodes", "nps", "time"):
            value = getattr(self, name)
            if value is not None:
                words += [name, str(value)]
        if self.pv:
            words += ["pv", *(str(move) for move in self.pv)]
        if self.string is not None:
            words += ["string", self.string] if self.string else ["string"]
        return " ".join(words)


def _move(text: str) -> Move:
    try:
        return Move.parse(text)
    except BlueGrayError as error:
        raise ProtocolError(str(error)) from None


def parse_bestmove(line: str) -> Move | None:
    """The move of a ``bestmove`` line; ``None`` for ``bestmove (none)``."""
    words = line.split()
    if len(words) < 2 or words[0] != "bestmove":
        raise ProtocolError(f"not a bestmove line: {quoted(line)}")
    return None if words[1] == NO_MOVE else _move(words[1])


# -- go -------------------------------------------------------------------------------------------

_GO_LEAST: Final = {
    "depth": 1,
    "nodes": 1,
    "movetime": 1,
    "btime": None,
    "gtime": None,
    "binc": 0,
    "ginc": 0,
    "movestogo": 1,
}
"""The ``go`` parameters that take a number, with the least value each allows (clocks may be
negative: some match runners report an overrun that way)."""


@dataclass(frozen=True)
class Go:
    """The ``go`` command: the search's limits and the clocks. Times are in milliseconds."""

    depth: int | None = None
    nodes: int | None = None
    movetime: int | None = None
    btime: int | None = None
    gtime: int | None = None
    binc: int | None = None
    ginc: int | None = None
    movestogo: int | None = None
    infinite: bool = False

    @classmethod
    def parse(cls, words: Sequence[str]) -> Go:
        """The parameters of a ``go`` command (the words after ``go``)."""
        values: dict[str, object] = {}
        index = 0
        while index < len(words):
            key = words[index]
            if key in values:
                raise ProtocolError(f"go: {quoted(key)} given twice")
            if key == "infinite":
                values[key] = True
                index += 1
                continue
            if key not in _GO_LEAST:
                raise ProtocolError(
                    f"go: unknown parameter {quoted(key)}; parameters are: "
                    + ", ".join([*_GO_LEAST, "infinite"])
                )
            if index + 1 >= len(words):
                raise ProtocolError(f"go: {quoted(key)} needs a number")
            values[key] = parse_integer(words[index + 1], f"go {key}", least=_GO_LEAST[key])
            index += 2
        return cls(**values)  # type: ignore[arg-type]

    @classmethod
    def from_limit(cls, limit: Limit | None) -> Go:
        """The ``go`` for a search ``Limit`` (a bare ``go``, the engine's own choice, for
        none)."""
        if limit is None:
            return cls()
        movetime = None if limit.time is None else max(1, round(limit.time * 1000))
        return cls(depth=limit.depth, nodes=limit.nodes, movetime=movetime)

    def __str__(self) -> str:
        words = ["go"]
        for item in fields(self):
            value = getattr(self, item.name)
            if item.name == "infinite":
                if value:
                    words.append("infinite")
            elif value is not None:
                words += [item.name, str(value)]
        return " ".join(words)


# -- position -------------------------------------------------------------------------------------

_POSITION_KEYWORDS: Final = ("startpos", "fen", "moves")


@dataclass(frozen=True)
class PositionCommand:
    """The ``position`` command: a rule set, a start (``None``: the rule set's own), and the
    moves played from it.

    The rule-set text and the position text both contain spaces, so the keywords delimit them:
    ``position rules <rule set> [startpos | fen <4 fields>] [moves <move> ...]``. A rule-set word
    is a preset name or ``key=value``, never a keyword.
    """

    rules: RuleSet
    start: Position | None = None
    moves: tuple[Move, ...] = field(default=())

    @classmethod
    def parse(cls, words: Sequence[str]) -> PositionCommand:
        """The command from the words after ``position``: syntax, rule set and position text
        are checked; the moves' legality is ``game``'s to check."""
        if not words or words[0] != "rules":
            raise ProtocolError("position: expected 'rules <rule set>' first")
        index = 1
        while index < len(words) and words[index] not in _POSITION_KEYWORDS:
            index += 1
        if index == 1:
            raise ProtocolError("position: 'rules' needs a rule set, e.g. 'rules cooper'")
        rules = _checked(RuleSet.parse, " ".join(words[1:index]))
        start = None
        if index < len(words) and words[index] == "startpos":
            index += 1
        elif index < len(words) and words[index] == "fen":
            end = index + 1
            while end < len(words) and words[end] != "moves":
                end += 1
            text = " ".join(words[index + 1 : end])
            if end - index - 1 != 4:
                raise ProtocolError(
                    f"position: 'fen' needs the four fields of a position, not {quoted(text)}"
                )
            start = _checked(lambda text: Position.parse(text, rules), text)
            index = end
        moves: tuple[Move, ...] = ()
        if index < len(words):
            if words[index] != "moves":
                raise ProtocolError(
                    f"position: expected 'startpos', 'fen' or 'moves', not {quoted(words[index])}"
                )
            moves = tuple(_checked(Move.parse, word) for word in words[index + 1 :])
        return cls(rules, start, moves)

    @classmethod
    def from_game(cls, game: Game) -> PositionCommand:
        """The command that sets up ``game``: its start and every move since."""
        start = None if game.start == Position.start(game.rules) else game.start
        return cls(game.rules, start, tuple(game.moves))

    def game(self) -> Game:
        """The game the command describes; raises ``IllegalMoveError`` for a move that is not
        legal where it is played (the message names it)."""
        game = Game(self.rules, self.start)
        game.push_all(self.moves)
        return game

    def __str__(self) -> str:
        words = ["position", "rules", str(self.rules)]
        words += ["startpos"] if self.start is None else ["fen", str(self.start)]
        if self.moves:
            words += ["moves", *(str(move) for move in self.moves)]
        return " ".join(words)


_T = TypeVar("_T")


def _checked(parse: Callable[[str], _T], text: str) -> _T:
    try:
        return parse(text)
    except BlueGrayError as error:
        raise ProtocolError(f"position: {error}") from None


# -- options --------------------------------------------------------------------------------------

OptionType = Literal["spin", "check", "combo", "string", "button"]
_OPTION_TYPES: Final = ("spin", "check", "combo", "string", "button")
_OPTION_KEYWORDS: Final = ("type", "default", "min", "max")


@dataclass(frozen=True)
class Option:
    """An ``option`` line of the handshake: a setting the engine offers for ``setoption``."""

    name: str
    type: OptionType
    default: str | None = None
    min: int | None = None
    max: int | None = None
    vars: tuple[str, ...] = ()

    @classmethod
    def parse(cls, line: str) -> Option:
        """An ``option`` line; the keywords delimit the name and the values (which may hold
        spaces)."""
        words = line.split()
        if words[:2] != ["option", "name"]:
            raise ProtocolError(f"not an option line: {quoted(line)}")
        parts: dict[str, list[str]] = {"name": []}
        variants: list[list[str]] = []
        key = "name"
        for word in words[2:]:
            if word == "var":
                variants.append([])
                key = word
            elif word in _OPTION_KEYWORDS:
                key = word
                parts[key] = []
            elif key == "var":
                variants[-1].append(word)
            else:
                parts[key].append(word)
        kind = " ".join(parts.get("type", []))
        if not parts["name"] or kind not in _OPTION_TYPES:
            raise ProtocolError(f"option line needs a name and a known type: {quoted(line)}")
        default = parts.get("default")
        return cls(
            " ".join(parts["name"]),
            kind,  # type: ignore[arg-type]
            None if default is None else " ".join(default),
            _option_bound(parts, "min", line),
            _option_bound(parts, "max", line),
            tuple(" ".join(words) for words in variants),
        )

    def __str__(self) -> str:
        words = ["option", "name", self.name, "type", self.type]
        if self.default is not None:
            words += ["default", self.default]
        if self.min is not None:
            words += ["min", str(self.min)]
        if self.max is not None:
            words += ["max", str(self.max)]
        for var in self.vars:
            words += ["var", var]
        return " ".join(words)


def _option_bound(parts: dict[str, list[str]], key: str, line: str) -> int | None:
    if key not in parts:
        return None
    return parse_integer(" ".join(parts[key]), f"option {key} in {quoted(line)}")
