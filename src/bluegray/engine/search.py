"""The alpha-beta search: its front end, written once over two kernels.

The front end runs the root: iterative deepening, the limits (depth, nodes, a deadline, and on
a clock a soft time that ``time_manager`` decides when to stop starting depths by) and a stop an
interface asks for, principal variation search among the root moves, the best move of an
unfinished iteration, the principal variation, and the exact root scores the weaker levels choose
among. Inside the tree a kernel searches (``kernel``): the compiled one (``compiled.search``) when
it
is ready, the plain Python one (``plainsearch``) until then or without numba. The two search the
same tree in the same order with the same table, so a search limited by depth or nodes gives the
same move, score, node count and principal variation with either, and a searcher may change
kernel between two searches: it hands its table and history over.

Which kernel: the environment variable ``BLUEGRAY_SEARCH`` says ``auto`` (the default: compiled
when ready, prepared in the background; see ``readiness``), ``compiled`` (wait for it) or
``python`` (never compiled, for example to compare the two).

Scores are from the side to move's point of view, in evaluation units (see ``limits``).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Final

from bluegray import bitboard
from bluegray.bitboard import Board
from bluegray.engine import readiness
from bluegray.engine.evaluation import Evaluator
from bluegray.engine.kernel import (
    TABLE_ENTRIES,
    Kernel,
    KernelOverflowError,
    table_key,
    table_slots,
)
from bluegray.engine.limits import (
    DECIDED,
    IMPASSE_WIN,
    INFINITY,
    MAX_PLY,
    WIN,
    Iteration,
    Limits,
    SearchResult,
    mate_distance,
)
from bluegray.engine.network_file import evaluator_for
from bluegray.engine.parameters import counted_from, faded
from bluegray.engine.plainsearch import PlainKernel
from bluegray.engine.records import GENERATIONS
from bluegray.engine.time_manager import LAST_ITERATION_START, starts_next_depth
from bluegray.errors import BlueGrayError, GameOverError
from bluegray.moves import Move
from bluegray.position import move_from_raw
from bluegray.rules import RuleSet

__all__ = [
    "DECIDED",
    "IMPASSE_WIN",
    "INFINITY",
    "LAST_ITERATION_START",
    "MAX_PLY",
    "SEARCH_CHOICES",
    "SEARCH_ENVIRONMENT",
    "WIN",
    "Iteration",
    "Limits",
    "SearchResult",
    "Searcher",
    "faded",
    "mate_distance",
    "search_choice",
    "warm_up",
]

PV_LENGTH: Final = 32
"""The longest principal variation reported."""
WATCH_SECONDS: Final = 0.002
"""How often the watcher thread looks at the clock and the interface's stop request."""

SEARCH_ENVIRONMENT: Final = "BLUEGRAY_SEARCH"
SEARCH_CHOICES: Final = ("auto", "compiled", "python")


def search_choice(compiled: bool | None = None) -> str:
    """Which kernel a searcher uses: ``compiled`` or ``python`` as ``compiled`` says, else as the
    environment variable ``BLUEGRAY_SEARCH`` says (``auto`` when unset)."""
    if compiled is not None:
        return "compiled" if compiled else "python"
    choice = os.environ.get(SEARCH_ENVIRONMENT, "auto")
    if choice not in SEARCH_CHOICES:
        raise BlueGrayError(
            f"{SEARCH_ENVIRONMENT}={choice!r}: expected one of {', '.join(SEARCH_CHOICES)}"
        )
    return choice


def warm_up(*, wait: bool = False) -> None:
    """Start getting the compiled kernel ready in the background (``readiness``), unless the
    environment says ``python``: engines call this when they start, so that the compiled kernel
    is there soon, while nothing waits for it. ``wait``: until it is ready (or cannot be), for
    players whose strength is measured (a match's workers)."""
    if search_choice() != "python":
        readiness.prepare()
        if wait:
            readiness.PREPARATION.wait()


