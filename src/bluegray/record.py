"""Game records: a PGN-like text of tag pairs and numbered moves, read and written byte for byte.

The format is specified in ``docs/records.md``; python-chess's ``chess.pgn`` is the model. The
record and its writer are ``game_record``'s, the reader ``record_reader``'s.
"""

from __future__ import annotations

from bluegray.game_record import (
    GAME_TAGS,
    LINE_LENGTH,
    ROSTER,
    UNFINISHED,
    UNKNOWN,
    UNKNOWN_DATE,
    GameRecord,
    write_record,
    write_records,
)
from bluegray.record_reader import read_record, read_records

__all__ = [
    "GAME_TAGS",
    "LINE_LENGTH",
    "ROSTER",
    "UNFINISHED",
    "UNKNOWN",
    "UNKNOWN_DATE",
    "GameRecord",
    "read_record",
    "read_records",
    "write_record",
    "write_records",
]
