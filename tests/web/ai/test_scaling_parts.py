"""The parts that let several processes serve the same games, one at a time: the hub's ordering
of news, the AI queue's priorities and bounds and how it heals (jobs of stopped workers, Redis
emptied, heartbeats pruned), the CPUs a process may use, timers claimed once, and clocks
credited once for an outage."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import threading
from functools import partial
from pathlib import Path
from random import Random
from typing import Any

import pytest
import redis.asyncio as aioredis
from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from bluegray import Game
from bluegray.engine import levels
from bluegray.engine.limits import Limits
from bluegray.errors import BlueGrayError
from bluegray.pieces import Side
from bluegray.web.accounts.rows import AccountRow
from bluegray.web.ai import local_queue, redis_queue
from bluegray.web.ai.cpus import quota_cpus, usable_cpus
from bluegray.web.ai.jobs import (
    AiBusyError,
    AnalysisOutput,
    Bounds,
    Job,
    MoveJob,
    Owner,
    Priority,
    decode_job,
    encode_job,
    reserved_for_short,
)
from bluegray.web.ai.local_queue import LocalQueue
from bluegray.web.games import actions
from bluegray.web.games.ai_moves import ai_job
from bluegray.web.games.live import LiveGame, Seat
from bluegray.web.games.outages import credit_outage
from bluegray.web.games.rows import GameRow
from bluegray.web.games.store import (
    apply_save,
    change_save,
    live_after,
    load_game,
    new_game_save,
    save_text,
)
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.db import Database
from bluegray.web.platform.metrics import WorkerMetrics
from bluegray.web.platform.models import table_of
from bluegray.web.platform.settings import Settings
from bluegray.web.realtime.bus import LocalBus, News
from bluegray.web.realtime.presence import LocalPresence
from bluegray.web.realtime.sockets import Connection, Hub
from bluegray.web.timers.deadlines import DONE, Due, Timers, Verdict
from bluegray.web.timers.rows import DeadlineRow
from bluegray.web.timers.uptime import note_alive
from bluegray.web.worker import slot_names, worker_slots

# -- the hub: states in version order ---------------------------------------------------------


class FakeSocket:
    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send_text(self, text: str) -> None:
        self.sent.append(text)

    async def close(self, code: int = 1000) -> None:
        return None


def state(version: int) -> News:
    return News("state", "g", version, "other", f"v{version}")


def test_the_hub_passes_states_on_in_version_order_and_rereads_a_gap() -> None:
    rereads: list[str] = []

    async def reread(game_id: str) -> tuple[int, str]:
        rereads.append(game_id)
        return 9, "v9 (read again)"

    async def run() -> list[str]:
        hub = Hub(LocalBus(), LocalPresence("here"), reread)
        socket = FakeSocket()
        connection = Connection(socket, "g", frozenset())  # type: ignore[arg-type]
        await hub.watch("g")
        connection.send_state(4, "v4")
        await hub.add(connection)
        hub.deliver(state(6))  # early: 5 is missing
        hub.deliver(state(4))  # already seen
        hub.deliver(state(5))  # the gap fills: 5 and 6 go out in order
        hub.deliver(state(8))  # 7 never comes ...
        await asyncio.sleep(0.6)  # ... so the game is read again after a moment
        hub.deliver(state(7))  # too late: older than what was read
        await asyncio.sleep(0.05)  # the window in which the too-late news must not go out
        await connection.stop()
        return socket.sent

    sent = asyncio.run(run())
    assert sent == ["v4", "v5", "v6", "v9 (read again)"]
    assert rereads == ["g"]


def test_news_of_another_game_or_an_unwatched_one_goes_nowhere() -> None:
    async def run() -> list[str]:
        hub = Hub(LocalBus(), LocalPresence("here"), _never)
        socket = FakeSocket()
        connection = Connection(socket, "g", frozenset())  # type: ignore[arg-type]
        await hub.add(connection)
        hub.deliver(News("state", "h", 1, "other", "other game"))
        hub.deliver(News("presence", "g", 1, "other", "presence"))
        await asyncio.sleep(0.05)  # the window in which the other games' news must not arrive
        await hub.remove(connection, 0)
        hub.deliver(News("presence", "g", 1, "other", "after it left"))
        await connection.stop()
        return socket.sent

    assert asyncio.run(run()) == ["presence"]


async def _never(game_id: str) -> tuple[int, str]:
    raise AssertionError("no gap here")


# -- the AI queue -----------------------------------------------------------------------------


def move_job(level: int, game: str = "g") -> MoveJob:
    return MoveJob(game, 1, "sackson", "x", (), level, 0)


def test_a_move_jobs_priority_follows_the_engines_time_for_its_level(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The levels are the engine's (engine.levels), read once: a level that came to think three
    # seconds a move would queue with the long jobs, one of a fixed depth with the quick ones.
    monkeypatch.setitem(levels.LEVELS, 7, levels.LevelConfig(Limits(time=3.0)))
    monkeypatch.setitem(levels.LEVELS, 6, levels.LevelConfig(Limits(depth=6)))
    assert move_job(7).priority is Priority.LONG
    assert move_job(6).priority is Priority.QUICK
    with pytest.raises(BlueGrayError, match="unknown level"):
        _ = move_job(levels.TOP_LEVEL + 1).priority


def test_the_ais_job_is_asked_only_of_a_game_against_the_ai() -> None:
    # It once took level 1 for a game without one, silently.
    live = LiveGame("g", "hotseat", "active", Game("sackson"), 0, 0, 0)
    with pytest.raises(ValueError, match="not played against the AI"):
        ai_job(live)
    live.ai_level = 4
    assert ai_job(live).level == 4


def test_jobs_cross_machines_as_text_and_know_their_priority() -> None:
    job = move_job(8)
    assert decode_job(encode_job(job)) == job
    assert job.priority is Priority.LONG and move_job(1).priority is Priority.QUICK
    assert move_job(6).priority is move_job(7).priority is Priority.SHORT
    with pytest.raises(ValueError, match="not a job"):
        decode_job('{"kind": "poem"}')
    assert [reserved_for_short(n) for n in (1, 2, 4, 8, 16)] == [0, 1, 1, 2, 4]


def test_a_short_job_never_waits_behind_long_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[int] = []
    release = threading.Event()

    def run(job: Job) -> str | AnalysisOutput:
        assert isinstance(job, MoveJob)
        started.append(job.level)
        if job.level == 8:
            release.wait(10)
        return "d2-d3"

    monkeypatch.setattr(local_queue, "run_job", run)
    played: list[str] = []

    async def sink(job: MoveJob, move: str, computed_by: str) -> None:
        played.append(job.game_id)

    async def scenario() -> tuple[list[int], list[str]]:
        queue = LocalQueue(2, Bounds(total=10, per_owner=10), sink, processes=False)
        await queue.start()
        waiting = [
            await queue.submit_move(move_job(8, f"long{i}"), Owner(f"b{i}")) for i in range(3)
        ]
        short = await queue.submit_move(move_job(1, "short"), Owner("s"))
        assert short is not None
        await asyncio.wait_for(short, 5)  # done while every long job still waits or runs
        seen = list(started)
        release.set()
        await asyncio.gather(*[future for future in waiting if future is not None])
        await queue.close()
        return seen, played

    seen, played_games = asyncio.run(scenario())
    assert seen == [8, 1]  # one long job runs; the slot kept for smaller jobs took the quick one
    assert played_games[0] == "short" and sorted(played_games) == sorted(
        ["short", "long0", "long1", "long2"]
    )


def test_queued_work_is_bounded_per_browser_per_address_and_in_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    release = threading.Event()

    def run(job: Job) -> str | AnalysisOutput:
        release.wait(10)
        return "d2-d3"

    monkeypatch.setattr(local_queue, "run_job", run)

    async def sink(job: MoveJob, move: str, computed_by: str) -> None:
        return None

    async def scenario() -> list[str]:
        queue = LocalQueue(1, Bounds(total=4, per_owner=2), sink, processes=False)
        refused = []
        futures = []
        for game, owner in [
            ("a1", Owner("alice", "1.1.1.1")),
            ("a2", Owner("alice", "1.1.1.1")),
            ("a3", Owner("alice", "3.3.3.3")),  # Alice's third
            ("b1", Owner("bob", "1.1.1.1")),  # the address's third
            ("c0", Owner("carol", "4.4.4.4")),
            ("c1", Owner("carol", "5.5.5.5")),
            ("d1", Owner("dave", "6.6.6.6")),
            ("e1", Owner("erin", "7.7.7.7")),  # the fifth in all
        ]:
            try:
                futures.append(await queue.submit_move(move_job(1, game), owner))
            except AiBusyError:
                refused.append(game)
        again = await queue.submit_move(move_job(1, "a1"), Owner("alice", "1.1.1.1"))
        assert again is futures[0]  # the same game and version is not queued twice
        release.set()
        await asyncio.gather(*[future for future in futures if future is not None])
        assert await queue.depth() == 0
        await queue.close()
        return refused

    assert asyncio.run(scenario()) == ["a3", "b1", "d1", "e1"]


def test_the_cpus_a_process_may_use_count_its_quota() -> None:
    assert quota_cpus("150000 100000") == 1.5
    assert quota_cpus("max 100000") is None
    assert quota_cpus(None, ("-1", "100000")) is None
    assert quota_cpus(None, ("200000", "100000")) == 2.0
    assert quota_cpus("garbage") is None
    assert 1 <= usable_cpus() <= len(os.sched_getaffinity(0))


# -- timers and the service's heartbeat -------------------------------------------------------


def _database(path: Path) -> Database:
    database = Database(f"sqlite:///{path / 'timers.sqlite3'}")
    database.start()
    return database


def test_a_due_timer_fires_once_however_many_processes_look(tmp_path: Path) -> None:
    database = _database(tmp_path)
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
    database = _database(tmp_path)

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
    database = _database(tmp_path)

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
    database = _database(tmp_path)
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


# -- reading a game again from an older copy --------------------------------------------------


def test_a_game_read_from_an_older_copy_is_the_game_read_whole(tmp_path: Path) -> None:
    """A process that hears of a newer version plays only the moves its copy lacks; what it
    gets must be exactly what reading the whole game gives, takebacks and endings included."""
    database = _database(tmp_path)
    random = Random(7)
    try:
        game = Game("cooper")
        live = LiveGame(
            id="g", mode="hotseat", status="active", game=game, version=1, created_ms=0,
            updated_ms=0, seats={side: Seat("human", "t", "b", 0) for side in Side},
        )  # fmt: skip
        database.run(lambda c: apply_save(c, new_game_save(live, [])))
        copies = [live]
        for step in range(60):
            before = copies[-1]
            after = before.copy()
            if step % 9 == 8 and after.game.ply >= 2:
                actions.take_back(after, after.game.turn.other, step)
            elif after.game.outcome() is None:
                actions.play(after, str(random.choice(after.game.legal_moves)), step)
            else:
                break
            after.version = before.version + 1
            after.sync_status()
            save = change_save(before, after)
            database.run(partial(_save, save=save))
            copies.append(after)
            whole = database.run(lambda c: _read(c, None))
            assert whole is not None
            # What another process makes of the change's rows, published with the news.
            applied = live_after(before, save_text(save))
            assert _seen(applied) == _seen(whole) == _seen(after)
            for old in random.sample(copies, min(4, len(copies))):
                again = database.run(partial(_read, base=old))
                assert again is not None and whole is not None
                assert [str(m) for m in again.game.moves] == [str(m) for m in whole.game.moves]
                assert again.game.position == whole.game.position
                assert again.game.outcome() == whole.game.outcome()
                assert again.version == whole.version == after.version
    finally:
        database.close()


def test_a_seat_an_account_takes_reads_back_and_applies_as_written(tmp_path: Path) -> None:
    """A change that gives a seat to an account (a join, a claim): its rows, read back or
    applied by another process from the news, are the game as it was changed."""
    database = _database(tmp_path)
    try:
        accounts = table_of(AccountRow)
        database.run(
            lambda c: c.execute(
                insert(accounts).values(
                    id=7, name="Ada", name_key="ada", password_hash="-", created_ms=0,
                    password_changed_ms=0, bot=True, moderator=False,
                )
            )
        )  # fmt: skip
        before = LiveGame(
            id="g", mode="friend", status="waiting", game=Game("cooper"), version=1,
            created_ms=0, updated_ms=0,
            seats={Side.BLUE: Seat("human", "t", "b", 0), Side.GRAY: Seat("human")},
        )  # fmt: skip
        database.run(lambda c: apply_save(c, new_game_save(before, [])))
        after = before.copy()
        after.seats[Side.GRAY] = Seat("human", "u", "c", 5, None, 7, "Ada", True)
        after.status, after.version = "active", 2
        save = change_save(before, after, seats_changed=True)
        database.run(partial(_save, save=save))
        whole = database.run(lambda c: _read(c, None))
        assert whole is not None and whole.seats[Side.GRAY].played_by(7)
        assert (whole.seats[Side.GRAY].account_name, whole.seats[Side.GRAY].account_bot) == (
            "Ada",
            True,
        )
        assert _seen(live_after(before, save_text(save))) == _seen(whole) == _seen(after)
    finally:
        database.close()


def _seen(live: LiveGame) -> tuple[Any, ...]:
    """Everything a game is, but the ``Game`` object itself: its moves and position stand in."""
    fields = dataclasses.asdict(dataclasses.replace(live, game=Game("cooper")))
    del fields["game"], fields["_derived"]
    moves = [str(move) for move in live.game.moves]
    return (moves, str(live.game.position), live.game.outcome(), sorted(fields.items()))


def _save(connection: Any, save: Any) -> None:
    apply_save(connection, save)


def _read(connection: Any, base: LiveGame | None) -> LiveGame | None:
    with Session(connection) as session:
        return load_game(session, "g", base)


def test_a_long_job_that_waited_too_long_goes_first(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[str] = []
    release = threading.Event()

    def run(job: Job) -> str | AnalysisOutput:
        assert isinstance(job, MoveJob)
        started.append(job.game_id)
        if job.game_id == "long1":
            release.wait(10)
        return "d2-d3"

    monkeypatch.setattr(local_queue, "run_job", run)
    monkeypatch.setattr(local_queue, "LONG_WAIT_SECONDS", 0.05)

    async def sink(job: MoveJob, move: str, computed_by: str) -> None:
        return None

    async def scenario() -> list[str]:
        queue = LocalQueue(1, Bounds(total=10, per_owner=10), sink, processes=False)
        futures = [
            await queue.submit_move(move_job(8, "long1"), Owner("a")),  # runs
            await queue.submit_move(move_job(8, "long2"), Owner("b")),  # waits
        ]
        await asyncio.sleep(0.2)  # long2 has waited too long now
        futures.append(await queue.submit_move(move_job(1, "quick"), Owner("c")))
        release.set()
        await asyncio.gather(*[future for future in futures if future is not None])
        await queue.close()
        return started

    # Without the wait, the quick job would go first (as in the test above).
    assert asyncio.run(scenario()) == ["long1", "long2", "quick"]


def test_a_worker_takes_a_long_job_that_waited_too_long_first(redis_url: str) -> None:
    async def scenario() -> list[str]:
        client = aioredis.Redis.from_url(redis_url)
        await redis_queue.ensure_groups(client)
        old, new = now_ms() - 20_000, now_ms()
        for job, queued in ((move_job(8, "aged"), old), (move_job(1, "quick"), new)):
            fields = {"id": job.key, "job": encode_job(job), "load": "[]", "reply": ""}
            fields["queued_ms"] = str(queued)
            await client.xadd(redis_queue.STREAMS[job.priority], fields)  # type: ignore[arg-type]
        slot = redis_queue.Slot(client, "w/0.0", short_only=False, abandoned_ms=60_000)
        taken = []
        for _ in range(2):
            delivery = await slot.take(100)
            assert delivery is not None and isinstance(delivery.job, MoveJob)
            taken.append(delivery.job.game_id)
        late = move_job(8, "late")
        fields = {"id": late.key, "job": encode_job(late), "load": "[]", "reply": ""}
        fields["queued_ms"] = str(old)
        await client.xadd(redis_queue.STREAMS[late.priority], fields)  # type: ignore[arg-type]
        kept = redis_queue.Slot(client, "w/1.0", short_only=True, abandoned_ms=60_000)
        assert await kept.take(100) is None  # a slot kept for small jobs never takes a long one
        await client.aclose()
        return taken

    assert asyncio.run(scenario()) == ["aged", "quick"]


# -- the queue heals: jobs of stopped workers, Redis emptied, heartbeats pruned -------------------

OWNER = Owner("browser", "address")


def _queue(client: aioredis.Redis) -> redis_queue.RedisQueue:
    return redis_queue.RedisQueue(client, Bounds(total=10, per_owner=10), stale_ms=2500)


def test_a_job_its_worker_left_is_taken_whole_by_one_slot_and_dropped_if_it_kills(
    redis_url: str,
) -> None:
    async def scenario() -> None:
        client = aioredis.Redis.from_url(redis_url)
        await redis_queue.ensure_groups(client)
        await _queue(client).submit_move(move_job(1), OWNER)
        first = redis_queue.Slot(client, "w1/0.0", short_only=False, abandoned_ms=300)
        taken = await first.take(100)
        assert taken is not None
        # While its worker beats, nobody else takes it.
        second = redis_queue.Slot(client, "w2/0.0", short_only=False, abandoned_ms=300)
        for _ in range(3):
            await asyncio.sleep(0.15)  # half the abandon time (Redis's idle clock) between beats
            await redis_queue.beat(client, ["w1/0.0"])
            assert await second.take(10) is None
        # Its worker stops beating: the next free slot claims the same entry, once.
        await asyncio.sleep(0.4)
        others = [
            redis_queue.Slot(client, f"w{n}/0.0", short_only=False, abandoned_ms=300)
            for n in (2, 3)
        ]
        claims = [await slot.take(10) for slot in others]
        assert [claim.entry for claim in claims if claim is not None] == [taken.entry]
        # A job that kills every worker that takes it is dropped, and not queued again.
        await asyncio.sleep(0.4)
        third = await others[1].take(10)
        assert third is not None and third.entry == taken.entry
        await asyncio.sleep(0.4)  # past the abandon time again: left a third time, it is dropped
        assert await others[0].take(10) is None
        stream = redis_queue.STREAMS[Priority.QUICK]
        assert await client.xlen(stream) == 0
        assert await client.get(redis_queue.QUEUED_PREFIX + "g:1") == b"dropped"
        await _queue(client).submit_move(move_job(1), OWNER)
        assert await client.xlen(stream) == 0
        await client.aclose()

    asyncio.run(scenario())


def test_a_worker_started_again_under_its_name_leaves_its_predecessors_job_to_others(
    redis_url: str,
) -> None:
    """A supervisor starts a killed worker again under the same name (compose's fixed process
    names): its heartbeat must not keep fresh the job its predecessor died with, which would
    then wait for ever (the AI's move queued, but nobody computing it)."""

    async def scenario() -> None:
        client = aioredis.Redis.from_url(redis_url)
        await redis_queue.ensure_groups(client)
        await _queue(client).submit_move(move_job(8), OWNER)
        (killed,) = slot_names("worker-1", 1)
        taken = await redis_queue.Slot(
            client, f"{killed}.0", short_only=False, abandoned_ms=300
        ).take(100)
        assert taken is not None  # and its worker is killed mid-search
        (again,) = slot_names("worker-1", 1)  # started again by its supervisor
        other = redis_queue.Slot(client, "worker-2/x/0.0", short_only=False, abandoned_ms=300)
        for _ in range(4):
            await asyncio.sleep(0.15)  # half the abandon time between the new slot's beats
            await redis_queue.beat(client, [f"{again}.0"])
        claimed = await other.take(10)
        assert claimed is not None and claimed.entry == taken.entry
        await client.aclose()

    asyncio.run(scenario())


def test_a_left_job_is_found_behind_many_jobs_being_computed(redis_url: str) -> None:
    async def scenario() -> None:
        client = aioredis.Redis.from_url(redis_url)
        await redis_queue.ensure_groups(client)
        queue = redis_queue.RedisQueue(client, Bounds(total=100, per_owner=100), stale_ms=2500)
        busy = redis_queue.Slot(client, "busy/0.0", short_only=False, abandoned_ms=300)
        for game in range(25):  # one worker computes many jobs (as many slots would) ...
            await queue.submit_move(move_job(1, f"g{game}"), OWNER)
            assert await busy.take(10) is not None
        await queue.submit_move(move_job(1, "left"), OWNER)  # ... and one worker dies
        dead = redis_queue.Slot(client, "dead/0.0", short_only=False, abandoned_ms=300)
        assert await dead.take(10) is not None
        await asyncio.sleep(0.4)  # past the abandon time of 0.3 s: the dead slot's entry idles
        await redis_queue.beat(client, ["busy/0.0"])
        other = redis_queue.Slot(client, "other/0.0", short_only=False, abandoned_ms=300)
        found = await other.take(10)
        assert found is not None and isinstance(found.job, MoveJob)
        assert found.job.game_id == "left"
        await client.aclose()

    asyncio.run(scenario())


def test_a_stopping_worker_hands_its_jobs_back_at_once(redis_url: str) -> None:
    async def scenario() -> None:
        client = aioredis.Redis.from_url(redis_url)
        await redis_queue.ensure_groups(client)
        await _queue(client).submit_move(move_job(8), OWNER)
        leaving = redis_queue.Slot(client, "w1/0.0", short_only=False, abandoned_ms=60_000)
        taken = await leaving.take(100)
        assert taken is not None
        other = redis_queue.Slot(client, "w2/0.0", short_only=False, abandoned_ms=60_000)
        assert await other.take(10) is None
        assert await redis_queue.hand_back(client, ["w1/0.0"]) == 1
        again = await other.take(10)  # long before the minute a dead worker's job waits
        assert again is not None and again.entry == taken.entry
        await client.aclose()

    asyncio.run(scenario())


def test_a_slot_makes_the_queue_again_when_redis_comes_back_empty(redis_url: str) -> None:
    async def scenario() -> None:
        client = aioredis.Redis.from_url(redis_url)
        await redis_queue.ensure_groups(client)
        slot = redis_queue.Slot(client, "w/0.0", short_only=False, abandoned_ms=60_000)
        assert await slot.take(10) is None
        await client.flushall()  # Redis restarted empty
        await _queue(client).submit_move(move_job(6), OWNER)  # a web process queues a move
        found = None
        for _ in range(3):
            found = found or await slot.take(10)
        assert found is not None and isinstance(found.job, MoveJob)
        await client.aclose()

    asyncio.run(scenario())


def test_a_move_whose_entry_was_lost_is_queued_again(redis_url: str) -> None:
    async def scenario() -> None:
        client = aioredis.Redis.from_url(redis_url)
        await redis_queue.ensure_groups(client)
        queue = _queue(client)
        stream = redis_queue.STREAMS[Priority.QUICK]
        await queue.submit_move(move_job(1), OWNER)
        await queue.submit_move(move_job(1), OWNER)  # queued once however often asked
        assert await client.xlen(stream) == 1
        await client.delete(stream)  # lost (Redis restarted), but the mark was not
        await redis_queue.ensure_groups(client)
        await queue.submit_move(move_job(1), OWNER)
        assert await client.xlen(stream) == 1
        assert await queue.depth() == 1  # counted once against the bounds
        await client.aclose()

    asyncio.run(scenario())


def test_heartbeats_and_consumers_of_slots_long_gone_are_forgotten(redis_url: str) -> None:
    async def scenario() -> None:
        client = aioredis.Redis.from_url(redis_url)
        await redis_queue.ensure_groups(client)
        gone = now_ms() - redis_queue.FORGET_SLOT_MS - 1000
        await client.zadd(redis_queue.SLOTS_KEY, {"old/0.0": gone})
        await redis_queue.beat(client, ["new/0.0"])
        await _queue(client).submit_move(move_job(1), OWNER)
        idle = redis_queue.Slot(client, "old/0.0", short_only=False, abandoned_ms=60_000)
        taken = await idle.take(10)
        assert taken is not None
        await idle.finish(taken)
        await redis_queue.forget(client)
        assert await client.zrange(redis_queue.SLOTS_KEY, 0, -1) == [b"new/0.0"]
        stream = redis_queue.STREAMS[Priority.QUICK]
        names = [info["name"] for info in await client.xinfo_consumers(stream, "engines")]
        assert names == [b"old/0.0"]  # not idle for long yet
        await client.aclose()

    asyncio.run(scenario())


def test_a_worker_runs_at_most_two_engine_processes_unless_told() -> None:
    assert 1 <= worker_slots(Settings()) <= 2
    assert worker_slots(Settings(ai_workers=5)) == 5
    metrics = WorkerMetrics()
    metrics.jobs.labels("quick", "played").inc()
    text = metrics.exposition().decode()
    assert 'bluegray_worker_jobs_total{priority="quick",result="played"} 1.0' in text
    for name in ("queue_oldest_seconds", "engine_restarts_total", "redis_reconnections_total"):
        assert f"bluegray_worker_{name}" in text
