"""Playing games between players, and running a match of many games in parallel processes.

A match plays pairs of games from the same book opening (``openings``), player A Blue in the
first game of a pair and Gray in the second. Every game has its own seeds, derived from the
match seed and the game's number, and fresh players made from their spec strings inside the
worker process, so a match limited by nodes plays the same games however it is scheduled.
``stats`` turns the results into the report.
"""

from __future__ import annotations

import datetime
import multiprocessing
import os
import random
import signal
import threading
import time
from collections.abc import Callable, Generator, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any, Final

from bluegray.engine.limits import Limits
from bluegray.engine.openings import DEFAULT_PLIES, Opening, opening_book
from bluegray.engine.player import Player, PlayerKind, player_kinds, register_players
from bluegray.engine.players import player_from_spec
from bluegray.engine.search import warm_up
from bluegray.engine.stats import GameOutcome, MatchStats, Tally, summarize
from bluegray.errors import BlueGrayError
from bluegray.game import Game
from bluegray.moves import Move
from bluegray.outcome import Outcome, Termination
from bluegray.pieces import Side
from bluegray.record import GameRecord
from bluegray.rules import RuleSet

DEFAULT_MAX_PLIES: Final = 1000
"""A safety cap on a game's length: the no-progress rule ends real games long before."""
MAX_PLIES_REASON: Final = "max-plies"
"""The reason of a game stopped at the cap and adjudicated a draw."""
EVENT: Final = "bluegray match"


