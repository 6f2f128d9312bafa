"""The site without a mouse and without sight, in the real browser (headless Chromium driven by
Playwright): a game whose first moves are played with the keyboard only (Tab to the board, the
arrow keys, Enter and Space), the screen-reader mode's ``aria-live`` region after a move and its
"read the board", and an axe-core audit (``axe-playwright-python``, which ships axe-core's
script) of every page at 1280 and at 360 px, logged in and out (the home page with its best
game on now), that must find no moderate, serious or critical violation.

The audit runs on SQLite only (one server, one browser, many pages): what it checks is the
pages' markup, which the database does not change."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, ViewportSize, expect

from bluegray.cli.main import main
from tests.web.browser.test_browser import start_from_lobby, wait_ply
from tests.web.browser.test_browser_lobby import person
from tests.web.browser.test_browser_newcomer import DESKTOP, PHONE
from tests.web.lobby_clients import Player, first_moves, rated_game

#: The impacts the audit refuses (axe's scale: minor, moderate, serious, critical): serious and
#: critical ones, the bar of issue 39, and moderate ones too, which every page meets as well (the
#: game page had no <h1> before).
REFUSED = ("moderate", "serious", "critical")

AXE = Axe()


def stored_moves(page: Page, url: str, game_id: str) -> list[str]:
    """The moves of a game as the server keeps them (the game's state from the API)."""
    answer = page.request.get(f"{url}/api/games/{game_id}")
    assert answer.ok, answer.text()
    return [str(move) for move in answer.json()["moves"]]


def tab_to(page: Page, element_id: str, limit: int = 40) -> int:
    """Press Tab from the top of the page until ``element_id`` has the focus; how many times."""
    for count in range(1, limit + 1):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement && document.activeElement.id") == element_id:
            return count
    raise AssertionError(f"Tab never reached #{element_id} in {limit} presses")


def keys(page: Page, *names: str) -> None:
    """Press keys, one after the other, wherever the focus is."""
    for name in names:
        page.keyboard.press(name)


def test_the_first_moves_of_a_game_are_played_with_the_keyboard_only(
    live_url: str, new_page: Callable[..., Page]
) -> None:
    page = new_page(viewport=DESKTOP)
    game_id = start_from_lobby(page, live_url, rules="sackson", opponent="hotseat")
    page.wait_for_selector('#main[data-my-turn="true"]')
    page.reload()  # the focus starts at the top of the page, as after a link
    page.wait_for_selector('#main[data-my-turn="true"]')
    tab_to(page, "board")
    cursor = page.locator("#board .cursor")
    expect(cursor).to_have_count(1)  # the focus ring on the current point (e5 at first)

    # Blue: the cursor from e5 to d2, Enter picks the guard up, Up and Enter drop it on d3.
    keys(page, "ArrowLeft", "ArrowDown", "ArrowDown", "ArrowDown")
    expect(page.locator("#board")).to_have_attribute("aria-label", re.compile(r"^d2: Blue guard"))
    keys(page, "Enter")
    expect(page.locator('#board [data-target="d3"]')).to_have_count(1)
    keys(page, "ArrowUp", "Enter")
    wait_ply(page, 1)
    # Gray: e8-e7 with Space; a piece picked up and put back with Escape first.
    keys(page, "ArrowRight", "ArrowUp", "ArrowUp", "ArrowUp", "ArrowUp", "ArrowUp", " ")
    expect(page.locator('#board [data-target="e7"]')).to_have_count(1)
    keys(page, "Escape")
    expect(page.locator("#board [data-target]")).to_have_count(0)
    keys(page, " ", "ArrowDown", " ")
    wait_ply(page, 2)
    # Blue's captain takes the first step of its path, the diagonal e1-d2.
    keys(page, *["ArrowDown"] * 6, "Enter")
    expect(page.locator('#board [data-target="d2"]')).to_have_count(1)
    keys(page, "ArrowLeft", "ArrowUp", "Enter")
    wait_ply(page, 3)
    assert stored_moves(page, live_url, game_id) == ["d2-d3", "e8-e7", "e1-d2"]
    assert page.evaluate("document.activeElement.id") == "board"  # the focus never left


def start_with_clock(page: Page, url: str) -> str:
    """A hot-seat game of Sackson's rules with five minutes each, from the lobby; its id."""
    page.goto(url + "/")
    page.select_option("#rules", "sackson")
    page.check('input[name="opponent"][value="hotseat"]')
    page.check('input[name="clock"][value="on"]')
    page.fill("#minutes", "5")
    page.click("#start")
    page.wait_for_url(re.compile(r".*/game/[A-Za-z0-9_-]+$"))
    page.wait_for_selector('#main[data-my-turn="true"]')
    return page.url.rsplit("/", 1)[1]


def test_the_screen_reader_mode_says_each_move_the_turn_and_the_clocks(
    live_url: str, new_page: Callable[..., Page]
) -> None:
    page = new_page(viewport=PHONE)
    game_id = start_with_clock(page, live_url)
    region = page.locator("#speech")
    expect(region).to_have_attribute("aria-live", "polite")
    toggle = page.locator("#speech-toggle")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#read-board")).to_be_hidden()
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(region).to_have_text("Screen-reader mode on. Blue to move.")

    # A move (typed) is said in words, with the notation, whose turn it is and the clocks.
    page.fill("#move", "d2-d3")
    page.press("#move", "Enter")
    wait_ply(page, 1)
    expect(region).to_have_text(
        re.compile(r"^Blue guard d2 to d3 \(d2-d3\)\. Gray to move\. Clocks: Blue \d:\d\d, Gray")
    )
    # The cursor's point is said as the arrows move it.
    page.locator("#board").focus()
    keys(page, "ArrowUp", "ArrowUp", "ArrowUp")
    expect(region).to_have_text(re.compile(r"^e8: Gray guard"))

    # Read the board (R on the board): every piece by point, in a live region of its own.
    page.keyboard.press("r")
    reading = page.locator("#board-reading")
    expect(reading).to_have_attribute("aria-live", "polite")
    expect(reading).to_contain_text("Blue: captain e1; guards a1, a2, b1, b2, c1, c2, d1, d3,")
    expect(reading).to_contain_text("Gray: captain e9; guards a8, a9,")
    page.keyboard.press("c")
    expect(region).to_have_text(re.compile(r"^Clocks: Blue \d:\d\d, Gray \d:\d\d\.$"))

    # The choice is remembered: the next page speaks at once.
    page.reload()
    expect(page.locator("#speech-toggle")).to_have_attribute("aria-pressed", "true")
    expect(region).to_have_text("Gray to move.")

    # The replay reads its board too: the position shown, and not an older one.
    page.goto(f"{live_url}/replay/{game_id}")
    page.click("#read-board")
    reading = page.locator("#board-reading")
    expect(reading).to_contain_text("Blue: captain e1; guards a1, a2, b1, b2, c1, c2, d1, d3,")
    page.click("#first")
    expect(reading).to_be_hidden()
    page.click("#read-board")
    expect(reading).to_contain_text("guards a1, a2, b1, b2, c1, c2, d1, d2,")


def audit(page: Page, where: str) -> list[str]:
    """axe-core's serious and critical violations on the page as it is, one line each."""
    results: dict[str, Any] = AXE.run(page).response
    found = []
    for violation in results["violations"]:
        if violation["impact"] not in REFUSED:
            continue
        targets = [" ".join(map(str, node["target"])) for node in violation["nodes"]][:4]
        found.append(f"{where}: {violation['id']} ({violation['impact']}) at {targets}")
    return found


def settle(page: Page, url: str, ready: str = "main") -> None:
    """Open ``url`` and wait for the page's scripts to have drawn it."""
    page.goto(url)
    page.wait_for_selector(ready)
    page.wait_for_load_state("networkidle")


def make_tournament(page: Page, url: str) -> str:
    """A tournament made on the tournaments page (by a logged-in person); its page's path."""
    page.goto(url + "/tournaments")
    page.fill('#tournament-form [name="name"]', "Evening arena")
    page.fill('#tournament-form [name="minutes"]', "30")
    page.fill('#tournament-form [name="starts_in"]', "60")
    page.locator('#tournament-form button[type="submit"]').click()
    page.wait_for_url(re.compile(r"/tournament/[A-Za-z0-9_-]+$"))
    return "/tournament/" + page.url.rsplit("/", 1)[1]


def audit_game(page: Page, url: str, game_id: str, where: str) -> list[str]:
    """The audit of a game's page, then again with the screen-reader mode on and the board read
    out (the toggle is remembered: it is turned off again after)."""
    settle(page, f"{url}/game/{game_id}", "#main[data-ply]")
    found = audit(page, where)
    page.click("#speech-toggle")
    page.click("#read-board")
    expect(page.locator("#board-reading")).to_contain_text("Blue: captain")
    found += audit(page, f"{where}, screen-reader mode")
    page.click("#speech-toggle")
    return found


@pytest.mark.slow
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_no_page_has_a_serious_or_critical_accessibility_violation(
    live_url: str, new_page: Callable[..., Page], viewport: ViewportSize, database_url: str
) -> None:
    width = viewport["width"]
    phone = width < 500
    member = person(new_page, viewport, live_url, "ada")
    visitor = new_page(viewport=viewport, has_touch=phone, is_mobile=phone)
    # Ada (logged in) invites a friend and waits; the visitor (logged out) plays both sides of a
    # game with a clock. Each also watches the other's game.
    waiting = start_from_lobby(member, live_url, rules="sackson", opponent="friend")
    playing = start_with_clock(visitor, live_url)
    visitor.fill("#move", "d2-d3")
    visitor.press("#move", "Enter")
    wait_ply(visitor, 1)
    tournament = make_tournament(member, live_url)
    # A rated real-time game between two other accounts: the home page features it. Both play
    # their first move, or it ends aborted after first_move_seconds (60 s), before the test is
    # done on a busy host.
    cal, dan = Player(live_url, "cal"), Player(live_url, "dan")
    first_moves({"cal": cal, "dan": dan}, rated_game(cal, dan))
    # A challenge in the lobby: Ada's own (with its cancel button), the visitor's to accept.
    member.goto(live_url + "/")
    # Once the lobby's script runs (its socket says so): before, on a busy host, the click
    # submitted the form natively and reloaded the page, posting nothing.
    expect(member.locator("#people")).to_have_attribute("data-connected", "true")
    member.locator("#post-seek summary").click()
    member.locator("#seek-post").click()
    expect(member.locator("#seeks li.seek .cancel-seek")).to_be_visible()
    # Ada, a moderator, writes in the chat of the game she waits in and reports it: the game's
    # chat panel shows a message, and the moderators' page a report.
    assert main(["user", "moderator", "ada", "--database-url", database_url]) == 0
    csrf = {"X-CSRF-Token": member.request.get(f"{live_url}/api/account").json()["csrf_token"]}
    chat = f"{live_url}/api/games/{waiting}/chat"
    line = member.request.post(chat, data={"text": "Good luck <b>all</b>"}, headers=csrf).json()
    assert member.request.post(f"{chat}/{line['id']}/report", headers=csrf).ok
    found: list[str] = []
    for state, page, mine, theirs in (
        ("in", member, waiting, playing),
        ("out", visitor, playing, waiting),
    ):
        found += audit_game(page, live_url, mine, f"own game at {width} px, logged {state}")
        found += audit_game(page, live_url, theirs, f"watched game at {width} px, logged {state}")
        pages = [
            ("/", "#main"),
            ("/tournaments", "#main"),
            (tournament, "#tournament-facts"),
            ("/account" if state == "in" else "/login", "#main"),
            ("/signup", "#main"),
            ("/study", "#board svg"),
            (f"/replay/{playing}", "#board svg"),
            ("/leaderboard", "#main"),
            ("/games", "#main"),
            ("/learn", "#main"),
            ("/learn/sackson", "#main"),
            ("/player/ada", "#main"),
            ("/moderation/chat", "#main"),
            ("/puzzles", "#board svg"),
        ]
        for path, ready in pages:
            settle(page, live_url + path, ready)
            found += audit(page, f"{path} at {width} px, logged {state}")
            if path == "/":  # the best game on now, its board read out
                expect(page.locator("#featured")).to_be_visible()
                expect(page.locator("#board")).to_have_attribute("data-ply", "2")
                found += audit(page, f"/ with the best game on now at {width} px, logged {state}")
                page.click("#read-board")
                expect(page.locator("#board-reading")).to_contain_text("Blue: captain")
                found += audit(page, f"/ with its featured board read out at {width} px")
            if path == "/" and state == "in":  # the form that posts a challenge, open
                page.locator("#post-seek summary").click()
                found += audit(page, f"/ with its challenge form at {width} px")
            if path == "/puzzles":  # a try failed, then the board read out in the reader mode
                page.locator("#legal-moves button").first.click()
                expect(page.locator("#puzzle-result")).to_have_attribute(
                    "data-result", re.compile(".")
                )
                found += audit(page, f"/puzzles after a try at {width} px, logged {state}")
                page.click("#speech-toggle")
            if path.startswith(("/study", "/replay", "/puzzles")):  # the board read out
                page.click("#read-board")
                expect(page.locator("#board-reading")).to_contain_text("Blue: captain")
                found += audit(page, f"{path} read out at {width} px, logged {state}")
    # A game over: its ending's alert and the rematch buttons.
    visitor.goto(f"{live_url}/game/{playing}")
    visitor.click('#actions [data-action="resign"]')
    visitor.click("#resign-yes")
    expect(visitor.locator("#game-over")).to_be_visible()
    found += audit(visitor, f"a game over at {width} px")
    assert found == [], "\n".join(found)
