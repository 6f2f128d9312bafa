"""A game against the AI, played to its end through the API; the AI thinks in a worker process."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool

import httpx
import pytest

from bluegray import Game, Move, read_record
from bluegray.engine.levels import LEVELS, TOP_LEVEL
from bluegray.engine.limits import Limits
from bluegray.engine.time_manager import Clock, allocate
from bluegray.web import duties
from bluegray.web.ai import local_queue
from bluegray.web.ai.engine_work import choose_move, think_limits
from bluegray.web.ai.jobs import AnalysisOutput, Job, MoveJob, decode_job, encode_job, run_job
from tests.web.conftest import Json, LiveServer, Socket

RULES = "classic-light impasse-plies=30"


def wait_for_human(socket: Socket, human: str, after: int) -> Json:
    """The state once the game is past ``after`` and it is the human's turn (or it is over)."""
    while True:
        state = socket.state
        if state["version"] > after and (state["outcome"] or state["turn"] == human):
            return state
        socket.next(timeout=30)


def test_an_ai_game_is_played_to_its_end(make_server: Callable[..., LiveServer]) -> None:
    server = make_server(ai_processes=True, ai_workers=1)
    created = httpx.post(
        f"{server.url}/api/games",
        json={"rules": RULES, "opponent": {"type": "ai", "level": 1}, "color": "gray"},
    ).json()
    game_id, token = created["game"]["id"], created["seat"]["token"]
    with Socket(server.ws_url(game_id), token) as gray:
        assert gray.welcome["side"] == "gray"
        state = wait_for_human(gray, "gray", 0)  # the AI plays Blue and moves first
        assert len(state["moves"]) == 1 and state["last_move"]["side"] == "blue"

        # A takeback against the AI is granted at once and undoes its reply too.
        gray.send({"type": "move", "move": state["legal_moves"][0], "version": state["version"]})
        state = wait_for_human(gray, "gray", state["version"])
        assert len(state["moves"]) == 3
        gray.send({"type": "action", "action": "request_takeback", "version": state["version"]})
        state = gray.receive(
            "state",
            event={
                "kind": "takeback",
                "side": "gray",
                "move": None,
                "game_id": None,
                "worker": None,
            },
        )["game"]
        assert len(state["moves"]) == 1 and state["turn"] == "gray"

        for _ in range(400):
            if state["outcome"] is not None:
                break
            gray.send(
                {"type": "move", "move": state["legal_moves"][-1], "version": state["version"]}
            )
            state = wait_for_human(gray, "gray", state["version"])
        outcome = state["outcome"]
        assert outcome is not None, "the game did not end"
        assert state["status"] == "finished" and state["legal_moves"] == []
        assert state["seats"]["blue"]["player"] == "ai"

    # The moves were all legal, and the rules end the game exactly there.
    replay = Game(RULES)
    replay.push_all(state["moves"])
    assert replay.outcome() is not None
    assert replay.outcome().termination.value == outcome["reason"]  # type: ignore[union-attr]
    record = read_record(httpx.get(f"{server.url}/api/games/{game_id}/record").text)
    assert record.tags["Result"] == outcome["result"]
    assert record.tags["Blue"] == "AI level 1"


def test_the_ai_tries_again_when_its_worker_fails(
    make_server: Callable[..., LiveServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    server = make_server()
    calls: list[Job] = []

    def failing_once(job: Job) -> str | AnalysisOutput:
        calls.append(job)
        if len(calls) <= 2:  # the queue tries a job again in a new pool once, then gives up
            raise BrokenProcessPool("a worker died")
        return run_job(job)

    monkeypatch.setattr(duties, "AI_RETRY_MS", 50)
    monkeypatch.setattr(local_queue, "run_job", failing_once)
    created = httpx.post(
        f"{server.url}/api/games", json={"opponent": {"type": "ai", "level": 2}, "color": "gray"}
    ).json()
    with Socket(server.ws_url(created["game"]["id"]), created["seat"]["token"]) as gray:
        state = wait_for_human(gray, "gray", 0)
    assert len(calls) == 3 and calls[0] == calls[1] == calls[2]
    assert len(state["moves"]) == 1 and state["last_move"]["side"] == "blue"


def test_only_the_timed_levels_think_less_when_their_clock_runs_low() -> None:
    for level, config in LEVELS.items():
        assert think_limits(level, None) is None  # no clock: the level's own limits
        if config.limits.time is None:  # a depth or a number of positions: the same with a clock
            assert think_limits(level, 1_000) is None
    top = LEVELS[TOP_LEVEL].limits.time
    plenty = think_limits(TOP_LEVEL, 3_600_000)  # an hour: the level's own time, no more
    assert plenty == Limits(time=top, aim=top)
    game = Game("sackson")
    low = think_limits(TOP_LEVEL, 20_000, game=game)  # twenty seconds: the time manager's share
    expected = allocate(Clock(20.0), ply=0, rules=game.rules)
    assert low == Limits(time=expected.hard, aim=expected.soft)
    assert low.time is not None and top is not None and low.time < top


def test_the_ai_spends_its_increment() -> None:
    game = Game("cooper")
    without = think_limits(TOP_LEVEL, 20_000, game=game)
    with_increment = think_limits(TOP_LEVEL, 20_000, 1_000, game=game)
    assert without is not None and with_increment is not None
    assert with_increment.aim is not None and without.aim is not None
    assert with_increment.aim == pytest.approx(without.aim + 1.0)
    top = LEVELS[TOP_LEVEL].limits.time
    rich = think_limits(TOP_LEVEL, 600_000, 30_000, game=game)  # still capped at its own time
    assert rich == Limits(time=top, aim=top)


def test_a_clocked_ai_job_carries_its_increment_to_the_engine() -> None:
    job = MoveJob("g", 1, "sackson", str(Game("sackson").start), (), 6, 0, 5_000, 2_000)
    assert decode_job(encode_job(job)) == job  # the increment crosses machines with the job
    old = json.loads(encode_job(job))
    del old["increment_ms"]  # a job queued by a process that knew no increment
    older = decode_job(json.dumps(old))
    assert isinstance(older, MoveJob) and older.increment_ms == 0
    assert Move.parse(choose_move(job)) in Game("sackson").legal_moves
