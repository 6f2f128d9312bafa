"""The measures of the SVG pictures: the spacing of the points, the colours by role, the sizes
of the pieces and marks, the frame that places a point for one orientation, and numbers written
the same way every time (``svg`` draws the board, ``svg_pieces`` the pieces, ``svg_marks`` the
highlights and the last move).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from bluegray.points import SIZE, Point, point_file, point_rank

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

FONT: Final = "Helvetica, Arial, sans-serif"
GRID_WIDTH: Final = 0.03 * SPACING
PATH_WIDTH: Final = 0.14 * SPACING
CAPTAIN_RADIUS: Final = 0.42 * SPACING
GUARD_RADIUS: Final = 0.34 * SPACING
PRIVATE_RADIUS: Final = 0.36 * SPACING
"""Half the diagonal of the private's diamond: its area is about 70 % of a guard's disc."""
OUTLINE_WIDTH: Final = 0.05 * SPACING
CENTER_RADIUS: Final = 0.16 * SPACING
CENTER_RING_RADIUS: Final = 0.27 * SPACING
HIGHLIGHT_RADIUS: Final = 0.47 * SPACING
ARROW_WIDTH: Final = 0.16 * SPACING
ARROW_HEAD_LENGTH: Final = 0.45 * SPACING
ARROW_HEAD_HALF_WIDTH: Final = 0.25 * SPACING
ARROW_TIP_GAP: Final = 0.2 * SPACING
CROSS_HALF: Final = 0.13 * SPACING


@dataclass(frozen=True)
class Frame:
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


def number(value: float) -> str:
    """A coordinate with at most two decimals and no trailing zeros, so output stays stable."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def points_attribute(points: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{number(x)},{number(y)}" for x, y in points)


def full_palette(colors: Mapping[str, str] | None) -> dict[str, str]:
    """The default colours with the caller's overrides; an unknown role is refused, since it is
    almost surely a typo that would otherwise be silently ignored."""
    palette = dict(COLORS)
    for role, color in (colors or {}).items():
        if role not in palette:
            raise ValueError(f"unknown colour role {role!r}: expected one of {sorted(COLORS)}")
        palette[role] = color
    return palette
