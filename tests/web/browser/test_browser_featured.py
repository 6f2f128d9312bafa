"""The best game on now on the home page, in the real browser (headless Chromium driven by
Playwright), at 1280 and at 360 px: hidden while no game qualifies; shown with its players,
ratings and board once a rated real-time game between two accounts starts; a move played
appears on it live; the higher-rated game that starts takes its place; hidden again when the
games end. The board has a text alternative that says who plays and the last move."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.web.browser.test_browser_newcomer import DESKTOP, PHONE, TOO_WIDE
from tests.web.conftest import LiveServer
from tests.web.lobby_clients import Player, rated_game, set_ratings


def play_first_move(player: Player, game_id: str) -> str:
    state = player.get(f"/api/games/{game_id}")
    move = str(state["legal_moves"][0])
    answer = player.post(f"/api/games/{game_id}/moves", {"move": move, "version": state["version"]})
    assert answer.status_code == 200, answer.text
    return move


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_home_page_shows_the_best_game_on_now_live(
    live_server: LiveServer, new_page: Callable[..., Page], viewport: ViewportSize
) -> None:
    url = live_server.url
    phone = viewport["width"] < 500
    page = new_page(viewport=viewport, has_touch=phone, is_mobile=phone)
    page.goto(url + "/")
    panel = page.locator("#featured")
    expect(page.locator("#people")).to_have_attribute("data-connected", "true")
    expect(panel).to_be_hidden()

    ada, bob, cal, dan = (Player(url, name) for name in ("ada", "bob", "cal", "dan"))
    set_ratings(live_server, {"ada": 1600, "bob": 1500, "cal": 2000, "dan": 1900})
    first = rated_game(ada, bob)
    expect(panel).to_be_visible(timeout=5000)
    expect(panel).to_have_attribute("data-game-id", first["game_id"])
    expect(page.locator("#featured-blue")).to_have_text("ada 1600")
    expect(page.locator("#featured-gray")).to_have_text("bob 1500")
    expect(page.locator("#featured-link")).to_have_attribute("href", f"/game/{first['game_id']}")
    board = page.locator("#board")
    expect(board).to_have_attribute("data-ply", "0")
    expect(board).to_have_attribute("role", "img")
    expect(board).to_have_attribute("aria-label", re.compile(r"ada \(Blue, 1600\) against bob"))
    assert page.locator("#board svg use").count() > 0
    assert page.evaluate(TOO_WIDE) == []

    # A move appears live, on the board and in its text alternative.
    move = play_first_move(ada, first["game_id"])
    expect(board).to_have_attribute("data-ply", "1")
    expect(page.locator("#featured-status")).to_have_text(f"Move 1: {move}")
    expect(board).to_have_attribute("aria-label", re.compile(r"Move 1: Blue \w+ .*Gray to move"))
    expect(page.locator('#featured [data-clock="gray"]')).to_have_class(re.compile("running"))
    page.click("#read-board")
    expect(page.locator("#board-reading")).to_contain_text("Blue: captain")

    # A game between higher-rated players starts: the panel switches to it.
    second = rated_game(cal, dan)
    expect(panel).to_have_attribute("data-game-id", second["game_id"], timeout=5000)
    expect(page.locator("#featured-blue")).to_have_text("cal 2000")
    expect(board).to_have_attribute("data-ply", "0")

    # Both games end (aborted before both sides moved): nothing qualifies, the panel hides.
    for player, game in ((dan, second), (bob, first)):
        answer = player.post(f"/api/games/{game['game_id']}/actions", {"action": "resign"})
        assert answer.status_code == 200, answer.text
    expect(panel).to_be_hidden(timeout=5000)
    assert page.evaluate(TOO_WIDE) == []
