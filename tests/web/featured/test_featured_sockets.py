"""The home page's socket of the featured game (``/ws/featured``): the featured game (or
``null``) first, then the game's state; a ping answered; the process follows the game through one
member of its hub whatever number of home pages it serves, kept while a game socket on the same
game comes and goes, and dropped with the last home page; and the sockets count within the caps on
a client's sockets and on a process's."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from bluegray.web.featured.showing import Showcase
from tests.web.conftest import Json, LiveServer, Socket
from tests.web.lobby_clients import Player, rated_game
from tests.web.realtime.test_socket_limits import refused


def home(server: LiveServer, address: str = "10.0.0.1") -> ClientConnection:
    return connect(
        f"ws://127.0.0.1:{server.port}/ws/featured",
        additional_headers={"X-Forwarded-For": address},
        open_timeout=10,
    )


def receive(socket: ClientConnection) -> Json:
    message: Json = json.loads(socket.recv(timeout=10))
    return message


def until(check: Callable[[], bool], seconds: float = 5) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)  # poll interval: until the process has done it, up to ``seconds``
    return True


@pytest.fixture
def sockets() -> Iterator[ExitStack]:
    with ExitStack() as stack:
        yield stack


def test_a_home_page_is_told_the_featured_game_then_its_state_and_its_moves(
    make_server: Callable[..., LiveServer], sockets: ExitStack
) -> None:
    server = make_server(rate_limits=False, featured_seconds=0.2)
    showcase: Showcase = server.app.state.showcase
    hub = server.app.state.service.hub
    first = sockets.enter_context(home(server))
    assert receive(first) == {"type": "featured", "game": None}
    first.send(json.dumps({"type": "ping"}))
    assert receive(first)["type"] == "pong"

    ada, bob = Player(server.url, "ada"), Player(server.url, "bob")
    game_id = rated_game(ada, bob)["game_id"]
    featured = receive(first)
    assert featured["type"] == "featured" and featured["game"]["game_id"] == game_id
    assert featured["game"]["blue"] == {"name": "ada", "bot": False, "rating": 1500}
    state = receive(first)
    assert state["type"] == "state" and state["game"]["id"] == game_id
    # A second home page: the featured game and its state at once, the same member of the hub.
    second = sockets.enter_context(home(server))
    assert receive(second)["game"]["game_id"] == game_id
    assert receive(second)["game"]["version"] == state["game"]["version"]
    relay = showcase.relay
    assert relay is not None and relay.game_id == game_id and hub.connection_count() == 1

    # A player's socket on the game comes and goes: the process still follows the game.
    with Socket(server.ws_url(game_id), ada.token) as player:
        assert player.state["id"] == game_id
        assert hub.connection_count() == 2
    assert until(lambda: hub.connection_count() == 1) and hub.has_connections(game_id)
    move = ada.get(f"/api/games/{game_id}")["legal_moves"][0]
    answer = ada.post(f"/api/games/{game_id}/moves", {"move": move, "version": 1})
    assert answer.status_code == 200, answer.text
    for socket in (first, second):
        message = receive(socket)
        while message["type"] != "state":
            message = receive(socket)  # the presence of the player's socket, come and gone
        assert message["game"]["ply"] == 1 and message["game"]["last_move"]["text"] == move

    # The last home page gone, the process follows the game no more.
    first.close()
    second.close()
    assert until(lambda: not hub.has_connections(game_id))
    assert until(lambda: showcase.relay is None and not showcase.viewers)


def test_home_pages_count_within_the_caps_on_sockets(
    make_server: Callable[..., LiveServer], sockets: ExitStack
) -> None:
    server = make_server(trusted_proxies="*", ws_connections_per_client=2)
    for _ in range(2):
        assert receive(sockets.enter_context(home(server, "10.0.0.7")))["type"] == "featured"
    answer = refused(server, "10.0.0.7", "/ws/featured")
    assert answer.status_code == 429 and answer.json()["error"]["code"] == "too_many_sockets"
    assert refused(server, "10.0.0.7", "/ws/lobby").status_code == 429


def test_a_process_full_of_sockets_closes_one_more_home_page_with_1013(
    make_server: Callable[..., LiveServer], sockets: ExitStack
) -> None:
    server = make_server(trusted_proxies="*", ws_connections_per_process=1)
    assert receive(sockets.enter_context(home(server, "10.0.0.8")))["type"] == "featured"
    one_more = sockets.enter_context(home(server, "10.0.0.9"))
    with pytest.raises(ConnectionClosed) as closed:
        one_more.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013


def test_a_home_page_s_pings_beyond_the_message_rate_go_unanswered(
    make_server: Callable[..., LiveServer], sockets: ExitStack
) -> None:
    server = make_server(ws_rate=0.001, ws_burst=2)
    socket = sockets.enter_context(home(server))
    assert receive(socket)["type"] == "featured"
    for _ in range(3):
        socket.send(json.dumps({"type": "ping"}))
    assert [receive(socket)["type"] for _ in range(2)] == ["pong", "pong"]
    with pytest.raises(TimeoutError):
        socket.recv(timeout=0.5)  # the third is not answered
    other = sockets.enter_context(home(server))  # another socket's pings are its own
    assert receive(other)["type"] == "featured"
    other.send(json.dumps({"type": "ping"}))
    assert receive(other)["type"] == "pong"
