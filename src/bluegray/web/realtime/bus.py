"""The event bus: news of a game (a new state, who is connected, what the AI is doing) goes from
the process that made it to every process with a socket on that game.

A change is committed first and published after, so the bus never carries anything the
database does not hold; a lost message costs a client a re-read, never a move. Embedded, the bus
is a function call inside the one process (``LocalBus``); scaled out, it is Redis pub/sub with a
channel per game that a process listens to while it has a socket on the game (``RedisBus``).
Either way the publishing process hands the news to its own sockets at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal, Protocol

import redis.asyncio as aioredis
from redis.asyncio.client import PubSub

log = logging.getLogger("bluegray.web")

NewsKind = Literal["state", "presence", "ai", "cluster", "chat"]
CHANNEL_PREFIX: Final = "bg:game:"
CLUSTER_CHANNEL: Final = "bg:cluster"
"""News for every process (not about one game)."""
WATCH_SECONDS: Final = 1.0
"""How long a subscription may take to be confirmed before ``watch`` gives up waiting."""
PUBLISH_SECONDS: Final = 1.0
"""How long a publication may take; after a failure, publications fail at once for as long."""
RETRY_SECONDS: Final = 0.5
"""How often the bus tries to reach Redis again after losing it."""


@dataclass(frozen=True)
class News:
    """One piece of news: ``text`` is the message clients receive, as sent."""

    kind: NewsKind
    game_id: str
    version: int
    """The game's version (of a chat message: the message's id)."""
    origin: str
    """The process that made it."""
    text: str
    change: str = ""
    """Of a new state: the rows that were written (``store.save_text``), for processes that
    hold the game at the version before."""

    def encode(self) -> str:
        head = f"{self.kind} {self.game_id} {self.version} {self.origin} {len(self.text)}"
        return f"{head}\n{self.text}{self.change}"

    @classmethod
    def decode(cls, data: str) -> News:
        head, _, rest = data.partition("\n")
        kind, game_id, version, origin, length = head.split(" ")
        if kind not in ("state", "presence", "ai", "cluster", "chat"):
            raise ValueError(f"unknown news kind {kind!r}")
        size = int(length)
        return cls(kind, game_id, int(version), origin, rest[:size], rest[size:])  # type: ignore[arg-type]

    @property
    def channel(self) -> str:
        return CLUSTER_CHANNEL if self.kind == "cluster" else CHANNEL_PREFIX + self.game_id


class BusUnavailableError(Exception):
    """News could not reach the other processes (Redis is away): what it announced is stored, and
    the processes catch up when the bus is back."""


Listener = Callable[[News], None]
Rejoined = Callable[[], None]
"""Called when the bus is back after losing Redis, once every watched game's channel listens
again: whatever was published meanwhile may have been missed."""


class Bus(Protocol):
    """What the rest of the app needs of a bus."""

    async def start(self, listener: Listener, rejoined: Rejoined | None = None) -> None:
        """Start delivering news (of the games watched, and the cluster's) to ``listener``."""

    async def close(self) -> None: ...

    async def publish(self, news: News) -> None:
        """Deliver ``news`` here at once, and to every other process watching its game
        (``BusUnavailableError`` if that could not be done)."""

    async def watch(self, game_id: str) -> bool:
        """Receive the game's news from other processes: ``True`` once that is certain; ``False``
        when the bus cannot tell now (it listens once it can, and says so to ``rejoined``)."""

    async def unwatch(self, game_id: str) -> None: ...


class LocalBus:
    """The bus of a single process: publishing is handing the news to the listener."""

    def __init__(self) -> None:
        self._listener: Listener | None = None

    async def start(self, listener: Listener, rejoined: Rejoined | None = None) -> None:
        self._listener = listener

    async def close(self) -> None:
        self._listener = None

    async def publish(self, news: News) -> None:
        if self._listener is not None:
            self._listener(news)

    async def watch(self, game_id: str) -> bool:
        return True

    async def unwatch(self, game_id: str) -> None:
        return None


class RedisBus:
    """Redis pub/sub: a channel per game (``bg:game:<id>``) and one for the cluster.

    One task owns the subscriber connection: it reads messages and, between them, carries out
    the subscriptions asked for, answering each once Redis has confirmed it (so that a socket
    that reads a game's state after ``watch`` returns cannot miss a later change).

    When Redis goes away the task keeps trying; once it is back, the task subscribes again to
    every channel wanted (whatever redis-py re-subscribed by itself), and when Redis has
    confirmed them all it calls ``rejoined``: news published meanwhile was lost, and the
    process reads its watched games again. No call waits on Redis for longer than a moment:
    ``watch`` answers ``False`` and ``publish`` raises ``BusUnavailableError`` instead."""

    def __init__(self, client: aioredis.Redis, process: str) -> None:
        self.client = client
        self.process = process
        self._listener: Listener | None = None
        self._rejoined: Rejoined | None = None
        self._pubsub: PubSub | None = None
        self._reader: asyncio.Task[None] | None = None
        self._requests: asyncio.Queue[tuple[str, str, asyncio.Future[None]]] = asyncio.Queue()
        self._confirming: dict[tuple[str, str], list[asyncio.Future[None]]] = {}
        self._wanted: set[str] = {CLUSTER_CHANNEL}
        """The channels this process listens to (or will, once Redis is back)."""
        self._rejoining: set[str] = set()
        """After an outage, the channels whose subscription Redis has yet to confirm."""
        self.connected = False
        """Whether the subscriber connection listens to every wanted channel."""
        self._publish_failed = -math.inf

    async def start(self, listener: Listener, rejoined: Rejoined | None = None) -> None:
        self._listener = listener
        self._rejoined = rejoined
        self._pubsub = self.client.pubsub()
        await self._pubsub.subscribe(CLUSTER_CHANNEL)
        self.connected = True
        self._reader = asyncio.create_task(self._read(), name="bluegray-bus")

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()  # type: ignore[no-untyped-call]
        self._drop_confirmations()

    async def publish(self, news: News) -> None:
        if self._listener is not None:
            self._listener(news)
        loop = asyncio.get_running_loop()
        if loop.time() - self._publish_failed < PUBLISH_SECONDS:
            raise BusUnavailableError("Redis did not answer a moment ago")
        try:
            async with asyncio.timeout(PUBLISH_SECONDS):  # not wait_for: see deadlines
                await self.client.publish(news.channel, news.encode())
        except Exception as error:
            self._publish_failed = loop.time()
            raise BusUnavailableError(f"cannot publish on {news.channel}: {error!r}") from error

    async def watch(self, game_id: str) -> bool:
        channel = CHANNEL_PREFIX + game_id
        self._wanted.add(channel)
        confirmed = self._ask("subscribe", channel)
        if not self.connected:
            return False  # subscribed when Redis is back; then the game is read again
        await asyncio.wait([confirmed], timeout=WATCH_SECONDS)
        return confirmed.done() and not confirmed.cancelled()

    async def unwatch(self, game_id: str) -> None:
        channel = CHANNEL_PREFIX + game_id
        self._wanted.discard(channel)
        confirmed = self._ask("unsubscribe", channel)
        if self.connected:
            await asyncio.wait([confirmed], timeout=WATCH_SECONDS)

    def _ask(self, what: str, channel: str) -> asyncio.Future[None]:
        """Have the reader (un)subscribe; the future is done once Redis has confirmed it (it is
        cancelled if Redis went away meanwhile: the reader subscribes again when it is back)."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._requests.put_nowait((what, channel, future))
        return future

    async def _read(self) -> None:
        pubsub = self._pubsub
        assert pubsub is not None
        lost = False
        while True:
            try:
                if lost:
                    await self._rejoin(pubsub)
                    lost = False
                while not self._requests.empty():
                    what, channel, future = self._requests.get_nowait()
                    if (channel in self._wanted) != (what == "subscribe"):
                        future.cancel()  # watched or unwatched again meanwhile
                        continue
                    self._confirming.setdefault((what, channel), []).append(future)
                    await getattr(pubsub, what)(channel)
                message = await pubsub.get_message(timeout=0.02)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # Redis went away: keep trying, the app reports it
                if not lost:
                    log.error("the event bus lost Redis: %r", error)
                lost = True
                self.connected = False
                self._rejoining.clear()
                self._drop_confirmations()
                await asyncio.sleep(RETRY_SECONDS)
                continue
            if message is not None:
                self._receive(message)

    async def _rejoin(self, pubsub: PubSub) -> None:
        """Listen to exactly the wanted channels again (redis-py re-subscribes on reconnection
        to those it had, which may be more or fewer)."""
        extra = {_text(channel) for channel in pubsub.channels} - self._wanted
        if extra:
            await pubsub.unsubscribe(*extra)
        wanted = set(self._wanted)
        self._rejoining = wanted
        await pubsub.subscribe(*wanted)
        log.info("the event bus has Redis again: listening to %d channels", len(wanted))

    def _drop_confirmations(self) -> None:
        for waiting in self._confirming.values():
            for future in waiting:
                future.cancel()
        self._confirming.clear()

    def _receive(self, message: dict[str, object]) -> None:
        kind = message.get("type")
        channel = _text(message.get("channel"))
        if kind in ("subscribe", "unsubscribe"):
            for future in self._confirming.pop((str(kind), channel), []):
                if not future.done():
                    future.set_result(None)
            if kind == "subscribe" and self._rejoining:
                self._rejoining.discard(channel)
                if not self._rejoining:
                    self.connected = True
                    if self._rejoined is not None:
                        self._rejoined()
            return
        if kind != "message" or self._listener is None:
            return
        try:
            news = News.decode(_text(message.get("data")))
        except ValueError as error:
            log.error("unreadable news on %s: %s", channel, error)
            return
        if news.origin != self.process:  # our own news was delivered when it was published
            self._listener(news)


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode()
    return str(value)
