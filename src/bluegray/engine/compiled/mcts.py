"""The MCTS player's board on the compiled board (``compiled.board``) with the compiled evaluation
(``compiled.evaluation``): ``CompiledMctsBoard``, the same answers as ``mcts_board.PlainMctsBoard``
(the
same moves in the same order, the same game ends and evaluations), with a position's moves
scored and a playout's leaf judged in one compiled call each.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from bluegray import bitboard
from bluegray.bitboard import Board, RawMove
from bluegray.engine.compiled.board import (
    ONGOING,
    STALEMATE,
    CompiledBoard,
    CompiledRules,
    compiled_board,
    compiled_rules,
    end_by_move,
    make,
    unmake,
    winner,
)
from bluegray.engine.compiled.compiler import compiled, entry_point, use_source_keyed_cache
from bluegray.engine.compiled.evaluation import CompiledEvaluation, compiled_evaluation, evaluate
from bluegray.engine.compiled.moves import MAX_MOVES, capture_stack, generate_moves, has_capture
from bluegray.engine.evaluation import Evaluator
from bluegray.engine.mcts_board import WIN_VALUE, Leaf, MctsBoard, PlyChoices, ScoredMove
from bluegray.engine.records import (
    CAPTAIN_POINT,
    HISTORY_LENGTH,
    MADE,
    MOVE_FIRST_TAKEN,
    MOVE_FROM,
    MOVE_TAKEN,
    MOVE_WIDTH,
    MoveRecord,
)
from bluegray.position import Position

use_source_keyed_cache()

ROOM = 512
"""Moves a board has room for at first (doubled as its move stack grows)."""


@compiled()
def score_moves(
    board: CompiledBoard,
    rules: CompiledRules,
    scoring: CompiledEvaluation,
    moves: np.ndarray,
    replies: np.ndarray,
    stack: np.ndarray,
    scores: np.ndarray,
) -> int:
    """The side to move's moves into ``moves`` and, for each, into its row of ``scores``: the
    game-end code after it (``STALEMATE`` when the side then to move has no move), the winner
    (-1 a draw or none) and the evaluation for the side then to move; how many moves (-1 when
    a move buffer overflows)."""
    cells, state, history, undo = board
    n = generate_moves(cells, state, rules, moves, stack)
    for i in range(n):
        make(cells, state, history, undo, moves[i], rules.zobrist, rules.zobrist_gray)
        code = end_by_move(state, history, rules.switches, rules.advancement)
        if code == ONGOING:
            replies_count = generate_moves(cells, state, rules, replies, stack)
            if replies_count < 0:
                unmake(cells, state, undo, moves[i])
                return -1
            if replies_count == 0:
                code = STALEMATE
        scores[i, 0] = code
        scores[i, 1] = winner(code, state, rules.switches, rules.advancement) if code else -1
        scores[i, 2] = evaluate(cells, state, rules, scoring) if code == ONGOING else 0
        unmake(cells, state, undo, moves[i])
    return n


@compiled()
def judge_leaf(
    board: CompiledBoard,
    rules: CompiledRules,
    scoring: CompiledEvaluation,
    moves: np.ndarray,
    stack: np.ndarray,
    must_capture_counts: bool,
    leaf: np.ndarray,
) -> bool:
    """The position as a playout's leaf into ``leaf`` (end code, winner, evaluation); false when
    ``must_capture_counts`` and the side to move must capture."""
    cells, state = board.cells, board.state
    if must_capture_counts and has_capture(cells, state, rules.guard_jumps, rules.private_jumps):
        return False
    if generate_moves(cells, state, rules, moves, stack) == 0:
        leaf[0] = STALEMATE
        leaf[1] = winner(STALEMATE, state, rules.switches, rules.advancement)
        leaf[2] = 0
    else:
        leaf[0] = ONGOING
        leaf[1] = -1
        leaf[2] = evaluate(cells, state, rules, scoring)
    return True


@compiled()
def make_all(board: CompiledBoard, rules: CompiledRules, played: np.ndarray, count: int) -> None:
    """Make the ``count`` moves of ``played`` from the board's next free row on."""
    cells, state, history, undo = board
    for _ in range(count):
        make(cells, state, history, undo, played[state[MADE]], rules.zobrist, rules.zobrist_gray)


@compiled()
def unmake_all(board: CompiledBoard, played: np.ndarray, count: int) -> None:
    """Take back the last ``count`` moves."""
    cells, state, _, undo = board
    for _ in range(count):
        unmake(cells, state, undo, played[state[MADE] - 1])


