"""What the service's outages do to the games' clocks (the heartbeat that sees them is
``timers.uptime``).

When the whole service was down (no process alive), the running clocks are moved on by the gap,
so that nobody loses time to it (``credit_outage``, at a process's start). When the database
alone was out, a side whose time ran out during the outage gets back the time its clock ran
during it: its flag falls that much later, and its move, sent again once the database is back,
counts as in time (``credited_flag_at``, ``credit_store_outage``); other clocks are charged as
usual.
"""

from __future__ import annotations

from sqlalchemy import Connection, case, literal, update

from bluegray.web.games.live import LiveGame
from bluegray.web.games.rows import GameRow
from bluegray.web.timers.uptime import Outage, claim_outage


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
    from its last heartbeat until ``started``; move the running clocks on by that gap, in the
    transaction that claims it (``claim_outage``), so that of processes starting together
    exactly one credits the gap. The gap credited (0: none)."""
    alive = claim_outage(connection, started, down_after_ms)
    if alive is None:
        return 0
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
