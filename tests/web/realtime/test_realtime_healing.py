"""The service heals itself when Redis fails and comes back (issue 38): every socket converges on
the stored game, presence tells the truth, and nothing waits on Redis for long.

First the parts, each on a Redis server of its own that the test restarts or pauses (the bus, the
presence, the hub); then two real ``bluegray serve`` processes on PostgreSQL and a Redis of their
own, with a game between two people whose players' sockets are on different processes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect
from websockets.sync.server import ServerConnection, serve

from bluegray.cli.bot_games import play_game
from bluegray.pieces import Side
from bluegray.web.backends import redis_client
from bluegray.web.platform.settings import Settings
from bluegray.web.realtime.bus import CHANNEL_PREFIX, WATCH_SECONDS, LocalBus, News, RedisBus
from bluegray.web.realtime.presence import LocalPresence, RedisPresence
from bluegray.web.realtime.sockets import CLOSE_RESTARTING, Connection, Hub
from tests.servers import RedisServer
from tests.web.cluster import Node, nodes, service_env
from tests.web.conftest import Json, Socket

BLUE, GRAY = frozenset({Side.BLUE}), frozenset({Side.GRAY})


def _client(server: RedisServer) -> aioredis.Redis:
    """A client as a web process has it."""
    return redis_client(Settings(database_url="sqlite://", redis_url=server.url))


async def _until(test: Callable[[], bool], seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not test():
        assert time.monotonic() < deadline, "it did not happen in time"
        await asyncio.sleep(0.02)  # poll interval: until the test holds, up to ``seconds``


# -- the bus ----------------------------------------------------------------------------------


def test_the_bus_listens_again_to_every_watched_game_when_redis_is_back() -> None:
    heard: list[News] = []

    async def run(server: RedisServer) -> None:
        client = _client(server)
        publisher = aioredis.Redis.from_url(server.url)
        rejoined = asyncio.Event()
        bus = RedisBus(client, "here")
        await bus.start(heard.append, rejoined.set)
        assert await bus.watch("before")
        assert await bus.watch("dropped")
        await asyncio.to_thread(server.halt)
        await _until(lambda: not bus.connected)
        started = time.monotonic()
        assert not await bus.watch("during")  # answered at once: the bus cannot tell now
        await bus.unwatch("dropped")
        assert time.monotonic() - started < WATCH_SECONDS
        await asyncio.to_thread(server.resume_serving)
        await asyncio.wait_for(rejoined.wait(), 10)
        assert bus.connected
        for game in ("dropped", "before", "during"):  # one subscriber hears them in this order
            news = News("state", game, 2, "there", f"news of {game}")
            await publisher.publish(CHANNEL_PREFIX + game, news.encode())
        await _until(lambda: len(heard) >= 2)
        await bus.close()
        await client.aclose()
        await publisher.aclose()

    with RedisServer() as server:
        asyncio.run(run(server))
    assert sorted(news.text for news in heard) == ["news of before", "news of during"]


def test_a_paused_redis_holds_up_neither_watching_nor_publishing() -> None:
    async def run(server: RedisServer) -> None:
        client = _client(server)
        bus = RedisBus(client, "here")
        delivered: list[News] = []
        await bus.start(delivered.append)
        server.freeze()
        try:
            started = time.monotonic()
            assert not await asyncio.wait_for(bus.watch("g"), 5)
            assert time.monotonic() - started < WATCH_SECONDS + 0.5
            started = time.monotonic()
            with pytest.raises(Exception, match="cannot publish"):
                await bus.publish(News("state", "g", 2, "here", "v2"))
            assert time.monotonic() - started < 1.5
            assert [news.text for news in delivered] == ["v2"]  # delivered here all the same
        finally:
            server.thaw()
        await bus.close()
        await client.aclose()

    with RedisServer() as server:
        asyncio.run(run(server))


# -- presence ---------------------------------------------------------------------------------


def test_presence_lost_by_redis_is_written_again_and_uncertain_until_then() -> None:
    async def run(server: RedisServer) -> None:
        client = _client(server)
        here = RedisPresence(client, "here", stale_ms=1000)
        there = RedisPresence(client, "there", stale_ms=1000)
        start = int(time.time() * 1000)

        async def beats(first: int, last: int) -> None:
            """Both processes' heartbeats from ``first`` to ``last`` (ms after ``start``)."""
            for stamp in range(start + first, start + last + 1, 300):
                await there.beat(stamp)
                await here.beat(stamp)

        await beats(0, 0)
        await here.arrive("g", BLUE)
        await here.arrive("g", frozenset())
        await there.arrive("g", GRAY)
        for game in ("h", "i"):
            await there.arrive(game, GRAY)
            await there.leave(game, GRAY, start + 900)  # Gray left games h and i
        early = await there.read("g", start + 10)
        assert not early.certain  # Redis's presence has just begun: every process may not be in
        await beats(300, 1200)
        read = await there.read("g", start + 1300)
        assert read.certain and read.connected == {Side.BLUE, Side.GRAY}
        assert read.spectators == 1

        await asyncio.to_thread(server.restart, 0.5)  # Redis comes back empty
        await here.leave("g", frozenset(), start + 1400)  # a spectator leaves meanwhile
        await here.leave("i", GRAY, start + 1450)  # Gray, seen on game i again, leaves again
        lost = await there.read("g", start + 1500)
        assert not lost.certain and not lost.connected
        await beats(1500, 2700)  # the first writes again what each holds
        back = await there.read("g", start + 2800)
        assert back.certain and back.connected == {Side.BLUE, Side.GRAY}
        assert back.spectators == 0
        h, i = [await there.read(game, start + 2800) for game in ("h", "i")]
        assert h.seen(Side.GRAY) == start + 900  # not lost with Redis
        assert i.seen(Side.GRAY) == start + 1450  # nor made earlier than it is

        server.freeze()
        try:
            started = time.monotonic()
            await here.leave("g", BLUE, start + 2900)  # it is written when Redis answers
            assert time.monotonic() - started < 1.5
        finally:
            server.thaw()
        await beats(4500, 4500)
        after = await there.read("g", start + 4600)
        assert after.connected == {Side.GRAY} and after.seen(Side.BLUE) == start + 2900
        assert not after.certain  # heartbeats were missed while Redis was paused: not yet
        await beats(4800, 5700)
        assert (await there.read("g", start + 5800)).certain
        await client.aclose()

    with RedisServer() as server:
        asyncio.run(run(server))


