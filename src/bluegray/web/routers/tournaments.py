"""The tournaments' API: ``/api/tournaments`` (list, create), and per tournament its state, join,
withdraw, table, games and all its games' records. docs/web.md ("Tournaments") describes them."""

from __future__ import annotations

from typing import Annotated, Any, Final

from fastapi import APIRouter, Path, Query, WebSocket
from fastapi.responses import PlainTextResponse

from bluegray.web.accounts.callers import Caller, csrf_refusal
from bluegray.web.accounts.players import Account
from bluegray.web.deps import AppSettings, CurrentCaller, Service, TournamentService
from bluegray.web.lobby.schemas import LobbyWelcome
from bluegray.web.lobby.service import Lobby
from bluegray.web.platform.refusals import Refusal, Unauthorized
from bluegray.web.platform.schemas import ErrorResponse
from bluegray.web.platform.security import origin_allowed
from bluegray.web.realtime.sockets import Connection
from bluegray.web.routers.lobby_routes import CLOSE_POLICY, identify, listen
from bluegray.web.routers.records import record_text
from bluegray.web.tournaments.schemas import (
    CreateTournamentRequest,
    Standings,
    TournamentGames,
    TournamentInfo,
    TournamentList,
    TournamentMessage,
)
from bluegray.web.tournaments.service import Tournaments

router = APIRouter(tags=["tournaments"])

ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse} for status in (401, 403, 404, 409, 422, 429)
}
CLOSE_NOT_FOUND: Final = 4404
TournamentId = Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{1,32}$")]


def _player(caller: Caller) -> Account:
    player = caller.player
    if player is not None:
        return player
    if caller.refused_csrf:
        raise csrf_refusal()
    raise Unauthorized(
        "unauthorized", "tournaments are for accounts: log in (or send an API token)"
    )


@router.get("/api/tournaments", response_model=TournamentList, summary="The tournaments")
async def list_tournaments(
    tournaments: TournamentService,
    limit: Annotated[int, Query(ge=1, le=100)] = 100,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> TournamentList:
    """Those to come and running (soonest first), then the finished (latest first), a page at a
    time: ``next_offset`` is the next page's ``offset`` (null after the last)."""
    return await tournaments.all(offset, limit)


@router.post(
    "/api/tournaments",
    response_model=TournamentInfo,
    status_code=201,
    responses=ERRORS,
    summary="Create a tournament",
)
async def create_tournament(
    body: CreateTournamentRequest, caller: CurrentCaller, tournaments: TournamentService
) -> TournamentInfo:
    """Any account may create an arena (``minutes``) or a Swiss (``rounds``); it starts
    ``starts_in_seconds`` from now. An account may have at most
    ``BLUEGRAY_OPEN_TOURNAMENTS_PER_ACCOUNT`` that have not finished (409
    ``too_many_tournaments``) and create at most ``BLUEGRAY_TOURNAMENTS_PER_DAY`` a day (429
    ``too_many_tournaments``)."""
    return await tournaments.create(_player(caller), body)


@router.get(
    "/api/tournaments/{tournament_id}",
    response_model=Standings,
    responses=ERRORS,
    summary="A tournament and its table",
)
async def get_tournament(tournament_id: TournamentId, tournaments: TournamentService) -> Standings:
    """The tournament with its live table (the final one once finished)."""
    return await tournaments.standings(tournament_id)


@router.get(
    "/api/tournaments/{tournament_id}/games",
    response_model=TournamentGames,
    responses=ERRORS,
    summary="A tournament's games",
)
async def tournament_games(
    tournament_id: TournamentId, tournaments: TournamentService
) -> TournamentGames:
    """Every game, in the order they started, with its result once it ended."""
    return await tournaments.games(tournament_id)


@router.post(
    "/api/tournaments/{tournament_id}/join",
    response_model=Standings,
    responses=ERRORS,
    summary="Join a tournament",
)
async def join_tournament(
    tournament_id: TournamentId, caller: CurrentCaller, tournaments: TournamentService
) -> Standings:
    """An arena may be joined until it ends, a Swiss before it starts."""
    return await tournaments.join(_player(caller), tournament_id)


@router.post(
    "/api/tournaments/{tournament_id}/withdraw",
    response_model=Standings,
    responses=ERRORS,
    summary="Withdraw from a tournament",
)
async def withdraw_tournament(
    tournament_id: TournamentId, caller: CurrentCaller, tournaments: TournamentService
) -> Standings:
    """No new game is paired for the player (a game being played is played to its end)."""
    return await tournaments.withdraw(_player(caller), tournament_id)


@router.get(
    "/api/tournaments/{tournament_id}/records",
    response_class=PlainTextResponse,
    summary="Download every game of a tournament as records",
    responses={200: {"content": {"text/plain": {}}, "description": "The records."}, **ERRORS},
)
async def download_records(
    tournament_id: TournamentId,
    tournaments: TournamentService,
    service: Service,
    settings: AppSettings,
) -> Any:
    """One text with every game's record (the project's record format), in the order the games
    started, separated by a blank line."""
    snapshot = await tournaments.snapshot(tournament_id)
    event = snapshot.info().name
    texts = [
        record_text(await service.snapshot(game.game_id), settings, event=event, round=game.round)
        for game in snapshot.game_views()
    ]
    return PlainTextResponse(
        "\n".join(text.rstrip("\n") + "\n" for text in texts),
        headers={"content-disposition": f'attachment; filename="bluegray-{tournament_id}.txt"'},
    )


@router.websocket("/ws/tournament/{tournament_id}")
async def tournament_socket(websocket: WebSocket, tournament_id: str) -> None:
    """Everyone on a tournament's page: ``welcome``, its table (``tournament``), then the table
    again each time it changes (a player joins or withdraws, a game starts or ends, the
    tournament starts or ends). Closed at once (4404) for a tournament that does not exist."""
    lobby: Lobby = websocket.app.state.lobby
    tournaments: Tournaments = websocket.app.state.tournaments
    if not origin_allowed(websocket.headers):
        await websocket.close(CLOSE_POLICY)
        return
    account = await identify(websocket)
    await websocket.accept()
    connection = Connection(websocket, f"tournament:{tournament_id}", frozenset())
    lobby.hub.join_tournament(tournament_id, connection)
    try:
        try:
            standings = await tournaments.standings(tournament_id)
        except Refusal:
            await websocket.close(CLOSE_NOT_FOUND)
            return
        connection.start()
        name = None if account is None else account.name
        connection.send(
            LobbyWelcome(connection="", account=name, process=lobby.process).model_dump_json()
        )
        first = TournamentMessage(standings=standings).model_dump_json()
        lobby.hub.tournament_ready(tournament_id, connection, first)
        await listen(websocket, connection)
    finally:
        lobby.hub.leave_tournament(tournament_id, connection)
        await connection.stop()
