"""Puzzles as the site serves them: the next one near a solver's puzzle rating, the daily one,
an attempt checked move by move with the opponent's replies, and the Glicko-2 puzzle ratings.

A solver is an account or, without one, a browser (``solver_key``). Only a solver's first try
at a puzzle is rated, as a game between the solver and the puzzle (``ratings.glicko``): a solved
puzzle is a win. ``next_puzzle`` never offers a puzzle the solver has tried.
"""

from __future__ import annotations

import hashlib
import logging
import random
from datetime import UTC, datetime

from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from bluegray.errors import BlueGrayError
from bluegray.game import Game
from bluegray.rules import as_rules
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.db import Database
from bluegray.web.platform.refusals import Invalid, NotFound, not_found
from bluegray.web.puzzles import store
from bluegray.web.puzzles.rows import PuzzleRow
from bluegray.web.puzzles.schemas import (
    AttemptAnswer,
    PuzzleRatingView,
    PuzzleView,
)
from bluegray.web.puzzles.starter import starter_puzzles
from bluegray.web.ratings.glicko import DEFAULT_SETTINGS, Rating, is_provisional, rate_game

log = logging.getLogger("bluegray.web")


def solver_key(account_id: int | None, browser: str) -> str:
    """Who solves: an account (``a`` and its id), else the browser (``b`` and its id's digest)."""
    return f"a{account_id}" if account_id is not None else f"b{browser[:64]}"


def load_starter(connection: Connection) -> int:
    """Put the shipped puzzles that are not in the database yet into it; how many were added
    (idempotent: a puzzle is known by its position)."""
    known = store.known_keys(connection)
    new = [dict(values) for values in starter_puzzles() if values["key"] not in known]
    unique = list({str(values["key"]): values for values in new}.values())
    store.add_puzzles(connection, unique)
    return len(unique)


def _rating_view(rating: Rating, attempts: int) -> PuzzleRatingView:
    return PuzzleRatingView(
        rating=round(rating.rating),
        deviation=round(rating.deviation),
        attempts=attempts,
        provisional=is_provisional(rating),
    )


def _themes(row: PuzzleRow) -> list[str]:
    return [theme for theme in row.themes.split(",") if theme]


