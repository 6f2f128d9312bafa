"""Outages of the parts under the service: Redis or PostgreSQL stopped while games go on. Nothing
is half-done (a request succeeds, or is refused with 503 and ``Retry-After`` having changed
nothing), no flag waits for Redis, limits hold in each process, and a move refused while the
database was down is stored once when sent again. Each test starts its own Redis or PostgreSQL
(the session's servers are never stopped)."""

from __future__ import annotations

import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from bluegray.cli.bot_games import Site, Thinker, play_game
from bluegray.game import Game
from bluegray.pieces import Side
from bluegray.protocol.client import Engine
from bluegray.web.games.live import LiveGame
from bluegray.web.games.outages import credit_store_outage, credited_flag_at
from bluegray.web.platform.clocks import Clock, now_ms
from tests.servers import PostgresServer, RedisServer
from tests.web.conftest import Json, LiveServer, Socket, settings_for

CLOCKED = {
    "opponent": {"type": "hotseat"},
    "rules": "cooper",
    "clock": {"minutes": 0.25, "increment_seconds": 0},
}
"""A hot-seat game with a 15-second clock: after the first move, Gray's time runs."""


def _clocked(since_ms: int, left_ms: int) -> LiveGame:
    """A game in which Gray's clock runs from ``since_ms`` with ``left_ms`` left then."""
    clock = Clock(15_000, 0, 15_000, left_ms, running=Side.GRAY, since_ms=since_ms)
    game = Game("cooper")
    game.push("d2-d3")
    return LiveGame("g", "hotseat", "active", game, 2, 0, since_ms, clock=clock)


@pytest.mark.parametrize(
    ("since_ms", "left_ms", "credited"),
    [
        (1_000, 2_000, 10_000),  # ran out at 3 s, in the outage (2-9 s): the 7 s it ran in it
        (3_000, 1_000, 10_000),  # started in the outage: the 6 s it ran in it
        (1_000, 10_000, None),  # runs out after the outage: charged as usual
        (1_000, 500, None),  # ran out before the outage
        (9_500, 1_000, None),  # started after it
    ],
)
def test_only_a_side_whose_time_ran_out_during_the_outage_gets_it_back(
    since_ms: int, left_ms: int, credited: int | None
) -> None:
    outage = (2_000, 9_000)
    live = _clocked(since_ms, left_ms)
    assert credited_flag_at(live, outage) == credited
    assert credited_flag_at(live, None) is None
    assert credit_store_outage(live, outage) is (credited is not None)
    assert live.clock is not None
    assert live.clock.flag_at() == (since_ms + left_ms if credited is None else credited)
    # Once given, its time runs out after the outage: it is not given twice.
    assert credited_flag_at(live, outage) is None


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    """A Redis server of this test's own, to stop and start again."""
    with RedisServer() as server:
        yield server


def _scaled(postgres_url: str, redis_url: str, **changes: Any) -> LiveServer:
    settings = settings_for(
        postgres_url, redis_url=redis_url, deadline_poll_seconds=0.25, **changes
    )
    return LiveServer(settings)


def _row(url: str, sql: str, **values: Any) -> Any:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return connection.execute(text(sql), values).one_or_none()
    finally:
        engine.dispose()


def _post(server: LiveServer, path: str, body: Json, **headers: str) -> httpx.Response:
    return httpx.post(f"{server.url}{path}", json=body, headers=headers, timeout=15)


def _until(check: Callable[[], Any], seconds: float) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)  # poll interval: until the check holds, up to ``seconds``
    return check()


