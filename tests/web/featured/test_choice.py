"""The featured game's choice: the rated real-time game between two accounts with the highest
average rating, of two the most recently started; AI games, hot-seat games, unrated,
correspondence and finished games, and games with a player without an account, never. Through
``GET /api/featured``, on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import Connection, delete, insert, select, update

from bluegray.web.accounts.rows import AccountRow
from bluegray.web.featured.choice import choose
from bluegray.web.games.rated_now import RatedGameNow, SeatedAccount
from bluegray.web.games.rows import GameRow, SeatRow
from bluegray.web.platform.clocks import now_ms
from bluegray.web.ratings.rows import RatingRow
from tests.web.account_clients import Browser, friend_game, sign_up
from tests.web.conftest import Json, TestClient

RATED: Json = {"rated": True, "clock": {"minutes": 10}}
POOL = "sackson/real-time"


def game_now(game_id: str, started_ms: int, blue: int, gray: int) -> RatedGameNow:
    return RatedGameNow(
        id=game_id,
        rules="sackson",
        started_ms=started_ms,
        blue=SeatedAccount(blue, f"p{blue}", False),
        gray=SeatedAccount(gray, f"p{gray}", False),
    )


def test_the_highest_average_is_chosen_and_of_equal_averages_the_latest_started() -> None:
    ratings = {(1, POOL): 2000.0, (2, POOL): 1600.0, (3, POOL): 1700.0, (4, POOL): 1800.0}
    ratings |= {(5, POOL): 1900.0, (6, POOL): 1500.0}
    games = [
        game_now("early", 1000, 1, 2),  # average 1800
        game_now("late", 2000, 5, 3),  # average 1800, started later
        game_now("low", 3000, 4, 6),  # average 1650, the latest
    ]
    chosen = choose(games, ratings)
    assert chosen is not None and chosen.game_id == "late"
    assert chosen.average == 1800.0 and chosen.perf == POOL
    assert (chosen.blue.name, chosen.blue.rating, chosen.gray.rating) == ("p5", 1900, 1700)
    ratings[2, POOL] = 1601.0
    chosen = choose(games, ratings)
    assert chosen is not None and chosen.game_id == "early"
    assert choose([], ratings) is None
    # The same games in any order: the same choice.
    assert choose(games[::-1], ratings) == choose(games, ratings)


class Site:
    """Accounts and their games on one app (one process)."""

    def __init__(self, app: TestClient) -> None:
        self.app = app
        self.db = app.app.state.service.db  # type: ignore[attr-defined]
        self.browsers: dict[str, Browser] = {}

    def account(self, name: str, rating: float | None = None) -> Browser:
        browser = Browser(self.app)
        sign_up(browser, name)
        self.browsers[name] = browser
        if rating is not None:
            self.rate(name, rating)
        return browser

    def rate(self, name: str, rating: float) -> None:
        def store(connection: Connection) -> None:
            account_id = connection.execute(
                select(AccountRow.id).where(AccountRow.name == name)
            ).scalar_one()
            connection.execute(
                delete(RatingRow).where(RatingRow.account_id == account_id, RatingRow.pool == POOL)
            )
            row = {
                "account_id": account_id,
                "pool": POOL,
                "rating": rating,
                "deviation": 60.0,
                "volatility": 0.06,
                "games": 30,
                "rated_ms": now_ms(),
            }
            connection.execute(insert(RatingRow), [row])

        self.db.run(store)

    def game(self, blue: str, gray: str, **body: Any) -> str:
        game_id, _, _ = friend_game(self.browsers[blue], self.browsers[gray], **(RATED | body))
        return game_id

    def change(self, table: Any, game_id: str, **values: Any) -> None:
        column = table.id if table is GameRow else table.game_id
        self.db.run(lambda c: c.execute(update(table).where(column == game_id).values(**values)))

    def featured(self) -> Json | None:
        answer = self.app.get("/api/featured")
        if answer.status_code == 204:
            assert answer.content == b""
            return None
        assert answer.status_code == 200, answer.text
        game: Json = answer.json()
        return game


@pytest.fixture
def site(make_client: Callable[..., TestClient]) -> Site:
    return Site(make_client(rate_limits=False))


def test_no_game_qualifies_then_the_one_rated_real_time_game_between_accounts(
    site: Site,
) -> None:
    assert site.featured() is None
    site.account("ada", 2000)
    site.account("bob", 1801)
    game_id = site.game("ada", "bob")
    featured = site.featured()
    assert featured is not None
    assert featured["game_id"] == game_id and featured["perf"] == POOL
    assert featured["blue"] == {"name": "ada", "bot": False, "rating": 2000}
    assert featured["gray"] == {"name": "bob", "bot": False, "rating": 1801}
    assert featured["average"] == 1900.5


def test_only_active_rated_real_time_games_between_two_accounts_are_featured(
    site: Site,
) -> None:
    for name, rating in [("ada", 2400), ("bob", 2200), ("cal", 1500), ("dan", 1500)]:
        site.account(name, rating)
    best = site.game("ada", "bob")
    plain = site.game("cal", "dan")
    assert (site.featured() or {}).get("game_id") == best
    # Each way the best game may fail to qualify, one at a time: the plain one is featured.
    excluded: list[tuple[Any, dict[str, Any]]] = [
        (GameRow, {"mode": "ai"}),
        (GameRow, {"mode": "hotseat"}),
        (GameRow, {"rated": False}),
        (GameRow, {"time_class": "correspondence", "corr_days": 3, "clock_initial_ms": None}),
        (GameRow, {"status": "finished"}),
        (GameRow, {"status": "aborted"}),
        (GameRow, {"status": "waiting"}),
    ]
    for table, values in excluded:
        before = site.db.run(
            lambda c: c.execute(select(GameRow).where(GameRow.id == best)).mappings().one()
        )
        site.change(table, best, **values)
        assert (site.featured() or {}).get("game_id") == plain, values
        site.change(table, best, **{key: before[key] for key in values})
        assert (site.featured() or {}).get("game_id") == best
    # A player without an account (the seat's account gone), or the AI in a seat.
    for values in ({"account_id": None, "account_name": None}, {"kind": "ai"}):
        site.db.run(
            lambda c, v=values, game_id=best: c.execute(
                update(SeatRow)
                .where(SeatRow.game_id == game_id, SeatRow.side == "gray")
                .values(**v)
            )
        )
        assert (site.featured() or {}).get("game_id") == plain, values
        site.change(GameRow, best, status="finished")
        best = site.game("ada", "bob")
        assert (site.featured() or {}).get("game_id") == best
    site.change(GameRow, best, status="finished")
    site.change(GameRow, plain, status="finished")
    assert site.featured() is None


def test_of_equal_averages_the_latest_started_is_featured_and_a_new_player_counts_1500(
    site: Site,
) -> None:
    site.account("ada", 1700)
    site.account("bob", 1300)
    site.account("cal")  # a new player: 1500
    site.account("dan")
    first = site.game("ada", "bob")
    second = site.game("cal", "dan")
    featured = site.featured()
    assert featured is not None and featured["game_id"] == second
    assert featured["blue"]["rating"] == 1500 and featured["average"] == 1500.0
    # The first started later (its last seat taken later), though created first.
    site.db.run(
        lambda c: c.execute(
            update(SeatRow).where(SeatRow.game_id == first).values(joined_ms=now_ms() + 60_000)
        )
    )
    assert (site.featured() or {}).get("game_id") == first
    site.rate("ada", 1701)
    site.db.run(
        lambda c: c.execute(
            update(SeatRow).where(SeatRow.game_id == first).values(joined_ms=now_ms() - 60_000)
        )
    )
    assert (site.featured() or {}).get("game_id") == first  # the higher average, whenever
