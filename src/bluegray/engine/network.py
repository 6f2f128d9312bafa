"""Engine 4's learned evaluation: an efficiently updatable network (NNUE-style), in plain Python.

Both search kernels evaluate with a network when the evaluator has one
(``evaluation.Evaluator(rules, network=...)``; no family ships one yet, so the engine plays with
the linear evaluation). This module defines the network once, exactly, in integer arithmetic; its
compiled twin (``compiled.network``) reproduces it bit for bit (docs/evaluation.md, "Engine 4's
network").
The plain search computes a leaf's sums from scratch (``Network.evaluate_board``), the compiled
one keeps accumulators up to date move by move.

Inputs
    For each *perspective* (Blue's, 0, and Gray's, 1) a set of active features out of
    ``FEATURE_COUNT``: every piece as kind (captain, guard, private) x owner (the perspective's
    own or the enemy's) x point, the point seen from the perspective's side (Gray's board is
    turned 180° about e5, so that both sides see their own pieces coming from rank 1); the race
    (the perspective's captain's advancement minus the enemy's, clamped to ``RACE_REACH`` either
    way); and how near the no-progress count is to its limit (``NO_PROGRESS_MARKS``, a
    thermometer). The rule-set family is not an input: each family has a network of its own.

Layers and widths
    1. The accumulator: per perspective, ``int16`` biases plus the ``int16`` weight rows of the
       active features, kept up to date move by move (``Accumulators.push``/``pop``). The
       weights are bounded (``ACCUMULATOR_LIMIT``) so that no sum of ``MAX_ACTIVE`` of them and
       the bias leaves ``int16``: it never wraps, on any board.
    2. Clipped ReLU to ``0..ACTIVATION_MAX`` (127) of the side to move's accumulator then the
       other's, concatenated.
    3. Hidden layers: ``int8`` weights, ``int32`` biases, ``int32`` sums (they cannot overflow:
       ``BIAS_LIMIT`` and the widths bound them), arithmetic shift right by ``WEIGHT_SHIFT``
       (floor division by 64), clipped to ``0..127``.
    4. The output: ``int8`` weights, an ``int32`` bias and ``int32`` sum, times the file's
       ``output_multiplier`` taken in ``int64``, arithmetic shift right by ``OUTPUT_SHIFT``
       (floor), clamped to ``±EVAL_LIMIT``: Elo-like units for the side to move, as the linear
       evaluation's.

The float network that training fits computes the same with real numbers: ``clamp(x, 0, 1)``
activations, weights ``w`` quantised to ``round(w * 127)`` (accumulator) and ``round(w * 64)``
(later layers), the output in logits converted to Elo units (``ELO_PER_LOGIT``).
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from operator import mul
from random import Random
from typing import Final

from bluegray.bitboard import Board, RawMove, bits
from bluegray.steps import FAR_RANK

POINTS: Final = 81
CAPTAIN, GUARD, PRIVATE = 0, 1, 2
"""The piece kinds, in the order of the feature blocks."""
PIECE_KINDS: Final = 3
PIECE_FEATURES: Final = 2 * PIECE_KINDS * POINTS
"""Own captain, guards, privates, then the enemy's, each on 81 points."""
RACE_REACH: Final = 4
RACE_BASE: Final = PIECE_FEATURES
"""The race features: one of ``2 * RACE_REACH + 1``, for the advancement difference."""
NO_PROGRESS_MARKS: Final = (32, 16, 8, 4, 2)
"""Feature ``i`` of the no-progress block is active when at most ``NO_PROGRESS_MARKS[i]`` plies
are left before the no-progress limit ends the game (an impasse)."""
COUNT_BASE: Final = RACE_BASE + 2 * RACE_REACH + 1
FEATURE_COUNT: Final = COUNT_BASE + len(NO_PROGRESS_MARKS)
MAX_ACTIVE: Final = POINTS + 1 + len(NO_PROGRESS_MARKS)
"""The most features a perspective can have active: one piece a point, one race feature, every
no-progress mark."""

