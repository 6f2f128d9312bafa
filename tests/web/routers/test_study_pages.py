"""The Learn, My games, Replay and Study pages (server-rendered), and the study board's
position endpoint, through the in-process client."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import pytest
from markupsafe import escape

from bluegray import PRESETS, Game, Position
from bluegray.points import BLUE_PATH, GRAY_PATH, point_name
from bluegray.web.learn import pages as learn
from tests.web.conftest import Json, TestClient

MOVES = ["d2-d3", "f8-f7", "e2-e3"]


def create(client: TestClient, rules: str = "sackson") -> Json:
    response = client.post("/api/games", json={"rules": rules, "opponent": {"type": "hotseat"}})
    assert response.status_code == 201, response.text
    created: Json = response.json()
    return created


def play(client: TestClient, created: Json, moves: list[str]) -> None:
    game, token = created["game"], created["seat"]["token"]
    version = game["version"]
    for text in moves:
        response = client.post(
            f"/api/games/{game['id']}/moves",
            json={"move": text, "version": version},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert response.status_code == 200, response.text
        version = response.json()["version"]


class Page(HTMLParser):
    """What the tests check in a page: ids, scripts, images, headings, labels and svgs."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.scripts: list[str] = []
        self.images: list[dict[str, str | None]] = []
        self.headings: list[str] = []
        self.labels_for: set[str] = set()
        self.fields: list[str] = []
        self.inline_scripts = 0
        self.styles = 0
        self._heading: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if attributes.get("id"):
            self.ids.add(str(attributes["id"]))
        if "style" in attributes or tag == "style":
            self.styles += 1
        if tag == "script":
            if attributes.get("src"):
                self.scripts.append(str(attributes["src"]))
            else:
                self.inline_scripts += 1
        if tag == "img":
            self.images.append(attributes)
        if tag == "label" and attributes.get("for"):
            self.labels_for.add(str(attributes["for"]))
        if tag in ("input", "select", "textarea") and attributes.get("type") != "hidden":
            self.fields.append(str(attributes.get("id")))
        if tag in ("h1", "h2", "h3"):
            self._heading = []

    def handle_data(self, data: str) -> None:
        if self._heading is not None:
            self._heading.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("h1", "h2", "h3") and self._heading is not None:
            self.headings.append("".join(self._heading).strip())
            self._heading = None


def page(client: TestClient, url: str, status: int = 200) -> tuple[str, Page]:
    response = client.get(url)
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("text/html")
    text = response.text
    parsed = Page(text)
    # The content security policy forbids inline script and style.
    assert parsed.inline_scripts == 0
    assert parsed.styles == 0
    # Every form field has a label, every image a text alternative (empty if decorative).
    assert set(parsed.fields) <= parsed.labels_for, set(parsed.fields) - parsed.labels_for
    assert all(image.get("alt") is not None for image in parsed.images)
    assert all(image.get("alt") for image in parsed.images if "board.svg" in str(image["src"]))
    return text, parsed


# -- learn ------------------------------------------------------------------------------------


def test_learn_covers_history_every_preset_and_both_paths(client: TestClient) -> None:
    text, parsed = page(client, "/learn")
    assert parsed.headings[0] == "Learn Blue and Gray"
    for words in (
        "1903",
        "Busch",
        "Jaeger",
        "A Gamut of Games",
        "1969",
        "Cooper",
        "Zillions",
        "Hutnik",
        "Super Blue and Gray",
        "Sargeant",
        "Cats and Dogs",
    ):
        assert words in text, words
    for name in PRESETS:
        assert f'href="/learn/{name}"' in text, name
        # Each card's start position, drawn in the page by board.js (the browser tests look).
        pow_ = str(PRESETS[name].start.value == "pow").lower()
        start = escape(str(Position.start(name)))
        assert f'data-board data-position="{start}" data-pow="{pow_}"' in text, name
    assert "/static/learn.js" in parsed.scripts
    # The caption of the paths' diagram names both paths' points in order.
    blue = " ".join(point_name(point) for point in BLUE_PATH)
    gray = " ".join(point_name(point) for point in GRAY_PATH)
    assert escape(f"Blue's path: {blue}. Gray's path: {gray}.") in text
    # Every setting and each of its values is explained.
    for setting in learn.SETTINGS:
        assert f'id="setting-{setting.key}"' in text
        for choice in setting.choices:
            assert f"{setting.key}={choice.value}" in text
    for heading in ("History and names", "Captures", "How a game ends", "Strategy"):
        assert heading in parsed.headings


