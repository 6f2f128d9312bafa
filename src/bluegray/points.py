"""The board's geometry: points, their names, the lines between them, and the captains' paths.

A point is a plain ``int`` from 0 (``a1``) to 80 (``i9``): ``rank * 9 + file``, files ``a``-``i``
and ranks ``1``-``9`` counted from zero, as seen from Blue's side (docs/rules-reference.md §1).
"""

from __future__ import annotations

import itertools
from typing import Final

from bluegray.errors import InvalidPointError, quoted

Point = int

FILE_NAMES: Final = "abcdefghi"
RANK_NAMES: Final = "123456789"
SIZE: Final = 9

# fmt: off
(A1, B1, C1, D1, E1, F1, G1, H1, I1,
 A2, B2, C2, D2, E2, F2, G2, H2, I2,
 A3, B3, C3, D3, E3, F3, G3, H3, I3,
 A4, B4, C4, D4, E4, F4, G4, H4, I4,
 A5, B5, C5, D5, E5, F5, G5, H5, I5,
 A6, B6, C6, D6, E6, F6, G6, H6, I6,
 A7, B7, C7, D7, E7, F7, G7, H7, I7,
 A8, B8, C8, D8, E8, F8, G8, H8, I8,
 A9, B9, C9, D9, E9, F9, G9, H9, I9) = range(81)
# fmt: on

POINTS: Final = tuple(range(81))
POINT_NAMES: Final = tuple(f + r for r in RANK_NAMES for f in FILE_NAMES)
_POINT_BY_NAME: Final = {name: point for point, name in enumerate(POINT_NAMES)}

CENTER: Final = E5
"""The red dot: only a captain may stand here, and a captain standing here wins."""


def point_name(point: Point) -> str:
    """The notation of a point, e.g. ``"e5"``."""
    return POINT_NAMES[point]


def parse_point(text: str) -> Point:
    """The point named by ``text`` (lower case, file then rank, e.g. ``"e5"``)."""
    point = _POINT_BY_NAME.get(text)
    if point is None:
        raise InvalidPointError(
            f"invalid point {quoted(text)}: expected a file a-i and a rank 1-9 in lower case, "
            "like 'e5'"
        )
    return point


def point_file(point: Point) -> int:
    """The file of a point, 0 (``a``) to 8 (``i``)."""
    return point % SIZE


def point_rank(point: Point) -> int:
    """The rank of a point, 0 (rank ``1``) to 8 (rank ``9``)."""
    return point // SIZE


def make_point(file: int, rank: int) -> Point:
    """The point on a file and rank, both counted from zero."""
    if not (0 <= file < SIZE and 0 <= rank < SIZE):
        raise InvalidPointError(f"invalid point: file {file}, rank {rank} is off the 9x9 board")
    return rank * SIZE + file


def rotate_point(point: Point) -> Point:
    """The point turned 180 degrees about the centre (the Blue and Gray sides swap)."""
    return 80 - point


def _points(names: str) -> tuple[Point, ...]:
    return tuple(parse_point(name) for name in names.split())


BLUE_PATH: Final = _points("e1 d2 d3 d4 c5 b4 b5 a5 b6 a7 b7 b8 c7 d8 d7 e7 d6 e5")
"""The heavy line Blue's captain follows from ``e1`` to the centre (17 steps)."""

GRAY_PATH: Final = tuple(rotate_point(point) for point in BLUE_PATH)
"""The Gray path: the Blue path turned 180 degrees, from ``e9`` to the centre."""

PATH_LENGTH: Final = len(BLUE_PATH) - 1
"""Steps from a captain's start to the centre: the advancement of a captain on the centre."""

DIAGONAL_LINES: Final = tuple(
    (a, b)
    for path in (BLUE_PATH, GRAY_PATH)
    for a, b in itertools.pairwise(path)
    if point_file(a) != point_file(b) and point_rank(a) != point_rank(b)
)
"""The 18 diagonal lines of the board: the diagonal steps of the two paths."""


def _orthogonal_neighbours(point: Point) -> tuple[Point, ...]:
    file, rank = point_file(point), point_rank(point)
    steps = ((0, 1), (0, -1), (1, 0), (-1, 0))
    return tuple(
        make_point(file + df, rank + dr)
        for df, dr in steps
        if 0 <= file + df < SIZE and 0 <= rank + dr < SIZE
    )


def _neighbours(point: Point) -> tuple[Point, ...]:
    diagonal = [b for a, b in DIAGONAL_LINES if a == point]
    diagonal += [a for a, b in DIAGONAL_LINES if b == point]
    return tuple(sorted(_orthogonal_neighbours(point) + tuple(diagonal)))


NEIGHBOURS: Final = tuple(_neighbours(point) for point in POINTS)
"""For each point, the points joined to it by a line (orthogonal or path diagonal)."""


def are_joined(a: Point, b: Point) -> bool:
    """Whether a line joins two points, so that a guard may step between them."""
    return b in NEIGHBOURS[a]
