"""The compiled kernel of the search (numba): what ``plainsearch`` does, node by node in the same
order with the same table (see ``kernel``), several times faster.

The recursion is written as a loop over an explicit stack of frames, one per ply, because numba's
on-disk cache cannot hold recursive functions (it crashes when it loads them). A stop (a deadline
or an interface's cancel, ``request_stop``) is told to the compiled code through a one-element
array that another Python thread sets; the compiled search releases the GIL so that it can.

This module holds the search's main loop, its root and the Python kernel around them; a node's
entry and leaves are ``compiled.node``'s, the move ordering ``compiled.ordering``'s, the table
``compiled.table``'s and the arrays' layout ``compiled.frames``'s. The board, the rule set's
tables, the evaluation's tables and the search's own arrays travel as four named tuples
(``compiled.board.CompiledBoard``, ``compiled.board.CompiledRules``,
``compiled.evaluation.CompiledEvaluation``, ``compiled.frames.SearchArrays``); a record's fields
are read through the constants and accessors of ``records``, compiled from the very functions the
plain kernel calls.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from bluegray import bitboard
from bluegray.bitboard import Board
from bluegray.engine.compiled.board import (
    CompiledBoard,
    CompiledRules,
    compiled_board,
    compiled_rules,
    end_by_move,
    make,
    unmake,
)
from bluegray.engine.compiled.cache import mark_ready
from bluegray.engine.compiled.compiler import NUMBA_VERSION, compiled, use_source_keyed_cache
from bluegray.engine.compiled.evaluation import CompiledEvaluation, compiled_evaluation
from bluegray.engine.compiled.frames import (
    ALPHA,
    BEST,
    BEST_MOVE,
    BETA,
    CONTEMPT,
    CONTROL_SIZE,
    DEPTH,
    FADE,
    FRAME_WIDTH,
    FRAMES,
    FULL_WINDOW,
    GENERATION,
    IMPASSE_PLIES,
    INDEX,
    KIND,
    MOVES,
    NARROW,
    NEAR_LIMIT,
    NODE_LIMIT,
    NODES,
    NOT_STORED,
    NULL_OUT,
    NULL_PENDING,
    ORIGINAL_ALPHA,
    OVERFLOW,
    PENDING,
    QPLY,
    REDUCTION,
    ROOT_SIDE,
    SEARCH_MOVES,
    SELDEPTH,
    STAGE,
    STOPPED,
    SearchArrays,
)
from bluegray.engine.compiled.moves import capture_stack, generate_moves
from bluegray.engine.compiled.network import WIDTH, push_move, refresh
from bluegray.engine.compiled.node import enter, make_null, terminal_score, unmake_null
from bluegray.engine.compiled.ordering import reward_cutoff
from bluegray.engine.compiled.table import position_key, store_entry
from bluegray.engine.evaluation import Evaluator
from bluegray.engine.kernel import STATIC_ENTRIES, Kernel, KernelOverflowError, Memory
from bluegray.engine.limits import DECIDED, INFINITY
from bluegray.engine.parameters import (
    DEEP_REDUCTION_INDEX,
    FUTILITY_DEPTH,
    LATE_MOVE_COUNT,
    NULL_MOVE_REDUCTION,
    REDUCED_FROM_INDEX,
    counted_from,
)
from bluegray.engine.records import (
    CAPTAIN_POINT,
    EMPTY,
    EXACT,
    LOWER,
    MOVE_FROM,
    MOVE_TAKEN,
    MOVE_TO,
    MOVE_WIDTH,
    TURN,
    UPPER,
    TableEntry,
)
from bluegray.position import Position

use_source_keyed_cache()


# -- the search --------------------------------------------------------------------------


@compiled()
def _unwind(board: CompiledBoard, arrays: SearchArrays, top: int, bottom: int) -> None:
    """Take back the move each frame from ``top`` down to ``bottom`` is searching."""
    cells, state, _, undo = board
    buffers, frames, orders = arrays.buffers, arrays.frames, arrays.orders
    for ply in range(top, bottom - 1, -1):
        if frames[ply, STAGE] == NULL_OUT:
            unmake_null(state, undo)
        else:
            unmake(cells, state, undo, buffers[ply][orders[ply][frames[ply, INDEX]]])


@compiled()
def _search(
    board: CompiledBoard,
    rules: CompiledRules,
    scoring: CompiledEvaluation,
    arrays: SearchArrays,
    depth: int,
    alpha: int,
    beta: int,
    base: int,
) -> int:
    """The negamax value of the position on the board, searched to ``depth`` from ply
    ``base``; 0 with ``control[STOPPED]`` set when a limit stopped it."""
    cells, state, history, undo = board
    advancement, switches = rules.advancement, rules.switches
    zobrist, zobrist_gray = rules.zobrist, rules.zobrist_gray
    control, buffers, frames, orders = arrays.control, arrays.buffers, arrays.frames, arrays.orders
    killers, history_table = arrays.killers, arrays.history
    # Checked here, not in ``push_move``: a call with the network's arrays costs time.
    with_network = scoring.network.shape[WIDTH] > 0
    value = enter(board, rules, scoring, arrays, base, 0, depth, alpha, beta, 0)
    if value != PENDING or control[STOPPED]:
        return value
    ply = base
    have_score = False
    score = 0
    while True:
        moves = buffers[ply]
        order = orders[ply]
        # What the next child search is: kind, depth, window and quiescence ply.
        launch = False
        child_kind = child_depth = child_alpha = child_beta = child_qply = 0
        if have_score and frames[ply, STAGE] == NULL_OUT:
            # The reply to a pass: if the side still beats beta, cut off.
            have_score = False
            unmake_null(state, undo)
            frames[ply, STAGE] = 0
            if score >= frames[ply, BETA]:
                if score > DECIDED:
                    score = frames[ply, BETA]  # a line with a pass in it proves no win
                frames[ply, BEST] = score
                frames[ply, INDEX] = frames[ply, MOVES]
        elif have_score:
            have_score = False
            index = frames[ply, INDEX]
            move = order[index]
            if (
                frames[ply, KIND] == 0
                and frames[ply, STAGE] == NARROW
                and score > frames[ply, ALPHA]
                and (frames[ply, REDUCTION] or score < frames[ply, BETA])
            ):
                # The narrow (or reduced) search failed high: search again, full window.
                frames[ply, STAGE] = FULL_WINDOW
                child_depth = frames[ply, DEPTH] - 1
                child_alpha, child_beta = -frames[ply, BETA], -frames[ply, ALPHA]
                launch = True
            else:
                unmake(cells, state, undo, moves[move])
                cutoff = False
                if score > frames[ply, BEST]:
                    frames[ply, BEST] = score
                    frames[ply, BEST_MOVE] = move
                    if score > frames[ply, ALPHA]:
                        frames[ply, ALPHA] = score
                        if score >= frames[ply, BETA]:
                            cutoff = True
                            if frames[ply, KIND] == 0 and not moves[0, MOVE_TAKEN]:
                                depth_here = frames[ply, DEPTH]
                                reward_cutoff(
                                    moves, order, index, depth_here, killers[ply], history_table
                                )
                frames[ply, INDEX] = frames[ply, MOVES] if cutoff else index + 1
        if not launch and frames[ply, STAGE] == NULL_PENDING:
            frames[ply, STAGE] = NULL_OUT
            make_null(state, history, undo, zobrist_gray, scoring)
            launch = True
            child_depth = frames[ply, DEPTH] - 1 - NULL_MOVE_REDUCTION
            child_alpha, child_beta = -frames[ply, BETA], -frames[ply, BETA] + 1
        if not launch:
            index = frames[ply, INDEX]
            if index >= frames[ply, MOVES]:
                best = frames[ply, BEST]
                if frames[ply, KIND] == 0:
                    if best <= frames[ply, ORIGINAL_ALPHA]:
                        flag = UPPER
                    elif best >= frames[ply, BETA]:
                        flag = LOWER
                    else:
                        flag = EXACT
                    key = position_key(state, history, control)
                    depth_here = frames[ply, DEPTH]
                    best_move = frames[ply, BEST_MOVE]
                    store_entry(arrays, key, depth_here, flag, best, best_move, ply)
                if ply == base:
                    return best
                ply -= 1
                score = -best
                have_score = True
                continue
            move = order[index]
            side = state[TURN]
            depth_here = frames[ply, DEPTH]
            if (
                frames[ply, KIND] == 0
                and depth_here <= FUTILITY_DEPTH
                and frames[ply, BETA] - frames[ply, ORIGINAL_ALPHA] == 1
                and index >= LATE_MOVE_COUNT + depth_here * depth_here
                and not moves[move, MOVE_TAKEN]
                and moves[move, MOVE_FROM] != state[CAPTAIN_POINT + side]
                and frames[ply, BEST] > -DECIDED
            ):
                # Late move pruning (as ``Searcher._negamax``): the rest are not searched.
                frames[ply, INDEX] = frames[ply, MOVES]
                continue
            make(cells, state, history, undo, moves[move], zobrist, zobrist_gray)
            if with_network:
                push_move(cells, state, undo, moves[move], advancement, scoring.network)
            code = end_by_move(state, history, switches, advancement)
            if code:
                score = terminal_score(code, ply + 1, side, state, rules, control)
                frames[ply, STAGE] = FULL_WINDOW
                have_score = True
                continue
            child_alpha, child_beta = -frames[ply, BETA], -frames[ply, ALPHA]
            if frames[ply, KIND] == 1:
                child_kind = 1
                child_qply = frames[ply, QPLY] + 1
            elif index == 0:
                frames[ply, STAGE] = FULL_WINDOW
                child_depth = frames[ply, DEPTH] - 1
            else:
                reduction = 0
                # Late quiet moves are searched shallower first (never a captain move).
                if (
                    frames[ply, DEPTH] >= 3
                    and index >= REDUCED_FROM_INDEX
                    and not moves[move, MOVE_TAKEN]
                    and moves[move, MOVE_TO] != state[CAPTAIN_POINT + side]
                ):
                    reduction = 1
                    if frames[ply, DEPTH] >= 5 and index >= DEEP_REDUCTION_INDEX:
                        reduction = 2
                frames[ply, REDUCTION] = reduction
                frames[ply, STAGE] = NARROW
                child_depth = frames[ply, DEPTH] - 1 - reduction
                child_alpha = -frames[ply, ALPHA] - 1
        child = enter(
            board,
            rules,
            scoring,
            arrays,
            ply + 1,
            child_kind,
            child_depth,
            child_alpha,
            child_beta,
            child_qply,
        )
        if control[STOPPED]:
            _unwind(board, arrays, ply, base)
            return 0
        if child == PENDING:
            ply += 1
            continue
        score = -child
        have_score = True


@compiled(nogil=True)
def _score_root_move(
    board: CompiledBoard,
    rules: CompiledRules,
    scoring: CompiledEvaluation,
    arrays: SearchArrays,
    index: int,
    depth: int,
    alpha: int,
    beta: int,
) -> int:
    """``Kernel.score_move``: the root move ``index`` (a row of the first move buffer) searched
    to ``depth`` within ``(alpha, beta)``, for the side to move at the root."""
    cells, state, history, undo = board
    move = arrays.buffers[0][index]
    side = state[TURN]
    make(cells, state, history, undo, move, rules.zobrist, rules.zobrist_gray)
    if scoring.network.shape[WIDTH]:
        push_move(cells, state, undo, move, rules.advancement, scoring.network)
    code = end_by_move(state, history, rules.switches, rules.advancement)
    if code:
        score = terminal_score(code, 1, side, state, rules, arrays.control)
    else:
        score = -_search(board, rules, scoring, arrays, depth - 1, -beta, -alpha, 1)
    unmake(cells, state, undo, move)
    return score


@compiled()
def _store_root(
    board: CompiledBoard, arrays: SearchArrays, depth: int, score: int, index: int
) -> None:
    """``Kernel.store_root``: the root's exact score and best move."""
    _, state, history, _ = board
    store_entry(arrays, position_key(state, history, arrays.control), depth, EXACT, score, index, 0)


