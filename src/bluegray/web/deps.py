"""What the routes share: the service, the settings, the browser id cookie, seat tokens from the
``Authorization`` header, and the shape of a game id."""

from __future__ import annotations

import re
from typing import Annotated, Final

from fastapi import Depends, Path, Request, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from bluegray.pieces import Side
from bluegray.web.errors import ApiError
from bluegray.web.security import (
    BROWSER_COOKIE,
    COOKIE_MAX_AGE,
    client_key,
    digest,
    new_browser_id,
)
from bluegray.web.service import GameService
from bluegray.web.settings import Settings

GAME_ID_PATTERN: Final = r"^[A-Za-z0-9_-]{1,32}$"
BROWSER_ID_PATTERN: Final = re.compile(r"[A-Za-z0-9_-]{16,64}")

GameId = Annotated[str, Path(pattern=GAME_ID_PATTERN, description="The game's public id.")]


def get_service(request: Request) -> GameService:
    service: GameService = request.app.state.service
    return service


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


Service = Annotated[GameService, Depends(get_service)]
AppSettings = Annotated[Settings, Depends(get_settings)]


def browser_id(request: Request, response: Response, settings: AppSettings) -> str:
    """This browser's id (from its cookie; a new one is set if it has none), as stored: hashed.

    The cookie only lists games: it never authorises a change to one (seat tokens do that).
    """
    value = request.cookies.get(BROWSER_COOKIE)
    if value is None or not BROWSER_ID_PATTERN.fullmatch(value):
        value = new_browser_id()
        set_browser_cookie(response, value, settings)
    return digest(value)


def set_browser_cookie(response: Response, value: str, settings: Settings) -> None:
    response.set_cookie(
        BROWSER_COOKIE,
        value,
        max_age=COOKIE_MAX_AGE,
        httponly=True,
        samesite="lax",
        secure=settings.secure_cookies,
        path="/",
    )


Browser = Annotated[str, Depends(browser_id)]


def client_address(request: Request) -> str:
    """The client's address (as the trusted proxies report it, when there are any)."""
    return client_key(request.scope)


Address = Annotated[str, Depends(client_address)]

_bearer = HTTPBearer(
    auto_error=False,
    description="A seat token, as given when the game was created or joined.",
)


async def seat_sides(
    game_id: GameId,
    service: Service,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> frozenset[Side]:
    """The sides the request's seat token plays (401 without a token, 403 with a wrong one)."""
    if credentials is None:
        raise ApiError(401, "unauthorized", "a seat token is needed: Authorization: Bearer TOKEN")
    return await service.authenticate(game_id, credentials.credentials)


SeatSides = Annotated[frozenset[Side], Depends(seat_sides)]
