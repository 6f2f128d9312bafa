"""Fixtures of the web app's tests: an app on a fresh SQLite file, in process (``TestClient``)
or on a real port (uvicorn in a thread), and WebSocket clients with timeouts."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from websockets.sync.client import ClientConnection, connect

from bluegray.web.app import create_app
from bluegray.web.settings import Settings

warnings.filterwarnings("ignore", message=".*httpx.*", category=DeprecationWarning)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient as TestClient

Json = dict[str, Any]


def settings_for(path: Path, **changes: Any) -> Settings:
    """Settings for a test: a SQLite file under ``path``, engine in threads, fast heartbeats."""
    base = Settings(
        database_url=f"sqlite:///{path / 'games.sqlite3'}",
        ai_processes=False,
        ai_workers=1,
        heartbeat_seconds=0.5,
    )
    return base.with_changes(**changes)


@pytest.fixture
def make_client(tmp_path: Path) -> Iterator[Callable[..., TestClient]]:
    """Make a started ``TestClient`` for settings changed by keywords (the app is shut down at
    the end of the test)."""
    stack = contextlib.ExitStack()

    def make(**changes: Any) -> TestClient:
        client = TestClient(create_app(settings_for(tmp_path, **changes)))
        return stack.enter_context(client)

    with stack:
        yield make


@pytest.fixture
def client(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class LiveServer:
    """The app on a real port, served by uvicorn in a thread."""

    def __init__(self, settings: Settings) -> None:
        self.port = free_port()
        self.app = create_app(settings)
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            ws_max_size=settings.max_ws_frame_bytes,
            lifespan="on",
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, game_id: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/games/{game_id}"

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *_: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=20)


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator[Callable[..., LiveServer]]:
    stack = contextlib.ExitStack()

    def make(**changes: Any) -> LiveServer:
        return stack.enter_context(LiveServer(settings_for(tmp_path, **changes)))

    with stack:
        yield make


class Socket:
    """A WebSocket client of one game, with a timeout on every receive."""

    def __init__(self, url: str, token: str | None = None, *, hello: bool = True) -> None:
        connection = connect(url, open_timeout=10, max_size=2**22)
        assert isinstance(connection, ClientConnection)
        self.connection = connection.__enter__()
        self.welcome: Json = {}
        self.state: Json = {}
        if hello:
            self.send({"type": "hello", "token": token} if token else {"type": "hello"})
            self.welcome = self.receive("welcome")
            self.state = self.receive("state")["game"]

    def send(self, message: Json) -> None:
        self.connection.send(json.dumps(message))

    def send_text(self, text: str) -> None:
        self.connection.send(text)

    def next(self, timeout: float = 10) -> Json:
        message: Json = json.loads(self.connection.recv(timeout=timeout))
        if message["type"] == "state":
            self.state = message["game"]
        return message

    def receive(self, kind: str, timeout: float = 10, **fields: Any) -> Json:
        """The next message of type ``kind`` (with these field values), skipping others."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.next(max(0.01, deadline - time.monotonic()))
            if message["type"] == kind and all(message.get(k) == v for k, v in fields.items()):
                return message

    def state_at(self, version: int, timeout: float = 10) -> Json:
        """The state once the game has reached ``version``."""
        deadline = time.monotonic() + timeout
        while self.state.get("version", 0) < version:
            self.next(max(0.01, deadline - time.monotonic()))
        return self.state

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> Socket:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


from tests.web.browser_fixtures import *  # noqa: E402, F403 (the Playwright fixtures)
