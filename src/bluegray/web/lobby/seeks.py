"""Seeks in the database: an open challenge in the lobby, a challenge to a named player (a seek
with a target) or a place in a quick pairing (a seek that names its preset), each a row of
``seeks`` until it is taken, cancelled, declined or gone.

Taking a seek is deleting its row: ``take_seek`` runs in the transaction that stores the game
it starts, and only the transaction that deletes the row goes on, so of two players accepting
one seek at once, on any processes, exactly one starts a game. Rows that must go (expired, their
lobby socket closed, their process dead) are deleted with ``RETURNING``, so that whichever
process deletes one announces it, once.
"""

from __future__ import annotations

from typing import Any, Final

from sqlalchemy import ColumnElement, Connection, Row, and_, delete, func, insert, or_, select
from sqlalchemy.orm import Session

from bluegray.web.accounts.schemas import SeekPreview
from bluegray.web.games.player_games import GameWithAccount, newest_game_with_account
from bluegray.web.games.schemas import ClockSettings, CorrespondenceSettings
from bluegray.web.lobby.rows import SeekRow
from bluegray.web.lobby.schemas import SeekInfo
from bluegray.web.platform.db import ConflictError
from bluegray.web.platform.models import table_of
from bluegray.web.platform.refusals import NotFound
from bluegray.web.ratings.service import rating_preview

_SEEKS: Final = table_of(SeekRow)
LIST_LIMIT: Final = 500
"""The most seeks the lobby lists (the newest)."""


class SeekGoneError(ConflictError):
    """The seek was taken, cancelled or expired before this transaction could take it."""


class TooManySeeksError(ConflictError):
    """The account already has as many open seeks as it may (nothing was written)."""


def seek_info(row: SeekRow | Row[Any]) -> SeekInfo:
    clock = None
    if row.clock_initial_ms is not None:
        clock = ClockSettings(
            minutes=row.clock_initial_ms / 60_000,
            increment_seconds=(row.clock_increment_ms or 0) / 1000,
        )
    correspondence = None
    if row.corr_days is not None:
        correspondence = CorrespondenceSettings.model_validate({"days": row.corr_days})
    return SeekInfo(
        id=row.id,
        player=row.account_name,
        bot=bool(row.bot),
        rating=round(row.rating, 1),
        provisional=bool(row.provisional),
        rules=row.rules,
        time_class=row.time_class,  # type: ignore[arg-type]
        clock=clock,
        correspondence=correspondence,
        rated=bool(row.rated),
        color=row.color,  # type: ignore[arg-type]
        rating_min=row.rating_min,
        rating_max=row.rating_max,
        to=row.target_name,
        quick=row.quick,
        created_ms=row.created_ms,
        expires_ms=row.expires_ms,
    )


def in_range(row: SeekRow | Row[Any], rating: float) -> bool:
    """Whether a player of ``rating`` may accept the seek."""
    low, high = row.rating_min, row.rating_max
    return (low is None or rating >= low) and (high is None or rating <= high)


def insert_seek(connection: Connection, values: dict[str, Any], most: int, now: int) -> None:
    """Store a seek, unless its account already has ``most`` open (``TooManySeeksError``)."""
    count = connection.execute(
        select(func.count())
        .select_from(_SEEKS)
        .where(_SEEKS.c.account_id == values["account_id"], _SEEKS.c.expires_ms > now)
    ).scalar()
    if (count or 0) >= most:
        raise TooManySeeksError(f"account {values['account_id']} has {count} open seeks")
    connection.execute(insert(_SEEKS), [values])


def take_seek(connection: Connection, seek_id: str) -> None:
    """Delete the seek as it is taken; ``SeekGoneError`` if it is no longer there."""
    result = connection.execute(delete(_SEEKS).where(_SEEKS.c.id == seek_id))
    if result.rowcount != 1:
        raise SeekGoneError(f"seek {seek_id} is gone")


def remove_seeks(connection: Connection, *where: ColumnElement[bool]) -> list[Row[Any]]:
    """Delete the seeks that match, returning the rows this transaction deleted."""
    return list(connection.execute(delete(_SEEKS).where(*where).returning(_SEEKS)).all())


