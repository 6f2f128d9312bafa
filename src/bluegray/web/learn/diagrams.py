"""The board diagrams of the Learn pages: teaching positions whose marked moves the library
computes (so the pictures cannot drift from the move generator), drawn in the page by
``static/board.js`` as every board of the site is.
"""

from __future__ import annotations

import dataclasses
import functools

from bluegray.game import Game
from bluegray.pieces import Side
from bluegray.points import BLUE_PATH, GRAY_PATH, point_name
from bluegray.position import Position


@dataclasses.dataclass(frozen=True)
class Diagram:
    """A board of the Learn page: the position, its last move and the points to mark, which the
    page draws with ``static/board.js`` (``data-*`` attributes of its ``figure``)."""

    key: str
    title: str
    caption: str
    position: str
    pow: bool = False
    """Whether each captain walks the other side's path (the prisoners-of-war rules)."""
    last_move: str = ""
    targets: tuple[str, ...] = ()


def _names(points: list[str]) -> str:
    return ", ".join(points[:-1]) + " and " + points[-1] if len(points) > 1 else "".join(points)


def _destinations(position: Position, start: str) -> list[str]:
    return sorted(
        point_name(move.to_point)
        for move in position.legal_moves()
        if point_name(move.from_point) == start
    )


def _after(rules: str, text: str, move: str, title: str, caption: str, key: str) -> Diagram:
    game = Game(rules, Position.parse(text, rules))
    played = game.push(move)
    return Diagram(key, title, caption, str(game.position), last_move=str(played))


@functools.cache
def diagrams() -> dict[str, Diagram]:
    """The teaching diagrams of the Learn page, by key."""
    result: list[Diagram] = []
    paths = Position.parse("4c4/9/9/9/9/9/9/9/4C4 b 0 1", "sackson")
    result.append(
        Diagram(
            "paths",
            "The board and the two paths",
            "The dark line is Blue's path from e1, the light line Gray's path from e9; both end "
            "on the red centre e5. Blue's path: "
            + " ".join(point_name(point) for point in BLUE_PATH)
            + ". Gray's path: "
            + " ".join(point_name(point) for point in GRAY_PATH)
            + ".",
            str(paths),
        )
    )
    guard = Position.parse("4c4/9/9/9/2G6/9/9/9/4C4 b 0 1", "sackson")
    targets = _destinations(guard, "c5")
    result.append(
        Diagram(
            "guard",
            "How a guard moves",
            f"The Blue guard (G) on c5 may step to {_names(targets)} (marked): straight lines "
            "in four directions, and the diagonal path lines that meet at c5.",
            str(guard),
            targets=tuple(targets),
        )
    )
    private = Position.parse("4c4/9/9/9/9/2P6/9/9/4C4 b 0 1", "super")
    targets = _destinations(private, "c4")
    result.append(
        Diagram(
            "private",
            "How a private moves",
            f"The Blue private (P) on c4 may step to {_names(targets)} (marked): forward or "
            "sideways, never back and never diagonally.",
            str(private),
            targets=tuple(targets),
        )
    )
    result.append(
        _after(
            "sackson",
            "4c4/9/9/9/9/9/9/9/4C4 b 0 1",
            "e1-d2",
            "A standard captain's step",
            "A standard captain moves one step along its own path: Blue's first step is the "
            "diagonal e1-d2.",
            "standard",
        )
    )
    result.append(
        _after(
            "classic-light-turbo",
            "4c4/9/9/9/1G7/9/9/9/4C4 b 0 1",
            "e1-b4",
            "A turbo captain's slide",
            "A turbo captain slides as far as it can: from e1 along d2, d3, d4 and c5 to b4, "
            "where its own guard on b5 stops it. The move is written e1-b4.",
            "turbo",
        )
    )
    result.append(
        _after(
            "sackson",
            "4c4/9/9/9/9/9/1g7/g1g6/Gg2C4 b 0 1",
            "a1xa3xc3xc1xa1",
            "A capture that runs in a circle",
            "The Blue guard on a1 must keep jumping while it can: a1xa3xc3xc1xa1 takes four "
            "Gray guards (crossed) and ends where it began.",
            "capture",
        )
    )
    text = "4c4/9/9/9/9/7g1/9/g6g1/G3C2G1 b 0 1"
    free = _names([str(move) for move in Position.parse(text, "sackson").legal_moves()])
    maximal = _names([str(move) for move in Position.parse(text, "classic").legal_moves()])
    result.append(
        Diagram(
            "maximal",
            "Free choice or maximal capture",
            f"Blue must capture. With free choice (sackson, cooper) both {free} are legal; with "
            f"maximal capture (every Hutnik rule set) only {maximal}, which takes two pieces.",
            str(Position.parse(text, "classic")),
        )
    )
    result.append(
        _after(
            "super",
            "4c4/2P6/9/9/9/9/9/9/4C4 b 0 1",
            "c8-c9",
            "Promotion",
            "A Blue private that reaches rank 9 becomes a guard at once (G): from now on it "
            "moves and jumps in every direction a guard may.",
            "promotion",
        )
    )
    lead = Position.parse("9/5c3/9/9/2C6/9/9/9/9 g 0 5", "cooper")
    outcome = lead.outcome()
    assert outcome is not None
    result.append(
        Diagram(
            "lead",
            "The lead rule",
            f"Blue's captain is on c5, {lead.advancement(Side.BLUE)} steps along its path; "
            f"Gray's is on f8, {lead.advancement(Side.GRAY)} step along. Under a lead rule of "
            f"three the game is over: {outcome.describe()}.",
            str(lead),
        )
    )
    return {diagram.key: diagram for diagram in result}
