"""A position's list of moves as the compiled playouts hold it (move rows): the digest they
record of it, and the order of the moves' notation (``Game.legal_moves``' order).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from bluegray.engine.records import (
    MAX_TAKEN,
    MOVE_FIRST_TAKEN,
    MOVE_FROM,
    MOVE_TAKEN,
    MOVE_TO,
    MoveRecord,
)
from bluegray.points import SIZE

DIGEST_FACTOR: Final = np.uint64(0x100000001B3)
"""The multiplier of ``moves_digest`` (FNV-1a's 64-bit prime); the compiled twin
(``compiled.batch.moves_digest``) uses the same constants."""
DIGEST_START: Final = np.uint64(0xCBF29CE484222325)
"""FNV-1a's 64-bit offset basis: the digest of an empty list."""


def moves_digest(moves: Sequence[MoveRecord]) -> int:
    """The digest the compiled playouts record of a position's legal moves
    (``compiled.batch.moves_digest``), computed from records: FNV-1a over each move's from, to,
    count and taken points."""
    mask = (1 << 64) - 1
    h = int(DIGEST_START)
    for move in moves:
        for number in (move.frm, move.to, len(move.taken), *move.taken):
            h = ((h ^ number) * int(DIGEST_FACTOR)) & mask
    return h


def notation_order(record: MoveRecord) -> tuple[tuple[int, int], ...]:
    """A key that sorts moves as their notation does (``Game.legal_moves``' order): by the
    points they visit, each by its file letter then its rank digit, a move before its own
    continuation."""
    points = record.landings or (record.frm, record.to)
    return tuple((point % SIZE, point // SIZE) for point in points)


def notation_ranks(rows: npt.NDArray[np.int64]) -> npt.NDArray[np.intp]:
    """The order of move rows by their notation (``notation_order``), as indices."""
    count = len(rows)
    points = np.zeros((count, MAX_TAKEN + 2), np.int64)
    points[:, 0] = rows[:, MOVE_FROM]
    taken = rows[:, MOVE_TAKEN]
    points[:, 1] = np.where(
        taken > 0, 2 * rows[:, MOVE_FIRST_TAKEN] - rows[:, MOVE_FROM], rows[:, MOVE_TO]
    )
    for k in range(1, int(taken.max(initial=0))):
        points[:, k + 1] = np.where(taken > k, 2 * rows[:, MOVE_FIRST_TAKEN + k] - points[:, k], -1)
    length = np.maximum(taken, 1) + 1
    keys = (points % SIZE) * SIZE + points // SIZE + 1
    keys[np.arange(points.shape[1]) >= length[:, None]] = 0
    return np.lexsort(keys.T[::-1])


__all__ = ["moves_digest", "notation_order", "notation_ranks"]
