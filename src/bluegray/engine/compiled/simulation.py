"""The compiled simulation's kernels: many games of one rule set on arrays, played out at random
or one action at a time, with their action masks and observation planes.

Each kernel loops over the games of a batch (``Games``) inside the compiled code, so one call
from Python plays thousands of plies. The rules are ``compiled.board``'s (the search's own compiled
board, checked against the rules core move for move): these kernels only choose moves, keep
each game's status, and translate between moves and the 973 actions of ``encoding``.
``simulation`` is the public API over them.

Representation
--------------
A batch holds, per game, ``compiled.board``'s ``cells`` and ``state`` rows, a ``history`` row (the
Zobrist hashes since the last irreversible move: the repetition rule never looks further back,
so the row is cut back to the current position whenever the no-progress count is 0), a row of
``status`` (the columns ``END`` ... below), the capture in progress (``landings``: its start and
the points landed on so far) and a random generator's state (``rng``, SplitMix64).
"""

from __future__ import annotations

from typing import Final, NamedTuple

import numpy as np

from bluegray.engine.compiled.board import (
    GUARD,
    IMPASSE_BY_ADVANCE,
    IMPASSE_PLIES,
    LEAD,
    MAXIMAL,
    ONGOING,
    PRIVATE,
    STALEMATE,
    STALEMATE_LOSES,
    TURBO,
    CompiledRules,
    end_by_move,
    make,
    winner,
)
from bluegray.engine.compiled.compiler import compiled, use_source_keyed_cache
from bluegray.engine.compiled.moves import captain_target, generate_moves
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
    TURN,
)
from bluegray.points import CENTER, PATH_LENGTH

use_source_keyed_cache()

# The columns of a game's ``status`` row.
END: Final = 0
"""How the game ended (``compiled.board``'s codes: ``ONGOING`` while it goes on, ``OVERFLOW``)."""
WINNER: Final = 1
"""0 Blue, 1 Gray, -1 a draw or an unfinished game."""
PLIES: Final = 2
"""Plies played since the game was set up in the batch."""
LEGAL: Final = 3
"""How many legal moves the side to move has (0 once the game is over)."""
CAPTURING: Final = 4
"""1 when the side to move must capture."""
DEPTH: Final = 5
"""Jumps taken of the capture in progress (0: none)."""
STATUS_WIDTH: Final = 6

OVERFLOW: Final = -2
"""The ``END`` of a game with more legal moves than a move buffer holds (none is known)."""
LANDINGS_WIDTH: Final = MAX_TAKEN + 2

# What applying an action did.
ILLEGAL: Final = -1
CONTINUES: Final = 0
"""A jump that does not finish a capture: the same side acts again."""
MOVED: Final = 1
"""A whole move was played (the game may be over)."""


class Games(NamedTuple):
    """A batch of games as the kernels take it (see the module's docstring)."""

    cells: np.ndarray
    state: np.ndarray
    history: np.ndarray
    status: np.ndarray
    landings: np.ndarray
    rng: np.ndarray


class Work(NamedTuple):
    """The kernels' working space, owned by their caller (compiled code allocates nothing): a
    move buffer, the move generator's stack, one undo row, one move row and an empty board row."""

    moves: np.ndarray
    stack: np.ndarray
    undo: np.ndarray
    move: np.ndarray
    no_board: np.ndarray
    """An empty row of point codes, for ``observe`` when none are wanted."""


class ActionTables(NamedTuple):
    """The action encoding as arrays: each action's point and the point it reaches (-1 off the
    board), and the step and jump actions from each point to each point (-1 where none)."""

    origin: np.ndarray
    target: np.ndarray
    step: np.ndarray
    jump: np.ndarray


