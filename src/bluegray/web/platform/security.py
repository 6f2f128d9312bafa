"""Secrets and headers: tokens stored only as digests, the client a request comes from, and the
security headers of every response (``guard`` applies them)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any, Final
from urllib.parse import urlsplit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

BROWSER_COOKIE: Final = "bluegray_browser"
DEVICE_COOKIE: Final = "bluegray_device"
"""A browser that has logged in to accounts: its own random id, then a mark per account (at
most ``DEVICE_ACCOUNTS``), each signed with that account's password hash: only the server can
make one, and they all lapse when the password changes."""
DEVICE_ACCOUNTS: Final = 5
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


def device_mark(device: str, account_id: int, password_hash: str) -> str:
    """The mark that the browser ``device`` has logged in to the account (an HMAC keyed with
    the account's password hash, which never leaves the database)."""
    message = f"{device}:{account_id}".encode()
    return hmac.new(password_hash.encode(), message, hashlib.sha256).hexdigest()[:32]


def device_knows(cookie: str | None, account_id: int, password_hash: str) -> bool:
    """Whether the device cookie ``cookie`` says its browser has logged in to the account."""
    if not cookie:
        return False
    device, *marks = cookie.split(".")
    expected = device_mark(device, account_id, password_hash).encode()
    return any(hmac.compare_digest(mark.encode(), expected) for mark in marks)


def device_cookie(cookie: str | None, account_id: int, password_hash: str) -> str:
    """The device cookie once this browser has logged in to the account: its id kept (a new
    one if it had none), this account's mark first, the oldest marks dropped."""
    parts = (cookie or "").split(".")
    device = parts[0] if parts[0] else new_browser_id()
    mark = device_mark(device, account_id, password_hash)
    marks = [mark, *(other for other in parts[1:] if other != mark)]
    return ".".join([device, *marks[:DEVICE_ACCOUNTS]])


def digest(secret: str) -> str:
    """What is stored of a secret: its SHA-256 (the secrets are random, so no salt is needed)."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def matches(secret: str, stored: str | None) -> bool:
    """Whether ``secret`` is the one whose digest is ``stored``, in constant time."""
    if stored is None:
        return False
    return hmac.compare_digest(digest(secret), stored)


def over_https(scope: Scope) -> bool:
    """Whether the request came over HTTPS: served with TLS, or through a trusted proxy that
    says so in ``X-Forwarded-Proto`` (uvicorn's ``ProxyHeadersMiddleware`` has set the scheme
    from it). Cookies are then Secure and answers carry HSTS, with or without
    ``BLUEGRAY_SECURE_COOKIES``."""
    return scope.get("scheme") in ("https", "wss")


def client_key(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def origin_allowed(headers: Mapping[str, str]) -> bool:
    """Whether a request may come from where it says: a browser names the page's site in
    ``Origin`` (on every POST, and on WebSocket handshakes), which must be this host; a program
    that is not a browser sends none."""
    if headers.get("sec-fetch-site") == "cross-site":
        return False
    origin = headers.get("origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc.lower() == headers.get("host", "").lower()
