"""The web client through an outage of the database: a game started from the lobby, a move
clicked while PostgreSQL is down is sent again by the page itself once it is back, and stored
once."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.servers import PostgresServer
from tests.web.browser.test_browser import click_move, ply_of, start_from_lobby, wait_ply
from tests.web.conftest import LiveServer, settings_for


@pytest.fixture
def own_postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL server of this test's own, to stop and start again."""
    with PostgresServer() as server:
        yield server


def test_a_move_clicked_while_the_database_is_down_is_sent_again_by_the_page(
    own_postgres: PostgresServer, new_page: Callable[..., Page]
) -> None:
    url = own_postgres.url(own_postgres.new_database())
    with LiveServer(settings_for(url, rate_limits=False)) as server:
        page = new_page(viewport={"width": 1100, "height": 900})
        game_id = start_from_lobby(page, server.url, rules="cooper", opponent="hotseat")
        assert ply_of(page) == 0
        own_postgres.halt()
        click_move(page, "d2-d3")
        expect(page.locator("#message")).to_contain_text("sending d2-d3 again")
        own_postgres.resume_serving()
        wait_ply(page, 1)
        state = page.request.get(f"{server.url}/api/games/{game_id}").json()
        assert state["moves"] == ["d2-d3"] and state["version"] == 2
