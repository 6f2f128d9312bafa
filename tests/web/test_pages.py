"""The play pages as HTML (no browser): the lobby offers every preset with its description, the
game page links to its replay, the site navigation is there, and no page has inline script or
style (the content security policy forbids them)."""

from __future__ import annotations

import re

from bluegray import PRESETS
from tests.web.conftest import TestClient

SCRIPTS = ["board.js", "game.js", "lobby.js", "play-outcome.js"]


def assert_no_inline_code(html: str) -> None:
    for tag in re.findall(r"<script\b[^>]*>", html):
        assert 'src="/static/' in tag, tag
    assert "<style" not in html
    assert not re.search(r"\sstyle=", html)
    assert not re.search(r"\son[a-z]+=", html)
    assert "https://" not in html and "http://" not in html  # nothing from a CDN


def assert_navigation(html: str, current: str) -> None:
    for href, name in [
        ("/", "Play"),
        ("/learn", "Learn"),
        ("/study", "Study"),
        ("/games", "My games"),
    ]:
        assert re.search(rf'<a href="{href}"[^>]*>{name}</a>', html), name
    assert re.search(rf'<a href="[^"]*" aria-current="page">{current}</a>', html)


def test_the_lobby_offers_every_rule_set_opponent_colour_and_clock(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    html = page.text
    options = re.findall(r'<option value="([a-z-]+)" data-description="[^"]+">', html)
    assert options == [*PRESETS, "custom"]
    for name in PRESETS:
        assert f"<dt>{name}</dt>" in html
    for value in ["ai", "friend", "hotseat"]:
        assert f'name="opponent" value="{value}"' in html
    for value in ["blue", "gray", "random"]:
        assert f'name="color" value="{value}"' in html
    assert 'name="clock" value="none" checked' in html and 'id="minutes"' in html
    assert re.findall(r'<option value="(\d)"', html) == [str(level) for level in range(1, 9)]
    assert 'id="import"' in html and 'id="games"' in html
    assert '<script src="/static/lobby.js" type="module">' in html
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert_no_inline_code(html)
    assert_navigation(html, "Play")


def test_the_game_page_links_its_replay_and_loads_the_board_module(client: TestClient) -> None:
    game = client.post("/api/games", json={"opponent": {"type": "hotseat"}}).json()["game"]
    page = client.get(f"/game/{game['id']}")
    assert page.status_code == 200
    html = page.text
    assert f'data-game-id="{game["id"]}"' in html
    assert f'<a href="/replay/{game["id"]}">Replay and analyse</a>' in html
    assert 'id="board" class="board" tabindex="0"' in html
    assert '<script src="/static/game.js" type="module">' in html
    assert_no_inline_code(html)
    assert_navigation(html, "Play")


def test_an_unknown_game_is_a_404_page_with_the_navigation(client: TestClient) -> None:
    for path in ["/game/no-such-game", "/game/AAAAAAAAAAAA"]:
        page = client.get(path)
        assert page.status_code == 404 and "No such game" in page.text
        assert_no_inline_code(page.text)
        assert_navigation(page.text, "Play")


def test_the_static_files_are_served(client: TestClient) -> None:
    for name in SCRIPTS:
        response = client.get(f"/static/{name}")
        assert response.status_code == 200, name
        assert "javascript" in response.headers["content-type"]
    css = client.get("/static/app.css")
    assert css.status_code == 200 and ":focus-visible" in css.text
    assert "@media (max-width" in css.text
