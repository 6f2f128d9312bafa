"""Analysis: the engine's evaluation, best move and line, for a game at a ply or for any
position. It runs in the engine workers, a few at a time."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from bluegray.game import Game
from bluegray.web.ai.jobs import AiBusyError, AiUnavailableError, AnalysisJob, AnalysisOutput, Owner
from bluegray.web.deps import Address, AppSettings, Browser, GameId, ProcessDuties, Service
from bluegray.web.duties import Duties
from bluegray.web.games.fair_play import hints_allowed, refuse_in_rated_play
from bluegray.web.games.schemas import AnalysisRequest, AnalysisResult, OutcomeInfo
from bluegray.web.platform.refusals import Conflict, Invalid, Unavailable
from bluegray.web.platform.schemas import ErrorResponse
from bluegray.web.platform.settings import Settings

router = APIRouter(tags=["analysis"])

ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse} for status in (404, 422, 429, 503)
}
GAME_ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse} for status in (404, 409, 422, 429, 503)
}

#: Why a game between two people cannot be analysed while it is played (fair play).
NOT_WHILE_PLAYED = (
    "analysis is off while a game between two people is being played; it opens when the game ends"
)


def _seconds(seconds: float, settings: Settings) -> float:
    return min(seconds, settings.max_analysis_seconds)


async def _analyse(duties: Duties, job: AnalysisJob, owner: Owner) -> AnalysisResult:
    """The analysis from the AI's queue; 503 when the AI is busy or no worker runs."""
    try:
        return _result(await duties.queue.analyse(job, owner))
    except AiBusyError as error:
        raise Unavailable("ai_busy", str(error)) from None
    except AiUnavailableError as error:
        raise Unavailable("ai_unavailable", str(error)) from None


def _result(output: AnalysisOutput) -> AnalysisResult:
    outcome = output.outcome
    return AnalysisResult(
        position=output.position,
        turn=output.turn.value,
        best_move=output.best_move,
        score=output.score,
        blue_expected=output.blue_expected,
        pv=list(output.pv),
        depth=output.depth,
        nodes=output.nodes,
        seconds=output.seconds,
        plies_to_end=output.plies_to_end,
        winning_side=None if output.winning_side is None else output.winning_side.value,
        outcome=None
        if outcome is None
        else OutcomeInfo(
            winner=None if outcome.winner is None else outcome.winner.value,
            reason=outcome.termination.value,
            result=outcome.result,
            description=outcome.describe(),
        ),
        description=output.description,
    )


@router.post(
    "/api/analysis",
    response_model=AnalysisResult,
    summary="Analyse any position",
    responses=ERRORS,
)
async def analyse_position(
    body: AnalysisRequest,
    service: Service,
    duties: ProcessDuties,
    settings: AppSettings,
    browser: Browser,
    address: Address,
) -> AnalysisResult:
    """The rule set, a start position (default: the rule set's) and moves played from it; the
    thinking time is capped by the server (5 s by default)."""
    game = Game(body.rules, body.position)
    game.push_all(body.moves)
    await refuse_in_rated_play(service.db, game.position)
    job = AnalysisJob(
        str(game.rules), str(game.start), tuple(body.moves), _seconds(body.seconds, settings)
    )
    return await _analyse(duties, job, Owner(browser, address))


@router.get(
    "/api/games/{game_id}/analysis",
    response_model=AnalysisResult,
    summary="Analyse a game at a ply",
    responses=GAME_ERRORS,
)
async def analyse_game(
    game_id: GameId,
    service: Service,
    duties: ProcessDuties,
    settings: AppSettings,
    browser: Browser,
    address: Address,
    ply: Annotated[int | None, Query(ge=0, description="Default: the current position.")] = None,
    seconds: Annotated[float, Query(gt=0, le=60)] = 1.0,
) -> AnalysisResult:
    """The game's position at a ply. Fair play: a game between two people (mode `friend`) is
    not analysed while it is waiting or active (409 `not_allowed`); it opens when it ends. Nor
    is a position on the board of a rated game being played, unless it comes from an unrated
    game against the AI (its hints)."""
    live = await service.snapshot(game_id)
    if live.mode == "friend" and live.status in ("waiting", "active"):
        raise Conflict("not_allowed", NOT_WHILE_PLAYED)
    moves = [str(move) for move in live.game.moves]
    if ply is not None:
        if ply > len(moves):
            raise Invalid("invalid_ply", f"the game has plies 0 to {len(moves)}, not {ply}")
        moves = moves[:ply]
    if not hints_allowed(live):
        at_ply = Game(live.rules, live.game.start)
        at_ply.push_all(moves)
        await refuse_in_rated_play(service.db, at_ply.position)
    job = AnalysisJob(
        str(live.rules), str(live.game.start), tuple(moves), _seconds(seconds, settings)
    )
    return await _analyse(duties, job, Owner(browser, address))
