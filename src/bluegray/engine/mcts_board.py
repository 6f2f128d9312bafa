"""The board the MCTS player searches on: the moves of a path pushed and popped, each position's
moves scored for the tree, and a playout's plies and leaf.

``PlainMctsBoard`` is the rules core's ``Board`` with the Python evaluation;
``compiled.mcts.CompiledMctsBoard`` does the same on the compiled board with the compiled evaluation
(equal to the Python one), once the compiled code is ready (``readiness``), in a few compiled
calls an iteration. The search makes the same moves and the same random draws on either, so it
plays the same moves, only faster.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Final, NamedTuple

from bluegray import bitboard
from bluegray.bitboard import Board, RawMove
from bluegray.engine.evaluation import Evaluator

WIN_VALUE: Final = 1e9
"""A won game in evaluation units, for a playout's comparison of moves."""


class ScoredMove(NamedTuple):
    """A move with what the position after it is: how the game ended (``bitboard``'s code, 0
    while it goes on, ``STALEMATE`` when the side to move then has no move), the winner of an
    ended game (``None``: a draw), and the evaluation for the side to move after it."""

    move: RawMove
    end: int
    winner: int | None
    value: int


class Leaf(NamedTuple):
    """What a playout's last position is: stalemated (``STALEMATE``, with the winner) or quiet
    (``ONGOING``, with the evaluation for the side to move)."""

    end: int
    winner: int | None
    value: int


class PlyChoices(NamedTuple):
    """What a playout may play in a position: how many legal moves, whether they capture, how
    many captures take the most pieces, and whether the last move is the captain's."""

    moves: int
    capturing: bool
    best: int
    captain_last: bool


class MctsBoard(ABC):
    """A position with a move stack, as the MCTS player uses it."""

    @property
    @abstractmethod
    def turn(self) -> int:
        """The side to move (0 Blue, 1 Gray)."""

    @abstractmethod
    def push_all(self, moves: Sequence[RawMove]) -> None: ...

    @abstractmethod
    def pop_all(self, count: int) -> None: ...

    @abstractmethod
    def end_by_move(self) -> int:
        """Which of §4 rules 1-4 ends the game now (``bitboard.Board.end_by_move``)."""

    @abstractmethod
    def winner(self, code: int) -> int | None: ...

    @abstractmethod
    def scored_moves(self) -> list[ScoredMove]:
        """Every legal move, in the rules core's order, with the position after it."""

    @abstractmethod
    def leaf(self, must_capture_counts: bool) -> Leaf | None:
        """The position as a playout's leaf; ``None`` when ``must_capture_counts`` and the side
        to move must capture (the playout goes on)."""

    @abstractmethod
    def choices(self) -> PlyChoices:
        """What a playout may play here (the ``play_`` methods then play one of them)."""

    @abstractmethod
    def play_best_capture(self, index: int) -> None:
        """Push the ``index``-th of the captures that take the most pieces."""

    @abstractmethod
    def play_only_move(self) -> None:
        """Push the first legal move (the only one)."""

    @abstractmethod
    def play_sampled(self, indices: Sequence[int], with_captain: bool) -> None:
        """Push the best, by a one-move look, of the legal moves at ``indices`` and (with
        ``with_captain``) the captain's move, the last: a win first, then the evaluation
        after the move, ties to the earlier candidate."""


class PlainMctsBoard(MctsBoard):
    """The rules core's board with the Python evaluation."""

    def __init__(self, board: Board, evaluator: Evaluator) -> None:
        self.board = board
        self.evaluator = evaluator
        self._moves: list[RawMove] = []
        self._best: list[RawMove] = []

    @property
    def turn(self) -> int:
        return self.board.turn

    def push_all(self, moves: Sequence[RawMove]) -> None:
        push = self.board.push
        for move in moves:
            push(move)

    def pop_all(self, count: int) -> None:
        pop = self.board.pop
        for _ in range(count):
            pop()

    def end_by_move(self) -> int:
        return self.board.end_by_move()

    def winner(self, code: int) -> int | None:
        return self.board.winner(code)

    def scored_moves(self) -> list[ScoredMove]:
        board = self.board
        evaluate = self.evaluator.evaluate
        push = board.push
        pop = board.pop
        end = board.end_by_move
        scored = []
        for raw in board.moves():
            push(raw)
            code = end()
            if not code and board.is_stalemate():
                code = bitboard.STALEMATE
            if code:
                scored.append(ScoredMove(raw, code, board.winner(code), 0))
            else:
                scored.append(ScoredMove(raw, code, None, evaluate(board)))
            pop()
        return scored

    def leaf(self, must_capture_counts: bool) -> Leaf | None:
        board = self.board
        if must_capture_counts and board.has_capture():
            return None
        if board.is_stalemate():
            return Leaf(bitboard.STALEMATE, board.winner(bitboard.STALEMATE), 0)
        return Leaf(bitboard.ONGOING, None, self.evaluator.evaluate(board))

    def choices(self) -> PlyChoices:
        board = self.board
        moves = self._moves = board.moves()
        if not moves:
            return PlyChoices(0, False, 0, False)
        capturing = bool(moves[0][2])
        best = 0
        if capturing:
            most = max(raw[2].bit_count() for raw in moves)
            self._best = [raw for raw in moves if raw[2].bit_count() == most]
            best = len(self._best)
        captain_last = moves[-1][0] == board.captains[board.turn]
        return PlyChoices(len(moves), capturing, best, captain_last)

    def play_best_capture(self, index: int) -> None:
        self.board.push(self._best[index])

    def play_only_move(self) -> None:
        self.board.push(self._moves[0])

    def play_sampled(self, indices: Sequence[int], with_captain: bool) -> None:
        board = self.board
        moves = self._moves
        side = board.turn
        candidates = [moves[index] for index in indices]
        if with_captain:
            candidates.append(moves[-1])
        move = candidates[0]
        best_value = -math.inf
        for candidate in candidates:
            board.push(candidate)
            code = board.end_by_move()
            if code:
                winner = board.winner(code)
                score = 0.0 if winner is None else (WIN_VALUE if winner == side else -WIN_VALUE)
            else:
                score = -self.evaluator.evaluate(board)
            board.pop()
            if score > best_value:
                move, best_value = candidate, score
        board.push(move)
