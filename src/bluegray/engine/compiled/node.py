"""A node of the compiled search (numba): entering a position (the stop and the node limit, the
table's cut, reverse futility pruning, its moves generated and ordered, whether to try a null
move first), the null move itself, and the value of a quiet or finished position.
"""

from __future__ import annotations

import numpy as np

from bluegray.engine import parameters
from bluegray.engine.compiled.board import (
    CAPTAIN,
    STALEMATE,
    CompiledBoard,
    CompiledRules,
    is_impasse,
    winner,
)
from bluegray.engine.compiled.compiler import compiled, use_source_keyed_cache
from bluegray.engine.compiled.evaluation import CompiledEvaluation, evaluate
from bluegray.engine.compiled.frames import (
    ALPHA,
    BEST,
    BEST_MOVE,
    BETA,
    CONTEMPT,
    DEPTH,
    FADE,
    FRAMES,
    GENERATION,
    IMPASSE_PLIES,
    INDEX,
    KIND,
    MOVES,
    NODE_LIMIT,
    NODES,
    NOT_STORED,
    NULL_PENDING,
    ORIGINAL_ALPHA,
    OVERFLOW,
    PENDING,
    QPLY,
    REDUCTION,
    ROOT_SIDE,
    SELDEPTH,
    STAGE,
    STOPPED,
    SearchArrays,
)
from bluegray.engine.compiled.moves import generate_captures, generate_moves, has_capture
from bluegray.engine.compiled.network import WIDTH, corrected, network_value, push_null
from bluegray.engine.compiled.ordering import order_moves
from bluegray.engine.compiled.table import (
    entry_depth,
    entry_flag,
    entry_generation,
    entry_move,
    entry_score,
    position_key,
)
from bluegray.engine.limits import DECIDED, IMPASSE_WIN, INFINITY, MAX_PLY, WIN
from bluegray.engine.parameters import (
    FUTILITY_DEPTH,
    FUTILITY_MARGIN,
    NULL_MOVE_COUNT_MARGIN,
    NULL_MOVE_SOLDIERS,
    QUIESCENCE_PLIES,
)
from bluegray.engine.records import (
    CAPTAIN_POINT,
    COUNT,
    EMPTY,
    EXACT,
    HISTORY_LENGTH,
    LOWER,
    MADE,
    MOVE_TAKEN,
    TURN,
    UNDO_COUNT,
)
from bluegray.points import CENTER

use_source_keyed_cache()

faded = compiled(inline=True)(parameters.faded)


@compiled(inline=True)
def terminal_score(
    code: int, ply: int, mover: int, state: np.ndarray, rules: CompiledRules, control: np.ndarray
) -> int:
    """The score, for the side that just moved, of a game that has ended at ``ply``."""
    won = winner(code, state, rules.switches, rules.advancement)
    if won < 0:
        return -control[CONTEMPT] if mover == control[ROOT_SIDE] else control[CONTEMPT]
    base = IMPASSE_WIN if is_impasse(code, rules.switches) else WIN
    return base - ply if won == mover else ply - base


@compiled()
def can_step(cells: np.ndarray, side: int, private_steps: np.ndarray) -> bool:
    """``Board.can_step`` on the compiled board: a cheap test that the side to move is not
    stalemated (one of its soldiers has an empty point beside it or ahead)."""
    for point in range(81):
        code = cells[point]
        if code == 0 or code >> 2 != side or code & 3 == CAPTAIN:
            continue
        for index in range(3):
            to = private_steps[side, point, index]
            if to >= 0 and to != CENTER and cells[to] == 0:
                return True
    return False


@compiled()
def soldiers(cells: np.ndarray, side: int) -> int:
    """How many soldiers ``side`` has."""
    n = 0
    for code in cells:
        if code and code >> 2 == side and code & 3 != CAPTAIN:
            n += 1
    return n


@compiled(inline=True)
def static_value(
    board: CompiledBoard,
    rules: CompiledRules,
    scoring: CompiledEvaluation,
    arrays: SearchArrays,
    ply: int,
) -> int:
    """A quiet position's value: the evaluation (remembered by hash and count), or the end of a
    stalemated game."""
    cells, state, history, _ = board
    control = arrays.control
    static_keys, static_values = arrays.static_keys, arrays.static_values
    key = history[state[HISTORY_LENGTH] - 1] ^ np.uint64(state[COUNT])
    slot = key & np.uint64(static_keys.shape[0] - 1)
    if static_keys[slot] == key and static_values[slot] != NOT_STORED:
        return static_values[slot]
    side = state[TURN]
    if not can_step(cells, side, rules.private_steps):
        buffer = arrays.buffers[FRAMES - 1]
        if generate_moves(cells, state, rules, buffer, arrays.work) == 0:
            return -terminal_score(STALEMATE, ply, side ^ 1, state, rules, control)
    value = evaluate(cells, state, rules, scoring)
    if scoring.network.shape[WIDTH]:
        value = corrected(value, network_value(state, scoring.network))
    if control[FADE] > 0:
        value = faded(value, state[COUNT], control[IMPASSE_PLIES], control[FADE])
    static_keys[slot] = key
    static_values[slot] = value
    return value


