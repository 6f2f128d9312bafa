"""How a reviewed game's moves are judged: by the loss in the mover's expected score that each
move causes, read from the engine's analyses of the positions before and after it.

The expected score is the engine's own (``blue_expected``: 1 a sure Blue win, 0.5 even, 0 a sure
Gray win), stored with the review; so the verdicts are read from what was stored, and an engine
whose scores are calibrated afresh changes no stored verdict.

- **Loss** of a move: the mover's expected score after the engine's best move less the mover's
  expected score after the move played, never below 0. Both are searches of a position with the
  opponent to move, to the same nodes: the position the move made, and (searched for the review
  as a job of its own) the position the engine's move would have made. Comparing positions with the
  same side to move matters here: the engine's expected score swings by some 0.1 to 0.2 with the
  turn alone in Blue and Gray's opening (a tempo, and the odd and even depths of a short search),
  so the score before a move and the score after it (lichess's way) would call most moves
  mistakes. The engine's own best move loses nothing.
- **Verdicts**, on the loss: an *inaccuracy* from 0.05, a *mistake* from 0.10, a *blunder* from
  0.15 (lichess's thresholds of 0.1, 0.2 and 0.3 in "winning chances", which run from -1 to 1,
  are these on the expected score, which runs from 0 to 1).
- **Accuracy** of a move, in per cent: lichess's formula on the loss in per cent,
  ``103.1668 * exp(-0.04354 * 100 * loss) - 3.1669``, plus lichess's bonus of 1 for the
  analysis's own uncertainty, kept within 0 to 100. A player's accuracy in a game is the mean of
  their moves' accuracies (lichess weighs moves by the game's volatility and takes a harmonic
  mean as well; the plain mean is easier to check by hand).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from bluegray.pieces import Side

Verdict = Literal["inaccuracy", "mistake", "blunder"]

THRESHOLDS: Final[tuple[tuple[float, Verdict], ...]] = (
    (0.15, "blunder"),
    (0.10, "mistake"),
    (0.05, "inaccuracy"),
)
"""The smallest loss in expected score of each verdict, the worst first."""
SYMBOLS: Final[dict[Verdict, str]] = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}


@dataclass(frozen=True)
class Judged:
    """What the review's two positions around a move say of it."""

    ply: int
    """The move's ply: 1 for the first move."""
    side: Side
    """Who played it."""
    before: float
    """The mover's expected score after the engine's best move."""
    after: float
    """The mover's expected score after the move played."""
    best: bool
    """Whether it was the engine's own best move."""

    @property
    def loss(self) -> float:
        if self.best:
            return 0.0
        # To a millionth, so that 0.60 - 0.50 is the 0.10 it reads (a mistake), not 0.0999...
        return round(max(0.0, self.before - self.after), 6)

    @property
    def verdict(self) -> Verdict | None:
        return verdict(self.loss)

    @property
    def accuracy(self) -> float:
        return move_accuracy(self.loss)


def side_expected(blue_expected: float, side: Side) -> float:
    """``side``'s expected score where Blue's is ``blue_expected``."""
    return blue_expected if side is Side.BLUE else 1.0 - blue_expected


def verdict(loss: float) -> Verdict | None:
    """The verdict on a move that lost ``loss`` of the mover's expected score (``None``: a
    good move)."""
    for least, name in THRESHOLDS:
        if loss >= least:
            return name
    return None


def move_accuracy(loss: float) -> float:
    """A move's accuracy in per cent, from the expected score it lost."""
    raw = 103.1668 * math.exp(-0.04354 * 100.0 * loss) - 3.1669 + 1.0
    return min(100.0, max(0.0, raw))


def player_accuracy(moves: Sequence[Judged], side: Side) -> float | None:
    """The mean accuracy of ``side``'s moves (``None``: it played none)."""
    own = [move.accuracy for move in moves if move.side is side]
    if not own:
        return None
    return sum(own) / len(own)
