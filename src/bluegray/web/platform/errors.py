"""Errors of the web API: one JSON shape, ``{"error": {"code", "message", "request_id"}}``,
with the right status code, for ours, the library's and the framework's errors alike. No stack
trace ever leaves the server."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any, Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from sqlalchemy.exc import DBAPIError, DisconnectionError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from starlette.exceptions import HTTPException as StarletteHTTPException

from bluegray.errors import (
    BlueGrayError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    InvalidRecordError,
    InvalidRulesError,
    UnknownRulesError,
)
from bluegray.web.platform.guard import PROCESS_HEADER, REQUEST_ID_HEADER
from bluegray.web.platform.logs import request_id_var
from bluegray.web.platform.metrics import Metrics
from bluegray.web.platform.security import SECURITY_HEADERS

log = logging.getLogger("bluegray.web")


class ApiError(Exception):
    """An error to report to the client as it is."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: dict[str, Any] | None = None,
        *,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers
        """Headers of the answer (``Retry-After`` of a 429)."""

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details is not None:
            error["details"] = self.details
        return {"error": error}


def not_found(what: str) -> ApiError:
    return ApiError(404, "not_found", f"{what} not found")


def rate_limited(wait: float, what: str) -> ApiError:
    """429 ``rate_limited``: ``what`` (too many of something), and when to try again (also in
    ``Retry-After``), ``wait`` seconds from now rounded up."""
    seconds = max(1, round(wait + 0.5))
    return ApiError(
        429,
        "rate_limited",
        f"{what}: try again in {seconds} s",
        {"retry_after": seconds},
        headers={"Retry-After": str(seconds)},
    )


RETRY_AFTER_SECONDS: Final = 1
"""How soon a client may try again a request refused because the database or Redis could not
be reached (its ``Retry-After``)."""


def _store_down(error: BaseException) -> bool:
    """Whether ``error`` means the database cannot be reached right now (not that the request
    was wrong): a refused or lost connection, a restart, no connection free in time."""
    if isinstance(error, OperationalError | InterfaceError | DisconnectionError | PoolTimeoutError):
        return True
    return isinstance(error, DBAPIError) and error.connection_invalidated


def unavailable(error: BaseException) -> ApiError | None:
    """The 503 for an error that means the database (``store_unavailable``) or Redis
    (``service_unavailable``) cannot be reached right now, with ``Retry-After``; ``None`` for
    any other error. Nothing was changed: the same request may be sent again."""
    if _store_down(error):
        code, what = "store_unavailable", "the game store cannot be reached"
    elif isinstance(error, RedisConnectionError | RedisTimeoutError):
        code, what = "service_unavailable", "a part of the service cannot be reached"
    else:
        return None
    seconds = RETRY_AFTER_SECONDS
    return ApiError(
        503,
        code,
        f"{what} right now: try again in {seconds} s",
        {"retry_after": seconds},
        headers={"Retry-After": str(seconds)},
    )


@contextlib.contextmanager
def refused_while_down() -> Iterator[None]:
    """Raise the 503 of ``unavailable`` for an outage met inside (HTTP has a handler for them;
    a socket's messages, and any caller that answers ``ApiError`` itself, need this)."""
    try:
        yield
    except Exception as error:
        refusal = unavailable(error)
        if refusal is None:
            raise
        raise refusal from error


def from_library(error: BlueGrayError) -> ApiError:
    """The API error for a library error: its message names the bad text and why."""
    message = str(error)
    if isinstance(error, GameOverError):
        return ApiError(409, "game_over", message)
    if isinstance(error, IllegalMoveError):
        return ApiError(422, "illegal_move", message)
    if isinstance(error, InvalidMoveError):
        return ApiError(422, "invalid_move", message)
    if isinstance(error, InvalidPositionError):
        return ApiError(422, "invalid_position", message)
    if isinstance(error, UnknownRulesError | InvalidRulesError):
        return ApiError(422, "invalid_rules", message)
    if isinstance(error, InvalidRecordError):
        return ApiError(422, "invalid_record", message)
    return ApiError(422, "invalid_input", message)


