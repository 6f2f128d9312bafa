"""Move generation on the compiled board (numba): every legal move of the side to move in the
rules core's order (``Board.moves``), captures (compulsory, the most where the rule set says so)
by a depth-first search of each soldier's jump sequences, and the compiled perft.

The board, its tables and the move rows are ``compiled.board``'s and ``records``'s; ``bitboard``
stays the reference (``tests/engine/test_compiled.py`` compares the two move for move).
"""

from __future__ import annotations

from typing import Final

import numpy as np

from bluegray import bitboard
from bluegray.bitboard import Board
from bluegray.engine.compiled.board import (
    CAPTAIN,
    GUARD,
    MAXIMAL,
    ONGOING,
    PRIVATE,
    TURBO,
    CompiledBoard,
    CompiledRules,
    compiled_board,
    compiled_rules,
    end_by_move,
    make,
    unmake,
)
from bluegray.engine.compiled.compiler import compiled, use_source_keyed_cache
from bluegray.engine.records import (
    CAPTAIN_POINT,
    MAX_TAKEN,
    MOVE_FIRST_TAKEN,
    MOVE_FROM,
    MOVE_TAKEN,
    MOVE_TO,
    MOVE_WIDTH,
    TURN,
    MoveRecord,
)
from bluegray.points import CENTER, SIZE

use_source_keyed_cache()

MAX_MOVES: Final = 1024
"""Room for the moves of one position; a position with more makes ``generate`` return -1."""


def capture_stack() -> np.ndarray:
    """Working space for the move generator (the capture search's stack, or the lists of a
    side's guards and privates): its caller owns it, since the compiled functions allocate
    nothing (``compiled.compiled``)."""
    return np.zeros((5, MAX_TAKEN + 1), np.int64)


@compiled()
def _emit(out: np.ndarray, n: int, start: int, to: int, taken: np.ndarray, n_taken: int) -> int:
    """Write a capture into row ``n`` of ``out``; the new number of rows (-1 when full)."""
    if n >= out.shape[0]:
        return -1
    out[n, MOVE_FROM] = start
    out[n, MOVE_TO] = to
    out[n, MOVE_TAKEN] = n_taken
    for k in range(n_taken):
        out[n, MOVE_FIRST_TAKEN + k] = taken[k]
    return n + 1


@compiled()
def _collect_jumps(
    cells: np.ndarray,
    start: int,
    enemy_side: int,
    jumps: np.ndarray,
    far_rank: int,
    stack: np.ndarray,
    out: np.ndarray,
    n: int,
) -> int:
    """Add every complete capture sequence of the soldier on ``start`` to ``out`` (from row
    ``n``); return the new number of rows, or -1 when ``out`` is full.

    A depth-first search on its own stack, ``stack``, owned by the caller (numba's cache cannot
    hold a recursive function). Jumped pieces leave the board at once (their points are cleared
    while the sequence goes on); the mover's start point is empty, so a sequence may come back
    through it."""
    points = stack[0]
    tried = stack[1]
    extended = stack[2]
    taken = stack[3]
    codes = stack[4]
    tried[0] = 0
    extended[0] = 0
    ways = jumps.shape[1]
    mover = cells[start]
    cells[start] = 0
    depth = 0
    points[0] = start
    while depth >= 0:
        if tried[depth] < ways:
            index = tried[depth]
            tried[depth] += 1
            over = jumps[points[depth], index, 0]
            if over < 0:
                continue
            land = jumps[points[depth], index, 1]
            code = cells[over]
            if code == 0 or code >> 2 != enemy_side or code & 3 == CAPTAIN or cells[land] != 0:
                continue
            extended[depth] = 1
            taken[depth] = over
            if land // SIZE == far_rank:
                n = _emit(out, n, start, land, taken, depth + 1)
                if n < 0:
                    break
                continue
            codes[depth] = code
            cells[over] = 0
            depth += 1
            points[depth] = land
            tried[depth] = 0
            extended[depth] = 0
        else:
            if not extended[depth] and depth:
                n = _emit(out, n, start, points[depth], taken, depth)
                if n < 0:
                    break
            depth -= 1
            if depth >= 0:
                cells[taken[depth]] = codes[depth]
    while depth > 0:  # a full buffer stopped the search: put the jumped pieces back
        depth -= 1
        cells[taken[depth]] = codes[depth]
    cells[start] = mover
    return n