# -- the hub ----------------------------------------------------------------------------------


class FakeSocket:
    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed_with: int | None = None

    async def send_text(self, text: str) -> None:
        self.sent.append(text)

    async def close(self, code: int = 1000) -> None:
        self.closed_with = code


def test_the_hub_sends_every_socket_the_state_it_missed_when_it_resynchronises() -> None:
    stored = {"g": (7, "v7"), "h": (2, "v2 again")}

    async def reread(game_id: str) -> tuple[int, str]:
        return stored[game_id]

    async def run() -> tuple[list[str], list[str], int | None]:
        hub = Hub(LocalBus(), LocalPresence("here"), reread)
        sockets = {game: FakeSocket() for game in stored}
        for game, socket in sockets.items():
            connection = Connection(socket, game, frozenset())  # type: ignore[arg-type]
            connection.send_state(2, "v2")
            await hub.add(connection)
        await hub.resync()  # g moved on to 7 meanwhile, h did not
        await _until(lambda: len(sockets["g"].sent) == 2)  # what to send was decided by now
        await hub.close_all(0)
        return sockets["g"].sent, sockets["h"].sent, sockets["g"].closed_with

    g, h, code = asyncio.run(run())
    assert g == ["v2", "v7"] and h == ["v2"]
    assert code == CLOSE_RESTARTING == 1012


# -- bluegray bot ------------------------------------------------------------------------------


def test_the_bot_reconnects_at_once_to_a_server_that_restarts() -> None:
    """A site whose first socket is closed as its process stops (1012), and whose next one
    (another process) shows the game over: the bot reconnects at once and sees the end."""
    finished = {"status": "finished", "version": 9, "outcome": None}
    sockets: list[float] = []

    def handler(socket: ServerConnection) -> None:
        json.loads(socket.recv(timeout=5))  # the hello
        sockets.append(time.monotonic())
        if len(sockets) == 1:
            socket.close(CLOSE_RESTARTING)
            return
        socket.send(json.dumps({"type": "welcome", "side": "blue"}))
        socket.send(json.dumps({"type": "state", "version": 9, "game": finished}))
        with contextlib.suppress(ConnectionClosed):
            socket.recv(timeout=5)

    said: list[str] = []
    with serve(handler, "127.0.0.1", 0) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        port = server.socket.getsockname()[1]
        site = f"http://127.0.0.1:{port}"
        no_engine: Any = None  # the game is over: nothing to think about
        end = play_game(site, "token", "g", no_engine, said.append, threading.Event())
        server.shutdown()
    assert end == finished
    assert len(sockets) == 2 and sockets[1] - sockets[0] < 0.5
    assert any("reconnecting" in line for line in said)


