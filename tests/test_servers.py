"""The tests' own servers (``tests/servers.py``): PostgreSQL and Redis answer, each test gets an
empty database, nginx spreads requests and WebSockets round robin, and no server outlives the
test process, whether it stops, is interrupted or is killed."""

from __future__ import annotations

import collections
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import psycopg
import pytest
import redis
from websockets.datastructures import Headers
from websockets.http11 import Request, Response
from websockets.sync.client import connect
from websockets.sync.server import Server, ServerConnection, serve

from tests.paths import REPOSITORY
from tests.ports import PORTS, worker_ports
from tests.process_tree import alive
from tests.servers import STOP_SECONDS, PostgresServer, RedisServer, ReverseProxy, free_port


def _gone(pids: list[int], timeout: float = 20) -> bool:
    deadline = time.monotonic() + timeout
    while any(alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)  # poll interval: until the processes are gone, up to the timeout
    return True


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


# -- PostgreSQL and Redis -----------------------------------------------------------------------


def test_each_test_gets_an_empty_postgresql_database(
    postgres_server: PostgresServer, postgres_url: str
) -> None:
    dsn = postgres_url.replace("+psycopg", "")
    with psycopg.connect(dsn) as connection:
        tables = connection.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchone()
        assert tables == (0,)
        connection.execute("CREATE TABLE scratch (n integer)")
    other = postgres_server.new_database()
    try:
        with psycopg.connect(postgres_server.url(other).replace("+psycopg", "")) as connection:
            assert connection.execute("SELECT to_regclass('scratch')").fetchone() == (None,)
    finally:
        postgres_server.drop_database(other)
    with pytest.raises(psycopg.OperationalError, match="password"):
        psycopg.connect(dsn.replace(postgres_server.password, "wrong"), connect_timeout=5)


def test_each_test_gets_an_empty_redis(redis_server: RedisServer, redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    assert client.dbsize() == 0
    client.set("left", "behind")
    redis_server.flush()
    assert client.dbsize() == 0
    with pytest.raises(redis.AuthenticationError):
        redis.Redis.from_url(redis_url.replace(redis_server.password, "wrong")).ping()


def test_a_stopped_server_is_gone_with_its_directory() -> None:
    with PostgresServer() as postgres, RedisServer() as cache:
        servers = [postgres, cache]
        assert all(server.process is not None for server in servers)
        pids = [server.process.pid for server in servers if server.process is not None]
        ports = [server.port for server in servers]
        assert all(_listening(port) for port in ports)
    assert _gone(pids, timeout=0)
    assert not any(_listening(port) for port in ports)
    assert not any(server.directory.exists() for server in servers)


def test_a_server_restarts_on_its_port_and_can_be_frozen() -> None:
    """The faults the chaos tests make: Redis restarted comes back empty on the same port, a
    frozen Redis answers nothing until thawed, PostgreSQL restarted keeps its databases."""
    with PostgresServer() as postgres, RedisServer() as cache:
        client = redis.Redis.from_url(cache.url, socket_timeout=0.5)
        client.set("kept", "no")
        port = cache.port
        cache.restart(down_seconds=0.2)
        assert cache.port == port
        assert client.get("kept") is None  # no persistence: it came back empty
        cache.freeze()
        try:
            with pytest.raises(redis.TimeoutError):
                client.ping()
        finally:
            cache.thaw()
        assert client.ping()
        name = postgres.new_database()
        postgres.restart()
        with psycopg.connect(postgres.url(name).replace("+psycopg", "")) as connection:
            assert connection.execute("SELECT 1").fetchone() == (1,)


# The probe takes Ctrl+C as a terminal delivers it, even when this suite was started with
# SIGINT ignored (a shell's background job, nohup), which the probe would inherit.
PROBE = """\
import signal
import time
from tests.conftest import postgres_server, redis_server

signal.signal(signal.SIGINT, signal.default_int_handler)

def test_waits(postgres_server, redis_server):
    print("servers", postgres_server.process.pid, redis_server.process.pid, flush=True)
    print("directories", postgres_server.directory, redis_server.directory, flush=True)
    time.sleep(120)  # holds the servers until the signal ends the run
"""


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_no_server_outlives_an_interrupted_or_killed_test_run(
    tmp_path: Path, stop: signal.Signals
) -> None:
    """SIGINT (Ctrl+C) lets pytest stop the servers; SIGTERM and SIGKILL end pytest at once,
    and the kernel stops the servers (their parent-death signal)."""
    probe = tmp_path / "test_probe.py"
    probe.write_text(PROBE)
    run = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-s", "-q", "-p", "no:cacheprovider", str(probe)],
        cwd=REPOSITORY,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(REPOSITORY), *sys.path])},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert run.stdout is not None
    pids: list[int] = []
    directories: list[Path] = []
    try:
        deadline = time.monotonic() + 60
        while not directories and time.monotonic() < deadline:
            line = run.stdout.readline()
            assert line, "the probe ended before its servers started"
            if "servers" in line:
                pids = [int(word) for word in line.split()[-2:]]
            if "directories" in line:
                directories = [Path(word) for word in line.split()[-2:]]
        assert pids and all(alive(pid) for pid in pids)
        run.send_signal(stop)
        # Stopping each server may take a polite try and a kill, STOP_SECONDS each, on a
        # loaded machine: wait for the probe's whole teardown (a bound for hangs, not a speed).
        run.wait(2 * len(pids) * STOP_SECONDS + 10)
        assert _gone(pids), f"a server outlived pytest ({stop.name})"
        if stop is signal.SIGINT:
            assert not any(directory.exists() for directory in directories)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        run.stdout.close()
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        for directory in directories:  # what a killed pytest could not remove
            shutil.rmtree(directory, ignore_errors=True)


