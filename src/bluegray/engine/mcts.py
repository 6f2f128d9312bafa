"""Monte-Carlo tree search (UCT): a second engine that plays unlike the alpha-beta search, and a
yardstick for it: the search (``MctsSearcher``); its player, built from a spec such as
``mcts:time=1``, is ``mcts_player``'s.

Design
------
- **Tree.** A node is a move sequence from the root, not a position: no transpositions. The
  repetition and no-progress rules make a position's value depend on its history, and a tree of
  move sequences gets that right without any bookkeeping.
- **Statistics.** Each node counts its visits and sums its results for the side that moved into
  it, so a parent simply picks the child that is best for the side to move there.
- **Selection.** UCB1: ``mean + c * sqrt(ln N / n)``. The mean starts from the child's *prior*
  (the static evaluation just after the move, as an expected score) counted as ``PRIOR_VISITS``
  virtual visits, so that a few noisy samples do not outweigh what the evaluation already knows.
- **Expansion.** One child per iteration. A node's moves are generated once, each checked for an
  immediate game end and scored by the evaluation, and expanded best first. Below the root a
  node visited ``N`` times has at most about ``widen * sqrt(N)`` children (progressive
  widening): with thirty moves a node, plain UCT would spend its visits trying every move at
  every node and never look deep. At the root every move is tried.
- **Simulation.** A truncated playout of ``playout`` plies with a cheap greedy-random policy:
  among captures (compulsory anyway) the one that takes most; otherwise the best, by the
  evaluation, of ``SAMPLE`` random moves and the captain's move. The playout goes on while the
  side to move must capture (up to ``CAPTURE_EXTENSION`` plies), since a position in the middle
  of an exchange is misjudged by a static evaluation. The final position is scored
  ``expected_score(evaluate(board))``. Game ends are the rules' own (``end_by_move`` and
  stalemate) and exact: win 1, loss 0, draw 0.5; an impasse won by advancement (Sackson) is a win.
  The default is ``playout=0``: only the forced captures are played out before the evaluation
  scores the leaf. Matches against ``level:6`` at 0.1 s a move (16 games each, cooper) scored
  6-8/16 with ``playout=0``, 3.5/16 with 2 plies, 3/12 with 6 and 2/12 with 12 (sackson: 3/16
  against 1/16 for 6 plies): a random-ish policy adds more noise than the evaluation loses by
  not looking further, and the tree looks further anyway. ``playout=N`` turns them on.
- **Solver touch.** A node with a move that wins at once is a proven loss for the side that
  moved into it; a node whose every move is a proven loss is a proven win. Proven nodes score
  exactly and are not searched further; a winning root move is played at once, and proven
  losing root moves are played only when nothing else is left.
- **Choice.** The most visited root move; ties go to the better mean, then to the move expanded
  first (the generator's order, which is deterministic).
- **Tree reuse.** Between moves of one game, the subtree of the moves actually played is kept
  when the game's history extends the searched one (same rules, start and moves); anything else
  rebuilds the tree. Node values depend only on the history, so a kept subtree stays exact.
- **Limits.** ``Limits.time`` (seconds, the clock read after every iteration) and
  ``Limits.nodes`` (iterations, exactly); ``depth`` is ignored. With neither, the player's own
  ``time`` / ``iterations`` options apply (``DEFAULT_TIME`` seconds when none is given).
- **Determinism.** One seeded ``random.Random`` and lists only (no set or dict order), so a
  seed and an iteration limit give the same move every time.
- **Boards.** The tree is searched on the compiled board with the compiled evaluation once it
  is ready in the process (``readiness``, as for the alpha-beta search; ``compiled.mcts``), else on
  the rules core's board (``mcts_board``): the same moves, evaluations and random draws either
  way, so the same search, some twice as fast compiled.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Final

from bluegray import bitboard
from bluegray.bitboard import Board, RawMove
from bluegray.engine import readiness
from bluegray.engine.evaluation import Evaluator, expected_score
from bluegray.engine.mcts_board import MctsBoard, PlainMctsBoard
from bluegray.engine.search import search_choice
from bluegray.errors import GameOverError
from bluegray.moves import Move
from bluegray.position import move_from_raw
from bluegray.rules import RuleSet

DEFAULT_C: Final = 0.2
"""The UCB1 exploration constant. Results are expected scores from the evaluation, which vary
much less than win/loss samples, so this is far below the textbook sqrt(2) (measured: 0.1-0.2
did better than 0.3, 0.4 and 0.8 against ``level:6``)."""
DEFAULT_PLAYOUT: Final = 0
"""Plies of each playout before the evaluation scores it (forced captures are always played)."""
DEFAULT_WIDEN: Final = 1.0
"""Progressive widening: a node visited N times may have about ``widen * sqrt(N)`` children
(measured: 0.8-1.5 alike, 3 much worse)."""
DEFAULT_TIME: Final = 1.0
"""Seconds a move when neither the limits nor the player's options say otherwise."""
PRIOR_VISITS: Final = 2.0
"""How many visits the evaluation's prior of a move is worth in its mean."""
SAMPLE: Final = 2
"""Random moves a playout compares (with the captain's move) at each quiet ply."""
CAPTURE_EXTENSION: Final = 8
"""Plies a playout may go on past its length while the side to move must capture."""
ONGOING: Final = -1.0
"""The ``terminal`` value of a node whose game goes on."""


