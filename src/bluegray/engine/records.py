"""The engine's records and their layouts, in one place: a move row, an undo row, the compiled
board's state, and a transposition-table entry.

Inside the compiled code a record is a row of an integer array (a table entry is one packed
integer); its fields are read through the constants and accessors here, never by bare numbers.
At the Python boundary each record is a named type (``MoveRecord``, ``UndoRecord``,
``TableEntry``) made from its row. The accessors are plain functions that both kernels share:
the plain Python search calls them as they are, and the compiled one compiles the very same
functions (``compiled.search``), so a table entry is packed and unpacked in this one place.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Final, NamedTuple

# -- a move row: from, to, how many pieces it takes, then the points taken in order ------------

MOVE_FROM: Final = 0
MOVE_TO: Final = 1
MOVE_TAKEN: Final = 2
"""How many pieces the move takes (0 for a step or a captain's move)."""
MOVE_FIRST_TAKEN: Final = 3
"""The first taken point; the others follow in the order they are jumped."""
MAX_TAKEN: Final = 18
"""More than any army has soldiers (17)."""
MOVE_WIDTH: Final = MOVE_FIRST_TAKEN + MAX_TAKEN


class MoveRecord(NamedTuple):
    """A move row at the Python boundary."""

    frm: int
    to: int
    taken: tuple[int, ...]
    """The points taken, in the order they are jumped (empty for a step)."""

    @classmethod
    def from_row(cls, row: Sequence[int]) -> MoveRecord:
        count = int(row[MOVE_TAKEN])
        taken = tuple(int(row[MOVE_FIRST_TAKEN + k]) for k in range(count))
        return cls(int(row[MOVE_FROM]), int(row[MOVE_TO]), taken)

    @classmethod
    def from_raw(cls, raw: tuple[int, int, int, tuple[int, ...] | None]) -> MoveRecord:
        """The record of a rules-core raw move (``bitboard.RawMove``): a capture's taken points
        lie halfway between its landings."""
        frm, to, _, landings = raw
        if landings is None:
            return cls(frm, to, ())
        return cls(frm, to, tuple((a + b) // 2 for a, b in itertools.pairwise(landings)))

    @property
    def landings(self) -> tuple[int, ...] | None:
        """Every point a capture visits, its start first (``None`` for other moves), as the
        rules core's raw moves list them. A jump is straight, so it lands as far beyond the
        jumped point as it started before it."""
        if not self.taken:
            return None
        path = [self.frm]
        for over in self.taken:
            path.append(2 * over - path[-1])
        return tuple(path)

    def raw(self) -> tuple[int, int, int, tuple[int, ...] | None]:
        """The rules core's raw move (``bitboard.RawMove``) for this row."""
        captured = 0
        for point in self.taken:
            captured |= 1 << point
        return self.frm, self.to, captured, self.landings


# -- an undo row: what taking a move back needs ------------------------------------------------

UNDO_FROM: Final = 0
UNDO_TO: Final = 1
UNDO_CODE: Final = 2
"""The mover's piece code before the move (a private promoted on the far rank was a private)."""
UNDO_COUNT: Final = 3
"""The no-progress count before the move (or the pass: a null move keeps only this)."""
UNDO_FIRST_TAKEN: Final = 4
"""The piece codes of the pieces taken, in the move's order (their points are in the move)."""
UNDO_WIDTH: Final = UNDO_FIRST_TAKEN + 2 * MAX_TAKEN


class UndoRecord(NamedTuple):
    """An undo row at the Python boundary."""

    frm: int
    to: int
    code: int
    previous_count: int
    """The no-progress count before the move."""
    taken_codes: tuple[int, ...]

    @classmethod
    def from_row(cls, row: Sequence[int], taken: int) -> UndoRecord:
        """The record of an undo row whose move took ``taken`` pieces."""
        codes = tuple(int(row[UNDO_FIRST_TAKEN + k]) for k in range(taken))
        return cls(
            int(row[UNDO_FROM]), int(row[UNDO_TO]), int(row[UNDO_CODE]), int(row[UNDO_COUNT]), codes
        )


# -- the compiled board's state ------------------------------------------------------------------

TURN: Final = 0
COUNT: Final = 1
CAPTAIN_POINT: Final = 2
"""``state[CAPTAIN_POINT + side]`` is a side's captain's point."""
HISTORY_LENGTH: Final = 4
MADE: Final = 5
"""How many moves have been made on the compiled board (the next free undo row)."""
STATE_SIZE: Final = 8


# -- a transposition-table entry: one packed integer ---------------------------------------------

EXACT: Final = 0
LOWER: Final = 1
UPPER: Final = 2
"""The bound flags: the score is exact, a lower bound (it failed high) or an upper bound."""
GENERATIONS: Final = 1 << 10
"""A table entry's generation takes ten bits: which search wrote it, modulo this."""
EMPTY: Final = 0
"""The data of a slot that holds no entry (no packed entry is 0: its score field would be the
lowest a 32-bit score can be)."""


def pack_entry(depth: int, flag: int, score: int, move: int, generation: int) -> int:
    """One table entry: the score (32 bits, offset), the move's index in the generation order
    plus one (11 bits; 0 for none), the bound flag (2), the depth (8: at most ``MAX_PLY``) and
    the search's generation (10)."""
    return (
        (score + (1 << 31)) | ((move + 1) << 32) | (flag << 43) | (depth << 45) | (generation << 53)
    )


def entry_score(data: int) -> int:
    return (data & 0xFFFFFFFF) - (1 << 31)


def entry_move(data: int) -> int:
    """The index of the entry's best move in the position's generation order (-1: none)."""
    return ((data >> 32) & 0x7FF) - 1


def entry_flag(data: int) -> int:
    return (data >> 43) & 3


def entry_depth(data: int) -> int:
    return (data >> 45) & 0xFF


def entry_generation(data: int) -> int:
    return data >> 53


class TableEntry(NamedTuple):
    """A transposition-table entry at the Python boundary."""

    depth: int
    flag: int
    score: int
    move: int
    generation: int

    @classmethod
    def unpack(cls, data: int) -> TableEntry:
        data = int(data)
        return cls(
            entry_depth(data),
            entry_flag(data),
            entry_score(data),
            entry_move(data),
            entry_generation(data),
        )

    def pack(self) -> int:
        return pack_entry(self.depth, self.flag, self.score, self.move, self.generation)
