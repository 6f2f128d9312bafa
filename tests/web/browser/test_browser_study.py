"""The replay and the study board in a real browser (headless Chromium driven by Playwright):
stepping through a stored game with the buttons, the keyboard and the move list, analysing a ply,
importing a record from My games; and setting up, playing and analysing a position on /study.

Every wait is on a condition of the page (the board's ``data-*`` attributes and the pieces
board.js drew, the highlighted move, the analysis box), never a fixed sleep."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from bluegray import Game, Position
from bluegray.points import point_name
from bluegray.web.games import service as service_module

MOVES = ["d2-d3", "f8-f7", "e2-e3", "e8-e7"]
CENTRE_REACHED = "ggggcgggg/ggggggggg/9/9/4C4/9/9/GGGGGGGGG/GGGG1GGGG g 1 1"
"""A finished position: Blue's captain has reached the centre."""


def positions_of(rules: str, moves: list[str]) -> list[Position]:
    game = Game(rules)
    result = [game.position]
    for move in moves:
        game.push(move)
        result.append(game.position)
    return result


COOPER = positions_of("cooper", MOVES)


def api(page: Page, url: str, body: dict[str, Any], token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    response = page.request.post(url, data=json.dumps(body), headers=headers)
    assert response.ok, response.text()
    return response.json()


def expect_board(page: Page, position: Position) -> None:
    """The board shows ``position``: board.js drew each of its pieces on its point."""
    board = page.locator("#board")
    expect(board).to_have_attribute("data-position", str(position))
    pieces = position.pieces()
    expect(board.locator("[data-piece]")).to_have_count(len(pieces))
    for point, piece in list(pieces.items())[:3]:
        name = point_name(point)
        expect(
            board.locator(f'[data-piece="{name}"][data-side="{piece.side.value}"]')
        ).to_have_count(1)


def expect_ply(page: Page, ply: int, flipped: bool = False) -> None:
    board = page.locator("#board")
    expect(board).to_have_attribute("data-ply", str(ply))
    expect(board).to_have_attribute("data-flipped", str(flipped).lower())
    expect_board(page, COOPER[ply])
    current = page.locator("#move-list button.current")
    expect(current).to_have_count(1)
    expect(current).to_have_attribute("data-ply", str(ply))
    expect(current).to_have_attribute("aria-current", "step")


def test_replay_steps_through_a_game_and_analyses_it(
    live_url: str, new_page: Callable[..., Page]
) -> None:
    page = new_page()
    page.goto(f"{live_url}/games")
    created = api(
        page, f"{live_url}/api/games", {"rules": "cooper", "opponent": {"type": "hotseat"}}
    )
    game_id, token = created["game"]["id"], created["seat"]["token"]
    version = created["game"]["version"]
    for move in MOVES:
        version = api(
            page,
            f"{live_url}/api/games/{game_id}/moves",
            {"move": move, "version": version},
            token,
        )["version"]

    # My games lists it; its Replay link opens the replay at the last position.
    page.reload()
    page.locator(f'tr[data-game-id="{game_id}"] a[href="/replay/{game_id}"]').click()
    expect(page).to_have_url(re.compile(f"/replay/{game_id}"))
    expect_ply(page, 4)
    expect(page.locator("#next")).to_be_disabled()
    expect(page.locator("#ply-status")).to_contain_text("Gray played e8-e7")

    page.locator("#previous").click()
    expect_ply(page, 3)
    expect(page.locator("#ply-status")).to_contain_text("Blue played e2-e3")
    page.keyboard.press("ArrowLeft")
    expect_ply(page, 2)
    page.keyboard.press("Home")
    expect_ply(page, 0)
    expect(page.locator("#first")).to_be_disabled()
    expect(page.locator("#previous")).to_be_disabled()
    page.keyboard.press("ArrowRight")
    expect_ply(page, 1)
    page.locator("#last").click()
    expect_ply(page, 4)
    page.locator('#move-list button[data-ply="2"]').click()
    expect_ply(page, 2)
    expect(page).to_have_url(re.compile("#ply=2$"))
    a1 = page.locator('#board [data-piece="a1"] use').bounding_box()
    page.locator("#flip").click()
    expect_ply(page, 2, flipped=True)
    flipped_a1 = page.locator('#board [data-piece="a1"] use').bounding_box()
    assert a1 is not None and flipped_a1 is not None
    assert flipped_a1["x"] > a1["x"] and flipped_a1["y"] < a1["y"]  # a1 is top right now
    expect(page.locator("#flip")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#download-svg")).to_have_attribute(
        "href", f"/api/games/{game_id}/board.svg?ply=2&flipped=true&size=720"
    )

    # Analysing ply 2: Blue to move after d2-d3 f8-f7.
    game = Game("cooper")
    game.push_all(MOVES[:2])
    legal = {str(move) for move in game.legal_moves}
    page.locator("#analysis-seconds").select_option("0.5")
    page.locator("#analyse").click()
    facts = page.locator("#analysis dl")
    expect(facts).to_contain_text("Best move")
    expect(facts).to_contain_text("Blue's expected score")
    best = page.locator("#analysis").get_attribute("data-best-move")
    assert best in legal
    expect(page.locator("#analysis .verdict")).to_have_text(re.compile(r"\S"))
    # Stepping away clears it; coming back shows it again without asking the server.
    page.keyboard.press("ArrowRight")
    expect_ply(page, 3, flipped=True)
    expect(page.locator("#analysis dl")).to_have_count(0)
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#analysis")).to_have_attribute("data-best-move", best or "")


def test_import_errors_then_replays_and_the_study_board_analyses(
    live_url: str, new_page: Callable[..., Page]
) -> None:
    page = new_page(viewport={"width": 360, "height": 740})
    page.goto(f"{live_url}/games")
    page.locator("#record-text").fill('[Rules "cooper"]\n\n1. d2-d9 *\n')
    page.locator("#import-button").click()
    expect(page.locator("#import-error")).to_contain_text("d2-d9")
    page.locator("#record-text").fill('[Rules "cooper"]\n\n1. d2-d3 f8-f7 *\n')
    page.locator("#import-button").click()
    expect(page).to_have_url(re.compile(r"/replay/[A-Za-z0-9_-]+#ply=2$"))
    expect(page.locator("#move-list button.move")).to_have_text(["start", "d2-d3", "f8-f7"])
    assert page.evaluate("document.documentElement.scrollWidth") <= 360

    # The study board: the start of cooper, a move played by choosing it, a bad position
    # refused without changing anything, and an analysis.
    page.goto(f"{live_url}/study?rules=cooper")
    start = Position.start("cooper")
    legal = page.locator("#legal-moves button")
    expect(legal).to_have_text([str(move) for move in start.legal_moves()])
    page.locator('#legal-moves button[data-move="d2-d3"]').click()
    after = start.push("d2-d3")
    expect_board(page, after)
    expect(legal).to_have_text([str(move) for move in after.legal_moves()])
    expect(page.locator("#moves")).to_have_value("d2-d3")
    expect(page.locator('#board [data-last="d3"]')).to_have_count(1)  # the last move marked
    download = page.locator("#download-svg").get_attribute("href")
    assert download is not None and "last_move=d2-d3" in download

    page.locator("#position").fill("ggggcgggg/9/9 b 0 1")
    page.locator("#show").click()
    expect(page.locator("#study-error")).to_contain_text("Nothing changed: invalid position")
    expect_board(page, after)
    expect(legal).to_have_count(len(after.legal_moves()))

    page.locator("#analysis-seconds").select_option("0.5")
    page.locator("#analyse").click()
    expect(page.locator("#analysis dl")).to_contain_text("Best line")
    best = page.locator("#analysis").get_attribute("data-best-move")
    assert best in {str(move) for move in after.legal_moves()}

    page.locator("#undo").click()
    expect_board(page, start)
    expect(page.locator("#undo")).to_be_disabled()

    # Another rule set starts from its start; a bad custom rule set changes nothing.
    page.locator("#rules").select_option("pow-super-light")
    pow_start = Position.start("pow-super-light")
    expect_board(page, pow_start)
    expect(legal).to_have_text([str(move) for move in pow_start.legal_moves()])
    page.locator("#rules").select_option("custom")
    page.locator("#custom-rules").fill("cooper captain=warp")
    page.locator("#show").click()
    expect(page.locator("#study-error")).to_contain_text("invalid value 'warp'")
    expect(page.locator("#board")).to_have_attribute("data-position", str(pow_start))


def test_the_replay_of_a_friend_game_being_played_says_why_it_is_not_analysed(
    live_url: str, new_page: Callable[..., Page]
) -> None:
    page = new_page()
    page.goto(f"{live_url}/games")
    created = api(page, f"{live_url}/api/games", {"opponent": {"type": "friend"}})
    game_id = created["game"]["id"]
    api(page, f"{live_url}/api/games/{game_id}/join", {"invite": created["invite"]["code"]})
    page.goto(f"{live_url}/replay/{game_id}")
    page.locator("#analyse").click()
    expect(page.locator("#analysis-error")).to_have_text(
        "Analysis failed: analysis is off while a game between two people is being played;"
        " it opens when the game ends"
    )
    expect(page.locator("#analysis dl")).to_have_count(0)
    expect(page.locator("#analyse")).to_be_enabled()


def test_my_games_shows_older_games_made_in_the_same_millisecond(
    live_url: str, new_page: Callable[..., Page], monkeypatch: pytest.MonkeyPatch
) -> None:
    """More games than a page holds, all created in one millisecond: "Show older games" adds
    every one of the rest, none twice."""
    monkeypatch.setattr(service_module, "now_ms", lambda: 1_700_000_000_000)
    page = new_page()
    page.goto(f"{live_url}/games")
    ids = {
        api(page, f"{live_url}/api/games", {"opponent": {"type": "hotseat"}})["game"]["id"]
        for _ in range(53)
    }
    page.goto(f"{live_url}/games")
    rows = page.locator("#games-body tr")
    expect(rows).to_have_count(50)
    page.get_by_role("button", name="Show older games").click()
    expect(rows).to_have_count(53)
    expect(page.locator("#more-games")).to_have_count(0)
    shown = rows.evaluate_all("rows => rows.map(row => row.dataset.gameId)")
    assert sorted(shown) == sorted(ids)


def test_the_analysis_of_a_finished_position_says_who_won(
    live_url: str, new_page: Callable[..., Page]
) -> None:
    page = new_page()
    page.goto(f"{live_url}/study?rules=cooper")
    page.locator("#position").fill(CENTRE_REACHED)
    page.locator("#show").click()
    expect(page.locator("#board")).to_have_attribute("data-position", CENTRE_REACHED)
    page.locator("#analyse").click()
    facts = page.locator("#analysis dl")
    expect(facts).to_contain_text("Blue won")
    expect(facts).not_to_contain_text("+1")
    expect(facts).to_contain_text("Blue's expected score")
