"""The AI queue: jobs' priorities and bounds, a long job that waited too long going first, and the
CPUs a process may use."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import threading

import pytest
import redis.asyncio as aioredis

from bluegray import Game
from bluegray.engine import levels
from bluegray.engine.limits import Limits
from bluegray.errors import BlueGrayError
from bluegray.pieces import Side
from bluegray.web.ai import local_queue, redis_queue
from bluegray.web.ai.cpus import quota_cpus, usable_cpus
from bluegray.web.ai.jobs import (
    AiBusyError,
    AnalysisJob,
    AnalysisOutput,
    Bounds,
    Job,
    MoveJob,
    Owner,
    Priority,
    decode_job,
    encode_job,
    reserved_for_short,
    thinking_seconds,
)
from bluegray.web.ai.local_queue import LocalQueue
from bluegray.web.backends import redis_client
from bluegray.web.games.ai_moves import ai_job
from bluegray.web.games.live import LiveGame
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.settings import Settings

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


def test_a_jobs_thinking_time_is_its_levels_time_or_its_analysiss_seconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # What a worker keeps a job for (with BLUEGRAY_AI_JOB_OVERRUN_SECONDS more): the levels'
    # times are the engine's, a clock only shortens them.
    monkeypatch.setitem(levels.LEVELS, 7, levels.LevelConfig(Limits(time=3.0)))
    monkeypatch.setitem(levels.LEVELS, 6, levels.LevelConfig(Limits(depth=6)))
    assert thinking_seconds(move_job(7)) == 3.0
    assert thinking_seconds(dataclasses.replace(move_job(7), time_left_ms=600_000)) == 3.0
    assert thinking_seconds(move_job(6)) == 0.0
    assert thinking_seconds(AnalysisJob("sackson", "x", (), 4.5)) == 4.5


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
            await slot.finish(delivery)
        late = move_job(8, "late")
        fields = {"id": late.key, "job": encode_job(late), "load": "[]", "reply": ""}
        fields["queued_ms"] = str(old)
        await client.xadd(redis_queue.STREAMS[late.priority], fields)  # type: ignore[arg-type]
        kept = redis_queue.Slot(client, "w/1.0", short_only=True, abandoned_ms=60_000)
        assert await kept.take(100) is None  # a slot kept for small jobs never takes a long one
        await client.aclose()
        return taken

    assert asyncio.run(scenario()) == ["aged", "quick"]


# -- a game review's positions ----------------------------------------------------------------


ANALYSIS = AnalysisOutput(
    "x", Side.BLUE, "d2-d3", 0, 0.5, ("d2-d3",), 1, 100, 0.01, None, None, None, "about even"
)


def review_job(name: str) -> AnalysisJob:
    """A review's position, named by its one move (the tests' way to tell the jobs apart)."""
    return AnalysisJob("sackson", "x", (name,), 30.0, nodes=100, review=True)


def test_a_reviews_position_goes_after_every_other_job_never_in_the_kept_slot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started: list[str] = []
    release = threading.Event()

    def run(job: Job) -> str | AnalysisOutput:
        if isinstance(job, MoveJob):
            started.append(job.game_id)
            return "d2-d3"
        started.append(job.moves[0])
        release.wait(10)
        return ANALYSIS

    monkeypatch.setattr(local_queue, "run_job", run)

    async def sink(job: MoveJob, move: str, computed_by: str) -> None:
        return None

    async def scenario() -> list[str]:
        # Two slots, one kept for quick and short jobs.
        queue = LocalQueue(2, Bounds(total=10, per_owner=10), sink, processes=False)
        reviews = [asyncio.create_task(queue.analyse(review_job(f"r{i}"), Owner())) for i in (1, 2)]
        await asyncio.sleep(0)  # one turn of the loop: both reviews are queued, r1 runs
        quick = await queue.submit_move(move_job(1, "quick"), Owner("a"))
        assert quick is not None
        await asyncio.wait_for(quick, 5)  # in the kept slot, while r1 holds the other
        seen = list(started)
        long = await queue.submit_move(move_job(8, "long"), Owner("b"))  # waits for r1's slot
        assert long is not None
        release.set()
        await asyncio.gather(long, *reviews)
        await queue.close()
        return seen + started[len(seen) :]

    # r2 waited for r1's slot, and the long move queued after it went before it.
    assert asyncio.run(scenario()) == ["r1", "quick", "long", "r2"]


def test_a_reviews_position_crosses_machines_and_a_kept_slot_never_takes_it(
    redis_url: str,
) -> None:
    job = review_job("r1")
    assert job.priority is Priority.REVIEW and decode_job(encode_job(job)) == job
    assert Priority.REVIEW.long and Priority.LONG.long and not Priority.SHORT.long

    async def scenario() -> list[str]:
        client = aioredis.Redis.from_url(redis_url)
        await redis_queue.ensure_groups(client)
        for queued in (job, move_job(1, "quick")):
            fields = {"id": "x", "job": encode_job(queued), "load": "[]", "reply": ""}
            fields["queued_ms"] = str(now_ms())
            await client.xadd(redis_queue.STREAMS[queued.priority], fields)  # type: ignore[arg-type]
        kept = redis_queue.Slot(client, "w/0.0", short_only=True, abandoned_ms=60_000)
        taken = []
        first = await kept.take(100)
        assert first is not None and isinstance(first.job, MoveJob)
        taken.append(first.job.game_id)
        await kept.finish(first)
        assert await kept.take(100) is None  # the review's position is not for a kept slot
        full = redis_queue.Slot(client, "w/1.0", short_only=False, abandoned_ms=60_000)
        second = await full.take(100)
        assert second is not None and isinstance(second.job, AnalysisJob)
        taken.append(second.job.moves[0])
        await client.aclose()
        return taken

    assert asyncio.run(scenario()) == ["quick", "r1"]


@pytest.mark.slow
def test_an_analysis_longer_than_the_redis_clients_socket_timeout_is_answered(
    redis_url: str,
) -> None:
    """redis-py's clients time a command out after 5 s by default; an analysis waits for its
    answer longer than that (its thinking time, and its turn in the queue). A worker here takes
    the job and answers after 7 s."""

    async def scenario() -> AnalysisOutput:
        client = redis_client(Settings(redis_url=redis_url))
        queue = redis_queue.RedisQueue(client, Bounds(total=10, per_owner=10), stale_ms=60_000)
        await queue.start()
        slot = redis_queue.Slot(client, "w/0.0", short_only=False, abandoned_ms=60_000)
        await redis_queue.beat(client, ["w/0.0"])  # a live worker, as far as the queue can tell

        async def worker() -> None:
            delivery = await slot.take(5000)
            assert delivery is not None
            await asyncio.sleep(7)  # the search: longer than the client's socket timeout
            await slot.finish(delivery, output=ANALYSIS)

        answering = asyncio.create_task(worker())
        job = AnalysisJob("sackson", "x", (), 5.0)
        try:
            return await queue.analyse(job, Owner())
        finally:
            await answering
            await client.aclose()

    assert asyncio.run(scenario()) == ANALYSIS
