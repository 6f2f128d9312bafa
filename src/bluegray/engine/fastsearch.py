"""The compiled kernel of the search (numba): what ``plainsearch`` does, node by node in the same
order with the same table (see ``kernel``), several times faster.

The recursion is written as a loop over an explicit stack of frames, one per ply, because numba's
on-disk cache cannot hold recursive functions (it crashes when it loads them). A stop (a deadline
or an interface's cancel, ``request_stop``) is told to the compiled code through a one-element
array that another Python thread sets; the compiled search releases the GIL so that it can.

The board, the rule set's tables, the evaluation's tables and the search's own arrays travel as
four named tuples (``fastboard.CompiledBoard``, ``fastboard.CompiledRules``,
``fasteval.CompiledEvaluation``, ``SearchArrays``); a record's fields are read through the
constants and accessors of ``records``, compiled from the very functions the plain kernel calls.
"""

from __future__ import annotations

from typing import ClassVar, Final, NamedTuple

import numpy as np

from bluegray import bitboard
from bluegray.bitboard import Board
from bluegray.engine import parameters, records
from bluegray.engine.compiled import NUMBA_VERSION, compiled, use_source_keyed_cache
from bluegray.engine.compiled_cache import mark_ready
from bluegray.engine.evaluation import Evaluator
from bluegray.engine.fastboard import (
    CAPTAIN,
    STALEMATE,
    CompiledBoard,
    CompiledRules,
    compiled_board,
    compiled_rules,
    end_by_move,
    is_impasse,
    make,
    unmake,
    winner,
)
from bluegray.engine.fasteval import CompiledEvaluation, compiled_evaluation, evaluate
from bluegray.engine.fastmoves import capture_stack, generate_captures, generate_moves, has_capture
from bluegray.engine.kernel import (
    STATIC_ENTRIES,
    Kernel,
    KernelOverflowError,
    Memory,
)
from bluegray.engine.limits import DECIDED, IMPASSE_WIN, INFINITY, MAX_PLY, WIN
from bluegray.engine.parameters import (
    CAPTAIN_BONUS,
    DEEP_REDUCTION_INDEX,
    FUTILITY_DEPTH,
    FUTILITY_MARGIN,
    KILLER_BONUS,
    LATE_MOVE_COUNT,
    NULL_MOVE_COUNT_MARGIN,
    NULL_MOVE_REDUCTION,
    NULL_MOVE_SOLDIERS,
    QUIESCENCE_PLIES,
    REDUCED_FROM_INDEX,
    counted_from,
)
from bluegray.engine.records import (
    CAPTAIN_POINT,
    COUNT,
    EMPTY,
    EXACT,
    HISTORY_LENGTH,
    LOWER,
    MADE,
    MOVE_FROM,
    MOVE_TAKEN,
    MOVE_TO,
    MOVE_WIDTH,
    TURN,
    UNDO_COUNT,
    UPPER,
    TableEntry,
)
from bluegray.points import CENTER
from bluegray.position import Position

use_source_keyed_cache()

FRAMES: Final = MAX_PLY + QUIESCENCE_PLIES + 2
"""Plies the stack has room for: the main search's, then the quiescence search's."""
SEARCH_MOVES: Final = 256
"""Room for the moves of one position in the search; a position with more stops the compiled
kernel (``KernelOverflowError``), and the plain one searches the move instead."""
PENDING: Final = 1 << 40
"""What ``_enter`` returns when it has set up a frame to search rather than a value."""

# control[...]: the search's counters and settings.
NODES: Final = 0
NODE_LIMIT: Final = 1
SELDEPTH: Final = 2
STOPPED: Final = 3
ROOT_SIDE: Final = 4
CONTEMPT: Final = 5
NEAR_LIMIT: Final = 6
OVERFLOW: Final = 7
FADE: Final = 8
IMPASSE_PLIES: Final = 9
GENERATION: Final = 10
"""Which search this is, modulo ``records.GENERATIONS``: table scores of earlier searches are
not trusted (see ``_enter``)."""
CONTROL_SIZE: Final = 11

