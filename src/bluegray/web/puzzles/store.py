"""The puzzles' rows written and read."""

from __future__ import annotations

from sqlalchemy import Connection, func, insert, select, update
from sqlalchemy.orm import Session

from bluegray.web.platform.models import table_of
from bluegray.web.puzzles.rows import PuzzleAttemptRow, PuzzleRatingRow, PuzzleRow

_PUZZLES = table_of(PuzzleRow)
_ATTEMPTS = table_of(PuzzleAttemptRow)
_RATINGS = table_of(PuzzleRatingRow)

NEAREST = 12
"""How many of the puzzles nearest a rating ``nearest_puzzles`` gives, to choose among."""


def known_keys(connection: Connection) -> set[str]:
    return set(connection.execute(select(_PUZZLES.c.key)).scalars())


def add_puzzles(connection: Connection, values: list[dict[str, object]]) -> None:
    if values:
        connection.execute(insert(_PUZZLES), values)


def read_puzzle(session: Session, puzzle_id: int) -> PuzzleRow | None:
    return session.get(PuzzleRow, puzzle_id)


def puzzle_count(session: Session) -> int:
    return int(session.scalar(select(func.count()).select_from(PuzzleRow)) or 0)


def puzzle_at(session: Session, index: int) -> PuzzleRow | None:
    """The puzzle at ``index`` in the order of their ids."""
    return session.scalars(select(PuzzleRow).order_by(PuzzleRow.id).offset(index).limit(1)).first()


def nearest_puzzles(
    session: Session, solver: str, rating: float, rules: str | None, theme: str | None
) -> list[PuzzleRow]:
    """The ``NEAREST`` puzzles rated nearest ``rating`` that ``solver`` has not tried yet (of
    the rule set and theme, when given)."""
    tried = select(PuzzleAttemptRow.puzzle_id).where(PuzzleAttemptRow.solver == solver)
    query = select(PuzzleRow).where(PuzzleRow.id.not_in(tried))
    if rules is not None:
        query = query.where(PuzzleRow.rules == rules)
    if theme is not None:
        query = query.where(PuzzleRow.themes.contains(f",{theme},", autoescape=True))
    query = query.order_by(func.abs(PuzzleRow.rating - rating), PuzzleRow.id).limit(NEAREST)
    return list(session.scalars(query))


def first_attempt(connection: Connection, puzzle_id: int, solver: str) -> bool | None:
    """Whether the solver's first attempt at the puzzle solved it (``None``: none yet)."""
    found = connection.execute(
        select(_ATTEMPTS.c.solved).where(
            _ATTEMPTS.c.puzzle_id == puzzle_id, _ATTEMPTS.c.solver == solver
        )
    ).first()
    return None if found is None else bool(found[0])


def has_tried(session: Session, puzzle_id: int, solver: str) -> bool:
    found = session.get(PuzzleAttemptRow, (puzzle_id, solver))
    return found is not None


def add_attempt(
    connection: Connection, puzzle_id: int, solver: str, solved: bool, at_ms: int
) -> None:
    connection.execute(
        insert(_ATTEMPTS).values(puzzle_id=puzzle_id, solver=solver, solved=solved, at_ms=at_ms)
    )


def puzzle_rating(connection: Connection, puzzle_id: int) -> tuple[float, float, float]:
    row = connection.execute(
        select(_PUZZLES.c.rating, _PUZZLES.c.deviation, _PUZZLES.c.volatility).where(
            _PUZZLES.c.id == puzzle_id
        )
    ).one()
    return float(row[0]), float(row[1]), float(row[2])


def store_puzzle_rating(
    connection: Connection, puzzle_id: int, rating: float, deviation: float, volatility: float
) -> None:
    connection.execute(
        update(_PUZZLES)
        .where(_PUZZLES.c.id == puzzle_id)
        .values(
            rating=rating,
            deviation=deviation,
            volatility=volatility,
            attempts=_PUZZLES.c.attempts + 1,
        )
    )


def solver_rating(connection: Connection, solver: str) -> tuple[float, float, float, int] | None:
    row = connection.execute(
        select(
            _RATINGS.c.rating, _RATINGS.c.deviation, _RATINGS.c.volatility, _RATINGS.c.attempts
        ).where(_RATINGS.c.solver == solver)
    ).first()
    return None if row is None else (float(row[0]), float(row[1]), float(row[2]), int(row[3]))


def read_solver_rating(session: Session, solver: str) -> PuzzleRatingRow | None:
    return session.get(PuzzleRatingRow, solver)


def store_solver_rating(
    connection: Connection,
    solver: str,
    values: dict[str, object],
    *,
    new: bool,
) -> None:
    if new:
        connection.execute(insert(_RATINGS).values(solver=solver, **values))
    else:
        connection.execute(update(_RATINGS).where(_RATINGS.c.solver == solver).values(**values))
