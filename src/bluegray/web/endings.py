"""What one domain's ending writes in others, in the transaction that stores it: a game's end
(the players' ratings, then the tournament's result and the opening explorer's counts) and an
account's closing (its rated results voided, its seeks and challenges dropped). One list of each,
which the web process (``app.py``), the worker (``worker.py``) and ``bluegray user close`` all
hand over, so that whichever process ends a game or closes an account writes the same."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from sqlalchemy import Connection

from bluegray.web.accounts.service import ClosingStep
from bluegray.web.explorer.service import explorer_ended
from bluegray.web.games.live import LiveGame
from bluegray.web.lobby.seeks import drop_seeks_of
from bluegray.web.ratings.service import rate_ended, void_rated_results
from bluegray.web.tournaments.ending import tournament_ended

EndHook = Callable[[Connection, LiveGame], None]
"""Something a game's end writes: ``hook(connection, live)``, in the storing transaction."""

END_HOOKS: Final[tuple[EndHook, ...]] = (rate_ended, tournament_ended, explorer_ended)
"""In order: the ratings first (a tournament's table and the explorer read the rating changes)."""

CLOSING_STEPS: Final[list[ClosingStep]] = [void_rated_results, drop_seeks_of]
"""What closing an account does besides ending its sessions and tokens: its rated results are
voided (every pool it played in is computed again without them), and its seeks and challenges
go."""


def record_end(connection: Connection, live: LiveGame) -> None:
    """Write what the end of ``live`` changes elsewhere: every end-hook, in order."""
    for hook in END_HOOKS:
        hook(connection, live)
