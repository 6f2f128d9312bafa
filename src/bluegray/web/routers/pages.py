"""The pages the app serves itself: the lobby (``/``) and a game (``/game/{id}``). They are
plain HTML from ``templates/`` with the scripts in ``static/`` (no inline script: the content
security policy forbids it)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from bluegray import __version__
from bluegray.web.deps import (
    BROWSER_ID_PATTERN,
    GAME_ID_PATTERN,
    AppSettings,
    Service,
    set_browser_cookie,
)
from bluegray.web.errors import ApiError
from bluegray.web.routers.rules import rules_list
from bluegray.web.security import BROWSER_COOKIE, new_browser_id

TEMPLATES: Final = Path(__file__).resolve().parent.parent / "templates"

router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(directory=str(TEMPLATES))


def render_page(
    request: Request, name: str, settings: AppSettings, status: int = 200, **context: object
) -> HTMLResponse:
    """A page from ``templates/``, never cached, giving a new browser its id cookie (every
    page of the site is rendered here)."""
    response = templates.TemplateResponse(
        request, name, {"version": __version__, **context}, status_code=status
    )
    response.headers["cache-control"] = "no-cache"
    if not BROWSER_ID_PATTERN.fullmatch(request.cookies.get(BROWSER_COOKIE, "")):
        set_browser_cookie(response, new_browser_id(), settings)
    return response


@router.get("/", response_class=HTMLResponse)
async def lobby(request: Request, settings: AppSettings) -> HTMLResponse:
    return render_page(request, "lobby.html", settings, catalogue=rules_list())


@router.get("/game/{game_id}", response_class=HTMLResponse)
async def game_page(
    request: Request, game_id: str, service: Service, settings: AppSettings
) -> HTMLResponse:
    try:
        if not re.fullmatch(GAME_ID_PATTERN, game_id):
            raise ApiError(404, "not_found", "no such game")
        state = await service.state(game_id)
    except ApiError:
        return render_page(request, "not_found.html", settings, status=404)
    return render_page(request, "game.html", settings, game=state)
