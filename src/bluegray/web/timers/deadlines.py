"""Timers as data: a clock's flag or the AI's move is a row with a due time (written in the same
transaction as the change that needs it), and every process looks for due rows and claims them.

A claim is a compare-and-set on the row as it was read, so exactly one process wins it; it holds
for a lease, and a timer whose holder's lease ran out, or whose holder is no longer alive, is
claimed again by another process. What a timer does is itself a version-checked change of its
game, so even a timer fired twice changes the game once: a flag falls once, an AI move is played
once. The process that sets a timer also wakes itself for it, so timers fire on time while every
process lives; when one dies, the others find its timers at their next look (every
``deadline_poll_seconds``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any, Final

from sqlalchemy import Connection, and_, delete, insert, not_, or_, select, update
from sqlalchemy.orm import Session

from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.db import Database, upsert
from bluegray.web.platform.models import table_of
from bluegray.web.timers.rows import DeadlineRow

log = logging.getLogger("bluegray.web")

CLAIM_MS: Final = 30_000
"""How long a claim holds unless its handler says otherwise."""
BATCH: Final = 200
"""The most due timers taken in one look."""
SETTLE_TRIES: Final = CLAIM_MS // 1000
"""How often a fired timer's end is written again while the database fails (a second apart:
until its claim would run out anyway)."""
LIVE_SECONDS: Final = 1.0
"""How long a look waits to hear which processes live before it goes on without."""
_DEADLINES: Final = table_of(DeadlineRow)


@dataclass(frozen=True)
class Due:
    """A timer as read from the database."""

    kind: str
    subject: str
    due_ms: int
    version: int
    holder: str | None
    held_until_ms: int | None
    note: str | None


@dataclass(frozen=True)
class Verdict:
    """What became of a fired timer: done (it goes), due again later, or still being worked on
    (the claim is extended)."""

    again_at_ms: int | None = None
    hold_until_ms: int | None = None


DONE: Final = Verdict()
Handler = Callable[[Due], Awaitable[Verdict]]


class Timers:
    """This process's part in the cluster's timers."""

    def __init__(
        self,
        db: Database,
        process: str,
        *,
        poll_seconds: float,
        live_processes: Callable[[int], Awaitable[list[str]]],
    ) -> None:
        self.db = db
        self.process = process
        self.poll_seconds = poll_seconds
        self.live_processes = live_processes
        self._handlers: dict[str, Handler] = {}
        self._wake = asyncio.Event()
        self._alarm: asyncio.TimerHandle | None = None
        self._alarm_ms: int | None = None
        self._loop_task: asyncio.Task[None] | None = None
        self._firing: dict[tuple[str, str], asyncio.Task[None]] = {}
        self.fired = 0
        self._blind = False
        """Whether the last look could not tell which processes live (said once)."""

    def on(self, kind: str, handler: Handler) -> None:
        self._handlers[kind] = handler

    async def start(self) -> None:
        self._loop_task = asyncio.create_task(self._run(), name="bluegray-timers")

    async def stop(self) -> None:
        if self._alarm is not None:
            self._alarm.cancel()
        tasks = [task for task in (self._loop_task, *self._firing.values()) if task is not None]
        for task in tasks:
            task.cancel()
        # Their cancellations and errors are gathered, not raised; a cancellation of this stop
        # itself is raised to its caller.
        await asyncio.gather(*tasks, return_exceptions=True)
        # what this process held is free for the others at once
        with contextlib.suppress(Exception):
            await self.db.write(self._release_all)

    def expect(self, due_ms: Iterable[int]) -> None:
        """Wake up for timers this process has just set (so that they fire on time here)."""
        soonest = min(due_ms, default=None)
        if soonest is None or (self._alarm_ms is not None and self._alarm_ms <= soonest):
            return
        if self._alarm is not None:
            self._alarm.cancel()
        self._alarm_ms = soonest
        delay = max(0.0, (soonest - now_ms()) / 1000) + 0.002
        self._alarm = asyncio.get_running_loop().call_later(delay, self._ring)

    def _ring(self) -> None:
        self._alarm = self._alarm_ms = None
        self._wake.set()

    async def _run(self) -> None:
        while True:
            # not ``wait_for``: Python 3.11's loses a cancellation that comes as the event is set
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.poll_seconds):
                    await self._wake.wait()
            self._wake.clear()
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.error("cannot look for due timers: %r", error)

    async def sweep(self) -> int:
        """Claim and fire the timers that are due and held by no live process; how many.

        Which processes live is Redis's to say; while it cannot, the database alone says what
        is free: timers nobody holds and those whose holder's lease ran out (a flag falls on
        time through an outage of Redis; the claim makes sure it falls once)."""
        now = now_ms()
        alive: list[str] | None
        try:
            async with asyncio.timeout(LIVE_SECONDS):  # not wait_for: see ``_run``
                alive = await self.live_processes(now)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            if not self._blind:
                log.warning("cannot tell which processes live (%r): taking free timers", error)
            self._blind = True
            alive = None
        else:
            self._blind = False
        rows = await self.db.read(lambda session: _due(session, now, alive))
        fired = 0
        for due in rows:
            key = (due.kind, due.subject)
            if key in self._firing or due.kind not in self._handlers:
                continue
            if not await self.db.write(partial(self._claim, due=due, now=now_ms())):
                continue
            fired += 1
            self.fired += 1
            task = asyncio.create_task(self._fire(due))
            self._firing[key] = task
            task.add_done_callback(partial(self._fired, key))
        return fired

    def _fired(self, key: tuple[str, str], task: asyncio.Task[None]) -> None:
        self._firing.pop(key, None)

    async def _fire(self, due: Due) -> None:
        handler = self._handlers[due.kind]
        try:
            verdict = await handler(due)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception(
                "the %s timer of %s failed; it is due again shortly", due.kind, due.subject
            )
            verdict = Verdict(again_at_ms=now_ms() + 2000)
        settle = partial(self._settle, due=due, verdict=verdict)
        for _attempt in range(SETTLE_TRIES):  # the database may be out for a while
            try:
                await self.db.write(settle)
                break
            except Exception as error:
                log.warning("cannot settle the %s timer of %s: %r", due.kind, due.subject, error)
                await asyncio.sleep(1)
        for at in (verdict.again_at_ms, verdict.hold_until_ms):
            if at is not None:
                self.expect([at])

    # -- SQL -----------------------------------------------------------------------------------

    def _claim(self, connection: Connection, *, due: Due, now: int) -> bool:
        table = _DEADLINES
        seen = (
            table.c.holder.is_(None)
            if due.holder is None
            else and_(table.c.holder == due.holder, table.c.held_until_ms == due.held_until_ms)
        )
        result = connection.execute(
            update(table)
            .where(
                table.c.kind == due.kind,
                table.c.subject == due.subject,
                table.c.due_ms == due.due_ms,
                table.c.version == due.version,
                seen,
            )
            .values(holder=self.process, held_until_ms=now + CLAIM_MS)
        )
        return bool(result.rowcount == 1)

    def _settle(self, connection: Connection, *, due: Due, verdict: Verdict) -> None:
        table = _DEADLINES
        mine = (
            table.c.kind == due.kind,
            table.c.subject == due.subject,
            table.c.version == due.version,
            table.c.holder == self.process,
        )
        if verdict.again_at_ms is not None:
            connection.execute(
                update(table)
                .where(*mine)
                .values(due_ms=verdict.again_at_ms, holder=None, held_until_ms=None)
            )
        elif verdict.hold_until_ms is not None:
            connection.execute(
                update(table).where(*mine).values(held_until_ms=verdict.hold_until_ms)
            )
        else:
            connection.execute(delete(table).where(*mine))

    def _release_all(self, connection: Connection) -> None:
        table = _DEADLINES
        connection.execute(
            update(table)
            .where(table.c.holder == self.process)
            .values(holder=None, held_until_ms=None)
        )


def _columns() -> tuple[Any, ...]:
    table = _DEADLINES
    return (
        table.c.kind,
        table.c.subject,
        table.c.due_ms,
        table.c.version,
        table.c.holder,
        table.c.held_until_ms,
        table.c.note,
    )


def _due(session: Session, now: int, alive: list[str] | None) -> list[Due]:
    """The due timers that are free: held by nobody, by a lease that ran out, or by a process
    not in ``alive`` (``None``: which live is not known, so only the first two)."""
    table = _DEADLINES
    free = or_(table.c.holder.is_(None), table.c.held_until_ms < now)
    if alive is not None:
        free = or_(free, not_(table.c.holder.in_(alive)) if alive else table.c.holder.is_not(None))
    rows = session.execute(
        select(*_columns()).where(table.c.due_ms <= now, free).order_by(table.c.due_ms).limit(BATCH)
    )
    return [Due(*row) for row in rows]


def timers_of(session: Session, subject: str) -> list[Due]:
    """A subject's timers (for tests and operators)."""
    rows = session.execute(select(*_columns()).where(_DEADLINES.c.subject == subject))
    return [Due(*row) for row in rows]


