"""Accounts in the real browser (headless Chromium driven by Playwright), at 1280 and at 360 px:
a visitor plays a game without an account, makes one from the header's "Log in" (keeping that
game), sees it on their profile, makes and revokes an API token, logs out and in again (a wrong
password first), and plays the account's game from a second browser where they log in.

Every page passes the newcomer's checks: its status line in sight, nothing wider than the screen,
the boards drawn with the library's pieces."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, ViewportSize, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.web.browser.test_browser_newcomer import DESKTOP, PHONE, TOO_WIDE, check_page

PASSWORD = "a long enough password"


def open_page(new_page: Callable[..., Page], viewport: ViewportSize) -> Page:
    phone = viewport["width"] < 500
    return new_page(viewport=viewport, has_touch=phone, is_mobile=phone)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_visitor_makes_an_account_keeps_their_game_and_logs_in_elsewhere(
    live_url: str, new_page: Callable[..., Page], viewport: ViewportSize
) -> None:
    width = viewport["width"]
    page = open_page(new_page, viewport)
    name = f"Visitor_{width}"

    # A game without an account, against the computer.
    page.goto(live_url + "/")
    page.check('input[name="opponent"][value="ai"]')
    page.select_option("#level", "1")
    page.check('input[name="color"][value="blue"]')
    page.locator("#start").click()
    page.wait_for_url(re.compile(r"/game/[A-Za-z0-9_-]+$"))
    game_id = page.url.rsplit("/", 1)[1]
    page.wait_for_selector('#main[data-my-turn="true"]')

    # The header's "Log in", then "Make one".
    page.get_by_role("link", name="Log in").click()
    page.wait_for_url(re.compile(r"/login$"))
    check_page(page, "h1", width)
    page.get_by_role("link", name="Make one").click()
    page.wait_for_url(re.compile(r"/signup$"))
    check_page(page, "h1", width)
    expect(page.locator("#claim")).to_be_checked()
    # Refused on the page first: the two passwords differ.
    page.fill("#name", name)
    page.fill("#password", PASSWORD)
    page.fill("#password-again", PASSWORD + "!")
    page.locator("#signup-button").click()
    expect(page.locator("#form-error")).to_contain_text("The two passwords differ")
    page.fill("#password-again", PASSWORD)
    page.locator("#signup-button").click()

    # The profile: the game is there, and the header names the account.
    page.wait_for_url(re.compile(rf"/player/{name}$"))
    check_page(page, "h1", width)
    expect(page.locator("#player-name")).to_have_text(name)
    expect(page.locator(".account-name")).to_have_text(name)
    expect(page.locator(f'#player-games li[data-game-id="{game_id}"]')).to_contain_text(
        "against the AI (level 1)"
    )
    expect(page.locator("#ratings")).to_contain_text("No rated games yet")

    # The account's page: a token is shown once, then revoked.
    page.locator(".account-link").click()
    page.wait_for_url(re.compile(r"/account$"))
    check_page(page, "h1", width)
    page.fill("#token-description", "my bot")
    page.locator("#token-button").click()
    expect(page.locator("#new-token-value")).to_have_text(re.compile(r"^bgp_[A-Za-z0-9_-]{43}$"))
    expect(page.locator("#token-list li")).to_have_count(1)
    assert page.evaluate(TOO_WIDE) == []  # the token, 47 characters, fits a phone too
    page.get_by_role("button", name="Revoke my bot").click()
    expect(page.locator("#token-list li")).to_have_count(0)

    # Out, and in again (a wrong password first).
    page.locator("#logout-button").click()
    page.wait_for_url(re.compile(r"/$"))
    expect(page.locator(".account-link")).to_have_text("Log in")
    page.goto(live_url + "/login")
    page.fill("#name", name.lower())
    page.fill("#password", "not the password")
    page.locator("#login-button").click()
    expect(page.locator("#form-error")).to_have_text("Not logged in: wrong name or password.")
    check_page(page, "#form-error", width)
    page.fill("#password", PASSWORD)
    page.locator("#login-button").click()
    page.wait_for_url(re.compile(r"/$"))
    expect(page.locator(".account-name")).to_have_text(name)

    # Another browser where the account logs in plays its game (no seat token there).
    elsewhere = open_page(new_page, viewport)
    elsewhere.goto(f"{live_url}/login?next=/game/{game_id}")
    elsewhere.fill("#name", name)
    elsewhere.fill("#password", PASSWORD)
    elsewhere.locator("#login-button").click()
    elsewhere.wait_for_url(re.compile(rf"/game/{game_id}$"))
    elsewhere.wait_for_selector('#main[data-my-turn="true"]')
    expect(elsewhere.locator("#seat")).to_have_text("You play Blue.")
    expect(elsewhere.locator('[data-side="blue"] .who')).to_have_text(f"Blue (you, {name})")
    check_page(elsewhere, "#status", width)
    elsewhere.locator('#board [data-point="d2"]').click()
    elsewhere.locator('#board [data-point="d3"]').click()
    elsewhere.wait_for_selector('#main[data-ply="2"][data-my-turn="true"]')
    # And the first browser sees the move too.
    page.goto(f"{live_url}/game/{game_id}")
    page.wait_for_selector('#main[data-ply="2"]')


def test_a_form_sent_before_its_pages_script_has_loaded_goes_nowhere(
    live_url: str, new_page: Callable[..., Page]
) -> None:
    """Every form is sent by its page's script. One submitted before that script has loaded (a
    slow network, or a script that failed) must not go as the browser's own GET to the page,
    with its fields, a password too, in the address (and the server's logs, and the history):
    it goes nowhere, and the form's alert line says why."""
    page = new_page(viewport=DESKTOP)
    for script in ("account.js", "lobby.js"):  # they never load
        page.route(f"**/static/{script}", lambda route: route.abort())

    def navigation_after(send: Callable[[], None]) -> str | None:
        """Where the page went when ``send`` was done, if it went anywhere within a second."""
        try:
            with page.expect_navigation(timeout=1000):
                send()
        except PlaywrightTimeoutError:
            return None
        return page.url

    page.goto(live_url + "/login")
    page.fill("#name", "Somebody")
    page.fill("#password", PASSWORD)
    assert navigation_after(lambda: page.press("#password", "Enter")) is None
    expect(page.locator("#form-error")).to_have_text(
        "This page is still loading: try again in a moment, or reload it."
    )
    page.goto(live_url + "/")
    page.locator("#record").fill('[Rules "cooper"]\n\n1. d2-d3 *')
    button = page.get_by_role("button", name="Import and replay")
    assert navigation_after(button.click) is None
    expect(page.locator("#import-error")).to_contain_text("still loading")
    # With its script, a page's form is its script's alone: no such line.
    page.unroute("**/static/lobby.js")
    page.reload()
    page.locator("#record").fill("not a record")
    page.get_by_role("button", name="Import and replay").click()
    expect(page.locator("#import-error")).not_to_be_empty()
    expect(page.locator("#import-error")).not_to_contain_text("still loading")
