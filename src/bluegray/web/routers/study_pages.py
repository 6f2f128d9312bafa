"""The pages for learning and studying: ``/learn`` (history, rules with diagrams, the fourteen
rule sets, strategy), ``/games`` (this browser's and its account's games, and importing a
record), ``/replay/{id}`` (any stored game move by move, with analysis) and ``/study`` (an
analysis board for any position).

They are server-rendered from ``templates/`` with their scripts in ``static/`` (no inline script
or style: the content security policy forbids it). ``POST /api/study/position`` serves the
analysis board: the position after some moves, with its legal moves.
"""

from __future__ import annotations

import datetime
import re
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from bluegray.game import Game
from bluegray.pieces import Side
from bluegray.rules import PRESETS
from bluegray.web.deps import (
    BROWSER_ID_PATTERN,
    GAME_ID_PATTERN,
    AppSettings,
    CurrentCaller,
    Service,
    current_caller,
)
from bluegray.web.games.schemas import (
    MOVE_TEXT_LIMIT,
    POSITION_TEXT_LIMIT,
    RULES_TEXT_LIMIT,
    GameSummary,
    OutcomeInfo,
    RulesInfo,
    SideCounts,
)
from bluegray.web.games.view import cached_rules_info, outcome_info
from bluegray.web.learn import pages as learn
from bluegray.web.platform.refusals import Refusal
from bluegray.web.platform.schemas import ErrorResponse
from bluegray.web.platform.schemas import Request as RequestBody
from bluegray.web.platform.security import BROWSER_COOKIE, digest
from bluegray.web.routers.pages import render_page

GAMES_PER_PAGE: Final = 50

router = APIRouter(dependencies=[Depends(current_caller)])
"""Every page knows who is logged in (the header shows it)."""


def _missing(request: Request, settings: AppSettings, what: str) -> HTMLResponse:
    return render_page(request, "study_not_found.html", settings, status=404, what=what)


# -- learn ------------------------------------------------------------------------------------


@router.get("/learn", response_class=HTMLResponse, include_in_schema=False)
async def learn_page(request: Request, settings: AppSettings) -> HTMLResponse:
    return render_page(
        request,
        "learn.html",
        settings,
        history=learn.HISTORY,
        decisions=learn.DECISIONS,
        settings_list=learn.SETTINGS,
        families=learn.FAMILIES,
        presets=learn.presets(),
        diagrams=learn.diagrams(),
    )


@router.get("/learn/{name}", response_class=HTMLResponse, include_in_schema=False)
async def learn_preset_page(request: Request, name: str, settings: AppSettings) -> HTMLResponse:
    info = learn.preset(name)
    if info is None:
        return _missing(request, settings, "rule set")
    names = list(PRESETS)
    index = names.index(name)
    return render_page(
        request,
        "learn_preset.html",
        settings,
        preset=info,
        family=learn.FAMILIES[info.family],
        previous=names[index - 1] if index else None,
        next=names[index + 1] if index + 1 < len(names) else None,
    )


# -- my games ---------------------------------------------------------------------------------


def _date(ms: int) -> str:
    moment = datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def _status(game: GameSummary) -> str:
    if game.outcome is not None:
        return f"{game.outcome.result} — {game.outcome.description}"
    return {
        "waiting": "waiting for a friend",
        "active": f"in progress, {game.turn.title()} to move",
        "aborted": "aborted",
        "finished": "unfinished record",
    }.get(game.status, game.status)


@router.get("/games", response_class=HTMLResponse, include_in_schema=False)
async def games_page(
    request: Request, service: Service, settings: AppSettings, caller: CurrentCaller
) -> HTMLResponse:
    """This browser's games, and the logged-in account's from any browser."""
    cookie = request.cookies.get(BROWSER_COOKIE, "")
    rows: list[dict[str, Any]] = []
    more: int | None = None
    more_id: str | None = None
    browser = digest(cookie) if BROWSER_ID_PATTERN.fullmatch(cookie) else None
    account_id = caller.account.id if caller.account is not None else None
    if browser is not None or account_id is not None:
        listing = await service.list_games(
            browser or "", GAMES_PER_PAGE, None, account_id=account_id
        )
        more, more_id = listing.next_before_ms, listing.next_before_id
        rows = [
            {
                "id": game.id,
                "rules": game.rules,
                "opponent": game.opponent,
                "role": game.role,
                "status": _status(game),
                "live": game.status in ("waiting", "active"),
                "imported": game.mode == "imported",
                "date": _date(game.created_ms),
                "iso": datetime.datetime.fromtimestamp(
                    game.created_ms / 1000, datetime.UTC
                ).isoformat(),
                "moves": game.ply,
            }
            for game in listing.games
        ]
    return render_page(request, "games.html", settings, games=rows, more=more, more_id=more_id)


# -- replay -----------------------------------------------------------------------------------


