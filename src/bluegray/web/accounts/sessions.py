"""Login sessions: a random id in an HttpOnly cookie (``bluegray_session``), kept in the database
as a digest, so that a session made on one process is good on every other and ends everywhere at
once (logging out, changing the password, a moderator closing the account).

A new id is made at every login (no session fixation: an id a browser had before logging in
never becomes a logged-in one), and only ids this server made are ever accepted.

CSRF tokens come from the secret the browser holds: the session id when logged in, else the
browser id. The token is a digest of it (so the page can be given it and the server can check it
on any process, with nothing stored), and a page elsewhere, which cannot read the cookie, cannot
make it.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Final

from sqlalchemy import Connection, delete, insert, select
from sqlalchemy.orm import Session

from bluegray.web.accounts.players import Account, account_of_row
from bluegray.web.accounts.rows import AccountRow, SessionRow
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.db import Database
from bluegray.web.platform.models import table_of
from bluegray.web.platform.security import digest

SESSION_COOKIE: Final = "bluegray_session"
SESSION_DAYS: Final = 30
SESSION_MS: Final = SESSION_DAYS * 24 * 3600 * 1000
"""How long a session lasts from its login."""
SESSION_ID_PATTERN: Final = r"[A-Za-z0-9_-]{43}"
CSRF_HEADER: Final = "X-CSRF-Token"

_SESSIONS: Final = table_of(SessionRow)


def new_session_id() -> str:
    """256 random bits, URL-safe (43 characters)."""
    return secrets.token_urlsafe(32)


def csrf_token(secret: str) -> str:
    """The CSRF token that goes with a cookie's secret (a session id or a browser id)."""
    return hashlib.sha256(b"bluegray csrf\x00" + secret.encode()).hexdigest()


def csrf_matches(given: str | None, secret: str) -> bool:
    return given is not None and secrets.compare_digest(given.encode(), csrf_token(secret).encode())


class Sessions:
    """The sessions in the database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def start(self, account_id: int, *, replacing: str | None = None) -> str:
        """A new session for the account (its id, for the cookie). The session ``replacing`` (the
        browser's session before, if any) ends, and so do the account's expired ones."""
        session_id = new_session_id()
        now = now_ms()

        def write(connection: Connection) -> None:
            if replacing is not None:
                connection.execute(
                    delete(_SESSIONS).where(_SESSIONS.c.id_hash == digest(replacing))
                )
            connection.execute(
                delete(_SESSIONS).where(
                    _SESSIONS.c.account_id == account_id, _SESSIONS.c.expires_ms <= now
                )
            )
            connection.execute(
                insert(_SESSIONS).values(
                    id_hash=digest(session_id),
                    account_id=account_id,
                    created_ms=now,
                    expires_ms=now + SESSION_MS,
                )
            )

        await self.db.write(write)
        return session_id

    async def account_of(self, session_id: str) -> Account | None:
        """The open account a session is logged in to (``None``: no such session, or expired,
        or the account is closed)."""
        hashed = digest(session_id)
        now = now_ms()

        def read(session: Session) -> Account | None:
            row = session.scalar(
                select(AccountRow)
                .join(SessionRow, SessionRow.account_id == AccountRow.id)
                .where(SessionRow.id_hash == hashed, SessionRow.expires_ms > now)
            )
            if row is None or row.closed_ms is not None:
                return None
            return account_of_row(row)

        return await self.db.read(read)

    async def end(self, session_id: str) -> None:
        hashed = digest(session_id)
        await self.db.write(
            lambda connection: connection.execute(
                delete(_SESSIONS).where(_SESSIONS.c.id_hash == hashed)
            )
        )

    async def end_all(self, account_id: int) -> None:
        """End every session of the account, on every process."""
        await self.db.write(lambda connection: end_sessions(connection, account_id))

    async def count(self, account_id: int) -> int:
        """The account's sessions that have not expired."""
        now = now_ms()

        def read(session: Session) -> int:
            rows = session.scalars(
                select(SessionRow.id_hash).where(
                    SessionRow.account_id == account_id, SessionRow.expires_ms > now
                )
            )
            return len(list(rows))

        return await self.db.read(read)


def end_sessions(connection: Connection, account_id: int) -> None:
    """End every session of an account (in the caller's transaction)."""
    connection.execute(delete(_SESSIONS).where(_SESSIONS.c.account_id == account_id))
