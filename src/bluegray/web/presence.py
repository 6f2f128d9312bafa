"""Presence: which seats of a game have a socket open anywhere, when each was last seen, how many
watch; and which processes are alive.

Embedded, one process knows it all (``LocalPresence``). Scaled out, every process counts its own
sockets in Redis (``RedisPresence``): a hash per game of counts by process and seat, a hash of
when each seat was last seen, and a sorted set of processes by their last heartbeat. Counts held
by a process whose heartbeat stopped no longer count as connected: the seat was last seen at that
heartbeat. So a seat is away from when it was last seen anywhere in the cluster, whichever
process served it, and however that process ended.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Final, Protocol

import redis.asyncio as aioredis

from bluegray.pieces import Side

PROCESSES_KEY: Final = "bg:processes"
PRESENCE_PREFIX: Final = "bg:presence:"
SEEN_PREFIX: Final = "bg:seen:"
KEEP_SECONDS: Final = 7 * 24 * 3600
"""How long Redis keeps a game's presence after its last change."""
SPECTATOR: Final = "watch"


@dataclass(frozen=True)
class Presence:
    """Who is connected to a game right now, and when each seat was last seen (``None``: never
    connected, or not since the game was loaded)."""

    connected: frozenset[Side] = frozenset()
    last_seen_ms: tuple[int | None, int | None] = (None, None)
    spectators: int = 0

    def seen(self, side: Side) -> int | None:
        return self.last_seen_ms[side.index]


class PresenceBook(Protocol):
    async def arrive(self, game_id: str, sides: frozenset[Side]) -> None:
        """A socket of this process opened on the game (no sides: a spectator)."""

    async def leave(self, game_id: str, sides: frozenset[Side], now_ms: int) -> None: ...

    async def read(self, game_id: str, now_ms: int) -> Presence: ...

    async def beat(self, now_ms: int) -> None:
        """This process is alive (called every heartbeat)."""

    async def live_processes(self, now_ms: int) -> list[str]: ...

    async def stop(self) -> None:
        """This process is leaving: it no longer counts as alive."""


def _slot(side: Side | None) -> str:
    return SPECTATOR if side is None else side.value


class LocalPresence:
    """The presence of a single process."""

    def __init__(self, process: str) -> None:
        self.process = process
        self._counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self._seen: dict[str, dict[str, int]] = defaultdict(dict)

    async def arrive(self, game_id: str, sides: frozenset[Side]) -> None:
        counts = self._counts[game_id]
        for side in sides or (None,):
            counts[_slot(side)] += 1

    async def leave(self, game_id: str, sides: frozenset[Side], now_ms: int) -> None:
        counts = self._counts.get(game_id)
        if counts is None:
            return
        for side in sides or (None,):
            counts[_slot(side)] -= 1
            if side is not None:
                self._seen[game_id][side.value] = now_ms
        if not any(count > 0 for count in counts.values()):
            del self._counts[game_id]

    async def read(self, game_id: str, now_ms: int) -> Presence:
        counts = self._counts.get(game_id, {})
        seen = self._seen.get(game_id, {})
        return Presence(
            connected=frozenset(side for side in Side if counts.get(side.value, 0) > 0),
            last_seen_ms=(seen.get(Side.BLUE.value), seen.get(Side.GRAY.value)),
            spectators=counts.get(SPECTATOR, 0),
        )

    async def beat(self, now_ms: int) -> None:
        return None

    async def live_processes(self, now_ms: int) -> list[str]:
        return [self.process]

    async def stop(self) -> None:
        return None


class RedisPresence:
    """Presence shared by every process through Redis."""

    def __init__(self, client: aioredis.Redis, process: str, stale_ms: int) -> None:
        self.client = client
        self.process = process
        self.stale_ms = stale_ms
        """A process whose last heartbeat is older than this is dead."""

    async def arrive(self, game_id: str, sides: frozenset[Side]) -> None:
        key = PRESENCE_PREFIX + game_id
        async with self.client.pipeline(transaction=False) as pipe:
            for side in sides or (None,):
                pipe.hincrby(key, f"{self.process}/{_slot(side)}", 1)
            pipe.expire(key, KEEP_SECONDS)
            await pipe.execute()

    async def leave(self, game_id: str, sides: frozenset[Side], now_ms: int) -> None:
        key = PRESENCE_PREFIX + game_id
        seen = SEEN_PREFIX + game_id
        async with self.client.pipeline(transaction=False) as pipe:
            for side in sides or (None,):
                pipe.hincrby(key, f"{self.process}/{_slot(side)}", -1)
                if side is not None:
                    pipe.hset(seen, side.value, now_ms)
            pipe.expire(seen, KEEP_SECONDS)
            await pipe.execute()

    async def read(self, game_id: str, now_ms: int) -> Presence:
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.hgetall(PRESENCE_PREFIX + game_id)
            pipe.hgetall(SEEN_PREFIX + game_id)
            pipe.zrange(PROCESSES_KEY, 0, -1, withscores=True)
            counts, seen, processes = await pipe.execute()
        beats = {_str(name): int(score) for name, score in processes}
        connected: set[Side] = set()
        spectators = 0
        last_seen: dict[str, int] = {_str(side): int(stamp) for side, stamp in seen.items()}
        for field, count in counts.items():
            process, _, slot = _str(field).rpartition("/")
            if int(count) <= 0:
                continue
            beat = beats.get(process)
            if beat is None:
                continue  # a process gone long ago: what it held was seen before its end
            if now_ms - beat <= self.stale_ms:
                if slot == SPECTATOR:
                    spectators += int(count)
                else:
                    connected.add(Side(slot))
            elif slot != SPECTATOR:  # the process died with the seat connected
                last_seen[slot] = max(last_seen.get(slot, 0), beat)
        return Presence(
            connected=frozenset(connected),
            last_seen_ms=(last_seen.get(Side.BLUE.value), last_seen.get(Side.GRAY.value)),
            spectators=spectators,
        )

    async def beat(self, now_ms: int) -> None:
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.zadd(PROCESSES_KEY, {self.process: now_ms})
            # processes silent for a week are forgotten (their counts no longer matter)
            pipe.zremrangebyscore(PROCESSES_KEY, 0, now_ms - KEEP_SECONDS * 1000)
            await pipe.execute()

    async def live_processes(self, now_ms: int) -> list[str]:
        names = await self.client.zrangebyscore(PROCESSES_KEY, now_ms - self.stale_ms, "+inf")
        return [_str(name) for name in names]

    async def stop(self) -> None:
        await self.client.zadd(PROCESSES_KEY, {self.process: 0})


def _str(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
