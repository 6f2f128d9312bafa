"""Timers claimed once however many processes look, stopping as told, and clocks credited once
for an outage of the whole service."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select

from bluegray.web.games.outages import credit_outage
from bluegray.web.games.rows import GameRow
from bluegray.web.platform.db import Database
from bluegray.web.platform.models import table_of
from bluegray.web.timers.deadlines import DONE, Due, Timers, Verdict
from bluegray.web.timers.rows import DeadlineRow
from bluegray.web.timers.uptime import note_alive

# -- timers and the service's heartbeat -------------------------------------------------------


def sqlite_database(path: Path) -> Database:
    database = Database(f"sqlite:///{path / 'timers.sqlite3'}")
    database.start()
    return database


def test_a_due_timer_fires_once_however_many_processes_look(tmp_path: Path) -> None:
    database = sqlite_database(tmp_path)
    deadlines = table_of(DeadlineRow)
    database.run(
        lambda c: c.execute(
            insert(deadlines),
            [
                {
                    "kind": "flag",
                    "subject": "free",
                    "due_ms": 1,
                    "version": 1,
                    "holder": None,
                    "held_until_ms": None,
                },
                {
                    "kind": "flag",
                    "subject": "of-a-dead-process",
                    "due_ms": 1,
                    "version": 1,
                    "holder": "dead",
                    "held_until_ms": 2**50,
                },
                {
                    "kind": "flag",
                    "subject": "held-by-a-live-one",
                    "due_ms": 1,
                    "version": 1,
                    "holder": "p3",
                    "held_until_ms": 2**50,
                },
            ],
        )
    )
    fired: list[tuple[str, str]] = []

    def make(process: str) -> Timers:
        async def alive(now: int) -> list[str]:
            return ["p1", "p2", "p3"]

        timers = Timers(database, process, poll_seconds=60, live_processes=alive)

        async def handler(due: Due) -> Verdict:
            fired.append((process, due.subject))
            return DONE

        timers.on("flag", handler)
        return timers

    async def run() -> None:
        first, second = make("p1"), make("p2")
        await asyncio.gather(first.sweep(), second.sweep(), first.sweep(), second.sweep())
        # the window for the fired timers to finish, and none to fire twice
        await asyncio.sleep(0.2)

    try:
        asyncio.run(run())
        left = database.run(lambda c: [row.subject for row in c.execute(select(deadlines))])
    finally:
        database.close()
    assert sorted(subject for _, subject in fired) == ["free", "of-a-dead-process"]
    assert left == ["held-by-a-live-one"]


def test_the_timers_stop_when_told_to_as_they_wake_up(tmp_path: Path) -> None:
    """Stopping the timers just as they are woken (a game ends, and the process shuts down)
    stops them: the wake-up does not swallow the cancellation, whatever the moment of it."""
    database = sqlite_database(tmp_path)

    async def alive(now: int) -> list[str]:
        return ["p1"]

    async def stop_as_woken(turns: int) -> bool:
        timers = Timers(database, "p1", poll_seconds=0.05, live_processes=alive)
        await timers.start()
        await asyncio.sleep(0.01)  # the loop waits to be woken
        timers._ring()  # what the alarm of ``expect`` does when a timer it was told of is due
        for _ in range(turns):
            await asyncio.sleep(0)  # one turn of the event loop: the moment of the stop varies
        stopping = asyncio.create_task(timers.stop())
        done, _ = await asyncio.wait([stopping], timeout=2)
        return stopping in done

    async def run() -> list[bool]:
        return [await stop_as_woken(turns) for turns in range(8) for _ in range(3)]

    try:
        stopped = asyncio.run(run())
    finally:
        database.close()
    assert all(stopped), f"{stopped.count(False)} of {len(stopped)} stops hung"


def test_a_stop_cancelled_while_it_waits_is_cancelled(tmp_path: Path) -> None:
    """A caller that cancels the timers' stop (a shutdown given up) is told: the stop does not
    take the cancellation for one of its timers' and return as if it had finished."""
    database = sqlite_database(tmp_path)

    async def alive(now: int) -> list[str]:
        return ["p1"]

    async def slow_to_stop() -> None:
        try:
            await asyncio.sleep(60)  # a timer that waits until it is cancelled
        finally:
            await asyncio.sleep(0.5)  # a timer's handler finishing its write

    async def run() -> bool:
        timers = Timers(database, "p1", poll_seconds=60, live_processes=alive)
        await timers.start()
        timers._firing[("flag", "g")] = asyncio.create_task(slow_to_stop())
        await asyncio.sleep(0.01)  # the loop waits to be woken
        stopping = asyncio.create_task(timers.stop())
        await asyncio.sleep(0.05)  # the stop waits for the slow timer
        stopping.cancel()
        try:
            await stopping
        except asyncio.CancelledError:
            return True
        return False

    try:
        cancelled = asyncio.run(run())
    finally:
        database.close()
    assert cancelled


def test_clocks_are_credited_once_for_an_outage_and_not_for_one_process_dying(
    tmp_path: Path,
) -> None:
    database = sqlite_database(tmp_path)
    games = table_of(GameRow)
    row: dict[str, Any] = {
        "id": "g", "created_ms": 0, "updated_ms": 0, "mode": "friend", "status": "active",
        "version": 3, "rules": "sackson", "start": "x", "position": "x", "ply": 1, "turn": "gray",
        "clock_initial_ms": 60_000, "clock_increment_ms": 0, "blue_ms": 60_000,
        "gray_ms": 60_000, "clock_since_ms": 1_000,
    }  # fmt: skip
    database.run(lambda c: c.execute(insert(games), [row]))
    database.run(partial(note_alive, stamp=5_000))

    def since() -> int | None:
        return database.run(lambda c: c.execute(select(GameRow.clock_since_ms)).scalar_one())

    try:
        # Another process beat 1 s ago: the service was up, nothing is credited.
        assert database.run(partial(credit_outage, started=6_000, down_after_ms=2_500)) == 0
        assert since() == 1_000
        # Nobody beat for 10 s: down since the last beat (6 s), credited once however many start.
        gaps = [
            database.run(partial(credit_outage, started=16_000, down_after_ms=2_500)),
            database.run(partial(credit_outage, started=16_000, down_after_ms=2_500)),
        ]
        assert gaps == [10_000, 0]
        assert since() == 11_000
    finally:
        database.close()
