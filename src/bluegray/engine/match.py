"""Running a match of many games: in this process, in parallel worker processes (the default), or
on a Ray cluster (``MatchSettings.cluster``, the ``cluster`` extra: ``cluster``).

A match plays pairs of games from the same book opening (``openings``), player A Blue in the
first game of a pair and Gray in the second. Every game has its own seeds, derived from the
match seed and the game's number, and fresh players made from their spec strings where it is
played (``games``), so a match limited by nodes plays the same games however and wherever it is
scheduled. ``stats`` turns the results into the report.
"""

from __future__ import annotations

import datetime
import multiprocessing
import os
import random
import signal
import threading
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any

from bluegray.engine.games import (
    DEFAULT_MAX_PLIES,
    EVENT,
    MAX_PLIES_REASON,
    GameResult,
    GameTask,
    MatchGame,
    play_game,
    play_task,
    prepare_worker,
    searches_here,
)
from bluegray.engine.limits import Limits
from bluegray.engine.openings import DEFAULT_PLIES, Opening, opening_book
from bluegray.engine.player import PlayerKind, player_kinds
from bluegray.engine.processes import die_with_parent
from bluegray.engine.search import warm_up
from bluegray.engine.stats import MatchStats, Tally, summarize
from bluegray.engine.time_manager import TimeControl
from bluegray.errors import BlueGrayError
from bluegray.pieces import Side
from bluegray.record import GameRecord
from bluegray.rules import RuleSet

__all__ = [
    "DEFAULT_MAX_PLIES",
    "EVENT",
    "MAX_PLIES_REASON",
    "GameResult",
    "InvalidMatchError",
    "MatchGame",
    "MatchSettings",
    "MatchSummary",
    "default_concurrency",
    "game_seed",
    "play_game",
    "run_match",
]

# -- the match ------------------------------------------------------------------------------------


class InvalidMatchError(BlueGrayError):
    """Match settings that cannot be played: no games, no workers, a bad SPRT window."""


@dataclass(frozen=True)
class MatchSettings:
    """What a match plays: players A and B by spec, the rules, how many games, and how."""

    player_a: str
    player_b: str
    rules: RuleSet
    games: int
    limits: Limits | None = None
    """Per move, for both players; ``None``: each player's own default."""
    clock: TimeControl | None = None
    """Each side's game clock, in place of ``limits``: a player whose clock runs out loses."""
    concurrency: int = 1
    """Worker processes; 1 plays in this process (not used on a cluster)."""
    seed: int = 0
    opening_plies: tuple[int, int] = DEFAULT_PLIES
    max_plies: int = DEFAULT_MAX_PLIES
    sackson_scoring: bool = False
    sprt: tuple[float, float] | None = None
    """(elo0, elo1): run the SPRT, and stop once it reaches a bound."""
    event: str = EVENT
    cluster: str | None = None
    """The address of a Ray cluster to play the games on (``ray start --head``'s address, or
    ``auto``), spreading them over every CPU of every node; ``None``: this machine's processes."""

    def __post_init__(self) -> None:
        if self.games < 1:
            raise InvalidMatchError(f"a match needs at least one game, not {self.games}")
        if self.concurrency < 1:
            raise InvalidMatchError(f"concurrency must be at least 1, not {self.concurrency}")
        if self.max_plies < 1:
            raise InvalidMatchError(f"the length cap must be at least 1 ply, not {self.max_plies}")
        if self.sprt is not None and not self.sprt[0] < self.sprt[1]:
            raise InvalidMatchError(f"SPRT bounds {self.sprt}: elo0 must be below elo1")
        if self.cluster is not None and not self.cluster.strip():
            raise InvalidMatchError("a cluster's address must not be empty")
        if self.clock is not None and self.limits is not None:
            raise InvalidMatchError("a match has a clock or limits a move, not both")


