"""The action game on the compiled board: ``CompiledActionGame``, what the single-game
environments step through when numba is installed (``states.action_game`` chooses).

It answers as :class:`bluegray.rl.actions.ActionGame` does (the same legal actions, masks,
planes, moves and outcomes: ``tests/rl/test_rl.py`` plays both side by side) from a one-game
``Simulation``, and keeps a :class:`bluegray.Game` of the moves played for what needs one (an
opponent player, the pictures, the position's text), brought up to date only when it is read.
A game read through ``game`` and then changed directly (``push``, ``pop``) is read back: any
capture in progress is dropped, as ``ActionGame`` drops it.
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Callable
from typing import Any, SupportsIndex

import numpy as np
import numpy.typing as npt

from bluegray.engine.encoding import NUM_ACTIONS, NUM_PLANES, OBSERVATION_SHAPE
from bluegray.engine.records import CAPTAIN_POINT, MoveRecord
from bluegray.engine.simulation import (
    DEPTH,
    TABLES,
    Simulation,
    Work,
    apply_actions,
    entry_point,
    fill_masks,
    new_work,
    notation_ranks,
    observe_all,
)
from bluegray.game import Game
from bluegray.moves import Move
from bluegray.outcome import Outcome
from bluegray.pieces import Side
from bluegray.points import point_name
from bluegray.position import Position, move_from_raw
from bluegray.rl.actions import ActionGame, IllegalActionError, action_text, move_actions
from bluegray.rules import RuleSet

_ENTRIES: dict[Callable[..., Any], Callable[..., Any]] = {}
_STARTS: dict[tuple[RuleSet, Position], Simulation] = {}
"""The compiled board of each start a game has had (by rule set and position), to copy."""
_LOCAL = threading.local()


def _work() -> Work:
    """This thread's working space for the compiled calls (it holds nothing between calls)."""
    work: Work | None = getattr(_LOCAL, "work", None)
    if work is None:
        work = _LOCAL.work = new_work()
    return work


def _call(function: Callable[..., Any], *arguments: Any) -> Any:
    """``function(*arguments)`` through its entry point after the first call (the arguments'
    types never change here: every array is made by this module)."""
    entry = _ENTRIES.get(function)
    if entry is not None:
        return entry(*arguments)
    result = function(*arguments)
    _ENTRIES[function] = entry_point(function, *arguments)
    return result


