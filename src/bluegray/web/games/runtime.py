"""The games a process holds, and the one way a game changes: on a copy, committed at a known
version, then published.

A change is made on a copy of the game, written to the database only if the stored game is still
at the version the copy was made from, and only then adopted and published on the bus; a change
that is refused (an illegal move, a stale version) leaves nothing behind. Any process can change
any game: the version check in the database picks the one change that wins, wherever it was made.
A process that finds its copy stale (the write conflicts, or news of a newer version arrives)
reads the game again; when several processes share the database it also checks the stored
version before answering from its copy.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Final

from sqlalchemy import Connection, select
from sqlalchemy.orm import Session

from bluegray.errors import BlueGrayError
from bluegray.pieces import Side
from bluegray.web.games.live import LiveGame
from bluegray.web.games.messages import AiMessage, PresenceMessage, StateMessage
from bluegray.web.games.rows import GameRow
from bluegray.web.games.schemas import AiStatus, GameEvent, GameState
from bluegray.web.games.store import (
    Save,
    apply_save,
    change_save,
    game_values,
    live_after,
    load_game,
    new_game_save,
    save_text,
)
from bluegray.web.games.view import claim_win_at, game_state, seats_view
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.db import ConflictError, Database
from bluegray.web.platform.logs import game_id_var
from bluegray.web.platform.refusals import Conflict, Refusal, Unavailable, from_library, not_found
from bluegray.web.realtime.bus import Bus, BusUnavailableError, News
from bluegray.web.realtime.presence import UNKNOWN, Presence, PresenceBook
from bluegray.web.timers.deadlines import set_timer_note, timer_note

log = logging.getLogger("bluegray.web")

PRESENCE_KEEP_MS: Final = 2000
"""How long a watched game's presence, once read, is shown without reading it again."""
PRESENCE_RETRY_MS: Final = 1000
"""After presence could not be read, how long it is shown as last known without trying."""
CACHE_LIMIT: Final = 2000
VERSIONS_AT_ONCE: Final = 500
"""Games whose stored versions one query reads."""
"""Games kept in memory; idle ones beyond this are dropped (they are all in the database)."""

Change = Callable[[LiveGame], GameEvent | None]


@dataclass
class Runtime:
    """A game loaded in this process, with the lock that makes its changes here one at a
    time."""

    live: LiveGame
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    used: float = field(default_factory=time.monotonic)
    stale: bool = False
    """News of a newer version came from another process: read the game again before use."""


@dataclass(frozen=True)
class Stored:
    """A change as it was committed: the game just after it (later changes make new copies,
    so this one stays as it was) and the event it announced."""

    live: LiveGame
    event: GameEvent


