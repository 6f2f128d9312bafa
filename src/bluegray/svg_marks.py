"""The marks of the SVG pictures: highlighted points (legal destinations, say) and the last
move, an arrow through every point it visits with a cross on each captured piece's point.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from bluegray.moves import Move
from bluegray.pieces import Kind
from bluegray.points import (
    Point,
    point_name,
)
from bluegray.svg_frame import (
    ARROW_HEAD_HALF_WIDTH,
    ARROW_HEAD_LENGTH,
    ARROW_TIP_GAP,
    ARROW_WIDTH,
    CROSS_HALF,
    HIGHLIGHT_RADIUS,
    SPACING,
    Frame,
    number,
    points_attribute,
)

if TYPE_CHECKING:
    from bluegray.position import Position


def draw_highlights(
    svg: ET.Element, frame: Frame, points: Iterable[Point], palette: Mapping[str, str]
) -> None:
    """Discs under the pieces, wider than any piece so an occupied point shows a rim."""
    group = ET.SubElement(
        svg,
        "g",
        {
            "class": "highlights",
            "fill": palette["highlight"],
            "fill-opacity": "0.45",
            "stroke": palette["highlight-outline"],
            "stroke-width": number(0.04 * SPACING),
        },
    )
    for point in points:
        x, y = frame.xy(point)
        ET.SubElement(
            group,
            "circle",
            {
                "class": "highlight",
                "data-point": point_name(point),
                "cx": number(x),
                "cy": number(y),
                "r": number(HIGHLIGHT_RADIUS),
            },
        )


def _visited(position: Position, move: Move) -> tuple[Point, ...]:
    """The points a move passes through: a turbo captain's slide follows its path's bends, which
    the notation (start and end only) leaves out; anything else goes straight between its
    points."""
    if move.capture:
        return move.points
    piece = position.piece_at(move.to_point)
    if piece is None or piece.kind is not Kind.CAPTAIN:
        return move.points
    path = position.path(piece.side)
    if move.from_point not in path or move.to_point not in path:
        return move.points
    start, end = path.index(move.from_point), path.index(move.to_point)
    return path[start : end + 1] if start < end else move.points


def draw_last_move(
    svg: ET.Element,
    frame: Frame,
    position: Position,
    move: Move,
    palette: Mapping[str, str],
) -> None:
    """An arrow through every point the move visits, over the pieces; group opacity keeps the
    pieces readable beneath it without darkening where shaft and head overlap."""
    visited = _visited(position, move)
    group = ET.SubElement(
        svg,
        "g",
        {
            "class": "last-move",
            "data-move": str(move),
            "data-points": " ".join(point_name(point) for point in visited),
            "opacity": "0.8",
            "fill": palette["arrow"],
            "stroke": palette["arrow"],
        },
    )
    for point in move.captured_points:
        x, y = frame.xy(point)
        d = CROSS_HALF
        ET.SubElement(
            group,
            "path",
            {
                "class": "captured",
                "data-point": point_name(point),
                "d": f"M{number(x - d)},{number(y - d)} L{number(x + d)},{number(y + d)} "
                f"M{number(x - d)},{number(y + d)} L{number(x + d)},{number(y - d)}",
                "fill": "none",
                "stroke-width": number(0.07 * SPACING),
                "stroke-linecap": "round",
            },
        )
    corners = [frame.xy(point) for point in visited]
    end, before = corners[-1], corners[-2]
    dx, dy = end[0] - before[0], end[1] - before[1]
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    # The tip stops short of the point so that it touches the moved piece without hiding it.
    tip = (end[0] - ux * ARROW_TIP_GAP, end[1] - uy * ARROW_TIP_GAP)
    # The shaft stops inside the head, so its square end never shows beside the point.
    base = (tip[0] - ux * ARROW_HEAD_LENGTH, tip[1] - uy * ARROW_HEAD_LENGTH)
    shaft_end = (tip[0] - ux * 0.6 * ARROW_HEAD_LENGTH, tip[1] - uy * 0.6 * ARROW_HEAD_LENGTH)
    ET.SubElement(
        group,
        "polyline",
        {
            "class": "arrow-shaft",
            "points": points_attribute([*corners[:-1], shaft_end]),
            "fill": "none",
            "stroke-width": number(ARROW_WIDTH),
            "stroke-linejoin": "round",
        },
    )
    half = ARROW_HEAD_HALF_WIDTH
    head = (
        tip,
        (base[0] - uy * half, base[1] + ux * half),
        (base[0] + uy * half, base[1] - ux * half),
    )
    ET.SubElement(
        group,
        "polygon",
        {"class": "arrow-head", "points": points_attribute(head), "stroke": "none"},
    )
