"""Engine 4's network compiled with numba: ``network``'s evaluation, bit for bit, on ``int16``
accumulators kept up to date move by move in the compiled search.

The accumulators are a stack, one entry a move made on the compiled board
(``stack[state[MADE]]`` holds the current position's, both perspectives): after ``make`` the
search calls ``push_move``, which copies the entry below and applies the move's feature changes
(``network.move_delta``'s, read from the board after the move and its undo row); after
``make_null``, ``push_null`` (only the no-progress count changes). Taking a move back needs
nothing: the entry below is the position's again. ``refresh`` computes the current entry from
scratch (at the root of a search).

The arithmetic is ``network``'s: ``int16`` accumulators (they never leave ``int16``, by the
bounds ``network.check_widths`` enforces), the clipped ReLU, hidden sums in 64-bit integers
(within ``int32`` by the same bounds), arithmetic shifts (floor), the output product in 64 bits.
The parameters reach the compiled code as arrays at run time (``compiled_network``), as the
linear evaluation's weights do; a rule set without a network gets empty arrays
(``shape[WIDTH] == 0``) and every function here returns at once.
"""

from __future__ import annotations

from typing import Final, NamedTuple

import numpy as np

from bluegray.engine.compiled.board import CAPTAIN
from bluegray.engine.compiled.compiler import compiled, use_source_keyed_cache
from bluegray.engine.compiled.frames import FRAMES
from bluegray.engine.network import (
    ACTIVATION_MAX,
    COUNT_BASE,
    EVAL_LIMIT,
    FEATURE_COUNT,
    NO_PROGRESS_MARKS,
    OUTPUT_SHIFT,
    PIECE_KINDS,
    POINTS,
    RACE_BASE,
    RACE_REACH,
    WEIGHT_SHIFT,
    Network,
)
from bluegray.engine.records import (
    CAPTAIN_POINT,
    COUNT,
    MADE,
    MOVE_FIRST_TAKEN,
    MOVE_TAKEN,
    TURN,
    UNDO_CODE,
    UNDO_COUNT,
    UNDO_FIRST_TAKEN,
    UNDO_FROM,
    UNDO_TO,
)

use_source_keyed_cache()

# shape[...]: the network's sizes and scalars.
WIDTH: Final = 0
"""The accumulator's width per perspective; 0 for no network."""
LAYERS: Final = 1
"""How many hidden layers."""
MULTIPLIER: Final = 2
OUTPUT_BIAS: Final = 3
IMPASSE_PLIES: Final = 4
"""The rule set's no-progress limit (for the no-progress features)."""
HIDDEN_WIDTHS: Final = 5
"""``shape[HIDDEN_WIDTHS + l]`` is hidden layer ``l``'s width."""

STACK_ENTRIES: Final = FRAMES + 2
"""Accumulator entries: one a move the search's compiled board has room for, and the root's."""
MARKS: Final = np.array(NO_PROGRESS_MARKS, np.int64)


class CompiledNetwork(NamedTuple):
    """A network's parameters as arrays (rows as in ``network.Network``), and the search's
    accumulator stack and scratch rows for it (the compiled functions allocate nothing)."""

    shape: np.ndarray
    """``WIDTH``, ``LAYERS``, ... (int64)."""
    accumulator: np.ndarray
    """``accumulator[feature, j]`` (int16)."""
    biases: np.ndarray
    """The accumulator's biases (int16)."""
    hidden: np.ndarray
    """``hidden[l, j, i]``: hidden layer ``l``'s weight of input ``i`` for output ``j``
    (int64, zero beyond the layer's shape)."""
    hidden_biases: np.ndarray
    output: np.ndarray
    """The output layer's weights (int64)."""
    stack: np.ndarray
    """``stack[made, perspective, j]``: the accumulators after ``made`` moves (int16)."""
    scratch: np.ndarray
    """Two rows of activations (int64)."""