class Games:
    """The games of this process: loaded on demand, changed one way, published after commit."""

    def __init__(
        self,
        db: Database,
        bus: Bus,
        presence: PresenceBook,
        process: str,
        *,
        abandon_ms: int,
        shared: bool,
        on_stored: Callable[[LiveGame], None] | None = None,
        on_end: Callable[[Connection, LiveGame], None] | None = None,
        first_move_ms: int | None = None,
    ) -> None:
        self.db = db
        self.bus = bus
        self.presence = presence
        self.process = process
        self.abandon_ms = abandon_ms
        self.shared = shared
        """Whether other processes change the same games (then stored versions are checked)."""
        self.on_stored = on_stored
        self.on_end = on_end
        self.first_move_ms = first_move_ms
        """How long a side of a game between two people has for its first move before the game
        is aborted (``None``: no limit)."""
        """More to write in the transaction that stores a game's end (the ratings): it may set
        fields of the game, which are written with it."""
        self._games: dict[str, Runtime] = {}
        self.idle: Callable[[str], bool] = lambda game_id: True
        """Whether a game may leave the cache (set by the app: no socket on it here)."""
        self.watched: Callable[[str], bool] = lambda game_id: False
        """Whether this process receives a game's news (set by the app: a socket on it here)."""
        self.held: Callable[[str], frozenset[Side]] = lambda game_id: frozenset()
        """The sides of a game with a socket open in this process (set by the app)."""
        self._presences: dict[str, tuple[int, Presence]] = {}
        self._presence_failed = -PRESENCE_RETRY_MS
        self._unpublished: dict[str, None] = {}
        """Games whose latest state could not be published (Redis was away): published again
        at the next heartbeat."""

    # -- loading -------------------------------------------------------------------------------

    async def get(self, game_id: str, *, fresh: bool = True) -> Runtime:
        """A game, from this process's copy or the database. With ``fresh`` (and other
        processes about), the copy is checked against the stored version first."""
        game_id_var.set(game_id)
        runtime = self._games.get(game_id)
        if runtime is None:
            return await self._load(game_id, None)
        runtime.used = time.monotonic()
        if not runtime.stale:
            if not (fresh and self.shared):
                return runtime
            stored = await self.db.read(lambda session: _version(session, game_id))
            if stored == runtime.live.version:
                return runtime
            if stored is None:
                self._games.pop(game_id, None)
                raise not_found(f"game {game_id!r}")
        return await self._load(game_id, runtime.live)

    async def _load(self, game_id: str, base: LiveGame | None) -> Runtime:
        """Read the game (from ``base``, an older copy, playing only the moves it lacks)."""
        live = await self.db.read(lambda session: load_game(session, game_id, base))
        if live is None:
            raise not_found(f"game {game_id!r}")
        runtime = self._games.get(game_id)
        if runtime is not None and runtime.live.version >= live.version and not runtime.stale:
            return runtime  # loaded meanwhile by another request
        if runtime is not None:
            runtime.live = live  # keep the lock: a change may be waiting on it
            runtime.stale = False
        else:
            runtime = self._games[game_id] = Runtime(live)
            self._evict()
        return runtime

    def heard(self, news: News) -> None:
        """News from another process: a newer version makes this process's copy stale (or, with
        the rows written, brings it up to date); a presence change drops what was read of it."""
        if news.kind == "presence":
            self._presences.pop(news.game_id, None)
            return
        if news.kind != "state" or news.origin == self.process:
            return
        runtime = self._games.get(news.game_id)
        if runtime is None or runtime.live.version >= news.version:
            return
        if (
            news.change
            and runtime.live.version == news.version - 1
            and not runtime.stale
            and not runtime.lock.locked()
        ):
            try:  # the rows the database got, applied here: no need to read them back
                runtime.live = live_after(runtime.live, news.change)
                return
            except Exception as error:
                log.warning(
                    "cannot apply version %d of game %s: %r", news.version, news.game_id, error
                )
        runtime.stale = True

    def _evict(self) -> None:
        if len(self._games) <= CACHE_LIMIT:
            return
        idle = sorted(
            (
                runtime
                for game_id, runtime in self._games.items()
                if not runtime.lock.locked() and self.idle(game_id)
            ),
            key=lambda runtime: runtime.used,
        )
        for runtime in idle[: len(self._games) - CACHE_LIMIT]:
            del self._games[runtime.live.id]
            self._presences.pop(runtime.live.id, None)

    def cached(self) -> int:
        return len(self._games)

    # -- views ---------------------------------------------------------------------------------

    async def presence_of(self, game_id: str, *, exact: bool = False) -> Presence:
        """Who is at a game. A game this process watches keeps what was read for a moment
        (every change of presence is news that drops it), so that publishing a move does not
        cost a read; ``exact`` reads it anyway. When presence cannot be read, or Redis has
        just lost it, it is what was last known (or unknown: connected), not certain: nobody
        is away then. A seat with a socket in this process is connected, whatever Redis
        says."""
        now = now_ms()
        kept = self._presences.get(game_id)
        if kept is not None and not exact and now - kept[0] < PRESENCE_KEEP_MS:
            return kept[1].with_connected(self.held(game_id))
        try:
            if now - self._presence_failed < PRESENCE_RETRY_MS:
                raise TimeoutError("presence could not be read a moment ago")
            presence = await self.presence.read(game_id, now)
        except Exception as error:
            if now - self._presence_failed >= PRESENCE_RETRY_MS:
                log.warning("cannot read the presence of game %s: %r", game_id, error)
                self._presence_failed = now
            presence = UNKNOWN if kept is None else kept[1].uncertain()
            return presence.with_connected(self.held(game_id))
        if not presence.certain:  # Redis lost presence: who was connected may still be
            presence = presence.with_connected((UNKNOWN if kept is None else kept[1]).connected)
        if self.watched(game_id):
            self._presences[game_id] = (now, presence)
        return presence.with_connected(self.held(game_id))

    async def claim_presence(self, game_id: str) -> Presence:
        """Who is at a game, read exactly, to judge a claim that a player left: a presence that
        cannot be told for certain refuses the claim (503), it never grants it."""
        presence = await self.presence_of(game_id, exact=True)
        if not presence.certain:
            raise Unavailable(
                "presence_unavailable",
                "who is connected to this game cannot be told right now: try again in a few "
                "seconds",
            )
        return presence

    async def state(
        self, live: LiveGame, *, ai_status: AiStatus | None = None, stored_note: bool = True
    ) -> GameState:
        """The game as clients see it; the AI's status is read from its timer unless given (or
        unless ``stored_note`` is false: the game has just been stored, nothing holds the AI
        up yet)."""
        if ai_status is None and stored_note and live.ai_to_move():
            ai_status = await self.ai_note(live.id)
        return game_state(
            live,
            await self.presence_of(live.id),
            now_ms(),
            abandon_ms=self.abandon_ms,
            ai_status=ai_status,
        )

    async def state_message(
        self, live: LiveGame, event: GameEvent | None = None, *, stored_note: bool = True
    ) -> str:
        state = await self.state(live, stored_note=stored_note)
        message = StateMessage(version=state.version, event=event, game=state)
        return message.model_dump_json()

    async def current(self, game_id: str) -> tuple[int, str]:
        """The game's stored version and its state message (with its last event)."""
        live = (await self.get(game_id)).live
        event = None if live.last_event is None else GameEvent.model_validate_json(live.last_event)
        return live.version, await self.state_message(live, event)

    async def stored_versions(self, game_ids: list[str]) -> dict[str, int]:
        """The stored version of each of these games (those that exist)."""
        versions: dict[str, int] = {}
        for start in range(0, len(game_ids), VERSIONS_AT_ONCE):
            chunk = game_ids[start : start + VERSIONS_AT_ONCE]
            versions.update(await self.db.read(partial(_versions, game_ids=chunk)))
        return versions

    async def ai_note(self, game_id: str) -> AiStatus | None:
        note = await self.db.read(lambda session: timer_note(session, "ai", game_id))
        return note if note in ("busy", "unavailable") else None  # type: ignore[return-value]

    # -- news ----------------------------------------------------------------------------------

    async def publish_presence(self, game_id: str) -> None:
        runtime = self._games.get(game_id)
        if runtime is None:
            runtime = await self.get(game_id)
        live = runtime.live
        presence = await self.presence_of(game_id, exact=True)
        message = PresenceMessage(
            version=live.version,
            seats=seats_view(live, presence),
            spectators=presence.spectators,
            claim_win_at_ms=claim_win_at(live, presence, self.abandon_ms),
        )
        await self.bus.publish(
            News("presence", game_id, live.version, self.process, message.model_dump_json())
        )

    async def publish_ai(self, game_id: str, version: int, status: AiStatus) -> None:
        """Tell every socket of the game what the AI is doing (what they miss while Redis is
        away, the state says when they read it again)."""
        text = AiMessage(version=version, status=status).model_dump_json()
        try:
            await self.bus.publish(News("ai", game_id, version, self.process, text))
        except BusUnavailableError as error:
            log.warning("cannot publish the AI's status in game %s: %s", game_id, error)

    async def note_ai(self, game_id: str, version: int, status: AiStatus) -> None:
        """Say (durably, and to every socket) what holds up the AI's move in a game."""
        note = None if status == "thinking" else status
        await self.db.write(
            lambda connection: set_timer_note(connection, "ai", game_id, version, note)
        )
        await self.publish_ai(game_id, version, status)

    # -- changing ------------------------------------------------------------------------------

    async def add(
        self,
        live: LiveGame,
        listings: list[tuple[str, str]],
        also: Callable[[Connection], None] | None = None,
    ) -> None:
        """Store a new game (``also``: more to do in its transaction, which may refuse it by
        raising: then nothing is stored)."""
        save = new_game_save(live, listings, self.first_move_ms)

        def write(connection: Connection) -> None:
            if also is not None:
                also(connection)
            apply_save(connection, save)

        await self.db.write(write)
        self._games[live.id] = Runtime(live)
        self._evict()
        if self.on_stored is not None:
            self.on_stored(live)

    async def add_many(self, lives: list[LiveGame], also: Callable[[Connection], None]) -> None:
        """Store new games in one transaction with ``also`` (which may refuse them all by
        raising: then nothing is stored): a tournament's round."""
        saves = [new_game_save(live, [], self.first_move_ms) for live in lives]

        def write(connection: Connection) -> None:
            for save in saves:
                apply_save(connection, save)
            also(connection)  # after the games: its rows refer to them

        await self.db.write(write)
        for live in lives:
            self._games[live.id] = Runtime(live)
            if self.on_stored is not None:
                self.on_stored(live)
        self._evict()

    async def change(
        self,
        game_id: str,
        change: Change,
        *,
        version: int | None = None,
        seats_changed: bool = False,
        listings_for: str | None = None,
        extra: Callable[[LiveGame], list[Save]] | None = None,
        after_store: Callable[[LiveGame], None] | None = None,
    ) -> Stored | None:
        """Apply ``change`` to a copy of the game, commit it, adopt it, publish it. ``change``
        raises ``Refusal`` to refuse; it returns the event to announce (``None``: nothing
        changed). If another process changed the game first, the change is tried once more on
        the stored game (a change made at a given ``version`` is refused instead)."""
        for attempt in (1, 2):
            # A change that needs no particular version decides on what it reads: when other
            # processes change games too, it reads the stored game. One at a given version can
            # start from this process's copy (the write checks it) unless the copy is older.
            fresh = self.shared and (attempt == 2 or version is None)
            runtime = await self.get(game_id, fresh=fresh)
            if self.shared and not fresh and version is not None and version > runtime.live.version:
                continue  # the client has seen a newer version than this copy: read it again
            try:
                return await self._change(
                    runtime, change, version, seats_changed, listings_for, extra, after_store
                )
            except ConflictError:
                runtime.stale = True  # another process changed it first
                if attempt == 2 or version is not None:
                    stored = await self.get(game_id)
                    raise Conflict(
                        "stale_version",
                        f"the game is at version {stored.live.version}, not {version}: "
                        "here is the current state",
                        {"version": stored.live.version},
                    ) from None
        raise AssertionError("unreachable")

    async def _change(
        self,
        runtime: Runtime,
        change: Change,
        version: int | None,
        seats_changed: bool,
        listings_for: str | None,
        extra: Callable[[LiveGame], list[Save]] | None,
        after_store: Callable[[LiveGame], None] | None,
    ) -> Stored | None:
        async with runtime.lock:
            before = runtime.live
            if version is not None and version != before.version:
                raise Conflict(
                    "stale_version",
                    f"the game is at version {before.version}, not {version}: "
                    "here is the current state",
                    {"version": before.version},
                )
            after = before.copy()
            try:
                event = change(after)
            except BlueGrayError as error:
                raise from_library(error) from None
            if event is None:
                return None
            now = now_ms()
            after.version = before.version + 1
            after.updated_ms = now
            after.sync_status()
            after.sync_deadline(now)
            if after.is_over() and after.clock is not None and after.clock.running is not None:
                after.clock = after.clock.switched(None, now)
            if after.is_over():
                after.draw_offer = after.takeback_offer = None
            after.last_event = event.model_dump_json(exclude_none=True)
            listings = []
            if listings_for is not None:
                side = next(
                    (s for s, seat in after.seats.items() if seat.browser_hash == listings_for),
                    None,
                )
                listings = [(listings_for, "viewer" if side is None else side.value)]
            saves = [
                change_save(
                    before,
                    after,
                    seats_changed=seats_changed,
                    listings=listings,
                    first_move_ms=self.first_move_ms,
                )
            ]
            if extra is not None:
                saves.extend(extra(after))

            ending = self.on_end if after.is_over() and not before.is_over() else None

            def write(connection: Connection) -> None:
                if ending is not None:
                    ending(connection, after)
                    saves[0].game.update(game_values(after))
                for save in saves:
                    apply_save(connection, save)

            await self.db.write(write)
            runtime.live = after
            if self.on_stored is not None:
                self.on_stored(after)
            if after_store is not None:
                after_store(after)
            await self._publish(after, event, save_text(saves[0]))
            return Stored(after, event)

    async def _publish(self, after: LiveGame, event: GameEvent, change: str) -> None:
        """Publish a committed change. It is stored, so it stands whatever happens here: a
        failure to publish is logged and the game's state published again at the next
        heartbeat (``republish``); the other processes also read their games again when their
        bus comes back, and the clients get the whole state when they reconnect."""
        try:
            text = await self.state_message(after, event, stored_note=False)
            news = News("state", after.id, after.version, self.process, text, change)
            await self.bus.publish(news)
        except Exception as error:
            self._unpublished[after.id] = None
            log.error("cannot publish version %d of game %s: %r", after.version, after.id, error)
        else:
            self._unpublished.pop(after.id, None)

    async def republish(self) -> None:
        """Publish again the state of every game whose last publication failed (the news of
        a stored version that other processes may not have)."""
        for game_id in list(self._unpublished):
            try:
                version, text = await self.current(game_id)
                await self.bus.publish(News("state", game_id, version, self.process, text))
            except Refusal:  # the game is gone: nothing to publish
                pass
            except Exception as error:
                log.warning("cannot publish game %s again yet: %r", game_id, error)
                return  # Redis (or the database) is still away: the next heartbeat tries again
            self._unpublished.pop(game_id, None)


def _version(session: Session, game_id: str) -> int | None:
    return session.scalar(select(GameRow.version).where(GameRow.id == game_id))


def _versions(session: Session, game_ids: list[str]) -> dict[str, int]:
    rows = session.execute(select(GameRow.id, GameRow.version).where(GameRow.id.in_(game_ids)))
    return {str(game_id): int(version) for game_id, version in rows}
