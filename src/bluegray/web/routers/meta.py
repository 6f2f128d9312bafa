"""``/api/health`` for monitors and ``/api/ws/schema``: the JSON Schema of every WebSocket
message, so a client can be generated for the socket as for the HTTP API."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response
from pydantic import TypeAdapter

from bluegray import __version__
from bluegray.web.chat.schemas import ChatMessage
from bluegray.web.deps import ProcessDuties, Service
from bluegray.web.featured.schemas import FeaturedMessage, FeaturedPong
from bluegray.web.games.messages import IncomingMessage, OutgoingMessage
from bluegray.web.lobby.schemas import LobbyMessage
from bluegray.web.platform.metrics import CONTENT_TYPE
from bluegray.web.platform.schemas import Health, Ready

router = APIRouter(prefix="/api", tags=["meta"])


@router.get("/health", response_model=Health, summary="Whether the server is up")
async def health(service: Service) -> Health:
    """The process is alive (it answers); ``/api/ready`` says whether it can serve players."""
    return Health(status="ok", version=__version__, process=service.process)


@router.get(
    "/ready",
    response_model=Ready,
    summary="Whether the server can serve players",
    responses={503: {"model": Ready, "description": "Something it needs is missing."}},
)
async def ready(service: Service, duties: ProcessDuties, response: Response) -> Ready:
    """Its database answers; when scaled out, Redis answers; and some AI worker is alive (an
    AI game waits until one is). 503 with the same body when any check fails."""
    checks = await duties.readiness()
    ok = all(check.ok for check in checks)
    if not ok:
        response.status_code = 503
    return Ready(
        status="ready" if ok else "not_ready",
        process=service.process,
        mode="scaled" if service.settings.scaled else "embedded",
        checks=checks,
    )


metrics_router = APIRouter(tags=["meta"])


@metrics_router.get("/metrics", summary="Prometheus metrics of this process")
async def metrics(service: Service) -> Response:
    return Response(service.metrics.exposition(), media_type=CONTENT_TYPE)


@router.get("/ws/schema", summary="JSON Schema of the WebSocket messages")
async def ws_schema() -> dict[str, Any]:
    """The messages of a game's socket (``/ws/games/{id}``), and those the lobby's sockets
    (``/ws/lobby``, ``/ws/account``) send (they take only ``{"type": "ping"}``); a game's socket
    also sends its chat's new messages (``game_chat_server_to_client``); and the home page's
    (``/ws/featured``: its own messages; the featured game's follow them, as
    ``server_to_client`` has them)."""
    return {
        "client_to_server": TypeAdapter(IncomingMessage).json_schema(),
        "server_to_client": TypeAdapter(OutgoingMessage).json_schema(),
        "lobby_server_to_client": TypeAdapter(LobbyMessage).json_schema(),
        "game_chat_server_to_client": TypeAdapter(ChatMessage).json_schema(),
        "featured_server_to_client": TypeAdapter(FeaturedMessage | FeaturedPong).json_schema(),
    }
