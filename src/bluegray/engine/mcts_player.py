"""The MCTS player (``mcts:...``): the search of ``mcts`` behind the ``Player`` interface, with
its options parsed from a spec (``mcts_player_from_options``) and the searched tree kept between
the moves of one game (see ``mcts``' docstring, "Tree reuse" and "Limits").
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Final

from bluegray.engine.limits import Limits
from bluegray.engine.mcts import (
    DEFAULT_C,
    DEFAULT_PLAYOUT,
    DEFAULT_TIME,
    DEFAULT_WIDEN,
    MctsResult,
    MctsSearcher,
    Node,
)
from bluegray.engine.player import InvalidPlayerError, Player, spec_seconds, spec_whole
from bluegray.errors import GameOverError
from bluegray.game import Game
from bluegray.moves import Move
from bluegray.position import Position, move_from_raw
from bluegray.rules import RuleSet


@dataclass
class _KeptTree:
    """A searched tree and the game history at its root, for reuse on the next move."""

    rules: RuleSet
    start: Position
    moves: list[Move]
    root: Node


class MctsPlayer(Player):
    """A player that chooses its moves by Monte-Carlo tree search (see the module docstring)."""

    def __init__(
        self,
        *,
        seed: int = 0,
        time: float | None = None,
        iterations: int | None = None,
        c: float = DEFAULT_C,
        playout: int = DEFAULT_PLAYOUT,
        widen: float = DEFAULT_WIDEN,
        reuse: bool = True,
    ) -> None:
        self.spec = "mcts"
        self.time = time
        self.iterations = iterations
        self.c = c
        self.playout = playout
        self.widen = widen
        self.reuse = reuse
        self._random = random.Random(seed)
        self._searcher: MctsSearcher | None = None
        self._kept: _KeptTree | None = None
        self.last_result: MctsResult | None = None
        self.last_iterations = 0
        """Iterations of the last ``choose``."""
        self.last_value = 0.5
        """The expected score of the last chosen move for the side that played it."""

    def new_game(self, rules: RuleSet) -> None:
        self._kept = None
        self._searcher_for(rules)

    def _searcher_for(self, rules: RuleSet) -> MctsSearcher:
        searcher = self._searcher
        if searcher is None or searcher.rules != rules:
            searcher = self._searcher = MctsSearcher(
                rules, c=self.c, playout=self.playout, widen=self.widen, rng=self._random
            )
        return searcher

    def limits(self, limits: Limits | None) -> tuple[int | None, float | None]:
        """The iterations and seconds for a move: ``limits`` if it sets either, else the
        player's own options, else ``DEFAULT_TIME`` seconds."""
        if limits is not None and (limits.nodes is not None or limits.time is not None):
            return limits.nodes, limits.time
        if self.iterations is not None or self.time is not None:
            return self.iterations, self.time
        return None, DEFAULT_TIME

    def choose(self, game: Game, limits: Limits | None = None) -> Move:
        outcome = game.outcome()
        if outcome is not None:
            raise GameOverError(
                f"the game is over ({outcome.describe()}): there is no move to choose"
            )
        searcher = self._searcher_for(game.rules)
        iterations, seconds = self.limits(limits)
        moves = game.moves
        root = self._kept_root(game, moves) if self.reuse else None
        result, root = searcher.search(
            game.board(), iterations=iterations, seconds=seconds, root=root
        )
        self._kept = _KeptTree(game.rules, game.start, moves, root) if self.reuse else None
        self.last_result = result
        self.last_iterations = result.iterations
        self.last_value = result.value
        return result.move

    def _kept_root(self, game: Game, moves: list[Move]) -> Node | None:
        """The node of the kept tree for the game's current history, if there is one."""
        kept = self._kept
        if kept is None or kept.rules != game.rules or kept.start != game.start:
            return None
        if moves[: len(kept.moves)] != kept.moves:
            return None
        node = kept.root
        for move in moves[len(kept.moves) :]:
            for child in node.children:
                if move_from_raw(child.move) == move:  # type: ignore[arg-type]
                    node = child
                    break
            else:
                return None
        return node

    def close(self) -> None:
        self._kept = None


_OPTIONS: Final = ("time", "iterations", "nodes", "c", "playout", "widen", "reuse")


def mcts_player_from_options(spec: str, options: dict[str, str], *, seed: int) -> Player:
    """The MCTS player of a spec's options: ``time`` (seconds a move), ``iterations`` (or
    ``nodes``), ``c`` (exploration), ``playout`` (plies), ``widen``, ``reuse`` (0 or 1)."""
    options = dict(options)
    unknown = [key for key in options if key not in _OPTIONS]
    if unknown:
        what = ", ".join(repr(key) if key else "a bare value" for key in unknown)
        raise InvalidPlayerError(
            f"invalid player {spec!r}: unknown option {what}; mcts options are "
            f"{', '.join(_OPTIONS)} (key=value)"
        )
    if "iterations" in options and "nodes" in options:
        raise InvalidPlayerError(f"invalid player {spec!r}: give iterations or nodes, not both")
    time_text = options.get("time")
    count_text = options.get("iterations", options.get("nodes"))
    reuse_text = options.get("reuse", "1")
    if reuse_text not in ("0", "1"):
        raise InvalidPlayerError(f"invalid player {spec!r}: reuse must be 0 or 1")
    return MctsPlayer(
        seed=seed,
        time=None if time_text is None else spec_seconds(spec, "time", time_text),
        iterations=None
        if count_text is None
        else spec_whole(spec, "iterations", count_text, least=1),
        c=_real(spec, "c", options.get("c", str(DEFAULT_C)), least=0.0, strict=False),
        playout=spec_whole(spec, "playout", options.get("playout", str(DEFAULT_PLAYOUT)), least=0),
        widen=_real(
            spec, "widen", options.get("widen", str(DEFAULT_WIDEN)), least=0.0, strict=True
        ),
        reuse=reuse_text == "1",
    )


def _real(spec: str, key: str, text: str, *, least: float, strict: bool) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < least or (strict and value == least):
        bound = f"greater than {least:g}" if strict else f"at least {least:g}"
        raise InvalidPlayerError(
            f"invalid player {spec!r}: {key} must be a number {bound}, not {text!r}"
        )
    return value
