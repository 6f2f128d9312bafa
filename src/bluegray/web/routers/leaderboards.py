"""The leaderboards: ``/api/leaderboards/{rules}/{time_class}`` (paged) and their pages
(``/leaderboard``, ``/leaderboard/{rules}/{time_class}``)."""

from __future__ import annotations

from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, Response

from bluegray.rules import PRESETS
from bluegray.web.accounts.schemas import Leaderboard
from bluegray.web.deps import AccountService, AppSettings, current_caller
from bluegray.web.platform.clocks import REAL_TIME, TIME_CLASSES
from bluegray.web.platform.refusals import NotFound
from bluegray.web.platform.schemas import ErrorResponse
from bluegray.web.ratings.leaderboards import leaderboard, rated_pools
from bluegray.web.ratings.service import split_pool
from bluegray.web.routers.pages import render_page

router = APIRouter(tags=["players"])
pages = APIRouter(include_in_schema=False, dependencies=[Depends(current_caller)])

PAGE_SIZE: Final = 50
ERRORS: dict[int | str, dict[str, Any]] = {404: {"model": ErrorResponse}}


def _pool(rules: str, time_class: str) -> str | None:
    pool = f"{rules}/{time_class}"
    return pool if rules in PRESETS and split_pool(pool) is not None else None


@router.get(
    "/api/leaderboards/{rules}/{time_class}",
    response_model=Leaderboard,
    summary="A rating's leaderboard, best first",
    responses=ERRORS,
)
async def get_leaderboard(
    rules: str,
    time_class: str,
    accounts: AccountService,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
    limit: Annotated[int, Query(ge=1, le=100)] = PAGE_SIZE,
) -> Leaderboard:
    """The open accounts with an established rating (not provisional) under a preset rule set
    and a time class (``real-time`` or ``correspondence``), ``limit`` from ``offset``."""
    pool = _pool(rules, time_class)
    if pool is None:
        raise NotFound(
            "not_found",
            f"no leaderboard {rules!r}/{time_class!r}: a preset rule set and one of "
            + ", ".join(TIME_CLASSES),
        )
    return await leaderboard(accounts.db, pool, offset, limit)


@pages.get("/leaderboard", response_class=HTMLResponse)
async def leaderboards_page(
    request: Request, settings: AppSettings, accounts: AccountService
) -> Response:
    return await _page(request, settings, accounts, "sackson", REAL_TIME, 0)


@pages.get("/leaderboard/{rules}/{time_class}", response_class=HTMLResponse)
async def leaderboard_page(
    request: Request,
    rules: str,
    time_class: str,
    settings: AppSettings,
    accounts: AccountService,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> Response:
    return await _page(request, settings, accounts, rules, time_class, offset)


async def _page(
    request: Request,
    settings: AppSettings,
    accounts: AccountService,
    rules: str,
    time_class: str,
    offset: int,
) -> Response:
    pool = _pool(rules, time_class)
    pools = await rated_pools(accounts.db)
    if pool is None:
        return render_page(
            request, "leaderboard.html", settings, status=404, board=None, pools=pools, missing=True
        )
    board = await leaderboard(accounts.db, pool, offset, PAGE_SIZE)
    return render_page(
        request,
        "leaderboard.html",
        settings,
        board=board,
        pools=sorted({*pools, pool}),
        page_size=PAGE_SIZE,
        missing=False,
    )
