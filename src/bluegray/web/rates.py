"""Rate limits, with the ``limits`` library: each limit allows a burst, then a steady rate (at most
``burst`` requests in any ``burst / rate`` seconds, counted in a sliding window). Embedded, the
counts are kept in the process; scaled out, in Redis, so that a client meets the same limit
whichever process it reaches.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from limits import RateLimitItem, RateLimitItemPerSecond
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import SlidingWindowCounterRateLimiter

from bluegray.web.settings import Settings


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
    accounts, logins, failed logins by name and by address, seeks and challenges."""

    def __init__(self, settings: Settings, *, shared: bool) -> None:
        storage: Storage
        if shared:
            storage = RedisStorage(
                "async+" + settings.redis_url, implementation="redispy", key_prefix="bg:rate"
            )
        else:
            storage = MemoryStorage()
        self.storage = storage
        self.limiter = SlidingWindowCounterRateLimiter(storage)
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
        window = max(1, math.ceil(settings.login_failure_seconds))
        self.failures_by_name = RateLimitItemPerSecond(
            settings.login_failures_per_name, window, namespace="login-name"
        )
        self.failures_by_address = RateLimitItemPerSecond(
            settings.login_failures_per_address, window, namespace="login-address"
        )

    async def take(self, item: RateLimitItem, key: str) -> float:
        """Count one for ``key``: 0 if allowed, else the seconds until it would be."""
        if await self.limiter.hit(item, key):
            return 0.0
        stats = await self.limiter.get_window_stats(item, key)
        return max(0.5, stats.reset_time - _now())

    async def wait(self, item: RateLimitItem, key: str) -> float:
        """0 if one more would be allowed for ``key`` (nothing is counted), else the seconds
        until it would be."""
        if await self.limiter.test(item, key):
            return 0.0
        stats = await self.limiter.get_window_stats(item, key)
        return max(0.5, stats.reset_time - _now())

    async def count(self, item: RateLimitItem, key: str) -> None:
        """Count one for ``key``, allowed or not (a failed login)."""
        await self.limiter.hit(item, key)

    async def forget(self, item: RateLimitItem, key: str) -> None:
        """Forget what was counted for ``key``."""
        await self.limiter.clear(item, key)

    async def take_message(self, socket: str) -> bool:
        """Count a message of a socket; whether it is allowed."""
        return await self.local.hit(self.messages, socket)


def _now() -> float:
    return time.time()
