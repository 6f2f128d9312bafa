"""Time on the server: the wall clock every process reads (``now_ms``), and game clocks as
values: each side's remaining time, and since when the running one has run.

Storing "remaining when it started" plus "started at" (not a ticking number) is what makes a
clock survive a restart, and lets any process charge it: the time left is always
``remaining - (now - since)``, from the game's own record of time.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Final, Literal

from bluegray.pieces import Side

_offset_ms = [0]


def now_ms() -> int:
    """The server's time: milliseconds since the Unix epoch, plus the offset set for tests."""
    return int(time.time() * 1000) + _offset_ms[0]


def set_time_offset(seconds: float) -> None:
    """Move this process's time forward (``BLUEGRAY_TIME_OFFSET_SECONDS``): so that tests can
    run real server processes days ahead, as if days had passed."""
    _offset_ms[0] = round(seconds * 1000)


@dataclass(frozen=True)
class Clock:
    """A Fischer clock: ``initial_ms`` each, ``increment_ms`` added after each move.

    ``running`` is the side whose time is going down (``None`` before the first move and after
    the end); its time left at ``since_ms`` was ``remaining[running]``.
    """

    initial_ms: int
    increment_ms: int
    blue_ms: int
    gray_ms: int
    running: Side | None = None
    since_ms: int | None = None

    @classmethod
    def new(cls, initial_ms: int, increment_ms: int) -> Clock:
        return cls(initial_ms, increment_ms, initial_ms, initial_ms)

    def stored(self, side: Side) -> int:
        return self.blue_ms if side is Side.BLUE else self.gray_ms

    def left(self, side: Side, now_ms: int) -> int:
        """The time ``side`` has left at ``now_ms`` (negative once it has run out)."""
        stored = self.stored(side)
        if side is self.running and self.since_ms is not None:
            return stored - max(0, now_ms - self.since_ms)
        return stored

    def flag_at(self) -> int | None:
        """When the running side runs out of time (``None`` while no clock runs)."""
        if self.running is None or self.since_ms is None:
            return None
        return self.since_ms + self.stored(self.running)

    def _with(self, side: Side, value: int) -> Clock:
        if side is Side.BLUE:
            return dataclasses.replace(self, blue_ms=value)
        return dataclasses.replace(self, gray_ms=value)

    def after_move(self, mover: Side, now_ms: int, *, running_next: bool) -> Clock:
        """The clock once ``mover`` has moved at ``now_ms``: its time charged and its increment
        added (only if its clock was running: the first move of a game is free), and the other
        side's clock started if ``running_next``."""
        clock = self
        if self.running is mover:
            clock = self._with(mover, self.left(mover, now_ms) + self.increment_ms)
        return dataclasses.replace(
            clock,
            running=mover.other if running_next else None,
            since_ms=now_ms if running_next else None,
        )

    def switched(self, running: Side | None, now_ms: int) -> Clock:
        """Stop the running clock at ``now_ms`` (charging it) and start ``running``'s, if any:
        after a takeback, or at the end of the game (``None``)."""
        clock = self
        if self.running is not None:
            clock = self._with(self.running, max(0, self.left(self.running, now_ms)))
        return dataclasses.replace(
            clock, running=running, since_ms=None if running is None else now_ms
        )

    def shifted(self, by_ms: int) -> Clock:
        """The running clock's start moved later by ``by_ms``: time the server was down is not
        charged to anyone."""
        if self.since_ms is None:
            return self
        return dataclasses.replace(self, since_ms=self.since_ms + by_ms)


DAY_MS: Final = 86_400_000
DAYS_PER_MOVE: Final = (1, 2, 3, 5, 7, 14)
"""The correspondence settings a game may have: days per move."""
TimeClass = Literal["real-time", "correspondence"]
"""What a rating is kept by (``time_class``)."""
REAL_TIME: Final[TimeClass] = "real-time"
CORRESPONDENCE: Final[TimeClass] = "correspondence"
TIME_CLASSES: Final[tuple[TimeClass, ...]] = (REAL_TIME, CORRESPONDENCE)


@dataclass(frozen=True)
class Correspondence:
    """Correspondence time: each move must come within ``days`` of the turn's start (the
    opponent's move, or the game's start), the whole allowance every turn, as on lichess.

    ``deadline_ms`` is when the side to move runs out (``None`` while nobody's time runs: before
    the friend has joined, on the AI's turn, after the end); ``ply`` is the ply of the turn it
    was set for, so that a new turn (a move, a takeback) gets a new deadline and anything else
    (an offer, a presence change) keeps it.
    """

    days: int
    deadline_ms: int | None = None
    ply: int | None = None

    @property
    def allowance_ms(self) -> int:
        return self.days * DAY_MS

    def warning_at(self) -> int | None:
        """When the side to move is told its time is running out: a day before its deadline (a
        quarter of the allowance before it, with less than four days a move)."""
        if self.deadline_ms is None:
            return None
        return self.deadline_ms - min(DAY_MS, self.allowance_ms // 4)

    def running_for(self, ply: int) -> bool:
        return self.deadline_ms is not None and self.ply == ply

    def started(self, ply: int, now_ms: int) -> Correspondence:
        """The full allowance for the turn at ``ply``, from ``now_ms``."""
        return dataclasses.replace(self, deadline_ms=now_ms + self.allowance_ms, ply=ply)

    def stopped(self) -> Correspondence:
        return dataclasses.replace(self, deadline_ms=None, ply=None)

    def left(self, now_ms: int) -> int | None:
        """The time the side to move has left (negative once it has run out)."""
        return None if self.deadline_ms is None else self.deadline_ms - now_ms


def time_class(clock: object | None, days_per_move: int | None) -> TimeClass:
    """A game's time class (what its rating is kept by), from its real-time clock (a ``Clock``,
    the settings of one, a stored clock's column: anything, ``None`` for none) and its
    correspondence days per move: ``real-time`` with a clock, ``correspondence`` with days per
    move, and, as on lichess, a game without any time limit counts as correspondence."""
    if clock is not None and days_per_move is None:
        return REAL_TIME
    return CORRESPONDENCE
