"""The lobby's API: ``/api/seeks`` (open challenges), ``/api/challenges`` (to a named player),
``/api/lobby/quick`` (quick pairings), and the sockets ``/ws/lobby`` (seeks appearing and
vanishing, for everyone on the lobby page) and ``/ws/account`` (an account's own news on any
page: challenges, and the games that start for it). docs/web.md describes every message."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, Path, Request, Response, WebSocket, WebSocketDisconnect

from bluegray.web.accounts.callers import Caller, Callers, csrf_refusal
from bluegray.web.accounts.players import Account
from bluegray.web.accounts.schemas import SeekPreview
from bluegray.web.deps import CurrentCaller
from bluegray.web.games.schemas import TurnGame
from bluegray.web.games.turns import your_turn
from bluegray.web.lobby.schemas import (
    ChallengeList,
    ChallengeRequest,
    LobbyPong,
    LobbyWelcome,
    PendingMessage,
    QuickPairingList,
    QuickPairingRequest,
    QuickPairingResult,
    SeekInfo,
    SeekList,
    SeekRequest,
    SeeksMessage,
    StartedGame,
    TurnsMessage,
)
from bluegray.web.lobby.service import Lobby
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.refusals import Refusal, Unauthorized
from bluegray.web.platform.schemas import ErrorResponse
from bluegray.web.platform.security import origin_allowed
from bluegray.web.realtime.sockets import Connection

router = APIRouter(tags=["lobby"])

ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse} for status in (401, 403, 404, 409, 422, 429)
}
CLOSE_POLICY: Final = 1008
CLOSE_UNAUTHORIZED: Final = 4401
SeekId = Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{1,32}$")]


def get_lobby(request: Request) -> Lobby:
    lobby: Lobby = request.app.state.lobby
    return lobby


LobbyService = Annotated[Lobby, Depends(get_lobby)]


def _player(caller: Caller) -> Account:
    """The account that seeks and plays: a person's (session, with its CSRF token on changes)
    or any account's by its API token; 401 for nobody."""
    player = caller.player
    if player is not None:
        return player
    if caller.refused_csrf:
        raise csrf_refusal()
    raise Unauthorized("unauthorized", "the lobby is for accounts: log in (or send an API token)")


# -- seeks --------------------------------------------------------------------------------------


@router.get("/api/seeks", response_model=SeekList, summary="The lobby's open seeks")
async def list_seeks(lobby: LobbyService) -> SeekList:
    """Every open challenge in the lobby, oldest first (challenges to a named player are not
    listed)."""
    return await lobby.seeks()


@router.post(
    "/api/seeks",
    response_model=SeekInfo,
    status_code=201,
    summary="Post a seek (an open challenge)",
    responses=ERRORS,
)
async def post_seek(body: SeekRequest, caller: CurrentCaller, lobby: LobbyService) -> SeekInfo:
    """Everyone on the lobby page sees it at once. It goes when the lobby socket named by
    ``connection`` closes, when it is cancelled or taken, or after ``seek_seconds``."""
    return await lobby.post(_player(caller), body)


@router.delete(
    "/api/seeks/{seek_id}",
    status_code=204,
    summary="Cancel a seek or a challenge",
    responses=ERRORS,
)
async def cancel_seek(seek_id: SeekId, caller: CurrentCaller, lobby: LobbyService) -> Response:
    await lobby.cancel(_player(caller), seek_id)
    return Response(status_code=204)


@router.get(
    "/api/seeks/{seek_id}/rating-preview",
    response_model=SeekPreview,
    summary="What a rated seek or challenge would change both ratings by",
    responses=ERRORS,
)
async def get_seek_preview(
    seek_id: SeekId, caller: CurrentCaller, lobby: LobbyService
) -> SeekPreview:
    """The caller's rating and the seek's poster's now, and what a win, a draw or a loss would
    change each by, computed as the game's end computes it (404: no such rated seek or
    challenge by another player, or one sent to someone else)."""
    player = _player(caller)
    return await lobby.seek_preview(seek_id, player.id)


@router.post(
    "/api/seeks/{seek_id}/accept",
    response_model=StartedGame,
    summary="Accept a seek: the game starts for both",
    responses=ERRORS,
)
async def accept_seek(seek_id: SeekId, caller: CurrentCaller, lobby: LobbyService) -> StartedGame:
    """Both players are told where the game is (``game_started`` on their ``/ws/account``
    sockets); the answer says it too. 409 ``seek_gone`` if someone took it first,
    ``out_of_range`` if the accepter's rating is outside the seek's range."""
    return await lobby.accept(_player(caller), seek_id)


# -- challenges ---------------------------------------------------------------------------------


@router.get(
    "/api/challenges",
    response_model=ChallengeList,
    summary="The challenges sent to the account and by it",
    responses=ERRORS,
)
async def list_challenges(caller: CurrentCaller, lobby: LobbyService) -> ChallengeList:
    return await lobby.challenges(_player(caller))


@router.post(
    "/api/challenges",
    response_model=SeekInfo,
    status_code=201,
    summary="Challenge a named player",
    responses=ERRORS,
)
async def send_challenge(
    body: ChallengeRequest, caller: CurrentCaller, lobby: LobbyService
) -> SeekInfo:
    """The player hears of it at once, on whatever page of the site they are
    (``challenge`` on ``/ws/account``). Cancel it with ``DELETE /api/seeks/{id}``."""
    return await lobby.challenge(_player(caller), body)


