"""Analysis and hints: a clear evaluation, best move and line, for Blue's point of view."""

from __future__ import annotations

import pytest

from bluegray import Game, Side
from bluegray.cli.main import main
from bluegray.engine.analysis import Analysis, analyse, hint
from bluegray.engine.limits import Limits


def test_analysis_reports_blues_point_of_view() -> None:
    # Gray to move and winning at once: the score must be negative (good for Gray).
    game = Game("sackson", "9/9/9/9/9/5c3/9/9/4C3G g 0 40")
    analysis = analyse(game, Limits(depth=3))
    assert analysis.turn is Side.GRAY
    assert str(analysis.best_move) == "f4-e5"
    assert analysis.score < 0
    assert analysis.winning_side is Side.GRAY
    assert analysis.plies_to_end == 1
    assert analysis.blue_expected == 0.0
    assert analysis.describe() == "Gray wins in 1 plies with best play"


def test_updates_arrive_as_the_search_deepens() -> None:
    updates: list[Analysis] = []
    final = analyse(Game("cooper"), Limits(depth=4), on_update=updates.append)
    assert [update.depth for update in updates] == [1, 2, 3, 4]
    assert final.depth == 4
    assert final.best_move == final.pv[0]
    assert 0.0 < final.blue_expected < 1.0
    assert final.best_move in Game("cooper").legal_moves


def test_a_finished_game_is_reported_not_searched() -> None:
    game = Game("sackson", "9/9/9/9/4c4/9/9/9/G3C4 b 0 18")
    analysis = analyse(game)
    assert analysis.best_move is None
    assert analysis.outcome is not None
    assert analysis.blue_expected == 0.0
    assert analysis.describe().startswith("game over: Gray wins")
    with pytest.raises(ValueError, match="game is over"):
        hint(game)


def test_hint_is_a_legal_move() -> None:
    game = Game("super-light")
    game.push("e2-e3")
    assert hint(game, seconds=0.1) in game.legal_moves


def test_the_analyse_command(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["analyse", "--rules", "cooper", "--moves", "d2-d3", "--depth", "3"])
    out = capsys.readouterr().out
    assert code == 0
    rows = [line.split() for line in out.splitlines() if "(0." in line or "(1." in line]
    assert [row[0] for row in rows] == ["1", "2", "3"]
    assert "best move: " in out
    assert "evaluation: " in out


def test_the_analyse_command_refuses_bad_limits(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", "--time", "0"]) == 2
    assert "--time must be positive" in capsys.readouterr().err
