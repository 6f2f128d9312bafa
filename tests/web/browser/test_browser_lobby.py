"""The lobby in the real browser (headless Chromium driven by Playwright), at 1280 and at 360 px:
two people who do not know each other make accounts, meet through the lobby (one posts a rated
challenge, the other sees it appear and plays it), both are taken to the game at once, one
resigns, the game's end shows both rating changes, and the winner's profile shows the rating
with its chart; a challenge by name reaches a player on another page, in the header.

Every page passes the newcomer's checks: its status line in sight, nothing wider than the
screen."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, Request, ViewportSize, expect

from tests.web.browser.test_browser_newcomer import DESKTOP, PHONE, TOO_WIDE, check_page
from tests.web.conftest import LiveServer
from tests.web.lobby_clients import set_ratings

PASSWORD = "a long enough password"


def first_moves(pages: dict[str, Page], url: str, game: dict[str, Any]) -> None:
    """Both sides play their first move, each with its own session (resigning is offered once
    both sides have moved)."""
    path = f"{url}/api/games/{game['game_id']}"
    state = pages[game["blue"]].request.get(path).json()
    for _ in range(2):
        mover = pages[game[state["turn"]]]
        token = mover.request.get(f"{url}/api/account").json()["csrf_token"]
        answer = mover.request.post(
            f"{path}/moves",
            data={"move": state["legal_moves"][0], "version": state["version"]},
            headers={"X-CSRF-Token": token},
        )
        assert answer.ok, answer.text()
        state = answer.json()["game"]


def person(new_page: Callable[..., Page], viewport: ViewportSize, url: str, name: str) -> Page:
    """A new browser that makes the account ``name`` on the signup page."""
    phone = viewport["width"] < 500
    page = new_page(viewport=viewport, has_touch=phone, is_mobile=phone)
    page.goto(url + "/signup")
    page.fill("#name", name)
    page.fill("#password", PASSWORD)
    page.fill("#password-again", PASSWORD)
    page.locator("#signup-button").click()
    page.wait_for_url(re.compile(rf"/player/{name}$"))
    return page


def loads_of_a_game(page: Page) -> list[str]:
    """The game pages ``page`` will ask for, as they are asked for."""
    loads: list[str] = []

    def seen(request: Request) -> None:
        if request.is_navigation_request() and "/game/" in request.url:
            loads.append(request.url)

    page.on("request", seen)
    return loads


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_two_strangers_meet_in_the_lobby_and_play_a_rated_game(
    live_url: str, new_page: Callable[..., Page], viewport: ViewportSize
) -> None:
    width = viewport["width"]
    ada = person(new_page, viewport, live_url, "Ada_L")
    bob = person(new_page, viewport, live_url, "bob99")
    for page in (ada, bob):
        page.goto(live_url + "/")
        expect(page.locator("#people")).to_have_attribute("data-connected", "true")
        expect(page.locator("#notices")).to_have_attribute("data-connected", "true")
    check_page(bob, "h1", width)

    # Ada posts a rated challenge; Bob sees it appear and plays it.
    ada.locator("#post-seek summary").click()
    ada.select_option("#seek-rules", "sackson")
    ada.fill("#seek-minutes", "5")
    ada.fill("#seek-increment", "3")
    expect(ada.locator("#seek-rated")).to_be_checked()
    ada.select_option("#seek-color", "blue")
    ada.locator("#seek-post").click()
    own = ada.locator('#seeks li.seek[data-player="Ada_L"]')
    expect(own.locator(".cancel-seek")).to_be_visible()
    seek = bob.locator('#seeks li.seek[data-player="Ada_L"]')
    expect(seek).to_contain_text("sackson · 5+3 · rated")
    expect(seek).to_contain_text("Ada_L (1500?)")
    # What a win, a draw or a loss would do to Bob's rating, beside the seek.
    seek_preview = seek.locator(".rating-preview")
    expect(seek_preview).to_contain_text(re.compile(r"win \+\d+, draw 0, loss \u2212\d+"))
    bob_loss = seek_preview.get_attribute("data-loss")
    assert bob.evaluate(TOO_WIDE) == []
    game_loads = {page: loads_of_a_game(page) for page in (ada, bob)}
    seek.locator(".accept-seek").click()

    # Both are taken to the game at once, each by one navigation (the answer to the accept
    # and the account's socket both announce it; a second would cancel the first).
    bob.wait_for_url(re.compile(r"/game/[A-Za-z0-9_-]+$"))
    game_id = bob.url.rsplit("/", 1)[1]
    ada.wait_for_url(re.compile(rf"/game/{game_id}$"))
    for page in (ada, bob):
        expect(page.locator("#main")).to_have_attribute("data-rated", "true")
        expect(page.locator("#main")).to_have_attribute("data-status", "active")
        assert game_loads[page] == [f"{live_url}/game/{game_id}"]
    expect(ada.locator("#main")).to_have_attribute("data-my-turn", "true")
    # The game page says it is rated, with each rating by the name and each player's preview.
    for page in (ada, bob):
        expect(page.locator("#rated-line")).to_have_text("Rated · 5+3")
        expect(page.locator("#rating-preview")).to_contain_text("Your rating 1500?: win +")
    expect(bob.locator("#rating-preview")).to_have_attribute("data-loss", bob_loss or "")
    ada_win = ada.locator("#rating-preview").get_attribute("data-win")

    # Before both sides have moved the game can be aborted, not resigned (nor drawn).
    for page in (ada, bob):
        expect(page.locator('#actions [data-action="abort"]')).to_be_visible()
        expect(page.locator('#actions [data-action="resign"]')).to_be_hidden()
        expect(page.locator('#actions [data-action="offer_draw"]')).to_be_hidden()
    first_moves(
        {"Ada_L": ada, "bob99": bob},
        live_url,
        {"game_id": game_id, "blue": "Ada_L", "gray": "bob99"},
    )
    for page in (ada, bob):
        expect(page.locator('#actions [data-action="resign"]')).to_be_visible()
        expect(page.locator('#actions [data-action="abort"]')).to_be_hidden()

    # Bob resigns: the end shows both ratings and their changes.
    bob.click('#actions [data-action="resign"]')
    bob.click("#resign-yes")
    for page in (ada, bob):
        expect(page.locator("#game-over")).to_contain_text("Blue wins: Gray resigned")
        changes = page.locator("#rating-changes")
        expect(changes.locator('li[data-side="blue"]')).to_contain_text(
            re.compile(r"Ada_L 1500\? \+\d+")
        )
        expect(changes.locator('li[data-side="gray"]')).to_contain_text(
            re.compile(r"bob99 1500\? \u2212\d+")
        )
        assert page.evaluate(TOO_WIDE) == []
    gain = int(
        ada.locator('#rating-changes li[data-side="blue"]').get_attribute("data-change") or 0
    )
    assert gain > 100
    # The changes applied are the ones previewed.
    assert str(gain) == ada_win
    expect(bob.locator('#rating-changes li[data-side="gray"]')).to_have_attribute(
        "data-change", bob_loss or ""
    )

    # Ada's profile shows the rating, its change and its chart.
    ada.goto(live_url + "/player/Ada_L")
    check_page(ada, "h1", width)
    rating = ada.locator('#ratings li[data-pool="sackson/real-time"]')
    expect(rating).to_have_attribute("data-rating", str(1500 + gain))
    expect(rating.locator(".rating-change")).to_have_attribute("data-change", str(gain))
    expect(rating.locator("svg.rating-chart polyline")).to_have_count(1)
    expect(rating).to_contain_text("?")  # still provisional


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_challenge_by_name_reaches_its_player_on_another_page(
    live_url: str, new_page: Callable[..., Page], viewport: ViewportSize
) -> None:
    width = viewport["width"]
    cal = person(new_page, viewport, live_url, "cal")
    dee = person(new_page, viewport, live_url, "dee")
    dee.goto(live_url + "/learn")  # not in the lobby
    expect(dee.locator("#notices")).to_have_attribute("data-connected", "true")
    cal.goto(live_url + "/")
    cal.locator("#post-seek summary").click()
    cal.fill("#challenge-name", "dee")
    cal.locator("#challenge-send").click()
    expect(cal.locator("#seek-error")).to_contain_text("Challenge sent to dee")
    notice = dee.locator("#notices .notice.challenge")
    expect(notice).to_contain_text("cal (1500?) challenges you: sackson, 5+3, rated")
    assert dee.evaluate(TOO_WIDE) == [], width
    notice.locator(".accept-challenge").click()
    dee.wait_for_url(re.compile(r"/game/[A-Za-z0-9_-]+$"))
    game_id = dee.url.rsplit("/", 1)[1]
    cal.wait_for_url(re.compile(rf"/game/{game_id}$"))  # from the lobby, straight to the game

    # A friend's game can be created rated from the new game's form too.
    cal.goto(live_url + "/")
    expect(cal.locator("#rated-row")).to_be_hidden()
    cal.check('input[name="opponent"][value="friend"]')
    expect(cal.locator("#rated-row")).to_be_visible()
    cal.check("#rated")
    cal.locator("#start").click()
    cal.wait_for_url(re.compile(r"/game/[A-Za-z0-9_-]+$"))
    expect(cal.locator("#main")).to_have_attribute("data-rated", "true")


def test_a_rated_challenge_by_name_shows_the_rating_change_the_game_then_applies(
    live_server: LiveServer, new_page: Callable[..., Page]
) -> None:
    """The header's notice of a rated challenge says what a win, a draw and a loss would change
    the player's rating by: the server's preview (``rate_pair``, as the game's end rates it),
    and the change the end then applies."""
    url = live_server.url
    kit = person(new_page, DESKTOP, url, "kit")
    lee = person(new_page, DESKTOP, url, "lee")
    set_ratings(live_server, {"kit": 1500, "lee": 1700})  # established, 200 points apart
    lee.goto(url + "/learn")  # not in the lobby
    expect(lee.locator("#notices")).to_have_attribute("data-connected", "true")
    token = kit.request.get(f"{url}/api/account").json()["csrf_token"]
    body = {"to": "lee", "rules": "sackson", "rated": True, "color": "blue"}
    sent = kit.request.post(
        f"{url}/api/challenges",
        data={**body, "clock": {"minutes": 5, "increment_seconds": 3}},
        headers={"X-CSRF-Token": token},
    )
    assert sent.ok, sent.text()
    notice = lee.locator("#notices .notice.challenge")
    expect(notice).to_contain_text("kit (1500) challenges you: sackson, 5+3, rated")
    preview = notice.locator(".rating-preview")  # before the fix: no preview in the notice
    expect(preview).to_contain_text(
        re.compile(r"Your rating 1700: win \+\d+, draw \u2212\d+, loss \u2212\d+")
    )
    seek_id = lee.request.get(f"{url}/api/challenges").json()["incoming"][0]["id"]
    expected = lee.request.get(f"{url}/api/seeks/{seek_id}/rating-preview").json()["you"]
    shown = {result: preview.get_attribute(f"data-{result}") for result in ("win", "draw", "loss")}
    assert shown == {result: str(round(expected[result])) for result in shown}

    notice.locator(".accept-challenge").click()
    lee.wait_for_url(re.compile(r"/game/[A-Za-z0-9_-]+$"))
    game_id = lee.url.rsplit("/", 1)[1]
    first_moves({"kit": kit, "lee": lee}, url, {"game_id": game_id, "blue": "kit", "gray": "lee"})
    expect(lee.locator('#actions [data-action="resign"]')).to_be_visible()
    lee.click('#actions [data-action="resign"]')
    lee.click("#resign-yes")
    change = lee.locator('#rating-changes li[data-side="gray"]')
    expect(change).to_have_attribute("data-change", shown["loss"] or "")


def test_a_correspondence_seek_from_the_form_starts_a_game_of_days(
    live_url: str, new_page: Callable[..., Page]
) -> None:
    eve = person(new_page, DESKTOP, live_url, "eve")
    fay = person(new_page, DESKTOP, live_url, "fay")
    for page in (eve, fay):
        page.goto(live_url + "/")
        expect(page.locator("#people")).to_have_attribute("data-connected", "true")
    eve.locator("#post-seek summary").click()
    expect(eve.locator("#seek-days-row")).to_be_hidden()
    eve.check('input[name="seek-time"][value="days"]')
    expect(eve.locator("#seek-clock-row")).to_be_hidden()
    eve.select_option("#seek-days", "5")
    eve.select_option("#seek-color", "blue")
    eve.locator("#seek-post").click()
    seek = fay.locator('#seeks li.seek[data-player="eve"]')
    expect(seek).to_contain_text("sackson · 5 days · rated")
    seek.locator(".accept-seek").click()
    fay.wait_for_url(re.compile(r"/game/[A-Za-z0-9_-]+$"))
    expect(fay.locator('[data-clock="gray"]')).to_have_text("5 days per move")
    expect(fay.locator("#main")).to_have_attribute("data-rated", "true")


def test_the_lobby_offers_only_what_a_player_can_take_and_says_why(
    live_server: LiveServer, new_page: Callable[..., Page]
) -> None:
    """A seek outside the player's rating range offers no "Play" but says why; a quick pairing's
    waiting panel shows the ratings it pairs with now; what the server refuses all the same (a
    rating changed since the page was made) is said where the player sees it."""
    url = live_server.url
    gus = person(new_page, DESKTOP, url, "gus")
    hal = person(new_page, DESKTOP, url, "hal")
    set_ratings(live_server, {"gus": 1500, "hal": 2100})
    for page in (gus, hal):
        page.goto(url + "/")
        expect(page.locator("#people")).to_have_attribute("data-connected", "true")
    hal.locator("#post-seek summary").click()
    hal.fill("#seek-min", "1700")
    hal.locator("#seek-post").click()
    seek = gus.locator('#seeks li.seek[data-player="hal"]')
    expect(seek.locator(".out-of-range")).to_have_text("For ratings from 1700: yours is 1500.")
    expect(seek.locator(".accept-seek")).to_have_count(0)  # before the fix: a dead button

    # Hal waits in a quick pairing: his panel shows the range, and Gus's lobby says why not
    # (600 points apart: not before the range has widened for 30 s).
    hal.locator('.quick-button[data-pairing="sackson-5+3"]').click()
    expect(hal.locator("#quick-status")).to_have_text(
        re.compile(r"Waiting for someone to press Sackson 5\+3… \(ratings 1[6-8]00\u20132[4-6]00\)")
    )
    quick = gus.locator('#seeks li.seek[data-quick="sackson-5+3"]')
    expect(quick).to_contain_text(re.compile(r"5\+3 · rated · 1[6-8]00\u20132[4-6]00"))
    expect(quick.locator(".out-of-range")).to_contain_text("yours is 1500")
    expect(quick.locator(".accept-seek")).to_have_count(0)

    # Gus's rating fell since his page was made: "Play" is offered, the server refuses, and
    # the refusal is in sight.
    set_ratings(live_server, {"gus": 1300})
    hal.fill("#seek-min", "1400")
    hal.locator("#seek-post").click()
    open_seek = gus.locator("#seeks li.seek", has_text="1400\u2013any")
    open_seek.locator(".accept-seek").click()
    refusal = gus.locator("#people-error")
    expect(refusal).to_be_visible()
    expect(refusal).to_contain_text("your rating 1300 is outside this seek's range 1400-∞")


def test_what_waits_for_a_player_shows_on_every_page_they_open(
    live_server: LiveServer, new_page: Callable[..., Page]
) -> None:
    """A challenge sent while its player had no page open shows on the next page they open; a
    game waiting for their move shows on every page, and reaches an open page within
    ``account_turn_seconds`` (4 s) of the move."""
    url = live_server.url
    ivy = person(new_page, DESKTOP, url, "ivy")
    jon = person(new_page, DESKTOP, url, "jon")
    jon.goto("about:blank")  # no page of the site open
    token = ivy.request.get(f"{url}/api/account").json()["csrf_token"]
    body = {"to": "jon", "rules": "sackson", "clock": {"minutes": 5, "increment_seconds": 3}}
    sent = ivy.request.post(
        f"{url}/api/challenges", data={**body, "color": "blue"}, headers={"X-CSRF-Token": token}
    )
    assert sent.ok, sent.text()
    jon.goto(url + "/learn")
    notice = jon.locator("#notices .notice.challenge")
    expect(notice).to_contain_text("ivy (1500?) challenges you")  # before the fix: nothing
    notice.locator(".accept-challenge").click()
    jon.wait_for_url(re.compile(r"/game/[A-Za-z0-9_-]+$"))
    game_id = jon.url.rsplit("/", 1)[1]

    # Ivy (Blue) moves while Jon reads Learn: his page shows it is his move, within 4 s.
    jon.goto(url + "/learn")
    expect(jon.locator("#notices")).to_have_attribute("data-connected", "true")
    expect(jon.locator("#notices .notice.turn")).to_have_count(0)
    path = f"{url}/api/games/{game_id}"
    state = ivy.request.get(path).json()
    moved = ivy.request.post(
        f"{path}/moves",
        data={"move": state["legal_moves"][0], "version": state["version"]},
        headers={"X-CSRF-Token": token},
    )
    assert moved.ok, moved.text()
    turn = jon.locator("#notices .notice.turn")
    expect(turn).to_contain_text("Your move against ivy (sackson): play", timeout=10_000)
    # And on the next page he opens, at once.
    jon.goto(url + "/games")
    expect(jon.locator("#notices .notice.turn a")).to_have_attribute("href", f"/game/{game_id}")


def test_the_home_page_s_form_starts_at_the_level_it_advises(
    live_url: str, new_page: Callable[..., Page]
) -> None:
    page = new_page(viewport=DESKTOP)
    page.goto(live_url + "/")
    expect(page.locator("#first-time")).to_contain_text("against the computer at level 1")
    expect(page.locator("#level")).to_have_value("1")  # before the fix: 3
    expect(page.locator("#rules")).to_have_value("sackson")
