"""The games' chat on the scaled-out service, all real processes: two ``bluegray serve`` on
PostgreSQL and Redis. A message written through one process reaches the sockets on the other,
each as its reader's choices and the moderators' mutes allow."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

from bluegray.cli.main import main
from tests.web.cluster import Node, service_env, two_processes
from tests.web.processes.test_cluster_accounts import PASSWORD, Visitor

pytestmark = pytest.mark.slow


@pytest.fixture
def web(tmp_path: Path, postgres_url: str, redis_url: str) -> Iterator[dict[str, Node]]:
    yield from two_processes(tmp_path, service_env(postgres_url, redis_url))


def account(web: dict[str, Node], name: str) -> Visitor:
    visitor = Visitor(web)
    body = {"name": name, "password": PASSWORD}
    assert visitor.request("POST", "/api/account/signup", "A", body).status_code == 201
    return visitor


@contextlib.contextmanager
def socket_on(
    web: dict[str, Node], on: str, game_id: str, visitor: Visitor
) -> Iterator[ClientConnection]:
    """The visitor's socket on the game, on process ``on`` (its session cookie says who)."""
    cookie = f"bluegray_session={visitor.client.cookies['bluegray_session']}"
    with connect(
        f"ws://127.0.0.1:{web[on].port}/ws/games/{game_id}", additional_headers={"Cookie": cookie}
    ) as socket:
        socket.send(json.dumps({"type": "hello"}))
        assert json.loads(socket.recv(timeout=10))["process"] == on
        yield socket


def next_chat(socket: ClientConnection) -> Any:
    while True:
        message = json.loads(socket.recv(timeout=10))
        if message["type"] == "chat":
            return message["line"]


def test_a_message_sent_through_one_process_reaches_the_sockets_on_the_other(
    web: dict[str, Node], postgres_url: str
) -> None:
    ada, bob, carl, troll, warden = (
        account(web, name) for name in ("ada", "bob", "carl", "troll", "warden")
    )
    created = ada.request(
        "POST", "/api/games", "A", {"opponent": {"type": "friend"}, "color": "blue"}
    ).json()
    game_id = created["game"]["id"]
    invite = {"invite": created["invite"]["code"]}
    assert bob.request("POST", f"/api/games/{game_id}/join", "B", invite).status_code == 200
    assert main(["user", "moderator", "warden", "--database-url", postgres_url]) == 0
    chat = f"/api/games/{game_id}/chat"
    assert troll.request("POST", chat, "A", {"text": "spam"}).status_code == 201
    assert warden.request("POST", "/api/players/troll/mute", "A").status_code == 204
    # Carl (a spectator) mutes Ada for himself, through A.
    assert carl.request("PUT", "/api/account/chat/muted/ada", "A").status_code == 200
    with (
        socket_on(web, "B", game_id, bob) as bob_socket,
        socket_on(web, "B", game_id, carl) as carl_socket,
    ):
        assert ada.request("POST", chat, "A", {"text": "hello from A"}).status_code == 201
        refused = troll.request("POST", chat, "A", {"text": "more spam"})
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "chat_muted"
        assert bob.request("POST", chat, "A", {"canned": "good_luck"}).status_code == 201
        line = next_chat(bob_socket)
        assert (line["text"], line["author"]) == ("hello from A", "ada")
        assert next_chat(bob_socket)["text"] == "Good luck!"
        assert next_chat(carl_socket)["text"] == "Good luck!"  # Ada's never reached Carl
    # Read again through B: the same chat, the muted troll's message nowhere.
    shown = [line["text"] for line in carl.request("GET", chat, "B").json()["messages"]]
    assert shown == ["Good luck!"]
    shown = [line["text"] for line in bob.request("GET", chat, "B").json()["messages"]]
    assert shown == ["hello from A", "Good luck!"]
