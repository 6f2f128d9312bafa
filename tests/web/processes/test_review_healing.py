"""A game review heals itself, all real processes (``bluegray serve`` twice and ``bluegray
worker`` on PostgreSQL and a Redis of the test's own): the worker searching its position killed
with SIGKILL, then the web process driving it; another worker and the other web process go on
from the last stored position, nobody restarting anything by hand, and the review comes out the
same as the engine's own analysis of each position."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import httpx
import pytest
import sqlalchemy

from bluegray.engine.analysis import analyse
from bluegray.engine.limits import Limits
from bluegray.game import Game
from tests.web.cluster import Node, nodes, service_env
from tests.web.conftest import Json
from tests.web.review.review_games import PLIES, SHUFFLES, shuffles_record

pytestmark = pytest.mark.slow

NODES = 20_000
"""Enough for each position to take a good part of a second (the plain kernel), so that the
processes die mid-review."""


def _review(web: Node, game_id: str) -> Json | None:
    try:
        answer = httpx.get(f"{web.url}/api/games/{game_id}/review", timeout=10)
    except httpx.TransportError:
        return None
    return answer.json() if answer.status_code == 200 else None


def _wait_for(web: Node, game_id: str, analysed: int, seconds: float) -> Json:
    """The review once ``analysed`` positions are stored (or it is done), its progress never
    going back."""
    deadline = time.monotonic() + seconds
    seen = 0
    while True:
        review = _review(web, game_id)
        if review is not None:
            assert review["analysed"] >= seen, "the progress went back"
            seen = review["analysed"]
            if seen >= analysed or review["status"] != "pending":
                return review
        if time.monotonic() > deadline:
            raise AssertionError(f"{seen} positions analysed after {seconds} s, not {analysed}")
        time.sleep(0.1)  # poll interval: until the positions are stored, up to ``seconds``


def _runner(database_url: str, game_id: str) -> str:
    """The process driving the review, as its row says."""
    engine = sqlalchemy.create_engine(database_url)
    try:
        with engine.connect() as connection:
            runner = connection.execute(
                sqlalchemy.text("SELECT runner FROM reviews WHERE game_id = :game"),
                {"game": game_id},
            ).scalar_one()
    finally:
        engine.dispose()
    return str(runner)


def test_a_review_goes_on_when_its_worker_and_its_web_process_die(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    env = service_env(
        postgres_url,
        redis_url,
        review_nodes=NODES,
        review_poll_seconds=0.3,
        review_lease_seconds=3,
    )
    with nodes() as started:
        try:
            webs = [Node.serve(name, env, tmp_path) for name in ("web1", "web2")]
            started.extend(webs)
            for web in webs:
                web.wait_ready()
            worker = Node.worker("W1", env, tmp_path, processes=1)
            started.append(worker)
            imported = httpx.post(
                f"{webs[0].url}/api/records", json={"text": shuffles_record()}, timeout=10
            )
            assert imported.status_code == 201, imported.text
            game_id = imported.json()["id"]
            asked = httpx.post(f"{webs[0].url}/api/games/{game_id}/review", timeout=10)
            assert asked.status_code == 202, asked.text
            _wait_for(webs[0], game_id, 1, 60)
            driver = next(web for web in webs if web.name == _runner(postgres_url, game_id))
            (second,) = [web for web in webs if web is not driver]

            worker.kill(signal.SIGKILL)  # mid-search, most likely: each position takes a while
            replacement = Node.worker("W2", env, tmp_path, processes=1)
            started.append(replacement)
            before = _wait_for(second, game_id, 3, 60)
            assert before["status"] == "pending"
            driver.kill(signal.SIGKILL)  # the web process driving it

            review = _wait_for(second, game_id, PLIES + 1, 120)
            assert review["status"] == "done" and review["analysed"] == PLIES + 1
            second.wait_for_output(f"review of {game_id}: done")
            # The same as the engine's own analysis of each position, at the same nodes.
            game = Game("cooper")
            moves = [word for word in SHUFFLES.split() if not word.endswith(".")]
            expected = []
            for ply in range(PLIES + 1):
                expected.append(analyse(game, Limits(nodes=NODES, time=30)).blue_expected)
                if ply < PLIES:
                    game.push(moves[ply])
            stored = [point["blue_expected"] for point in review["evaluation"]]
            assert stored == [round(value, 4) for value in expected]
        except BaseException:
            for node in started:
                print(f"---- {node.name}\n{node.output()[-4000:]}")
            raise
