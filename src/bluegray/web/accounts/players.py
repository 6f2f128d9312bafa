"""Players with accounts: an account as the rest of the app sees it, and the rules for names.

A name is 3 to 20 ASCII letters, digits, ``-`` and ``_``, unique without regard to case (its
lower-case form is the key). Names never change, so a game keeps the names of its players.

Reserved words are matched by skeleton, not exactly: a name that only looks like one (``adm1n``,
``Admin_``) or is one with digits or a staff-like suffix after it (``moderator2``,
``bluegray-team``) would pass for the site's or the AI's, and is refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from sqlalchemy import Connection, select
from sqlalchemy.orm import Session

from bluegray.web.accounts.rows import AccountRow
from bluegray.web.platform.refusals import Invalid

NAME_PATTERN: Final = r"^[A-Za-z0-9_-]{3,20}$"
_NAME: Final = re.compile(NAME_PATTERN)
RESERVED_NAMES: Final = frozenset(
    {
        "admin",
        "administrator",
        "ai",
        "anonymous",
        "bluegray",
        "bot",
        "moderator",
        "root",
        "staff",
        "support",
        "system",
    }
)
"""Words nobody may take as a name, or as a name's skeleton (``skeleton``): they would pass for
the site's or the AI's."""
RESERVED_SUFFIXES: Final = frozenset(
    {"team", "staff", "official", "support", "help", "admin", "mod", "crew", "bot"}
)
"""What may not follow a reserved word in a name (nor digits, nor ``-`` and ``_``)."""
_LOOKALIKE: Final = str.maketrans("01i3457", "olleast", "-_")
"""Characters written like others (``0`` like ``o``; ``1`` and ``i`` like ``l``...), and the
separators, which a skeleton leaves out."""


def skeleton(text: str) -> str:
    """A name as it looks, for comparing with the reserved words: lower case, ``0→o 1→l i→l
    3→e 4→a 5→s 7→t``, without ``-`` and ``_`` (``Adm1n_`` and ``admin`` have the same)."""
    return text.lower().translate(_LOOKALIKE)


_RESERVED_SKELETONS: Final = frozenset(skeleton(word) for word in RESERVED_NAMES)
_SUFFIX_SKELETONS: Final = frozenset(skeleton(word) for word in RESERVED_SUFFIXES)


def is_reserved(name: str) -> bool:
    """Whether a name's skeleton is a reserved word's, or a reserved word's followed by digits,
    separators or a suffix such as ``team`` or ``staff`` (``badminton`` is none of these)."""
    plain = name.lower().replace("-", "").replace("_", "")
    shown = skeleton(plain)
    for word in _RESERVED_SKELETONS:
        if shown.startswith(word):
            rest = plain[len(word) :].rstrip("0123456789")
            if not rest or skeleton(rest) in _SUFFIX_SKELETONS:
                return True
    return False


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


def read_account(session: Session, account_id: int) -> Account | None:
    """The account with this id (``None``: none)."""
    row = session.get(AccountRow, account_id)
    return None if row is None else account_of_row(row)


def find_account(session: Session, name: str) -> AccountRow | None:
    """The account of a name, in any case (closed ones too)."""
    return session.scalar(select(AccountRow).where(AccountRow.name_key == name_key(name)))


def read_account_named(session: Session, name: str) -> Account | None:
    """The account with this name, without regard to case (``None``: none)."""
    row = find_account(session, name)
    return None if row is None else account_of_row(row)


def read_accounts(session: Session, ids: Iterable[int]) -> dict[int, Account]:
    """The accounts with these ids, by id (an id without an account is left out)."""
    rows = session.scalars(select(AccountRow).where(AccountRow.id.in_(set(ids))))
    return {row.id: account_of_row(row) for row in rows}


def lock_accounts(connection: Connection, ids: Iterable[int]) -> set[int]:
    """Hold the accounts' rows until the transaction ends (PostgreSQL; SQLite has one writer),
    always in the same order, so that work on one account done at once by two transactions (two
    games ending for one player; two tournaments created by one account) is done one after the
    other, and after a closing. The ids of those closed."""
    rows = connection.execute(
        select(AccountRow.id, AccountRow.closed_ms)
        .where(AccountRow.id.in_(sorted(set(ids))))
        .order_by(AccountRow.id)
        .with_for_update()
    ).all()
    return {row.id for row in rows if row.closed_ms is not None}


def name_key(name: str) -> str:
    """The form of a name that is unique: lower case."""
    return name.lower()


def is_name(text: str) -> bool:
    return _NAME.fullmatch(text) is not None


def check_new_name(name: str) -> str:
    """A name someone may take (422 ``invalid_name`` saying why not)."""
    if not is_name(name):
        raise Invalid(
            "invalid_name",
            "a name is 3 to 20 characters: ASCII letters, digits, '-' and '_'",
        )
    if is_reserved(name):
        raise Invalid("invalid_name", "that name is reserved: choose another")
    return name
