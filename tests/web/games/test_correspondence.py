"""Correspondence games: days per move, each move's full allowance from the move before it, the
side to move's deadline in the game's state, and the loss on time by the cluster's durable
timers, also when the process that set the timer is gone and the next one runs days later."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from bluegray.web.platform.clocks import DAY_MS, Clock, time_class
from tests.servers import free_port
from tests.web.cluster import Node, nodes, service_env
from tests.web.conftest import Json, ServeProcess, TestClient
from tests.web.games.game_clients import BLUE_MOVE, GRAY_MOVE, create, error_of, move

DAY = 86_400


def settle(client: TestClient, game_id: str, test: Callable[[Json], bool], seconds: float) -> Json:
    """The game's state once ``test`` holds (the server's timers act on their own)."""
    deadline = time.monotonic() + seconds
    state: Json = client.get(f"/api/games/{game_id}").json()
    while not test(state) and time.monotonic() < deadline:
        time.sleep(0.1)  # poll interval: until the test holds, up to ``seconds``
        state = client.get(f"/api/games/{game_id}").json()
    return state


def test_the_time_class_of_a_game() -> None:
    assert time_class(Clock.new(60_000, 0), None) == "real-time"
    assert time_class(None, 3) == "correspondence"
    assert time_class(None, None) == "correspondence"  # no time limit at all, as on lichess


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"correspondence": {"days": 4}}, "correspondence.days"),
        ({"correspondence": {"days": 0}}, "correspondence.days"),
        ({"correspondence": {}}, "correspondence.days"),
        ({"correspondence": {"days": 3, "hours": 1}}, "correspondence.hours"),
        (
            {"correspondence": {"days": 3}, "clock": {"minutes": 5}},
            "a real-time clock or correspondence days per move, not both",
        ),
    ],
)
def test_days_per_move_are_one_of_six_and_exclude_a_clock(
    client: TestClient, body: Json, words: str
) -> None:
    answer = client.post("/api/games", json={"opponent": {"type": "hotseat"}, **body})
    assert answer.status_code == 422
    error = error_of(answer)
    assert error["code"] == "invalid_request" and words in error["message"]
    assert client.get("/api/games").json()["games"] == []  # nothing was made


@pytest.mark.parametrize("days", [1, 2, 3, 5, 7, 14])
def test_each_move_gets_the_whole_allowance_from_the_move_before(
    client: TestClient, time_offset: Callable[[float], None], days: int
) -> None:
    created = create(client, correspondence={"days": days})
    game, token = created["game"], created["seat"]["token"]
    state = game["correspondence"]
    assert game["clock"] is None and game["time_class"] == "correspondence"
    assert state["days_per_move"] == days and state["running"] == "blue"
    assert state["blue_deadline_ms"] == game["created_ms"] + days * DAY_MS
    assert state["gray_deadline_ms"] is None
    time_offset(days * DAY - 60)  # Blue moves a minute before its time runs out
    after = move(client, game, token, BLUE_MOVE, 1).json()["game"]
    moved_at = after["correspondence"]["server_time_ms"]
    gray = after["correspondence"]
    assert gray["running"] == "gray" and gray["blue_deadline_ms"] is None
    assert moved_at <= gray["gray_deadline_ms"] <= moved_at + days * DAY_MS
    assert gray["gray_deadline_ms"] >= game["created_ms"] + (2 * days * DAY_MS) - 61_000


def test_an_offer_keeps_the_deadline_and_a_takeback_starts_a_new_one(
    client: TestClient, time_offset: Callable[[float], None]
) -> None:
    created = create(client, opponent={"type": "friend"}, color="blue", correspondence={"days": 2})
    game, blue = created["game"], created["seat"]["token"]
    path = f"/api/games/{game['id']}"
    gray = client.post(f"{path}/join", json={"invite": created["invite"]["code"]}).json()
    # Both sides move first (before that a draw cannot be offered), then Blue again.
    move(client, game, blue, BLUE_MOVE, 2)
    move(client, game, gray["seat"]["token"], "f8-f7", 3)
    third = client.get(path).json()
    first = move(client, game, blue, third["legal_moves"][0], 4).json()["game"]
    deadline = first["correspondence"]["gray_deadline_ms"]
    time_offset(3600)
    offered = client.post(
        f"{path}/actions",
        json={"action": "offer_draw"},
        headers={"Authorization": f"Bearer {gray['seat']['token']}"},
    )
    assert offered.status_code == 200, offered.text
    assert offered.json()["correspondence"]["gray_deadline_ms"] == deadline
    asked = client.post(
        f"{path}/actions",
        json={"action": "request_takeback"},
        headers={"Authorization": f"Bearer {blue}"},
    ).json()
    taken = client.post(
        f"{path}/actions",
        json={"action": "accept_takeback"},
        headers={"Authorization": f"Bearer {gray['seat']['token']}"},
    ).json()
    assert asked["correspondence"]["gray_deadline_ms"] == deadline
    assert taken["ply"] == 2 and taken["correspondence"]["running"] == "blue"
    assert taken["correspondence"]["blue_deadline_ms"] >= deadline + 3_600_000


def test_the_side_to_move_loses_on_time_when_its_days_run_out(
    client: TestClient, time_offset: Callable[[float], None]
) -> None:
    created = create(client, correspondence={"days": 1})
    game, token = created["game"], created["seat"]["token"]
    move(client, game, token, BLUE_MOVE, 1)
    time_offset(DAY / 2)  # half a day: Gray still has time
    time.sleep(1.2)  # the timers look twice a second
    state = client.get(f"/api/games/{game['id']}").json()
    assert state["outcome"] is None and state["correspondence"]["running"] == "gray"
    time_offset(DAY + 5)
    state = settle(client, game["id"], lambda s: s["outcome"] is not None, 10)
    assert state["outcome"]["reason"] == "time" and state["outcome"]["winner"] == "blue"
    assert state["correspondence"]["running"] is None and state["status"] == "finished"
    late = move(client, game, token, GRAY_MOVE, state["version"])
    assert late.status_code == 409


def test_a_move_after_the_deadline_loses_even_before_the_timer_fires(
    make_client: Callable[..., TestClient], time_offset: Callable[[float], None]
) -> None:
    client = make_client(deadline_poll_seconds=10)
    created = create(client, correspondence={"days": 1})
    game, token = created["game"], created["seat"]["token"]
    move(client, game, token, BLUE_MOVE, 1)
    time_offset(DAY + 5)  # the process's own alarm was set a day ahead: it has not rung
    late = move(client, game, token, GRAY_MOVE, 2)
    assert late.status_code == 409 and "time ran out" in error_of(late)["message"]
    state = client.get(f"/api/games/{game['id']}").json()
    assert state["outcome"]["reason"] == "time" and state["outcome"]["winner"] == "blue"


def test_the_ai_side_has_no_deadline(client: TestClient) -> None:
    created = create(
        client, opponent={"type": "ai", "level": 1}, color="blue", correspondence={"days": 3}
    )
    game, token = created["game"], created["seat"]["token"]
    assert game["correspondence"]["running"] == "blue"
    after = move(client, game, token, BLUE_MOVE, 1).json()["game"]
    assert after["correspondence"]["running"] is None  # the AI's turn: no time runs
    state = settle(client, game["id"], lambda s: s["ply"] == 2, 30)
    assert state["ply"] == 2 and state["correspondence"]["running"] == "blue"
    assert (
        state["correspondence"]["blue_deadline_ms"]
        >= after["correspondence"]["server_time_ms"] + 3 * DAY_MS - 1000
    )


def test_a_friends_game_runs_from_the_join(client: TestClient) -> None:
    created = create(client, opponent={"type": "friend"}, correspondence={"days": 5})
    game = created["game"]
    assert game["status"] == "waiting" and game["correspondence"]["running"] is None
    joined = client.post(
        f"/api/games/{game['id']}/join", json={"invite": created["invite"]["code"]}
    ).json()["game"]
    assert joined["correspondence"]["running"] == "blue"
    assert joined["correspondence"]["days_per_move"] == 5


def test_a_rematch_keeps_the_days_per_move(client: TestClient) -> None:
    created = create(client, correspondence={"days": 7})
    game, token = created["game"], created["seat"]["token"]
    headers = {"Authorization": f"Bearer {token}"}
    path = f"/api/games/{game['id']}/actions"
    client.post(path, json={"action": "resign", "side": "blue"}, headers=headers)
    over = client.post(path, json={"action": "offer_rematch", "side": "blue"}, headers=headers)
    rematch = client.get(f"/api/games/{over.json()['rematch_id']}").json()
    assert rematch["correspondence"]["days_per_move"] == 7
    assert rematch["correspondence"]["running"] == rematch["turn"]


def _serve(database_url: str, offset_days: float, processes: list[ServeProcess]) -> ServeProcess:
    server = ServeProcess(
        free_port(),
        database_url,
        BLUEGRAY_TIME_OFFSET_SECONDS=str(offset_days * DAY),
        BLUEGRAY_DEADLINE_POLL_SECONDS="0.25",
        BLUEGRAY_RATE_LIMITS="false",
    )
    processes.append(server)
    server.wait_ready()
    return server


def _created(server: ServeProcess, **body: Any) -> Json:
    answer = server.post("/api/games", {"opponent": {"type": "hotseat"}, **body})
    assert answer.status_code == 201, answer.text
    created: Json = answer.json()
    return created


@pytest.mark.slow
def test_a_deadline_set_by_a_process_that_died_falls_in_the_next_one_days_later(
    database_url: str, processes: list[ServeProcess]
) -> None:
    first = _serve(database_url, 0, processes)
    late = _created(first, correspondence={"days": 1})
    early = _created(first, correspondence={"days": 2})
    for created in (late, early):
        game, token = created["game"], created["seat"]["token"]
        moved = first.post(
            f"/api/games/{game['id']}/moves", {"move": BLUE_MOVE, "version": 1}, token
        )
        assert moved.status_code == 200, moved.text
    deadline = early["game"]["created_ms"] + 2 * DAY_MS
    first.kill()  # its timers' rows stay in the database, held by nobody alive
    second = _serve(database_url, 1.5, processes)
    state: Json = {}
    limit = time.monotonic() + 20
    while time.monotonic() < limit:
        state = second.get(f"/api/games/{late['game']['id']}")
        if state["outcome"] is not None:
            break
        time.sleep(0.2)  # poll interval: until the late game's flag falls, up to 20 s
    assert state["outcome"]["reason"] == "time" and state["outcome"]["winner"] == "blue"
    running = second.get(f"/api/games/{early['game']['id']}")
    assert running["outcome"] is None and running["correspondence"]["running"] == "gray"
    shown = running["correspondence"]["gray_deadline_ms"]
    assert deadline <= shown <= deadline + 60_000  # from Blue's move, not moved by the restart
    assert running["correspondence"]["server_time_ms"] > deadline - DAY_MS // 2 - 60_000


@pytest.mark.slow
def test_a_worker_keeps_the_services_time_offset(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    """Scaled out, the AI's move is played by a worker: the next deadline is counted from the
    worker's clock, which must run at the same offset as the web processes' (else the player
    would find their time gone, ten days before they were given it)."""
    env = service_env(postgres_url, redis_url, time_offset_seconds=10 * DAY)
    with nodes() as started:
        web = Node.serve("A", env, tmp_path)
        started.append(web)
        web.wait_ready()
        started.append(Node.worker("W1", env, tmp_path, processes=1))
        client = httpx.Client(base_url=web.url, timeout=20)
        created = client.post(
            "/api/games",
            json={
                "opponent": {"type": "ai", "level": 1},
                "color": "gray",
                "correspondence": {"days": 3},
            },
        ).json()
        game_id = created["game"]["id"]
        state: Json = created["game"]
        limit = time.monotonic() + 60
        while state["ply"] < 1 and time.monotonic() < limit:
            time.sleep(0.2)  # poll interval: until the AI has moved, up to 60 s
            state = client.get(f"/api/games/{game_id}").json()
        client.close()
    assert state["ply"] == 1 and state["outcome"] is None, state
    running = state["correspondence"]
    assert running["running"] == "gray"
    now = running["server_time_ms"]
    assert now - 60_000 < running["gray_deadline_ms"] - 3 * DAY_MS <= now


def test_first_moves_that_never_come_abort_a_game_between_two_people(
    make_client: Callable[..., TestClient], time_offset: Callable[[float], None]
) -> None:
    """As a real-time game's first moves have a minute, a correspondence game's have its days
    per move: the side that lets them run out aborts the game (unrated, nobody's loss) instead
    of losing it on time, by the deadline's timer or by a late move."""
    # The late move first: the app of the timer's turn, polling its deadlines every 0.25 s, is
    # still running after its turn, and took the late move's game (aborted it) before the move.
    for timer_fires in (False, True):
        client = make_client(deadline_poll_seconds=0.25 if timer_fires else 10)
        created = create(
            client, opponent={"type": "friend"}, color="blue", correspondence={"days": 1}
        )
        game, blue = created["game"], created["seat"]["token"]
        joined = client.post(
            f"/api/games/{game['id']}/join", json={"invite": created["invite"]["code"]}
        ).json()
        gray = joined["seat"]["token"]
        answer = move(client, game, blue, BLUE_MOVE, joined["game"]["version"])
        assert answer.status_code == 200, (timer_fires, answer.text)
        after = answer.json()["game"]
        time_offset(DAY + 5)
        if timer_fires:
            state = settle(client, game["id"], lambda s: s["status"] != "active", 10)
        else:
            late = move(client, game, gray, GRAY_MOVE, after["version"])
            assert late.status_code == 409
            assert "before its first move: the game is aborted" in error_of(late)["message"]
            state = client.get(f"/api/games/{game['id']}").json()
        assert state["status"] == "aborted" and state["outcome"] is None
        assert state["correspondence"]["running"] is None
        time_offset(0)
