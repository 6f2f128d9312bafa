"""What keeps the HTTP API safe and honest: the pages and the schema, security headers, errors as
JSON without stack traces, body and rate limits, unguessable ids, host names, and what an
attacker tried (issue 28)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest
from starlette.testclient import WebSocketDenialResponse

from bluegray import PRESETS
from bluegray.web.app import create_app
from tests.web.conftest import (
    TestClient,
    clear_of_a_window_edge,
    settings_for,
)
from tests.web.games.game_clients import BLUE_MOVE, GRAY_MOVE, auth, create, error_of, move

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
