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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal, Protocol

import redis.asyncio as aioredis
from redis.asyncio.client import PubSub

log = logging.getLogger("bluegray.web")

NewsKind = Literal["state", "presence", "ai", "cluster"]
CHANNEL_PREFIX: Final = "bg:game:"
CLUSTER_CHANNEL: Final = "bg:cluster"
"""News for every process (not about one game)."""


@dataclass(frozen=True)
class News:
    """One piece of news: ``text`` is the message clients receive, as sent."""

    kind: NewsKind
    game_id: str
    version: int
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
        if kind not in ("state", "presence", "ai", "cluster"):
            raise ValueError(f"unknown news kind {kind!r}")
        size = int(length)
        return cls(kind, game_id, int(version), origin, rest[:size], rest[size:])  # type: ignore[arg-type]

    @property
    def channel(self) -> str:
        return CLUSTER_CHANNEL if self.kind == "cluster" else CHANNEL_PREFIX + self.game_id


Listener = Callable[[News], None]


class Bus(Protocol):
    """What the rest of the app needs of a bus."""

    async def start(self, listener: Listener) -> None:
        """Start delivering news (of the games watched, and the cluster's) to ``listener``."""

    async def close(self) -> None: ...

    async def publish(self, news: News) -> None:
        """Deliver ``news`` here at once, and to every other process watching its game."""

    async def watch(self, game_id: str) -> None:
        """Receive the game's news from other processes; returns once that is certain."""

    async def unwatch(self, game_id: str) -> None: ...


class LocalBus:
    """The bus of a single process: publishing is handing the news to the listener."""

    def __init__(self) -> None:
        self._listener: Listener | None = None

    async def start(self, listener: Listener) -> None:
        self._listener = listener

    async def close(self) -> None:
        self._listener = None

    async def publish(self, news: News) -> None:
        if self._listener is not None:
            self._listener(news)

    async def watch(self, game_id: str) -> None:
        return None

    async def unwatch(self, game_id: str) -> None:
        return None


class RedisBus:
    """Redis pub/sub: a channel per game (``bg:game:<id>``) and one for the cluster.

    One task owns the subscriber connection: it reads messages and, between them, carries out
    the subscriptions asked for, answering each once Redis has confirmed it (so that a socket
    that reads a game's state after ``watch`` returns cannot miss a later change)."""

    def __init__(self, client: aioredis.Redis, process: str) -> None:
        self.client = client
        self.process = process
        self._listener: Listener | None = None
        self._pubsub: PubSub | None = None
        self._reader: asyncio.Task[None] | None = None
        self._requests: asyncio.Queue[tuple[str, str, asyncio.Future[None]]] = asyncio.Queue()
        self._confirming: dict[tuple[str, str], list[asyncio.Future[None]]] = {}

    async def start(self, listener: Listener) -> None:
        self._listener = listener
        self._pubsub = self.client.pubsub()
        await self._pubsub.subscribe(CLUSTER_CHANNEL)
        self._reader = asyncio.create_task(self._read(), name="bluegray-bus")

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()  # type: ignore[no-untyped-call]
        for waiting in self._confirming.values():
            for future in waiting:
                future.cancel()

    async def publish(self, news: News) -> None:
        if self._listener is not None:
            self._listener(news)
        await self.client.publish(news.channel, news.encode())

    async def watch(self, game_id: str) -> None:
        await self._ask("subscribe", CHANNEL_PREFIX + game_id)

    async def unwatch(self, game_id: str) -> None:
        await self._ask("unsubscribe", CHANNEL_PREFIX + game_id)

    async def _ask(self, what: str, channel: str) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        await self._requests.put((what, channel, future))
        await future

    async def _read(self) -> None:
        pubsub = self._pubsub
        assert pubsub is not None
        while True:
            try:
                while not self._requests.empty():
                    what, channel, future = self._requests.get_nowait()
                    self._confirming.setdefault((what, channel), []).append(future)
                    await getattr(pubsub, what)(channel)
                message = await pubsub.get_message(timeout=0.02)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # Redis went away: keep trying, the app reports it
                log.error("the event bus lost Redis: %r", error)
                await asyncio.sleep(0.5)
                continue
            if message is not None:
                self._receive(message)

    def _receive(self, message: dict[str, object]) -> None:
        kind = message.get("type")
        channel = _text(message.get("channel"))
        if kind in ("subscribe", "unsubscribe"):
            for future in self._confirming.pop((str(kind), channel), []):
                if not future.done():
                    future.set_result(None)
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
