"""``/api/explorer``: the opening explorer, the moves played from a position in the site's rated
games and in the book of engine games."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from bluegray.rules import DEFAULT_RULES_NAME
from bluegray.web.deps import Service
from bluegray.web.explorer.schemas import ExplorerAnswer
from bluegray.web.explorer.service import Explorer, parse_query
from bluegray.web.games.fair_play import refuse_in_rated_play
from bluegray.web.games.schemas import POSITION_TEXT_LIMIT
from bluegray.web.platform.schemas import ErrorResponse

router = APIRouter(tags=["explorer"])

ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse} for status in (409, 422, 429)
}


@router.get(
    "/api/explorer",
    response_model=ExplorerAnswer,
    summary="The moves played from a position",
    responses=ERRORS,
)
async def explore(
    service: Service,
    rules: Annotated[
        str, Query(max_length=32, description="A preset rule set's name.")
    ] = DEFAULT_RULES_NAME,
    position: Annotated[
        str | None,
        Query(
            max_length=POSITION_TEXT_LIMIT,
            description="The position (its text; default: the rule set's start).",
        ),
    ] = None,
) -> ExplorerAnswer:
    """The moves played from the position under a preset rule set, most played first: in the
    site's rated games between people (finished, not aborted) and in the shipped book of engine
    games, each with its games, Blue's wins, draws and Gray's wins, Blue's score and the players'
    average rating. Positions are matched by their placement and side to move, so games that
    reached them by other move orders count; each game's first 30 moves are counted. Fair play:
    409 ``not_allowed`` while a rated game being played has the position on its board."""
    name, game = parse_query(rules, position)
    await refuse_in_rated_play(service.db, game.position)
    return await Explorer(service.db).moves(name, game)
