"""What a search is asked and what it answers: its limits, its scores, each finished iteration
and the result. A leaf of the engine: the players, the match runner and the interfaces use these
words without loading the search.

Scores are from the side to move's point of view, in evaluation units (see ``evaluation``);
won games score near ``WIN`` (``IMPASSE_WIN`` for a win by impasse), fewer plies scoring more.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from bluegray.moves import Move

INFINITY: Final = 1_000_000
WIN: Final = 100_000
"""The score of a game won at the root by the rules' centre, lead or stalemate."""
IMPASSE_WIN: Final = 50_000
"""The score of a game won at the root by an impasse (Sackson: the captain farther advanced)."""
DECIDED: Final = 40_000
"""Scores beyond this are decided games, adjusted by their distance in plies."""
MAX_PLY: Final = 128
"""The deepest a search goes (the quiescence search may follow captures beyond it)."""


@dataclass(frozen=True)
class Limits:
    """When to stop searching. ``None`` means no limit of that kind; with none at all the
    search stops at ``MAX_PLY``."""

    depth: int | None = None
    nodes: int | None = None
    time: float | None = None
    """Seconds for this move: the search stops there."""
    aim: float | None = None
    """Seconds the move aims to take, when a clock gives it more room up to ``time`` (the
    ``time_manager``'s soft time): no new depth starts past a share of it, stretched when the
    best move changes or the score drops. ``None``: aim at ``time``."""
    start_share: float | None = None
    """The share of the time aimed at past which no new depth starts (``None``: the engine's,
    ``time_manager.LAST_ITERATION_START``); a player option, to measure that share."""


@dataclass(frozen=True)
class Iteration:
    """What one finished iteration of iterative deepening found."""

    depth: int
    score: int
    nodes: int
    seconds: float
    pv: tuple[Move, ...]
    seldepth: int = 0

    @property
    def nps(self) -> int:
        return int(self.nodes / self.seconds) if self.seconds > 0 else 0

    @property
    def decided(self) -> bool:
        """Whether the score says the game is won or lost with best play."""
        return abs(self.score) > DECIDED


@dataclass
class SearchResult:
    """The outcome of a search: the move to play, its score, and how it was found."""

    move: Move
    score: int
    depth: int
    nodes: int
    seconds: float
    pv: tuple[Move, ...]
    iterations: list[Iteration] = field(default_factory=list)
    kernel: str = ""
    """Which kernel searched: ``python`` or ``compiled`` (``search.KERNELS``)."""

    @property
    def nps(self) -> int:
        return int(self.nodes / self.seconds) if self.seconds > 0 else 0


def mate_distance(score: int) -> int | None:
    """For a decided score, the number of plies to the end of the game; else ``None``."""
    if score > DECIDED:
        base = WIN if score > IMPASSE_WIN // 2 + WIN // 2 else IMPASSE_WIN
        return base - score
    if score < -DECIDED:
        return mate_distance(-score)
    return None
