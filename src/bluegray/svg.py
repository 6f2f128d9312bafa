"""SVG pictures of positions, in the spirit of ``chess.svg``: the board with its two paths and the
centre, the pieces, and optionally the last move, highlighted points and coordinates.

The picture uses presentation attributes only, so a web page's CSS can restyle it through the
classes and ``data-point`` attributes on its groups.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Final

from bluegray.errors import InvalidPointError
from bluegray.moves import Move
from bluegray.pieces import Kind, Piece, Side
from bluegray.points import (
    CENTER,
    DIAGONAL_LINES,
    FILE_NAMES,
    RANK_NAMES,
    SIZE,
    Point,
    point_file,
    point_name,
    point_rank,
)

if TYPE_CHECKING:
    from bluegray.position import Position

SVG_NAMESPACE: Final = "http://www.w3.org/2000/svg"

SPACING: Final = 40
"""Distance in ``viewBox`` units between neighbouring points; every other length is scaled from
it, so the picture keeps its proportions at any pixel ``size``."""

COLORS: Final[Mapping[str, str]] = MappingProxyType(
    {
        # The board is light so that both armies and both paths stand out against it.
        "board": "#f2ead3",
        "line": "#a89a7a",
        "coordinate": "#5c5242",
        # Blue is dark and Gray is mid-light: the paths differ in lightness, not only in hue,
        # so they stay apart for colour-blind players and in greyscale print.
        "blue-path": "#1f4e9c",
        "gray-path": "#8c8c8c",
        # Dark blue pieces with a light outline, light gray pieces with a dark outline: a
        # contrast ratio above 5 between the fills.
        "blue-fill": "#1f4e9c",
        "blue-outline": "#f5f7fb",
        "gray-fill": "#e4e4e4",
        "gray-outline": "#333333",
        "center": "#d7301f",
        "center-outline": "#7a1209",
        # Orange reads apart from blue and gray for the common colour blindness; the arrow
        # and the highlights also differ in shape from everything else, not only in hue.
        "arrow": "#e66100",
        "highlight": "#4daf4a",
        "highlight-outline": "#1e6b2a",
    }
)
"""The default colours by role; :func:`board_svg` takes a ``colors`` mapping to override any."""

_FONT: Final = "Helvetica, Arial, sans-serif"
_GRID_WIDTH: Final = 0.03 * SPACING
_PATH_WIDTH: Final = 0.14 * SPACING
_CAPTAIN_RADIUS: Final = 0.42 * SPACING
_GUARD_RADIUS: Final = 0.34 * SPACING
_PRIVATE_RADIUS: Final = 0.36 * SPACING
"""Half the diagonal of the private's diamond: its area is about 70 % of a guard's disc."""
_OUTLINE_WIDTH: Final = 0.05 * SPACING
_CENTER_RADIUS: Final = 0.16 * SPACING
_CENTER_RING_RADIUS: Final = 0.27 * SPACING
_HIGHLIGHT_RADIUS: Final = 0.47 * SPACING
_ARROW_WIDTH: Final = 0.16 * SPACING
_ARROW_HEAD_LENGTH: Final = 0.45 * SPACING
_ARROW_HEAD_HALF_WIDTH: Final = 0.25 * SPACING
_ARROW_TIP_GAP: Final = 0.2 * SPACING
_CROSS_HALF: Final = 0.13 * SPACING


def _star(outer: float, inner: float) -> tuple[tuple[float, float], ...]:
    """A five-pointed star around the origin, one point straight up."""
    corners = []
    for k in range(10):
        radius = outer if k % 2 == 0 else inner
        angle = math.radians(-90 + 36 * k)
        corners.append((round(radius * math.cos(angle), 2), round(radius * math.sin(angle), 2)))
    return tuple(corners)


# Rounded once at import, so that every picture carries the same digits.
_STAR: Final = _star(0.3 * SPACING, 0.12 * SPACING)


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
    palette = _palette(colors)
    marked = _checked_points(highlights)
    frame = _Frame(flipped, SPACING if coordinates else 0.6 * SPACING)
    extent = _fmt(frame.extent)

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
        _draw_highlights(svg, frame, marked, palette)
    _draw_center(svg, frame, palette)
    if coordinates:
        _draw_coordinates(svg, frame, palette)
    _draw_pieces(svg, frame, position, palette)
    if last_move is not None:
        _draw_last_move(svg, frame, position, last_move, palette)
    ET.indent(svg, space=" ")
    return ET.tostring(svg, encoding="unicode")


@dataclass(frozen=True)
class _Frame:
    """Where points fall in ``viewBox`` units, for one orientation and margin."""

    flipped: bool
    margin: float

    @property
    def extent(self) -> float:
        """The width (and height) of the whole picture."""
        return 2 * self.margin + (SIZE - 1) * SPACING

    def column(self, file: int) -> float:
        return self.margin + SPACING * (SIZE - 1 - file if self.flipped else file)

    def row(self, rank: int) -> float:
        return self.margin + SPACING * (rank if self.flipped else SIZE - 1 - rank)

    def xy(self, point: Point) -> tuple[float, float]:
        return self.column(point_file(point)), self.row(point_rank(point))


def _fmt(value: float) -> str:
    """A coordinate with at most two decimals and no trailing zeros, so output stays stable."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _points_attribute(points: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{_fmt(x)},{_fmt(y)}" for x, y in points)


