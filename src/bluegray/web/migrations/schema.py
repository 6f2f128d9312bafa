"""The whole database schema: every domain's tables on one ``Base.metadata``.

Each domain keeps its own tables (``games/rows.py``, ``accounts/rows.py``, ``ratings/rows.py``,
``lobby/rows.py``, ``tournaments/rows.py``, ``timers/rows.py``, ``review/rows.py``,
``chat/rows.py``, ``explorer/rows.py``, ``puzzles/rows.py``; the platform's ``server_state`` in
``platform/models.py``), and a process loads the ones its code uses. What needs them all — the
migrations' environment (``env.py``), and the test that compares the migrations with the
tables — takes them from here, the one place that imports every domain's rows.
"""

from __future__ import annotations

from sqlalchemy import MetaData

from bluegray.web.accounts import rows as account_rows
from bluegray.web.chat import rows as chat_rows
from bluegray.web.explorer import rows as explorer_rows
from bluegray.web.games import rows as game_rows
from bluegray.web.lobby import rows as lobby_rows
from bluegray.web.platform.models import Base
from bluegray.web.puzzles import rows as puzzle_rows
from bluegray.web.ratings import rows as rating_rows
from bluegray.web.review import rows as review_rows
from bluegray.web.timers import rows as timer_rows
from bluegray.web.tournaments import rows as tournament_rows

DOMAIN_ROWS = (
    game_rows,
    account_rows,
    rating_rows,
    lobby_rows,
    tournament_rows,
    timer_rows,
    review_rows,
    chat_rows,
    explorer_rows,
    puzzle_rows,
)
"""Every domain's module of tables (importing them puts their tables on ``Base.metadata``)."""


def schema() -> MetaData:
    """Every table of the database: each domain's and the platform's."""
    return Base.metadata
