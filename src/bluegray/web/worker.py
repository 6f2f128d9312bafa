"""``bluegray worker``: computes the AI's moves and analyses for the scaled-out service.

A worker takes jobs from the queue on Redis in engine processes of its own, one per CPU it may
use up to two unless told otherwise (one kept for short jobs when there are two or more); each
plays the moves it finds in their games through the database's version check and publishes them
on the event bus, as a web process would. The supervising process notes the heartbeat of every
engine slot that reaches Redis (which keeps the jobs they compute theirs, for as long as a job
may take: a slot stuck past that loses its job to another), restarts a slot that dies, and serves
the worker's metrics, which the slots report to it.

Any part may fail and come back: a slot that loses Redis waits and tries again, and makes the
queue again if Redis came back empty (the web processes' AI timers queue the moves that were
lost with it); on SIGTERM the slots stop and their jobs are handed back to the other workers at
once. Engine processes die with their worker, even when it is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import logging.config
import multiprocessing
import os
import queue
import secrets
import signal
import time
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from typing import Any, Final

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from bluegray.web.ai import redis_queue
from bluegray.web.ai.cpus import usable_cpus
from bluegray.web.ai.jobs import (
    AnalysisOutput,
    MoveJob,
    prepare_engine_process,
    reserved_for_short,
    thinking_seconds,
)
from bluegray.web.ai.jobs import run_job as run_engine_job
from bluegray.web.backends import redis_client, stale_ms
from bluegray.web.endings import record_end
from bluegray.web.games.ai_moves import play_ai_move
from bluegray.web.games.runtime import Games
from bluegray.web.platform.clocks import now_ms, set_time_offset
from bluegray.web.platform.db import Database
from bluegray.web.platform.logs import log_config
from bluegray.web.platform.metrics import WorkerMetrics
from bluegray.web.platform.settings import Settings
from bluegray.web.realtime.bus import RedisBus
from bluegray.web.realtime.presence import RedisPresence

log = logging.getLogger("bluegray.worker")

TAKE_BLOCK_MS: Final = 1000
DEFAULT_PROCESSES: Final = 2
"""A worker's engine processes when the settings name none (at most one per usable CPU)."""
RETRY_SECONDS: Final = (0.1, 0.2, 0.5, 1.0, 2.0)
"""How long a slot that cannot reach Redis waits before each try (the last one repeats)."""

_Unreachable = (RedisError, OSError)
"""What Redis out of reach raises (ResponseError is a RedisError, but take makes the queue
again when it answers that the queue is missing)."""


def slot_names(worker: str, count: int) -> list[str]:
    """The names a worker's engine slots go by in the job queue (each slot's name gains a
    generation when it is started again): the worker's name, then a mark of this run of it, so
    that a worker started again under its name (as a supervisor does) never keeps fresh, with its
    heartbeat, the jobs its dead predecessor left pending: those go to any free slot at once."""
    run = secrets.token_hex(3)
    return [f"{worker}/{run}/{index}" for index in range(count)]


def worker_slots(settings: Settings) -> int:
    """Engine processes for a worker: the setting, else one per usable CPU, at most two."""
    return settings.ai_workers or min(DEFAULT_PROCESSES, usable_cpus())


@dataclass
class _SlotProcess:
    index: int
    name: str
    """Its name in the queue, without its generation (``slot_names``)."""
    short_only: bool
    generation: int = 0
    process: BaseProcess | None = field(default=None, repr=False)
    health: Any = field(default=None, repr=False)
    """Until when (epoch seconds) the engine process has shown that it takes jobs: set after
    each answer from Redis, and while it computes a job to the job's thinking time and the
    overrun allowed (``ai_job_overrun_seconds``); only a healthy slot beats, so a slot stuck on
    a job past that loses it to another."""

    def consumer(self) -> str:
        return f"{self.name}.{self.generation}"

    def healthy(self) -> bool:
        alive = self.process is not None and self.process.is_alive()
        return alive and self.health is not None and self.health.value > time.time()


def run_slot(
    settings_json: str,
    consumer: str,
    short_only: bool,
    parent_pid: int,
    health: Any,
    reports: Any,
) -> None:
    """An engine process of a worker (started with multiprocessing's spawn)."""
    settings = Settings.model_validate_json(settings_json)
    set_time_offset(settings.time_offset_seconds)
    logging.config.dictConfig(
        log_config(consumer, level="info", json=settings.log_json, access_log=False)
    )
    prepare_engine_process(parent_pid)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_EngineSlot(settings, consumer, short_only, health, reports).run())