# -- timers set by the changes of their subjects (a game's, a tournament's) ----------------------


def set_timer(connection: Connection, kind: str, subject: str, due_ms: int) -> None:
    """Make the subject's timer of ``kind`` due at ``due_ms``, free for any process to claim (a
    holder working on it meanwhile leaves it as set here)."""
    upsert(
        connection,
        _DEADLINES,
        {
            "kind": kind,
            "subject": subject,
            "due_ms": due_ms,
            "version": 0,
            "holder": None,
            "held_until_ms": None,
            "note": None,
        },
    )


def add_timers(connection: Connection, timers: list[dict[str, Any]]) -> None:
    """Write timers (each a row's values: ``kind``, ``subject``, ``due_ms``, ``version``...), in
    the caller's transaction: the one that stores the change that needs them."""
    connection.execute(insert(_DEADLINES), timers)


def drop_timers(connection: Connection, subject: str, kinds: Iterable[str]) -> None:
    """Remove the subject's timers of these kinds (the change being stored sets them anew)."""
    connection.execute(
        delete(_DEADLINES).where(_DEADLINES.c.subject == subject, _DEADLINES.c.kind.in_(kinds))
    )


def timer_note(session: Session, kind: str, subject: str) -> str | None:
    """What the holder of the subject's timer of ``kind`` said of it (``None``: nothing)."""
    return session.scalar(
        select(_DEADLINES.c.note).where(_DEADLINES.c.kind == kind, _DEADLINES.c.subject == subject)
    )


def set_timer_note(
    connection: Connection, kind: str, subject: str, version: int, note: str | None
) -> None:
    """Say ``note`` of the subject's timer of ``kind``, if it is still the one set at
    ``version``."""
    table = _DEADLINES
    connection.execute(
        update(table)
        .where(table.c.kind == kind, table.c.subject == subject, table.c.version == version)
        .values(note=note)
    )
