"""The reviews' tables: a game's review (who asked, how far it is, which process drives it) and
the engine's analysis of each of its positions.

Times are whole milliseconds since the Unix epoch; tables of other domains are named by their
table's name (``ForeignKey("games.id")``), so no domain's rows import another's. The migrations
(``migrations/``) create every domain's tables as one schema (``migrations/schema.py``).
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from bluegray.web.platform.models import Base


class ReviewRow(Base):
    """A game's review: asked for once, its positions analysed one at a time."""

    __tablename__ = "reviews"
    __table_args__ = (
        Index("ix_reviews_status_lease", "status", "lease_until_ms"),
        Index("ix_reviews_account_requested", "account_id", "requested_ms"),
        Index("ix_reviews_address_requested", "address_hash", "requested_ms"),
    )

    game_id: Mapped[str] = mapped_column(
        String(16),
        ForeignKey("games.id", ondelete="CASCADE", name="fk_reviews_game_id"),
        primary_key=True,
    )
    status: Mapped[str] = mapped_column(String(16))
    """``pending`` (positions still to analyse), ``done`` or ``failed``."""
    positions: Mapped[int] = mapped_column(Integer)
    """How many positions it analyses: the game's plies and one."""
    nodes: Mapped[int] = mapped_column(Integer)
    """The nodes each position is searched to."""
    requested_ms: Mapped[int] = mapped_column(BigInteger)
    finished_ms: Mapped[int | None] = mapped_column(BigInteger)
    account_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("accounts.id", ondelete="SET NULL", name="fk_reviews_account_id")
    )
    """Who asked for it (``None``: nobody logged in)."""
    address_hash: Mapped[str] = mapped_column(String(64))
    """The address it was asked from, as a SHA-256 digest (the daily limit per address)."""
    runner: Mapped[str | None] = mapped_column(String(64))
    """The process driving it, while it is pending."""
    lease_until_ms: Mapped[int | None] = mapped_column(BigInteger)
    """Until when it stays with ``runner`` without news from it."""
    failure: Mapped[str | None] = mapped_column(Text)
    """Why it failed."""


class ReviewPositionRow(Base):
    """The engine's analysis of one position of a reviewed game."""

    __tablename__ = "review_positions"

    game_id: Mapped[str] = mapped_column(
        String(16),
        ForeignKey("reviews.game_id", ondelete="CASCADE", name="fk_review_positions_game_id"),
        primary_key=True,
    )
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)
    """The position after this many plies (0: the start)."""
    turn: Mapped[str] = mapped_column(String(8))
    blue_expected: Mapped[float] = mapped_column(Float)
    score: Mapped[int] = mapped_column(Integer)
    best_move: Mapped[str | None] = mapped_column(String(64))
    best_after: Mapped[float | None] = mapped_column(Float)
    """Blue's expected score after ``best_move``, searched as a position of its own (``None``:
    the move played here was the engine's, or this is the last position)."""
    pv: Mapped[str] = mapped_column(Text)
    """The engine's line from here, its moves separated by spaces."""
    depth: Mapped[int] = mapped_column(Integer)
    nodes: Mapped[int] = mapped_column(Integer)
    plies_to_end: Mapped[int | None] = mapped_column(Integer)
    engine: Mapped[int] = mapped_column(Integer)
    """The version of the engine that searched it."""
