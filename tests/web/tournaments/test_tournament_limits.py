"""Tournaments an account cannot abuse (issue 39, items 3 and 4): at most so many open
tournaments per account and so many created a day; a list that pages instead of dropping any and
names each creator; names that are one line of printable characters, and record downloads that
never fail on what the site holds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import update

from bluegray.web.platform.db import make_engine
from bluegray.web.platform.models import table_of
from bluegray.web.tournaments.rows import TournamentRow
from tests.web.account_clients import Browser, post, sign_up, signed_up
from tests.web.conftest import Json, LiveServer, TestClient
from tests.web.lobby_clients import Player
from tests.web.tournaments.test_tournaments import CLOCK, wait_for

ARENA: Json = {"kind": "arena", "clock": CLOCK, "minutes": 30, "starts_in_seconds": 3600}


def create(client: Browser, name: str) -> Any:
    return post(client, "/api/tournaments", {**ARENA, "name": name})


def test_an_account_has_at_most_three_open_tournaments_and_ten_a_day(
    make_client: Callable[..., TestClient], database_url: str
) -> None:
    app = make_client(rate_limits=False)
    ada, bob = signed_up(app, "ada", "bob")
    made = [create(ada, f"Cup {n}") for n in range(3)]
    assert [answer.status_code for answer in made] == [201] * 3
    refused = create(ada, "Cup 4")
    assert refused.status_code == 409, refused.text
    assert refused.json()["error"]["code"] == "too_many_tournaments"
    assert create(bob, "Bob's cup").status_code == 201  # another account is not held back
    # Finished ones leave room for more, but not past ten created in a day.
    engine = make_engine(database_url)
    tournaments = table_of(TournamentRow)
    for more in (3, 3, 1):  # 3 + 3 + 3 + 1: ten today
        with engine.begin() as connection:
            connection.execute(
                update(tournaments)
                .where(tournaments.c.creator_name == "ada")
                .values(status="finished", finished_ms=1)
            )
        assert [create(ada, "More").status_code for _ in range(more)] == [201] * more
    engine.dispose()
    counted = [
        t for t in app.get("/api/tournaments").json()["tournaments"] if t["creator"] == "ada"
    ]
    assert len(counted) == 10
    late = create(ada, "Eleventh")
    assert late.status_code == 429 and late.json()["error"]["code"] == "too_many_tournaments"


def test_the_list_pages_through_every_tournament_and_names_its_creator(
    make_client: Callable[..., TestClient],
) -> None:
    app = make_client(rate_limits=False, open_tournaments_per_account=100, tournaments_per_day=100)
    ada = Browser(app)
    sign_up(ada, "ada")
    ids = {create(ada, f"Look-alike {n}").json()["id"] for n in range(55)}
    seen: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = app.get(f"/api/tournaments?limit=20&offset={offset}").json()
        assert page["total"] == 55
        seen += [t["id"] for t in page["tournaments"]]
        offset = page["next_offset"]
    assert len(seen) == 55 and set(seen) == ids
    first = app.get("/tournaments")
    assert first.text.count("data-tournament=") == 50 and "of 55" in first.text
    assert 'href="/tournaments?offset=50"' in first.text and "/player/ada" in first.text
    second = app.get("/tournaments?offset=50")
    assert second.text.count("data-tournament=") == 5
    assert 'href="/tournaments?offset=0"' in second.text


def test_a_name_is_one_line_of_printable_characters(
    make_client: Callable[..., TestClient],
) -> None:
    app = make_client(rate_limits=False)
    ada = Browser(app)
    sign_up(ada, "ada")
    for bad in ["Cup\nFinal", "Cup\r", "Cup\u2028Final", "\u202eCup", "Tab\there", "   "]:
        answer = create(ada, bad)
        assert answer.status_code == 422, repr(bad)
        assert answer.json()["error"]["code"] == "invalid_request", repr(bad)
        token = post(ada, "/api/account/tokens", {"description": bad})
        assert token.status_code == 422, repr(bad)
    made = create(ada, "  Sunday arena ✓  ")
    assert made.status_code == 201 and made.json()["name"] == "Sunday arena ✓"


def test_a_record_download_never_fails_on_a_name_stored_before(
    make_server: Callable[..., LiveServer], database_url: str
) -> None:
    server = make_server(rate_limits=False)
    players = {name: Player(server.url, name) for name in ("ada", "bob")}
    ada = players["ada"]
    body = {**ARENA, "name": "Old", "starts_in_seconds": 0}
    tid = ada.post("/api/tournaments", body).json()["id"]
    for player in players.values():
        assert player.post(f"/api/tournaments/{tid}/join").status_code == 200
    [game] = wait_for(lambda: ada.get(f"/api/tournaments/{tid}/games")["games"])
    engine = make_engine(database_url)
    tournaments = table_of(TournamentRow)
    with engine.begin() as connection:  # as an older version let it be stored
        connection.execute(
            update(tournaments).where(tournaments.c.id == tid).values(name="Old\nCup\x1b")
        )
    engine.dispose()
    for path in (f"/api/tournaments/{tid}/records", f"/api/games/{game['game_id']}/record"):
        answer = ada.http.get(path)
        assert answer.status_code == 200, (path, answer.text)
        assert '[Event "Old Cup"]' in answer.text, answer.text
