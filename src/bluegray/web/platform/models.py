"""The database tables, as SQLAlchemy 2 ORM classes. Migrations in ``migrations/`` create them.

Times are whole milliseconds since the Unix epoch (portable across databases, no time zones).
Secrets are never stored: seat tokens, invite codes, browser ids, session ids and API tokens
only as SHA-256 digests, passwords only as Argon2id hashes (``passwords``).
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
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


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


class SeekRow(Base):
    """An open challenge in the lobby (a seek), or one sent to a named player (``target``)."""

    __tablename__ = "seeks"
    __table_args__ = (
        Index("ix_seeks_expires", "expires_ms"),
        Index("ix_seeks_connection", "connection"),
    )

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        Integer,
        ForeignKey("accounts.id", ondelete="CASCADE", name="fk_seeks_account_id"),
        index=True,
    )
    account_name: Mapped[str] = mapped_column(String(20))
    bot: Mapped[bool] = mapped_column(Boolean, server_default=false())
    rating: Mapped[float] = mapped_column(Float)
    """The seeker's rating in the seek's pool when it was posted."""
    provisional: Mapped[bool] = mapped_column(Boolean, server_default=false())
    rules: Mapped[str] = mapped_column(Text)
    time_class: Mapped[str] = mapped_column(String(16))
    clock_initial_ms: Mapped[int | None] = mapped_column(BigInteger)
    clock_increment_ms: Mapped[int | None] = mapped_column(BigInteger)
    corr_days: Mapped[int | None] = mapped_column(Integer)
    """Correspondence days per move (``None``: a clock, or no time limit)."""
    rated: Mapped[bool] = mapped_column(Boolean, server_default=false())
    color: Mapped[str] = mapped_column(String(8))
    """The side the seeker plays: ``blue``, ``gray`` or ``random``."""
    rating_min: Mapped[int | None] = mapped_column(Integer)
    rating_max: Mapped[int | None] = mapped_column(Integer)
    target_id: Mapped[int | None] = mapped_column(
        Integer,
        ForeignKey("accounts.id", ondelete="CASCADE", name="fk_seeks_target_id"),
        index=True,
    )
    """A challenge's player (``None``: an open seek, in the lobby for anyone)."""
    target_name: Mapped[str | None] = mapped_column(String(20))
    quick: Mapped[str | None] = mapped_column(String(32))
    """The quick pairing it waits in (``None``: an ordinary seek)."""
    connection: Mapped[str | None] = mapped_column(String(32))
    """The lobby socket it was posted with: it goes when that socket closes."""
    process: Mapped[str] = mapped_column(String(64))
    """The process it was posted on: it goes if that process dies."""
    created_ms: Mapped[int] = mapped_column(BigInteger)
    expires_ms: Mapped[int] = mapped_column(BigInteger)


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


class ServerStateRow(Base):
    """Small facts about the server itself, e.g. the last moment it was known to be running."""

    __tablename__ = "server_state"

    key: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


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


class DeadlineRow(Base):
    """A timer kept as data: something due at a time (a clock's flag, the AI's move), claimed
    by whichever process is alive when it falls due, so that it fires once in the cluster
    however many processes run and whichever of them died."""

    __tablename__ = "deadlines"
    __table_args__ = (Index("ix_deadlines_due", "due_ms"),)

    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    """``flag`` or ``ai``."""
    subject: Mapped[str] = mapped_column(String(32), primary_key=True)
    """What it is about: a game's id."""
    due_ms: Mapped[int] = mapped_column(BigInteger)
    version: Mapped[int] = mapped_column(Integer)
    """The subject's version when the timer was set."""
    holder: Mapped[str | None] = mapped_column(String(64))
    """The process working on it (``None``: nobody)."""
    held_until_ms: Mapped[int | None] = mapped_column(BigInteger)
    """Until when the holder's claim stands; after it any process may claim the timer."""
    note: Mapped[str | None] = mapped_column(String(32))
    """What the holder says of it (of the AI's move: ``busy`` or ``unavailable``)."""


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