class CompiledKernel(Kernel):
    """The compiled kernel for one rule set, evaluator and fade (see ``kernel.Kernel``): the
    compiled search's memory (the table, the static evaluations, killers, history, the move
    buffers and frames), kept between searches."""

    name: ClassVar[str] = "compiled"

    def __init__(
        self, evaluator: Evaluator, slots: int, fade: int = 0, memory: Memory | None = None
    ) -> None:
        tables = bitboard.rule_tables(evaluator.rules)
        self._rules = compiled_rules(tables)
        self._scoring = compiled_evaluation(evaluator)
        self._near_limit = counted_from(tables.impasse_plies, fade)
        control = np.zeros(CONTROL_SIZE, np.int64)
        control[IMPASSE_PLIES] = tables.impasse_plies
        control[FADE] = fade
        control[NEAR_LIMIT] = self._near_limit
        statics = min(slots, STATIC_ENTRIES)
        self._arrays = SearchArrays(
            control=control,
            buffers=np.zeros((FRAMES, SEARCH_MOVES, MOVE_WIDTH), np.int64),
            frames=np.zeros((FRAMES, FRAME_WIDTH), np.int64),
            orders=np.zeros((FRAMES, SEARCH_MOVES), np.int64),
            static_keys=np.zeros(statics, np.uint64),
            static_values=np.full(statics, NOT_STORED, np.int64),
            tt_keys=np.zeros(slots, np.uint64),
            tt_data=np.zeros(slots, np.int64),
            killers=np.full((FRAMES, 2, 2), -1, np.int64),
            history=np.zeros((81, 81), np.int64),
            order_keys=np.zeros(SEARCH_MOVES, np.int64),
            stop=np.zeros(1, np.int64),
            work=capture_stack(),
        )
        if memory is not None:
            arrays = self._arrays
            arrays.tt_keys[:] = np.array(memory.table_keys, dtype=np.uint64)
            arrays.tt_data[:] = memory.table_data
            arrays.history[:] = np.array(memory.history, dtype=np.int64).reshape(81, 81)
        self._board: CompiledBoard | None = None

    def start(self, board: Board, *, generation: int, node_limit: int, contempt: int) -> int:
        self._board = compiled_board(board, FRAMES + 1)
        arrays = self._arrays
        control = arrays.control
        control[NODES] = 0
        control[SELDEPTH] = 0
        control[GENERATION] = generation
        control[NODE_LIMIT] = node_limit
        control[STOPPED] = 0
        control[OVERFLOW] = 0
        control[ROOT_SIDE] = board.turn
        control[CONTEMPT] = contempt
        arrays.killers[:] = -1
        arrays.stop[0] = 0
        self.nodes = self.seldepth = 0
        self.stopped = False
        cells, state, _, _ = self._board
        refresh(cells, state, self._rules.advancement, self._scoring.network)
        n = generate_moves(cells, state, self._rules, arrays.buffers[0], arrays.work)
        if n < 0:
            raise KernelOverflowError(f"a root position with more than {SEARCH_MOVES} moves")
        return int(n)

    def score_move(self, index: int, depth: int, alpha: int, beta: int) -> int:
        assert self._board is not None
        arrays = self._arrays
        score = _score_root_move(
            self._board, self._rules, self._scoring, arrays, index, depth, alpha, beta
        )
        control = arrays.control
        if control[OVERFLOW]:
            raise KernelOverflowError(f"a position with more than {SEARCH_MOVES} moves")
        self.nodes = int(control[NODES])
        self.seldepth = int(control[SELDEPTH])
        self.stopped = bool(control[STOPPED])
        return 0 if self.stopped else int(score)

    def begin_iteration(self) -> None:
        super().begin_iteration()
        self._arrays.control[SELDEPTH] = 0

    def store_root(self, depth: int, score: int, index: int) -> None:
        assert self._board is not None
        _store_root(self._board, self._arrays, depth, score, index)

    def probe(self, key: int) -> TableEntry | None:
        keys, data = self._arrays.tt_keys, self._arrays.tt_data
        slot = key & (len(keys) - 1)
        if int(keys[slot]) != key or data[slot] == EMPTY:
            return None
        return TableEntry.unpack(int(data[slot]))

    def request_stop(self) -> None:
        self._arrays.stop[0] = 1

    def memory(self) -> Memory:
        arrays = self._arrays
        return Memory(
            arrays.tt_keys.tolist(), arrays.tt_data.tolist(), arrays.history.ravel().tolist()
        )

    def new_game(self) -> None:
        arrays = self._arrays
        arrays.tt_keys[:] = 0
        arrays.tt_data[:] = EMPTY
        arrays.static_values[:] = NOT_STORED
        arrays.history[:] = 0

    @property
    def stored_positions(self) -> int:
        return int(np.count_nonzero(self._arrays.tt_data))


def warm_up() -> None:
    """Load every compiled function the kernel calls (from numba's cache, or compile them) by
    searching a small position, and mark the cache ready (``compiled.cache.mark_ready``)."""
    start = Position.start("cooper")
    kernel = CompiledKernel(Evaluator(start.rules), 1 << 10)
    moves = kernel.start(start.board(), generation=1, node_limit=0, contempt=0)
    for index in range(moves):
        kernel.score_move(index, 3, -INFINITY, INFINITY)
    kernel.store_root(3, 0, 0)
    mark_ready(NUMBA_VERSION)


__all__ = ["CompiledKernel", "SearchArrays", "warm_up"]
