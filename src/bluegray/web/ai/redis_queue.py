"""The AI's job queue on Redis, for the scaled-out service: web processes queue jobs, ``bluegray
worker`` processes take them.

Redis Streams through redis-py: one stream per priority (``bg:jobs:quick``, ``bg:jobs:short``,
``bg:jobs:long``, ``bg:jobs:review``) read by one consumer group, so that each job goes to one
worker and stays listed as pending until that worker acknowledges it. A worker keeps the jobs its
engine slots are computing fresh (it re-claims them for the same slot every heartbeat); a job left
idle longer than that (its worker was killed mid-search) is claimed by the next free slot of any
worker with the stream's own claim of idle entries (``XAUTOCLAIM``: one atomic step, the entry
stays where it is), and a worker stopped with SIGTERM marks its jobs idle at once so that they are
taken up without that delay. A job Redis gave a slot whose answer was lost (Redis paused past the
client's socket timeout still runs the command) is taken up by that slot at its next take. A job
delivered too often (one that kills its workers) is dropped.
Workers note a heartbeat per engine slot, pruned as they go.

Queued work is counted per browser, per address and in all, in sorted sets of job ids by time,
so that counts left behind by a lost job fade out rather than block for ever. An AI move is
queued once per game and version however often it is asked for, as long as its entry is on its
stream: one lost with Redis (restarted empty) is queued again at the next ask. The move itself
is played by the worker, through the database's version check, so a job run twice still plays
one move. Everything a worker needs in Redis (streams, the group) is made again when it is
found missing.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import redis.asyncio as aioredis
from redis.exceptions import ResponseError

from bluegray.web.ai.jobs import (
    LONG_WAIT_SECONDS,
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
from bluegray.web.platform.clocks import now_ms

log = logging.getLogger("bluegray.web")

STREAMS: Final = {priority: f"bg:jobs:{priority.name.lower()}" for priority in Priority}
GROUP: Final = "engines"
SLOTS_KEY: Final = "bg:workers"
"""Engine slots by their last heartbeat (ms)."""
FORGET_SLOT_MS: Final = 10 * 60_000
"""A slot silent this long is dropped from ``SLOTS_KEY`` (and its consumer from the group)."""
LOAD_PREFIX: Final = "bg:load:"
QUEUED_PREFIX: Final = "bg:queued:"
REPLY_PREFIX: Final = "bg:reply:"
LOAD_WINDOW_MS: Final = 10 * 60_000
"""Queued work older than this no longer counts against the bounds (a job lost with Redis)."""
QUEUED_SECONDS: Final = 600
"""How long an AI move counts as queued while its entry is on its stream (it is not queued
again meanwhile), and how long a dropped one is not queued again."""
DROPPED: Final = "dropped"
"""The queued mark of an AI move dropped for killing its workers."""
MAX_DELIVERIES: Final = 3
"""A job delivered this often without being finished is dropped: it kills its workers."""
HANDED_BACK_IDLE_MS: Final = 3_600_000
"""The idle time a job handed back is given: any worker's next claim of idle jobs takes it."""
ANALYSIS_WAIT_SECONDS: Final = 30.0
"""How long an analysis may wait for a free worker, beyond its own thinking time."""
REPLY_POLL_SECONDS: Final = 2.0
"""The longest one wait for an analysis's answer blocks (below the client's socket timeout);
it is waited for again until its time is up."""
REVIEW_WAIT_SECONDS: Final = 300.0
"""How long a review's position may wait behind the other jobs (it goes last), beyond its own
thinking time; then it is asked for again."""

