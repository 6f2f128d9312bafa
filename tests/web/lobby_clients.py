"""Players of the lobby's tests: an account with its API token on a real server (a thread's or a
process's), its HTTP calls, and its lobby and account sockets with a timeout on every receive."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
from sqlalchemy import Connection, delete, insert, select
from websockets.sync.client import ClientConnection, connect

from bluegray.web.accounts.rows import AccountRow
from bluegray.web.platform.clocks import now_ms
from bluegray.web.ratings.rows import RatingRow
from tests.web.conftest import Json, LiveServer

PASSWORD = "correct horse battery"


def new_token(base_url: str, name: str, *, bot: bool = False) -> str:
    """Sign an account up on the server at ``base_url``; its new API token."""
    with httpx.Client(base_url=base_url, timeout=30) as browser:

        def post(path: str, body: object = None) -> httpx.Response:
            token = browser.get("/api/account").json()["csrf_token"]
            return browser.post(path, json=body, headers={"X-CSRF-Token": token})

        answer = post("/api/account/signup", {"name": name, "password": PASSWORD})
        assert answer.status_code == 201, answer.text
        if bot:
            assert post("/api/account/bot").json()["bot"] is True
        token: str = post("/api/account/tokens", {"description": "lobby"}).json()["token"]
        return token


class LiveSocket:
    """A lobby or account socket."""

    def __init__(self, url: str, token: str | None) -> None:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        connection = connect(url, open_timeout=10, additional_headers=headers, max_size=2**22)
        assert isinstance(connection, ClientConnection)
        self.connection = connection.__enter__()
        self.welcome = self.receive("welcome")

    def next(self, timeout: float = 10) -> Json:
        message: Json = json.loads(self.connection.recv(timeout=timeout))
        return message

    def receive(self, kind: str, timeout: float = 10, **fields: Any) -> Json:
        """The next message of type ``kind`` (with these field values), skipping others."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.next(max(0.01, deadline - time.monotonic()))
            if message["type"] == kind and all(message.get(k) == v for k, v in fields.items()):
                return message

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> LiveSocket:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class Player:
    """An account on a server, acting with its API token."""

    def __init__(self, base_url: str, name: str, token: str | None = None) -> None:
        self.name = name
        self.base_url = base_url
        self.token = token or new_token(base_url, name)
        self.http = httpx.Client(
            base_url=base_url, timeout=30, headers={"Authorization": f"Bearer {self.token}"}
        )

    def on(self, base_url: str) -> Player:
        """The same account on another process of the service."""
        return Player(base_url, self.name, self.token)

    def post(self, path: str, body: Json | None = None) -> httpx.Response:
        return self.http.post(path, json=body)

    def get(self, path: str) -> Any:
        return self.http.get(path).json()

    def seek(self, **body: Any) -> Json:
        answer = self.post("/api/seeks", body)
        assert answer.status_code == 201, answer.text
        seek: Json = answer.json()
        return seek

    def socket(self, path: str) -> LiveSocket:
        return LiveSocket(self.base_url.replace("http", "ws", 1) + path, self.token)

    def close(self) -> None:
        self.http.close()


def first_moves(players: dict[str, Player], game: dict[str, Any]) -> None:
    """Both sides of a game between accounts (``game_id``, and the ``blue`` and ``gray``
    players' names) play their first move: before that, resigning aborts a game, unrated (in
    a tournament, a forfeit that scores nothing)."""
    path = f"/api/games/{game['game_id']}"
    state = players[game["blue"]].get(path)
    for _ in range(2):
        mover = players[game[state["turn"]]]
        body = {"move": state["legal_moves"][0], "version": state["version"]}
        answer = mover.post(f"{path}/moves", body)
        assert answer.status_code == 200, answer.text
        state = answer.json()["game"]


def rated_game(poster: Player, taker: Player, minutes: float = 5) -> dict[str, Any]:
    """A rated real-time game of Sackson's rules between two accounts, started through the lobby
    (the poster plays Blue): the accept's answer with the ``blue`` and ``gray`` players' names."""
    seek = poster.seek(rules="sackson", clock={"minutes": minutes}, rated=True, color="blue")
    answer = taker.post(f"/api/seeks/{seek['id']}/accept")
    assert answer.status_code == 200, answer.text
    started: dict[str, Any] = answer.json()
    assert started["rated"] is True, started
    return {**started, "blue": poster.name, "gray": taker.name}


def set_ratings(server: LiveServer, ratings: dict[str, float]) -> None:
    """Give accounts an established (not provisional) rating in sackson/real-time, in place of
    the one they had."""
    now = now_ms()

    def store(connection: Connection) -> None:
        for name, rating in ratings.items():
            account_id = connection.execute(
                select(AccountRow.id).where(AccountRow.name == name)
            ).scalar_one()
            connection.execute(
                delete(RatingRow).where(
                    RatingRow.account_id == account_id, RatingRow.pool == "sackson/real-time"
                )
            )
            row = {
                "account_id": account_id,
                "pool": "sackson/real-time",
                "rating": rating,
                "deviation": 60.0,
                "volatility": 0.06,
                "games": 30,
                "rated_ms": now,
            }
            connection.execute(insert(RatingRow), [row])

    server.app.state.service.db.run(store)
