"""Positions: notation, validation, start positions, pieces, hashing (docs/rules-reference.md §2, §6)."""

from __future__ import annotations

import pytest

from bluegray import Kind, Piece, Position, Side
from bluegray.errors import InvalidPositionError, UnknownRulesError
from bluegray.outcome import Termination
from bluegray.points import BLUE_PATH, GRAY_PATH, parse_point
from bluegray.rules import PRESETS

SACKSON_START = "ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 0 1"

STARTS = {
    "sackson": SACKSON_START,
    "cooper": SACKSON_START,
    "classic": SACKSON_START,
    "classic-turbo": SACKSON_START,
    "classic-light": "4c4/ggggggggg/9/9/9/9/9/GGGGGGGGG/4C4 b 0 1",
    "classic-light-turbo": "4c4/ggggggggg/9/9/9/9/9/GGGGGGGGG/4C4 b 0 1",
    "super": "ppppcpppp/ppppppppp/9/9/9/9/9/PPPPPPPPP/PPPPCPPPP b 0 1",
    "super-turbo": "ppppcpppp/ppppppppp/9/9/9/9/9/PPPPPPPPP/PPPPCPPPP b 0 1",
    "super-light": "4c4/ppppppppp/9/9/9/9/9/PPPPPPPPP/4C4 b 0 1",
    "super-light-turbo": "4c4/ppppppppp/9/9/9/9/9/PPPPPPPPP/4C4 b 0 1",
    "pow-super": "ppppCpppp/ppppppppp/9/9/9/9/9/PPPPPPPPP/PPPPcPPPP b 0 1",
    "pow-super-light": "4C4/ppppppppp/9/9/9/9/9/PPPPPPPPP/4c4 b 0 1",
    "pow-classic": "ggggCgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGcGGGG b 0 1",
    "pow-classic-light": "4C4/ggggggggg/9/9/9/9/9/GGGGGGGGG/4c4 b 0 1",
}


@pytest.mark.parametrize("name", PRESETS)
def test_start_positions(name: str) -> None:
    start = Position.start(name)
    assert str(start) == STARTS[name]
    assert Position.parse(STARTS[name], name) == start
    assert start.turn is Side.BLUE and start.count == 0 and start.number == 1
    assert start.advancement(Side.BLUE) == start.advancement(Side.GRAY) == 0
    assert start.outcome() is None


def test_army_sizes() -> None:
    for name, rules in PRESETS.items():
        pieces = Position.start(rules).pieces()
        soldiers = [piece for piece in pieces.values() if piece.kind is not Kind.CAPTAIN]
        expected = 17 if rules.army.value == "full" else 9
        assert len(soldiers) == 2 * expected, name


def test_pow_captains_follow_the_enemy_path() -> None:
    position = Position.start("pow-classic")
    assert position.captain(Side.BLUE) == parse_point("e9")
    assert position.path(Side.BLUE) == GRAY_PATH
    assert position.path(Side.GRAY) == BLUE_PATH
    assert Position.start("classic").path(Side.BLUE) == BLUE_PATH


@pytest.mark.parametrize(
    "text",
    [
        SACKSON_START,
        "g1gg4g/g2g4g/5g2g/g4g1g1/6c2/1G3g3/2GC5/9/G1G6 g 16 124",
        "9/9/9/9/4c4/9/9/9/G3C4 b 0 18",
        "4c4/9/9/9/9/9/1g7/g1g6/Gg2C4 b 0 1",
    ],
)
def test_print_parse_identity(text: str) -> None:
    assert str(Position.parse(text)) == text


def test_pieces_and_piece_at() -> None:
    position = Position.parse(
        "1pppp4/1p3cppp/pp2p4/8p/9/P4PP2/1PP4PP/P1PCP3P/P4P2P b 0 48", "super"
    )
    assert position.piece_at(parse_point("f8")) == Piece(Kind.CAPTAIN, Side.GRAY)
    assert position.piece_at(parse_point("d2")) == Piece(Kind.CAPTAIN, Side.BLUE)
    assert position.piece_at(parse_point("a1")) == Piece(Kind.PRIVATE, Side.BLUE)
    assert position.piece_at(parse_point("b9")) == Piece(Kind.PRIVATE, Side.GRAY)
    assert position.piece_at(parse_point("e5")) is None
    assert position.advancement(Side.BLUE) == 1
    assert position.advancement(Side.GRAY) == 1
    assert len(position.pieces()) == sum(c.isalpha() for c in str(position).split()[0])


def test_guards_may_stand_in_private_games_after_promotion() -> None:
    position = Position.parse("4c3G/ppppppppp/9/9/9/9/9/PPPPPPPP1/4C4 b 0 9", "super-light")
    assert position.piece_at(parse_point("i9")) == Piece(Kind.GUARD, Side.BLUE)


