"""The board widget: the library's text picture (``diagram_cells``) in colour, the last move
marked, compact or spread out to fill a large terminal.

Sides differ by letter case (upper Blue, lower Gray) and by style (Blue bold white on blue, Gray
black on white), never by colour alone; explicit backgrounds keep pieces readable on light and
dark terminals alike.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from bluegray.diagram import Cell, diagram_cells
from bluegray.moves import Move
from bluegray.points import SIZE, Point
from bluegray.position import Position

ROLE_STYLES = {
    "blue": Style(bold=True, color="bright_white", bgcolor="blue"),
    "gray": Style(bold=True, color="black", bgcolor="bright_white"),
    "blue-path": Style(bold=True, color="blue"),
    "gray-path": Style(bold=True),
    "center": Style(bold=True, color="red"),
    "empty": Style(dim=True),
    "label": Style(color="cyan"),
    "space": Style(),
}
"""How each role of the picture looks; the paths differ by colour and by place (Blue's on the
left half, Gray's on the right), the centre by its ``*``."""

MARK = Style(reverse=True)
"""The points of the last move: reverse video shows without colour."""

_LEAD = 3
"""Cells before the first point of each row: a space, the rank label, a space."""


def board_text(
    position: Position,
    *,
    flipped: bool = False,
    last_move: Move | None = None,
    wide: bool = False,
) -> Text:
    """The picture of ``position`` as styled text; ``wide`` spreads it to about twice the size
    (three spaces between points and a blank line between ranks)."""
    marked = set(last_move.points if last_move is not None else ())
    if last_move is not None and last_move.capture:
        marked = {last_move.from_point, last_move.to_point}
    gap = "   " if wide else " "
    text = Text()
    rows = diagram_cells(position, flipped=flipped)
    for index, row in enumerate(rows):
        if index:
            text.append("\n\n" if wide and 1 < index < len(rows) - 1 else "\n")
        for column, cell in enumerate(row):
            point = _point_of(index, column, len(rows), flipped)
            text.append(_cell_text(cell, column, gap), _cell_style(cell, point in marked))
    return text


def _cell_text(cell: Cell, column: int, gap: str) -> str:
    if cell.role == "space" and column >= _LEAD - 1:
        return gap
    return cell.text


def _cell_style(cell: Cell, marked: bool) -> Style:
    style = ROLE_STYLES.get(cell.role, Style())
    return style + MARK if marked else style


def _point_of(row: int, column: int, rows: int, flipped: bool) -> Point | None:
    """The point a cell of the picture shows, if it shows one (the rows between the two
    coordinate rows, every other cell after the lead)."""
    if not 0 < row < rows - 1 or column < _LEAD or (column - _LEAD) % 2:
        return None
    file = (column - _LEAD) // 2
    if file >= SIZE:
        return None
    rank = row - 1 if flipped else SIZE - row
    if flipped:
        file = SIZE - 1 - file
    return rank * SIZE + file


class BoardView(Static):
    """The board: shows a position from either side, with the last move marked."""

    DEFAULT_CSS = """
    BoardView {
        width: auto;
        height: auto;
        padding: 0 1;
    }
    """

    def show(
        self,
        position: Position,
        *,
        flipped: bool,
        last_move: Move | None,
        wide: bool,
    ) -> None:
        self.update(board_text(position, flipped=flipped, last_move=last_move, wide=wide))