def worker_games(
    settings: Settings, database: Database, client: aioredis.Redis, consumer: str
) -> Games:
    """The games as a worker's engine process changes them (playing the AI's moves): on Redis's
    bus and presence, and writing what a game's end changes as the web processes do."""
    return Games(
        database,
        RedisBus(client, consumer),
        RedisPresence(client, consumer, stale_ms(settings)),
        consumer,
        abandon_ms=round(settings.abandon_seconds * 1000),
        shared=True,
        on_end=record_end,
        first_move_ms=round(settings.first_move_seconds * 1000),
    )


class _EngineSlot:
    """The loop of an engine process: take a job, compute it, play or answer it, let it go."""

    def __init__(
        self, settings: Settings, consumer: str, short_only: bool, health: Any, reports: Any
    ) -> None:
        self.settings = settings
        self.consumer = consumer
        self.short_only = short_only
        self.health = health
        self.reports = reports
        self.healthy_seconds = stale_ms(settings) / 1000
        self.failures = 0

    async def run(self) -> None:
        client = redis_client(self.settings)
        database = Database(self.settings.resolved_database_url)
        database.start(migrate=False)
        self.games = worker_games(self.settings, database, client, self.consumer)
        self.slot = redis_queue.Slot(
            client,
            self.consumer,
            short_only=self.short_only,
            abandoned_ms=stale_ms(self.settings),
        )
        try:
            while True:
                try:
                    delivery = await self.slot.take(TAKE_BLOCK_MS)
                except _Unreachable as error:
                    await self._unreachable(error)
                    continue
                self._reachable()
                if delivery is not None:
                    allowed = thinking_seconds(delivery.job) + self.settings.ai_job_overrun_seconds
                    self.health.value = time.time() + allowed
                    await self._work(delivery)
                    self.health.value = time.time() + self.healthy_seconds
        finally:
            database.close()
            await client.aclose()

    async def _unreachable(self, error: BaseException) -> None:
        """Redis is out of reach: say so once, and wait a little longer at each try."""
        self.health.value = 0.0
        if not self.failures:
            log.error("cannot reach Redis: %r; trying again", error)
        wait = RETRY_SECONDS[min(self.failures, len(RETRY_SECONDS) - 1)]
        self.failures += 1
        await asyncio.sleep(wait)

    def _reachable(self) -> None:
        if self.failures:
            log.warning("Redis answers again (after %d tries)", self.failures)
            self.failures = 0
            self.reports.put(("reconnected",))
        self.health.value = time.time() + self.healthy_seconds

    async def _work(self, delivery: redis_queue.Delivery) -> None:
        job = delivery.job
        priority = job.priority.name.lower()
        started = time.monotonic()
        try:
            result = run_engine_job(job)
        except Exception as error:  # a job the engine cannot do: say so, and drop it
            log.error("job %s failed: %r", delivery.job_id, error)
            await self._finish(delivery, failure=f"the engine failed: {error}")
            self.reports.put(("job", priority, "failed", time.monotonic() - started, None))
            return
        searched = time.monotonic() - started
        if isinstance(job, MoveJob) and isinstance(result, str):
            try:
                played = await play_ai_move(self.games, job, result, self.consumer)
            except Exception as error:  # the database is out of reach: the timer asks again
                log.error("cannot play the AI move of game %s: %r", job.game_id, error)
                await self._finish(delivery, failure="the move could not be played")
                self.reports.put(("job", priority, "failed", searched, None))
                return
            log.info(
                "game %s: level %d played %s in %.2f s%s",
                job.game_id,
                job.level,
                result,
                time.monotonic() - started,
                "" if played else " (too late: the game had moved on)",
            )
            await self._finish(delivery)
            reply = max(0.0, (now_ms() - delivery.queued_ms) / 1000) if played else None
            self.reports.put(("job", priority, "played" if played else "late", searched, reply))
        elif isinstance(result, AnalysisOutput):
            await self._finish(delivery, output=result)
            self.reports.put(("job", priority, "analysed", searched, None))

    async def _finish(
        self,
        delivery: redis_queue.Delivery,
        *,
        output: AnalysisOutput | None = None,
        failure: str | None = None,
    ) -> None:
        """Let the job go, trying until Redis answers (a job left pending with a slot that lives
        on would never be taken up again)."""
        while True:
            try:
                await self.slot.finish(delivery, output=output, failure=failure)
                self._reachable()
                return
            except _Unreachable as error:
                await self._unreachable(error)


async def supervise(settings: Settings, name: str, count: int) -> None:
    """Run ``count`` engine slots until SIGTERM or SIGINT, keeping them beating and alive."""
    await _Supervisor(settings, name, count).run()


