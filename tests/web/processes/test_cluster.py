"""The scaled-out service, all real processes: two ``bluegray serve`` behind nginx spreading
requests and WebSockets round robin with no stickiness, two ``bluegray worker``, Redis and
PostgreSQL. Every step checks, by the process that answered, that the clients really were on
different processes; then processes are killed with SIGKILL mid-game."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import redis

from tests.servers import ReverseProxy
from tests.web.cluster import PROCESS_HEADER, Node, nodes, service_env, wait_gone
from tests.web.conftest import Json, Socket

pytestmark = pytest.mark.slow


@dataclass
class Cluster:
    proxy: ReverseProxy
    web: dict[str, Node]
    workers: dict[str, Node]
    redis_url: str
    client: httpx.Client = field(default_factory=lambda: httpx.Client(timeout=20))

    def land_next_on(self, name: str) -> None:
        """Make the proxy's next request go to web process ``name`` (round robin: a request
        that lands elsewhere puts ``name`` next)."""
        for _ in range(4):
            answer = self.client.get(f"{self.proxy.url}/api/health")
            if answer.headers[PROCESS_HEADER] != name:
                return
        raise AssertionError(f"the proxy does not alternate: always on {name}")

    def request(
        self,
        method: str,
        path: str,
        body: Json | None = None,
        *,
        token: str | None = None,
        on: str,
    ) -> httpx.Response:
        """A request that the test makes land on web process ``on`` (and checks it did)."""
        self.land_next_on(on)
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        answer = self.client.request(method, f"{self.proxy.url}{path}", json=body, headers=headers)
        assert answer.headers[PROCESS_HEADER] == on, "the request landed on the other process"
        return answer

    def socket(self, game_id: str, token: str | None, *, on: str) -> Socket:
        """A WebSocket through the proxy, on web process ``on`` (reconnecting until it is)."""
        for _ in range(8):
            socket = Socket(f"{self.proxy.ws_url}/ws/games/{game_id}", token)
            if socket.welcome["process"] == on:
                return socket
            socket.close()
        raise AssertionError(f"no WebSocket reached {on}")


@pytest.fixture
def cluster(
    tmp_path: Path,
    postgres_url: str,
    redis_url: str,
    make_proxy: Callable[..., ReverseProxy],
) -> Iterator[Cluster]:
    env = service_env(postgres_url, redis_url, ai_unavailable_seconds=2)
    with nodes() as started:
        first = Node.serve("A", env, tmp_path)
        started.append(first)
        first.wait_ready()  # the first process brings the empty database's schema up
        second = Node.serve("B", env, tmp_path)
        started.append(second)
        second.wait_ready()
        workers = {name: Node.worker(name, env, tmp_path, processes=1) for name in ("W1", "W2")}
        started.extend(workers.values())
        proxy = make_proxy([first.port, second.port], fail_seconds=30)
        cluster = Cluster(proxy, {"A": first, "B": second}, workers, redis_url)
        try:
            yield cluster
        except BaseException:
            for node in started:
                print(f"---- {node.name}\n{node.output()[-4000:]}")
            raise
        finally:
            cluster.client.close()


def events(socket: Socket, kind: str, seconds: float, *, until: int | None = None) -> list[Json]:
    """The state messages with event ``kind`` that reach ``socket`` within ``seconds`` (or
    until ``until`` of them have come)."""
    found: list[Json] = []
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0 and len(found) != until:
        try:
            message = socket.next(timeout=left)
        except TimeoutError:
            break
        if message["type"] == "state" and (message.get("event") or {}).get("kind") == kind:
            found.append(message)
    return found


def wait_for_state(socket: Socket, test: Callable[[Json], bool], seconds: float = 30) -> Json:
    deadline = time.monotonic() + seconds
    while not test(socket.state):
        socket.next(timeout=max(0.01, deadline - time.monotonic()))
    return socket.state


def next_move(socket: Socket, side: str, seconds: float) -> Json:
    """The next state message announcing a move by ``side``."""
    deadline = time.monotonic() + seconds
    while True:
        message = socket.next(timeout=max(0.01, deadline - time.monotonic()))
        event = message.get("event") or {}
        if message["type"] == "state" and event.get("kind") == "move" and event["side"] == side:
            return message


def test_two_web_processes_and_two_workers_serve_every_game(cluster: Cluster) -> None:
    # A friend game created on A and joined on B.
    created = cluster.request(
        "POST",
        "/api/games",
        {"rules": "cooper", "opponent": {"type": "friend"}, "color": "blue"},
        on="A",
    ).json()
    game_id, blue_token = created["game"]["id"], created["seat"]["token"]
    joined = cluster.request(
        "POST", f"/api/games/{game_id}/join", {"invite": created["invite"]["code"]}, on="B"
    ).json()
    gray_token = joined["seat"]["token"]
    assert joined["game"]["status"] == "active"

    blue = cluster.socket(game_id, blue_token, on="A")
    gray = cluster.socket(game_id, gray_token, on="B")
    watcher = cluster.socket(game_id, None, on="B")
    assert blue.state["status"] == gray.state["status"] == "active"
    acknowledged: list[str] = []

    # Moves both ways: over the socket on A, over HTTP on A for the player whose socket is on B.
    blue.send({"type": "move", "move": "d2-d3", "version": blue.state["version"], "ref": "m1"})
    assert blue.receive("ack", ref="m1")["version"] == 3
    acknowledged.append("d2-d3")
    assert gray.state_at(3)["moves"] == ["d2-d3"] and watcher.state_at(3)["moves"] == ["d2-d3"]
    move = cluster.request(
        "POST",
        f"/api/games/{game_id}/moves",
        {"move": "f8-f7", "version": 3},
        token=gray_token,
        on="A",
    )
    assert move.status_code == 200
    acknowledged.append("f8-f7")
    assert blue.state_at(4)["moves"] == acknowledged == gray.state_at(4)["moves"]

    # A draw offer made on A reaches B, and is declined there.
    blue.send({"type": "action", "action": "offer_draw", "version": 4})
    assert gray.state_at(5)["offers"]["draw"] == "blue"
    gray.send({"type": "action", "action": "decline_draw", "ref": "no"})
    assert gray.receive("ack", ref="no")["version"] == 6
    assert blue.state_at(6)["offers"]["draw"] is None

    # A takeback asked on B is granted on A.
    gray.send({"type": "action", "action": "request_takeback"})
    assert blue.state_at(7)["offers"]["takeback"] == "gray"
    blue.send({"type": "action", "action": "accept_takeback"})
    assert gray.state_at(8)["moves"] == ["d2-d3"]
    acknowledged.pop()
    assert watcher.state_at(8)["moves"] == acknowledged
    assert watcher.state["spectators"] == 1

    # An AI game: its moves are computed by a worker, which says so.
    ai = cluster.request(
        "POST",
        "/api/games",
        {"rules": "cooper", "opponent": {"type": "ai", "level": 2}, "color": "gray"},
        on="B",
    ).json()
    human = cluster.socket(ai["game"]["id"], ai["seat"]["token"], on="A")
    first = wait_for_state(human, lambda state: len(state["moves"]) == 1)
    assert first["last_move"]["side"] == "blue"
    played = cluster.request("GET", f"/api/games/{ai['game']['id']}", on="B").json()
    assert played["moves"] == first["moves"]
    state = first
    for _ in range(4):  # each reply is found by a worker, whichever took it before
        human.send({"type": "move", "move": state["legal_moves"][0], "version": state["version"]})
        reply = next_move(human, "blue", 30)
        assert reply["event"]["worker"].split("/")[0] in cluster.workers
        state = reply["game"]
    human.close()

    # SIGKILL of A mid-game: blue's socket drops. B notices that A's heartbeat stopped and
    # tells Gray that Blue is away (nobody else could: A is dead).
    assert gray.state["seats"]["blue"]["connected"] is True
    cluster.web["A"].kill()
    blue.close()
    away = gray.receive("presence", timeout=15)
    while away["seats"]["blue"]["connected"]:
        away = gray.receive("presence", timeout=15)
    assert away["seats"]["blue"]["away_since_ms"] is not None
    # Blue comes back through the proxy, on B.
    blue = Socket(f"{cluster.proxy.ws_url}/ws/games/{game_id}", blue_token)
    assert blue.welcome["process"] == "B"
    assert blue.state["moves"] == acknowledged  # nothing acknowledged was lost
    version = blue.state["version"]
    gray.send({"type": "move", "move": "f8-f7", "version": version, "ref": "m3"})
    assert gray.receive("ack", ref="m3")["version"] == version + 1
    blue.send({"type": "action", "action": "resign", "version": version + 1})
    final = wait_for_state(watcher, lambda state: state["status"] == "finished")
    assert final["outcome"]["winner"] == "gray" and final["moves"] == ["d2-d3", "f8-f7"]
    for socket in (blue, gray, watcher):
        socket.close()


def test_a_flag_due_while_its_process_is_dead_falls_once(cluster: Cluster) -> None:
    created = cluster.request(
        "POST",
        "/api/games",
        {
            "rules": "cooper",
            "opponent": {"type": "friend"},
            "color": "blue",
            "clock": {"minutes": 0.25},
        },
        on="A",
    ).json()
    game_id = created["game"]["id"]
    joined = cluster.request(
        "POST", f"/api/games/{game_id}/join", {"invite": created["invite"]["code"]}, on="A"
    ).json()
    gray = cluster.socket(game_id, joined["seat"]["token"], on="B")
    watcher = cluster.socket(game_id, None, on="B")
    # Both sides move (before that, running out of time aborts the game); Blue's second move
    # on A starts Gray's clock again; A sets the timer for its flag, and dies.
    for version, (text, token) in enumerate(
        [
            ("d2-d3", created["seat"]["token"]),
            ("f8-f7", joined["seat"]["token"]),
            ("c2-c3", created["seat"]["token"]),
        ],
        start=2,
    ):
        moved = cluster.request(
            "POST",
            f"/api/games/{game_id}/moves",
            {"move": text, "version": version},
            token=token,
            on="A",
        )
        assert moved.status_code == 200, moved.text
    cluster.web["A"].kill()
    falls = {"gray": events(gray, "time", 25, until=1)}
    time.sleep(3)  # a second fall, if any, would come by now (timers are looked for twice a second)
    falls["gray"] += events(gray, "time", 0.2)
    falls["watcher"] = events(watcher, "time", 0.2)
    assert [len(found) for found in falls.values()] == [1, 1], falls
    state = falls["gray"][0]["game"]
    assert state["outcome"]["winner"] == "blue" and state["outcome"]["reason"] == "time"
    gray.close()
    watcher.close()


def test_an_ai_move_whose_worker_dies_mid_search_comes_from_the_other(cluster: Cluster) -> None:
    created = cluster.request(
        "POST",
        "/api/games",
        {"rules": "cooper", "opponent": {"type": "ai", "level": 8}, "color": "gray"},
        on="A",
    ).json()
    game_id = created["game"]["id"]
    human = cluster.socket(game_id, created["seat"]["token"], on="B")
    queue = redis.Redis.from_url(cluster.redis_url)
    taker = None
    deadline = time.monotonic() + 60
    while taker is None and time.monotonic() < deadline:
        for item in queue.xpending_range("bg:jobs:long", "engines", min="-", max="+", count=10):
            consumer = item["consumer"]
            name = consumer.decode() if isinstance(consumer, bytes) else str(consumer)
            taker = name.split("/")[0]
        time.sleep(0.05)  # poll interval: until a worker takes the job, up to 60 s
    assert taker in cluster.workers, "no worker took the level-8 job"
    worker = cluster.workers[taker]
    engines = worker.children()
    assert engines, "the worker runs its engine in a process of its own"
    worker.kill()
    assert wait_gone(engines) == [], "engine processes outlived their worker"
    message = next_move(human, "blue", 60)
    other = ({"W1", "W2"} - {taker}).pop()
    assert message["event"]["worker"].split("/")[0] == other
    stored = cluster.request("GET", f"/api/games/{game_id}", on="A").json()
    assert stored["moves"] == message["game"]["moves"] and len(stored["moves"]) == 1
    human.close()
    queue.close()


def test_with_no_worker_the_service_says_the_ai_is_not_available(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    env = service_env(postgres_url, redis_url, ai_unavailable_seconds=1)
    with nodes() as started:
        web = Node.serve("solo", env, tmp_path)
        started.append(web)
        web.wait_ready()
        ready = httpx.get(f"{web.url}/api/ready", timeout=10)
        assert ready.status_code == 503
        checks = {check["name"]: check for check in ready.json()["checks"]}
        assert checks["database"]["ok"] and checks["redis"]["ok"]
        assert not checks["workers"]["ok"] and "bluegray worker" in checks["workers"]["detail"]
        created = httpx.post(
            f"{web.url}/api/games",
            json={"opponent": {"type": "ai", "level": 1}, "color": "gray"},
            timeout=10,
        ).json()
        assert created["game"]["ai_status"] == "thinking"
        with Socket(web.url.replace("http", "ws") + f"/ws/games/{created['game']['id']}") as watch:
            status = watch.receive("ai", timeout=15)
        assert status["status"] == "unavailable"
        state = httpx.get(f"{web.url}/api/games/{created['game']['id']}", timeout=10).json()
        assert state["ai_status"] == "unavailable" and state["moves"] == []
        analysis = httpx.post(
            f"{web.url}/api/analysis", json={"rules": "sackson", "seconds": 0.1}, timeout=10
        )
        assert analysis.status_code == 503 and analysis.json()["error"]["code"] == "ai_unavailable"
