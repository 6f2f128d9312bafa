"""``/ws/games/{id}``: a game in real time. The first message says who is connecting (a seat
token, an account's API token, or none: then a logged-in person's session cookie plays their
account's seats, and anyone else watches); then moves and actions go in, and every change comes
out to everyone as the full state with its version. docs/web.md describes every message."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
from typing import Final

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, TypeAdapter, ValidationError

from bluegray.errors import BlueGrayError
from bluegray.pieces import Side
from bluegray.web.accounts.api_tokens import is_api_token
from bluegray.web.accounts.callers import Callers
from bluegray.web.games.messages import (
    AckMessage,
    ActionMessage,
    ErrorMessage,
    HelloMessage,
    IncomingMessage,
    MoveMessage,
    PingMessage,
    PongMessage,
    SyncMessage,
    WelcomeMessage,
)
from bluegray.web.games.service import GameService
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.rates import RateLimits
from bluegray.web.platform.refusals import Forbidden, NotFound, Refusal, from_library
from bluegray.web.platform.security import origin_allowed
from bluegray.web.platform.settings import Settings
from bluegray.web.realtime.sockets import Connection

router = APIRouter()
log = logging.getLogger("bluegray.web")

CLOSE_POLICY: Final = 1008
CLOSE_TRY_AGAIN: Final = 1013
CLOSE_BAD_HELLO: Final = 4400
CLOSE_FORBIDDEN: Final = 4403
CLOSE_NOT_FOUND: Final = 4404
MAX_STRIKES: Final = 50
"""Refused messages (too large, malformed, too fast) a socket may send before it is closed."""

_GAME_ID: Final = re.compile(r"[A-Za-z0-9_-]{1,32}")
_incoming: TypeAdapter[IncomingMessage] = TypeAdapter(IncomingMessage)


def socket_error(error: Refusal, ref: str | None) -> str:
    """An ``Refusal`` as a socket's error message: with the game's version when it has one
    (a stale version), and when to send it again (an outage)."""
    details = error.details or {}
    version, retry_after = details.get("version"), details.get("retry_after")
    return ErrorMessage(
        code=error.code,
        message=error.message,
        ref=ref,
        version=version if isinstance(version, int) else None,
        retry_after=retry_after if isinstance(retry_after, int) else None,
    ).model_dump_json()


class _RefusedError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _error(code: str, message: str, ref: str | None = None, version: int | None = None) -> str:
    return ErrorMessage(code=code, message=message, ref=ref, version=version).model_dump_json()


async def _receive_text(websocket: WebSocket, limit: int) -> str:
    """The next text message; ``_RefusedError`` for binary or oversized ones."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    text = message.get("text")
    if text is None:
        raise _RefusedError("invalid_message", "messages are JSON text, not binary")
    if len(text) > limit or len(text.encode("utf-8", "surrogatepass")) > limit:
        raise _RefusedError("message_too_large", f"a message may be at most {limit} bytes")
    return str(text)


def _parse(text: str) -> BaseModel:
    try:
        message: BaseModel = _incoming.validate_json(text)
    except ValidationError as error:
        first = error.errors()[0] if error.errors() else {"msg": "invalid message"}
        where = ".".join(str(part) for part in first.get("loc", ()))
        what = first.get("msg", "invalid")
        raise _RefusedError("invalid_message", f"{where}: {what}" if where else str(what)) from None
    return message


@router.websocket("/ws/games/{game_id}")
async def game_socket(websocket: WebSocket, game_id: str) -> None:
    service: GameService = websocket.app.state.service
    settings: Settings = websocket.app.state.settings
    if not _GAME_ID.fullmatch(game_id) or not origin_allowed(websocket.headers):
        await websocket.close(CLOSE_POLICY)
        return
    # The caps on open sockets (per client, per process) and the HTTP rate limit are the
    # guard's, for every kind of socket.
    try:
        await websocket.accept()
        await _session(websocket, game_id, service, settings)
    except WebSocketDisconnect:
        pass


async def _hello(websocket: WebSocket, settings: Settings) -> HelloMessage | None:
    try:
        async with asyncio.timeout(settings.hello_timeout):  # not wait_for: see deadlines
            text = await _receive_text(websocket, settings.max_ws_message_bytes)
        message = _parse(text)
    except TimeoutError:
        await websocket.send_text(_error("timeout", "no hello: say who you are when you connect"))
        await websocket.close(CLOSE_BAD_HELLO)
        return None
    except _RefusedError as refused:
        await websocket.send_text(_error(refused.code, refused.message))
        await websocket.close(CLOSE_BAD_HELLO)
        return None
    if not isinstance(message, HelloMessage):
        await websocket.send_text(_error("hello_expected", "the first message must be a hello"))
        await websocket.close(CLOSE_BAD_HELLO)
        return None
    return message