class Puzzles:
    """The puzzles of the site."""

    def __init__(self, database: Database) -> None:
        self.db = database

    def load(self) -> None:
        """Load the starter set (at start-up; another process loading it at once is fine)."""
        try:
            added = self.db.run(load_starter)
        except IntegrityError:  # another process added them first
            added = self.db.run(load_starter)
        if added:
            log.info("loaded %d puzzles of the starter set", added)

    async def _view(self, row: PuzzleRow, solver: str, date: str | None = None) -> PuzzleView:
        was_tried = await self.db.read(lambda session: store.has_tried(session, row.id, solver))
        turn = row.position.split()[1]
        return PuzzleView(
            id=row.id,
            rules=row.rules,
            position=row.position,
            side="blue" if turn == "b" else "gray",
            themes=_themes(row),  # type: ignore[arg-type]
            rating=round(row.rating),
            moves=(len(row.solution.split()) + 1) // 2,
            tried=was_tried,
            date=date,
        )

    async def _row(self, puzzle_id: int) -> PuzzleRow:
        row = await self.db.read(lambda session: store.read_puzzle(session, puzzle_id))
        if row is None:
            raise not_found("puzzle")
        return row

    async def puzzle(self, puzzle_id: int, solver: str) -> PuzzleView:
        return await self._view(await self._row(puzzle_id), solver)

    async def next_puzzle(self, solver: str, rules: str | None, theme: str | None) -> PuzzleView:
        """A puzzle the solver has not tried, rated near the solver's puzzle rating (of the
        rule set and theme, when given); 404 when none is left."""
        if rules is not None:
            try:
                rules = str(as_rules(rules))
            except BlueGrayError as error:
                raise Invalid("invalid_request", str(error)) from None

        def query(session: Session) -> list[PuzzleRow]:
            found = store.read_solver_rating(session, solver)
            rating = DEFAULT_SETTINGS.new_player.rating if found is None else found.rating
            return store.nearest_puzzles(session, solver, rating, rules, theme)

        rows = await self.db.read(query)
        if not rows:
            raise NotFound("no_puzzle", "no puzzle left to try with these choices")
        return await self._view(random.choice(rows[:4]), solver)

    async def daily(self) -> PuzzleView:
        """The day's puzzle: the same for everyone for a UTC day."""
        today = datetime.fromtimestamp(now_ms() / 1000, UTC).date().isoformat()
        index = int(hashlib.sha256(today.encode()).hexdigest(), 16)

        def query(session: Session) -> PuzzleRow | None:
            count = store.puzzle_count(session)
            return store.puzzle_at(session, index % count) if count else None

        row = await self.db.read(query)
        if row is None:
            raise NotFound("no_puzzle", "there are no puzzles yet")
        return await self._view(row, "", today)

    async def rating(self, solver: str) -> PuzzleRatingView:
        found = await self.db.read(lambda session: store.read_solver_rating(session, solver))
        if found is None:
            return _rating_view(DEFAULT_SETTINGS.new_player, 0)
        return _rating_view(Rating(found.rating, found.deviation, found.volatility), found.attempts)

    async def attempt(self, puzzle_id: int, solver: str, moves: list[str]) -> AttemptAnswer:
        """Check the solver's moves so far: each must be the solution's (the last may also be
        any move that wins the game at once). A wrong one fails the try; the last of the
        solution's solves it; else the answer is the opponent's reply. 422 for a move that is
        not legal, or more moves than the solution has."""
        row = await self._row(puzzle_id)
        solution = row.solution.split()
        mine, replies = solution[0::2], solution[1::2]
        if len(moves) > len(mine):
            raise Invalid("invalid_request", f"the puzzle has {len(mine)} moves to find")
        game = Game(row.rules, row.position)
        side = game.turn
        for index, text in enumerate(moves):
            try:
                move = game.parse_move(text)
            except BlueGrayError as error:
                raise Invalid("illegal_move", str(error)) from None
            last = index == len(moves) - 1
            right = str(move) == mine[index]
            if not right and last:
                game.push(move)
                outcome = game.outcome()
                right = outcome is not None and outcome.winner is side
            if not right:
                if not last:
                    raise Invalid("invalid_request", "the try failed before its last move")
                return await self._decide(row, solver, solution, solved=False)
            if last and index == len(mine) - 1:
                return await self._decide(row, solver, solution, solved=True)
            if not last:
                game.push(move)
                game.push(replies[index])
        return AttemptAnswer(
            result="continue",
            reply=replies[len(moves) - 1],
            solution=None,
            rated=False,
            change=None,
            rating=None,
        )

    async def _decide(
        self, row: PuzzleRow, solver: str, solution: list[str], *, solved: bool
    ) -> AttemptAnswer:
        at = now_ms()

        def write(connection: Connection) -> tuple[Rating, int, float | None]:
            found = store.solver_rating(connection, solver)
            player = DEFAULT_SETTINGS.new_player if found is None else Rating(*found[:3])
            attempts = 0 if found is None else found[3]
            if store.first_attempt(connection, row.id, solver) is not None:
                return player, attempts, None
            puzzle = Rating(*store.puzzle_rating(connection, row.id))
            after, puzzle_after = rate_game(player, puzzle, 1.0 if solved else 0.0)
            store.add_attempt(connection, row.id, solver, solved, at)
            store.store_puzzle_rating(
                connection, row.id, puzzle_after.rating, puzzle_after.deviation,
                puzzle_after.volatility,
            )  # fmt: skip
            values: dict[str, object] = {
                "rating": after.rating,
                "deviation": after.deviation,
                "volatility": after.volatility,
                "attempts": attempts + 1,
                "updated_ms": at,
            }
            store.store_solver_rating(connection, solver, values, new=found is None)
            return after, attempts + 1, after.rating - player.rating

        try:
            rating, attempts, change = await self.db.write(write)
        except IntegrityError:  # the same first try sent twice at once: the other one counted
            return await self._decide(row, solver, solution, solved=solved)
        return AttemptAnswer(
            result="solved" if solved else "failed",
            reply=None,
            solution=solution,
            rated=change is not None,
            change=None if change is None else round(change, 1),
            rating=_rating_view(rating, attempts),
        )
