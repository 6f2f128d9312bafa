"""The alpha-beta search compiled with numba: the same algorithm as ``search.Searcher`` (which
uses it when numba is installed), some twenty times faster.

Everything ``Searcher`` does is here: iterative deepening driven from Python, principal
variation search with a transposition table, the hash move, killers and history for move
ordering, late-move reductions, null-move, reverse futility and late move pruning, the
quiescence search over forced captures, the rules' own game
ends (repetition and no progress exact), contempt, node and time limits. The recursion is
written as a loop over an explicit stack of frames, one per ply, because numba's on-disk cache
cannot hold recursive functions (it crashes when it loads them).

Time limits and interface cancels are told to the compiled code through a one-element array
that a Python thread sets; the compiled search releases the GIL so that the thread can run.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Final

import numpy as np

from bluegray import bitboard
from bluegray.bitboard import Board, RawMove
from bluegray.engine import fastboard as fb
from bluegray.engine.compiled_cache import compiled, use_source_keyed_cache
from bluegray.engine.evaluation import Evaluator
from bluegray.engine.fasteval import EvaluationArrays, evaluate
from bluegray.engine.search import (
    DECIDED,
    DEEP_REDUCTION_INDEX,
    EXACT,
    FUTILITY_DEPTH,
    FUTILITY_MARGIN,
    IMPASSE_WIN,
    INFINITY,
    LAST_ITERATION_START,
    LATE_MOVE_COUNT,
    LOWER,
    MAX_PLY,
    NULL_MOVE_COUNT_MARGIN,
    NULL_MOVE_REDUCTION,
    NULL_MOVE_SOLDIERS,
    QUIESCENCE_PLIES,
    UPPER,
    WIN,
    Iteration,
    Limits,
    SearchResult,
    counted_from,
)
from bluegray.errors import GameOverError
from bluegray.moves import Move
from bluegray.points import CENTER
from bluegray.position import move_from_raw

use_source_keyed_cache()

FRAMES: Final = MAX_PLY + QUIESCENCE_PLIES + 2
"""Plies the stack has room for: the main search's, then the quiescence search's."""
SEARCH_MOVES: Final = 256
"""Room for the moves of one position in the search; a position with more stops the compiled
search, and the Python search takes the move instead."""
Arrays = tuple[Any, ...]
"""A tuple of arrays the compiled functions share (numba passes it as one argument)."""
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
PARTIAL_SCORE: Final = 7
PARTIAL_INDEX: Final = 8
OVERFLOW: Final = 9
BEST_INDEX: Final = 10
FADE: Final = 11
IMPASSE_PLIES: Final = 12
GENERATION: Final = 13
"""Which search this is, modulo ``GENERATIONS``: table scores of earlier searches are not
trusted (see ``_enter``)."""
CONTROL_SIZE: Final = 14

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
CAPTURE_STACK: Final = 12
"""Where the capture search's working space is among the search's own arrays (``_arrays``)."""
NOT_STORED: Final = -(1 << 62)
NEAR_LIMIT_KEY: Final = np.uint64(0x9E3779B97F4A7C15)


# -- the transposition table -------------------------------------------------------------


GENERATIONS: Final = 1 << 10
"""A table entry's generation takes ten bits."""


@compiled(inline=True)
def _pack(depth: int, flag: int, score: int, move: int, generation: int) -> int:
    """One table entry: the score (32 bits), the move + 1 (11), the bound flag (2), the depth
    (8: at most ``MAX_PLY``) and the search's generation (10)."""
    return (
        (score + (1 << 31)) | ((move + 1) << 32) | (flag << 43) | (depth << 45) | (generation << 53)
    )


@compiled()
def _store(
    keys: np.ndarray,
    data: np.ndarray,
    key: np.uint64,
    depth: int,
    flag: int,
    score: int,
    move: int,
    ply: int,
    generation: int,
) -> None:
    # Decided scores are stored relative to this node, so they stay right at any ply.
    if score > DECIDED:
        score += ply
    elif score < -DECIDED:
        score -= ply
    slot = key & np.uint64(keys.shape[0] - 1)
    keys[slot] = key
    data[slot] = _pack(depth, flag, score, move, generation)


# -- small pieces ------------------------------------------------------------------------


