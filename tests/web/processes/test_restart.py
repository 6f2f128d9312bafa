"""Durability: a real ``bluegray serve`` killed with SIGKILL in the middle of games comes back
on the same database (a SQLite file, or PostgreSQL) with every move, clock and version, and play
goes on (an AI whose turn it was moves)."""

from __future__ import annotations

import os
import signal
import time

from tests.web.conftest import ServeProcess, Socket, free_port


def test_a_killed_server_resumes_every_game(
    database_url: str, processes: list[ServeProcess]
) -> None:
    port = free_port()
    first = ServeProcess(port, database_url)
    processes.append(first)
    banner = first.wait_ready()
    assert f"http://127.0.0.1:{port}/" in banner

    # A clocked game between two browsers, played over HTTP and the WebSocket.
    created = first.post(
        "/api/games",
        {
            "opponent": {"type": "friend"},
            "color": "blue",
            "rules": "cooper",
            "clock": {"minutes": 10, "increment_seconds": 0},
        },
    ).json()
    game_id, blue = created["game"]["id"], created["seat"]["token"]
    invite = {"invite": created["invite"]["code"]}
    gray = first.post(f"/api/games/{game_id}/join", invite).json()["seat"]["token"]
    moves = ["d2-d3", "f8-f7", "c2-c3"]
    version = 2
    for text, token in zip(moves[:2], (blue, gray), strict=True):
        answer = first.post(
            f"/api/games/{game_id}/moves", {"move": text, "version": version}, token
        )
        assert answer.status_code == 200, answer.text
        version = answer.json()["version"]
    with Socket(f"ws://127.0.0.1:{port}/ws/games/{game_id}", blue) as socket:
        socket.send({"type": "move", "move": moves[2], "version": version})
        version = socket.receive("ack")["version"]

    # A game against the AI, killed while the AI thinks about its reply.
    ai_game = first.post(
        "/api/games", {"opponent": {"type": "ai", "level": 8}, "color": "blue", "rules": "cooper"}
    ).json()
    ai_id, ai_token = ai_game["game"]["id"], ai_game["seat"]["token"]
    reply = first.post(f"/api/games/{ai_id}/moves", {"move": "d2-d3", "version": 1}, ai_token)
    assert reply.status_code == 200, reply.text

    before = first.get(f"/api/games/{game_id}")
    assert before["moves"] == moves and before["version"] == version
    assert before["clock"]["running"] == "gray"
    assert len(first.get(f"/api/games/{ai_id}")["moves"]) == 1  # the AI is still thinking
    time.sleep(0.3)  # the AI's search under way when the server is killed
    first.kill()

    second = ServeProcess(port, database_url)
    processes.append(second)
    second.wait_ready()
    after = second.get(f"/api/games/{game_id}")
    assert after["moves"] == moves and after["version"] == version
    assert after["position"] == before["position"] and after["status"] == "active"
    clock = after["clock"]
    assert clock["running"] == "gray" and clock["blue_ms"] == before["clock"]["blue_ms"]
    assert 0 < before["clock"]["gray_ms"] - 5000 < clock["gray_ms"] <= 600_000
    deadline = time.monotonic() + 5
    later = second.get(f"/api/games/{game_id}")["clock"]["gray_ms"]
    while later >= clock["gray_ms"] and time.monotonic() < deadline:
        time.sleep(0.05)  # poll interval: until Gray's clock shows less, up to 5 s
        later = second.get(f"/api/games/{game_id}")["clock"]["gray_ms"]
    assert later < clock["gray_ms"]  # Gray's clock runs again

    # Play goes on: Gray reconnects with the version it had and moves.
    with Socket(f"ws://127.0.0.1:{port}/ws/games/{game_id}", gray) as socket:
        assert socket.welcome["side"] == "gray" and socket.state["version"] == version
        socket.send({"type": "move", "move": "f7-f6", "version": version})
        assert socket.receive("ack")["version"] == version + 1
    assert second.get(f"/api/games/{game_id}")["moves"] == [*moves, "f7-f6"]

    # The AI, whose turn it was when the server died, moves after the restart.
    deadline = time.monotonic() + 30
    state = second.get(f"/api/games/{ai_id}")
    while len(state["moves"]) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)  # poll interval: until the AI moves after the restart, up to 30 s
        state = second.get(f"/api/games/{ai_id}")
    assert state["moves"][0] == "d2-d3" and len(state["moves"]) == 2
    assert state["turn"] == "blue" and state["version"] == 3

    # SIGTERM stops it gracefully (uvicorn then ends the process by that same signal).
    os.kill(second.process.pid, signal.SIGTERM)
    assert second.process.wait(timeout=20) in (0, -signal.SIGTERM)
    # A process the server left behind would hold its output open: a failure, not a hang.
    output, _ = second.process.communicate(timeout=20)
    assert "Application shutdown complete" in output
