"""Idempotency keys of game creation: a client that sends ``Idempotency-Key`` with a new game
can send the same request again when it did not get the answer (a lost connection, a 503), and
gets the same game, never a second one.

A key is its caller's (an account's, or else a browser's), kept for a day in the same
transaction as the game it created. The answer's secrets (the seat token, a friend's invite
code) are not stored: they are derived from a random salt, stored, and the key itself, which is
not (only its digest is), so that the same request gives them again while the database alone
does not. A key sent with a different request is refused (422 ``idempotency_key_reused``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from typing import Final

from sqlalchemy import Connection, delete, insert, select
from sqlalchemy.orm import Session

from bluegray.web.games.players import Player
from bluegray.web.games.rows import IdempotencyKeyRow
from bluegray.web.platform.db import ConflictError
from bluegray.web.platform.models import table_of
from bluegray.web.platform.refusals import Invalid
from bluegray.web.platform.security import digest

KEEP_MS: Final = 24 * 3600 * 1000
"""How long a key answers the game it created."""
KEY_PATTERN: Final = re.compile(r"[!-~]{1,255}")
"""A key: 1 to 255 printable ASCII characters (a random UUID, say)."""
HEADER: Final = "Idempotency-Key"
_KEYS: Final = table_of(IdempotencyKeyRow)


@dataclass(frozen=True)
class Keyed:
    """A creation sent with an idempotency key: whose, the key, and what was asked."""

    caller: str
    key: str
    request_hash: str

    @classmethod
    def of(cls, key: str, browser: str, player: Player | None, request_text: str) -> Keyed:
        """``request_text``: the request as read (its canonical JSON), to tell a retry from a
        different request with the same key."""
        if not KEY_PATTERN.fullmatch(key):
            raise Invalid(
                "invalid_request",
                f"invalid {HEADER}: 1 to 255 printable ASCII characters, e.g. a random UUID",
            )
        caller = f"account:{player.id}" if player is not None else f"browser:{browser}"
        return cls(caller, key, digest(request_text))

    @property
    def key_hash(self) -> str:
        return digest(self.key)

    def secrets(self, salt: str) -> tuple[str, str]:
        """The seat token and the invite code of the game this key creates."""
        seat = hmac.digest(bytes.fromhex(salt), b"seat\n" + self.key.encode(), hashlib.sha256)
        code = hmac.digest(bytes.fromhex(salt), b"invite\n" + self.key.encode(), hashlib.sha256)
        return _text(seat), _text(code[:18])


@dataclass(frozen=True)
class Remembered:
    """The game a key created, and the salt of its secrets."""

    game_id: str
    salt: str


def new_salt() -> str:
    return secrets.token_hex(32)


def remembered(session: Session, keyed: Keyed, now: int) -> Remembered | None:
    """The game the key created less than a day ago (``None``: none); a 422 if the key came
    with a different request then."""
    row = session.scalar(
        select(IdempotencyKeyRow).where(
            IdempotencyKeyRow.caller == keyed.caller,
            IdempotencyKeyRow.key_hash == keyed.key_hash,
            IdempotencyKeyRow.created_ms > now - KEEP_MS,
        )
    )
    if row is None:
        return None
    if not secrets.compare_digest(row.request_hash, keyed.request_hash):
        raise Invalid(
            "idempotency_key_reused",
            f"this {HEADER} was sent with a different request: use a new key for a new game",
        )
    return Remembered(row.game_id, row.salt)


def remember(connection: Connection, keyed: Keyed, game_id: str, salt: str, now: int) -> None:
    """Keep the key with the game it created (in the game's transaction); keys over a day
    old go. Two requests with the same key at once: the second one to be stored finds the key
    taken (or, on PostgreSQL, its insert fails on the key), and its game is not stored
    (``ConflictError`` or ``IntegrityError``)."""
    table = _KEYS
    connection.execute(delete(table).where(table.c.created_ms <= now - KEEP_MS))
    taken = connection.execute(
        select(table.c.caller).where(
            table.c.caller == keyed.caller, table.c.key_hash == keyed.key_hash
        )
    ).first()
    if taken is not None:  # another request with the key was stored first: this one is not
        raise ConflictError(f"{HEADER} already used")
    connection.execute(
        insert(table).values(
            caller=keyed.caller,
            key_hash=keyed.key_hash,
            request_hash=keyed.request_hash,
            game_id=game_id,
            salt=salt,
            created_ms=now,
        )
    )


def _text(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
