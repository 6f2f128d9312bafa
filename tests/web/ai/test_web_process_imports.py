"""The web process never loads the search: the AI's moves are computed in engine processes (the
embedded pool's, or a worker's), and only ``bluegray.web.ai.engine_work`` imports the search
(import-linter's contract says so of the source; this test says so of a running app)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# Run in a fresh interpreter, so that what the test process itself imported does not count.
PROGRAM = textwrap.dedent(
    """
    import json, sys, time
    from fastapi.testclient import TestClient
    from bluegray.web.app import create_app
    from bluegray.web.platform.settings import Settings

    settings = Settings(
        database_url=f"sqlite:///{sys.argv[1]}",
        ai_processes=True,
        ai_workers=1,
        allowed_hosts=["testserver"],
        explorer_books_at_start=False,
    )
    with TestClient(create_app(settings)) as client:
        created = client.post(
            "/api/games",
            json={"rules": "classic-light", "opponent": {"type": "ai", "level": 1},
                  "color": "gray"},
        ).json()
        game_id = created["game"]["id"]
        deadline = time.monotonic() + 60
        moves = []
        while not moves and time.monotonic() < deadline:
            moves = client.get(f"/api/games/{game_id}").json()["moves"]
            time.sleep(0.05)  # polling the game until the AI (Blue) has moved, with a deadline
        print(json.dumps({
            "ai_moves": len(moves),
            "loaded": sorted(
                name for name in sys.modules
                if name in ("numba", "bluegray.engine.search", "bluegray.web.ai.engine_work")
                or name.startswith("numba.")
            )[:5],
        }))
    """
)


@pytest.mark.slow
def test_the_web_process_plays_an_ai_move_without_loading_the_search(tmp_path: Path) -> None:
    """An embedded AI move is played, and the web process has loaded neither the search, nor the
    engine's work, nor numba."""
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(tmp_path / "games.sqlite3")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["ai_moves"] == 1
    assert report["loaded"] == []
