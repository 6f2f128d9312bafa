"""Game review: ask for a finished game's computer analysis, move by move, and read it (its
progress while the AI's workers analyse it; then the evaluation graph's points, each move's
verdict and each side's accuracy)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from bluegray.web.accounts.callers import csrf_refusal
from bluegray.web.deps import Address, CurrentCaller, GameId, ReviewService
from bluegray.web.platform.schemas import ErrorResponse
from bluegray.web.review.schemas import Review

router = APIRouter(tags=["review"])

ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse} for status in (403, 404, 409, 422, 429)
}


@router.post(
    "/api/games/{game_id}/review",
    response_model=Review,
    status_code=202,
    summary="Ask for the game's computer review",
    responses=ERRORS,
)
async def request_review(
    game_id: GameId, reviews: ReviewService, caller: CurrentCaller, address: Address
) -> Review:
    """The AI's workers analyse each position of the finished game (at the server's node count,
    behind every AI move); read its progress and result at `GET` of the same path. Asking again
    answers the review asked for already. 409 `not_ended` for a game being played, `no_moves`
    for one without moves, `not_allowed` for an imported record with a position on the board of
    a rated game being played; 429 `review_limit` past the reviews a day of an account, or of an
    address (`BLUEGRAY_REVIEWS_PER_DAY`)."""
    if caller.refused_csrf:
        raise csrf_refusal()
    account = caller.account
    return await reviews.request(game_id, None if account is None else account.id, address)


@router.get(
    "/api/games/{game_id}/review",
    response_model=Review,
    summary="Read the game's review",
    responses=ERRORS,
)
async def read_review(game_id: GameId, reviews: ReviewService) -> Review:
    """The review as far as it is analysed: `analysed` of `positions`, then (`status` `done`)
    every move's verdict and each side's accuracy. 404 `no_review` when none was asked for."""
    return await reviews.view(game_id)