# frames[ply, ...]: one ply of the search in progress.
KIND: Final = 0
"""0: the main search; 1: the quiescence search."""
DEPTH: Final = 1
ALPHA: Final = 2
BETA: Final = 3
ORIGINAL_ALPHA: Final = 4
BEST: Final = 5
BEST_MOVE: Final = 6
MOVES: Final = 7
INDEX: Final = 8
STAGE: Final = 9
"""For the main search: 1 while a move's first, narrow-window search is out; 2 for a full one."""
REDUCTION: Final = 10
QPLY: Final = 11
FRAME_WIDTH: Final = 12

NARROW: Final = 1
FULL_WINDOW: Final = 2
NULL_PENDING: Final = 3
"""The frame will try a null move before its moves (null-move pruning)."""
NULL_OUT: Final = 4
"""The frame's null move is made and its reply is being searched."""
NOT_STORED: Final = -(1 << 62)
NEAR_LIMIT_KEY: Final = np.uint64(parameters.NEAR_LIMIT_KEY)


class SearchArrays(NamedTuple):
    """The compiled kernel's own arrays, made and kept by ``CompiledKernel`` (the compiled
    functions allocate nothing)."""

    control: np.ndarray
    """The counters and settings: ``NODES``, ``NODE_LIMIT``, ... ."""
    buffers: np.ndarray
    """A move buffer a ply (move rows, ``records.MOVE_WIDTH`` wide)."""
    frames: np.ndarray
    """A frame a ply (``KIND``, ``DEPTH``, ...)."""
    orders: np.ndarray
    """A ply's order to try its moves in (indices into its buffer)."""
    static_keys: np.ndarray
    static_values: np.ndarray
    """Static evaluations by hash and count."""
    tt_keys: np.ndarray
    tt_data: np.ndarray
    """The transposition table: a slot's key and packed entry (``records.pack_entry``)."""
    killers: np.ndarray
    """Two killer moves (from, to) a ply."""
    history: np.ndarray
    """The history of quiet moves, by (from, to)."""
    order_keys: np.ndarray
    """Working space of ``_order``."""
    stop: np.ndarray
    """One element: set to stop the search."""
    work: np.ndarray
    """The move generator's working space (``fastmoves.capture_stack``)."""


# -- the compiled twins of the shared functions ---------------------------------------------

_pack_entry = compiled(inline=True)(records.pack_entry)
_entry_score = compiled(inline=True)(records.entry_score)
_entry_move = compiled(inline=True)(records.entry_move)
_entry_flag = compiled(inline=True)(records.entry_flag)
_entry_depth = compiled(inline=True)(records.entry_depth)
_entry_generation = compiled(inline=True)(records.entry_generation)
_faded = compiled(inline=True)(parameters.faded)


# -- small pieces ------------------------------------------------------------------------


@compiled(inline=True)
def _store(
    arrays: SearchArrays,
    key: np.uint64,
    depth: int,
    flag: int,
    score: int,
    move: int,
    ply: int,
) -> None:
    """Store an entry in the transposition table (its slot is always replaced)."""
    # Decided scores are stored relative to this node, so they stay right at any ply.
    if score > DECIDED:
        score += ply
    elif score < -DECIDED:
        score -= ply
    slot = key & np.uint64(arrays.tt_keys.shape[0] - 1)
    arrays.tt_keys[slot] = key
    arrays.tt_data[slot] = _pack_entry(depth, flag, score, move, arrays.control[GENERATION])


@compiled(inline=True)
def _terminal(
    code: int, ply: int, mover: int, state: np.ndarray, rules: CompiledRules, control: np.ndarray
) -> int:
    """The score, for the side that just moved, of a game that has ended at ``ply``."""
    won = winner(code, state, rules.switches, rules.advancement)
    if won < 0:
        return -control[CONTEMPT] if mover == control[ROOT_SIDE] else control[CONTEMPT]
    base = IMPASSE_WIN if is_impasse(code, rules.switches) else WIN
    return base - ply if won == mover else ply - base


@compiled()
def _can_step(cells: np.ndarray, side: int, private_steps: np.ndarray) -> bool:
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


