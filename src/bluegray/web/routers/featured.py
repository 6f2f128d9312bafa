"""The best game on now: ``GET /api/featured`` (the featured game, for bots and clients) and the
home page's socket ``/ws/featured`` (the featured game, live). docs/web.md describes both."""

from __future__ import annotations

import contextlib
import secrets
from typing import Any, Final

from fastapi import APIRouter, Request, Response, WebSocket, WebSocketDisconnect

from bluegray.web.featured.choice import featured_game
from bluegray.web.featured.schemas import FeaturedGame, FeaturedPong
from bluegray.web.featured.showing import HOME, Showcase
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.rates import RateLimits
from bluegray.web.platform.security import origin_allowed
from bluegray.web.platform.settings import Settings
from bluegray.web.realtime.sockets import Connection

router = APIRouter(tags=["featured"])

CLOSE_POLICY: Final = 1008
NONE: Final[dict[int | str, dict[str, Any]]] = {204: {"description": "No game qualifies now."}}


@router.get(
    "/api/featured",
    response_model=FeaturedGame,
    summary="The best game on now (the home page's featured game)",
    responses=NONE,
)
async def get_featured(request: Request) -> FeaturedGame | Response:
    """Among the rated real-time games being played between two accounts, the one whose
    players' average rating is the highest (of two, the most recently started): read from the
    database, the same on every process. 204 when none is being played. Watch it on
    ``/ws/games/{game_id}``."""
    showcase: Showcase = request.app.state.showcase
    game = await featured_game(showcase.service.db)
    if game is None:
        return Response(status_code=204)
    return game


@router.websocket("/ws/featured")
async def featured_socket(websocket: WebSocket) -> None:
    """The home page's featured game: a ``featured`` message (the game, or ``null``), its state,
    then its news as ``/ws/games/{id}`` sends it, and a new ``featured`` message whenever it
    changes. The socket only listens: it answers a ping (within the sockets' message rate,
    ``BLUEGRAY_WS_RATE``), and nothing else."""
    showcase: Showcase = websocket.app.state.showcase
    if not origin_allowed(websocket.headers):
        await websocket.close(CLOSE_POLICY)
        return
    settings: Settings = websocket.app.state.settings
    rates: RateLimits = websocket.app.state.rates
    await websocket.accept()
    connection = Connection(websocket, HOME, frozenset())
    connection.start()
    socket_key = secrets.token_hex(8)
    try:
        await showcase.join(connection)
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):
            while not connection.closed:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    return
                text = message.get("text") or ""
                if len(text) > settings.max_ws_message_bytes or '"ping"' not in text:
                    continue  # nothing else is asked of this socket
                if settings.rate_limits and not await rates.take_message(socket_key):
                    continue  # too many pings: unanswered
                connection.send(FeaturedPong(server_time_ms=now_ms()).model_dump_json())
    finally:
        await showcase.leave(connection)
        await connection.stop()
