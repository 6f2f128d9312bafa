"""The engine at work on jobs: the AI's move and analyses, computed in an engine process (of the
embedded pool, or of a ``bluegray worker``). Only processes that search import this module."""

from __future__ import annotations

import contextlib
import os
from typing import Final

from bluegray.engine import ENGINE_VERSION
from bluegray.engine.analysis import analyse
from bluegray.engine.levels import clock_limits
from bluegray.engine.limits import Limits
from bluegray.engine.players import SearchPlayer, player_from_spec
from bluegray.engine.processes import die_with_parent
from bluegray.engine.search import warm_up
from bluegray.engine.time_manager import Clock, allocate
from bluegray.game import Game
from bluegray.web.ai.jobs import AnalysisJob, AnalysisOutput, Job, MoveJob

NICENESS: Final = 19
"""Engine processes yield the CPU to the web process that serves the players' moves."""


def _game(rules: str, start: str, moves: tuple[str, ...]) -> Game:
    game = Game(rules, start)
    game.push_all(moves)
    return game


def think_limits(
    level: int, time_left_ms: int | None, increment_ms: int = 0, *, game: Game | None = None
) -> Limits | None:
    """The limits of an AI move on its clock (``None``: no clock): the time manager's soft and
    hard times for a move of ``game`` (its ply and rule set) with ``time_left_ms`` left and
    ``increment_ms`` to come, each capped at the level's own time a move."""
    if time_left_ms is None:
        return None
    clock = Clock(time_left_ms / 1000, max(increment_ms, 0) / 1000)
    ply, rules = (0, None) if game is None else (game.ply, game.rules)
    return clock_limits(level, allocate(clock, ply=ply, rules=rules))


def choose_move(job: MoveJob) -> str:
    """The AI's move (run in a worker)."""
    game = _game(job.rules, job.start, job.moves)
    player = player_from_spec(f"level:{job.level}", seed=job.seed)
    if isinstance(player, SearchPlayer):
        player.new_game(game.rules)
    try:
        limits = think_limits(job.level, job.time_left_ms, job.increment_ms, game=game)
        return str(player.choose(game, limits))
    finally:
        player.close()


def run_analysis(job: AnalysisJob) -> AnalysisOutput:
    """The engine's view of a position (run in a worker): searched for the job's time, or to
    its node count (a review's position: the same answer on any machine)."""
    game = _game(job.rules, job.start, job.moves)
    result = analyse(game, Limits(nodes=job.nodes, time=job.seconds))
    return AnalysisOutput(
        position=str(game.position),
        turn=result.turn,
        best_move=None if result.best_move is None else str(result.best_move),
        score=result.score,
        blue_expected=result.blue_expected,
        pv=tuple(str(move) for move in result.pv),
        depth=result.depth,
        nodes=result.nodes,
        seconds=result.seconds,
        plies_to_end=result.plies_to_end,
        winning_side=result.winning_side,
        outcome=result.outcome,
        description=result.describe(),
        engine=ENGINE_VERSION,
    )


def run(job: Job) -> str | AnalysisOutput:
    """The job's answer: the AI's move as text, or the analysis."""
    if isinstance(job, MoveJob):
        return choose_move(job)
    return run_analysis(job)


def prepare_process(parent_pid: int) -> None:
    """Set up a process that will run jobs: it dies with its parent (Linux), so that no engine
    process outlives a server or worker killed with SIGKILL; it yields the CPU to web
    processes; and the compiled search kernel starts getting ready in the background (loaded,
    or compiled after an install by another process), while the plain kernel plays the first
    jobs: nobody waits for numba."""
    if not die_with_parent(parent_pid):  # it died before we could ask to follow it
        os._exit(0)
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    with contextlib.suppress(OSError, AttributeError):  # Linux: run only when the CPU is idle
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    warm_up()