@compiled(inline=True)
def _key(state: np.ndarray, history: np.ndarray, control: np.ndarray) -> np.uint64:
    """``kernel.table_key`` on the compiled board: near the no-progress limit the count changes
    what a position is worth."""
    h = history[state[HISTORY_LENGTH] - 1]
    count = state[COUNT]
    if count >= control[NEAR_LIMIT]:
        return h ^ (np.uint64(count) * NEAR_LIMIT_KEY)
    return h


@compiled()
def _order(
    moves: np.ndarray,
    n: int,
    order: np.ndarray,
    keys: np.ndarray,
    tt_move: int,
    captain: int,
    killers: np.ndarray,
    history_table: np.ndarray,
) -> None:
    """Write the order to try the moves in: the hash move, then captures taking most, or
    killers, the captain's move (progress) and then by history; ties keep generation order."""
    for i in range(n):
        order[i] = i
        if moves[0, MOVE_TAKEN]:
            keys[i] = moves[i, MOVE_TAKEN]
        else:
            frm = moves[i, MOVE_FROM]
            to = moves[i, MOVE_TO]
            value = history_table[frm, to]
            if frm == captain:
                value += CAPTAIN_BONUS
            if killers[0, 0] == frm and killers[0, 1] == to:
                value += KILLER_BONUS
            if killers[1, 0] == frm and killers[1, 1] == to:
                value += KILLER_BONUS >> 1
            keys[i] = value
    for i in range(1, n):  # insertion sort, best first, stable
        item = order[i]
        value = keys[item]
        j = i - 1
        while j >= 0 and keys[order[j]] < value:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = item
    if 0 <= tt_move < n and order[0] != tt_move:
        j = 0
        while order[j] != tt_move:
            j += 1
        while j > 0:
            order[j] = order[j - 1]
            j -= 1
        order[0] = tt_move


@compiled()
def _reward(
    moves: np.ndarray,
    order: np.ndarray,
    index: int,
    depth: int,
    killers: np.ndarray,
    history_table: np.ndarray,
) -> None:
    """A quiet move cut off: make it a killer, raise its history, lower the quiet moves tried
    before it."""
    best = order[index]
    frm = moves[best, MOVE_FROM]
    to = moves[best, MOVE_TO]
    if killers[0, 0] != frm or killers[0, 1] != to:
        killers[1, 0] = killers[0, 0]
        killers[1, 1] = killers[0, 1]
        killers[0, 0] = frm
        killers[0, 1] = to
    bonus = depth * depth
    history_table[frm, to] += bonus
    for i in range(index):
        other = order[i]
        history_table[moves[other, MOVE_FROM], moves[other, MOVE_TO]] -= bonus


# -- the search --------------------------------------------------------------------------