BAD_POSITIONS = [
    ("", "sackson", "expected four fields"),
    (SACKSON_START + " ", "sackson", "expected four fields"),
    (SACKSON_START.replace(" b ", "  b "), "sackson", "expected four fields"),
    ("ggggcgggg/ggggggggg/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 0 1", "sackson", "has 8 ranks"),
    ("ggggcgggg/gggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 0 1", "sackson", "describes 10 points"),
    ("ggggcgggg/gggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 0 1", "sackson", "describes 8 points"),
    ("ggggcgggg/ggggggggg/45/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 0 1", "sackson", "two digits next to"),
    ("ggggcgggg/ggggggggg/9/9/4x4/9/9/GGGGGGGGG/GGGGCGGGG b 0 1", "sackson", "'x' in rank 5"),
    ("ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG w 0 1", "sackson", "side to move 'w'"),
    ("ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b -1 1", "sackson", "count '-1'"),
    (
        "ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 01 1",
        "sackson",
        "without leading zeros",
    ),
    (
        "ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 0 0",
        "sackson",
        "move number '0' must be a whole number from 1 to 999999999",
    ),
    (
        "ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 1000000000 1",
        "sackson",
        "count '1000000000' must be a whole number from 0 to 999999999",
    ),
    pytest.param(
        "ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 0 " + "9" * 5000,
        "sackson",
        "(5,000 characters) must be a whole number from 1 to 999999999",
        id="5000-digit move number",
    ),
    ("ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b \u0661 1", "sackson", "count '\u0661'"),
    ("ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 0 x", "sackson", "move number 'x'"),
    ("ggggggggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 0 1", "sackson", "Gray has 0 captains"),
    ("ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGC/GGGGCGGGG b 0 1", "sackson", "Blue has 2 captains"),
    (
        "ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/CGGGGGGGG b 0 1",
        "sackson",
        "Blue's captain on a1 is not on",
    ),
    (
        "ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 0 1",
        "pow-classic",
        "Blue's captain on e1",
    ),
    (
        "ggggcgggg/ggggggggg/9/9/4g4/9/9/GGGGGGGGG/GGGGCGGGG b 0 1",
        "sackson",
        "soldier stands on the centre",
    ),
    ("ppppcpppp/ppppppppp/9/9/9/9/9/PPPPPPPPP/PPPPCPPPP b 0 1", "sackson", "a private on a1, but"),
    ("ppppcpppp/ppppppppp/9/9/9/9/9/PPPPPPPPP/PPPPCPPPp b 0 1", "super", "a Gray private on i1"),
    ("ppppcpppP/ppppppppp/9/9/9/9/9/PPPPPPPPP/PPPPCPPPP b 0 1", "super", "a Blue private on i9"),
]


@pytest.mark.parametrize(("text", "rules", "message"), BAD_POSITIONS)
def test_invalid_positions(text: str, rules: str, message: str) -> None:
    with pytest.raises(InvalidPositionError) as raised:
        Position.parse(text, rules)
    assert message in str(raised.value)
    assert str(raised.value).startswith("invalid position")


def test_unknown_rules_for_a_position() -> None:
    with pytest.raises(UnknownRulesError, match="unknown rule set 'chess'"):
        Position.parse(SACKSON_START, "chess")


def test_constructor_checks_consistency() -> None:
    start = Position.start()
    with pytest.raises(InvalidPositionError, match="two pieces on"):
        Position(start.rules, (start.guards[0], start.guards[0]), (0, 0), start.captains)
    with pytest.raises(InvalidPositionError, match="captain shares"):
        Position(start.rules, start.guards, (0, 0), (parse_point("a1"), start.captains[1]))
    with pytest.raises(InvalidPositionError, match="off the board"):
        Position(start.rules, (1 << 81, 0), (0, 0), start.captains)
    with pytest.raises(InvalidPositionError, match="count must be a whole number from 0 to"):
        Position(start.rules, start.guards, (0, 0), start.captains, count=10**9)
    with pytest.raises(InvalidPositionError, match="not a number of about 5,001 digits"):
        Position(start.rules, start.guards, (0, 0), start.captains, number=10**5000)


def test_finished_positions() -> None:
    centre = Position.parse("9/9/9/9/4c4/9/9/9/G3C4 b 0 18")
    outcome = centre.outcome()
    assert outcome is not None
    assert (outcome.termination, outcome.winner) == (Termination.CENTER, Side.GRAY)
    assert centre.legal_moves() == []
    lead = Position.parse("ggggcgggg/ggggggggg/9/9/9/3C5/9/GGGGGGGGG/GGGG1GGGG b 0 1", "cooper")
    outcome = lead.outcome()
    assert outcome is not None
    assert (outcome.termination, outcome.winner) == (Termination.LEAD, Side.BLUE)
    assert Position.parse(str(lead), "sackson").outcome() is None


def test_a_no_progress_count_over_the_limit_does_not_end_a_set_up_game() -> None:
    # docs/rules-reference.md §4: before the first move only rules 1, 2 and 5 are checked.
    position = Position.parse("ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 150 1")
    assert position.outcome() is None
    assert len(position.legal_moves()) == 11
    after = position.push("a2-a3")
    assert after.count == 151


def test_hash_depends_on_placement_and_side_only() -> None:
    start = Position.start()
    later = Position.parse(SACKSON_START.replace("b 0 1", "b 7 30"))
    other_side = Position.parse(SACKSON_START.replace(" b ", " g "))
    assert start.zobrist_hash == later.zobrist_hash
    assert start.zobrist_hash != other_side.zobrist_hash
    assert start != later
    assert 0 <= start.zobrist_hash < 2**64


def test_rotation_swaps_sides() -> None:
    position = Position.parse("g1gg4g/g2g4g/5g2g/g4g1g1/6c2/1G3g3/2GC5/9/G1G6 g 16 124")
    rotated = position.rotated()
    assert rotated.turn is Side.BLUE
    assert rotated.rotated() == position
    assert str(Position.start().rotated()) == SACKSON_START.replace(" b ", " g ")
    assert rotated.advancement(Side.BLUE) == position.advancement(Side.GRAY)


def test_positions_are_immutable() -> None:
    position = Position.start()
    with pytest.raises(AttributeError):
        position.count = 3  # type: ignore[misc]