class _Supervisor:
    """The worker's own process: it starts the engine slots, restarts those that die, beats
    for those that take jobs, hands their jobs back when told to stop, and keeps the
    metrics."""

    def __init__(self, settings: Settings, name: str, count: int) -> None:
        set_time_offset(settings.time_offset_seconds)
        self.settings = settings
        self.name = name
        reserved = reserved_for_short(count)
        self.slots = [
            _SlotProcess(index, name, short_only=index < reserved)
            for index, name in enumerate(slot_names(name, count))
        ]
        self.context = multiprocessing.get_context("spawn")
        self.reports: Any = self.context.Queue()
        self.settings_json = settings.model_dump_json()
        self.metrics = WorkerMetrics()
        self.reachable = True

    def _start(self, slot: _SlotProcess) -> None:
        slot.health = self.context.Value("d", 0.0, lock=False)
        consumer = slot.consumer()
        process = self.context.Process(
            target=run_slot,
            args=(
                self.settings_json,
                consumer,
                slot.short_only,
                os.getpid(),
                slot.health,
                self.reports,
            ),
            name=consumer,
            daemon=True,
        )
        process.start()
        slot.process = process

    async def run(self) -> None:
        settings = self.settings
        client = redis_client(settings)
        await redis_queue.wait_for_redis(client, 30)
        await redis_queue.ensure_groups(client)
        if settings.worker_metrics_port:
            self._serve_metrics(settings.worker_metrics_host, settings.worker_metrics_port)
        stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stopping.set)
        for slot in self.slots:
            self._start(slot)
        beat = settings.heartbeat_seconds / 2
        try:
            while not stopping.is_set():
                for slot in self.slots:
                    if slot.process is not None and not slot.process.is_alive():
                        log.error("engine slot %s stopped: starting it again", slot.consumer())
                        self.metrics.engine_restarts.inc()
                        slot.generation += 1
                        self._start(slot)
                self._read_reports()
                await self._beat(client)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(beat):  # not wait_for: see deadlines.Timers._run
                        await stopping.wait()
        finally:
            await self._stop(client)

    def _serve_metrics(self, host: str, port: int) -> None:
        """Answer Prometheus; a worker that cannot still computes the AI's moves."""
        try:
            self.metrics.serve(port, host)
        except OSError as error:
            log.error("cannot serve the metrics on %s:%d: %s", host, port, error.strerror)
            return
        log.info("metrics at http://%s:%d/metrics", host, port)

    async def _beat(self, client: Any) -> None:
        consumers = [slot.consumer() for slot in self.slots if slot.healthy()]
        self.metrics.engines.set(len(consumers))
        try:
            if consumers:
                await redis_queue.beat(client, consumers)
            await redis_queue.forget(client)
            for backlog in await redis_queue.backlogs(client):
                priority = backlog.priority.name.lower()
                self.metrics.queue_jobs.labels(priority).set(backlog.jobs)
                self.metrics.queue_age_seconds.labels(priority).set(backlog.oldest_seconds)
        except _Unreachable as error:
            if self.reachable:
                log.error("cannot reach Redis: %r", error)
            self.reachable = False
            self.metrics.redis_up.set(0)
            return
        if not self.reachable:
            log.warning("Redis answers again")
            self.metrics.redis_reconnections.inc()
            self.reachable = True
            with contextlib.suppress(*_Unreachable):
                await redis_queue.ensure_groups(client)
        self.metrics.redis_up.set(1)

    def _read_reports(self) -> None:
        """What the engine slots reported since the last heartbeat, into the metrics."""
        metrics = self.metrics
        while True:
            try:
                report = self.reports.get_nowait()
            except queue.Empty:
                return
            if report[0] == "reconnected":
                metrics.redis_reconnections.inc()
            elif report[0] == "job":
                _, priority, result, searched, reply = report
                metrics.jobs.labels(priority, result).inc()
                metrics.job_seconds.labels(priority).observe(searched)
                if reply is not None:
                    metrics.ai_reply_seconds.labels(priority).observe(reply)

    async def _stop(self, client: Any) -> None:
        """Stop the engine slots, and hand the jobs they were computing back to the other
        workers at once."""
        for slot in self.slots:
            if slot.process is not None:
                slot.process.terminate()
        for slot in self.slots:
            if slot.process is not None:
                slot.process.join(timeout=5)
        consumers = [slot.consumer() for slot in self.slots]
        try:
            handed = await redis_queue.hand_back(client, consumers)
            await redis_queue.leave(client, consumers)
            if handed:
                log.info("stopping: AI jobs handed back to the other workers: %d", handed)
        except _Unreachable as error:
            log.error("cannot hand the AI's jobs back (other workers take them soon): %r", error)
        self.metrics.close()
        await client.aclose()