def expired_or_orphaned(now: int, live_processes: list[str] | None) -> ColumnElement[bool]:
    """Seeks past their time, or (given the live processes) posted with a lobby socket on a
    process that is no longer alive."""
    condition: ColumnElement[bool] = _SEEKS.c.expires_ms <= now
    if live_processes is not None:
        orphaned = and_(_SEEKS.c.connection.is_not(None), _SEEKS.c.process.not_in(live_processes))
        condition = or_(condition, orphaned)
    return condition


def by_connection(connection_id: str) -> ColumnElement[bool]:
    return _SEEKS.c.connection == connection_id


def by_account(account_id: int) -> ColumnElement[bool]:
    return or_(_SEEKS.c.account_id == account_id, _SEEKS.c.target_id == account_id)


def by_id(seek_id: str) -> ColumnElement[bool]:
    return _SEEKS.c.id == seek_id


def read_seek(session: Session, seek_id: str, now: int) -> SeekRow | None:
    row = session.get(SeekRow, seek_id)
    return None if row is None or row.expires_ms <= now else row


def seek_preview(session: Session, seek_id: str, account_id: int, now: int) -> SeekPreview:
    """What accepting a rated seek or challenge would do to both ratings (404: no such seek, or
    one not rated, or the player's own)."""
    row = read_seek(session, seek_id, now)
    if row is None or not row.rated or row.account_id == account_id:
        raise NotFound("not_found", "no rated seek by another player with this id")
    if row.target_id is not None and row.target_id != account_id:
        raise NotFound("not_found", "no rated seek by another player with this id")
    pool = f"{row.rules}/{row.time_class}"
    both = rating_preview(session.connection(), pool, account_id, row.account_id, now)
    return SeekPreview(pool=pool, you=both.blue, them=both.gray)


def open_seeks(session: Session, now: int) -> list[SeekInfo]:
    """The lobby's seeks (not challenges), oldest first."""
    rows = session.scalars(
        select(SeekRow)
        .where(SeekRow.target_id.is_(None), SeekRow.expires_ms > now)
        .order_by(SeekRow.created_ms.desc(), SeekRow.id)
        .limit(LIST_LIMIT)
    )
    return [seek_info(row) for row in reversed(list(rows))]


def challenges_of(session: Session, account_id: int, now: int) -> tuple[list[SeekInfo], ...]:
    """The challenges an account has received and sent, oldest first."""
    rows = list(
        session.scalars(
            select(SeekRow)
            .where(
                SeekRow.target_id.is_not(None),
                or_(SeekRow.target_id == account_id, SeekRow.account_id == account_id),
                SeekRow.expires_ms > now,
            )
            .order_by(SeekRow.created_ms, SeekRow.id)
        )
    )
    incoming = [seek_info(row) for row in rows if row.target_id == account_id]
    outgoing = [seek_info(row) for row in rows if row.account_id == account_id]
    return incoming, outgoing


def waiting_quick(session: Session, key: str, account_id: int, now: int) -> list[SeekRow]:
    """The seeks waiting in a quick pairing, from other accounts, oldest first."""
    statement = select(SeekRow).where(
        SeekRow.quick == key, SeekRow.account_id != account_id, SeekRow.expires_ms > now
    )
    return list(session.scalars(statement.order_by(SeekRow.created_ms, SeekRow.id).limit(50)))


def waiting_in_quick_pairings(session: Session, now: int) -> list[SeekRow]:
    """Every seek waiting in a quick pairing, oldest first (the longest waits pair first)."""
    statement = select(SeekRow).where(SeekRow.quick.is_not(None), SeekRow.expires_ms > now)
    return list(session.scalars(statement.order_by(SeekRow.created_ms, SeekRow.id).limit(200)))


def drop_seeks_of(connection: Connection, account_id: int, now: int) -> None:
    """A closing step (``endings.CLOSING_STEPS``): the account's seeks and challenges go, and
    those sent to it."""
    connection.execute(delete(_SEEKS).where(by_account(account_id)))


def game_from_taken_seek(session: Session, seek: SeekRow, now: int) -> GameWithAccount | None:
    """The game that took the account's ``seek`` (``None`` while the seek still waits): the
    account's newest game with another account, started since the seek was posted. (A seek is
    deleted as it is taken, so the game is found by its seat.)"""
    if read_seek(session, seek.id, now) is not None:
        return None
    return newest_game_with_account(session, seek.account_id, seek.created_ms)
