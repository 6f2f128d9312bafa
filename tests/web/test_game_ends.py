"""What a game's end writes is one list of end-hooks (``game_ends``), which the web process and
the worker both hand to the games: before it, the web process wrote the ratings and the
tournament's result, and the worker only the ratings."""

from __future__ import annotations

from pathlib import Path

import redis.asyncio as aioredis

from bluegray.web.app import create_app
from bluegray.web.game_ends import END_HOOKS, record_end
from bluegray.web.platform.db import Database
from bluegray.web.platform.settings import Settings
from bluegray.web.ratings.service import rate_ended
from bluegray.web.tournaments.ending import tournament_ended
from bluegray.web.worker import worker_games


def _settings(database: Path) -> Settings:
    return Settings(
        database_url=f"sqlite:///{database}",
        ai_processes=False,
        ai_workers=1,
        allowed_hosts=["testserver"],
    )


def test_a_games_end_writes_the_ratings_then_the_tournaments_result() -> None:
    assert (rate_ended, tournament_ended) == END_HOOKS


def test_the_web_process_and_the_worker_hand_the_games_the_same_end_hooks(
    tmp_path: Path,
) -> None:
    settings = _settings(tmp_path / "games.sqlite3")
    app = create_app(settings)
    assert app.state.service.games.on_end is record_end
    # Made, not connected: neither the database nor Redis is reached here.
    client = aioredis.Redis()
    games = worker_games(settings, Database(settings.resolved_database_url), client, "worker-1")
    assert games.on_end is record_end
