"""The accounts' pages: signing up (``/signup``), logging in (``/login``), the account's own page
(``/account``: password, API tokens, the browser's games, logging out) and each player's public
profile (``/player/{name}``).

The forms post JSON from ``static/account.js`` with the page's CSRF token (no form is ever sent
as a form), and names are shown escaped (the templates escape everything, the scripts set text,
never HTML).
"""

from __future__ import annotations

import datetime
import re
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from bluegray.web.accounts.notifications import preferences
from bluegray.web.accounts.players import is_name
from bluegray.web.deps import AccountService, AppSettings, CurrentCaller, current_caller
from bluegray.web.games.player_games import game_counts, player_games
from bluegray.web.games.turns import opponent_text, your_turn
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.db import Database
from bluegray.web.platform.security import BROWSER_COOKIE, digest
from bluegray.web.ratings.leaderboards import player_ratings, rating_chart
from bluegray.web.routers.pages import render_page

router = APIRouter(include_in_schema=False, dependencies=[Depends(current_caller)])

PROFILE_GAMES: Final = 30
_LOCAL_PATH: Final = re.compile(r"/(?![/\\])[A-Za-z0-9/_.?=&#%-]*")


def local_path(text: str, default: str) -> str:
    """``text`` if it is a path of this site (never another site: no open redirect)."""
    return text if _LOCAL_PATH.fullmatch(text) else default


def _date(ms: int) -> str:
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime("%Y-%m-%d")


async def _unclaimed(request: Request, accounts: AccountService) -> int:
    cookie = request.cookies.get(BROWSER_COOKIE, "")
    if not re.fullmatch(r"[A-Za-z0-9_-]{16,64}", cookie):
        return 0
    return len(await accounts.unclaimed(digest(cookie)))


async def turn_view(db: Database, account_id: int) -> dict[str, Any]:
    """The "your turn" list as the account page shows it."""
    turn = await your_turn(db, account_id, now_ms())
    return {
        "server_time_ms": turn.server_time_ms,
        "games": [
            game.model_dump() | {"opponent_text": opponent_text(game.opponent)}
            for game in turn.games
        ],
    }


NextPath = Annotated[str, Query(alias="next", max_length=200)]
"""Where a login or a new account leads (a path of this site)."""


async def _form_page(
    request: Request, settings: AppSettings, accounts: AccountService, template: str, next_path: str
) -> Response:
    return render_page(
        request,
        template,
        settings,
        unclaimed=await _unclaimed(request, accounts),
        next=local_path(next_path, ""),
    )


@router.get("/signup", response_class=HTMLResponse)
async def signup_page(
    request: Request,
    settings: AppSettings,
    accounts: AccountService,
    caller: CurrentCaller,
    next_path: NextPath = "",
) -> Response:
    if caller.account is not None:
        return RedirectResponse("/account", status_code=303)
    return await _form_page(request, settings, accounts, "signup.html", next_path)


@router.get("/login", response_class=HTMLResponse)
async def login_page(
    request: Request,
    settings: AppSettings,
    accounts: AccountService,
    caller: CurrentCaller,
    next_path: NextPath = "",
) -> Response:
    if caller.account is not None:
        return RedirectResponse(local_path(next_path, "/account"), status_code=303)
    return await _form_page(request, settings, accounts, "login.html", next_path)


@router.get("/account", response_class=HTMLResponse)
async def account_page(
    request: Request, settings: AppSettings, accounts: AccountService, caller: CurrentCaller
) -> Response:
    account = caller.account
    if account is None:
        return RedirectResponse("/login?next=/account", status_code=303)
    return render_page(
        request,
        "account.html",
        settings,
        account=account,
        joined=_date(account.created_ms),
        tokens=await accounts.tokens.held_by(account),
        unclaimed=0 if account.bot else await _unclaimed(request, accounts),
        has_games=bool((await player_games(accounts.db, account.id, 1, None)).games),
        turn=await turn_view(accounts.db, account.id),
        notices=await preferences(accounts.db, account.id),
        mail_enabled=settings.mail_enabled,
    )


@router.get("/player/{name}", response_class=HTMLResponse)
async def player_page(
    request: Request, name: str, settings: AppSettings, accounts: AccountService
) -> Response:
    account = await accounts.by_name(name) if is_name(name) else None
    if account is None:
        return render_page(request, "player_not_found.html", settings, status=404, missing=name)
    people, ai = await game_counts(accounts.db, account.id)
    games = await player_games(accounts.db, account.id, PROFILE_GAMES, None)
    ratings = await player_ratings(accounts.db, account.id, now_ms())
    return render_page(
        request,
        "player.html",
        settings,
        player=account,
        joined=_date(account.created_ms),
        people=people,
        ai=ai,
        ratings=[{"rating": rating, "chart": rating_chart(rating.history)} for rating in ratings],
        games=[
            {
                "game": game,
                "date": _date(game.created_ms),
                "iso": datetime.datetime.fromtimestamp(
                    game.created_ms / 1000, datetime.UTC
                ).isoformat(),
            }
            for game in games.games
        ],
        more=games.next_before_ms,
        more_id=games.next_before_id,
    )
