"""Questions about many games at once: a browser's (and its account's) list of games, and how
many games there are. They read the database, never a process's copies, so every process gives
the same answers."""

from __future__ import annotations

from sqlalchemy import ColumnElement, and_, func, or_, select, true
from sqlalchemy.orm import InstrumentedAttribute, Session

from bluegray.outcome import Outcome, Termination
from bluegray.pieces import Side
from bluegray.rules import RuleSet, Stalemate
from bluegray.web.games.rows import GameRow, ListingRow, SeatRow
from bluegray.web.games.schemas import GameList, GameSummary, OutcomeInfo
from bluegray.web.platform.db import Database


def older_than(
    created_ms: InstrumentedAttribute[int],
    game_id: InstrumentedAttribute[str],
    before_ms: int | None,
    before_id: str | None,
) -> ColumnElement[bool]:
    """Which games come on the next page of a list ordered newest first (then by id, down): those
    created before ``before_ms``, and those created in that millisecond with an id before
    ``before_id`` (the previous page's last game), so that games created in the same millisecond
    are neither skipped nor listed twice."""
    if before_ms is None:
        return true()
    if before_id is None:
        return created_ms < before_ms
    return or_(created_ms < before_ms, and_(created_ms == before_ms, game_id < before_id))


async def list_games(
    db: Database,
    browser: str,
    limit: int,
    before_ms: int | None,
    before_id: str | None = None,
    account_id: int | None = None,
) -> GameList:
    """A browser's games, and with ``account_id`` that account's too (its seats', from whatever
    browser they were played), newest first, ``limit`` at a time (``before_ms`` and
    ``before_id``, the last game of the page before, page back)."""

    def query(session: Session) -> list[tuple[GameRow, str]]:
        listed = select(ListingRow.game_id).where(ListingRow.browser_hash == browser)
        mine: ColumnElement[bool] = GameRow.id.in_(listed)
        if account_id is not None:
            seated = select(SeatRow.game_id).where(SeatRow.account_id == account_id)
            mine = or_(mine, GameRow.id.in_(seated))
        statement = (
            select(GameRow)
            .where(mine, older_than(GameRow.created_ms, GameRow.id, before_ms, before_id))
            .order_by(GameRow.created_ms.desc(), GameRow.id.desc())
            .limit(limit + 1)
        )
        games = list(session.scalars(statement).all())
        ids = [game.id for game in games]
        roles = dict(
            session.execute(
                select(ListingRow.game_id, ListingRow.role).where(
                    ListingRow.browser_hash == browser, ListingRow.game_id.in_(ids)
                )
            ).all()
        )
        sides: dict[str, list[str]] = {}
        if account_id is not None:
            seats = session.execute(
                select(SeatRow.game_id, SeatRow.side).where(
                    SeatRow.account_id == account_id, SeatRow.game_id.in_(ids)
                )
            )
            for game_id, side in seats.all():
                sides.setdefault(game_id, []).append(side)
        return [(game, roles.get(game.id) or _role_of(sides.get(game.id, []))) for game in games]

    rows = await db.read(query)
    games = [_summary(row, role) for row, role in rows[:limit]]
    more = len(rows) > limit
    return GameList(
        games=games,
        next_before_ms=games[-1].created_ms if more else None,
        next_before_id=games[-1].id if more else None,
    )


def _role_of(sides: list[str]) -> str:
    """An account's role in a game from the sides it holds: one side, or ``both``."""
    return sides[0] if len(sides) == 1 else "both"


async def count_games(db: Database) -> int:
    def count(session: Session) -> int:
        return int(session.scalar(select(func.count()).select_from(GameRow)) or 0)

    return await db.read(count)


def outcome_of_row(row: GameRow) -> OutcomeInfo | None:
    """How a stored game ended, as clients see it (``None``: it has not)."""
    if row.result is None or row.termination is None:
        return None
    termination = Termination(row.termination)
    winner = None if row.winner is None else Side(row.winner)
    impasse = termination in (Termination.REPETITION, Termination.NO_PROGRESS) or (
        termination is Termination.STALEMATE
        and RuleSet.parse(row.rules).stalemate is Stalemate.IMPASSE
    )
    described = Outcome(termination, winner, impasse)
    abandoned = row.end_reason == "abandoned" and winner is not None
    return OutcomeInfo(
        winner=row.winner,  # type: ignore[arg-type]
        reason="abandoned" if abandoned else termination.value,
        result=row.result,
        description=f"{winner.title} wins: {winner.other.title} left the game"
        if abandoned and winner is not None
        else described.describe(),
    )


def _summary(row: GameRow, role: str) -> GameSummary:
    opponent = {
        "ai": f"AI level {row.ai_level}",
        "hotseat": "hot-seat",
        "friend": "friend",
        "imported": "imported record",
    }.get(row.mode, row.mode)
    return GameSummary(
        id=row.id,
        created_ms=row.created_ms,
        mode=row.mode,  # type: ignore[arg-type]
        status=row.status,  # type: ignore[arg-type]
        rules=row.rules,
        role=role,
        opponent=opponent,
        ply=row.ply,
        turn=row.turn,  # type: ignore[arg-type]
        version=row.version,
        outcome=outcome_of_row(row),
    )
