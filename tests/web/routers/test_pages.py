"""The play pages as HTML (no browser): the lobby offers every preset with its description, the
game page links to its replay, the site navigation is there, and no page has inline script or
style (the content security policy forbids them). Every page names itself on <body>, and the
stylesheet scopes each page's rules by that name; every page carries the library's pieces."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bluegray import PRESETS
from bluegray.svg import COLORS, piece_symbols
from bluegray.web.routers.pages import TEMPLATES
from tests.web.conftest import TestClient

SCRIPTS = [
    "api.js",
    "board.js",
    "forms.js",
    "game.js",
    "game-bars.js",
    "game-rating.js",
    "game-words.js",
    "lobby.js",
    "play-outcome.js",
    "read-board.js",
    "speech.js",
]


def assert_no_inline_code(html: str) -> None:
    for tag in re.findall(r"<script\b[^>]*>", html):
        assert 'src="/static/' in tag, tag
    assert "<style" not in html
    assert not re.search(r"\sstyle=", html)
    assert not re.search(r"\son[a-z]+=", html)
    assert not re.search(r'(src|href)="(https?:)?//', html)  # nothing from a CDN


def assert_navigation(html: str, current: str) -> None:
    for href, name in [
        ("/", "Play"),
        ("/learn", "Learn"),
        ("/study", "Study"),
        ("/puzzles", "Puzzles"),
        ("/games", "My games"),
        ("/tournaments", "Tournaments"),
    ]:
        assert re.search(rf'<a href="{href}"[^>]*>{name}</a>', html), name
    assert re.search(rf'<a href="[^"]*" aria-current="page">{current}</a>', html)


def test_the_lobby_offers_every_rule_set_opponent_colour_and_clock(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    html = page.text
    options = re.findall(r'<option value="([a-z-]+)" data-description="[^"]+"', html)
    assert options == [*PRESETS, "custom"]
    assert re.search(r'<option value="sackson"[^>]*selected', html)
    for name in PRESETS:
        assert f'<dt><a href="/learn/{name}">{name}</a></dt>' in html
    for value in ["ai", "friend", "hotseat"]:
        assert f'name="opponent" value="{value}"' in html
    for value in ["blue", "gray", "random"]:
        assert f'name="color" value="{value}"' in html
    assert 'name="clock" value="none" checked' in html and 'id="minutes"' in html
    assert 'name="clock" value="days"' in html
    levels = html[html.index('<select id="level"') :]
    levels = levels[: levels.index("</select>")]
    assert re.findall(r'<option value="(\d)"', levels) == [str(level) for level in range(1, 9)]
    days = html[html.index('<select id="days"') :]
    days = days[: days.index("</select>")]
    assert re.findall(r'<option value="(\d+)"', days) == ["1", "2", "3", "5", "7", "14"]
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


STATIC = TEMPLATES.parent / "static"


def test_every_name_a_page_script_imports_is_exported_by_its_module() -> None:
    """The pages' modules import each other by name (``import { request } from "./api.js"``);
    a name its module does not export breaks the whole page in the browser."""
    exported = {
        path.name: set(re.findall(r"^export (?:async )?(?:function|const|class|let) (\w+)",
                                  path.read_text(encoding="utf-8"), re.MULTILINE))
        for path in STATIC.glob("*.js")
    }  # fmt: skip
    imports = 0
    for path in STATIC.glob("*.js"):
        text = path.read_text(encoding="utf-8")
        for names, module in re.findall(r'^import \{([^}]*)\} from "\./([\w-]+\.js)";', text, re.M):
            assert module in exported, f"{path.name} imports the missing {module}"
            for name in (part.split(" as ")[0].strip() for part in names.split(",")):
                if name:
                    imports += 1
                    assert name in exported[module], f"{path.name}: {module} exports no {name}"
    assert imports > 40  # the pattern still finds the imports


def test_the_static_files_are_served(client: TestClient) -> None:
    for name in SCRIPTS:
        response = client.get(f"/static/{name}")
        assert response.status_code == 200, name
        assert "javascript" in response.headers["content-type"]
    css = client.get("/static/app.css")
    assert css.status_code == 200 and ":focus-visible" in css.text
    assert "@media (max-width" in css.text


def test_the_lobby_points_first_timers_to_learn_and_explains_the_words(client: TestClient) -> None:
    html = client.get("/").text
    first_time = re.search(r'<p class="first-time" id="first-time">(.*?)</p>', html, re.S)
    assert first_time is not None and 'href="/learn"' in first_time[1]
    words = re.search(r'<details class="rule-words" id="rule-words">(.*?)</details>', html, re.S)
    assert words is not None
    terms = re.findall(r"<dt>([^<]+)</dt>", words[1])
    for term in ["ply", "impasse", "POW", "lead", "turbo", "light"]:
        assert any(term in found for found in terms), term
    # Every description's jargon is among the explained words.
    for word in ["impasse", "lead", "POW", "turbo", "privates", "maximal capture"]:
        assert any(word in preset.description for preset in PRESETS.values()), word


@pytest.mark.parametrize(
    ("query", "chosen", "custom"),
    [
        ("cooper", "cooper", ""),
        ("pow-super", "pow-super", ""),
        ("cooper+impasse-plies%3D50", "custom", "cooper impasse-plies=50"),
        ("", "sackson", ""),
    ],
)
def test_the_lobby_chooses_the_rule_set_of_its_link(
    client: TestClient, query: str, chosen: str, custom: str
) -> None:
    html = client.get(f"/?rules={query}").text
    selected = re.findall(r'<option value="([a-z-]+)"[^>]*selected>', html)
    assert selected[0] == chosen  # the first selected option is the rule set's
    description = re.search(r'<p id="rules-description" class="hint">([^<]*)</p>', html)
    assert description is not None
    if chosen in PRESETS:
        assert description[1] == PRESETS[chosen].description.replace("'", "&#39;")
        assert re.search(r'<div id="custom-rules-row" class="field" hidden>', html)
    else:
        assert f'value="{custom}"' in html
        assert re.search(r'<div id="custom-rules-row" class="field" >', html)


# -- one style per page, one piece style everywhere ----------------------------------------------

#: Every page template and the class it puts on <body>.
PAGES = {
    "lobby.html": "page-lobby",
    "game.html": "page-game",
    "learn.html": "page-learn",
    "learn_preset.html": "page-learn-preset",
    "games.html": "page-games",
    "replay.html": "page-replay",
    "study.html": "page-study",
    "not_found.html": "page-not-found",
    "study_not_found.html": "page-not-found",
    "signup.html": "page-signup",
    "login.html": "page-login",
    "account.html": "page-account",
    "player.html": "page-player",
    "player_not_found.html": "page-not-found",
    "leaderboard.html": "page-leaderboard",
    "tournaments.html": "page-tournaments",
    "tournament.html": "page-tournament",
    "moderation_chat.html": "page-moderation",
    "puzzles.html": "page-puzzles",
}
STYLESHEET = STATIC / "app.css"


def css_selectors(css: str) -> list[str]:
    """Every selector of a stylesheet, inside @media blocks too."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    selectors: list[str] = []
    for prelude in re.findall(r"([^{}]+)\{", css):
        prelude = prelude.strip()
        if not prelude.startswith("@"):
            selectors.extend(part.strip() for part in prelude.split(","))
    return selectors


