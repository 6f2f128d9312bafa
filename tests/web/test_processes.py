"""The embedded server's engine processes live and die with it: killed (SIGKILL, no chance to
clean up) or stopped (SIGTERM), it leaves no engine process behind, and a stop says nothing
about leaked resources."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
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


SCALED_WEB_PROCESS = """
import json, sys, time, warnings
warnings.simplefilter("ignore")
from fastapi.testclient import TestClient
import redis
from bluegray.web.app import create_app
from bluegray.web.settings import Settings

settings = Settings(
    database_url=sys.argv[1], redis_url=sys.argv[2], allowed_hosts=["testserver"],
    heartbeat_seconds=0.5, deadline_poll_seconds=0.1,
)
with TestClient(create_app(settings)) as client:
    created = client.post("/api/games", json={"opponent": {"type": "ai", "level": 3},
                                               "color": "gray"}).json()
    queued = redis.Redis.from_url(sys.argv[2])
    deadline = time.monotonic() + 20
    while not queued.xlen("bg:jobs:quick") and time.monotonic() < deadline:
        time.sleep(0.05)
    analysis = client.post("/api/analysis", json={"rules": "sackson", "seconds": 0.1})
    print(json.dumps({
        "queued": queued.xlen("bg:jobs:quick"),
        "analysis": analysis.status_code,
        "modules": sorted(m for m in sys.modules
                          if m.startswith(("bluegray.engine", "numba", "bluegray.web.engine"))),
    }))
"""


def test_a_scaled_web_process_never_loads_the_search(postgres_url: str, redis_url: str) -> None:
    """Scaled out, the AI's jobs go to workers: a web process queues them and never imports
    the search, its kernels or numba (only the levels' names and limits)."""
    answer = subprocess.run(
        [sys.executable, "-c", SCALED_WEB_PROCESS, postgres_url, redis_url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert answer.returncode == 0, answer.stderr
    report = json.loads(answer.stdout.strip().splitlines()[-1])
    assert report["queued"] == 1  # the AI's first move waits on the queue for a worker
    assert report["analysis"] == 503  # and no worker runs to analyse
    assert report["modules"] == [
        "bluegray.engine",
        "bluegray.engine.levels",
        "bluegray.engine.limits",
    ]
