"""The AI's job queue on Redis, for the scaled-out service: web processes queue jobs, ``bluegray
worker`` processes take them.

Redis Streams through redis-py: one stream per priority (``bg:jobs:quick``, ``bg:jobs:short``,
``bg:jobs:long``) read by one consumer group, so that each job goes to one worker and stays
listed as pending until that worker acknowledges it. Workers note a heartbeat per engine slot;
a job pending with a slot whose heartbeat stopped (its worker was killed mid-search) is put back
on its stream for another worker, and a job tried too often (one that kills its workers) is
dropped. Queued work is counted per browser, per address and in all, in sorted sets of job ids
by time, so that counts left behind by a lost job fade out rather than block for ever. An AI
move is queued once per game and version however often it is asked for; the move itself is
played by the worker, through the database's version check, so a job run twice still plays one
move.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import redis.asyncio as aioredis
from redis.exceptions import ResponseError

from bluegray.web.clocks import now_ms
from bluegray.web.jobs import (
    AiBusyError,
    AiUnavailableError,
    AnalysisJob,
    AnalysisOutput,
    Bounds,
    Job,
    MoveJob,
    Owner,
    Priority,
    decode_job,
    decode_output,
    encode_job,
    encode_output,
)

log = logging.getLogger("bluegray.web")

STREAMS: Final = {priority: f"bg:jobs:{priority.name.lower()}" for priority in Priority}
GROUP: Final = "engines"
SLOTS_KEY: Final = "bg:workers"
"""Engine slots by their last heartbeat (ms)."""
LOAD_PREFIX: Final = "bg:load:"
QUEUED_PREFIX: Final = "bg:queued:"
REPLY_PREFIX: Final = "bg:reply:"
LOAD_WINDOW_MS: Final = 10 * 60_000
"""Queued work older than this no longer counts against the bounds (a job lost with Redis)."""
QUEUED_SECONDS: Final = 600
"""How long an AI move counts as queued (it is not queued again meanwhile)."""
MAX_DELIVERIES: Final = 3
"""A job delivered this often without being finished is dropped: it kills its workers."""
RESCUE_IDLE_MS: Final = 500
ANALYSIS_WAIT_SECONDS: Final = 30.0
"""How long an analysis may wait for a free worker, beyond its own thinking time."""

# Checks every bound, then counts the job against all of them, in one step.
# KEYS: the total's set, then the owner's sets. ARGV: now, window, total bound, owner bound, id.
_ADMIT: Final = """
local now = tonumber(ARGV[1])
local oldest = now - tonumber(ARGV[2])
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', oldest)
  local bound = tonumber(i == 1 and ARGV[3] or ARGV[4])
  if redis.call('ZCARD', key) >= bound then return i end
end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, ARGV[5])
  redis.call('PEXPIRE', key, ARGV[2])
