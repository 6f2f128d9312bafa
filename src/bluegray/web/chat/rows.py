"""The chat's tables: the messages of each game, the mutes each account chose, the reports of
messages, and the accounts a moderator silenced.

Times are whole milliseconds since the Unix epoch; the games and accounts are named by their
tables' names (``ForeignKey("games.id")``), never by import.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from bluegray.web.platform.models import Base


class ChatMessageRow(Base):
    """One message of a game's chat: free text (an account's) or a canned message's key."""

    __tablename__ = "chat_messages"
    __table_args__ = (Index("ix_chat_messages_game", "game_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(
        String(16),
        ForeignKey("games.id", ondelete="CASCADE", name="fk_chat_messages_game_id"),
    )
    sent_ms: Mapped[int] = mapped_column(BigInteger)
    ply: Mapped[int] = mapped_column(Integer)
    """The moves played when it was sent."""
    room: Mapped[str] = mapped_column(String(10))
    """``players`` or ``spectators``."""
    after_end: Mapped[bool] = mapped_column(Boolean)
    """Sent once the game was over (a spectators' message then reaches the players at once)."""
    author_id: Mapped[int | None] = mapped_column(
        Integer,
        ForeignKey("accounts.id", ondelete="CASCADE", name="fk_chat_messages_author_id"),
        index=True,
    )
    """``None``: a player without an account (canned messages only)."""
    author_name: Mapped[str | None] = mapped_column(String(20))
    author_side: Mapped[str | None] = mapped_column(String(4))
    """The side its author plays (``blue``, ``gray``; ``None``: a spectator, or both sides)."""
    text: Mapped[str | None] = mapped_column(String(140))
    canned: Mapped[str | None] = mapped_column(String(20))


class ChatMuteRow(Base):
    """An account that another muted for itself: it sees nothing of it."""

    __tablename__ = "chat_mutes"

    account_id: Mapped[int] = mapped_column(
        Integer,
        ForeignKey("accounts.id", ondelete="CASCADE", name="fk_chat_mutes_account_id"),
        primary_key=True,
    )
    muted_id: Mapped[int] = mapped_column(
        Integer,
        ForeignKey("accounts.id", ondelete="CASCADE", name="fk_chat_mutes_muted_id"),
        primary_key=True,
    )
    created_ms: Mapped[int] = mapped_column(BigInteger)


class ChatReportRow(Base):
    """A message reported to the moderators, and what they did with it."""

    __tablename__ = "chat_reports"
    __table_args__ = (
        UniqueConstraint("message_id", "reporter_id", name="uq_chat_reports_message_reporter"),
        Index("ix_chat_reports_state", "state", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    message_id: Mapped[int] = mapped_column(
        Integer,
        ForeignKey("chat_messages.id", ondelete="CASCADE", name="fk_chat_reports_message_id"),
    )
    reporter_id: Mapped[int] = mapped_column(
        Integer,
        ForeignKey("accounts.id", ondelete="CASCADE", name="fk_chat_reports_reporter_id"),
    )
    created_ms: Mapped[int] = mapped_column(BigInteger)
    state: Mapped[str] = mapped_column(String(10))
    """``open``, ``dismissed`` or ``acted`` (the author muted or closed)."""
    decided_ms: Mapped[int | None] = mapped_column(BigInteger)


class ChatSilenceRow(Base):
    """An account a moderator muted: nothing it writes reaches anyone, in any game."""

    __tablename__ = "chat_silences"

    account_id: Mapped[int] = mapped_column(
        Integer,
        ForeignKey("accounts.id", ondelete="CASCADE", name="fk_chat_silences_account_id"),
        primary_key=True,
    )
    moderator_id: Mapped[int | None] = mapped_column(
        Integer,
        ForeignKey("accounts.id", ondelete="SET NULL", name="fk_chat_silences_moderator_id"),
    )
    since_ms: Mapped[int] = mapped_column(BigInteger)