def compiled_network(network: Network | None, impasse_plies: int) -> CompiledNetwork:
    """``network``'s parameters as arrays with an empty accumulator stack; for ``None``, empty
    arrays that say there is no network."""
    if network is None:
        shape = np.zeros(HIDDEN_WIDTHS, np.int64)
        shape[IMPASSE_PLIES] = impasse_plies
        return CompiledNetwork(
            shape=shape,
            accumulator=np.zeros((FEATURE_COUNT, 0), np.int16),
            biases=np.zeros(0, np.int16),
            hidden=np.zeros((0, 0, 0), np.int64),
            hidden_biases=np.zeros((0, 0), np.int64),
            output=np.zeros(0, np.int64),
            stack=np.zeros((STACK_ENTRIES, 2, 0), np.int16),
            scratch=np.zeros((2, 0), np.int64),
        )
    widths = network.widths
    width = widths[0]
    inputs = max((2 * width, *widths[1:]))
    layers = len(network.hidden)
    shape = np.zeros(HIDDEN_WIDTHS + layers, np.int64)
    shape[WIDTH] = width
    shape[LAYERS] = layers
    shape[MULTIPLIER] = network.output_multiplier
    shape[OUTPUT_BIAS] = network.output.biases[0]
    shape[IMPASSE_PLIES] = impasse_plies
    hidden = np.zeros((layers, inputs, inputs), np.int64)
    hidden_biases = np.zeros((layers, inputs), np.int64)
    for number, layer in enumerate(network.hidden):
        rows = np.array(layer.weights, np.int64)
        hidden[number, : rows.shape[0], : rows.shape[1]] = rows
        hidden_biases[number, : len(layer.biases)] = layer.biases
        shape[HIDDEN_WIDTHS + number] = len(layer.biases)
    return CompiledNetwork(
        shape=shape,
        accumulator=np.array(network.accumulator, np.int16),
        biases=np.array(network.accumulator_biases, np.int16),
        hidden=hidden,
        hidden_biases=hidden_biases,
        output=np.array(network.output.weights[0], np.int64),
        stack=np.zeros((STACK_ENTRIES, 2, width), np.int16),
        scratch=np.zeros((2, inputs), np.int64),
    )


# -- the features ------------------------------------------------------------------------------


@compiled(inline=True)
def piece_feature(perspective: int, owner: int, code: int, point: int) -> int:
    """``network.piece_feature`` for a piece of ``compiled.board`` code ``code`` (its kind is
    ``code & 3``: guard 1, private 2, captain 3, which is the network's kind modulo 3)."""
    block = (0 if owner == perspective else PIECE_KINDS) + (code & 3) % 3
    return block * POINTS + (point if perspective == 0 else POINTS - 1 - point)


@compiled(inline=True)
def race_feature(own_advancement: int, enemy_advancement: int) -> int:
    """``network.race_feature``."""
    difference = own_advancement - enemy_advancement
    if difference > RACE_REACH:
        difference = RACE_REACH
    elif difference < -RACE_REACH:
        difference = -RACE_REACH
    return RACE_BASE + RACE_REACH + difference


@compiled(inline=True)
def _add(total: np.ndarray, rows: np.ndarray, feature: int, sign: int) -> None:
    """Add (``sign`` 1) or take off (-1) a feature's row."""
    for j in range(total.shape[0]):
        total[j] = total[j] + sign * rows[feature, j]


@compiled(inline=True)
def _copy(source: np.ndarray, target: np.ndarray) -> None:
    """Both perspectives' accumulators (slice assignment would need numba's runtime)."""
    for perspective in range(2):
        for j in range(source.shape[1]):
            target[perspective, j] = source[perspective, j]


@compiled(inline=True)
def _recount(total: np.ndarray, rows: np.ndarray, before: int, after: int, limit: int) -> None:
    """The no-progress features' change from count ``before`` to ``after``."""
    for i in range(MARKS.shape[0]):
        was = limit - before <= MARKS[i]
        now = limit - after <= MARKS[i]
        if was and not now:
            _add(total, rows, COUNT_BASE + i, -1)
        elif now and not was:
            _add(total, rows, COUNT_BASE + i, 1)


# -- the accumulators --------------------------------------------------------------------------


@compiled()
def refresh(
    cells: np.ndarray, state: np.ndarray, advancement: np.ndarray, net: CompiledNetwork
) -> None:
    """The current position's accumulators (``stack[state[MADE]]``) from scratch."""
    if net.shape[WIDTH] == 0:
        return
    rows = net.accumulator
    top = net.stack[state[MADE]]
    advancements = (
        advancement[0, state[CAPTAIN_POINT]],
        advancement[1, state[CAPTAIN_POINT + 1]],
    )
    for perspective in range(2):
        total = top[perspective]
        for j in range(total.shape[0]):
            total[j] = net.biases[j]
        for point in range(81):
            code = cells[point]
            if code:
                _add(total, rows, piece_feature(perspective, code >> 2, code, point), 1)
        own = advancements[0] if perspective == 0 else advancements[1]
        enemy = advancements[1] if perspective == 0 else advancements[0]
        _add(total, rows, race_feature(own, enemy), 1)
        _recount(total, rows, -(1 << 30), state[COUNT], net.shape[IMPASSE_PLIES])


