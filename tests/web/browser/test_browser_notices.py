"""Nobody stranded, in the browser: the count of games waiting for a player's move by their name
in the header (kept live), with the browser's notification when one more comes while the page is
hidden; and an account's games in My games and on the home page in any browser it logs in."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.web.browser.test_browser_lobby import PASSWORD, person
from tests.web.browser.test_browser_newcomer import DESKTOP, PHONE, TOO_WIDE
from tests.web.conftest import LiveServer

# A stand-in for the browser's Notification API (a headless browser shows none): not asked yet
# until the page asks (then given), the page counts as hidden, and each notification is kept for
# the test to read.
FAKE_NOTIFICATIONS = """
window.shownNotifications = [];
window.Notification = class {
  static permission = "default";
  static requestPermission() { Notification.permission = "granted"; return Promise.resolve("granted"); }
  constructor(title, options) { window.shownNotifications.push({ title, ...options }); }
  close() {}
};
Object.defineProperty(document, "hidden", { get: () => true });
"""


def a_game_of(url: str, blue: Page, red: Page, red_name: str) -> str:
    """A game ``blue`` challenges ``red`` to and ``red`` accepts: its id."""
    token = blue.request.get(f"{url}/api/account").json()["csrf_token"]
    body = {"to": red_name, "rules": "sackson", "correspondence": {"days": 3}, "color": "blue"}
    sent = blue.request.post(f"{url}/api/challenges", data=body, headers={"X-CSRF-Token": token})
    assert sent.ok, sent.text()
    red_token = red.request.get(f"{url}/api/account").json()["csrf_token"]
    accepted = red.request.post(
        f"{url}/api/challenges/{sent.json()['id']}/accept", headers={"X-CSRF-Token": red_token}
    )
    assert accepted.ok, accepted.text()
    game_id: str = accepted.json()["game_id"]
    return game_id


def move_in(page: Page, url: str, game_id: str) -> None:
    """``page``'s player plays the first legal move in the game."""
    token = page.request.get(f"{url}/api/account").json()["csrf_token"]
    path = f"{url}/api/games/{game_id}"
    state = page.request.get(path).json()
    moved = page.request.post(
        f"{path}/moves",
        data={"move": state["legal_moves"][0], "version": state["version"]},
        headers={"X-CSRF-Token": token},
    )
    assert moved.ok, moved.text()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_header_counts_the_games_waiting_for_a_move_live_and_notifies_when_hidden(
    live_server: LiveServer, new_page: Callable[..., Page], viewport: ViewportSize
) -> None:
    """A correspondence move by the opponent reaches the count by the player's name on any page
    within 5 s (``account_turn_seconds`` is 4 s); once the player lets the browser notify ("Notify
    me", a click), a game that joins the count while the page is hidden is notified."""
    url = live_server.url
    kim = person(new_page, DESKTOP, url, "kim")
    lou = person(new_page, viewport, url, "lou")
    lou.add_init_script(FAKE_NOTIFICATIONS)
    first = a_game_of(url, kim, lou, "lou")
    lou.goto(url + "/learn")
    expect(lou.locator("#notices")).to_have_attribute("data-connected", "true")
    count = lou.locator("#turn-count")
    expect(count).to_be_hidden()

    move_in(kim, url, first)  # Kim (Blue) moves: it is Lou's move
    expect(count).to_be_visible(timeout=5_000)  # before the fix: no count
    expect(count).to_have_text("1 games wait for your move")
    expect(count).to_have_attribute("href", "/account#turn-section")
    ask = lou.locator("#turn-notify")
    expect(ask).to_be_visible()
    assert lou.evaluate(TOO_WIDE) == []
    assert lou.evaluate("window.shownNotifications") == []  # not allowed yet
    ask.click()
    expect(ask).to_be_hidden()

    second = a_game_of(url, kim, lou, "lou")
    move_in(kim, url, second)
    expect(lou.locator("#turn-count .turn-count-number")).to_have_text("2", timeout=5_000)
    shown = lou.evaluate("window.shownNotifications")
    assert [note["tag"] for note in shown] == [f"/game/{second}"]
    assert shown[0]["body"] == "Your move against kim (sackson)."

    # The count is on every page, at once; Lou moves and it counts one game less.
    lou.goto(url + "/games")
    expect(lou.locator("#turn-count .turn-count-number")).to_have_text("2")
    move_in(lou, url, first)
    expect(lou.locator("#turn-count .turn-count-number")).to_have_text("1", timeout=5_000)


