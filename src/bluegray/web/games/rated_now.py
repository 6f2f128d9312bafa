"""The rated real-time games being played now between two accounts: what the home page's "best
game on now" is chosen among (``featured``). A question about games, read from the database so
that every process gets the same answer (a service-level module: the query is the games' own)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from sqlalchemy import select
from sqlalchemy.orm import Session, aliased

from bluegray.web.games.rows import GameRow, SeatRow
from bluegray.web.platform.clocks import REAL_TIME

RATED_NOW_LIMIT: Final = 1000
"""The most games read at once (the most recently created): far more rated real-time games than
the site plays at a time."""


@dataclass(frozen=True)
class SeatedAccount:
    """An account that plays a side of a game."""

    id: int
    name: str
    bot: bool


@dataclass(frozen=True)
class RatedGameNow:
    """A rated real-time game being played between two accounts."""

    id: str
    rules: str
    """A preset rule set's name (only those are rated)."""
    started_ms: int
    """When its last seat was taken (as ``LiveGame.turn_started_ms`` counts a game's start)."""
    blue: SeatedAccount
    gray: SeatedAccount


def rated_games_now(session: Session, limit: int = RATED_NOW_LIMIT) -> list[RatedGameNow]:
    """The active, rated, real-time games between two people, both playing from an account (not
    the AI's, not a hot-seat's, not a correspondence game, not one with a player without an
    account), the most recently created first."""
    blue, gray = aliased(SeatRow), aliased(SeatRow)
    statement = (
        select(GameRow, blue, gray)
        .join(blue, (blue.game_id == GameRow.id) & (blue.side == "blue"))
        .join(gray, (gray.game_id == GameRow.id) & (gray.side == "gray"))
        .where(
            GameRow.status == "active",
            GameRow.mode == "friend",
            GameRow.rated.is_(True),
            GameRow.time_class == REAL_TIME,
            GameRow.clock_initial_ms.is_not(None),
            GameRow.corr_days.is_(None),
            blue.kind == "human",
            gray.kind == "human",
            blue.account_id.is_not(None),
            gray.account_id.is_not(None),
            blue.account_name.is_not(None),
            gray.account_name.is_not(None),
        )
        .order_by(GameRow.created_ms.desc(), GameRow.id)
        .limit(limit)
    )
    games = []
    for game, blue_seat, gray_seat in session.execute(statement):
        joined = [seat.joined_ms for seat in (blue_seat, gray_seat) if seat.joined_ms is not None]
        games.append(
            RatedGameNow(
                id=game.id,
                rules=game.rules,
                started_ms=max([game.created_ms, *joined]),
                blue=_account(blue_seat),
                gray=_account(gray_seat),
            )
        )
    return games


def _account(seat: SeatRow) -> SeatedAccount:
    assert seat.account_id is not None and seat.account_name is not None
    return SeatedAccount(seat.account_id, seat.account_name, bool(seat.account_bot))
