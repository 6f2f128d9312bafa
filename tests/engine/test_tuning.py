"""The tuning scripts' game pairs measure what they claim: against a fixed-budget opponent, two
weight sets differ in score only where they play differently."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bluegray.engine.evaluation import weights_for
from bluegray.rules import PRESETS
from tests.paths import SCRIPTS, run_script

OPENING = ("d2-d3", "f8-f7", "c2-c3", "d8-d7")
OPPONENT = "mcts:iterations=40"


@pytest.fixture(scope="module")
def script() -> dict[str, Any]:
    return run_script("tune_by_play.py")


def test_equal_weights_against_a_fixed_budget_opponent_give_no_signal(
    script: dict[str, Any],
) -> None:
    weights = weights_for(PRESETS["cooper"])
    task = ("cooper", weights, dict(weights), OPENING, 300, OPPONENT, 7, 60)
    signal, score = script["_play_against"](task)
    # The same engine against the same seeded opponent plays the same four games.
    assert signal == 1.0
    assert 0.0 <= score <= 1.0


def test_a_weaker_weight_set_scores_less_against_the_opponent(script: dict[str, Any]) -> None:
    shipped = weights_for(PRESETS["cooper"])
    blind = dict.fromkeys(shipped, 0.0)
    blind["guards"] = 70.0  # knows material only: never races its captain
    task = ("cooper", shipped, blind, OPENING, 300, OPPONENT, 7, 80)
    signal, _ = script["_play_against"](task)
    assert signal > 1.0


def test_records_the_fit_cannot_read_are_named_in_one_line(tmp_path: Path) -> None:
    unnamed = tmp_path / "games.pgn"
    unnamed.write_text("", encoding="utf-8")
    for path, words in ((tmp_path / "cooper.pgn", "no such file"),
                        (unnamed, "the file's name does not say its rule set")):  # fmt: skip
        done = subprocess.run(
            [sys.executable, str(SCRIPTS / "tune_evaluation.py"), "fit", str(path)],
            capture_output=True,
            text=True,
        )
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 1
        assert len(lines) == 1 and lines[0].startswith(f"{path}: {words}"), done.stderr
