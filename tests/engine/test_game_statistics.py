"""The self-play statistics page counts every game once and names the engine that played them,
read from the records the self-play generator writes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bluegray.engine import ENGINE_VERSION
from bluegray.engine.match import MatchSettings, run_match
from bluegray.record import write_records
from bluegray.rules import PRESETS
from tests.paths import run_script


@pytest.fixture(scope="module")
def statistics_script() -> dict[str, Any]:
    return run_script("game_statistics.py")


@pytest.fixture(scope="module")
def selfplay_event() -> str:
    tuning = run_script("tune_evaluation.py")
    event: str = tuning["SELFPLAY_EVENT"].format(engine=ENGINE_VERSION)
    return event


def records_file(directory: Path, name: str, event: str | None) -> Path:
    settings = MatchSettings(
        player_a="greedy", player_b="random", rules=PRESETS["sackson"], games=4, seed=3
    )
    if event is not None:
        settings = replace(settings, event=event)
    summary = run_match(settings)
    path = directory / name
    path.write_text(write_records(summary.records()), encoding="utf-8")
    return path


@pytest.mark.slow
def test_every_game_is_counted_once_with_its_ending(
    statistics_script: dict[str, Any], selfplay_event: str, tmp_path: Path
) -> None:
    found = statistics_script["tally"]([records_file(tmp_path, "a.pgn", selfplay_event)])
    entry = found["sackson"]
    assert entry.games == 4
    assert entry.blue + entry.gray + entry.draws == 4
    assert sum(entry.endings.values()) == 4
    assert len(entry.plies) == 4 and min(entry.plies) > 0


def test_the_page_names_the_engine_that_played(
    statistics_script: dict[str, Any], selfplay_event: str, tmp_path: Path
) -> None:
    engines_played = statistics_script["engines_played"]
    tally = statistics_script["tally"]
    named = tally([records_file(tmp_path, "named.pgn", selfplay_event)])
    assert engines_played(named).startswith(f"engine {ENGINE_VERSION} ")
    unnamed = tally([records_file(tmp_path, "unnamed.pgn", None)])
    assert "not named" in engines_played(unnamed)


def test_a_game_played_twice_is_counted_once(
    statistics_script: dict[str, Any], selfplay_event: str, tmp_path: Path
) -> None:
    path = records_file(tmp_path, "a.pgn", selfplay_event)
    copy = tmp_path / "copy.pgn"
    copy.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    found = statistics_script["tally"]([path, copy])
    assert found["sackson"].games == 4  # the copy's four games are the same four games
