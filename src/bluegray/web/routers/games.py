"""``/api/games``: create a game, list a browser's games, read one, join one, and play in it
(moves and actions also go over the WebSocket; these are the same operations over HTTP)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Query

from bluegray.pieces import Side
from bluegray.web.accounts.schemas import RatingPreview
from bluegray.web.deps import (
    Address,
    BeforeId,
    Browser,
    CurrentCaller,
    GameId,
    SeatSides,
    Service,
)
from bluegray.web.games.idempotency import HEADER
from bluegray.web.games.schemas import (
    ActionRequest,
    CreatedGame,
    CreateGameRequest,
    GameList,
    GameState,
    Invite,
    JoinedGame,
    JoinRequest,
    MoveAck,
    MoveRequest,
)
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.refusals import NotFound
from bluegray.web.platform.schemas import ErrorResponse
from bluegray.web.ratings.service import read_game_preview

router = APIRouter(prefix="/api/games", tags=["games"])

MAX_MS = 2**53 - 1
"""The largest time a client may give (milliseconds): the largest whole number JavaScript keeps
exact, and far beyond any game."""

ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse} for status in (401, 403, 404, 409, 422, 429, 503)
}


@router.post(
    "",
    response_model=CreatedGame,
    status_code=201,
    summary="Start a game",
    responses=ERRORS,
)
async def create_game(
    body: CreateGameRequest,
    service: Service,
    browser: Browser,
    address: Address,
    caller: CurrentCaller,
    idempotency_key: Annotated[
        str | None,
        Header(
            alias=HEADER,
            max_length=255,
            description="A new random value (a UUID) for each game: the same request sent "
            "again with it within 24 hours answers the same game (422 "
            "``idempotency_key_reused`` with a different request).",
        ),
    ] = None,
) -> CreatedGame:
    """Against the AI (levels 1-8), hot-seat (one token plays both sides), or a friend (the
    answer holds an invite link to send them). The seat token in the answer is shown only once:
    keep it to play (or send the request again with the same ``Idempotency-Key``). A logged-in
    player's seat is their account's too (its session cookie with the CSRF token, or an API
    token): it plays from any browser where they log in."""
    state, seat, invite = await service.create(
        body, browser, address, caller.player, idempotency_key
    )
    return CreatedGame(game=state, seat=seat, invite=invite)


@router.get("", response_model=GameList, summary="This browser's games, newest first")
async def list_games(
    service: Service,
    browser: Browser,
    caller: CurrentCaller,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    before_ms: Annotated[int | None, Query(ge=0, le=MAX_MS)] = None,
    before_id: BeforeId = None,
) -> GameList:
    """This browser's games, and the logged-in account's (its seats') from any browser."""
    account_id = caller.account.id if caller.account is not None else None
    return await service.list_games(browser, limit, before_ms, before_id, account_id)


@router.get("/{game_id}", response_model=GameState, summary="A game's state", responses=ERRORS)
async def get_game(game_id: GameId, service: Service) -> GameState:
    return await service.state(game_id)


@router.get(
    "/{game_id}/rating-preview",
    response_model=RatingPreview,
    summary="What each result of a rated game would change each rating by",
    responses=ERRORS,
)
async def get_rating_preview(game_id: GameId, service: Service) -> RatingPreview:
    """Each player's rating now and the change a win, a draw or a loss would make, computed
    as the game's end computes it (404: the game is not rated, or a seat is
    still open)."""
    live = await service.snapshot(game_id)
    now = now_ms()
    preview = await read_game_preview(service.db, live, now)
    if preview is None:
        raise NotFound("not_found", "this game is not rated between two accounts")
    return preview


@router.post(
    "/{game_id}/join",
    response_model=JoinedGame,
    summary="Take the open seat of a friend's game",
    responses=ERRORS,
)
async def join_game(
    game_id: GameId,
    body: JoinRequest,
    service: Service,
    browser: Browser,
    address: Address,
    caller: CurrentCaller,
) -> JoinedGame:
    """The seat is the logged-in player's account's too, as when creating a game."""
    state, seat = await service.join(game_id, body.invite, browser, address, caller.player)
    return JoinedGame(game=state, seat=seat)


@router.post(
    "/{game_id}/invite",
    response_model=Invite,
    summary="A new invite code (the old one stops working)",
    responses=ERRORS,
)
async def new_invite(game_id: GameId, sides: SeatSides, service: Service) -> Invite:
    return await service.new_invite(game_id, sides)


@router.post(
    "/{game_id}/moves",
    response_model=MoveAck,
    summary="Play a move",
    responses=ERRORS,
)
async def play_move(
    game_id: GameId, body: MoveRequest, sides: SeatSides, service: Service
) -> MoveAck:
    """The move as text (``d2-d3``, ``b2xb4xd4``) and the version it was chosen in; answered once
    the move is stored. A stale version is refused (409 ``stale_version``) with nothing
    changed."""
    return await service.move_with_state(game_id, sides, body.move, body.version)


@router.post(
    "/{game_id}/actions",
    response_model=GameState,
    summary="Offer, answer, resign, abort, claim or ask for a rematch",
    responses=ERRORS,
)
async def act(
    game_id: GameId, body: ActionRequest, sides: SeatSides, service: Service
) -> GameState:
    side = None if body.side is None else Side(body.side)
    return await service.act(game_id, sides, body.action, side, body.version)
