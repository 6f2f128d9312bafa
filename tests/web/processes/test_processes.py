"""The embedded server's engine processes live and die with it: killed (SIGKILL, no chance to
clean up) or stopped (SIGTERM), it leaves no engine process behind, and a stop says nothing
about leaked resources. Stopped while an engine process compiles the compiled kernel (an empty
numba cache), neither ``bluegray serve`` nor ``bluegray worker`` leaves the compiling process
behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.process_tree import alive
from tests.web.cluster import Node, nodes, service_env, wait_gone

PRECOMPILE = b"bluegray.engine.precompile"
"""The module an engine process runs in a process of its own to compile the compiled kernel."""


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
            time.sleep(0.1)  # poll interval: until the AI has moved, up to 60 s
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
from bluegray.web.platform.settings import Settings

settings = Settings(
    database_url=sys.argv[1], redis_url=sys.argv[2], allowed_hosts=["testserver"],
    heartbeat_seconds=0.5, deadline_poll_seconds=0.1, explorer_books_at_start=False,
)
with TestClient(create_app(settings)) as client:
    created = client.post("/api/games", json={"opponent": {"type": "ai", "level": 3},
                                               "color": "gray"}).json()
    queued = redis.Redis.from_url(sys.argv[2])
    deadline = time.monotonic() + 20
    while not queued.xlen("bg:jobs:quick") and time.monotonic() < deadline:
        time.sleep(0.05)  # poll interval: until the job is queued, up to 20 s
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
        "bluegray.engine.time_manager",  # the AI's clock: plain arithmetic, no search
    ]


def processes_of(cache: Path) -> list[int]:
    """The running processes whose numba cache is ``cache`` (read from /proc): every process of a
    service started with it, and their children, wherever they were reparented."""
    mark = f"NUMBA_CACHE_DIR={cache}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environment = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue  # gone meanwhile, or another user's
        if mark in environment and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def compiling(cache: Path) -> list[int]:
    """The processes compiling the compiled kernel into ``cache``."""
    found = []
    for pid in processes_of(cache):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if PRECOMPILE in command:
            found.append(pid)
    return found


def wait_until_compiling(node: Node, cache: Path, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not compiling(cache):
        if node.process.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"no compile started:\n{node.output()}")
        time.sleep(0.1)  # poll interval: until a compile starts, up to ``seconds``


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")
@pytest.mark.parametrize("command", ["serve", "worker"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stopped_service_leaves_no_compiling_process_behind(
    tmp_path: Path, command: str, signum: int, request: pytest.FixtureRequest
) -> None:
    """The signal goes to the service's process alone (Ctrl-C in a terminal sends SIGINT to the
    whole process group, which is easier): the compiling process must follow its engine
    process, and the engine process the service."""
    cache = tmp_path / "numba"  # empty: the engine processes' compiled kernel is compiled
    settings = {"ai_workers": 1} if command == "serve" else {}
    if command == "serve":
        env = service_env(f"sqlite:///{tmp_path / 'games.sqlite3'}", None, **settings)
    else:
        redis_url = request.getfixturevalue("redis_url")
        env = service_env(request.getfixturevalue("postgres_url"), redis_url)
    env |= {"NUMBA_CACHE_DIR": str(cache), "BLUEGRAY_SEARCH": "auto"}
    with nodes() as started:
        if command == "serve":
            node = Node.serve("solo", env, tmp_path)
            started.append(node)
            node.wait_ready()
            # The pool starts an engine process for the first AI move; it starts the compile.
            created = httpx.post(
                f"{node.url}/api/games",
                json={"opponent": {"type": "ai", "level": 1}, "color": "gray"},
                timeout=10,
            )
            assert created.status_code in (200, 201), created.text
        else:
            upgrade = subprocess.run(
                [sys.executable, "-m", "bluegray", "db", "upgrade"],
                env={**os.environ, **env},
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert upgrade.returncode == 0, upgrade.stderr
            node = Node.worker("W1", env, tmp_path, processes=1)
            started.append(node)
        wait_until_compiling(node, cache)
        node.process.send_signal(signum)
        deadline = time.monotonic() + 5
        while (left := processes_of(cache)) and time.monotonic() < deadline:
            time.sleep(0.1)  # poll interval: until the compilers are gone, up to 5 s
        assert left == [], f"still running 5 s after the signal:\n{node.output()}"
