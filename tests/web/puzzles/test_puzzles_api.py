"""Puzzles through the API, on SQLite and PostgreSQL: the starter set loaded once, the next
puzzle near the solver's rating and never one tried, a try checked move by move, only the first
try rated, anonymous solvers rated per browser, the daily puzzle, and bad input refused."""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from typing import Any

from bluegray.game import Game
from bluegray.web.platform.db import Database
from bluegray.web.puzzles.service import load_starter
from bluegray.web.puzzles.starter import starter_puzzles
from tests.web.account_clients import Browser, post, sign_up
from tests.web.conftest import Json, TestClient


def shipped() -> dict[str, Json]:
    """The shipped puzzles by their position."""
    folder = resources.files("bluegray.web.puzzles") / "starter"
    found = {}
    for entry in folder.iterdir():
        if entry.name.endswith(".jsonl"):
            for line in entry.read_text().splitlines():
                data = json.loads(line)
                found[data["position"]] = data
    return found


def solution_of(puzzle: Json) -> list[str]:
    solution: list[str] = shipped()[puzzle["position"]]["solution"]
    return solution


def next_puzzle(client: Any, **query: str) -> Json:
    answer = client.get("/api/puzzles/next", params=query)
    assert answer.status_code == 200, answer.text
    puzzle: Json = answer.json()
    return puzzle


def attempt(client: Any, puzzle_id: int, moves: list[str], signed_in: bool = False) -> Any:
    if signed_in:
        return post(client, f"/api/puzzles/{puzzle_id}/attempt", {"moves": moves})
    return client.post(f"/api/puzzles/{puzzle_id}/attempt", json={"moves": moves})


def solve(client: Any, puzzle: Json, signed_in: bool = False) -> Json:
    """Play the solution's moves one at a time, checking each reply; the last answer."""
    solution = solution_of(puzzle)
    mine = solution[0::2]
    for count in range(1, len(mine) + 1):
        answer = attempt(client, puzzle["id"], mine[:count], signed_in)
        assert answer.status_code == 200, answer.text
        body: Json = answer.json()
        if count < len(mine):
            assert body["result"] == "continue"
            assert body["reply"] == solution[2 * count - 1]
    assert body["result"] == "solved"
    assert body["solution"] == solution
    return body


def wrong_move(puzzle: Json) -> str:
    """A legal move that is not the solution's first."""
    game = Game(puzzle["rules"], puzzle["position"])
    first = solution_of(puzzle)[0]
    for move in game.legal_moves:
        game.push(move)
        won = game.outcome() is not None and game.outcome().winner is not None  # type: ignore[union-attr]
        game.pop()
        if str(move) != first and not won:
            return str(move)
    raise AssertionError("no wrong move")


def test_the_starter_set_is_loaded_once(database_url: str, client: TestClient) -> None:
    database = Database(database_url)
    database.start()
    try:
        assert database.run(load_starter) == 0  # the app loaded them all already
    finally:
        database.close()
    puzzle = next_puzzle(client)
    assert puzzle["position"] in shipped()
    assert puzzle["moves"] == (len(solution_of(puzzle)) + 1) // 2
    assert "solution" not in puzzle


def test_the_first_try_is_rated_and_later_ones_not(client: TestClient) -> None:
    browser = Browser(client)
    before = browser.get("/api/puzzles/rating").json()
    assert (before["rating"], before["attempts"]) == (1500, 0)
    puzzle = next_puzzle(browser)
    first = solve(browser, puzzle)
    assert first["rated"] and first["change"] > 0
    assert first["rating"]["rating"] > 1500 and first["rating"]["attempts"] == 1
    again = solve(browser, puzzle)
    assert not again["rated"] and again["change"] is None
    assert again["rating"] == first["rating"]
    assert browser.get(f"/api/puzzles/{puzzle['id']}").json()["tried"]
    # A failed first try loses rating points; its repetition changes nothing.
    other = next_puzzle(browser)
    failed = attempt(browser, other["id"], [wrong_move(other)]).json()
    assert failed["result"] == "failed" and failed["rated"] and failed["change"] < 0
    assert failed["solution"] == solution_of(other)
    assert solve(browser, other)["rated"] is False
    assert browser.get("/api/puzzles/rating").json()["attempts"] == 2


