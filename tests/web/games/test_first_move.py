"""Games whose first moves never come: a game between two people where the side to move has not
made its first move within ``first_move_seconds`` of when it could ends as aborted, by a durable
timer (whichever process is alive fires it), unrated and a loss for nobody. On SQLite and on
PostgreSQL."""

from __future__ import annotations

import time
from collections.abc import Callable

from tests.web.account_clients import Browser, friend_game, signed_up
from tests.web.conftest import Json, TestClient


def wait_for(client: TestClient, game_id: str, status: str, seconds: float = 10) -> Json:
    deadline = time.monotonic() + seconds
    while True:
        state: Json = client.get(f"/api/games/{game_id}").json()
        if state["status"] == status or time.monotonic() > deadline:
            return state
        time.sleep(0.05)  # poll interval: until the status, up to ``seconds``


def move(client: Browser, game_id: str, token: str, state: Json) -> Json:
    answer = client.post(
        f"/api/games/{game_id}/moves",
        json={"move": state["legal_moves"][0], "version": state["version"]},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert answer.status_code == 200, answer.text
    moved: Json = answer.json()["game"]
    return moved


def test_a_game_whose_first_moves_never_come_is_aborted_unrated(
    make_client: Callable[..., TestClient],
) -> None:
    app = make_client(rate_limits=False, first_move_seconds=0.6)
    ada, bob = signed_up(app, "ada", "bob")
    # Nobody moves: aborted, no rating, nobody's loss; not before the time for the first move,
    # counted from before the game was made (from after, a loaded machine's slow set-up ate it).
    started = time.monotonic()
    game_id, _, _ = friend_game(ada, bob, rated=True)
    aborted = wait_for(app, game_id, "aborted")
    assert aborted["status"] == "aborted" and time.monotonic() - started >= 0.5
    assert aborted["outcome"] is None and aborted["ratings"] is None
    # Blue moves, Gray does not: aborted a while after Blue's move.
    game_id, ada_token, _ = friend_game(ada, bob, rated=True)
    state = move(ada, game_id, ada_token, app.get(f"/api/games/{game_id}").json())
    assert wait_for(app, game_id, "aborted")["ply"] == 1
    # Both move in time: the game goes on, past the time a later game nobody moves in is aborted.
    game_id, ada_token, bob_token = friend_game(ada, bob)
    state = move(ada, game_id, ada_token, app.get(f"/api/games/{game_id}").json())
    move(bob, game_id, bob_token, state)
    assert wait_for(app, friend_game(ada, bob)[0], "aborted")["status"] == "aborted"
    assert app.get(f"/api/games/{game_id}").json()["status"] == "active"
    profile = app.get("/api/players/ada").json()
    assert profile["against_people"]["losses"] == 0 and profile["ratings"] == []
    # A game against the AI, or one waiting for its friend, is never aborted this way.
    ai = app.post("/api/games", json={"opponent": {"type": "ai", "level": 1}, "color": "gray"})
    waiting = app.post("/api/games", json={"opponent": {"type": "friend"}})
    # As long as a game in which nobody moves takes to be aborted:
    assert wait_for(app, friend_game(ada, bob)[0], "aborted")["status"] == "aborted"
    for answer in (ai, waiting):
        game = answer.json()["game"]
        assert app.get(f"/api/games/{game['id']}").json()["status"] != "aborted"
