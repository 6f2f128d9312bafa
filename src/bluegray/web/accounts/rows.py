"""The accounts' tables: an account, its sessions and its API tokens.

Times are whole milliseconds since the Unix epoch; tables of other domains are named by their
table's name (``ForeignKey("accounts.id")``), so no domain's rows import another's. The
migrations (``migrations/``) create every domain's tables as one schema
(``migrations/schema.py``).

Secrets are never stored: session ids and API tokens only as SHA-256 digests, passwords only
as Argon2id hashes (``passwords``).
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, ForeignKey, Integer, String, UniqueConstraint, false
from sqlalchemy.orm import Mapped, mapped_column

from bluegray.web.platform.models import Base


class AccountRow(Base):
    """A player's account: a name and a password (``accounts`` has the rules)."""

    __tablename__ = "accounts"
    __table_args__ = (UniqueConstraint("name_key", name="uq_accounts_name_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(20))
    """As the player wrote it (3-20 ASCII letters, digits, ``-`` and ``_``)."""
    name_key: Mapped[str] = mapped_column(String(20))
    """The name in lower case: names are unique without regard to case."""
    password_hash: Mapped[str] = mapped_column(String(255))
    """Argon2id, with its parameters and salt (``passwords``)."""
    created_ms: Mapped[int] = mapped_column(BigInteger)
    password_changed_ms: Mapped[int] = mapped_column(BigInteger)
    bot: Mapped[bool] = mapped_column(Boolean, server_default=false())
    """A bot's account: plays through the API with a token, never from the pages."""
    moderator: Mapped[bool] = mapped_column(Boolean, server_default=false())
    closed_ms: Mapped[int | None] = mapped_column(BigInteger)
    """When a moderator closed it (``None``: open). A closed account cannot log in."""
    email: Mapped[str | None] = mapped_column(String(254))
    """Where its notifications go (optional; never shown to others)."""
    notify_turn: Mapped[bool] = mapped_column(Boolean, server_default=false())
    """Whether to email it when it becomes its move in a correspondence game."""
    notify_time: Mapped[bool] = mapped_column(Boolean, server_default=false())
    """Whether to email it when its time in a correspondence game is running out."""
    chat_off: Mapped[bool] = mapped_column(Boolean, server_default=false())
    """Whether it turned the games' chat off: it is shown no chat at all."""


class SessionRow(Base):
    """A browser logged in to an account: the session cookie's value, as a digest."""

    __tablename__ = "sessions"

    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        Integer,
        ForeignKey("accounts.id", ondelete="CASCADE", name="fk_sessions_account_id"),
        index=True,
    )
    created_ms: Mapped[int] = mapped_column(BigInteger)
    expires_ms: Mapped[int] = mapped_column(BigInteger)


class ApiTokenRow(Base):
    """A personal API token of an account (``Authorization: Bearer bgp_...``), as a digest."""

    __tablename__ = "api_tokens"
    __table_args__ = (UniqueConstraint("token_hash", name="uq_api_tokens_token_hash"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(
        Integer,
        ForeignKey("accounts.id", ondelete="CASCADE", name="fk_api_tokens_account_id"),
        index=True,
    )
    token_hash: Mapped[str] = mapped_column(String(64))
    description: Mapped[str] = mapped_column(String(100))
    created_ms: Mapped[int] = mapped_column(BigInteger)
    last_used_ms: Mapped[int | None] = mapped_column(BigInteger)