ACTIVATION_MAX: Final = 127
"""A clipped ReLU's ceiling: the integer that stands for 1.0 in the float network."""
WEIGHT_SCALE: Final = 64
WEIGHT_SHIFT: Final = 6
"""Hidden and output weights are ``round(w * WEIGHT_SCALE)``; a hidden sum is shifted right by
``WEIGHT_SHIFT`` (``2 ** WEIGHT_SHIFT == WEIGHT_SCALE``) back to the activations' scale."""
INT8_LIMIT: Final = 127
"""Hidden and output weights lie in ``-127..127`` (``int8`` without ``-128``: symmetric)."""
INT16_LIMIT: Final = 32767
ACCUMULATOR_LIMIT: Final = INT16_LIMIT // (MAX_ACTIVE + 1)
"""The bound on every accumulator weight and bias: a bias and ``MAX_ACTIVE`` weights sum to at
most ``INT16_LIMIT`` in size, so the ``int16`` accumulator never wraps."""
BIAS_LIMIT: Final = 1 << 24
"""The bound on hidden and output biases: with at most 2**12 inputs of 127 x 127 a sum stays
far inside ``int32``."""
MAX_INPUTS: Final = 1 << 12
"""The widest a hidden or output layer's input may be."""
OUTPUT_SHIFT: Final = 16
EVAL_LIMIT: Final = 30_000
"""The evaluation is clamped to ``±EVAL_LIMIT``: below the search's decided scores (``DECIDED``)."""
ELO_PER_LOGIT: Final = 173.71779276130073
"""``400 / ln 10``: Elo units per logit (the linear evaluation's ``ELO_PER_LOGIT``)."""
OUTPUT_MULTIPLIER: Final = round(
    ELO_PER_LOGIT * (1 << OUTPUT_SHIFT) / (ACTIVATION_MAX * WEIGHT_SCALE)
)
"""Converts the output sum (logits x 127 x 64) to Elo units, with ``OUTPUT_SHIFT``."""


class NetworkError(ValueError):
    """A network's parameters break the widths the network is defined with."""


# -- the features ----------------------------------------------------------------------------


def oriented(point: int, perspective: int) -> int:
    """A point as a perspective sees it: Gray's board is Blue's turned 180° about e5."""
    return point if perspective == 0 else POINTS - 1 - point


def piece_feature(perspective: int, owner: int, kind: int, point: int) -> int:
    """The feature of a piece of ``kind`` of side ``owner`` on ``point``, for ``perspective``."""
    block = (0 if owner == perspective else PIECE_KINDS) + kind
    return block * POINTS + oriented(point, perspective)


def race_feature(own_advancement: int, enemy_advancement: int) -> int:
    """The race feature of a perspective whose captain has ``own_advancement``."""
    difference = max(-RACE_REACH, min(RACE_REACH, own_advancement - enemy_advancement))
    return RACE_BASE + RACE_REACH + difference


def count_features(count: int, limit: int) -> list[int]:
    """The active no-progress features for a count and the rule set's limit (both
    perspectives)."""
    left = limit - count
    return [COUNT_BASE + i for i, mark in enumerate(NO_PROGRESS_MARKS) if left <= mark]


def _advancements(board: Board) -> tuple[int, int]:
    table = board.tables.advancement
    return table[0][board.captains[0]], table[1][board.captains[1]]


def active_features(board: Board, perspective: int) -> list[int]:
    """Every active feature of a position for ``perspective``, computed from scratch."""
    found = []
    for owner in (0, 1):
        found.append(piece_feature(perspective, owner, CAPTAIN, board.captains[owner]))
        found.extend(piece_feature(perspective, owner, GUARD, q) for q in bits(board.guards[owner]))
        found.extend(
            piece_feature(perspective, owner, PRIVATE, q) for q in bits(board.privates[owner])
        )
    advancement = _advancements(board)
    found.append(race_feature(advancement[perspective], advancement[perspective ^ 1]))
    found.extend(count_features(board.count, board.tables.impasse_plies))
    return found


@dataclass(frozen=True)
class Delta:
    """What a move changes in the features, before the no-progress block: for each perspective,
    the features it adds and those it removes (``Accumulators.push`` adds the count's)."""

    added: tuple[tuple[int, ...], tuple[int, ...]]
    removed: tuple[tuple[int, ...], tuple[int, ...]]


