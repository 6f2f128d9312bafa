"""The alpha-beta search: iterative deepening, a transposition table, move ordering, pruning
(null move, reverse futility, late moves) and a quiescence search over forced captures.

Captures are compulsory, so a position where the side to move can capture is never quiet: the
quiescence search plays out every forced capture sequence before it trusts the evaluation.
Game ends are the rules' own (``Board.end_by_move``): repetition and no progress are exact, and an
impasse is scored as the rule set decides it (a win by advancement under Sackson's rules).

Scores are from the side to move's point of view, in evaluation units (see ``evaluation``);
won games score near ``WIN`` (``IMPASSE_WIN`` for a win by impasse), fewer plies scoring more.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bluegray import bitboard
from bluegray.bitboard import Board, RawMove
from bluegray.engine.evaluation import Evaluator
from bluegray.errors import BlueGrayError, GameOverError
from bluegray.moves import Move
from bluegray.points import SIZE
from bluegray.position import move_from_raw
from bluegray.rules import RuleSet

if TYPE_CHECKING:
    from bluegray.engine.fastsearch import CompiledSearch

INFINITY = 1_000_000
WIN = 100_000
"""The score of a game won at the root by the rules' centre, lead or stalemate."""
IMPASSE_WIN = 50_000
"""The score of a game won at the root by an impasse (Sackson: the captain farther advanced)."""
DECIDED = 40_000
"""Scores beyond this are decided games, adjusted by their distance in plies."""
MAX_PLY = 128
QUIESCENCE_PLIES = 16
"""How deep the quiescence search follows forced captures before it trusts the evaluation."""
LAST_ITERATION_START = 0.45
"""No new iteration starts after this share of a time limit (the next would rarely finish).
Measured: searching to the deadline instead (about a third more time at one second a move) did
not play better against MCTS in ``cooper``: 5-15-0 against 8-12-0 on the same 20 openings."""

FUTILITY_DEPTH = 3
"""Reverse futility pruning: at a null-window node this close to the horizon whose side to move
has no capture, a static evaluation that beats beta by ``FUTILITY_MARGIN`` a ply is trusted
without searching the moves."""
FUTILITY_MARGIN = 100
"""Evaluation units (Elo points) a remaining ply is taken to be able to change."""
LATE_MOVE_COUNT = 6
"""Late move pruning: at a null-window node of depth ``d`` up to ``FUTILITY_DEPTH``, quiet moves
after the first ``LATE_MOVE_COUNT + d * d`` (in the search's order, which puts the hash move,
killers and the captain's step first) are not searched."""
DEEP_REDUCTION_INDEX = 10
"""Late quiet moves from this index on, at depth 5 or more, are reduced by two plies, not one."""
NULL_MOVE_REDUCTION = 2
"""Null-move pruning: at a null-window node of depth 3 or more whose static evaluation already
beats beta, the side to move passes and the opponent's best reply is searched this many plies
shallower than a move would be; if the side still beats beta, the node is cut off."""
NULL_MOVE_SOLDIERS = 4
"""Null-move pruning needs this many soldiers on the side to move: with fewer, having to move
may itself be the loss (zugzwang: the guard that holds a blockade must step aside)."""
NULL_MOVE_COUNT_MARGIN = 8
"""Nor is it tried within this many plies of the no-progress limit, where a pass (which restarts
the count in the searched line) would hide the impasse."""

SEARCH_ENVIRONMENT = "BLUEGRAY_SEARCH"
SEARCH_CHOICES = ("auto", "compiled", "python")

EXACT, LOWER, UPPER = 0, 1, 2
_CHECK_EVERY = 1024
"""Nodes between looks at the clock (a node limit is checked exactly)."""


class _SearchStopped(Exception):  # noqa: N818 - a signal, not an error
    """Raised inside the search when a limit is reached; the last finished iteration stands."""


@dataclass(frozen=True)
class Limits:
    """When to stop searching. ``None`` means no limit of that kind; with none at all the
    search stops at ``MAX_PLY``."""

    depth: int | None = None
    nodes: int | None = None
    time: float | None = None
    """Seconds for this move."""


