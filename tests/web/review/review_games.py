"""Games for the review's tests: records to import, finished, with moves the engine judges."""

from __future__ import annotations

import time
from typing import Final

from tests.web.account_clients import Browser
from tests.web.conftest import Json, TestClient

Client = TestClient | Browser

SHUFFLES: Final = "1. a2-a3 d8-d7 2. a1-a2 d7-e7 3. a2-a1 e7-d7 4. a1-a2 d7-e7"
"""Eight plies of Cooper's game in which both sides shuffle a guard on the edge while the
engine would develop: at 2,000 nodes a position, several of them are mistakes or
blunders (the engine's own count: ``test_review_api``)."""
PLIES: Final = 8


def shuffles_record(tags: str = "") -> str:
    return f'[Rules "cooper"]\n[Result "*"]\n{tags}\n{SHUFFLES} *\n'


def import_game(client: Client, record: str | None = None, **headers: str) -> str:
    answer = client.post(
        "/api/records", json={"text": record or shuffles_record()}, headers=headers
    )
    assert answer.status_code == 201, answer.text
    game_id: str = answer.json()["id"]
    return game_id


def review_when_done(client: Client, game_id: str, seconds: float = 60.0) -> Json:
    """The review once it is no longer pending (asserting that it gets there in ``seconds``),
    its progress never going back meanwhile."""
    deadline = time.monotonic() + seconds
    analysed = 0
    while time.monotonic() < deadline:
        review: Json = client.get(f"/api/games/{game_id}/review").json()
        assert review["analysed"] >= analysed, "the progress went back"
        analysed = review["analysed"]
        if review["status"] != "pending":
            return review
        time.sleep(0.1)  # polling, as the replay page does
    raise AssertionError(f"the review of {game_id} is still pending after {seconds} s")
