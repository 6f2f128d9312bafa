"""The AI's work as jobs: an AI move or an analysis, as plain values that cross process and
machine boundaries, with the priority and the bounds every queue of them keeps.

Jobs come in three sizes: quick (the fixed-depth levels 1-5), short (levels 6-7, hints and
other analyses of a second or less) and long (level 8, longer analyses); a game review's
positions come last of all (``REVIEW``). A queue always starts the smallest first and keeps part
of its capacity for quick and short jobs, so that a quick move never waits behind searches that
take seconds, nor behind a review. Queued work is bounded per browser, per
address and in all: past a bound the AI says it is busy instead of making everyone wait.

Nothing here imports the engine: a web process that only queues jobs never loads the search.
The engine is loaded by ``run_job``, in the process that searches.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import importlib
import json
from dataclasses import dataclass
from typing import Any, Final, Protocol

from bluegray.engine.levels import seconds_a_move
from bluegray.errors import BlueGrayError
from bluegray.outcome import Outcome, Termination
from bluegray.pieces import Side

ENGINE_WORK: Final = "bluegray.web.ai.engine_work"
"""The module that runs jobs with the engine (loaded only where jobs run)."""
SHORT_SECONDS: Final = 1.0
"""Jobs of at most this long (a hint, a move of levels 6 and 7) are short jobs; longer ones (a
move of level 8) are long. A fixed-depth level's move (levels 1 to 5, a few milliseconds to a
tenth of a second) is quick. The levels' times are the engine's (``engine.levels``)."""


class Priority(enum.IntEnum):
    """A job's size, which is also its turn: smaller jobs go first."""

    QUICK = 0
    SHORT = 1
    LONG = 2
    REVIEW = 3
    """A position of a game review: started only when no other job waits, and (like a long
    job) never in the slots kept for quick and short ones."""

    @property
    def long(self) -> bool:
        """Whether jobs of this size stay out of the slots kept for quick and short jobs."""
        return self in (Priority.LONG, Priority.REVIEW)


@dataclass(frozen=True)
class MoveJob:
    """The AI's move in a game at a version (the move is played only if the game is still
    there when it comes)."""

    game_id: str
    version: int
    rules: str
    start: str
    moves: tuple[str, ...]
    level: int
    seed: int
    time_left_ms: int | None = None
    increment_ms: int = 0
    """The AI's increment, added to its clock after each move (the time manager spends it)."""

    @property
    def key(self) -> str:
        return f"{self.game_id}:{self.version}"

    @property
    def priority(self) -> Priority:
        seconds = seconds_a_move(self.level)
        if seconds is None:
            return Priority.QUICK
        return Priority.SHORT if seconds <= SHORT_SECONDS else Priority.LONG


@dataclass(frozen=True)
class AnalysisJob:
    """The engine's view of a position: searched for ``seconds``, or to ``nodes`` (then
    ``seconds`` only caps it), as one position of a game review if ``review``."""

    rules: str
    start: str
    moves: tuple[str, ...]
    seconds: float
    nodes: int | None = None
    review: bool = False

    @property
    def priority(self) -> Priority:
        if self.review:
            return Priority.REVIEW
        return Priority.SHORT if self.seconds <= SHORT_SECONDS else Priority.LONG


Job = MoveJob | AnalysisJob


@dataclass(frozen=True)
class AnalysisOutput:
    """An analysis as plain values."""

    position: str
    turn: Side
    best_move: str | None
    score: int
    blue_expected: float
    pv: tuple[str, ...]
    depth: int
    nodes: int
    seconds: float
    plies_to_end: int | None
    winning_side: Side | None
    outcome: Outcome | None
    description: str
    engine: int = 0
    """The version of the engine that searched (``bluegray.engine.ENGINE_VERSION``; 0 from a
    worker older than the field)."""


@dataclass(frozen=True)
class Owner:
    """Whose work a job is: the browser (hashed id) and the address it came from."""

    browser: str | None = None
    address: str | None = None

    def load_keys(self) -> list[str]:
        """The names its queued work is counted under."""
        keys = []
        if self.browser:
            keys.append("b:" + self.browser)
        if self.address:
            keys.append("a:" + self.address)
        return keys


@dataclass(frozen=True)
class Bounds:
    total: int
    per_owner: int


class AiBusyError(BlueGrayError):
    """Too much AI work is queued (in all, or for this browser or address): try again soon."""