def _palette(colors: Mapping[str, str] | None) -> dict[str, str]:
    """The default colours with the caller's overrides; an unknown role is refused, since it is
    almost surely a typo that would otherwise be silently ignored."""
    palette = dict(COLORS)
    for role, color in (colors or {}).items():
        if role not in palette:
            raise ValueError(f"unknown colour role {role!r}: expected one of {sorted(COLORS)}")
        palette[role] = color
    return palette


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


def _draw_lines(svg: ET.Element, frame: _Frame, palette: Mapping[str, str]) -> None:
    """The 9x9 grid of orthogonal lines and the 18 diagonal lines of the two paths."""
    group = ET.SubElement(
        svg,
        "g",
        {
            "class": "lines",
            "stroke": palette["line"],
            "stroke-width": _fmt(_GRID_WIDTH),
            "stroke-linecap": "round",
        },
    )
    low = _fmt(frame.margin)
    high = _fmt(frame.extent - frame.margin)
    for file in range(SIZE):
        x = _fmt(frame.column(file))
        attributes = {"class": "file-line", "data-file": FILE_NAMES[file]}
        ET.SubElement(group, "line", {**attributes, "x1": x, "y1": low, "x2": x, "y2": high})
    for rank in range(SIZE):
        y = _fmt(frame.row(rank))
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
                "x1": _fmt(x1),
                "y1": _fmt(y1),
                "x2": _fmt(x2),
                "y2": _fmt(y2),
            },
        )


def _draw_paths(
    svg: ET.Element, frame: _Frame, position: Position, palette: Mapping[str, str]
) -> None:
    """Each captain's path, in the colour of the side that follows it under the rule set (in
    POW rule sets Blue follows the path from e9)."""
    group = ET.SubElement(
        svg,
        "g",
        {
            "class": "paths",
            "fill": "none",
            "stroke-width": _fmt(_PATH_WIDTH),
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
                "points": _points_attribute(frame.xy(point) for point in path),
            },
        )


def _draw_center(svg: ET.Element, frame: _Frame, palette: Mapping[str, str]) -> None:
    """The red dot, inside a ring: the ring makes it a distinct shape, not only a colour."""
    x, y = (_fmt(v) for v in frame.xy(CENTER))
    group = ET.SubElement(svg, "g", {"class": "center", "data-point": point_name(CENTER)})
    ET.SubElement(
        group,
        "circle",
        {
            "class": "center-ring",
            "cx": x,
            "cy": y,
            "r": _fmt(_CENTER_RING_RADIUS),
            "fill": palette["board"],
            "stroke": palette["center"],
            "stroke-width": _fmt(0.06 * SPACING),
        },
    )
    ET.SubElement(
        group,
        "circle",
        {
            "class": "center-dot",
            "cx": x,
            "cy": y,
            "r": _fmt(_CENTER_RADIUS),
            "fill": palette["center"],
            "stroke": palette["center-outline"],
            "stroke-width": _fmt(0.03 * SPACING),
        },
    )