@compiled(inline=True)
def _terminal(
    code: int,
    ply: int,
    mover: int,
    state: np.ndarray,
    switches: np.ndarray,
    advancement: np.ndarray,
    control: np.ndarray,
) -> int:
    """The score, for the side that just moved, of a game that has ended at ``ply``."""
    winner = fb.winner(code, state, switches, advancement)
    if winner < 0:
        return -control[CONTEMPT] if mover == control[ROOT_SIDE] else control[CONTEMPT]
    base = IMPASSE_WIN if fb.is_impasse(code, switches) else WIN
    return base - ply if winner == mover else ply - base


@compiled()
def _may_have_a_step(cells: np.ndarray, side: int, private_steps: np.ndarray) -> bool:
    """A cheap test that the side to move has some soldier step (so it is not stalemated):
    every soldier steps forward and sideways."""
    for point in range(81):
        code = cells[point]
        if code == 0 or code >> 2 != side or code & 3 == fb.CAPTAIN:
            continue
        for index in range(3):
            to = private_steps[side, point, index]
            if to >= 0 and to != CENTER and cells[to] == 0:
                return True
    return False


@compiled(inline=True)
def _key(state: np.ndarray, history: np.ndarray, control: np.ndarray) -> np.uint64:
    """The table key: near the no-progress limit the count changes what a position is worth."""
    h = history[state[fb.HISTORY_LENGTH] - 1]
    count = state[fb.COUNT]
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
        if moves[0, fb.MOVE_TAKEN]:
            keys[i] = moves[i, fb.MOVE_TAKEN]
        else:
            frm = moves[i, fb.MOVE_FROM]
            to = moves[i, fb.MOVE_TO]
            value = history_table[frm, to]
            if frm == captain:
                value += 1 << 20
            if killers[0, 0] == frm and killers[0, 1] == to:
                value += 1 << 24
            if killers[1, 0] == frm and killers[1, 1] == to:
                value += 1 << 23
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
    frm = moves[best, fb.MOVE_FROM]
    to = moves[best, fb.MOVE_TO]
    if killers[0, 0] != frm or killers[0, 1] != to:
        killers[1, 0] = killers[0, 0]
        killers[1, 1] = killers[0, 1]
        killers[0, 0] = frm
        killers[0, 1] = to
    bonus = depth * depth
    history_table[frm, to] += bonus
    for i in range(index):
        other = order[i]
        history_table[moves[other, fb.MOVE_FROM], moves[other, fb.MOVE_TO]] -= bonus


# -- the search --------------------------------------------------------------------------
#
# The board, the rule tables (``fastboard.RuleArrays.tables``), the evaluation's tables and the
# search's own arrays travel as four tuples: see ``CompiledSearch`` for what is in each.


@compiled(inline=True)
def _static(board: Arrays, rules: Arrays, scoring: Arrays, arrays: Arrays, ply: int) -> int:
    """A quiet position's value: the evaluation (remembered by hash and count), or the end of a
    stalemated game."""
    cells, state, history, _ = board
    paths, advancement = rules[fb.TABLE_PATHS], rules[fb.TABLE_ADVANCEMENT]
    switches, private_steps = rules[fb.TABLE_SWITCHES], rules[fb.TABLE_PRIVATE_STEPS]
    weights, advancement_value, extras, zone_points, zone_sizes = scoring
    control = arrays[0]
    static_keys, static_values = arrays[4], arrays[5]
    key = history[state[fb.HISTORY_LENGTH] - 1] ^ np.uint64(state[fb.COUNT])
    slot = key & np.uint64(static_keys.shape[0] - 1)
    if static_keys[slot] == key and static_values[slot] != NOT_STORED:
        return static_values[slot]
    side = state[fb.TURN]
    if not _may_have_a_step(cells, side, private_steps):
        buffer = arrays[1][FRAMES - 1]
        n = fb.generate_moves(cells, state, rules, buffer, arrays[CAPTURE_STACK])
        if n == 0:
            return -_terminal(fb.STALEMATE, ply, side ^ 1, state, switches, advancement, control)
    value = evaluate(
        cells,
        state,
        weights,
        paths,
        advancement,
        advancement_value,
        extras,
        zone_points,
        zone_sizes,
    )
    fade = control[FADE]
    if fade > 0:
        # As ``search.faded``: shrink towards a draw near the no-progress limit.
        remaining = control[IMPASSE_PLIES] - state[fb.COUNT]
        if remaining < fade:
            value = value * max(remaining, 0) // fade
    static_keys[slot] = key
    static_values[slot] = value
    return value


