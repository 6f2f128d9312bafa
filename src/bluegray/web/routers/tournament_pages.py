"""The tournaments' pages: ``/tournaments`` (those to come, running and finished, and a form to
create one for an account) and ``/tournament/{id}`` (its table, updated live through
``/ws/tournament/{id}``, its games and a download of their records; the viewer's game being
played, which the page leads them to, and whether they are in it, for Join or Withdraw).

Both carry the server's time (``server_time_ms``), so that their countdowns to a start or an
arena's end count from the server's clock, not the browser's."""

from __future__ import annotations

from typing import Annotated, Final

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, Response

from bluegray.rules import PRESETS
from bluegray.web.deps import AppSettings, CurrentCaller, TournamentService, current_caller
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.refusals import NotFound
from bluegray.web.routers.pages import render_page
from bluegray.web.routers.tournaments import TournamentId

pages = APIRouter(include_in_schema=False, dependencies=[Depends(current_caller)])


PER_PAGE: Final = 50


@pages.get("/tournaments", response_class=HTMLResponse)
async def tournaments_page(
    request: Request,
    settings: AppSettings,
    tournaments: TournamentService,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> Response:
    """A page of the list (``PER_PAGE`` tournaments, with links to the pages before and after:
    none is ever left out), each with its creator."""
    listed = await tournaments.all(offset, PER_PAGE)
    return render_page(
        request,
        "tournaments.html",
        settings,
        section="tournaments",
        tournaments=listed.tournaments,
        total=listed.total,
        first=offset + 1,
        last=offset + len(listed.tournaments),
        previous=max(0, offset - PER_PAGE) if offset > 0 else None,
        next=listed.next_offset,
        presets=list(PRESETS),
        server_time_ms=now_ms(),
    )


@pages.get("/tournament/{tournament_id}", response_class=HTMLResponse)
async def tournament_page(
    request: Request,
    tournament_id: TournamentId,
    settings: AppSettings,
    tournaments: TournamentService,
    caller: CurrentCaller,
) -> Response:
    try:
        standings = await tournaments.standings(tournament_id)
    except NotFound:
        return render_page(
            request, "tournament.html", settings, status=404, section="tournaments", table=None
        )
    games = await tournaments.games(tournament_id)
    viewer = caller.account.name if caller.account is not None else None
    my_game = next(
        (game for game in games.games if game.result is None and viewer in (game.blue, game.gray)),
        None,
    )
    joined = any(line.name == viewer and not line.withdrawn for line in standings.standings)
    return render_page(
        request,
        "tournament.html",
        settings,
        section="tournaments",
        table=standings,
        games=games.games,
        my_game=my_game,
        joined=joined,
        server_time_ms=now_ms(),
    )
