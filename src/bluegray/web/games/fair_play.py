"""Fair play: the engine never looks at a position that is on the board of a rated game being
played — not by a game's analysis, the study board's engine or a hint, whoever asks — so that
nobody can consult it in the middle of a rated game by pasting the game's moves elsewhere.

A position is matched by what stands where and whose turn it is (not by the no-progress count,
the move number or the rule set, which anyone can change to slip past the check). One exception:
the hints of an unrated game against the AI played from its rule set's start, whose positions
come from the AI's own moves, not from someone else's game.
"""

from __future__ import annotations

from typing import Final

from sqlalchemy import select
from sqlalchemy.orm import Session

from bluegray.game import Game
from bluegray.position import Position
from bluegray.web.games.live import LiveGame
from bluegray.web.games.rows import GameRow
from bluegray.web.platform.db import Database
from bluegray.web.platform.refusals import Conflict

IN_RATED_PLAY: Final = (
    "analysis is off for this position: it is on the board of a rated game being played; "
    "it opens when that game ends"
)


def board_and_turn(position: Position) -> str:
    """The part of a position's text that the check matches: the placement and the turn."""
    placement, turn, *_ = str(position).split(" ")
    return f"{placement} {turn}"


def _in_rated_play(session: Session, key: str) -> bool:
    found = session.scalar(
        select(GameRow.id)
        .where(
            GameRow.status == "active",
            GameRow.rated.is_(True),
            GameRow.position.like(f"{key} %"),
        )
        .limit(1)
    )
    return found is not None


def hints_allowed(live: LiveGame) -> bool:
    """Whether a game's own positions may be analysed even when a rated game shares them: an
    unrated game against the AI, played from its rule set's start."""
    if live.mode != "ai" or live.rated:
        return False
    return str(live.game.start) == str(Game(live.rules).start)


async def refuse_in_rated_play(db: Database, position: Position) -> None:
    """Refuse (409 ``not_allowed``) to analyse ``position`` while a rated game has it on its
    board."""
    if await in_rated_play(db, position):
        raise Conflict("not_allowed", IN_RATED_PLAY)


async def in_rated_play(db: Database, position: Position) -> bool:
    """Whether a rated game being played has ``position`` on its board."""
    key = board_and_turn(position)
    return await db.read(lambda session: _in_rated_play(session, key))


async def any_in_rated_play(db: Database, positions: list[Position]) -> bool:
    """Whether a rated game being played has any of ``positions`` on its board."""
    keys = sorted({board_and_turn(position) for position in positions})
    return await db.read(lambda session: any(_in_rated_play(session, key) for key in keys))
