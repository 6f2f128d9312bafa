"""The kernel interface: the part of the alpha-beta search inside the tree, behind which the search
front end (``search.Searcher``) is written once.

Two kernels implement it: the plain Python one (``plainsearch``, on the rules core's bitboards)
and the compiled one (``compiled.search``, numba). They search the same tree in the same order with
the same table: the same move generation order, move ordering, pruning and reductions, the same
evaluation, node count and transposition table (slots, replacement and packed entries from
``records``). For a fixed depth or node limit they return the same scores, node counts and best
moves at every depth (``tests/engine/test_kernels.py``), so the front end may switch from one to the
other between two searches (it hands the table and the history over in a ``Memory``).

A kernel searches one root position at a time: ``start`` sets it up and lists its moves in the
rules core's order (``Board.moves``); ``score_move`` searches one root move to a depth within a
window; the front end runs the root (iterative deepening, principal variation search at the root,
the partial iterations, the principal variation itself).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, Final, NamedTuple

from bluegray.bitboard import Board
from bluegray.engine.evaluation import Evaluator
from bluegray.engine.parameters import NEAR_LIMIT_KEY
from bluegray.engine.records import TableEntry

HISTORY_SIZE: Final = 81 * 81
"""The history of quiet moves: one counter a (from, to) pair, at ``from * 81 + to``."""
STATIC_ENTRIES: Final = 1 << 18
"""At most this many static evaluations are remembered between searches."""


class KernelOverflowError(Exception):
    """A position in the tree had more moves than the compiled kernel has room for; the front
    end searches the move again with the plain kernel."""


class Memory(NamedTuple):
    """What a searcher keeps from one search to the next, whichever kernel searched: the
    transposition table (a slot's key and packed entry, ``len(table_keys)`` slots, a power of
    two) and the history of quiet moves (``HISTORY_SIZE`` counters). Plain lists, so that either
    kernel can take it over."""

    table_keys: list[int]
    table_data: list[int]
    history: list[int]


TABLE_ENTRIES: Final = 1 << 20
"""A searcher's transposition table unless it is told otherwise: 16 MB in the compiled kernel."""

SLOT_BYTES: Final = 16
"""What one slot of the compiled kernel's table takes: its key and its packed entry, 8 bytes
each. (The plain kernel's lists of Python ints take about five times as much once full.)"""


def table_slots(hash_entries: int) -> int:
    """The table's slots for a wish of ``hash_entries`` entries: a power of two, at least 1024."""
    return 1 << max(10, (hash_entries - 1).bit_length())


def slots_within(megabytes: int) -> int:
    """The most slots, a power of two (at least 1024), whose compiled table fits in
    ``megabytes`` megabytes: the engine protocol's ``Hash``."""
    return table_slots(1 << max(0, (megabytes * 2**20 // SLOT_BYTES).bit_length() - 1))


def empty_memory(slots: int) -> Memory:
    """An empty table of ``slots`` slots and an empty history."""
    return Memory([0] * slots, [0] * slots, [0] * HISTORY_SIZE)


def table_key(position_hash: int, count: int, near_limit: int) -> int:
    """A position's table key: its hash, and near the no-progress limit (from ``near_limit``,
    ``parameters.counted_from``) the count mixed in, since there it changes what a position is
    worth. (The compiled kernel's ``compiled.table.position_key`` computes the same on unsigned
    64-bit integers.)"""
    if count >= near_limit:
        return position_hash ^ (count * NEAR_LIMIT_KEY & 0xFFFFFFFFFFFFFFFF)
    return position_hash


class Kernel(ABC):
    """One kernel's search of a root position (see the module's docstring)."""

    name: ClassVar[str]
    """``python`` or ``compiled``."""

    @abstractmethod
    def __init__(
        self, evaluator: Evaluator, slots: int, fade: int = 0, memory: Memory | None = None
    ) -> None:
        """A kernel for ``evaluator``'s rule set: a table of ``slots`` slots (``table_slots``),
        the evaluation faded over the last ``fade`` plies before the no-progress limit
        (``parameters.faded``), and the table and history of ``memory`` taken over (else they
        start empty)."""

    nodes: int = 0
    """Nodes searched since ``start``."""
    seldepth: int = 0
    """The deepest ply reached since ``start`` or the last ``begin_iteration``."""
    stopped: bool = False
    """Whether a limit or ``request_stop`` stopped the search (the last score means nothing)."""

    @abstractmethod
    def start(self, board: Board, *, generation: int, node_limit: int, contempt: int) -> int:
        """Set up a search of ``board`` (an unfinished position, left unchanged); how many moves
        it has (in ``Board.moves`` order). ``generation`` names the search (table scores of
        other generations are not trusted); ``node_limit`` 0 is none; ``contempt`` is counted
        for the side to move. Raises ``KernelOverflowError`` for too many moves."""

    @abstractmethod
    def score_move(self, index: int, depth: int, alpha: int, beta: int) -> int:
        """The root move ``index`` searched to ``depth`` (the root's depth: the move's reply is
        searched a ply shallower) within the window ``(alpha, beta)``: its score for the side to
        move at the root. 0 with ``stopped`` set when a limit stopped it."""

    @abstractmethod
    def store_root(self, depth: int, score: int, index: int) -> None:
        """Store the finished root iteration in the table (exact score, best move ``index``)."""

    @abstractmethod
    def probe(self, key: int) -> TableEntry | None:
        """The table's entry for ``key`` (``table_key``), if it holds one."""

    @abstractmethod
    def request_stop(self) -> None:
        """Stop the running search as soon as it can (called from another thread)."""

    @abstractmethod
    def memory(self) -> Memory:
        """The table and history, for the other kernel to take over."""

    @abstractmethod
    def new_game(self) -> None:
        """Forget the table and the history."""

    @property
    @abstractmethod
    def stored_positions(self) -> int:
        """How many slots of the table hold a position."""

    def begin_iteration(self) -> None:
        """A new iteration starts: ``seldepth`` counts afresh."""
        self.seldepth = 0
