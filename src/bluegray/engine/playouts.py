"""What a batch of simulated games returns: how each game ended (``Playouts``, with the
rules core's ``Outcome`` of each) and, when asked for, every ply's move (``Trajectories``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from bluegray import bitboard
from bluegray.engine.records import MoveRecord
from bluegray.moves import Move
from bluegray.outcome import Outcome, Termination
from bluegray.pieces import Side
from bluegray.position import move_from_raw
from bluegray.rules import RuleSet

TERMINATIONS: Final = {
    bitboard.CENTER_REACHED: Termination.CENTER,
    bitboard.LEAD: Termination.LEAD,
    bitboard.REPETITION: Termination.REPETITION,
    bitboard.NO_PROGRESS: Termination.NO_PROGRESS,
    bitboard.STALEMATE: Termination.STALEMATE,
}
"""The game-end codes of ``Playouts.ends`` (``bitboard``'s: 0 while a game goes on)."""


@dataclass(frozen=True)
class Trajectories:
    """The moves of each game of a playout, ply by ply (rows padded past ``lengths``).

    ``moves[g, t]`` is the move row of ``records`` (from, to, how many taken, the points
    taken); ``choices[g, t]`` its index among the legal moves in the rules core's order
    (``Board.moves``), ``legal[g, t]`` their number and ``digests[g, t]`` a digest of them all
    (``moves_digest``); ``hashes[g, t]`` and ``counts[g, t]`` are the position's Zobrist hash
    and no-progress count after it."""

    moves: npt.NDArray[np.int8]
    choices: npt.NDArray[np.int16]
    legal: npt.NDArray[np.int16]
    digests: npt.NDArray[np.uint64]
    hashes: npt.NDArray[np.uint64]
    counts: npt.NDArray[np.int16]
    lengths: npt.NDArray[np.int64]

    def records(self, game: int) -> list[MoveRecord]:
        """Game ``game``'s moves as records."""
        rows = self.moves[game, : self.lengths[game]].tolist()
        return [MoveRecord.from_row(row) for row in rows]

    def game_moves(self, game: int) -> list[Move]:
        """Game ``game``'s moves as ``Move`` values (to replay on a ``Game``)."""
        return [move_from_raw(record.raw()) for record in self.records(game)]


@dataclass(frozen=True)
class Playouts:
    """The games of a batch after a playout: how each ended and how long it took."""

    winners: npt.NDArray[np.int64]
    """0 Blue won, 1 Gray won, -1 a draw or a game still going on (its ``ends`` is 0)."""
    ends: npt.NDArray[np.int64]
    """How each game ended: ``bitboard``'s game-end codes (``TERMINATIONS``), 0 going on."""
    plies: npt.NDArray[np.int64]
    """Moves played in each game since it was set up (or reset) in the batch."""
    trajectories: Trajectories | None = None

    def outcome(self, game: int, rules: RuleSet) -> Outcome | None:
        """Game ``game``'s outcome as the rules core states it (``None`` if it goes on)."""
        return outcome_from_codes(int(self.ends[game]), int(self.winners[game]), rules)


def outcome_from_codes(end: int, winner: int, rules: RuleSet) -> Outcome | None:
    """The ``Outcome`` of a game-end code and a winner (0, 1, -1) under ``rules``."""
    if end <= 0:
        return None
    impasse = end in (bitboard.REPETITION, bitboard.NO_PROGRESS) or (
        end == bitboard.STALEMATE and not bitboard.rule_tables(rules).stalemate_loses
    )
    side = None if winner < 0 else (Side.BLUE, Side.GRAY)[winner]
    return Outcome(TERMINATIONS[end], side, impasse)


__all__ = ["TERMINATIONS", "Playouts", "Trajectories", "outcome_from_codes"]
