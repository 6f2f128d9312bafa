"""The site as a newcomer meets it, in the real browser (headless Chromium driven by Playwright),
on a desktop and on a 360-pixel phone: from the lobby's pointer to Learn, through a rule set's
page and its "Play" link, a game against the computer, its replay, the study board, My games and
the replay of an imported record of a long finished game.

On every page: the page's status line is visible without scrolling, and no element reaches past
the viewport's width (measured from each element's rectangle, so that ``overflow: hidden``
cannot hide it); every board is drawn by board.js with the library's pieces; no page catches
another page's rules (Learn's section ``#moves`` is not set in the study board's monospace)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from bluegray import Game
from bluegray.record import GameRecord

DESKTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 360, "height": 740}

#: Everything in the page that reaches past the viewport's width, by its rectangle.
TOO_WIDE = """() => {
  const width = document.documentElement.clientWidth;
  const found = [];
  for (const node of document.querySelectorAll("body *")) {
    // The skip link waits off screen until it is focused; the pieces' definitions take no room.
    if (node.closest(".skip, .bluegray-piece-symbols")) continue;
    const box = node.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    if (box.left < -0.5 || box.right > width + 0.5) {
      const name = node.id ? `#${node.id}` : `${node.tagName.toLowerCase()}.${node.getAttribute("class") || ""}`;
      found.push(`${name} ${Math.round(box.left)}..${Math.round(box.right)} of ${width}`);
    }
  }
  return found.slice(0, 10);
}"""

#: Where an element is, for "visible without scrolling".
PLACE = """(selector) => {
  const box = document.querySelector(selector).getBoundingClientRect();
  return { top: box.top, bottom: box.bottom, height: window.innerHeight,
           scrollX: window.scrollX, scrollY: window.scrollY };
}"""

#: Each board's pieces: how many, and whether each <use> finds the library's piece and is drawn.
BOARDS = """() => Array.from(document.querySelectorAll(".board")).map((board) => {
  const uses = Array.from(board.querySelectorAll("[data-piece] use"));
  return {
    pieces: board.querySelectorAll("[data-piece]").length,
    drawn: uses.filter((use) => {
      const symbol = document.querySelector(use.getAttribute("href"));
      const box = use.getBoundingClientRect();
      return symbol !== null && symbol.closest(".bluegray-piece-symbols") !== null && box.width > 1;
    }).length,
  };
})"""


def long_record() -> tuple[str, Game]:
    """A finished game of a few hundred moves (the same every time), as a record."""
    game = Game("sackson")
    while game.outcome() is None:
        moves = game.legal_moves
        game.push(moves[(game.ply * 7) % len(moves)])
    return str(GameRecord.from_game(game)), game


def check_page(page: Page, status: str, width: int) -> None:
    """The checks every page passes: the status line in sight, nothing too wide, the boards."""
    place: dict[str, Any] = page.evaluate(PLACE, status)
    text = page.locator(status).inner_text().strip()
    where = f"{page.url} at {width} px"
    assert text, f"{where}: the status line {status} is empty"
    assert place["scrollX"] == 0 and place["scrollY"] == 0, f"{where}: opened scrolled, {place}"
    assert place["top"] >= 0 and place["bottom"] <= place["height"], (
        f"{where}: {status} ({text!r}) is out of sight: {place}"
    )
    assert page.evaluate(TOO_WIDE) == [], where
    for board in page.evaluate(BOARDS):
        assert board["pieces"] > 0 and board["drawn"] == board["pieces"], (where, board)


def wait_for_boards(page: Page) -> None:
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('.board'))"
        ".every((board) => board.querySelector('[data-piece]'))"
    )


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_newcomer_finds_every_page_readable_at_this_width(
    live_url: str, new_page: Callable[..., Page], viewport: ViewportSize
) -> None:
    phone = viewport["width"] < 500
    page = new_page(viewport=viewport, has_touch=phone, is_mobile=phone)
    width = viewport["width"]

    # The lobby points a first-timer to Learn.
    page.goto(live_url + "/")
    check_page(page, "#first-time", width)
    page.locator("#first-time a[href='/learn']").click()
    page.wait_for_url(re.compile(r"/learn$"))
    wait_for_boards(page)
    check_page(page, "h1", width)
    # Learn's own rules only: its "Pieces and moves" is not set in the study board's monospace.
    font = page.locator("#moves p").first.evaluate("p => getComputedStyle(p).fontFamily")
    assert "monospace" not in font and "Menlo" not in font, font

    # A rule set's page, and its link to play it: the lobby with that rule set chosen.
    page.locator("#preset-cooper h4 a").click()
    page.wait_for_url(re.compile(r"/learn/cooper$"))
    wait_for_boards(page)
    check_page(page, "h1", width)
    page.get_by_role("link", name="Play a game of cooper").click()
    page.wait_for_url(re.compile(r"/\?rules=cooper$"))
    expect(page.locator("#rules")).to_have_value("cooper")
    expect(page.locator("#rules-description")).to_contain_text("Cooper")

    # A game against the computer: choose a piece, move it, see the answer.
    page.check('input[name="opponent"][value="ai"]')
    page.select_option("#level", "1")
    page.check('input[name="color"][value="blue"]')
    page.locator("#start").click()
    page.wait_for_url(re.compile(r"/game/[A-Za-z0-9_-]+$"))
    page.wait_for_selector('#main[data-my-turn="true"]')
    check_page(page, "#status", width)
    page.locator('#board [data-point="d2"]').click()
    expect(page.locator("#message")).to_contain_text("d2 selected")
    check_page(page, "#message", width)
    page.locator('#board [data-point="d3"]').click()
    page.wait_for_selector('#main[data-ply="2"][data-my-turn="true"]')
    check_page(page, "#status", width)

    # Its replay, the study board and My games.
    page.get_by_role("link", name="Replay and analyse").click()
    page.wait_for_url(re.compile(r"/replay/"))
    expect(page.locator("#board")).to_have_attribute("data-ply", "2")
    check_page(page, "#ply-status", width)
    page.get_by_role("link", name="Study", exact=True).click()
    page.wait_for_url(re.compile(r"/study$"))
    expect(page.locator("#position-status")).to_contain_text("to move")
    wait_for_boards(page)
    check_page(page, "#position-status", width)
    page.get_by_role("link", name="My games", exact=True).click()
    page.wait_for_url(re.compile(r"/games$"))
    check_page(page, "h1", width)

    # A long finished game, imported from the lobby, opens in the replay at its end.
    text, game = long_record()
    page.get_by_role("link", name="Play", exact=True).click()
    page.locator("#record").fill(text)
    page.get_by_role("button", name="Import and replay").click()
    page.wait_for_url(re.compile(r"/replay/[A-Za-z0-9_-]+"))
    board = page.locator("#board")
    expect(board).to_have_attribute("data-ply", str(game.ply))
    expect(board).to_have_attribute("data-position", str(game.position))
    check_page(page, "#ply-status", width)
    outcome = game.outcome()
    assert outcome is not None
    status = page.locator("#ply-status")
    expect(status).to_contain_text(f"Game over: {outcome.result}, {outcome.describe()}.")
    expect(status).not_to_contain_text("to move")
    # The move list scrolls down, never sideways, and shows the current move's number whole.
    moves: dict[str, Any] = page.locator("#move-list").evaluate(
        """(list) => {
          const box = list.getBoundingClientRect();
          const current = list.querySelector("button.current").closest("li");
          const number = current.querySelector(".move-number").getBoundingClientRect();
          return { wide: list.scrollWidth - list.clientWidth, tall: list.scrollHeight - list.clientHeight,
                   numberInside: number.left >= box.left && number.right <= box.right
                     && number.top >= box.top - 0.5 && number.bottom <= box.bottom + 0.5 };
        }"""
    )
    assert moves["wide"] <= 0 and moves["tall"] > 0 and moves["numberInside"], moves
