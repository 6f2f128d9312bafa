"""Helpers of the games' API tests: a game created over HTTP, a move played, an error read, and
the two first moves the tests play."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import Json, TestClient

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