class AiUnavailableError(BlueGrayError):
    """No AI worker is running to take the job."""


class MoveSink(Protocol):
    async def __call__(self, job: MoveJob, move: str, computed_by: str) -> None:
        """Play the AI's move in its game (if the game is still at the job's version)."""


class JobQueue(Protocol):
    """Where a web process sends the AI's work."""

    name: str
    """Who computes the jobs: ``embedded`` or ``workers``."""

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    async def submit_move(self, job: MoveJob, owner: Owner) -> asyncio.Future[Any] | None:
        """Queue an AI move (``AiBusyError`` past a bound); it is played when it is found. A
        move already queued or running for the same game and version is not queued again.
        What to wait for until it is played, if it is played in this process."""

    async def analyse(self, job: AnalysisJob, owner: Owner) -> AnalysisOutput:
        """An analysis, once found (``AiBusyError`` past a bound, ``AiUnavailableError`` if
        no worker takes it in time)."""

    async def workers(self) -> int:
        """How many workers (embedded: processes of the pool) can take jobs now."""

    async def depth(self) -> int:
        """Jobs waiting or running."""


# -- as text, for queues between machines -------------------------------------------------------


def encode_job(job: Job) -> str:
    kind = "move" if isinstance(job, MoveJob) else "analysis"
    return json.dumps({"kind": kind, **dataclasses.asdict(job)})


def decode_job(text: str) -> Job:
    """A job from ``encode_job``'s text (``ValueError`` for anything else)."""
    try:
        data: dict[str, Any] = json.loads(text)
        kind = data.pop("kind")
        data["moves"] = tuple(data["moves"])
        if kind == "move":
            return MoveJob(**data)
        if kind == "analysis":
            return AnalysisJob(**data)
    except (KeyError, TypeError, AttributeError, json.JSONDecodeError) as error:
        raise ValueError(f"not a job: {error}") from None
    raise ValueError(f"not a job: kind {kind!r}")


def encode_output(output: AnalysisOutput) -> str:
    data = dataclasses.asdict(output)
    data["turn"] = output.turn.value
    data["winning_side"] = None if output.winning_side is None else output.winning_side.value
    outcome = output.outcome
    data["outcome"] = (
        None
        if outcome is None
        else {
            "termination": outcome.termination.value,
            "winner": None if outcome.winner is None else outcome.winner.value,
            "impasse": outcome.impasse,
        }
    )
    return json.dumps(data)


def decode_output(text: str) -> AnalysisOutput:
    data: dict[str, Any] = json.loads(text)
    data["turn"] = Side(data["turn"])
    data["pv"] = tuple(data["pv"])
    if data["winning_side"] is not None:
        data["winning_side"] = Side(data["winning_side"])
    outcome = data["outcome"]
    if outcome is not None:
        data["outcome"] = Outcome(
            Termination(outcome["termination"]),
            None if outcome["winner"] is None else Side(outcome["winner"]),
            outcome["impasse"],
        )
    return AnalysisOutput(**data)


LONG_WAIT_SECONDS: Final = 10.0
"""A long job that has waited this long goes before smaller ones (in the slots that take long
jobs), so that level 8 is slow under load, never stuck."""


def thinking_seconds(job: Job) -> float:
    """The longest the engine thinks on ``job``: its level's time a move (a clock only
    shortens it; 0 for a fixed-depth level, whose moves take milliseconds), or the analysis's
    seconds."""
    if isinstance(job, MoveJob):
        return seconds_a_move(job.level) or 0.0
    return job.seconds


def reserved_for_short(slots: int) -> int:
    """Slots kept for quick and short jobs: a quarter, at least one when there are two or
    more."""
    return 0 if slots < 2 else max(1, slots // 4)


def run_job(job: Job) -> str | AnalysisOutput:
    """Run a job with the engine, here (in an engine process): the move's text, or the
    analysis. The engine module is loaded on the first job, by name, so that only processes
    that search load it."""
    work = importlib.import_module(ENGINE_WORK)
    result: str | AnalysisOutput = work.run(job)
    return result


def prepare_engine_process(parent_pid: int) -> None:
    """Set up a new engine process (see ``engine_work.prepare_process``): loaded by name for
    the same reason as ``run_job``."""
    importlib.import_module(ENGINE_WORK).prepare_process(parent_pid)