@compiled(inline=True)
def _enter(
    board: Arrays,
    rules: Arrays,
    scoring: Arrays,
    arrays: Arrays,
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
    advancement, switches = rules[fb.TABLE_ADVANCEMENT], rules[fb.TABLE_SWITCHES]
    guard_jumps, private_jumps = rules[fb.TABLE_GUARD_JUMPS], rules[fb.TABLE_PRIVATE_JUMPS]
    control, buffers, frames, orders = arrays[0], arrays[1], arrays[2], arrays[3]
    tt_keys, tt_data, killers, history_table, order_keys, stop = arrays[6:12]
    if kind == 0 and (depth <= 0 or ply >= MAX_PLY):
        kind = 1
        qply = 0
    control[NODES] += 1
    if (control[NODE_LIMIT] and control[NODES] > control[NODE_LIMIT]) or stop[0]:
        control[STOPPED] = 1
        return 0
    if ply > control[SELDEPTH]:
        control[SELDEPTH] = ply
    frame = frames[ply]
    moves = buffers[ply]
    if kind == 1:
        if qply >= QUIESCENCE_PLIES or not fb.has_capture(cells, state, guard_jumps, private_jumps):
            return _static(board, rules, scoring, arrays, ply)
        n = fb.generate_captures(
            cells, state, switches, guard_jumps, private_jumps, moves, arrays[CAPTURE_STACK]
        )
        if n < 0:
            control[OVERFLOW] = 1
            control[STOPPED] = 1
            return 0
        order = orders[ply]
        for i in range(n):
            order[i] = i
    else:
        key = _key(state, history, control)
        slot = key & np.uint64(tt_keys.shape[0] - 1)
        tt_move = -1
        if tt_keys[slot] == key and tt_data[slot] != 0:
            data = tt_data[slot]
            entry_depth = (data >> 45) & 0xFF
            flag = (data >> 43) & 3
            score = (data & 0xFFFFFFFF) - (1 << 31)
            tt_move = ((data >> 32) & 0x7FF) - 1
            # A score from an earlier search (an earlier move of the game) may be wrong now: it
            # was computed with a shorter game history, so a repetition that ends the game now
            # was not one then. Its move still orders the search.
            if entry_depth >= depth and data >> 53 == control[GENERATION]:
                if score > DECIDED:
                    score -= ply
                elif score < -DECIDED:
                    score += ply
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
            and not fb.has_capture(cells, state, guard_jumps, private_jumps)
        ):
            # Reverse futility pruning (as ``Searcher._negamax``).
            static = _static(board, rules, scoring, arrays, ply)
            if abs(static) < DECIDED and static - FUTILITY_MARGIN * depth >= beta:
                return static
        n = fb.generate_moves(cells, state, rules, moves, arrays[CAPTURE_STACK])
        if n < 0:
            control[OVERFLOW] = 1
            control[STOPPED] = 1
            return 0
        side = state[fb.TURN]
        if n == 0:
            return -_terminal(fb.STALEMATE, ply, side ^ 1, state, switches, advancement, control)
        order = orders[ply]
        if n > 1:
            _order(
                moves,
                n,
                order,
                order_keys,
                tt_move,
                state[fb.CAPTAIN_POINT + side],
                killers[ply],
                history_table,
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
        and not moves[0, fb.MOVE_TAKEN]
        and abs(beta) < DECIDED
        and state[fb.COUNT] + NULL_MOVE_COUNT_MARGIN < control[IMPASSE_PLIES]
        and _soldiers(cells, state[fb.TURN]) >= NULL_MOVE_SOLDIERS
        and _static(board, rules, scoring, arrays, ply) >= beta
    ):
        frame[STAGE] = NULL_PENDING  # as ``Searcher._negamax``: a pass first
    frame[REDUCTION] = 0
    frame[QPLY] = qply
    return PENDING


