"""How a review judges moves: the thresholds, lichess's accuracy formula, and a hand-made game
whose every value is worked out by hand (docs/web.md, "Game review")."""

from __future__ import annotations

import pytest

from bluegray.pieces import Side
from bluegray.web.review.judgement import Judged, move_accuracy, player_accuracy, verdict
from bluegray.web.review.rows import ReviewPositionRow, ReviewRow
from bluegray.web.review.store import StoredReview
from bluegray.web.review.view import comments, review


@pytest.mark.parametrize(
    ("loss", "expected"),
    [
        (0.0, None),
        (0.0499, None),
        (0.05, "inaccuracy"),
        (0.0999, "inaccuracy"),
        (0.10, "mistake"),
        (0.1499, "mistake"),
        (0.15, "blunder"),
        (1.0, "blunder"),
    ],
)
def test_the_verdicts_thresholds(loss: float, expected: str | None) -> None:
    assert verdict(loss) == expected


def test_lichess_accuracy_formula() -> None:
    # 103.1668 * exp(-0.04354 * 100 * loss) - 3.1669, plus 1, within 0 to 100.
    assert move_accuracy(0.0) == 100.0  # 101.0 before the cap
    assert move_accuracy(0.10) == pytest.approx(64.5826, abs=1e-3)  # 103.1668 * 0.647032 - 2.1669
    assert move_accuracy(0.30) == pytest.approx(25.7756, abs=1e-3)
    assert move_accuracy(1.0) == 0.0  # negative before the floor


def test_the_engines_own_move_loses_nothing() -> None:
    assert Judged(1, Side.BLUE, before=0.9, after=0.2, best=True).loss == 0.0
    assert Judged(1, Side.BLUE, before=0.4, after=0.5, best=False).loss == 0.0  # never below 0
    moves = [Judged(1, Side.BLUE, 0.6, 0.5, best=False), Judged(2, Side.GRAY, 0.5, 0.5, False)]
    assert player_accuracy(moves, Side.BLUE) == pytest.approx(64.5826, abs=1e-3)
    assert player_accuracy(moves[:1], Side.GRAY) is None


def _position(
    ply: int, turn: str, blue: float, best: str | None, after: float | None
) -> ReviewPositionRow:
    return ReviewPositionRow(
        game_id="g",
        ply=ply,
        turn=turn,
        blue_expected=blue,
        score=0,
        best_move=best,
        best_after=after,
        pv="" if best is None else f"{best} a9-a8",
        depth=3,
        nodes=100,
        plies_to_end=None,
        engine=4,
    )


def test_a_hand_made_game_judged() -> None:
    """Three moves: Blue's a mistake (it makes Blue 0.50 where the engine's move makes 0.60),
    Gray's an inaccuracy (Gray 1 - 0.52 = 0.48 where the engine's makes 1 - 0.44 = 0.56), Blue's
    a blunder (0.40 where 0.70)."""
    stored = StoredReview(
        ReviewRow(
            game_id="g", status="done", positions=4, nodes=100, requested_ms=1, finished_ms=2
        ),
        [
            _position(0, "blue", 0.55, "d2-d3", 0.60),
            _position(1, "gray", 0.50, "f8-f7", 0.44),
            _position(2, "blue", 0.52, "e1-d2", 0.70),
            _position(3, "gray", 0.40, None, None),
        ],
    )
    judged = review(stored, ["a2-a3", "d8-d7", "a1-a2"])
    assert [(m.ply, m.side, m.verdict) for m in judged.moves] == [
        (1, "blue", "mistake"),
        (2, "gray", "inaccuracy"),
        (3, "blue", "blunder"),
    ]
    assert [m.loss for m in judged.moves] == pytest.approx([0.10, 0.08, 0.30])
    assert judged.moves[2].best_move == "e1-d2" and judged.moves[2].line == ["e1-d2", "a9-a8"]
    assert judged.moves[0].accuracy == pytest.approx(64.6, abs=0.05)
    assert judged.moves[1].accuracy == pytest.approx(70.7, abs=0.05)  # 70.656
    # Blue: the mean of 64.583 and 25.776; Gray: its one move.
    assert judged.blue.accuracy == pytest.approx(45.2, abs=0.05)
    assert judged.gray.accuracy == pytest.approx(70.7, abs=0.05)
    assert (judged.blue.mistakes, judged.blue.blunders, judged.gray.inaccuracies) == (1, 1, 1)
    assert judged.analysed == 4 and judged.engines == [4]
    notes = comments(judged)
    assert notes[0].startswith("Review: bluegray engine 4, 100 nodes a position.")
    assert "Blue accuracy 45.2%; Gray accuracy 70.7%" in notes[0]
    assert notes[3] == "?? Blunder (-0.30). Better: e1-d2 (e1-d2 a9-a8)."
    assert notes[2].startswith("?! Inaccuracy (-0.08)")


def test_a_review_half_done_judges_what_it_can_and_comments_nothing() -> None:
    stored = StoredReview(
        ReviewRow(game_id="g", status="pending", positions=4, nodes=100, requested_ms=1),
        [_position(0, "blue", 0.55, "a2-a3", None), _position(1, "gray", 0.50, "f8-f7", 0.44)],
    )
    judged = review(stored, ["a2-a3", "d8-d7", "a1-a2"])
    assert [(m.ply, m.loss, m.verdict) for m in judged.moves] == [(1, 0.0, None)]
    assert judged.analysed == 2 and judged.positions == 4
    assert comments(judged) == {}
