"""Puzzles: ``/api/puzzles/next`` (a puzzle near the caller's puzzle rating), ``/api/puzzles/
daily``, ``/api/puzzles/{id}``, ``/api/puzzles/{id}/attempt`` (the moves of a try, checked one
at a time, answered with the opponent's reply) and ``/api/puzzles/rating``; the pages
``/puzzles`` and ``/puzzles/{id}``. The caller solves as its account, or without one as its
browser (the browser id cookie)."""

from __future__ import annotations

from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import HTMLResponse

from bluegray.web.accounts.callers import csrf_refusal
from bluegray.web.deps import AppSettings, Browser, CurrentCaller, current_caller
from bluegray.web.platform.schemas import ErrorResponse
from bluegray.web.puzzles.schemas import (
    AttemptAnswer,
    AttemptRequest,
    PuzzleRatingView,
    PuzzleView,
    Theme,
)
from bluegray.web.puzzles.service import Puzzles, solver_key
from bluegray.web.routers.pages import render_page

router = APIRouter(tags=["puzzles"])
pages = APIRouter(include_in_schema=False, dependencies=[Depends(current_caller)])

MAX_ID: Final = 2**31 - 1
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse} for status in (403, 404, 422)
}
PuzzleId = Annotated[int, Path(ge=1, le=MAX_ID, description="The puzzle's id.")]


def get_puzzles(request: Request) -> Puzzles:
    puzzles: Puzzles = request.app.state.puzzles
    return puzzles


PuzzleService = Annotated[Puzzles, Depends(get_puzzles)]


def solver_of(caller: CurrentCaller, browser: Browser) -> str:
    """Who solves: the caller's account, else its browser."""
    account = caller.player
    return solver_key(None if account is None else account.id, browser)


Solver = Annotated[str, Depends(solver_of)]


@router.get(
    "/api/puzzles/next",
    response_model=PuzzleView,
    summary="A puzzle to solve, near the caller's puzzle rating",
    responses=ERRORS,
)
async def next_puzzle(
    solver: Solver,
    puzzles: PuzzleService,
    rules: Annotated[str | None, Query(max_length=40, description="Only this rule set.")] = None,
    theme: Annotated[Theme | None, Query(description="Only puzzles of this theme.")] = None,
) -> PuzzleView:
    """One of the puzzles rated nearest the caller's puzzle rating that the caller has not
    tried yet; 404 ``no_puzzle`` when none is left with these choices."""
    return await puzzles.next_puzzle(solver, rules, theme)


@router.get(
    "/api/puzzles/daily",
    response_model=PuzzleView,
    summary="The daily puzzle: the same for everyone for a UTC day",
    responses=ERRORS,
)
async def daily_puzzle(puzzles: PuzzleService) -> PuzzleView:
    return await puzzles.daily()


@router.get(
    "/api/puzzles/rating",
    response_model=PuzzleRatingView,
    summary="The caller's puzzle rating",
    responses=ERRORS,
)
async def puzzle_rating(solver: Solver, puzzles: PuzzleService) -> PuzzleRatingView:
    """The account's, or without one the browser's (1500 until a first try is rated)."""
    return await puzzles.rating(solver)


@router.get(
    "/api/puzzles/{puzzle_id}",
    response_model=PuzzleView,
    summary="A puzzle",
    responses=ERRORS,
)
async def read_puzzle(puzzle_id: PuzzleId, solver: Solver, puzzles: PuzzleService) -> PuzzleView:
    return await puzzles.puzzle(puzzle_id, solver)


@router.post(
    "/api/puzzles/{puzzle_id}/attempt",
    response_model=AttemptAnswer,
    summary="Check a try's moves so far",
    responses=ERRORS,
)
async def attempt_puzzle(
    puzzle_id: PuzzleId,
    body: AttemptRequest,
    caller: CurrentCaller,
    solver: Solver,
    puzzles: PuzzleService,
) -> AttemptAnswer:
    """The solver's moves in this try so far, one more each time. ``continue`` with the
    opponent's reply while the moves are the solution's; ``solved`` after its last move (or a
    move that wins the game at once); ``failed`` at a wrong one. The solver's first try at a
    puzzle is rated (``rated``, ``change``), later ones are not. 422 for a move that is not
    legal there."""
    if caller.player is None and caller.refused_csrf:
        raise csrf_refusal()
    return await puzzles.attempt(puzzle_id, solver, body.moves)


@pages.get("/puzzles", response_class=HTMLResponse)
async def puzzles_page(request: Request, settings: AppSettings) -> HTMLResponse:
    return render_page(request, "puzzles.html", settings, puzzle_id=None, section="puzzles")


@pages.get("/puzzles/daily", response_class=HTMLResponse)
async def daily_page(request: Request, settings: AppSettings) -> HTMLResponse:
    return render_page(request, "puzzles.html", settings, puzzle_id="daily", section="puzzles")


@pages.get("/puzzles/{puzzle_id}", response_class=HTMLResponse)
async def puzzle_page(request: Request, settings: AppSettings, puzzle_id: PuzzleId) -> HTMLResponse:
    return render_page(request, "puzzles.html", settings, puzzle_id=puzzle_id, section="puzzles")