# Queues a job: unless it is an AI move whose entry is still on its stream (or that was dropped),
# checks every bound, counts the job against all of them, adds it to its stream and notes the
# move's entry, in one step.
# KEYS: the stream, the move's queued mark (any name for an analysis), the total's set, then
# the owner's sets. ARGV: now, window, total bound, owner bound, id, mark's seconds (0: no mark),
# then the entry's fields and values.
# Answers 0 (queued already), 1 or 2 (refused: in all, for the owner) or the new entry's id.
_SUBMIT: Final = """
local stream, mark, seconds = KEYS[1], KEYS[2], tonumber(ARGV[6])
if seconds > 0 then
  local entry = redis.call('GET', mark)
  if entry == 'dropped' then return 0 end
  if entry and #redis.call('XRANGE', stream, entry, entry) > 0 then return 0 end
end
local now = tonumber(ARGV[1])
local oldest = now - tonumber(ARGV[2])
for i = 3, #KEYS do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', oldest)
  local bound = tonumber(i == 3 and ARGV[3] or ARGV[4])
  if not redis.call('ZSCORE', KEYS[i], ARGV[5]) and redis.call('ZCARD', KEYS[i]) >= bound then
    return i - 2
  end
end
for i = 3, #KEYS do
  redis.call('ZADD', KEYS[i], now, ARGV[5])
  redis.call('PEXPIRE', KEYS[i], ARGV[2])
end
local entry = redis.call('XADD', stream, '*', unpack(ARGV, 7))
if seconds > 0 then redis.call('SET', mark, entry, 'EX', seconds) end
return entry
"""

# Re-claims every job pending with the given consumers for the same consumer, idle for the given
# time: 0 keeps a slot's jobs fresh while it computes them, a long time hands them back to any
# worker at once. KEYS: the streams. ARGV: the group, the idle time, the consumers. How many.
_TOUCH: Final = """
local count = 0
for _, stream in ipairs(KEYS) do
  for i = 3, #ARGV do
    local pending = redis.pcall('XPENDING', stream, ARGV[1], '-', '+', 100, ARGV[i])
    if type(pending) == 'table' and not pending.err then
      for _, item in ipairs(pending) do
        redis.call('XCLAIM', stream, ARGV[1], ARGV[i], 0, item[1], 'IDLE', ARGV[2], 'JUSTID')
        count = count + 1
      end
    end
  end
end
return count
"""

