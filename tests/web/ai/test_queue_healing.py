"""The AI queue heals: jobs of stopped workers taken whole by one slot, Redis emptied, lost
entries queued again, heartbeats of slots long gone forgotten; a worker's engine processes; the
embedded queue's engine process frozen mid-job."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal

import pytest
import redis.asyncio as aioredis
from redis.exceptions import TimeoutError as RedisTimeoutError

from bluegray import Game
from bluegray.web.ai import redis_queue
from bluegray.web.ai.jobs import (
    AnalysisOutput,
    Bounds,
    MoveJob,
    Owner,
    Priority,
)
from bluegray.web.ai.local_queue import LocalQueue
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.metrics import WorkerMetrics
from bluegray.web.platform.settings import Settings
from bluegray.web.worker import slot_names, worker_slots
from tests.servers import RedisServer
from tests.web.ai.test_ai_queue import move_job

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
        # A job is abandoned after 1 s without a heartbeat: the steps between two beats below
        # take far less, even on a loaded machine (at 0.3 s, the dead slot once took up one of
        # the busy slot's jobs, which had idled through a slow loop, instead of its own).
        busy = [f"busy/0.{n}" for n in range(25)]
        for game, name in enumerate(busy):  # a worker's many slots compute many jobs ...
            slot = redis_queue.Slot(client, name, short_only=False, abandoned_ms=1000)
            await queue.submit_move(move_job(1, f"g{game}"), OWNER)
            assert await slot.take(10) is not None
        await redis_queue.beat(client, busy)
        await queue.submit_move(move_job(1, "left"), OWNER)  # ... and one worker dies
        dead = redis_queue.Slot(client, "dead/0.0", short_only=False, abandoned_ms=1000)
        taken = await dead.take(10)
        assert taken is not None and isinstance(taken.job, MoveJob)
        assert taken.job.game_id == "left"
        await asyncio.sleep(1.1)  # past the abandon time of 1 s: the dead slot's entry idles
        await redis_queue.beat(client, busy)
        other = redis_queue.Slot(client, "other/0.0", short_only=False, abandoned_ms=1000)
        found = await other.take(10)
        assert found is not None and isinstance(found.job, MoveJob)
        assert found.job.game_id == "left"
        await client.aclose()

    asyncio.run(scenario())


def test_a_job_claimed_for_a_slot_whose_answer_redis_froze_is_still_taken_up(
    redis_server: RedisServer,
) -> None:
    """Redis paused (SIGSTOP) past the client's socket timeout: the slot's claim of a job times
    out, but Redis runs it when it thaws, so the job is the slot's without the slot knowing.
    Its worker's heartbeat keeps the job fresh, so nobody else takes it: the slot itself must
    (the chaos test's AI game that waited for a minute, until its worker was stopped)."""
    redis_server.flush()

    async def scenario() -> None:
        client = aioredis.Redis.from_url(redis_server.url)
        await redis_queue.ensure_groups(client)
        await _queue(client).submit_move(move_job(3), OWNER)
        dead = redis_queue.Slot(client, "dead/x/0.0", short_only=False, abandoned_ms=300)
        taken = await dead.take(100)
        assert taken is not None
        await asyncio.sleep(0.4)  # its worker died: the job is left for another slot
        stream = redis_queue.STREAMS[Priority.QUICK]
        # The slot's claim of the left job, on its open connection, as Redis is paused.
        impatient = aioredis.Redis.from_url(redis_server.url, socket_timeout=0.5)
        await impatient.ping()
        redis_server.freeze()
        try:
            with pytest.raises(RedisTimeoutError):
                await impatient.xautoclaim(stream, "engines", "w1/x/0.0", 300, count=1)
        finally:
            redis_server.thaw()
        await impatient.aclose()
        slot = redis_queue.Slot(client, "w1/x/0.0", short_only=False, abandoned_ms=300)
        for _ in range(50):  # Redis runs the claim it held once it thaws
            pending = await client.xpending_range(stream, "engines", "-", "+", 10)
            if [item["consumer"] for item in pending] == [b"w1/x/0.0"]:
                break
            await asyncio.sleep(0.05)  # poll interval, until the claim has run (2.5 s at most)
        else:
            raise AssertionError(f"the frozen claim never ran: {pending}")
        found = None
        for _ in range(3):  # the slot's worker beats for it between its tries
            await redis_queue.beat(client, ["w1/x/0.0"])
            found = found or await slot.take(10)
        assert found is not None and found.entry == taken.entry
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


# -- the embedded queue heals: an engine process frozen mid-job ---------------------------------

EMBEDDED_OVERRUN_SECONDS = 10.0
"""Long enough for a new engine process to start and answer a level 1 move on a busy machine
(the engine processes run only when a CPU is idle), short enough for a test."""


async def _new_child(before: set[multiprocessing.process.BaseProcess]) -> int:
    """The pid of the first process this one starts after ``before`` was taken."""
    for _ in range(400):
        started = set(multiprocessing.active_children()) - before
        if started:
            pid = next(iter(started)).pid
            assert pid is not None
            return pid
        await asyncio.sleep(0.05)  # the pool starts its process when it is handed the job
    raise AssertionError("no engine process was started")


@pytest.mark.slow
def test_an_embedded_engine_process_frozen_mid_job_is_killed_and_the_move_still_comes() -> None:
    # It once waited for the frozen process for ever, and the game with it.
    played: list[str] = []

    async def sink(job: MoveJob, move: str, computed_by: str) -> None:
        played.append(move)

    start = Game("sackson")
    job = MoveJob("frozen", 1, "sackson", str(start.start), (), 1, 0)
    frozen: list[int] = []

    async def scenario() -> str | AnalysisOutput:
        queue = LocalQueue(
            1, Bounds(total=10, per_owner=10), sink, overrun_seconds=EMBEDDED_OVERRUN_SECONDS
        )
        before = set(multiprocessing.active_children())
        try:
            done = await queue.submit_move(job, OWNER)
            assert done is not None
            frozen.append(await _new_child(before))
            os.kill(frozen[0], signal.SIGSTOP)
            return await asyncio.wait_for(done, 6 * EMBEDDED_OVERRUN_SECONDS)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(frozen[0], signal.SIGCONT)  # so that a failed test leaves none stopped
            await queue.close()

    move = asyncio.run(scenario())
    assert isinstance(move, str) and played == [move]
    assert move in {str(legal) for legal in start.legal_moves}
    with pytest.raises(ProcessLookupError):  # killed, not left frozen beside the new one
        os.kill(frozen[0], 0)
