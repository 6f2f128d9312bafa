"""Rated games between the same two accounts: at most ``rated_games_per_pair`` a day.

Two accounts that play each other again and again can push one rating anywhere (one resigns,
the other gains). So a game asked for as rated between two accounts that have already started
that many rated games together within the last 24 hours is played unrated instead, and says so
(``unrated_reason``) before it starts: in the answer that starts it (a seek, a challenge, a
quick pairing, a friend's invite, a rematch, a tournament's pairing) and in its state. An
aborted game does not count. Moderators see the pairs that reached the limit (``capped_pairs``:
``GET /api/moderation/rated-pairs`` and ``bluegray user pairs``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import Connection, Select, and_, case, func, or_, select
from sqlalchemy.orm import aliased

from bluegray.pieces import Side
from bluegray.web.games.live import LiveGame
from bluegray.web.games.rows import GameRow, SeatRow

DAY_MS: Final = 86_400_000
PAIR_LIMIT: Final = "pair_limit"
"""The ``unrated_reason`` of a game its two accounts asked for as rated once they had played
their rated games together for the day."""

REASONS: Final = {
    PAIR_LIMIT: "these two accounts have played as many rated games together today as may be "
    "rated: this game is unrated",
}
"""What each ``unrated_reason`` means, as players are told."""


def explain(reason: str | None) -> str | None:
    """The words that tell players why their game is unrated (``None``: no reason)."""
    return None if reason is None else REASONS.get(reason, reason)


def _games_between_accounts(*columns: Any) -> Select[Any]:
    """``columns`` of the games with an account on each side (as ``blue_id`` and
    ``gray_id``)."""
    blue = aliased(SeatRow)
    gray = aliased(SeatRow)
    return (
        select(*columns, blue.account_id.label("blue_id"), gray.account_id.label("gray_id"))
        .select_from(GameRow)
        .join(blue, and_(blue.game_id == GameRow.id, blue.side == "blue"))
        .join(gray, and_(gray.game_id == GameRow.id, gray.side == "gray"))
        .where(blue.account_id.is_not(None), gray.account_id.is_not(None))
    )


def rated_games_between(connection: Connection, first: int, second: int, since_ms: int) -> int:
    """How many rated games (not aborted) the two accounts started together since
    ``since_ms``."""
    games = (
        _games_between_accounts(GameRow.id)
        .where(
            GameRow.rated.is_(True),
            GameRow.status != "aborted",
            GameRow.created_ms >= since_ms,
        )
        .subquery()
    )
    query = (
        select(func.count())
        .select_from(games)
        .where(
            or_(
                and_(games.c.blue_id == first, games.c.gray_id == second),
                and_(games.c.blue_id == second, games.c.gray_id == first),
            )
        )
    )
    return int(connection.execute(query).scalar_one())


def pair_of(live: LiveGame) -> tuple[int, int] | None:
    """The two accounts of a game between two accounts (``None``: not such a game)."""
    blue = live.seats.get(Side.BLUE)
    gray = live.seats.get(Side.GRAY)
    if blue is None or gray is None or blue.account_id is None or gray.account_id is None:
        return None
    return blue.account_id, gray.account_id


def pair_limit_reached(
    connection: Connection, first: int, second: int, now: int, most: int
) -> bool:
    """Whether the two accounts have started ``most`` rated games together in the last day."""
    return rated_games_between(connection, first, second, now - DAY_MS) >= most


def limit_rated(live: LiveGame, reached: bool) -> None:
    """Play a rated game unrated, saying why, when its pair has reached the day's limit."""
    if live.rated and reached:
        live.rated = False
        live.unrated_reason = PAIR_LIMIT


@dataclass(frozen=True)
class CappedPair:
    """Two accounts whose games together were played unrated for the daily limit."""

    first: str
    second: str
    rated: int
    """Rated games they started together in the period (aborted ones left out)."""
    unrated: int
    """Games asked for as rated that the limit made unrated."""
    last_ms: int
    """When the latest of those games started."""


def capped_pairs(connection: Connection, since_ms: int) -> list[CappedPair]:
    """The pairs of accounts that reached the daily limit since ``since_ms``, the most capped
    games first (counted by the database: one row a pair)."""
    games = (
        _games_between_accounts(GameRow.rated, GameRow.unrated_reason, GameRow.created_ms)
        .where(
            GameRow.created_ms >= since_ms,
            GameRow.status != "aborted",
            or_(GameRow.rated.is_(True), GameRow.unrated_reason == PAIR_LIMIT),
        )
        .subquery()
    )
    blue, gray = games.c.blue_id, games.c.gray_id
    low = case((blue < gray, blue), else_=gray)
    high = case((blue < gray, gray), else_=blue)
    capped = func.sum(case((games.c.unrated_reason == PAIR_LIMIT, 1), else_=0))
    rows = connection.execute(
        select(
            low.label("low"),
            high.label("high"),
            func.sum(case((games.c.rated.is_(True), 1), else_=0)).label("rated"),
            capped.label("unrated"),
            func.max(games.c.created_ms).label("last_ms"),
        )
        .group_by(low, high)
        .having(capped > 0)
    ).all()
    ids = {row.low for row in rows} | {row.high for row in rows}
    # An account's name is kept on its seats (names never change): read there, not from the
    # accounts' table.
    names = {
        row.account_id: row.name
        for row in connection.execute(
            select(SeatRow.account_id, func.max(SeatRow.account_name).label("name"))
            .where(SeatRow.account_id.in_(ids))
            .group_by(SeatRow.account_id)
        )
    }
    pairs = [
        CappedPair(
            names.get(row.low, str(row.low)),
            names.get(row.high, str(row.high)),
            int(row.rated),
            int(row.unrated),
            int(row.last_ms),
        )
        for row in rows
    ]
    pairs.sort(key=lambda pair: (-pair.unrated, -pair.last_ms, pair.first, pair.second))
    return pairs