end
return 0
"""


def load_keys(owner: Owner) -> list[str]:
    return [LOAD_PREFIX + "all", *(LOAD_PREFIX + key for key in owner.load_keys())]


async def ensure_groups(client: aioredis.Redis) -> None:
    for stream in STREAMS.values():
        try:
            await client.xgroup_create(stream, GROUP, id="0", mkstream=True)
        except ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise


async def live_slots(client: aioredis.Redis, stale_ms: int) -> list[str]:
    names = await client.zrangebyscore(SLOTS_KEY, now_ms() - stale_ms, "+inf")
    return [_str(name) for name in names]


class RedisQueue:
    """A web process's side of the queue: it adds jobs and waits for analyses."""

    name = "workers"

    def __init__(self, client: aioredis.Redis, bounds: Bounds, stale_ms: int) -> None:
        self.client = client
        self.bounds = bounds
        self.stale_ms = stale_ms
        self._admit = client.register_script(_ADMIT)

    async def start(self) -> None:
        await ensure_groups(self.client)

    async def close(self) -> None:
        return None

    async def submit_move(self, job: MoveJob, owner: Owner) -> None:
        """Queue the job for a worker, which plays the move (so nothing to wait for here)."""
        queued = QUEUED_PREFIX + job.key
        if not await self.client.set(queued, "1", nx=True, ex=QUEUED_SECONDS):
            return  # queued or running already
        try:
            await self._add(job, owner, job.key, None)
        except BaseException:
            await self.client.delete(queued)
            raise

    async def analyse(self, job: AnalysisJob, owner: Owner) -> AnalysisOutput:
        if not await self.workers():
            raise AiUnavailableError("no AI worker is running: analysis is not available now")
        job_id = "analysis:" + secrets.token_urlsafe(12)
        reply = REPLY_PREFIX + job_id
        await self._add(job, owner, job_id, reply)
        answer = await self.client.blpop([reply], timeout=job.seconds + ANALYSIS_WAIT_SECONDS)
        if answer is None:
            raise AiBusyError("the AI is busy: the analysis did not start in time")
        reply = json.loads(_str(answer[1]))
        if "output" not in reply:
            raise AiUnavailableError(str(reply.get("error", "the analysis failed")))
        return decode_output(reply["output"])

    async def workers(self) -> int:
        return len(await live_slots(self.client, self.stale_ms))

    async def depth(self) -> int:
        key = LOAD_PREFIX + "all"
        return int(await self.client.zcount(key, now_ms() - LOAD_WINDOW_MS, "+inf"))

    async def _add(self, job: Job, owner: Owner, job_id: str, reply: str | None) -> None:
        keys = load_keys(owner)
        refused = await self._admit(
            keys=keys,
            args=[now_ms(), LOAD_WINDOW_MS, self.bounds.total, self.bounds.per_owner, job_id],
        )
        if refused == 1:
            raise AiBusyError("the AI is busy: too many games are waiting for it")
        if refused:
            raise AiBusyError("the AI is busy with your other games: try again shortly")
        fields = {
            "id": job_id,
            "job": encode_job(job),
            "load": json.dumps(keys),
            "reply": reply or "",
            "queued_ms": str(now_ms()),
        }
        await self.client.xadd(STREAMS[job.priority], fields)  # type: ignore[arg-type]


# -- the workers' side ------------------------------------------------------------------------


@dataclass(frozen=True)
class Delivery:
    """A job as a worker took it from its stream."""

    stream: str
    entry: str
    job_id: str
    job: Job
    load: list[str]
    reply: str | None
    queued_ms: int

    @property
    def queued_key(self) -> str | None:
        if isinstance(self.job, MoveJob):
            return QUEUED_PREFIX + self.job.key
        return None


class Slot:
    """One engine slot of a worker: a consumer in the group, taking one job at a time (the
    smallest first; no long ones if ``short_only``)."""

    def __init__(self, client: aioredis.Redis, consumer: str, *, short_only: bool) -> None:
        self.client = client
        self.consumer = consumer
        self.streams = [
            STREAMS[priority]
            for priority in Priority
            if not (short_only and priority is Priority.LONG)
        ]

    async def take(self, block_ms: int) -> Delivery | None:
        """The next job, the smallest first; ``None`` if none came within ``block_ms``."""
        for stream in self.streams:
            found = await self._read({stream: ">"}, None)
            if found is not None:
                return found
        return await self._read(dict.fromkeys(self.streams, ">"), block_ms)

    async def _read(self, streams: dict[str, str], block_ms: int | None) -> Delivery | None:
        answer: Any = await self.client.xreadgroup(
            GROUP,
            self.consumer,
            streams,  # type: ignore[arg-type]
            count=1,
            block=block_ms,
        )
        for stream, entries in answer or []:
            for entry, fields in entries:
                if not fields:  # deleted meanwhile
                    await self.client.xack(_str(stream), GROUP, entry)
                    continue
                delivery = _delivery(_str(stream), _str(entry), fields)
                if delivery is None:
                    await self.client.xack(_str(stream), GROUP, entry)
                    continue
                return delivery
        return None

    async def finish(
        self,
        delivery: Delivery,
        *,
        output: AnalysisOutput | None = None,
        failure: str | None = None,
    ) -> None:
        """The job is done: answer an analysis (or say why it failed), and let the job go."""
        async with self.client.pipeline(transaction=True) as pipe:
            if delivery.reply is not None:
                answer = {"error": failure or "no answer"}
                if output is not None:
                    answer = {"output": encode_output(output)}
                pipe.rpush(delivery.reply, json.dumps(answer))
                pipe.expire(delivery.reply, 60)
            for key in delivery.load:
                pipe.zrem(key, delivery.job_id)
            if delivery.queued_key is not None:
                pipe.delete(delivery.queued_key)
            pipe.xack(delivery.stream, GROUP, delivery.entry)
            pipe.xdel(delivery.stream, delivery.entry)
            await pipe.execute()


