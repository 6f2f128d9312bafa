"""The rules compiled with numba, for the engine's fast search: the board as arrays, move
generation, make/unmake and the end-of-game checks of docs/rules-reference.md §3-§4.

This is a second implementation of ``bluegray.bitboard``, kept to what the search needs and
written for the numba compiler (``pip install "bluegray[fast]"``). It is checked against the
conformance vectors' perft counts and against the rules core on random games
(``tests/test_compiled.py``), move for move in the same order; ``bitboard`` stays the reference.

Representation
--------------
``cells`` holds a piece code per point (``side * 4 + kind``; kinds ``GUARD``, ``PRIVATE``,
``CAPTAIN``; 0 for an empty point). ``state`` holds the side to move, the no-progress count,
both captains' points, the length of ``history`` (the Zobrist hashes of every position since the
board was set up, the current one last: the same keys as ``bitboard``, so a game's history can
be carried over) and how many moves have been made on it. A move is a row of a move buffer, an
undo row a row of ``undo``: their layouts are in ``records``.
"""

from __future__ import annotations

from typing import Final, NamedTuple

import numpy as np

from bluegray import bitboard
from bluegray.bitboard import Board
from bluegray.engine.compiled import compiled, use_source_keyed_cache
from bluegray.engine.records import (
    CAPTAIN_POINT,
    COUNT,
    HISTORY_LENGTH,
    MADE,
    MAX_TAKEN,
    MOVE_FIRST_TAKEN,
    MOVE_FROM,
    MOVE_TAKEN,
    MOVE_TO,
    MOVE_WIDTH,
    STATE_SIZE,
    TURN,
    UNDO_CODE,
    UNDO_COUNT,
    UNDO_FIRST_TAKEN,
    UNDO_FROM,
    UNDO_TO,
    UNDO_WIDTH,
    MoveRecord,
)
from bluegray.points import CENTER, DIAGONAL_LINES, SIZE

use_source_keyed_cache()

GUARD: Final = 1
PRIVATE: Final = 2
CAPTAIN: Final = 3

MAX_MOVES: Final = 1024
"""Room for the moves of one position; a position with more makes ``generate`` return -1."""

# The rule switches, in the order of ``rule_switches``.
TURBO: Final = 0
MAXIMAL: Final = 1
LEAD: Final = 2
"""The lead that ends the game, or 0 for none."""
IMPASSE_PLIES: Final = 3
STALEMATE_LOSES: Final = 4
IMPASSE_BY_ADVANCE: Final = 5

# Game-end codes: the same as ``bitboard``'s.
ONGOING: Final = bitboard.ONGOING
CENTER_REACHED: Final = bitboard.CENTER_REACHED
LEAD_END: Final = bitboard.LEAD
REPETITION: Final = bitboard.REPETITION
NO_PROGRESS: Final = bitboard.NO_PROGRESS
STALEMATE: Final = bitboard.STALEMATE


# -- tables --------------------------------------------------------------------------------


def _step_tables() -> tuple[np.ndarray, np.ndarray]:
    """Where a guard (8 ways, diagonals only along drawn lines) and a private of each side
    (forward, sideways) may step from each point; -1 where there is no such step."""
    diagonal = set()
    for a, b in DIAGONAL_LINES:
        diagonal.add((a, b))
        diagonal.add((b, a))
    guard = np.full((81, 8), -1, np.int64)
    private = np.full((2, 81, 3), -1, np.int64)
    for point in range(81):
        file, rank = point % SIZE, point // SIZE
        ways = [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1)]
        for index, (df, dr) in enumerate(ways):
            f, r = file + df, rank + dr
            if not (0 <= f < SIZE and 0 <= r < SIZE):
                continue
            to = r * SIZE + f
            if index >= 4 and (point, to) not in diagonal:
                continue
            guard[point, index] = to
        for side, forward in ((0, 1), (1, -1)):
            for index, (df, dr) in enumerate(((0, forward), (1, 0), (-1, 0))):
                f, r = file + df, rank + dr
                if 0 <= f < SIZE and 0 <= r < SIZE:
                    private[side, point, index] = r * SIZE + f
    return guard, private


def _jump_tables() -> tuple[np.ndarray, np.ndarray]:
    """For each point, the jumps ``(over, landing)`` of a guard (4 ways) and of a private of
    each side (forward, sideways); -1 where there is none. No jump lands on the centre."""
    guard = np.full((81, 4, 2), -1, np.int64)
    private = np.full((2, 81, 3, 2), -1, np.int64)
    for point in range(81):
        file, rank = point % SIZE, point // SIZE

        def jump(df: int, dr: int, file: int = file, rank: int = rank) -> tuple[int, int]:
            lf, lr = file + 2 * df, rank + 2 * dr
            if not (0 <= lf < SIZE and 0 <= lr < SIZE) or lr * SIZE + lf == CENTER:
                return -1, -1
            return (rank + dr) * SIZE + file + df, lr * SIZE + lf

        for index, (df, dr) in enumerate(((0, 1), (0, -1), (1, 0), (-1, 0))):
            guard[point, index] = jump(df, dr)
        for side, forward in ((0, 1), (1, -1)):
            for index, (df, dr) in enumerate(((0, forward), (1, 0), (-1, 0))):
                private[side, point, index] = jump(df, dr)
    return guard, private


