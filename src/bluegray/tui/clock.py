"""Game clocks for play in the terminal: a time control (``5`` or ``3+2``) and the two clocks.

The clock reads a monotonic time source that tests replace, so it is checked without waiting.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from bluegray.engine.time_manager import InvalidClockError, TimeControl
from bluegray.pieces import Side

__all__ = ["Clock", "InvalidClockError", "TimeControl"]


class Clock:
    """Two clocks of which at most one runs: the side to move's."""

    def __init__(self, control: TimeControl, now: Callable[[], float] = time.monotonic) -> None:
        self.control = control
        self._now = now
        self._left = dict.fromkeys(Side, control.minutes * 60.0)
        self._running: Side | None = None
        self._since = 0.0

    @property
    def running(self) -> Side | None:
        """The side whose clock is running, if any."""
        return self._running

    def remaining(self, side: Side) -> float:
        """Seconds left to ``side`` now (never below zero)."""
        left = self._left[side]
        if side is self._running:
            left -= self._now() - self._since
        return max(0.0, left)

    def start(self, side: Side) -> None:
        """Start ``side``'s clock (stopping the other)."""
        self.stop()
        self._running = side
        self._since = self._now()

    def stop(self) -> None:
        """Stop whichever clock runs, charging it the time used."""
        if self._running is not None:
            self._left[self._running] = self.remaining(self._running)
            self._running = None

    def press(self, side: Side) -> None:
        """``side`` has moved: charge its time, add the increment, start the opponent's clock."""
        if self._running is side:
            self.stop()
        self._left[side] += self.control.increment
        self.start(side.other)

    def flagged(self) -> Side | None:
        """The side whose running clock has reached zero, if any."""
        side = self._running
        if side is not None and self.remaining(side) <= 0:
            return side
        return None

    def reset(self, turn: Side | None) -> None:
        """Both clocks back to the full time; ``turn``'s starts (none if ``None``)."""
        self._left = dict.fromkeys(Side, self.control.minutes * 60.0)
        self._running = None
        if turn is not None:
            self.start(turn)


def format_time(seconds: float) -> str:
    """A clock reading: ``4:05``, or ``0:09.3`` with tenths in the last twenty seconds."""
    if seconds < 20:
        tenths = int(seconds * 10)
        return f"0:{tenths // 10:02d}.{tenths % 10}"
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"
