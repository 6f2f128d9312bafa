"""A player as the games see one: an account's id, its name and whether it is a bot's.

The games need nothing more of an account, so they name it with this protocol of their own;
the accounts' ``Account`` has these three and fits it as it is (the games import nothing of
the accounts).
"""

from __future__ import annotations

from typing import Protocol


class Player(Protocol):
    """An account that plays a seat: read-only, as the accounts' frozen ``Account`` is."""

    @property
    def id(self) -> int:
        """The account's id."""

    @property
    def name(self) -> str:
        """The account's name, as it was written (names never change)."""

    @property
    def bot(self) -> bool:
        """Whether the account is a bot's."""
