"""The playing levels, from a child's first games (1) to the engine's full strength (8).

The weaker levels search shallowly and now and then make a plausible mistake: instead of the best
move they play another of the few best, never one that loses more than a set margin by their own
shallow reckoning and never when a win is on the board. They lose as weak players do, by not
seeing far and by slips, not by playing at random. The stronger levels search to a time limit,
and so see deeper where there are few moves to look at, as in an ending.
docs/strength.md gives the Elo ladder measured with the match runner.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from bluegray.engine.limits import Limits
from bluegray.engine.time_manager import MoveTime
from bluegray.errors import BlueGrayError


@dataclass(frozen=True)
class LevelConfig:
    """How one level plays."""

    limits: Limits
    """How it searches: a fixed depth for the weaker levels, a time per move for the others
    (a match's --time or --nodes overrides a time, never a fixed depth)."""
    mistake_rate: float = 0.0
    """How often it plays one of the other good moves instead of the best."""
    candidates: int = 1
    """How many of the best moves a mistake chooses among (the best one included)."""
    margin: float = 0.0
    """The most a mistake may cost, in evaluation units, by the level's own search."""
    description: str = ""
    contempt: int = 0
    """How much the level dislikes a draw (evaluation units), in rule sets where an impasse is a
    draw: the strong levels play on rather than repeat against a weaker opponent."""
    revision: int = 1
    """Which version of the level's settings this is: one more whenever they change, or are
    tried in the ladder and not kept, so that strength measured with other settings than the
    current ones is kept apart (docs/strength.md)."""

    @property
    def fixed_depth(self) -> bool:
        """Whether the level always searches to the same depth (the weaker levels)."""
        return self.limits.depth is not None and self.limits.time is None


LEVELS: Final = {
    1: LevelConfig(Limits(depth=1), 0.5, 4, 300.0, "beginner: looks one move ahead, often slips"),
    2: LevelConfig(Limits(depth=2), 0.35, 3, 200.0, "novice: sees the reply, often slips"),
    3: LevelConfig(Limits(depth=3), 0.2, 3, 150.0, "casual: three plies, sometimes slips"),
    4: LevelConfig(Limits(depth=4), 0.1, 2, 100.0, "club: four plies, rare slips"),
    5: LevelConfig(Limits(depth=5), 0.05, 2, 50.0, "strong: five plies, very rare slips"),
    # Revisions 2 and 3 of level 6, 6,000 and 12,000 positions a move, were tried and not kept
    # (docs/engine.md): a level 6 that changes next is revision 4.
    6: LevelConfig(Limits(time=0.05), description="expert: a twentieth of a second a move"),
    7: LevelConfig(Limits(time=0.3), description="master: 0.3 seconds a move"),
    8: LevelConfig(Limits(time=2.0), description="maximum: two seconds a move"),
}
"""The levels by number."""

TOP_LEVEL: Final = max(LEVELS)
"""The strongest level (the engine's full strength)."""
LOWEST_LEVEL: Final = min(LEVELS)
"""The weakest level."""


def seconds_a_move(level: int) -> float | None:
    """How long a level thinks a move when it is limited by time (levels 6 to 8), ``None`` for a
    fixed-depth level (its moves take milliseconds): what a queue of AI jobs sorts them by."""
    return level_config(level).limits.time


def level_config(level: int) -> LevelConfig:
    """The configuration of a level, 1 to 8."""
    try:
        return LEVELS[level]
    except KeyError:
        raise BlueGrayError(
            f"unknown level {level!r}: levels are {min(LEVELS)} to {max(LEVELS)}"
        ) from None


def clock_limits(level: int, move_time: MoveTime) -> Limits | None:
    """A timed level's limits on a clock that gives the move ``move_time`` (the time manager's
    soft and hard times): the clock's times, each capped at the level's own time a move, so
    that the level thinks no longer than it would without a clock. None for a level limited
    otherwise (a depth keeps its strength whatever the clock), which then searches to its own
    limits."""
    wanted = level_config(level).limits.time
    if wanted is None:
        return None
    return move_time.capped(wanted).limits()