async def _session(
    websocket: WebSocket, game_id: str, service: GameService, settings: Settings
) -> None:
    hello = await _hello(websocket, settings)
    if hello is None:
        return
    try:
        sides, account_id = await _sides(websocket, game_id, service, hello.token)
    except Refusal as error:
        await websocket.send_text(_error(error.code, error.message, hello.ref))
        await websocket.close(CLOSE_NOT_FOUND if isinstance(error, NotFound) else CLOSE_FORBIDDEN)
        return
    except Exception as error:  # the database is away: the client tries again shortly
        log.warning("cannot serve a WebSocket of game %s: %r", game_id, error)
        await _unavailable(websocket, hello.ref)
        return
    connection = Connection(websocket, game_id, sides, account_id)
    seat = None
    if len(sides) == 2:
        seat = "both"
    elif sides:
        seat = next(iter(sides)).value
    welcome = WelcomeMessage(
        game_id=game_id,
        side=seat,  # type: ignore[arg-type]
        server_time_ms=now_ms(),
        process=service.process,
    )
    connection.send(welcome.model_dump_json())
    hub = service.hub
    # Listen for the game's news before reading its state: no change can fall between them.
    # (While Redis is away the bus cannot be sure of that: it reads the game again when it is
    # back, so the socket is served all the same.)
    await hub.watch(game_id)
    try:
        version, text = await service.state_text(game_id)
    except Exception as error:  # the database is away: the client tries again shortly
        await hub.unwatch_idle(game_id)
        log.warning("cannot serve a WebSocket of game %s: %r", game_id, error)
        await _unavailable(websocket, hello.ref)
        return
    except BaseException:
        await hub.unwatch_idle(game_id)
        raise
    connection.send_state(version, text)
    await hub.add(connection)
    await _presence_changed(service, game_id)
    rates: RateLimits = websocket.app.state.rates
    socket_key = secrets.token_hex(8)
    strikes = 0
    try:
        while not connection.closed:
            ref = None
            try:
                text = await _receive_text(websocket, settings.max_ws_message_bytes)
                if settings.rate_limits and not await rates.take_message(socket_key):
                    raise _RefusedError("rate_limited", "too many messages: slow down")
                message = _parse(text)
                ref = getattr(message, "ref", None)
                await _handle(message, connection, service)
            except _RefusedError as refused:
                strikes += 1
                connection.send(_error(refused.code, refused.message, ref))
                if strikes > MAX_STRIKES:
                    connection.send(_error("closing", "too many refused messages"))
                    await connection.stop()
                    await websocket.close(CLOSE_POLICY)
                    return
    except (WebSocketDisconnect, RuntimeError):  # RuntimeError: receiving on a closed socket
        pass
    finally:
        await hub.remove(connection, now_ms())
        await connection.stop()
        await _presence_changed(service, game_id)


async def _unavailable(websocket: WebSocket, ref: str | None) -> None:
    await websocket.send_text(_error("unavailable", "the game cannot be read now: try again", ref))
    await websocket.close(CLOSE_TRY_AGAIN)


async def _sides(
    websocket: WebSocket, game_id: str, service: GameService, token: str | None
) -> tuple[frozenset[Side], int | None]:
    """The sides a socket plays: its hello's seat token's; or its account's, by an API token
    (in the hello, or the handshake's ``Authorization`` header) or a person's session cookie.
    An account with no seat in the game watches it; an unknown token is refused. And the
    account of whoever holds it (``None``: nobody logged in), whose choices filter the chat it
    is sent."""
    callers: Callers = websocket.app.state.callers
    if token is not None and not is_api_token(token):
        sides = await service.authenticate(game_id, token)
        try:  # the seat token plays; who holds it only filters the chat
            holder = await callers.identify(websocket, changing=False)
        except Refusal:
            return sides, None
        return sides, None if holder.account is None else holder.account.id
    if token is not None:
        caller = await callers.by_token(token)
    else:
        caller = await callers.identify(websocket, changing=False)
    account_id = None if caller.account is None else caller.account.id
    player = caller.player
    if player is None:
        return await service.authenticate(game_id, None), account_id
    sides = await service.account_sides(game_id, player)
    if not sides and caller.via == "token" and token is not None:
        raise Forbidden("forbidden", f"{player.name} plays no side of this game")
    return sides, account_id


async def _presence_changed(service: GameService, game_id: str) -> None:
    try:
        await service.games.publish_presence(game_id)
    except Exception as error:  # the socket's own work is done; the next change shows it
        log.warning("cannot publish the presence of game %s: %r", game_id, error)


async def _handle(message: BaseModel, connection: Connection, service: GameService) -> None:
    game_id = connection.game_id
    sides = connection.sides
    ref = getattr(message, "ref", None)
    try:
        if isinstance(message, MoveMessage):
            live, _ = await service.move(game_id, sides, message.move, message.version)
            connection.send(AckMessage(ref=ref, version=live.version).model_dump_json())
        elif isinstance(message, ActionMessage):
            side = None if message.side is None else Side(message.side)
            state = await service.act(game_id, sides, message.action, side, message.version)
            connection.send(AckMessage(ref=ref, version=state.version).model_dump_json())
        elif isinstance(message, SyncMessage):
            version, text = await service.state_text(game_id)
            connection.version = max(connection.version, version)
            connection.send(text)
        elif isinstance(message, PingMessage):
            connection.send(PongMessage(ref=ref, server_time_ms=now_ms()).model_dump_json())
        elif isinstance(message, HelloMessage):
            connection.send(_error("already_connected", "this socket has said hello", ref))
    except Refusal as error:
        service.metrics.errors.labels(error.code).inc()
        connection.send(socket_error(error, ref))
        if error.code in ("stale_version", "conflict"):
            with contextlib.suppress(Refusal):
                version, text = await service.state_text(game_id)
                connection.version = max(connection.version, version)
                connection.send(text)
    except BlueGrayError as error:
        api = from_library(error)
        service.metrics.errors.labels(api.code).inc()
        connection.send(_error(api.code, api.message, ref))
    except Exception:
        log.exception("unexpected error handling a message of game %s", game_id)
        connection.send(_error("internal_error", "internal server error", ref))
