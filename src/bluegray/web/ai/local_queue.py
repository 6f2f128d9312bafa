"""The embedded AI: a pool of engine processes inside the web app's process group, fed by a
queue that keeps the same priorities and bounds as the workers' queue on Redis.

Much of the search is Python, so the engine runs in processes, not threads (threads would hold
the interpreter lock the server needs). The processes die with the server (even with SIGKILL)
and run at a lower CPU priority than it, so that players' moves stay quick while the AI thinks.
An engine process that dies, or that does not answer within its job's thinking time and the
overrun allowed (frozen, or lost in a loop), costs a new pool of processes, and the job is run
again there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import time
from collections import defaultdict, deque
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Final

from bluegray.web.ai.jobs import (
    LONG_WAIT_SECONDS,
    AiBusyError,
    AiUnavailableError,
    AnalysisJob,
    AnalysisOutput,
    Bounds,
    Job,
    MoveJob,
    MoveSink,
    Owner,
    Priority,
    prepare_engine_process,
    reserved_for_short,
    run_job,
    thinking_seconds,
)

log = logging.getLogger("bluegray.web")

RETRIES: Final = 1
"""How often a job whose engine process died or stopped answering is run again (in a new one)."""

STOP_SECONDS: Final = 2.0
"""How long an engine process asked to stop may take before it is killed."""


@dataclass
class _Item:
    job: Job
    owner: Owner
    done: asyncio.Future[str | AnalysisOutput] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    queued: float = field(default_factory=time.monotonic)


class LocalQueue:
    """AI jobs run by this process's own pool of engine processes."""

    name = "embedded"

    def __init__(
        self,
        slots: int,
        bounds: Bounds,
        on_move: MoveSink,
        *,
        processes: bool = True,
        overrun_seconds: float = 60.0,
    ) -> None:
        self.slots = max(1, slots)
        self.overrun_seconds = overrun_seconds
        self.reserved = reserved_for_short(self.slots)
        self.bounds = bounds
        self.on_move = on_move
        self.processes = processes
        self._pool: Executor | None = None
        self._waiting: dict[Priority, deque[_Item]] = {p: deque() for p in Priority}
        self._running: dict[Priority, int] = dict.fromkeys(Priority, 0)
        self._load: dict[str, int] = defaultdict(int)
        self._moves: dict[str, asyncio.Future[str | AnalysisOutput]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._executor()

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for queue in self._waiting.values():
            for item in queue:
                item.done.cancel()
            queue.clear()
        if self._pool is not None:
            pool, self._pool = self._pool, None
            # Stop the engine processes now (a search may be running: it is dropped), then let
            # the pool release what it holds, so that nothing is left for the resource tracker
            # to complain about.
            _stop_processes(pool)
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)

    def _executor(self) -> Executor:
        if self._pool is None:
            if self.processes:
                self._pool = ProcessPoolExecutor(
                    self.slots,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=prepare_engine_process,
                    initargs=(os.getpid(),),
                )
            else:
                self._pool = ThreadPoolExecutor(self.slots, thread_name_prefix="bluegray-ai")
        return self._pool

    # -- the queue -----------------------------------------------------------------------------

    async def submit_move(
        self, job: MoveJob, owner: Owner
    ) -> asyncio.Future[str | AnalysisOutput] | None:
        running = self._moves.get(job.key)
        if running is not None:
            return running
        item = self._admit(job, owner)
        self._moves[job.key] = item.done
        item.done.add_done_callback(lambda _: self._moves.pop(job.key, None))
        return item.done

    async def analyse(self, job: AnalysisJob, owner: Owner) -> AnalysisOutput:
        item = self._admit(job, owner)
        result = await item.done
        assert not isinstance(result, str)
        return result

    async def workers(self) -> int:
        return self.slots

    async def depth(self) -> int:
        return sum(len(queue) for queue in self._waiting.values()) + sum(self._running.values())

    def _admit(self, job: Job, owner: Owner) -> _Item:
        keys = owner.load_keys()
        if self._load["all"] >= self.bounds.total:
            raise AiBusyError("the AI is busy: too many games are waiting for it")
        if any(self._load[key] >= self.bounds.per_owner for key in keys):
            raise AiBusyError("the AI is busy with your other games: try again shortly")
        for key in ["all", *keys]:
            self._load[key] += 1
        item = _Item(job, owner)
        item.done.add_done_callback(lambda _: self._unload(keys))
        self._waiting[job.priority].append(item)
        self._pump()
        return item

    def _unload(self, keys: list[str]) -> None:
        for key in ["all", *keys]:
            self._load[key] -= 1
            if self._load[key] <= 0:
                del self._load[key]

    def _pump(self) -> None:
        """Start waiting jobs while slots are free: the smallest first (but a long job that has
        waited too long first), a review's positions last; long ones and reviews only in the
        slots not kept for quick and short jobs."""
        while True:
            if sum(self._running.values()) >= self.slots:
                return
            running_long = sum(self._running[p] for p in Priority if p.long)
            long_free = running_long < self.slots - self.reserved
            waiting = self._waiting[Priority.LONG]
            aged = bool(waiting) and time.monotonic() - waiting[0].queued > LONG_WAIT_SECONDS
            order = [Priority.LONG, *Priority] if aged else list(Priority)
            priority = next(
                (
                    priority
                    for priority in order
                    if self._waiting[priority] and (not priority.long or long_free)
                ),
                None,
            )
            if priority is None:
                return
            item = self._waiting[priority].popleft()
            if item.done.done():  # cancelled while it waited
                continue
            self._running[priority] += 1
            task = asyncio.create_task(self._run(item, priority))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _run(self, item: _Item, priority: Priority) -> None:
        try:
            result = await self._compute(item.job)
            if isinstance(item.job, MoveJob):
                assert isinstance(result, str)
                await self.on_move(item.job, result, self.name)
            if not item.done.done():
                item.done.set_result(result)
        except asyncio.CancelledError:
            item.done.cancel()
            raise
        except Exception as error:
            if not item.done.done():
                item.done.set_exception(error)
        finally:
            self._running[priority] -= 1
            self._pump()

    async def _compute(self, job: Job) -> str | AnalysisOutput:
        """The job's result from an engine process. One that dies, or that has not answered
        within the job's thinking time and the overrun allowed (counted from when the job is
        handed to the pool, so a new process's start is inside it), has its pool replaced
        (its other jobs are run again too) and the job run again there, once."""
        loop = asyncio.get_running_loop()
        allowed = thinking_seconds(job) + self.overrun_seconds
        for attempt in range(RETRIES + 1):
            pool = self._executor()
            try:
                return await asyncio.wait_for(loop.run_in_executor(pool, run_job, job), allowed)
            except BrokenExecutor:
                failure = "an engine process died"
            except TimeoutError:
                if not self.processes:  # a thread cannot be stopped: it is left to finish
                    raise AiUnavailableError(
                        f"the engine did not answer within {allowed:g} s"
                    ) from None
                failure = f"an engine process did not answer within {allowed:g} s"
            log.warning(
                "%s on %s; %s",
                failure,
                _named(job),
                "giving up" if attempt == RETRIES else "trying again in new engine processes",
            )
            if self._pool is pool:  # the next job gets a new pool
                self._pool = None
                _stop_processes(pool, at_once=True)
                pool.shutdown(wait=False, cancel_futures=True)
            if attempt == RETRIES:
                raise AiUnavailableError(f"the AI failed: {failure}, twice") from None
        raise AssertionError("unreachable")


def _named(job: Job) -> str:
    """A job as a log line names it."""
    if isinstance(job, MoveJob):
        return f"the level {job.level} move of game {job.game_id}"
    return f"an analysis of {job.seconds:g} s in {job.rules}"


def _stop_processes(pool: Executor, *, at_once: bool = False) -> None:
    """Stop a process pool's engine processes (a search may be running: it is dropped): asked
    to stop and given ``STOP_SECONDS``, or killed ``at_once``; any still running then is killed
    (a frozen process cannot act on being asked)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    if not at_once:
        for process in processes:
            with contextlib.suppress(Exception):
                process.terminate()
        deadline = time.monotonic() + STOP_SECONDS
        for process in processes:
            with contextlib.suppress(Exception):
                process.join(timeout=max(0.0, deadline - time.monotonic()))
    for process in processes:
        with contextlib.suppress(Exception):
            process.kill()  # nothing, for a process that has ended
