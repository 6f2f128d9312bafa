"""The games an account played, as its public profile shows them: newest first, and how they
ended for it (wins, draws, losses and losses by abandonment, against people and against the AI).
Questions about games, asked by the routes (a service-level module: the queries are the games'
own). They read the database, never a process's copies, so every process shows the same
profile."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Final

from sqlalchemy import Connection, and_, case, func, or_, select
from sqlalchemy.orm import Session, aliased

from bluegray.web.games.queries import older_than, outcome_of_row
from bluegray.web.games.rows import GameRow, ListingRow, SeatRow
from bluegray.web.games.schemas import GameCounts, Opponent, PlayerGame, PlayerGames
from bluegray.web.platform.db import Database

UNCOUNTED_MODES: Final = ("hotseat", "imported")
"""Games that count for nobody's record: one person played both sides, or nobody played."""


def opponent_of(
    mine: list[SeatRow], seats: list[SeatRow], account_id: int, ai_level: int | None
) -> Opponent:
    others = [seat for seat in seats if seat.account_id != account_id]
    if len(mine) > 1 or not others:
        return Opponent(kind="self")
    other = others[0]
    if other.kind == "ai":
        return Opponent(kind="ai", level=ai_level)
    if other.account_name is not None:
        return Opponent(kind="account", name=other.account_name, bot=bool(other.account_bot))
    if other.token_hash is None:
        return Opponent(kind="open")
    return Opponent(kind="anonymous")


def _game(row: GameRow, seats: list[SeatRow], account_id: int) -> PlayerGame:
    mine = [seat for seat in seats if seat.account_id == account_id]
    side = mine[0].side if len(mine) == 1 else "both"
    outcome = outcome_of_row(row)
    result = None
    if outcome is not None and side != "both" and row.mode not in UNCOUNTED_MODES:
        result = "draw" if outcome.winner is None else "win" if outcome.winner == side else "loss"
    return PlayerGame(
        id=row.id,
        created_ms=row.created_ms,
        mode=row.mode,  # type: ignore[arg-type]
        status=row.status,  # type: ignore[arg-type]
        rules=row.rules,
        side=side,  # type: ignore[arg-type]
        opponent=opponent_of(mine, seats, account_id, row.ai_level),
        result=result,  # type: ignore[arg-type]
        outcome=outcome,
        ply=row.ply,
    )


async def player_games(
    db: Database, account_id: int, limit: int, before_ms: int | None, before_id: str | None = None
) -> PlayerGames:
    """The account's games, newest first, ``limit`` at a time (``before_ms`` and ``before_id``,
    the last game of the page before, page back)."""

    def query(session: Session) -> tuple[list[GameRow], dict[str, list[SeatRow]]]:
        statement = select(GameRow).where(
            GameRow.id.in_(select(SeatRow.game_id).where(SeatRow.account_id == account_id))
        )
        statement = (
            statement.where(older_than(GameRow.created_ms, GameRow.id, before_ms, before_id))
            .order_by(GameRow.created_ms.desc(), GameRow.id.desc())
            .limit(limit + 1)
        )
        rows = list(session.scalars(statement))
        seats: dict[str, list[SeatRow]] = defaultdict(list)
        ids = [row.id for row in rows[:limit]]
        if ids:
            for seat in session.scalars(
                select(SeatRow).where(SeatRow.game_id.in_(ids)).order_by(SeatRow.side)
            ):
                seats[seat.game_id].append(seat)
        return rows, seats

    rows, seats = await db.read(query)
    games = [_game(row, seats[row.id], account_id) for row in rows[:limit]]
    more = len(rows) > limit
    return PlayerGames(
        games=games,
        next_before_ms=games[-1].created_ms if more else None,
        next_before_id=games[-1].id if more else None,
    )