def test_learn_diagrams_agree_with_the_library(client: TestClient) -> None:
    diagrams = learn.diagrams()
    # The captions list exactly the moves the move generator gives.
    assert "b4, b5, c4, c6, d4 and d5" in diagrams["guard"].caption
    assert "b4, c5 and d4" in diagrams["private"].caption
    assert "only h1xh3xh5" in diagrams["maximal"].caption
    assert diagrams["guard"].targets == ("b4", "b5", "c4", "c6", "d4", "d5")
    assert diagrams["private"].targets == ("b4", "c5", "d4")
    # A diagram after a move shows the position the library reaches, and marks the move.
    capture = diagrams["capture"]
    assert capture.last_move == "a1xa3xc3xc1xa1"
    game = Game("sackson", "4c4/9/9/9/9/9/1g7/g1g6/Gg2C4 b 0 1")
    game.push(capture.last_move)
    assert capture.position == str(game.position)
    assert diagrams["turbo"].last_move == "e1-b4"
    assert "Blue wins" in diagrams["lead"].caption
    text = client.get("/learn").text
    for diagram in diagrams.values():
        assert f"Board diagram: {escape(diagram.title)}" in text
        assert f'data-position="{diagram.position}"' in text
        assert (
            f'data-last-move="{diagram.last_move}" data-targets="{" ".join(diagram.targets)}"'
            in text
        )


@pytest.mark.parametrize("name", list(PRESETS))
def test_each_preset_page_has_its_rules_start_and_hints(client: TestClient, name: str) -> None:
    text, parsed = page(client, f"/learn/{name}")
    rules = PRESETS[name]
    assert name in parsed.headings[0]
    assert rules.description.replace("'", "&#39;") in text
    start = str(Position.start(rules))
    pow_ = str(rules.start.value == "pow").lower()
    assert f'data-position="{start}" data-pow="{pow_}"' in text  # drawn by board.js
    assert "Strategy hints" in parsed.headings
    assert f'href="/study?rules={name}"' in text
    assert f'href="/?rules={name}"' in text  # play it: the lobby with this rule set chosen
    settings = rules.settings()
    if rules.lead is None:
        assert "There is no lead rule" in text
    else:
        assert f"advanced {rules.lead} or more steps" in text
    if settings["soldiers"] == "private":
        assert "becomes a guard at once" in text
    if settings["start"] == "pow":
        assert "Blue&#39;s captain starts on e9 and follows the Gray path" in text
    if name == "sackson":
        assert "Nothing: these are Sackson" in text
    else:
        assert "What it changes from Sackson" in text and "<li>" in text


def test_unknown_preset_is_a_404_page(client: TestClient) -> None:
    _, parsed = page(client, "/learn/chess", status=404)
    assert parsed.headings[0] == "No such rule set"


# -- my games ---------------------------------------------------------------------------------