def move_delta(board: Board, move: RawMove) -> Delta:
    """The feature changes of playing ``move`` (legal) on ``board``, which is the position
    *before* the move: the moving piece, a promotion, the pieces a capture takes, and for a
    captain move the race."""
    frm, to, captured, _ = move
    side = board.turn
    other = side ^ 1
    from_bit = 1 << frm
    pieces: list[tuple[int, int, int, bool]] = []  # (owner, kind, point, whether it comes)
    if board.captains[side] == frm:
        pieces += [(side, CAPTAIN, frm, False), (side, CAPTAIN, to, True)]
    elif board.guards[side] & from_bit:
        pieces += [(side, GUARD, frm, False), (side, GUARD, to, True)]
    else:
        promoted = (1 << to) & FAR_RANK[side]
        pieces += [(side, PRIVATE, frm, False), (side, GUARD if promoted else PRIVATE, to, True)]
    if captured:
        pieces.extend((other, GUARD, q, False) for q in bits(board.guards[other] & captured))
        pieces.extend((other, PRIVATE, q, False) for q in bits(board.privates[other] & captured))
    added: list[list[int]] = [[], []]
    removed: list[list[int]] = [[], []]
    for perspective in (0, 1):
        for owner, kind, point, adds in pieces:
            feature = piece_feature(perspective, owner, kind, point)
            (added if adds else removed)[perspective].append(feature)
    if board.captains[side] == frm:
        table = board.tables.advancement
        before = list(_advancements(board))
        after = before[:]
        after[side] = table[side][to]
        for perspective in (0, 1):
            old = race_feature(before[perspective], before[perspective ^ 1])
            new = race_feature(after[perspective], after[perspective ^ 1])
            if old != new:
                removed[perspective].append(old)
                added[perspective].append(new)
    return Delta((tuple(added[0]), tuple(added[1])), (tuple(removed[0]), tuple(removed[1])))


# -- the network ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Layer:
    """A dense layer: ``weights[j]`` is output ``j``'s row over the inputs."""

    weights: tuple[tuple[int, ...], ...]
    biases: tuple[int, ...]


@dataclass(frozen=True)
class Network:
    """A quantised network, what the engine plays with (see the module's docstring).

    ``accumulator[f]`` is feature ``f``'s row of ``int16`` weights (``accumulator_biases``
    beside it); ``hidden`` the ``int8`` layers after it, then ``output`` (one row)."""

    accumulator: tuple[tuple[int, ...], ...]
    accumulator_biases: tuple[int, ...]
    hidden: tuple[Layer, ...]
    output: Layer
    output_multiplier: int = OUTPUT_MULTIPLIER

    packed: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """Each feature's row packed into one integer (``pack``), for the plain accumulators."""
    packed_biases: int = field(init=False, repr=False, compare=False)
    packed_hidden: tuple[tuple[tuple[int, ...], int], ...] = field(
        init=False, repr=False, compare=False
    )
    """Each hidden layer's columns (one an input) packed in ``HIDDEN_LANE_BITS`` lanes, and its
    biases with the lanes' offsets: a layer's sums are one sum of products."""

    def __post_init__(self) -> None:
        check_widths(self)
        object.__setattr__(self, "packed", tuple(pack(row) for row in self.accumulator))
        object.__setattr__(
            self, "packed_biases", pack(self.accumulator_biases) + pack_offsets(self.widths[0])
        )
        hidden = []
        for layer in self.hidden:
            columns = tuple(
                pack(column, HIDDEN_LANE_BITS) for column in zip(*layer.weights, strict=True)
            )
            biases = pack(layer.biases, HIDDEN_LANE_BITS) + pack_offsets(
                len(layer.biases), HIDDEN_LANE_BITS
            )
            hidden.append((columns, biases))
        object.__setattr__(self, "packed_hidden", tuple(hidden))

    @property
    def widths(self) -> tuple[int, ...]:
        """The accumulator's width (per perspective), then each hidden layer's."""
        return (len(self.accumulator_biases), *(len(layer.biases) for layer in self.hidden))

    def accumulators(self, board: Board) -> Accumulators:
        """Fresh accumulators for ``board``, computed from scratch."""
        return Accumulators(self, board)

    def evaluate(self, accumulators: Accumulators, side_to_move: int) -> int:
        """The value of the position for ``side_to_move``, in Elo-like units (module
        docstring: every step is integer arithmetic with the widths given there)."""
        return self._value(accumulators.sums, side_to_move)

    def _value(self, totals: Sequence[int], side_to_move: int) -> int:
        """``evaluate`` on both perspectives' packed sums."""
        width = len(self.accumulator_biases)
        inputs = _clipped(totals[side_to_move], width) + _clipped(totals[side_to_move ^ 1], width)
        for (columns, biases), layer in zip(self.packed_hidden, self.hidden, strict=True):
            packed: int = biases + sum(map(mul, columns, inputs))
            outputs: list[int] = []
            for _ in layer.biases:
                lane = ((packed & HIDDEN_LANE_MASK) - HIDDEN_LANE_OFFSET) >> WEIGHT_SHIFT
                outputs.append(0 if lane < 0 else ACTIVATION_MAX if lane > ACTIVATION_MAX else lane)
                packed >>= HIDDEN_LANE_BITS
            inputs = outputs
        total = self.output.biases[0] + sum(map(mul, self.output.weights[0], inputs))
        value: int = (total * self.output_multiplier) >> OUTPUT_SHIFT
        return max(-EVAL_LIMIT, min(EVAL_LIMIT, value))

    def evaluate_board(self, board: Board) -> int:
        """The value of ``board`` for its side to move, from scratch: the sums of both
        perspectives at once, read from ``BoardTables`` a byte of each bitboard at a time (the
        plain search evaluates its leaves so, rather than updating accumulators at every node:
        the same numbers, as additions are exact)."""
        tables = self.board_tables
        total = (
            tables.biases
            + tables.captains[0][board.captains[0]]
            + tables.captains[1][board.captains[1]]
        )
        for chunks, soldiers in zip(
            tables.soldiers,
            (board.guards[0], board.privates[0], board.guards[1], board.privates[1]),
            strict=True,
        ):
            if soldiers:
                total += sum(map(list.__getitem__, chunks, soldiers.to_bytes(CHUNKS, "little")))
        advancement = board.tables.advancement
        difference = advancement[0][board.captains[0]] - advancement[1][board.captains[1]]
        total += tables.race[RACE_REACH + max(-RACE_REACH, min(RACE_REACH, difference))]
        for feature in count_features(board.count, board.tables.impasse_plies):
            total += tables.marks[feature - COUNT_BASE]
        shift = tables.shift
        return self._value((total & ((1 << shift) - 1), total >> shift), board.turn)

    @cached_property
    def board_tables(self) -> BoardTables:
        """The tables ``evaluate_board`` reads (made at its first use)."""
        return BoardTables(self)


