"""A text picture of a position, for terminals: pieces by their letters, paths and the centre.

The picture is a grid of cells, each with a role (``blue``, ``gray-path``, ``center`` ...), so a
terminal interface can colour it while plain text stays readable on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from bluegray.pieces import Side
from bluegray.points import CENTER, FILE_NAMES, RANK_NAMES, SIZE
from bluegray.position import Position

EMPTY_MARK = "."
PATH_MARK = "+"
CENTER_MARK = "*"


@dataclass(frozen=True)
class Cell:
    """One character of the picture and what it shows."""

    text: str
    role: str
    """``blue`` / ``gray`` (a piece), ``blue-path`` / ``gray-path`` (an empty point on a captain's
    path), ``center``, ``empty``, ``label`` (a coordinate) or ``space``."""


def diagram_cells(position: Position, *, flipped: bool = False) -> list[list[Cell]]:
    """The picture as rows of cells, rank 9 at the top (rank 1 when ``flipped``)."""
    pieces = position.pieces()
    path_side = {}
    for side in (Side.GRAY, Side.BLUE):
        for point in position.path(side):
            path_side[point] = side
    ranks = range(SIZE) if flipped else range(SIZE - 1, -1, -1)
    files = list(range(SIZE - 1, -1, -1)) if flipped else list(range(SIZE))
    space = Cell(" ", "space")
    header = [space, space, space] + [
        cell for file in files for cell in (Cell(FILE_NAMES[file], "label"), space)
    ]
    rows = [header]
    for rank in ranks:
        row = [space, Cell(RANK_NAMES[rank], "label"), space]
        for file in files:
            point = rank * SIZE + file
            piece = pieces.get(point)
            if piece is not None:
                row.append(Cell(piece.symbol, piece.side.value))
            elif point == CENTER:
                row.append(Cell(CENTER_MARK, "center"))
            elif point in path_side:
                row.append(Cell(PATH_MARK, f"{path_side[point].value}-path"))
            else:
                row.append(Cell(EMPTY_MARK, "empty"))
            row.append(space)
        row.append(Cell(RANK_NAMES[rank], "label"))
        rows.append(row)
    rows.append(header)
    return rows


def diagram_text(position: Position, *, flipped: bool = False) -> str:
    """The picture as plain text.

    >>> print(diagram_text(Position.start("super-light")))
       a b c d e f g h i
     9 . . . . c . . . . 9
     8 p p p p p p p p p 8
     7 + + + + + + . . . 7
     6 . + . + . + . + . 6
     5 + + + . * . + + + 5
     4 . + . + . + . + . 4
     3 . . . + + + + + + 3
     2 P P P P P P P P P 2
     1 . . . . C . . . . 1
       a b c d e f g h i
    """
    rows = diagram_cells(position, flipped=flipped)
    return "\n".join("".join(cell.text for cell in row).rstrip() for row in rows)
