"""Game review through the API: asked for on a finished game, analysed position by position
on the AI's queue (here the app's own engine, in a thread), stored and read back; the limits
on who may ask; the review in the record download; a review left by a dead process taken up
from its last stored position."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from sqlalchemy import Connection

from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.db import Database
from bluegray.web.review import store
from tests.web.account_clients import Browser, csrf, friend_game, sign_up
from tests.web.conftest import TestClient
from tests.web.games.game_clients import create, error_of
from tests.web.review.review_games import PLIES, import_game, review_when_done

NODES = 2000
"""A small node count (a few hundredths of a second a search), at which the engine calls
several of the shuffles mistakes or blunders."""


def _review_client(make_client: Callable[..., TestClient], **changes: object) -> TestClient:
    return make_client(review_nodes=NODES, review_poll_seconds=0.1, **changes)


def test_a_finished_game_is_reviewed_position_by_position(
    make_client: Callable[..., TestClient],
) -> None:
    client = _review_client(make_client)
    game_id = import_game(client)
    missing = client.get(f"/api/games/{game_id}/review")
    assert missing.status_code == 404 and error_of(missing)["code"] == "no_review"

    asked = client.post(f"/api/games/{game_id}/review")
    assert asked.status_code == 202, asked.text
    assert asked.json()["positions"] == PLIES + 1 and asked.json()["nodes"] == NODES
    review = review_when_done(client, game_id)
    assert review["status"] == "done" and review["analysed"] == PLIES + 1
    assert [point["ply"] for point in review["evaluation"]] == list(range(PLIES + 1))
    assert all(0 <= point["blue_expected"] <= 1 for point in review["evaluation"])
    assert review["engines"] == [4] and review["finished_ms"] >= review["requested_ms"]
    moves = review["moves"]
    assert [move["ply"] for move in moves] == list(range(1, PLIES + 1))
    assert [move["side"] for move in moves] == ["blue", "gray"] * (PLIES // 2)
    bad = [move for move in moves if move["verdict"] in ("mistake", "blunder")]
    assert bad, moves
    for move in bad:  # each with the engine's better move and its line
        assert move["best_move"] and move["best_move"] != move["move"]
        assert move["line"][0] == move["best_move"]
    for side in ("blue", "gray"):
        summary = review[side]
        own = [move for move in moves if move["side"] == side]
        assert summary["accuracy"] == round(sum(m["accuracy"] for m in own) / len(own), 1)
        assert summary["blunders"] == sum(m["verdict"] == "blunder" for m in own)

    # Asked again: the same review, not a new one.
    again = client.post(f"/api/games/{game_id}/review")
    assert again.status_code == 202 and again.json() == review
    # The record download carries it as comments.
    record = client.get(f"/api/games/{game_id}/record").text
    assert f"{{Review: bluegray engine 4, {NODES} nodes a position." in record
    first_bad = bad[0]
    assert f"Better: {first_bad['best_move']}" in record


def test_only_a_finished_game_with_moves_is_reviewed(client: TestClient) -> None:
    created = create(client, opponent={"type": "ai", "level": 1})
    playing = client.post(f"/api/games/{created['game']['id']}/review")
    assert playing.status_code == 409 and error_of(playing)["code"] == "not_ended"
    empty = import_game(client, '[Rules "cooper"]\n[Result "*"]\n\n*\n')
    no_moves = client.post(f"/api/games/{empty}/review")
    assert no_moves.status_code == 409 and error_of(no_moves)["code"] == "no_moves"
    unknown = client.post("/api/games/no-such-game/review")
    assert unknown.status_code == 404
    bad_id = client.post("/api/games/not%20an%20id/review")
    assert bad_id.status_code == 422


def test_reviews_a_day_are_limited_per_address_and_per_account(
    make_client: Callable[..., TestClient],
) -> None:
    client = _review_client(make_client, reviews_per_day=2, trusted_proxies=["*"])
    here = {"X-Forwarded-For": "203.0.113.1"}
    first, second, third = (import_game(client, **here) for _ in range(3))
    for game_id in (first, second):
        assert client.post(f"/api/games/{game_id}/review", headers=here).status_code == 202
    refused = client.post(f"/api/games/{third}/review", headers=here)
    assert refused.status_code == 429, refused.text
    assert error_of(refused)["code"] == "review_limit"
    assert "this address" in error_of(refused)["message"]
    # A review asked for already is still answered, and from another address the third goes.
    assert client.post(f"/api/games/{first}/review", headers=here).status_code == 202
    elsewhere = {"X-Forwarded-For": "203.0.113.2"}
    assert client.post(f"/api/games/{third}/review", headers=elsewhere).status_code == 202

    # An account: two, from two addresses; the third refused from a third address.
    ada = Browser(client)
    sign_up(ada, "ada")
    games = [import_game(client, **elsewhere) for _ in range(3)]
    for game_id, address in zip(
        games, ("198.51.100.1", "198.51.100.2", "198.51.100.3"), strict=True
    ):
        headers = {"X-CSRF-Token": csrf(ada), "X-Forwarded-For": address}
        answer = ada.post(f"/api/games/{game_id}/review", headers=headers)
        if address.endswith(".3"):
            assert answer.status_code == 429, answer.text
            assert "this account" in error_of(answer)["message"]
        else:
            assert answer.status_code == 202, answer.text


def test_an_import_on_the_board_of_a_rated_game_is_not_reviewed_until_it_ends(
    make_client: Callable[..., TestClient],
) -> None:
    client = _review_client(make_client, rate_limits=False)
    ada, bob, stranger = Browser(client), Browser(client), Browser(client)
    sign_up(ada, "ada")
    sign_up(bob, "bob")
    game_id, blue, _ = friend_game(ada, bob, rated=True, clock={"minutes": 10})
    state = ada.get(f"/api/games/{game_id}").json()
    first = state["legal_moves"][0]
    moved = ada.post(
        f"/api/games/{game_id}/moves",
        json={"move": first, "version": state["version"]},
        headers={"Authorization": f"Bearer {blue}"},
    )
    assert moved.status_code == 200, moved.text
    copy = import_game(stranger, f'[Rules "sackson"]\n[Result "*"]\n\n1. {first} *\n')
    refused = stranger.post(f"/api/games/{copy}/review")
    assert refused.status_code == 409 and error_of(refused)["code"] == "not_allowed"
    assert stranger.get(f"/api/games/{copy}/review").status_code == 404  # nothing was stored
    resigned = ada.post(
        f"/api/games/{game_id}/actions",
        json={"action": "resign"},
        headers={"Authorization": f"Bearer {blue}"},
    )
    assert resigned.status_code == 200, resigned.text
    assert stranger.post(f"/api/games/{copy}/review").status_code == 202
    assert review_when_done(stranger, copy)["status"] == "done"


def _stored_position(game_id: str, ply: int, blue_expected: float) -> dict[str, object]:
    return {
        "game_id": game_id,
        "ply": ply,
        "turn": "blue" if ply % 2 == 0 else "gray",
        "blue_expected": blue_expected,
        "score": 0,
        "best_move": None,
        "best_after": None,
        "pv": "",
        "depth": 1,
        "nodes": 1,
        "plies_to_end": None,
        "engine": 4,
    }


def test_a_review_left_by_a_dead_process_goes_on_from_its_last_stored_position(
    make_client: Callable[..., TestClient], database_url: str
) -> None:
    # A process that takes no reviews stores the request ...
    idle = _review_client(make_client, review_runners=0)
    game_id = import_game(idle)
    assert idle.post(f"/api/games/{game_id}/review").status_code == 202
    # ... a process (now dead) had analysed two positions and held the lease, now run out.
    db = Database(database_url)
    db.start(migrate=False)
    try:

        def as_left(connection: Connection) -> None:
            for ply in (0, 1):
                store.store_position(connection, _stored_position(game_id, ply, 0.123))
            assert store.claim(connection, "dead-process", now_ms() - 5000, 1000) == game_id

        db.run(as_left)
        # While a live process holds it, no other takes it.
        assert (
            db.run(partial(store.claim, runner="other", now_ms=now_ms() - 4500, lease_ms=1)) is None
        )
    finally:
        db.close()
    assert idle.get(f"/api/games/{game_id}/review").json()["analysed"] == 2

    runner = _review_client(make_client)
    review = review_when_done(runner, game_id)
    assert review["status"] == "done" and review["analysed"] == PLIES + 1
    # The two stored positions were kept, not searched again.
    values = [point["blue_expected"] for point in review["evaluation"]]
    assert values[:2] == [0.123, 0.123] and 0.123 not in values[2:]
