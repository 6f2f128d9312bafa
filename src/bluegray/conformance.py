"""Checking conformance vectors (docs/rules-reference.md §7): perft counts, legal-move lists and
whole games.

Each line of a JSON Lines file is one vector; its kind is told by its keys, line by line. A
vector that cannot be parsed is a failure with a message saying why, never a silent skip.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bluegray.errors import BlueGrayError
from bluegray.game import Game
from bluegray.perft import perft
from bluegray.position import Position
from bluegray.rules import RuleSet

PERFT = "perft"
POSITIONS = "positions"
GAMES = "games"

_KEYS = {
    PERFT: ({"rules", "position", "depth", "nodes"}, set()),
    POSITIONS: ({"rules", "position", "moves"}, set()),
    GAMES: ({"rules", "moves", "result", "final"}, {"start"}),
}


class VectorFormatError(BlueGrayError):
    """A conformance vector that is not in the docs/rules-reference.md §7 format."""


@dataclass(frozen=True)
class VectorResult:
    """The check of one vector: where it is, what kind it is, and why it failed (if it did)."""

    source: str
    line: int
    kind: str | None
    failure: str | None = None

    @property
    def passed(self) -> bool:
        return self.failure is None

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}"
        if self.passed:
            return f"{where}: {self.kind} ok"
        return f"{where}: {self.kind or 'unparsable'} FAILED: {self.failure}"


def vector_kind(vector: object) -> str:
    """The kind of a parsed vector (``perft``, ``positions`` or ``games``), told by its keys."""
    if not isinstance(vector, dict):
        raise VectorFormatError(f"a vector must be a JSON object, not {type(vector).__name__}")
    keys = set(vector)
    for kind, (required, optional) in _KEYS.items():
        if required <= keys <= required | optional:
            return kind
    raise VectorFormatError(
        f"keys {sorted(keys)} match no vector kind (perft: rules, position, depth, nodes; "
        "positions: rules, position, moves; games: rules, start?, moves, result, final)"
    )


def _field(vector: dict[str, Any], key: str, kind: type) -> Any:
    value = vector[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise VectorFormatError(f"{key!r} must be a {kind.__name__}, not {value!r}")
    return value


def _move_list(vector: dict[str, Any]) -> list[str]:
    moves = _field(vector, "moves", list)
    if not all(isinstance(move, str) for move in moves):
        raise VectorFormatError("'moves' must be a list of move texts")
    return [str(move) for move in moves]


def check_vector(vector: object) -> str | None:
    """Check one parsed vector; ``None`` if it passes, else why it failed.

    Raises ``VectorFormatError`` (or another ``BlueGrayError``) for a vector that cannot be read.
    """
    kind = vector_kind(vector)
    assert isinstance(vector, dict)
    rules = RuleSet.parse(_field(vector, "rules", str))
    if kind == PERFT:
        return _check_perft(vector, rules)
    if kind == POSITIONS:
        return _check_positions(vector, rules)
    return _check_game(vector, rules)


def _check_perft(vector: dict[str, Any], rules: RuleSet) -> str | None:
    position = Position.parse(_field(vector, "position", str), rules)
    depth = _field(vector, "depth", int)
    expected = _field(vector, "nodes", int)
    if depth < 0:
        raise VectorFormatError(f"depth must be >= 0, not {depth}")
    nodes = perft(position, depth)
    if nodes != expected:
        return f"perft {depth} of {position} is {nodes}, expected {expected}"
    return None


def _check_positions(vector: dict[str, Any], rules: RuleSet) -> str | None:
    text = _field(vector, "position", str)
    expected = _move_list(vector)
    position = Position.parse(text, rules)
    if str(position) != text:
        return f"position {text!r} prints back as {str(position)!r}"
    moves = [str(move) for move in position.legal_moves()]
    if moves != expected:
        missing = sorted(set(expected) - set(moves))
        extra = sorted(set(moves) - set(expected))
        return (
            f"legal moves of {text} differ: missing {missing}, unexpected {extra}"
            if missing or extra
            else f"legal moves of {text} are not in sorted order: {moves}"
        )
    return None


def _check_game(vector: dict[str, Any], rules: RuleSet) -> str | None:
    start = vector.get("start")
    if start is not None and not isinstance(start, str):
        raise VectorFormatError(f"'start' must be a position text, not {start!r}")
    moves = _move_list(vector)
    final = _field(vector, "final", str)
    result = _field(vector, "result", dict)
    if set(result) != {"winner", "reason"} or result["winner"] not in ("blue", "gray", None):
        raise VectorFormatError(f"'result' must be {{winner: blue|gray|null, reason}}: {result}")
    game = Game(rules, start)
    for index, move in enumerate(moves):
        outcome = game.outcome()
        if outcome is not None:
            return f"game ended before move {index + 1} ({move}): {outcome.describe()}"
        try:
            game.push(move)
        except BlueGrayError as error:
            return f"move {index + 1} ({move}) rejected: {error}"
    outcome = game.outcome()
    if outcome is None:
        return f"the game is not over after the last move; position {game.position}"
    winner = None if outcome.winner is None else outcome.winner.value
    if (winner, outcome.termination.value) != (result["winner"], result["reason"]):
        return (
            f"the game ended with winner {winner}, reason {outcome.termination.value}; "
            f"expected winner {result['winner']}, reason {result['reason']}"
        )
    if str(game.position) != final:
        return f"final position {game.position}, expected {final}"
    return None


def check_lines(lines: Iterator[str] | list[str], source: str) -> Iterator[VectorResult]:
    """Check every vector in JSON Lines text; blank lines are skipped."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        kind = None
        try:
            vector = json.loads(line)
            kind = vector_kind(vector)
            failure = check_vector(vector)
        except json.JSONDecodeError as error:
            failure = f"cannot parse vector: not JSON ({error})"
        except (BlueGrayError, KeyError) as error:
            failure = f"cannot parse vector: {error}"
        yield VectorResult(source, number, kind, failure)


def check_file(path: str | Path) -> list[VectorResult]:
    """Check every vector of a conformance file; a file with no vectors is itself a failure."""
    path = Path(path)
    with path.open(encoding="utf-8") as file:
        results = list(check_lines(iter(file), str(path)))
    if not results:
        results.append(VectorResult(str(path), 0, None, "the file holds no vectors"))
    return results