@compiled(inline=True)
def enter(
    board: CompiledBoard,
    rules: CompiledRules,
    scoring: CompiledEvaluation,
    arrays: SearchArrays,
    ply: int,
    kind: int,
    depth: int,
    alpha: int,
    beta: int,
    qply: int,
) -> int:
    """Start searching the position on the board at ``ply``: return its value when that needs
    no moves searched (a leaf, a table hit, a stalemate, a stop), else set up the frame and
    return ``PENDING``."""
    cells, state, history, _ = board
    control = arrays.control
    guard_jumps, private_jumps = rules.guard_jumps, rules.private_jumps
    if kind == 0 and (depth <= 0 or ply >= MAX_PLY):
        kind = 1
        qply = 0
    if (control[NODE_LIMIT] and control[NODES] >= control[NODE_LIMIT]) or arrays.stop[0]:
        control[STOPPED] = 1
        return 0
    control[NODES] += 1
    if ply > control[SELDEPTH]:
        control[SELDEPTH] = ply
    frame = arrays.frames[ply]
    moves = arrays.buffers[ply]
    order = arrays.orders[ply]
    if kind == 1:
        if qply >= QUIESCENCE_PLIES or not has_capture(cells, state, guard_jumps, private_jumps):
            return static_value(board, rules, scoring, arrays, ply)
        n = generate_captures(
            cells, state, rules.switches, guard_jumps, private_jumps, moves, arrays.work
        )
        if n < 0:
            control[OVERFLOW] = 1
            control[STOPPED] = 1
            return 0
        for i in range(n):
            order[i] = i
    else:
        key = position_key(state, history, control)
        slot = key & np.uint64(arrays.tt_keys.shape[0] - 1)
        tt_move = -1
        if arrays.tt_keys[slot] == key and arrays.tt_data[slot] != EMPTY:
            data = arrays.tt_data[slot]
            tt_move = entry_move(data)
            # A score from an earlier search (an earlier move of the game) may be wrong now: it
            # was computed with a shorter game history, so a repetition that ends the game now
            # was not one then. Its move still orders the search.
            if entry_depth(data) >= depth and entry_generation(data) == control[GENERATION]:
                score = entry_score(data)
                if score > DECIDED:
                    score -= ply
                elif score < -DECIDED:
                    score += ply
                flag = entry_flag(data)
                if flag == EXACT:
                    return score
                if flag == LOWER:
                    if score >= beta:
                        return score
                elif score <= alpha:
                    return score
        if (
            beta - alpha == 1
            and depth <= FUTILITY_DEPTH
            and abs(beta) < DECIDED
            and not has_capture(cells, state, guard_jumps, private_jumps)
        ):
            # Reverse futility pruning.
            static = static_value(board, rules, scoring, arrays, ply)
            if abs(static) < DECIDED and static - FUTILITY_MARGIN * depth >= beta:
                return static
        n = generate_moves(cells, state, rules, moves, arrays.work)
        if n < 0:
            control[OVERFLOW] = 1
            control[STOPPED] = 1
            return 0
        side = state[TURN]
        if n == 0:
            return -terminal_score(STALEMATE, ply, side ^ 1, state, rules, control)
        if n > 1:
            order_moves(
                moves,
                n,
                order,
                arrays.order_keys,
                tt_move,
                state[CAPTAIN_POINT + side],
                arrays.killers[ply],
                arrays.history,
            )
        else:
            order[0] = 0
    frame[KIND] = kind
    frame[DEPTH] = depth
    frame[ALPHA] = alpha
    frame[BETA] = beta
    frame[ORIGINAL_ALPHA] = alpha
    frame[BEST] = -INFINITY
    frame[BEST_MOVE] = order[0]
    frame[MOVES] = n
    frame[INDEX] = 0
    frame[STAGE] = 0
    if (
        kind == 0
        and beta - alpha == 1
        and depth >= 3
        and n > 1
        and not moves[0, MOVE_TAKEN]
        and abs(beta) < DECIDED
        and state[COUNT] + NULL_MOVE_COUNT_MARGIN < control[IMPASSE_PLIES]
        and soldiers(cells, state[TURN]) >= NULL_MOVE_SOLDIERS
        and static_value(board, rules, scoring, arrays, ply) >= beta
    ):
        frame[STAGE] = NULL_PENDING  # a pass first
    frame[REDUCTION] = 0
    frame[QPLY] = qply
    return PENDING


@compiled(inline=True)
def make_null(
    state: np.ndarray,
    history: np.ndarray,
    undo: np.ndarray,
    zobrist_gray: np.uint64,
    scoring: CompiledEvaluation,
) -> None:
    """Pass the turn (as ``Board.push_null``): the count restarts (and the network's
    accumulators follow it)."""
    row = undo[state[MADE]]
    row[UNDO_COUNT] = state[COUNT]
    history[state[HISTORY_LENGTH]] = history[state[HISTORY_LENGTH] - 1] ^ zobrist_gray
    state[HISTORY_LENGTH] += 1
    state[MADE] += 1
    state[COUNT] = 0
    state[TURN] ^= 1
    if scoring.network.shape[WIDTH]:
        push_null(state, undo, scoring.network)


@compiled(inline=True)
def unmake_null(state: np.ndarray, undo: np.ndarray) -> None:
    """Take back a null move."""
    state[MADE] -= 1
    state[HISTORY_LENGTH] -= 1
    state[COUNT] = undo[state[MADE]][UNDO_COUNT]
    state[TURN] ^= 1


__all__ = ["enter", "make_null", "static_value", "terminal_score", "unmake_null"]
