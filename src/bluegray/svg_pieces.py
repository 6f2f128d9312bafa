"""The pieces of the SVG pictures: each of the six drawn at a point of a board, or as a set of
symbols a page places itself (``piece_symbols``), the same shapes either way.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from bluegray.pieces import Kind, Piece, Side
from bluegray.points import Point, point_name
from bluegray.svg_frame import (
    CAPTAIN_RADIUS,
    FONT,
    GUARD_RADIUS,
    OUTLINE_WIDTH,
    PRIVATE_RADIUS,
    SPACING,
    SVG_NAMESPACE,
    Frame,
    full_palette,
    number,
    points_attribute,
)

if TYPE_CHECKING:
    from bluegray.position import Position


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


def draw_pieces(
    svg: ET.Element, frame: Frame, position: Position, palette: Mapping[str, str]
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
    palette = full_palette(colors)
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
            "transform": f"translate({number(x)} {number(y)})",
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
    stroke = {"stroke": outline, "stroke-width": number(OUTLINE_WIDTH)}
    if piece.kind is Kind.CAPTAIN:
        _circle(group, "rim", CAPTAIN_RADIUS + OUTLINE_WIDTH, rim)
        _circle(group, "body", CAPTAIN_RADIUS, fill, stroke)
        ET.SubElement(
            group,
            "polygon",
            {"class": "star", "points": points_attribute(_STAR), "fill": outline},
        )
        return
    if piece.kind is Kind.GUARD:
        _circle(group, "rim", GUARD_RADIUS + OUTLINE_WIDTH, rim)
        _circle(group, "body", GUARD_RADIUS, fill, stroke)
        _letter(group, "G", 0.42 * SPACING, outline)
        return
    outer = PRIVATE_RADIUS + 1.4 * OUTLINE_WIDTH  # a diamond's corners need more room
    _diamond(group, "rim", outer, rim)
    _diamond(group, "body", PRIVATE_RADIUS, fill, stroke)
    _letter(group, "P", 0.34 * SPACING, outline)


def _circle(
    parent: ET.Element, role: str, radius: float, fill: str, extra: Mapping[str, str] | None = None
) -> None:
    attributes = {"class": role, "cx": "0", "cy": "0", "r": number(radius), "fill": fill}
    ET.SubElement(parent, "circle", {**attributes, **(extra or {})})


def _diamond(
    parent: ET.Element, role: str, radius: float, fill: str, extra: Mapping[str, str] | None = None
) -> None:
    corners = ((0.0, -radius), (radius, 0.0), (0.0, radius), (-radius, 0.0))
    attributes = {"class": role, "points": points_attribute(corners), "fill": fill}
    ET.SubElement(parent, "polygon", {**attributes, **(extra or {})})


def _letter(parent: ET.Element, letter: str, font_size: float, color: str) -> None:
    text = ET.SubElement(
        parent,
        "text",
        {
            "class": "letter",
            "x": "0",
            "y": number(0.36 * font_size),
            "font-family": FONT,
            "font-size": number(font_size),
            "font-weight": "bold",
            "text-anchor": "middle",
            "fill": color,
        },
    )
    text.text = letter
