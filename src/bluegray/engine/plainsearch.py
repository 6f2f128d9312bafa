"""The plain Python kernel of the search: negamax with alpha-beta on the rules core's bitboards
(``bitboard.Board``), with no dependency beyond the standard library.

What it does, node by node, is what the compiled kernel (``compiled.search``) does, in the same
order
(see ``kernel``): a principal variation search with a transposition table; the hash move, killers,
the captain's step and the history of quiet moves for move ordering; null-move, reverse futility
and late move pruning; late move reductions; a quiescence search over forced captures; the rules'
own game ends (repetition and no progress exact), contempt and the fade towards a draw. The
tree's parameters are in ``parameters``.

Captures are compulsory, so a position where the side to move can capture is never quiet: the
quiescence search plays out every forced capture sequence before it trusts the evaluation. Game
ends are the rules' own (``Board.end_by_move``): repetition and no progress are exact, and an
impasse is scored as the rule set decides it (a win by advancement under Sackson's rules).
"""

from __future__ import annotations

from typing import ClassVar, Final

from bluegray import bitboard
from bluegray.bitboard import Board, RawMove
from bluegray.engine.evaluation import Evaluator
from bluegray.engine.kernel import STATIC_ENTRIES, Kernel, Memory, empty_memory, table_key
from bluegray.engine.limits import DECIDED, IMPASSE_WIN, INFINITY, MAX_PLY, WIN
from bluegray.engine.parameters import (
    CAPTAIN_BONUS,
    DEEP_REDUCTION_INDEX,
    FUTILITY_DEPTH,
    FUTILITY_MARGIN,
    KILLER_BONUS,
    LATE_MOVE_COUNT,
    NULL_MOVE_COUNT_MARGIN,
    NULL_MOVE_REDUCTION,
    NULL_MOVE_SOLDIERS,
    QUIESCENCE_PLIES,
    REDUCED_FROM_INDEX,
    counted_from,
    faded,
)
from bluegray.engine.records import (
    EMPTY,
    EXACT,
    LOWER,
    UPPER,
    TableEntry,
    entry_depth,
    entry_flag,
    entry_generation,
    entry_move,
    entry_score,
    pack_entry,
)

CHECK_EVERY: Final = 1024
"""Nodes between looks at the stop flag (a node limit is checked exactly)."""


class _Stopped(Exception):  # noqa: N818 - a signal, not an error
    """Raised inside the search when a limit is reached; the iteration is abandoned."""


