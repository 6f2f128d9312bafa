"""Rated games between two accounts, played through the API with known moves: what the explorer's
tests (API and browser) count."""

from __future__ import annotations

from typing import Any

from tests.web.account_clients import Client, friend_game

RATED: dict[str, Any] = {"rated": True, "clock": {"minutes": 10}}

TRANSPOSED = "ggggcgggg/g1ggggg1g/1g5g1/9/9/9/2G3G2/GG1GGG1GG/GGGGCGGGG b 4 3"
"""Sackson's position after c2-c3 h8-h7 g2-g3 b8-b7, reached in both orders below."""

GAMES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("c2-c3", "h8-h7", "g2-g3", "b8-b7", "a2-a3"), "gray"),
    (("g2-g3", "b8-b7", "c2-c3", "h8-h7", "a2-a3"), "blue"),
    (("c2-c3", "h8-h7", "d2-d3"), "blue"),
)
"""Three rated games and who resigns each: Blue wins the first, Gray the other two. The first two
reach ``TRANSPOSED`` by different move orders."""


def play(client: Client, game_id: str, tokens: dict[str, str], moves: tuple[str, ...]) -> None:
    """Play ``moves`` in turn from the start (Blue first), each with its side's seat token."""
    version = client.get(f"/api/games/{game_id}").json()["version"]
    for ply, move in enumerate(moves):
        token = tokens["blue" if ply % 2 == 0 else "gray"]
        answer = client.post(
            f"/api/games/{game_id}/moves",
            json={"move": move, "version": version},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert answer.status_code == 200, answer.text
        version = answer.json()["game"]["version"]


def resign(client: Client, game_id: str, token: str) -> str:
    """Resign with ``token``'s seat; the game's status after it."""
    answer = client.post(
        f"/api/games/{game_id}/actions",
        json={"action": "resign"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert answer.status_code == 200, answer.text
    status: str = answer.json()["status"]
    return status


def play_game(
    blue: Client, gray: Client, moves: tuple[str, ...], resigns: str, **body: Any
) -> tuple[str, str]:
    """A game between ``blue`` and ``gray`` (accounts or not), played and resigned; its id and
    status."""
    game_id, blue_token, gray_token = friend_game(blue, gray, **body)
    tokens = {"blue": blue_token, "gray": gray_token}
    play(blue, game_id, tokens, moves)
    return game_id, resign(blue, game_id, tokens[resigns])


def play_rated_games(blue: Client, gray: Client) -> list[str]:
    """``GAMES``, rated, between two signed-up clients; their ids."""
    ids = []
    for moves, resigns in GAMES:
        game_id, status = play_game(blue, gray, moves, resigns, **RATED)
        assert status == "finished"
        ids.append(game_id)
    return ids
