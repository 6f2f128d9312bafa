"""A rated game as its players see it, in the real browser (headless Chromium driven by
Playwright): the page says it is rated and its time control, shows each player's rating by the
name and what a win, a draw or a loss would change it by (the change the end then applies)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

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


def rated_game(ada: Page, bob: Page, url: str) -> str:
    """A rated 5+3 game, Ada Blue and Bob Gray, both pages on it; its id."""
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
        page.evaluate(f"localStorage.setItem('bluegray.seat.{game_id}', '{seat['token']}')")
        page.goto(f"{url}/game/{game_id}")
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
