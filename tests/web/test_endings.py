"""What one domain's ending writes in others is one list of each (``endings``), handed over by
the web process, the worker and ``bluegray user close`` alike: before it, a game's end was wired
by name in the games' service and again in the worker (which wrote only the ratings, not the
tournament's result), and an account's closing by name in the accounts' service."""

from __future__ import annotations

from pathlib import Path

import redis.asyncio as aioredis

from bluegray.web.app import create_app
from bluegray.web.endings import CLOSING_STEPS, END_HOOKS, record_end
from bluegray.web.explorer.service import explorer_ended
from bluegray.web.lobby.seeks import drop_seeks_of
from bluegray.web.platform.db import Database
from bluegray.web.platform.settings import Settings
from bluegray.web.ratings.service import rate_ended, void_rated_results
from bluegray.web.tournaments.ending import tournament_ended
from bluegray.web.worker import worker_games


def _settings(database: Path) -> Settings:
    return Settings(
        database_url=f"sqlite:///{database}",
        ai_processes=False,
        ai_workers=1,
        allowed_hosts=["testserver"],
    )


def test_a_games_end_writes_the_ratings_then_the_tournaments_result_then_the_explorer() -> None:
    assert (rate_ended, tournament_ended, explorer_ended) == END_HOOKS


def test_closing_an_account_voids_its_rated_results_and_drops_its_seeks() -> None:
    assert [void_rated_results, drop_seeks_of] == CLOSING_STEPS


def test_the_web_process_and_the_worker_hand_the_games_the_same_end_hooks(
    tmp_path: Path,
) -> None:
    settings = _settings(tmp_path / "games.sqlite3")
    app = create_app(settings)
    assert app.state.service.games.on_end is record_end
    assert app.state.accounts.closing_steps is CLOSING_STEPS
    # Made, not connected: neither the database nor Redis is reached here.
    client = aioredis.Redis()
    games = worker_games(settings, Database(settings.resolved_database_url), client, "worker-1")
    assert games.on_end is record_end
