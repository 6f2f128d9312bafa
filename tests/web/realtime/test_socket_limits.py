"""The limits a client meets on WebSockets (issue 39): one cap on the sockets a client holds, all
kinds together (games, lobby, account, tournaments), the HTTP rate limit on every handshake, and
a cap on one process's sockets, which closes one more with 1013."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from tests.web.cluster import Node, nodes, service_env
from tests.web.conftest import LiveServer, clear_of_a_window_edge


def lobby(server: LiveServer, address: str, sockets: ExitStack) -> ClientConnection:
    """A lobby socket from ``address`` (as a trusted proxy names it), once welcomed, held open
    until ``sockets`` closes (websockets wants a connection used as a context manager)."""
    socket = sockets.enter_context(
        connect(
            f"ws://127.0.0.1:{server.port}/ws/lobby",
            additional_headers={"X-Forwarded-For": address},
            open_timeout=10,
        )
    )
    assert json.loads(socket.recv(timeout=10))["type"] == "welcome"
    return socket


class Refusal:
    """The HTTP answer to a refused handshake."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status_code, self.headers, self.body = status, headers, body

    def json(self) -> Any:
        return json.loads(self.body)


def refused(server: LiveServer, address: str, path: str = "/ws/lobby") -> Refusal:
    """The answer to a handshake that must be refused."""
    with pytest.raises(InvalidStatus) as refusal:
        connect(
            f"ws://127.0.0.1:{server.port}{path}",
            additional_headers={"X-Forwarded-For": address},
            open_timeout=10,
        )
    response = refusal.value.response
    headers = {name.lower(): value for name, value in response.headers.raw_items()}
    return Refusal(response.status_code, headers, bytes(response.body or b""))


@pytest.fixture
def sockets() -> Iterator[ExitStack]:
    with ExitStack() as stack:
        yield stack


def test_the_cap_plus_one_socket_of_a_client_is_refused_all_kinds_together(
    make_server: Callable[..., LiveServer], sockets: ExitStack
) -> None:
    server = make_server(trusted_proxies="*", ws_connections_per_client=3)
    created = httpx.post(
        f"{server.url}/api/games",
        json={"opponent": {"type": "hotseat"}},
        headers={"X-Forwarded-For": "10.0.0.1"},
    )
    assert created.status_code == 201, created.text
    game = sockets.enter_context(
        connect(
            server.ws_url(created.json()["game"]["id"]),
            additional_headers={"X-Forwarded-For": "10.0.0.1"},
            open_timeout=10,
        )
    )
    game.send(json.dumps({"type": "hello", "token": created.json()["seat"]["token"]}))
    assert json.loads(game.recv(timeout=10))["type"] == "welcome"
    first = lobby(server, "10.0.0.1", sockets)
    lobby(server, "10.0.0.1", sockets)
    answer = refused(server, "10.0.0.1")  # the fourth, a game socket and two lobby ones open
    assert answer.status_code == 429
    assert answer.json()["error"]["code"] == "too_many_sockets"
    assert int(answer.headers["retry-after"]) >= 1
    assert refused(server, "10.0.0.1", "/ws/account").status_code == 429
    # Another address still connects.
    lobby(server, "10.0.0.2", sockets)
    # A socket closed gives its place back.
    first.close()
    deadline = time.monotonic() + 5
    while True:
        try:
            lobby(server, "10.0.0.1", sockets)
            break
        except InvalidStatus:
            assert time.monotonic() < deadline, "the closed socket's place was not given back"
            time.sleep(0.05)  # poll interval: until the place is given back, up to 5 s


def test_every_handshake_meets_the_http_rate_limit(
    make_server: Callable[..., LiveServer], sockets: ExitStack
) -> None:
    server = make_server(trusted_proxies="*", http_burst=3, http_rate=0.001)
    clear_of_a_window_edge((0.001, 3))
    for _ in range(3):
        lobby(server, "10.0.0.3", sockets)
    answer = refused(server, "10.0.0.3")
    assert answer.status_code == 429 and answer.json()["error"]["code"] == "rate_limited"
    assert int(answer.headers["retry-after"]) >= 1
    lobby(server, "10.0.0.4", sockets)  # another address is not limited


def test_a_process_full_of_sockets_closes_one_more_with_1013(
    make_server: Callable[..., LiveServer], sockets: ExitStack
) -> None:
    server = make_server(trusted_proxies="*", ws_connections_per_process=2)
    lobby(server, "10.0.0.5", sockets)
    lobby(server, "10.0.0.6", sockets)
    one_more = sockets.enter_context(
        connect(f"ws://127.0.0.1:{server.port}/ws/lobby", open_timeout=10)
    )
    with pytest.raises(ConnectionClosed) as closed:
        one_more.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013


@pytest.mark.slow
def test_the_cap_on_a_clients_sockets_is_counted_across_processes(
    tmp_path: Path, postgres_url: str, redis_url: str, sockets: ExitStack
) -> None:
    env = service_env(postgres_url, redis_url, rate_limits=True, ws_connections_per_client=2)
    with nodes() as started:
        for name in ("A", "B"):
            node = Node.serve(name, env, tmp_path)
            started.append(node)
            node.wait_ready()
        first, second = started

        def lobby_on(node: Node, address: str) -> ClientConnection:
            socket = sockets.enter_context(
                connect(
                    f"ws://127.0.0.1:{node.port}/ws/lobby",
                    additional_headers={"X-Forwarded-For": address},
                    open_timeout=10,
                )
            )
            assert json.loads(socket.recv(timeout=10))["type"] == "welcome"
            return socket

        lobby_on(first, "10.0.0.7")
        lobby_on(second, "10.0.0.7")
        with pytest.raises(InvalidStatus) as refusal:
            lobby_on(first, "10.0.0.7")  # the third, one open on each process
        assert refusal.value.response.status_code == 429
        lobby_on(first, "10.0.0.8")  # another address still connects
