"""A freshly started engine at full strength: with the compiled kernel in numba's cache,
``bluegray engine`` loads it before it answers ``readyok``, so its first move (and the first move
of a match's game, each in a fresh engine process) is searched by the compiled kernel, not by the
plain one while the compiled one loads. (A first compile is not waited for: see
``test_protocol_kernels``'s fresh install.) The process that compiles it after an install dies with the
engine, however the engine ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bluegray.engine.limits import Limits
from bluegray.engine.match import play_game
from bluegray.engine.players import RandomPlayer, player_from_spec
from bluegray.engine.search import SEARCH_ENVIRONMENT
from bluegray.protocol.player import EnginePlayer
from tests.protocol.engine_session import (
    COMPILING,
    ENGINE_SPEC,
    TIMEOUT,
    EngineSession,
    processes_running,
)

PRECOMPILE = "bluegray.engine.precompile"


@pytest.fixture(scope="session")
def warm_cache() -> None:
    """The compiled kernel in numba's cache, as after any earlier run (compiled once per test
    session if need be, by the entry point the engine itself starts)."""
    subprocess.run(
        [sys.executable, "-m", "bluegray.engine.precompile"], check=True, timeout=COMPILING
    )


@pytest.fixture
def auto_kernel(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The environment of an engine that chooses its kernel itself (the default)."""
    monkeypatch.delenv(SEARCH_ENVIRONMENT, raising=False)
    return dict(os.environ)


@pytest.mark.slow
@pytest.mark.usefixtures("warm_cache")
def test_a_fresh_engine_searches_its_first_move_with_the_compiled_kernel(
    auto_kernel: dict[str, str],
) -> None:
    session = EngineSession(auto_kernel)
    try:
        session.send("bgi")
        session.until("bgiok")
        assert session.ready() == []
        session.send("position rules sackson startpos")
        _, best = session.go("go depth 1")
        assert best != "(none)"
        assert session.kernels == ["kernel compiled"]
        assert session.quit() == 0
    finally:
        if session.process.poll() is None:
            session.process.kill()
            session.process.wait(TIMEOUT)


@pytest.mark.slow
@pytest.mark.usefixtures("warm_cache", "auto_kernel")
def test_a_matchs_engine_player_plays_its_first_move_with_the_compiled_kernel() -> None:
    # As a match plays it: a fresh engine process for the game, newgame and isready, one move.
    player = player_from_spec(ENGINE_SPEC, seed=1)
    assert isinstance(player, EnginePlayer)
    try:
        result = play_game(player, RandomPlayer(seed=1), "sackson", (), Limits(depth=1), 1)
        assert result.plies == 1
        assert player.last_result is not None
        assert "kernel compiled" in player.last_result.strings
    finally:
        player.close()


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")
def test_the_compiling_process_dies_with_a_killed_engine(
    tmp_path: Path, auto_kernel: dict[str, str]
) -> None:
    # SIGKILL: the engine runs no clean-up of its own, so only the kernel can end its compiler.
    cache = tmp_path / "numba"  # empty: the engine starts compiling at once
    session = EngineSession({**auto_kernel, "NUMBA_CACHE_DIR": str(cache)})
    try:
        deadline = time.monotonic() + 30
        while not processes_running(PRECOMPILE, cache):
            assert time.monotonic() < deadline, "no compile started"
            time.sleep(0.05)  # poll interval: until a compile starts, up to 30 s
        session.process.send_signal(signal.SIGKILL)
        session.process.wait(TIMEOUT)
        deadline = time.monotonic() + 5
        while processes_running(PRECOMPILE, cache) and time.monotonic() < deadline:
            time.sleep(0.05)  # poll interval: until the compilers are gone, up to 5 s
        assert processes_running(PRECOMPILE, cache) == []
    finally:
        if session.process.poll() is None:
            session.process.kill()
            session.process.wait(TIMEOUT)
        for pid in processes_running(PRECOMPILE, cache):  # what the test found left running
            os.kill(pid, signal.SIGKILL)
