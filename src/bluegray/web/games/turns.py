"""An account's "your turn" list: the games, among the many it may have running (correspondence
games above all), where the side to move is its own, the most urgent first. Read from the
database, so every process shows the same list (a service-level module, asked by the routes)."""

from __future__ import annotations

from collections import defaultdict
from typing import Final

from sqlalchemy import select
from sqlalchemy.orm import Session

from bluegray.web.games.player_games import opponent_of
from bluegray.web.games.rows import GameRow, SeatRow
from bluegray.web.games.schemas import Opponent, TurnGame, YourTurn
from bluegray.web.platform.clocks import time_class
from bluegray.web.platform.db import Database

TURN_LIMIT: Final = 200
"""The most games the list shows."""


def opponent_text(opponent: Opponent) -> str:
    """Who a game is against, in words ("against ada_l", "against the AI, level 3")."""
    if opponent.kind == "account":
        return f"against {opponent.name}" + (" (bot)" if opponent.bot else "")
    if opponent.kind == "ai":
        return f"against the AI, level {opponent.level}"
    if opponent.kind == "anonymous":
        return "against a player without an account"
    return "a game of your own"


def deadline_of(row: GameRow) -> int | None:
    """When the side to move of a stored game runs out of time: its correspondence deadline, or
    its running clock's flag (``None``: no time runs)."""
    if row.corr_days is not None:
        return row.corr_deadline_ms
    if row.clock_since_ms is None:
        return None
    left = row.blue_ms if row.turn == "blue" else row.gray_ms
    return None if left is None else row.clock_since_ms + left


def _turn_game(row: GameRow, seats: list[SeatRow], account_id: int) -> TurnGame:
    return TurnGame(
        id=row.id,
        mode=row.mode,  # type: ignore[arg-type]
        rules=row.rules,
        side=row.turn,  # type: ignore[arg-type]
        opponent=opponent_of(
            [seat for seat in seats if seat.account_id == account_id],
            seats,
            account_id,
            row.ai_level,
        ),
        ply=row.ply,
        time_class=time_class(row.clock_initial_ms, row.corr_days),
        days_per_move=row.corr_days,
        deadline_ms=deadline_of(row),
        path=f"/game/{row.id}",
    )


async def your_turn(db: Database, account_id: int, now_ms: int) -> YourTurn:
    """The account's active games (with an AI or another person; not hot-seat) where it is to
    move, the nearest deadline first."""

    def query(session: Session) -> tuple[list[GameRow], dict[str, list[SeatRow]]]:
        mine = select(SeatRow.game_id).where(
            SeatRow.account_id == account_id, SeatRow.side == GameRow.turn
        )
        rows = list(
            session.scalars(
                select(GameRow)
                .where(
                    GameRow.status == "active",
                    GameRow.mode.in_(("ai", "friend")),
                    GameRow.id.in_(mine.where(SeatRow.game_id == GameRow.id)),
                )
                .order_by(GameRow.updated_ms)
                .limit(TURN_LIMIT)
            )
        )
        seats: dict[str, list[SeatRow]] = defaultdict(list)
        ids = [row.id for row in rows]
        if ids:
            for seat in session.scalars(select(SeatRow).where(SeatRow.game_id.in_(ids))):
                seats[seat.game_id].append(seat)
        return rows, seats

    rows, seats = await db.read(query)
    games = [_turn_game(row, seats[row.id], account_id) for row in rows]
    games.sort(key=lambda game: (game.deadline_ms is None, game.deadline_ms or 0))
    return YourTurn(games=games, server_time_ms=now_ms)