GUARD_STEPS, PRIVATE_STEPS = _step_tables()
GUARD_JUMPS, PRIVATE_JUMPS = _jump_tables()
ZOBRIST: Final = np.array(
    [
        [bitboard.ZOBRIST_GUARD[0], bitboard.ZOBRIST_PRIVATE[0], bitboard.ZOBRIST_CAPTAIN[0]],
        [bitboard.ZOBRIST_GUARD[1], bitboard.ZOBRIST_PRIVATE[1], bitboard.ZOBRIST_CAPTAIN[1]],
    ],
    dtype=np.uint64,
)
"""``ZOBRIST[side, kind - 1, point]``: the keys of ``bitboard``."""
ZOBRIST_GRAY: Final = np.uint64(bitboard.ZOBRIST_GRAY_TO_MOVE)


class CompiledRules(NamedTuple):
    """A rule set's tables as the compiled functions take them (one argument): each side's path,
    the next point and the advancement of every point, the switches, and the step, jump and
    Zobrist tables (the same for every rule set)."""

    paths: np.ndarray
    next_point: np.ndarray
    advancement: np.ndarray
    switches: np.ndarray
    """The rule switches, indexed by ``TURBO``, ``MAXIMAL``, ``LEAD``, ..."""
    guard_steps: np.ndarray
    private_steps: np.ndarray
    guard_jumps: np.ndarray
    private_jumps: np.ndarray
    zobrist: np.ndarray
    zobrist_gray: np.uint64


def compiled_rules(tables: bitboard.RuleTables) -> CompiledRules:
    """The rule set's tables as arrays."""
    switches = [
        tables.turbo,
        tables.maximal,
        tables.lead or 0,
        tables.impasse_plies,
        tables.stalemate_loses,
        tables.impasse_by_advance,
    ]
    return CompiledRules(
        paths=np.array(tables.paths, dtype=np.int64),
        next_point=np.array(tables.next_point, dtype=np.int64),
        advancement=np.array(tables.advancement, dtype=np.int64),
        switches=np.array(switches, dtype=np.int64),
        guard_steps=GUARD_STEPS,
        private_steps=PRIVATE_STEPS,
        guard_jumps=GUARD_JUMPS,
        private_jumps=PRIVATE_JUMPS,
        zobrist=ZOBRIST,
        zobrist_gray=ZOBRIST_GRAY,
    )


class CompiledBoard(NamedTuple):
    """A board as the compiled functions take it (one argument): ``cells``, ``state`` (see
    ``records``: ``TURN``, ``COUNT``, ...), ``history`` (the Zobrist hash of every position
    since the board was set up, the current one last) and ``undo`` (one undo row a move made)."""

    cells: np.ndarray
    state: np.ndarray
    history: np.ndarray
    undo: np.ndarray


def compiled_board(board: Board, depth: int) -> CompiledBoard:
    """A ``bitboard.Board`` copied into arrays, with room for ``depth`` more moves."""
    cells = np.zeros(81, np.int64)
    for side in (0, 1):
        for point in bitboard.bits(board.guards[side]):
            cells[point] = side * 4 + GUARD
        for point in bitboard.bits(board.privates[side]):
            cells[point] = side * 4 + PRIVATE
        cells[board.captains[side]] = side * 4 + CAPTAIN
    state = np.zeros(STATE_SIZE, np.int64)
    state[TURN] = board.turn
    state[COUNT] = board.count
    state[CAPTAIN_POINT] = board.captains[0]
    state[CAPTAIN_POINT + 1] = board.captains[1]
    state[HISTORY_LENGTH] = len(board.history)
    history = np.zeros(len(board.history) + depth + 1, np.uint64)
    history[: len(board.history)] = np.array(board.history, dtype=np.uint64)
    undo = np.zeros((depth + 1, UNDO_WIDTH), np.int64)
    return CompiledBoard(cells, state, history, undo)


# -- move generation ---------------------------------------------------------------------


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


# -- making moves ------------------------------------------------------------------------