@compiled()
def ply_choices(
    board: CompiledBoard,
    rules: CompiledRules,
    moves: np.ndarray,
    stack: np.ndarray,
    best: np.ndarray,
    choices: np.ndarray,
) -> None:
    """The legal moves into ``moves``, the indices of the captures taking most into ``best``,
    and into ``choices``: how many moves, whether they capture, how many best captures, whether
    the last move is the captain's."""
    cells, state = board.cells, board.state
    n = generate_moves(cells, state, rules, moves, stack)
    choices[0] = n
    choices[1] = 1 if n > 0 and moves[0, MOVE_TAKEN] > 0 else 0
    count = 0
    if choices[1]:
        most = 0
        for i in range(n):
            most = max(most, moves[i, MOVE_TAKEN])
        for i in range(n):
            if moves[i, MOVE_TAKEN] == most:
                best[count] = i
                count += 1
    choices[2] = count
    choices[3] = 1 if n > 0 and moves[n - 1, MOVE_FROM] == state[CAPTAIN_POINT + state[0]] else 0


@compiled()
def play_row(
    board: CompiledBoard, rules: CompiledRules, moves: np.ndarray, index: int, played: np.ndarray
) -> None:
    """Make the move in row ``index`` of ``moves``, keeping it in ``played``."""
    cells, state, history, undo = board
    row = played[state[MADE]]
    for column in range(moves.shape[1]):
        row[column] = moves[index, column]
    make(cells, state, history, undo, row, rules.zobrist, rules.zobrist_gray)


@compiled()
def play_sampled(
    board: CompiledBoard,
    rules: CompiledRules,
    scoring: CompiledEvaluation,
    moves: np.ndarray,
    n: int,
    indices: np.ndarray,
    with_captain: bool,
    played: np.ndarray,
) -> None:
    """Make the best, by a one-move look, of the moves at ``indices`` and (``with_captain``)
    the last one, the captain's: ``mcts_board.PlainMctsBoard.play_sampled``."""
    cells, state, history, undo = board
    side = state[0]
    chosen = indices[0]
    best_value = -np.inf
    for k in range(indices.shape[0] + (1 if with_captain else 0)):
        index = indices[k] if k < indices.shape[0] else n - 1
        make(cells, state, history, undo, moves[index], rules.zobrist, rules.zobrist_gray)
        code = end_by_move(state, history, rules.switches, rules.advancement)
        if code:
            won = winner(code, state, rules.switches, rules.advancement)
            score = 0.0 if won < 0 else (WIN_VALUE if won == side else -WIN_VALUE)
        else:
            score = -float(evaluate(cells, state, rules, scoring))
        unmake(cells, state, undo, moves[index])
        if score > best_value:
            chosen = index
            best_value = score
    play_row(board, rules, moves, chosen, played)


def _winner(code: int) -> int | None:
    return None if code < 0 else code


