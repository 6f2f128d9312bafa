"""The compiled search's memory (numba): the arrays a ``CompiledKernel`` makes and keeps
(``SearchArrays``, since the compiled functions allocate nothing) and the layout of their rows:
the search's counters and settings (``control``) and a ply's frame on the explicit stack.
"""

from __future__ import annotations

from typing import Final, NamedTuple

import numpy as np

from bluegray.engine.limits import MAX_PLY
from bluegray.engine.parameters import QUIESCENCE_PLIES

FRAMES: Final = MAX_PLY + QUIESCENCE_PLIES + 2
"""Plies the stack has room for: the main search's, then the quiescence search's."""
SEARCH_MOVES: Final = 256
"""Room for the moves of one position in the search; a position with more stops the compiled
kernel (``KernelOverflowError``), and the plain one searches the move instead."""
PENDING: Final = 1 << 40
"""What ``compiled.node.enter`` returns when it has set up a frame to search rather than a value."""

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
not trusted (see ``compiled.node.enter``)."""
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
    """Working space of ``compiled.ordering.order_moves``."""
    stop: np.ndarray
    """One element: set to stop the search."""
    work: np.ndarray
    """The move generator's working space (``compiled.moves.capture_stack``)."""


__all__ = ["FRAMES", "SEARCH_MOVES", "SearchArrays"]
