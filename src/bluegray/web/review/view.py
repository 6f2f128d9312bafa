"""A stored review as its readers see it: the evaluation over the game, each move judged, each
side's accuracy (``review``), and the same as comments of the game's record (``comments``)."""

from __future__ import annotations

from collections.abc import Sequence

from bluegray.pieces import Side
from bluegray.web.review.judgement import SYMBOLS, Judged, player_accuracy, side_expected
from bluegray.web.review.rows import ReviewPositionRow
from bluegray.web.review.schemas import (
    Review,
    ReviewedMove,
    ReviewedPosition,
    SideName,
    SideSummary,
)
from bluegray.web.review.store import StoredReview


def _side(text: str) -> Side:
    return Side(text)


def _name(side: Side) -> SideName:
    return "blue" if side is Side.BLUE else "gray"


def judged_moves(
    positions: Sequence[ReviewPositionRow], moves: Sequence[str]
) -> list[tuple[Judged, ReviewPositionRow]]:
    """Each move both of whose positions are analysed, judged, with the analysis of the
    position it was played in."""
    by_ply = {position.ply: position for position in positions}
    judged = []
    for ply, move in enumerate(moves, start=1):
        before, after = by_ply.get(ply - 1), by_ply.get(ply)
        if before is None or after is None:
            continue
        side = _side(before.turn)
        played = side_expected(after.blue_expected, side)
        best = before.best_move == move or before.best_after is None
        engines = played if best else side_expected(before.best_after or 0.0, side)
        judged.append((Judged(ply, side, engines, played, best=best), before))
    return judged


def _summary(judged: Sequence[Judged], side: Side) -> SideSummary:
    verdicts = [move.verdict for move in judged if move.side is side]
    return SideSummary(
        accuracy=None if (value := player_accuracy(judged, side)) is None else round(value, 1),
        inaccuracies=verdicts.count("inaccuracy"),
        mistakes=verdicts.count("mistake"),
        blunders=verdicts.count("blunder"),
    )


def review(stored: StoredReview, moves: Sequence[str]) -> Review:
    """The review of a game whose moves are ``moves``, as far as it is analysed."""
    row = stored.review
    judged = judged_moves(stored.positions, moves)
    plain = [move for move, _ in judged]
    return Review(
        game_id=row.game_id,
        status=row.status,  # type: ignore[arg-type]
        positions=row.positions,
        analysed=len(stored.positions),
        nodes=row.nodes,
        engines=sorted({position.engine for position in stored.positions}),
        requested_ms=row.requested_ms,
        finished_ms=row.finished_ms,
        failure=row.failure,
        evaluation=[
            ReviewedPosition(
                ply=position.ply,
                turn=_name(_side(position.turn)),
                blue_expected=round(position.blue_expected, 4),
                score=position.score,
                best_move=position.best_move,
                pv=position.pv.split(),
                depth=position.depth,
                nodes=position.nodes,
                plies_to_end=position.plies_to_end,
                engine=position.engine,
            )
            for position in stored.positions
        ],
        moves=[
            ReviewedMove(
                ply=move.ply,
                move=moves[move.ply - 1],
                side=_name(move.side),
                loss=round(move.loss, 4),
                verdict=move.verdict,
                accuracy=round(move.accuracy, 1),
                best_move=None if move.best else before.best_move,
                line=[] if move.best else before.pv.split(),
            )
            for move, before in judged
        ],
        blue=_summary(plain, Side.BLUE),
        gray=_summary(plain, Side.GRAY),
    )


def comments(done: Review) -> dict[int, str]:
    """The review as comments of the game's record: before the first move, who reviewed it and
    each side's accuracy; after each judged move, its verdict, the expected score it lost and
    the better move with its line. Nothing for a review not done."""
    if done.status != "done":
        return {}
    engines = ", ".join(str(engine) for engine in done.engines)
    accuracies = "; ".join(
        f"{name} accuracy {summary.accuracy:.1f}%"
        for name, summary in (("Blue", done.blue), ("Gray", done.gray))
        if summary.accuracy is not None
    )
    notes = {0: f"Review: bluegray engine {engines}, {done.nodes} nodes a position. {accuracies}"}
    for move in done.moves:
        if move.verdict is None:
            continue
        note = f"{SYMBOLS[move.verdict]} {move.verdict.capitalize()} (-{move.loss:.2f})."
        if move.best_move is not None:
            note += f" Better: {move.best_move}"
            if len(move.line) > 1:
                note += f" ({' '.join(move.line[:8])})"
            note += "."
        notes[move.ply] = note
    return notes
