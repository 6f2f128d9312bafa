"""What keeps a public server safe: secret tokens stored only as digests, per-client rate limits,
request size limits, CSRF protection, and the security headers of every response.

The middleware here is plain ASGI (no per-request task or body copy beyond the size limit), so
it costs little on the hot path.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

from bluegray.web.settings import Settings

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

BROWSER_COOKIE: Final = "bluegray_browser"
COOKIE_MAX_AGE: Final = 2 * 365 * 24 * 3600

CONTENT_SECURITY_POLICY: Final = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)

SECURITY_HEADERS: Final = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=()"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
_HSTS: Final = (b"strict-transport-security", b"max-age=31536000; includeSubDomains")


# -- secrets ----------------------------------------------------------------------------------


def new_token() -> str:
    """A seat token: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def new_invite_code() -> str:
    return secrets.token_urlsafe(18)


def new_game_id() -> str:
    """A game's public id: 72 random bits, too many to find games by guessing."""
    return secrets.token_urlsafe(9)


def new_browser_id() -> str:
    return secrets.token_urlsafe(24)


def digest(secret: str) -> str:
    """What is stored of a secret: its SHA-256 (the secrets are random, so no salt is needed)."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def matches(secret: str, stored: str | None) -> bool:
    """Whether ``secret`` is the one whose digest is ``stored``, in constant time."""
    if stored is None:
        return False
    return hmac.compare_digest(digest(secret), stored)


# -- rate limits ------------------------------------------------------------------------------


class TokenBucket:
    """A token bucket per key: ``burst`` at once, refilled at ``rate`` per second."""

    def __init__(self, rate: float, burst: int, *, max_keys: int = 100_000) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.max_keys = max_keys
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, key: str, now: float | None = None) -> float:
        """Take one token for ``key``: 0 if allowed, else the seconds until one is free."""
        now = time.monotonic() if now is None else now
        tokens, last = self._buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        if tokens >= 1:
            self._buckets[key] = (tokens - 1, now)
            if len(self._buckets) > self.max_keys:
                self._prune(now)
            return 0.0
        self._buckets[key] = (tokens, now)
        return (1 - tokens) / self.rate if self.rate > 0 else 60.0

    def _prune(self, now: float) -> None:
        """Forget the keys whose buckets have refilled: they are as good as new."""
        full = self.burst / self.rate if self.rate > 0 else 0
        self._buckets = {
            key: (tokens, last)
            for key, (tokens, last) in self._buckets.items()
            if now - last < full
        }


def client_key(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


# -- middleware -------------------------------------------------------------------------------


async def _send_json(send: Send, status: int, body: dict[str, Any], headers: list[Any]) -> None:
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                (b"cache-control", b"no-store"),
                *SECURITY_HEADERS,
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})


def _error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


_UNSAFE_METHODS: Final = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class GuardMiddleware:
    """Every HTTP request passes here first: security headers on the way out; on the way in the
    rate limits, the body size limit, and the CSRF rule that a state-changing API request has a
    JSON body (a cross-site form cannot send one without the browser asking us first, and we
    never say yes)."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings
        self.max_body = settings.max_body_bytes
        self.general = TokenBucket(settings.http_rate, settings.http_burst)
        self.creating = TokenBucket(settings.create_rate, settings.create_burst)
        self.analysing = TokenBucket(settings.analysis_rate, settings.analysis_burst)
        self.headers = (
            [*SECURITY_HEADERS, _HSTS] if settings.secure_cookies else list(SECURITY_HEADERS)
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        method: str = scope["method"]
        if self.settings.rate_limits and not path.startswith("/static/"):
            wait = self._rate(scope, path, method)
            if wait:
                retry = str(max(1, round(wait + 0.5)))
                await _send_json(
                    send,
                    429,
                    _error("rate_limited", f"too many requests: try again in {retry} s"),
                    [(b"retry-after", retry.encode())],
                )
                return
        if method in _UNSAFE_METHODS:
            if path.startswith("/api/") and not _is_json(scope):
                await _send_json(
                    send,
                    415,
                    _error("unsupported_media_type", "the request body must be application/json"),
                    [],
                )
                return
            body = await self._read_body(scope, receive)
            if body is None:
                await _send_json(
                    send,
                    413,
                    _error(
                        "payload_too_large",
                        f"the request body is larger than {self.max_body} bytes",
                    ),
                    [],
                )
                return
            receive = _replay(body, receive)

        headers = self.headers

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                existing = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(name, value) for name, value in headers if name not in existing]
                if path.startswith("/api/") and b"cache-control" not in existing:
                    extra.append((b"cache-control", b"no-store"))
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _rate(self, scope: Scope, path: str, method: str) -> float:
        key = client_key(scope)
        wait = self.general.take(key)
        if wait:
            return wait
        if method == "POST" and path in ("/api/games", "/api/records"):
            return self.creating.take(key)
        if path == "/api/analysis" or path.endswith("/analysis"):
            return self.analysing.take(key)
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