@compiled()
def make(
    cells: np.ndarray,
    state: np.ndarray,
    history: np.ndarray,
    undo: np.ndarray,
    move: np.ndarray,
    zobrist: np.ndarray,
    zobrist_gray: np.uint64,
) -> None:
    """Play a move (a row of a move buffer, legal here), saving what ``unmake`` needs."""
    side = state[TURN]
    frm = move[MOVE_FROM]
    to = move[MOVE_TO]
    n_taken = move[MOVE_TAKEN]
    row = undo[state[MADE]]
    code = cells[frm]
    row[UNDO_FROM] = frm
    row[UNDO_TO] = to
    row[UNDO_CODE] = code
    row[UNDO_COUNT] = state[COUNT]
    h = history[state[HISTORY_LENGTH] - 1] ^ zobrist_gray
    kind = code & 3
    cells[frm] = 0
    h ^= zobrist[side, kind - 1, frm]
    if kind == CAPTAIN:
        state[CAPTAIN_POINT + side] = to
        count = 0
    elif kind == GUARD:
        count = state[COUNT] + 1
    else:
        far_rank = 8 if side == 0 else 0
        if to // SIZE == far_rank:
            code = side * 4 + GUARD
            kind = GUARD
            count = 0
        elif to - frm == (SIZE if side == 0 else -SIZE):
            count = 0
        else:
            count = state[COUNT] + 1
    cells[to] = code
    h ^= zobrist[side, kind - 1, to]
    if n_taken:
        count = 0
        for k in range(n_taken):
            point = move[MOVE_FIRST_TAKEN + k]
            taken = cells[point]
            row[UNDO_FIRST_TAKEN + k] = taken
            cells[point] = 0
            h ^= zobrist[taken >> 2, (taken & 3) - 1, point]
    state[COUNT] = count
    state[TURN] = side ^ 1
    history[state[HISTORY_LENGTH]] = h
    state[HISTORY_LENGTH] += 1
    state[MADE] += 1


@compiled()
def unmake(cells: np.ndarray, state: np.ndarray, undo: np.ndarray, move: np.ndarray) -> None:
    """Take back ``move``, the last move made."""
    state[MADE] -= 1
    state[HISTORY_LENGTH] -= 1
    row = undo[state[MADE]]
    side = state[TURN] ^ 1
    state[TURN] = side
    state[COUNT] = row[UNDO_COUNT]
    frm = row[UNDO_FROM]
    to = row[UNDO_TO]
    code = row[UNDO_CODE]
    cells[to] = 0
    cells[frm] = code
    if code & 3 == CAPTAIN:
        state[CAPTAIN_POINT + side] = frm
    for k in range(move[MOVE_TAKEN]):
        cells[move[MOVE_FIRST_TAKEN + k]] = row[UNDO_FIRST_TAKEN + k]


# -- the end of the game -----------------------------------------------------------------


@compiled()
def is_third_repetition(state: np.ndarray, history: np.ndarray) -> bool:
    """Whether the current position stood twice before, within the no-progress count."""
    length = state[HISTORY_LENGTH]
    reach = min(state[COUNT], length - 1)
    h = history[length - 1]
    seen = 0
    for back in range(2, reach + 1, 2):
        if history[length - 1 - back] == h:
            seen += 1
            if seen == 2:
                return True
    return False


@compiled()
def end_by_move(
    state: np.ndarray, history: np.ndarray, switches: np.ndarray, advancement: np.ndarray
) -> int:
    """Which of §4 rules 1-4 ends the game now (``ONGOING`` if none); stalemate is separate."""
    blue = state[CAPTAIN_POINT]
    gray = state[CAPTAIN_POINT + 1]
    if blue == CENTER or gray == CENTER:
        return CENTER_REACHED
    lead = switches[LEAD]
    if lead and abs(advancement[0, blue] - advancement[1, gray]) >= lead:
        return LEAD_END
    count = state[COUNT]
    if count >= 8 and is_third_repetition(state, history):
        return REPETITION
    if count >= switches[IMPASSE_PLIES]:
        return NO_PROGRESS
    return ONGOING


@compiled()
def winner(code: int, state: np.ndarray, switches: np.ndarray, advancement: np.ndarray) -> int:
    """The winning side of a game ended by ``code``: 0 Blue, 1 Gray, -1 a draw."""
    blue = advancement[0, state[CAPTAIN_POINT]]
    gray = advancement[1, state[CAPTAIN_POINT + 1]]
    if code == CENTER_REACHED:
        return 0 if state[CAPTAIN_POINT] == CENTER else 1
    if code == LEAD_END:
        return 0 if blue > gray else 1
    if code == STALEMATE and switches[STALEMATE_LOSES]:
        return state[TURN] ^ 1
    if switches[IMPASSE_BY_ADVANCE] and blue != gray:
        return 0 if blue > gray else 1
    return -1


@compiled()
def is_impasse(code: int, switches: np.ndarray) -> bool:
    """Whether the game-end ``code`` is an impasse (decided by the impasse setting)."""
    if code in (REPETITION, NO_PROGRESS):
        return True
    return code == STALEMATE and not switches[STALEMATE_LOSES]


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
    "CompiledBoard",
    "CompiledRules",
    "capture_stack",
    "compiled_board",
    "compiled_rules",
    "generate_moves",
    "legal_moves",
    "perft",
]
