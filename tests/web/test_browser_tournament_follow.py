"""Tournaments as a player follows them, in the real browser (headless Chromium driven by
Playwright), issue 39 items 28 to 32: the players waiting on a tournament's page are led to their
game when it starts and every other page of theirs says so; the countdown to the start on the
page and in the list; Join or Withdraw, whichever applies; the tie-breaks in the table; and the
list and the form at a phone's width, written as the lobby writes clocks."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.web.test_browser_lobby import person
from tests.web.test_browser_newcomer import DESKTOP, PHONE, check_page

COUNTDOWN = re.compile(r"^\d+:\d\d$")
CREATE = """async (body) => {
  const token = document.querySelector('meta[name="csrf-token"]').content;
  const answer = await fetch("/api/tournaments", {
    method: "POST",
    headers: { "content-type": "application/json", "x-csrf-token": token },
    body: JSON.stringify(body),
  });
  return [answer.status, await answer.json()];
}"""


def create(page: Page, **fields: Any) -> str:
    """Create a tournament with ``page``'s account (5+3, sackson, rated); its id."""
    body = {"rules": "sackson", "clock": {"minutes": 5, "increment_seconds": 3}, **fields}
    status, answer = page.evaluate(CREATE, body)
    assert status == 201, answer
    tournament_id: str = answer["id"]
    return tournament_id


@pytest.mark.slow
def test_players_waiting_on_the_page_are_led_to_their_game_and_told_everywhere(
    live_url: str, new_page: Callable[..., Page]
) -> None:
    ada = person(new_page, DESKTOP, live_url, "ada")
    bob = person(new_page, DESKTOP, live_url, "bob")
    tid = create(ada, kind="arena", name="Evening arena", minutes=5, starts_in_seconds=12)
    path = f"/tournament/{tid}"

    # The page counts down to the start, on the server's clock.
    ada.goto(live_url + path)
    countdown = ada.locator("#tournament-countdown")
    expect(ada.locator("#tournament-when")).to_contain_text("Starts in")
    expect(countdown).to_have_text(COUNTDOWN)
    first = countdown.inner_text()
    expect(countdown).not_to_have_text(first)  # it ticks

    # Join or Withdraw: the one that applies.
    join, withdraw = ada.locator("#join"), ada.locator("#withdraw")
    expect(join).to_be_visible()
    expect(withdraw).to_be_hidden()
    join.click()
    expect(withdraw).to_be_visible()
    expect(join).to_be_hidden()
    withdraw.click()
    expect(join).to_be_visible()
    expect(withdraw).to_be_hidden()
    join.click()
    expect(withdraw).to_be_visible()

    bob.goto(live_url + path)
    expect(bob.locator("#join")).to_be_visible()
    bob.locator("#join").click()
    expect(bob.locator("#withdraw")).to_be_visible()
    expect(bob.locator("#join")).to_be_hidden()

    # Ada's other tab, on the list: its countdown too.
    elsewhere = ada.context.new_page()
    elsewhere.goto(live_url + "/tournaments")
    row = elsewhere.locator(f'#tournaments tr[data-tournament="{tid}"]')
    expect(row.locator(".countdown")).to_have_text(COUNTDOWN)
    expect(elsewhere.locator("#notices")).to_have_attribute("data-connected", "true")

    # The start: both tournament pages go to the game, the other tab says so.
    game = re.compile(r"/game/[A-Za-z0-9_-]+$")
    ada.wait_for_url(game, timeout=30_000)
    bob.wait_for_url(game, timeout=30_000)
    assert ada.url == bob.url
    game_id = ada.url.rsplit("/", 1)[1]
    notice = elsewhere.locator(f'#notices [data-notice="{game_id}"]')
    expect(notice).to_contain_text("tournament game against bob has started")
    expect(notice.locator("a")).to_have_attribute("href", f"/game/{game_id}")

    # Back on the tournament's page while the game is played: a link to it, no second trip.
    ada.goto(live_url + path)
    expect(ada.locator("#my-game a")).to_have_attribute("href", f"/game/{game_id}")
    expect(ada.locator("#tournament-when")).to_contain_text("Ends in")
    expect(ada.locator("#tournament-countdown")).to_have_text(COUNTDOWN)
    assert ada.url == live_url + path


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_list_the_form_and_the_tables_fit_and_show_the_tie_breaks(
    live_url: str, new_page: Callable[..., Page], viewport: ViewportSize
) -> None:
    width = viewport["width"]
    ada = person(new_page, viewport, live_url, "ada")
    ada.goto(live_url + "/tournaments")
    swiss = create(
        ada, kind="swiss", name="A long Swiss name to wrap", rounds=1, starts_in_seconds=3600
    )
    arena = create(ada, kind="arena", name="Arena", minutes=30, starts_in_seconds=600)

    # The list: written as the lobby writes it, and no wider than the screen.
    ada.goto(live_url + "/tournaments")
    check_page(ada, "h1", width)
    swiss_row = ada.locator(f'#tournaments tr[data-tournament="{swiss}"]')
    expect(swiss_row).to_contain_text("Swiss, 1 round")
    expect(swiss_row).not_to_contain_text("1 rounds")
    expect(swiss_row.locator('[data-label="Clock"]')).to_have_text("5+3")
    expect(swiss_row.locator(".countdown")).to_have_text(re.compile(r"^\d+:\d\d:\d\d$"))
    padding = ada.locator("#tournaments td").first.evaluate(
        "(cell) => getComputedStyle(cell).paddingTop"
    )
    assert padding != "0px"

    # The form: the fields of the kind chosen, the rule sets in the home page's order.
    form = ada.locator("#tournament-form")
    assert form.evaluate("(form) => Boolean(form.closest('.panel'))")
    minutes, rounds = form.locator('[name="minutes"]'), form.locator('[name="rounds"]')
    expect(minutes).to_be_visible()
    expect(rounds).to_be_hidden()
    form.locator('[name="kind"]').select_option("swiss")
    expect(rounds).to_be_visible()
    expect(minutes).to_be_hidden()
    expect(form.locator('[name="name"]')).to_have_value("ada's Swiss")
    ours = form.locator('[name="rules"] option').all_inner_texts()
    ada.goto(live_url + "/")
    assert ours == ada.locator("#rules option:not([value='custom'])").all_inner_texts()

    # A Swiss's table: Buchholz and Sonneborn-Berger, kept as the table changes live.
    ada.goto(live_url + f"/tournament/{swiss}")
    expect(ada.locator("#tournament-facts")).to_contain_text("Swiss, 1 round,")
    expect(ada.locator("#tournament-facts")).to_contain_text("5+3")
    ada.locator("#join").click()
    line = ada.locator('#standings tbody tr[data-player="ada"]')
    expect(line.locator(".buchholz")).to_have_text("0")
    expect(line.locator(".sonneborn-berger")).to_have_text("0")
    expect(ada.locator("#standings thead")).to_contain_text("Buch.")
    expect(ada.locator("#standings thead")).to_contain_text("SB")
    check_page(ada, "h1", width)

    # An arena's: the performance.
    ada.goto(live_url + f"/tournament/{arena}")
    expect(ada.locator("#standings thead")).to_contain_text("Perf.")
    ada.locator("#join").click()
    expect(ada.locator('#standings tbody tr[data-player="ada"] .performance')).to_have_count(1)
    check_page(ada, "h1", width)
