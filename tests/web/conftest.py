"""Fixtures of the web app's tests: an app on a fresh database, in process (``TestClient``) or
on a real port (uvicorn in a thread), and WebSocket clients with timeouts.

Every test that takes ``database_url`` (directly or through ``make_client``, ``client``,
``make_server`` or the browser's ``live_server``) runs twice: on a SQLite file and on a
database of the session's own PostgreSQL server (``tests/servers.py``)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import httpx
import pytest
import uvicorn
from argon2 import PasswordHasher, Type
from pydantic import ValidationError
from websockets.sync.client import ClientConnection, connect

from bluegray.engine.search import SEARCH_ENVIRONMENT
from bluegray.web.accounts import passwords
from bluegray.web.app import create_app
from bluegray.web.platform.clocks import set_time_offset
from bluegray.web.platform.rates import Rate
from bluegray.web.platform.settings import InvalidSettingError, Settings, describe
from tests.servers import free_port as free_port
from tests.web.schema_copies import SchemaTemplates

warnings.filterwarnings("ignore", message=".*httpx.*", category=DeprecationWarning)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient as TestClient

Json = dict[str, Any]


DATABASES: Final = ("sqlite", "postgresql")
"""The databases every web test runs on."""


@pytest.fixture(params=DATABASES)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The SQLAlchemy URL of a new, empty database: a SQLite file, or (the test's second run) a
    database on the session's PostgreSQL server, dropped after the test."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'games.sqlite3'}"
    url: str = request.getfixturevalue("postgres_url")
    return url


def settings_for(database_url: str, **changes: Any) -> Settings:
    """Settings for a test: the database at ``database_url``, the engine in threads, fast
    heartbeats. Made in one go (``Settings(...).with_changes(...)`` reads the environment twice:
    some 11 ms a test's app)."""
    values: dict[str, Any] = {
        "database_url": database_url,
        "ai_processes": False,
        "ai_workers": 1,
        "heartbeat_seconds": 0.5,
        "allowed_hosts": ["testserver", "127.0.0.1", "localhost"],
        "explorer_books_at_start": False,  # CPU seconds each start: the explorer's tests load them
        **changes,
    }
    try:
        return Settings(**values)
    except ValidationError as error:
        raise InvalidSettingError(describe(error)) from None


LIGHT_HASHER: Final = PasswordHasher(
    time_cost=1,
    memory_cost=1024,
    parallelism=1,
    hash_len=passwords.HASH_BYTES,
    salt_len=passwords.SALT_BYTES,
    type=Type.ID,
)
"""Argon2id at its lightest: about a millisecond a hash, where the pinned parameters take some
0.17 s of a core (the suite hashes and checks some hundreds of passwords)."""


@pytest.fixture(autouse=True)
def light_password_hashing(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """The apps a web test runs in its own process hash passwords with the same Argon2id at the
    lightest parameters (as Django's documentation advises for tests), unless the test is marked
    ``pinned_hashing`` (the tests of the pinned parameters themselves). Processes the tests start
    (``tests/web/cluster.py``) hash as shipped."""
    if request.node.get_closest_marker("pinned_hashing") is None:
        monkeypatch.setattr(passwords, "HASHER", LIGHT_HASHER)
    passwords.dummy_hash.cache_clear()  # the unknown names' hash, made with the hasher in use
    yield
    passwords.dummy_hash.cache_clear()


@pytest.fixture(autouse=True)
def plain_kernel_ai(monkeypatch: pytest.MonkeyPatch) -> None:
    """The AI's engine processes of the apps a web test runs, and of the services it starts
    (which inherit the environment), search with the plain kernel: the web's tests are not
    about the kernel (the two are proven equal, tests/engine/test_kernels.py), and loading the
    compiled one costs each engine process a CPU second. A test may give a service
    ``BLUEGRAY_SEARCH=auto`` (``tests/web/processes/test_processes.py``)."""
    monkeypatch.setenv(SEARCH_ENVIRONMENT, "python")


@pytest.fixture(scope="session")
def schema_templates(tmp_path_factory: pytest.TempPathFactory) -> SchemaTemplates:
    """The worker's migrated databases, copied into a test's new database (``newest_schema``)."""
    return SchemaTemplates(tmp_path_factory.mktemp("schema-templates"))


@pytest.fixture
def newest_schema(
    request: pytest.FixtureRequest, database_url: str, schema_templates: SchemaTemplates
) -> Callable[[], None]:
    """Call before an app starts on ``database_url``: the first call makes the database a copy
    of the worker's migrated one if nobody has touched it yet (``tests/web/schema_copies.py``)."""
    done = False

    def prepare() -> None:
        nonlocal done
        if not done:
            done = True
            postgres = (
                request.getfixturevalue("postgres_server")
                if database_url.startswith("postgresql")
                else None
            )
            schema_templates.copy_into(database_url, postgres)

    return prepare


@pytest.fixture
def make_client(
    database_url: str, newest_schema: Callable[[], None]
) -> Iterator[Callable[..., TestClient]]:
    """Make a started ``TestClient`` for settings changed by keywords (the app is shut down at
    the end of the test). Every client of a test uses the same database."""
    stack = contextlib.ExitStack()

    def make(**changes: Any) -> TestClient:
        newest_schema()
        client = TestClient(create_app(settings_for(database_url, **changes)))
        return stack.enter_context(client)

    with stack:
        yield make


@pytest.fixture
def client(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client()


@pytest.fixture
def time_offset() -> Iterator[Callable[[float], None]]:
    """Move the in-process server's time forward (``time_offset(16)``: 16 s ahead of now), as
    if that much time had passed; back to the real time after the test."""
    yield set_time_offset
    set_time_offset(0)


def clear_of_a_window_edge(*limits: tuple[float, int], margin: float = 30.0) -> None:
    """Wait, if need be, until each rate limit (``(rate, burst)``) has at least ``margin``
    seconds left in its counting window, so that a test's requests are all counted in one window.

    The limits library counts a sliding window as two fixed ones, aligned to multiples of the
    window's length in Unix time, and weighs the previous one's count by the share of it still in
    the sliding window, rounded down: as soon as a new window starts, a burst counted just before
    weighs a little less than itself, and one request more is allowed (a test that meant "the
    fourth is refused" failed so, about once in a few hundred runs)."""
    for rate, burst in limits:
        window = Rate(rate, burst).item("test").get_expiry()
        left = window - time.time() % window
        if left < margin:
            time.sleep(left + 0.1)  # until the next window starts: at most ``margin`` s


def ids_page_by_page(get: Callable[[str], Any], path: str, limit: int) -> list[str]:
    """The ids of a list of games read ``limit`` at a time, following each page's
    ``next_before_ms`` and ``next_before_id`` to the end."""
    seen: list[str] = []
    query = f"{path}?limit={limit}"
    while True:
        page = get(query).json()
        seen += [game["id"] for game in page["games"]]
        if page["next_before_ms"] is None:
            return seen
        query = (
            f"{path}?limit={limit}&before_ms={page['next_before_ms']}"
            f"&before_id={page['next_before_id']}"
        )


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
            # As ``bluegray serve`` keeps idle connections (75 s), not uvicorn's 5 s: with 5 s, a
            # browser test's request on a connection idle for 5 s met the server closing it
            # (``read ECONNRESET`` once in a CI run).
            timeout_keep_alive=settings.keep_alive_seconds,
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
            time.sleep(0.02)  # poll interval: until uvicorn has started, up to 20 s
        return self

    def __exit__(self, *_: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=20)


def idle_connection_seconds(port: int) -> float:
    """How long the server on ``port`` keeps a connection open, idle, after answering a request
    on it: the seconds from its answer until it closes the connection (the read ends)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        assert connection.recv(65536).startswith(b"HTTP/1.1 200")
        answered = time.monotonic()
        while connection.recv(65536):
            pass
        return time.monotonic() - answered


@pytest.fixture
def make_server(
    database_url: str, newest_schema: Callable[[], None]
) -> Iterator[Callable[..., LiveServer]]:
    """Start the app on a real port for settings changed by keywords (stopped at the end)."""
    stack = contextlib.ExitStack()

    def make(**changes: Any) -> LiveServer:
        newest_schema()
        return stack.enter_context(LiveServer(settings_for(database_url, **changes)))

    with stack:
        yield make


class ServeProcess:
    """``python -m bluegray serve`` on a port, in its own process group."""

    def __init__(self, port: int, database_url: str, **environment: str) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        env = {
            **os.environ,
            "BLUEGRAY_AI_WORKERS": "1",
            "BLUEGRAY_HEARTBEAT_SECONDS": "0.5",
            "BLUEGRAY_EXPLORER_BOOKS_AT_START": "false",  # CPU seconds: test_start's tests load them
        }
        env.update(environment)
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bluegray",
                "serve",
                "--port",
                str(port),
                "--database-url",
                database_url,
                "--no-access-log",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
            text=True,
        )

    def wait_ready(self) -> str:
        """The line the server printed with its address, once it answers."""
        assert self.process.stdout is not None
        first = self.process.stdout.readline()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert self.process.poll() is None, first + self.process.stdout.read()
            try:
                if httpx.get(f"{self.url}/api/health", timeout=1).status_code == 200:
                    return first
            except httpx.TransportError:
                time.sleep(0.1)  # poll interval: until the health check answers, up to 30 s
        raise AssertionError("the server did not start")

    def kill(self) -> None:
        """SIGKILL the server and whatever it started."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def get(self, path: str) -> Any:
        return httpx.get(f"{self.url}{path}", timeout=10).json()

    def post(self, path: str, body: Json, token: str | None = None) -> httpx.Response:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        return httpx.post(f"{self.url}{path}", json=body, headers=headers, timeout=10)


@pytest.fixture
def processes() -> Iterator[list[ServeProcess]]:
    started: list[ServeProcess] = []
    yield started
    for process in started:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.process.pid, signal.SIGKILL)
        process.process.wait(timeout=10)


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