def _draw_coordinates(svg: ET.Element, frame: _Frame, palette: Mapping[str, str]) -> None:
    """File letters above and below, rank numbers left and right, in the order they are seen."""
    font_size = 0.32 * SPACING
    group = ET.SubElement(
        svg,
        "g",
        {
            "class": "coordinates",
            "font-family": _FONT,
            "font-size": _fmt(font_size),
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
                {"class": "file", "x": _fmt(frame.column(file)), "y": _fmt(y + baseline)},
            )
            text.text = FILE_NAMES[file]
    for rank in ranks:
        for x in (near, far):
            text = ET.SubElement(
                group,
                "text",
                {"class": "rank", "x": _fmt(x), "y": _fmt(frame.row(rank) + baseline)},
            )
            text.text = RANK_NAMES[rank]


def _draw_highlights(
    svg: ET.Element, frame: _Frame, points: Iterable[Point], palette: Mapping[str, str]
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
            "stroke-width": _fmt(0.04 * SPACING),
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
                "cx": _fmt(x),
                "cy": _fmt(y),
                "r": _fmt(_HIGHLIGHT_RADIUS),
            },
        )


def _draw_pieces(
    svg: ET.Element, frame: _Frame, position: Position, palette: Mapping[str, str]
) -> None:
    group = ET.SubElement(svg, "g", {"class": "pieces"})
    for point, piece in sorted(position.pieces().items()):
        x, y = frame.xy(point)
        _draw_piece(group, piece, point, x, y, palette)


def piece_symbols(*, colors: Mapping[str, str] | None = None) -> str:
    """The six pieces as an SVG of definitions, for a page that places pieces itself: each is a
    ``<g>`` centred on the origin, drawn exactly as :func:`board_svg` draws it for points
    :data:`SPACING` units apart, with the id ``bluegray-piece-{side}-{kind}`` (e.g.
    ``bluegray-piece-blue-captain``) for ``<use href="#...">``. ``colors`` as for
    :func:`board_svg`. The web app's boards are drawn with them, so that a page, a downloaded
    picture and the documentation show one set of pieces.

    >>> text = piece_symbols()
    >>> text.count('id="bluegray-piece-'), 'id="bluegray-piece-gray-private"' in text
    (6, True)
    """
    palette = _palette(colors)
    svg = ET.Element(
        "svg",
        {
            "xmlns": SVG_NAMESPACE,
            "version": "1.1",
            "class": "bluegray-piece-symbols",
            "data-spacing": str(SPACING),
            "width": "0",
            "height": "0",
            "aria-hidden": "true",
            "focusable": "false",
        },
    )
    definitions = ET.SubElement(svg, "defs")
    for side in (Side.BLUE, Side.GRAY):
        for kind in Kind:
            name = kind.name.lower()
            group = ET.SubElement(
                definitions,
                "g",
                {
                    "id": f"bluegray-piece-{side.value}-{name}",
                    "class": f"piece {side.value} {name}",
                },
            )
            _draw_piece_shapes(group, Piece(kind, side), palette)
    return ET.tostring(svg, encoding="unicode")


def _draw_piece(
    parent: ET.Element, piece: Piece, point: Point, x: float, y: float, palette: Mapping[str, str]
) -> None:
    group = ET.SubElement(
        parent,
        "g",
        {
            "class": f"piece {piece.side.value} {piece.kind.name.lower()}",
            "data-point": point_name(point),
            "data-piece": piece.symbol,
            "transform": f"translate({_fmt(x)} {_fmt(y)})",
        },
    )
    _draw_piece_shapes(group, piece, palette)


