"""The service's heartbeat: every web process notes in the database, every few seconds, that the
service is alive. When a process starts and finds the last heartbeat old, the whole service was
down (no process alive) since then: the running clocks are moved on by that gap, so that nobody
loses time to an outage. While any process lives, clocks run as usual, charged from each game's
own record of time, whichever processes come and go.
"""

from __future__ import annotations

from typing import Final

from sqlalchemy import Connection, case, literal, select, update

from bluegray.web.db import upsert
from bluegray.web.models import Base, GameRow

HEARTBEAT_KEY: Final = "heartbeat_ms"
_STATE: Final = Base.metadata.tables["server_state"]


def note_alive(connection: Connection, stamp: int) -> None:
    """The service is alive at ``stamp`` (one statement: processes beating at once all
    succeed)."""
    upsert(connection, _STATE, {"key": HEARTBEAT_KEY, "value": str(stamp)})


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


def _heartbeat(connection: Connection) -> int | None:
    table = _STATE
    text = connection.execute(select(table.c.value).where(table.c.key == HEARTBEAT_KEY)).scalar()
    return None if text is None else int(text)