def test_my_games_lists_this_browsers_games_only(client: TestClient) -> None:
    mine = create(client, "cooper")
    play(client, mine, MOVES)
    first_browser = dict(client.cookies)
    client.cookies.clear()
    theirs = create(client, "super")["game"]["id"]
    text, _ = page(client, "/games")
    assert theirs in text and mine["game"]["id"] not in text

    client.cookies.clear()
    client.cookies.update(first_browser)
    text, parsed = page(client, "/games")
    game_id = mine["game"]["id"]
    assert theirs not in text
    assert f'href="/game/{game_id}"' in text and f'href="/replay/{game_id}"' in text
    row = re.search(rf'<tr data-game-id="{game_id}">(.*?)</tr>', text, re.S)
    assert row is not None
    cells = [
        re.sub(r"<[^>]+>", "", cell).strip()
        for cell in re.findall(r"<td[^>]*>(.*?)</td>", row[1], re.S)
    ]
    assert cells[1:6] == ["cooper", "hot-seat", "both", "in progress, Gray to move", "3"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", cells[0])
    assert {"import-form", "record-text", "record-file"} <= parsed.ids
    assert "/static/games.js" in parsed.scripts


def test_my_games_newest_first_and_an_empty_list(client: TestClient) -> None:
    text, parsed = page(client, "/games")
    assert "no-games" in parsed.ids
    ids = [create(client)["game"]["id"] for _ in range(3)]
    text, _ = page(client, "/games")
    assert re.findall(r'<tr data-game-id="([^"]+)">', text) == ids[::-1]


def test_import_endpoint_of_the_form_rejects_a_malformed_record(client: TestClient) -> None:
    response = client.post("/api/records", json={"text": '[Rules "sackson"]\n\n1. d2-d9 *\n'})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "invalid_record" and "d2-d9" in error["message"]
    # A good record becomes a game of this browser, listed with a link to its replay.
    response = client.post("/api/records", json={"text": '[Rules "cooper"]\n\n1. d2-d3 f8-f7 *\n'})
    assert response.status_code == 201, response.text
    game_id = response.json()["id"]
    text, _ = page(client, "/games")
    assert f'href="/replay/{game_id}"' in text and "imported record" in text
    # An imported record is only replayed: no link to a live game page.
    assert f'href="/game/{game_id}"' not in text


# -- replay -----------------------------------------------------------------------------------


def test_replay_shows_the_moves_by_ply_and_the_board(client: TestClient) -> None:
    created = create(client, "cooper")
    play(client, created, MOVES)
    game_id = created["game"]["id"]
    text, parsed = page(client, f"/replay/{game_id}")
    plies = re.findall(
        r'<button type="button" class="move" data-ply="(\d+)"[^>]*>([^<]+)</button>', text
    )
    assert plies == [("0", "start"), ("1", "d2-d3"), ("2", "f8-f7"), ("3", "e2-e3")]
    assert re.findall(r'<span class="move-number">(\d+)\.</span>', text) == ["1", "2"]
    assert f'data-plies="{len(MOVES)}"' in text
    # The board is drawn in the page from the positions it carries: the library's, by ply.
    game = Game("cooper")
    expected = [str(game.position)]
    for move in MOVES:
        game.push(move)
        expected.append(str(game.position))
    assert re.findall(r'class="move" data-ply="\d+" data-position="([^"]+)"', text) == expected
    assert f'data-start="{expected[0]}"' in text
    assert "A hot-seat game" in text and "hotseat game" not in text
    assert f'href="/api/games/{game_id}/record"' in text
    assert {"first", "previous", "next", "last", "flip", "analyse", "board"} <= parsed.ids
    assert parsed.scripts == ["/static/forms.js", "/static/replay.js"]
    # What the page's script asks for answers.
    assert client.get(f"/api/games/{game_id}/board.svg?ply=1&flipped=true").status_code == 200
    positions = client.get(f"/api/games/{game_id}/positions").json()["positions"]
    assert [item["move"] for item in positions] == [None, *MOVES]


def test_replay_of_a_record_starting_with_gray_numbers_its_moves(client: TestClient) -> None:
    start = "ggggcgggg/ggggggggg/9/9/9/9/3G5/GGG1GGGGG/GGGGCGGGG g 1 1"
    record = f'[Rules "sackson"]\n[Position "{start}"]\n\n1... f8-f7 2. e2-e3 *\n'
    response = client.post("/api/records", json={"text": record})
    assert response.status_code == 201, response.text
    text, _ = page(client, f"/replay/{response.json()['id']}")
    assert '<span class="move-gap">…</span>' in text
    assert re.findall(r'<span class="move-number">(\d+)\.</span>', text) == ["1", "2"]
    assert "imported record" in text


@pytest.mark.parametrize("game_id", ["nosuchgame12", "bad id!"])
def test_replay_of_an_unknown_game_is_a_404_page(client: TestClient, game_id: str) -> None:
    text, parsed = page(client, f"/replay/{game_id}", status=404)
    assert parsed.headings[0] == "No such game"
    assert 'href="/games"' in text


# -- study ------------------------------------------------------------------------------------


def test_study_page_has_every_preset_and_custom_and_keeps_the_query(client: TestClient) -> None:
    text, parsed = page(client, "/study?rules=pow-classic&moves=e1-f2")
    options = re.findall(r'<option value="([^"]+)"', text)
    assert [name for name in options if name in PRESETS] == list(PRESETS)
    assert "custom" in options
    assert re.search(r'<option value="pow-classic"[^>]*selected', text)
    assert 'value="e1-f2"' in text
    assert {"rules", "custom-rules", "position", "moves", "analyse", "legal-moves"} <= parsed.ids
    assert parsed.scripts == ["/static/forms.js", "/static/study.js"]
    assert 'href="/games#import"' in text
    text, _ = page(client, "/study?rules=cooper+impasse-plies%3D50")
    assert 'value="cooper impasse-plies=50"' in text
    assert re.search(r'<option value="custom"[^>]*selected', text)


def test_study_position_gives_legal_moves_after_moves(client: TestClient) -> None:
    response = client.post("/api/study/position", json={"rules": "cooper", "moves": ["D2-D3"]})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["moves"] == ["d2-d3"] and body["ply"] == 1 and body["turn"] == "gray"
    assert body["last_move"] == "d2-d3" and body["outcome"] is None
    position = Position.parse(body["position"], "cooper")
    assert body["legal_moves"] == [str(move) for move in position.legal_moves()]
    assert body["rules"]["name"] == "cooper"


def test_study_position_of_a_finished_position(client: TestClient) -> None:
    body = client.post(
        "/api/study/position",
        json={"rules": "cooper", "position": "9/5c3/9/9/2C6/9/9/9/9 g 0 5"},
    ).json()
    assert body["legal_moves"] == [] and body["outcome"]["winner"] == "blue"
    assert body["outcome"]["reason"] == "lead"


@pytest.mark.parametrize(
    ("body", "code", "words"),
    [
        ({"rules": "chess"}, "invalid_rules", "unknown rule set 'chess'"),
        ({"rules": "sackson", "position": "9/9 b 0 1"}, "invalid_position", "9/9"),
        ({"rules": "sackson", "moves": ["d2-d5"]}, "illegal_move", "d2-d5"),
        ({"rules": "sackson", "moves": ["zz"]}, "invalid_move", "zz"),
        ({"rules": "sackson", "extra": 1}, "invalid_request", ""),
    ],
)
def test_study_position_refuses_bad_input_with_a_clear_message(
    client: TestClient, body: dict[str, Any], code: str, words: str
) -> None:
    response = client.post("/api/study/position", json=body)
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == code and words in error["message"]


def test_pages_are_not_in_the_api_schema_but_the_study_endpoint_is(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert "/api/study/position" in paths
    assert not {"/learn", "/games", "/study", "/replay/{game_id}"} & set(paths)
