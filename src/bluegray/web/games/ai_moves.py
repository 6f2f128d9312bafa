"""The AI's moves in games: the job of finding one for a game as it stands, and playing the move
found, which any process may do (a web process with the embedded pool, or a worker): the move is
played only if the game is still at the version the job was made for."""

from __future__ import annotations

import hashlib
import logging

from bluegray.web.ai.jobs import MoveJob
from bluegray.web.games import actions
from bluegray.web.games.live import LiveGame
from bluegray.web.games.runtime import Games
from bluegray.web.games.schemas import GameEvent
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.refusals import Refusal

log = logging.getLogger("bluegray.web")


def ai_job(live: LiveGame) -> MoveJob:
    """The job of finding the AI's move in a game as it stands (a game against the AI)."""
    if live.ai_level is None:
        raise ValueError(f"game {live.id} is not played against the AI")
    clock = live.clock
    seed = int.from_bytes(hashlib.sha256(f"{live.id}:{live.game.ply}".encode()).digest()[:4])
    return MoveJob(
        game_id=live.id,
        version=live.version,
        rules=str(live.rules),
        start=str(live.game.start),
        moves=tuple(str(move) for move in live.game.moves),
        level=live.ai_level,
        seed=seed,
        time_left_ms=None if clock is None else clock.left(live.game.turn, now_ms()),
        increment_ms=0 if clock is None else clock.increment_ms,
    )


async def play_ai_move(games: Games, job: MoveJob, move: str, computed_by: str) -> bool:
    """Play the AI's move found by ``computed_by``, if its game is still where it was;
    whether it was played."""

    def change(live: LiveGame) -> GameEvent | None:
        if live.version != job.version or not live.ai_to_move():
            return None  # a takeback, resignation or time-out came first
        event = actions.play_in_time(live, move, now_ms())
        event.worker = computed_by
        return event

    try:
        return await games.change(job.game_id, change) is not None
    except Refusal as error:
        log.error("the AI move %r of game %s was refused: %s", move, job.game_id, error.message)
        return False