@router.post(
    "/api/challenges/{seek_id}/accept",
    response_model=StartedGame,
    summary="Accept a challenge: the game starts for both",
    responses=ERRORS,
)
async def accept_challenge(
    seek_id: SeekId, caller: CurrentCaller, lobby: LobbyService
) -> StartedGame:
    return await lobby.accept(_player(caller), seek_id)


@router.post(
    "/api/challenges/{seek_id}/decline",
    status_code=204,
    summary="Decline a challenge",
    responses=ERRORS,
)
async def decline_challenge(
    seek_id: SeekId, caller: CurrentCaller, lobby: LobbyService
) -> Response:
    await lobby.decline(_player(caller), seek_id)
    return Response(status_code=204)


# -- quick pairing ------------------------------------------------------------------------------


@router.get("/api/lobby/quick", response_model=QuickPairingList, summary="The quick pairings")
async def quick_pairings(lobby: LobbyService) -> QuickPairingList:
    return lobby.quick_pairings()


@router.post(
    "/api/lobby/quick",
    response_model=QuickPairingResult,
    summary="Quick pairing: play the next player who presses the same button",
    responses=ERRORS,
)
async def quick_pairing(
    body: QuickPairingRequest, caller: CurrentCaller, lobby: LobbyService
) -> QuickPairingResult:
    """Pairs at once with someone waiting in the same pairing whose rating is within
    ``rating_range`` of the player's; otherwise the player waits there (a seek, listed in the
    lobby) until someone comes."""
    return await lobby.quick(_player(caller), body.pairing, body.connection)


# -- the sockets --------------------------------------------------------------------------------


async def identify(websocket: WebSocket) -> Account | None:
    callers: Callers = websocket.app.state.callers
    try:
        caller = await callers.identify(websocket, changing=False)
    except Refusal:
        return None
    return caller.account


async def listen(websocket: WebSocket, connection: Connection) -> None:
    """Answer pings until the socket closes (the lobby's and tournaments' sockets only
    listen)."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while not connection.closed:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            if '"ping"' in (message.get("text") or ""):
                connection.send(LobbyPong(server_time_ms=now_ms()).model_dump_json())


@router.websocket("/ws/lobby")
async def lobby_socket(websocket: WebSocket) -> None:
    """Everyone on the lobby page: the seeks, then each new seek and each seek that goes."""
    lobby: Lobby = websocket.app.state.lobby
    if not origin_allowed(websocket.headers):
        await websocket.close(CLOSE_POLICY)
        return
    account = await identify(websocket)
    await websocket.accept()
    connection_id = secrets.token_urlsafe(12)
    connection = Connection(websocket, "lobby", frozenset())
    connection.start()
    welcome = LobbyWelcome(
        connection=connection_id,
        account=None if account is None else account.name,
        process=lobby.process,
    )
    connection.send(welcome.model_dump_json())
    lobby.hub.join_lobby(connection)
    try:
        seeks = await lobby.seeks()
        lobby.hub.lobby_ready(connection, SeeksMessage(seeks=seeks.seeks).model_dump_json())
        await listen(websocket, connection)
    finally:
        lobby.hub.leave_lobby(connection)
        await connection.stop()
        with contextlib.suppress(Exception):
            await asyncio.shield(lobby.left(connection_id))


@router.websocket("/ws/account")
async def account_socket(websocket: WebSocket) -> None:
    """An account's own news, on any page: challenges to it and by it, and the games that
    start for it. Closed at once (4401) for a browser that is not logged in."""
    lobby: Lobby = websocket.app.state.lobby
    if not origin_allowed(websocket.headers):
        await websocket.close(CLOSE_POLICY)
        return
    account = await identify(websocket)
    await websocket.accept()
    if account is None:
        await websocket.close(CLOSE_UNAUTHORIZED)
        return
    connection = Connection(websocket, f"account:{account.id}", frozenset())
    connection.start()
    welcome = LobbyWelcome(connection="", account=account.name, process=lobby.process)
    connection.send(welcome.model_dump_json())
    lobby.hub.join_account(account.id, connection)
    watching: asyncio.Task[None] | None = None
    try:
        challenges = await lobby.challenges(account)
        turns = (await your_turn(lobby.db, account.id, now_ms())).games
        pending = PendingMessage(challenges=challenges.incoming, turns=turns)
        lobby.hub.account_ready(account.id, connection, pending.model_dump_json())
        watching = asyncio.create_task(watch_turns(lobby, account, connection, turns))
        await listen(websocket, connection)
    finally:
        if watching is not None:
            watching.cancel()
        lobby.hub.leave_account(account.id, connection)
        await connection.stop()


async def watch_turns(
    lobby: Lobby, account: Account, connection: Connection, turns: list[TurnGame]
) -> None:
    """Look again at the games waiting for the account's move every ``account_turn_seconds``
    (read from the database: a move made on any process counts) and send the list when it has
    changed."""
    shown = [game.id for game in turns]
    while not connection.closed:
        await asyncio.sleep(lobby.settings.account_turn_seconds)
        try:
            games = (await your_turn(lobby.db, account.id, now_ms())).games
        except Exception:  # the database is away for a moment: look again later
            continue
        if [game.id for game in games] != shown:
            shown = [game.id for game in games]
            connection.send(TurnsMessage(games=games).model_dump_json())
