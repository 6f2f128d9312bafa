"""Who a request or a WebSocket comes from: an account by its API token
(``Authorization: Bearer bgp_...``) or by its session cookie, or nobody in particular.

The rules that keep this safe:

- A session cookie counts for a change (POST, PUT, PATCH, DELETE) only with its CSRF token in
  the ``X-CSRF-Token`` header; without it the request is anonymous (an endpoint that needs an
  account then refuses it with 403 ``csrf_failed``). A page elsewhere can make the browser send
  the cookie, never the token.
- An account's session plays its games from the pages, unless the account is a bot's: a bot
  plays through the API with a token (lichess's rule), so its session plays nothing.
- A token names its account on every request; an unknown or revoked one is refused (401), never
  taken for no token.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Final, Literal

from starlette.requests import HTTPConnection

from bluegray.web.accounts.api_tokens import ApiTokens, is_api_token
from bluegray.web.accounts.players import Account
from bluegray.web.accounts.sessions import (
    CSRF_HEADER,
    SESSION_COOKIE,
    SESSION_ID_PATTERN,
    Sessions,
    csrf_token,
)
from bluegray.web.platform.refusals import Forbidden, Refusal, Unauthorized
from bluegray.web.platform.security import BROWSER_COOKIE, origin_allowed

CHANGING_METHODS: Final = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_SESSION_ID: Final = re.compile(SESSION_ID_PATTERN)
_BROWSER_ID: Final = re.compile(r"[A-Za-z0-9_-]{16,64}")


@dataclass(frozen=True)
class Caller:
    """Who a request comes from."""

    account: Account | None = None
    """The account (``None``: nobody logged in, or a session cookie without its CSRF token on a
    change)."""
    via: Literal["session", "token"] | None = None
    session_id: str | None = None
    """The session cookie's value, when it is a live session."""
    csrf: str | None = None
    """The CSRF token the request's cookies go with (``None``: it carried none)."""
    refused_csrf: bool = False
    """A session cookie came with a change but without its CSRF token."""

    @property
    def player(self) -> Account | None:
        """The account whose seats this request plays: any account by its token; a person's by
        its session, never a bot's."""
        account = self.account
        if account is None or (account.bot and self.via == "session"):
            return None
        return account

    def in_session(self, what: str) -> Account:
        """The account of a logged-in browser, for the changes an API token may never make
        (becoming a bot, the email and notices, the password, closing an account, minting and
        revoking tokens): 403 for a token, so a leaked token cannot take the account over."""
        account = self.signed_in()
        if self.via != "session":
            raise Forbidden("forbidden", f"{what} from a logged-in browser: an API token cannot")
        return account

    def signed_in(self) -> Account:
        """The account, or 401 (403 ``csrf_failed`` for a session cookie without its token)."""
        if self.account is not None:
            return self.account
        if self.refused_csrf:
            raise csrf_refusal()
        raise Unauthorized("unauthorized", "log in first (or send an API token)")


def csrf_refusal() -> Refusal:
    return Forbidden(
        "csrf_failed",
        f"a change made with the session cookie needs its {CSRF_HEADER} header "
        "(GET /api/account gives the token)",
    )


def bearer(connection: HTTPConnection) -> str | None:
    """The credential of an ``Authorization: Bearer`` header (a seat token or an API token)."""
    scheme, _, value = connection.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


class Callers:
    """Tells who requests come from, by their tokens and cookies."""

    def __init__(self, sessions: Sessions, tokens: ApiTokens) -> None:
        self.sessions = sessions
        self.tokens = tokens

    async def by_token(self, token: str) -> Caller:
        account = await self.tokens.account_of(token)
        if account is None:
            raise Unauthorized("invalid_token", "that API token is unknown or revoked")
        return Caller(account=account, via="token")

    async def identify(self, connection: HTTPConnection, *, changing: bool) -> Caller:
        """Who ``connection`` comes from; ``changing``: it asks for a change (its session counts
        only with the CSRF token)."""
        credential = bearer(connection)
        if credential is not None and is_api_token(credential):
            return await self.by_token(credential)
        cookies = connection.cookies
        session_id = cookies.get(SESSION_COOKIE, "")
        account = None
        if _SESSION_ID.fullmatch(session_id):
            account = await self.sessions.account_of(session_id)
        browser = cookies.get(BROWSER_COOKIE, "")
        secret = session_id if account is not None else browser
        csrf = csrf_token(secret) if account is not None or _BROWSER_ID.fullmatch(browser) else None
        if account is None:
            return Caller(csrf=csrf)
        if changing and not _csrf_given(connection, csrf):
            return Caller(session_id=session_id, csrf=csrf, refused_csrf=True)
        return Caller(account=account, via="session", session_id=session_id, csrf=csrf)


def _csrf_given(connection: HTTPConnection, expected: str | None) -> bool:
    given = connection.headers.get(CSRF_HEADER)
    return (
        expected is not None
        and given is not None
        and secrets.compare_digest(given.encode(), expected.encode())
    )


def check_form(connection: HTTPConnection, caller: Caller) -> None:
    """The CSRF rules of the accounts' own changes (signing up, logging in and out, passwords,
    tokens): a browser's request must come from this site (its ``Origin``), and a request that
    carries the site's cookies must carry the CSRF token they go with. A program that sends no
    cookie needs neither."""
    if not origin_allowed(connection.headers):
        raise Forbidden("csrf_failed", "this request comes from another site")
    if caller.via == "token":
        return
    if caller.csrf is not None and not _csrf_given(connection, caller.csrf):
        raise csrf_refusal()
