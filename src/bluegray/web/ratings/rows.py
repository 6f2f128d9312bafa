"""The ratings' tables: an account's rating in each pool, and its history game by game.

Times are whole milliseconds since the Unix epoch; tables of other domains are named by their
table's name (``ForeignKey("accounts.id")``), so no domain's rows import another's. The
migrations (``migrations/``) create every domain's tables as one schema
(``migrations/schema.py``).
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, Float, ForeignKey, Index, Integer, String, false
from sqlalchemy.orm import Mapped, mapped_column

from bluegray.web.platform.models import Base


class RatingRow(Base):
    """An account's Glicko-2 rating in one pool (a preset rule set and a time class)."""

    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_pool_rating", "pool", "rating"),)

    account_id: Mapped[int] = mapped_column(
        Integer,
        ForeignKey("accounts.id", ondelete="CASCADE", name="fk_ratings_account_id"),
        primary_key=True,
    )
    pool: Mapped[str] = mapped_column(String(48), primary_key=True)
    """``rules/time class``, e.g. ``sackson/real-time``."""
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    """Rated games counted (voided ones not)."""
    rated_ms: Mapped[int] = mapped_column(BigInteger)
    """When its last rated game ended (the deviation grows from then)."""


class RatingHistoryRow(Base):
    """One player's rating before and after one rated game."""

    __tablename__ = "rating_history"
    __table_args__ = (
        Index("ix_rating_history_account_pool", "account_id", "pool", "ended_ms"),
        Index("ix_rating_history_pool_ended", "pool", "ended_ms"),
    )

    game_id: Mapped[str] = mapped_column(
        String(16),
        ForeignKey("games.id", ondelete="CASCADE", name="fk_rating_history_game_id"),
        primary_key=True,
    )
    account_id: Mapped[int] = mapped_column(
        Integer,
        ForeignKey("accounts.id", ondelete="CASCADE", name="fk_rating_history_account_id"),
        primary_key=True,
    )
    pool: Mapped[str] = mapped_column(String(48))
    side: Mapped[str] = mapped_column(String(8))
    score: Mapped[float] = mapped_column(Float)
    """The player's score: 1, 0.5 or 0."""
    ended_ms: Mapped[int] = mapped_column(BigInteger)
    rating_before: Mapped[float] = mapped_column(Float)
    deviation_before: Mapped[float] = mapped_column(Float)
    volatility_before: Mapped[float] = mapped_column(Float)
    rating_after: Mapped[float] = mapped_column(Float)
    deviation_after: Mapped[float] = mapped_column(Float)
    volatility_after: Mapped[float] = mapped_column(Float)
    voided: Mapped[bool] = mapped_column(Boolean, server_default=false())
    """The game no longer counts (a player's account was closed by a moderator)."""
