"""The engine off the event loop: AI moves and analyses run in worker processes (much of the search
is Python, so threads would hold the interpreter lock the server needs), at most one job per
worker at a time. Jobs are plain values, so they cross the process boundary cheaply. Each worker
starts getting the compiled kernel ready when it starts, in the background, and plays with the
plain kernel until then: the first game after an install never waits for numba to compile."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Final, TypeVar

from bluegray.engine.analysis import analyse
from bluegray.engine.levels import clock_limits
from bluegray.engine.limits import Limits
from bluegray.engine.players import SearchPlayer, player_from_spec
from bluegray.engine.search import warm_up
from bluegray.game import Game
from bluegray.outcome import Outcome
from bluegray.pieces import Side

J = TypeVar("J")
R = TypeVar("R")

CLOCK_SHARE: Final = 30
"""A clocked AI spends at most its time left divided by this on one move."""


@dataclass(frozen=True)
class MoveJob:
    rules: str
    start: str
    moves: tuple[str, ...]
    level: int
    seed: int
    time_left_ms: int | None = None


@dataclass(frozen=True)
class AnalysisJob:
    rules: str
    start: str
    moves: tuple[str, ...]
    seconds: float


@dataclass(frozen=True)
class AnalysisOutput:
    """An ``Analysis`` as plain values."""

    position: str
    turn: Side
    best_move: str | None
    score: int
    blue_expected: float
    pv: tuple[str, ...]
    depth: int
    nodes: int
    seconds: float
    plies_to_end: int | None
    winning_side: Side | None
    outcome: Outcome | None
    description: str


def _game(rules: str, start: str, moves: tuple[str, ...]) -> Game:
    game = Game(rules, start)
    game.push_all(moves)
    return game


def think_limits(level: int, time_left_ms: int | None) -> Limits | None:
    """The limits of an AI move: the level's own, shortened when its clock runs low."""
    if time_left_ms is None:
        return None
    return clock_limits(level, time_left_ms / 1000 / CLOCK_SHARE)


def choose_move(job: MoveJob) -> str:
    """The AI's move (run in a worker)."""
    game = _game(job.rules, job.start, job.moves)
    player = player_from_spec(f"level:{job.level}", seed=job.seed)
    if isinstance(player, SearchPlayer):
        player.new_game(game.rules)
    try:
        return str(player.choose(game, think_limits(job.level, job.time_left_ms)))
    finally:
        player.close()


def run_analysis(job: AnalysisJob) -> AnalysisOutput:
    """The engine's view of a position (run in a worker)."""
    game = _game(job.rules, job.start, job.moves)
    result = analyse(game, Limits(time=job.seconds))
    return AnalysisOutput(
        position=str(game.position),
        turn=result.turn,
        best_move=None if result.best_move is None else str(result.best_move),
        score=result.score,
        blue_expected=result.blue_expected,
        pv=tuple(str(move) for move in result.pv),
        depth=result.depth,
        nodes=result.nodes,
        seconds=result.seconds,
        plies_to_end=result.plies_to_end,
        winning_side=result.winning_side,
        outcome=result.outcome,
        description=result.describe(),
    )


class Engines:
    """A pool of workers for engine jobs, started on first use."""

    def __init__(self, workers: int, *, processes: bool = True) -> None:
        self.workers = max(1, workers)
        self.processes = processes
        self._pool: Executor | None = None
        self._warming: asyncio.Future[None] | None = None
        self._analyses = asyncio.Semaphore(max(1, self.workers - 1) if self.workers > 2 else 1)

    def _executor(self) -> Executor:
        if self._pool is None:
            if self.processes:
                self._pool = ProcessPoolExecutor(
                    self.workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=warm_up,
                )
            else:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="bluegray-ai")
        return self._pool

    async def warm(self) -> None:
        """Start a worker, and with it the compiled kernel's preparation in the background
        (``search.warm_up``: compiled on the first start after an install, some 20 seconds, by
        one process at a time; later workers load numba's cache quickly). It returns at once:
        jobs meanwhile are played by the plain kernel, which plays a fixed-depth level's very
        same moves."""
        self._warming = asyncio.get_running_loop().run_in_executor(self._executor(), warm_up)
        with contextlib.suppress(Exception):  # a job that needs the search reports the problem
            await self._warming

    async def choose(self, job: MoveJob) -> str:
        return await self._run(choose_move, job)

    async def analyse(self, job: AnalysisJob) -> AnalysisOutput:
        """An analysis; at most workers - 1 at once (when there are 3 or more), so that analyses
        never starve the AI players of workers."""
        async with self._analyses:
            return await self._run(run_analysis, job)

    async def _run(self, function: Callable[[J], R], job: J) -> R:
        if self._warming is not None and not self._warming.done():
            with contextlib.suppress(Exception):
                await asyncio.shield(self._warming)
        pool = self._executor()
        try:
            return await asyncio.get_running_loop().run_in_executor(pool, function, job)
        except BrokenExecutor:
            if self._pool is pool:  # a worker died: the next job gets a new pool
                self._pool = None
                pool.shutdown(wait=False, cancel_futures=True)
            raise

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