# -- two web processes, PostgreSQL and a Redis that fails ----------------------------------------

OUTAGE_SECONDS = 5.0
"""How long Redis stays down or paused (the issue's chaos test)."""
PAUSE_SECONDS = 10.0
"""How long Redis stays paused (longer than the issue's 5 s: the test does more meanwhile)."""
CONVERGE_SECONDS = 5.0
"""How soon after Redis's return every socket must have the stored game."""


@dataclass
class Service:
    redis: RedisServer
    web: dict[str, Node]
    http: httpx.Client

    def call(
        self, on: str, method: str, path: str, body: Json | None = None, token: str | None = None
    ) -> httpx.Response:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        url = f"{self.web[on].url}{path}"
        return self.http.request(method, url, json=body, headers=headers)

    def ws_url(self, on: str, game_id: str) -> str:
        return f"ws://127.0.0.1:{self.web[on].port}/ws/games/{game_id}"

    def socket(self, on: str, game_id: str, token: str | None = None) -> Socket:
        socket = Socket(self.ws_url(on, game_id), token)
        assert socket.welcome["process"] == on
        return socket

    def game(self) -> tuple[str, str, str]:
        """A game between two people created on A and joined on B: its id, Blue's token and
        Gray's."""
        body = {"rules": "cooper", "opponent": {"type": "friend"}, "color": "blue"}
        created = self.call("A", "POST", "/api/games", body).json()
        game_id = created["game"]["id"]
        invite = {"invite": created["invite"]["code"]}
        joined = self.call("B", "POST", f"/api/games/{game_id}/join", invite).json()
        return game_id, created["seat"]["token"], joined["seat"]["token"]


@pytest.fixture
def service(tmp_path: Path, postgres_url: str) -> Iterator[Service]:
    """Two web processes, A and B, on PostgreSQL and a Redis server of their own; a player who
    leaves may be claimed against after one second."""
    with RedisServer() as redis_server, nodes() as started:
        env = service_env(postgres_url, redis_server.url, abandon_seconds=1)
        first = Node.serve("A", env, tmp_path)
        started.append(first)
        first.wait_ready()  # the first process brings the empty database's schema up
        second = Node.serve("B", env, tmp_path)
        started.append(second)
        second.wait_ready()
        with httpx.Client(timeout=20) as http:
            try:
                yield Service(redis_server, {"A": first, "B": second}, http)
            except BaseException:
                for node in started:
                    print(f"---- {node.name}\n{node.output()[-6000:]}")
                raise


def _move(socket: Socket, ref: str, timeout: float = 10) -> Json:
    """Play the first legal move over ``socket``; its ack."""
    state = socket.state
    socket.send(
        {"type": "move", "move": state["legal_moves"][0], "version": state["version"], "ref": ref}
    )
    return socket.receive("ack", timeout=timeout, ref=ref)


def _opened_within(url: str, seconds: float) -> tuple[str, Json]:
    """Open a socket during an outage: ``("state", the state)`` or ``("closed", {"code": ...})``
    (asserting it was answered within ``seconds``)."""
    started = time.monotonic()
    with connect(url, open_timeout=seconds) as socket:
        socket.send(json.dumps({"type": "hello"}))
        try:
            while True:
                left = seconds - (time.monotonic() - started)
                message = json.loads(socket.recv(timeout=max(0.01, left)))
                if message["type"] == "state":
                    return "state", message["game"]
        except ConnectionClosed as closed:
            code = None if closed.rcvd is None else closed.rcvd.code
            return "closed", {"code": code}


def _until_closed(socket: Socket, seconds: float = 5) -> None:
    """Read ``socket`` until it closes (``ConnectionClosed``)."""
    deadline = time.monotonic() + seconds
    while True:
        socket.next(timeout=max(0.01, deadline - time.monotonic()))