def action_tables() -> ActionTables:
    """The tables of ``encoding``'s 973 actions."""
    origin = np.full(NUM_ACTIONS, -1, np.int64)
    target = np.full(NUM_ACTIONS, -1, np.int64)
    step = np.full((81, 81), -1, np.int64)
    jump = np.full((81, 81), -1, np.int64)
    for point in range(81):
        for direction, (_, df, dr) in enumerate(STEP_DIRECTIONS):
            action = step_action(point, direction)
            origin[action] = point
            to = offset(point, df, dr)
            if to is not None:
                target[action] = to
                step[point, to] = action
        for direction, (_, df, dr) in enumerate(JUMP_DIRECTIONS):
            action = jump_action(point, direction)
            origin[action] = point
            to = offset(point, 2 * df, 2 * dr)
            if to is not None:
                target[action] = to
                jump[point, to] = action
    return ActionTables(origin, target, step, jump)


# -- random numbers ------------------------------------------------------------------------------

_GOLDEN: Final = np.uint64(0x9E3779B97F4A7C15)
_MIX1: Final = np.uint64(0xBF58476D1CE4E5B9)
_MIX2: Final = np.uint64(0x94D049BB133111EB)
_LOW32: Final = np.uint64(0xFFFFFFFF)
_S30: Final = np.uint64(30)
_S27: Final = np.uint64(27)
_S31: Final = np.uint64(31)
_S32: Final = np.uint64(32)
_S11: Final = np.uint64(11)


@compiled(inline=True)
def _next(rng: np.ndarray, g: int) -> np.uint64:
    """The next 64 random bits of game ``g``'s SplitMix64 generator."""
    z = rng[g] + _GOLDEN
    rng[g] = z
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@compiled()
def below(rng: np.ndarray, g: int, n: int) -> int:
    """A uniformly random whole number from 0 to ``n - 1`` (n < 2**32; Lemire's method)."""
    bound = np.uint64(n)
    m = (_next(rng, g) >> _S32) * bound
    low = m & _LOW32
    if low < bound:
        threshold = ((_LOW32 + np.uint64(1)) - bound) % bound
        while low < threshold:
            m = (_next(rng, g) >> _S32) * bound
            low = m & _LOW32
    return int(m >> _S32)


@compiled()
def uniform(rng: np.ndarray, g: int) -> float:
    """A uniformly random number in [0, 1)."""
    return float(_next(rng, g) >> _S11) * (1.0 / 9007199254740992.0)


# -- moves and the end of the game ---------------------------------------------------------------


@compiled()
def settle(g: int, games: Games, rules: CompiledRules, work: Work) -> int:
    """After a move of game ``g`` (or when it is set up): cut its history back, find whether
    the game is over and generate the moves of the side to move into ``work.moves``; how many
    (0 when the game is over)."""
    state = games.state[g]
    history = games.history[g]
    status = games.status[g]
    if state[COUNT] == 0 and state[HISTORY_LENGTH] > 1:
        history[0] = history[state[HISTORY_LENGTH] - 1]
        state[HISTORY_LENGTH] = 1
    code = status[END] if status[PLIES] == 0 else ONGOING
    if status[PLIES] > 0:
        code = end_by_move(state, history, rules.switches, rules.advancement)
    n = 0
    if code == ONGOING:
        n = generate_moves(games.cells[g], state, rules, work.moves, work.stack)
        if n == 0:
            code = STALEMATE
        elif n < 0:
            code = OVERFLOW
            n = 0
    status[END] = code
    status[WINNER] = winner(code, state, rules.switches, rules.advancement) if code > 0 else -1
    status[LEGAL] = n
    status[CAPTURING] = 1 if n > 0 and work.moves[0, MOVE_TAKEN] > 0 else 0
    status[DEPTH] = 0
    return n


@compiled()
def play(g: int, move: np.ndarray, games: Games, rules: CompiledRules, work: Work) -> int:
    """Play ``move`` (legal in game ``g``), then ``settle``; the number of moves now."""
    state = games.state[g]
    state[MADE] = 0  # no move is ever taken back: one undo row serves
    make(
        games.cells[g], state, games.history[g], work.undo, move, rules.zobrist, rules.zobrist_gray
    )
    games.status[g, PLIES] += 1
    return settle(g, games, rules, work)


