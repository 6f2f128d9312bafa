"""Players with accounts: an account as the rest of the app sees it, and the rules for names.

A name is 3 to 20 ASCII letters, digits, ``-`` and ``_``, unique without regard to case (its
lower-case form is the key). Names never change, so a game keeps the names of its players.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from bluegray.web.errors import ApiError
from bluegray.web.models import AccountRow

NAME_PATTERN: Final = r"^[A-Za-z0-9_-]{3,20}$"
_NAME: Final = re.compile(NAME_PATTERN)
RESERVED_NAMES: Final = frozenset(
    {"admin", "ai", "anonymous", "bluegray", "bot", "moderator", "root", "system"}
)
"""Names nobody may take: they would pass for the site's or the AI's."""


@dataclass(frozen=True)
class Account:
    """An account as the app sees it (never its password hash)."""

    id: int
    name: str
    created_ms: int
    bot: bool = False
    moderator: bool = False
    closed_ms: int | None = None

    @property
    def closed(self) -> bool:
        return self.closed_ms is not None


def account_of_row(row: AccountRow) -> Account:
    return Account(
        id=row.id,
        name=row.name,
        created_ms=row.created_ms,
        bot=bool(row.bot),
        moderator=bool(row.moderator),
        closed_ms=row.closed_ms,
    )


def name_key(name: str) -> str:
    """The form of a name that is unique: lower case."""
    return name.lower()


def is_name(text: str) -> bool:
    return _NAME.fullmatch(text) is not None


def check_new_name(name: str) -> str:
    """A name someone may take (422 ``invalid_name`` saying why not)."""
    if not is_name(name):
        raise ApiError(
            422,
            "invalid_name",
            "a name is 3 to 20 characters: ASCII letters, digits, '-' and '_'",
        )
    if name_key(name) in RESERVED_NAMES:
        raise ApiError(422, "invalid_name", "that name is reserved: choose another")
    return name
