"""The SVG picture of a position: well-formed, complete, readable, and stable."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest

from bluegray import Game, Move, Position
from bluegray.errors import InvalidPointError
from bluegray.pieces import Kind, Side
from bluegray.points import CENTER, parse_point, point_name
from bluegray.svg import COLORS, SPACING, board_svg, piece_symbols

SVG = "{http://www.w3.org/2000/svg}"

CIRCULAR_CAPTURE = ("4c4/9/9/9/9/9/1g7/g1g6/Gg2C4 b 0 1", "a1xa3xc3xc1xa1")


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def with_class(root: ET.Element, name: str) -> list[ET.Element]:
    """Every element whose class list holds ``name``, in document order."""
    return [e for e in root.iter() if name in e.get("class", "").split()]


def only(elements: list[ET.Element]) -> ET.Element:
    assert len(elements) == 1, elements
    return elements[0]


def vertices(element: ET.Element) -> list[tuple[float, float]]:
    pairs = element.get("points", "").split()
    return [(float(x), float(y)) for x, y in (pair.split(",") for pair in pairs)]


def translation(element: ET.Element) -> tuple[float, float]:
    match = re.fullmatch(r"translate\(([-\d.]+) ([-\d.]+)\)", element.get("transform", ""))
    assert match is not None
    return float(match[1]), float(match[2])


def centers(root: ET.Element) -> dict[str, tuple[float, float]]:
    """Where each point is drawn, read from the coordinate labels: a file letter stands over its
    column and a rank number beside its row, its y shifted by a fixed amount to centre the text
    (measured on rank 5, whose row holds the centre dot)."""
    columns = {e.text or "": float(e.get("x", "")) for e in with_class(root, "file")}
    rows = {e.text or "": float(e.get("y", "")) for e in with_class(root, "rank")}
    shift = rows["5"] - float(only(with_class(root, "center-dot")).get("cy", ""))
    return {f + r: (x, y - shift) for f, x in columns.items() for r, y in rows.items()}


def luminance(color: str) -> float:
    """WCAG relative luminance of a ``#rrggbb`` colour."""
    channels = [int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def close(a: tuple[float, float], b: tuple[float, float], tolerance: float = 0.02) -> bool:
    return math.dist(a, b) <= tolerance


@pytest.mark.parametrize("rules", ["sackson", "super-light", "pow-classic", "pow-super-light"])
def test_svg_is_well_formed_with_title_and_size(rules: str) -> None:
    position = Position.start(rules)
    root = parse(board_svg(position, size=300))
    assert root.tag == f"{SVG}svg"
    assert root.get("width") == "300" and root.get("height") == "300"
    view = [float(v) for v in root.get("viewBox", "").split()]
    assert view[:2] == [0, 0] and view[2] == view[3] > 8 * SPACING
    title = root.find(f"{SVG}title")
    assert title is not None and title.text == str(position)


@pytest.mark.parametrize("rules", ["sackson", "super-light", "pow-classic"])
def test_one_piece_element_per_piece(rules: str) -> None:
    position = Position.start(rules)
    pieces = with_class(parse(board_svg(position)), "piece")
    assert len(pieces) == len(position.pieces())
    for element in pieces:
        piece = position.pieces()[parse_point(element.get("data-point", ""))]
        assert element.get("class") == f"piece {piece.side.value} {piece.kind.name.lower()}"


def test_pieces_stand_on_their_points_in_a_game() -> None:
    game = Game("super")
    for move in ("e2-e3", "d8-d7", "e3-e4"):
        game.push(move)
    root = parse(board_svg(game.position))
    where = centers(root)
    drawn = {e.get("data-point", ""): translation(e) for e in with_class(root, "piece")}
    assert set(drawn) == {point_name(p) for p in game.position.pieces()}
    assert close(drawn["e4"], where["e4"])
    assert "e2" not in drawn


@pytest.mark.parametrize(("rules", "blue_start"), [("sackson", "e1"), ("pow-classic", "e9")])
def test_paths_are_coloured_by_the_side_that_follows_them(rules: str, blue_start: str) -> None:
    root = parse(board_svg(Position.start(rules)))
    where = centers(root)
    blue = only([e for e in with_class(root, "path") if "blue" in e.get("class", "").split()])
    gray = only([e for e in with_class(root, "path") if "gray" in e.get("class", "").split()])
    assert blue.get("stroke") == COLORS["blue-path"]
    assert gray.get("stroke") == COLORS["gray-path"]
    blue_points, gray_points = vertices(blue), vertices(gray)
    assert len(blue_points) == len(gray_points) == 18
    assert close(blue_points[0], where[blue_start])
    gray_start = "e9" if blue_start == "e1" else "e1"
    assert close(gray_points[0], where[gray_start])
    assert close(blue_points[-1], where["e5"]) and close(gray_points[-1], where["e5"])


def test_path_colours_differ_in_lightness_not_only_hue() -> None:
    assert contrast(COLORS["blue-path"], COLORS["gray-path"]) >= 2
    assert abs(luminance(COLORS["blue-path"]) - luminance(COLORS["gray-path"])) >= 0.15


def test_grid_and_diagonal_lines() -> None:
    root = parse(board_svg(Position.start("sackson")))
    assert len(with_class(root, "file-line")) == len(with_class(root, "rank-line")) == 9
    diagonals = with_class(root, "diagonal")
    assert len(diagonals) == 18
    assert "e1 d2" in {e.get("data-points") for e in diagonals}


def test_center_is_a_red_dot_on_e5() -> None:
    root = parse(board_svg(Position.start("sackson")))
    where = centers(root)
    center = only(with_class(root, "center"))
    assert center.get("data-point") == point_name(CENTER)
    dot = only(with_class(center, "center-dot"))
    assert dot.get("fill") == COLORS["center"]
    assert close((float(dot.get("cx", "")), float(dot.get("cy", ""))), where["e5"])
    # Marked by shape too, for readers who cannot tell red apart: a ring around the dot.
    ring = only(with_class(center, "center-ring"))
    assert float(ring.get("r", "")) > float(dot.get("r", ""))


def body_signature(piece: ET.Element) -> tuple[str, float]:
    """The tag of a piece's main shape and its reach from the point (radius or half diagonal)."""
    body = only(with_class(piece, "body"))
    if body.tag == f"{SVG}circle":
        return body.tag, float(body.get("r", ""))
    return body.tag, max(max(abs(x), abs(y)) for x, y in vertices(body))


def test_kinds_have_different_shapes_and_sides_the_same_shapes() -> None:
    position = Position.parse("4c4/ppppppppp/8g/9/9/9/G8/PPPPPPPPP/4C4 b 0 1", "super")
    root = parse(board_svg(position))
    shapes: dict[tuple[Kind, Side], tuple[str, float, bool]] = {}
    for element in with_class(root, "piece"):
        piece = position.pieces()[parse_point(element.get("data-point", ""))]
        tag, reach = body_signature(element)
        has_star = bool(with_class(element, "star"))
        shapes[piece.kind, piece.side] = (tag, reach, has_star)
    assert len(shapes) == 6
    for kind in Kind:
        assert shapes[kind, Side.BLUE] == shapes[kind, Side.GRAY]
    captain, guard, private = (shapes[kind, Side.BLUE] for kind in Kind)
    assert len({captain, guard, private}) == 3
    assert captain[2] and not guard[2] and not private[2]
    assert guard[0] == f"{SVG}circle" and private[0] == f"{SVG}polygon"
    # Areas: a disc of radius r against a diamond of half diagonal d (2 d^2).
    assert captain[1] > guard[1]
    assert math.pi * guard[1] ** 2 > 1.2 * 2 * private[1] ** 2


def test_sides_differ_by_fill_lightness() -> None:
    root = parse(board_svg(Position.start("sackson")))
    fills: dict[str, set[str]] = {}
    for element in with_class(root, "piece"):
        side = "blue" if "blue" in element.get("class", "").split() else "gray"
        fills.setdefault(side, set()).add(only(with_class(element, "body")).get("fill", ""))
    assert fills == {"blue": {COLORS["blue-fill"]}, "gray": {COLORS["gray-fill"]}}
    assert contrast(COLORS["blue-fill"], COLORS["gray-fill"]) >= 4.5
    assert abs(luminance(COLORS["blue-fill"]) - luminance(COLORS["gray-fill"])) >= 0.5


def test_flipped_shows_the_board_from_grays_side() -> None:
    position = Position.start("sackson")
    normal, flipped = parse(board_svg(position)), parse(board_svg(position, flipped=True))
    # Labels come in reading order, left to right and top to bottom.
    assert with_class(normal, "file")[0].text == "a"
    assert with_class(flipped, "file")[0].text == "i"
    assert with_class(normal, "rank")[0].text == "9"
    assert with_class(flipped, "rank")[0].text == "1"
    for root, a1_left_bottom in ((normal, True), (flipped, False)):
        where = centers(root)
        assert (where["a1"][0] < where["i1"][0]) == a1_left_bottom
        assert (where["a1"][1] > where["a9"][1]) == a1_left_bottom
        captain = only(
            [e for e in with_class(root, "captain") if "blue" in e.get("class", "").split()]
        )
        assert close(translation(captain), where["e1"])


def test_coordinates_can_be_left_out() -> None:
    position = Position.start("sackson")
    root = parse(board_svg(position, coordinates=False))
    assert not with_class(root, "coordinates")
    assert root.find(f".//{SVG}text[@class='file']") is None
    small = float(root.get("viewBox", "").split()[2])
    large = float(parse(board_svg(position)).get("viewBox", "").split()[2])
    assert small < large


def test_last_move_arrow_runs_through_every_landing_of_a_capture() -> None:
    start, capture = CIRCULAR_CAPTURE
    game = Game("sackson", start)
    game.push(capture)
    root = parse(board_svg(game.position, last_move=game.last_move))
    where = centers(root)
    group = only(with_class(root, "last-move"))
    assert group.get("data-move") == capture
    assert group.get("data-points") == "a1 a3 c3 c1 a1"
    shaft = vertices(only(with_class(group, "arrow-shaft")))
    assert len(shaft) == 5
    for corner, name in zip(shaft[:-1], ("a1", "a3", "c3", "c1"), strict=True):
        assert close(corner, where[name])
    # The last leg, c1 to a1, ends in a head pointing at a1.
    tip = vertices(only(with_class(group, "arrow-head")))[0]
    for end in (shaft[-1], tip):
        assert end[1] == pytest.approx(where["a1"][1])
        assert where["a1"][0] < end[0] < where["c1"][0]
    assert math.dist(tip, where["a1"]) < 0.5 * SPACING
    assert math.dist(shaft[-1], where["a1"]) > math.dist(tip, where["a1"])
    captured = {e.get("data-point") for e in with_class(group, "captured")}
    assert captured == {"a2", "b3", "c2", "b1"}


def test_last_move_arrow_of_a_turbo_slide_follows_the_path() -> None:
    game = Game("classic-turbo", "4c4/9/9/9/1G7/9/9/9/4C4 b 0 1")
    game.push("e1-b4")
    group = only(with_class(parse(board_svg(game.position, last_move=game.last_move)), "last-move"))
    assert group.get("data-points") == "e1 d2 d3 d4 c5 b4"
    assert len(vertices(only(with_class(group, "arrow-shaft")))) == 6


def test_a_step_arrow_has_a_head() -> None:
    game = Game("sackson")
    game.push("e2-e3")
    root = parse(game._repr_svg_())
    group = only(with_class(root, "last-move"))
    assert group.get("data-move") == "e2-e3"
    assert len(vertices(only(with_class(group, "arrow-head")))) == 3
    assert not with_class(group, "captured")


def test_no_arrow_without_a_last_move() -> None:
    assert not with_class(parse(board_svg(Position.start("sackson"))), "last-move")


def test_highlights_mark_each_point_once() -> None:
    position = Position.start("sackson")
    points = [parse_point(name) for name in ("e3", "d3", "e3", "a1")]
    root = parse(board_svg(position, highlights=points))
    where = centers(root)
    marks = with_class(root, "highlight")
    assert [e.get("data-point") for e in marks] == ["a1", "d3", "e3"]
    for mark in marks:
        drawn = (float(mark.get("cx", "")), float(mark.get("cy", "")))
        assert close(drawn, where[mark.get("data-point", "")])
    assert not with_class(parse(board_svg(position)), "highlight")


@pytest.mark.parametrize("point", [-1, 81, True, "e3"])
def test_highlighting_a_point_off_the_board_is_refused(point: object) -> None:
    with pytest.raises(InvalidPointError):
        board_svg(Position.start("sackson"), highlights=[point])  # type: ignore[list-item]


def test_repr_svg_of_position_and_game() -> None:
    position = Position.start("pow-super")
    assert position._repr_svg_() == board_svg(position)
    game = Game("pow-super")
    game.push("e2-e3")
    assert game._repr_svg_() == board_svg(game.position, last_move=Move.parse("e2-e3"))
    assert with_class(parse(game._repr_svg_()), "last-move")


def test_output_is_deterministic() -> None:
    start, capture = CIRCULAR_CAPTURE
    game = Game("sackson", start)
    game.push(capture)

    def draw(highlights: set[int]) -> str:
        return board_svg(game.position, last_move=game.last_move, highlights=highlights)

    assert draw({4, 40, 13}) == draw({13, 4, 40})
    assert board_svg(Position.start("super"), flipped=True) == board_svg(
        Position.start("super"), flipped=True
    )


def test_colours_can_be_overridden_and_are_escaped() -> None:
    odd = "url(#a) & <b> \"c\" 'd'"
    root = parse(board_svg(Position.start("sackson"), colors={"board": odd}))
    assert only(with_class(root, "board")).get("fill") == odd
    with pytest.raises(ValueError, match="colour role"):
        board_svg(Position.start("sackson"), colors={"bleu-fill": "#000000"})


@pytest.mark.parametrize("size", [0, -5, True, 2.5])
def test_bad_size_is_refused(size: object) -> None:
    with pytest.raises(ValueError, match="size"):
        board_svg(Position.start("sackson"), size=size)  # type: ignore[arg-type]


def shapes(element: ET.Element) -> list[tuple[str, dict[str, str], str]]:
    return [(child.tag, dict(child.attrib), (child.text or "").strip()) for child in element]


def test_piece_symbols_are_the_pieces_of_the_picture() -> None:
    """The web app's boards place these symbols: they must be the very pieces board_svg draws."""
    root = parse(piece_symbols())
    assert root.get("data-spacing") == str(SPACING)
    symbols = {e.get("id"): e for e in root.iter(f"{SVG}g")}
    seen = set()
    for rules in ("sackson", "super"):
        position = Position.start(rules)
        for element in with_class(parse(board_svg(position)), "piece"):
            piece = position.pieces()[parse_point(element.get("data-point", ""))]
            name = f"bluegray-piece-{piece.side.value}-{piece.kind.name.lower()}"
            assert shapes(symbols[name]) == shapes(element), name
            assert symbols[name].get("class") == element.get("class")
            seen.add(name)
    assert len(seen) == 6 == len(symbols)
