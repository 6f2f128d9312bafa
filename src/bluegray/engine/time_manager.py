"""Time on a clock: how long a move may take (``allocate``: a soft time to aim at and a hard time
never exceeded), and when the iterative deepening starts another depth (``starts_next_depth``:
later when the best move changed or the score dropped). Stockfish's ``timeman`` in this engine's
words; a leaf of the engine, without the search, so that the protocol server, the web's AI and
the match runner share it.

The allocation keeps a safety margin (``overhead``: the move's way to the clock and the caller's
own work) for every move still to come (generously counted), divides the rest by the moves, and
adds the increment: that is the soft time. The moves still to come are the ``movestogo`` of a
time control when there is one, else half the plies the game is expected to last from here
(``expected_plies_left``: from the median game length of the rule set in
docs/game-statistics.md and the plies played). The hard time is a few soft times, never more
than half of what the clock holds beyond one margin (all of it for the last move before the
time control); neither is ever less than ``MIN_MOVE_SECONDS``.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from bluegray.engine.limits import DECIDED, Iteration, Limits
from bluegray.errors import BlueGrayError
from bluegray.rules import RuleSet

LAST_ITERATION_START: Final = 0.45
"""No new iteration starts after this share of the time a move aims at (a time limit, or the
soft time of a clock, extended; see ``starts_next_depth``): the next would rarely finish.
Measured at a fixed time a move: searching to the deadline instead (about a third more time at
one second a move) did not play better against MCTS in ``cooper``: 5-15-0 against 8-12-0 on the
same 20 openings."""

FIXED_SHARE: Final = 30
"""The rule before the time manager (engine 3's web AI): a move on a clock takes a thirtieth of
the time left, whatever the increment, the game's length or the search; kept to measure what the
time manager brings (``level:N,timeman=off``)."""

MIN_MOVE_SECONDS: Final = 0.01
"""The least time a move is given, however short the clock: the floor of both times."""
DEFAULT_OVERHEAD: Final = 0.05
"""Seconds kept back from the clock for what is not the search: the move's way to the clock
(the engine protocol's ``MoveOverhead``, 50 ms by default) and the caller's own work."""
RESERVE_FACTOR: Final = 2.0
"""Without ``movestogo``, the clock keeps a margin for twice the moves the game is expected to
last, since the estimate is a median and long games last far longer..."""
RESERVED_MOVES: Final = 250
"""...and for at least this many moves (half the match runner's cap of 1,000 plies): with a
minute each and a margin of 50 ms, about a fifth of the clock. Simulated with every move
overrunning its soft time by half and 25 ms outside the search, no rule set's game runs a
one-minute clock out before the cap (``tests/engine/test_time_manager.py``)."""
HARD_RATIO: Final = 3.0
"""The hard time is at most this many soft times: room for the extensions (at most
``MAX_EXTENSION``) and for a last iteration started just before the soft limit."""
HARD_SHARE: Final = 0.5
"""Before the last move of a time control, a move never takes more than this share of the time
beyond the safety margin: the clock always keeps half of it for the moves that follow."""

GAME_PLIES: Final = {
    "sackson": 328,
    "cooper": 311,
    "super": 312,
    "super-light": 156,
    "super-turbo": 280,
    "super-light-turbo": 152,
    "classic-light": 242,
    "classic-turbo": 387,
    "classic-light-turbo": 220,
    "pow-super": 488,
    "pow-super-light": 161,
    "pow-classic": 296,
    "pow-classic-light": 248,
}
"""The median length in plies of a game of each published rule set between strong players
(engine 2 against itself: docs/game-statistics.md)."""
DEFAULT_GAME_PLIES: Final = 320
"""The expected length of a game of any other rule set (``classic``, or custom settings): about
the median of the medians above, leaning long (a longer guess only spends less a move)."""

BEST_MOVE_CHANGE: Final = 0.5
"""Each of the last two iterations whose best move differs from the one before it adds this
share of the soft time to the move's aim."""
SCORE_DROP_SCALE: Final = 100
"""A score that fell by this much (evaluation units, Elo-like) since the iteration before adds
the whole soft time to the aim; a smaller drop, its share."""
MAX_EXTENSION: Final = 2.5
"""The most the soft time is stretched by, both reasons together (and never past the hard
time)."""


_CONTROL = re.compile(r"(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?")


class InvalidClockError(BlueGrayError):
    """A time control that is not ``MINUTES[+INCREMENT]``."""


@dataclass(frozen=True)
class TimeControl:
    """Minutes for the whole game for each side, and seconds added after each of its moves."""

    minutes: float
    increment: float = 0.0

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """``5`` (five minutes each) or ``3+2`` (three minutes, two seconds a move)."""
        match = _CONTROL.fullmatch(text.strip())
        if match is None:
            raise InvalidClockError(
                f"invalid clock {text!r}: expected MINUTES[+INCREMENT], e.g. 5 or 3+2"
            )
        minutes = float(match.group(1))
        if minutes <= 0:
            raise InvalidClockError(f"invalid clock {text!r}: the minutes must be more than 0")
        return cls(minutes, float(match.group(2) or 0))

    @property
    def seconds(self) -> float:
        """Each side's time for the whole game, in seconds."""
        return self.minutes * 60.0

    def __str__(self) -> str:
        return f"{self.minutes:g}+{self.increment:g}"


@dataclass(frozen=True)
class Clock:
    """A side's clock when it is to move: the seconds it has left, the seconds it gets back after
    each move, and how many moves it must make before its time control adds time (``None``:
    the whole game on this clock)."""

    remaining: float
    increment: float = 0.0
    moves_to_go: int | None = None

    def __post_init__(self) -> None:
        if not math.isfinite(self.remaining):
            raise ValueError(f"a clock's remaining time must be finite, not {self.remaining}")
        if not (math.isfinite(self.increment) and self.increment >= 0):
            raise ValueError(f"a clock's increment must be 0 or more, not {self.increment}")
        if self.moves_to_go is not None and self.moves_to_go < 1:
            raise ValueError(f"moves to go must be at least 1, not {self.moves_to_go}")


@dataclass(frozen=True)
class MoveTime:
    """The time of one move on a clock: ``soft`` is what it aims to take, ``hard`` what it never
    takes more of (the search stops there)."""

    soft: float
    hard: float

    def capped(self, seconds: float | None) -> MoveTime:
        """At most ``seconds`` (a time a move: a level's own, or ``movetime``) for both."""
        if seconds is None:
            return self
        return MoveTime(min(self.soft, seconds), min(self.hard, seconds))

    def limits(self, depth: int | None = None, nodes: int | None = None) -> Limits:
        """The search's limits for this move (with a depth or node limit as well, if given)."""
        return Limits(depth=depth, nodes=nodes, time=self.hard, aim=self.soft)


def expected_plies_left(ply: int, rules: RuleSet | None = None) -> int:
    """How many plies the game is expected to last after ``ply`` plies: the rule set's median
    length less the plies played, until a third of it; after that, half the median and the
    plies played together, growing with them. Game lengths have a long tail (a quarter of the
    games last half as long again as the median, some reach the match runner's cap of 1,000
    plies): a game that has lasted long is likely to last a good while yet, and a clock that
    expected it to end soon would be spent too early."""
    name = None if rules is None else rules.name
    length = GAME_PLIES.get(name or "", DEFAULT_GAME_PLIES)
    played = max(ply, 0)
    return max(length - played, (length + played) // 2)


def allocate(
    clock: Clock,
    *,
    ply: int = 0,
    rules: RuleSet | None = None,
    overhead: float = DEFAULT_OVERHEAD,
) -> MoveTime:
    """The time of a move ``ply`` plies into a game of ``rules`` on ``clock``, keeping
    ``overhead`` seconds of the clock back for each move still to come (see the module's
    description)."""
    remaining = max(clock.remaining, 0.0)
    overhead = max(overhead, 0.0)
    if clock.moves_to_go is not None:
        moves_left = clock.moves_to_go
    else:
        moves_left = max(1, math.ceil(expected_plies_left(ply, rules) / 2))
    # Every move to come costs its overhead whatever it searches: the search shares out what
    # is left beyond a margin for each (for twice the moves expected, and never fewer than
    # RESERVED_MOVES, since a long game's tail is longer than any estimate). The increment
    # comes back after this move: it is this move's to spend, once the clock holds it (the
    # hard time's cap sees to that).
    reserved = (
        moves_left
        if clock.moves_to_go is not None
        else max(moves_left * RESERVE_FACTOR, RESERVED_MOVES)
    )
    soft = max(remaining - reserved * overhead, 0.0) / moves_left + clock.increment
    share = 1.0 if moves_left == 1 else HARD_SHARE
    hard = min(soft * HARD_RATIO, max(remaining - overhead, 0.0) * share)
    hard = max(hard, MIN_MOVE_SECONDS)
    return MoveTime(max(min(soft, hard), MIN_MOVE_SECONDS), hard)


def fixed_share(clock: Clock) -> MoveTime:
    """A move's time by the rule before the time manager (``FIXED_SHARE``), the same soft and
    hard, so that no search extends it."""
    seconds = max(clock.remaining / FIXED_SHARE, MIN_MOVE_SECONDS)
    return MoveTime(seconds, seconds)


def extension(iterations: Sequence[Iteration]) -> float:
    """How far the soft time stretches after these finished iterations: 1 when the search is
    settled; more when the best move changed between the last iterations (a search that
    keeps changing its mind has not found the move yet) or the score dropped (trouble seen
    late, that a deeper look may get out of); at most ``MAX_EXTENSION``."""
    if len(iterations) < 2:
        return 1.0
    recent = iterations[-3:]
    changes = sum(
        1 for before, after in itertools.pairwise(recent) if before.pv[:1] != after.pv[:1]
    )
    last, before = iterations[-1], iterations[-2]
    drop = 0
    if abs(last.score) <= DECIDED and abs(before.score) <= DECIDED:
        drop = min(max(before.score - last.score, 0), SCORE_DROP_SCALE)
    stretch = (1.0 + BEST_MOVE_CHANGE * changes) * (1.0 + drop / SCORE_DROP_SCALE)
    return min(stretch, MAX_EXTENSION)


def starts_next_depth(elapsed: float, limits: Limits, iterations: Sequence[Iteration]) -> bool:
    """Whether the iterative deepening, ``elapsed`` seconds into a search within ``limits``
    that has finished ``iterations``, starts another depth: not past ``LAST_ITERATION_START``
    (or the limits' own ``start_share``) of the time it aims at, which is ``limits.aim`` (else
    ``limits.time``) stretched by ``extension`` and never past ``limits.time``. With no time
    limit, always. At a fixed time a move (no aim) this is the search's rule of old: no depth
    starts after 45% of it."""
    if limits.time is None:
        return True
    aim = limits.time if limits.aim is None else min(limits.aim, limits.time)
    if aim < limits.time:
        aim = min(aim * extension(iterations), limits.time)
    share = LAST_ITERATION_START if limits.start_share is None else limits.start_share
    return elapsed <= aim * share
