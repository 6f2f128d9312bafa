"""The explorer's tables: the moves played from each position (per rule set and source), the
games already counted, and the books loaded.

A position is keyed by a 64-bit digest of its placement and side to move (``positions.py``), so
that games that reach it by different move orders add to the same rows. Tables of other
domains are named by their table's name (``ForeignKey("games.id")``), never by import.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from bluegray.web.platform.models import Base


class ExplorerMoveRow(Base):
    """A move from a position, under a preset rule set, in one source's games: how many games
    played it, how they ended and the sum of their players' average ratings. The primary key
    begins with the rule set and the position: the explorer's one question ("the moves from this
    position") reads a range of it."""

    __tablename__ = "explorer_moves"

    rules: Mapped[str] = mapped_column(String(24), primary_key=True)
    """The preset rule set's name."""
    position_key: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    """The digest of the position's placement and side to move (``positions.position_key``)."""
    source: Mapped[str] = mapped_column(String(8), primary_key=True)
    """``site`` (the site's rated games between people) or ``book`` (the shipped engine games)."""
    move: Mapped[str] = mapped_column(String(400), primary_key=True)
    games: Mapped[int] = mapped_column(Integer)
    blue_wins: Mapped[int] = mapped_column(Integer)
    draws: Mapped[int] = mapped_column(Integer)
    gray_wins: Mapped[int] = mapped_column(Integer)
    rated_games: Mapped[int] = mapped_column(Integer)
    """The games with their players' ratings (the book's games have none)."""
    rating_sum: Mapped[int] = mapped_column(BigInteger)
    """The sum, over those games, of the two players' average rating before the game (rounded)."""


class ExplorerGameRow(Base):
    """A site game whose moves are counted: its end is counted once, whichever process stores
    it, and the fill skips it."""

    __tablename__ = "explorer_games"

    game_id: Mapped[str] = mapped_column(
        String(16),
        ForeignKey("games.id", ondelete="CASCADE", name="fk_explorer_games_game_id"),
        primary_key=True,
    )
    counted_ms: Mapped[int] = mapped_column(BigInteger)


class ExplorerBookRow(Base):
    """A shipped book loaded into the ``book`` source: its file's digest, so that the fill loads
    a book again only when the file has changed."""

    __tablename__ = "explorer_books"

    rules: Mapped[str] = mapped_column(String(24), primary_key=True)
    digest: Mapped[str] = mapped_column(String(64))
    games: Mapped[int] = mapped_column(Integer)
    loaded_ms: Mapped[int] = mapped_column(BigInteger)
