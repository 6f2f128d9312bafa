"""The "your turn" list of an account: its running games where it is to move, the nearest
deadline first, as every process reads it from the database."""

from __future__ import annotations

import time

from tests.web.account_clients import Browser, friend_game, post, sign_up
from tests.web.conftest import Json, TestClient
from tests.web.games.game_clients import BLUE_MOVE, GRAY_MOVE

DAY_MS = 86_400_000


def turn(browser: Browser) -> Json:
    answer = browser.get("/api/account/turn")
    assert answer.status_code == 200, answer.text
    listed: Json = answer.json()
    return listed


def play(browser: Browser, game_id: str, token: str, text: str) -> Json:
    state = browser.get(f"/api/games/{game_id}").json()
    answer = browser.post(
        f"/api/games/{game_id}/moves",
        json={"move": text, "version": state["version"]},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert answer.status_code == 200, answer.text
    game: Json = answer.json()["game"]
    return game


def test_the_games_waiting_for_an_accounts_move_most_urgent_first(client: TestClient) -> None:
    ada, bob, nobody = Browser(client), Browser(client), Browser(client)
    sign_up(ada, "ada_l")
    sign_up(bob, "bob_b")
    assert nobody.get("/api/account/turn").status_code == 401
    slow, ada_slow, bob_slow = friend_game(ada, bob, correspondence={"days": 7})
    quick, ada_quick, bob_quick = friend_game(ada, bob, correspondence={"days": 1})
    waiting, _, _ = friend_game(ada, bob, correspondence={"days": 3})
    untimed, _, _ = friend_game(bob, ada)  # Bob plays Blue: Ada waits
    post(ada, "/api/games", {"opponent": {"type": "hotseat"}})  # her own game: never listed
    # Ada (Blue) is to move in the three friend games she made; in the fourth, Bob is.
    listed = turn(ada)
    assert [game["id"] for game in listed["games"]] == [quick, waiting, slow]
    first = listed["games"][0]
    assert first["side"] == "blue" and first["days_per_move"] == 1
    assert first["opponent"] == {"kind": "account", "name": "bob_b", "bot": False, "level": None}
    assert first["time_class"] == "correspondence" and first["path"] == f"/game/{quick}"
    assert [game["id"] for game in turn(bob)["games"]] == [untimed]
    # Moves pass the turn: Bob's list gains the game at once, Ada's loses it.
    play(ada, slow, ada_slow, BLUE_MOVE)
    play(ada, quick, ada_quick, BLUE_MOVE)
    assert [game["id"] for game in turn(ada)["games"]] == [waiting]
    bobs = turn(bob)["games"]
    assert [game["id"] for game in bobs] == [quick, slow, untimed]
    assert bobs[0]["deadline_ms"] < bobs[1]["deadline_ms"] and bobs[2]["deadline_ms"] is None
    assert bobs[1]["deadline_ms"] - bobs[0]["deadline_ms"] > 6 * DAY_MS - 60_000
    play(bob, quick, bob_quick, GRAY_MOVE)
    assert [game["id"] for game in turn(ada)["games"]] == [quick, waiting]
    # The AI's game joins Ada's list once the AI (Blue) has moved: it has no deadline of its own.
    ai = post(
        ada,
        "/api/games",
        {"opponent": {"type": "ai", "level": 1}, "color": "gray", "correspondence": {"days": 2}},
    ).json()
    limit = time.monotonic() + 30
    while ai["game"]["id"] not in [game["id"] for game in turn(ada)["games"]]:
        assert time.monotonic() < limit, "the AI did not move"
        time.sleep(0.1)  # poll interval: until the AI has moved, up to 30 s
    listed_ai = next(game for game in turn(ada)["games"] if game["id"] == ai["game"]["id"])
    assert listed_ai["opponent"]["kind"] == "ai" and listed_ai["days_per_move"] == 2
    assert listed_ai["deadline_ms"] > turn(ada)["server_time_ms"] + 2 * DAY_MS - 60_000
    del bob_slow