def _draw_piece_shapes(group: ET.Element, piece: Piece, palette: Mapping[str, str]) -> None:
    """One piece around the origin: the side by its fill's lightness (dark Blue, light Gray),
    the kind by its shape (captain a large disc with a star, guard a disc, private a smaller
    diamond)."""
    fill, outline = palette[f"{piece.side.value}-fill"], palette[f"{piece.side.value}-outline"]
    # A dark rim around the light outline keeps Blue pieces crisp on the light board too.
    rim = palette["gray-outline"]
    stroke = {"stroke": outline, "stroke-width": _fmt(_OUTLINE_WIDTH)}
    if piece.kind is Kind.CAPTAIN:
        _circle(group, "rim", _CAPTAIN_RADIUS + _OUTLINE_WIDTH, rim)
        _circle(group, "body", _CAPTAIN_RADIUS, fill, stroke)
        ET.SubElement(
            group,
            "polygon",
            {"class": "star", "points": _points_attribute(_STAR), "fill": outline},
        )
        return
    if piece.kind is Kind.GUARD:
        _circle(group, "rim", _GUARD_RADIUS + _OUTLINE_WIDTH, rim)
        _circle(group, "body", _GUARD_RADIUS, fill, stroke)
        _letter(group, "G", 0.42 * SPACING, outline)
        return
    outer = _PRIVATE_RADIUS + 1.4 * _OUTLINE_WIDTH  # a diamond's corners need more room
    _diamond(group, "rim", outer, rim)
    _diamond(group, "body", _PRIVATE_RADIUS, fill, stroke)
    _letter(group, "P", 0.34 * SPACING, outline)


def _circle(
    parent: ET.Element, role: str, radius: float, fill: str, extra: Mapping[str, str] | None = None
) -> None:
    attributes = {"class": role, "cx": "0", "cy": "0", "r": _fmt(radius), "fill": fill}
    ET.SubElement(parent, "circle", {**attributes, **(extra or {})})


def _diamond(
    parent: ET.Element, role: str, radius: float, fill: str, extra: Mapping[str, str] | None = None
) -> None:
    corners = ((0.0, -radius), (radius, 0.0), (0.0, radius), (-radius, 0.0))
    attributes = {"class": role, "points": _points_attribute(corners), "fill": fill}
    ET.SubElement(parent, "polygon", {**attributes, **(extra or {})})


def _letter(parent: ET.Element, letter: str, font_size: float, color: str) -> None:
    text = ET.SubElement(
        parent,
        "text",
        {
            "class": "letter",
            "x": "0",
            "y": _fmt(0.36 * font_size),
            "font-family": _FONT,
            "font-size": _fmt(font_size),
            "font-weight": "bold",
            "text-anchor": "middle",
            "fill": color,
        },
    )
    text.text = letter


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


def _draw_last_move(
    svg: ET.Element,
    frame: _Frame,
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
        d = _CROSS_HALF
        ET.SubElement(
            group,
            "path",
            {
                "class": "captured",
                "data-point": point_name(point),
                "d": f"M{_fmt(x - d)},{_fmt(y - d)} L{_fmt(x + d)},{_fmt(y + d)} "
                f"M{_fmt(x - d)},{_fmt(y + d)} L{_fmt(x + d)},{_fmt(y - d)}",
                "fill": "none",
                "stroke-width": _fmt(0.07 * SPACING),
                "stroke-linecap": "round",
            },
        )
    corners = [frame.xy(point) for point in visited]
    end, before = corners[-1], corners[-2]
    dx, dy = end[0] - before[0], end[1] - before[1]
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    # The tip stops short of the point so that it touches the moved piece without hiding it.
    tip = (end[0] - ux * _ARROW_TIP_GAP, end[1] - uy * _ARROW_TIP_GAP)
    # The shaft stops inside the head, so its square end never shows beside the point.
    base = (tip[0] - ux * _ARROW_HEAD_LENGTH, tip[1] - uy * _ARROW_HEAD_LENGTH)
    shaft_end = (tip[0] - ux * 0.6 * _ARROW_HEAD_LENGTH, tip[1] - uy * 0.6 * _ARROW_HEAD_LENGTH)
    ET.SubElement(
        group,
        "polyline",
        {
            "class": "arrow-shaft",
            "points": _points_attribute([*corners[:-1], shaft_end]),
            "fill": "none",
            "stroke-width": _fmt(_ARROW_WIDTH),
            "stroke-linejoin": "round",
        },
    )
    half = _ARROW_HEAD_HALF_WIDTH
    head = (
        tip,
        (base[0] - uy * half, base[1] + ux * half),
        (base[0] + uy * half, base[1] - ux * half),
    )
    ET.SubElement(
        group,
        "polygon",
        {"class": "arrow-head", "points": _points_attribute(head), "stroke": "none"},
    )