@compiled()
def _matches(row: np.ndarray, landings: np.ndarray, depth: int) -> int:
    """The point a capture (a move row) lands on after jump ``depth + 1`` if its first ``depth``
    jumps are the capture in progress (``landings``), else -1 (also when it has no more)."""
    point = row[MOVE_FROM]
    if depth and point != landings[0]:
        return -1
    for k in range(depth):
        point = 2 * row[MOVE_FIRST_TAKEN + k] - point
        if point != landings[k + 1]:
            return -1
    if row[MOVE_TAKEN] <= depth:
        return -1
    return 2 * row[MOVE_FIRST_TAKEN + depth] - point


@compiled()
def fill_mask(
    g: int, n: int, games: Games, tables: ActionTables, work: Work, mask: np.ndarray
) -> None:
    """Game ``g``'s legal actions into ``mask`` (its row), from its ``n`` moves in
    ``work.moves``: the first action of each move, or during a capture in progress the jumps
    that continue it."""
    for a in range(mask.shape[0]):
        mask[a] = 0
    depth = games.status[g, DEPTH]
    landings = games.landings[g]
    side = games.state[g, TURN]
    captain = games.state[g, CAPTAIN_POINT + side]
    for j in range(n):
        row = work.moves[j]
        frm = row[MOVE_FROM]
        if row[MOVE_TAKEN]:
            land = _matches(row, landings, depth)
            if land >= 0:
                point = landings[depth] if depth else frm
                mask[tables.jump[point, land]] = 1
        elif frm == captain:
            mask[CAPTAIN_ACTION] = 1
        else:
            mask[tables.step[frm, row[MOVE_TO]]] = 1


@compiled()
def regenerate(g: int, games: Games, rules: CompiledRules, work: Work) -> int:
    """The moves of game ``g`` into ``work.moves`` again (0 once it is over)."""
    if games.status[g, END] != ONGOING:
        return 0
    return generate_moves(games.cells[g], games.state[g], rules, work.moves, work.stack)


@compiled()
def apply_action(
    g: int, action: int, games: Games, rules: CompiledRules, tables: ActionTables, work: Work
) -> int:
    """Take ``action`` in game ``g``: ``MOVED`` (a whole move was played and the game settled,
    its moves in ``work.moves``), ``CONTINUES`` (a jump of a capture that goes on) or
    ``ILLEGAL`` (nothing changed). Legality is checked by the rules, not by a mask."""
    status = games.status[g]
    if status[END] != ONGOING or action < 0 or action >= NUM_ACTIONS:
        return ILLEGAL
    cells = games.cells[g]
    state = games.state[g]
    side = state[TURN]
    move = work.move
    if status[CAPTURING]:
        if action < FIRST_JUMP_ACTION or action == CAPTAIN_ACTION:
            return ILLEGAL
        frm = tables.origin[action]
        land = tables.target[action]
        depth = status[DEPTH]
        landings = games.landings[g]
        if land < 0 or (depth and frm != landings[depth]):
            return ILLEGAL
        n = generate_moves(cells, state, rules, work.moves, work.stack)
        found = False
        complete = -1
        for j in range(n):
            row = work.moves[j]
            if depth == 0 and row[MOVE_FROM] != frm:
                continue
            if _matches(row, landings, depth) == land:
                found = True
                if row[MOVE_TAKEN] == depth + 1:
                    complete = j
                    break
        if not found:
            return ILLEGAL
        if complete < 0:
            if depth == 0:
                landings[0] = frm
            landings[depth + 1] = land
            status[DEPTH] = depth + 1
            return CONTINUES
        for column in range(MOVE_WIDTH):
            move[column] = work.moves[complete, column]
        play(g, move, games, rules, work)
        return MOVED
    if action == CAPTAIN_ACTION:
        to = captain_target(cells, state, rules.switches, rules.next_point)
        if to < 0:
            return ILLEGAL
        frm = state[CAPTAIN_POINT + side]
    elif action < FIRST_JUMP_ACTION:
        frm = tables.origin[action]
        to = tables.target[action]
        if to < 0 or to == CENTER or cells[to] != 0:
            return ILLEGAL
        code = cells[frm]
        allowed = False
        if code == side * 4 + GUARD:
            for way in range(rules.guard_steps.shape[1]):
                allowed = allowed or rules.guard_steps[frm, way] == to
        elif code == side * 4 + PRIVATE:
            for way in range(rules.private_steps.shape[2]):
                allowed = allowed or rules.private_steps[side, frm, way] == to
        if not allowed:
            return ILLEGAL
    else:
        return ILLEGAL
    move[MOVE_FROM] = frm
    move[MOVE_TO] = to
    move[MOVE_TAKEN] = 0
    play(g, move, games, rules, work)
    return MOVED