@compiled(inline=True)
def _make_null(
    state: np.ndarray, history: np.ndarray, undo: np.ndarray, zobrist_gray: np.uint64
) -> None:
    """Pass the turn (as ``Board.push_null``): the count restarts."""
    row = undo[state[fb.MADE]]
    row[3] = state[fb.COUNT]
    history[state[fb.HISTORY_LENGTH]] = history[state[fb.HISTORY_LENGTH] - 1] ^ zobrist_gray
    state[fb.HISTORY_LENGTH] += 1
    state[fb.MADE] += 1
    state[fb.COUNT] = 0
    state[fb.TURN] ^= 1


@compiled(inline=True)
def _unmake_null(state: np.ndarray, undo: np.ndarray) -> None:
    """Take back a null move."""
    state[fb.MADE] -= 1
    state[fb.HISTORY_LENGTH] -= 1
    state[fb.COUNT] = undo[state[fb.MADE]][3]
    state[fb.TURN] ^= 1


@compiled()
def _soldiers(cells: np.ndarray, side: int) -> int:
    """How many soldiers ``side`` has."""
    n = 0
    for code in cells:
        if code and code >> 2 == side and code & 3 != fb.CAPTAIN:
            n += 1
    return n


@compiled()
def _unwind(board: Arrays, arrays: Arrays, top: int, bottom: int) -> None:
    """Take back the move each frame from ``top`` down to ``bottom`` is searching."""
    cells, state, _, undo = board
    buffers, frames, orders = arrays[1], arrays[2], arrays[3]
    for ply in range(top, bottom - 1, -1):
        if frames[ply, STAGE] == NULL_OUT:
            _unmake_null(state, undo)
        else:
            fb.unmake(cells, state, undo, buffers[ply][orders[ply][frames[ply, INDEX]]])


