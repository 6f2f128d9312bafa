"""``bluegray worker``: computes the AI's moves and analyses for the scaled-out service.

A worker takes jobs from the queue on Redis in engine processes of its own, one per CPU it may
use (one kept for short jobs); each plays the moves it finds in their games through the
database's version check and publishes them on the event bus, as a web process would. The
supervising process notes every engine slot's heartbeat, restarts a slot that dies (under a new
name, so that its job goes back on the queue), and puts back on the queue the jobs of workers
that stopped beating. Engine processes die with their worker, even when it is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import logging.config
import multiprocessing
import os
import signal
import time
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from typing import Any, Final

from bluegray.web import redis_queue
from bluegray.web.ai_moves import play_ai_move
from bluegray.web.backends import redis_client, stale_ms
from bluegray.web.bus import RedisBus
from bluegray.web.clocks import set_time_offset
from bluegray.web.db import Database
from bluegray.web.jobs import AnalysisOutput, MoveJob, prepare_engine_process, reserved_for_short
from bluegray.web.jobs import run_job as run_engine_job
from bluegray.web.logs import log_config
from bluegray.web.presence import RedisPresence
from bluegray.web.ratings import rate_ended
from bluegray.web.runtime import Games
from bluegray.web.settings import Settings

log = logging.getLogger("bluegray.worker")

TAKE_BLOCK_MS: Final = 1000


@dataclass
class _SlotProcess:
    index: int
    short_only: bool
    generation: int = 0
    process: BaseProcess | None = field(default=None, repr=False)
    ready: Any = field(default=None, repr=False)
    """Set by the engine process once its engine is loaded: only then does the slot beat."""

    def consumer(self, worker: str) -> str:
        return f"{worker}/{self.index}.{self.generation}"


def run_slot(
    settings_json: str, consumer: str, short_only: bool, parent_pid: int, ready: Any
) -> None:
    """An engine process of a worker (started with multiprocessing's spawn)."""
    settings = Settings.model_validate_json(settings_json)
    set_time_offset(settings.time_offset_seconds)
    logging.config.dictConfig(
        log_config(consumer, level="info", json=settings.log_json, access_log=False)
    )
    prepare_engine_process(parent_pid)
    ready.set()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_slot(settings, consumer, short_only))


async def _slot(settings: Settings, consumer: str, short_only: bool) -> None:
    client = redis_client(settings)
    database = Database(settings.resolved_database_url)
    database.start(migrate=False)
    games = Games(
        database,
        RedisBus(client, consumer),
        RedisPresence(client, consumer, stale_ms(settings)),
        consumer,
        abandon_ms=round(settings.abandon_seconds * 1000),
        shared=True,
        on_end=rate_ended,
        first_move_ms=round(settings.first_move_seconds * 1000),
    )
    slot = redis_queue.Slot(client, consumer, short_only=short_only)
    try:
        while True:
            delivery = await slot.take(TAKE_BLOCK_MS)
            if delivery is None:
                continue
            started = time.monotonic()
            try:
                result = run_engine_job(delivery.job)
            except Exception as error:  # a job the engine cannot do: say so, and drop it
                log.error("job %s failed: %r", delivery.job_id, error)
                await slot.finish(delivery, failure=f"the engine failed: {error}")
                continue
            job = delivery.job
            if isinstance(job, MoveJob) and isinstance(result, str):
                played = await play_ai_move(games, job, result, consumer)
                log.info(
                    "game %s: level %d played %s in %.2f s%s",
                    job.game_id,
                    job.level,
                    result,
                    time.monotonic() - started,
                    "" if played else " (too late: the game had moved on)",
                )
                await slot.finish(delivery)
            elif isinstance(result, AnalysisOutput):
                await slot.finish(delivery, output=result)
    finally:
        database.close()
        await client.aclose()


async def supervise(settings: Settings, name: str, count: int) -> None:
    """Run ``count`` engine slots until SIGTERM or SIGINT, keeping them beating and alive."""
    set_time_offset(settings.time_offset_seconds)
    client = redis_client(settings)
    await redis_queue.wait_for_redis(client, 30)
    await redis_queue.ensure_groups(client)
    reserved = reserved_for_short(count)
    slots = [_SlotProcess(index, short_only=index < reserved) for index in range(count)]
    context = multiprocessing.get_context("spawn")
    settings_json = settings.model_dump_json()

    def start(slot: _SlotProcess) -> None:
        slot.ready = context.Event()
        process = context.Process(
            target=run_slot,
            args=(settings_json, slot.consumer(name), slot.short_only, os.getpid(), slot.ready),
            name=slot.consumer(name),
            daemon=True,
        )
        process.start()
        slot.process = process

    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopping.set)
    for slot in slots:
        start(slot)
    consumers: list[str] = []
    beat = settings.heartbeat_seconds / 2
    try:
        while not stopping.is_set():
            for slot in slots:
                if slot.process is not None and not slot.process.is_alive():
                    log.error("engine slot %s stopped: starting it again", slot.consumer(name))
                    slot.generation += 1
                    start(slot)
            consumers = [slot.consumer(name) for slot in slots if slot.ready.is_set()]
            try:
                if consumers:
                    await redis_queue.beat(client, consumers)
                await redis_queue.recover(client, stale_ms(settings), f"{name}/rescuer")
            except Exception as error:
                log.error("cannot reach Redis: %r", error)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(beat):  # not wait_for: see deadlines.Timers._run
                    await stopping.wait()
    finally:
        for slot in slots:
            if slot.process is not None:
                slot.process.terminate()
        for slot in slots:
            if slot.process is not None:
                slot.process.join(timeout=5)
        with contextlib.suppress(Exception):
            await redis_queue.leave(client, consumers)
        await client.aclose()