@dataclass(frozen=True)
class Iteration:
    """What one finished iteration of iterative deepening found."""

    depth: int
    score: int
    nodes: int
    seconds: float
    pv: tuple[Move, ...]
    seldepth: int = 0

    @property
    def nps(self) -> int:
        return int(self.nodes / self.seconds) if self.seconds > 0 else 0

    @property
    def decided(self) -> bool:
        """Whether the score says the game is won or lost with best play."""
        return abs(self.score) > DECIDED


@dataclass
class SearchResult:
    """The outcome of a search: the move to play, its score, and how it was found."""

    move: Move
    score: int
    depth: int
    nodes: int
    seconds: float
    pv: tuple[Move, ...]
    iterations: list[Iteration] = field(default_factory=list)

    @property
    def nps(self) -> int:
        return int(self.nodes / self.seconds) if self.seconds > 0 else 0


def mate_distance(score: int) -> int | None:
    """For a decided score, the number of plies to the end of the game; else ``None``."""
    if score > DECIDED:
        base = WIN if score > IMPASSE_WIN // 2 + WIN // 2 else IMPASSE_WIN
        return base - score
    if score < -DECIDED:
        return mate_distance(-score)
    return None


class Searcher:
    """An alpha-beta searcher for one rule set; it keeps its transposition table between moves
    of a game (call ``new_game`` to forget it)."""

    def __init__(
        self,
        rules: RuleSet,
        *,
        evaluator: Evaluator | None = None,
        hash_entries: int = 1 << 20,
        contempt: int = 0,
        fade: int = 0,
        compiled: bool | None = None,
    ) -> None:
        """``compiled``: search with the numba-compiled core (``fastsearch``), which is some
        twenty times faster; ``None`` (the default) uses it when numba is installed."""
        self.rules = rules
        self.evaluator = evaluator or Evaluator(rules)
        self.hash_entries = hash_entries
        tables = bitboard.rule_tables(rules)
        # Both options only mean something where an impasse is a draw.
        self.contempt = 0 if tables.impasse_by_advance else contempt
        """How much the side that searches dislikes a draw, in evaluation units: a drawn end
        scores ``-contempt`` for it and ``+contempt`` for its opponent. Against a weaker
        opponent a positive value plays on instead of settling for a repetition."""
        self.fade = 0 if tables.impasse_by_advance else fade
        """In rule sets where an impasse is a draw, how many plies before the no-progress limit
        the evaluation starts to shrink towards the draw (0: never): a lead that makes no
        progress is worth less the nearer the count comes to ending the game, so the side ahead
        looks for a capture or a captain step while it can, instead of shuffling into a draw."""
        self._root_side = 0
        self.table: dict[int, tuple[int, int, int, RawMove | None, int]] = {}
        """The transposition table: key -> (depth, bound flag, score, best move, generation)."""
        self._generation = 0
        """Which search this is (one more each search): a score in the table from an earlier
        search is not trusted, only its move (see ``_negamax``)."""
        self.history: dict[tuple[int, int], int] = {}
        self.killers: list[list[RawMove | None]] = [[None, None] for _ in range(MAX_PLY + 1)]
        self.nodes = 0
        self.seldepth = 0
        self._evaluate = self.evaluator.evaluate
        self._static: dict[int, int] = {}
        """Static evaluations of quiet positions by hash and count: leaves recur across
        iterations and transpositions."""
        self._deadline = 0.0
        self._node_limit = 0
        self._stop_requested: Callable[[], bool] | None = None
        self._next_check = _CHECK_EVERY
        self._partial: tuple[int, RawMove] | None = None
        self._impasse_plies = tables.impasse_plies
        self._near_limit = counted_from(tables.impasse_plies, self.fade)
        self._compiled = _compiled_search(self.evaluator, hash_entries, self.fade, compiled)

    @property
    def is_compiled(self) -> bool:
        """Whether searches run on the numba-compiled core."""
        return self._compiled is not None

    @property
    def stored_positions(self) -> int:
        """How many positions the transposition table holds."""
        if self._compiled is not None:
            return self._compiled.stored_positions
        return len(self.table)

    def new_game(self) -> None:
        """Forget what was learnt about earlier positions."""
        self.table.clear()
        self.history.clear()
        if self._compiled is not None:
            self._compiled.new_game()

    # -- the public entry point --------------------------------------------------------------

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
        if self._compiled is not None:
            compiled = self._compiled.search(
                board,
                limits,
                contempt=self.contempt,
                on_iteration=on_iteration,
                should_stop=should_stop,
            )
            if compiled is not None:
                self.nodes = compiled.nodes
                return compiled
            # A position with more moves than the compiled core has room for: search it here.
        started = time.perf_counter()
        moves = board.moves()
        if not moves or board.end() != bitboard.ONGOING:
            raise GameOverError("cannot search a finished position: there is no move to choose")
        self.nodes = 0
        self._generation += 1
        self._root_side = board.turn
        self._node_limit = limits.nodes or 0
        self._deadline = started + limits.time if limits.time is not None else 0.0
        self._stop_requested = should_stop
        self._next_check = min(_CHECK_EVERY, self._node_limit or _CHECK_EVERY)
        if len(self.table) > self.hash_entries:
            self.table.clear()
        if len(self._static) > self.hash_entries:
            self._static.clear()
        for row in self.killers:
            row[0] = row[1] = None
        max_depth = min(limits.depth or MAX_PLY, MAX_PLY)
        best_move = moves[0]
        best_score = -INFINITY
        iterations: list[Iteration] = []
        root = [(0, move) for move in moves]
        undo_depth = board.ply
        for depth in range(1, max_depth + 1):
            self.seldepth = 0
            try:
                score, move, root = self._root(board, depth, root)
            except _SearchStopped:
                while board.ply > undo_depth:
                    board.pop()
                # A move that beat the previous best in the unfinished iteration is better.
                if self._partial is not None and iterations:
                    best_score, best_move = self._partial
                break
            best_move, best_score = move, score
            elapsed = time.perf_counter() - started
            iteration = Iteration(
                depth, score, self.nodes, elapsed, self._pv(board, move), self.seldepth
            )
            iterations.append(iteration)
            if on_iteration is not None:
                on_iteration(iteration)
            if len(moves) == 1 or abs(score) > DECIDED:
                break
            if limits.time is not None and elapsed > limits.time * LAST_ITERATION_START:
                break  # the next iteration would most likely not finish in time
        elapsed = time.perf_counter() - started
        if not iterations:
            # Not even depth 1 finished: play the best-ordered move rather than nothing.
            best_score = self.evaluator.evaluate(board)
        chosen = move_from_raw(best_move)
        if iterations and iterations[-1].pv[0] == chosen:
            pv = iterations[-1].pv
        else:
            pv = self._pv(board, best_move)
        return SearchResult(
            chosen,
            best_score,
            iterations[-1].depth if iterations else 0,
            self.nodes,
            elapsed,
            pv,
            iterations,
        )

    def root_scores(self, board: Board, depth: int) -> list[tuple[Move, int]]:
        """Every legal move with its exact score at ``depth`` (a full-width root, no pruning
        between root moves), best first: what the weaker levels choose among."""
        if self._compiled is not None:
            compiled = self._compiled.root_scores(board, depth, contempt=self.contempt)
            if compiled is not None:
                self.nodes = self._compiled.nodes
                by_move = dict(compiled)
                # The rules core's move order, so that equal scores rank as in the plain search.
                ranked = [(move_from_raw(move), by_move[move]) for move in board.moves()]
                ranked.sort(key=lambda item: -item[1])
                return ranked
        self.nodes = 0
        self._generation += 1
        self._root_side = board.turn  # contempt is counted for the side that chooses
        self._node_limit = 0
        self._deadline = 0.0
        self._stop_requested = None
        self._next_check = _CHECK_EVERY
        scored = []
        for move in board.moves():
            board.push(move)
            code = board.end_by_move()
            if code:
                score = self._terminal(board, code, 1, mover=board.turn ^ 1)
            else:
                score = -self._negamax(board, depth - 1, -INFINITY, INFINITY, 1)
            board.pop()
            scored.append((move_from_raw(move), score))
        scored.sort(key=lambda item: -item[1])
        return scored

    # -- the tree ------------------------------------------------------------------------------

    def _root(
        self, board: Board, depth: int, root: list[tuple[int, RawMove]]
    ) -> tuple[int, RawMove, list[tuple[int, RawMove]]]:
        self._partial = None
        alpha, beta = -INFINITY, INFINITY
        best_score = -INFINITY
        best_move = root[0][1]
        scored: list[tuple[int, RawMove]] = []
        for index, (_, move) in enumerate(root):
            board.push(move)
            code = board.end_by_move()
            if code:
                score = self._terminal(board, code, 1, mover=board.turn ^ 1)
            elif index == 0:
                score = -self._negamax(board, depth - 1, -beta, -alpha, 1)
            else:
                score = -self._negamax(board, depth - 1, -alpha - 1, -alpha, 1)
                if alpha < score < beta:
                    score = -self._negamax(board, depth - 1, -beta, -alpha, 1)
            board.pop()
            scored.append((score, move))
            if score > best_score:
                best_score, best_move = score, move
                alpha = max(alpha, score)
                if index:
                    self._partial = (score, move)
        # Best first for the next iteration; the others keep their order (stable sort).
        scored.sort(key=lambda item: -item[0])
        self._store(self._key(board), depth, EXACT, best_score, best_move, 0)
        return best_score, best_move, scored

    def _terminal(self, board: Board, code: int, ply: int, mover: int) -> int:
        """The score, for the side that just moved, of a game that has ended at ``ply``."""
        winner = board.winner(code)
        if winner is None:
            return -self.contempt if mover == self._root_side else self.contempt
        base = IMPASSE_WIN if board.is_impasse(code) else WIN
        return base - ply if winner == mover else ply - base

    def _tick(self) -> None:
        if self._node_limit and self.nodes >= self._node_limit:
            raise _SearchStopped
        self._next_check = self.nodes + _CHECK_EVERY
        if self._node_limit:
            self._next_check = min(self._next_check, self._node_limit)
        if self._deadline and time.perf_counter() >= self._deadline:
            raise _SearchStopped
        if self._stop_requested is not None and self._stop_requested():
            raise _SearchStopped

    def _key(self, board: Board) -> int:
        # Near the no-progress limit the count changes what a position is worth.
        count = board.count
        if count >= self._near_limit:
            return board.hash ^ (count * 0x9E3779B97F4A7C15 & 0xFFFFFFFFFFFFFFFF)
        return board.hash

    def _store(
        self, key: int, depth: int, flag: int, score: int, move: RawMove | None, ply: int
    ) -> None:
        # Decided scores are stored relative to this node, so they stay right at any ply.
        if score > DECIDED:
            score += ply
        elif score < -DECIDED:
            score -= ply
        self.table[key] = (depth, flag, score, move, self._generation)

    def _negamax(self, board: Board, depth: int, alpha: float, beta: float, ply: int) -> int:
        if depth <= 0 or ply >= MAX_PLY:
            return self._quiesce(board, alpha, beta, ply, 0)  # which counts the node
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._tick()
        if ply > self.seldepth:
            self.seldepth = ply
        key = board.hash
        if board.count >= self._near_limit:
            key = self._key(board)
        entry = self.table.get(key)
        tt_move = None
        if entry is not None:
            entry_depth, flag, score, tt_move, generation = entry
            # A score from an earlier search (an earlier move of the game) may be wrong now: it
            # was computed with a shorter game history, so a repetition that ends the game now
            # was not one then (the engine kept such a score and let its opponent repeat into
            # a draw). Its move still orders the search.
            if entry_depth >= depth and generation == self._generation:
                if score > DECIDED:
                    score -= ply
                elif score < -DECIDED:
                    score += ply
                if flag == EXACT:
                    return score
                if flag == LOWER:
                    if score >= beta:
                        return score
                elif score <= alpha:
                    return score
        null_window = beta - alpha == 1
        if (
            null_window
            and depth <= FUTILITY_DEPTH
            and abs(beta) < DECIDED
            and not board.has_capture()
        ):
            static = self._quiet_value(board, ply)
            if abs(static) < DECIDED and static - FUTILITY_MARGIN * depth >= beta:
                return static
        moves = board.moves()
        if not moves:
            return self._terminal(board, bitboard.STALEMATE, ply, mover=board.turn ^ 1) * -1
        if len(moves) > 1:
            moves = self._order(moves, tt_move, ply, board.captains[board.turn])
            if (
                null_window
                and depth >= 3
                and not moves[0][2]
                and abs(beta) < DECIDED
                and board.count + NULL_MOVE_COUNT_MARGIN < self._impasse_plies
                and (board.guards[board.turn] | board.privates[board.turn]).bit_count()
                >= NULL_MOVE_SOLDIERS
                and self._quiet_value(board, ply) >= beta
            ):
                board.push_null()
                score = -self._negamax(
                    board, depth - 1 - NULL_MOVE_REDUCTION, -beta, -beta + 1, ply + 1
                )
                board.pop()
                if score >= beta:
                    if score > DECIDED:
                        score = int(beta)  # a line with a pass in it proves no win
                    self._store(key, depth, LOWER, score, moves[0], ply)
                    return score
        original_alpha = alpha
        best = -INFINITY
        best_move = moves[0]
        side = board.turn
        push = board.push
        pop = board.pop
        ended = board.end_by_move
        quiet_tried: list[RawMove] = []
        captain = board.captains[side]
        late = LATE_MOVE_COUNT + depth * depth if null_window and depth <= FUTILITY_DEPTH else 0
        for index, move in enumerate(moves):
            if late and index >= late and not move[2] and move[0] != captain and best > -DECIDED:
                break  # late move pruning
            push(move)
            code = ended()
            if code:
                score = self._terminal(board, code, ply + 1, mover=side)
            elif index == 0:
                score = -self._negamax(board, depth - 1, -beta, -alpha, ply + 1)
            else:
                reduction = 0
                # Late quiet moves are searched shallower first (never a captain move).
                if depth >= 3 and index >= 4 and not move[2] and move[1] != board.captains[side]:
                    reduction = 2 if depth >= 5 and index >= DEEP_REDUCTION_INDEX else 1
                score = -self._negamax(board, depth - 1 - reduction, -alpha - 1, -alpha, ply + 1)
                if score > alpha and (reduction or score < beta):
                    score = -self._negamax(board, depth - 1, -beta, -alpha, ply + 1)
            pop()
            if score > best:
                best = score
                best_move = move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if not move[2]:
                            self._reward(move, quiet_tried, depth, ply)
                        break
            if not move[2]:
                quiet_tried.append(move)
        if best <= original_alpha:
            flag = UPPER
        elif best >= beta:
            flag = LOWER
        else:
            flag = EXACT
        self._store(key, depth, flag, best, best_move, ply)
        return best

    def _quiesce(self, board: Board, alpha: float, beta: float, ply: int, qply: int) -> int:
        """Follow forced captures; a position without one is scored by the evaluation."""
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._tick()
        if ply > self.seldepth:
            self.seldepth = ply
        if qply >= QUIESCENCE_PLIES or not board.has_capture():
            return self._quiet_value(board, ply)
        best = -INFINITY
        side = board.turn
        for move in board.captures():
            board.push(move)
            code = board.end_by_move()
            if code:
                score = self._terminal(board, code, ply + 1, mover=side)
            else:
                score = -self._quiesce(board, -beta, -alpha, ply + 1, qply + 1)
            board.pop()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best

    def _quiet_value(self, board: Board, ply: int) -> int:
        """A quiet position's value: the evaluation (remembered by hash and count), or the end
        of a stalemated game."""
        key = board.hash ^ board.count
        value = self._static.get(key)
        if value is None:
            if not _may_have_a_step(board) and board.count_moves() == 0:
                return -self._terminal(board, bitboard.STALEMATE, ply, mover=board.turn ^ 1)
            value = self._evaluate(board)
            if self.fade:
                value = faded(value, board.count, self._impasse_plies, self.fade)
            self._static[key] = value
        return value

    # -- move ordering ---------------------------------------------------------------------------

    def _order(
        self, moves: list[RawMove], tt_move: RawMove | None, ply: int, captain: int
    ) -> list[RawMove]:
        if moves[0][2]:
            # Captures: the ones taking most first.
            moves.sort(key=_capture_size, reverse=True)
        else:
            history = self.history
            killers = self.killers[ply]
            # Killers first, then the captain's move (progress), then by history.
            scores = {}
            for move in moves:
                scores[move] = history.get((move[0], move[1]), 0)
            last = moves[-1]
            if last[0] == captain:  # the generator lists the captain's move last
                scores[last] += 1 << 20
            if killers[0] is not None and killers[0] in scores:
                scores[killers[0]] += 1 << 24
            if killers[1] is not None and killers[1] in scores:
                scores[killers[1]] += 1 << 23
            moves.sort(key=scores.__getitem__, reverse=True)
        if tt_move is not None and tt_move in moves and moves[0] != tt_move:
            moves.remove(tt_move)
            moves.insert(0, tt_move)
        return moves

    def _reward(self, move: RawMove, tried: list[RawMove], depth: int, ply: int) -> None:
        killers = self.killers[ply]
        if killers[0] != move:
            killers[1] = killers[0]
            killers[0] = move
        bonus = depth * depth
        history = self.history
        key = (move[0], move[1])
        history[key] = history.get(key, 0) + bonus
        for other in tried:
            key = (other[0], other[1])
            history[key] = history.get(key, 0) - bonus

    def _pv(self, board: Board, first: RawMove) -> tuple[Move, ...]:
        """The principal variation: the first move, then the table's best moves while they are
        legal and the game goes on."""
        line = [first]
        board.push(first)
        seen = {board.hash}
        while len(line) < 32 and not board.end_by_move():
            entry = self.table.get(self._key(board))
            if entry is None or entry[3] is None:
                break
            move = entry[3]
            if move not in board.moves():
                break
            board.push(move)
            line.append(move)
            if board.hash in seen:
                break
            seen.add(board.hash)
        for _ in line:
            board.pop()
        return tuple(move_from_raw(move) for move in line)


