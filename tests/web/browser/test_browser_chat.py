"""The games' chat in real browsers (headless Chromium driven by Playwright) on the scaled-out
service: two ``bluegray serve`` processes over one PostgreSQL and Redis, at 1280 and at 360 px.

Ada (on one process) and Bob (on the other) play a game and chat across the processes: free
text, shown as plain text (markup and links are only letters), and a canned message. A third
account watching the game, muted by a moderator, is silent: what it wrote before the mute reaches
nobody, and what it writes after is refused. The chat is there again after a reload, and once
the game is over the players see the spectators' room too (without the muted account). A player
mutes another for himself alone, and turns the chat off on his account's page."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from bluegray.cli.main import main
from tests.web.browser.test_browser_lobby import person
from tests.web.browser.test_browser_newcomer import DESKTOP, PHONE, TOO_WIDE
from tests.web.cluster import service_env, two_processes

pytestmark = pytest.mark.slow


@pytest.fixture
def processes(tmp_path: Path, postgres_url: str, redis_url: str) -> Iterator[tuple[str, str]]:
    """The URLs of two web processes of one service (PostgreSQL and Redis)."""
    env = service_env(postgres_url, redis_url)
    for web in two_processes(tmp_path, env):
        yield web["A"].url, web["B"].url


def api(page: Page, url: str, path: str, body: object = None) -> object:
    """A POST from the page's browser, with its session and CSRF token, as its scripts make."""
    token = page.request.get(f"{url}/api/account").json()["csrf_token"]
    answer = page.request.post(f"{url}{path}", data=body, headers={"X-CSRF-Token": token})
    assert answer.ok, answer.text()
    return answer.json() if answer.status != 204 else None


def send(page: Page, text: str) -> None:
    page.fill("#chat-text", text)
    page.locator("#chat-form button[type=submit]").click()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_two_accounts_chat_across_two_processes_with_a_muted_third_account_silent(
    processes: tuple[str, str],
    new_page: Callable[..., Page],
    viewport: ViewportSize,
    postgres_url: str,
) -> None:
    first, second = processes
    width = viewport["width"]
    ada = person(new_page, viewport, first, f"ada{width}")
    bob = person(new_page, viewport, second, f"bob{width}")
    troll = person(new_page, viewport, first, f"troll{width}")
    warden = person(new_page, viewport, second, f"warden{width}")
    assert main(["user", "moderator", f"warden{width}", "--database-url", postgres_url]) == 0
    created = api(ada, first, "/api/games", {"opponent": {"type": "friend"}, "color": "blue"})
    assert isinstance(created, dict)
    game_id = created["game"]["id"]
    api(bob, second, f"/api/games/{game_id}/join", {"invite": created["invite"]["code"]})

    ada.goto(f"{first}/game/{game_id}")
    bob.goto(f"{second}/game/{game_id}")
    troll.goto(f"{first}/game/{game_id}")
    for page in (ada, bob, troll):
        expect(page.locator("#chat-form")).to_be_visible()
        expect(page.locator("#connection")).to_have_text("Connected.")
    expect(ada.locator("#chat-label")).to_have_text("Message to the players' room")
    expect(troll.locator("#chat-label")).to_have_text("Message to the spectators' room")

    # The third account writes once, then a moderator mutes it: it is silent from then on.
    send(troll, "first words")
    expect(troll.locator("#chat-spectators")).to_contain_text("first words")
    api(warden, second, f"/api/players/troll{width}/mute")
    send(troll, "spam spam")
    expect(troll.locator("#chat-error")).to_contain_text("a moderator muted this account")

    # Ada writes through the first process; Bob, on the second, reads it as plain text.
    send(ada, "Hello <b>Bob</b> see https://example.com")
    bob_line = bob.locator("#chat-players .chat-line").first
    expect(bob_line).to_contain_text("Hello <b>Bob</b> see https://example.com")
    expect(bob_line.locator("a, b")).to_have_count(0)
    expect(ada.locator("#chat-text")).to_have_value("")
    # Bob answers with a canned message; Ada, on the first process, gets it.
    bob.locator('#chat-canned button[data-canned="good_luck"]').click()
    expect(ada.locator("#chat-players .chat-line")).to_have_count(2)
    expect(ada.locator("#chat-players .chat-line").nth(1)).to_contain_text(
        f"bob{width}: Good luck!"
    )
    # The spectators' room is not shown to the players while the game runs.
    expect(bob.locator("#chat-spectators-room")).to_be_hidden()
    expect(bob.locator("#chat-players")).not_to_contain_text("spam")

    # A reload shows the stored chat.
    bob.reload()
    expect(bob.locator("#chat-players .chat-line")).to_have_count(2)
    expect(bob.locator("#chat-players")).to_contain_text("Hello <b>Bob</b>")

    # Over: the players see the spectators' room, without the muted account's words.
    api(ada, first, f"/api/games/{game_id}/actions", {"action": "resign"})
    expect(bob.locator("#game-over")).to_be_visible()
    expect(bob.locator("#chat-spectators-room")).to_be_visible()
    warden.goto(f"{second}/game/{game_id}")
    send(warden, "well played both")
    expect(ada.locator("#chat-spectators")).to_contain_text("well played both")
    expect(bob.locator("#chat-spectators")).not_to_contain_text("first words")
    assert bob.evaluate(TOO_WIDE) == []

    # Bob mutes the warden for himself: its line goes, and his account's page lists it.
    warden_line = bob.locator("#chat-spectators .chat-line", has_text="well played both")
    warden_line.get_by_role("button", name=f"Mute warden{width}").click()
    expect(warden_line).to_have_count(0)
    expect(bob.locator("#chat-note")).to_contain_text(f"You muted warden{width}")
    expect(ada.locator("#chat-spectators")).to_contain_text("well played both")  # Ada still sees it
    bob.goto(f"{second}/account")
    expect(bob.locator("#chat-muted")).to_contain_text(f"warden{width}")
    # And turns the chat off: the game's page shows none.
    bob.check("#chat-off")
    bob.locator("#chat-settings-button").click()
    expect(bob.locator("#chat-settings-done")).to_have_text("Saved.")
    assert bob.evaluate(TOO_WIDE) == []
    bob.goto(f"{second}/game/{game_id}")
    expect(bob.locator("#chat-note")).to_contain_text("The chat is off")
    expect(bob.locator("#chat-rooms")).to_be_hidden()
