"""The games' tables: a game, its seats, its moves, the browsers' lists of games and the
idempotency keys of game creation.

Times are whole milliseconds since the Unix epoch; tables of other domains are named by their
table's name (``ForeignKey("accounts.id")``), so no domain's rows import another's. The
migrations (``migrations/``) create every domain's tables as one schema
(``migrations/schema.py``).

Secrets are never stored: seat tokens, invite codes and browser ids only as SHA-256 digests.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, ForeignKey, Index, Integer, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from bluegray.web.platform.models import Base


class GameRow(Base):
    """One game: its settings, where it stands, its clocks, offers and how it ended."""

    __tablename__ = "games"
    __table_args__ = (Index("ix_games_status", "status"),)

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    created_ms: Mapped[int] = mapped_column(BigInteger)
    updated_ms: Mapped[int] = mapped_column(BigInteger)
    mode: Mapped[str] = mapped_column(String(16))
    """``ai``, ``hotseat``, ``friend`` or ``imported``."""
    status: Mapped[str] = mapped_column(String(16))
    """``waiting`` (for the invited friend), ``active``, ``finished`` or ``aborted``."""
    version: Mapped[int] = mapped_column(Integer)
    """Raised by one with every change: what clients resynchronise by."""
    rules: Mapped[str] = mapped_column(Text)
    start: Mapped[str] = mapped_column(Text)
    position: Mapped[str] = mapped_column(Text)
    ply: Mapped[int] = mapped_column(Integer)
    turn: Mapped[str] = mapped_column(String(8))
    ai_level: Mapped[int | None] = mapped_column(Integer)

    clock_initial_ms: Mapped[int | None] = mapped_column(BigInteger)
    clock_increment_ms: Mapped[int | None] = mapped_column(BigInteger)
    blue_ms: Mapped[int | None] = mapped_column(BigInteger)
    gray_ms: Mapped[int | None] = mapped_column(BigInteger)
    """Each side's remaining time when the running clock last started."""
    clock_since_ms: Mapped[int | None] = mapped_column(BigInteger)
    """When the side to move's clock started running (``None``: no clock runs)."""
    corr_days: Mapped[int | None] = mapped_column(Integer)
    """A correspondence game's days per move (``None``: not a correspondence game)."""
    corr_deadline_ms: Mapped[int | None] = mapped_column(BigInteger)
    """When the side to move runs out of its days (``None``: nobody's time runs)."""
    corr_ply: Mapped[int | None] = mapped_column(Integer)
    """The ply of the turn the deadline was set for."""

    termination: Mapped[str | None] = mapped_column(String(16))
    winner: Mapped[str | None] = mapped_column(String(8))
    result: Mapped[str | None] = mapped_column(String(8))
    end_reason: Mapped[str | None] = mapped_column(String(16))
    """Why the game ended when it was not the rules' or the players' doing: ``abandoned``."""

    draw_offer: Mapped[str | None] = mapped_column(String(8))
    takeback_offer: Mapped[str | None] = mapped_column(String(8))
    rematch_offer: Mapped[str | None] = mapped_column(String(8))
    rematch_id: Mapped[str | None] = mapped_column(String(16))
    parent_id: Mapped[str | None] = mapped_column(String(16))
    invite_hash: Mapped[str | None] = mapped_column(String(64))
    record: Mapped[str | None] = mapped_column(Text)
    """The text of an imported record (its tags and comments are kept with its moves)."""
    last_event: Mapped[str | None] = mapped_column(Text)
    """What the change that made this version did (a ``GameEvent`` as JSON)."""
    rated: Mapped[bool] = mapped_column(Boolean, server_default=false())
    """Whether the game counts for both accounts' ratings (``ratings``)."""
    time_class: Mapped[str] = mapped_column(String(16), server_default="real-time")
    """``real-time`` or ``correspondence`` (with the rule set: the rating it counts in)."""
    rating_result: Mapped[str | None] = mapped_column(Text)
    """What the end of a rated game did to each side's rating (``RatingResult``'s JSON)."""
    unrated_reason: Mapped[str | None] = mapped_column(String(16))
    """Why a game asked for as rated is played unrated (``pair_limit``: its two accounts had
    played their rated games for the day)."""


class SeatRow(Base):
    """Who plays a side: a human holding a token, or the AI."""

    __tablename__ = "seats"

    game_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    side: Mapped[str] = mapped_column(String(8), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    """``human`` or ``ai``."""
    token_hash: Mapped[str | None] = mapped_column(String(64))
    browser_hash: Mapped[str | None] = mapped_column(String(64))
    joined_ms: Mapped[int | None] = mapped_column(BigInteger)
    address_hash: Mapped[str | None] = mapped_column(String(64))
    """The client address the seat was taken from (a digest): AI work is bounded per address."""
    account_id: Mapped[int | None] = mapped_column(
        Integer,
        ForeignKey("accounts.id", ondelete="SET NULL", name="fk_seats_account_id"),
        index=True,
    )
    """The account that plays the seat (``None``: a player without an account, or the AI)."""
    account_name: Mapped[str | None] = mapped_column(String(20))
    """The account's name as it was written (names never change, so it is kept here: a game is
    shown without reading the accounts)."""
    account_bot: Mapped[bool] = mapped_column(Boolean, server_default=false())
    """Whether the account is a bot's."""


class MoveRow(Base):
    """One move of a game, with the mover's clock after it."""

    __tablename__ = "moves"

    game_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)
    """1 for the first move."""
    text: Mapped[str] = mapped_column(String(400))
    side: Mapped[str] = mapped_column(String(8))
    clock_ms: Mapped[int | None] = mapped_column(BigInteger)
    played_ms: Mapped[int] = mapped_column(BigInteger)


class ListingRow(Base):
    """A game in a browser's list of games (a browser is a random id; an account's games are
    found by its seats)."""

    __tablename__ = "listings"
    __table_args__ = (Index("ix_listings_browser_created", "browser_hash", "created_ms"),)

    browser_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    game_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    role: Mapped[str] = mapped_column(String(8))
    """``blue``, ``gray``, ``both`` (hot-seat) or ``viewer`` (an imported record)."""
    created_ms: Mapped[int] = mapped_column(BigInteger)


class IdempotencyKeyRow(Base):
    """A game created with an ``Idempotency-Key``, kept for a day so that the same request sent
    again (its answer was lost) answers the same game. The key is the caller's (an account's,
    or a browser's): stored as its digest, with the digest of the request it came with."""

    __tablename__ = "idempotency_keys"
    __table_args__ = (Index("ix_idempotency_keys_created", "created_ms"),)

    caller: Mapped[str] = mapped_column(String(80), primary_key=True)
    """``account:ID`` or ``browser:DIGEST``."""
    key_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    request_hash: Mapped[str] = mapped_column(String(64))
    game_id: Mapped[str] = mapped_column(String(16))
    salt: Mapped[str] = mapped_column(String(64))
    """Random: the seat token and invite code are derived from it and the key itself (which is
    not stored), so that the same request's answer can be given again."""
    created_ms: Mapped[int] = mapped_column(BigInteger)