# Forgets the consumers that have nothing pending and were idle this long, and the slots whose
# heartbeat is that old. KEYS: the slots' set, then the streams. ARGV: the group, the time, now.
_FORGET: Final = """
local forget = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[3]) - forget)
for i = 2, #KEYS do
  local consumers = redis.pcall('XINFO', 'CONSUMERS', KEYS[i], ARGV[1])
  if type(consumers) == 'table' and not consumers.err then
    for _, info in ipairs(consumers) do
      local fields = {}
      for j = 1, #info, 2 do fields[info[j]] = info[j + 1] end
      if tonumber(fields['pending']) == 0 and tonumber(fields['idle']) > forget then
        redis.call('XGROUP', 'DELCONSUMER', KEYS[i], ARGV[1], fields['name'])
      end
    end
  end
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
        self._submit = client.register_script(_SUBMIT)

    async def start(self) -> None:
        await ensure_groups(self.client)

    async def close(self) -> None:
        return None

    async def submit_move(self, job: MoveJob, owner: Owner) -> None:
        """Queue the job for a worker, which plays the move (so nothing to wait for here),
        unless it is on its stream already."""
        await self._add(job, owner, job.key, None, QUEUED_PREFIX + job.key)

    async def analyse(self, job: AnalysisJob, owner: Owner) -> AnalysisOutput:
        if not await self.workers():
            raise AiUnavailableError("no AI worker is running: analysis is not available now")
        job_id = "analysis:" + secrets.token_urlsafe(12)
        reply = REPLY_PREFIX + job_id
        await self._add(job, owner, job_id, reply, None)
        wait = REVIEW_WAIT_SECONDS if job.review else ANALYSIS_WAIT_SECONDS
        deadline = time.monotonic() + job.seconds + wait
        while True:
            # Waited for a little at a time: a command that blocks longer than the client's
            # socket timeout (redis-py's default: 5 s) fails with a timeout of its own.
            left = deadline - time.monotonic()
            if left <= 0:
                raise AiBusyError("the AI is busy: the analysis did not start in time")
            answer = await self.client.blpop([reply], timeout=min(REPLY_POLL_SECONDS, left))
            if answer is not None:
                break
        reply = json.loads(_str(answer[1]))
        if "output" not in reply:
            raise AiUnavailableError(str(reply.get("error", "the analysis failed")))
        return decode_output(reply["output"])

    async def workers(self) -> int:
        return len(await live_slots(self.client, self.stale_ms))

    async def depth(self) -> int:
        key = LOAD_PREFIX + "all"
        return int(await self.client.zcount(key, now_ms() - LOAD_WINDOW_MS, "+inf"))

    async def _add(
        self, job: Job, owner: Owner, job_id: str, reply: str | None, mark: str | None
    ) -> None:
        keys = load_keys(owner)
        fields = {
            "id": job_id,
            "job": encode_job(job),
            "load": json.dumps(keys),
            "reply": reply or "",
            "queued_ms": str(now_ms()),
        }
        answer = await self._submit(
            keys=[STREAMS[job.priority], mark or job_id, *keys],
            args=[
                now_ms(),
                LOAD_WINDOW_MS,
                self.bounds.total,
                self.bounds.per_owner,
                job_id,
                QUEUED_SECONDS if mark else 0,
                *(item for pair in fields.items() for item in pair),
            ],
        )
        if answer == 1:
            raise AiBusyError("the AI is busy: too many games are waiting for it")
        if answer == 2:
            raise AiBusyError("the AI is busy with your other games: try again shortly")


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
    smallest first; no long ones if ``short_only``). It takes first the jobs left idle for
    ``abandoned_ms`` by a worker that stopped (the heartbeat of a live one keeps its jobs
    fresh, see ``touch``)."""

    def __init__(
        self, client: aioredis.Redis, consumer: str, *, short_only: bool, abandoned_ms: int
    ) -> None:
        self.client = client
        self.consumer = consumer
        self.abandoned_ms = abandoned_ms
        self.streams = [
            STREAMS[priority] for priority in Priority if not (short_only and priority.long)
        ]

    async def take(self, block_ms: int) -> Delivery | None:
        """The next job: one given to this slot whose answer it never had, then one a stopped
        worker left, else the smallest first (but a long job that has waited too long first);
        ``None`` if none came within ``block_ms``. The streams and the group are made again if
        Redis lost them (it was restarted empty); Redis's own errors (it is out of reach) are
        raised.

        A slot takes one job at a time, so a job pending with it as it asks for the next one is
        one Redis gave it while its answer was lost: a command that outlived the client's socket
        timeout (Redis paused) is still run when Redis goes on. Its worker's heartbeat keeps
        such a job fresh, so no other slot would take it: this one does, first."""
        try:
            return await self._take(block_ms)
        except ResponseError as error:
            if not _missing(error):
                raise
            log.warning("the AI's job queue is missing in Redis (emptied?): making it again")
            await ensure_groups(self.client)
            return None

    async def _take(self, block_ms: int) -> Delivery | None:
        own = await self._read(dict.fromkeys(self.streams, "0"), None)
        if own is not None:
            log.warning("AI job %s was given to this slot unbeknown to it: taken up", own.job_id)
            return own
        for stream in self.streams:
            left = await self._claim_abandoned(stream)
            if left is not None:
                return left
        streams = self.streams
        if len(streams) == len(STREAMS) and await self._long_waited_too_long():
            streams = [STREAMS[Priority.LONG], *streams]
        for stream in streams:
            found = await self._read({stream: ">"}, None)
            if found is not None:
                return found
        return await self._read(dict.fromkeys(self.streams, ">"), block_ms)

    async def _claim_abandoned(self, stream: str) -> Delivery | None:
        """A job idle too long on ``stream``, claimed in one step (two slots never both get
        it); one delivered too often is dropped. The pending jobs are scanned a few at a call,
        from the oldest, to the end."""
        start = "0-0"
        while True:
            answer: Any = await self.client.xautoclaim(
                stream, GROUP, self.consumer, self.abandoned_ms, start_id=start, count=1
            )
            for entry, fields in answer[1]:
                delivery = await self._claimed(stream, _str(entry), fields)
                if delivery is not None:
                    return delivery
            start = _str(answer[0])
            if start == "0-0":
                return None

    async def _claimed(self, stream: str, entry: str, fields: Any) -> Delivery | None:
        """The job of an entry this slot claimed, unless it is unreadable or was delivered too
        often (then it is let go)."""
        delivery = _delivery(stream, entry, fields) if fields else None
        if delivery is None:  # deleted meanwhile, or unreadable
            await self.client.xack(stream, GROUP, entry)
            return None
        pending: Any = await self.client.xpending_range(
            stream, GROUP, min=entry, max=entry, count=1
        )
        deliveries = int(pending[0]["times_delivered"]) if pending else 1
        if deliveries > MAX_DELIVERIES:
            log.error("dropping AI job %s: delivered %d times, never finished", entry, deliveries)
            await self.finish(delivery, failure="the engine failed on this job", dropped=True)
            return None
        log.warning("AI job %s of a stopped worker taken up again", entry)
        return delivery

    async def _long_waited_too_long(self) -> bool:
        """Whether the next long job to be delivered was queued too long ago."""
        stream = STREAMS[Priority.LONG]
        groups: Any = await self.client.xinfo_groups(stream)
        last = next((_str(g["last-delivered-id"]) for g in groups if _str(g["name"]) == GROUP), "0")
        following: Any = await self.client.xrange(stream, min=f"({last}", count=1)
        if not following:
            return False
        fields = {_str(key): _str(value) for key, value in following[0][1].items()}
        queued_ms = int(fields.get("queued_ms", "0"))
        return now_ms() - queued_ms > LONG_WAIT_SECONDS * 1000

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
        dropped: bool = False,
    ) -> None:
        """The job is done: answer an analysis (or say why it failed), and let the job go (an
        AI move may be queued again at once, unless it was ``dropped``)."""
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
                if dropped:
                    pipe.set(delivery.queued_key, DROPPED, ex=QUEUED_SECONDS)
                else:
                    pipe.delete(delivery.queued_key)
            pipe.xack(delivery.stream, GROUP, delivery.entry)
            pipe.xdel(delivery.stream, delivery.entry)
            await pipe.execute()


