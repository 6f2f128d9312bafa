"""The reviews' storage: asking for a review, the lease of the process that drives it, each
position's analysis as it comes, and the review read back.

A review is driven by one process at a time: the one holding its lease (``runner`` and
``lease_until_ms``), which it renews with every position it stores. A process that dies holds it
no longer once the lease runs out, and the next to claim it goes on from the first position not
stored: positions are stored once each (a second store of the same one changes nothing).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, and_, func, or_, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from bluegray.web.platform.models import table_of
from bluegray.web.review.rows import ReviewPositionRow, ReviewRow

REVIEWS = table_of(ReviewRow)
POSITIONS = table_of(ReviewPositionRow)


@dataclass(frozen=True)
class Asked:
    """How many reviews an account and an address asked for since a moment."""

    by_account: int
    by_address: int


def asked_since(
    session: Session, account_id: int | None, address_hash: str, since_ms: int
) -> Asked:
    by_account = 0
    if account_id is not None:
        by_account = (
            session.scalar(
                select(func.count())
                .select_from(ReviewRow)
                .where(ReviewRow.account_id == account_id, ReviewRow.requested_ms > since_ms)
            )
            or 0
        )
    by_address = (
        session.scalar(
            select(func.count())
            .select_from(ReviewRow)
            .where(ReviewRow.address_hash == address_hash, ReviewRow.requested_ms > since_ms)
        )
        or 0
    )
    return Asked(by_account, by_address)


def add_review(
    connection: Connection,
    game_id: str,
    *,
    positions: int,
    nodes: int,
    now_ms: int,
    account_id: int | None,
    address_hash: str,
) -> bool:
    """Ask for the game's review; whether it was asked for now (``False``: it was already, and
    is pending or done). A failed review is asked for afresh, from its first missing position."""
    values = {
        "game_id": game_id,
        "status": "pending",
        "positions": positions,
        "nodes": nodes,
        "requested_ms": now_ms,
        "finished_ms": None,
        "account_id": account_id,
        "address_hash": address_hash,
        "runner": None,
        "lease_until_ms": None,
        "failure": None,
    }
    insert = postgresql_insert if connection.dialect.name == "postgresql" else sqlite_insert
    added = connection.execute(
        insert(REVIEWS).values(values).on_conflict_do_nothing(index_elements=["game_id"])
    )
    if added.rowcount:
        return True
    retried = connection.execute(
        update(REVIEWS)
        .where(REVIEWS.c.game_id == game_id, REVIEWS.c.status == "failed")
        .values({key: value for key, value in values.items() if key != "game_id"})
    )
    return bool(retried.rowcount)


def _claimable(now_ms: int):  # type: ignore[no-untyped-def]
    return and_(
        REVIEWS.c.status == "pending",
        or_(REVIEWS.c.lease_until_ms.is_(None), REVIEWS.c.lease_until_ms < now_ms),
    )


def claim(connection: Connection, runner: str, now_ms: int, lease_ms: int) -> str | None:
    """The game of the oldest pending review that no process holds, now held by ``runner``
    (``None``: there is none). Two processes never both get it: the lease is taken only where
    it is still free."""
    candidates = connection.execute(
        select(REVIEWS.c.game_id)
        .where(_claimable(now_ms))
        .order_by(REVIEWS.c.requested_ms, REVIEWS.c.game_id)
        .limit(5)
    ).scalars()
    for game_id in list(candidates):
        taken = connection.execute(
            update(REVIEWS)
            .where(REVIEWS.c.game_id == game_id, _claimable(now_ms))
            .values(runner=runner, lease_until_ms=now_ms + lease_ms)
        )
        if taken.rowcount:
            return str(game_id)
    return None


def renew(connection: Connection, game_id: str, runner: str, now_ms: int, lease_ms: int) -> bool:
    """Keep the review with ``runner``; whether it still holds it."""
    kept = connection.execute(
        update(REVIEWS)
        .where(
            REVIEWS.c.game_id == game_id,
            REVIEWS.c.runner == runner,
            REVIEWS.c.status == "pending",
        )
        .values(lease_until_ms=now_ms + lease_ms)
    )
    return bool(kept.rowcount)


def let_go(connection: Connection, game_id: str, runner: str) -> None:
    """``runner`` stops driving the review (it is stopping): another process may take it now."""
    connection.execute(
        update(REVIEWS)
        .where(REVIEWS.c.game_id == game_id, REVIEWS.c.runner == runner)
        .values(runner=None, lease_until_ms=None)
    )


def store_position(connection: Connection, values: dict[str, object]) -> None:
    """One position's analysis (stored once: a second store of the same position is ignored)."""
    insert = postgresql_insert if connection.dialect.name == "postgresql" else sqlite_insert
    connection.execute(
        insert(POSITIONS).values(values).on_conflict_do_nothing(index_elements=["game_id", "ply"])
    )


def finish(connection: Connection, game_id: str, now_ms: int) -> None:
    connection.execute(
        update(REVIEWS)
        .where(REVIEWS.c.game_id == game_id, REVIEWS.c.status == "pending")
        .values(status="done", finished_ms=now_ms, runner=None, lease_until_ms=None)
    )


def fail(connection: Connection, game_id: str, why: str, now_ms: int) -> None:
    connection.execute(
        update(REVIEWS)
        .where(REVIEWS.c.game_id == game_id, REVIEWS.c.status == "pending")
        .values(status="failed", failure=why, finished_ms=now_ms, runner=None, lease_until_ms=None)
    )


@dataclass(frozen=True)
class StoredReview:
    review: ReviewRow
    positions: list[ReviewPositionRow]


def read_review(session: Session, game_id: str) -> StoredReview | None:
    review = session.get(ReviewRow, game_id)
    if review is None:
        return None
    positions = session.scalars(
        select(ReviewPositionRow)
        .where(ReviewPositionRow.game_id == game_id)
        .order_by(ReviewPositionRow.ply)
    ).all()
    session.expunge_all()
    return StoredReview(review, list(positions))


def stored_plies(session: Session, game_id: str) -> set[int]:
    return set(
        session.scalars(
            select(ReviewPositionRow.ply).where(ReviewPositionRow.game_id == game_id)
        ).all()
    )