@dataclass(frozen=True)
class MatchSummary:
    """A finished (or stopped) match: its settings, its games in order, and their statistics."""

    settings: MatchSettings
    games: tuple[MatchGame, ...]
    stats: MatchStats
    seconds: float = 0.0
    """How long this run of the match took (one gone on from a journal: since it went on)."""
    interrupted: bool = False
    """Stopped by Ctrl-C: the games finished by then."""
    stopped_early: bool = False
    """Stopped because the SPRT reached a bound."""
    resumed: int = 0
    """Games of ``games`` played before this run (a journal's)."""
    date: str = field(default_factory=lambda: datetime.date.today().strftime("%Y.%m.%d"))

    @property
    def games_seconds(self) -> float:
        """The games' own durations added up, in every run of the match (at concurrency K the
        match took about a K-th of it)."""
        return sum(game.result.seconds for game in self.games)

    def records(self) -> list[GameRecord]:
        """The game records, in game order (with the match's clock as ``TimeControl``)."""
        clock = self.settings.clock
        tags = {} if clock is None else {"TimeControl": f"{clock.seconds:g}+{clock.increment:g}"}
        return [
            game.result.record(
                Event=self.settings.event, Date=self.date, Round=str(game.number), **tags
            )
            for game in self.games
        ]

    @property
    def flags(self) -> tuple[int, int]:
        """How many games player A and player B lost on time."""
        a = b = 0
        for game in self.games:
            result = game.result
            if result.flagged and result.winner is not None:
                a_lost = (result.winner is Side.GRAY) == game.a_blue
                a, b = (a + 1, b) if a_lost else (a, b + 1)
        return a, b

    def to_json(self) -> dict[str, Any]:
        """The summary as JSON-ready data; an infinite Elo bound is ``None``."""
        settings, stats = self.settings, self.stats
        limits = settings.limits or Limits()
        impasse_win = 0.75 if settings.sackson_scoring else 1.0
        sprt = stats.sprt
        return {
            "players": {"a": settings.player_a, "b": settings.player_b},
            "rules": str(settings.rules),
            "games": stats.games,
            "games_planned": settings.games,
            "a": _tally_json(stats.a),
            "b": _tally_json(stats.b),
            "a_as_blue": _tally_json(stats.a_as_blue),
            "a_as_gray": _tally_json(stats.a_as_gray),
            "blue": _tally_json(stats.blue),
            "points": {"a": stats.points, "b": stats.games - stats.points},
            "score": stats.score,
            "elo": _finite(stats.elo.elo),
            "elo_low": _finite(stats.elo.low),
            "elo_high": _finite(stats.elo.high),
            "impasse_wins": {"a": stats.impasse_wins_a, "b": stats.impasse_wins_b},
            "reasons": stats.reasons,
            "average_plies": stats.average_plies,
            "scoring": {
                "win": 1.0,
                "draw": 0.5,
                "loss": 0.0,
                "impasse_win": impasse_win,
                "impasse_loss": 1.0 - impasse_win,
            },
            "sprt": None
            if sprt is None
            else {
                "elo0": sprt.elo0,
                "elo1": sprt.elo1,
                "alpha": sprt.alpha,
                "beta": sprt.beta,
                "llr": sprt.llr,
                "lower": sprt.lower,
                "upper": sprt.upper,
                "verdict": sprt.verdict,
            },
            "flags": dict(zip(("a", "b"), self.flags, strict=True)),
            "stopped_early": self.stopped_early,
            "interrupted": self.interrupted,
            "seconds": self.seconds,
            "resumed": self.resumed,
            "games_seconds": self.games_seconds,
            "settings": {
                "time": limits.time,
                "nodes": limits.nodes,
                "depth": limits.depth,
                "clock": None if settings.clock is None else str(settings.clock),
                "concurrency": settings.concurrency,
                "cluster": settings.cluster,
                "seed": settings.seed,
                "opening_plies": list(settings.opening_plies),
                "max_plies": settings.max_plies,
                "sackson_scoring": settings.sackson_scoring,
                "sprt": None if settings.sprt is None else list(settings.sprt),
            },
        }


def _tally_json(tally: Tally) -> dict[str, int]:
    return {"wins": tally.wins, "draws": tally.draws, "losses": tally.losses}


def _finite(value: float) -> float | None:
    return value if abs(value) != float("inf") else None