async def beat(client: aioredis.Redis, slots: Sequence[str]) -> None:
    """The slots of a worker are alive: their heartbeat is noted, and the jobs they are
    computing are kept fresh (so that no other worker takes them)."""
    stamp = now_ms()
    await client.zadd(SLOTS_KEY, dict.fromkeys(slots, stamp))
    await _touch(client, slots, idle_ms=0)


async def hand_back(client: aioredis.Redis, slots: Sequence[str]) -> int:
    """The jobs of these slots (stopped mid-search) go to the next free slot of any worker at
    once, not after the delay that tells a dead worker; how many."""
    return await _touch(client, slots, idle_ms=HANDED_BACK_IDLE_MS)


async def _touch(client: aioredis.Redis, slots: Sequence[str], *, idle_ms: int) -> int:
    if not slots:
        return 0
    script = client.register_script(_TOUCH)
    return int(await script(keys=list(STREAMS.values()), args=[GROUP, idle_ms, *slots]))


async def leave(client: aioredis.Redis, slots: Sequence[str]) -> None:
    if slots:
        await client.zrem(SLOTS_KEY, *slots)


async def forget(client: aioredis.Redis) -> None:
    """Forget slots silent for long: their heartbeats, and their consumers once they have
    nothing pending (their jobs are taken up by other slots first)."""
    script = client.register_script(_FORGET)
    await script(keys=[SLOTS_KEY, *STREAMS.values()], args=[GROUP, FORGET_SLOT_MS, now_ms()])


@dataclass(frozen=True)
class Backlog:
    """A stream's jobs as a worker sees them: how many are waiting or running, and how long
    the oldest of them has been on the stream."""

    priority: Priority
    jobs: int
    oldest_seconds: float


async def backlogs(client: aioredis.Redis) -> list[Backlog]:
    """The jobs on each stream (for the workers' metrics)."""
    async with client.pipeline(transaction=False) as pipe:
        for stream in STREAMS.values():
            pipe.xlen(stream)
            pipe.xrange(stream, count=1)
        answers: list[Any] = await pipe.execute()
    found = []
    now = time.time() * 1000  # entries are numbered by Redis's clock, not this process's
    for index, priority in enumerate(STREAMS):
        jobs, first = int(answers[2 * index]), answers[2 * index + 1]
        oldest = 0.0
        if first:
            added_ms = int(_str(first[0][0]).split("-")[0])
            oldest = max(0.0, (now - added_ms) / 1000)
        found.append(Backlog(priority, jobs, oldest))
    return found


def _missing(error: ResponseError) -> bool:
    """Whether Redis answered that the stream or the group does not exist."""
    text = str(error)
    return "NOGROUP" in text or "no such key" in text


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
