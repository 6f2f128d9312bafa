"""Slow clients against ``bluegray serve`` itself, no proxy in front (issue 39): half-sent
requests are dropped after the header timeout, a body that trickles is dropped, and the server
goes on answering everyone else meanwhile."""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.web.conftest import ServeProcess, free_port

HALF_SENT = 500


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[ServeProcess]:
    database = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    server = ServeProcess(free_port(), database, BLUEGRAY_RATE_LIMITS="false")
    try:
        server.wait_ready()
        yield server
    finally:
        server.kill()


def closed_by_server(client: socket.socket) -> bool:
    """Whether the server has closed the connection (without blocking)."""
    try:
        return client.recv(1024) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True


@pytest.mark.slow
def test_half_sent_requests_are_dropped_while_a_normal_client_is_served(
    serve: ServeProcess,
) -> None:
    with contextlib.ExitStack() as stack:
        clients = []
        for index in range(HALF_SENT):
            client = stack.enter_context(socket.create_connection(("127.0.0.1", serve.port)))
            # Headers begun and never finished (every other one not even begun).
            if index % 2:
                client.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            client.setblocking(False)
            clients.append(client)
        trickle = stack.enter_context(socket.create_connection(("127.0.0.1", serve.port)))
        trickle.sendall(
            b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"
        )
        trickle.setblocking(False)
        started = time.monotonic()
        answer = httpx.get(f"{serve.url}/api/health", timeout=5)
        assert answer.status_code == 200  # a normal client is served meanwhile
        open_ones = list(clients)
        while open_ones and time.monotonic() < started + 15:
            open_ones = [client for client in open_ones if not closed_by_server(client)]
            time.sleep(0.2)  # poll interval: until the server closes them, up to 15 s
        assert not open_ones, f"{len(open_ones)} of {HALF_SENT} half-sent requests still open"
        assert httpx.get(f"{serve.url}/api/health", timeout=5).status_code == 200
        # A body of one byte in 100,000 is dropped once it is late for the lowest rate.
        deadline = time.monotonic() + 25
        while not closed_by_server(trickle):
            assert time.monotonic() < deadline, "the trickling body is still held"
            time.sleep(0.2)  # poll interval: until the trickle is dropped, up to 25 s


@pytest.mark.slow
def test_a_process_serves_at_most_its_connections_at_once(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    server = ServeProcess(free_port(), database, BLUEGRAY_MAX_CONNECTIONS="5")
    try:
        server.wait_ready()
        with contextlib.ExitStack() as stack:
            for _ in range(5):
                stack.enter_context(socket.create_connection(("127.0.0.1", server.port)))
            answer = httpx.get(f"{server.url}/api/health", timeout=5)
            assert answer.status_code == 503
        deadline = time.monotonic() + 5
        while httpx.get(f"{server.url}/api/health", timeout=5).status_code != 200:
            assert time.monotonic() < deadline, "the connections closed gave no place back"
            time.sleep(0.1)  # poll interval: until a place is given back, up to 5 s
    finally:
        server.kill()
