"""Ratings that cannot be farmed without playing (issue 39, item 1): a game between two people
that ends before both sides have moved is aborted and unrated, for ratings and arenas alike; two
accounts play at most so many rated games together a day (the rest are unrated, and say so
before they start), and moderators see such pairs (API and ``bluegray user pairs``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bluegray.cli.main import main
from tests.web.account_clients import Browser, first_moves, friend_game, post, sign_up, signed_up
from tests.web.conftest import Json, LiveServer, TestClient
from tests.web.lobby_clients import Player
from tests.web.ratings.test_ratings import RATED, app_of, error_of, rows
from tests.web.tournaments.test_tournaments import CLOCK, wait_for


def act(client: Browser, game_id: str, token: str, action: str) -> Any:
    return client.post(
        f"/api/games/{game_id}/actions",
        json={"action": action},
        headers={"Authorization": f"Bearer {token}"},
    )


def test_a_rated_game_ended_before_both_sides_have_moved_is_aborted_and_unrated(
    make_client: Callable[..., TestClient],
) -> None:
    app = app_of(make_client)
    ada, bob = signed_up(app, "ada", "bob")
    # No move: a draw cannot be offered, and resigning aborts.
    game_id, ada_token, bob_token = friend_game(ada, bob, **RATED)
    refused = act(ada, game_id, ada_token, "offer_draw")
    assert error_of(refused) == (409, "not_allowed")
    assert "both sides have moved" in refused.json()["error"]["message"]
    ended = act(bob, game_id, bob_token, "resign").json()
    assert ended["status"] == "aborted" and ended["outcome"] is None
    assert ended["ratings"] is None
    # One move: Gray resigning aborts it too.
    game_id, ada_token, bob_token = friend_game(ada, bob, **RATED)
    first_moves(ada, game_id, ada_token)
    assert act(bob, game_id, bob_token, "resign").json()["status"] == "aborted"
    # Both moved, then a move taken back: the moves on the board count.
    game_id, ada_token, bob_token = friend_game(ada, bob, **RATED)
    first_moves(ada, game_id, ada_token, bob_token)
    assert act(bob, game_id, bob_token, "request_takeback").status_code == 200
    taken = act(ada, game_id, ada_token, "accept_takeback").json()
    assert taken["ply"] == 1
    assert act(ada, game_id, ada_token, "resign").json()["status"] == "aborted"
    assert rows(app, "rating_history") == [] and rows(app, "ratings") == []
    # Once both sides have moved, resigning rates the game.
    game_id, ada_token, bob_token = friend_game(ada, bob, **RATED)
    first_moves(ada, game_id, ada_token, bob_token)
    rated = act(bob, game_id, bob_token, "resign").json()
    assert rated["status"] == "finished" and rated["ratings"]["blue"]["change"] > 0
    assert len(rows(app, "rating_history")) == 2


def test_an_arena_game_resigned_before_both_sides_have_moved_scores_nothing(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(rate_limits=False)
    players = {name: Player(server.url, name) for name in ("ada", "bob")}
    ada = players["ada"]
    body = {"kind": "arena", "name": "Farm", "clock": CLOCK, "minutes": 10, "starts_in_seconds": 0}
    tid = ada.post("/api/tournaments", body).json()["id"]
    for player in players.values():
        assert player.post(f"/api/tournaments/{tid}/join").status_code == 200
    [game] = wait_for(lambda: ada.get(f"/api/tournaments/{tid}/games")["games"])
    loser = players[game["gray"]]
    answer = loser.post(f"/api/games/{game['game_id']}/actions", {"action": "resign"})
    assert answer.status_code == 200 and answer.json()["status"] == "aborted"
    [ended] = wait_for(
        lambda: [g for g in ada.get(f"/api/tournaments/{tid}/games")["games"] if g["result"]]
    )
    assert ended["forfeit"] is True
    table = ada.get(f"/api/tournaments/{tid}")["standings"]
    assert {line["name"]: line["score"] for line in table} == {"ada": 0, "bob": 0}
    assert ada.get("/api/players/ada")["ratings"] == []


def _rated_friend_game(ada: Browser, bob: Browser) -> tuple[Json, Json]:
    """A rated game Ada creates and Bob joins: the creation's answer and the join's."""
    created = post(ada, "/api/games", {"opponent": {"type": "friend"}, "color": "blue", **RATED})
    game_id = created.json()["game"]["id"]
    joined = post(bob, f"/api/games/{game_id}/join", {"invite": created.json()["invite"]["code"]})
    assert joined.status_code == 200, joined.text
    return created.json(), joined.json()


def test_two_accounts_play_at_most_so_many_rated_games_a_day_and_moderators_see_them(
    make_client: Callable[..., TestClient],
    database_url: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    app = make_client(rate_limits=False, rated_games_per_pair=2)
    ada, bob, cal, warden = Browser(app), Browser(app), Browser(app), Browser(app)
    for client, name in ((ada, "ada"), (bob, "bob"), (cal, "cal"), (warden, "warden")):
        sign_up(client, name)
    # An aborted game does not count; two rated games do.
    game_id, ada_token, _ = friend_game(ada, bob, **RATED)
    act(ada, game_id, ada_token, "abort")
    for _ in range(2):
        _, joined = _rated_friend_game(ada, bob)
        assert joined["game"]["rated"] is True and joined["game"]["unrated_reason"] is None
    # The third between them is unrated, and the join (before any move) says why.
    created, joined = _rated_friend_game(ada, bob)
    third = joined["game"]
    assert third["rated"] is False and "rated games together today" in third["unrated_reason"]
    assert app.get(f"/api/games/{third['id']}").json()["unrated_reason"] == third["unrated_reason"]
    # Its rematch is unrated too.
    ada_token, bob_token = created["seat"]["token"], joined["seat"]["token"]
    first_moves(ada, third["id"], ada_token, bob_token)
    assert act(bob, third["id"], bob_token, "resign").json()["status"] == "finished"
    act(ada, third["id"], ada_token, "offer_rematch")
    rematch_id = act(bob, third["id"], bob_token, "accept_rematch").json()["rematch_id"]
    rematch = app.get(f"/api/games/{rematch_id}").json()
    assert rematch["rated"] is False and rematch["unrated_reason"] == third["unrated_reason"]
    # Another pair is rated as before.
    _, joined = _rated_friend_game(ada, cal)
    assert joined["game"]["rated"] is True
    # Moderators list the pair, by the API and on the command line.
    assert warden.get("/api/moderation/rated-pairs").status_code == 403
    assert main(["user", "moderator", "warden", "--database-url", database_url]) == 0
    listed = warden.get("/api/moderation/rated-pairs")
    assert listed.status_code == 200, listed.text
    [pair] = listed.json()["pairs"]
    assert {pair["first"], pair["second"]} == {"ada", "bob"}
    assert (pair["rated_games"], pair["unrated_games"]) == (2, 2)
    assert listed.json()["per_day"] == 2
    capsys.readouterr()
    assert main(["user", "pairs", "--database-url", database_url]) == 0
    out = capsys.readouterr().out
    assert "ada and bob: 2 rated, 2 made unrated" in out


def test_a_seek_taken_past_the_pair_s_limit_tells_both_players_the_game_is_unrated(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(rate_limits=False, rated_games_per_pair=1)
    ada, bob = Player(server.url, "ada"), Player(server.url, "bob")
    started = []
    for _ in range(2):
        seek = ada.seek(rules="sackson", clock={"minutes": 5, "increment_seconds": 3}, rated=True)
        with ada.socket("/ws/account") as told:
            answer = bob.post(f"/api/seeks/{seek['id']}/accept")
            assert answer.status_code == 200, answer.text
            message = told.receive("game_started")
        started.append((answer.json(), message["game"]))
    (first, _), (second, second_told) = started
    assert first["rated"] is True and first["unrated_reason"] is None
    assert second["rated"] is False and second_told["rated"] is False
    assert "rated games together today" in second["unrated_reason"]
    assert second_told["unrated_reason"] == second["unrated_reason"]