# -- the reverse proxy --------------------------------------------------------------------------


class NamedServer:
    """A tiny upstream: answers any HTTP request with its name, and echoes WebSocket messages
    prefixed with its name."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.port = free_port()
        self.server: Server = serve(
            self._echo, "127.0.0.1", self.port, process_request=self._answer
        )
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def _answer(self, connection: ServerConnection, request: Request) -> Response | None:
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return None
        headers = Headers([("Content-Type", "text/plain"), ("Connection", "close")])
        return Response(200, "OK", headers, self.name.encode())

    def _echo(self, connection: ServerConnection) -> None:
        for message in connection:
            connection.send(f"{self.name}:{message!s}")

    def __enter__(self) -> NamedServer:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.server.shutdown()
        self.thread.join(10)


@pytest.fixture
def upstreams() -> Iterator[list[NamedServer]]:
    with NamedServer("a") as first, NamedServer("b") as second:
        yield [first, second]


def test_the_proxy_spreads_requests_and_websockets_round_robin(
    upstreams: list[NamedServer], make_proxy: Callable[..., ReverseProxy]
) -> None:
    proxy = make_proxy([server.port for server in upstreams])
    with httpx.Client(base_url=proxy.url, timeout=10) as client:  # one kept-alive connection
        answers = [client.get(f"/page/{n}").text for n in range(8)]
    assert collections.Counter(answers) == {"a": 4, "b": 4}
    assert all(answers[n] != answers[n + 1] for n in range(7))  # no stickiness
    landed = []
    for n in range(4):
        with connect(f"{proxy.ws_url}/ws/{n}", open_timeout=10) as websocket:
            websocket.send(f"hello {n}")
            name, _, text = str(websocket.recv(timeout=10)).partition(":")
            assert text == f"hello {n}"
            websocket.send("again")
            assert websocket.recv(timeout=10) == f"{name}:again"  # one socket, one server
            landed.append(name)
    assert collections.Counter(landed) == {"a": 2, "b": 2}


def test_each_worker_takes_ports_of_its_own_below_the_ephemeral_range() -> None:
    slices = [
        set(worker_ports({"PYTEST_XDIST_WORKER": f"gw{index}", "PYTEST_XDIST_WORKER_COUNT": "4"}))
        for index in range(4)
    ]
    assert all(len(ports) > 1000 for ports in slices)
    assert sum(len(ports) for ports in slices) == len(set().union(*slices))
    assert max(max(ports) for ports in slices) < 32768
    assert set(worker_ports({})) == set(PORTS)
    first, second = free_port(), free_port()
    assert first != second
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", first))  # free when it was given
