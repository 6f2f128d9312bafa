"""Accounts on the scaled-out service, all real processes: two ``bluegray serve`` on PostgreSQL and
Redis, one browser (one cookie jar) going to either. A session made on one process is good on
the other and ends on both; an account's seat is played from either over HTTP and the WebSocket;
failed logins to a name are counted across the processes (the limit is in Redis)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from tests.web.cluster import PROCESS_HEADER, Node, nodes, service_env

pytestmark = pytest.mark.slow

PASSWORD = "correct horse battery"


@pytest.fixture
def web(tmp_path: Path, postgres_url: str, redis_url: str) -> Iterator[dict[str, Node]]:
    env = service_env(postgres_url, redis_url, login_failures_per_name=4)
    with nodes() as started:
        first = Node.serve("A", env, tmp_path)
        started.append(first)
        first.wait_ready()
        second = Node.serve("B", env, tmp_path)
        started.append(second)
        second.wait_ready()
        try:
            yield {"A": first, "B": second}
        except BaseException:
            for node in started:
                print(f"---- {node.name}\n{node.output()[-4000:]}")
            raise


class Visitor:
    """One browser: one cookie jar, whichever process it reaches (the same host, two ports)."""

    def __init__(self, web: dict[str, Node]) -> None:
        self.web = web
        self.client = httpx.Client(timeout=20)

    def request(self, method: str, path: str, on: str, body: Any = None) -> httpx.Response:
        node = self.web[on]
        headers = {}
        if method != "GET":
            token = self.request("GET", "/api/account", on).json()["csrf_token"]
            headers = {"X-CSRF-Token": token or ""}
        answer = self.client.request(method, f"{node.url}{path}", json=body, headers=headers)
        assert answer.headers[PROCESS_HEADER] == on
        return answer

    def account(self, on: str) -> str | None:
        account = self.request("GET", "/api/account", on).json()["account"]
        return None if account is None else str(account["name"])


def test_a_session_made_on_one_process_is_good_on_the_other_and_ends_on_both(
    web: dict[str, Node],
) -> None:
    ada, friend = Visitor(web), Visitor(web)
    signed = ada.request("POST", "/api/account/signup", "A", {"name": "ada", "password": PASSWORD})
    assert signed.status_code == 201
    assert ada.account("A") == ada.account("B") == "ada"

    # A game made on B is the account's; its seat is played from A over HTTP and the socket.
    created = ada.request(
        "POST", "/api/games", "B", {"opponent": {"type": "friend"}, "color": "blue"}
    ).json()
    game_id = created["game"]["id"]
    assert created["game"]["seats"]["blue"]["account"]["name"] == "ada"
    joined = friend.request(
        "POST", f"/api/games/{game_id}/join", "A", {"invite": created["invite"]["code"]}
    )
    assert joined.status_code == 200
    moved = ada.request("POST", f"/api/games/{game_id}/moves", "A", {"move": "d2-d3", "version": 2})
    assert moved.status_code == 200, moved.text
    cookie = f"bluegray_session={ada.client.cookies['bluegray_session']}"
    with connect(
        f"ws://127.0.0.1:{web['B'].port}/ws/games/{game_id}", additional_headers={"Cookie": cookie}
    ) as socket:
        socket.send(json.dumps({"type": "hello"}))
        welcome = json.loads(socket.recv(timeout=10))
        assert welcome["process"] == "B" and welcome["side"] == "blue"

    # Logged out on B: nobody on A either.
    assert ada.request("POST", "/api/account/logout", "B").status_code == 200
    ada.client.cookies.set("bluegray_session", cookie.split("=", 1)[1])
    assert ada.account("A") is None and ada.account("B") is None


def test_failed_logins_to_a_name_are_counted_across_processes(web: dict[str, Node]) -> None:
    owner, attacker = Visitor(web), Visitor(web)
    assert owner.request(
        "POST", "/api/account/signup", "A", {"name": "target", "password": PASSWORD}
    ).is_success

    def fail(on: str) -> int:
        body = {"name": "target", "password": "guess"}
        return attacker.request("POST", "/api/account/login", on, body).status_code

    # Three failures (the limit is 4), then a good login on the other process from a browser
    # that had not logged in to the account forgets them: three more still fail as failures.
    assert [fail(on) for on in ("A", "B", "A")] == [401, 401, 401]
    good = {"name": "target", "password": PASSWORD}
    assert Visitor(web).request("POST", "/api/account/login", "B", good).status_code == 200
    assert [fail(on) for on in ("B", "A", "B")] == [401, 401, 401]
    assert fail("A") == 401  # the fourth since the good login
    for on in ("A", "B"):
        answer = attacker.request(
            "POST", "/api/account/login", on, {"name": "target", "password": PASSWORD}
        )
        assert answer.status_code == 429, answer.text
        assert "too many failed logins to this name" in answer.json()["error"]["message"]
    # The owner's browser (it signed up there) is not slowed, on either process.
    for on in ("A", "B"):
        assert owner.request("POST", "/api/account/login", on, good).status_code == 200
