"""A rated game as its players see it, in the real browser (headless Chromium driven by
Playwright): the page says it is rated and its time control, shows each player's rating by the
name and what a win, a draw or a loss would change it by (the change the end then applies)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

PASSWORD = "a long enough password"


def api(page: Page, url: str, path: str, body: dict[str, Any] | None = None) -> Any:
    """A POST as the pages make it, with the page's cookies and CSRF token; its JSON answer."""
    token = page.request.get(f"{url}/api/account").json()["csrf_token"]
    answer = page.request.post(
        url + path,
        data=json.dumps(body or {}),
        headers={"Content-Type": "application/json", "X-CSRF-Token": token},
    )
    assert answer.ok, answer.text()
    return answer.json()


def player(new_page: Callable[..., Page], url: str, name: str) -> Page:
    """A browser with an account of its own, on the site."""
    page = new_page()
    page.goto(url + "/")
    api(page, url, "/api/account/signup", {"name": name, "password": PASSWORD})
    return page


def rated_game(ada: Page, bob: Page, url: str, *, kept_tokens: bool = True) -> str:
    """A rated 5+3 game, Ada Blue and Bob Gray, both pages on it; its id. ``kept_tokens``: each
    page keeps its seat's token (as the lobby's pages do); otherwise each plays by its account
    alone. Ada's page keeps both tokens in ``window.__seatTokens``."""
    created = api(
        ada,
        url,
        "/api/games",
        {
            "opponent": {"type": "friend"},
            "color": "blue",
            "rated": True,
            "clock": {"minutes": 5, "increment_seconds": 3},
        },
    )
    game_id: str = created["game"]["id"]
    joined = api(bob, url, f"/api/games/{game_id}/join", {"invite": created["invite"]["code"]})
    for page, seat in ((ada, created["seat"]), (bob, joined["seat"])):
        if kept_tokens:
            page.evaluate(f"localStorage.setItem('bluegray.seat.{game_id}', '{seat['token']}')")
        page.goto(f"{url}/game/{game_id}")
    tokens = {"blue": created["seat"]["token"], "gray": joined["seat"]["token"]}
    ada.evaluate(f"window.__seatTokens = {json.dumps(tokens)}")
    return game_id


def test_a_rated_game_shows_that_it_is_rated_the_ratings_and_the_preview(
    live_url: str, new_page: Callable[..., Page]
) -> None:
    ada = player(new_page, live_url, "ada")
    bob = player(new_page, live_url, "bob")
    game_id = rated_game(ada, bob, live_url)
    preview = ada.request.get(f"{live_url}/api/games/{game_id}/rating-preview").json()
    for page in (ada, bob):
        expect(page.locator("#rated-line")).to_have_text("Rated · 5+3")
        for side, name in (("blue", "ada"), ("gray", "bob")):
            label = page.locator(f'.player-bar[data-side="{side}"] [data-rating="1500?"]')
            expect(label).to_contain_text(f"{name} 1500?")
    box = ada.locator("#rating-preview")
    expect(box).to_be_visible()
    win = round(preview["blue"]["win"])
    expect(box).to_have_attribute("data-win", str(win))
    expect(box).to_contain_text(f"win +{win}")
    expect(bob.locator("#rating-preview")).to_have_attribute(
        "data-loss", str(round(preview["gray"]["loss"]))
    )


def play_first_moves_and_resign(page: Page, url: str, game_id: str, tokens: list[str]) -> None:
    """Each side's first move over HTTP (a rated game ends rated only once both have), then
    Gray (the second token) resigns."""
    for token in tokens:
        state = page.request.get(f"{url}/api/games/{game_id}").json()
        answer = page.request.post(
            f"{url}/api/games/{game_id}/moves",
            data={"move": state["legal_moves"][0], "version": state["version"]},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert answer.ok, answer.text()
    answer = page.request.post(
        f"{url}/api/games/{game_id}/actions",
        data={"action": "resign"},
        headers={"Authorization": f"Bearer {tokens[1]}"},
    )
    assert answer.ok, answer.text()


@pytest.mark.parametrize("kept_tokens", [True, False], ids=["tokens", "accounts"])
def test_an_accepted_rematch_takes_both_players_to_the_new_game(
    live_url: str, new_page: Callable[..., Page], kept_tokens: bool
) -> None:
    ada = player(new_page, live_url, "ada")
    bob = player(new_page, live_url, "bob")
    game_id = rated_game(ada, bob, live_url, kept_tokens=kept_tokens)
    tokens = [ada.evaluate("window.__seatTokens")[side] for side in ("blue", "gray")]
    play_first_moves_and_resign(ada, live_url, game_id, tokens)
    for page in (ada, bob):
        expect(page.locator("#game-over")).to_be_visible()
    ada.locator('#actions [data-action="offer_rematch"]').click()
    bob.locator('#actions [data-action="accept_rematch"]').click()
    deadline = time.monotonic() + 10
    while not (
        rematch_id := ada.request.get(f"{live_url}/api/games/{game_id}").json()["rematch_id"]
    ):
        assert time.monotonic() < deadline, "the rematch was never started"
        time.sleep(0.05)  # poll interval: until the rematch starts, up to 10 s
    for page, side in ((ada, "gray"), (bob, "blue")):  # the colours swap
        page.wait_for_url(f"{live_url}/game/{rematch_id}")
        expect(page.locator("#rated-line")).to_have_text("Rated · 5+3")
        expect(page.locator(f'.player-bar[data-side="{side}"]')).to_contain_text("you")
