"""The puzzles' tables: the puzzles, each solver's first attempt at each, and the solvers'
puzzle ratings.

A solver is an account (``a`` and its id) or, without one, a browser (``b`` and its id's
digest): ``solver_key``. Times are whole milliseconds since the Unix epoch.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from bluegray.web.platform.models import Base


class PuzzleRow(Base):
    """A puzzle: a position, its solution and its own Glicko-2 rating."""

    __tablename__ = "puzzles"
    __table_args__ = (
        Index("ix_puzzles_rules_rating", "rules", "rating"),
        UniqueConstraint("key", name="uq_puzzles_key"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(String(160))
    """The rule set, placement and side to move: one puzzle a position."""
    rules: Mapped[str] = mapped_column(String(40))
    position: Mapped[str] = mapped_column(String(120))
    solution: Mapped[str] = mapped_column(String(400))
    """The moves, separated by spaces: the solver's first and last, the replies between."""
    themes: Mapped[str] = mapped_column(String(120))
    """The themes between commas, with a comma at each end (``,race,lead,``; ``,`` for none)."""
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    """First attempts: the rated ones."""
    source: Mapped[str] = mapped_column(String(20))


class PuzzleAttemptRow(Base):
    """A solver's first attempt at a puzzle: the only one rated."""

    __tablename__ = "puzzle_attempts"

    puzzle_id: Mapped[int] = mapped_column(
        Integer,
        ForeignKey("puzzles.id", ondelete="CASCADE", name="fk_puzzle_attempts_puzzle_id"),
        primary_key=True,
    )
    solver: Mapped[str] = mapped_column(String(80), primary_key=True, index=True)
    solved: Mapped[bool] = mapped_column(Boolean)
    at_ms: Mapped[int] = mapped_column(BigInteger)


class PuzzleRatingRow(Base):
    """A solver's puzzle rating (Glicko-2)."""

    __tablename__ = "puzzle_ratings"

    solver: Mapped[str] = mapped_column(String(80), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    attempts: Mapped[int] = mapped_column(Integer)
    updated_ms: Mapped[int] = mapped_column(BigInteger)
