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

from tests.web.browser.test_browser_lobby import person
from tests.web.browser.test_browser_newcomer import DESKTOP, PHONE, check_page

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
    """Create a tournament with ``page``'s account (5+3, sackson, rated; ``page`` is on a page
    of the site, for its CSRF token); its id."""
    body = {"rules": "sackson", "clock": {"minutes": 5, "increment_seconds": 3}, **fields}
    status, answer = page.evaluate(CREATE, body)
    assert status == 201, answer
    tournament_id: str = answer["id"]
    return tournament_id


def join(page: Page, url: str, tournament_id: str, name: str) -> None:
    """``name`` joins on the tournament's page, and waits until its table shows them."""
    page.goto(f"{url}/tournament/{tournament_id}")
    page.locator("#join").click()
    expect(page.locator(f'#standings tbody tr[data-player="{name}"]')).to_have_count(1)


@pytest.mark.slow
def test_players_waiting_on_the_page_are_led_to_their_game_and_told_everywhere(
    live_url: str, new_page: Callable[..., Page]
) -> None:
    """Item 28: the game starts while both wait on the tournament's page (which loads itself
    again at the start): both pages go to the game, and Ada's other page says so."""
    ada = person(new_page, DESKTOP, live_url, "ada")
    bob = person(new_page, DESKTOP, live_url, "bob")
    tid = create(ada, kind="arena", name="Evening arena", minutes=5, starts_in_seconds=12)
    path = f"/tournament/{tid}"
    join(ada, live_url, tid, "ada")
    join(bob, live_url, tid, "bob")
    elsewhere = ada.context.new_page()
    elsewhere.goto(live_url + "/tournaments")
    expect(elsewhere.locator("#notices")).to_have_attribute("data-connected", "true")

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


def test_the_start_is_counted_down_on_the_page_and_in_the_list(
    live_url: str, new_page: Callable[..., Page]
) -> None:
    """Item 29: the time left to the start, on the server's clock, ticking; the moment too."""
    ada = person(new_page, DESKTOP, live_url, "ada")
    tid = create(ada, kind="arena", name="Later", minutes=5, starts_in_seconds=600)
    ada.goto(f"{live_url}/tournament/{tid}")
    countdown = ada.locator("#tournament-countdown")
    expect(ada.locator("#tournament-when")).to_contain_text("Starts in")
    expect(countdown).to_have_text(re.compile(r"^(10:00|9:[0-5]\d)$"))
    first = countdown.inner_text()
    expect(countdown).not_to_have_text(first)  # it ticks
    expect(ada.locator("#tournament-when time")).to_have_attribute("datetime", re.compile("^20"))

    ada.goto(live_url + "/tournaments")
    listed = ada.locator(f'#tournaments tr[data-tournament="{tid}"] .countdown')
    expect(listed).to_have_text(re.compile(r"^(10:00|9:[0-5]\d)$"))
    first = listed.inner_text()
    expect(listed).not_to_have_text(first)


def test_join_or_withdraw_whichever_applies(live_url: str, new_page: Callable[..., Page]) -> None:
    """Item 30: Join for a player not in it, Withdraw for one in it; neither once a Swiss has
    started for a player not in it."""
    ada = person(new_page, DESKTOP, live_url, "ada")
    tid = create(ada, kind="arena", name="Either", minutes=5, starts_in_seconds=600)
    ada.goto(f"{live_url}/tournament/{tid}")
    join_button, withdraw = ada.locator("#join"), ada.locator("#withdraw")
    expect(join_button).to_be_visible()
    expect(withdraw).to_be_hidden()
    join_button.click()
    expect(withdraw).to_be_visible()
    expect(join_button).to_be_hidden()
    withdraw.click()
    expect(join_button).to_be_visible()
    expect(withdraw).to_be_hidden()
    join_button.click()
    expect(withdraw).to_be_visible()
    ada.reload()
    expect(withdraw).to_be_visible()
    expect(join_button).to_be_hidden()


def test_the_tables_show_the_tie_breaks(live_url: str, new_page: Callable[..., Page]) -> None:
    """Item 31: a Swiss's Buchholz and Sonneborn-Berger, an arena's performance, on the page
    and as the table changes live."""
    ada = person(new_page, DESKTOP, live_url, "ada")
    swiss = create(ada, kind="swiss", name="Swiss", rounds=3, starts_in_seconds=600)
    arena = create(ada, kind="arena", name="Arena", minutes=30, starts_in_seconds=600)
    join(ada, live_url, swiss, "ada")
    head = ada.locator("#standings thead")
    expect(head).to_contain_text("Buch.")
    expect(head).to_contain_text("SB")
    line = ada.locator('#standings tbody tr[data-player="ada"]')
    expect(line.locator(".buchholz")).to_have_text("0")
    expect(line.locator(".sonneborn-berger")).to_have_text("0")
    ada.reload()
    expect(line.locator(".buchholz")).to_have_text("0")
    join(ada, live_url, arena, "ada")
    expect(head).to_contain_text("Perf.")
    expect(ada.locator('#standings tbody tr[data-player="ada"] .performance')).to_have_count(1)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_list_and_the_form_fit_and_write_as_the_lobby(
    live_url: str, new_page: Callable[..., Page], viewport: ViewportSize
) -> None:
    """Item 32: no wider than a phone, "1 round", clocks as "5+3", the fields of the kind
    chosen, the rule sets in the home page's order, styled as the rest of the site."""
    width = viewport["width"]
    ada = person(new_page, viewport, live_url, "ada")
    ada.goto(live_url + "/tournaments")
    swiss = create(
        ada, kind="swiss", name="A long Swiss name to wrap", rounds=1, starts_in_seconds=3600
    )
    create(ada, kind="arena", name="Arena", minutes=30, starts_in_seconds=600)

    ada.goto(live_url + "/tournaments")
    check_page(ada, "h1", width)
    swiss_row = ada.locator(f'#tournaments tr[data-tournament="{swiss}"]')
    expect(swiss_row).to_contain_text("Swiss, 1 round")
    expect(swiss_row).not_to_contain_text("1 rounds")
    expect(swiss_row.locator('[data-label="Clock"]')).to_have_text("5+3")
    padding = ada.locator("#tournaments td").first.evaluate(
        "(cell) => getComputedStyle(cell).paddingTop"
    )
    assert padding != "0px"

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

    ada.goto(f"{live_url}/tournament/{swiss}")
    expect(ada.locator("#tournament-facts")).to_contain_text("Swiss, 1 round,")
    expect(ada.locator("#tournament-facts")).to_contain_text("5+3")
    ada.locator("#join").click()
    expect(ada.locator('#standings tbody tr[data-player="ada"]')).to_have_count(1)
    check_page(ada, "h1", width)
