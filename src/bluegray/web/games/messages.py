"""The WebSocket messages of a game's socket (``/ws/games/{id}``): what a client sends and what
the server sends it. docs/web.md shows each with an example; ``/api/ws/schema`` serves them as
JSON Schema."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from bluegray.web.games.schemas import (
    MOVE_TEXT_LIMIT,
    Action,
    AiStatus,
    GameEvent,
    GameState,
    Seats,
    SeatSide,
    SideName,
)
from bluegray.web.platform.schemas import Request

# -- WebSocket messages -----------------------------------------------------------------------


class ClientMessage(Request):
    ref: str | None = Field(
        default=None, max_length=64, description="Echoed in the ack or error it causes."
    )


class HelloMessage(ClientMessage):
    """The first message on a socket: a seat token, or an account's API token (``bgp_...``), to
    play; none to watch (or, from a logged-in browser, to play the account's seats)."""

    type: Literal["hello"]
    token: str | None = Field(default=None, max_length=200)
    version: int | None = Field(default=None, ge=0, description="The version the client has.")


class MoveMessage(ClientMessage):
    type: Literal["move"]
    move: str = Field(min_length=1, max_length=MOVE_TEXT_LIMIT)
    version: int = Field(ge=0)


class ActionMessage(ClientMessage):
    type: Literal["action"]
    action: Action
    side: SideName | None = None
    version: int | None = Field(default=None, ge=0)


class SyncMessage(ClientMessage):
    """Ask for the full state (after a suspected gap)."""

    type: Literal["sync"]


class PingMessage(ClientMessage):
    type: Literal["ping"]


IncomingMessage = Annotated[
    HelloMessage | MoveMessage | ActionMessage | SyncMessage | PingMessage,
    Field(discriminator="type"),
]


class WelcomeMessage(BaseModel):
    type: Literal["welcome"] = "welcome"
    protocol: int = 1
    game_id: str
    side: SeatSide | None = Field(description="The side(s) this socket plays; null: spectator.")
    server_time_ms: int
    process: str = Field(description="The server process this socket is connected to.")


class StateMessage(BaseModel):
    type: Literal["state"] = "state"
    version: int
    event: GameEvent | None
    game: GameState


class AckMessage(BaseModel):
    type: Literal["ack"] = "ack"
    ref: str | None
    version: int


class ErrorMessage(BaseModel):
    type: Literal["error"] = "error"
    code: str
    message: str
    ref: str | None = None
    version: int | None = Field(default=None, description="The game's current version.")
    retry_after: int | None = Field(
        default=None,
        description="Seconds after which to send the message again (``store_unavailable``: "
        "nothing was done; by its version, a move resent cannot be played twice).",
    )


class PresenceMessage(BaseModel):
    type: Literal["presence"] = "presence"
    version: int
    seats: Seats
    spectators: int
    claim_win_at_ms: int | None


class AiMessage(BaseModel):
    """What holds up the AI's move changed (the state's ``ai_status``)."""

    type: Literal["ai"] = "ai"
    version: int
    status: AiStatus


class PongMessage(BaseModel):
    type: Literal["pong"] = "pong"
    ref: str | None
    server_time_ms: int


OutgoingMessage = Annotated[
    WelcomeMessage
    | StateMessage
    | AckMessage
    | ErrorMessage
    | PresenceMessage
    | AiMessage
    | PongMessage,
    Field(discriminator="type"),
]
