"""The opening explorer in the browser (headless Chromium driven by Playwright): after three rated
games between two accounts (made through the API), the replay page's explorer shows the moves
from the position with their known counts, and clicking the game's move goes to it; the study
board's explorer plays the move clicked. At 1280 px and at 360 px, on SQLite and PostgreSQL; the
replay page with the explorer's table in the accessibility audit."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from bluegray.game import Game
from bluegray.web.explorer.book import read_book, shipped_path
from bluegray.web.explorer.positions import Tally, position_key
from bluegray.web.explorer.service import load_book
from bluegray.web.platform.db import make_engine
from tests.web.browser.test_browser_accessibility import audit
from tests.web.browser.test_browser_newcomer import DESKTOP, PHONE
from tests.web.conftest import Json
from tests.web.explorer.explorer_games import GAMES, RATED

PASSWORD = "a long enough password"


def api(page: Page, url: str, path: str, body: Json | None = None, token: str = "") -> Any:
    """A POST as the pages make it (with the page's cookies and CSRF token, and a seat's token
    when given); its JSON answer."""
    csrf = page.request.get(f"{url}/api/account").json()["csrf_token"]
    headers = {"Content-Type": "application/json", "X-CSRF-Token": csrf}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    answer = page.request.post(url + path, data=json.dumps(body or {}), headers=headers)
    assert answer.ok, answer.text()
    return answer.json()


def rated_games(ada: Page, bob: Page, url: str) -> list[str]:
    """The explorer tests' three rated games, Ada Blue and Bob Gray, played and resigned."""
    ids = []
    for moves, resigns in GAMES:
        created = api(
            ada, url, "/api/games", {"opponent": {"type": "friend"}, "color": "blue", **RATED}
        )
        game_id = created["game"]["id"]
        joined = api(bob, url, f"/api/games/{game_id}/join", {"invite": created["invite"]["code"]})
        tokens = {"blue": created["seat"]["token"], "gray": joined["seat"]["token"]}
        version = joined["game"]["version"]
        for ply, move in enumerate(moves):
            side = "blue" if ply % 2 == 0 else "gray"
            body = {"move": move, "version": version}
            version = api(ada, url, f"/api/games/{game_id}/moves", body, tokens[side])["game"][
                "version"
            ]
        ended = api(
            ada, url, f"/api/games/{game_id}/actions", {"action": "resign"}, tokens[resigns]
        )
        assert ended["status"] == "finished"
        ids.append(game_id)
    return ids


def book_counts(rules: str, *moves: str) -> dict[str, int]:
    """The games of each move from the position after ``moves``, in the shipped book."""
    tally = Tally()
    for game in read_book(shipped_path(rules)).games:
        tally.add(game)
    position = Game(rules)
    position.push_all(moves)
    key = position_key(position.position)
    return {move: counts.games for (_, at, move), counts in tally.moves.items() if at == key}


def row(page: Page, move: str) -> Any:
    return page.locator(f'#explorer-panel tbody tr[data-move="{move}"]')


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_explorer_shows_known_counts_and_a_click_plays_the_move(
    live_url: str, new_page: Callable[..., Page], viewport: Json, database_url: str
) -> None:
    engine = make_engine(database_url)  # the book this test reads (`explorer fill`: all five)
    try:
        assert load_book(engine, read_book(shipped_path("sackson")))
    finally:
        engine.dispose()
    ada, bob = new_page(viewport=viewport), new_page()
    for page, name in ((ada, "ada"), (bob, "bob")):
        page.goto(live_url + "/")
        api(page, live_url, "/api/account/signup", {"name": name, "password": PASSWORD})
    first, *_ = rated_games(ada, bob, live_url)

    # The replay of the first game (c2-c3 h8-h7 g2-g3 b8-b7 a2-a3, won by Blue), at its start.
    ada.goto(f"{live_url}/replay/{first}#ply=0")
    expect(ada.locator("#explorer-panel .explorer-status")).to_contain_text("3 rated games")
    c3, g3 = row(ada, "c2-c3"), row(ada, "g2-g3")
    expect(c3.locator(".explorer-games")).to_have_text("2")
    expect(g3.locator(".explorer-games")).to_have_text("1")
    expect(c3.locator(".explorer-bar")).to_have_attribute(
        "aria-label", "Blue won 50%, drawn 0%, Gray won 50%"
    )
    expect(g3.locator(".explorer-bar")).to_have_attribute(
        "aria-label", "Blue won 0%, drawn 0%, Gray won 100%"
    )
    played = c3.get_by_role("button", name="Go to c2-c3: 2 games")
    expect(played).to_be_visible()
    assert audit(ada, f"the replay's explorer at {viewport['width']} px") == []

    played.focus()  # keyboard reachable: Enter on the move goes to it
    ada.keyboard.press("Enter")
    expect(ada.locator("#board")).to_have_attribute("data-ply", "1")
    expect(row(ada, "h8-h7").locator(".explorer-games")).to_have_text("2")
    # The engine book in the same panel: the shipped book's counts.
    ada.select_option("#explorer-source", "book")
    book = book_counts("sackson", "c2-c3")
    expect(ada.locator("#explorer-panel .explorer-status")).to_contain_text("book games")
    popular = max(book, key=lambda move: book[move])
    expect(row(ada, popular).locator(".explorer-games")).to_have_text(str(book[popular]))
    expect(ada.locator("#explorer-panel tbody tr")).to_have_count(len(book))

    # The study board: a click on the explorer's move plays it there.
    ada.goto(f"{live_url}/study?rules=sackson")
    expect(row(ada, "g2-g3").locator(".explorer-games")).to_have_text("1")
    row(ada, "g2-g3").get_by_role("button").click()
    expect(ada.locator("#position-status")).to_contain_text("the last g2-g3")
    expect(row(ada, "b8-b7").locator(".explorer-games")).to_have_text("1")
