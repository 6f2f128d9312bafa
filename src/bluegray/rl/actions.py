"""The fixed action encoding of the RL environments, and a ``Game`` played one action at a time.

There are :data:`NUM_ACTIONS` = 973 actions, the same for every rule set:

- ``point * 8 + d`` (0-647): a soldier on ``point`` steps in step direction ``d``
  (:data:`STEP_DIRECTIONS`: N, NE, E, SE, S, SW, W, NW; north is up a rank, east is up a file);
- ``648 + point * 4 + d`` (648-971): a soldier on ``point`` jumps in jump direction ``d``
  (:data:`JUMP_DIRECTIONS`: N, E, S, W), over the enemy next to it, to the point beyond;
- ``972``: the captain's move (its one step, or its turbo slide).

A capture is entered one jump per action, by the same side: :class:`ActionGame` keeps the capture
in progress and offers only the jumps that continue a complete legal capture; the move is played
when its last jump is taken. See ``docs/rl.md``.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, SupportsIndex

import numpy as np
import numpy.typing as npt

from bluegray import bitboard
from bluegray.engine.encoding import (
    CAPTAIN_ACTION,
    FIRST_JUMP_ACTION,
    JUMP_DIRECTIONS,
    NUM_ACTIONS,
    STEP_DIRECTIONS,
    jump_action,
    offset,
    step_action,
)
from bluegray.errors import BlueGrayError
from bluegray.game import Game
from bluegray.moves import Move
from bluegray.outcome import Outcome
from bluegray.pieces import Side
from bluegray.points import Point, point_file, point_name, point_rank
from bluegray.position import Position
from bluegray.rules import RuleSet

_STEP_INDEX: Final = {(df, dr): index for index, (_, df, dr) in enumerate(STEP_DIRECTIONS)}
_JUMP_INDEX: Final = {(df, dr): index for index, (_, df, dr) in enumerate(JUMP_DIRECTIONS)}


class IllegalActionError(BlueGrayError):
    """An action that is not legal now (outside the action mask), or not an action at all."""


@dataclass(frozen=True)
class Action:
    """What an action index means: its kind, the point it acts from, its direction and the point
    it reaches (``None`` when that would be off the board: such an action is never legal)."""

    index: int
    kind: str
    """``step``, ``jump`` or ``captain``."""
    point: Point | None = None
    direction: str | None = None
    target: Point | None = None

    def __str__(self) -> str:
        if self.kind == "captain":
            return "captain"
        assert self.point is not None
        if self.target is None:
            return f"{point_name(self.point)} {self.kind} {self.direction} (off the board)"
        joint = "x" if self.kind == "jump" else "-"
        return f"{point_name(self.point)}{joint}{point_name(self.target)}"


def decode_action(action: SupportsIndex) -> Action:
    """What the action ``action`` (0 to 972) means; raises ``IllegalActionError`` out of range."""
    index = _check_index(action)
    if index == CAPTAIN_ACTION:
        return Action(index, "captain")
    if index < FIRST_JUMP_ACTION:
        point, direction = divmod(index, len(STEP_DIRECTIONS))
        name, df, dr = STEP_DIRECTIONS[direction]
        return Action(index, "step", point, name, offset(point, df, dr))
    point, direction = divmod(index - FIRST_JUMP_ACTION, len(JUMP_DIRECTIONS))
    name, df, dr = JUMP_DIRECTIONS[direction]
    return Action(index, "jump", point, name, offset(point, 2 * df, 2 * dr))


def action_text(action: SupportsIndex) -> str:
    """A short name for an action: ``d2-d3`` (a step), ``b2xb4`` (one jump) or ``captain``."""
    return str(decode_action(action))


def _check_index(action: object) -> int:
    try:
        if isinstance(action, bool | np.bool_):
            raise TypeError
        index = operator.index(action)  # type: ignore[arg-type]
    except TypeError:
        raise IllegalActionError(
            f"invalid action {action!r}: expected a whole number 0-972"
        ) from None
    if not 0 <= index < NUM_ACTIONS:
        raise IllegalActionError(f"invalid action {index}: actions are numbered 0-972")
    return index


def move_actions(move: Move, captain: Point) -> tuple[int, ...]:
    """The actions that enter ``move`` when the mover's captain stands on ``captain``: the captain
    action, one step action, or one jump action per jump of a capture."""
    if move.from_point == captain and not move.capture:
        return (CAPTAIN_ACTION,)
    return _point_actions(move.points, move.capture)


def _point_actions(points: tuple[Point, ...], capture: bool) -> tuple[int, ...]:
    if not capture:
        a, b = points
        return (step_action(a, _STEP_INDEX[_delta(a, b, 1)]),)
    return tuple(
        jump_action(a, _JUMP_INDEX[_delta(a, b, 2)]) for a, b in itertools.pairwise(points)
    )


def _delta(a: Point, b: Point, length: int) -> tuple[int, int]:
    return (point_file(b) - point_file(a)) // length, (point_rank(b) - point_rank(a)) // length


@dataclass(frozen=True)
class _Candidate:
    actions: tuple[int, ...]
    raw: bitboard.RawMove


class ActionGame:
    """A :class:`bluegray.Game` played one action at a time: the state every environment shares.

    A step or a captain's move is one action. A capture is one action per jump: after a jump that
    does not finish a complete legal capture, the same side acts again (``capture`` holds the
    points so far) and only the jumps that continue some complete legal capture are legal (under
    maximal capture, some longest one). The move is pushed onto ``game`` when its last jump is
    taken. Give ``game`` to act on an existing game (it is not copied); the game may also be
    changed directly between moves (``push``, ``pop``), which drops any capture in progress.

    >>> actions = ActionGame("sackson", "4c4/9/9/9/9/9/1g7/g1g6/Gg2C4 b 0 1")
    >>> [action_text(a) for a in actions.legal_actions()]
    ['a1xa3', 'a1xc1']
    >>> actions.apply(actions.legal_actions()[0]) is None
    True
    >>> actions.capture
    (0, 18)
    """

    def __init__(
        self,
        rules: RuleSet | str | None = None,
        position: Position | str | None = None,
        *,
        game: Game | None = None,
    ) -> None:
        self.game = game if game is not None else Game(rules, position)
        self._taken: list[int] = []
        self._points: list[Point] = []
        self._cache: tuple[tuple[int, bool], list[_Candidate]] | None = None

    def copy(self) -> ActionGame:
        """An independent copy, the capture in progress included."""
        other = ActionGame.__new__(ActionGame)
        other.game = self.game.copy()
        other._taken = self._taken[:]
        other._points = self._points[:]
        other._cache = self._cache
        return other

    def __deepcopy__(self, memo: dict[int, object]) -> ActionGame:
        # OpenSpiel clones states with deepcopy: share the immutable parts, copy the rest.
        return self.copy()

    # -- state -------------------------------------------------------------------------------

    @property
    def turn(self) -> Side:
        """The side to act (during a capture in progress, the side capturing)."""
        return self.game.turn

    @property
    def capture(self) -> tuple[Point, ...]:
        """The capture in progress: its start and the points landed on so far (empty if none)."""
        self._all()  # drops a capture the game has moved on from
        return tuple(self._points)

    def outcome(self) -> Outcome | None:
        """How the game ended, or ``None`` while it goes on."""
        return self.game.outcome()

    def is_over(self) -> bool:
        return self.game.outcome() is not None

    def reward(self, side: Side) -> float:
        """The final reward of ``side``: +1 for a win (an impasse won by the captain farther
        advanced included), -1 for a loss, 0 for a draw and while the game goes on."""
        outcome = self.game.outcome()
        if outcome is None or outcome.winner is None:
            return 0.0
        return 1.0 if outcome.winner is side else -1.0

    def _all(self) -> list[_Candidate]:
        # The game may also be changed directly (push, pop): the candidates are kept only while
        # the position (its hash, with the side to move) and whether the game is over stay the
        # same, and a capture in progress is dropped when they change.
        board = self.game.board()
        over = self.game.outcome() is not None
        key = (board.hash, over)
        cached = self._cache
        if cached is not None and cached[0] == key:
            return cached[1]
        self._taken.clear()
        self._points.clear()
        candidates = []
        if not over:
            captain = board.captains[board.turn]
            for raw in board.moves():
                if raw[3] is not None:
                    actions = _point_actions(raw[3], True)
                elif raw[0] == captain:
                    actions = (CAPTAIN_ACTION,)
                else:
                    actions = _point_actions((raw[0], raw[1]), False)
                candidates.append(_Candidate(actions, raw))
        self._cache = (key, candidates)
        return candidates

    def _matching(self) -> tuple[int, list[_Candidate]]:
        """How many jumps of a capture are already taken, and the moves that begin with them."""
        candidates = self._all()
        taken = tuple(self._taken)
        depth = len(taken)
        return depth, [c for c in candidates if c.actions[:depth] == taken]

    def legal_actions(self) -> list[int]:
        """The legal actions now, in increasing order (none once the game is over)."""
        depth, matching = self._matching()
        return sorted({c.actions[depth] for c in matching})

    def action_mask(self) -> npt.NDArray[np.int8]:
        """A vector of :data:`NUM_ACTIONS` values: 1 for each legal action, 0 elsewhere."""
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def compiled_planes(
        self, out: npt.NDArray[np.float32] | None = None
    ) -> npt.NDArray[np.float32] | None:
        """The observation planes when the state computes them itself (on the compiled board:
        ``compiled_actions``), else ``None``: ``bluegray.rl.observe`` computes them."""
        return None

    def is_legal(self, action: SupportsIndex) -> bool:
        try:
            index = _check_index(action)
        except IllegalActionError:
            return False
        return index in self.legal_actions()

    # -- acting ------------------------------------------------------------------------------

    def apply(self, action: SupportsIndex) -> Move | None:
        """Take an action: return the move played if it completes one, ``None`` during a capture.

        Raises ``IllegalActionError`` (naming the legal actions) for an action outside the mask,
        and leaves the state unchanged."""
        index = _check_index(action)
        depth, matching = self._matching()
        matching = [c for c in matching if c.actions[depth] == index]
        if not matching:
            raise IllegalActionError(self._why_illegal(index))
        self._taken.append(index)
        done = [c for c in matching if len(c.actions) == depth + 1]
        if not done:
            target = decode_action(index).target
            assert target is not None
            if not self._points:
                start = decode_action(self._taken[0]).point
                assert start is not None
                self._points.append(start)
            self._points.append(target)
            return None
        raw = done[0].raw
        move = Move(raw[3], True) if raw[3] is not None else Move((raw[0], raw[1]))
        self.game.push(move)
        self._taken.clear()
        self._points.clear()
        return move

    def push(self, move: Move | str) -> Move:
        """Play a whole move at once (as the opponent players do); not during a capture."""
        if self.capture:
            raise IllegalActionError(
                f"cannot play a whole move during the capture in progress {self._capture_text()}"
            )
        return self.game.push(move)

    def push_choice(self, pick: Callable[[int], int]) -> Move:
        """Play the legal move at index ``pick(count)`` of the ``count`` legal moves in the order
        of ``Game.legal_moves`` (as ``RandomPlayer.pick`` chooses); not during a capture."""
        moves = self.game.legal_moves
        return self.push(moves[pick(len(moves))])

    def actions_of(self, move: Move | str) -> tuple[int, ...]:
        """The actions that enter a legal move here (from the start of the turn)."""
        if isinstance(move, str):
            move = self.game.parse_move(move)
        board = self.game.board()
        return move_actions(move, board.captains[board.turn])

    def _capture_text(self) -> str:
        return "x".join(point_name(point) for point in self._points)

    def _why_illegal(self, index: int) -> str:
        text = action_text(index)
        outcome = self.game.outcome()
        if outcome is not None:
            return f"illegal action {index} ({text}): the game is over ({outcome.describe()})"
        legal = ", ".join(f"{a} ({action_text(a)})" for a in self.legal_actions())
        where = f"in {self.game.position}"
        if self._taken:
            where += f" during the capture {self._capture_text()}"
        return f"illegal action {index} ({text}) {where}; legal actions: {legal}"


__all__ = [
    "CAPTAIN_ACTION",
    "FIRST_JUMP_ACTION",
    "JUMP_DIRECTIONS",
    "NUM_ACTIONS",
    "STEP_DIRECTIONS",
    "Action",
    "ActionGame",
    "IllegalActionError",
    "action_text",
    "decode_action",
    "jump_action",
    "move_actions",
    "step_action",
]
