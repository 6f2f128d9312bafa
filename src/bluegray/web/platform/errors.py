"""Errors of the web API: one JSON shape, ``{"error": {"code", "message", "request_id"}}``,
with the right status code, for the domains' refusals (``refusals``, mapped to HTTP here and
only here), the library's and the framework's errors alike. No stack trace ever leaves the
server."""

from __future__ import annotations

import logging
from typing import Any, Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from starlette.exceptions import HTTPException as StarletteHTTPException

from bluegray.errors import BlueGrayError
from bluegray.web.platform.guard import PROCESS_HEADER, REQUEST_ID_HEADER
from bluegray.web.platform.logs import request_id_var
from bluegray.web.platform.metrics import Metrics
from bluegray.web.platform.refusals import (
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    Refusal,
    TooMany,
    Unauthorized,
    Unavailable,
    from_library,
    unavailable,
)
from bluegray.web.platform.security import SECURITY_HEADERS

log = logging.getLogger("bluegray.web")


HTTP_STATUS: Final[dict[type[Refusal], int]] = {
    Unauthorized: 401,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,
    Invalid: 422,
    TooMany: 429,
    Unavailable: 503,
}
"""Each kind of refusal's HTTP status: the one place where the domains' refusals meet HTTP."""


def status_of(refusal: Refusal) -> int:
    """The HTTP status of ``refusal`` (of its kind, or of the nearest kind it derives from)."""
    for kind in type(refusal).__mro__:
        if kind in HTTP_STATUS:
            return HTTP_STATUS[kind]
    return 400


def headers_of(refusal: Refusal) -> dict[str, str] | None:
    """The headers of a refusal's answer: ``Retry-After`` when it says when to try again."""
    if refusal.retry_after is None:
        return None
    return {"Retry-After": str(refusal.retry_after)}


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

    @app.exception_handler(Refusal)
    async def _refusal(_request: Request, error: Refusal) -> JSONResponse:
        errors.labels(error.code).inc()
        return _answer(error.body(), status_of(error), headers_of(error))

    @app.exception_handler(BlueGrayError)
    async def _library_error(_request: Request, error: BlueGrayError) -> JSONResponse:
        refusal = from_library(error)
        errors.labels(refusal.code).inc()
        return _answer(refusal.body(), status_of(refusal))

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
        refusal = unavailable(error)
        if refusal is None:
            raise error  # not an outage: the unexpected errors' handler answers it
        log.warning("%s on %s %s: %r", refusal.code, request.method, request.url.path, error)
        errors.labels(refusal.code).inc()
        return _answer(refusal.body(), status_of(refusal), headers_of(refusal))

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
