"""The WebSocket hub: who is connected to which game, and sending them messages.

Each connection has its own outgoing queue and sender task, so one slow client never delays a
broadcast to the others; a client that falls too far behind is disconnected and, when it comes
back, resynchronises from the full state.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from typing import Final

from starlette.websockets import WebSocket

from bluegray.pieces import Side
from bluegray.web.live import Presence

QUEUE_LIMIT: Final = 256
"""Messages waiting for one client before it counts as gone."""
CLOSE_TOO_SLOW: Final = 4408

log = logging.getLogger("bluegray.web")


class Connection:
    """One WebSocket of one game: a player's (``sides`` not empty) or a spectator's."""

    def __init__(self, websocket: WebSocket, game_id: str, sides: frozenset[Side]) -> None:
        self.websocket = websocket
        self.game_id = game_id
        self.sides = sides
        self._queue: asyncio.Queue[str | None] = asyncio.Queue(QUEUE_LIMIT)
        self._sender: asyncio.Task[None] | None = None
        self._closer: asyncio.Task[None] | None = None
        self.closed = False

    def start(self) -> None:
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


class Hub:
    """Every open game socket, by game; and since when each seat has had no connection."""

    def __init__(self, started_ms: int) -> None:
        self.started_ms = started_ms
        self._games: dict[str, set[Connection]] = defaultdict(set)
        self._away: dict[str, dict[Side, int]] = defaultdict(dict)
        self._per_client: dict[str, int] = defaultdict(int)

    # -- admission ---------------------------------------------------------------------------

    def admit(self, client: str, limit: int) -> bool:
        """Count a new socket from ``client``; ``False`` if it already has ``limit`` open."""
        if self._per_client[client] >= limit:
            return False
        self._per_client[client] += 1
        return True

    def release(self, client: str) -> None:
        self._per_client[client] -= 1
        if self._per_client[client] <= 0:
            del self._per_client[client]

    # -- membership --------------------------------------------------------------------------

    def add(self, connection: Connection) -> None:
        self._games[connection.game_id].add(connection)
        connection.start()

    def remove(self, connection: Connection, now_ms: int) -> None:
        game_id = connection.game_id
        members = self._games.get(game_id)
        if members is None:
            return
        members.discard(connection)
        present = {side for member in members for side in member.sides}
        for side in connection.sides:
            if side not in present:
                self._away[game_id][side] = now_ms
        if not members:
            del self._games[game_id]

    def presence(self, game_id: str) -> Presence:
        members = self._games.get(game_id, set())
        connected = frozenset(side for member in members for side in member.sides)
        away = self._away.get(game_id, {})
        return Presence(
            connected=connected,
            away_since_ms=(
                away.get(Side.BLUE, self.started_ms),
                away.get(Side.GRAY, self.started_ms),
            ),
            spectators=sum(1 for member in members if not member.sides),
        )

    def has_connections(self, game_id: str) -> bool:
        return bool(self._games.get(game_id))

    def forget(self, game_id: str) -> None:
        """Drop what is kept about a game nobody is connected to (when it leaves the cache)."""
        if not self._games.get(game_id):
            self._away.pop(game_id, None)

    # -- sending -----------------------------------------------------------------------------

    def broadcast(self, game_id: str, text: str) -> None:
        for connection in list(self._games.get(game_id, ())):
            connection.send(text)

    def connection_count(self) -> int:
        return sum(len(members) for members in self._games.values())

    async def close_all(self) -> None:
        members = [member for group in self._games.values() for member in group]
        for member in members:
            with contextlib.suppress(Exception):
                await member.websocket.close(1001)
            await member.stop()
