"""The embedded server's engine processes live and die with it: killed (SIGKILL, no chance to
clean up) or stopped (SIGTERM), it leaves no engine process behind, and a stop says nothing
about leaked resources."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import httpx
import pytest

from tests.web.cluster import Node, nodes, service_env, wait_gone


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_server_leaves_no_engine_process_behind(tmp_path: Path, signum: int) -> None:
    env = service_env(f"sqlite:///{tmp_path / 'games.sqlite3'}", None, ai_workers=2)
    with nodes() as started:
        server = Node.serve("solo", env, tmp_path)
        started.append(server)
        server.wait_ready()
        created = httpx.post(
            f"{server.url}/api/games",
            json={"opponent": {"type": "ai", "level": 1}, "color": "gray"},
            timeout=10,
        ).json()
        deadline = time.monotonic() + 60
        state = created["game"]
        while not state["moves"] and time.monotonic() < deadline:
            time.sleep(0.1)
            state = httpx.get(f"{server.url}/api/games/{state['id']}", timeout=10).json()
        assert state["moves"], "the AI did not move"
        engines = server.children()
        assert len(engines) >= 2, "the AI runs in engine processes of its own"
        server.kill(signum)
        assert wait_gone(engines) == [], "engine processes outlived the server"
        if signum == signal.SIGTERM:  # a stop, not a kill: it cleans up after itself
            output = server.output()
            assert "resource_tracker" not in output and "leaked" not in output, output
            assert "Application shutdown complete" in output, output
