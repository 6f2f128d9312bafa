"""The board's geometry (docs/rules-reference.md §1)."""

from __future__ import annotations

import pytest

from bluegray.errors import InvalidPointError
from bluegray.points import (
    BLUE_PATH,
    CENTER,
    DIAGONAL_LINES,
    GRAY_PATH,
    NEIGHBOURS,
    PATH_LENGTH,
    POINT_NAMES,
    are_joined,
    make_point,
    parse_point,
    point_name,
    rotate_point,
)


def test_point_names_round_trip() -> None:
    assert len(POINT_NAMES) == 81
    for point, name in enumerate(POINT_NAMES):
        assert parse_point(name) == point
        assert point_name(point) == name
    assert point_name(0) == "a1" and point_name(80) == "i9" and point_name(CENTER) == "e5"


@pytest.mark.parametrize("text", ["", "e", "e0", "e10", "j5", "E5", "5e", " e5", "e5 ", "ee5"])
def test_bad_point_names(text: str) -> None:
    with pytest.raises(InvalidPointError, match="invalid point") as error:
        parse_point(text)
    assert repr(text) in str(error.value)


def test_make_point_refuses_off_board() -> None:
    assert make_point(4, 4) == CENTER
    with pytest.raises(InvalidPointError, match="off the 9x9 board"):
        make_point(9, 0)


def test_paths_are_as_written_in_the_rules() -> None:
    blue = "e1 d2 d3 d4 c5 b4 b5 a5 b6 a7 b7 b8 c7 d8 d7 e7 d6 e5"
    gray = "e9 f8 f7 f6 g5 h6 h5 i5 h4 i3 h3 h2 g3 f2 f3 e3 f4 e5"
    assert " ".join(map(point_name, BLUE_PATH)) == blue
    assert " ".join(map(point_name, GRAY_PATH)) == gray
    assert PATH_LENGTH == 17
    assert set(BLUE_PATH) & set(GRAY_PATH) == {CENTER}


def test_the_eighteen_diagonal_lines() -> None:
    written = (
        "e1-d2 d4-c5 c5-b4 a5-b6 b6-a7 b8-c7 c7-d8 e7-d6 d6-e5 "
        "e9-f8 f6-g5 g5-h6 i5-h4 h4-i3 h2-g3 g3-f2 e3-f4 f4-e5"
    )
    found = {frozenset(pair) for pair in DIAGONAL_LINES}
    expected = {frozenset(map(parse_point, pair.split("-"))) for pair in written.split()}
    assert found == expected
    assert len(DIAGONAL_LINES) == 18


def test_lines_are_symmetric_and_orthogonal_or_diagonal() -> None:
    total = 0
    for point, neighbours in enumerate(NEIGHBOURS):
        for other in neighbours:
            assert are_joined(other, point)
            total += 1
    # 2 * 9 * 8 orthogonal lines, 18 diagonal ones, each counted from both ends.
    assert total == 2 * (2 * 9 * 8 + 18)
    assert not are_joined(parse_point("a1"), parse_point("b2"))
    assert are_joined(parse_point("e1"), parse_point("d2"))


def test_rotation() -> None:
    assert rotate_point(parse_point("e1")) == parse_point("e9")
    assert rotate_point(parse_point("d2")) == parse_point("f8")
    assert rotate_point(CENTER) == CENTER
    assert tuple(map(rotate_point, BLUE_PATH)) == GRAY_PATH
