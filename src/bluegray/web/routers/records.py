"""``/api/games/{id}/record`` and ``/api/records``: download a game as a record (the PGN-like
format of docs/records.md), and import a record to replay it."""

from __future__ import annotations

import datetime
from typing import Any

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from bluegray.pieces import Side
from bluegray.record import GameRecord, read_record, write_record
from bluegray.web.deps import (
    AppSettings,
    Browser,
    GameId,
    ReviewService,
    Service,
    TournamentService,
)
from bluegray.web.games.live import LiveGame
from bluegray.web.games.schemas import GameState, ImportRecordRequest
from bluegray.web.platform.refusals import Invalid
from bluegray.web.platform.schemas import ErrorResponse
from bluegray.web.platform.settings import Settings
from bluegray.web.platform.texts import one_line

router = APIRouter(tags=["records"])

_EVENTS = {
    "ai": "Game against the computer",
    "hotseat": "Hot-seat game",
    "friend": "Online game",
}

ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse} for status in (404, 413, 422, 429)
}


def record_text(
    live: LiveGame,
    settings: Settings,
    *,
    event: str | None = None,
    round: int | None = None,
    comments: dict[int, str] | None = None,
) -> str:
    """The game's record: an imported one as it was read, a played one with its tags (the
    ``event`` and ``round`` of a tournament's game; players with accounts by their names);
    ``comments`` (its review's) after the record's own."""
    if live.record is not None:
        record = read_record(live.record)
        _add_comments(record, comments or {})
        return write_record(record)
    date = datetime.datetime.fromtimestamp(live.created_ms / 1000, datetime.UTC)
    tags = {
        "Event": one_line(event) if event is not None else _EVENTS.get(live.mode, "Game"),
        "Site": one_line(settings.site),
        "Date": date.strftime("%Y.%m.%d"),
        "Blue": _player(live, Side.BLUE),
        "Gray": _player(live, Side.GRAY),
        "GameId": live.id,
    }
    if round is not None:
        tags["Round"] = str(round)
    if live.clock is not None:
        tags["TimeControl"] = f"{live.clock.initial_ms // 1000}+{live.clock.increment_ms // 1000}"
    if live.end_reason is not None:
        tags["Ending"] = live.end_reason
    record = GameRecord.from_game(live.game, **tags)
    _add_comments(record, comments or {})
    return write_record(record)


def _add_comments(record: GameRecord, comments: dict[int, str]) -> None:
    for ply, text in comments.items():
        own = record.comments.get(ply)
        record.comments[ply] = text if own is None else f"{own} {text}"


def _player(live: LiveGame, side: Side) -> str:
    seat = live.seats.get(side)
    if seat is not None and seat.kind == "ai":
        return f"AI level {live.ai_level}"
    if seat is not None and seat.account_name is not None:
        return seat.account_name
    return "Anonymous"


@router.get(
    "/api/games/{game_id}/record",
    response_class=PlainTextResponse,
    summary="Download the game's record",
    responses={
        200: {"content": {"text/plain": {}}, "description": "The record text."},
        **ERRORS,
    },
)
async def download_record(
    game_id: GameId,
    service: Service,
    tournaments: TournamentService,
    reviews: ReviewService,
    settings: AppSettings,
) -> Any:
    """The game's record; a reviewed game's with its review as comments (each side's accuracy
    before the first move, each inaccuracy, mistake and blunder after it, with the better
    move)."""
    live = await service.snapshot(game_id)
    tournament = await tournaments.event_of_game(game_id)
    event, round = tournament if tournament is not None else (None, None)
    comments = await reviews.comments(game_id, live)
    text = record_text(live, settings, event=event, round=round, comments=comments)
    return PlainTextResponse(
        text,
        headers={"content-disposition": f'attachment; filename="bluegray-{live.id}.txt"'},
    )


@router.post(
    "/api/records",
    response_model=GameState,
    status_code=201,
    summary="Import a record to replay it",
    responses=ERRORS,
)
async def import_record(body: ImportRecordRequest, service: Service, browser: Browser) -> GameState:
    """The record becomes a read-only game in this browser's list (status ``finished``; its
    outcome is null when the record is unfinished, ``*``)."""
    if "\x00" in body.text:  # PostgreSQL cannot store it; no record needs it
        raise Invalid("invalid_record", "a record cannot hold the NUL character (\\x00)")
    return await service.import_record(body.text, browser)
