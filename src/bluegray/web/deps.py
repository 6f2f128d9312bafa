"""What the routes share: the services, the settings, the browser id cookie, who a request comes
from (``CurrentCaller``: an account by its session or API token, or nobody), seat tokens from the
``Authorization`` header, and the shape of a game id.

A feature that needs the current account takes ``SignedIn`` (401 without one); one that plays
games takes ``CurrentCaller`` and uses ``caller.player`` (never a bot's session); an account's
own form-like changes take ``FormCaller`` (the CSRF rules of ``callers.check_form``)."""

from __future__ import annotations

import re
from typing import Annotated, Final

from fastapi import Depends, Path, Query, Request, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from bluegray.pieces import Side
from bluegray.web.accounts.api_tokens import is_api_token
from bluegray.web.accounts.callers import (
    CHANGING_METHODS,
    Caller,
    Callers,
    check_form,
    csrf_refusal,
)
from bluegray.web.accounts.players import Account
from bluegray.web.accounts.service import Accounts
from bluegray.web.duties import Duties
from bluegray.web.games.service import GameService
from bluegray.web.platform.refusals import Forbidden, Unauthorized
from bluegray.web.platform.security import (
    BROWSER_COOKIE,
    COOKIE_MAX_AGE,
    client_key,
    digest,
    new_browser_id,
    over_https,
)
from bluegray.web.platform.settings import Settings
from bluegray.web.review.service import Reviews
from bluegray.web.tournaments.service import Tournaments

GAME_ID_PATTERN: Final = r"^[A-Za-z0-9_-]{1,32}$"
BROWSER_ID_PATTERN: Final = re.compile(r"[A-Za-z0-9_-]{16,64}")

GameId = Annotated[str, Path(pattern=GAME_ID_PATTERN, description="The game's public id.")]
BeforeId = Annotated[
    str | None,
    Query(
        pattern=GAME_ID_PATTERN,
        description="With before_ms: the id of the previous page's last game (next_before_id).",
    ),
]


def get_service(request: Request) -> GameService:
    service: GameService = request.app.state.service
    return service


def get_duties(request: Request) -> Duties:
    duties: Duties = request.app.state.duties
    return duties


def get_tournaments(request: Request) -> Tournaments:
    tournaments: Tournaments = request.app.state.tournaments
    return tournaments


def get_reviews(request: Request) -> Reviews:
    reviews: Reviews = request.app.state.reviews
    return reviews


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_accounts(request: Request) -> Accounts:
    accounts: Accounts = request.app.state.accounts
    return accounts


Service = Annotated[GameService, Depends(get_service)]
ProcessDuties = Annotated[Duties, Depends(get_duties)]
TournamentService = Annotated[Tournaments, Depends(get_tournaments)]
AppSettings = Annotated[Settings, Depends(get_settings)]
AccountService = Annotated[Accounts, Depends(get_accounts)]
ReviewService = Annotated[Reviews, Depends(get_reviews)]


async def current_caller(request: Request) -> Caller:
    """Who the request comes from (read once per request)."""
    caller: Caller | None = getattr(request.state, "caller", None)
    if caller is None:
        callers: Callers = request.app.state.callers
        caller = await callers.identify(request, changing=request.method in CHANGING_METHODS)
        request.state.caller = caller
    return caller


CurrentCaller = Annotated[Caller, Depends(current_caller)]


async def signed_in(caller: CurrentCaller) -> Account:
    """The request's account (401 without one; 403 ``csrf_failed`` for a session cookie on a
    change without its CSRF token)."""
    return caller.signed_in()


SignedIn = Annotated[Account, Depends(signed_in)]


async def form_caller(request: Request, caller: CurrentCaller) -> Caller:
    """The caller of an account's own change, once the CSRF rules hold (403 ``csrf_failed``)."""
    check_form(request, caller)
    return caller


FormCaller = Annotated[Caller, Depends(form_caller)]


def browser_id(request: Request, response: Response, settings: AppSettings) -> str:
    """This browser's id (from its cookie; a new one is set if it has none), as stored: hashed.

    The cookie only lists games: it never authorises a change to one (seat tokens do that).
    """
    value = request.cookies.get(BROWSER_COOKIE)
    if value is None or not BROWSER_ID_PATTERN.fullmatch(value):
        value = new_browser_id()
        set_browser_cookie(request, response, value, settings)
        request.state.new_browser_id = value
    return digest(value)


def browser_secret(request: Request) -> str | None:
    """The browser's id itself (not its digest): its cookie's, or the one this answer gives."""
    value = request.cookies.get(BROWSER_COOKIE, "")
    if BROWSER_ID_PATTERN.fullmatch(value):
        return value
    fresh: str | None = getattr(request.state, "new_browser_id", None)
    return fresh


def secure_cookies(request: Request, settings: Settings) -> bool:
    """Whether the site's cookies are Secure: set so, or the request came over HTTPS (itself or
    by a trusted proxy's word)."""
    return settings.secure_cookies or over_https(request.scope)


def set_browser_cookie(
    request: Request, response: Response, value: str, settings: Settings
) -> None:
    response.set_cookie(
        BROWSER_COOKIE,
        value,
        max_age=COOKIE_MAX_AGE,
        httponly=True,
        samesite="lax",
        secure=secure_cookies(request, settings),
        path="/",
    )


Browser = Annotated[str, Depends(browser_id)]


def client_address(request: Request) -> str:
    """The client's address (as the trusted proxies report it, when there are any)."""
    return client_key(request.scope)


Address = Annotated[str, Depends(client_address)]

_bearer = HTTPBearer(
    auto_error=False,
    description="A seat token, as given when the game was created or joined; or an account's "
    "API token (bgp_...), which plays the account's seats.",
)


async def seat_sides(
    game_id: GameId,
    service: Service,
    caller: CurrentCaller,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> frozenset[Side]:
    """The sides the request plays: its seat token's, or its account's (by an API token, or a
    person's session with its CSRF token). 401 with neither, 403 with a wrong token or an
    account that plays no side of the game."""
    if credentials is not None and not is_api_token(credentials.credentials):
        return await service.authenticate(game_id, credentials.credentials)
    player = caller.player
    if player is None:
        if caller.refused_csrf:
            raise csrf_refusal()
        raise Unauthorized("unauthorized", "a seat token is needed: Authorization: Bearer TOKEN")
    sides = await service.account_sides(game_id, player)
    if not sides:
        raise Forbidden("forbidden", f"{player.name} plays no side of this game")
    return sides


SeatSides = Annotated[frozenset[Side], Depends(seat_sides)]