async def game_counts(db: Database, account_id: int) -> tuple[GameCounts, GameCounts]:
    """How the account's finished games ended for it: against people, and against the AI. A
    game where it held both sides (hot-seat, or its own two browsers) counts for neither."""
    mine = aliased(SeatRow)
    other = aliased(SeatRow)
    won = GameRow.winner == mine.side
    lost = and_(GameRow.winner.is_not(None), GameRow.winner != mine.side)
    statement = (
        select(
            GameRow.mode,
            func.count(),
            func.sum(case((won, 1), else_=0)),
            func.sum(case((GameRow.winner.is_(None), 1), else_=0)),
            func.sum(case((lost, 1), else_=0)),
            func.sum(case((and_(lost, GameRow.end_reason == "abandoned"), 1), else_=0)),
        )
        .select_from(mine)
        .join(GameRow, GameRow.id == mine.game_id)
        .join(other, and_(other.game_id == mine.game_id, other.side != mine.side))
        .where(
            mine.account_id == account_id,
            or_(other.account_id.is_(None), other.account_id != account_id),
            GameRow.status == "finished",
            GameRow.result.is_not(None),
            GameRow.mode.not_in(UNCOUNTED_MODES),
        )
        .group_by(GameRow.mode)
    )

    def query(session: Session) -> list[tuple[str, int, int, int, int, int]]:
        return [
            (str(mode), *(int(value or 0) for value in values))  # type: ignore[misc]
            for mode, *values in session.execute(statement).all()
        ]

    totals = {"people": [0] * 5, "ai": [0] * 5}
    for mode, *values in await db.read(query):
        bucket = totals["ai" if mode == "ai" else "people"]
        for index, value in enumerate(values):
            bucket[index] += value
    return _counts(totals["people"]), _counts(totals["ai"])


def _counts(values: list[int]) -> GameCounts:
    games, wins, draws, losses, abandoned = values
    return GameCounts(games=games, wins=wins, draws=draws, losses=losses, abandoned=abandoned)


def games_played(connection: Connection | Session, account_id: int) -> int:
    """How many games the account has a seat in."""
    statement = select(func.count(func.distinct(SeatRow.game_id))).where(
        SeatRow.account_id == account_id
    )
    return int(connection.execute(statement).scalar() or 0)


def unclaimed_games(session: Session, browser: str, limit: int) -> list[str]:
    """The games a browser played (``browser``: its digest) that no account holds yet: at most
    ``limit``, newest first."""
    unclaimed_seat = (
        select(SeatRow.side)
        .where(
            SeatRow.game_id == ListingRow.game_id,
            SeatRow.browser_hash == browser,
            SeatRow.kind == "human",
            SeatRow.account_id.is_(None),
        )
        .exists()
    )
    statement = (
        select(ListingRow.game_id)
        .where(ListingRow.browser_hash == browser, unclaimed_seat)
        .order_by(ListingRow.created_ms.desc(), ListingRow.game_id.desc())
        .limit(limit)
    )
    return list(session.scalars(statement))


@dataclass(frozen=True)
class GameWithAccount:
    """A game an account plays against another account: its side and the other's name."""

    game_id: str
    side: str
    opponent: str
    rated: bool
    unrated_reason: str | None


def newest_game_with_account(
    session: Session, account_id: int, since_ms: int
) -> GameWithAccount | None:
    """The account's newest game against another account started since ``since_ms`` (``None``:
    none). The other's name is read from its seat (names never change)."""
    mine, theirs = aliased(SeatRow), aliased(SeatRow)
    statement = (
        select(GameRow.id, GameRow.rated, GameRow.unrated_reason, mine.side, theirs.account_name)
        .join(mine, mine.game_id == GameRow.id)
        .join(theirs, and_(theirs.game_id == GameRow.id, theirs.side != mine.side))
        .where(
            mine.account_id == account_id,
            theirs.account_id.is_not(None),
            theirs.account_name.is_not(None),
            GameRow.created_ms >= since_ms,
        )
        .order_by(GameRow.created_ms.desc())
        .limit(1)
    )
    found = session.execute(statement).first()
    if found is None:
        return None
    game_id, rated, unrated_reason, side, opponent = found
    return GameWithAccount(str(game_id), str(side), str(opponent), bool(rated), unrated_reason)