def test_a_flag_falls_on_time_and_once_while_redis_is_down(
    postgres_url: str, own_redis: RedisServer, time_offset: Callable[[float], None]
) -> None:
    with _scaled(postgres_url, own_redis.url) as server:
        created = _post(server, "/api/games", CLOCKED).json()
        game_id, token = created["game"]["id"], created["seat"]["token"]
        played = _post(
            server,
            f"/api/games/{game_id}/moves",
            {"move": "d2-d3", "version": 1},
            Authorization=f"Bearer {token}",
        )
        assert played.status_code == 200, played.text
        due = _row(
            postgres_url,
            "SELECT due_ms FROM deadlines WHERE kind = 'flag' AND subject = :id",
            id=game_id,
        )
        assert due is not None
        own_redis.halt()
        # 14 of Gray's 15 seconds pass at once: the flag is due a second from now.
        time_offset(14)

        def ended() -> Any:
            return _row(
                postgres_url,
                "SELECT status, termination, version, updated_ms FROM games "
                "WHERE id = :id AND status = 'finished'",
                id=game_id,
            )

        flagged = _until(ended, 10)
        assert flagged is not None, "no flag fell while Redis was down"
        assert flagged.termination == "time" and flagged.version == 3  # one change: the flag
        assert 0 <= flagged.updated_ms - due.due_ms < 2000
        own_redis.resume_serving()
        time.sleep(1)  # Redis back: nothing fires the flag a second time
        after = _row(postgres_url, "SELECT version FROM games WHERE id = :id", id=game_id)
        assert after.version == 3
        left = _row(
            postgres_url, "SELECT count(*) AS n FROM deadlines WHERE subject = :id", id=game_id
        )
        assert left.n == 0


@pytest.mark.slow
def test_limits_hold_in_each_process_while_redis_is_down(
    postgres_url: str, own_redis: RedisServer
) -> None:
    limits = {
        "rate_limits": True,
        "create_rate": 0.01,
        "create_burst": 5,
        "login_failures_per_name": 3,
        "http_burst": 1000,
    }
    with _scaled(postgres_url, own_redis.url, **limits) as server:
        own_redis.halt()
        body = {"opponent": {"type": "hotseat"}, "rules": "cooper"}
        created = [_post(server, "/api/games", body).status_code for _ in range(30)]
        assert set(created) <= {201, 429}, created
        assert created.count(201) == 5, created  # the limit holds, counted in the process
        logins = [
            _post(server, "/api/account/login", {"name": "nobody", "password": "wrong one"})
            for _ in range(30)
        ]
        codes = [answer.status_code for answer in logins]
        assert all(code < 500 for code in codes), codes
        failed = [answer for answer in logins if answer.status_code == 401]
        # Then the name's tries wait (1 s, 2 s, ...), as with Redis: a few more may be tried.
        assert 1 <= len(failed) <= 5, codes
        assert codes.count(429) >= 25
        # Redis back: the limits are counted there again (a new client starts afresh there).
        own_redis.resume_serving()
        assert _until(lambda: _post(server, "/api/games", body).status_code == 429, 5)


def test_a_game_created_during_a_redis_outage_is_created_once(
    postgres_url: str, own_redis: RedisServer
) -> None:
    body = {"opponent": {"type": "friend"}, "rules": "cooper", "color": "random"}
    key = str(uuid.uuid4())
    with _scaled(postgres_url, own_redis.url) as server, httpx.Client(timeout=15) as browser:
        assert browser.get(f"{server.url}/api/games").status_code == 200  # its cookie
        own_redis.halt()

        def create(with_body: Json = body) -> httpx.Response:
            return browser.post(
                f"{server.url}/api/games", json=with_body, headers={"Idempotency-Key": key}
            )

        first = create()
        assert first.status_code in (201, 503), first.text
        if first.status_code == 503:
            assert first.headers["Retry-After"]
        again = create()
        assert again.status_code == 201, again.text
        game = again.json()
        if first.status_code == 201:
            assert first.json() == game | {"game": first.json()["game"]}
        # The game is read and played without Redis (as if nobody were connected).
        game_id, token = game["game"]["id"], game["seat"]["token"]
        read = browser.get(f"{server.url}/api/games/{game_id}")
        assert read.status_code == 200 and read.json()["version"] == 1, read.text
        own_redis.resume_serving()
        third = create()
        assert third.status_code == 201, third.text
        assert third.json()["game"]["id"] == game["game"]["id"]
        assert third.json()["seat"] == game["seat"]
        assert third.json()["invite"] == game["invite"]
        # The seat token given again plays the game; the invite code given again is its own.
        joined = _post(server, f"/api/games/{game_id}/join", {"invite": game["invite"]["code"]})
        assert joined.status_code == 200, joined.text
        with Socket(server.ws_url(game_id), token) as socket:
            assert socket.welcome["side"] == game["seat"]["side"]
        count = _row(postgres_url, "SELECT count(*) AS n FROM games")
        assert count.n == 1
        other = create({**body, "rules": "sackson"})
        assert other.status_code == 422
        assert other.json()["error"]["code"] == "idempotency_key_reused"