def test_every_page_names_itself_on_its_body(client: TestClient) -> None:
    templates = {path.name for path in Path(TEMPLATES).glob("*.html")} - {"base.html"}
    assert templates == set(PAGES)
    for name, page_class in PAGES.items():
        text = (Path(TEMPLATES) / name).read_text(encoding="utf-8")
        assert "{% block page %}" + page_class.removeprefix("page-") + "{% endblock %}" in text
    game = client.post("/api/games", json={"opponent": {"type": "hotseat"}}).json()["game"]
    for url, page_class in [
        ("/", "page-lobby"),
        (f"/game/{game['id']}", "page-game"),
        ("/learn", "page-learn"),
        ("/learn/cooper", "page-learn-preset"),
        ("/games", "page-games"),
        (f"/replay/{game['id']}", "page-replay"),
        ("/study", "page-study"),
        ("/puzzles", "page-puzzles"),
        ("/puzzles/1", "page-puzzles"),
        ("/tournaments", "page-tournaments"),
        ("/tournament/nothing", "page-tournament"),
    ]:
        assert f'<body class="{page_class}">' in client.get(url).text, url


def test_page_styles_are_scoped_so_no_page_catches_anothers_rules() -> None:
    pages = set(PAGES.values())
    shared: list[str] = []
    scoped: list[str] = []
    for selector in css_selectors(STYLESHEET.read_text(encoding="utf-8")):
        page = re.match(r"\.(page-[a-z-]+)\b", selector)
        if page:
            assert page[1] in pages, selector
            scoped.append(selector)
        else:
            shared.append(selector)
    # The shared rules name no element by id: pages reuse ids for different things (#moves).
    assert not [selector for selector in shared if "#" in selector]
    # Once the shared part ends, every rule belongs to a page (none slips in between).
    css = STYLESHEET.read_text(encoding="utf-8")
    tail = css[css.index("/* -- page: ") :]
    assert all(re.match(r"\.page-", selector) for selector in css_selectors(tail))
    assert len(scoped) > 50


def test_every_page_carries_the_librarys_pieces_and_the_boards_colours(
    client: TestClient,
) -> None:
    symbols = piece_symbols()
    for url in ["/", "/learn", "/study", "/games"]:
        assert symbols in client.get(url).text, url
    # The board's colours in the stylesheet are the library's picture's.
    css = STYLESHEET.read_text(encoding="utf-8")
    for role in ["board", "coordinate", "blue-path", "gray-path", "center", "center-outline"]:
        assert f"--{role}: {COLORS[role]};" in css, role
    assert f"--board-line: {COLORS['line']};" in css