BODY_NOT_PARSED = "There was an error parsing the body"
"""FastAPI's detail when a body cannot be read as JSON at all."""

_STATUS_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
}


def error_response(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    return _answer({"error": {"code": code, "message": message}}, status, headers)


def _answer(
    body: dict[str, Any], status: int, headers: dict[str, str] | None = None
) -> JSONResponse:
    """An error's JSON answer, naming the request it answers (``request_id``, as in its
    ``X-Request-ID``) for the log lines of the same request."""
    body["error"]["request_id"] = request_id_var.get()
    return JSONResponse(body, status_code=status, headers=headers)


def _validation_message(errors: list[Any]) -> str:
    parts = []
    for error in errors[:5]:
        where = ".".join(str(part) for part in error.get("loc", ()) if part != "body")
        what = error.get("msg", "invalid")
        parts.append(f"{where}: {what}" if where else str(what))
    return "invalid request: " + "; ".join(parts)


def install_handlers(app: FastAPI, process: str, metrics: Metrics) -> None:
    errors = metrics.errors

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, error: ApiError) -> JSONResponse:
        errors.labels(error.code).inc()
        return _answer(error.body(), error.status, error.headers)

    @app.exception_handler(BlueGrayError)
    async def _library_error(_request: Request, error: BlueGrayError) -> JSONResponse:
        api = from_library(error)
        errors.labels(api.code).inc()
        return _answer(api.body(), api.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, error: RequestValidationError) -> JSONResponse:
        problems = [
            {"loc": list(item.get("loc", ())), "msg": item.get("msg"), "type": item.get("type")}
            for item in error.errors()[:20]
        ]
        body = {
            "error": {
                "code": "invalid_request",
                "message": _validation_message(list(error.errors())),
                "details": {"problems": problems},
            }
        }
        errors.labels("invalid_request").inc()
        return _answer(body, 422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, error: StarletteHTTPException) -> JSONResponse:
        if error.status_code == 400 and error.detail == BODY_NOT_PARSED:
            # Not UTF-8, nested too deep, or a number with too many digits: as documented, an
            # invalid request like any other body that is not what the operation takes.
            errors.labels("invalid_request").inc()
            return error_response(
                422,
                "invalid_request",
                "invalid request: the body is not JSON this server reads (it must be UTF-8, "
                "nested at most a few hundred levels, with numbers of at most 4,300 digits)",
            )
        code = _STATUS_CODES.get(error.status_code, "error")
        errors.labels(code).inc()
        message = error.detail if isinstance(error.detail, str) else code.replace("_", " ")
        return error_response(error.status_code, code, message, dict(error.headers or {}))

    async def _unavailable(request: Request, error: Exception) -> JSONResponse:
        api = unavailable(error)
        if api is None:
            raise error  # not an outage: the unexpected errors' handler answers it
        log.warning("%s on %s %s: %r", api.code, request.method, request.url.path, error)
        errors.labels(api.code).inc()
        return JSONResponse(api.body(), status_code=api.status, headers=api.headers)

    for kind in (DBAPIError, DisconnectionError, PoolTimeoutError, RedisConnectionError):
        app.add_exception_handler(kind, _unavailable)
    app.add_exception_handler(RedisTimeoutError, _unavailable)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, error: Exception) -> JSONResponse:
        # This answer is sent from outside the other middleware: it brings its own headers.
        log.error("unexpected error on %s %s", request.method, request.url.path, exc_info=error)
        errors.labels("internal_error").inc()
        headers = {name.decode(): value.decode() for name, value in SECURITY_HEADERS}
        headers["cache-control"] = "no-store"
        headers[PROCESS_HEADER.decode()] = process
        headers[REQUEST_ID_HEADER.decode()] = request_id_var.get()
        return error_response(500, "internal_error", "internal server error", headers)