@dataclass(frozen=True)
class GameResult:
    """One finished game: who played it, every move from the rule set's start (the opening's
    first), and how it ended."""

    blue: str
    gray: str
    rules: RuleSet
    opening: tuple[Move, ...]
    moves: tuple[Move, ...]
    winner: Side | None
    reason: str
    """The termination's value (``center``, ``lead``, ...) or ``max-plies``."""
    impasse: bool = False
    seconds: float = 0.0

    @property
    def plies(self) -> int:
        return len(self.moves)

    @property
    def adjudicated(self) -> bool:
        """Whether the game hit the length cap and was scored a draw."""
        return self.reason == MAX_PLIES_REASON

    @property
    def result(self) -> str:
        """The record's result token: ``1-0``, ``0-1`` or ``1/2-1/2``."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner is Side.BLUE else "0-1"

    def game(self) -> Game:
        """The game replayed; an adjudicated game ends in a draw by agreement."""
        game = Game(self.rules)
        game.push_all(self.moves)
        if self.adjudicated and game.outcome() is None:
            game.declare(Outcome(Termination.AGREEMENT, None))
        return game

    def record(self, **tags: str) -> GameRecord:
        """The game record, with the players as the Blue and Gray tags and the opening."""
        extra: dict[str, str] = {"Blue": self.blue, "Gray": self.gray, **tags}
        if self.opening:
            extra["Opening"] = " ".join(str(move) for move in self.opening)
        if self.adjudicated:
            extra["Adjudication"] = f"draw: no result after {self.plies} plies"
        record = GameRecord.from_game(self.game(), **extra)
        if self.opening:
            record.comments[len(self.opening)] = "end of the book opening"
        return record


def play_game(
    blue: Player,
    gray: Player,
    rules: RuleSet | str | None = None,
    opening: Sequence[Move | str] = (),
    limits: Limits | None = None,
    max_plies: int = DEFAULT_MAX_PLIES,
) -> GameResult:
    """Play one game from the rule set's start after ``opening``, each move within ``limits``
    (the players' own defaults when ``None``); a game still going after ``max_plies`` plies
    (opening included) is adjudicated a draw."""
    started = time.perf_counter()
    game = Game(rules)
    game.push_all(opening)
    book = tuple(game.moves)
    blue.new_game(game.rules)
    gray.new_game(game.rules)
    outcome = game.outcome()
    while outcome is None and game.ply < max_plies:
        player = blue if game.turn is Side.BLUE else gray
        game.push(player.choose(game, limits))
        outcome = game.outcome()
    return GameResult(
        blue=blue.spec,
        gray=gray.spec,
        rules=game.rules,
        opening=book,
        moves=tuple(game.moves),
        winner=None if outcome is None else outcome.winner,
        reason=MAX_PLIES_REASON if outcome is None else outcome.termination.value,
        impasse=outcome is not None and outcome.impasse,
        seconds=time.perf_counter() - started,
    )


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
    concurrency: int = 1
    """Worker processes; 1 plays in this process."""
    seed: int = 0
    opening_plies: tuple[int, int] = DEFAULT_PLIES
    max_plies: int = DEFAULT_MAX_PLIES
    sackson_scoring: bool = False
    sprt: tuple[float, float] | None = None
    """(elo0, elo1): run the SPRT, and stop once it reaches a bound."""
    event: str = EVENT

    def __post_init__(self) -> None:
        if self.games < 1:
            raise InvalidMatchError(f"a match needs at least one game, not {self.games}")
        if self.concurrency < 1:
            raise InvalidMatchError(f"concurrency must be at least 1, not {self.concurrency}")
        if self.max_plies < 1:
            raise InvalidMatchError(f"the length cap must be at least 1 ply, not {self.max_plies}")
        if self.sprt is not None and not self.sprt[0] < self.sprt[1]:
            raise InvalidMatchError(f"SPRT bounds {self.sprt}: elo0 must be below elo1")


@dataclass(frozen=True)
class MatchGame:
    """One game of a match: its number (1-based, the record's Round), whether player A had
    Blue, and the result."""

    number: int
    a_blue: bool
    result: GameResult

    @property
    def outcome(self) -> GameOutcome:
        result = self.result
        return GameOutcome(self.a_blue, result.winner, result.reason, result.impasse, result.plies)


@dataclass(frozen=True)
class MatchSummary:
    """A finished (or stopped) match: its settings, its games in order, and their statistics."""

    settings: MatchSettings
    games: tuple[MatchGame, ...]
    stats: MatchStats
    seconds: float = 0.0
    interrupted: bool = False
    """Stopped by Ctrl-C: the games finished by then."""
    stopped_early: bool = False
    """Stopped because the SPRT reached a bound."""
    date: str = field(default_factory=lambda: datetime.date.today().strftime("%Y.%m.%d"))

    def records(self) -> list[GameRecord]:
        """The game records, in game order."""
        return [
            game.result.record(Event=self.settings.event, Date=self.date, Round=str(game.number))
            for game in self.games
        ]

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
            "stopped_early": self.stopped_early,
            "interrupted": self.interrupted,
            "seconds": self.seconds,
            "settings": {
                "time": limits.time,
                "nodes": limits.nodes,
                "depth": limits.depth,
                "concurrency": settings.concurrency,
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


def _schedule(settings: MatchSettings, openings: Sequence[Opening]) -> list[_GameTask]:
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
            _GameTask(
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
) -> MatchSummary:
    """Play the match; Ctrl-C (``KeyboardInterrupt``) stops it and returns what was finished.

    With ``settings.sprt`` the match stops as soon as the SPRT over the games played so far
    (whole pairs, in game order, so the stopping point does not depend on scheduling) reaches
    a bound; games beyond that point are dropped.
    """
    started = time.perf_counter()
    if openings is None:
        pairs = (settings.games + 1) // 2
        openings = opening_book(
            settings.rules, pairs, seed=settings.seed, plies=settings.opening_plies
        )
    tasks = _schedule(settings, openings)
    finished: dict[int, MatchGame] = {}
    checked = 0  # the longest prefix of games the SPRT has looked at
    interrupted = stopped_early = False
    try:
        with closing(_play_all(tasks, settings.concurrency)) as played:
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
    games = tuple(sorted(finished.values(), key=_number))
    return MatchSummary(
        settings=settings,
        games=games,
        stats=_stats(settings, games),
        seconds=time.perf_counter() - started,
        interrupted=interrupted,
        stopped_early=stopped_early,
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


@dataclass(frozen=True)
class _GameTask:
    """What a worker needs to play one game: specs and texts only, nothing live."""

    number: int
    a_blue: bool
    blue: str
    gray: str
    blue_seed: int
    gray_seed: int
    rules: str
    opening: tuple[str, ...]
    limits: Limits | None
    max_plies: int


def _play_task(task: _GameTask) -> MatchGame:
    """Play one scheduled game with players made here, from their specs."""
    blue = player_from_spec(task.blue, seed=task.blue_seed)
    gray = player_from_spec(task.gray, seed=task.gray_seed)
    try:
        rules = RuleSet.parse(task.rules)
        result = play_game(blue, gray, rules, task.opening, task.limits, task.max_plies)
    finally:
        blue.close()
        gray.close()
    return MatchGame(task.number, task.a_blue, result)


def _play_all(tasks: Sequence[_GameTask], concurrency: int) -> Generator[MatchGame, None, None]:
    """The games played, in the order they finish; in this process when ``concurrency`` is 1,
    else in that many worker processes, which are ended when the caller stops early."""
    if concurrency <= 1 or len(tasks) <= 1:
        for task in tasks:
            yield _play_task(task)
        return
    pool = _start_pool(min(concurrency, len(tasks)))
    try:
        results = pool.imap_unordered(_play_task, tasks, chunksize=1)
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


def _start_pool(workers: int) -> Any:
    """A pool of fresh interpreters (``spawn``: safe beside the progress bar's thread) that
    ignore Ctrl-C, which the calling process handles by ending them, and know the kinds of
    player this process knows."""
    context = multiprocessing.get_context("spawn")
    kinds = (player_kinds(),)
    if threading.current_thread() is not threading.main_thread():
        return context.Pool(workers, initializer=start_worker, initargs=kinds)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # inherited by the workers
    try:
        return context.Pool(workers, initializer=start_worker, initargs=kinds)
    finally:
        signal.signal(signal.SIGINT, previous)


def start_worker(kinds: Sequence[PlayerKind]) -> None:
    """Set up a worker process that plays a match's games: it ignores Ctrl-C (the process that
    runs the match ends it), knows the kinds of player the match's process knows (an
    interface's, such as ``engine:``, as well as the engine's own), and has the compiled kernel
    ready before its first game (a match measures strength)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    register_players(kinds)
    warm_up(wait=True)
