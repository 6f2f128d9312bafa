"""The gate every request passes: the host it names, the rate limits, the body size limit, and
the CSRF rule; and on the way out the security headers, the name of the process that answered
(``X-Bluegray-Process``) and the request's id (``X-Request-ID``), on every response, errors and
refused WebSocket handshakes included.

The request's id is the caller's ``X-Request-ID`` when it sends a sane one (a reverse proxy or a
client tracing its calls), else a new one; every log line written for the request carries it
(``logs.request_id_var``), and so does every JSON error.

Plain ASGI (no per-request task or body copy beyond the size limit), so it costs little on the
hot path.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from typing import Any, Final

from bluegray.web.platform.logs import request_id_var
from bluegray.web.platform.rates import RateLimits
from bluegray.web.platform.security import (
    SECURITY_HEADERS,
    ASGIApp,
    Message,
    Receive,
    Scope,
    Send,
    client_key,
    over_https,
)
from bluegray.web.platform.settings import Settings

PROCESS_HEADER: Final = b"x-bluegray-process"
_HSTS: Final = (b"strict-transport-security", b"max-age=31536000; includeSubDomains")
_UNSAFE_METHODS: Final = frozenset({"POST", "PUT", "PATCH", "DELETE"})
REQUEST_ID_HEADER: Final = b"x-request-id"
CLOSE_TRY_AGAIN: Final = 1013
_SANE_REQUEST_ID: Final = re.compile(rb"[A-Za-z0-9._:+=/@-]{1,128}")
"""An incoming request id is taken when it is short and plain (a UUID, a proxy's or a tracer's
id): nothing that could forge a log line or a header."""
HEALTH_PATH: Final = "/api/health"
"""Answered under any host name: load balancers' and orchestrators' health checks (Caddy's,
Docker's, a cloud's) name the upstream's address as the host, and "alive" tells a page that
rebinds a name to this server nothing of use."""


def request_id(scope: Scope) -> str:
    """The id of a request: its sane ``X-Request-ID``, else 32 new random hex digits."""
    for name, value in scope.get("headers", []):
        if name == REQUEST_ID_HEADER:
            value = value.strip()
            if _SANE_REQUEST_ID.fullmatch(value):
                given: str = value.decode("ascii")
                return given
            break
    return secrets.token_hex(16)


def host_name(header: str) -> str:
    """The host of a ``Host`` header, without its port, in lower case (``""`` if malformed)."""
    text = header.strip().lower()
    if text.startswith("["):
        end = text.find("]")
        return text[: end + 1] if end > 0 else ""
    name, colon, port = text.rpartition(":")
    if colon and port.isdigit():
        return name
    return text


def host_allowed(host: str, allowed: list[str]) -> bool:
    """Whether ``host`` is one of ``allowed``: a name, ``*.example.org`` for its subdomains, or
    ``*`` for any."""
    for pattern in allowed:
        pattern = pattern.lower()
        if pattern == "*" or host == pattern:
            return True
        if pattern.startswith("*.") and host.endswith(pattern[1:]):
            return True
    return False


def _error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "request_id": request_id_var.get()}}


class GuardMiddleware:
    """Every HTTP request and WebSocket handshake passes here first."""

    def __init__(self, app: ASGIApp, settings: Settings, rates: RateLimits, process: str) -> None:
        self.app = app
        self.settings = settings
        self.rates = rates
        self.open_sockets = 0
        """The WebSockets open in this process."""
        self.hosts = settings.hosts
        self.max_body = settings.max_body_bytes
        self.process_header = (PROCESS_HEADER, process.encode())
        self.headers = [*SECURITY_HEADERS, self.process_header]
        if settings.secure_cookies:
            self.headers.append(_HSTS)
        self.refusal_headers = [
            (b"content-type", b"application/json"),
            (b"cache-control", b"no-store"),
            *self.headers,
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        # In this request's own task: every log line of the request, and its error, name it.
        request_id_var.set(request_id(scope))
        if scope["path"] != HEALTH_PATH and not self._host_ok(scope):
            await self._refuse(
                scope, send, 400, "invalid_host", "this site is not served under that host name"
            )
            return
        if kind == "websocket":
            await self._socket(scope, receive, send)
            return
        path: str = scope["path"]
        method: str = scope["method"]
        if self.settings.rate_limits and not path.startswith("/static/"):
            wait = await self._rate(scope, path, method)
            if wait:
                retry = str(max(1, round(wait + 0.5)))
                await self._refuse(
                    scope,
                    send,
                    429,
                    "rate_limited",
                    f"too many requests: try again in {retry} s",
                    [(b"retry-after", retry.encode())],
                )
                return
        if method in _UNSAFE_METHODS and _has_body(scope):
            if path.startswith("/api/") and not _is_json(scope):
                await self._refuse(
                    scope,
                    send,
                    415,
                    "unsupported_media_type",
                    "the request body must be application/json",
                )
                return
            body = await self._read_body(scope, receive)
            if body is None:
                await self._refuse(
                    scope,
                    send,
                    413,
                    "payload_too_large",
                    f"the request body is larger than {self.max_body} bytes",
                )
                return
            receive = _replay(body, receive)
        await self.app(
            scope,
            receive,
            self._with_headers(send, api=path.startswith("/api/"), https=over_https(scope)),
        )

    def _with_headers(
        self, send: Send, *, api: bool, websocket: bool = False, https: bool = False
    ) -> Send:
        """``send`` with the security headers and the request id added (HSTS too over HTTPS:
        ``over_https``)."""
        identity = (REQUEST_ID_HEADER, request_id_var.get().encode())
        headers = [*self.headers, identity]
        process_header = self.process_header
        start = "websocket.http.response.start" if websocket else "http.response.start"

        async def send_with_headers(message: Message) -> None:
            if message["type"] == start:
                existing = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(name, value) for name, value in headers if name not in existing]
                if https and _HSTS[0] not in existing and _HSTS not in extra:
                    extra.append(_HSTS)
                if (api or message.get("status", 200) >= 500) and b"cache-control" not in existing:
                    extra.append((b"cache-control", b"no-store"))
                message["headers"] = [*message.get("headers", []), *extra]
            elif message["type"] == "websocket.accept":
                existing = {name.lower() for name, _ in message.get("headers", [])}
                extra = [
                    header for header in (process_header, identity) if header[0] not in existing
                ]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        return send_with_headers

    async def _refuse(
        self,
        scope: Scope,
        send: Send,
        status: int,
        code: str,
        message: str,
        headers: list[tuple[bytes, bytes]] | None = None,
    ) -> None:
        """A JSON error, as an HTTP response or as the answer to a WebSocket handshake."""
        data = json.dumps(_error(code, message)).encode()
        all_headers = [
            *self.refusal_headers,
            (REQUEST_ID_HEADER, request_id_var.get().encode()),
            (b"content-length", str(len(data)).encode()),
            *(headers or []),
        ]
        if scope["type"] == "websocket":
            if "websocket.http.response" not in scope.get("extensions", {}):
                await send({"type": "websocket.close", "code": 1008})
                return
            await send(
                {"type": "websocket.http.response.start", "status": status, "headers": all_headers}
            )
            await send({"type": "websocket.http.response.body", "body": data})
            return
        await send({"type": "http.response.start", "status": status, "headers": all_headers})
        await send({"type": "http.response.body", "body": data})

    async def _socket(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A WebSocket handshake: the HTTP rate limit, then the cap on the client's open
        sockets (every kind, across the processes) and on this process's."""
        client = client_key(scope)
        limited = self.settings.rate_limits
        if limited:
            wait = await self.rates.take(self.rates.requests, client)
            if wait:
                retry = str(max(1, round(wait + 0.5)))
                await self._refuse(
                    scope,
                    send,
                    429,
                    "rate_limited",
                    f"too many requests: try again in {retry} s",
                    [(b"retry-after", retry.encode())],
                )
                return
        if self.open_sockets >= self.settings.ws_connections_per_process:
            await receive()  # websocket.connect
            await send({"type": "websocket.accept", "headers": list(self.headers)})
            await send({"type": "websocket.close", "code": CLOSE_TRY_AGAIN})
            return
        if limited and not await self.rates.open_socket(
            client, self.settings.ws_connections_per_client
        ):
            await self._refuse(
                scope,
                send,
                429,
                "too_many_sockets",
                f"at most {self.settings.ws_connections_per_client} open sockets per client",
                [(b"retry-after", b"10")],
            )
            return
        self.open_sockets += 1
        try:
            await self.app(
                scope,
                receive,
                self._with_headers(send, api=False, websocket=True, https=over_https(scope)),
            )
        finally:
            self.open_sockets -= 1
            if limited:
                await asyncio.shield(self.rates.close_socket(client))

    def _host_ok(self, scope: Scope) -> bool:
        for name, value in scope.get("headers", []):
            if name == b"host":
                return host_allowed(host_name(value.decode("latin-1")), self.hosts)
        return False

    async def _rate(self, scope: Scope, path: str, method: str) -> float:
        key = client_key(scope)
        wait = await self.rates.take(self.rates.requests, key)
        if wait:
            return wait
        if method == "POST" and path in ("/api/games", "/api/records"):
            return await self.rates.take(self.rates.creating, key)
        if path == "/api/analysis" or path.endswith("/analysis"):
            return await self.rates.take(self.rates.analysing, key)
        return 0.0

    async def _read_body(self, scope: Scope, receive: Receive) -> bytes | None:
        """The whole body, or ``None`` if it is larger than allowed (read no further then)."""
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    if int(value) > self.max_body:
                        return None
                except ValueError:
                    return None
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)


def _has_body(scope: Scope) -> bool:
    """Whether a request says it has a body (one without, like ``DELETE /api/health``, goes on
    to be answered for its method: it cannot carry a cross-site form)."""
    for name, value in scope.get("headers", []):
        if name == b"transfer-encoding" or (name == b"content-length" and value.strip() != b"0"):
            return True
        if name == b"content-type":
            return True
    return False


def _is_json(scope: Scope) -> bool:
    for name, value in scope.get("headers", []):
        if name == b"content-type":
            media = value.split(b";", 1)[0].strip().lower()
            return bool(media == b"application/json")
    return False


def _replay(body: bytes, original: Receive) -> Receive:
    """A ``receive`` that gives the body already read, then waits for the real disconnect."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await original()

    return receive
