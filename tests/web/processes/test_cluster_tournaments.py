"""Tournaments on the scaled-out service, all real processes: two ``bluegray serve`` on
PostgreSQL and Redis. A Swiss created on one process is joined on the other, its round paired by
the durable timer, its game played on the other process, and its table seen live on both
processes' ``/ws/tournament/{id}`` sockets until the final table."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.cluster import Node, service_env, two_processes
from tests.web.lobby_clients import LiveSocket, Player, first_moves

pytestmark = pytest.mark.slow


@pytest.fixture
def web(tmp_path: Path, postgres_url: str, redis_url: str) -> Iterator[dict[str, Node]]:
    yield from two_processes(tmp_path, service_env(postgres_url, redis_url))


def table_until(socket: LiveSocket, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The first table the socket sends that passes ``check``."""
    while True:
        table: dict[str, Any] = socket.receive("tournament", timeout=30)["standings"]
        if check(table):
            return table


def test_a_tournament_created_on_one_process_is_joined_played_and_seen_on_both(
    web: dict[str, Node],
) -> None:
    ada, bob = Player(web["A"].url, "ada"), Player(web["B"].url, "bob")
    body = {
        "kind": "swiss",
        "name": "Two <processes>",
        "clock": {"minutes": 5, "increment_seconds": 3},
        "rounds": 1,
        "starts_in_seconds": 2,
    }
    created = ada.post("/api/tournaments", body)
    assert created.status_code == 201, created.text
    tid = created.json()["id"]
    with (
        ada.socket(f"/ws/tournament/{tid}") as on_a,
        bob.socket(f"/ws/tournament/{tid}") as on_b,
    ):
        assert on_a.welcome["process"] == "A" and on_b.welcome["process"] == "B"
        assert ada.post(f"/api/tournaments/{tid}/join").status_code == 200
        assert bob.post(f"/api/tournaments/{tid}/join").status_code == 200
        for socket in (on_a, on_b):  # the join on B is seen on A, and the other way round
            joined = table_until(socket, lambda t: len(t["standings"]) == 2)
            assert {line["name"] for line in joined["standings"]} == {"ada", "bob"}
        # The timer pairs the round (on whichever process): the game is seen on both.
        for socket in (on_a, on_b):
            table_until(socket, lambda t: t["tournament"]["status"] == "running")
        games = bob.get(f"/api/tournaments/{tid}/games")["games"]
        assert ada.get(f"/api/tournaments/{tid}/games")["games"] == games
        assert len(games) == 1 and games[0]["result"] is None
        game = games[0]
        gray = bob if game["gray"] == "bob" else ada
        first_moves({"ada": ada, "bob": bob}, game)
        resigned = gray.post(f"/api/games/{game['game_id']}/actions", {"action": "resign"})
        assert resigned.status_code == 200, resigned.text
        finals = [
            table_until(socket, lambda t: t["tournament"]["status"] == "finished")
            for socket in (on_a, on_b)
        ]
    assert finals[0]["standings"] == finals[1]["standings"]
    first = finals[0]["standings"][0]
    assert first["name"] == game["blue"] and first["score"] == 1 and first["wins"] == 1
    for player in (ada, bob):
        final = player.get(f"/api/tournaments/{tid}")
        assert final["tournament"]["status"] == "finished"
        assert final["standings"] == finals[0]["standings"]
        assert player.get(f"/api/tournaments/{tid}/games")["games"][0]["result"] == "1-0"
