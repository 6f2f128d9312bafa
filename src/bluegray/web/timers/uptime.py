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
again once the database is back, counts as in time; other clocks are charged as usual. What the
outages do to the games' clocks is the games' own (``games.outages``): this module keeps the
heartbeat and the outages it saw.
"""

from __future__ import annotations

from typing import Final

from sqlalchemy import Connection, select, update
from sqlalchemy.orm import Session

from bluegray.web.platform.db import upsert
from bluegray.web.platform.models import ServerStateRow, table_of

HEARTBEAT_KEY: Final = "heartbeat_ms"
STORE_OUTAGE_KEY: Final = "store_outage_ms"
"""The database's last outage seen by the heartbeat: ``FROM:TO`` in milliseconds."""

Outage = tuple[int, int]
"""From when to when (milliseconds since the epoch) the database could not be reached."""
_STATE: Final = table_of(ServerStateRow)


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


def claim_outage(connection: Connection, started: int, down_after_ms: int) -> int | None:
    """At a process's start: if no heartbeat came for ``down_after_ms``, the service was down
    from its last heartbeat until ``started``. The heartbeat is moved to ``started`` with a
    compare-and-set, so that of processes starting together exactly one claims the gap: that
    one is answered the last heartbeat (the gap's start; ``None``: no gap, or another process
    claimed it). The games move their running clocks on by it in the same transaction
    (``games.outages.credit_outage``)."""
    table = _STATE
    alive = _heartbeat(connection)
    if alive is None or started - alive < down_after_ms:
        note_alive(connection, started)
        return None
    moved = connection.execute(
        update(table)
        .where(table.c.key == HEARTBEAT_KEY, table.c.value == str(alive))
        .values(value=str(started))
    )
    if moved.rowcount != 1:
        return None  # another process claimed it first
    return alive


def _heartbeat(connection: Connection | Session) -> int | None:
    table = _STATE
    text = connection.execute(select(table.c.value).where(table.c.key == HEARTBEAT_KEY)).scalar()
    return None if text is None else int(text)