@compiled()
def generate_captures(
    cells: np.ndarray,
    state: np.ndarray,
    switches: np.ndarray,
    guard_jumps: np.ndarray,
    private_jumps: np.ndarray,
    out: np.ndarray,
    stack: np.ndarray,
) -> int:
    """Every legal capture of the side to move into ``out``, in the rules core's order (the
    guards' first, each soldier's from the lowest point up); how many (0 when there is none,
    -1 when ``out`` overflows). ``stack`` is the capture search's working space
    (``capture_stack``)."""
    side = state[TURN]
    enemy_side = side ^ 1
    far_rank = 8 if side == 0 else 0
    n = 0
    for kind in (GUARD, PRIVATE):
        code = side * 4 + kind
        for point in range(81):
            if cells[point] != code:
                continue
            if kind == GUARD:
                n = _collect_jumps(cells, point, enemy_side, guard_jumps, -1, stack, out, n)
            else:
                n = _collect_jumps(
                    cells, point, enemy_side, private_jumps[side], far_rank, stack, out, n
                )
            if n < 0:
                return -1
    if n and switches[MAXIMAL]:
        most = 0
        for i in range(n):
            most = max(most, out[i, MOVE_TAKEN])
        kept = 0
        for i in range(n):
            if out[i, MOVE_TAKEN] == most:
                if kept != i:
                    for column in range(out.shape[1]):  # (a slice copy would allocate)
                        out[kept, column] = out[i, column]
                kept += 1
        n = kept
    return n


@compiled(inline=True)
def _can_jump(
    cells: np.ndarray,
    side: int,
    point: int,
    guard: bool,
    guard_jumps: np.ndarray,
    private_jumps: np.ndarray,
) -> bool:
    """Whether ``side``'s soldier on ``point`` (a guard when ``guard``, else a private) can jump
    an enemy soldier (never a captain) onto an empty point."""
    enemy_side = side ^ 1
    for index in range(4 if guard else 3):
        if guard:
            over, land = guard_jumps[point, index, 0], guard_jumps[point, index, 1]
        else:
            over, land = private_jumps[side, point, index, 0], private_jumps[side, point, index, 1]
        if over < 0:
            continue
        other = cells[over]
        if other != 0 and other >> 2 == enemy_side and other & 3 != CAPTAIN and cells[land] == 0:
            return True
    return False


@compiled()
def has_capture(
    cells: np.ndarray, state: np.ndarray, guard_jumps: np.ndarray, private_jumps: np.ndarray
) -> bool:
    """Whether the side to move has a capture (and so must capture)."""
    side = state[TURN]
    for point in range(81):
        code = cells[point]
        if code == 0 or code >> 2 != side:
            continue
        kind = code & 3
        if kind != CAPTAIN and _can_jump(
            cells, side, point, kind == GUARD, guard_jumps, private_jumps
        ):
            return True
    return False


@compiled()
def captain_target(
    cells: np.ndarray, state: np.ndarray, switches: np.ndarray, next_point: np.ndarray
) -> int:
    """Where the side to move's captain may go, or -1 when it cannot move."""
    side = state[TURN]
    steps = next_point[side]
    to = steps[state[CAPTAIN_POINT + side]]
    if to < 0 or cells[to] != 0:
        return -1
    if switches[TURBO]:
        while to != CENTER:
            ahead = steps[to]
            if cells[ahead] != 0:
                break
            to = ahead
    return to