def corrected(linear: int, correction: int) -> int:
    """Engine 4's evaluation: the linear evaluation plus the network's correction, clamped to
    ``±EVAL_LIMIT`` (``compiled.network.corrected`` is its compiled twin)."""
    return max(-EVAL_LIMIT, min(EVAL_LIMIT, linear + correction))


def evaluate(network: Network, accumulators: Accumulators, side_to_move: int) -> int:
    """``network.evaluate``: the value for ``side_to_move`` of the accumulated position."""
    return network.evaluate(accumulators, side_to_move)


def random_network(rng: Random, widths: Sequence[int], *, spread: int = 40) -> Network:
    """A network of random parameters of these widths (the first layer's, then the hidden
    layers'), small enough that the activations vary: to measure what a network costs without
    training one (``benchmarks/search_speed.py --network random``), and for the tests."""
    width, *hidden = widths
    layers = []
    inputs = 2 * width
    for outputs in hidden:
        layers.append(
            Layer(
                tuple(tuple(rng.randint(-20, 20) for _ in range(inputs)) for _ in range(outputs)),
                tuple(rng.randint(-500, 3000) for _ in range(outputs)),
            )
        )
        inputs = outputs
    return Network(
        accumulator=tuple(
            tuple(rng.randint(-spread, spread) for _ in range(width)) for _ in range(FEATURE_COUNT)
        ),
        accumulator_biases=tuple(rng.randint(0, 2 * spread) for _ in range(width)),
        hidden=tuple(layers),
        output=Layer(
            (tuple(rng.randint(-INT8_LIMIT, INT8_LIMIT) for _ in range(inputs)),),
            (rng.randint(-5000, 5000),),
        ),
    )


def _check_range(values: Iterable[int], limit: int, what: str) -> None:
    for value in values:
        if not isinstance(value, int) or isinstance(value, bool) or not -limit <= value <= limit:
            raise NetworkError(f"{what}: {value!r} is not a whole number from {-limit} to {limit}")


