"""The games' HTTP API: the rule sets, creating and playing games, clocks and the lists of
games."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from bluegray import PRESETS, Game
from bluegray.rules import RuleSet
from bluegray.web.games import service as service_module
from tests.web.conftest import (
    TestClient,
    ids_page_by_page,
)
from tests.web.games.game_clients import BLUE_MOVE, GRAY_MOVE, auth, create, error_of, move

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
