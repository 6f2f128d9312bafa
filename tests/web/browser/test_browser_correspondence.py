"""A correspondence game over several "days", in the real browser (headless Chromium driven by
Playwright) against a real ``bluegray serve`` process, at 1280 and at 360 px.

Two people with accounts play two friend games, in two browser contexts: one at a day per move,
one at two days. The server is killed and started again half a day ahead
(``BLUEGRAY_TIME_OFFSET_SECONDS``): both games still run, their deadlines shown as half a day
nearer; one move is made. Killed and started again a day and a half ahead: the player who had a
day for the first game has lost it on time, and the second game runs on with its new deadline.
On the way, the browser's notification permission is asked for from the game page, and a
notification is shown when it becomes the player's move while the page is in the background."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.servers import free_port
from tests.web.browser.test_browser_newcomer import DESKTOP, PHONE, check_page
from tests.web.conftest import ServeProcess

PASSWORD = "a long enough password"
DAY = 86_400

# Records the page's notifications and permission requests, and lets the test say that the page
# is in the background (``window.__hidden = true``): what a person sees cannot be read back.
RECORD_NOTIFICATIONS = """
(() => {
  window.__notes = [];
  window.__asked = 0;
  Object.defineProperty(document, "hidden", {
    configurable: true, get: () => Boolean(window.__hidden),
  });
  const Real = window.Notification;
  if (!Real) return;
  class Recorded extends Real {
    constructor(title, options) {
      window.__notes.push({ title, body: options && options.body });
      super(title, options);
    }
  }
  Recorded.requestPermission = (...args) => {
    window.__asked += 1;
    return Real.requestPermission(...args);
  };
  window.Notification = Recorded;
})();
"""


class Service:
    """``bluegray serve`` on one port and database, killed and started again at a time offset."""

    def __init__(self, database_url: str) -> None:
        self.port = free_port()
        self.database_url = database_url
        self.process: ServeProcess | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, offset_days: float) -> None:
        self.process = ServeProcess(
            self.port,
            self.database_url,
            BLUEGRAY_TIME_OFFSET_SECONDS=str(offset_days * DAY),
            BLUEGRAY_RATE_LIMITS="false",
            BLUEGRAY_DEADLINE_POLL_SECONDS="0.25",
        )
        self.process.wait_ready()

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()


@pytest.fixture
def service(database_url: str) -> Iterator[Service]:
    running = Service(database_url)
    try:
        yield running
    finally:
        running.kill()


def sign_up(page: Page, url: str, name: str) -> None:
    page.goto(f"{url}/signup")
    page.fill("#name", name)
    page.fill("#password", PASSWORD)
    page.fill("#password-again", PASSWORD)
    page.locator("#signup-button").click()
    page.wait_for_url(re.compile(rf"/player/{name}$"))


def start_game(ada: Page, bob: Page, url: str, days: int) -> str:
    """A friend game Ada (Blue) starts with ``days`` per move from the lobby and Bob joins
    through the invite link; its id, once Ada has made the first move."""
    ada.goto(url + "/")
    ada.check('input[name="opponent"][value="friend"]')
    ada.check('input[name="color"][value="blue"]')
    ada.check('input[name="clock"][value="days"]')
    ada.select_option("#days", str(days))
    ada.locator("#start").click()
    ada.wait_for_url(re.compile(r"/game/[A-Za-z0-9_-]+$"))
    game_id = ada.url.rsplit("/", 1)[1]
    expect(ada.locator("#invite-link")).to_have_value(re.compile(r"#join=[A-Za-z0-9_-]+$"))
    link = ada.locator("#invite-link").input_value()
    bob.goto(link)
    bob.wait_for_selector('#main[data-status="active"]')
    ada.wait_for_selector('#main[data-my-turn="true"]')
    ada.locator('#board [data-point="d2"]').click()
    ada.locator('#board [data-point="d3"]').click()
    bob.wait_for_selector('#main[data-ply="1"][data-my-turn="true"]')
    return game_id


def hours_left(page: Page, side: str) -> float:
    """The hours left that the side's bar shows (its deadline, in server time, minus the
    server's time as the page reckons it), once it shows a running deadline."""
    box = page.locator(f'[data-clock="{side}"]')
    expect(box).to_have_attribute("data-deadline", re.compile(r"^\d+$"))
    text = box.inner_text()
    match = re.fullmatch(r"(?:(\d+) d )?(\d+) h(?: (\d+) min)?", text)
    assert match, text
    days, hours, minutes = (int(part or 0) for part in match.groups())
    return days * 24 + hours + minutes / 60


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_correspondence_game_over_several_days(
    service: Service, new_page: Callable[..., Page], viewport: ViewportSize
) -> None:
    width = viewport["width"]
    phone = width < 500
    options = {"viewport": viewport, "has_touch": phone, "is_mobile": phone}
    service.start(0)
    url = service.url
    ada = new_page(**options, permissions=["notifications"])
    bob = new_page(**options)
    for page in (ada, bob):
        page.add_init_script(RECORD_NOTIFICATIONS)
    sign_up(ada, url, f"Ada_{width}")
    sign_up(bob, url, f"Bob_{width}")

    quick = start_game(ada, bob, url, 1)
    check_page(bob, "#status", width)
    expect(bob.locator('[data-clock="gray"]')).to_have_text(re.compile(r"^2[34] h"))
    expect(bob.locator('[data-clock="blue"]')).to_have_text("1 day per move")
    # Bob asks for notifications from the game page (his browser decides).
    expect(bob.locator("#notify")).to_be_visible()
    bob.locator("#notify-button").click()
    assert bob.evaluate("() => window.__asked") == 1
    # Both make their first moves (a side that never does aborts the game instead of losing).
    bob.locator('#board [data-point="f8"]').click()
    bob.locator('#board [data-point="f7"]').click()
    ada.wait_for_selector('#main[data-ply="2"][data-my-turn="true"]')
    ada.locator('#board [data-point="d3"]').click()
    ada.locator('#board [data-point="d4"]').click()
    bob.wait_for_selector('#main[data-ply="3"][data-my-turn="true"]')

    slow = start_game(ada, bob, url, 2)
    assert 47 <= hours_left(bob, "gray") <= 48

    # Half a day later (the server restarted half a day ahead): both games run.
    service.kill()
    service.start(0.5)
    bob.goto(f"{url}/game/{quick}")
    bob.wait_for_selector('#main[data-my-turn="true"]')
    assert 11 <= hours_left(bob, "gray") <= 12
    bob.goto(f"{url}/game/{slow}")
    bob.wait_for_selector('#main[data-my-turn="true"]')
    assert 35 <= hours_left(bob, "gray") <= 36
    check_page(bob, "#status", width)
    # Ada watches the slow game in the background; Bob's move there is her turn: a notification.
    ada.goto(f"{url}/game/{slow}")
    ada.wait_for_selector('#main[data-ply="1"]')
    ada.evaluate("() => { window.__hidden = true; }")
    bob.locator('#board [data-point="f8"]').click()
    bob.locator('#board [data-point="f7"]').click()
    ada.wait_for_selector('#main[data-ply="2"][data-my-turn="true"]')
    notes = ada.evaluate("() => window.__notes")
    assert notes == [{"title": "Blue and Gray: your move", "body": "Blue to move (move 3)."}]
    assert 47 <= hours_left(ada, "blue") <= 48  # the whole two days again, from Bob's move

    # A day and a half after the start: Bob's day for the quick game is gone.
    service.kill()
    service.start(1.5)
    bob.goto(f"{url}/game/{quick}")
    expect(bob.locator("#game-over")).to_be_visible()
    expect(bob.locator("#game-over")).to_contain_text("time")
    expect(bob.locator("#game-over")).to_contain_text("You lose.")
    check_page(bob, "#status", width)
    ada.evaluate("() => { window.__hidden = false; }")
    ada.goto(f"{url}/game/{quick}")
    expect(ada.locator("#game-over")).to_contain_text("You win!")
    # The slow game runs on: Ada's deadline, a day from now, leads her "your turn" list.
    ada.goto(f"{url}/game/{slow}")
    ada.wait_for_selector('#main[data-my-turn="true"]')
    assert 23 <= hours_left(ada, "blue") <= 24
    ada.goto(f"{url}/account")
    items = ada.locator("#turn-list li")
    expect(items).to_have_count(1)
    expect(items.first).to_have_attribute("data-game-id", slow)
    expect(items.first).to_contain_text(f"against Bob_{width}")
    expect(items.first.locator(".turn-left")).to_have_text(
        re.compile(r"^ — (23 h \d+ min|1 d 0 h) left$")
    )
    check_page(ada, "h1", width)