def check_widths(network: Network) -> None:
    """Raise ``NetworkError`` unless every parameter fits the width the network is defined with
    and the layers' shapes fit together."""
    width = len(network.accumulator_biases)
    if len(network.accumulator) != FEATURE_COUNT:
        raise NetworkError(
            f"the accumulator has {len(network.accumulator)} feature rows, not {FEATURE_COUNT}"
        )
    if not 0 < width <= MAX_INPUTS // 2:
        raise NetworkError(f"the accumulator's width {width} is not from 1 to {MAX_INPUTS // 2}")
    _check_range(network.accumulator_biases, ACCUMULATOR_LIMIT, "an accumulator bias")
    for row in network.accumulator:
        if len(row) != width:
            raise NetworkError(f"an accumulator row has {len(row)} weights, not {width}")
        _check_range(row, ACCUMULATOR_LIMIT, "an accumulator weight")
    inputs = 2 * width
    for number, layer in enumerate((*network.hidden, network.output), 1):
        if not layer.biases or len(layer.weights) != len(layer.biases):
            raise NetworkError(f"layer {number} has {len(layer.weights)} rows and biases")
        for row in layer.weights:
            if len(row) != inputs:
                raise NetworkError(f"layer {number} has a row of {len(row)}, not {inputs}")
            _check_range(row, INT8_LIMIT, f"a weight of layer {number}")
        _check_range(layer.biases, BIAS_LIMIT, f"a bias of layer {number}")
        inputs = len(layer.biases)
    if len(network.output.biases) != 1:
        raise NetworkError("the output layer has more than one output")
    _check_range([network.output_multiplier], 1 << 16, "the output multiplier")


# -- the sums from scratch, fast ----------------------------------------------------------------

CHUNKS: Final = (POINTS + 7) // 8
"""A bitboard's bytes."""


class BoardTables:
    """Both perspectives' packed sums (perspective 1's shifted above perspective 0's ``shift``
    bits: each half's lanes stay within their 16 bits, so neither borrows from the other) of the
    features of every piece, race and no-progress mark, and of every byte of a soldier
    bitboard: ``soldiers[b][c][v]`` sums the features of board ``b``'s (Blue's guards and
    privates, then Gray's) soldiers on the points of byte ``c`` whose bits ``v`` has."""

    def __init__(self, network: Network) -> None:
        packed = network.packed
        self.shift = shift = LANE_BITS * len(network.accumulator_biases)

        def both(owner: int, kind: int, point: int) -> int:
            return packed[piece_feature(0, owner, kind, point)] + (
                packed[piece_feature(1, owner, kind, point)] << shift
            )

        self.biases = network.packed_biases + (network.packed_biases << shift)
        self.captains = [[both(owner, CAPTAIN, q) for q in range(POINTS)] for owner in (0, 1)]
        self.soldiers: list[list[list[int]]] = []
        for owner in (0, 1):
            for kind in (GUARD, PRIVATE):
                chunks = []
                for chunk in range(CHUNKS):
                    table = [0] * 256
                    for v in range(1, 256):
                        point = 8 * chunk + (v & -v).bit_length() - 1
                        single = both(owner, kind, point) if point < POINTS else 0
                        table[v] = table[v & (v - 1)] + single
                    chunks.append(table)
                self.soldiers.append(chunks)
        self.race = [
            packed[race_feature(d, 0)] + (packed[race_feature(0, d)] << shift)
            for d in range(-RACE_REACH, RACE_REACH + 1)
        ]
        self.marks = [
            packed[COUNT_BASE + i] + (packed[COUNT_BASE + i] << shift)
            for i in range(len(NO_PROGRESS_MARKS))
        ]


# -- the accumulators --------------------------------------------------------------------------


