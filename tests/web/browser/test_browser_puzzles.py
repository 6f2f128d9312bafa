"""Puzzles in a real browser (headless Chromium driven by Playwright), at 1280 and 360 px: one
puzzle solved by clicking on the board, with the opponent's reply played for the solver, and
another failed from the list of moves; the puzzle rating moves each time. The daily puzzle is
reached from the home page.

Every wait is on a condition of the page, never a fixed sleep."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from importlib import resources
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from bluegray.game import Game

SIZES = [{"width": 1280, "height": 900}, {"width": 360, "height": 740}]


def shipped(position: str) -> Any:
    folder = resources.files("bluegray.web.puzzles") / "starter"
    for entry in folder.iterdir():
        if entry.name.endswith(".jsonl"):
            for line in entry.read_text().splitlines():
                data = json.loads(line)
                if data["position"] == position:
                    return data
    raise AssertionError(f"not a shipped puzzle: {position}")


def current(page: Page, before: Any = None) -> Any:
    """The puzzle shown (once it is another than ``before``)."""
    expect(page.locator("#main")).to_have_attribute("data-puzzle-id", re.compile(r"\d+"))
    if before is not None:
        expect(page.locator("#main")).not_to_have_attribute("data-puzzle-id", str(before["id"]))
    puzzle_id = page.locator("#main").get_attribute("data-puzzle-id")
    answer = page.request.get(f"/api/puzzles/{puzzle_id}")
    assert answer.ok
    puzzle = answer.json()
    expect(page.locator("#board")).to_have_attribute("data-position", puzzle["position"])
    return puzzle


def click_move(page: Page, move: str) -> None:
    for point in re.split("[-x]", move):
        page.locator(f'#board [data-point="{point}"]').click()


def rating(page: Page) -> int:
    expect(page.locator("#puzzle-rating")).to_have_text(re.compile(r"^\d+\??$"))
    return int(page.locator("#puzzle-rating").inner_text().rstrip("?"))


@pytest.mark.parametrize("viewport", SIZES, ids=["1280", "360"])
def test_solve_one_puzzle_and_fail_another(
    live_url: str, new_page: Callable[..., Page], viewport: dict[str, int]
) -> None:
    page = new_page(viewport=viewport, base_url=live_url)
    page.goto("/")
    page.get_by_role("link", name="Solve today's puzzle").click()
    expect(page).to_have_url(re.compile("/puzzles/daily$"))
    daily = current(page)
    expect(page.locator("#puzzle-facts")).to_contain_text("the puzzle of")
    page.get_by_role("button", name="Next puzzle").click()
    expect(page).to_have_url(re.compile("/puzzles$"))
    puzzle = current(page, daily)
    before = rating(page)
    solution = shipped(puzzle["position"])["solution"]
    for index, move in enumerate(solution[0::2]):
        click_move(page, move)
        if 2 * index + 1 < len(solution):
            # The reply is played for the solver: the board shows the position after it.
            game = Game(puzzle["rules"], puzzle["position"])
            game.push_all(solution[: 2 * index + 2])
            expect(page.locator("#board")).to_have_attribute("data-position", str(game.position))
    expect(page.locator("#puzzle-result")).to_have_attribute("data-result", "solved")
    expect(page.locator("#rating-change")).to_have_text(re.compile(r"^\+\d+$"))
    solved_rating = rating(page)
    assert solved_rating > before

    page.get_by_role("button", name="Next puzzle").click()
    other = current(page, puzzle)
    assert other["id"] != puzzle["id"]
    first = shipped(other["position"])["solution"][0]
    wrong = next(
        button
        for button in page.locator("#legal-moves button").all_inner_texts()
        if button != first
    )
    page.locator(f'#legal-moves button[data-move="{wrong}"]').click()
    expect(page.locator("#puzzle-result")).to_have_attribute("data-result", "failed")
    expect(page.locator("#rating-change")).to_have_text(re.compile("^\N{MINUS SIGN}\\d+$"))
    assert rating(page) < solved_rating
    expect(page.locator("#puzzle-solution")).to_contain_text(first)