def warm_up() -> None:
    """Get the compiled core ready (when numba is installed), so that the first timed search
    does not pay for loading it: engines call this before they say they are ready."""
    try:
        from bluegray.engine import fastsearch
    except ImportError:
        return
    fastsearch.warm_up()


def _compiled_search(
    evaluator: Evaluator, hash_entries: int, fade: int, wanted: bool | None
) -> CompiledSearch | None:
    """The compiled core for a searcher, if wanted and numba is installed. Left to the default,
    the environment variable ``BLUEGRAY_SEARCH`` (``python``, ``compiled`` or ``auto``)
    decides: ``python`` runs the plain search, for example to compare the two."""
    if wanted is None:
        choice = os.environ.get(SEARCH_ENVIRONMENT, "auto")
        if choice not in SEARCH_CHOICES:
            raise BlueGrayError(
                f"{SEARCH_ENVIRONMENT}={choice!r}: expected one of {', '.join(SEARCH_CHOICES)}"
            )
        wanted = {"python": False, "compiled": True, "auto": None}[choice]
    if wanted is False:
        return None
    try:
        from bluegray.engine.fastsearch import CompiledSearch
    except ImportError:
        if wanted:
            raise BlueGrayError(
                'the compiled search needs numba: pip install "bluegray[fast]"'
            ) from None
        return None
    return CompiledSearch(evaluator, hash_entries, fade)