@compiled()
def _search(
    board: Arrays,
    rules: Arrays,
    scoring: Arrays,
    arrays: Arrays,
    depth: int,
    alpha: int,
    beta: int,
    base: int,
) -> int:
    """The negamax value of the position on the board, searched to ``depth`` from ply
    ``base``; 0 with ``control[STOPPED]`` set when a limit stopped it."""
    cells, state, history, undo = board
    advancement, switches = rules[fb.TABLE_ADVANCEMENT], rules[fb.TABLE_SWITCHES]
    zobrist, zobrist_gray = rules[fb.TABLE_ZOBRIST], rules[fb.TABLE_ZOBRIST_GRAY]
    control, buffers, frames, orders = arrays[0], arrays[1], arrays[2], arrays[3]
    tt_keys, tt_data, killers, history_table = arrays[6], arrays[7], arrays[8], arrays[9]
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
                fb.unmake(cells, state, undo, moves[move])
                cutoff = False
                if score > frames[ply, BEST]:
                    frames[ply, BEST] = score
                    frames[ply, BEST_MOVE] = move
                    if score > frames[ply, ALPHA]:
                        frames[ply, ALPHA] = score
                        if score >= frames[ply, BETA]:
                            cutoff = True
                            if frames[ply, KIND] == 0 and not moves[0, fb.MOVE_TAKEN]:
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
                    _store(
                        tt_keys,
                        tt_data,
                        key,
                        depth_here,
                        flag,
                        best,
                        best_move,
                        ply,
                        control[GENERATION],
                    )
                if ply == base:
                    return best
                ply -= 1
                score = -best
                have_score = True
                continue
            move = order[index]
            side = state[fb.TURN]
            depth_here = frames[ply, DEPTH]
            if (
                frames[ply, KIND] == 0
                and depth_here <= FUTILITY_DEPTH
                and frames[ply, BETA] - frames[ply, ORIGINAL_ALPHA] == 1
                and index >= LATE_MOVE_COUNT + depth_here * depth_here
                and not moves[move, fb.MOVE_TAKEN]
                and moves[move, fb.MOVE_FROM] != state[fb.CAPTAIN_POINT + side]
                and frames[ply, BEST] > -DECIDED
            ):
                # Late move pruning (as ``Searcher._negamax``): the rest are not searched.
                frames[ply, INDEX] = frames[ply, MOVES]
                continue
            fb.make(cells, state, history, undo, moves[move], zobrist, zobrist_gray)
            code = fb.end_by_move(state, history, switches, advancement)
            if code:
                score = _terminal(code, ply + 1, side, state, switches, advancement, control)
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
                    and index >= 4
                    and not moves[move, fb.MOVE_TAKEN]
                    and moves[move, fb.MOVE_TO] != state[fb.CAPTAIN_POINT + side]
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
def _root(
    board: Arrays,
    rules: Arrays,
    scoring: Arrays,
    arrays: Arrays,
    depth: int,
    n: int,
    root_order: np.ndarray,
    root_scores: np.ndarray,
) -> int:
    """One iteration at the root, every move with the best ones' window; reorders
    ``root_order`` best first for the next one. Returns the best score (``control[BEST_INDEX]``
    names the move); a stopped iteration leaves its best new move in ``PARTIAL_*``."""
    cells, state, history, undo = board
    advancement, switches = rules[fb.TABLE_ADVANCEMENT], rules[fb.TABLE_SWITCHES]
    zobrist, zobrist_gray = rules[fb.TABLE_ZOBRIST], rules[fb.TABLE_ZOBRIST_GRAY]
    control, buffers = arrays[0], arrays[1]
    tt_keys, tt_data = arrays[6], arrays[7]
    moves = buffers[0]
    control[PARTIAL_INDEX] = -1
    alpha = -INFINITY
    beta = INFINITY
    best = -INFINITY
    best_move = root_order[0]
    side = state[fb.TURN]
    for i in range(n):
        move = root_order[i]
        fb.make(cells, state, history, undo, moves[move], zobrist, zobrist_gray)
        code = fb.end_by_move(state, history, switches, advancement)
        if code:
            score = _terminal(code, 1, side, state, switches, advancement, control)
        elif i == 0:
            score = -_search(board, rules, scoring, arrays, depth - 1, -beta, -alpha, 1)
        else:
            score = -_search(board, rules, scoring, arrays, depth - 1, -alpha - 1, -alpha, 1)
            if not control[STOPPED] and alpha < score < beta:
                score = -_search(board, rules, scoring, arrays, depth - 1, -beta, -alpha, 1)
        fb.unmake(cells, state, undo, moves[move])
        if control[STOPPED]:
            return best
        root_scores[move] = score
        if score > best:
            best = score
            best_move = move
            alpha = max(alpha, score)
            if i:
                control[PARTIAL_SCORE] = score
                control[PARTIAL_INDEX] = move
    # Best first for the next iteration; the others keep their order (a stable sort).
    for i in range(1, n):
        item = root_order[i]
        value = root_scores[item]
        j = i - 1
        while j >= 0 and root_scores[root_order[j]] < value:
            root_order[j + 1] = root_order[j]
            j -= 1
        root_order[j + 1] = item
    control[BEST_INDEX] = best_move
    key = _key(state, history, control)
    _store(tt_keys, tt_data, key, depth, EXACT, best, best_move, 0, control[GENERATION])
    return best


@compiled(nogil=True)
def _exact_root_scores(
    board: Arrays, rules: Arrays, scoring: Arrays, arrays: Arrays, depth: int, scores: np.ndarray
) -> None:
    """Write every root move's exact score at ``depth`` into ``scores`` (one per root move),
    each searched with a full window (in generation order): what the weaker levels choose
    among."""
    cells, state, history, undo = board
    advancement, switches = rules[fb.TABLE_ADVANCEMENT], rules[fb.TABLE_SWITCHES]
    zobrist, zobrist_gray = rules[fb.TABLE_ZOBRIST], rules[fb.TABLE_ZOBRIST_GRAY]
    control, buffers = arrays[0], arrays[1]
    moves = buffers[0]
    side = state[fb.TURN]
    for move in range(scores.shape[0]):
        fb.make(cells, state, history, undo, moves[move], zobrist, zobrist_gray)
        code = fb.end_by_move(state, history, switches, advancement)
        if code:
            scores[move] = _terminal(code, 1, side, state, switches, advancement, control)
        else:
            window = (-INFINITY, INFINITY)
            scores[move] = -_search(board, rules, scoring, arrays, depth - 1, *window, 1)
        fb.unmake(cells, state, undo, moves[move])
        if control[STOPPED]:
            break