def _move_rows(start: str, moves: list[str], positions: list[str]) -> list[dict[str, Any]]:
    """The moves in numbered rows (``1. d2-d3 f8-f7``), as §6 numbers them, each with its ply
    and the position after it."""
    fields = start.split()
    gray_first = fields[1] == "g"
    number = int(fields[3])
    rows: list[dict[str, Any]] = []
    cells: list[dict[str, Any] | None] = [None] if gray_first else []
    for ply, move in enumerate(moves, start=1):
        cells.append({"ply": ply, "move": move, "position": positions[ply]})
        if len(cells) == 2:
            rows.append({"number": number, "blue": cells[0], "gray": cells[1]})
            cells = []
            number += 1
    if cells:
        rows.append({"number": number, "blue": cells[0], "gray": None})
    return rows


def _kind_of_game(mode: str, ai_level: int | None) -> str:
    """What a stored game is, in words: "A game against the computer (level 3)"."""
    if mode == "ai":
        return "A game against the computer" + (f" (level {ai_level})" if ai_level else "")
    return {
        "hotseat": "A hot-seat game (two players at one screen)",
        "friend": "An online game between two players",
        "imported": "An imported record",
    }.get(mode, "A game")


@router.get("/replay/{game_id}", response_class=HTMLResponse, include_in_schema=False)
async def replay_page(
    request: Request, game_id: str, service: Service, settings: AppSettings
) -> HTMLResponse:
    if not re.fullmatch(GAME_ID_PATTERN, game_id):
        return _missing(request, settings, "game")
    try:
        live = await service.snapshot(game_id)
    except Refusal:
        return _missing(request, settings, "game")
    moves = [str(move) for move in live.game.moves]
    positions = [str(position) for position in live.game.positions()]
    start = str(live.game.start)
    return render_page(
        request,
        "replay.html",
        settings,
        game_id=live.id,
        rules=cached_rules_info(live.rules),
        kind=_kind_of_game(live.mode, live.ai_level),
        mode=live.mode,
        game_status=live.status,
        outcome=outcome_info(live),
        tags=live.tags or {},
        plies=len(moves),
        start=start,
        rows=_move_rows(start, moves, positions),
        date=_date(live.created_ms),
    )


# -- study ------------------------------------------------------------------------------------


@router.get("/study", response_class=HTMLResponse, include_in_schema=False)
async def study_page(
    request: Request,
    settings: AppSettings,
    rules: Annotated[str, Query(max_length=RULES_TEXT_LIMIT)] = "sackson",
    position: Annotated[str, Query(max_length=POSITION_TEXT_LIMIT)] = "",
    moves: Annotated[str, Query(max_length=4000)] = "",
) -> HTMLResponse:
    preset = rules if rules in PRESETS else "custom"
    return render_page(
        request,
        "study.html",
        settings,
        presets=[cached_rules_info(rule_set) for rule_set in PRESETS.values()],
        chosen=preset,
        custom="" if preset != "custom" else rules,
        position=position,
        moves=moves,
        max_seconds=settings.max_analysis_seconds,
    )


class StudyRequest(RequestBody):
    rules: str = Field(default="sackson", max_length=RULES_TEXT_LIMIT, examples=["cooper"])
    position: str | None = Field(
        default=None,
        max_length=POSITION_TEXT_LIMIT,
        description="The start position (§6 notation); default: the rule set's start.",
    )
    moves: list[Annotated[str, Field(max_length=MOVE_TEXT_LIMIT)]] = Field(
        default_factory=list, max_length=2000
    )


class StudyPosition(BaseModel):
    rules: RulesInfo
    start: str = Field(description="The start position, §6 notation.")
    moves: list[str] = Field(description="The moves played from it, as the library writes them.")
    ply: int
    position: str = Field(description="The position after the moves.")
    turn: str
    legal_moves: list[str]
    last_move: str | None
    advancement: SideCounts
    outcome: OutcomeInfo | None


@router.post(
    "/api/study/position",
    tags=["study"],
    response_model=StudyPosition,
    summary="A position after some moves, with its legal moves (for the analysis board)",
    responses={status: {"model": ErrorResponse} for status in (422, 429)},
)
async def study_position(body: StudyRequest) -> StudyPosition:
    """Checks the rule set, the start position and every move, case-insensitive (422
    ``invalid_rules``, ``invalid_position``, ``invalid_move`` or ``illegal_move`` naming the
    problem)."""
    game = Game(body.rules, body.position)
    game.push_all(text.strip().lower() for text in body.moves)  # case-insensitive, as for games
    position = game.position
    outcome = game.outcome()
    return StudyPosition(
        rules=cached_rules_info(game.rules),
        start=str(game.start),
        moves=[str(move) for move in game.moves],
        ply=game.ply,
        position=str(position),
        turn=position.turn.value,
        legal_moves=[str(move) for move in game.legal_moves],
        last_move=None if game.last_move is None else str(game.last_move),
        advancement=SideCounts(
            blue=position.advancement(Side.BLUE), gray=position.advancement(Side.GRAY)
        ),
        outcome=None
        if outcome is None
        else OutcomeInfo(
            winner=None if outcome.winner is None else outcome.winner.value,
            reason=outcome.termination.value,
            result=outcome.result,
            description=outcome.describe(),
        ),
    )
