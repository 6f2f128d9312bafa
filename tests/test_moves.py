"""The Move type and its notation (docs/rules-reference.md §6)."""

from __future__ import annotations

import pytest

from bluegray import Move
from bluegray.errors import InvalidMoveError
from bluegray.points import parse_point


@pytest.mark.parametrize("text", ["d2-d3", "e1-d4", "b2xb4", "b2xb4xd4xf4", "a1xa3xc3xc1xa1"])
def test_text_round_trips(text: str) -> None:
    move = Move.parse(text)
    assert str(move) == text
    assert Move.parse(str(move)) == move
    assert eval(repr(move)) == move  # the repr is the constructor call


def test_fields() -> None:
    step = Move.parse("d2-d3")
    assert step.points == (parse_point("d2"), parse_point("d3"))
    assert not step.capture
    assert step.captured_points == ()
    capture = Move.parse("b2xb4xd4")
    assert capture.capture
    assert capture.from_point == parse_point("b2") and capture.to_point == parse_point("d4")
    assert capture.captured_points == (parse_point("b3"), parse_point("c4"))
    assert Move.step(parse_point("e1"), parse_point("d2")) == Move.parse("e1-d2")


def test_a_two_point_capture_differs_from_a_step() -> None:
    assert Move.parse("b2xb4") != Move.parse("b2-b4")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "expected points joined by '-'"),
        ("d2", "expected points joined by '-'"),
        ("d2-d3-d4", "exactly two points"),
        ("d2-d2", "starts and ends on the same point"),
        ("d2-", "invalid point ''"),
        ("D2-D3", "invalid point 'D2'"),
        ("d2-j3", "invalid point 'j3'"),
        ("b2xb4-d4", "never both"),
        ("b2xb3", "b2xb3 is not a jump"),
        ("b2xd4", "b2xd4 is not a jump"),
        ("b2xb4xb4", "b4xb4 is not a jump"),
        (" d2-d3", "invalid point ' d2'"),
    ],
)
def test_malformed_moves(text: str, message: str) -> None:
    with pytest.raises(InvalidMoveError) as raised:
        Move.parse(text)
    assert message in str(raised.value)
    assert repr(text) in str(raised.value)


def test_constructor_checks_shape() -> None:
    with pytest.raises(InvalidMoveError, match="points must be a tuple"):
        Move((0, 81))
    with pytest.raises(InvalidMoveError, match="a capture needs a start and a landing point"):
        Move((0,), True)
    with pytest.raises(InvalidMoveError, match="expected move text"):
        Move.parse(3)  # type: ignore[arg-type]
