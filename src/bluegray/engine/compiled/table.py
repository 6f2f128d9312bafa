"""The transposition table of the compiled search (numba): a position's key, and storing an
entry in its slot, packed by the compiled twins of ``records``' functions (the very ones the
plain kernel calls, so both kernels read and write the same entries).
"""

from __future__ import annotations

from typing import Final

import numpy as np

from bluegray.engine import parameters, records
from bluegray.engine.compiled.compiler import compiled, use_source_keyed_cache
from bluegray.engine.compiled.frames import GENERATION, NEAR_LIMIT, SearchArrays
from bluegray.engine.limits import DECIDED
from bluegray.engine.records import COUNT, HISTORY_LENGTH

use_source_keyed_cache()

NEAR_LIMIT_KEY: Final = np.uint64(parameters.NEAR_LIMIT_KEY)

pack_entry = compiled(inline=True)(records.pack_entry)
entry_score = compiled(inline=True)(records.entry_score)
entry_move = compiled(inline=True)(records.entry_move)
entry_flag = compiled(inline=True)(records.entry_flag)
entry_depth = compiled(inline=True)(records.entry_depth)
entry_generation = compiled(inline=True)(records.entry_generation)


@compiled(inline=True)
def position_key(state: np.ndarray, history: np.ndarray, control: np.ndarray) -> np.uint64:
    """``kernel.table_key`` on the compiled board: near the no-progress limit the count changes
    what a position is worth."""
    h = history[state[HISTORY_LENGTH] - 1]
    count = state[COUNT]
    if count >= control[NEAR_LIMIT]:
        return h ^ (np.uint64(count) * NEAR_LIMIT_KEY)
    return h


@compiled(inline=True)
def store_entry(
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
    arrays.tt_data[slot] = pack_entry(depth, flag, score, move, arrays.control[GENERATION])


__all__ = [
    "entry_depth",
    "entry_flag",
    "entry_generation",
    "entry_move",
    "entry_score",
    "position_key",
    "store_entry",
]
