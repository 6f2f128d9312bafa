"""``/api/games/{id}/positions``: every position of a game by ply, to replay and study it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from bluegray.pieces import Side
from bluegray.web.deps import GameId, Service
from bluegray.web.games.schemas import PositionInfo, Replay, SideCounts
from bluegray.web.games.view import cached_rules_info, outcome_info
from bluegray.web.platform.schemas import ErrorResponse

router = APIRouter(tags=["games"])

ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse} for status in (404, 429)
}


@router.get(
    "/api/games/{game_id}/positions",
    response_model=Replay,
    summary="Every position of a game",
    responses=ERRORS,
)
async def positions(game_id: GameId, service: Service) -> Replay:
    live = await service.snapshot(game_id)
    game = live.game
    moves = game.moves
    items = []
    taken = {Side.BLUE: 0, Side.GRAY: 0}
    for ply, position in enumerate(game.positions()):
        if ply and moves[ply - 1].capture:
            taken[live.mover_of(ply)] += len(moves[ply - 1].points) - 1
        items.append(
            PositionInfo(
                ply=ply,
                move=str(moves[ply - 1]) if ply else None,
                position=str(position),
                turn=position.turn.value,
                advancement=SideCounts(
                    blue=position.advancement(Side.BLUE), gray=position.advancement(Side.GRAY)
                ),
                captures=SideCounts(blue=taken[Side.BLUE], gray=taken[Side.GRAY]),
                clock_ms=live.played[ply - 1].clock_ms if ply and ply <= len(live.played) else None,
            )
        )
    return Replay(
        id=live.id, rules=cached_rules_info(live.rules), positions=items, outcome=outcome_info(live)
    )
