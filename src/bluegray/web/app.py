"""The web app: ``create_app(settings)`` builds it, and at start-up it upgrades the database
schema and takes its part in the service: the games' news, timers and AI (``bluegray serve``
runs it on uvicorn)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from bluegray import __version__
from bluegray.web.accounts.callers import Callers
from bluegray.web.accounts.service import Accounts
from bluegray.web.backends import backends
from bluegray.web.chat.service import Chat
from bluegray.web.duties import Duties
from bluegray.web.endings import CLOSING_STEPS, record_end
from bluegray.web.explorer.service import ShippedBooks
from bluegray.web.featured.showing import Showcase
from bluegray.web.games.service import GameService
from bluegray.web.lobby.service import Lobby
from bluegray.web.platform.clocks import set_time_offset
from bluegray.web.platform.db import Database
from bluegray.web.platform.errors import install_handlers
from bluegray.web.platform.guard import GuardMiddleware
from bluegray.web.platform.rates import RateLimits
from bluegray.web.platform.schemas import ErrorResponse
from bluegray.web.platform.settings import Settings, process_name
from bluegray.web.puzzles.service import Puzzles
from bluegray.web.review.runner import ReviewRunners
from bluegray.web.review.service import Reviews
from bluegray.web.routers import (
    account_pages,
    accounts,
    analysis,
    boards,
    chat,
    explorer,
    featured,
    games,
    leaderboards,
    lobby_routes,
    meta,
    pages,
    positions,
    puzzles,
    records,
    reviews,
    rules,
    sockets,
    study_pages,
    tournament_pages,
    tournaments,
)
from bluegray.web.tournaments.service import Tournaments

STATIC: Final = Path(__file__).resolve().parent / "static"

DESCRIPTION = """\
Play Blue and Gray (Busch & Jaeger, 1903) against the AI, hot-seat, or with a friend in another
browser, in real time; replay, analyse, download and import game records. Players may have
accounts (a name, a password, a public profile); programs act for an account with its API token.

Errors are JSON: `{"error": {"code": "...", "message": "..."}}`. A seat token (given when a game
is created or joined) authorises moves and actions: send it as `Authorization: Bearer TOKEN`
over HTTP, or in the first message of the WebSocket `/ws/games/{id}` (its messages are described
in docs/web.md and by `/api/ws/schema`). An account's API token (`bgp_...`) goes the same ways
and plays the account's seats; a logged-in browser's session cookie does too, with its CSRF token
(`X-CSRF-Token`, from `GET /api/account`) on every change.
"""


GATE_RESPONSES: Final[dict[int | str, dict[str, Any]]] = {
    400: {"model": ErrorResponse, "description": "A host name this site does not serve."},
    413: {"model": ErrorResponse, "description": "The request body is too large."},
    415: {"model": ErrorResponse, "description": "A request body that is not JSON."},
    429: {"model": ErrorResponse, "description": "Too many requests: see Retry-After."},
    500: {"model": ErrorResponse, "description": "An unexpected error (never expected)."},
}
"""What the request gate (``guard``) may answer to any request, before its operation."""


def create_app(settings: Settings | None = None) -> FastAPI:
    """The app for ``settings`` (default: from the environment, see ``Settings.from_env``)."""
    settings = settings or Settings.from_env()
    set_time_offset(settings.time_offset_seconds)
    process = process_name(settings)
    database = Database(
        settings.resolved_database_url, sqlite_synchronous=settings.sqlite_synchronous
    )
    parts = backends(settings, process)
    service = GameService(settings, database, parts.bus, parts.presence, process, on_end=record_end)
    # The process's duties (timers, the AI's moves, the heartbeat) over the service's games.
    duties = Duties(
        settings,
        database,
        parts.bus,
        parts.presence,
        process,
        games=service.games,
        hub=service.hub,
        metrics=service.metrics,
        make_queue=parts.make_queue,
    )
    service.take_duties(duties)
    rates = RateLimits(settings, shared=settings.scaled)
    account_service = Accounts(
        database, rates, settings, service.games, closing_steps=CLOSING_STEPS
    )
    lobby = Lobby(settings, service, rates)
    duties.on_cluster = lobby.heard
    review_service = Reviews(settings, database, service.snapshot)
    # The reviews asked for are driven by this process's runners, on the AI's queue.
    runners = ReviewRunners(settings, database, duties.queue, service.snapshot, process)
    review_service.on_request = runners.wake
    game_chat = Chat(settings, service, rates)
    duties.on_chat = game_chat.heard
    showcase = Showcase(settings, service)  # the home page's featured game
    puzzles_service = Puzzles(database)
    books = ShippedBooks(database)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        database.start()
        try:
            puzzles_service.load()  # the starter set, once
            await duties.start()
            await lobby.start()
            await runners.start()
            game_chat.start()
            await showcase.start()
            if settings.explorer_books_at_start:
                books.start()
            yield
            await books.stop()
            await showcase.stop()
            await game_chat.stop()
            await runners.stop()
            await lobby.stop()
            await duties.stop()
        finally:
            database.close()
            await parts.close()

    app = FastAPI(
        title="bluegray",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/openapi.json",
        responses=GATE_RESPONSES,
    )
    app.state.settings = settings
    app.state.service = service
    app.state.duties = duties
    app.state.accounts = account_service
    app.state.lobby = lobby
    app.state.reviews = review_service
    app.state.chat = game_chat
    app.state.showcase = showcase
    app.state.puzzles = puzzles_service
    app.state.tournaments = Tournaments(service, duties.timers)
    app.state.callers = Callers(account_service.sessions, account_service.tokens)
    install_handlers(app, process, service.metrics)
    for module in (
        rules,
        games,
        positions,
        boards,
        records,
        analysis,
        reviews,
        explorer,
        meta,
        sockets,
        pages,
    ):
        app.include_router(module.router)
    app.include_router(accounts.router)
    app.include_router(meta.metrics_router)
    app.include_router(study_pages.router)  # learn, my games, replay, study
    app.include_router(account_pages.router)  # sign up, log in, the account, players' profiles
    app.include_router(leaderboards.router)
    app.include_router(lobby_routes.router)
    app.include_router(tournaments.router)
    app.include_router(leaderboards.pages)
    app.include_router(tournament_pages.pages)
    app.include_router(chat.router)
    app.include_router(chat.pages)
    app.include_router(featured.router)
    app.include_router(puzzles.router)
    app.include_router(puzzles.pages)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.state.rates = rates
    app.add_middleware(GuardMiddleware, settings=settings, rates=rates, process=process)
    # Outermost: the client's own address from a trusted proxy's X-Forwarded-For, before the
    # rate limits count it.
    app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.trusted_proxies)
    return app
