"""The featured game in this process: chosen again from the database every
``featured_seconds``, and shown live to every home-page socket here (``/ws/featured``).

The process follows the featured game's news through one member of its hub (``Relay``), as if it
were one spectator's socket: one subscription to the game's channel on the bus, however many
home pages are open, and only while one is. What the hub hands the relay (the game's states in
version order, who is connected, what the AI does) goes to every home-page socket as it is.
When the choice changes, each socket is told the new game first (a ``featured`` message), then
sent its state; when no game qualifies, it is told ``null`` (the page hides the panel).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, cast

from bluegray.web.featured.choice import featured_game
from bluegray.web.featured.schemas import FeaturedGame, FeaturedMessage
from bluegray.web.games.service import GameService
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.settings import Settings
from bluegray.web.realtime.sockets import CLOSE_RESTARTING, Connection

if TYPE_CHECKING:
    from starlette.websockets import WebSocket

log = logging.getLogger("bluegray.web")

HOME: str = "featured"
"""The name home-page sockets go by (they are on no game)."""


class Relay(Connection):
    """The hub's member for the featured game: it has no socket of its own, and hands what it is
    sent to every home-page socket of the process."""

    def __init__(self, game_id: str, viewers: set[Connection]) -> None:
        super().__init__(cast("WebSocket", None), game_id, frozenset())
        self.viewers = viewers

    def start(self) -> None:
        return None

    def send(self, text: str) -> None:
        if self.closed:
            return
        for viewer in list(self.viewers):
            viewer.send(text)


class Showcase:
    """This process's featured game and its home-page sockets."""

    def __init__(self, settings: Settings, service: GameService) -> None:
        self.settings = settings
        self.service = service
        self.choice: FeaturedGame | None = None
        self.viewers: set[Connection] = set()
        self.relay: Relay | None = None
        self.choices = 0
        """Times the choice changed (for tests and logs)."""
        self._lock = asyncio.Lock()
        self._chooser: asyncio.Task[None] | None = None

    async def start(self) -> None:
        with contextlib.suppress(Exception):
            await self.choose()
        self._chooser = asyncio.create_task(self._choose_loop(), name="bluegray-featured")

    async def stop(self) -> None:
        if self._chooser is not None:
            self._chooser.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._chooser
        viewers = list(self.viewers)
        self.viewers.clear()
        async with self._lock:
            await self._follow()
        for viewer in viewers:
            with contextlib.suppress(Exception):
                await viewer.websocket.close(CLOSE_RESTARTING)
            await viewer.stop()

    async def _choose_loop(self) -> None:
        while True:
            await asyncio.sleep(self.settings.featured_seconds)
            try:
                await self.choose()
            except Exception as error:  # the database is away for a moment: choose again later
                log.warning("cannot choose the featured game: %r", error)

    async def choose(self) -> FeaturedGame | None:
        """Read the featured game from the database; tell the home pages if it has changed."""
        choice = await featured_game(self.service.db)
        async with self._lock:
            if choice != self.choice:
                self.choices += 1
                self.choice = choice
                text = FeaturedMessage(game=choice).model_dump_json()
                for viewer in list(self.viewers):
                    viewer.send(text)
            await self._follow()
        return choice

    async def join(self, viewer: Connection) -> None:
        """A home-page socket: it is sent the featured game and its state, then its news."""
        async with self._lock:
            self.viewers.add(viewer)
            viewer.send(FeaturedMessage(game=self.choice).model_dump_json())
            relay = self.relay
            if relay is not None and relay.state_text:
                viewer.send(relay.state_text)
            await self._follow()

    async def leave(self, viewer: Connection) -> None:
        async with self._lock:
            self.viewers.discard(viewer)
            await self._follow()

    async def _follow(self) -> None:
        """Have the hub's relay on the featured game while a home page here shows it, and on no
        game otherwise (so the process listens to one game's channel for its home pages, at
        most)."""
        wanted = self.choice.game_id if self.choice is not None and self.viewers else None
        hub = self.service.hub
        relay = self.relay
        if relay is not None and relay.game_id != wanted:
            self.relay = None
            relay.closed = True
            with contextlib.suppress(Exception):
                await hub.remove(relay, now_ms())
        if wanted is None or self.relay is not None:
            return
        relay = Relay(wanted, self.viewers)
        await hub.watch(wanted)  # before reading the state: no change falls between the two
        try:
            version, text = await self.service.state_text(wanted)
        except Exception as error:  # the database is away: the next choice tries again
            await hub.unwatch_idle(wanted)
            log.warning("cannot read the featured game %s: %r", wanted, error)
            return
        relay.send_state(version, text)
        self.relay = relay
        await hub.add(relay)
