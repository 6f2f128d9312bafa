"""The observation planes of the RL environments: a ``(19, 9, 9)`` float32 array in ``[0, 1]``.

``planes[k, rank, file]`` is plane ``k`` at the point ``rank * 9 + file`` (rank 0 is rank ``1``,
file 0 is file ``a``): the board as Blue sees it, whoever is to act. :data:`PLANES` names the
planes in order; ``docs/rl.md`` describes each.
"""

from __future__ import annotations

import itertools
from typing import Final

import numpy as np
import numpy.typing as npt

from bluegray import bitboard
from bluegray.engine.encoding import NUM_PLANES, OBSERVATION_SHAPE, PLANE, PLANES
from bluegray.points import PATH_LENGTH
from bluegray.rl.actions import ActionGame

_PLANE: Final = PLANE


def _set_bits(plane: npt.NDArray[np.float32], bits: int) -> None:
    flat = plane.reshape(-1)
    for point in bitboard.bits(bits):
        flat[point] = 1.0


def repetitions(board: bitboard.Board) -> int:
    """How many times the current position stood before in the game (0, 1; a third time ends
    the game), counted as the repetition rule counts them."""
    history = board.history
    reach = min(board.count, len(history) - 1)
    return sum(1 for back in range(2, reach + 1, 2) if history[-1 - back] == board.hash)


def observe(
    state: ActionGame, out: npt.NDArray[np.float32] | None = None
) -> npt.NDArray[np.float32]:
    """The observation planes of ``state``; written into ``out`` when given.

    During a capture in progress the pieces stand as the jumps so far left them: the capturing
    piece on its latest landing point (also marked on ``capturing-piece``) and the pieces it
    jumped removed.
    """
    compiled = state.compiled_planes(out)
    if compiled is not None:
        return compiled
    planes = np.zeros(OBSERVATION_SHAPE, dtype=np.float32) if out is None else out
    planes.fill(0.0)
    board = state.game.board()
    tables = board.tables
    rules = tables.rules
    guards = board.guards[:]
    privates = board.privates[:]
    capture = state.capture
    if capture:
        side = board.turn
        start, now = 1 << capture[0], 1 << capture[-1]
        jumped = 0
        for a, b in itertools.pairwise(capture):
            jumped |= 1 << ((a + b) // 2)
        if guards[side] & start:
            guards[side] = (guards[side] ^ start) | now
        else:
            privates[side] = (privates[side] ^ start) | now
        other = side ^ 1
        guards[other] &= ~jumped
        privates[other] &= ~jumped
        planes[_PLANE["capturing-piece"]].reshape(-1)[capture[-1]] = 1.0
    for side, name in ((0, "blue"), (1, "gray")):
        planes[_PLANE[f"{name}-captain"]].reshape(-1)[board.captains[side]] = 1.0
        _set_bits(planes[_PLANE[f"{name}-guards"]], guards[side])
        _set_bits(planes[_PLANE[f"{name}-privates"]], privates[side])
        path_plane = planes[_PLANE[f"{name}-path"]].reshape(-1)
        for index, point in enumerate(tables.paths[side]):
            path_plane[point] = (index + 1) / (PATH_LENGTH + 1)
        planes[_PLANE[f"{name}-advancement"]] = board.advancement(side) / PATH_LENGTH
    planes[_PLANE["gray-to-act"]] = float(board.turn)
    planes[_PLANE["no-progress"]] = min(1.0, board.count / tables.impasse_plies)
    planes[_PLANE["repetition"]] = min(1.0, repetitions(board) / 2)
    planes[_PLANE["turbo-captains"]] = float(tables.turbo)
    planes[_PLANE["maximal-capture"]] = float(tables.maximal)
    planes[_PLANE["lead-rule"]] = 0.0 if rules.lead is None else min(1.0, rules.lead / PATH_LENGTH)
    planes[_PLANE["stalemate-loses"]] = float(tables.stalemate_loses)
    planes[_PLANE["impasse-by-advance"]] = float(tables.impasse_by_advance)
    return planes


__all__ = ["NUM_PLANES", "OBSERVATION_SHAPE", "PLANES", "observe", "repetitions"]