def counted_from(impasse_plies: int, fade: int) -> int:
    """The no-progress count from which it is part of a position's key: near the limit, and
    wherever the evaluation fades, the count changes what a position is worth."""
    return max(0, impasse_plies - max(24, fade))


def faded(value: int, count: int, impasse_plies: int, fade: int) -> int:
    """``value`` shrunk towards a draw over the last ``fade`` plies before the no-progress limit
    (integer arithmetic, the same in the compiled search)."""
    remaining = impasse_plies - count
    if remaining >= fade:
        return value
    return value * max(remaining, 0) // fade


def _capture_size(move: RawMove) -> int:
    return move[2].bit_count()


def _may_have_a_step(board: Board) -> bool:
    """A cheap test that the side to move has some soldier step (so it is not stalemated)."""
    side = board.turn
    soldiers = board.guards[side] | board.privates[side]
    captains = board.captains
    other = side ^ 1
    empty = bitboard.SOLDIER_SQUARES & ~(
        soldiers
        | board.guards[other]
        | board.privates[other]
        | (1 << captains[0])
        | (1 << captains[1])
    )
    sideways = ((soldiers & bitboard.NOT_FILE_I) << 1) | ((soldiers & bitboard.NOT_FILE_A) >> 1)
    forward = soldiers << SIZE if side == 0 else soldiers >> SIZE
    return bool((sideways | forward) & empty)