@pytest.fixture
def own_postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL server of this test's own, to stop and start again."""
    with PostgresServer() as server:
        yield server


def test_a_move_sent_while_postgresql_is_down_is_refused_then_stored_once(
    own_postgres: PostgresServer,
) -> None:
    url = own_postgres.url(own_postgres.new_database())
    with LiveServer(settings_for(url)) as server:
        created = _post(server, "/api/games", {"opponent": {"type": "hotseat"}, "rules": "cooper"})
        game_id, token = created.json()["game"]["id"], created.json()["seat"]["token"]
        auth = {"Authorization": f"Bearer {token}"}
        move = {"move": "d2-d3", "version": 1}
        with Socket(server.ws_url(game_id), token) as socket:
            own_postgres.halt()
            refused = _post(server, f"/api/games/{game_id}/moves", move, **auth)
            assert refused.status_code == 503, refused.text
            assert refused.json()["error"]["code"] == "store_unavailable"
            assert int(refused.headers["Retry-After"]) >= 1
            socket.send({"type": "move", **move, "ref": "m1"})
            error = socket.receive("error")
            assert error["code"] == "store_unavailable" and error["ref"] == "m1"
            assert error["retry_after"] >= 1
            own_postgres.resume_serving()
            stored = _until(
                lambda: (
                    answer
                    if (
                        answer := _post(server, f"/api/games/{game_id}/moves", move, **auth)
                    ).status_code
                    != 503
                    else None
                ),
                15,
            )
            assert stored is not None and stored.status_code == 200, stored
            assert stored.json()["version"] == 2
            socket.send({"type": "move", **move, "ref": "m2"})  # the socket's resend
            assert socket.receive("error", ref="m2")["code"] == "stale_version"
        state = httpx.get(f"{server.url}/api/games/{game_id}", timeout=10).json()
        assert state["moves"] == ["d2-d3"] and state["version"] == 2


@pytest.mark.slow
def test_time_that_ran_out_while_postgresql_was_down_is_given_back(
    own_postgres: PostgresServer, time_offset: Callable[[float], None]
) -> None:
    url = own_postgres.url(own_postgres.new_database())
    with LiveServer(settings_for(url)) as server:
        games = []
        for _ in range(2):  # one whose player moves once the database is back, one left alone
            created = _post(server, "/api/games", CLOCKED).json()
            game_id, token = created["game"]["id"], created["seat"]["token"]
            auth = {"Authorization": f"Bearer {token}"}
            first = _post(
                server, f"/api/games/{game_id}/moves", {"move": "d2-d3", "version": 1}, **auth
            )
            assert first.status_code == 200, first.text
            games.append((game_id, auth))
        # 12 of Gray's 15 seconds pass at once; once a heartbeat has noted the new time, Gray
        # has about 2 s left, and the database goes down for longer than that.
        time_offset(12)
        jumped = now_ms()
        noted = "SELECT value FROM server_state WHERE key = 'heartbeat_ms'"
        assert _until(lambda: int(_row(url, noted).value) > jumped, 5)
        watcher = Socket(server.ws_url(games[1][0]))
        own_postgres.halt()
        time.sleep(3.5)  # the outage: Gray's time runs out during it
        own_postgres.resume_serving()
        back = now_ms()

        # Gray's move, sent again until the database answers, is in time.
        (moved, auth), (left_alone, _) = games
        move = {"move": "f8-f7", "version": 2}
        answer = _until(
            lambda: (
                reply
                if (reply := _post(server, f"/api/games/{moved}/moves", move, **auth)).status_code
                != 503
                else None
            ),
            15,
        )
        assert answer is not None and answer.status_code == 200, answer
        assert answer.json()["game"]["status"] == "active"

        # The game left alone: its flag does not fall at once, but once Gray has had back the
        # time its clock ran during the outage; and it falls once.
        flag = watcher.receive("state", timeout=15)
        assert (flag["event"]["kind"], flag["event"]["side"]) == ("time", "gray"), flag
        assert flag["version"] == 3
        assert now_ms() - back > 1000, "the flag fell as the database came back"
        watcher.close()
        assert httpx.get(f"{server.url}/api/games/{left_alone}", timeout=10).json()["version"] == 3


