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