class PlainKernel(Kernel):
    """The plain Python kernel for one rule set, evaluator and fade (see ``kernel.Kernel``)."""

    name: ClassVar[str] = "python"

    def __init__(
        self, evaluator: Evaluator, slots: int, fade: int = 0, memory: Memory | None = None
    ) -> None:
        """``slots``: the table's size (``kernel.table_slots``); ``memory``: a table and history
        to take over (else they start empty)."""
        tables = bitboard.rule_tables(evaluator.rules)
        self._evaluate = evaluator.evaluate
        self._fade = fade
        self._impasse_plies = tables.impasse_plies
        self._near_limit = counted_from(tables.impasse_plies, fade)
        self._keys, self._data, self._history = memory or empty_memory(slots)
        self._mask = len(self._keys) - 1
        self._killers: list[list[tuple[int, int] | None]] = [
            [None, None] for _ in range(MAX_PLY + 1)
        ]
        self._static: dict[int, int] = {}
        """Static evaluations of quiet positions by hash and count: leaves recur across
        iterations and transpositions."""
        self._board: Board | None = None
        self._root_moves: list[RawMove] = []
        self._root_ply = 0
        self._root_side = 0
        self._contempt = 0
        self._generation = 0
        self._node_limit = 0
        self._next_check = CHECK_EVERY
        self._stop_requested = False

    # -- the interface -----------------------------------------------------------------------

    def start(self, board: Board, *, generation: int, node_limit: int, contempt: int) -> int:
        self._board = board
        self._root_moves = board.moves()
        self._root_ply = board.ply
        self._root_side = board.turn
        self._contempt = contempt
        self._generation = generation
        self._node_limit = node_limit
        self._next_check = min(CHECK_EVERY, node_limit) if node_limit else CHECK_EVERY
        self._stop_requested = False
        self.nodes = self.seldepth = 0
        self.stopped = False
        for killers in self._killers:
            killers[0] = killers[1] = None
        if len(self._static) > STATIC_ENTRIES:
            self._static.clear()
        return len(self._root_moves)

    def score_move(self, index: int, depth: int, alpha: int, beta: int) -> int:
        board = self._board
        assert board is not None
        side = board.turn
        board.push(self._root_moves[index])
        try:
            code = board.end_by_move()
            if code:
                return self._terminal(board, code, 1, side)
            return -self._negamax(board, depth - 1, -beta, -alpha, 1)
        except _Stopped:
            self.stopped = True
            return 0
        finally:
            while board.ply > self._root_ply:
                board.pop()

    def store_root(self, depth: int, score: int, index: int) -> None:
        board = self._board
        assert board is not None
        self._store(self._key(board), depth, EXACT, score, index, 0)

    def probe(self, key: int) -> TableEntry | None:
        slot = key & self._mask
        if self._keys[slot] != key or self._data[slot] == EMPTY:
            return None
        return TableEntry.unpack(self._data[slot])

    def request_stop(self) -> None:
        self._stop_requested = True

    def memory(self) -> Memory:
        return Memory(self._keys, self._data, self._history)

    def new_game(self) -> None:
        slots = len(self._keys)
        self._keys[:] = [0] * slots
        self._data[:] = [0] * slots
        self._history[:] = [0] * len(self._history)
        self._static.clear()

    @property
    def stored_positions(self) -> int:
        return len(self._data) - self._data.count(EMPTY)

    # -- the tree ------------------------------------------------------------------------------

    def _tick(self) -> None:
        """Every ``CHECK_EVERY`` nodes, and at the node limit: stop when a limit says so."""
        if self._node_limit and self.nodes >= self._node_limit:
            raise _Stopped
        if self._stop_requested:
            raise _Stopped
        self._next_check = self.nodes + CHECK_EVERY
        if self._node_limit:
            self._next_check = min(self._next_check, self._node_limit)

    def _terminal(self, board: Board, code: int, ply: int, mover: int) -> int:
        """The score, for the side that just moved, of a game that has ended at ``ply``."""
        winner = board.winner(code)
        if winner is None:
            return -self._contempt if mover == self._root_side else self._contempt
        base = IMPASSE_WIN if board.is_impasse(code) else WIN
        return base - ply if winner == mover else ply - base

    def _key(self, board: Board) -> int:
        return table_key(board.hash, board.count, self._near_limit)

    def _store(self, key: int, depth: int, flag: int, score: int, move: int, ply: int) -> None:
        # Decided scores are stored relative to this node, so they stay right at any ply.
        if score > DECIDED:
            score += ply
        elif score < -DECIDED:
            score -= ply
        slot = key & self._mask
        self._keys[slot] = key
        self._data[slot] = pack_entry(depth, flag, score, move, self._generation)

    def _negamax(self, board: Board, depth: int, alpha: int, beta: int, ply: int) -> int:
        if depth <= 0 or ply >= MAX_PLY:
            return self._quiesce(board, alpha, beta, ply, 0)  # which counts the node
        if self.nodes >= self._next_check:
            self._tick()
        self.nodes += 1
        if ply > self.seldepth:
            self.seldepth = ply
        key = board.hash
        if board.count >= self._near_limit:
            key = self._key(board)
        slot = key & self._mask
        tt_move = -1
        if self._keys[slot] == key and self._data[slot] != EMPTY:
            data = self._data[slot]
            tt_move = entry_move(data)
            # A score from an earlier search (an earlier move of the game) may be wrong now: it
            # was computed with a shorter game history, so a repetition that ends the game now
            # was not one then. Its move still orders the search.
            if entry_depth(data) >= depth and entry_generation(data) == self._generation:
                score = entry_score(data)
                if score > DECIDED:
                    score -= ply
                elif score < -DECIDED:
                    score += ply
                flag = entry_flag(data)
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
            static = self._static_value(board, ply)
            if abs(static) < DECIDED and static - FUTILITY_MARGIN * depth >= beta:
                return static
        moves = board.moves()
        n = len(moves)
        if not n:
            return -self._terminal(board, bitboard.STALEMATE, ply, board.turn ^ 1)
        side = board.turn
        captain = board.captains[side]
        order = [0]
        if n > 1:
            order = self._order(moves, tt_move, ply, captain)
            if (
                null_window
                and depth >= 3
                and not moves[0][2]
                and abs(beta) < DECIDED
                and board.count + NULL_MOVE_COUNT_MARGIN < self._impasse_plies
                and (board.guards[side] | board.privates[side]).bit_count() >= NULL_MOVE_SOLDIERS
                and self._static_value(board, ply) >= beta
            ):
                board.push_null()
                score = -self._negamax(
                    board, depth - 1 - NULL_MOVE_REDUCTION, -beta, -beta + 1, ply + 1
                )
                board.pop()
                if score >= beta:
                    if score > DECIDED:
                        score = beta  # a line with a pass in it proves no win
                    self._store(key, depth, LOWER, score, order[0], ply)
                    return score
        original_alpha = alpha
        best = -INFINITY
        best_index = order[0]
        push = board.push
        pop = board.pop
        ended = board.end_by_move
        late = LATE_MOVE_COUNT + depth * depth if null_window and depth <= FUTILITY_DEPTH else 0
        for i, index in enumerate(order):
            move = moves[index]
            if late and i >= late and not move[2] and move[0] != captain and best > -DECIDED:
                break  # late move pruning
            push(move)
            code = ended()
            if code:
                score = self._terminal(board, code, ply + 1, side)
            elif i == 0:
                score = -self._negamax(board, depth - 1, -beta, -alpha, ply + 1)
            else:
                reduction = 0
                # Late quiet moves are searched shallower first (never a captain move).
                if (
                    depth >= 3
                    and i >= REDUCED_FROM_INDEX
                    and not move[2]
                    and move[1] != board.captains[side]
                ):
                    reduction = 2 if depth >= 5 and i >= DEEP_REDUCTION_INDEX else 1
                score = -self._negamax(board, depth - 1 - reduction, -alpha - 1, -alpha, ply + 1)
                if score > alpha and (reduction or score < beta):
                    score = -self._negamax(board, depth - 1, -beta, -alpha, ply + 1)
            pop()
            if score > best:
                best = score
                best_index = index
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if not move[2]:
                            self._reward(moves, order, i, depth, ply)
                        break
        if best <= original_alpha:
            flag = UPPER
        elif best >= beta:
            flag = LOWER
        else:
            flag = EXACT
        self._store(key, depth, flag, best, best_index, ply)
        return best

    def _quiesce(self, board: Board, alpha: int, beta: int, ply: int, qply: int) -> int:
        """Follow forced captures; a position without one is scored by the evaluation."""
        if self.nodes >= self._next_check:
            self._tick()
        self.nodes += 1
        if ply > self.seldepth:
            self.seldepth = ply
        if qply >= QUIESCENCE_PLIES or not board.has_capture():
            return self._static_value(board, ply)
        best = -INFINITY
        side = board.turn
        for move in board.captures():
            board.push(move)
            code = board.end_by_move()
            if code:
                score = self._terminal(board, code, ply + 1, side)
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

    def _static_value(self, board: Board, ply: int) -> int:
        """A quiet position's value: the evaluation (remembered by hash and count), or the end
        of a stalemated game."""
        key = board.hash ^ board.count
        value = self._static.get(key)
        if value is None:
            if board.is_stalemate():
                return -self._terminal(board, bitboard.STALEMATE, ply, board.turn ^ 1)
            value = self._evaluate(board)
            if self._fade:
                value = faded(value, board.count, self._impasse_plies, self._fade)
            self._static[key] = value
        return value

    # -- move ordering ---------------------------------------------------------------------------

    def _order(self, moves: list[RawMove], tt_move: int, ply: int, captain: int) -> list[int]:
        """The order to try the moves in (indices into ``moves``): the hash move, then captures
        taking most, or killers, the captain's move (progress) and then by history; ties keep
        the generation order."""
        if moves[0][2]:
            keys = [move[2].bit_count() for move in moves]
        else:
            history = self._history
            first, second = self._killers[ply]
            keys = []
            for frm, to, _, _ in moves:
                value = history[frm * 81 + to]
                if frm == captain:
                    value += CAPTAIN_BONUS
                if first is not None and first[0] == frm and first[1] == to:
                    value += KILLER_BONUS
                if second is not None and second[0] == frm and second[1] == to:
                    value += KILLER_BONUS >> 1
                keys.append(value)
        order = sorted(range(len(moves)), key=keys.__getitem__, reverse=True)  # stable
        if 0 <= tt_move < len(moves) and order[0] != tt_move:
            order.remove(tt_move)
            order.insert(0, tt_move)
        return order

    def _reward(self, moves: list[RawMove], order: list[int], i: int, depth: int, ply: int) -> None:
        """A quiet move cut off: make it a killer, raise its history, lower the quiet moves
        tried before it."""
        frm, to, _, _ = moves[order[i]]
        killers = self._killers[ply]
        if killers[0] != (frm, to):
            killers[1] = killers[0]
            killers[0] = (frm, to)
        bonus = depth * depth
        history = self._history
        history[frm * 81 + to] += bonus
        for j in range(i):
            other = moves[order[j]]
            history[other[0] * 81 + other[1]] -= bonus
