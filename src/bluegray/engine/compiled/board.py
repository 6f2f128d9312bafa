"""The rules compiled with numba, for the engine's fast search: the board as arrays, make/unmake
and the end-of-game checks of docs/rules-reference.md §4 (move generation is ``compiled.moves``).

This is a second implementation of ``bluegray.bitboard``, kept to what the search needs and
written for the numba compiler (``pip install "bluegray[fast]"``). It is checked against the
conformance vectors' perft counts and against the rules core on random games
(``tests/engine/test_compiled.py``), move for move in the same order; ``bitboard`` stays the
reference.

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
from bluegray.engine.compiled.compiler import compiled, use_source_keyed_cache
from bluegray.engine.records import (
    CAPTAIN_POINT,
    COUNT,
    HISTORY_LENGTH,
    MADE,
    MOVE_FIRST_TAKEN,
    MOVE_FROM,
    MOVE_TAKEN,
    MOVE_TO,
    STATE_SIZE,
    TURN,
    UNDO_CODE,
    UNDO_COUNT,
    UNDO_FIRST_TAKEN,
    UNDO_FROM,
    UNDO_TO,
    UNDO_WIDTH,
)
from bluegray.points import CENTER, DIAGONAL_LINES, SIZE

use_source_keyed_cache()

GUARD: Final = 1
PRIVATE: Final = 2
CAPTAIN: Final = 3

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


__all__ = [
    "CompiledBoard",
    "CompiledRules",
    "compiled_board",
    "compiled_rules",
    "end_by_move",
    "make",
    "unmake",
    "winner",
]
