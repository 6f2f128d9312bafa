"""``board.svg``: the picture of a game at any ply, or of any position (``bluegray.svg``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import Response

from bluegray.errors import BlueGrayError
from bluegray.game import Game
from bluegray.moves import Move
from bluegray.points import Point, parse_point
from bluegray.position import Position
from bluegray.rules import RuleSet
from bluegray.svg import board_svg
from bluegray.web.deps import GameId, Service
from bluegray.web.games.schemas import MOVE_TEXT_LIMIT, POSITION_TEXT_LIMIT, RULES_TEXT_LIMIT
from bluegray.web.platform.refusals import Invalid, from_library
from bluegray.web.platform.schemas import ErrorResponse

router = APIRouter(tags=["boards"])

SVG_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"content": {"image/svg+xml": {}}, "description": "The board as SVG."},
    **{status: {"model": ErrorResponse} for status in (404, 422, 429)},
}

Flipped = Annotated[bool, Query(description="Show the board from Gray's side.")]
Size = Annotated[int, Query(ge=64, le=2048, description="Width and height in pixels.")]
Highlights = Annotated[
    str, Query(max_length=300, description="Points to mark, comma-separated: e2,e3.")
]
Coordinates = Annotated[bool, Query(description="Write the files and ranks around the board.")]


def _points(text: str) -> list[Point]:
    try:
        return [parse_point(name.strip()) for name in text.split(",") if name.strip()]
    except BlueGrayError as error:
        raise from_library(error) from None


def _svg(svg: str, cache: str) -> Response:
    return Response(svg, media_type="image/svg+xml", headers={"cache-control": cache})


@router.get(
    "/api/games/{game_id}/board.svg",
    response_class=Response,
    summary="The board of a game at a ply",
    responses=SVG_RESPONSES,
)
async def game_board(
    game_id: GameId,
    service: Service,
    ply: Annotated[int | None, Query(ge=0, description="Default: the current position.")] = None,
    flipped: Flipped = False,
    size: Size = 480,
    highlights: Highlights = "",
    coordinates: Coordinates = True,
) -> Response:
    live = await service.snapshot(game_id)
    game = live.game
    if ply is not None:
        if ply > game.ply:
            raise Invalid("invalid_ply", f"the game has plies 0 to {game.ply}, not {ply}")
        while game.ply > ply:
            game.pop()
    svg = board_svg(
        game.position,
        last_move=game.last_move,
        flipped=flipped,
        size=size,
        highlights=_points(highlights),
        coordinates=coordinates,
    )
    return _svg(svg, "no-cache")


@router.get(
    "/api/board.svg",
    response_class=Response,
    summary="The board of any position",
    responses=SVG_RESPONSES,
)
async def any_board(
    rules: Annotated[str, Query(max_length=RULES_TEXT_LIMIT)] = "sackson",
    position: Annotated[str | None, Query(max_length=POSITION_TEXT_LIMIT)] = None,
    last_move: Annotated[str | None, Query(max_length=MOVE_TEXT_LIMIT)] = None,
    flipped: Flipped = False,
    size: Size = 480,
    highlights: Highlights = "",
    coordinates: Coordinates = True,
) -> Response:
    """The position (§6 notation; default: the rule set's start) with, if given, the last move
    drawn as an arrow (any well-formed move text)."""
    rule_set = RuleSet.parse(rules)
    shown = Position.start(rule_set) if position is None else Position.parse(position, rule_set)
    if last_move is not None:
        Game(rule_set, shown)  # the position must be valid under the rules
    svg = board_svg(
        shown,
        last_move=None if last_move is None else Move.parse(last_move),
        flipped=flipped,
        size=size,
        highlights=_points(highlights),
        coordinates=coordinates,
    )
    return _svg(svg, "public, max-age=86400")
