"""The ``Move`` value type and its §6 notation: ``d2-d3`` for steps and captain moves,
``b2xb4xd4`` for captures (the start and every landing point)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from bluegray.errors import InvalidMoveError, InvalidPointError, quoted
from bluegray.points import Point, parse_point, point_file, point_name, point_rank


@dataclass(frozen=True, slots=True)
class Move:
    """A move: the points it visits, and whether it is a capture.

    ``str(move)`` is its notation and :meth:`Move.parse` the exact inverse:

    >>> move = Move.parse("b2xb4xd4")
    >>> move.points == (Move.parse("b2-b4").from_point, 28, 30)
    True
    >>> str(move)
    'b2xb4xd4'
    """

    points: tuple[Point, ...]
    capture: bool = False

    def __post_init__(self) -> None:
        _check_shape(self.points, self.capture)

    @property
    def from_point(self) -> Point:
        """Where the moving piece starts."""
        return self.points[0]

    @property
    def to_point(self) -> Point:
        """Where the moving piece ends."""
        return self.points[-1]

    @property
    def captured_points(self) -> tuple[Point, ...]:
        """The points of the pieces a capture jumps over, in order (empty for other moves)."""
        if not self.capture:
            return ()
        return tuple((a + b) // 2 for a, b in zip(self.points, self.points[1:], strict=False))

    def __str__(self) -> str:
        separator = "x" if self.capture else "-"
        return separator.join(point_name(point) for point in self.points)

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    @classmethod
    def step(cls, from_point: Point, to_point: Point) -> Move:
        """A step or captain move from one point to another."""
        return cls((from_point, to_point))

    @classmethod
    def parse(cls, text: str) -> Move:
        """The move written ``text`` in §6 notation (no legality check: see ``Game.parse_move``)."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"invalid move {text!r}: expected move text like 'd2-d3'")
        has_step = "-" in text
        has_capture = "x" in text
        if has_step and has_capture:
            raise InvalidMoveError(
                f"invalid move {quoted(text)}: a move is either a step (a-b) or a capture "
                "(axbxc), never both"
            )
        if not has_step and not has_capture:
            raise InvalidMoveError(
                f"invalid move {quoted(text)}: expected points joined by '-' (a step, 'd2-d3') "
                "or by 'x' (a capture, 'b2xb4')"
            )
        names = text.split("x" if has_capture else "-")
        try:
            points = tuple(parse_point(name) for name in names)
        except InvalidPointError as error:
            raise InvalidMoveError(f"invalid move {quoted(text)}: {error}") from None
        return cls(points, has_capture)


def _check_shape(points: tuple[Point, ...], capture: bool) -> None:
    """Refuse point sequences no move can have: steps of one hop, captures of two-point jumps."""
    if not isinstance(points, tuple) or not all(
        isinstance(p, int) and not isinstance(p, bool) and 0 <= p < 81 for p in points
    ):
        raise InvalidMoveError(f"invalid move {points!r}: points must be a tuple of points 0-80")
    text = repr(("x" if capture else "-").join(point_name(point) for point in points))
    if not capture:
        if len(points) != 2:
            raise InvalidMoveError(
                f"invalid move {text}: a step or captain move has exactly two points (from-to)"
            )
        if points[0] == points[1]:
            raise InvalidMoveError(f"invalid move {text}: it starts and ends on the same point")
        return
    if len(points) < 2:
        raise InvalidMoveError(f"invalid move {text}: a capture needs a start and a landing point")
    for a, b in itertools.pairwise(points):
        df = abs(point_file(a) - point_file(b))
        dr = abs(point_rank(a) - point_rank(b))
        if sorted((df, dr)) != [0, 2]:
            raise InvalidMoveError(
                f"invalid move {text}: {point_name(a)}x{point_name(b)} is not a jump "
                "(a jump lands two points away along a rank or file)"
            )
