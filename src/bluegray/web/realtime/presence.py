"""Presence: which seats of a game have a socket open anywhere, when each was last seen, how many
watch; and which processes are alive.

Embedded, one process knows it all (``LocalPresence``). Scaled out, every process counts its own
sockets in Redis (``RedisPresence``): a hash per game of counts by process and seat, a hash of
when each seat was last seen, and a sorted set of processes by their last heartbeat. Counts held
by a process whose heartbeat stopped no longer count as connected: the seat was last seen at that
heartbeat. So a seat is away from when it was last seen anywhere in the cluster, whichever
process served it, and however that process ended.

Redis may lose it all (a restart): every process remembers its own counts and writes them again
(absolute, never increments) at the heartbeat that finds Redis's presence begun anew (the epoch
key, set by the first heartbeat to find it missing). Until every live process has had the time
to do so, what Redis says of presence is not certain: nobody may be found away then. Nor while a
process misses its own heartbeats, and for a while after: Redis was away or paused, and the
other processes' heartbeats may be late for the same reason, not because they died.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict, defaultdict
from dataclasses import dataclass, replace
from typing import Final, Protocol

import redis.asyncio as aioredis

from bluegray.pieces import Side

PROCESSES_KEY: Final = "bg:processes"
PRESENCE_PREFIX: Final = "bg:presence:"
SEEN_PREFIX: Final = "bg:seen:"
EPOCH_KEY: Final = "bg:presence-epoch"
"""When Redis's presence began (the first heartbeat that found this key missing wrote it)."""
REDIS_SECONDS: Final = 1.0
"""How long a read or write of presence may take."""
SEEN_KEPT_MS: Final = 24 * 3600 * 1000
"""How long a process remembers when it last saw a seat (to write it again if Redis loses it):
the longest time a player may be away before the opponent can claim the game."""
SEEN_KEPT_GAMES: Final = 50_000
"""The most games whose seats' last sight a process remembers."""
LATER_SEEN: Final = """
for i = 2, #ARGV, 2 do
  local known = tonumber(redis.call('HGET', KEYS[1], ARGV[i]) or '0')
  if tonumber(ARGV[i + 1]) > known then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
"""
"""Write when seats were last seen (``ARGV``: how long to keep them, in ms, then each seat and
its time), unless Redis knows of a later time."""
KEEP_SECONDS: Final = 7 * 24 * 3600
"""How long Redis keeps a game's presence after its last change."""
SPECTATOR: Final = "watch"

log = logging.getLogger("bluegray.web")


@dataclass(frozen=True)
class Presence:
    """Who is connected to a game right now, and when each seat was last seen (``None``: never
    connected, or not since the game was loaded)."""

    connected: frozenset[Side] = frozenset()
    last_seen_ms: tuple[int | None, int | None] = (None, None)
    spectators: int = 0
    certain: bool = True
    """Whether this is known to be so (not: presence could not be read, or Redis has just lost
    it and the processes are still writing theirs again). Nobody is away on an uncertain
    presence."""

    def seen(self, side: Side) -> int | None:
        return self.last_seen_ms[side.index]

    def with_connected(self, sides: frozenset[Side]) -> Presence:
        """This presence with ``sides`` connected too (they have a socket in this process)."""
        if sides <= self.connected:
            return self
        return replace(self, connected=self.connected | sides)

    def uncertain(self) -> Presence:
        """What to show when presence cannot be read: this, as last known, but not certain."""
        return replace(self, certain=False)


UNKNOWN: Final = Presence(connected=frozenset(Side), certain=False)
"""Presence never read and unreadable now: both seats shown connected, nobody away."""