@compiled(inline=True)
def _static(
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
    if not _can_step(cells, side, rules.private_steps):
        buffer = arrays.buffers[FRAMES - 1]
        if generate_moves(cells, state, rules, buffer, arrays.work) == 0:
            return -_terminal(STALEMATE, ply, side ^ 1, state, rules, control)
    value = evaluate(cells, state, rules, scoring)
    if control[FADE] > 0:
        value = _faded(value, state[COUNT], control[IMPASSE_PLIES], control[FADE])
    static_keys[slot] = key
    static_values[slot] = value
    return value


@compiled(inline=True)
def _enter(
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
            return _static(board, rules, scoring, arrays, ply)
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
        key = _key(state, history, control)
        slot = key & np.uint64(arrays.tt_keys.shape[0] - 1)
        tt_move = -1
        if arrays.tt_keys[slot] == key and arrays.tt_data[slot] != EMPTY:
            data = arrays.tt_data[slot]
            tt_move = _entry_move(data)
            # A score from an earlier search (an earlier move of the game) may be wrong now: it
            # was computed with a shorter game history, so a repetition that ends the game now
            # was not one then. Its move still orders the search.
            if _entry_depth(data) >= depth and _entry_generation(data) == control[GENERATION]:
                score = _entry_score(data)
                if score > DECIDED:
                    score -= ply
                elif score < -DECIDED:
                    score += ply
                flag = _entry_flag(data)
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
            static = _static(board, rules, scoring, arrays, ply)
            if abs(static) < DECIDED and static - FUTILITY_MARGIN * depth >= beta:
                return static
        n = generate_moves(cells, state, rules, moves, arrays.work)
        if n < 0:
            control[OVERFLOW] = 1
            control[STOPPED] = 1
            return 0
        side = state[TURN]
        if n == 0:
            return -_terminal(STALEMATE, ply, side ^ 1, state, rules, control)
        if n > 1:
            _order(
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
        and _soldiers(cells, state[TURN]) >= NULL_MOVE_SOLDIERS
        and _static(board, rules, scoring, arrays, ply) >= beta
    ):
        frame[STAGE] = NULL_PENDING  # a pass first
    frame[REDUCTION] = 0
    frame[QPLY] = qply
    return PENDING


@compiled(inline=True)
def _make_null(
    state: np.ndarray, history: np.ndarray, undo: np.ndarray, zobrist_gray: np.uint64
) -> None:
    """Pass the turn (as ``Board.push_null``): the count restarts."""
    row = undo[state[MADE]]
    row[UNDO_COUNT] = state[COUNT]
    history[state[HISTORY_LENGTH]] = history[state[HISTORY_LENGTH] - 1] ^ zobrist_gray
    state[HISTORY_LENGTH] += 1
    state[MADE] += 1
    state[COUNT] = 0
    state[TURN] ^= 1


@compiled(inline=True)
def _unmake_null(state: np.ndarray, undo: np.ndarray) -> None:
    """Take back a null move."""
    state[MADE] -= 1
    state[HISTORY_LENGTH] -= 1
    state[COUNT] = undo[state[MADE]][UNDO_COUNT]
    state[TURN] ^= 1


@compiled()
def _soldiers(cells: np.ndarray, side: int) -> int:
    """How many soldiers ``side`` has."""
    n = 0
    for code in cells:
        if code and code >> 2 == side and code & 3 != CAPTAIN:
            n += 1
    return n


@compiled()
def _unwind(board: CompiledBoard, arrays: SearchArrays, top: int, bottom: int) -> None:
    """Take back the move each frame from ``top`` down to ``bottom`` is searching."""
    cells, state, _, undo = board
    buffers, frames, orders = arrays.buffers, arrays.frames, arrays.orders
    for ply in range(top, bottom - 1, -1):
        if frames[ply, STAGE] == NULL_OUT:
            _unmake_null(state, undo)
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
    value = _enter(board, rules, scoring, arrays, base, 0, depth, alpha, beta, 0)
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
            _unmake_null(state, undo)
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
                                _reward(
                                    moves, order, index, depth_here, killers[ply], history_table
                                )
                frames[ply, INDEX] = frames[ply, MOVES] if cutoff else index + 1
        if not launch and frames[ply, STAGE] == NULL_PENDING:
            frames[ply, STAGE] = NULL_OUT
            _make_null(state, history, undo, zobrist_gray)
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
                    key = _key(state, history, control)
                    depth_here = frames[ply, DEPTH]
                    best_move = frames[ply, BEST_MOVE]
                    _store(arrays, key, depth_here, flag, best, best_move, ply)
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
            code = end_by_move(state, history, switches, advancement)
            if code:
                score = _terminal(code, ply + 1, side, state, rules, control)
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
        child = _enter(
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
    code = end_by_move(state, history, rules.switches, rules.advancement)
    if code:
        score = _terminal(code, 1, side, state, rules, arrays.control)
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
    _store(arrays, _key(state, history, arrays.control), depth, EXACT, score, index, 0)


# -- the Python side ---------------------------------------------------------------------


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
    searching a small position, and mark the cache ready (``compiled_cache.mark_ready``)."""
    start = Position.start("cooper")
    kernel = CompiledKernel(Evaluator(start.rules), 1 << 10)
    moves = kernel.start(start.board(), generation=1, node_limit=0, contempt=0)
    for index in range(moves):
        kernel.score_move(index, 3, -INFINITY, INFINITY)
    kernel.store_root(3, 0, 0)
    mark_ready(NUMBA_VERSION)


__all__ = ["CompiledKernel", "SearchArrays", "warm_up"]
