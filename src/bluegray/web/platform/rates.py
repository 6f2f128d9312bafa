"""Rate limits, with the ``limits`` library: each limit allows a burst, then a steady rate (at most
``burst`` requests in any ``burst / rate`` seconds, counted in a sliding window; the library's
sliding-window counter approximates it with two fixed windows aligned to Unix time, so right after
a window's edge a client that used its whole burst may get one request more). Embedded, the
counts are kept in the process; scaled out, in Redis, so that a client meets the same limit
whichever process it reaches. While Redis cannot be reached, each process counts on its own (a
client meets the limit in each process it reaches: none is lifted, and none refuses a request
for the outage), and goes back to Redis once it answers again.

Failed logins are not a limit but a slowing down (``slowed``, ``slow_down``): past a number of
failures for a key (a name, an address), each further try waits, twice as long after each new
failure (1 s, 2 s, 4 s, ... up to a most), and nothing is ever locked.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final, TypeVar

from limits import RateLimitItem, RateLimitItemPerSecond
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from limits.errors import StorageError

from bluegray.web.platform.settings import Settings

T = TypeVar("T")
log = logging.getLogger("bluegray.web")

REDIS_SECONDS: Final = 1.0
"""How long a count may wait for Redis (connecting or answering) before it is counted here."""
SOCKET_COUNT_SECONDS: Final = 3600
"""How long a client's count of open sockets is kept from its first socket, then started afresh:
a process killed without closing its sockets leaves them counted until then at most (and a
client holding sockets longer may then open some more, until the next fresh start)."""
RETRY_SECONDS: Final = 1.0
"""How long the counts stay in the process after Redis failed, before Redis is tried again."""


@dataclass(frozen=True)
class Rate:
    """``burst`` at once, ``rate`` a second on average."""

    rate: float
    burst: int

    def item(self, namespace: str) -> RateLimitItem:
        window = max(1, math.ceil(self.burst / self.rate))
        return RateLimitItemPerSecond(self.burst, window, namespace=namespace)


class RateLimits:
    """The site's limits: requests in general, new games, analyses, socket messages, new
    accounts, logins, seeks, challenges and chat messages; and the slowing down of failed logins."""

    def __init__(self, settings: Settings, *, shared: bool) -> None:
        storage: Storage
        if shared:
            storage = RedisStorage(
                "async+" + settings.redis_url,
                wrap_exceptions=True,
                implementation="redispy",
                key_prefix="bg:rate",
                socket_timeout=REDIS_SECONDS,
                socket_connect_timeout=REDIS_SECONDS,
            )
        else:
            storage = MemoryStorage()
        self.storage = storage
        self.limiter = SlidingWindowCounterRateLimiter(storage)
        self.fallback = SlidingWindowCounterRateLimiter(MemoryStorage())
        """The counts kept in the process while Redis cannot be reached."""
        self._redis_down_until = 0.0
        self.local = SlidingWindowCounterRateLimiter(MemoryStorage())
        """For socket messages: a socket lives in one process, so its count stays there."""
        self.requests = Rate(settings.http_rate, settings.http_burst).item("http")
        self.creating = Rate(settings.create_rate, settings.create_burst).item("create")
        self.analysing = Rate(settings.analysis_rate, settings.analysis_burst).item("analysis")
        self.messages = Rate(settings.ws_rate, settings.ws_burst).item("ws")
        self.signing_up = Rate(settings.signup_rate, settings.signup_burst).item("signup")
        self.logging_in = Rate(settings.login_rate, settings.login_burst).item("login")
        self.seeking = Rate(settings.seek_rate, settings.seek_burst).item("seek")
        self.challenging = Rate(settings.challenge_rate, settings.challenge_burst).item("challenge")
        self.chatting = Rate(settings.chat_rate, settings.chat_burst).item("chat")

    async def _counted(self, work: Callable[[SlidingWindowCounterRateLimiter], Awaitable[T]]) -> T:
        """``work`` on the shared counts, or on this process's own while Redis fails."""
        if time.monotonic() >= self._redis_down_until:
            try:
                result = await work(self.limiter)
            except StorageError as error:
                if not self._redis_down_until:
                    log.warning("rate limits counted in this process: Redis fails: %r", error)
                self._redis_down_until = time.monotonic() + RETRY_SECONDS
            else:
                if self._redis_down_until:
                    log.info("rate limits counted in Redis again")
                    self._redis_down_until = 0.0
                return result
        return await work(self.fallback)

    async def take(self, item: RateLimitItem, key: str) -> float:
        """Count one for ``key``: 0 if allowed, else the seconds until it would be."""

        async def take(limiter: SlidingWindowCounterRateLimiter) -> float:
            if await limiter.hit(item, key):
                return 0.0
            stats = await limiter.get_window_stats(item, key)
            return max(0.5, stats.reset_time - _now())

        return await self._counted(take)

    async def wait(self, item: RateLimitItem, key: str) -> float:
        """0 if one more would be allowed for ``key`` (nothing is counted), else the seconds
        until it would be."""

        async def wait(limiter: SlidingWindowCounterRateLimiter) -> float:
            if await limiter.test(item, key):
                return 0.0
            stats = await limiter.get_window_stats(item, key)
            return max(0.5, stats.reset_time - _now())

        return await self._counted(wait)

    async def count(self, item: RateLimitItem, key: str) -> None:
        """Count one for ``key``, allowed or not (a failed login)."""
        await self._counted(lambda limiter: limiter.hit(item, key))

    async def forget(self, item: RateLimitItem, key: str) -> None:
        """Forget what was counted for ``key`` (here too: what was counted during an outage)."""
        await self._counted(lambda limiter: limiter.clear(item, key))
        await self.fallback.clear(item, key)

    async def slowed(self, kind: str, key: str) -> float:
        """0 if ``key`` of ``kind`` may try now, else the seconds it must still wait."""

        async def slowed(limiter: SlidingWindowCounterRateLimiter) -> float:
            storage = limiter.storage
            if not await storage.get(f"slow-{kind}/{key}"):
                return 0.0
            return max(0.5, await storage.get_expiry(f"slow-{kind}/{key}") - _now())

        return await self._counted(slowed)

    async def slow_down(self, kind: str, key: str, free: int, window: float, most: float) -> None:
        """Count a failure of ``key`` of ``kind`` (kept ``window`` seconds from the first): past
        ``free`` of them, the next try waits 1 s, then twice as long after each failure, up to
        ``most`` seconds."""

        async def slow_down(limiter: SlidingWindowCounterRateLimiter) -> None:
            storage = limiter.storage
            failures = await storage.incr(f"failed-{kind}/{key}", math.ceil(window))
            if failures >= free:
                wait = min(most, 2.0 ** min(failures - free, 30))
                await storage.incr(f"slow-{kind}/{key}", math.ceil(wait))

        await self._counted(slow_down)

    async def forget_failures(self, kind: str, key: str) -> None:
        """Forget the failures of ``key`` of ``kind`` and its wait (here too: those counted
        during an outage)."""

        async def forget(limiter: SlidingWindowCounterRateLimiter) -> None:
            await limiter.storage.clear(f"failed-{kind}/{key}")
            await limiter.storage.clear(f"slow-{kind}/{key}")

        await self._counted(forget)
        await forget(self.fallback)

    async def open_socket(self, client: str, most: int) -> bool:
        """Count a socket opened by ``client``; whether it is allowed (at most ``most`` open at
        once, across the processes). Each allowed one is given back by ``close_socket``."""

        async def open_socket(limiter: SlidingWindowCounterRateLimiter) -> bool:
            key = f"sockets/{client}"
            if await limiter.storage.incr(key, SOCKET_COUNT_SECONDS) <= most:
                return True
            await limiter.storage.incr(key, SOCKET_COUNT_SECONDS, amount=-1)
            return False

        return await self._counted(open_socket)

    async def close_socket(self, client: str) -> None:
        """Give back a socket ``open_socket`` allowed."""
        await self._counted(
            lambda limiter: limiter.storage.incr(f"sockets/{client}", SOCKET_COUNT_SECONDS, -1)
        )

    async def take_message(self, socket: str) -> bool:
        """Count a message of a socket; whether it is allowed."""
        return await self.local.hit(self.messages, socket)


def _now() -> float:
    return time.time()
