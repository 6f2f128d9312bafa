"""Ratings as players see them: an account's ratings with their history (its profile), the
leaderboard of a pool, and the profile's chart of a rating's history (an SVG drawn by the
server). They read the database, never a process's copies.

A rating shown is the stored one with its deviation grown by the time since its last game
(``glicko.with_inactivity``), and marked provisional while the deviation is high. A leaderboard
lists the accounts that are open and whose rating was established at their last game (its
deviation then at most the provisional threshold), best first.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, TypedDict

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from bluegray.web.accounts.rows import AccountRow
from bluegray.web.accounts.schemas import (
    Leaderboard,
    LeaderboardEntry,
    RatingInfo,
    RatingPoint,
)
from bluegray.web.platform.db import Database
from bluegray.web.ratings.glicko import (
    DEFAULT_SETTINGS,
    Rating,
    RatingSettings,
    is_provisional,
    periods_between,
    with_inactivity,
)
from bluegray.web.ratings.rows import RatingHistoryRow, RatingRow
from bluegray.web.ratings.service import split_pool

CHART_WIDTH: Final = 320
CHART_HEIGHT: Final = 120
CHART_MARGIN: Final = 6
CHART_LABELS: Final = 36
"""The width kept clear on the left for the highest and lowest ratings' labels: the line starts
right of them, never through them."""
HISTORY_LIMIT: Final = 500
"""The most history points a rating shows (its newest)."""


class RatingNow(TypedDict):
    """A rating as the lobby's page knows it (JSON in the page)."""

    rating: int
    provisional: bool


def _time(ms: int) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC)


def shown_rating(
    stored: Rating, rated_ms: int, now: int, settings: RatingSettings = DEFAULT_SETTINGS
) -> Rating:
    """The rating as shown at ``now``: its deviation grown since its last game."""
    return with_inactivity(stored, periods_between(_time(rated_ms), _time(now), settings), settings)


def rating_in(session: Session, account_id: int, pool: str, now: int) -> Rating:
    """The account's rating in a pool as shown at ``now`` (a new player's if it has none)."""
    row = session.get(RatingRow, (account_id, pool))
    if row is None:
        return DEFAULT_SETTINGS.new_player
    return shown_rating(Rating(row.rating, row.deviation, row.volatility), row.rated_ms, now)


def ratings_in_pools(
    session: Session, wanted: Iterable[tuple[int, str]]
) -> dict[tuple[int, str], float]:
    """The stored rating of each account in each pool asked for, by ``(account id, pool)`` (a new
    player's for one it has none in): in one query, for a list of games (the home page's
    choice of its featured game)."""
    wanted = set(wanted)
    found: dict[tuple[int, str], float] = {}
    if wanted:
        rows = session.execute(
            select(RatingRow.account_id, RatingRow.pool, RatingRow.rating).where(
                RatingRow.account_id.in_({account_id for account_id, _ in wanted}),
                RatingRow.pool.in_({pool for _, pool in wanted}),
            )
        )
        found = {(account_id, pool): rating for account_id, pool, rating in rows}
    new = DEFAULT_SETTINGS.new_player.rating
    return {key: found.get(key, new) for key in wanted}


async def ratings_now(db: Database, account_id: int, now: int) -> dict[str, RatingNow]:
    """The account's ratings as shown now, by pool (no history: the lobby's page, which offers
    only the seeks whose range they are in)."""

    def query(session: Session) -> dict[str, RatingNow]:
        rows = session.scalars(select(RatingRow).where(RatingRow.account_id == account_id))
        shown = {
            row.pool: shown_rating(
                Rating(row.rating, row.deviation, row.volatility), row.rated_ms, now
            )
            for row in rows
        }
        return {
            pool: RatingNow(rating=round(rating.rating), provisional=is_provisional(rating))
            for pool, rating in shown.items()
        }

    return await db.read(query)


