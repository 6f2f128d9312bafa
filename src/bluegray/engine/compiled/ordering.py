"""Move ordering in the compiled search (numba): the order a node tries its moves in (the
table's move, captures taking most, killers, the captain's progress, the history of quiet moves)
and the reward of a quiet move that cut off.
"""

from __future__ import annotations

import numpy as np

from bluegray.engine.compiled.compiler import compiled, use_source_keyed_cache
from bluegray.engine.parameters import CAPTAIN_BONUS, KILLER_BONUS
from bluegray.engine.records import MOVE_FROM, MOVE_TAKEN, MOVE_TO

use_source_keyed_cache()


@compiled()
def order_moves(
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
def reward_cutoff(
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


__all__ = ["order_moves", "reward_cutoff"]