class Node:
    """A move sequence from the root, with statistics for the side that made its last move."""

    __slots__ = (
        "children",
        "move",
        "mover",
        "parent",
        "pending",
        "prior",
        "proven",
        "terminal",
        "total",
        "visits",
    )

    def __init__(
        self,
        move: RawMove | None,
        parent: Node | None,
        mover: int,
        prior: float = 0.5,
        terminal: float = ONGOING,
    ) -> None:
        self.move = move
        self.parent = parent
        self.mover = mover
        """The side that played ``move`` (for the root: the side not to move)."""
        self.prior = prior
        """The expected score for ``mover`` that the evaluation gives just after the move."""
        self.terminal = terminal
        """The exact result for ``mover`` if the game ended with this move, else ``ONGOING``."""
        self.proven = 0 if terminal == 0.5 or terminal == ONGOING else (1 if terminal else -1)
        """+1 a proven win for ``mover``, -1 a proven loss, 0 unknown."""
        self.visits = 0
        self.total = 0.0
        self.children: list[Node] = []
        self.pending: list[tuple[RawMove, float, float]] | None = None
        """The moves not yet expanded as ``(move, prior, terminal)``, the next one last; ``None``
        until the node's moves have been generated."""

    def mean(self) -> float:
        """The mean result for ``mover``, the prior counted as ``PRIOR_VISITS`` visits."""
        return (self.total + PRIOR_VISITS * self.prior) / (self.visits + PRIOR_VISITS)

    def exact(self) -> float:
        """The exact result for ``mover`` of a terminal or proven node."""
        if self.terminal != ONGOING:
            return self.terminal
        return 1.0 if self.proven > 0 else 0.0


@dataclass(frozen=True)
class RootMove:
    """What the search found about one root move."""

    move: Move
    visits: int
    value: float
    """The mean expected score for the side to move at the root."""
    proven: int
    """+1 the move wins with best play, -1 it loses, 0 not proven."""


@dataclass(frozen=True)
class MctsResult:
    """The outcome of one search."""

    move: Move
    value: float
    """The expected score of the chosen move for the side to move."""
    iterations: int
    seconds: float
    tree_size: int
    """Root visits, counting those inherited from a kept tree."""
    root: tuple[RootMove, ...]
    """The expanded root moves, most visited first."""
    pv: tuple[Move, ...]
    """The most visited line from the root."""

    @property
    def ips(self) -> int:
        """Iterations per second."""
        return int(self.iterations / self.seconds) if self.seconds > 0 else 0


