"""The reviews' runners: each web process drives a few pending reviews at a time
(``review_runners``), one position at a time, on the AI's queue at its lowest priority.

A runner claims the oldest pending review no live process holds (the lease, ``store.claim``), sends
its first position not yet analysed to the queue as a job of its own (and, when the engine prefers
another move than the one played, the position that move makes, as another), stores the answers and
renews the lease, and so on to the last position; then the review is done. So a worker that dies
costs at most the position it was searching (the queue gives the job to another worker), and a web
process that dies costs its lease's time: another process takes the review up from its last stored
position. A position on the board of a rated game being played waits until it is no longer (fair
play: ``games.fair_play``). While no AI worker runs, or the queue is full, the runner waits and
tries again; a position whose search fails ``ATTEMPTS`` times fails the review (it may be asked for
again)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from functools import partial
from typing import Any, Final

from sqlalchemy import Connection

from bluegray.game import Game
from bluegray.position import Position
from bluegray.web.ai.jobs import (
    AiBusyError,
    AiUnavailableError,
    AnalysisJob,
    AnalysisOutput,
    JobQueue,
    Owner,
)
from bluegray.web.games.fair_play import in_rated_play
from bluegray.web.games.live import LiveGame
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.db import Database
from bluegray.web.platform.settings import Settings
from bluegray.web.review import store
from bluegray.web.review.service import Snapshot

log = logging.getLogger("bluegray.web")

ATTEMPTS: Final = 5
"""How often one position's search may fail before its review fails."""
RETRY_SECONDS: Final = 2.0
"""How soon a position is asked for again after the AI was busy, absent or failed."""


class LostLease(Exception):  # noqa: N818 - a condition of the run, not the program's error
    """Another process drives the review now (this one was too long silent)."""