@compiled()
def _principal_variation(
    board: Arrays, rules: Arrays, arrays: Arrays, first: int, line: np.ndarray, seen: np.ndarray
) -> int:
    """Write the principal variation into ``line`` (move rows): the root move ``first``, then
    the table's moves while they are legal and the game goes on; how many moves. ``seen``
    (as long as ``line``) keeps the line's positions, to stop at a repetition."""
    cells, state, history, undo = board
    advancement, switches = rules[fb.TABLE_ADVANCEMENT], rules[fb.TABLE_SWITCHES]
    zobrist, zobrist_gray = rules[fb.TABLE_ZOBRIST], rules[fb.TABLE_ZOBRIST_GRAY]
    control, buffers, tt_keys, tt_data = arrays[0], arrays[1], arrays[6], arrays[7]
    for column in range(line.shape[1]):  # (a slice copy would allocate)
        line[0, column] = buffers[0][first, column]
    fb.make(cells, state, history, undo, line[0], zobrist, zobrist_gray)
    length = 1
    seen[0] = history[state[fb.HISTORY_LENGTH] - 1]
    scratch = buffers[FRAMES - 1]
    while length < line.shape[0] and not fb.end_by_move(state, history, switches, advancement):
        key = _key(state, history, control)
        slot = key & np.uint64(tt_keys.shape[0] - 1)
        if tt_keys[slot] != key or tt_data[slot] == 0:
            break
        move = ((tt_data[slot] >> 32) & 0x7FF) - 1
        n = fb.generate_moves(cells, state, rules, scratch, arrays[CAPTURE_STACK])
        if not 0 <= move < n:
            break
        for column in range(line.shape[1]):
            line[length, column] = scratch[move, column]
        fb.make(cells, state, history, undo, line[length], zobrist, zobrist_gray)
        h = history[state[fb.HISTORY_LENGTH] - 1]
        length += 1
        repeated = False
        for k in range(length - 1):
            if seen[k] == h:
                repeated = True
        seen[length - 1] = h
        if repeated:
            break
    for k in range(length - 1, -1, -1):
        fb.unmake(cells, state, undo, line[k])
    return length


# -- the Python side ---------------------------------------------------------------------


def _raw_move(legal: list[RawMove], row: np.ndarray) -> RawMove:
    """The rules core's move, of the position's ``legal`` moves, that a compiled move row stands
    for.

    A row lists the jumped points in order; the landing points follow from them (a jump is
    straight, so it lands as far beyond the jumped point as it started before it). They are
    needed: a capture that runs in a circle can go round either way, two moves of the rules with
    the same start, end and pieces taken."""
    frm, to = int(row[fb.MOVE_FROM]), int(row[fb.MOVE_TO])
    taken = 0
    path = [frm]
    for k in range(int(row[fb.MOVE_TAKEN])):
        over = int(row[fb.MOVE_FIRST_TAKEN + k])
        taken |= 1 << over
        path.append(2 * over - path[-1])
    landings = tuple(path) if taken else None
    for move in legal:
        if move[0] == frm and move[1] == to and move[2] == taken and move[3] == landings:
            return move
    raise AssertionError(f"the compiled search chose a move the rules do not have: {row[:5]}")


_warm = False


def warm_up() -> None:
    """Load the compiled functions (from numba's cache, or compile them) by searching a small
    position once per process, so that the first timed search does not pay for it."""
    global _warm
    if _warm:
        return
    _warm = True
    from bluegray.position import Position

    start = Position.start("cooper")
    CompiledSearch(Evaluator(start.rules), 1 << 10).search(start.board(), Limits(depth=2))