class CompiledActionGame(ActionGame):
    """An :class:`ActionGame` whose moves, masks and planes come from the compiled board."""

    def __init__(
        self,
        rules: RuleSet | str | None = None,
        position: Position | str | None = None,
        *,
        game: Game | None = None,
    ) -> None:
        self._game = game if game is not None else Game(rules, position)
        self._load(fresh=game is None)

    def _load(self, *, fresh: bool = False) -> None:
        """Set the compiled board from the game (its history included); a ``fresh`` game, at
        its start, from a copy of the start's board made once."""
        game = self._game
        if fresh:
            key = (game.rules, game.start)
            start = _STARTS.get(key)
            if start is None:
                if len(_STARTS) >= 64:
                    _STARTS.clear()
                start = _STARTS[key] = Simulation(game.rules, start=[game], seed=0, work=_work())
            self._batch = start.copy()
            self._batch.work = _work()
        else:
            self._batch = Simulation(game.rules, start=[game], seed=0, work=_work())
        self._unpushed: list[Move] = []
        self._seen: tuple[int, Move | None] | None = None
        self._mask = np.zeros((1, NUM_ACTIONS), np.int8)
        self._planes = np.zeros((1, NUM_PLANES, 81), np.float32)
        self._results = np.zeros(1, np.int8)
        self._action = np.zeros(1, np.int64)
        self._refresh()

    def _refresh(self) -> None:
        batch = self._batch
        _call(fill_masks, batch.games, batch.compiled_rules, TABLES, _work(), self._mask)

    def _check_game(self) -> None:
        """Read the game back if it was changed directly since it was last handed out."""
        seen = self._seen
        if seen is not None and (self._game.ply, self._game.last_move) != seen:
            self._load()

    # -- the game ----------------------------------------------------------------------------

    @property
    def game(self) -> Game:
        """The game, with every move played so far."""
        self._check_game()
        game = self._game
        for move in self._unpushed:
            game.push(move)
        self._unpushed.clear()
        self._seen = (game.ply, game.last_move)
        return game

    @game.setter
    def game(self, game: Game) -> None:
        self._game = game
        self._load()

    def copy(self) -> CompiledActionGame:
        self._check_game()
        other = CompiledActionGame.__new__(CompiledActionGame)
        other._game = self._game.copy()
        other._batch = self._batch.copy()
        other._unpushed = self._unpushed[:]
        other._seen = None
        other._mask = self._mask.copy()
        other._planes = np.zeros_like(self._planes)
        other._results = np.zeros_like(self._results)
        other._action = np.zeros_like(self._action)
        return other

    # -- state -------------------------------------------------------------------------------

    @property
    def turn(self) -> Side:
        self._check_game()
        return (Side.BLUE, Side.GRAY)[int(self._batch.games.state[0, 0])]

    @property
    def capture(self) -> tuple[int, ...]:
        self._check_game()
        depth = int(self._batch.games.status[0, DEPTH])
        if not depth:
            return ()
        return tuple(int(point) for point in self._batch.games.landings[0, : depth + 1])

    def outcome(self) -> Outcome | None:
        self._check_game()
        return self._batch.outcome(0)

    def is_over(self) -> bool:
        return self.outcome() is not None

    def legal_actions(self) -> list[int]:
        self._check_game()
        return [int(action) for action in np.flatnonzero(self._mask[0])]

    def action_mask(self) -> npt.NDArray[np.int8]:
        self._check_game()
        mask: npt.NDArray[np.int8] = self._mask[0].copy()
        return mask

    def is_legal(self, action: SupportsIndex) -> bool:
        if isinstance(action, bool | np.bool_):
            return False
        try:
            index = operator.index(action)
        except TypeError:
            return False
        return 0 <= index < NUM_ACTIONS and bool(self._mask[0, index]) and not self.is_over()

    def compiled_planes(
        self, out: npt.NDArray[np.float32] | None = None
    ) -> npt.NDArray[np.float32] | None:
        """The observation planes (``bluegray.rl.observe``), written into ``out`` when given."""
        self._check_game()
        batch = self._batch
        want = np.ones(1, np.bool_)
        board = np.zeros((0, 81), np.int8)
        _call(observe_all, batch.games, batch.compiled_rules, _work(), self._planes, board, want)
        planes: npt.NDArray[np.float32] = self._planes[0].reshape(OBSERVATION_SHAPE)
        if out is None:
            return planes.copy()
        out[...] = planes
        return out

    # -- acting ------------------------------------------------------------------------------

    def apply(self, action: SupportsIndex) -> Move | None:
        self._check_game()
        if isinstance(action, bool | np.bool_):
            raise IllegalActionError(f"invalid action {action!r}: expected a whole number 0-972")
        try:
            index = operator.index(action)
        except TypeError:
            raise IllegalActionError(
                f"invalid action {action!r}: expected a whole number 0-972"
            ) from None
        if not 0 <= index < NUM_ACTIONS:
            raise IllegalActionError(f"invalid action {index}: actions are numbered 0-972")
        batch = self._batch
        work = _work()
        self._action[0] = index
        _call(
            apply_actions,
            batch.games,
            batch.compiled_rules,
            TABLES,
            work,
            self._action,
            self._results,
            self._mask,
        )
        result = int(self._results[0])
        if result < 0:
            raise IllegalActionError(self._why_illegal(index))
        if result == 0:
            return None
        move = move_from_raw(MoveRecord.from_row(work.move.tolist()).raw())
        self._unpushed.append(move)
        return move

    def push(self, move: Move | str) -> Move:
        self._check_game()
        if self.capture:
            raise IllegalActionError(
                f"cannot play a whole move during the capture in progress {self._capture_text()}"
            )
        if isinstance(move, str):
            move = self.game.parse_move(move)
        self._batch.push(0, move)
        self._unpushed.append(move)
        self._refresh()
        return move

    def _capture_text(self) -> str:
        return "x".join(point_name(point) for point in self.capture)

    def reward(self, side: Side) -> float:
        outcome = self.outcome()
        if outcome is None or outcome.winner is None:
            return 0.0
        return 1.0 if outcome.winner is side else -1.0

    def push_choice(self, pick: Callable[[int], int]) -> Move:
        self._check_game()
        if self.capture:
            raise IllegalActionError(
                f"cannot play a whole move during the capture in progress {self._capture_text()}"
            )
        rows = self._batch.legal_rows(0)
        row = rows[notation_ranks(rows)[pick(len(rows))]]
        self._batch.push_row(0, row)
        move = move_from_raw(MoveRecord.from_row(row.tolist()).raw())
        self._unpushed.append(move)
        self._refresh()
        return move

    def actions_of(self, move: Move | str) -> tuple[int, ...]:
        if isinstance(move, str):
            move = self.game.parse_move(move)
        state = self._batch.games.state[0]
        return move_actions(move, int(state[CAPTAIN_POINT + int(state[0])]))

    def _why_illegal(self, index: int) -> str:
        text = action_text(index)
        outcome = self.outcome()
        if outcome is not None:
            return f"illegal action {index} ({text}): the game is over ({outcome.describe()})"
        legal = ", ".join(f"{a} ({action_text(a)})" for a in self.legal_actions())
        where = f"in {self.game.position}"
        if self.capture:
            where += f" during the capture {self._capture_text()}"
        return f"illegal action {index} ({text}) {where}; legal actions: {legal}"
