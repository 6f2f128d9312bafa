"""``/api/health`` for monitors and ``/api/ws/schema``: the JSON Schema of every WebSocket
message, so a client can be generated for the socket as for the HTTP API."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import TypeAdapter

from bluegray import __version__
from bluegray.web.deps import Service
from bluegray.web.schemas import Health, IncomingMessage, OutgoingMessage

router = APIRouter(prefix="/api", tags=["meta"])


@router.get("/health", response_model=Health, summary="Whether the server is up")
async def health(service: Service) -> Health:
    """The process is alive (it answers); ``/api/ready`` says whether it can serve players."""
    return Health(status="ok", version=__version__, process=service.process)


@router.get("/ws/schema", summary="JSON Schema of the WebSocket messages")
async def ws_schema() -> dict[str, Any]:
    return {
        "client_to_server": TypeAdapter(IncomingMessage).json_schema(),
        "server_to_client": TypeAdapter(OutgoingMessage).json_schema(),
    }
