"""The lobby and ratings on the scaled-out service, all real processes: two ``bluegray serve`` on
PostgreSQL and Redis. A seek posted on one process is seen on the other's lobby sockets and
accepted there, both players told over their account sockets on different processes; of two
players accepting one seek at once on the two processes exactly one gets the game; a seek goes
when its process dies; a rated game ended on either process is rated once."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.web.cluster import Node, service_env, two_processes
from tests.web.lobby_clients import Player, first_moves

pytestmark = pytest.mark.slow


@pytest.fixture
def web(tmp_path: Path, postgres_url: str, redis_url: str) -> Iterator[dict[str, Node]]:
    yield from two_processes(
        tmp_path, service_env(postgres_url, redis_url, lobby_sweep_seconds=0.3)
    )


@pytest.fixture
def web_sweeping_often(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> Iterator[dict[str, Node]]:
    """Two processes whose lobby sweeps (which also pair quick seeks) run every 20 ms."""
    env = service_env(postgres_url, redis_url, lobby_sweep_seconds=0.02)
    yield from two_processes(tmp_path, env)


def test_a_seek_posted_on_one_process_is_seen_and_accepted_on_the_other(
    web: dict[str, Node],
) -> None:
    a, b = web["A"].url, web["B"].url
    ada = Player(a, "ada")
    bob = Player(b, "bob")
    with (
        bob.socket("/ws/lobby") as lobby_b,
        ada.socket("/ws/account") as ada_news,
        bob.socket("/ws/account") as bob_news,
    ):
        assert lobby_b.welcome["process"] == "B" and ada_news.welcome["process"] == "A"
        lobby_b.receive("seeks")
        seek = ada.seek(rules="sackson", clock={"minutes": 3}, rated=True, color="gray")
        assert lobby_b.receive("seek")["seek"]["id"] == seek["id"]
        started = bob.post(f"/api/seeks/{seek['id']}/accept").json()
        assert started["side"] == "blue"
        assert ada_news.receive("game_started")["game"]["game_id"] == started["game_id"]
        assert bob_news.receive("game_started")["game"] == started
        assert lobby_b.receive("seek_gone")["id"] == seek["id"]
        # The game ends on process A (ada resigns): both ratings change once, seen on B.
        game_id = started["game_id"]
        first_moves({"ada": ada, "bob": bob}, {"game_id": game_id, "blue": "bob", "gray": "ada"})
        resigned = ada.post(f"/api/games/{game_id}/actions", {"action": "resign"})
        assert resigned.status_code == 200, resigned.text
        ratings = resigned.json()["ratings"]
        assert ratings["blue"]["change"] > 0 > ratings["gray"]["change"]
        assert bob.get(f"/api/games/{game_id}")["ratings"] == ratings
        profile = bob.get("/api/players/bob")["ratings"]
        assert [rating["games"] for rating in profile] == [1]


def take(
    player: Player, seek_id: str, ready: threading.Barrier, answers: list[httpx.Response]
) -> None:
    ready.wait()
    answers.append(player.post(f"/api/seeks/{seek_id}/accept"))


def test_two_players_accepting_one_seek_at_once_on_two_processes_one_plays(
    web: dict[str, Node],
) -> None:
    a, b = web["A"].url, web["B"].url
    ada = Player(a, "ada")
    takers = [Player(a, "bob"), Player(b, "cal")]
    for _ in range(5):
        seek = ada.seek()
        answers: list[httpx.Response] = []
        ready = threading.Barrier(2)

        threads = [
            threading.Thread(target=take, args=(player, seek["id"], ready, answers))
            for player in takers
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        codes = sorted(answer.status_code for answer in answers)
        assert codes[0] == 200 and codes[1] in (404, 409), [a.text for a in answers]
    games = ada.get("/api/players/ada")["recent_games"]
    assert len(games) == 5


def test_a_seek_goes_when_its_process_dies(web: dict[str, Node]) -> None:
    ada = Player(web["A"].url, "ada")
    bob = Player(web["B"].url, "bob")
    with ada.socket("/ws/lobby") as own, bob.socket("/ws/lobby") as watching:
        watching.receive("seeks")
        seek = ada.seek(connection=own.welcome["connection"])
        assert watching.receive("seek")["seek"]["id"] == seek["id"]
        web["A"].kill()
        gone = watching.receive("seek_gone", timeout=20)
        assert gone == {"type": "seek_gone", "id": seek["id"], "reason": "left"}
    assert bob.get("/api/seeks")["seeks"] == []


def press(player: Player, ready: threading.Barrier, answers: dict[str, httpx.Response]) -> None:
    ready.wait()
    answers[player.name] = player.post("/api/lobby/quick", {"pairing": "sackson-5+3"})


def test_two_players_pressing_quick_pairing_at_once_on_two_processes_meet(
    web_sweeping_often: dict[str, Node],
) -> None:
    """Each press stores its seek, then looks again for the other's; meanwhile a sweep on
    either process may pair the two stored seeks. Whichever pairs them, both players are told
    the one game on their sockets, and a press whose own seek was taken answers that game
    rather than a seek that is gone."""
    web = web_sweeping_often
    ada = Player(web["A"].url, "ada")
    bob = Player(web["B"].url, "bob")
    with ada.socket("/ws/account") as ada_news, bob.socket("/ws/account") as bob_news:
        for _ in range(8):
            answers: dict[str, httpx.Response] = {}
            ready = threading.Barrier(2)
            threads = [
                threading.Thread(target=press, args=(player, ready, answers))
                for player in (ada, bob)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            results = {name: answer.json() for name, answer in answers.items()}
            assert all(answer.status_code == 200 for answer in answers.values()), results
            games = {result["game"]["game_id"] for result in results.values() if result["game"]}
            assert len(games) == 1, results  # at least one was told the game, and one game
            game_id = games.pop()
            for result in results.values():  # the other one may still be waiting in its seek
                assert result["game"] or result["seek"]["id"] not in seek_ids(ada), results
            assert ada_news.receive("game_started")["game"]["game_id"] == game_id
            assert bob_news.receive("game_started")["game"]["game_id"] == game_id
    assert ada.get("/api/seeks")["seeks"] == []  # nobody is left waiting


def seek_ids(player: Player) -> list[str]:
    return [seek["id"] for seek in player.get("/api/seeks")["seeks"]]
