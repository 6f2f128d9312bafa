"""The accounts' pages as HTML (no browser): the header says who is logged in, the forms' pages,
the account's page, a player's profile with its results and games, the page of a name nobody has
(escaped), and where a login may send the browser next (this site only)."""

from __future__ import annotations

import re
from collections.abc import Callable

from tests.web.account_clients import Browser, friend_game, post, sign_up, signed_up
from tests.web.conftest import TestClient
from tests.web.routers.test_pages import assert_no_inline_code


def test_the_header_offers_to_log_in_then_names_the_account(client: TestClient) -> None:
    page = client.get("/").text
    link = re.search(r'<a href="/login" class="account-link" >(.*?)</a>', page)
    assert link is not None and '<span class="account-text">Log in</span>' in link[1]
    assert 'aria-hidden="true"' in link[1]  # the icon a phone shows instead of the words
    sign_up(client, "Header-Name")
    page = client.get("/").text
    link = re.search(
        r'<a href="/account" class="account-link" data-account="Header-Name"\s*>(.*?)</a>', page
    )
    assert link is not None
    assert (
        '<span class="account-text"><span class="sr-only">Logged in as </span>'
        '<span class="account-name">Header-Name</span></span>'
    ) in link[1]
    assert_no_inline_code(page)


def test_the_forms_pages_and_where_they_lead(client: TestClient) -> None:
    for path, form in (("/signup", "signup-form"), ("/login", "login-form")):
        page = client.get(path)
        assert page.status_code == 200 and f'id="{form}"' in page.text
        assert '<script src="/static/account.js" type="module">' in page.text
        assert_no_inline_code(page.text)
    # ?next= is kept only when it is a path of this site.
    assert 'data-next="/game/abc"' in client.get("/login?next=/game/abc").text
    for elsewhere in ("//evil.example/x", "https://evil.example/", "/\\evil.example"):
        assert 'data-next=""' in client.get("/login", params={"next": elsewhere}).text
    # Logged out, the account's page sends to the login; logged in, the forms to the account.
    answer = client.get("/account", follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/login?next=/account"
    client.post("/api/games", json={"opponent": {"type": "hotseat"}})
    assert "Add the 1\n      game played in this browser" in client.get("/signup").text
    sign_up(client, "formed")
    for path in ("/signup", "/login"):
        answer = client.get(path, follow_redirects=False)
        assert answer.status_code == 303 and answer.headers["location"] == "/account"


def test_the_account_page_has_its_sections(make_client: Callable[..., TestClient]) -> None:
    app = make_client()
    player = Browser(app)
    player.post("/api/games", json={"opponent": {"type": "hotseat"}})
    sign_up(player, "sectioned")
    post(player, "/api/account/tokens", {"description": "<i>my</i> bot"})
    page = player.get("/account").text
    for part in ("claim-button", "password-form", "token-form", "bot-button", "logout-button"):
        assert f'id="{part}"' in page, part
    assert "&lt;i&gt;my&lt;/i&gt; bot" in page and "<i>my</i>" not in page
    assert '<a href="/player/sectioned">Your public profile</a>' in page
    assert_no_inline_code(page)
    # Once it has played, no offer to become a bot's.
    post(player, "/api/account/claim")
    assert 'id="bot-button"' not in player.get("/account").text


def test_a_profile_shows_results_games_and_its_ratings(
    make_client: Callable[..., TestClient],
) -> None:
    app = make_client()
    ada, bob = signed_up(app, "ada", "bob")
    game_id, _, _ = friend_game(ada, bob, moved=True)
    post(bob, f"/api/games/{game_id}/actions", {"action": "resign"})
    page = ada.get("/player/ADA")
    assert page.status_code == 200
    html = page.text
    assert '<h1 id="player-name" data-player="ada">ada</h1>' in html
    assert 'id="ratings" data-section="ratings"' in html and "No rated games yet" in html
    people = re.search(r'<tr data-counts="people">(.*?)</tr>', html, re.S)
    assert people is not None
    counts = dict(re.findall(r'data-count="(\w+)">(\d+)<', people[1]))
    assert counts == {"games": "1", "wins": "1", "draws": "0", "losses": "0", "abandoned": "0"}
    assert f'<li data-game-id="{game_id}" data-result="win">' in html
    assert '<a href="/player/bob">bob</a>' in html
    assert f'<a href="/replay/{game_id}">Replay' in html
    assert_no_inline_code(html)


def test_a_name_nobody_has_is_a_404_page_that_shows_it_escaped(client: TestClient) -> None:
    page = client.get("/player/nobody")
    assert page.status_code == 404 and "No such player" in page.text
    assert_no_inline_code(page.text)
    page = client.get("/player/%3Cimg%20src=x%20onerror=alert(1)%3E")
    assert page.status_code == 404 and "No such player" in page.text
    assert "<img src=x" not in page.text
    assert "<code>&lt;img src=x onerror=alert(1)&gt;</code>" in page.text
