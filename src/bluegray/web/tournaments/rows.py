"""The tournaments' tables: a tournament, its players, its games and a Swiss round's bye
(``tables`` reads a tournament from them).

Times are whole milliseconds since the Unix epoch; tables of other domains are named by their
table's name (``ForeignKey("accounts.id")``), so no domain's rows import another's. The
migrations (``migrations/``) create every domain's tables as one schema
(``migrations/schema.py``).
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, ForeignKey, Index, Integer, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from bluegray.web.platform.models import Base


def _account_key(table: str, column: str) -> ForeignKey:
    return ForeignKey("accounts.id", ondelete="CASCADE", name=f"fk_{table}_{column}")


def _tournament_key(table: str) -> ForeignKey:
    return ForeignKey("tournaments.id", ondelete="CASCADE", name=f"fk_{table}_tournament_id")


class TournamentRow(Base):
    """A tournament (an arena or a Swiss), its settings and where it stands."""

    __tablename__ = "tournaments"
    __table_args__ = (Index("ix_tournaments_status", "status", "starts_at_ms"),)

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    """``arena`` or ``swiss``."""
    name: Mapped[str] = mapped_column(String(60))
    creator_id: Mapped[int] = mapped_column(Integer, _account_key("tournaments", "creator_id"))
    creator_name: Mapped[str] = mapped_column(String(20))
    rules: Mapped[str] = mapped_column(String(32))
    """A preset rule set's name."""
    clock_initial_ms: Mapped[int] = mapped_column(BigInteger)
    clock_increment_ms: Mapped[int] = mapped_column(BigInteger)
    rated: Mapped[bool] = mapped_column(Boolean, server_default=false())
    starts_at_ms: Mapped[int] = mapped_column(BigInteger)
    minutes: Mapped[int | None] = mapped_column(Integer)
    """An arena's length."""
    rounds: Mapped[int | None] = mapped_column(Integer)
    """A Swiss's number of rounds."""
    ends_at_ms: Mapped[int | None] = mapped_column(BigInteger)
    """When an arena stops pairing (set when it starts)."""
    round: Mapped[int] = mapped_column(Integer, server_default="0")
    """A Swiss's rounds paired so far."""
    status: Mapped[str] = mapped_column(String(16))
    """``created``, ``running`` or ``finished``."""
    version: Mapped[int] = mapped_column(Integer)
    """Raised by every change: a change is written only at the version it was decided on."""
    created_ms: Mapped[int] = mapped_column(BigInteger)
    finished_ms: Mapped[int | None] = mapped_column(BigInteger)
    note: Mapped[str | None] = mapped_column(Text)
    """Why a tournament ended before its last round (a round that could not be paired)."""


class TournamentPlayerRow(Base):
    """An account in a tournament: its rating at entry, and (arena) since when it is free."""

    __tablename__ = "tournament_players"

    tournament_id: Mapped[str] = mapped_column(
        String(16), _tournament_key("tournament_players"), primary_key=True
    )
    account_id: Mapped[int] = mapped_column(
        Integer, _account_key("tournament_players", "account_id"), primary_key=True, index=True
    )
    name: Mapped[str] = mapped_column(String(20))
    rating: Mapped[int] = mapped_column(Integer)
    joined_ms: Mapped[int] = mapped_column(BigInteger)
    withdrawn: Mapped[bool] = mapped_column(Boolean, server_default=false())
    waiting_ms: Mapped[int | None] = mapped_column(BigInteger)
    """Since when an arena's player waits for a game (``None``: playing, or withdrawn)."""


class TournamentGameRow(Base):
    """A game of a tournament (an ordinary game of the site) and its result once it ends."""

    __tablename__ = "tournament_games"
    __table_args__ = (Index("ix_tournament_games_tournament", "tournament_id", "seq"),)

    game_id: Mapped[str] = mapped_column(
        String(16),
        ForeignKey("games.id", ondelete="CASCADE", name="fk_tournament_games_game_id"),
        primary_key=True,
    )
    tournament_id: Mapped[str] = mapped_column(String(16), _tournament_key("tournament_games"))
    seq: Mapped[int] = mapped_column(Integer)
    """The order the games started in."""
    round: Mapped[int | None] = mapped_column(Integer)
    board: Mapped[int | None] = mapped_column(Integer)
    blue_id: Mapped[int] = mapped_column(Integer, _account_key("tournament_games", "blue_id"))
    gray_id: Mapped[int] = mapped_column(Integer, _account_key("tournament_games", "gray_id"))
    result: Mapped[str | None] = mapped_column(String(8))
    """``1-0``, ``0-1`` or ``1/2-1/2``; ``None`` while played."""
    forfeit: Mapped[bool] = mapped_column(Boolean, server_default=false())
    """An aborted game (its first moves never came): the result goes against the side that
    did not move (or that aborted)."""
    started_ms: Mapped[int] = mapped_column(BigInteger)


class TournamentByeRow(Base):
    """The player given a Swiss round's bye."""

    __tablename__ = "tournament_byes"

    tournament_id: Mapped[str] = mapped_column(
        String(16), _tournament_key("tournament_byes"), primary_key=True
    )
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(Integer, _account_key("tournament_byes", "account_id"))
