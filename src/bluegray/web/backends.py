"""What differs between the two ways to run, chosen by the settings: embedded (the event bus,
presence and AI pool inside the one process) or scaled out (all three on Redis, with the AI's
moves computed by ``bluegray worker`` processes)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import redis.asyncio as aioredis

from bluegray.web.ai.cpus import usable_cpus
from bluegray.web.ai.jobs import Bounds, JobQueue, MoveSink
from bluegray.web.ai.local_queue import LocalQueue
from bluegray.web.ai.redis_queue import RedisQueue
from bluegray.web.platform.settings import Settings
from bluegray.web.realtime.bus import Bus, LocalBus, RedisBus
from bluegray.web.realtime.presence import LocalPresence, PresenceBook, RedisPresence


@dataclass
class Backends:
    bus: Bus
    presence: PresenceBook
    make_queue: Callable[[MoveSink], JobQueue]
    redis: aioredis.Redis | None

    async def close(self) -> None:
        if self.redis is not None:
            await self.redis.aclose()


def stale_ms(settings: Settings) -> int:
    """How long a process may stay silent before the others count it dead."""
    return round(settings.heartbeat_seconds * 3000) + 1000


def bounds(settings: Settings) -> Bounds:
    return Bounds(total=settings.ai_queue_limit, per_owner=settings.ai_queue_per_client)


def engine_slots(settings: Settings) -> int:
    """Engine processes to run: the setting, or one per CPU this process may use."""
    return settings.ai_workers or usable_cpus()


REDIS_CONNECTIONS: Final = 64
"""Connections to Redis per process: a command that finds them all busy waits for one."""


def redis_client(settings: Settings) -> aioredis.Redis:
    pool = aioredis.BlockingConnectionPool.from_url(
        settings.redis_url, max_connections=REDIS_CONNECTIONS, timeout=10, health_check_interval=10
    )
    return aioredis.Redis(connection_pool=pool)


def backends(settings: Settings, process: str) -> Backends:
    if not settings.scaled:
        return Backends(
            LocalBus(),
            LocalPresence(process),
            lambda sink: LocalQueue(
                engine_slots(settings),
                bounds(settings),
                sink,
                processes=settings.ai_processes,
                overrun_seconds=settings.ai_job_overrun_seconds,
            ),
            None,
        )
    client = redis_client(settings)
    return Backends(
        RedisBus(client, process),
        RedisPresence(client, process, stale_ms(settings)),
        lambda sink: RedisQueue(client, bounds(settings), stale_ms(settings)),
        client,
    )
