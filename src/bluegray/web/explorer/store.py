"""The explorer's rows written and read: a game's moves added (once), a book replaced, and the
moves from a position."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

from sqlalchemy import Connection, Row, delete, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from bluegray.web.explorer.positions import Tally
from bluegray.web.explorer.rows import ExplorerBookRow, ExplorerGameRow, ExplorerMoveRow
from bluegray.web.platform.db import upsert
from bluegray.web.platform.models import table_of

_MOVES: Final = table_of(ExplorerMoveRow)
_GAMES: Final = table_of(ExplorerGameRow)
_BOOKS: Final = table_of(ExplorerBookRow)
_COUNTS: Final = ("games", "blue_wins", "draws", "gray_wins", "rated_games", "rating_sum")
_KEY: Final = ("rules", "position_key", "source", "move")
BATCH: Final = 5_000
"""Rows per statement when many are written (a bulk fill, a book)."""


def _insert(connection: Connection) -> Any:
    return postgresql_insert if connection.dialect.name == "postgresql" else sqlite_insert


def mark_counted(connection: Connection, game_ids: Sequence[str], now_ms: int) -> set[str]:
    """Mark ``game_ids`` counted; the ones that were not yet (the others were counted before, by
    this process or another: their moves are not added again)."""
    if not game_ids:
        return set()
    before = set(
        connection.scalars(select(_GAMES.c.game_id).where(_GAMES.c.game_id.in_(list(game_ids))))
    )
    fresh = [game_id for game_id in game_ids if game_id not in before]
    if not fresh:
        return set()
    statement = _insert(connection)(_GAMES).on_conflict_do_nothing(index_elements=["game_id"])
    marked = set()
    for game_id in fresh:
        # One at a time, so that a game another transaction counts meanwhile is seen here (its
        # insert does nothing once the other commits) and its moves are not added twice.
        if connection.execute(statement.values(game_id=game_id, counted_ms=now_ms)).rowcount:
            marked.add(game_id)
    return marked


def counted_among(connection: Connection | Session, game_ids: Sequence[str]) -> set[str]:
    """Which of ``game_ids`` are counted already."""
    return set(
        connection.scalars(select(_GAMES.c.game_id).where(_GAMES.c.game_id.in_(list(game_ids))))
    )


def _rows(source: str, tally: Tally) -> Iterator[dict[str, Any]]:
    for (rules, key, move), counts in tally.moves.items():
        yield {
            "rules": rules,
            "position_key": key,
            "source": source,
            "move": move,
            "games": counts.games,
            "blue_wins": counts.blue_wins,
            "draws": counts.draws,
            "gray_wins": counts.gray_wins,
            "rated_games": counts.rated_games,
            "rating_sum": counts.rating_sum,
        }


def _batches(rows: Iterator[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for row in rows:
        batch.append(row)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def add_tally(connection: Connection, source: str, tally: Tally) -> None:
    """Add ``tally``'s counts to ``source``'s rows (a row is created at its first game)."""
    statement = _insert(connection)(_MOVES)
    statement = statement.on_conflict_do_update(
        index_elements=list(_KEY),
        set_={name: _MOVES.c[name] + statement.excluded[name] for name in _COUNTS},
    )
    for batch in _batches(_rows(source, tally)):
        connection.execute(statement, batch)


def book_digest(connection: Connection, rules: str) -> str | None:
    """The digest of the book loaded for ``rules`` (``None``: none loaded)."""
    return connection.scalar(select(_BOOKS.c.digest).where(_BOOKS.c.rules == rules))


def replace_book(
    connection: Connection,
    rules: str,
    digest: str,
    tally: Tally,
    now_ms: int,
    between: Callable[[], None] = lambda: None,
) -> None:
    """Put ``tally`` in the place of ``rules``'s book rows, and note the book's digest.
    ``between`` is called after each batch of rows: raising there gives the load up (the caller
    rolls back)."""
    connection.execute(delete(_MOVES).where(_MOVES.c.rules == rules, _MOVES.c.source == "book"))
    statement = _insert(connection)(_MOVES)
    for batch in _batches(_rows("book", tally)):
        connection.execute(statement, batch)
        between()
    upsert(
        connection,
        _BOOKS,
        {"rules": rules, "digest": digest, "games": tally.games, "loaded_ms": now_ms},
    )


def book_games(session: Session) -> dict[str, int]:
    """How many games each loaded book holds, by rule set."""
    return {row.rules: row.games for row in session.execute(select(_BOOKS))}


def moves_from(session: Session, rules: str, key: int) -> Sequence[Row[Any]]:
    """Every source's moves from the position ``key`` under ``rules``."""
    return session.execute(
        select(_MOVES).where(_MOVES.c.rules == rules, _MOVES.c.position_key == key)
    ).all()