class CompiledMctsBoard(MctsBoard):
    """A rules-core ``Board`` copied onto the compiled board, for one search."""

    def __init__(self, board: Board, evaluator: Evaluator) -> None:
        self.rules = compiled_rules(board.tables)
        self.scoring = compiled_evaluation(evaluator)
        self.compiled = compiled_board(board, ROOM)
        self.played = np.zeros((ROOM, MOVE_WIDTH), np.int64)
        self.moves_buffer = np.zeros((MAX_MOVES, MOVE_WIDTH), np.int64)
        self.replies = np.zeros((MAX_MOVES, MOVE_WIDTH), np.int64)
        self.stack = capture_stack()
        self.scores = np.zeros((MAX_MOVES, 3), np.int64)
        self.leaf_row = np.zeros(3, np.int64)
        self.best = np.zeros(MAX_MOVES, np.int64)
        self.choice_row = np.zeros(4, np.int64)
        self.count = 0
        self._entries: dict[Callable[..., Any], Callable[..., Any]] = {}

    def _call(self, function: Callable[..., Any], *arguments: Any) -> Any:
        """``function(*arguments)``, through its entry point after the first call."""
        entry = self._entries.get(function)
        if entry is not None:
            return entry(*arguments)
        result = function(*arguments)
        self._entries[function] = entry_point(function, *arguments)
        return result

    @property
    def turn(self) -> int:
        return int(self.compiled.state[0])

    def _room(self, more: int) -> None:
        """Grow the move stack (and the history) so that ``more`` moves fit."""
        cells, state, history, undo = self.compiled
        made = int(state[MADE])
        if made + more < undo.shape[0] and int(state[HISTORY_LENGTH]) + more < history.shape[0]:
            return
        room = 2 * (undo.shape[0] + more)
        grown_history = np.zeros(history.shape[0] + room, np.uint64)
        grown_history[: history.shape[0]] = history
        grown_undo = np.zeros((room, undo.shape[1]), np.int64)
        grown_undo[: undo.shape[0]] = undo
        grown_played = np.zeros((room, MOVE_WIDTH), np.int64)
        grown_played[: self.played.shape[0]] = self.played
        self.compiled = CompiledBoard(cells, state, grown_history, grown_undo)
        self.played = grown_played

    def push_all(self, moves: Sequence[RawMove]) -> None:
        if not moves:
            return
        self._room(len(moves) + 1)
        made = int(self.compiled.state[MADE])
        played = self.played
        for offset, (frm, to, _, landings) in enumerate(moves):
            row = played[made + offset]
            if landings is None:
                row[:3] = (frm, to, 0)
            else:
                taken = [(a + b) // 2 for a, b in itertools.pairwise(landings)]
                row[:3] = (frm, to, len(taken))
                row[MOVE_FIRST_TAKEN : MOVE_FIRST_TAKEN + len(taken)] = taken
        self._call(make_all, self.compiled, self.rules, played, len(moves))

    def pop_all(self, count: int) -> None:
        if count:
            self._call(unmake_all, self.compiled, self.played, count)

    def end_by_move(self) -> int:
        _, state, history, _ = self.compiled
        return int(end_by_move(state, history, self.rules.switches, self.rules.advancement))

    def winner(self, code: int) -> int | None:
        state = self.compiled.state
        return _winner(int(winner(code, state, self.rules.switches, self.rules.advancement)))

    def scored_moves(self) -> list[ScoredMove]:
        self._room(1)
        n = self._call(
            score_moves,
            self.compiled,
            self.rules,
            self.scoring,
            self.moves_buffer,
            self.replies,
            self.stack,
            self.scores,
        )
        if n < 0:
            raise OverflowError(f"a position has more than {MAX_MOVES} moves")
        rows = self.moves_buffer[:n].tolist()
        return [
            ScoredMove(MoveRecord.from_row(row).raw(), code, _winner(side), value)
            for row, (code, side, value) in zip(rows, self.scores[:n].tolist(), strict=True)
        ]

    def leaf(self, must_capture_counts: bool) -> Leaf | None:
        found = self._call(
            judge_leaf,
            self.compiled,
            self.rules,
            self.scoring,
            self.moves_buffer,
            self.stack,
            must_capture_counts,
            self.leaf_row,
        )
        if not found:
            return None
        code, side, value = self.leaf_row.tolist()
        return Leaf(code, _winner(side), value)

    def choices(self) -> PlyChoices:
        self._call(
            ply_choices,
            self.compiled,
            self.rules,
            self.moves_buffer,
            self.stack,
            self.best,
            self.choice_row,
        )
        count, capturing, best, captain_last = self.choice_row.tolist()
        if count < 0:
            raise OverflowError(f"a position has more than {MAX_MOVES} moves")
        self.count = count
        return PlyChoices(count, bool(capturing), best, bool(captain_last))

    def play_best_capture(self, index: int) -> None:
        self._room(1)
        self._call(
            play_row,
            self.compiled,
            self.rules,
            self.moves_buffer,
            int(self.best[index]),
            self.played,
        )

    def play_only_move(self) -> None:
        self._room(1)
        self._call(play_row, self.compiled, self.rules, self.moves_buffer, 0, self.played)

    def play_sampled(self, indices: Sequence[int], with_captain: bool) -> None:
        self._room(2)
        self._call(
            play_sampled,
            self.compiled,
            self.rules,
            self.scoring,
            self.moves_buffer,
            self.count,
            np.array(indices, np.int64),
            with_captain,
            self.played,
        )


def warm_up() -> None:
    """Load (or compile) the compiled functions by a few calls on the start of ``cooper``."""
    start = Position.start("cooper")
    board = CompiledMctsBoard(start.board(), Evaluator(start.rules))
    moves = board.scored_moves()
    board.push_all([moves[0].move])
    board.leaf(True)
    board.end_by_move()
    board.winner(bitboard.CENTER_REACHED)
    choices = board.choices()
    board.play_sampled([0, 1], choices.captain_last)
    board.choices()
    board.play_only_move()
    board.pop_all(3)
