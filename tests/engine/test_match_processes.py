"""``bluegray match``'s processes: killed with SIGTERM (as a job scheduler or ``kill`` stops it),
it leaves none of its game-playing processes behind, nor their engine processes; and those
processes load the compiled kernel only when a player searches in them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import bluegray.protocol.player  # noqa: F401 - registers the engine: players
from bluegray.engine.games import GameTask, searches_here
from tests.process_tree import alive, descendants

pytestmark = pytest.mark.slow

ENGINE = f"engine:{sys.executable} -m bluegray engine"
MATCH = [sys.executable, "-m", "bluegray", "match", ENGINE, ENGINE, "--rules", "cooper"]


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process tree from /proc")
def test_a_match_killed_with_sigterm_leaves_no_process_behind() -> None:
    match = subprocess.Popen(
        [*MATCH, "--games", "4", "--concurrency", "2", "--time", "5"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "BLUEGRAY_SEARCH": "python"},  # the plain kernel: a quick start
    )
    tree: set[int] = set()
    try:
        # Both games under way: two game processes, each with its two engines.
        deadline = time.monotonic() + 60
        while len(tree := descendants(match.pid)) < 6:
            assert match.poll() is None, "the match ended before it was killed"
            assert time.monotonic() < deadline, f"the match started {len(tree)} processes"
            time.sleep(0.1)  # poll interval: until the games have started, up to 60 s
        match.send_signal(signal.SIGTERM)
        match.wait(30)
        deadline = time.monotonic() + 20
        while left := {pid for pid in tree if alive(pid)}:
            assert time.monotonic() < deadline, f"{len(left)} processes outlived the match"
            time.sleep(0.1)  # poll interval: until the match's processes have ended, up to 20 s
    finally:  # what is left (the defect this test looks for) goes, so as not to load the suite
        for pid in tree | (descendants(match.pid) if match.poll() is None else set()):
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        match.kill()
        match.wait(30)


def test_a_matchs_processes_load_the_compiled_kernel_only_for_players_that_search_there() -> None:
    def task(blue: str, gray: str) -> GameTask:
        return GameTask(1, True, blue, gray, 1, 2, "cooper", (), None, 100)

    assert not searches_here([task("random", "greedy"), task("greedy", "random")])
    assert not searches_here([task(ENGINE, ENGINE)])  # each engine searches in its own process
    assert searches_here([task("random", "greedy"), task("random", "level:3")])
    assert searches_here([task("mcts:iterations=10", "random")])
