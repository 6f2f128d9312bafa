"""Analysis of a position: evaluation with a clear meaning, best move, principal variation, and
the hint the interfaces offer players.

Scores are reported for Blue (positive: Blue is better), in the evaluation's Elo-like units, and
as Blue's expected score: 1 means Blue wins, 0.5 even, 0 Gray wins (see docs/analysis.md). A
decided position reports the number of plies to the end instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bluegray.engine.evaluation import expected_score
from bluegray.engine.limits import Iteration, Limits, mate_distance
from bluegray.engine.search import Searcher
from bluegray.errors import GameOverError
from bluegray.game import Game
from bluegray.moves import Move
from bluegray.outcome import Outcome
from bluegray.pieces import Side

DEFAULT_ANALYSIS_SECONDS = 2.0
HINT_SECONDS = 0.5


@dataclass(frozen=True)
class Analysis:
    """What the engine thinks of a position, from Blue's point of view."""

    turn: Side
    best_move: Move | None
    """The move the engine would play (``None`` when the game is over)."""
    score: int
    """Blue's advantage in evaluation units (Elo-like: +400 means Blue scores about 10:1)."""
    pv: tuple[Move, ...]
    depth: int
    nodes: int
    seconds: float
    plies_to_end: int | None = None
    """For a decided position: how many plies until the game ends with best play."""
    outcome: Outcome | None = None
    """The outcome, when the game is already over."""

    @property
    def blue_expected(self) -> float:
        """Blue's expected score: 1 a sure Blue win, 0.5 even, 0 a sure Gray win."""
        if self.outcome is not None:
            winner = self.outcome.winner
            return 0.5 if winner is None else (1.0 if winner is Side.BLUE else 0.0)
        if self.plies_to_end is not None:
            return 1.0 if self.score > 0 else 0.0 if self.score < 0 else 0.5
        return expected_score(self.score)

    @property
    def winning_side(self) -> Side | None:
        """The side a decided score says wins (``None`` if undecided or drawn)."""
        if self.plies_to_end is None or self.score == 0:
            return None
        return Side.BLUE if self.score > 0 else Side.GRAY

    def describe(self) -> str:
        """The evaluation in words, e.g. ``Blue is better: +120 (Blue expected 0.67)``."""
        if self.outcome is not None:
            return f"game over: {self.outcome.describe()}"
        winner = self.winning_side
        if winner is not None and self.plies_to_end is not None:
            return f"{winner.title} wins in {self.plies_to_end} plies with best play"
        blue = self.blue_expected
        if 0.45 <= blue <= 0.55:
            verdict = "about even"
        elif blue > 0.5:
            verdict = "Blue is better" if blue < 0.75 else "Blue is winning"
        else:
            verdict = "Gray is better" if blue > 0.25 else "Gray is winning"
        return f"{verdict}: {self.score:+d} (Blue expected {blue:.2f})"


def _from_iteration(game: Game, iteration: Iteration) -> Analysis:
    sign = 1 if game.turn is Side.BLUE else -1
    return Analysis(
        game.turn,
        iteration.pv[0] if iteration.pv else None,
        sign * iteration.score,
        iteration.pv,
        iteration.depth,
        iteration.nodes,
        iteration.seconds,
        mate_distance(iteration.score),
    )


def analyse(
    game: Game,
    limits: Limits | None = None,
    *,
    on_update: Callable[[Analysis], None] | None = None,
    searcher: Searcher | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Analysis:
    """Analyse the game's current position; ``on_update`` hears each deeper result as it comes.

    A finished game is reported as such (``outcome`` set, no move), not searched.
    """
    outcome = game.outcome()
    if outcome is not None:
        winner = outcome.winner
        score = 0 if winner is None else (1 if winner is Side.BLUE else -1)
        return Analysis(game.turn, None, score, (), 0, 0, 0.0, 0, outcome)
    limits = limits or Limits(time=DEFAULT_ANALYSIS_SECONDS)
    searcher = searcher or Searcher(game.rules)

    def report(iteration: Iteration) -> None:
        if on_update is not None:
            on_update(_from_iteration(game, iteration))

    result = searcher.search(game.board(), limits, on_iteration=report, should_stop=should_stop)
    if result.iterations:
        final = _from_iteration(game, result.iterations[-1])
        if final.best_move != result.move:
            final = Analysis(
                final.turn,
                result.move,
                final.score,
                result.pv,
                final.depth,
                result.nodes,
                result.seconds,
                final.plies_to_end,
            )
        return final
    sign = 1 if game.turn is Side.BLUE else -1
    return Analysis(
        game.turn, result.move, sign * result.score, result.pv, 0, result.nodes, result.seconds
    )


def hint(game: Game, seconds: float = HINT_SECONDS, searcher: Searcher | None = None) -> Move:
    """A good move for the side to move, found quickly: the hint button of the interfaces."""
    analysis = analyse(game, Limits(time=seconds), searcher=searcher)
    if analysis.best_move is None:
        raise GameOverError("the game is over: there is no move to suggest")
    return analysis.best_move
