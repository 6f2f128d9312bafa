"""Rated games through the API: which games may be rated, both ratings updated once when a rated
game ends (Glicko-2, one game a rating period), the change carried by the game's state, ratings
with their history on profiles (API and page), the leaderboards, and the voiding of a closed
account's results (its pools computed again). On SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, insert, select

from bluegray.cli.main import main
from bluegray.game import Game
from bluegray.web.accounts.schemas import RatingPoint
from bluegray.web.migrations.schema import schema
from bluegray.web.platform.models import table_of
from bluegray.web.ratings.glicko import DEFAULT_SETTINGS, Rating
from bluegray.web.ratings.leaderboards import CHART_LABELS, CHART_MARGIN, rating_chart
from bluegray.web.ratings.rows import RatingRow
from bluegray.web.ratings.service import NEW_STANDING, Standing, rate_pair
from tests.web.account_clients import Browser, friend_game, post, sign_up, signed_up
from tests.web.conftest import Json, TestClient

RATED: Json = {"rated": True, "clock": {"minutes": 10}}
"""A rated real-time game (a game without a clock counts as correspondence)."""
MOVED = "ggggcgggg/ggggggggg/9/9/9/9/G8/1GGGGGGGG/GGGGCGGGG g 1 1"
"""Sackson's start after Blue's first move: a set-up position."""


def app_of(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client(rate_limits=False)


def error_of(answer: Any) -> tuple[int, str]:
    return answer.status_code, answer.json()["error"]["code"]


def resign(client: Browser, game_id: str, token: str) -> Json:
    answer = client.post(
        f"/api/games/{game_id}/actions",
        json={"action": "resign"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert answer.status_code == 200, answer.text
    state: Json = answer.json()
    return state


def history(client: Browser | TestClient, name: str) -> list[Json]:
    profile: Json = client.get(f"/api/players/{name}").json()
    return profile["ratings"]  # type: ignore[no-any-return]


def rows(client: TestClient, table: str) -> list[Any]:
    engine = client.app.state.service.db  # type: ignore[attr-defined]

    def read(connection: Connection) -> list[Any]:
        return list(connection.execute(select(schema().tables[table])).all())

    return engine.run(read)  # type: ignore[no-any-return]


def test_a_game_that_cannot_be_rated_is_refused_with_the_reason(
    make_client: Callable[..., TestClient],
) -> None:
    app = app_of(make_client)
    anonymous, ada = Browser(app), Browser(app)
    sign_up(ada, "ada")
    friend = {"opponent": {"type": "friend"}, **RATED}
    cases = [
        (anonymous, friend, "log in first"),
        (ada, {"opponent": {"type": "ai", "level": 1}, **RATED}, "between two people"),
        (ada, {"opponent": {"type": "hotseat"}, **RATED}, "between two people"),
        (ada, {**friend, "rules": "cooper lead=5"}, "custom rule set"),
        (ada, {**friend, "position": MOVED}, "set-up position"),
    ]
    for client, body, words in cases:
        answer = post(client, "/api/games", body)
        assert error_of(answer) == (422, "cannot_be_rated"), answer.text
        assert words in answer.json()["error"]["message"]
    # Casual games stay as they were, and a preset's own start is not a set-up position.
    assert post(anonymous, "/api/games", friend | {"rated": False}).status_code == 201
    created = post(ada, "/api/games", {**friend, "position": str(Game("sackson").position)})
    assert created.status_code == 201 and created.json()["game"]["rated"] is True


def test_only_a_second_account_may_take_the_seat_of_a_rated_game(
    make_client: Callable[..., TestClient],
) -> None:
    app = app_of(make_client)
    ada, anonymous, ada_again = Browser(app), Browser(app), Browser(app)
    sign_up(ada, "ada")
    created = post(ada, "/api/games", {"opponent": {"type": "friend"}, **RATED}).json()
    game_id, code = created["game"]["id"], created["invite"]["code"]
    refused = post(anonymous, f"/api/games/{game_id}/join", {"invite": code})
    assert error_of(refused) == (403, "forbidden")
    assert "log in" in refused.json()["error"]["message"]
    post(ada_again, "/api/account/login", {"name": "ada", "password": "correct horse battery"})
    assert error_of(post(ada_again, f"/api/games/{game_id}/join", {"invite": code})) == (
        409,
        "not_allowed",
    )
    assert app.get(f"/api/games/{game_id}").json()["status"] == "waiting"  # nothing changed


def test_a_rated_game_s_end_rates_both_players_once_as_glicko_2_says(
    make_client: Callable[..., TestClient],
) -> None:
    app = app_of(make_client)
    ada, bob = signed_up(app, "ada", "Bob_2")
    game_id, ada_token, bob_token = friend_game(ada, bob, **RATED, moved=True)
    assert app.get(f"/api/games/{game_id}").json()["ratings"] is None
    state = resign(bob, game_id, bob_token)  # Bob (Gray) resigns: Ada (Blue) wins
    new = NEW_STANDING.rating
    blue, gray = rate_pair(NEW_STANDING, NEW_STANDING, 1.0, 0, DEFAULT_SETTINGS)
    assert state["ratings"] == {
        "pool": "sackson/real-time",
        "blue": {
            "rating": 1500.0,
            "deviation": 350.0,
            "provisional": True,
            "change": round(blue.rating - new.rating, 2),
        },
        "gray": {
            "rating": 1500.0,
            "deviation": 350.0,
            "provisional": True,
            "change": round(gray.rating - new.rating, 2),
        },
    }
    assert state["ratings"]["blue"]["change"] > 150  # a new player's first win moves a lot
    # The same from a fresh read, and the game's end cannot be rated again: a second
    # resignation is refused and nothing more is written.
    assert app.get(f"/api/games/{game_id}").json()["ratings"] == state["ratings"]
    again = ada.post(
        f"/api/games/{game_id}/actions",
        json={"action": "resign"},
        headers={"Authorization": f"Bearer {ada_token}"},
    )
    assert error_of(again) == (409, "game_over")
    assert len(rows(app, "rating_history")) == 2
    [ada_rating] = history(app, "ada")
    assert ada_rating["perf"] == "sackson/real-time" and ada_rating["games"] == 1
    assert ada_rating["rating"] == round(blue.rating, 1) and ada_rating["provisional"] is True
    assert [point["game_id"] for point in ada_rating["history"]] == [game_id]
    assert history(app, "bob_2")[0]["rating"] == round(gray.rating, 1)
    # The next game starts from those ratings.
    game_id, _, bob_token = friend_game(ada, bob, **RATED, moved=True)
    second = resign(bob, game_id, bob_token)["ratings"]
    assert second["blue"]["rating"] == round(blue.rating, 2)
    assert second["gray"]["rating"] == round(gray.rating, 2)
    assert second["blue"]["change"] < state["ratings"]["blue"]["change"]
    assert len(history(app, "ada")[0]["history"]) == 2


def test_a_game_without_a_clock_is_rated_by_correspondence(
    make_client: Callable[..., TestClient],
) -> None:
    app = app_of(make_client)
    ada, bob = signed_up(app, "ada", "bob")
    pools = []
    for terms in ({"correspondence": {"days": 3}}, {}):
        game_id, _, bob_token = friend_game(ada, bob, rated=True, **terms, moved=True)
        pools.append(resign(bob, game_id, bob_token)["ratings"]["pool"])
    assert pools == ["sackson/correspondence"] * 2
    [ada_rating] = history(app, "ada")
    assert ada_rating["perf"] == "sackson/correspondence" and ada_rating["games"] == 2


def test_an_aborted_or_casual_game_changes_no_rating(
    make_client: Callable[..., TestClient],
) -> None:
    app = app_of(make_client)
    ada, bob = signed_up(app, "ada", "bob")
    game_id, ada_token, _ = friend_game(ada, bob, **RATED)
    aborted = ada.post(
        f"/api/games/{game_id}/actions",
        json={"action": "abort"},
        headers={"Authorization": f"Bearer {ada_token}"},
    ).json()
    assert aborted["status"] == "aborted" and aborted["ratings"] is None
    game_id, _, bob_token = friend_game(ada, bob)
    casual = resign(bob, game_id, bob_token)
    assert casual["rated"] is False and casual["ratings"] is None
    assert rows(app, "rating_history") == [] and rows(app, "ratings") == []
    assert history(app, "ada") == []


def test_closing_an_account_voids_its_results_and_computes_its_pools_again(
    make_client: Callable[..., TestClient], database_url: str
) -> None:
    app = app_of(make_client)
    ada, bob, cal = Browser(app), Browser(app), Browser(app)
    for client, name in ((ada, "ada"), (bob, "bob"), (cal, "cal")):
        sign_up(client, name)
    # ada beats cal, cal beats bob, ada beats bob; and one game in another pool (cooper).
    for winner, loser, body in (
        (ada, cal, RATED),
        (cal, bob, RATED),
        (ada, bob, RATED),
        (bob, cal, {**RATED, "rules": "cooper"}),
    ):
        game_id, _, loser_token = friend_game(winner, loser, **body, moved=True)
        resign(loser, game_id, loser_token)
    assert main(["user", "close", "cal", "--database-url", database_url]) == 0
    history_rows = rows(app, "rating_history")
    voided = {row.game_id for row in history_rows if row.voided}
    assert len(voided) == 3  # cal's three games, in both pools
    # What is left is ada's win over bob alone, from new ratings in each.
    ada_after, bob_after = rate_pair(NEW_STANDING, NEW_STANDING, 1.0, 0, DEFAULT_SETTINGS)
    [ada_rating] = history(app, "ada")
    [bob_rating] = history(app, "bob")
    assert (ada_rating["games"], bob_rating["games"]) == (1, 1)
    assert ada_rating["rating"] == round(ada_after.rating, 1)
    assert bob_rating["rating"] == round(bob_after.rating, 1)
    assert [point["change"] for point in bob_rating["history"]] == [
        round(bob_after.rating - 1500, 1)
    ]
    kept = [row for row in history_rows if not row.voided]
    assert {row.rating_before for row in kept} == {1500.0}
    assert history(app, "cal") == []
    stored = {(row.account_id, row.pool) for row in rows(app, "ratings")}
    assert len(stored) == 2 and {pool for _, pool in stored} == {"sackson/real-time"}


def test_the_profile_page_shows_each_rating_with_its_chart(
    make_client: Callable[..., TestClient],
) -> None:
    app = app_of(make_client)
    ada, bob = signed_up(app, "ada", "bob")
    for _ in range(2):
        game_id, _, bob_token = friend_game(ada, bob, **RATED, moved=True)
        resign(bob, game_id, bob_token)
    page = app.get("/player/ada").text
    rating = round(history(app, "ada")[0]["rating"])
    assert f'data-pool="sackson/real-time" data-rating="{rating}"' in page
    assert 'data-provisional="yes"' in page and "<polyline points=" in page
    assert 'class="rating-change" data-change="' in page
    assert "No rated games yet" not in page
    sign_up(Browser(app), "cal")
    assert "No rated games yet" in app.get("/player/cal").text


def test_leaderboards_list_established_ratings_of_open_accounts_page_by_page(
    make_client: Callable[..., TestClient], database_url: str
) -> None:
    app = app_of(make_client)
    names = ["top", "mid", "low", "newbie", "gone", "x_esc"]
    for name in names:
        sign_up(Browser(app), name)
    ids = {row.name: row.id for row in rows(app, "accounts")}
    table = table_of(RatingRow)
    values = [
        ("top", 1900.0, 60.0),
        ("mid", 1700.0, 80.0),
        ("low", 1400.0, 100.0),
        ("newbie", 2100.0, 200.0),  # provisional: not listed
        ("gone", 2000.0, 50.0),  # closed: not listed
        ("x_esc", 1500.0, 50.0),
    ]

    def store(connection: Connection) -> None:
        connection.execute(
            insert(table),
            [
                {
                    "account_id": ids[name],
                    "pool": "sackson/real-time",
                    "rating": rating,
                    "deviation": deviation,
                    "volatility": 0.06,
                    "games": 20,
                    "rated_ms": 1,
                }
                for name, rating, deviation in values
            ],
        )

    app.app.state.service.db.run(store)  # type: ignore[attr-defined]
    assert main(["user", "close", "gone", "--database-url", database_url]) == 0
    first = app.get("/api/leaderboards/sackson/real-time?limit=2").json()
    assert [(e["rank"], e["name"]) for e in first["entries"]] == [(1, "top"), (2, "mid")]
    assert first["total"] == 4 and first["next_offset"] == 2
    rest = app.get("/api/leaderboards/sackson/real-time?limit=2&offset=2").json()
    assert [(e["rank"], e["name"]) for e in rest["entries"]] == [(3, "x_esc"), (4, "low")]
    assert rest["next_offset"] is None
    assert app.get("/api/leaderboards/cooper/correspondence").json()["entries"] == []
    for bad in ("/api/leaderboards/nosuch/real-time", "/api/leaderboards/sackson/blitz"):
        assert error_of(app.get(bad)) == (404, "not_found")
    page = app.get("/leaderboard")
    assert page.status_code == 200 and 'data-player="top"' in page.text
    assert "newbie" not in page.text and 'data-player="gone"' not in page.text
    assert app.get("/leaderboard/sackson/blitz").status_code == 404


def test_a_new_standing_is_a_new_rating() -> None:
    assert Standing(Rating(), None, 0) == NEW_STANDING


def test_a_rated_game_that_ends_after_a_player_s_account_is_closed_is_not_rated(
    make_client: Callable[..., TestClient], database_url: str
) -> None:
    app = app_of(make_client)
    ada, bob = signed_up(app, "ada", "bob")
    game_id, ada_token, _ = friend_game(ada, bob, **RATED, moved=True)
    assert main(["user", "close", "bob", "--database-url", database_url]) == 0
    ended = resign(ada, game_id, ada_token)
    assert ended["status"] == "finished" and ended["ratings"] is None
    assert rows(app, "ratings") == [] and rows(app, "rating_history") == []


def test_the_preview_of_each_result_is_the_change_the_game_s_end_applies(
    make_client: Callable[..., TestClient],
) -> None:
    app = app_of(make_client)
    ada, bob = signed_up(app, "ada", "bob")
    casual_id, _, _ = friend_game(ada, bob)
    assert error_of(app.get(f"/api/games/{casual_id}/rating-preview")) == (404, "not_found")
    # A win for Ada (Blue), then a draw, then a loss, each from the ratings the last one left.
    for result, ada_key, bob_key in (
        ("win", "win", "loss"),
        ("draw", "draw", "draw"),
        ("loss", "loss", "win"),
    ):
        game_id, ada_token, bob_token = friend_game(ada, bob, **RATED, moved=True)
        answer = app.get(f"/api/games/{game_id}/rating-preview")
        assert answer.status_code == 200, answer.text
        preview = answer.json()
        assert preview["pool"] == "sackson/real-time"
        if result == "win":
            state = resign(bob, game_id, bob_token)
        elif result == "loss":
            state = resign(ada, game_id, ada_token)
        else:
            post_action = {"Authorization": f"Bearer {ada_token}"}
            offered = ada.post(
                f"/api/games/{game_id}/actions", json={"action": "offer_draw"}, headers=post_action
            )
            assert offered.status_code == 200, offered.text
            state = resign_like(bob, game_id, bob_token, "accept_draw")
        applied = state["ratings"]
        for side, key in (("blue", ada_key), ("gray", bob_key)):
            shown = preview[side]
            assert shown["rating"] == applied[side]["rating"], (result, side)
            assert abs(shown[key] - applied[side]["change"]) < 0.01, (result, side, shown)
            assert round(shown[key]) == round(applied[side]["change"])
    assert preview["blue"]["win"] > 0 > preview["blue"]["loss"]


def resign_like(client: Browser, game_id: str, token: str, action: str) -> Json:
    answer = client.post(
        f"/api/games/{game_id}/actions",
        json={"action": action},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert answer.status_code == 200, answer.text
    state: Json = answer.json()
    return state


def test_the_chart_of_a_single_game_runs_from_the_rating_before_it_clear_of_the_labels() -> None:
    one_win = [RatingPoint(at_ms=1, rating=1673.0, change=173.0, game_id="g1")]
    chart = rating_chart(one_win)
    assert chart is not None
    assert (chart.low, chart.high) == (1500, 1673)  # two labels, not the same one twice
    points = [tuple(float(n) for n in point.split(",")) for point in chart.points.split()]
    assert len(points) == 2 and points[0][1] > points[1][1]  # up, from 1500 to 1673
    assert all(x > CHART_MARGIN + CHART_LABELS - 1 for x, _ in points)  # right of the labels
    # A draw that left the rating where it was: a level line across the middle, one label.
    level = rating_chart([RatingPoint(at_ms=1, rating=1500.0, change=0.0, game_id="g1")])
    assert level is not None and level.low == level.high == 1500
    assert {y for _, y in (point.split(",") for point in level.points.split())} == {
        f"{level.height / 2:g}"
    }
