"""The service's heartbeat: every web process notes in the database, every few seconds, that the
service is alive. When a process starts and finds the last heartbeat old, the whole service was
down (no process alive) since then: the running clocks are moved on by that gap, so that nobody
loses time to an outage. While any process lives, clocks run as usual, charged from each game's
own record of time, whichever processes come and go.

The database alone can be out while the processes run (a restart of PostgreSQL): then no move
can be stored, and the processes' heartbeats fail. A process whose heartbeat failed notes, with
its first heartbeat that succeeds, the database's outage: from its last heartbeat noted before
until then. A side whose time ran out during that outage
gets back the time its clock ran during it: its flag falls that much later, and its move, sent
again once the database is back, counts as in time (``credited_flag_at``,
``credit_store_outage``); other clocks are charged as usual.
"""

from __future__ import annotations

from typing import Final

from sqlalchemy import Connection, case, literal, select, update
from sqlalchemy.orm import Session

from bluegray.web.games.live import LiveGame
from bluegray.web.platform.db import upsert
from bluegray.web.platform.models import Base, GameRow

HEARTBEAT_KEY: Final = "heartbeat_ms"
STORE_OUTAGE_KEY: Final = "store_outage_ms"
"""The database's last outage seen by the heartbeat: ``FROM:TO`` in milliseconds."""

Outage = tuple[int, int]
"""From when to when (milliseconds since the epoch) the database could not be reached."""
_STATE: Final = Base.metadata.tables["server_state"]


def note_alive(connection: Connection, stamp: int, outage: Outage | None = None) -> None:
    """The service is alive at ``stamp`` (an upsert: processes beating at once all succeed);
    ``outage``: the database could not be reached from when to when (this process's heartbeat
    failed meanwhile), noted as its last outage."""
    if outage is not None:
        upsert(connection, _STATE, {"key": STORE_OUTAGE_KEY, "value": f"{outage[0]}:{outage[1]}"})
    upsert(connection, _STATE, {"key": HEARTBEAT_KEY, "value": str(stamp)})


def store_outage(session: Session) -> Outage | None:
    """The database's last outage noted (``None``: none)."""
    text = session.scalar(select(_STATE.c.value).where(_STATE.c.key == STORE_OUTAGE_KEY))
    if text is None:
        return None
    start, _, end = text.partition(":")
    return int(start), int(end)


def _lost(live: LiveGame, outage: Outage | None) -> int | None:
    """The time the side to move's clock ran during the database's outage, if its time ran out
    during it (``None``: it did not)."""
    clock = live.clock
    if outage is None or clock is None or live.is_over() or clock.since_ms is None:
        return None
    flag_at = clock.flag_at()
    start, end = outage
    if flag_at is None or not start < flag_at <= end:
        return None
    return end - max(start, clock.since_ms)


def credited_flag_at(live: LiveGame, outage: Outage | None) -> int | None:
    """When the side to move runs out of time once given back what it lost to the database's
    outage (``None``: it lost nothing to it). Nothing is stored for it (a stored change would
    make a move sent again stale): the flag waits until then, and the move is credited."""
    lost = _lost(live, outage)
    flag_at = None if live.clock is None else live.clock.flag_at()
    return None if lost is None or flag_at is None else flag_at + lost


def credit_store_outage(live: LiveGame, outage: Outage | None) -> bool:
    """Give the side to move back what it lost to the database's outage (see
    ``credited_flag_at``): its clock runs from later by that much. Whether it did."""
    lost = _lost(live, outage)
    if lost is None or live.clock is None:
        return False
    live.clock = live.clock.shifted(lost)
    return True


def credit_outage(connection: Connection, started: int, down_after_ms: int) -> int:
    """At a process's start: if no heartbeat came for ``down_after_ms``, the service was down
    from its last heartbeat until ``started``; move the running clocks on by that gap. The
    heartbeat is moved to ``started`` in the same transaction, with a compare-and-set, so that
    of processes starting together exactly one credits the gap. The gap credited (0: none)."""
    table = _STATE
    alive = _heartbeat(connection)
    if alive is None or started - alive < down_after_ms:
        note_alive(connection, started)
        return 0
    moved = connection.execute(
        update(table)
        .where(table.c.key == HEARTBEAT_KEY, table.c.value == str(alive))
        .values(value=str(started))
    )
    if moved.rowcount != 1:
        return 0  # another process credited it first
    since = GameRow.clock_since_ms
    # The service was last known alive at the heartbeat: a clock is charged up to then, and
    # runs again from now (a clock started after the heartbeat is charged nothing for the gap).
    connection.execute(
        update(GameRow)
        .where(GameRow.status == "active", since.is_not(None), since < started)
        .values(
            clock_since_ms=case((since < alive, since + (started - alive)), else_=literal(started))
        )
    )
    return started - alive


def _heartbeat(connection: Connection | Session) -> int | None:
    table = _STATE
    text = connection.execute(select(table.c.value).where(table.c.key == HEARTBEAT_KEY)).scalar()
    return None if text is None else int(text)
