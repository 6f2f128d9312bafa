"""The rated games that ended, read in pages with their seats and moves: what the explorer's
fill counts from the games already stored (a service-level module: the queries are the games'
own)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from bluegray.web.games.rows import GameRow, MoveRow, SeatRow


@dataclass(frozen=True)
class EndedSeat:
    kind: str
    account_id: int | None
    account_bot: bool


@dataclass(frozen=True)
class EndedGame:
    """A finished rated game as stored: its rule set's text, its seats by side, its first moves,
    the winner's side (``None``: a draw) and its rating result (``RatingResult``'s JSON)."""

    id: str
    mode: str
    rules: str
    start: str
    seats: dict[str, EndedSeat]
    moves: list[str]
    winner: str | None
    rating_result: str | None


def finished_rated_games(
    session: Session, after_id: str, limit: int, plies: int
) -> list[EndedGame]:
    """Up to ``limit`` finished rated games whose ids come after ``after_id``, in the order of
    their ids, each with its first ``plies`` moves."""
    rows = list(
        session.scalars(
            select(GameRow)
            .where(GameRow.rated.is_(True), GameRow.status == "finished", GameRow.id > after_id)
            .order_by(GameRow.id)
            .limit(limit)
        )
    )
    ids = [row.id for row in rows]
    seats: dict[str, dict[str, EndedSeat]] = {game_id: {} for game_id in ids}
    for seat in session.scalars(select(SeatRow).where(SeatRow.game_id.in_(ids))):
        seats[seat.game_id][seat.side] = EndedSeat(
            seat.kind, seat.account_id, bool(seat.account_bot)
        )
    moves: dict[str, list[str]] = {game_id: [] for game_id in ids}
    for game_id, text in session.execute(
        select(MoveRow.game_id, MoveRow.text)
        .where(MoveRow.game_id.in_(ids), MoveRow.ply <= plies)
        .order_by(MoveRow.game_id, MoveRow.ply)
    ):
        moves[game_id].append(text)
    return [
        EndedGame(
            id=row.id,
            mode=row.mode,
            rules=row.rules,
            start=row.start,
            seats=seats[row.id],
            moves=moves[row.id],
            winner=row.winner,
            rating_result=row.rating_result,
        )
        for row in rows
    ]