class PresenceBook(Protocol):
    async def arrive(self, game_id: str, sides: frozenset[Side]) -> None:
        """A socket of this process opened on the game (no sides: a spectator)."""

    async def leave(self, game_id: str, sides: frozenset[Side], now_ms: int) -> None: ...

    async def read(self, game_id: str, now_ms: int) -> Presence: ...

    async def beat(self, now_ms: int) -> None:
        """This process is alive (called every heartbeat); it writes again what it holds if
        the shared presence was lost."""

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
    """Presence shared by every process through Redis. Each process writes its own counts (a
    field per process and seat of a game's hash) as absolute values from what it holds, so any
    write may be repeated: a failed one is, at the next heartbeat, and all are when Redis's
    presence began anew."""

    def __init__(self, client: aioredis.Redis, process: str, stale_ms: int) -> None:
        self.client = client
        self.process = process
        self.stale_ms = stale_ms
        """A process whose last heartbeat is older than this is dead."""
        self._held: dict[str, dict[str, int]] = {}
        """This process's sockets: by game, their count by slot (a side or ``watch``)."""
        self._unwritten: set[str] = set()
        """Games whose counts Redis may not have (a write failed)."""
        self._unseen: dict[str, dict[str, int]] = {}
        """When seats were last seen, by game, that could not be written."""
        self._seen: OrderedDict[str, dict[str, int]] = OrderedDict()
        """When this process last saw seats, by game, the latest last: written again when
        Redis loses presence."""
        self._later_seen = client.register_script(LATER_SEEN)
        self._epoch: str | None = None
        """The epoch of Redis's presence this process's counts were written in."""
        self._beaten_ms: int | None = None
        """When this process's last heartbeat was written."""
        self._doubt_until_ms = 0
        """Until when presence is not certain, this process having just missed heartbeats
        (Redis was away or paused: the other processes may have missed theirs too)."""

    async def arrive(self, game_id: str, sides: frozenset[Side]) -> None:
        counts = self._held.setdefault(game_id, {})
        for side in sides or (None,):
            counts[_slot(side)] = counts.get(_slot(side), 0) + 1
        await self._write_quietly([game_id])

    async def leave(self, game_id: str, sides: frozenset[Side], now_ms: int) -> None:
        counts = self._held.get(game_id, {})
        for side in sides or (None,):
            if counts.get(_slot(side), 0) > 0:
                counts[_slot(side)] -= 1
        for side in sides:
            self._unseen.setdefault(game_id, {})[side.value] = now_ms
            self._seen.setdefault(game_id, {})[side.value] = now_ms
            self._seen.move_to_end(game_id)
        await self._write_quietly([game_id])

    async def _write_quietly(self, game_ids: list[str]) -> None:
        """Write the games' counts (and pending last-seen times); on failure they are written at
        a later heartbeat."""
        try:
            async with asyncio.timeout(REDIS_SECONDS):  # not wait_for: see deadlines
                await self._write(game_ids)
        except Exception as error:
            self._unwritten.update(game_ids)
            log.warning("cannot write the presence of %d games: %r", len(game_ids), error)

    async def _write(self, game_ids: list[str]) -> None:
        seen_written: list[tuple[str, dict[str, int]]] = []
        async with self.client.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                key = PRESENCE_PREFIX + game_id
                counts = self._held.get(game_id, {})
                mine = {f"{self.process}/{slot}": count for slot, count in counts.items()}
                present = {field: count for field, count in mine.items() if count > 0}
                if present:
                    pipe.hset(key, mapping=present)  # type: ignore[arg-type]
                gone = [field for field, count in mine.items() if count <= 0]
                if gone:
                    pipe.hdel(key, *gone)
                pipe.expire(key, KEEP_SECONDS)
                seen = self._unseen.get(game_id)
                if seen:
                    stamps = [item for pair in seen.items() for item in pair]
                    args = [KEEP_SECONDS * 1000, *stamps]
                    await self._later_seen(keys=[SEEN_PREFIX + game_id], args=args, client=pipe)
                    seen_written.append((game_id, dict(seen)))
            await pipe.execute()
        for game_id in game_ids:
            self._unwritten.discard(game_id)
            held = self._held.get(game_id)
            if held is not None and not any(count > 0 for count in held.values()):
                del self._held[game_id]
        for game_id, written in seen_written:
            pending = self._unseen.get(game_id, {})
            for side, stamp in written.items():
                if pending.get(side) == stamp:
                    del pending[side]
            if not pending:
                self._unseen.pop(game_id, None)

    async def read(self, game_id: str, now_ms: int) -> Presence:
        async with asyncio.timeout(REDIS_SECONDS):
            async with self.client.pipeline(transaction=False) as pipe:
                pipe.hgetall(PRESENCE_PREFIX + game_id)
                pipe.hgetall(SEEN_PREFIX + game_id)
                pipe.zrange(PROCESSES_KEY, 0, -1, withscores=True)
                pipe.get(EPOCH_KEY)
                counts, seen, processes, epoch = await pipe.execute()
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
            certain=epoch is not None
            and now_ms - int(epoch) > self.stale_ms
            and self._beating(now_ms)
            and now_ms >= self._doubt_until_ms,
        )

    def _beating(self, now_ms: int) -> bool:
        """Whether this process's heartbeats are written as they should be."""
        return self._beaten_ms is not None and now_ms - self._beaten_ms <= self.stale_ms // 2

    async def beat(self, now_ms: int) -> None:
        async with asyncio.timeout(REDIS_SECONDS):
            async with self.client.pipeline(transaction=False) as pipe:
                pipe.zadd(PROCESSES_KEY, {self.process: now_ms})
                # processes silent for a week are forgotten (their counts no longer matter)
                pipe.zremrangebyscore(PROCESSES_KEY, 0, now_ms - KEEP_SECONDS * 1000)
                pipe.set(EPOCH_KEY, now_ms, nx=True)
                pipe.get(EPOCH_KEY)
                *_, epoch = await pipe.execute()
            epoch = _str(epoch)
            if self._beaten_ms is not None and not self._beating(now_ms):
                self._doubt_until_ms = now_ms + self.stale_ms  # the others may have missed theirs
            self._beaten_ms = now_ms
            self._forget_seen(now_ms)
            if epoch != self._epoch:  # Redis's presence began anew: write all we know again
                if self._epoch is not None:
                    log.warning("Redis lost presence: writing this process's again")
                for game_id, seen in self._seen.items():
                    self._unseen[game_id] = {**seen, **self._unseen.get(game_id, {})}
                await self._write([*self._held, *(set(self._unseen) - set(self._held))])
                self._epoch = epoch
            elif self._unwritten or self._unseen:
                await self._write(sorted(self._unwritten | set(self._unseen)))

    def _forget_seen(self, now_ms: int) -> None:
        while self._seen:
            game_id, seen = next(iter(self._seen.items()))
            if len(self._seen) <= SEEN_KEPT_GAMES and max(seen.values()) > now_ms - SEEN_KEPT_MS:
                return
            del self._seen[game_id]

    async def live_processes(self, now_ms: int) -> list[str]:
        async with asyncio.timeout(REDIS_SECONDS):
            names = await self.client.zrangebyscore(PROCESSES_KEY, now_ms - self.stale_ms, "+inf")
        return [_str(name) for name in names]

    async def stop(self) -> None:
        await self.client.zadd(PROCESSES_KEY, {self.process: 0})


def _str(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