class MctsSearcher:
    """The UCT search for one rule set."""

    def __init__(
        self,
        rules: RuleSet,
        *,
        c: float = DEFAULT_C,
        playout: int = DEFAULT_PLAYOUT,
        widen: float = DEFAULT_WIDEN,
        rng: random.Random | None = None,
        evaluator: Evaluator | None = None,
    ) -> None:
        self.rules = rules
        self.c = c
        self.playout = playout
        self.widen = widen
        self.random = rng or random.Random(0)
        self.evaluator = evaluator or Evaluator(rules)
        # As the alpha-beta search does: the compiled board once it is ready (BLUEGRAY_SEARCH).
        self._choice = search_choice()
        if self._choice == "compiled":
            readiness.require_compiled()
        elif self._choice == "auto":
            readiness.prepare()

    # -- the public entry point ---------------------------------------------------------------

    def search(
        self,
        board: Board,
        *,
        iterations: int | None = None,
        seconds: float | None = None,
        root: Node | None = None,
    ) -> tuple[MctsResult, Node]:
        """Search ``board`` (left unchanged) for at most ``iterations`` iterations and
        ``seconds`` seconds; continue from ``root`` if given (it must be this position)."""
        started = time.perf_counter()
        if board.end() != bitboard.ONGOING:
            raise GameOverError("cannot search a finished position: there is no move to choose")
        if root is None:
            root = Node(None, None, board.turn ^ 1)
        root.parent = None
        searched = self._board_for(board)
        if root.pending is None:
            self._generate(root, searched)
        deadline = started + seconds if seconds is not None else math.inf
        limit = iterations if iterations is not None else -1
        done = 0
        single = len(root.children) + len(root.pending or ()) == 1
        # A forced move or a won position needs no search.
        while not single and root.proven == 0 and done != limit:
            if done and time.perf_counter() >= deadline:
                break
            self._iterate(root, searched)
            done += 1
        elapsed = time.perf_counter() - started
        return self._result(root, done, elapsed), root

    def _board_for(self, board: Board) -> MctsBoard:
        """The board to search on: the compiled one once it is ready in this process
        (``readiness``), else the rules core's (the same moves and draws either way)."""
        parts = None if self._choice == "python" else readiness.compiled_parts()
        if parts is None:
            return PlainMctsBoard(board, self.evaluator)
        return parts.mcts_board(board, self.evaluator)

    # -- one iteration ------------------------------------------------------------------------

    def _iterate(self, root: Node, board: MctsBoard) -> None:
        """Select a path, expand one child, score it, and back the result up. The path's moves
        are pushed onto ``board`` only when a position is needed (to generate its moves or play
        out from it), all at once."""
        node = root
        path: list[RawMove] = []
        pushed = 0
        c = self.c
        widen = self.widen
        sqrt = math.sqrt
        log = math.log
        while True:
            if node.proven or node.terminal != ONGOING:
                value = node.exact()
                break
            pending = node.pending
            if pending is None:
                board.push_all(path[pushed:])
                pushed = len(path)
                self._generate(node, board)
                continue  # a move that wins at once proves the node: see the top of the loop
            children = node.children
            if pending and (
                node is root or not children or len(children) < widen * sqrt(node.visits)
            ):
                raw, prior, terminal = pending.pop()
                child = Node(raw, node, node.mover ^ 1, prior, terminal)
                children.append(child)
                path.append(raw)
                node = child
                if terminal != ONGOING:
                    value = child.exact()
                else:
                    board.push_all(path[pushed:])
                    pushed = len(path)
                    value = self._playout(board, child.mover)
                break
            best: Node | None = None
            best_score = -math.inf
            log_n = log(node.visits)
            for child in children:
                if child.proven < 0:
                    continue
                n = child.visits
                score = (child.total + PRIOR_VISITS * child.prior) / (n + PRIOR_VISITS) + c * sqrt(
                    log_n / n
                )
                if score > best_score:
                    best, best_score = child, score
            if best is None:
                if pending:
                    # Every expanded move loses: look at the others, whatever the widening says.
                    raw, prior, terminal = pending.pop()
                    best = Node(raw, node, node.mover ^ 1, prior, terminal)
                    children.append(best)
                else:
                    node.proven = 1  # every move loses for the side to move here
                    continue
            path.append(best.move)  # type: ignore[arg-type]
            node = best
        board.pop_all(pushed)
        self._backup(node, value)

    def _backup(self, leaf: Node, value: float) -> None:
        """Add ``value`` (a result for ``leaf.mover``) along the path, and carry proofs up."""
        blue = value if leaf.mover == 0 else 1.0 - value
        node: Node | None = leaf
        while node is not None:
            node.visits += 1
            node.total += blue if node.mover == 0 else 1.0 - blue
            node = node.parent
        child = leaf
        parent = child.parent
        while parent is not None and not parent.proven:
            if child.proven > 0:
                parent.proven = -1
            elif child.proven < 0 and not parent.pending:
                if any(other.proven >= 0 for other in parent.children):
                    break
                parent.proven = 1
            else:
                break
            child, parent = parent, parent.parent

    def _generate(self, node: Node, board: MctsBoard) -> list[tuple[RawMove, float, float]]:
        """Generate and score the moves of ``node`` (whose position ``board`` holds), best last.

        A move that wins at once makes ``node`` a proven loss for the side that moved into it.
        """
        side = board.turn
        keyed: list[tuple[bool, float, int, RawMove, float]] = []
        for index, (raw, code, winner, value) in enumerate(board.scored_moves()):
            if code:
                terminal = 0.5 if winner is None else (1.0 if winner == side else 0.0)
                prior = terminal
            else:
                terminal = ONGOING
                prior = expected_score(-value)
            # Wins last (expanded first), then by prior, ties to the generator's order.
            keyed.append((terminal == 1.0, prior, -index, raw, terminal))
        keyed.sort(key=_sort_key)
        pending = [(raw, prior, terminal) for _, prior, _, raw, terminal in keyed]
        node.pending = pending
        if pending and pending[-1][2] == 1.0:
            node.proven = -1
        return pending

    # -- the playout --------------------------------------------------------------------------

    def _playout(self, board: MctsBoard, mover: int) -> float:
        """Play a short greedy-random continuation and return the result for ``mover``."""
        randrange = self.random.randrange
        plies = self.playout
        longest = plies + CAPTURE_EXTENSION
        pushed = 0
        while True:
            side = board.turn
            if pushed >= plies:
                leaf = board.leaf(pushed < longest)
                if leaf is not None:
                    if leaf.end == bitboard.ONGOING:
                        score = expected_score(leaf.value)
                        value = score if side == mover else 1.0 - score
                    elif leaf.winner is None:
                        value = 0.5
                    else:
                        value = 1.0 if leaf.winner == mover else 0.0
                    break
            choices = board.choices()
            if not choices.moves:
                winner = board.winner(bitboard.STALEMATE)
                value = 0.5 if winner is None else (1.0 if winner == mover else 0.0)
                break
            if choices.moves == 1:
                board.play_only_move()
            elif choices.capturing:
                board.play_best_capture(randrange(choices.best) if choices.best > 1 else 0)
            else:
                indices = [randrange(choices.moves) for _ in range(SAMPLE)]
                # The generator lists the captain's move last.
                board.play_sampled(indices, choices.captain_last)
            pushed += 1
            code = board.end_by_move()
            if code:
                winner = board.winner(code)
                value = 0.5 if winner is None else (1.0 if winner == mover else 0.0)
                break
        board.pop_all(pushed)
        return value

    # -- the answer ---------------------------------------------------------------------------

    def _result(self, root: Node, iterations: int, seconds: float) -> MctsResult:
        chosen = best_child(root)
        if chosen is None:
            # Nothing expanded (a forced move, or no time at all): the best move by its prior.
            assert root.pending
            raw, prior, terminal = root.pending[-1]
            move, value = move_from_raw(raw), (prior if terminal == ONGOING else terminal)
        else:
            move = move_from_raw(chosen.move)  # type: ignore[arg-type]
            value = _mean(chosen)
        ranked = sorted(root.children, key=lambda child: -child.visits)
        stats = tuple(
            RootMove(move_from_raw(child.move), child.visits, _mean(child), child.proven)  # type: ignore[arg-type]
            for child in ranked
        )
        pv = [move]
        node = chosen
        while node is not None and node.children and len(pv) < 32:
            node = best_child(node)
            if node is None:
                break
            pv.append(move_from_raw(node.move))  # type: ignore[arg-type]
        return MctsResult(move, value, iterations, seconds, root.visits, stats, tuple(pv))


def _sort_key(item: tuple[bool, float, int, RawMove, float]) -> tuple[bool, float, int]:
    return item[0], item[1], item[2]


def _mean(node: Node) -> float:
    """The result for ``node.mover``: exact if known, else the mean of the real visits (the prior
    if there are none)."""
    if node.proven or node.terminal != ONGOING:
        return node.exact()
    return node.total / node.visits if node.visits else node.prior


def best_child(node: Node) -> Node | None:
    """The child to play: a proven win, else the most visited child that is not a proven loss
    (ties to the better mean, then to the first expanded); ``None`` if nothing is expanded, or if
    every expanded child loses while unexpanded moves remain."""
    children = node.children
    for child in children:
        if child.proven > 0:
            return child
    alive = [child for child in children if child.proven >= 0]
    if not alive:
        if node.pending:
            return None
        alive = children
    best: Node | None = None
    best_key = (-1, -math.inf)
    for child in alive:
        key = (child.visits, _mean(child))
        if key > best_key:
            best, best_key = child, key
    return best