class CompiledSearch:
    """The compiled search's memory for one rule set and evaluator: the transposition table,
    the static evaluations, killers, history and the move buffers, kept between moves.

    The compiled functions take four tuples (built in ``search``): the board (``cells``,
    ``state``, ``history``, ``undo``: see ``fastboard``), the rule tables (paths, next points,
    advancement, switches, step and jump tables, Zobrist keys), the evaluation's tables
    (``EvaluationArrays``) and the search's own arrays (``control``, move buffers, frames,
    move orders, static evaluations, transposition table, killers, history, ordering keys, the
    stop flag and the capture search's stack), in the order ``_arrays`` lists them. The
    compiled functions allocate nothing (``compiled_cache.compiled``): every array they use is
    made here and lives as long as the search.
    """

    def __init__(self, evaluator: Evaluator, hash_entries: int, fade: int = 0) -> None:
        """``fade``: as ``Searcher.fade``, fixed for the searcher's life since the static
        evaluations it remembers are faded ones."""
        self.evaluator = evaluator
        tables = bitboard.rule_tables(evaluator.rules)
        self.rule_arrays = fb.RuleArrays(tables)
        self.scoring = EvaluationArrays(evaluator)
        size = 1 << max(10, (hash_entries - 1).bit_length())
        self.control = np.zeros(CONTROL_SIZE, np.int64)
        self.control[IMPASSE_PLIES] = tables.impasse_plies
        self.control[FADE] = fade
        self.control[NEAR_LIMIT] = counted_from(tables.impasse_plies, fade)
        self.buffers = np.zeros((FRAMES, SEARCH_MOVES, fb.MOVE_WIDTH), np.int64)
        self.frames = np.zeros((FRAMES, FRAME_WIDTH), np.int64)
        self.orders = np.zeros((FRAMES, SEARCH_MOVES), np.int64)
        self.static_keys = np.zeros(min(size, 1 << 18), np.uint64)
        self.static_values = np.full(min(size, 1 << 18), NOT_STORED, np.int64)
        self.tt_keys = np.zeros(size, np.uint64)
        self.tt_data = np.zeros(size, np.int64)
        self.killers = np.full((FRAMES, 2, 2), -1, np.int64)
        self.history_table = np.zeros((81, 81), np.int64)
        self.order_keys = np.zeros(SEARCH_MOVES, np.int64)
        self.stop = np.zeros(1, np.int64)
        self.capture_stack = fb.capture_stack()
        self.nodes = 0
        warm_up()

    @property
    def stored_positions(self) -> int:
        """How many slots of the transposition table hold a position."""
        return int(np.count_nonzero(self.tt_data))

    def new_game(self) -> None:
        """Forget what was learnt about earlier positions."""
        self.tt_keys[:] = 0
        self.tt_data[:] = 0
        self.static_values[:] = NOT_STORED
        self.history_table[:] = 0

    def _arrays(self) -> Arrays:
        """The search's own arrays, in the order the compiled functions take them."""
        return (
            self.control,
            self.buffers,
            self.frames,
            self.orders,
            self.static_keys,
            self.static_values,
            self.tt_keys,
            self.tt_data,
            self.killers,
            self.history_table,
            self.order_keys,
            self.stop,
            self.capture_stack,
        )

    def _start(self, board: Board, node_limit: int, contempt: int) -> tuple[Arrays, int]:
        """Set up a search of ``board``: its compiled board and how many moves it has at the
        root (written to the first move buffer; negative when they do not fit)."""
        if not board.moves() or board.end() != bitboard.ONGOING:
            raise GameOverError("cannot search a finished position: there is no move to choose")
        fast = fb.FastBoard(board, FRAMES + 1, self.rule_arrays)
        control = self.control
        control[NODES] = 0
        control[GENERATION] = (control[GENERATION] + 1) % GENERATIONS
        control[NODE_LIMIT] = node_limit
        control[STOPPED] = 0
        control[OVERFLOW] = 0
        control[ROOT_SIDE] = board.turn
        control[CONTEMPT] = contempt
        self.killers[:] = -1
        self.stop[0] = 0
        n = fb.generate_moves(
            fast.cells, fast.state, self.rule_arrays.tables, self.buffers[0], self.capture_stack
        )
        return (fast.cells, fast.state, fast.history, fast.undo), n

    def root_scores(
        self, board: Board, depth: int, *, contempt: int = 0
    ) -> list[tuple[RawMove, int]] | None:
        """Every legal move with its exact score at ``depth``, as ``Searcher.root_scores``
        (unsorted); ``None`` when the position does not fit the compiled buffers."""
        board_tuple, n = self._start(board, 0, contempt)
        if n < 0:
            return None
        arrays = self._arrays()
        scores = np.zeros(n, np.int64)
        _exact_root_scores(
            board_tuple, self.rule_arrays.tables, self.scoring.tables, arrays, depth, scores
        )
        self.nodes = int(self.control[NODES])
        if self.control[OVERFLOW]:
            return None
        legal = board.moves()  # generated once: a root has dozens of moves to match
        return [(_raw_move(legal, self.buffers[0][i]), int(scores[i])) for i in range(n)]

    def search(
        self,
        board: Board,
        limits: Limits,
        *,
        contempt: int = 0,
        on_iteration: Callable[[Iteration], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> SearchResult | None:
        """Search ``board`` (left unchanged) as ``Searcher.search`` does; ``None`` when a
        position had more moves than the compiled search has room for."""
        started = time.perf_counter()
        board_tuple, n = self._start(board, limits.nodes or 0, contempt)
        if n < 0:
            return None
        control = self.control
        rule_tuple = self.rule_arrays.tables
        scoring_tuple = self.scoring.tables
        arrays = self._arrays()
        root_order = np.arange(n, dtype=np.int64)
        root_scores = np.zeros(n, np.int64)
        watcher = _Watcher(self.stop, started + limits.time if limits.time else None, should_stop)
        max_depth = min(limits.depth or MAX_PLY, MAX_PLY)
        iterations: list[Iteration] = []
        best_index, best_score = 0, -INFINITY
        try:
            for depth in range(1, max_depth + 1):
                control[SELDEPTH] = 0
                score = int(
                    _root(
                        board_tuple,
                        rule_tuple,
                        scoring_tuple,
                        arrays,
                        depth,
                        n,
                        root_order,
                        root_scores,
                    )
                )
                if control[OVERFLOW]:
                    return None
                if control[STOPPED]:
                    if control[PARTIAL_INDEX] >= 0 and iterations:
                        best_index, best_score = (
                            int(control[PARTIAL_INDEX]),
                            int(control[PARTIAL_SCORE]),
                        )
                    break
                best_index, best_score = int(control[BEST_INDEX]), score
                elapsed = time.perf_counter() - started
                line = self._line(board_tuple, rule_tuple, arrays, board, best_index)
                iteration = Iteration(
                    depth, score, int(control[NODES]), elapsed, line, int(control[SELDEPTH])
                )
                iterations.append(iteration)
                if on_iteration is not None:
                    on_iteration(iteration)
                if n == 1 or abs(score) > DECIDED:
                    break
                if limits.time is not None and elapsed > limits.time * LAST_ITERATION_START:
                    break  # the next iteration would most likely not finish in time
        finally:
            watcher.finish()
        self.nodes = int(control[NODES])
        elapsed = time.perf_counter() - started
        if not iterations:
            # Not even depth 1 finished: play the best-ordered move rather than nothing.
            best_score = self.evaluator.evaluate(board)
        chosen_raw = _raw_move(board.moves(), self.buffers[0][best_index])
        chosen = move_from_raw(chosen_raw)
        if iterations and iterations[-1].pv[0] == chosen:
            pv = iterations[-1].pv
        else:
            pv = self._line(board_tuple, rule_tuple, arrays, board, best_index)
        return SearchResult(
            chosen,
            best_score,
            iterations[-1].depth if iterations else 0,
            self.nodes,
            elapsed,
            pv,
            iterations,
        )

    def _line(
        self,
        board_tuple: Arrays,
        rule_tuple: Arrays,
        arrays: Arrays,
        board: Board,
        first: int,
    ) -> tuple[Move, ...]:
        """The principal variation from root move ``first`` as the rules core's moves."""
        rows = np.zeros((32, fb.MOVE_WIDTH), np.int64)
        seen = np.zeros(rows.shape[0], np.uint64)
        length = _principal_variation(board_tuple, rule_tuple, arrays, first, rows, seen)
        line = []
        for k in range(length):
            raw = _raw_move(board.moves(), rows[k])
            line.append(raw)
            board.push(raw)
        for _ in line:
            board.pop()
        return tuple(move_from_raw(raw) for raw in line)


class _Watcher:
    """A thread that raises the stop flag at the deadline or when ``should_stop`` says so."""

    def __init__(
        self, stop: np.ndarray, deadline: float | None, should_stop: Callable[[], bool] | None
    ) -> None:
        self._stop = stop
        self._deadline = deadline
        self._should_stop = should_stop
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        if deadline is not None or should_stop is not None:
            self._thread = threading.Thread(target=self._watch, daemon=True)
            self._thread.start()

    def _watch(self) -> None:
        while not self._done.wait(0.002):
            if (self._deadline is not None and time.perf_counter() >= self._deadline) or (
                self._should_stop is not None and self._should_stop()
            ):
                self._stop[0] = 1
                return

    def finish(self) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()
