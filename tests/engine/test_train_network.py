"""Engine 4's training pipeline (``scripts/train_network.py``): a tiny run from self-play to a
network file that ``bluegray.engine.network`` loads and evaluates with, and a run killed in the
middle resumes without playing its finished shards again."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bluegray.engine.evaluation import family
from bluegray.engine.network_file import read_network
from bluegray.game import Game
from bluegray.rules import PRESETS
from tests.paths import SCRIPTS, run_script

TINY = ["--rules", "cooper", "--nodes", "60", "--kernel", "python", "--batch", "64"]


@pytest.fixture(scope="module")
def script() -> dict[str, Any]:
    return run_script("train_network.py")


@pytest.mark.slow
def test_a_smoke_run_trains_quantises_and_loads(script: dict[str, Any], tmp_path: Path) -> None:
    started = time.monotonic()
    run = tmp_path / "run"
    script["main"](
        ["run", "--run", str(run), "--shards", "2", "--positions", "100", "--epochs", "1", *TINY]
    )
    network, family_name = read_network(run / "network.json")
    assert family_name == family(PRESETS["cooper"])
    stored = json.loads((run / "network.json").read_text(encoding="utf-8"))["training"]
    assert stored["epochs"] == 1 and stored["shards"] == 2
    assert stored["losses"][0]["network_result"] > 0
    game = Game("cooper")
    values = set()
    for move in ("d2-d3", "f8-f7", "c2-c3"):
        game.push(move)
        values.add(network.evaluate_board(game.board()))
    assert all(isinstance(value, int) for value in values)
    # Training goes on from the finished epoch, keeping the first one's record.
    script["main"](
        ["train", "--run", str(run), "--shards", "2", "--positions", "100", "--epochs", "2", *TINY]
    )
    assert script["load_state"](run / "checkpoint.npz").epoch == 2
    assert time.monotonic() - started < 60


def test_a_run_refuses_to_continue_with_other_settings(
    script: dict[str, Any], tmp_path: Path
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(
        json.dumps({"rules": "cooper", "positions": 100, "nodes": 99, "seed": 1}), encoding="utf-8"
    )
    with pytest.raises(SystemExit, match="nodes was 99, now 60"):
        script["main"](
            ["generate", "--run", str(run), "--shards", "1", "--positions", "100", *TINY]
        )
    assert not (run / "shards").exists()


def test_a_run_already_started_needs_only_its_folder(
    script: dict[str, Any], tmp_path: Path
) -> None:
    # ``train`` and ``write`` of a cooper run took the sackson default and refused the run
    # ("rules was 'cooper', now 'sackson'"): the settings left out are the run's.
    run = tmp_path / "run"
    run.mkdir()
    stored = {"rules": "cooper", "positions": 100, "nodes": 99, "seed": 7}
    (run / "run.json").write_text(json.dumps(stored), encoding="utf-8")
    args = script["parser"]().parse_args(["write", "--run", str(run)])
    assert script["settings_of"](args) == stored
    args = script["parser"]().parse_args(["write", "--run", str(run), "--rules", "sackson"])
    with pytest.raises(SystemExit, match="rules was 'cooper', now 'sackson'"):
        script["settings_of"](args)
    fresh = tmp_path / "fresh"
    args = script["parser"]().parse_args(["generate", "--run", str(fresh), "--nodes", "60"])
    assert script["settings_of"](args) == {
        "rules": "sackson",
        "positions": 5000,
        "nodes": 60,
        "seed": 1,
    }
    assert json.loads((fresh / "run.json").read_text(encoding="utf-8"))["nodes"] == 60


def shards(run: Path) -> dict[str, tuple[int, int]]:
    return {
        path.name: (path.stat().st_ino, path.stat().st_mtime_ns)
        for path in (run / "shards").glob("shard-*.jsonl.gz")
    }


@pytest.mark.slow
def test_a_killed_run_resumes_without_playing_finished_shards_again(tmp_path: Path) -> None:
    run = tmp_path / "run"
    command = [
        sys.executable,
        str(SCRIPTS / "train_network.py"),
        "generate",
        "--run",
        str(run),
        "--positions",
        "150",
        *TINY,
    ]
    process = subprocess.Popen([*command, "--shards", "8"], stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    try:
        while not (run / "shards" / "shard-00000.jsonl.gz").exists():
            assert process.poll() is None, "the run ended before its first shard"
            assert time.monotonic() < deadline, "no shard within a minute"
            time.sleep(0.02)  # poll interval: until the first shard is written, up to 60 s
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait(timeout=30)
    finished = shards(run)
    assert 1 <= len(finished) < 8, "the kill came in the middle of the run"
    log = subprocess.run(
        [*command, "--shards", str(len(finished) + 1)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    resumed = shards(run)
    assert len(resumed) == len(finished) + 1
    # Written to a log rather than a terminal, the run says what it resumed and each shard.
    total = len(finished) + 1
    assert f"{len(finished)} shards finished, 1 to play" in log
    assert f" written: {total} of {total}" in log
    # The finished shards are the very files written before the kill.
    assert {name: resumed[name] for name in finished} == finished
