"""Personal API tokens: an account's programs (a bot, a script) send one as
``Authorization: Bearer bgp_...`` over HTTP, or in the WebSocket ``hello``, instead of logging in.

A token is ``bgp_`` and 256 random bits; only its SHA-256 is stored, and it is shown once, when it
is made. The prefix tells a token from a seat token at a glance (and to secret scanners).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Final

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.orm import Session

from bluegray.web.accounts.players import Account, account_of_row
from bluegray.web.accounts.rows import AccountRow, ApiTokenRow
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.db import Database
from bluegray.web.platform.models import table_of
from bluegray.web.platform.refusals import Conflict, NotFound
from bluegray.web.platform.security import digest

TOKEN_PREFIX: Final = "bgp_"
TOKENS_PER_ACCOUNT: Final = 20
USED_EVERY_MS: Final = 60_000
"""A token's ``last_used_ms`` is written at most this often."""

_TOKENS: Final = table_of(ApiTokenRow)


@dataclass(frozen=True)
class TokenInfo:
    id: int
    description: str
    created_ms: int
    last_used_ms: int | None


def is_api_token(text: str) -> bool:
    """Whether a bearer credential is meant as an API token (else it is a seat token)."""
    return text.startswith(TOKEN_PREFIX)


def new_api_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


class ApiTokens:
    """The accounts' API tokens in the database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def create(self, account: Account, description: str) -> tuple[TokenInfo, str]:
        """A new token for the account: what is kept of it, and the token itself (shown once)."""
        token = new_api_token()
        now = now_ms()

        def write(connection: Connection) -> int | None:
            count = len(
                list(
                    connection.execute(
                        select(_TOKENS.c.id).where(_TOKENS.c.account_id == account.id)
                    )
                )
            )
            if count >= TOKENS_PER_ACCOUNT:
                return None
            result = connection.execute(
                insert(_TOKENS).values(
                    account_id=account.id,
                    token_hash=digest(token),
                    description=description,
                    created_ms=now,
                    last_used_ms=None,
                )
            )
            key = result.inserted_primary_key
            return None if key is None else int(key[0])

        token_id = await self.db.write(write)
        if token_id is None:
            raise Conflict(
                "not_allowed",
                f"an account has at most {TOKENS_PER_ACCOUNT} tokens: revoke one first",
            )
        return TokenInfo(token_id, description, now, None), token

    async def held_by(self, account: Account) -> list[TokenInfo]:
        def read(session: Session) -> list[TokenInfo]:
            rows = session.scalars(
                select(ApiTokenRow)
                .where(ApiTokenRow.account_id == account.id)
                .order_by(ApiTokenRow.id)
            )
            return [
                TokenInfo(row.id, row.description, row.created_ms, row.last_used_ms) for row in rows
            ]

        return await self.db.read(read)

    async def revoke(self, account: Account, token_id: int) -> None:
        """End a token of the account (404 if it has no such token)."""

        def write(connection: Connection) -> int:
            result = connection.execute(
                delete(_TOKENS).where(_TOKENS.c.id == token_id, _TOKENS.c.account_id == account.id)
            )
            return int(result.rowcount)

        if not await self.db.write(write):
            raise NotFound("not_found", f"token {token_id} not found")

    async def account_of(self, token: str) -> Account | None:
        """The open account a token belongs to (``None``: unknown, revoked, or closed)."""
        hashed = digest(token)

        def read(session: Session) -> tuple[Account, int, int | None] | None:
            found = session.execute(
                select(AccountRow, ApiTokenRow.id, ApiTokenRow.last_used_ms)
                .join(ApiTokenRow, ApiTokenRow.account_id == AccountRow.id)
                .where(ApiTokenRow.token_hash == hashed)
            ).first()
            if found is None or found[0].closed_ms is not None:
                return None
            return account_of_row(found[0]), found[1], found[2]

        found = await self.db.read(read)
        if found is None:
            return None
        account, token_id, used = found
        now = now_ms()
        if used is None or now - used >= USED_EVERY_MS:
            await self.db.write(
                lambda connection: connection.execute(
                    update(_TOKENS).where(_TOKENS.c.id == token_id).values(last_used_ms=now)
                )
            )
        return account


def end_tokens(connection: Connection, account_id: int) -> None:
    """Revoke every token of an account (in the caller's transaction)."""
    connection.execute(delete(_TOKENS).where(_TOKENS.c.account_id == account_id))
