"""The process's part in the cluster's work: its heartbeat, the news it hears, the timers it fires
(a clock's flag, an unstarted game's abort, the AI's move, a notice) and its readiness.

The timers themselves are ``deadlines``; the AI's moves go to a ``JobQueue`` (embedded pool, or
workers on Redis); what the routes ask of games is ``service``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from functools import partial
from typing import Final

from sqlalchemy import text
from sqlalchemy.orm import Session

from bluegray.web.ai.jobs import AiBusyError, JobQueue, MoveJob, MoveSink, Owner
from bluegray.web.games import actions
from bluegray.web.games.ai_moves import ai_job, play_ai_move
from bluegray.web.games.live import LiveGame
from bluegray.web.games.outages import credit_outage, credited_flag_at
from bluegray.web.games.runtime import Games
from bluegray.web.games.schemas import AiStatus
from bluegray.web.games.store import timer_values
from bluegray.web.mail.notices import NOTICE_KINDS, Notices
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.db import Database
from bluegray.web.platform.metrics import Metrics
from bluegray.web.platform.schemas import ReadyCheck
from bluegray.web.platform.settings import Settings
from bluegray.web.realtime.bus import Bus, News
from bluegray.web.realtime.presence import PresenceBook
from bluegray.web.realtime.sockets import Hub
from bluegray.web.timers.deadlines import DONE, Due, Timers, Verdict
from bluegray.web.timers.uptime import Outage, note_alive, store_outage

log = logging.getLogger("bluegray.web")

BUSY_RETRY_MS: Final = 3000
"""How soon an AI move refused for being too much work is tried again."""
AI_RETRY_MS: Final = 2000
"""How soon an AI move whose search failed is tried again."""
READY_SECONDS: Final = 2.0
"""How long each readiness check may take."""


class Duties:
    """What this process does for the cluster unasked: it beats, hears the news, fires the
    timers it claims and plays the AI's moves of its games."""

    def __init__(
        self,
        settings: Settings,
        db: Database,
        bus: Bus,
        presence: PresenceBook,
        process: str,
        *,
        games: Games,
        hub: Hub,
        metrics: Metrics,
        make_queue: Callable[[MoveSink], JobQueue],
    ) -> None:
        self.settings = settings
        self.db = db
        self.bus = bus
        self.presence = presence
        self.games = games
        self.hub = hub
        self.metrics = metrics
        self.timers = Timers(
            db,
            process,
            poll_seconds=settings.deadline_poll_seconds,
            live_processes=presence.live_processes,
        )
        self.queue = make_queue(self.apply_ai_move)
        self.timers.on("flag", self._flag_due)
        self.timers.on("ai", self._ai_due)
        self.timers.on("abort", self._abort_due)
        self.notices = Notices(settings, db, games)
        for kind in NOTICE_KINDS:
            self.timers.on(kind, self.notices.due)
        self._heartbeat: asyncio.Task[None] | None = None
        self._catching_up: set[asyncio.Task[None]] = set()
        self._noted_ms: int | None = None
        """When this process last noted its heartbeat in the database."""
        self._store_failed = False
        """Whether its heartbeat failed since (the database was out)."""
        self.on_cluster: Callable[[News], None] | None = None
        """Who hears the cluster's news (not about one game): the lobby."""
        self.on_chat: Callable[[News], None] | None = None
        """Who hears a game's new chat messages: the chat."""

    # -- start and stop ------------------------------------------------------------------------

    async def start(self) -> None:
        """Credit running clocks with any time the whole service was down, then take part in
        the cluster: news, timers, heartbeat."""
        started = now_ms()
        down_after = round(self.settings.heartbeat_seconds * 3000) + 1000
        gap = await self.db.write(partial(credit_outage, started=started, down_after_ms=down_after))
        self._noted_ms = started
        if gap:
            log.info("the service was down for %.1f s: running clocks credited", gap / 1000)
        await self.bus.start(self._hear, self._rejoined)
        await self.presence.beat(started)
        await self.queue.start()
        await self.timers.start()
        self._heartbeat = asyncio.create_task(self._beat(), name="bluegray-heartbeat")

    async def stop(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._heartbeat
        for task in list(self._catching_up):
            task.cancel()
        await self.timers.stop()
        await self.hub.close_all(now_ms())
        await self.queue.close()
        with contextlib.suppress(Exception):
            await self.presence.stop()
        with contextlib.suppress(Exception):
            await self.db.write(partial(note_alive, stamp=now_ms()))
        await self.bus.close()

    async def _beat(self) -> None:
        alive: set[str] = set()
        while True:
            await asyncio.sleep(self.settings.heartbeat_seconds)
            stamp = now_ms()
            try:  # the sockets behind their game's stored version catch up (news may be lost)
                watched = self.hub.watched_games()
                self.hub.expect(await self.games.stored_versions(watched) if watched else {})
            except Exception as error:
                log.error("cannot read the stored versions of the games watched: %r", error)
            # Apart, at once: an outage of Redis is not taken for one of the database, nor
            # does a database that hangs stop this process's beat in Redis (or the reverse).
            _, alive = await asyncio.gather(self._beat_store(stamp), self._beat_here(stamp, alive))

    async def _beat_store(self, stamp: int) -> None:
        """Note the heartbeat in the database, and the database's outage if the last one
        failed (see ``uptime``)."""
        outage = self._outage(stamp)
        try:
            await self.db.write(partial(note_alive, stamp=stamp, outage=outage))
        except Exception as error:
            if not self._store_failed:
                log.error("cannot note the heartbeat in the database: %r", error)
            self._store_failed = True
            return
        if outage is not None:
            log.info("the database was out for %.1f s", (outage[1] - outage[0]) / 1000)
        self._noted_ms, self._store_failed = stamp, False

    def _outage(self, now: int) -> Outage | None:
        """The database's outage this process saw, until ``now`` (``None``: none)."""
        if not self._store_failed or self._noted_ms is None:
            return None
        return self._noted_ms, now

    async def _beat_here(self, stamp: int, alive: set[str]) -> set[str]:
        """Beat in the presence book; the processes alive now (``alive`` if unknown)."""
        try:
            await self.presence.beat(stamp)
            now_alive = set(await self.presence.live_processes(stamp))
            if alive - now_alive:  # a process died: its sockets' seats are away now
                await self._republish_presence()
            await self.games.republish()  # what could not be published before
            self.metrics.ai_queue_depth.set(await self.queue.depth())
            self.metrics.ai_workers.set(await self.queue.workers())
        except Exception as error:
            log.error("cannot note the heartbeat: %r", error)
            return alive
        return now_alive

    async def _republish_presence(self) -> None:
        for game_id in self.hub.watched_games():
            try:
                await self.games.publish_presence(game_id)
            except Exception as error:
                log.warning("cannot publish the presence of game %s: %r", game_id, error)

    def _rejoined(self) -> None:
        """The bus has Redis again: whatever other processes published meanwhile was lost."""
        task = asyncio.create_task(self._catch_up(), name="bluegray-catch-up")
        self._catching_up.add(task)
        task.add_done_callback(self._catching_up.discard)

    async def _catch_up(self) -> None:
        """Publish again what this process could not, give every socket the state it missed,
        and once every process has had the time to write its presence again (if Redis lost
        it), tell every socket who is connected."""
        await self.games.republish()
        await self.hub.resync()
        await asyncio.sleep(self.settings.heartbeat_seconds * 3 + 1)  # presence is rewritten
        await self._republish_presence()

    def _hear(self, news: News) -> None:
        if news.kind == "cluster":
            if self.on_cluster is not None:
                self.on_cluster(news)
            return
        if news.kind == "chat":
            if self.on_chat is not None:
                self.on_chat(news)
            return
        self.games.heard(news)
        self.hub.deliver(news)

    # -- the cluster's timers ------------------------------------------------------------------

    def expect_timers(self, live: LiveGame) -> None:
        """Wake up on time for the timers a game just stored here has set."""
        timers = timer_values(live, self.games.first_move_ms)
        self.timers.expect(timer["due_ms"] for timer in timers)
        if live.is_over():  # a tournament's game may have made its timer due
            self.timers.expect([now_ms()])

    async def store_outage(self) -> Outage | None:
        """The database's last outage: the one this process saw and has not noted yet (it is
        just back), else the last one noted (see ``uptime``)."""
        seen = self._outage(now_ms())
        return seen if seen is not None else await self.db.read(store_outage)

    async def _flag_due(self, due: Due) -> Verdict:
        outage = await self.store_outage()
        credited = credited_flag_at((await self.games.get(due.subject)).live, outage)
        if credited is not None and now_ms() < credited:
            return Verdict(again_at_ms=credited)  # no move could be stored: it falls later
        stored = await self.games.change(due.subject, lambda live: actions.flag(live, now_ms()))
        if stored is not None:
            return DONE
        live = (await self.games.get(due.subject)).live
        flag_at = live.deadline_ms()
        if flag_at is not None and live.version == due.version and flag_at > due.due_ms:
            return Verdict(again_at_ms=flag_at)  # the clock was credited: it falls later
        return DONE

    async def _abort_due(self, due: Due) -> Verdict:
        """A side of a game between two people has not made its first move in time: the game
        is aborted (unrated, nobody's loss). A game that moved on has its own timers now."""
        first_move_ms = self.games.first_move_ms
        stored = await self.games.change(
            due.subject, lambda live: actions.abort_unstarted(live, now_ms(), first_move_ms)
        )
        if stored is None:
            live = (await self.games.get(due.subject)).live
            due_at = live.abort_at(first_move_ms)
            if due_at is not None and live.version == due.version and due_at > due.due_ms:
                return Verdict(again_at_ms=due_at)
        return DONE

    async def _ai_due(self, due: Due) -> Verdict:
        live = (await self.games.get(due.subject)).live
        if live.version != due.version or not live.ai_to_move():
            return DONE  # the game moved on: its own timers say what is due now
        seat = live.seats[live.game.turn.other]
        owner = Owner(browser=seat.browser_hash, address=seat.address_hash)
        try:
            playing = await self.queue.submit_move(ai_job(live), owner)
        except AiBusyError:
            if due.note != "busy":
                await self.games.note_ai(live.id, live.version, "busy")
            return Verdict(again_at_ms=now_ms() + BUSY_RETRY_MS)
        if playing is not None:  # played here: wait for it
            if due.note is not None:
                await self.games.note_ai(live.id, live.version, "thinking")
            try:
                await playing
            except Exception as error:
                log.error("the AI of game %s failed: %r; trying again", live.id, error)
                return Verdict(again_at_ms=now_ms() + AI_RETRY_MS)
            level = str(live.ai_level)
            self.metrics.ai_reply_seconds.labels(level).observe((now_ms() - due.due_ms) / 1000)
            return DONE
        # A worker will play it. Look again shortly (the job is queued once however often it
        # is submitted): when no worker is alive by then, the game says so.
        status: AiStatus = "thinking"
        if due.holder is not None and not await self.queue.workers():
            status = "unavailable"
        if (due.note or "thinking") != status:
            await self.games.note_ai(live.id, live.version, status)
        wait = round(self.settings.ai_unavailable_seconds * 1000)
        return Verdict(hold_until_ms=now_ms() + wait)

    async def apply_ai_move(self, job: MoveJob, move: str, computed_by: str) -> None:
        if await play_ai_move(self.games, job, move, computed_by):
            self.metrics.moves.labels("ai").inc()

    # -- operations ----------------------------------------------------------------------------

    async def readiness(self) -> list[ReadyCheck]:
        """Whether this process can serve players: its database, Redis, and AI workers."""
        checks = []
        try:
            await asyncio.wait_for(self.db.read(_ping), READY_SECONDS)
            checks.append(ReadyCheck(name="database", ok=True, detail="answers"))
        except Exception as error:
            checks.append(ReadyCheck(name="database", ok=False, detail=_reason(error)))
        if self.settings.scaled:
            try:
                await asyncio.wait_for(self.presence.live_processes(now_ms()), READY_SECONDS)
                checks.append(ReadyCheck(name="redis", ok=True, detail="answers"))
            except Exception as error:
                checks.append(ReadyCheck(name="redis", ok=False, detail=_reason(error)))
        try:
            workers = await asyncio.wait_for(self.queue.workers(), READY_SECONDS)
        except Exception as error:
            checks.append(ReadyCheck(name="workers", ok=False, detail=_reason(error)))
        else:
            where = "in this process" if self.queue.name == "embedded" else "in the cluster"
            detail = (
                f"{workers} engine processes {where}"
                if workers
                else "no AI worker is running: start 'bluegray worker'; AI games wait for one"
            )
            checks.append(ReadyCheck(name="workers", ok=workers > 0, detail=detail))
        return checks


def _ping(session: Session) -> None:
    session.execute(text("SELECT 1"))


def _reason(error: BaseException) -> str:
    if isinstance(error, TimeoutError):
        return f"no answer in {READY_SECONDS:g} s"
    return f"{type(error).__name__}: {error}".splitlines()[0][:200]