def test_a_tried_puzzle_is_not_offered_again(client: TestClient) -> None:
    browser = Browser(client)
    tried = set()
    for _ in range(6):
        puzzle = next_puzzle(browser, rules="super")
        assert puzzle["id"] not in tried
        assert not puzzle["tried"]
        solve(browser, puzzle)
        tried.add(puzzle["id"])


def test_the_choice_is_near_the_solvers_rating(client: TestClient) -> None:
    browser = Browser(client)
    puzzle = next_puzzle(browser)
    ratings = sorted(
        (abs(1500 - row_rating), row_rating) for row_rating in _all_ratings(client, browser)
    )
    # One of the few puzzles rated nearest 1500 (the new solver's rating).
    assert abs(puzzle["rating"] - 1500) <= ratings[min(11, len(ratings) - 1)][0] + 1


def _all_ratings(client: TestClient, browser: Browser) -> list[int]:
    ratings = []
    for puzzle_id in range(1, len(shipped()) + 1):
        answer = browser.get(f"/api/puzzles/{puzzle_id}")
        if answer.status_code == 200:
            ratings.append(answer.json()["rating"])
    return ratings


def test_anonymous_solvers_are_rated_per_browser_and_accounts_per_account(
    client: TestClient,
) -> None:
    one, two = Browser(client), Browser(client)
    puzzle = next_puzzle(one)
    assert solve(one, puzzle)["rated"]
    assert two.get("/api/puzzles/rating").json()["attempts"] == 0
    assert solve(two, puzzle)["rated"]  # another browser's first try
    sign_up(two, "solver")
    assert two.get("/api/puzzles/rating").json()["attempts"] == 0  # the account's own
    assert solve(two, puzzle, signed_in=True)["rated"]
    assert two.get("/api/puzzles/rating").json()["attempts"] == 1


def test_themes_and_rules_choose(client: TestClient) -> None:
    themed = [p for p in shipped().values() if "captains-run" in p["themes"]]
    assert themed
    puzzle = next_puzzle(client, theme="captains-run")
    assert "captains-run" in puzzle["themes"]
    assert next_puzzle(client, rules="super")["rules"] == "super"


def test_the_daily_puzzle_is_the_same_all_day(
    client: TestClient, time_offset: Callable[[float], None]
) -> None:
    first = client.get("/api/puzzles/daily").json()
    assert first["id"] == Browser(client).get("/api/puzzles/daily").json()["id"]
    assert len(first["date"]) == 10
    days = {client.get("/api/puzzles/daily").json()["id"]}
    for day in range(1, 6):
        time_offset(day * 86_400)
        days.add(client.get("/api/puzzles/daily").json()["id"])
    assert len(days) > 1


def test_bad_input_is_refused(client: TestClient) -> None:
    browser = Browser(client)
    puzzle = next_puzzle(browser)
    path = f"/api/puzzles/{puzzle['id']}/attempt"
    bodies: list[Json] = [
        {"moves": []},
        {"moves": ["a1-a2"] * 4},
        {"moves": "a1-a2"},
        {"moves": ["a1-a2" * 20]},
        {},
    ]
    for body in bodies:
        assert browser.post(path, json=body).status_code == 422
    answer = browser.post(path, json={"moves": ["nonsense"]})
    assert answer.status_code == 422 and answer.json()["error"]["code"] == "illegal_move"
    assert browser.post(path, json={"moves": ["e5-e4"]}).status_code == 422  # the centre is empty
    assert browser.get("/api/puzzles/999999").status_code == 404
    assert browser.get("/api/puzzles/0").status_code == 422
    assert browser.get("/api/puzzles/next", params={"theme": "nonsense"}).status_code == 422
    assert browser.get("/api/puzzles/next", params={"rules": "nonsense"}).status_code == 422
    assert browser.get("/api/puzzles/next", params={"rules": "pow-super"}).status_code == 404
    assert browser.get("/api/puzzles/rating").json()["attempts"] == 0


def test_the_starter_set_is_sound() -> None:
    # Every shipped puzzle is legal and unique by position, and at most a fifth of each rule
    # set's puzzles have no theme.
    rows = starter_puzzles()
    assert len({row["key"] for row in rows}) == len(rows) >= 300
    by_rules: dict[str, list[str]] = {}
    for row in rows:
        by_rules.setdefault(str(row["rules"]), []).append(str(row["themes"]))
    assert set(by_rules) == {"sackson", "cooper", "super", "classic-turbo", "pow-classic"}
    for themes in by_rules.values():
        assert sum(1 for listed in themes if listed == ",") <= 0.2 * len(themes)
