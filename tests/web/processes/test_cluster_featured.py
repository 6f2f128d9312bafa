"""The best game on now on the scaled-out service, all real processes: two ``bluegray serve`` on
PostgreSQL and Redis. Both processes feature the same game; each listens to its channel once,
however many home pages it serves; a move made on one process reaches the home pages of the
other; when the featured game ends, both switch to the next one within 5 seconds, and hide the
panel when none is left."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from websockets.sync.client import ClientConnection, connect

from tests.web.cluster import Node, service_env, two_processes
from tests.web.conftest import Json
from tests.web.lobby_clients import Player, rated_game

pytestmark = pytest.mark.slow

SWITCH_SECONDS = 5.0


@pytest.fixture
def web(tmp_path: Path, postgres_url: str, redis_url: str) -> Iterator[dict[str, Node]]:
    yield from two_processes(tmp_path, service_env(postgres_url, redis_url))


class HomePage:
    """A home page's featured socket on one process."""

    def __init__(self, node: Node) -> None:
        url = node.url.replace("http", "ws", 1) + "/ws/featured"
        connection = connect(url, open_timeout=10, max_size=2**22)
        assert isinstance(connection, ClientConnection)
        self.connection = connection.__enter__()

    def receive(self, kind: str, timeout: float = 10, **fields: Any) -> Json:
        """The next message of type ``kind`` (with these field values), skipping others."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {kind} message with {fields} within {timeout} s")
            message: Json = json.loads(self.connection.recv(timeout=left))
            if message["type"] == kind and all(message.get(k) == v for k, v in fields.items()):
                return message

    def featured(self, timeout: float = 10) -> str | None:
        """The game the next ``featured`` message names (``None``: none)."""
        game = self.receive("featured", timeout)["game"]
        return None if game is None else str(game["game_id"])

    def close(self) -> None:
        self.connection.close()


def featured_on(node: Node) -> str | None:
    answer = httpx.get(f"{node.url}/api/featured", timeout=10)
    if answer.status_code == 204:
        return None
    assert answer.status_code == 200, answer.text
    return str(answer.json()["game_id"])


def listeners(redis_url: str, game_id: str) -> int:
    """How many connections listen to the game's channel on the bus."""
    client = redis.Redis.from_url(redis_url)
    try:
        counts = client.pubsub_numsub(f"bg:game:{game_id}")
        return int(counts[0][1])
    finally:
        client.close()


def listened(redis_url: str, game_id: str, count: int, seconds: float = 2) -> bool:
    """Whether the game's channel has ``count`` listeners within ``seconds`` (a process leaves a
    channel just after telling its home pages of the new game)."""
    deadline = time.monotonic() + seconds
    while listeners(redis_url, game_id) != count:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)  # poll interval: until the processes have (un)subscribed, up to seconds
    return True


def test_both_processes_feature_the_same_game_and_switch_within_5_s_of_its_end(
    web: dict[str, Node], redis_url: str
) -> None:
    a, b = web["A"], web["B"]
    ada, bob, cal, dan = (Player(a.url, name) for name in ("ada", "bob", "cal", "dan"))
    assert featured_on(a) is None and featured_on(b) is None
    homes = [HomePage(node) for node in (a, a, a, b, b, b)]
    assert all(home.featured() is None for home in homes)

    # Two games of new players (1500 each): the same average, the later started is featured.
    first = rated_game(ada, bob)["game_id"]
    second = rated_game(cal, dan)["game_id"]
    assert featured_on(a) == second and featured_on(b) == second
    for home in homes:
        chosen = home.featured()
        if chosen == first:  # the first game was featured for a moment, before the second began
            chosen = home.featured()
        assert chosen == second
        assert home.receive("state")["game"]["id"] == second
    # One subscription per process for all its home pages.
    assert listened(redis_url, second, 2)
    assert listeners(redis_url, first) == 0

    # A move made on process A reaches B's home pages (and A's).
    state = cal.get(f"/api/games/{second}")
    answer = cal.post(
        f"/api/games/{second}/moves", {"move": state["legal_moves"][0], "version": state["version"]}
    )
    assert answer.status_code == 200, answer.text
    for home in homes:
        assert home.receive("state")["game"]["ply"] == 1

    # The featured game ends on B: every home page of both processes switches within 5 s.
    ended = Player(b.url, "dan", dan.token).post(
        f"/api/games/{second}/actions", {"action": "resign"}
    )
    assert ended.status_code == 200, ended.text
    at = time.monotonic()
    for home in homes:
        assert home.featured(timeout=SWITCH_SECONDS) == first
    assert time.monotonic() - at < SWITCH_SECONDS
    assert featured_on(a) == first and featured_on(b) == first
    assert listened(redis_url, first, 2)
    assert listened(redis_url, second, 0)

    # The last one ends: no game qualifies, every panel is told so, and the channels are left.
    ended = bob.post(f"/api/games/{first}/actions", {"action": "resign"})
    assert ended.status_code == 200, ended.text
    at = time.monotonic()
    for home in homes:
        assert home.featured(timeout=SWITCH_SECONDS) is None
    assert time.monotonic() - at < SWITCH_SECONDS
    assert featured_on(a) is None and featured_on(b) is None
    assert listened(redis_url, first, 0)
    for home in homes:
        home.close()
