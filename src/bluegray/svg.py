"""SVG pictures of positions, in the spirit of ``chess.svg``: the board with its two paths and the
centre, the pieces, and optionally the last move, highlighted points and coordinates.

The picture uses presentation attributes only, so a web page's CSS can restyle it through the
classes and ``data-point`` attributes on its groups.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from bluegray.errors import InvalidPointError
from bluegray.moves import Move
from bluegray.pieces import Side
from bluegray.points import (
    CENTER,
    DIAGONAL_LINES,
    FILE_NAMES,
    RANK_NAMES,
    SIZE,
    Point,
    point_name,
)
from bluegray.svg_frame import (
    CENTER_RADIUS,
    CENTER_RING_RADIUS,
    COLORS,
    FONT,
    GRID_WIDTH,
    PATH_WIDTH,
    SPACING,
    SVG_NAMESPACE,
    Frame,
    full_palette,
    number,
    points_attribute,
)
from bluegray.svg_marks import draw_highlights, draw_last_move
from bluegray.svg_pieces import draw_pieces, piece_symbols

if TYPE_CHECKING:
    from bluegray.position import Position


def board_svg(
    position: Position,
    *,
    size: int = 480,
    flipped: bool = False,
    last_move: Move | None = None,
    highlights: Iterable[Point] = (),
    coordinates: bool = True,
    colors: Mapping[str, str] | None = None,
) -> str:
    """The position as an SVG image ``size`` pixels square.

    ``flipped`` shows the board from Gray's side (rank 1 at the top, file ``i`` at the left).
    ``last_move`` is drawn as an arrow through every point it visits, with a cross on each
    captured piece's point; ``highlights`` marks points (e.g. legal destinations) with a disc;
    ``coordinates`` writes the file letters and rank numbers around the board. ``colors``
    overrides entries of :data:`COLORS`. The same arguments always give the same text.

    >>> from bluegray import Position
    >>> svg = board_svg(Position.start("sackson"))
    >>> svg.startswith("<svg") and svg.count('class="piece ') == 36
    True
    """
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        raise ValueError(f"invalid size {size!r}: expected a whole number of pixels > 0")
    palette = full_palette(colors)
    marked = _checked_points(highlights)
    frame = Frame(flipped, SPACING if coordinates else 0.6 * SPACING)
    extent = number(frame.extent)

    svg = ET.Element(
        "svg",
        {
            "xmlns": SVG_NAMESPACE,
            "version": "1.1",
            "class": "bluegray-board",
            "role": "img",
            "viewBox": f"0 0 {extent} {extent}",
            "width": str(size),
            "height": str(size),
        },
    )
    ET.SubElement(svg, "title").text = str(position)
    ET.SubElement(svg, "desc").text = _description(position, last_move)
    ET.SubElement(
        svg,
        "rect",
        {
            "class": "board",
            "x": "0",
            "y": "0",
            "width": extent,
            "height": extent,
            "fill": palette["board"],
        },
    )
    _draw_lines(svg, frame, palette)
    _draw_paths(svg, frame, position, palette)
    if marked:
        draw_highlights(svg, frame, marked, palette)
    _draw_center(svg, frame, palette)
    if coordinates:
        _draw_coordinates(svg, frame, palette)
    draw_pieces(svg, frame, position, palette)
    if last_move is not None:
        draw_last_move(svg, frame, position, last_move, palette)
    ET.indent(svg, space=" ")
    return ET.tostring(svg, encoding="unicode")


def _checked_points(points: Iterable[Point]) -> list[Point]:
    """The highlighted points, checked, without repeats and in board order for stable output."""
    result = set()
    for point in points:
        if isinstance(point, bool) or not isinstance(point, int) or not 0 <= point < SIZE * SIZE:
            raise InvalidPointError(f"invalid point {point!r} to highlight: expected 0-80")
        result.add(point)
    return sorted(result)


def _description(position: Position, last_move: Move | None) -> str:
    text = f"Blue and Gray, rules {position.rules}: {position.turn.title} to move"
    if last_move is not None:
        text += f"; last move {last_move}"
    return text + "."


def _draw_lines(svg: ET.Element, frame: Frame, palette: Mapping[str, str]) -> None:
    """The 9x9 grid of orthogonal lines and the 18 diagonal lines of the two paths."""
    group = ET.SubElement(
        svg,
        "g",
        {
            "class": "lines",
            "stroke": palette["line"],
            "stroke-width": number(GRID_WIDTH),
            "stroke-linecap": "round",
        },
    )
    low = number(frame.margin)
    high = number(frame.extent - frame.margin)
    for file in range(SIZE):
        x = number(frame.column(file))
        attributes = {"class": "file-line", "data-file": FILE_NAMES[file]}
        ET.SubElement(group, "line", {**attributes, "x1": x, "y1": low, "x2": x, "y2": high})
    for rank in range(SIZE):
        y = number(frame.row(rank))
        attributes = {"class": "rank-line", "data-rank": RANK_NAMES[rank]}
        ET.SubElement(group, "line", {**attributes, "x1": low, "y1": y, "x2": high, "y2": y})
    for a, b in DIAGONAL_LINES:
        (x1, y1), (x2, y2) = frame.xy(a), frame.xy(b)
        ET.SubElement(
            group,
            "line",
            {
                "class": "diagonal",
                "data-points": f"{point_name(a)} {point_name(b)}",
                "x1": number(x1),
                "y1": number(y1),
                "x2": number(x2),
                "y2": number(y2),
            },
        )


def _draw_paths(
    svg: ET.Element, frame: Frame, position: Position, palette: Mapping[str, str]
) -> None:
    """Each captain's path, in the colour of the side that follows it under the rule set (in
    POW rule sets Blue follows the path from e9)."""
    group = ET.SubElement(
        svg,
        "g",
        {
            "class": "paths",
            "fill": "none",
            "stroke-width": number(PATH_WIDTH),
            "stroke-linecap": "round",
            "stroke-linejoin": "round",
        },
    )
    for side in (Side.BLUE, Side.GRAY):
        path = position.path(side)
        ET.SubElement(
            group,
            "polyline",
            {
                "class": f"path {side.value}",
                "data-side": side.value,
                "data-points": " ".join(point_name(point) for point in path),
                "stroke": palette[f"{side.value}-path"],
                "points": points_attribute(frame.xy(point) for point in path),
            },
        )


def _draw_center(svg: ET.Element, frame: Frame, palette: Mapping[str, str]) -> None:
    """The red dot, inside a ring: the ring makes it a distinct shape, not only a colour."""
    x, y = (number(v) for v in frame.xy(CENTER))
    group = ET.SubElement(svg, "g", {"class": "center", "data-point": point_name(CENTER)})
    ET.SubElement(
        group,
        "circle",
        {
            "class": "center-ring",
            "cx": x,
            "cy": y,
            "r": number(CENTER_RING_RADIUS),
            "fill": palette["board"],
            "stroke": palette["center"],
            "stroke-width": number(0.06 * SPACING),
        },
    )
    ET.SubElement(
        group,
        "circle",
        {
            "class": "center-dot",
            "cx": x,
            "cy": y,
            "r": number(CENTER_RADIUS),
            "fill": palette["center"],
            "stroke": palette["center-outline"],
            "stroke-width": number(0.03 * SPACING),
        },
    )


def _draw_coordinates(svg: ET.Element, frame: Frame, palette: Mapping[str, str]) -> None:
    """File letters above and below, rank numbers left and right, in the order they are seen."""
    font_size = 0.32 * SPACING
    group = ET.SubElement(
        svg,
        "g",
        {
            "class": "coordinates",
            "font-family": FONT,
            "font-size": number(font_size),
            "text-anchor": "middle",
            "fill": palette["coordinate"],
        },
    )
    near, far = 0.35 * SPACING, frame.extent - 0.35 * SPACING
    baseline = 0.35 * font_size  # moves the text's middle, not its baseline, onto the line
    files = range(SIZE - 1, -1, -1) if frame.flipped else range(SIZE)
    ranks = range(SIZE) if frame.flipped else range(SIZE - 1, -1, -1)
    for file in files:
        for y in (near, far):
            text = ET.SubElement(
                group,
                "text",
                {"class": "file", "x": number(frame.column(file)), "y": number(y + baseline)},
            )
            text.text = FILE_NAMES[file]
    for rank in ranks:
        for x in (near, far):
            text = ET.SubElement(
                group,
                "text",
                {"class": "rank", "x": number(x), "y": number(frame.row(rank) + baseline)},
            )
            text.text = RANK_NAMES[rank]


__all__ = ["COLORS", "SPACING", "SVG_NAMESPACE", "board_svg", "piece_symbols"]