@pytest.mark.slow
def test_after_redis_restarts_every_socket_has_the_stored_game_and_nobody_wins_by_it(
    service: Service,
) -> None:
    game_id, blue_token, gray_token = service.game()
    blue = service.socket("A", game_id, blue_token)
    gray = service.socket("B", game_id, gray_token)
    assert _move(blue, "m1")["version"] == 3 and gray.state_at(3)["version"] == 3

    service.redis.halt()  # Redis goes away, for OUTAGE_SECONDS
    down_at = time.monotonic()
    # Reads and moves depend on the database alone: a move on B, over its socket and over HTTP.
    assert _move(gray, "m2", timeout=3)["version"] == 4
    legal = gray.state_at(4)["legal_moves"]
    moved = service.call(
        "B", "POST", f"/api/games/{game_id}/moves", {"move": legal[0], "version": 4}, blue_token
    )
    assert moved.status_code == 200, moved.text
    read = service.call("A", "GET", f"/api/games/{game_id}")
    assert read.status_code == 200 and read.json()["version"] == 5
    # A socket opened on A meanwhile is answered at once: the game as stored (or "try again").
    how, opened = _opened_within(service.ws_url("A", game_id), 2.5)
    assert opened["code"] == 1013 if how == "closed" else opened["version"] == 5
    watcher = Socket(service.ws_url("A", game_id))
    time.sleep(max(0.0, OUTAGE_SECONDS - (time.monotonic() - down_at)))  # the outage itself
    service.redis.resume_serving()  # empty: Redis keeps nothing on disk
    back_at = time.monotonic()

    # Without a reload, A's sockets get the moves made on B while Redis was away.
    for socket in (blue, watcher):
        socket.state_at(5, timeout=CONVERGE_SECONDS - (time.monotonic() - back_at))
    assert blue.state["moves"] == gray.state_at(5)["moves"] == watcher.state["moves"]
    assert time.monotonic() - back_at < CONVERGE_SECONDS

    # Gray (to move) never left: Blue's claims that Gray abandoned the game are all refused,
    # from Redis's return until presence is known again (a 503) and after (a 409).
    refusals = set()
    while time.monotonic() - back_at < 4:
        claim = service.call(
            "A", "POST", f"/api/games/{game_id}/actions", {"action": "claim_win"}, blue_token
        )
        assert claim.status_code in (409, 503), claim.text
        refusals.add(claim.json()["error"]["code"])
        time.sleep(0.2)  # the pace of Blue's claims through the 4 s window
    assert "not_allowed" in refusals
    assert gray.state["seats"]["gray"]["connected"] and blue.state["status"] == "active"

    # The bus works both ways again, and creating a game against the AI does too.
    assert _move(gray, "m3")["version"] == 6
    assert blue.state_at(6, timeout=CONVERGE_SECONDS)["version"] == 6
    for name in ("A", "B"):
        body = {"rules": "cooper", "opponent": {"type": "ai", "level": 1}, "color": "blue"}
        assert service.call(name, "POST", "/api/games", body).status_code == 201
    for socket in (blue, gray, watcher):
        socket.close()


@pytest.mark.slow
def test_while_redis_is_paused_nothing_waits_long_and_every_socket_has_every_move(
    service: Service,
) -> None:
    game_id, blue_token, gray_token = service.game()
    blue = service.socket("A", game_id, blue_token)
    gray = service.socket("B", game_id, gray_token)
    assert _move(blue, "m1")["version"] == 3 and gray.state_at(3)["version"] == 3

    service.redis.freeze()  # Redis answers nothing for PAUSE_SECONDS
    paused_at = time.monotonic()
    try:
        # Each step waits on Redis for a second at most (REDIS_SECONDS); the bounds leave a
        # loaded machine room (3 s and 4 s failed once under a profiler and a training run)
        # and stay well short of the pause.
        started = time.monotonic()
        assert _move(gray, "m2", timeout=4.5)["version"] == 4
        read = service.call("A", "GET", f"/api/games/{game_id}")
        assert read.status_code == 200 and read.json()["version"] == 4
        assert time.monotonic() - started < 5.5
        how, opened = _opened_within(service.ws_url("B", game_id), 2.5)
        assert opened["code"] == 1013 if how == "closed" else opened["version"] == 4
        # A's socket gets the move from the database, Redis still paused.
        left = PAUSE_SECONDS - (time.monotonic() - paused_at)
        assert blue.state_at(4, timeout=left)["moves"] == gray.state["moves"]
        assert time.monotonic() - paused_at < PAUSE_SECONDS
        time.sleep(max(0.0, PAUSE_SECONDS - (time.monotonic() - paused_at)))  # the pause
    finally:
        service.redis.thaw()
    thawed_at = time.monotonic()
    # Blue (to move) never left, though A's heartbeats were late for as long as Redis was
    # paused: Gray's claims that Blue abandoned the game are refused.
    while time.monotonic() - thawed_at < 3:
        claim = service.call(
            "B", "POST", f"/api/games/{game_id}/actions", {"action": "claim_win"}, gray_token
        )
        assert claim.status_code in (409, 503), claim.text
        time.sleep(0.1)  # the pace of Gray's claims through the 3 s window
    assert blue.state["status"] == "active"
    assert _move(blue, "m3")["version"] == 5 and gray.state_at(5, timeout=CONVERGE_SECONDS)
    blue.close()
    gray.close()