Progress = Callable[[MatchGame, MatchStats], None]
"""Called in the calling process after each finished game, with the statistics so far."""


def default_concurrency(games: int) -> int:
    """One worker per CPU this process may use, and no more than there are games."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, games))


def _schedule(settings: MatchSettings, openings: Sequence[Opening]) -> list[GameTask]:
    """The games of a match in order: pairs from the same opening, A Blue first."""
    tasks = []
    rules = str(settings.rules)
    for index in range(settings.games):
        number = index + 1
        a_blue = index % 2 == 0
        a, b = settings.player_a, settings.player_b
        seed_a = game_seed(settings.seed, number, "a")
        seed_b = game_seed(settings.seed, number, "b")
        tasks.append(
            GameTask(
                number=number,
                a_blue=a_blue,
                blue=a if a_blue else b,
                gray=b if a_blue else a,
                blue_seed=seed_a if a_blue else seed_b,
                gray_seed=seed_b if a_blue else seed_a,
                rules=rules,
                opening=_opening_moves(openings, index // 2),
                limits=settings.limits,
                max_plies=settings.max_plies,
                clock=settings.clock,
            )
        )
    return tasks


def _opening_moves(openings: Sequence[Opening], pair: int) -> tuple[str, ...]:
    """The pair's opening; a short book repeats, and no book at all means the start."""
    if not openings:
        return ()
    return tuple(str(move) for move in openings[pair % len(openings)].moves)


def game_seed(match_seed: int, number: int, player: str) -> int:
    """The seed of one player in one game: the same for the same match seed, different for
    every game and player."""
    return random.Random(f"bluegray match {match_seed} {number} {player}").getrandbits(63)


def run_match(
    settings: MatchSettings,
    progress: Progress | None = None,
    *,
    openings: Sequence[Opening] | None = None,
    done: Mapping[int, MatchGame] | None = None,
) -> MatchSummary:
    """Play the match; Ctrl-C (``KeyboardInterrupt``) stops it and returns what was finished.

    With ``settings.sprt`` the match stops as soon as the SPRT over the games played so far
    (whole pairs, in game order, so the stopping point does not depend on scheduling) reaches
    a bound; games beyond that point are dropped.

    ``done``: games of this match played before, by number (a journal's: ``journal``), which
    are not played again; ``progress`` is called for the new games only.
    """
    started = time.perf_counter()
    finished: dict[int, MatchGame] = dict(done or {})
    checked = 0  # the longest prefix of games the SPRT has looked at
    interrupted = stopped_early = False
    if settings.sprt is not None and finished:
        checked, stop_at = _sprt_stop(settings, finished, checked)
        if stop_at is not None:  # decided by the games played before
            finished = {number: finished[number] for number in range(1, stop_at + 1)}
            stopped_early = stop_at < settings.games
            return _summary(settings, finished, started, stopped_early=stopped_early, done=done)
    if len(finished) == settings.games:
        return _summary(settings, finished, started, done=done)
    if openings is None:
        warm_up(wait=True)  # the book walks and searches on the compiled board (the same book)
        pairs = (settings.games + 1) // 2
        openings = opening_book(
            settings.rules, pairs, seed=settings.seed, plies=settings.opening_plies
        )
    tasks = [task for task in _schedule(settings, openings) if task.number not in finished]
    try:
        with closing(_play_all(tasks, settings)) as played:
            for game in played:
                finished[game.number] = game
                if progress is not None:
                    progress(game, _stats(settings, sorted(finished.values(), key=_number)))
                if settings.sprt is None:
                    continue
                checked, stop_at = _sprt_stop(settings, finished, checked)
                if stop_at is not None:
                    finished = {number: finished[number] for number in range(1, stop_at + 1)}
                    stopped_early = stop_at < settings.games
                    break
    except KeyboardInterrupt:
        interrupted = True
    return _summary(
        settings,
        finished,
        started,
        interrupted=interrupted,
        stopped_early=stopped_early,
        done=done,
    )


