"""Clients with accounts, for the web tests of every domain: a browser-like client that signs up,
logs in and sends its CSRF token, as the pages do, and a friend game between two accounts."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import httpx
from starlette.testclient import WebSocketTestSession

from tests.web.conftest import Json, TestClient

PASSWORD = "correct horse battery"


class Browser:
    """One browser, with its own cookies, on an app's ``TestClient``: several browsers on one
    app (one process), as several people use one site. Its calls are the client's."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.cookies = httpx.Cookies()

    def set_cookie(self, name: str, value: str) -> None:
        """Put a cookie in this browser's jar (replacing one of that name), as the site would."""
        for cookie in list(self.cookies.jar):
            if cookie.name == name:
                self.cookies.jar.clear(cookie.domain, cookie.path, cookie.name)
        self.cookies.set(name, value, domain="testserver.local")

    @contextlib.contextmanager
    def _as_me(self) -> Iterator[TestClient]:
        self.client.cookies = self.cookies
        try:
            yield self.client
        finally:
            self.cookies = httpx.Cookies(self.client.cookies)

    def get(self, url: str, **options: Any) -> httpx.Response:
        with self._as_me() as client:
            response: httpx.Response = client.get(url, **options)
            return response

    def post(self, url: str, **options: Any) -> httpx.Response:
        with self._as_me() as client:
            response: httpx.Response = client.post(url, **options)
            return response

    def put(self, url: str, **options: Any) -> httpx.Response:
        with self._as_me() as client:
            response: httpx.Response = client.put(url, **options)
            return response

    def delete(self, url: str, **options: Any) -> httpx.Response:
        with self._as_me() as client:
            response: httpx.Response = client.delete(url, **options)
            return response

    @contextlib.contextmanager
    def websocket_connect(self, url: str) -> Iterator[WebSocketTestSession]:
        with self._as_me() as client, client.websocket_connect(url) as socket:
            yield socket


Client = TestClient | Browser


def csrf(client: Client) -> str:
    """The CSRF token that goes with the client's cookies (as a page would carry it)."""
    token: str = client.get("/api/account").json()["csrf_token"]
    return token


def post(client: Client, path: str, body: Json | None = None, **headers: str) -> Any:
    """A POST as the pages make it: JSON, with the CSRF token of the client's cookies."""
    sent = {"X-CSRF-Token": csrf(client), **headers}
    if body is None:
        return client.post(path, headers=sent)
    return client.post(path, json=body, headers=sent)


def sign_up(client: Client, name: str, password: str = PASSWORD, **body: Any) -> Json:
    answer = post(client, "/api/account/signup", {"name": name, "password": password, **body})
    assert answer.status_code == 201, answer.text
    state: Json = answer.json()
    return state


def signed_up(app: TestClient, *names: str) -> list[Browser]:
    """A browser on ``app`` for each name, signed up with it (the default password)."""
    browsers = [Browser(app) for _ in names]
    for browser, name in zip(browsers, names, strict=True):
        sign_up(browser, name)
    return browsers


def log_in(client: Client, name: str, password: str = PASSWORD, **body: Any) -> Any:
    return post(client, "/api/account/login", {"name": name, "password": password, **body})


def friend_game(
    creator: Client, joiner: Client, *, moved: bool = False, **body: Any
) -> tuple[str, str, str]:
    """A game between two clients (each logged in or not, each sending its CSRF token): its
    id, the creator's seat token and the joiner's. ``moved``: both sides have played their
    first move (before that, resigning or a draw aborts the game, unrated)."""
    created = post(
        creator, "/api/games", {"opponent": {"type": "friend"}, "color": "blue", **body}
    ).json()
    game_id = created["game"]["id"]
    joined = post(joiner, f"/api/games/{game_id}/join", {"invite": created["invite"]["code"]})
    assert joined.status_code == 200, joined.text
    tokens = created["seat"]["token"], joined.json()["seat"]["token"]
    if moved:
        blue_first = created["seat"]["side"] == "blue"
        first_moves(creator, game_id, *(tokens if blue_first else tokens[::-1]))
    return game_id, *tokens


def first_moves(client: Client, game_id: str, *tokens: str) -> Json:
    """Play each side's first legal move in turn, one token per move (Blue's seat token, then
    Gray's): a game between two people ends rated, by resigning or a draw, only once both sides
    have moved. The state after the last move."""
    state: Json = client.get(f"/api/games/{game_id}").json()
    for token in tokens:
        answer = client.post(
            f"/api/games/{game_id}/moves",
            json={"move": state["legal_moves"][0], "version": state["version"]},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert answer.status_code == 200, answer.text
        state = answer.json()["game"]
    return state