@pytest.mark.slow
def test_a_process_stopped_for_a_deploy_closes_its_sockets_for_a_reconnection_elsewhere(
    service: Service,
) -> None:
    game_id, blue_token, gray_token = service.game()
    blue = service.socket("A", game_id, blue_token)
    gray = service.socket("B", game_id, gray_token)
    assert _move(blue, "m1")["version"] == 3 and gray.state_at(3)["version"] == 3
    assert _move(gray, "m2")["version"] == 4

    service.web["A"].process.send_signal(signal.SIGTERM)  # a deploy restarts A
    stopped_at = time.monotonic()
    with pytest.raises(ConnectionClosed) as closed:
        _until_closed(blue)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == CLOSE_RESTARTING
    assert time.monotonic() - stopped_at < 2
    blue = service.socket("B", game_id, blue_token)  # the client reconnects at once, to B
    assert blue.state["version"] == 4 and len(blue.state["moves"]) == 2
    assert _move(blue, "m3")["version"] == 5 and gray.state_at(5)["version"] == 5
    # A stopped gracefully (uvicorn ends by raising SIGTERM again once it has).
    assert service.web["A"].process.wait(timeout=15) in (0, -signal.SIGTERM)
    assert "Application shutdown complete" in service.web["A"].output()
    blue.close()
    gray.close()


def test_a_newer_state_read_by_a_new_socket_reaches_the_others_on_the_game() -> None:
    async def run() -> list[str]:
        hub = Hub(LocalBus(), LocalPresence("here"), _never)
        first, second = FakeSocket(), FakeSocket()
        old = Connection(first, "g", BLUE)  # type: ignore[arg-type]
        old.send_state(2, "v2")
        await hub.add(old)
        new = Connection(second, "g", GRAY)  # type: ignore[arg-type]
        new.send_state(5, "v5")  # read from the database: 3 to 5 were missed here
        await hub.add(new)
        hub.deliver(News("state", "g", 4, "there", "v4"))  # late news changes nothing
        await asyncio.sleep(0.05)  # the window in which the late news must not go out
        for connection in (old, new):
            await connection.stop()
        return first.sent

    assert asyncio.run(run()) == ["v2", "v5"]


async def _never(game_id: str) -> tuple[int, str]:
    raise AssertionError("nothing to read again here")


def test_a_socket_behind_its_game_s_stored_version_catches_up_without_news() -> None:
    rereads: list[str] = []

    async def reread(game_id: str) -> tuple[int, str]:
        rereads.append(game_id)
        return 5, "v5 (read again)"

    async def run() -> tuple[list[str], list[str]]:
        hub = Hub(LocalBus(), LocalPresence("here"), reread)
        sockets = {game: FakeSocket() for game in ("lost", "late")}
        for game, socket in sockets.items():
            connection = Connection(socket, game, frozenset())  # type: ignore[arg-type]
            connection.send_state(2, "v2")
            await hub.add(connection)
        hub.expect({"lost": 5, "late": 3, "gone": 9})  # as stored: "gone" is not watched here
        hub.deliver(News("state", "late", 3, "there", "v3"))  # its news was only late
        await _until(lambda: bool(rereads))
        await asyncio.sleep(0.05)  # the window in which nothing more must go out
        await hub.close_all(0)
        return sockets["lost"].sent, sockets["late"].sent

    lost, late = asyncio.run(run())
    assert lost == ["v2", "v5 (read again)"] and late == ["v2", "v3"]
    assert rereads == ["lost"]