def test_the_same_key_sent_twice_at_once_makes_one_game(
    make_server: Callable[..., LiveServer], time_offset: Callable[[float], None]
) -> None:
    server = make_server()
    body = {"opponent": {"type": "hotseat"}, "rules": "cooper"}
    key = {"Idempotency-Key": str(uuid.uuid4())}
    with httpx.Client(timeout=15) as browser:
        assert browser.get(f"{server.url}/api/games").status_code == 200  # its cookie
        with ThreadPoolExecutor(4) as pool:
            answers = list(
                pool.map(
                    lambda _: browser.post(f"{server.url}/api/games", json=body, headers=key),
                    range(4),
                )
            )
        assert [answer.status_code for answer in answers] == [201] * 4
        assert len({answer.json()["game"]["id"] for answer in answers}) == 1
        assert len({answer.json()["seat"]["token"] for answer in answers}) == 1
        listed = browser.get(f"{server.url}/api/games").json()["games"]
        assert len(listed) == 1
        # Another caller's same key is its own; a day later, the key makes a new game.
        other = httpx.post(f"{server.url}/api/games", json=body, headers=key, timeout=15)
        assert other.json()["game"]["id"] != answers[0].json()["game"]["id"]
        time_offset(24 * 3600 + 1)
        later = browser.post(f"{server.url}/api/games", json=body, headers=key)
        assert later.status_code == 201
        assert later.json()["game"]["id"] != answers[0].json()["game"]["id"]
        bad = browser.post(
            f"{server.url}/api/games", json=body, headers={"Idempotency-Key": "two words"}
        )
        assert bad.status_code == 422, bad.text


@pytest.mark.slow
def test_the_bot_sends_again_what_the_site_could_not_store(
    own_postgres: PostgresServer,
) -> None:
    url = own_postgres.url(own_postgres.new_database())
    with LiveServer(settings_for(url)) as server:
        body = {"opponent": {"type": "friend"}, "rules": "cooper", "color": "blue"}
        created = _post(server, "/api/games", body).json()
        game_id, blue = created["game"]["id"], created["seat"]["token"]
        joined = _post(server, f"/api/games/{game_id}/join", {"invite": created["invite"]["code"]})
        gray = joined.json()["seat"]["token"]
        first = _post(
            server,
            f"/api/games/{game_id}/moves",
            {"move": "d2-d3", "version": 2},
            Authorization=f"Bearer {blue}",
        )
        assert first.status_code == 200, first.text
        own_postgres.halt()
        said: list[str] = []
        stopping = threading.Event()
        with Engine(f"{sys.executable} -m bluegray engine") as engine:
            thinker = Thinker(engine, 30)
            bot = threading.Thread(
                target=play_game,
                args=(server.url, gray, game_id, thinker, said.append, stopping),
                daemon=True,
            )
            bot.start()
            assert _until(lambda: any("sending the move again" in line for line in said), 15)
            own_postgres.resume_serving()
            # The site, asked through the bot's HTTP client, answers once the database does.
            site = Site(server.url, gray)
            state = _until(
                lambda: (
                    (got := site.request("GET", f"/api/games/{game_id}"))["version"] == 4 and got
                ),
                20,
            )
            stopping.set()
            bot.join(timeout=10)
        assert state and len(state["moves"]) == 2, (state, said)
        assert httpx.get(f"{server.url}/api/games/{game_id}", timeout=10).json()["version"] == 4


def test_the_bots_http_requests_are_sent_again_after_a_503(
    own_postgres: PostgresServer,
) -> None:
    url = own_postgres.url(own_postgres.new_database())
    with LiveServer(settings_for(url)) as server:
        site = Site(server.url, "not-an-api-token")
        assert site.open_game("cooper", None, None)[0]
        own_postgres.halt()
        # Read while the database is down (the games listed come from the database, never
        # from a process's copy): sent again until it answers. PostgreSQL is started again from
        # this thread (a server dies with the thread that started it).
        with ThreadPoolExecutor(1) as pool:
            listed = pool.submit(site.request, "GET", "/api/games")
            time.sleep(1.5)  # the outage
            assert not listed.done()
            own_postgres.resume_serving()
            assert listed.result(timeout=20)["games"] == []  # none of this client's: answered