class ReviewRunners:
    """This process's runners of reviews."""

    def __init__(
        self,
        settings: Settings,
        db: Database,
        queue: JobQueue,
        snapshot: Snapshot,
        process: str,
    ) -> None:
        self.settings = settings
        self.db = db
        self.queue = queue
        self.snapshot = snapshot
        self.process = process
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._held: set[str] = set()

    @property
    def lease_ms(self) -> int:
        return round(self.settings.review_lease_seconds * 1000)

    def wake(self) -> None:
        """A review was asked for here: look for it now, not at the next poll."""
        self._wake.set()

    async def start(self) -> None:
        for index in range(self.settings.review_runners):
            self._tasks.append(
                asyncio.create_task(self._run(), name=f"bluegray-review-runner-{index}")
            )

    async def stop(self) -> None:
        """Stop driving reviews, and let go of the ones held: another process goes on at once."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks.clear()
        for game_id in list(self._held):
            with contextlib.suppress(Exception):
                await self.db.write(partial(store.let_go, game_id=game_id, runner=self.process))
        self._held.clear()

    async def _run(self) -> None:
        while True:
            try:
                game_id = await self.db.write(
                    partial(
                        store.claim, runner=self.process, now_ms=now_ms(), lease_ms=self.lease_ms
                    )
                )
            except Exception as error:  # the database is out: try again at the next poll
                log.warning("reviews: no review claimed (%r)", error)
                game_id = None
            if game_id is None:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.settings.review_poll_seconds)
                continue
            self._held.add(game_id)
            try:
                await self.drive(game_id)
            except LostLease:
                log.info("review of %s: taken up by another process", game_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("review of %s: stopped; another runner takes it up", game_id)
                with contextlib.suppress(Exception):
                    await self.db.write(partial(store.let_go, game_id=game_id, runner=self.process))
                await asyncio.sleep(RETRY_SECONDS)
            finally:
                self._held.discard(game_id)

    async def drive(self, game_id: str) -> None:
        """Analyse the review's positions not yet stored, in order, then mark it done."""
        live = await self.snapshot(game_id)
        positions = live.game.positions()
        done = await self.db.read(lambda session: store.stored_plies(session, game_id))
        moves = tuple(str(move) for move in live.game.moves)
        for ply, position in enumerate(positions):
            if ply in done:
                continue
            await self._out_of_rated_play(game_id, position)
            output = await self._analysis(game_id, self._job(live, moves[:ply]))
            if output is None:
                return
            # When the engine prefers another move, the position it would make is searched too,
            # to the same nodes, as a job of its own: the move played is judged against it.
            best_after = None
            if ply < len(moves) and output.best_move not in (None, moves[ply]):
                after_best = (*moves[:ply], str(output.best_move))
                engines = Game(live.rules, position)
                engines.push(str(output.best_move))
                await self._out_of_rated_play(game_id, engines.position)
                answer = await self._analysis(game_id, self._job(live, after_best))
                if answer is None:
                    return
                best_after = answer.blue_expected
            await self._store(game_id, ply, output, best_after)
        await self.db.write(partial(store.finish, game_id=game_id, now_ms=now_ms()))
        log.info("review of %s: done (%d positions)", game_id, len(positions))

    async def _out_of_rated_play(self, game_id: str, position: Position) -> None:
        """Wait while a rated game being played has ``position`` on its board."""
        while await in_rated_play(self.db, position):
            await self._renew(game_id)
            await asyncio.sleep(self.settings.review_poll_seconds)

    def _job(self, live: LiveGame, moves: tuple[str, ...]) -> AnalysisJob:
        """A review's position: the game after ``moves``, searched to the review's nodes."""
        return AnalysisJob(
            str(live.rules),
            str(live.game.start),
            moves,
            self.settings.review_seconds,
            nodes=self.settings.review_nodes,
            review=True,
        )

    async def _analysis(self, game_id: str, job: AnalysisJob) -> AnalysisOutput | None:
        """The position's analysis, asked for until it comes (``None``: it failed too often,
        and so did the review). The lease is renewed while the job waits and runs."""
        failures = 0
        while True:
            if await self.queue.workers() == 0:
                await self._renew(game_id)
                await asyncio.sleep(RETRY_SECONDS)
                continue
            try:
                return await self._keeping_lease(game_id, self.queue.analyse(job, Owner()))
            except AiBusyError:
                pass
            except (AiUnavailableError, Exception) as error:
                if isinstance(error, LostLease):
                    raise
                failures += 1
                log.warning("review of %s: ply %d failed (%r)", game_id, len(job.moves), error)
                if failures >= ATTEMPTS:
                    why = f"the engine failed on the position after {len(job.moves)} plies"
                    await self.db.write(
                        partial(store.fail, game_id=game_id, why=why, now_ms=now_ms())
                    )
                    return None
            await self._renew(game_id)
            await asyncio.sleep(RETRY_SECONDS)

    async def _keeping_lease(
        self, game_id: str, work: Coroutine[Any, Any, AnalysisOutput]
    ) -> AnalysisOutput:
        """``work``'s answer, the lease renewed every third of its length meanwhile."""
        task = asyncio.ensure_future(work)
        try:
            while True:
                finished, _ = await asyncio.wait({task}, timeout=self.lease_ms / 3000)
                if finished:
                    return task.result()
                await self._renew(game_id)
        finally:
            if not task.done():
                task.cancel()

    async def _renew(self, game_id: str) -> None:
        kept = await self.db.write(
            partial(
                store.renew,
                game_id=game_id,
                runner=self.process,
                now_ms=now_ms(),
                lease_ms=self.lease_ms,
            )
        )
        if not kept:
            raise LostLease(game_id)

    async def _store(
        self, game_id: str, ply: int, output: AnalysisOutput, best_after: float | None
    ) -> None:
        values: dict[str, object] = {
            "game_id": game_id,
            "ply": ply,
            "turn": output.turn.value,
            "blue_expected": output.blue_expected,
            "score": output.score,
            "best_move": output.best_move,
            "best_after": best_after,
            "pv": " ".join(output.pv),
            "depth": output.depth,
            "nodes": output.nodes,
            "plies_to_end": output.plies_to_end,
            "engine": output.engine,
        }

        def stored(connection: Connection) -> bool:
            store.store_position(connection, values)
            return store.renew(connection, game_id, self.process, now_ms(), self.lease_ms)

        if not await self.db.write(stored):
            raise LostLease(game_id)