@compiled()
def generate(
    cells: np.ndarray,
    state: np.ndarray,
    switches: np.ndarray,
    next_point: np.ndarray,
    guard_steps: np.ndarray,
    private_steps: np.ndarray,
    guard_jumps: np.ndarray,
    private_jumps: np.ndarray,
    out: np.ndarray,
    stack: np.ndarray,
) -> int:
    """Every legal move of the side to move by §3 alone, into ``out``, in the rules core's
    order (``Board.moves``); how many (-1 when ``out`` overflows). Steps go direction by
    direction, the guards' first, each direction from the lowest point up; the captain's move,
    when there is one, comes last. ``stack`` is the generator's working space."""
    side = state[TURN]
    guards = stack[0]
    privates = stack[1]
    n_guards = n_privates = 0
    for point in range(81):
        code = cells[point]
        if code == side * 4 + GUARD:
            guards[n_guards] = point
            n_guards += 1
        elif code == side * 4 + PRIVATE:
            privates[n_privates] = point
            n_privates += 1
    # Captures are compulsory: look for one among the soldiers just listed (``has_capture``
    # without scanning the board again).
    for k in range(n_guards):
        if _can_jump(cells, side, guards[k], True, guard_jumps, private_jumps):
            return generate_captures(cells, state, switches, guard_jumps, private_jumps, out, stack)
    for k in range(n_privates):
        if _can_jump(cells, side, privates[k], False, guard_jumps, private_jumps):
            return generate_captures(cells, state, switches, guard_jumps, private_jumps, out, stack)
    n = 0
    for way in range(8):
        for k in range(n_guards):
            point = guards[k]
            to = guard_steps[point, way]
            if to < 0 or to == CENTER or cells[to] != 0:
                continue
            if n >= out.shape[0]:
                return -1
            out[n, MOVE_FROM] = point
            out[n, MOVE_TO] = to
            out[n, MOVE_TAKEN] = 0
            n += 1
    for way in range(3):
        for k in range(n_privates):
            point = privates[k]
            to = private_steps[side, point, way]
            if to < 0 or to == CENTER or cells[to] != 0:
                continue
            if n >= out.shape[0]:
                return -1
            out[n, MOVE_FROM] = point
            out[n, MOVE_TO] = to
            out[n, MOVE_TAKEN] = 0
            n += 1
    to = captain_target(cells, state, switches, next_point)
    if to >= 0:
        if n >= out.shape[0]:
            return -1
        out[n, MOVE_FROM] = state[CAPTAIN_POINT + side]
        out[n, MOVE_TO] = to
        out[n, MOVE_TAKEN] = 0
        n += 1
    return n


@compiled(inline=True)
def generate_moves(
    cells: np.ndarray, state: np.ndarray, rules: CompiledRules, out: np.ndarray, stack: np.ndarray
) -> int:
    """``generate`` with the rule set's tables as one argument."""
    return generate(
        cells,
        state,
        rules.switches,
        rules.next_point,
        rules.guard_steps,
        rules.private_steps,
        rules.guard_jumps,
        rules.private_jumps,
        out,
        stack,
    )


# -- perft -------------------------------------------------------------------------------


@compiled()
def _perft(
    board: CompiledBoard, rules: CompiledRules, buffers: np.ndarray, stack: np.ndarray, depth: int
) -> int:
    """Perft of an unfinished board, every move played (-1 when a move buffer overflows)."""
    cells, state, history, undo = board
    out = buffers[depth]
    n = generate_moves(cells, state, rules, out, stack)
    if n < 0 or depth == 1:
        return n
    total = 0
    for i in range(n):
        make(cells, state, history, undo, out[i], rules.zobrist, rules.zobrist_gray)
        if end_by_move(state, history, rules.switches, rules.advancement) == ONGOING:
            below = _perft(board, rules, buffers, stack, depth - 1)
            if below < 0:
                unmake(cells, state, undo, out[i])
                return -1
            total += below
        unmake(cells, state, undo, out[i])
    return total


def perft(board: Board, depth: int) -> int:
    """The perft of ``board`` (depth >= 1) by the compiled generator: 0 for a finished game."""
    if board.end() != bitboard.ONGOING:
        return 0
    buffers = np.zeros((depth + 1, MAX_MOVES, MOVE_WIDTH), np.int64)
    total = _perft(
        compiled_board(board, depth),
        compiled_rules(board.tables),
        buffers,
        capture_stack(),
        depth,
    )
    if total < 0:
        raise OverflowError(f"a position has more than {MAX_MOVES} moves")
    return int(total)


def legal_moves(board: Board) -> list[MoveRecord]:
    """The compiled generator's moves of ``board``, in its order, as records (for tests and
    for checking the compiled kernel against the rules core)."""
    out = np.zeros((MAX_MOVES, MOVE_WIDTH), np.int64)
    fast = compiled_board(board, 1)
    n = generate_moves(fast.cells, fast.state, compiled_rules(board.tables), out, capture_stack())
    if n < 0:
        raise OverflowError(f"a position has more than {MAX_MOVES} moves")
    return [MoveRecord.from_row(out[i].tolist()) for i in range(n)]


__all__ = [
    "MAX_MOVES",
    "captain_target",
    "capture_stack",
    "generate",
    "generate_captures",
    "generate_moves",
    "has_capture",
    "legal_moves",
    "perft",
]
