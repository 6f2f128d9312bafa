"""An account's notifications: its email address (never shown to others) and the notices it
asked for, kept with the account (``accounts``' columns ``email``, ``notify_turn``,
``notify_time``). The mail (``mail.notices``) asks here whom a notice goes to.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, update
from sqlalchemy.orm import Session

from bluegray.web.accounts.rows import AccountRow
from bluegray.web.platform.db import Database


@dataclass(frozen=True)
class Preferences:
    """An account's email address (never shown to others) and the notices it asked for."""

    email: str | None = None
    turn: bool = False
    time: bool = False


async def preferences(db: Database, account_id: int) -> Preferences:
    def query(session: Session) -> Preferences:
        row = session.get(AccountRow, account_id)
        if row is None:
            return Preferences()
        return Preferences(row.email, bool(row.notify_turn), bool(row.notify_time))

    return await db.read(query)


async def store_preferences(db: Database, account_id: int, chosen: Preferences) -> None:
    def write(connection: Connection) -> None:
        connection.execute(
            update(AccountRow)
            .where(AccountRow.id == account_id)
            .values(email=chosen.email, notify_turn=chosen.turn, notify_time=chosen.time)
        )

    await db.write(write)


def notice_address(session: Session, account_id: int, notice: str) -> tuple[str, str] | None:
    """The account's name and address, if it wants ``notice`` (``turn`` or ``time``) and can get
    it (an open account of a person's, with an address)."""
    row = session.get(AccountRow, account_id)
    if row is None or row.email is None or row.closed_ms is not None or row.bot:
        return None
    wanted = row.notify_turn if notice == "turn" else row.notify_time
    return (row.name, row.email) if wanted else None
