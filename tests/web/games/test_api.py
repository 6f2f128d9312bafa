"""The HTTP API: creating and playing games, errors, lists, records, pictures, analysis, and the
limits and headers that keep the server safe."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import WebSocketDenialResponse

from bluegray import PRESETS, Game, read_record
from bluegray.rules import RuleSet
from bluegray.web.app import create_app
from bluegray.web.games import service as service_module
from tests.web.conftest import (
    Json,
    TestClient,
    clear_of_a_window_edge,
    ids_page_by_page,
    settings_for,
)

BLUE_MOVE = "d2-d3"
GRAY_MOVE = "f8-f7"


def create(client: TestClient, **body: Any) -> Json:
    body.setdefault("opponent", {"type": "hotseat"})
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    created: Json = response.json()
    return created


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def move(client: TestClient, game: Json, token: str, text: str, version: int) -> Any:
    return client.post(
        f"/api/games/{game['id']}/moves",
        json={"move": text, "version": version},
        headers=auth(token),
    )


def error_of(response: Any) -> Json:
    body: Json = response.json()
    assert set(body) == {"error"}, body
    error: Json = body["error"]
    assert isinstance(error["code"], str) and error["message"]
    return error


# -- rules and presets ------------------------------------------------------------------------


def test_presets_list_all_fourteen_with_descriptions_and_levels(client: TestClient) -> None:
    body = client.get("/api/rules").json()
    names = [preset["name"] for preset in body["presets"]]
    assert names == list(PRESETS)
    for preset in body["presets"]:
        rules = PRESETS[preset["name"]]
        assert preset["description"] == rules.description
        assert preset["settings"] == rules.settings()
        assert preset["start"] == str(Game(rules).position)
    assert [level["level"] for level in body["levels"]] == list(range(1, 9))
    assert body["levels"][7]["seconds"] == 2.0


def test_custom_rules_are_parsed_and_bad_ones_refused(client: TestClient) -> None:
    body = client.post("/api/rules/parse", json={"text": "cooper impasse-plies=50"}).json()
    assert body["name"] is None
    assert body["settings"]["impasse-plies"] == "50"
    assert body["text"] == str(RuleSet.parse("cooper impasse-plies=50"))
    response = client.post("/api/rules/parse", json={"text": "cooper speed=fast"})
    assert response.status_code == 422
    error = error_of(response)
    assert error["code"] == "invalid_rules" and "speed" in error["message"]


# -- creating games ---------------------------------------------------------------------------


def test_a_hotseat_game_has_one_token_for_both_sides(client: TestClient) -> None:
    created = create(client, rules="super-light", color="gray")
    game = created["game"]
    assert created["seat"]["side"] == "both" and created["invite"] is None
    assert game["mode"] == "hotseat" and game["status"] == "active" and game["version"] == 1
    assert game["rules"]["name"] == "super-light"
    assert game["position"] == str(Game("super-light").position) == game["start"]
    assert game["legal_moves"] == [str(m) for m in Game("super-light").legal_moves]
    assert game["seats"]["blue"]["player"] == game["seats"]["gray"]["player"] == "human"
    token = created["seat"]["token"]
    assert len(token) >= 40 and token not in client.get(f"/api/games/{game['id']}").text


def test_an_ai_game_seats_the_ai_on_the_other_side(client: TestClient) -> None:
    created = create(client, opponent={"type": "ai", "level": 2}, color="blue")
    game = created["game"]
    assert created["seat"]["side"] == "blue"
    assert game["mode"] == "ai"
    assert game["seats"]["gray"] == {
        "player": "ai",
        "level": 2,
        "connected": True,
        "away_since_ms": None,
    }
    assert game["turn"] == "blue" and game["ai_thinking"] is False


def test_a_friend_game_waits_for_the_friend_who_joins_by_invite(client: TestClient) -> None:
    created = create(client, opponent={"type": "friend"}, color="random")
    game, seat, invite = created["game"], created["seat"], created["invite"]
    assert game["status"] == "waiting" and seat["side"] in ("blue", "gray")
    assert invite["path"] == f"/game/{game['id']}#join={invite['code']}"
    refused = move(client, game, seat["token"], BLUE_MOVE, 1)
    assert refused.status_code == 409 and error_of(refused)["code"] in (
        "not_started",
        "not_your_turn",
    )
    wrong = client.post(f"/api/games/{game['id']}/join", json={"invite": "not-the-code"})
    assert wrong.status_code == 403 and error_of(wrong)["code"] == "forbidden"
    joined = client.post(f"/api/games/{game['id']}/join", json={"invite": invite["code"]})
    assert joined.status_code == 200, joined.text
    other = joined.json()["seat"]
    assert {seat["side"], other["side"]} == {"blue", "gray"}
    assert joined.json()["game"]["status"] == "active"
    assert joined.json()["game"]["version"] == 2
    again = client.post(f"/api/games/{game['id']}/join", json={"invite": invite["code"]})
    assert again.status_code == 409


def test_a_random_colour_gives_both_colours_sometimes(client: TestClient) -> None:
    sides = {create(client, opponent={"type": "friend"})["seat"]["side"] for _ in range(20)}
    assert sides == {"blue", "gray"}


def test_a_game_can_start_from_a_position(client: TestClient) -> None:
    position = "4c4/9/9/9/9/9/9/9/4C4 b 0 1"
    created = create(client, rules="classic-light", position=position)
    assert created["game"]["start"] == position
    bad = client.post(
        "/api/games",
        json={"rules": "sackson", "position": "9/9 b 0 1", "opponent": {"type": "hotseat"}},
    )
    assert bad.status_code == 422 and error_of(bad)["code"] == "invalid_position"


def test_creation_is_validated(client: TestClient) -> None:
    cases = [
        {"opponent": {"type": "ai", "level": 9}},
        {"opponent": {"type": "robot"}},
        {"opponent": {"type": "hotseat"}, "color": "red"},
        {"opponent": {"type": "hotseat"}, "clock": {"minutes": 0}},
        {"opponent": {"type": "hotseat"}, "clock": {"minutes": 1e-9}},  # lost on time at once
        {"opponent": {"type": "hotseat"}, "clock": {"minutes": 5, "increment_seconds": 1e6}},
        {"opponent": {"type": "hotseat"}, "surprise": True},
        {"opponent": {"type": "hotseat"}, "rules": "x" * 301},
    ]
    for body in cases:
        response = client.post("/api/games", json=body)
        assert response.status_code == 422, body
        assert error_of(response)["code"] == "invalid_request"


# -- moves ------------------------------------------------------------------------------------


def test_moves_are_played_and_acknowledged_with_the_new_version(client: TestClient) -> None:
    created = create(client, rules="cooper")
    game, token = created["game"], created["seat"]["token"]
    first = move(client, game, token, BLUE_MOVE, 1)
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["version"] == 2 and body["move"] == BLUE_MOVE
    state = body["game"]
    assert state["moves"] == [BLUE_MOVE] and state["turn"] == "gray" and state["ply"] == 1
    assert state["last_move"] == {
        "text": BLUE_MOVE,
        "side": "blue",
        "points": ["d2", "d3"],
        "captured": [],
    }
    expected = Game("cooper")
    expected.push(BLUE_MOVE)
    assert state["position"] == str(expected.position)
    assert state["legal_moves"] == [str(m) for m in expected.legal_moves]
    second = move(client, game, token, GRAY_MOVE.upper(), 2)  # case does not matter
    assert second.status_code == 200 and second.json()["version"] == 3
    assert client.get(f"/api/games/{game['id']}").json()["moves"] == [BLUE_MOVE, GRAY_MOVE]


def test_rejected_moves_give_a_clear_error_and_change_nothing(client: TestClient) -> None:
    created = create(client, opponent={"type": "friend"}, color="blue")
    game, blue = created["game"], created["seat"]["token"]
    gray = client.post(
        f"/api/games/{game['id']}/join", json={"invite": created["invite"]["code"]}
    ).json()["seat"]["token"]
    before = client.get(f"/api/games/{game['id']}").json()
    cases = [
        (blue, "e2-e4", 2, 422, "illegal_move", "e2-e4"),
        (blue, "d2-d3-d4", 2, 422, "invalid_move", "d2-d3-d4"),
        (blue, "z9-z8", 2, 422, "invalid_move", "z9"),
        (gray, GRAY_MOVE, 2, 409, "not_your_turn", "Blue"),
        (blue, BLUE_MOVE, 1, 409, "stale_version", "version 2"),
        ("forged-token", BLUE_MOVE, 2, 403, "forbidden", "token"),
    ]
    for token, text, version, status, code, words in cases:
        response = move(client, game, token, text, version)
        assert response.status_code == status, (text, response.text)
        error = error_of(response)
        assert error["code"] == code and words in error["message"], error
    unauthenticated = client.post(
        f"/api/games/{game['id']}/moves", json={"move": BLUE_MOVE, "version": 2}
    )
    assert unauthenticated.status_code == 401
    assert client.get(f"/api/games/{game['id']}").json() == before
    assert move(client, game, blue, BLUE_MOVE, 2).status_code == 200


def test_a_game_that_is_over_takes_no_moves(client: TestClient) -> None:
    created = create(client)
    game, token = created["game"], created["seat"]["token"]
    resigned = client.post(
        f"/api/games/{game['id']}/actions",
        json={"action": "resign", "side": "gray"},
        headers=auth(token),
    )
    assert resigned.status_code == 200
    outcome = resigned.json()["outcome"]
    assert outcome == {
        "winner": "blue",
        "reason": "resign",
        "result": "1-0",
        "description": "Blue wins: resignation",
    }
    assert resigned.json()["legal_moves"] == []
    response = move(client, game, token, BLUE_MOVE, resigned.json()["version"])
    assert response.status_code == 409 and error_of(response)["code"] == "game_over"


def test_a_game_that_reaches_the_end_by_the_rules_is_finished(client: TestClient) -> None:
    # Blue's captain is one step from the centre.
    position = "4c4/9/9/3C5/9/9/9/9/9 b 0 1"
    created = create(client, rules="sackson", position=position)
    game, token = created["game"], created["seat"]["token"]
    board = Game("sackson", position)
    winning = next(m for m in board.legal_moves if str(m).endswith("e5"))
    state = move(client, game, token, str(winning), 1).json()["game"]
    assert state["status"] == "finished"
    assert state["outcome"]["reason"] == "center" and state["outcome"]["winner"] == "blue"
    assert state["advancement"]["blue"] == 17


def test_captures_are_counted_for_the_side_that_made_them(client: TestClient) -> None:
    position = "4c4/9/9/9/3g5/3G5/9/9/4C4 b 0 1"
    created = create(client, rules="cooper", position=position)
    assert created["game"]["legal_moves"] == ["d4xd6"]  # capturing is compulsory
    state = move(client, created["game"], created["seat"]["token"], "d4xd6", 1).json()["game"]
    assert state["captures"] == {"blue": 1, "gray": 0}
    assert state["last_move"]["captured"] == ["d5"]


# -- clocks -----------------------------------------------------------------------------------


def test_the_clock_starts_with_the_first_move_and_flags_a_player(
    client: TestClient, time_offset: Callable[[float], None]
) -> None:
    created = create(client, clock={"minutes": 0.25, "increment_seconds": 0})
    game, token = created["game"], created["seat"]["token"]
    clock = created["game"]["clock"]
    assert clock["blue_ms"] == clock["gray_ms"] == 15_000 and clock["running"] is None
    time_offset(16)  # Blue's first move is free: no clock runs yet
    state = move(client, game, token, BLUE_MOVE, 1).json()["game"]
    assert state["clock"]["running"] == "gray" and state["clock"]["blue_ms"] == 15_000
    time_offset(32)  # Gray's 15 seconds run out: the server's timers notice it
    deadline = time.monotonic() + 5
    while state["outcome"] is None and time.monotonic() < deadline:
        time.sleep(0.1)  # poll interval: until the server's timers flag Gray, up to 5 s
        state = client.get(f"/api/games/{game['id']}").json()
    assert state["outcome"]["reason"] == "time" and state["outcome"]["winner"] == "blue"
    assert state["clock"]["gray_ms"] == 0 and state["clock"]["running"] is None
    assert state["status"] == "finished"


def test_the_increment_is_added_after_each_move(client: TestClient) -> None:
    created = create(client, clock={"minutes": 1, "increment_seconds": 2})
    game, token = created["game"], created["seat"]["token"]
    move(client, game, token, BLUE_MOVE, 1)
    state = move(client, game, token, GRAY_MOVE, 2).json()["game"]
    gray = state["clock"]["gray_ms"]
    assert 60_000 < gray <= 62_000  # charged a moment, credited two seconds
    assert state["clock"]["running"] == "blue"


# -- lists ------------------------------------------------------------------------------------


def test_each_browser_lists_its_own_games_newest_first(
    make_client: Callable[..., TestClient],
) -> None:
    first = make_client()
    ids = [create(first)["game"]["id"] for _ in range(3)]
    listed = first.get("/api/games").json()
    assert [game["id"] for game in listed["games"]] == ids[::-1]
    assert listed["games"][0]["role"] == "both" and listed["next_before_ms"] is None
    page = first.get("/api/games?limit=2").json()
    assert len(page["games"]) == 2 and page["next_before_ms"] is not None
    # A browser without the cookie sees none of them.
    first.cookies.clear()
    assert first.get("/api/games").json()["games"] == []


def test_games_created_in_the_same_millisecond_are_all_listed_page_by_page(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service_module, "now_ms", lambda: 1_700_000_000_000)
    ids = {create(client)["game"]["id"] for _ in range(3)}
    seen = ids_page_by_page(client.get, "/api/games", limit=1)
    assert sorted(seen) == sorted(ids) and len(seen) == 3
    assert seen == sorted(ids, reverse=True)  # newest first, then by id


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


# -- the page and the schema ------------------------------------------------------------------


def test_the_pages_are_served_with_their_scripts(client: TestClient) -> None:
    lobby = client.get("/")
    assert lobby.status_code == 200 and "text/html" in lobby.headers["content-type"]
    assert '<script src="/static/lobby.js"' in lobby.text
    assert "<script>" not in lobby.text  # no inline script: the policy would block it
    for name in PRESETS:
        assert f'value="{name}"' in lobby.text
    game = create(client)["game"]
    page = client.get(f"/game/{game['id']}")
    assert page.status_code == 200 and f'data-game-id="{game["id"]}"' in page.text
    assert client.get("/game/no-such-game").status_code == 404
    for asset in ("lobby.js", "game.js", "app.css"):
        assert client.get(f"/static/{asset}").status_code == 200


def test_the_openapi_schema_describes_the_api(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    paths = schema["paths"]
    for path in (
        "/api/games",
        "/api/games/{game_id}",
        "/api/games/{game_id}/moves",
        "/api/games/{game_id}/actions",
        "/api/games/{game_id}/join",
        "/api/games/{game_id}/record",
        "/api/games/{game_id}/board.svg",
        "/api/games/{game_id}/positions",
        "/api/games/{game_id}/analysis",
        "/api/records",
        "/api/analysis",
        "/api/rules",
        "/api/board.svg",
    ):
        assert path in paths, path
    components = schema["components"]["schemas"]
    for model in ("GameState", "CreateGameRequest", "MoveRequest", "ErrorResponse"):
        assert model in components
    assert "HTTPBearer" in schema["components"]["securitySchemes"]
    ws = client.get("/api/ws/schema").json()
    assert "hello" in str(ws["client_to_server"]) and "state" in str(ws["server_to_client"])


# -- safety -----------------------------------------------------------------------------------


def test_every_response_has_the_security_headers(client: TestClient) -> None:
    for url in ("/", "/api/rules", "/api/games/nothing-here", "/static/app.css"):
        headers = client.get(url).headers
        policy = headers["content-security-policy"]
        assert "default-src 'self'" in policy and "script-src 'self'" in policy
        assert "frame-ancestors 'none'" in policy and "unsafe-inline" not in policy
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
        assert headers["referrer-policy"] == "no-referrer"
    client.cookies.clear()
    cookie = client.get("/").headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie


def test_errors_are_json_without_stack_traces(client: TestClient) -> None:
    missing = client.get("/api/games/nothing-here")
    assert missing.status_code == 404 and error_of(missing)["code"] == "not_found"
    unknown = client.get("/api/nowhere")
    assert unknown.status_code == 404 and error_of(unknown)["code"] == "not_found"
    bad_id = client.get("/api/games/bad%20id!")
    assert bad_id.status_code == 422
    wrong_method = client.delete("/api/rules")
    assert wrong_method.status_code in (405, 415) and error_of(wrong_method)
    malformed = client.post(
        "/api/games",
        content=b'{"opponent": {"type": "hot',
        headers={"content-type": "application/json"},
    )
    assert malformed.status_code == 422
    error = error_of(malformed)
    assert error["code"] == "invalid_request" and "Traceback" not in malformed.text


def test_a_body_that_is_not_json_is_refused(client: TestClient) -> None:
    # A cross-site form can post text/plain or a form without asking; JSON needs our consent.
    response = client.post(
        "/api/games",
        content=b'{"opponent": {"type": "hotseat"}}',
        headers={"content-type": "text/plain"},
    )
    assert response.status_code == 415 and error_of(response)["code"] == "unsupported_media_type"


def test_an_oversized_body_is_refused(make_client: Callable[..., TestClient]) -> None:
    client = make_client(max_body_bytes=1000)
    text = '[Rules "cooper"]\n\n' + "{" + "x" * 2000 + "} *"
    response = client.post("/api/records", json={"text": text})
    assert response.status_code == 413 and error_of(response)["code"] == "payload_too_large"
    assert client.post("/api/records", json={"text": "1. d2-d3 *"}).status_code == 201


def test_too_many_requests_are_refused_until_the_window_moves_on(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(http_rate=2, http_burst=5)  # at most 5 in any 3 seconds
    statuses = [client.get("/api/rules").status_code for _ in range(8)]
    assert statuses[:5] == [200] * 5 and 429 in statuses[5:]
    refused = client.get("/api/rules")
    assert refused.status_code == 429 and error_of(refused)["code"] == "rate_limited"
    assert int(refused.headers["retry-after"]) >= 1
    refused_at = time.monotonic()
    while client.get("/api/rules").status_code == 429:  # until the window moves on
        assert time.monotonic() - refused_at < 10, "still refused long after the window"
        time.sleep(0.25)  # poll interval: until the rate limit's window moves on, up to 10 s
    assert time.monotonic() - refused_at >= 0.25


def test_creating_games_has_its_own_stricter_limit(make_client: Callable[..., TestClient]) -> None:
    client = make_client(create_rate=0.001, create_burst=2)
    clear_of_a_window_edge((0.001, 2))
    statuses = [
        client.post("/api/games", json={"opponent": {"type": "hotseat"}}).status_code
        for _ in range(3)
    ]
    assert statuses == [201, 201, 429]
    assert client.get("/api/rules").status_code == 200


def test_game_ids_and_tokens_are_unguessable(client: TestClient) -> None:
    created = [create(client) for _ in range(5)]
    ids = {item["game"]["id"] for item in created}
    tokens = {item["seat"]["token"] for item in created}
    assert len(ids) == len(tokens) == 5
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{12}", game_id) for game_id in ids)
    assert all(len(token) >= 43 for token in tokens)


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_can_be_played(client: TestClient, name: str) -> None:
    created = create(client, rules=name)
    game = created["game"]
    first = game["legal_moves"][0]
    response = move(client, game, created["seat"]["token"], first, 1)
    assert response.status_code == 200, response.text
    assert response.json()["game"]["moves"] == [first]


def test_a_game_can_be_aborted_only_before_both_sides_have_moved(client: TestClient) -> None:
    created = create(client)
    game, token = created["game"], created["seat"]["token"]
    move(client, game, token, BLUE_MOVE, 1)
    aborted = client.post(
        f"/api/games/{game['id']}/actions", json={"action": "abort"}, headers=auth(token)
    )
    assert aborted.status_code == 200 and aborted.json()["status"] == "aborted"
    assert aborted.json()["outcome"] is None and aborted.json()["legal_moves"] == []
    later = create(client)
    for version, text in enumerate([BLUE_MOVE, GRAY_MOVE], start=1):
        move(client, later["game"], later["seat"]["token"], text, version)
    refused = client.post(
        f"/api/games/{later['game']['id']}/actions",
        json={"action": "abort"},
        headers=auth(later["seat"]["token"]),
    )
    assert refused.status_code == 409 and error_of(refused)["code"] == "not_allowed"


def test_a_new_invite_replaces_the_old_one(client: TestClient) -> None:
    created = create(client, opponent={"type": "friend"})
    game_id, token = created["game"]["id"], created["seat"]["token"]
    fresh = client.post(f"/api/games/{game_id}/invite", json={}, headers=auth(token))
    assert fresh.status_code == 200 and fresh.json()["code"] != created["invite"]["code"]
    stale = client.post(f"/api/games/{game_id}/join", json={"invite": created["invite"]["code"]})
    assert stale.status_code == 403
    joined = client.post(f"/api/games/{game_id}/join", json={"invite": fresh.json()["code"]})
    assert joined.status_code == 200


def test_an_unexpected_failure_is_a_bare_json_500(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = create_app(settings_for(database_url))
    with TestClient(app, raise_server_exceptions=False) as client:

        async def broken(game_id: str) -> None:
            raise RuntimeError("secret internals")

        monkeypatch.setattr(app.state.service, "state", broken)
        response = client.get("/api/games/abc")
        assert response.status_code == 500
        assert response.json() == {
            "error": {
                "code": "internal_error",
                "message": "internal server error",
                "request_id": response.headers["x-request-id"],
            }
        }
        assert "secret" not in response.text
        assert response.headers["x-content-type-options"] == "nosniff"


# -- what an attacker tried (issue 28) --------------------------------------------------------


def test_a_body_that_is_not_readable_json_is_an_invalid_request(client: TestClient) -> None:
    bodies = [
        b"\xff\xfe not UTF-8",
        b"[" * 100_000 + b"]" * 100_000,  # nested too deep
        b'{"rules": ' + b"9" * 5000 + b"}",  # more digits than Python reads
    ]
    for body in bodies:
        answer = client.post(
            "/api/games", content=body, headers={"content-type": "application/json"}
        )
        assert answer.status_code == 422, body[:20]
        assert error_of(answer)["code"] == "invalid_request"
    assert client.get("/api/games").json()["games"] == []  # nothing was created


def test_a_method_the_api_does_not_have_is_405_not_415(client: TestClient) -> None:
    answer = client.delete("/api/health")
    assert answer.status_code == 405 and error_of(answer)["code"] == "method_not_allowed"


def test_a_huge_before_ms_is_refused_not_a_server_error(client: TestClient) -> None:
    answer = client.get("/api/games?before_ms=9223372036854775808")
    assert answer.status_code == 422 and error_of(answer)["code"] == "invalid_request"
    assert client.get(f"/api/games?before_ms={2**53 - 1}").status_code == 200


def test_a_player_who_never_opened_a_socket_is_away_only_from_their_turn(
    make_client: Callable[..., TestClient], time_offset: Callable[[float], None]
) -> None:
    """A seat with no socket was counted away since the server started: the opponent could
    claim the win 0.3 s after the friend joined (issue 28, item 1)."""
    client = make_client(abandon_seconds=1.0)
    time.sleep(1.5)  # the server has been up longer than the abandon time
    created = create(client, opponent={"type": "friend"}, color="blue", rules="cooper")
    game, blue = created["game"], created["seat"]["token"]
    joined = client.post(
        f"/api/games/{game['id']}/join", json={"invite": created["invite"]["code"]}
    ).json()
    assert joined["game"]["seats"]["gray"]["connected"] is False
    gray = joined["seat"]["token"]
    # Both sides move first: before that a game between two people can only be aborted.
    answer = move(client, joined["game"], blue, "d2-d3", joined["game"]["version"]).json()
    answer = move(client, answer["game"], gray, answer["game"]["legal_moves"][0], answer["version"])
    moved_at = int(time.time() * 1000)
    after = answer.json()["game"]
    answer = move(client, after, blue, after["legal_moves"][0], after["version"]).json()
    claim_at = answer["game"]["claim_win_at_ms"]
    assert claim_at >= moved_at + 1000  # away from the start of Gray's turn, not before
    refused = client.post(
        f"/api/games/{game['id']}/actions",
        json={"action": "claim_win"},
        headers={"Authorization": f"Bearer {blue}"},
    )
    assert refused.status_code == 409 and error_of(refused)["code"] == "not_allowed"
    time_offset(max(0.0, (claim_at - int(time.time() * 1000)) / 1000) + 0.2)  # the claim's time
    claimed = client.post(
        f"/api/games/{game['id']}/actions",
        json={"action": "claim_win"},
        headers={"Authorization": f"Bearer {blue}"},
    )
    assert claimed.status_code == 200 and claimed.json()["outcome"]["reason"] == "abandoned"


def test_only_known_host_names_are_served(client: TestClient) -> None:
    """DNS rebinding: a page on another site that points its name at this server gets nothing
    (issue 28, item 7)."""
    answer = client.get("/api/rules", headers={"host": "evil.example"})
    assert answer.status_code == 400 and error_of(answer)["code"] == "invalid_host"
    assert answer.headers["x-frame-options"] == "DENY"
    assert client.get("/api/rules", headers={"host": "127.0.0.1:8000"}).status_code == 200
    with pytest.raises(WebSocketDenialResponse) as refused:  # noqa: SIM117
        with client.websocket_connect(
            "/ws/games/abc", headers={"host": "evil.example", "origin": "http://evil.example"}
        ):
            pass
    assert refused.value.status_code == 400
    assert refused.value.headers["content-security-policy"].startswith("default-src 'self'")
    assert refused.value.json()["error"]["code"] == "invalid_host"


def test_every_answer_names_the_process_and_the_process_says_it_is_ready(
    client: TestClient,
) -> None:
    process = client.get("/api/health").json()["process"]
    for answer in (
        client.get("/api/health"),
        client.get("/api/games/nonexistent"),
        client.post("/api/games", json={"opponent": {"type": "robot"}}),
        client.get("/learn"),
    ):
        assert answer.headers["x-bluegray-process"] == process
    ready = client.get("/api/ready")
    assert ready.status_code == 200 and ready.json()["mode"] == "embedded"
    assert {check["name"]: check["ok"] for check in ready.json()["checks"]} == {
        "database": True,
        "workers": True,
    }


def test_metrics_count_moves_and_errors(client: TestClient) -> None:
    created = create(client)
    move(client, created["game"], created["seat"]["token"], BLUE_MOVE, 1)
    move(client, created["game"], created["seat"]["token"], "a1-a9", 2)  # illegal
    text = client.get("/metrics").text
    assert 'bluegray_moves_total{by="human"} 1.0' in text
    assert 'bluegray_errors_total{code="illegal_move"} 1.0' in text
    assert "bluegray_move_seconds_count 1.0" in text
    assert "bluegray_open_sockets 0.0" in text
