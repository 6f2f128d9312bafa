"""Game review in the browser (issue 41's first item): a hot-seat game played by clicking and
resigned, its review asked for on the replay page, the progress bar (still there after a
reload), then the evaluation graph, a blunder marked in the move list with the engine's better
move and its line, clicking the graph to go to a move; at 1280 px and at 360 px, and the
reviewed page in the accessibility audit."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.web.browser.test_browser import click_move, start_from_lobby
from tests.web.browser.test_browser_accessibility import audit
from tests.web.browser.test_browser_newcomer import DESKTOP, PHONE
from tests.web.conftest import Json, LiveServer
from tests.web.review.review_games import SHUFFLES, shuffles_record

NODES = 2000
"""As in the API's test: at this count the engine calls several of the shuffles blunders."""


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_game_played_then_reviewed_shows_its_graph_and_its_blunders(
    make_server: Callable[..., LiveServer], new_page: Callable[..., Page], viewport: Json
) -> None:
    server = make_server(rate_limits=False, review_nodes=NODES, review_poll_seconds=0.2)
    page = new_page(viewport=viewport)
    width = viewport["width"]
    game_id = start_from_lobby(page, server.url, rules="cooper", opponent="hotseat")
    moves = [word for word in SHUFFLES.split() if not word.endswith(".")]
    for ply, move in enumerate(moves, start=1):
        click_move(page, move)
        page.wait_for_selector(f'#main[data-ply="{ply}"]')
    page.click('#actions [data-action="resign"]')
    page.click("#resign-yes")
    expect(page.locator("#game-over")).to_be_visible()

    page.goto(f"{server.url}/replay/{game_id}")
    ask = page.locator("#request-review")
    expect(ask).to_be_visible()
    ask.click()
    expect(ask).to_be_hidden()
    # The progress is the server's: a reload shows the review where it is, never a new button.
    page.reload()
    expect(page.locator("#review-panel")).to_have_attribute(
        "data-status", re.compile("pending|done")
    )
    expect(page.locator("#request-review")).to_be_hidden()
    expect(page.locator("#review-panel")).to_have_attribute("data-status", "done", timeout=60_000)
    expect(page.locator("#review-progress")).to_be_hidden()

    graph = page.locator("#review-graph")
    expect(graph).to_be_visible()
    expect(graph.locator("circle.review-point")).to_have_count(len(moves) + 1)
    expect(page.locator("#review-summary")).to_contain_text(re.compile(r"Blue: accuracy \d+\.\d%"))
    blunders = page.locator('#move-list button.move[data-verdict="blunder"]')
    expect(blunders.first).to_be_visible()
    blunder = blunders.first
    expect(blunder).to_contain_text("??")
    assert "blunder" in (blunder.get_attribute("aria-label") or "")

    # At the blunder: the engine's better move and its line.
    blunder.click()
    ply = int(blunder.get_attribute("data-ply") or "0")
    note = page.locator("#review-move")
    expect(note).to_have_attribute("data-verdict", "blunder")
    expect(note).to_contain_text("Blunder")
    better = note.locator(".review-better")
    expect(better).to_contain_text(re.compile(r"Better: \S+\. Line: \S+"))
    assert better.get_attribute("data-move") != moves[ply - 1]

    # Clicking the graph's first point goes to the start.
    box = graph.bounding_box()
    assert box is not None
    graph.click(position={"x": 1, "y": box["height"] / 2})
    expect(page.locator("#board")).to_have_attribute("data-ply", "0")
    found = audit(page, f"a reviewed replay at {width} px")
    assert found == [], "\n".join(found)


def test_a_record_imported_with_its_review_asked_for(
    make_server: Callable[..., LiveServer], new_page: Callable[..., Page]
) -> None:
    # One review a day from this address: the second import is kept, but not reviewed.
    server = make_server(rate_limits=False, review_nodes=NODES, reviews_per_day=1)
    page = new_page(viewport=DESKTOP)
    page.goto(f"{server.url}/games")
    page.locator("#record-text").fill(shuffles_record())
    page.locator("#import-review").check()
    page.locator("#import-button").click()
    expect(page).to_have_url(re.compile(r"/replay/[A-Za-z0-9_-]+#ply=\d+$"))
    expect(page.locator("#request-review")).to_be_hidden()
    expect(page.locator("#review-panel")).to_have_attribute("data-status", "done", timeout=60_000)

    page.goto(f"{server.url}/games")
    page.locator("#record-text").fill(shuffles_record())
    page.locator("#import-review").check()
    page.locator("#import-button").click()
    error = page.locator("#import-error")
    expect(error).to_contain_text("Imported, but not reviewed: this address has asked for 1")
    error.get_by_role("link", name="Open the replay").click()
    expect(page.locator("#request-review")).to_be_visible()
