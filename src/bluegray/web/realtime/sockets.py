"""The sockets of this process: who is connected to which game, and handing them the news.

Each connection has its own outgoing queue and sender task, so one slow client never delays a
broadcast to the others; a client that falls too far behind is disconnected and, when it comes
back, resynchronises from the full state.

News of a game's states reaches the hub from this process and from the others in any order, so
the hub passes them on in version order: a state older than what a socket has is dropped, and a
gap (version 7 arriving before 6) waits briefly for the missing one, then re-reads the game from
the database. A process never shows a socket anything older than what it has shown it.

News lost while Redis was away is made good when the bus is back (``resync``): every watched
game is read again from the database, and each socket sent the state it has not seen. And at
every heartbeat the stored versions of the watched games are compared with what their sockets
have (``expect``), so that news lost for any reason costs at most a heartbeat's wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import Final

from starlette.websockets import WebSocket

from bluegray.pieces import Side
from bluegray.web.realtime.bus import Bus, News
from bluegray.web.realtime.presence import PresenceBook

QUEUE_LIMIT: Final = 256
"""Messages waiting for one client before it counts as gone."""
CLOSE_TOO_SLOW: Final = 4408
CLOSE_RESTARTING: Final = 1012
"""The process is stopping (a deploy, a restart): the client reconnects at once, elsewhere."""
RESYNC_AT_ONCE: Final = 8
"""Games read again at the same time when resynchronising."""
GAP_SECONDS: Final = 0.3
"""How long a missing version may take to arrive before the game is read again."""

log = logging.getLogger("bluegray.web")

Reread = Callable[[str], Awaitable[tuple[int, str]]]
"""The current version of a game and its state message, read from the database."""


class Connection:
    """One WebSocket of one game: a player's (``sides`` not empty) or a spectator's."""

    def __init__(
        self,
        websocket: WebSocket,
        game_id: str,
        sides: frozenset[Side],
        account_id: int | None = None,
    ) -> None:
        self.websocket = websocket
        self.game_id = game_id
        self.sides = sides
        self.account_id = account_id
        """The account of whoever holds the socket (``None``: nobody logged in), whose own
        choices (mutes, the chat turned off) filter the chat it is sent."""
        self.version = 0
        """The version of the last state sent."""
        self.state_text = ""
        """The last state sent."""
        self._queue: asyncio.Queue[str | None] = asyncio.Queue(QUEUE_LIMIT)
        self._sender: asyncio.Task[None] | None = None
        self._closer: asyncio.Task[None] | None = None
        self.closed = False

    def start(self) -> None:
        if self._sender is None:
            self._sender = asyncio.create_task(self._send_loop())

    def send(self, text: str) -> None:
        """Queue a message; a client too far behind is disconnected."""
        if self.closed:
            return
        try:
            self._queue.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("closing a WebSocket of game %s: the client is too slow", self.game_id)
            self.closed = True
            self._closer = asyncio.create_task(self._close(CLOSE_TOO_SLOW))

    def send_state(self, version: int, text: str) -> None:
        """Queue a state message unless this socket has seen that version or a later one."""
        if version > self.version:
            self.version = version
            self.state_text = text
            self.send(text)

    async def _close(self, code: int) -> None:
        with contextlib.suppress(Exception):
            await self.websocket.close(code)

    async def _send_loop(self) -> None:
        try:
            while True:
                text = await self._queue.get()
                if text is None:
                    return
                await self.websocket.send_text(text)
        except Exception:  # the socket is gone: the receiving side notices and cleans up
            self.closed = True

    async def stop(self) -> None:
        """Send what is queued (briefly), then stop the sender."""
        self.closed = True
        if self._sender is None:
            return
        with contextlib.suppress(asyncio.QueueFull):
            self._queue.put_nowait(None)
        try:
            await asyncio.wait_for(self._sender, timeout=1.0)
        except (TimeoutError, asyncio.CancelledError, Exception):
            self._sender.cancel()


class _Order:
    """One watched game's states in version order: the last one passed on, and those that came
    early."""

    def __init__(self) -> None:
        self.version = 0
        self.text = ""
        self.waiting: dict[int, News] = {}
        self.gap: asyncio.TimerHandle | None = None


class Hub:
    """Every open game socket of this process, by game."""

    def __init__(self, bus: Bus, presence: PresenceBook, reread: Reread) -> None:
        self.bus = bus
        self.presence = presence
        self.reread = reread
        self._games: dict[str, set[Connection]] = defaultdict(set)
        self._order: dict[str, _Order] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._behind: set[str] = set()
        """Games found behind their stored version, looked at again in a moment."""
        self.gaps = 0
        """Gaps that had to be filled by reading the game again (for tests and metrics)."""

    # -- membership --------------------------------------------------------------------------

    async def watch(self, game_id: str) -> None:
        """Make sure this process receives the game's news; call it before a new socket reads
        the game's state, so that no change can slip between the two."""
        if game_id not in self._order:
            self._order[game_id] = _Order()
            await self.bus.watch(game_id)

    async def unwatch_idle(self, game_id: str) -> None:
        """Stop receiving a game's news if no socket here is on it."""
        if self._games.get(game_id):
            return
        self._games.pop(game_id, None)
        order = self._order.pop(game_id, None)
        if order is not None:
            if order.gap is not None:
                order.gap.cancel()
            with contextlib.suppress(Exception):
                await self.bus.unwatch(game_id)

    async def add(self, connection: Connection) -> None:
        """A socket that has been sent its game's state (``connection.version``), on a watched
        game: it also gets any later state that came meanwhile."""
        game_id = connection.game_id
        await self.watch(game_id)
        self._games[game_id].add(connection)
        order = self._order[game_id]
        if order.version > connection.version:
            connection.send_state(order.version, order.text)
        elif connection.version > order.version:  # the socket read a newer state than came here:
            # the others have not seen it either (its news was missed, or is late)
            self._send_state(game_id, order, connection.version, connection.state_text)
        connection.start()
        await self.presence.arrive(game_id, connection.sides)

    async def remove(self, connection: Connection, now_ms: int) -> None:
        game_id = connection.game_id
        members = self._games.get(game_id)
        if members is None or connection not in members:
            return
        members.discard(connection)
        await self.unwatch_idle(game_id)
        await self.presence.leave(game_id, connection.sides, now_ms)

    def connections(self, game_id: str) -> list[Connection]:
        """The sockets on a game here."""
        return list(self._games.get(game_id, ()))

    def has_connections(self, game_id: str) -> bool:
        return bool(self._games.get(game_id))

    def sides_held(self, game_id: str) -> frozenset[Side]:
        """The sides of a game with a socket open here."""
        members = self._games.get(game_id, ())
        return frozenset(side for member in members if not member.closed for side in member.sides)

    def watched_games(self) -> list[str]:
        """The games with a socket here."""
        return [game_id for game_id, members in self._games.items() if members]

    def connection_count(self) -> int:
        return sum(len(members) for members in self._games.values())

    # -- news --------------------------------------------------------------------------------

    def deliver(self, news: News) -> None:
        """Hand news to this process's sockets on its game (states in version order)."""
        order = self._order.get(news.game_id)
        if order is None:
            return
        if news.kind != "state":
            for connection in list(self._games.get(news.game_id, ())):
                connection.send(news.text)
            return
        if news.version <= order.version:
            return
        if news.version > order.version + 1 and order.version > 0:
            order.waiting[news.version] = news
            if order.gap is None:
                order.gap = asyncio.get_running_loop().call_later(
                    GAP_SECONDS, self._fill_gap, news.game_id
                )
            return
        self._send_state(news.game_id, order, news.version, news.text)
        while order.version + 1 in order.waiting:
            waiting = order.waiting.pop(order.version + 1)
            self._send_state(news.game_id, order, waiting.version, waiting.text)
        if not order.waiting and order.gap is not None:
            order.gap.cancel()
            order.gap = None

    def _send_state(self, game_id: str, order: _Order, version: int, text: str) -> None:
        order.version = version
        order.text = text
        for connection in list(self._games.get(game_id, ())):
            connection.send_state(version, text)

    def _fill_gap(self, game_id: str) -> None:
        order = self._order.get(game_id)
        if order is None:
            return
        order.gap = None
        if not order.waiting:
            return
        self.gaps += 1
        log.warning(
            "game %s: version %d did not come (%s came): reading the game again",
            game_id,
            order.version + 1,
            ", ".join(str(version) for version in sorted(order.waiting)),
        )
        task = asyncio.create_task(self._reread(game_id, order))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _reread(self, game_id: str, order: _Order) -> None:
        try:
            version, text = await self.reread(game_id)
        except Exception as error:
            log.error("cannot read game %s again after a gap: %r", game_id, error)
            return
        if version > order.version:
            self._send_state(game_id, order, version, text)
        for stale in [v for v in order.waiting if v <= order.version]:
            del order.waiting[stale]
        while order.version + 1 in order.waiting:
            waiting = order.waiting.pop(order.version + 1)
            self._send_state(game_id, order, waiting.version, waiting.text)
        if order.waiting and order.gap is None:
            order.gap = asyncio.get_running_loop().call_later(GAP_SECONDS, self._fill_gap, game_id)

    def expect(self, versions: dict[str, int]) -> None:
        """The stored versions of watched games (read at every heartbeat): a game whose sockets
        are still behind a moment later is read again (its news was lost: Redis was away or
        paused when it was published, or the process that made it died before publishing)."""
        for game_id, version in versions.items():
            order = self._order.get(game_id)
            if order is not None and version > order.version and game_id not in self._behind:
                self._behind.add(game_id)
                asyncio.get_running_loop().call_later(
                    GAP_SECONDS, self._check_behind, game_id, order, version
                )

    def _check_behind(self, game_id: str, order: _Order, version: int) -> None:
        self._behind.discard(game_id)
        if self._order.get(game_id) is not order or order.version >= version:
            return  # the news came meanwhile
        self.gaps += 1
        log.warning("game %s: version %d did not come: reading the game again", game_id, version)
        task = asyncio.create_task(self._reread(game_id, order))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def resync(self) -> None:
        """Read every watched game again and send each socket the state it has not seen (after
        the bus lost Redis: news of other processes may have been lost meanwhile)."""
        limit = asyncio.Semaphore(RESYNC_AT_ONCE)

        async def one(game_id: str, order: _Order) -> None:
            async with limit:
                if self._order.get(game_id) is order:
                    await self._reread(game_id, order)

        games = list(self._order.items())
        await asyncio.gather(*(one(game_id, order) for game_id, order in games))
        log.info("read %d watched games again", len(games))

    async def close_all(self, now_ms: int) -> None:
        """Close every socket as the process stops: its client reconnects at once, to
        another process."""
        members = [member for group in self._games.values() for member in group]
        for member in members:
            with contextlib.suppress(Exception):
                await member.websocket.close(CLOSE_RESTARTING)
            await member.stop()
            with contextlib.suppress(Exception):
                await self.remove(member, now_ms)
