"""The playing levels, from a child's first games (1) to the engine's full strength (8).

The weaker levels search shallowly and choose among the moves that score well at random, the
better ones more often: their mistakes are the plausible ones a shallow reader makes, never
random moves. The stronger levels search to a time limit. docs/strength.md gives the Elo ladder
measured with the match runner.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from bluegray.engine.search import Limits
from bluegray.errors import BlueGrayError


@dataclass(frozen=True)
class LevelConfig:
    """How one level plays."""

    limits: Limits
    """How long it searches by default (a match's --time or --nodes overrides it)."""
    temperature: float = 0.0
    """Randomness among the good moves, in evaluation units (0: always the best)."""
    margin: float = 0.0
    """How much worse than the best a move may score and still be chosen."""
    max_depth: int | None = None
    """A depth the level never searches beyond, whatever time it is given."""
    description: str = ""


LEVELS: Final = {
    1: LevelConfig(Limits(depth=1), 140.0, 260.0, 1, "beginner: looks one move ahead, often errs"),
    2: LevelConfig(Limits(depth=2), 90.0, 180.0, 2, "novice: sees replies, still careless"),
    3: LevelConfig(Limits(depth=2), 45.0, 100.0, 2, "casual: sees replies, fewer slips"),
    4: LevelConfig(Limits(depth=3), 20.0, 50.0, 3, "club: three plies, rare slips"),
    5: LevelConfig(Limits(depth=4), 8.0, 20.0, 4, "strong: four plies, almost no slips"),
    6: LevelConfig(Limits(time=0.25), description="expert: a quarter second a move"),
    7: LevelConfig(Limits(time=1.0), description="master: one second a move"),
    8: LevelConfig(Limits(time=3.0), description="maximum: three seconds a move"),
}
"""The levels by number."""

TOP_LEVEL: Final = max(LEVELS)


def level_config(level: int) -> LevelConfig:
    """The configuration of a level, 1 to 8."""
    try:
        return LEVELS[level]
    except KeyError:
        raise BlueGrayError(
            f"unknown level {level!r}: levels are {min(LEVELS)} to {max(LEVELS)}"
        ) from None
