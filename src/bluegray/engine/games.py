"""One game between two players, and a game of a match as a task that any process can play: the
task carries specs and texts only, and the players are made afresh from their specs where it is
played, so a match limited by nodes plays the same games in this process, in worker processes or
on a cluster (``match``, ``cluster``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from bluegray.engine.limits import Limits
from bluegray.engine.player import Player, PlayerKind, find_player, register_players
from bluegray.engine.players import player_from_spec
from bluegray.engine.search import warm_up
from bluegray.engine.stats import GameOutcome
from bluegray.engine.time_manager import Clock, TimeControl
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
        if self.flagged and game.outcome() is None and self.winner is not None:
            game.time_out(self.winner.other)
        return game

    @property
    def flagged(self) -> bool:
        """Whether a player lost the game on time (its clock ran out)."""
        return self.reason == Termination.TIME.value

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
    clock: TimeControl | None = None,
) -> GameResult:
    """Play one game from the rule set's start after ``opening``, each move within ``limits``
    (the players' own defaults when ``None``), or with ``clock``, each side's game clock: a
    side whose move takes longer than its clock has left loses on time, before its move is
    played; a game still going after ``max_plies`` plies (opening included) is adjudicated a
    draw."""
    started = time.perf_counter()
    game = Game(rules)
    game.push_all(opening)
    book = tuple(game.moves)
    blue.new_game(game.rules)
    gray.new_game(game.rules)
    left = dict.fromkeys(Side, 0.0 if clock is None else clock.seconds)
    outcome = game.outcome()
    while outcome is None and game.ply < max_plies:
        side = game.turn
        player = blue if side is Side.BLUE else gray
        if clock is None:
            move = player.choose(game, limits)
        else:
            own = Clock(left[side], clock.increment)
            thinking = time.perf_counter()
            move = player.choose_on_clock(game, own, Clock(left[side.other], clock.increment))
            left[side] -= time.perf_counter() - thinking
            if left[side] < 0:
                outcome = game.time_out(side)
                break
            left[side] += clock.increment
        game.push(move)
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


@dataclass(frozen=True)
class MatchGame:
    """One game of a match: its number (1-based, the record's Round), whether player A had
    Blue, and the result."""

    number: int
    a_blue: bool
    result: GameResult
    node: str = ""
    """Where the game was played: the cluster node's id on a cluster, else empty."""

    @property
    def outcome(self) -> GameOutcome:
        result = self.result
        return GameOutcome(self.a_blue, result.winner, result.reason, result.impasse, result.plies)


@dataclass(frozen=True)
class GameTask:
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
    clock: TimeControl | None = None


def play_task(task: GameTask) -> MatchGame:
    """Play one scheduled game with players made here, from their specs."""
    blue = player_from_spec(task.blue, seed=task.blue_seed)
    gray = player_from_spec(task.gray, seed=task.gray_seed)
    try:
        rules = RuleSet.parse(task.rules)
        result = play_game(blue, gray, rules, task.opening, task.limits, task.max_plies, task.clock)
    finally:
        blue.close()
        gray.close()
    return MatchGame(task.number, task.a_blue, result)


def prepare_worker(kinds: Sequence[PlayerKind], *, searching: bool = True) -> None:
    """Set up a process that plays a match's games: it knows the kinds of player the match's
    process knows (an interface's, such as ``engine:``, as well as the engine's own), and, when
    a player of its games searches here (``searching``, see ``searches_here``), has the compiled
    kernel ready before its first game (a match measures strength)."""
    register_players(kinds)
    if searching:
        warm_up(wait=True)


def searches_here(tasks: Sequence[GameTask]) -> bool:
    """Whether a player of these games searches in the process that plays them (``PlayerKind
    .searches``), so that the process needs the compiled kernel."""
    return any(find_player(spec).searches for task in tasks for spec in (task.blue, task.gray))