class Accumulators:
    """The first layer's sums for both perspectives, updated move by move: ``push`` a move's
    ``Delta`` after the board has played it, ``pop`` to take it back (the reverse updates:
    additions are exact, so any order of pushes and pops gives the sums from scratch).

    Each perspective's sums are held packed in one integer (``pack``: lane ``j`` holds sum ``j``
    plus ``LANE_OFFSET``), so that a feature is added with one addition: the same numbers as
    ``int16`` lanes, which never wrap (``ACCUMULATOR_LIMIT``), so no lane borrows from
    another."""

    __slots__ = ("_limit", "_network", "_stack", "count", "sums")

    def __init__(self, network: Network, board: Board) -> None:
        self._network = network
        self._limit = board.tables.impasse_plies
        self.count = board.count
        packed = network.packed
        self.sums = [
            network.packed_biases + sum(packed[f] for f in active_features(board, perspective))
            for perspective in (0, 1)
        ]
        self._stack: list[tuple[Delta, int, list[int], list[int]]] = []

    @property
    def values(self) -> list[list[int]]:
        """The sums, unpacked: ``values[perspective][j]``."""
        width = len(self._network.accumulator_biases)
        return [unpack(total, width) for total in self.sums]

    def add(self, perspective: int, features: Sequence[int]) -> None:
        """Add features' weights to one perspective's sums."""
        packed = self._network.packed
        for feature in features:
            self.sums[perspective] += packed[feature]

    def remove(self, perspective: int, features: Sequence[int]) -> None:
        """Take features' weights off one perspective's sums."""
        packed = self._network.packed
        for feature in features:
            self.sums[perspective] -= packed[feature]

    def push(self, delta: Delta, count: int) -> None:
        """Update for a move whose ``delta`` (``move_delta``, taken before the move) has been
        played, leaving the no-progress count at ``count``."""
        old = count_features(self.count, self._limit)
        new = count_features(count, self._limit)
        gone = [f for f in old if f not in new]
        came = [f for f in new if f not in old]
        for perspective in (0, 1):
            self.remove(perspective, (*delta.removed[perspective], *gone))
            self.add(perspective, (*delta.added[perspective], *came))
        self._stack.append((delta, self.count, gone, came))
        self.count = count

    def pop(self) -> None:
        """Take back the last ``push``."""
        delta, count, gone, came = self._stack.pop()
        for perspective in (0, 1):
            self.remove(perspective, (*delta.added[perspective], *came))
            self.add(perspective, (*delta.removed[perspective], *gone))
        self.count = count


# -- packed lanes ------------------------------------------------------------------------------


LANE_BITS: Final = 16
LANE_OFFSET: Final = 1 << (LANE_BITS - 1)
"""A packed sum's lane holds the sum plus ``LANE_OFFSET``: a sum is at most
``ACCUMULATOR_LIMIT * (MAX_ACTIVE + 1)`` = 32,736 in size, so a lane holds 32 to 65,504, never
below 0 nor over 16 bits, and the lanes are the packed integer's 16-bit words."""
LANE_MASK: Final = (1 << LANE_BITS) - 1
HIDDEN_LANE_BITS: Final = 28
HIDDEN_LANE_OFFSET: Final = 1 << (HIDDEN_LANE_BITS - 1)
"""A hidden layer's packed sums: each under 2**27 in size (``BIAS_LIMIT`` plus ``MAX_INPUTS``
products of 127 x 127), so a lane of 28 bits holds it plus the offset."""
HIDDEN_LANE_MASK: Final = (1 << HIDDEN_LANE_BITS) - 1


def pack(values: Sequence[int], lane_bits: int = LANE_BITS) -> int:
    """Whole numbers as one integer, ``values[j]`` at bit ``lane_bits * j`` (signed: a negative
    value borrows from the lanes above, which adding ``pack_offsets`` pays back)."""
    return sum(value << (lane_bits * j) for j, value in enumerate(values))


def pack_offsets(width: int, lane_bits: int = LANE_BITS) -> int:
    """Half a lane (``1 << (lane_bits - 1)``) in each of ``width`` lanes."""
    return pack([1 << (lane_bits - 1)] * width, lane_bits)


def unpack(total: int, width: int) -> list[int]:
    """The sums in a packed integer whose every lane is within ``int16`` of ``LANE_OFFSET``."""
    return [((total >> (LANE_BITS * j)) & LANE_MASK) - LANE_OFFSET for j in range(width)]


_CLIPPED: Final = tuple(
    min(ACTIVATION_MAX, max(0, lane - LANE_OFFSET)) for lane in range(1 << LANE_BITS)
)
"""The clipped ReLU of each lane value."""
_LITTLE_ENDIAN: Final = sys.byteorder == "little"


def _clipped(total: int, width: int) -> list[int]:
    """The clipped ReLU of a packed integer's sums: each clamped to ``0..ACTIVATION_MAX``
    (the lanes read as the integer's 16-bit words)."""
    lanes = array("H", total.to_bytes(2 * width, "little"))
    if not _LITTLE_ENDIAN:
        lanes.byteswap()
    return list(map(_CLIPPED.__getitem__, lanes))
