"""The chat's rows written and read: messages, mutes, reports and the moderators' mutes."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Connection, delete, func, insert, select, update
from sqlalchemy.orm import Session

from bluegray.web.chat.rows import (
    ChatMessageRow,
    ChatMuteRow,
    ChatReportRow,
    ChatSilenceRow,
)
from bluegray.web.platform.models import table_of

_MESSAGES = table_of(ChatMessageRow)
_MUTES = table_of(ChatMuteRow)
_REPORTS = table_of(ChatReportRow)
_SILENCES = table_of(ChatSilenceRow)


# -- messages ---------------------------------------------------------------------------------


def add_message(connection: Connection, values: dict[str, object]) -> int:
    key = connection.execute(insert(_MESSAGES).values(values)).inserted_primary_key
    assert key is not None
    return int(key[0])


def message_count(connection: Connection, game_id: str) -> int:
    found = connection.execute(
        select(func.count()).select_from(_MESSAGES).where(_MESSAGES.c.game_id == game_id)
    ).scalar()
    return int(found or 0)


def game_messages(session: Session, game_id: str, limit: int) -> list[ChatMessageRow]:
    """The game's messages, oldest first (the first ``limit``)."""
    rows = session.scalars(
        select(ChatMessageRow)
        .where(ChatMessageRow.game_id == game_id)
        .order_by(ChatMessageRow.id)
        .limit(limit)
    )
    return list(rows)


def read_message(session: Session, message_id: int) -> ChatMessageRow | None:
    return session.get(ChatMessageRow, message_id)


# -- mutes ------------------------------------------------------------------------------------


def muted_by(session: Session, account_id: int) -> set[int]:
    """The accounts this one muted for itself."""
    rows = session.scalars(select(ChatMuteRow.muted_id).where(ChatMuteRow.account_id == account_id))
    return set(rows)


def muters_of(session: Session, author_id: int, among: Iterable[int]) -> set[int]:
    """Those of ``among`` that muted ``author_id``."""
    wanted = set(among)
    if not wanted:
        return set()
    rows = session.scalars(
        select(ChatMuteRow.account_id).where(
            ChatMuteRow.muted_id == author_id, ChatMuteRow.account_id.in_(wanted)
        )
    )
    return set(rows)


def store_mute(connection: Connection, account_id: int, muted_id: int, now: int) -> None:
    exists = connection.execute(
        select(_MUTES.c.account_id).where(
            _MUTES.c.account_id == account_id, _MUTES.c.muted_id == muted_id
        )
    ).first()
    if exists is None:
        connection.execute(
            insert(_MUTES).values(account_id=account_id, muted_id=muted_id, created_ms=now)
        )


def drop_mute(connection: Connection, account_id: int, muted_id: int) -> None:
    connection.execute(
        delete(_MUTES).where(_MUTES.c.account_id == account_id, _MUTES.c.muted_id == muted_id)
    )


# -- the moderators' mutes ----------------------------------------------------------------------


def silenced(session: Session, ids: Iterable[int]) -> set[int]:
    """Those of these accounts that a moderator muted."""
    wanted = set(ids)
    if not wanted:
        return set()
    rows = session.scalars(
        select(ChatSilenceRow.account_id).where(ChatSilenceRow.account_id.in_(wanted))
    )
    return set(rows)


def store_silence(connection: Connection, account_id: int, moderator_id: int, now: int) -> None:
    exists = connection.execute(
        select(_SILENCES.c.account_id).where(_SILENCES.c.account_id == account_id)
    ).first()
    if exists is None:
        connection.execute(
            insert(_SILENCES).values(account_id=account_id, moderator_id=moderator_id, since_ms=now)
        )


def drop_silence(connection: Connection, account_id: int) -> None:
    connection.execute(delete(_SILENCES).where(_SILENCES.c.account_id == account_id))


# -- reports ------------------------------------------------------------------------------------


def add_report(connection: Connection, message_id: int, reporter_id: int, now: int) -> int:
    """The report of this message by this account (a new one, or the one it made before)."""
    found = connection.execute(
        select(_REPORTS.c.id).where(
            _REPORTS.c.message_id == message_id, _REPORTS.c.reporter_id == reporter_id
        )
    ).first()
    if found is not None:
        return int(found.id)
    key = connection.execute(
        insert(_REPORTS).values(
            message_id=message_id, reporter_id=reporter_id, created_ms=now, state="open"
        )
    ).inserted_primary_key
    assert key is not None
    return int(key[0])


def read_report(session: Session, report_id: int) -> ChatReportRow | None:
    return session.get(ChatReportRow, report_id)


def reports_in(
    session: Session, state: str | None, limit: int
) -> list[tuple[ChatReportRow, ChatMessageRow]]:
    """Reports with their messages, newest first (``state``: only those in it)."""
    query = select(ChatReportRow, ChatMessageRow).join(
        ChatMessageRow, ChatMessageRow.id == ChatReportRow.message_id
    )
    if state is not None:
        query = query.where(ChatReportRow.state == state)
    rows = session.execute(query.order_by(ChatReportRow.id.desc()).limit(limit)).all()
    return [(row[0], row[1]) for row in rows]


def decide_report(connection: Connection, report_id: int, state: str, now: int) -> bool:
    """Whether there was such a report."""
    done = connection.execute(
        update(_REPORTS).where(_REPORTS.c.id == report_id).values(state=state, decided_ms=now)
    )
    return bool(done.rowcount)