async def player_ratings(db: Database, account_id: int, now: int) -> list[RatingInfo]:
    """The account's ratings, the most played first, each with its history."""

    def query(session: Session) -> tuple[list[RatingRow], list[RatingHistoryRow]]:
        ratings = list(session.scalars(select(RatingRow).where(RatingRow.account_id == account_id)))
        history = list(
            session.scalars(
                select(RatingHistoryRow)
                .where(
                    RatingHistoryRow.account_id == account_id,
                    RatingHistoryRow.voided.is_(False),
                )
                .order_by(RatingHistoryRow.ended_ms.desc())
                .limit(HISTORY_LIMIT * 4)
            )
        )
        return ratings, history

    ratings, history = await db.read(query)
    points: dict[str, list[RatingPoint]] = defaultdict(list)
    for point in reversed(history):
        points[point.pool].append(
            RatingPoint(
                at_ms=point.ended_ms,
                rating=round(point.rating_after, 1),
                change=round(point.rating_after - point.rating_before, 1),
                game_id=point.game_id,
            )
        )
    infos = []
    for row in sorted(ratings, key=lambda row: (-row.games, row.pool)):
        parts = split_pool(row.pool)
        if parts is None:
            continue
        shown = shown_rating(Rating(row.rating, row.deviation, row.volatility), row.rated_ms, now)
        infos.append(
            RatingInfo(
                perf=row.pool,
                rules=parts[0],
                time_class=parts[1],
                rating=round(shown.rating, 1),
                deviation=round(shown.deviation, 1),
                provisional=is_provisional(shown),
                games=row.games,
                history=points[row.pool][-HISTORY_LIMIT:],
            )
        )
    return infos


async def leaderboard(db: Database, pool: str, offset: int, limit: int) -> Leaderboard:
    """The pool's established ratings of open accounts, best first, ``limit`` from ``offset``."""
    parts = split_pool(pool)
    assert parts is not None
    threshold = DEFAULT_SETTINGS.provisional_deviation
    statement = (
        select(
            AccountRow.name, AccountRow.bot, RatingRow.rating, RatingRow.deviation, RatingRow.games
        )
        .join(AccountRow, AccountRow.id == RatingRow.account_id)
        .where(
            RatingRow.pool == pool,
            RatingRow.deviation <= threshold,
            AccountRow.closed_ms.is_(None),
        )
    )

    def query(session: Session) -> tuple[list[tuple[str, bool, float, float, int]], int]:
        rows = session.execute(
            statement.order_by(RatingRow.rating.desc(), AccountRow.name_key)
            .offset(offset)
            .limit(limit + 1)
        ).all()
        total = session.scalar(select(func.count()).select_from(statement.subquery())) or 0
        return [tuple(row) for row in rows], int(total)  # type: ignore[misc]

    rows, total = await db.read(query)
    entries = [
        LeaderboardEntry(
            rank=offset + index + 1,
            name=name,
            bot=bool(bot),
            rating=round(rating, 1),
            deviation=round(deviation, 1),
            games=games,
        )
        for index, (name, bot, rating, deviation, games) in enumerate(rows[:limit])
    ]
    return Leaderboard(
        pool=pool,
        rules=parts[0],
        time_class=parts[1],
        total=total,
        offset=offset,
        entries=entries,
        next_offset=offset + limit if len(rows) > limit else None,
    )


async def rated_pools(db: Database) -> list[str]:
    """The pools in which anyone has a rating."""

    def query(session: Session) -> list[str]:
        return list(session.scalars(select(RatingRow.pool).distinct().order_by(RatingRow.pool)))

    return await db.read(query)


# -- the chart ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Chart:
    """A rating's history drawn as an SVG polyline: its points (``x,y ...`` in the view box),
    the lowest and highest ratings (one label when they are the same), and the last point (for
    its dot)."""

    points: str
    low: int
    high: int
    last_x: float
    last_y: float
    width: int = CHART_WIDTH
    height: int = CHART_HEIGHT


def rating_chart(history: list[RatingPoint]) -> Chart | None:
    """The chart of a rating's history (``None``: no history): as on lichess, from the rating
    before the first game, then one step per game, so that a single game draws a line from
    where it started to where it left the rating. A history that never moved is a level line
    across the middle."""
    if not history:
        return None
    ratings = [history[0].rating - history[0].change, *(point.rating for point in history)]
    low, high = min(ratings), max(ratings)
    span = high - low
    left = CHART_MARGIN + CHART_LABELS
    inner_w = CHART_WIDTH - CHART_MARGIN - left
    inner_h = CHART_HEIGHT - 2 * CHART_MARGIN
    steps = len(ratings) - 1
    coordinates = []
    for index, rating in enumerate(ratings):
        x = left + inner_w * index / steps
        height = 0.5 if span < 0.5 else (rating - low) / span
        y = CHART_MARGIN + inner_h * (1 - height)
        coordinates.append((round(x, 1), round(y, 1)))
    return Chart(
        points=" ".join(f"{x:g},{y:g}" for x, y in coordinates),
        low=round(low),
        high=round(high),
        last_x=coordinates[-1][0],
        last_y=coordinates[-1][1],
    )
