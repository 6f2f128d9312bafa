"""What a game's end writes, in the transaction that stores it: the players' ratings, then the
tournament's result. One list of end-hooks, which the web process (``app.py``) and the worker
(``worker.py``) both hand to the games, so that whichever process ends a game writes the same."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from sqlalchemy import Connection

from bluegray.web.games.live import LiveGame
from bluegray.web.ratings.service import rate_ended
from bluegray.web.tournaments.ending import tournament_ended

EndHook = Callable[[Connection, LiveGame], None]
"""Something a game's end writes: ``hook(connection, live)``, in the storing transaction."""

END_HOOKS: Final[tuple[EndHook, ...]] = (rate_ended, tournament_ended)
"""In order: the ratings first (a tournament's table reads the rating changes)."""


def record_end(connection: Connection, live: LiveGame) -> None:
    """Write what the end of ``live`` changes elsewhere: every end-hook, in order."""
    for hook in END_HOOKS:
        hook(connection, live)