def _summary(
    settings: MatchSettings,
    finished: Mapping[int, MatchGame],
    started: float,
    *,
    interrupted: bool = False,
    stopped_early: bool = False,
    done: Mapping[int, MatchGame] | None = None,
) -> MatchSummary:
    games = tuple(sorted(finished.values(), key=_number))
    return MatchSummary(
        settings=settings,
        games=games,
        stats=_stats(settings, games),
        seconds=time.perf_counter() - started,
        interrupted=interrupted,
        stopped_early=stopped_early,
        resumed=sum(1 for game in games if done is not None and game.number in done),
    )


def _number(game: MatchGame) -> int:
    return game.number


def _stats(settings: MatchSettings, games: Sequence[MatchGame]) -> MatchStats:
    return summarize(
        [game.outcome for game in games],
        sackson_scoring=settings.sackson_scoring,
        sprt_elo=settings.sprt,
    )


def _sprt_stop(
    settings: MatchSettings, finished: dict[int, MatchGame], checked: int
) -> tuple[int, int | None]:
    """Check the SPRT at each new whole pair of the games finished in order; the new checked
    length, and the number of games at which a bound was reached, if one was."""
    length = checked
    while length + 1 in finished:
        length += 1
        if length % 2 == 0 or length == settings.games:
            games = [finished[number] for number in range(1, length + 1)]
            sprt = _stats(settings, games).sprt
            if sprt is not None and sprt.decided:
                return length, length
    return length, None


# -- the workers ----------------------------------------------------------------------------------


def _play_all(
    tasks: Sequence[GameTask], settings: MatchSettings
) -> Generator[MatchGame, None, None]:
    """The games played, in the order they finish: on the cluster ``settings.cluster`` names,
    else in this process when ``settings.concurrency`` is 1, else in that many worker processes,
    which are ended when the caller stops early."""
    if settings.cluster is not None:
        # Ray (the cluster extra) loads for a match on a cluster only: it takes a second or so to
        # load, and may not be installed.
        try:
            from bluegray.engine import cluster  # noqa: PLC0415 - Ray, for a match on a cluster
        except ImportError as error:
            raise InvalidMatchError(
                f'a match on a cluster needs Ray: pip install "bluegray[cluster]" ({error})'
            ) from None
        yield from cluster.play_on_cluster(tasks, settings.cluster)
        return
    concurrency = settings.concurrency
    if concurrency <= 1 or len(tasks) <= 1:
        for task in tasks:
            yield play_task(task)
        return
    pool = _start_pool(min(concurrency, len(tasks)), searching=searches_here(tasks))
    try:
        results = pool.imap_unordered(play_task, tasks, chunksize=1)
        for _ in tasks:
            while True:
                try:
                    game: MatchGame = results.next(timeout=0.25)
                    break
                except multiprocessing.TimeoutError:
                    continue  # wake up now and then, so that Ctrl-C is seen at once
            yield game
    finally:
        pool.terminate()
        pool.join()


def _start_pool(workers: int, *, searching: bool) -> Any:
    """A pool of fresh interpreters (``spawn``: safe beside the progress bar's thread) that
    ignore Ctrl-C, which the calling process handles by ending them, die with this process
    however it ends, know the kinds of player this process knows, and load the compiled kernel
    when their players search (``searching``)."""
    context = multiprocessing.get_context("spawn")
    initargs = (player_kinds(), os.getpid(), searching)
    if threading.current_thread() is not threading.main_thread():
        return context.Pool(workers, initializer=start_worker, initargs=initargs)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # inherited by the workers
    try:
        return context.Pool(workers, initializer=start_worker, initargs=initargs)
    finally:
        signal.signal(signal.SIGINT, previous)


def start_worker(kinds: Sequence[PlayerKind], parent_pid: int, searching: bool) -> None:
    """Set up a worker process of the local pool: it ignores Ctrl-C (the process that runs the
    match ends it) and dies with that process, which a SIGTERM or SIGKILL ends without ending
    its pool (an ``engine:`` player's process then reads the end of its input, and quits);
    then as every process that plays a match's games (``prepare_worker``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if not die_with_parent(parent_pid):  # the match has ended already
        os._exit(0)
    prepare_worker(kinds, searching=searching)
