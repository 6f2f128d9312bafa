"""The embedded AI: a pool of engine processes inside the web app's process group, fed by a
queue that keeps the same priorities and bounds as the workers' queue on Redis.

Much of the search is Python, so the engine runs in processes, not threads (threads would hold
the interpreter lock the server needs). The processes die with the server (even with SIGKILL)
and run at a lower CPU priority than it, so that players' moves stay quick while the AI thinks.
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
)

log = logging.getLogger("bluegray.web")

RETRIES: Final = 1
"""How often a job whose engine process died is run again (in a new one)."""


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
        self, slots: int, bounds: Bounds, on_move: MoveSink, *, processes: bool = True
    ) -> None:
        self.slots = max(1, slots)
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
        loop = asyncio.get_running_loop()
        for attempt in range(RETRIES + 1):
            pool = self._executor()
            try:
                return await loop.run_in_executor(pool, run_job, job)
            except BrokenExecutor:
                if self._pool is pool:  # an engine process died: the next job gets a new pool
                    self._pool = None
                    pool.shutdown(wait=False, cancel_futures=True)
                if attempt == RETRIES:
                    raise
        raise AssertionError("unreachable")


def _stop_processes(pool: Executor) -> None:
    """Stop a process pool's engine processes now (a search may be running: it is dropped)."""
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        with contextlib.suppress(Exception):
            process.terminate()
    for process in list(processes.values()):
        with contextlib.suppress(Exception):
            process.join(timeout=2)