class Searcher:
    """An alpha-beta searcher for one rule set; it keeps its transposition table and history
    between moves of a game (call ``new_game`` to forget them)."""

    def __init__(
        self,
        rules: RuleSet,
        *,
        evaluator: Evaluator | None = None,
        hash_entries: int = TABLE_ENTRIES,
        contempt: int = 0,
        fade: int = 0,
        compiled: bool | None = None,
    ) -> None:
        """``compiled``: ``True`` waits for the compiled kernel (compiling it if need be),
        ``False`` searches with the plain one; ``None`` (the default) leaves it to
        ``BLUEGRAY_SEARCH``, whose default uses the compiled kernel once it is ready."""
        self.rules = rules
        self.evaluator = evaluator or evaluator_for(rules)
        self.hash_entries = hash_entries
        tables = bitboard.rule_tables(rules)
        # Both options only mean something where an impasse is a draw.
        self.contempt = 0 if tables.impasse_by_advance else contempt
        """How much the side that searches dislikes a draw, in evaluation units: a drawn end
        scores ``-contempt`` for it and ``+contempt`` for its opponent. Against a weaker
        opponent a positive value plays on instead of settling for a repetition."""
        self.fade = 0 if tables.impasse_by_advance else fade
        """In rule sets where an impasse is a draw, how many plies before the no-progress limit
        the evaluation starts to shrink towards a draw (0: never): a lead that makes no progress
        is worth less the nearer the count comes to ending the game, so the side ahead looks for
        a capture or a captain step while it can, instead of shuffling into a draw."""
        self._near_limit = counted_from(tables.impasse_plies, self.fade)
        self._slots = table_slots(hash_entries)
        self._choice = search_choice(compiled)
        if self._choice == "compiled":
            readiness.require_compiled()
        elif self._choice == "auto":
            readiness.prepare()
        self._kernel: Kernel | None = None
        self._generation = 0
        """Which search this is (one more each search, modulo ``GENERATIONS``): a score in the
        table from an earlier search is not trusted, only its move."""
        self._partial: tuple[int, int] | None = None
        self.nodes = 0
        """Nodes of the last search."""
        self.kernel_name = ""
        """Which kernel searched last: ``python`` or ``compiled``."""

    @property
    def is_compiled(self) -> bool:
        """Whether the next search runs on the compiled kernel."""
        return self._kernel_class() is not PlainKernel

    @property
    def stored_positions(self) -> int:
        """How many positions the transposition table holds."""
        return 0 if self._kernel is None else self._kernel.stored_positions

    def new_game(self) -> None:
        """Forget what was learnt about earlier positions."""
        if self._kernel is not None:
            self._kernel.new_game()

    # -- the kernel ------------------------------------------------------------------------

    def _kernel_class(self) -> type[Kernel]:
        if self._choice == "python":
            return PlainKernel
        return readiness.compiled_kernel() or PlainKernel

    def _use(self, kind: type[Kernel]) -> Kernel:
        """The searcher's kernel of ``kind``, taking over the current one's table and history."""
        current = self._kernel
        if current is None or type(current) is not kind:
            memory = None if current is None else current.memory()
            self._kernel = kind(self.evaluator, self._slots, self.fade, memory)
        assert self._kernel is not None
        return self._kernel

    def _start(self, kernel: Kernel, board: Board, node_limit: int) -> list[bitboard.RawMove]:
        """Start a search of ``board`` with ``kernel``: the root moves, in the kernels' order."""
        moves = board.moves()
        if not moves or board.end() != bitboard.ONGOING:
            raise GameOverError("cannot search a finished position: there is no move to choose")
        self._generation = (self._generation + 1) % GENERATIONS
        count = kernel.start(
            board, generation=self._generation, node_limit=node_limit, contempt=self.contempt
        )
        if count != len(moves):
            raise AssertionError(f"the {kernel.name} kernel lists {count} moves, not {len(moves)}")
        self.kernel_name = kernel.name
        return moves

    # -- the public entry points -------------------------------------------------------------

    def search(
        self,
        board: Board,
        limits: Limits,
        *,
        on_iteration: Callable[[Iteration], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> SearchResult:
        """Search ``board`` (left unchanged) within ``limits``; report each finished iteration.

        The board must be an unfinished position with at least one legal move.
        """
        kernel = self._use(self._kernel_class())
        try:
            return self._search(kernel, board, limits, on_iteration, should_stop)
        except KernelOverflowError:
            # A position with more moves than the compiled kernel has room for: search here.
            return self._search(self._use(PlainKernel), board, limits, on_iteration, should_stop)

    def root_scores(self, board: Board, depth: int) -> list[tuple[Move, int]]:
        """Every legal move with its exact score at ``depth`` (a full-width root, no pruning
        between root moves), best first, equal scores in the rules core's move order: what the
        weaker levels choose among."""
        kernel = self._use(self._kernel_class())
        try:
            return self._root_scores(kernel, board, depth)
        except KernelOverflowError:
            return self._root_scores(self._use(PlainKernel), board, depth)

    # -- the root ------------------------------------------------------------------------------

    def _search(
        self,
        kernel: Kernel,
        board: Board,
        limits: Limits,
        on_iteration: Callable[[Iteration], None] | None,
        should_stop: Callable[[], bool] | None,
    ) -> SearchResult:
        started = time.perf_counter()
        moves = self._start(kernel, board, limits.nodes or 0)
        deadline = None if limits.time is None else started + limits.time
        watcher = _Watcher(kernel, deadline, should_stop)
        max_depth = min(limits.depth or MAX_PLY, MAX_PLY)
        order = list(range(len(moves)))
        best_index, best_score = 0, -INFINITY
        iterations: list[Iteration] = []
        try:
            for depth in range(1, max_depth + 1):
                kernel.begin_iteration()
                finished = self._iterate(kernel, depth, order)
                if finished is None:
                    # A move that beat the previous best in the unfinished iteration is better.
                    if self._partial is not None and iterations:
                        best_score, best_index = self._partial
                    break
                best_score, best_index, order = finished
                kernel.store_root(depth, best_score, best_index)
                elapsed = time.perf_counter() - started
                line = self._principal_variation(kernel, board, moves[best_index])
                iteration = Iteration(
                    depth, best_score, kernel.nodes, elapsed, line, kernel.seldepth
                )
                iterations.append(iteration)
                if on_iteration is not None:
                    on_iteration(iteration)
                if len(moves) == 1 or abs(best_score) > DECIDED:
                    break
                if not starts_next_depth(elapsed, limits, iterations):
                    break  # the next iteration would most likely not finish in time
        finally:
            watcher.finish()
        self.nodes = kernel.nodes
        if not iterations:
            # Not even depth 1 finished: play the best-ordered move rather than nothing.
            best_score = self.evaluator.evaluate(board)
        chosen = move_from_raw(moves[best_index])
        if iterations and iterations[-1].pv[0] == chosen:
            pv = iterations[-1].pv
        else:
            pv = self._principal_variation(kernel, board, moves[best_index])
        return SearchResult(
            chosen,
            best_score,
            iterations[-1].depth if iterations else 0,
            self.nodes,
            time.perf_counter() - started,
            pv,
            iterations,
            kernel.name,
        )

    def _iterate(
        self, kernel: Kernel, depth: int, order: list[int]
    ) -> tuple[int, int, list[int]] | None:
        """One iteration: every root move searched to ``depth``, the first with a full window,
        the others with a null window on the best score so far (searched again in full when
        they beat it). The best score, the best move and the root moves' order for the next
        iteration (best first, the others in their order); ``None`` when a limit stopped it,
        with its best new move (if any) in ``_partial``."""
        self._partial = None
        alpha, beta = -INFINITY, INFINITY
        best, best_index = -INFINITY, order[0]
        scored: list[tuple[int, int]] = []
        for position, index in enumerate(order):
            if position == 0:
                score = kernel.score_move(index, depth, alpha, beta)
            else:
                score = kernel.score_move(index, depth, alpha, alpha + 1)
                if not kernel.stopped and alpha < score < beta:
                    score = kernel.score_move(index, depth, alpha, beta)
            if kernel.stopped:
                return None
            scored.append((score, index))
            if score > best:
                best, best_index = score, index
                alpha = max(alpha, score)
                if position:
                    self._partial = (score, index)
        scored.sort(key=_negated_score)  # stable: equal scores keep their order
        return best, best_index, [index for _, index in scored]

    def _root_scores(self, kernel: Kernel, board: Board, depth: int) -> list[tuple[Move, int]]:
        moves = self._start(kernel, board, 0)
        scored = [
            (move_from_raw(move), kernel.score_move(index, depth, -INFINITY, INFINITY))
            for index, move in enumerate(moves)
        ]
        self.nodes = kernel.nodes
        scored.sort(key=_negated_move_score)
        return scored

    def _principal_variation(
        self, kernel: Kernel, board: Board, first: bitboard.RawMove
    ) -> tuple[Move, ...]:
        """The principal variation: the first move, then the table's best moves while the game
        goes on, up to a repeated position or ``PV_LENGTH`` moves."""
        line = [first]
        board.push(first)
        seen = {board.hash}
        while len(line) < PV_LENGTH and not board.end_by_move():
            entry = kernel.probe(table_key(board.hash, board.count, self._near_limit))
            if entry is None:
                break
            legal = board.moves()
            if not 0 <= entry.move < len(legal):
                break
            board.push(legal[entry.move])
            line.append(legal[entry.move])
            if board.hash in seen:
                break
            seen.add(board.hash)
        for _ in line:
            board.pop()
        return tuple(move_from_raw(move) for move in line)


def _negated_score(item: tuple[int, int]) -> int:
    return -item[0]


def _negated_move_score(item: tuple[Move, int]) -> int:
    return -item[1]


class _Watcher:
    """A thread that stops the kernel's search at the deadline or when ``should_stop`` says so."""

    def __init__(
        self, kernel: Kernel, deadline: float | None, should_stop: Callable[[], bool] | None
    ) -> None:
        self._kernel = kernel
        self._deadline = deadline
        self._should_stop = should_stop
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        if deadline is not None or should_stop is not None:
            self._thread = threading.Thread(target=self._watch, name="search-watch", daemon=True)
            self._thread.start()

    def _watch(self) -> None:
        while not self._done.wait(WATCH_SECONDS):
            if (self._deadline is not None and time.perf_counter() >= self._deadline) or (
                self._should_stop is not None and self._should_stop()
            ):
                self._kernel.request_stop()
                return

    def finish(self) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()