async def beat(client: aioredis.Redis, slots: Sequence[str]) -> None:
    """The slots of a worker are alive."""
    stamp = now_ms()
    await client.zadd(SLOTS_KEY, dict.fromkeys(slots, stamp))


async def leave(client: aioredis.Redis, slots: Sequence[str]) -> None:
    if slots:
        await client.zrem(SLOTS_KEY, *slots)


async def recover(client: aioredis.Redis, stale_ms: int, rescuer: str) -> int:
    """Put back on their streams the jobs pending with slots that are no longer alive (a slot
    that is restarted comes back under a new name, so its old jobs are recovered here too),
    and drop the ones tried too often; forget dead slots with nothing pending. How many jobs
    were put back."""
    alive = set(await live_slots(client, stale_ms))
    moved = 0
    for stream in STREAMS.values():
        pending = await client.xpending_range(stream, GROUP, min="-", max="+", count=100)
        for item in pending:
            consumer = _str(item["consumer"])
            if consumer in alive:
                continue
            entry = _str(item["message_id"])
            # Claiming needs the job idle for a moment, and resets that: of two rescuers at
            # once, only one gets it.
            claimed = await client.xclaim(
                stream, GROUP, rescuer, min_idle_time=RESCUE_IDLE_MS, message_ids=[entry]
            )
            if not claimed:
                continue
            await client.xack(stream, GROUP, entry)
            await client.xdel(stream, entry)
            found: Any = claimed[0][1]
            if not found:
                continue
            fields = {_str(key): _str(value) for key, value in found.items()}
            attempts = int(fields.get("attempts", "0")) + 1
            if attempts >= MAX_DELIVERIES:
                log.error("dropping AI job %s: tried %d times, never finished", entry, attempts)
                continue
            fields["attempts"] = str(attempts)
            await client.xadd(stream, fields)  # type: ignore[arg-type]
            moved += 1
            log.warning("AI job %s of a stopped worker (%s) queued again", entry, consumer)
        for info in await client.xinfo_consumers(stream, GROUP):
            name = _str(info["name"])
            if name not in alive and int(info["pending"]) == 0:
                await client.xgroup_delconsumer(stream, GROUP, name)
    return moved


def _delivery(stream: str, entry: str, fields: dict[Any, Any]) -> Delivery | None:
    data = {_str(key): _str(value) for key, value in fields.items()}
    try:
        job = decode_job(data["job"])
        return Delivery(
            stream=stream,
            entry=entry,
            job_id=data["id"],
            job=job,
            load=list(json.loads(data.get("load", "[]"))),
            reply=data.get("reply") or None,
            queued_ms=int(data.get("queued_ms", "0")),
        )
    except (KeyError, ValueError) as error:
        log.error("dropping an unreadable AI job %s: %s", entry, error)
        return None


def _str(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


async def wait_for_redis(client: aioredis.Redis, seconds: float) -> None:
    """Wait until Redis answers (a worker may start before it)."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        try:
            await client.ping()
            return
        except Exception:
            if asyncio.get_running_loop().time() > deadline:
                raise
            await asyncio.sleep(0.2)
