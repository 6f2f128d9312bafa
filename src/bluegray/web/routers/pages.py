"""The pages the app serves itself: the lobby (``/``) and a game (``/game/{id}``). They are
plain HTML from ``templates/`` with the scripts in ``static/`` (no inline script: the content
security policy forbids it)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Final

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from markupsafe import Markup

from bluegray import __version__
from bluegray.rules import PRESETS
from bluegray.svg import piece_symbols
from bluegray.web.accounts.callers import Caller
from bluegray.web.accounts.sessions import csrf_token
from bluegray.web.deps import (
    BROWSER_ID_PATTERN,
    GAME_ID_PATTERN,
    AppSettings,
    Service,
    current_caller,
    set_browser_cookie,
)
from bluegray.web.games.schemas import RULES_TEXT_LIMIT
from bluegray.web.lobby.quick_pairings import QUICK_PAIRINGS
from bluegray.web.lobby.service import Lobby
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.refusals import NotFound, Refusal
from bluegray.web.platform.security import BROWSER_COOKIE, new_browser_id
from bluegray.web.ratings.leaderboards import ratings_now
from bluegray.web.routers.rules import rules_list

TEMPLATES: Final = Path(__file__).resolve().parent.parent / "templates"

router = APIRouter(include_in_schema=False, dependencies=[Depends(current_caller)])
templates = Jinja2Templates(directory=str(TEMPLATES))


def utc_text(ms: int) -> str:
    """A moment (milliseconds since the epoch) as a page writes it before its script shows it
    in the reader's own time: ``2026-11-27 09:35 UTC``."""
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")


def iso_text(ms: int) -> str:
    """A moment as a ``<time datetime>`` attribute writes it."""
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="seconds")


templates.env.filters["utc_text"] = utc_text
templates.env.filters["iso_text"] = iso_text

#: The library's pieces, which every board of the site places with ``<use>`` (static/board.js):
#: one piece style on every page and in every downloaded picture.
PIECE_SYMBOLS: Final = Markup(piece_symbols())


def render_page(
    request: Request, name: str, settings: AppSettings, status: int = 200, **context: object
) -> HTMLResponse:
    """A page from ``templates/``, never stored by a cache, giving a new browser its id cookie
    (every page of the site is rendered here). Every page knows who is logged in (``viewer``,
    for the header) and carries the CSRF token its scripts send with changes (``csrf_token``):
    so it is ``no-store`` (``no-cache`` would still let a shared cache or the browser's disk
    keep another's token and name)."""
    caller: Caller = getattr(request.state, "caller", None) or Caller()
    csrf = caller.csrf
    new_browser = None
    if not BROWSER_ID_PATTERN.fullmatch(request.cookies.get(BROWSER_COOKIE, "")):
        new_browser = new_browser_id()
        if caller.via is None:
            csrf = csrf_token(new_browser)
    response = templates.TemplateResponse(
        request,
        name,
        {
            "version": __version__,
            "piece_symbols": PIECE_SYMBOLS,
            "viewer": caller.account,
            "csrf_token": csrf or "",
            **context,
        },
        status_code=status,
    )
    response.headers["cache-control"] = "no-store"
    if new_browser is not None:
        set_browser_cookie(request, response, new_browser, settings)
    return response


@router.get("/", response_class=HTMLResponse)
async def lobby(
    request: Request,
    settings: AppSettings,
    rules: Annotated[str, Query(max_length=RULES_TEXT_LIMIT)] = "",
) -> HTMLResponse:
    """The lobby; ``?rules=cooper`` (a preset's name, or custom settings) chooses the rule set,
    as Learn's "Play a game of ..." links do."""
    rules = rules.strip()
    chosen = rules if rules in PRESETS else "custom" if rules else next(iter(PRESETS))
    caller: Caller | None = getattr(request.state, "caller", None)
    viewer = None if caller is None else caller.account
    lobby: Lobby = request.app.state.lobby
    ratings = {} if viewer is None else await ratings_now(lobby.db, viewer.id, now_ms())
    return render_page(
        request,
        "lobby.html",
        settings,
        catalogue=rules_list(),
        chosen=chosen,
        custom=rules if chosen == "custom" else "",
        quick_pairings=QUICK_PAIRINGS,
        quick_terms=lobby.quick_pairings(),
        ratings=ratings,
    )


@router.get("/game/{game_id}", response_class=HTMLResponse)
async def game_page(
    request: Request, game_id: str, service: Service, settings: AppSettings
) -> HTMLResponse:
    try:
        if not re.fullmatch(GAME_ID_PATTERN, game_id):
            raise NotFound("not_found", "no such game")
        state = await service.state(game_id)
    except Refusal:
        return render_page(request, "not_found.html", settings, status=404)
    return render_page(request, "game.html", settings, game=state)