@compiled()
def push_move(
    cells: np.ndarray,
    state: np.ndarray,
    undo: np.ndarray,
    move: np.ndarray,
    advancement: np.ndarray,
    net: CompiledNetwork,
) -> None:
    """After ``compiled.board.make`` played ``move``: the new position's accumulators, from the
    previous position's and the move's feature changes (``network.move_delta`` and the
    no-progress count's)."""
    if net.shape[WIDTH] == 0:
        return
    rows = net.accumulator
    made = state[MADE]
    top = net.stack[made]
    _copy(net.stack[made - 1], top)
    row = undo[made - 1]
    frm = row[UNDO_FROM]
    to = row[UNDO_TO]
    code = row[UNDO_CODE]
    side = code >> 2
    other = side ^ 1
    arrived = cells[to]  # a private promoted on the far rank arrives as a guard
    is_captain = (code & 3) == CAPTAIN
    enemy_advancement = advancement[other, state[CAPTAIN_POINT + other]]
    for perspective in range(2):
        total = top[perspective]
        _add(total, rows, piece_feature(perspective, side, code, frm), -1)
        for k in range(move[MOVE_TAKEN]):
            taken = row[UNDO_FIRST_TAKEN + k]
            point = move[MOVE_FIRST_TAKEN + k]
            _add(total, rows, piece_feature(perspective, taken >> 2, taken, point), -1)
        _add(total, rows, piece_feature(perspective, side, arrived, to), 1)
        if is_captain:
            before = advancement[side, frm]
            after = advancement[side, to]
            if perspective == side:
                old = race_feature(before, enemy_advancement)
                new = race_feature(after, enemy_advancement)
            else:
                old = race_feature(enemy_advancement, before)
                new = race_feature(enemy_advancement, after)
            if old != new:
                _add(total, rows, old, -1)
                _add(total, rows, new, 1)
        _recount(total, rows, row[UNDO_COUNT], state[COUNT], net.shape[IMPASSE_PLIES])


@compiled()
def push_null(state: np.ndarray, undo: np.ndarray, net: CompiledNetwork) -> None:
    """After ``compiled.node.make_null``: the same pieces, the count restarted."""
    if net.shape[WIDTH] == 0:
        return
    made = state[MADE]
    top = net.stack[made]
    _copy(net.stack[made - 1], top)
    before = undo[made - 1][UNDO_COUNT]
    for perspective in range(2):
        _recount(top[perspective], net.accumulator, before, state[COUNT], net.shape[IMPASSE_PLIES])


# -- the evaluation ----------------------------------------------------------------------------


@compiled(inline=True)
def _activation(value: int) -> int:
    if value < 0:
        return 0
    if value > ACTIVATION_MAX:
        return ACTIVATION_MAX
    return value


@compiled()
def network_value(state: np.ndarray, net: CompiledNetwork) -> int:
    """``network.Network.evaluate``: the value for the side to move of the position whose
    accumulators are on top of the stack, in Elo-like units."""
    width = net.shape[WIDTH]
    top = net.stack[state[MADE]]
    side = state[TURN]
    source = net.scratch[0]
    target = net.scratch[1]
    for j in range(width):
        source[j] = _activation(top[side, j])
        source[width + j] = _activation(top[side ^ 1, j])
    inputs = 2 * width
    for layer in range(net.shape[LAYERS]):
        outputs = net.shape[HIDDEN_WIDTHS + layer]
        weights = net.hidden[layer]
        for j in range(outputs):
            total = net.hidden_biases[layer, j]
            for i in range(inputs):
                total += weights[j, i] * source[i]
            target[j] = _activation(total >> WEIGHT_SHIFT)
        source, target = target, source
        inputs = outputs
    total = net.shape[OUTPUT_BIAS]
    for i in range(inputs):
        total += net.output[i] * source[i]
    value = (total * net.shape[MULTIPLIER]) >> OUTPUT_SHIFT
    if value > EVAL_LIMIT:
        return EVAL_LIMIT
    if value < -EVAL_LIMIT:
        return -EVAL_LIMIT
    return value


@compiled(inline=True)
def corrected(linear: int, correction: int) -> int:
    """``network.corrected``: the linear evaluation plus the network's correction, clamped."""
    value = linear + correction
    if value > EVAL_LIMIT:
        return EVAL_LIMIT
    if value < -EVAL_LIMIT:
        return -EVAL_LIMIT
    return value


__all__ = [
    "CompiledNetwork",
    "compiled_network",
    "corrected",
    "network_value",
    "push_move",
    "push_null",
    "refresh",
]
