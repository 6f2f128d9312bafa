"""A tournament game's end, recorded in the transaction that stores it (``Games.change`` calls
``tournament_ended`` there, after the ratings): whichever process ends the game, its result is
recorded exactly once, or not at all if the end is not stored.

The end records the result (an aborted game as a forfeit against the side that did not make its
first move, or that aborted), makes an arena's two players free again, raises the tournament's
version (so that a pairing decided before it is written again), and makes the tournament's
timer due at once: the next pairing, or the tournament's end, follows without waiting.
"""

from __future__ import annotations

import json
from typing import Final

from sqlalchemy import Connection, select, update

from bluegray.pieces import Side
from bluegray.web.games.live import LiveGame
from bluegray.web.platform.models import table_of
from bluegray.web.timers.deadlines import set_timer as set_due
from bluegray.web.tournaments.results import Result
from bluegray.web.tournaments.rows import TournamentGameRow, TournamentPlayerRow, TournamentRow

TIMER_KIND: Final = "tournament"
"""The kind of a tournament's timer (``deadlines``): its subject is the tournament's id."""

_TOURNAMENTS: Final = table_of(TournamentRow)
_PLAYERS: Final = table_of(TournamentPlayerRow)
_GAMES: Final = table_of(TournamentGameRow)


def game_result(live: LiveGame) -> tuple[Result, bool] | None:
    """A finished or aborted game's result and whether it is a forfeit (``None``: not over)."""
    if live.status == "aborted":
        loser = Side.BLUE
        if live.last_event is not None:
            side = json.loads(live.last_event).get("side")
            loser = Side(side) if side in ("blue", "gray") else Side.BLUE
        return Result.of(loser.other), True
    outcome = live.outcome()
    if live.status != "finished" or outcome is None:
        return None
    return Result.of(outcome.winner), False


def set_timer(connection: Connection, tournament_id: str, due_ms: int) -> None:
    """Make the tournament's timer due at ``due_ms``, free for any process to claim (a holder
    working on it meanwhile leaves it as set here)."""
    set_due(connection, TIMER_KIND, tournament_id, due_ms)


def tournament_ended(connection: Connection, live: LiveGame) -> None:
    """If ``live`` is a tournament's game that has just ended, record its result (in the
    caller's transaction, the one that stores the end)."""
    row = connection.execute(
        select(_GAMES.c.tournament_id, _GAMES.c.blue_id, _GAMES.c.gray_id, _GAMES.c.result).where(
            _GAMES.c.game_id == live.id
        )
    ).first()
    ended = game_result(live)
    if row is None or row.result is not None or ended is None:
        return
    result, forfeit = ended
    connection.execute(
        update(_GAMES)
        .where(_GAMES.c.game_id == live.id)
        .values(result=result.value, forfeit=forfeit)
    )
    kind = connection.execute(
        select(_TOURNAMENTS.c.kind).where(_TOURNAMENTS.c.id == row.tournament_id)
    ).scalar_one()
    if kind == "arena":
        connection.execute(
            update(_PLAYERS)
            .where(
                _PLAYERS.c.tournament_id == row.tournament_id,
                _PLAYERS.c.account_id.in_((row.blue_id, row.gray_id)),
                _PLAYERS.c.withdrawn.is_(False),
            )
            .values(waiting_ms=live.updated_ms)
        )
    connection.execute(
        update(_TOURNAMENTS)
        .where(_TOURNAMENTS.c.id == row.tournament_id)
        .values(version=_TOURNAMENTS.c.version + 1)
    )
    set_timer(connection, row.tournament_id, live.updated_ms)
