"""bluegray: the rules, notation, records and pictures of Blue and Gray (Busch & Jaeger, 1903).

>>> import bluegray
>>> game = bluegray.Game("sackson")
>>> game.push("e2-e3")
Move.parse('e2-e3')
>>> len(game.legal_moves)
11
"""

from bluegray.errors import (
    BlueGrayError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidOutcomeError,
    InvalidPointError,
    InvalidPositionError,
    InvalidRecordError,
    InvalidRulesError,
    UnknownRulesError,
)
from bluegray.game import Game
from bluegray.moves import Move
from bluegray.outcome import Outcome, Termination
from bluegray.pieces import BLUE, GRAY, Kind, Piece, Side
from bluegray.points import (
    BLUE_PATH,
    CENTER,
    DIAGONAL_LINES,
    GRAY_PATH,
    POINT_NAMES,
    POINTS,
    Point,
    parse_point,
    point_name,
)
from bluegray.position import Position
from bluegray.record import GameRecord, read_record, read_records, write_record, write_records
from bluegray.rules import PRESETS, RuleSet, rules_by_name

__version__ = "0.1.0"

__all__ = [
    "BLUE",
    "BLUE_PATH",
    "CENTER",
    "DIAGONAL_LINES",
    "GRAY",
    "GRAY_PATH",
    "POINTS",
    "POINT_NAMES",
    "PRESETS",
    "BlueGrayError",
    "Game",
    "GameOverError",
    "GameRecord",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidOutcomeError",
    "InvalidPointError",
    "InvalidPositionError",
    "InvalidRecordError",
    "InvalidRulesError",
    "Kind",
    "Move",
    "Outcome",
    "Piece",
    "Point",
    "Position",
    "RuleSet",
    "Side",
    "Termination",
    "UnknownRulesError",
    "parse_point",
    "point_name",
    "read_record",
    "read_records",
    "rules_by_name",
    "write_record",
    "write_records",
]
