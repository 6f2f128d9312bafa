"""The shapes every domain's API shares: a request body (unknown fields refused), the one
shape of every error answer, and the process's health and readiness."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Request(BaseModel):
    """A request body: unknown fields are an error, so typos do not pass silently."""

    model_config = ConfigDict(extra="forbid")


# -- errors ------------------------------------------------------------------------------------


class ErrorBody(BaseModel):
    code: str = Field(examples=["illegal_move"])
    message: str = Field(examples=["illegal move 'e2-e4' in ...: that piece cannot move there"])
    details: dict[str, Any] | None = None
    request_id: str | None = Field(
        default=None,
        description="The request's id, as in its X-Request-ID header: name it when reporting "
        "a problem (it is in the server's log lines of the request).",
    )


class ErrorResponse(BaseModel):
    """Every error of the HTTP API has this shape."""

    error: ErrorBody


# -- the process ----------------------------------------------------------------------------


class Health(BaseModel):
    status: Literal["ok"]
    version: str
    process: str = Field(description="The process that answered.")


class ReadyCheck(BaseModel):
    name: Literal["database", "redis", "workers"]
    ok: bool
    detail: str


class Ready(BaseModel):
    """Whether this process can serve players: its database, Redis and AI workers."""

    status: Literal["ready", "not_ready"]
    process: str
    mode: Literal["embedded", "scaled"]
    checks: list[ReadyCheck]
