"""A small arena in the real browser (headless Chromium driven by Playwright), at 1280 and at
360 px: four people with accounts, one creates a one-minute arena on the tournaments page, all
four join on its page (the table grows live) and each is led from it to their game, they play
its games (Gray resigns each one on the game's page) until the arena's time is up, and everyone
sees the final table (with each one's performance), its games and the records' download.

Every page passes the newcomer's checks: its status line in sight, nothing wider than the
screen."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.web.browser.test_browser_lobby import first_moves, person
from tests.web.browser.test_browser_newcomer import DESKTOP, PHONE, TOO_WIDE, check_page

NAMES = ("ada", "bob", "cyd", "dee")


def games_of(page: Page, url: str, tid: str) -> list[dict[str, Any]]:
    answer = page.request.get(f"{url}/api/tournaments/{tid}/games")
    assert answer.ok, answer.text()
    games: list[dict[str, Any]] = answer.json()["games"]
    return games


def status_of(page: Page, url: str, tid: str) -> str:
    answer = page.request.get(f"{url}/api/tournaments/{tid}")
    assert answer.ok, answer.text()
    status: str = answer.json()["tournament"]["status"]
    return status


def resign(page: Page, url: str, game_id: str) -> None:
    """Gray resigns the game on its page (and stays there: the tournament's page would lead
    Gray to the next game as soon as it is paired)."""
    # The header's notices (a game that starts for Gray elsewhere in the arena, the games waiting
    # for Gray's move) push the page down as they come: a click dispatched just then lands where
    # the button was, or on the notice's link. A person goes back and clicks again; so does this
    # (never more than three times).
    game_path = f"{url}/game/{game_id}"
    over = page.locator("#game-over")
    for _ in range(3):
        if page.url != game_path:
            page.goto(game_path)
        try:
            page.click('#actions [data-action="resign"]')
            expect(page.locator("#confirm-resign")).to_be_visible(timeout=3000)
            page.click("#resign-yes")
            expect(over).to_contain_text("Blue wins: Gray resigned", timeout=10_000)
            break
        except AssertionError:
            if over.is_visible():
                break
    expect(over).to_contain_text("Blue wins: Gray resigned")
    assert page.evaluate(TOO_WIDE) == [], page.url


def open_finished(page: Page, url: str, tournament_path: str) -> None:
    """A finished tournament's page. One already open reloads itself when it hears of the end
    (going to it as well would race that reload)."""
    if page.url == url + tournament_path:
        facts = page.locator("#tournament-facts")
        expect(facts).to_have_attribute("data-status", "finished")
    else:
        page.goto(url + tournament_path)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_four_players_play_an_arena_from_its_creation_to_the_final_table(
    live_url: str, new_page: Callable[..., Page], viewport: ViewportSize
) -> None:
    width = viewport["width"]
    pages = {name: person(new_page, viewport, live_url, name) for name in NAMES}
    ada = pages["ada"]

    # Ada creates a one-minute arena that starts at once.
    ada.goto(live_url + "/tournaments")
    check_page(ada, "h1", width)
    ada.fill('#tournament-form [name="name"]', "Quick <arena>")
    ada.fill('#tournament-form [name="minutes"]', "1")
    ada.fill('#tournament-form [name="starts_in"]', "0")
    ada.locator('#tournament-form button[type="submit"]').click()
    ada.wait_for_url(re.compile(r"/tournament/[A-Za-z0-9_-]+$"))
    path = "/tournament/" + ada.url.rsplit("/", 1)[1]
    tid = path.rsplit("/", 1)[1]
    expect(ada.locator("#tournament-name")).to_have_text("Quick <arena>")
    # It starts at once: the page reloads itself to show it running.
    expect(ada.locator("#tournament-facts")).to_have_attribute("data-status", "running")
    check_page(ada, "h1", width)

    # All four join, Ada last; Ada's table grows live. Each one whose game starts is led from the
    # tournament's page to it (Bob and Cyd first, then Dee and Ada).
    game_page = re.compile(r"/game/[A-Za-z0-9_-]+$")
    for name in ("bob", "cyd", "dee", "ada"):
        page = pages[name]
        if page is not ada:
            page.goto(live_url + path)
        page.locator("#join").click()
        if name != "ada":
            expect(ada.locator(f'#standings tbody tr[data-player="{name}"]')).to_have_count(1)
    for page in pages.values():
        # The pairing and the page's move to its game: as the other tournament tests wait for
        # it (15 s, the default, ran out once on a loaded two-core machine in a CI-like run).
        page.wait_for_url(game_page, timeout=30_000)

    # They play until the time is up: Gray resigns each game on the game's page.
    deadline = time.monotonic() + 180
    while status_of(ada, live_url, tid) != "finished":
        assert time.monotonic() < deadline, "the arena did not finish"
        for game in games_of(ada, live_url, tid):
            if game["result"] is None:
                first_moves(pages, live_url, game)
                resign(pages[game["gray"]], live_url, game["game_id"])
        time.sleep(0.5)  # poll interval: until the arena ends, up to 180 s

    # Everyone sees the final table, every game and the records' download.
    games = games_of(ada, live_url, tid)
    assert len(games) >= 2 and all(game["result"] == "1-0" for game in games)
    for page in pages.values():
        open_finished(page, live_url, path)
        check_page(page, "h1", width)
        expect(page.locator("#tournament-status")).to_have_text("finished")
        expect(page.get_by_role("heading", name="Final table")).to_be_visible()
        expect(page.locator("#standings tbody tr")).to_have_count(4)
        expect(page.locator("#tournament-games li")).to_have_count(len(games))
        expect(page.locator("#join")).to_have_count(0)
    wins = {name: sum(game["blue"] == name for game in games) for name in NAMES}
    rows = ada.locator("#standings tbody tr")
    first = rows.first.get_attribute("data-player") or ""
    assert wins[first] == max(wins.values())
    table = ada.request.get(f"{live_url}/api/tournaments/{tid}").json()["standings"]
    for line in table:
        row = ada.locator(f'#standings tbody tr[data-player="{line["name"]}"]')
        shown = "" if line["performance"] is None else str(line["performance"])
        expect(row.locator(".performance")).to_have_text(shown)
    records = ada.request.get(f"{live_url}/api/tournaments/{tid}/records").text()
    assert records.count('[Event "Quick <arena>"]') == len(games)
    for game in games:
        assert f'[GameId "{game["game_id"]}"]' in records