@compiled()
def play_random_move(g: int, n: int, games: Games, rules: CompiledRules, work: Work) -> int:
    """Play one of game ``g``'s ``n`` moves in ``work.moves`` uniformly at random (a capture in
    progress is dropped); the number of moves after it."""
    choice = below(games.rng, g, n)
    move = work.move
    for column in range(MOVE_WIDTH):
        move[column] = work.moves[choice, column]
    return play(g, move, games, rules, work)


# -- observations ---------------------------------------------------------------------------------


@compiled()
def observe(
    g: int, games: Games, rules: CompiledRules, planes: np.ndarray, board: np.ndarray
) -> None:
    """Game ``g``'s observation planes into ``planes`` (19 rows of 81 points), as
    ``bluegray.rl.observation.observe`` computes them; the point codes (the capture in
    progress applied, as in the planes) into ``board`` (81 values) when it has a row."""
    cells = games.cells[g]
    state = games.state[g]
    status = games.status[g]
    landings = games.landings[g]
    depth = status[DEPTH]
    for k in range(planes.shape[0]):
        for p in range(81):
            planes[k, p] = 0.0
    side = state[TURN]
    for p in range(81):
        code = cells[p]
        if depth and p == landings[0]:
            code = 0
        if code:
            planes[(code >> 2) * 3 + (code & 3) % 3, p] = 1.0
        if board.shape[0]:
            board[p] = code
    if depth:
        mover = cells[landings[0]]
        planes[side * 3 + (mover & 3) % 3, landings[depth]] = 1.0
        planes[13, landings[depth]] = 1.0
        if board.shape[0]:
            board[landings[depth]] = mover
        for k in range(depth):
            over = (landings[k] + landings[k + 1]) // 2
            taken = cells[over]
            planes[(taken >> 2) * 3 + (taken & 3) % 3, over] = 0.0
            if board.shape[0]:
                board[over] = 0
    for s in range(2):
        path = rules.paths[s]
        for index in range(path.shape[0]):
            planes[6 + s, path[index]] = (index + 1) / (PATH_LENGTH + 1)
    switches = rules.switches
    count = state[COUNT]
    length = state[HISTORY_LENGTH]
    reach = min(count, length - 1)
    h = games.history[g, length - 1]
    seen = 0
    for back in range(2, reach + 1, 2):
        if games.history[g, length - 1 - back] == h:
            seen += 1
    lead = switches[LEAD]
    constants = (
        float(side),
        min(1.0, count / switches[IMPASSE_PLIES]),
        min(1.0, seen / 2),
        rules.advancement[0, state[CAPTAIN_POINT]] / PATH_LENGTH,
        rules.advancement[1, state[CAPTAIN_POINT + 1]] / PATH_LENGTH,
    )
    for k in range(5):
        value = constants[k]
        for p in range(81):
            planes[8 + k, p] = value
    rule_planes = (
        float(switches[TURBO]),
        float(switches[MAXIMAL]),
        min(1.0, lead / PATH_LENGTH),
        float(switches[STALEMATE_LOSES]),
        float(switches[IMPASSE_BY_ADVANCE]),
    )
    for k in range(5):
        value = rule_planes[k]
        for p in range(81):
            planes[14 + k, p] = value


__all__ = [
    "CONTINUES",
    "ILLEGAL",
    "MOVED",
    "ActionTables",
    "Games",
    "Work",
    "action_tables",
    "apply_action",
    "fill_mask",
    "observe",
    "play",
    "play_random_move",
    "settle",
]
