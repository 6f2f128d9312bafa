"""The games' records, board pictures and analyses over HTTP: a record downloaded and imported
back, bad records refused with their line, any ply's picture, and which games may be analysed
while they are played."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import pytest

from bluegray import Game, read_record
from bluegray.web.ai import local_queue
from bluegray.web.ai.jobs import AnalysisOutput, Job
from tests.web.conftest import (
    TestClient,
)
from tests.web.games.game_clients import BLUE_MOVE, GRAY_MOVE, auth, create, error_of, move

# -- records ----------------------------------------------------------------------------------


def test_a_record_downloads_and_imports_back_the_same_game(client: TestClient) -> None:
    created = create(client, rules="cooper")
    game, token = created["game"], created["seat"]["token"]
    for version, text in enumerate([BLUE_MOVE, GRAY_MOVE, "c2-c3"], start=1):
        assert move(client, game, token, text, version).status_code == 200
    download = client.get(f"/api/games/{game['id']}/record")
    assert download.status_code == 200
    assert download.headers["content-type"].startswith("text/plain")
    assert "attachment" in download.headers["content-disposition"]
    record = read_record(download.text)
    assert [str(m) for m in record.game.moves] == [BLUE_MOVE, GRAY_MOVE, "c2-c3"]
    assert record.tags["Rules"] == "cooper" and record.tags["GameId"] == game["id"]
    imported = client.post("/api/records", json={"text": download.text})
    assert imported.status_code == 201, imported.text
    copy = imported.json()
    assert copy["mode"] == "imported" and copy["moves"] == [BLUE_MOVE, GRAY_MOVE, "c2-c3"]
    assert copy["tags"]["GameId"] == game["id"]
    again = client.get(f"/api/games/{copy['id']}/record").text
    assert again == download.text
    listed = [item["id"] for item in client.get("/api/games").json()["games"]]
    assert listed[:2] == [copy["id"], game["id"]]


def test_a_finished_record_keeps_its_result(client: TestClient) -> None:
    text = '[Rules "cooper"]\n[Result "0-1"]\n[Termination "resign"]\n\n1. d2-d3 0-1\n'
    imported = client.post("/api/records", json={"text": text}).json()
    assert imported["outcome"]["winner"] == "gray" and imported["outcome"]["reason"] == "resign"
    assert imported["status"] == "finished" and imported["legal_moves"] == []


def test_a_record_holding_a_nul_character_is_refused(client: TestClient) -> None:
    """PostgreSQL cannot store the NUL character (it answered 500): refused on every database."""
    text = '[Rules "cooper"]\n\n1. d2-d3 {a \x00 comment} *\n'
    response = client.post("/api/records", json={"text": text})
    assert response.status_code == 422, response.text
    assert error_of(response)["code"] == "invalid_record"
    assert "NUL" in error_of(response)["message"]
    assert client.get("/api/games").json()["games"] == []


def test_a_bad_record_is_refused_with_its_line(client: TestClient) -> None:
    response = client.post("/api/records", json={"text": "1. d2-d3 e2-e9 *"})
    assert response.status_code == 422
    error = error_of(response)
    assert error["code"] == "invalid_record" and "line 1" in error["message"]


def test_positions_replay_the_game_ply_by_ply(client: TestClient) -> None:
    created = create(client, rules="cooper")
    game, token = created["game"], created["seat"]["token"]
    move(client, game, token, BLUE_MOVE, 1)
    move(client, game, token, GRAY_MOVE, 2)
    replay = client.get(f"/api/games/{game['id']}/positions").json()
    expected = Game("cooper")
    expected.push_all([BLUE_MOVE, GRAY_MOVE])
    assert [item["position"] for item in replay["positions"]] == [
        str(p) for p in expected.positions()
    ]
    assert [item["move"] for item in replay["positions"]] == [None, BLUE_MOVE, GRAY_MOVE]
    assert replay["positions"][2]["turn"] == "blue"


# -- pictures and analysis --------------------------------------------------------------------


def test_the_board_picture_of_any_ply(client: TestClient) -> None:
    created = create(client, rules="cooper")
    game, token = created["game"], created["seat"]["token"]
    move(client, game, token, BLUE_MOVE, 1)
    start = client.get(f"/api/games/{game['id']}/board.svg?ply=0")
    now = client.get(f"/api/games/{game['id']}/board.svg?flipped=true&highlights=e2,e3")
    assert start.status_code == now.status_code == 200
    assert start.headers["content-type"].startswith("image/svg+xml")
    assert "<title>" + str(Game("cooper").position) + "</title>" in start.text
    assert start.text.startswith("<svg") and start.text != now.text
    too_far = client.get(f"/api/games/{game['id']}/board.svg?ply=5")
    assert too_far.status_code == 422 and error_of(too_far)["code"] == "invalid_ply"
    any_position = client.get(
        "/api/board.svg",
        params={"rules": "super", "position": str(Game("super").position), "last_move": "d2-d3"},
    )
    assert any_position.status_code == 200 and "<svg" in any_position.text
    bad_point = client.get("/api/board.svg?highlights=k1")
    assert bad_point.status_code == 422


def test_analysis_of_a_game_and_of_a_position(client: TestClient) -> None:
    created = create(client, rules="cooper")
    game, token = created["game"], created["seat"]["token"]
    move(client, game, token, BLUE_MOVE, 1)
    result = client.get(f"/api/games/{game['id']}/analysis?ply=1&seconds=0.2").json()
    after = Game("cooper")
    after.push(BLUE_MOVE)
    assert result["position"] == str(after.position) and result["turn"] == "gray"
    assert result["best_move"] in [str(m) for m in after.legal_moves]
    assert result["pv"][0] == result["best_move"]
    assert 0 <= result["blue_expected"] <= 1 and result["depth"] >= 1
    assert result["description"]
    finished = client.post(
        "/api/analysis",
        json={"rules": "sackson", "position": "4c4/9/9/9/4C4/9/9/9/9 g 0 1", "seconds": 0.1},
    )
    assert finished.status_code == 200, finished.text
    body = finished.json()
    assert body["best_move"] is None and body["outcome"]["reason"] == "center"
    assert body["blue_expected"] == 1.0
    illegal = client.post("/api/analysis", json={"moves": ["e2-e4"], "seconds": 0.1})
    assert illegal.status_code == 422 and error_of(illegal)["code"] == "illegal_move"


def test_an_analysis_whose_engine_processes_keep_dying_is_refused_with_a_503(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It was a 500: the embedded queue let the pool's own error through after its one retry.
    def dying(job: Job) -> str | AnalysisOutput:
        raise BrokenProcessPool("an engine process died")

    monkeypatch.setattr(local_queue, "run_job", dying)
    refused = client.post("/api/analysis", json={"moves": [BLUE_MOVE], "seconds": 0.1})
    assert refused.status_code == 503, refused.text
    error = error_of(refused)
    assert error["code"] == "ai_unavailable" and "an engine process died" in error["message"]


def analysis_of(client: TestClient, game_id: str, query: str = "seconds=0.1") -> Any:
    return client.get(f"/api/games/{game_id}/analysis?{query}")


def assert_analysis_refused(response: Any) -> None:
    assert response.status_code == 409, response.text
    error = error_of(response)
    assert error["code"] == "not_allowed"
    assert "analysis is off" in error["message"] and "game ends" in error["message"]


def test_a_friend_game_is_not_analysed_while_it_is_played(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(analysis_burst=20)  # more analyses than the default burst of 5
    created = create(client, opponent={"type": "friend"}, color="blue")
    game_id, blue = created["game"]["id"], created["seat"]["token"]
    assert_analysis_refused(analysis_of(client, game_id))  # waiting for the friend
    joined = client.post(f"/api/games/{game_id}/join", json={"invite": created["invite"]["code"]})
    assert joined.status_code == 200, joined.text
    game = joined.json()["game"]
    assert move(client, game, blue, BLUE_MOVE, game["version"]).status_code == 200
    gray = joined.json()["seat"]["token"]
    assert move(client, game, gray, GRAY_MOVE, game["version"] + 1).status_code == 200
    # Active: refused at every ply, for players and spectators alike, with or without a token.
    assert_analysis_refused(analysis_of(client, game_id))
    assert_analysis_refused(analysis_of(client, game_id, "ply=0&seconds=0.1"))
    with_token = client.get(f"/api/games/{game_id}/analysis?seconds=0.1", headers=auth(blue))
    assert_analysis_refused(with_token)
    # A pasted position stays open, like a local engine.
    pasted = client.post("/api/analysis", json={"moves": [BLUE_MOVE], "seconds": 0.1})
    assert pasted.status_code == 200, pasted.text
    # Once the game ends (here by resignation), it opens.
    resigned = client.post(
        f"/api/games/{game_id}/actions", json={"action": "resign"}, headers=auth(blue)
    )
    assert resigned.status_code == 200 and resigned.json()["status"] == "finished"
    opened = analysis_of(client, game_id, "ply=1&seconds=0.1")
    assert opened.status_code == 200, opened.text
    assert opened.json()["turn"] == "gray" and opened.json()["best_move"]


def test_an_aborted_friend_game_is_analysed(client: TestClient) -> None:
    created = create(client, opponent={"type": "friend"})
    game_id, token = created["game"]["id"], created["seat"]["token"]
    aborted = client.post(
        f"/api/games/{game_id}/actions", json={"action": "abort"}, headers=auth(token)
    )
    assert aborted.status_code == 200 and aborted.json()["status"] == "aborted"
    assert analysis_of(client, game_id).status_code == 200


def test_ai_hotseat_and_imported_games_are_analysed_while_played(client: TestClient) -> None:
    ai = create(client, opponent={"type": "ai", "level": 1}, color="blue")["game"]
    hotseat = create(client)["game"]
    record = '[Rules "cooper"]\n[Result "*"]\n\n1. d2-d3 *\n'
    imported = client.post("/api/records", json={"text": record}).json()
    assert ai["status"] == "active" and hotseat["status"] == "active"
    for game_id in (ai["id"], hotseat["id"], imported["id"]):
        response = analysis_of(client, game_id)
        assert response.status_code == 200, response.text
        assert response.json()["best_move"]
