"""An account's chat setting: whether it turned the games' chat off (``accounts``' column
``chat_off``). The chat (``chat.service``) asks here whom it shows nothing."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Connection, select, update
from sqlalchemy.orm import Session

from bluegray.web.accounts.rows import AccountRow


def chat_off(session: Session, account_id: int) -> bool:
    row = session.get(AccountRow, account_id)
    return row is not None and bool(row.chat_off)


def chat_off_among(session: Session, ids: Iterable[int]) -> set[int]:
    """Those of these accounts that turned the chat off."""
    wanted = set(ids)
    if not wanted:
        return set()
    rows = session.scalars(
        select(AccountRow.id).where(AccountRow.id.in_(wanted), AccountRow.chat_off.is_(True))
    )
    return set(rows)


def store_chat_off(connection: Connection, account_id: int, off: bool) -> None:
    connection.execute(update(AccountRow).where(AccountRow.id == account_id).values(chat_off=off))