def test_an_account_s_games_are_listed_in_any_browser_it_logs_in(
    live_server: LiveServer, new_page: Callable[..., Page]
) -> None:
    """A game started in one browser is in My games and on the home page of another browser once
    the account logs in there (before the fix: "No games yet")."""
    url = live_server.url
    mia = person(new_page, DESKTOP, url, "mia")
    token = mia.request.get(f"{url}/api/account").json()["csrf_token"]
    created = mia.request.post(
        f"{url}/api/games",
        data={"rules": "cooper", "opponent": {"type": "friend"}, "color": "blue"},
        headers={"X-CSRF-Token": token},
    )
    assert created.ok, created.text()
    game_id = created.json()["game"]["id"]

    elsewhere = new_page(viewport=DESKTOP)
    elsewhere.goto(f"{url}/login?next=/games")
    elsewhere.fill("#name", "mia")
    elsewhere.fill("#password", PASSWORD)
    elsewhere.locator("#login-button").click()
    elsewhere.wait_for_url(re.compile(r"/games$"))
    row = elsewhere.locator(f'#games-body tr[data-game-id="{game_id}"]')
    expect(row).to_be_visible()  # before the fix: "No games yet in this browser"
    expect(row.locator('[data-label="You"]')).to_have_text("blue")
    expect(row.locator('[data-label="Rules"]')).to_have_text("cooper")
    elsewhere.goto(url + "/")
    expect(elsewhere.locator(f'#games a[href="/game/{game_id}"]')).to_be_visible()


def test_a_rated_invite_opened_logged_out_leads_to_the_login_and_back_into_the_game(
    live_server: LiveServer, new_page: Callable[..., Page]
) -> None:
    """A friend's rated invite opened by someone not logged in offers a login that comes back to
    the game and takes the seat (before the fix: the invite was lost, only "You are watching")."""
    url = live_server.url
    ned = person(new_page, DESKTOP, url, "ned")
    person(new_page, DESKTOP, url, "ola").close()  # Ola's account, made elsewhere
    token = ned.request.get(f"{url}/api/account").json()["csrf_token"]
    body = {
        "opponent": {"type": "friend"},
        "color": "blue",
        "rated": True,
        "clock": {"minutes": 10},
    }
    created = ned.request.post(f"{url}/api/games", data=body, headers={"X-CSRF-Token": token})
    assert created.ok, created.text()
    game_id, code = created.json()["game"]["id"], created.json()["invite"]["code"]

    ola = new_page(viewport=DESKTOP)
    ola.goto(f"{url}/game/{game_id}#join={code}")
    expect(ola.locator("#message")).to_contain_text("log in to an account to join it")
    ola.locator("#login-to-join").click()
    ola.wait_for_url(re.compile(r"/login\?next="))
    ola.fill("#name", "ola")
    ola.fill("#password", PASSWORD)
    ola.locator("#login-button").click()
    ola.wait_for_url(re.compile(rf"/game/{game_id}$"))
    expect(ola.locator("#seat")).to_have_text("You play Gray.")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_email_checkboxes_line_up_with_the_address_and_their_words(
    live_url: str, new_page: Callable[..., Page], viewport: ViewportSize
) -> None:
    """On the account page each Email checkbox is a box (not stretched to the address field's
    width), at the form's left edge with the address, its words beside it on its first line."""
    page = person(new_page, viewport, live_url, "pia")
    page.goto(live_url + "/account")
    field = page.locator("#notify-email").bounding_box()
    assert field is not None
    for box_id in ("#notify-turn", "#notify-time"):
        box = page.locator(box_id).bounding_box()
        assert box is not None
        assert box["width"] < 30, box  # before the fix: 24rem wide, the words far off
        assert abs(box["x"] - field["x"]) < 2, (box, field)
        words = page.locator(f"label:has({box_id}) span").bounding_box()
        assert words is not None
        assert 0 < words["x"] - (box["x"] + box["width"]) < 16, (box, words)
        assert abs(box["y"] - words["y"]) < 8, (box, words)  # on the words' first line
