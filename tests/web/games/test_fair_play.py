"""Fair play: no analysis, hint or study-board engine for a position on the board of a rated game
being played, whoever asks and however the position is given (issue 39, item 5)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bluegray.game import Game
from bluegray.web.games.fair_play import IN_RATED_PLAY
from tests.web.account_clients import Browser, friend_game, post, sign_up
from tests.web.conftest import Json, TestClient


def refused(answer: Any) -> bool:
    if answer.status_code != 409:
        return False
    error: Json = answer.json()["error"]
    return bool(error["code"] == "not_allowed" and error["message"] == IN_RATED_PLAY)


def test_a_position_of_a_rated_game_in_play_is_analysed_by_nobody(
    make_client: Callable[..., TestClient],
) -> None:
    app = make_client(rate_limits=False)
    ada, bob, stranger = Browser(app), Browser(app), Browser(app)
    sign_up(ada, "ada")
    sign_up(bob, "bob")
    game_id, blue, _ = friend_game(ada, bob, rated=True, clock={"minutes": 10})
    state = ada.get(f"/api/games/{game_id}").json()
    assert state["rated"] is True and state["status"] == "active"
    first = state["legal_moves"][0]
    moved = ada.post(
        f"/api/games/{game_id}/moves",
        json={"move": first, "version": state["version"]},
        headers={"Authorization": f"Bearer {blue}"},
    )
    assert moved.status_code == 200, moved.text
    on_board = Game("sackson")
    on_board.push(first)
    placement, turn, *_ = str(on_board.position).split(" ")

    # The game's moves pasted into the study board: refused to everyone, logged in or not.
    for client in (stranger, ada, bob):
        pasted = post(client, "/api/analysis", {"moves": [first], "seconds": 0.1})
        assert refused(pasted), pasted.text
    # The same position with other counters (no-progress count, move number): refused too.
    disguised = post(
        stranger, "/api/analysis", {"position": f"{placement} {turn} 0 9", "seconds": 0.1}
    )
    assert refused(disguised), disguised.text
    # An imported record that reaches it: refused at that ply, open at the start.
    record = f'[Rules "sackson"]\n[Result "*"]\n\n1. {first} *\n'
    imported = stranger.post("/api/records", json={"text": record}).json()["id"]
    assert refused(stranger.get(f"/api/games/{imported}/analysis?ply=1&seconds=0.1"))
    assert stranger.get(f"/api/games/{imported}/analysis?ply=0&seconds=0.1").status_code == 200

    # A hint in an unrated game against the AI played from the start is the AI's own business.
    ai = post(
        stranger, "/api/games", {"opponent": {"type": "ai", "level": 1}, "color": "blue"}
    ).json()
    ai_token = ai["seat"]["token"]
    played = stranger.post(
        f"/api/games/{ai['game']['id']}/moves",
        json={"move": first, "version": ai["game"]["version"]},
        headers={"Authorization": f"Bearer {ai_token}"},
    )
    assert played.status_code == 200, played.text
    hint = stranger.get(f"/api/games/{ai['game']['id']}/analysis?ply=1&seconds=0.1")
    assert hint.status_code == 200, hint.text
    # But not one that started from a set-up position: anyone could set up the rated game's.
    set_up = post(
        stranger,
        "/api/games",
        {
            "opponent": {"type": "ai", "level": 1},
            "color": "gray",
            "position": str(on_board.position),
        },
    ).json()
    assert refused(stranger.get(f"/api/games/{set_up['game']['id']}/analysis?ply=0&seconds=0.1"))

    # Once the rated game ends, its positions open.
    ended = ada.post(
        f"/api/games/{game_id}/actions",
        json={"action": "resign"},
        headers={"Authorization": f"Bearer {blue}"},
    )
    assert ended.status_code == 200, ended.text
    assert ended.json()["status"] in ("finished", "aborted")
    opened = post(stranger, "/api/analysis", {"moves": [first], "seconds": 0.1})
    assert opened.status_code == 200, opened.text
