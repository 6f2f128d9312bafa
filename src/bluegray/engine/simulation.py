"""Simulation at compiled speed: many games of one rule set played out at random or by a policy,
one action at a time, with their action masks and observation planes as NumPy arrays.

>>> from bluegray.engine.simulation import Simulation
>>> batch = Simulation("super-light", 64, seed=1)
>>> result = batch.play_random()
>>> bool((result.ends > 0).all()), int(result.plies.min()) > 0
(True, True)
>>> batch.reset()
>>> batch.action_masks().shape, batch.observations().shape
((64, 973), (64, 19, 9, 9))

The games run on the compiled board (``compiled.board``: the search's own rules, checked against the
rules core move for move) inside loops compiled with numba (``compiled.simulation``,
``compiled.batch``), so it
needs the ``fast`` extra. The moves are the rules core's, in its order; the actions and planes
are those of ``bluegray.rl`` (docs/rl.md). See docs/rl.md, "Simulation", for the speed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from bluegray import bitboard
from bluegray.engine.compiled import batch as compiled_batch
from bluegray.engine.compiled.batch import (
    PLAYER_OPPONENT,
    RANDOM_OPPONENT,
    RANDOM_SIDE,
    SELF_PLAY,
    Finals,
    Seats,
    StepOutput,
    Trace,
    answer,
    apply_actions,
    fill_masks,
    observe_all,
    policy_actions,
    reset_game,
    settle_all,
    step_envs,
)
from bluegray.engine.compiled.board import compiled_rules
from bluegray.engine.compiled.compiler import entry_point
from bluegray.engine.compiled.moves import MAX_MOVES, capture_stack
from bluegray.engine.compiled.simulation import (
    DEPTH,
    END,
    LANDINGS_WIDTH,
    OVERFLOW,
    PLIES,
    STATUS_WIDTH,
    WINNER,
    Games,
    Work,
    action_tables,
    play,
    regenerate,
)
from bluegray.engine.encoding import NUM_ACTIONS, NUM_PLANES, OBSERVATION_SHAPE
from bluegray.engine.move_lists import moves_digest, notation_order, notation_ranks
from bluegray.engine.playouts import TERMINATIONS, Playouts, Trajectories, outcome_from_codes
from bluegray.engine.records import (
    CAPTAIN_POINT,
    COUNT,
    HISTORY_LENGTH,
    MOVE_WIDTH,
    STATE_SIZE,
    TURN,
    UNDO_WIDTH,
    MoveRecord,
)
from bluegray.errors import BlueGrayError
from bluegray.game import Game
from bluegray.moves import Move
from bluegray.outcome import Outcome
from bluegray.position import Position, move_from_raw
from bluegray.rules import RuleSet, as_rules

__all__ = [
    # With the compiled batch's parts that the RL environments drive (DEPTH, PLIES, Work, the
    # seats and their constants, step_envs, answer, observe_all, apply_actions, fill_masks,
    # entry_point): they reach the compiled board only through this module.
    "DEPTH",
    "PLAYER_OPPONENT",
    "PLIES",
    "RANDOM_OPPONENT",
    "RANDOM_SIDE",
    "SELF_PLAY",
    "TERMINATIONS",
    "Finals",
    "Playouts",
    "Policy",
    "Seats",
    "Simulation",
    "StepOutput",
    "Trajectories",
    "Work",
    "action_masks",
    "answer",
    "apply_actions",
    "entry_point",
    "fill_masks",
    "moves_digest",
    "new_work",
    "notation_order",
    "notation_ranks",
    "observations",
    "observe_all",
    "random_playouts",
    "random_walk",
    "step_envs",
    "warm_up",
]

TABLES: Final = action_tables()
"""The action encoding's tables, shared by every batch."""

Start = Game | Position | str | None
"""Where a game starts: a game (its history included), a position, position text, or ``None``
for the rule set's start."""

Policy = Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], npt.ArrayLike]
"""A policy for ``play_policy``: given the observation planes ``(N, 19, 9, 9)`` and the action
masks ``(N, 973)`` of the games still playing, their action probabilities ``(N, 973)`` (any
non-negative weights: they are restricted to the mask and renormalised)."""

FIRST_TRACE: Final = 512
"""Plies of trajectory room a game gets at first (doubled as it fills)."""


def new_work() -> Work:
    """Working space for the compiled calls: a move buffer, the generator's stack, one undo row,
    one move row (the last move played), an empty board row."""
    return Work(
        np.zeros((MAX_MOVES, MOVE_WIDTH), np.int64),
        capture_stack(),
        np.zeros((1, UNDO_WIDTH), np.int64),
        np.zeros(MOVE_WIDTH, np.int64),
        np.zeros(0, np.int8),
    )


class SimulationError(BlueGrayError):
    """A simulation asked for something impossible: no games, an action out of range, a start
    of another rule set, a position with more moves than the compiled board holds."""


def _board_of(start: Start, rules: RuleSet) -> bitboard.Board:
    if isinstance(start, Game):
        if start.rules != rules:
            raise SimulationError(f"a game of {start.rules} in a batch of {rules}")
        return start.board()
    if start is None:
        return Position.start(rules).board()
    if isinstance(start, str):
        return Position.parse(start, rules).board()
    if start.rules != rules:
        start = Position.parse(str(start), rules)
    return start.board()


def _empty_trace(size: int) -> Trace:
    return _trace(size, 0)


def _trace(size: int, room: int) -> Trace:
    return Trace(
        np.zeros((size, room, MOVE_WIDTH), np.int8),
        np.zeros((size, room), np.int16),
        np.zeros((size, room), np.int16),
        np.zeros((size, room), np.uint64),
        np.zeros((size, room), np.uint64),
        np.zeros((size, room), np.int16),
    )


class Simulation:
    """A batch of games of one rule set on the compiled board.

    ``start`` is where every game starts (the rule set's start by default), or one start per
    game (then ``count`` may be left out). ``seed`` seeds each game's own random generator (the
    same seed and calls give the same games); ``None`` draws one. ``work`` is the compiled
    calls' working space (``new_work``), which simulations used by one thread may share.
    """

    def __init__(
        self,
        rules: RuleSet | str | None = None,
        count: int | None = None,
        *,
        start: Start | Sequence[Start] = None,
        seed: int | None = None,
        work: Work | None = None,
    ) -> None:
        self.rules = as_rules(rules)
        if isinstance(start, Sequence) and not isinstance(start, str):
            starts = list(start)
            if count is not None and count != len(starts):
                raise SimulationError(f"{len(starts)} starts for {count} games")
        else:
            starts = [start] * (1 if count is None else count)
        if not starts:
            raise SimulationError("a simulation needs at least one game")
        boards = [_board_of(item, self.rules) for item in starts]
        self.size = len(boards)
        self.compiled_rules = compiled_rules(bitboard.rule_tables(self.rules))
        # The history holds the positions since the last irreversible move: at most the
        # no-progress count and one more, and the count never passes the rule set's limit
        # (a start may be set up with a higher one).
        room = max(self.rules.impasse_plies, max(board.count for board in boards)) + 3
        self.games = Games(
            np.zeros((self.size, 81), np.int64),
            np.zeros((self.size, STATE_SIZE), np.int64),
            np.zeros((self.size, room), np.uint64),
            np.zeros((self.size, STATUS_WIDTH), np.int64),
            np.zeros((self.size, LANDINGS_WIDTH), np.int64),
            np.zeros(self.size, np.uint64),
        )
        self.work = new_work() if work is None else work
        self.starts = Games(*(array.copy() for array in self.games))
        """Each game's start, for ``reset``."""
        self._no_masks = np.zeros((0, NUM_ACTIONS), np.int8)
        self.seed(seed)
        self._set_starts(boards)

    def set_starts(self, start: Start | Sequence[Start]) -> None:
        """Give every game a new start (one for all, or one each) and set it there."""
        if isinstance(start, Sequence) and not isinstance(start, str):
            starts = list(start)
            if len(starts) != self.size:
                raise SimulationError(f"{len(starts)} starts for {self.size} games")
        else:
            starts = [start] * self.size
        boards = [_board_of(item, self.rules) for item in starts]
        room = max(board.count for board in boards) + 3
        if room > self.games.history.shape[1]:
            self.games = self.games._replace(history=_widened(self.games.history, room))
            self.starts = self.starts._replace(history=_widened(self.starts.history, room))
        self._set_starts(boards)

    def _set_starts(self, boards: list[bitboard.Board]) -> None:
        rng = self.games.rng.copy()
        for array in self.games:
            array[:] = 0
        for index, board in enumerate(boards):
            self._load(index, board)
        self.games.rng[:] = rng
        for start, array in zip(self.starts, self.games, strict=True):
            start[:] = array
        self._settle(np.arange(self.size))

    def copy(self) -> Simulation:
        """An independent copy of the batch (the games where they stand, their starts and
        generators), sharing the working space."""
        other = Simulation.__new__(Simulation)
        other.rules = self.rules
        other.size = self.size
        other.compiled_rules = self.compiled_rules
        other.games = Games(*(array.copy() for array in self.games))
        other.starts = Games(*(array.copy() for array in self.starts))
        other.work = self.work
        other._no_masks = self._no_masks
        return other

    def _load(self, index: int, board: bitboard.Board) -> None:
        cells = self.games.cells[index]
        for side in (0, 1):
            for point in bitboard.bits(board.guards[side]):
                cells[point] = side * 4 + 1
            for point in bitboard.bits(board.privates[side]):
                cells[point] = side * 4 + 2
            cells[board.captains[side]] = side * 4 + 3
        kept = min(board.count, len(board.history) - 1) + 1
        state = self.games.state[index]
        state[TURN] = board.turn
        state[COUNT] = board.count
        state[CAPTAIN_POINT] = board.captains[0]
        state[CAPTAIN_POINT + 1] = board.captains[1]
        state[HISTORY_LENGTH] = kept
        self.games.history[index, :kept] = np.array(board.history[-kept:], dtype=np.uint64)
        code = board.end()
        winner = board.winner(code) if code else None
        self.games.status[index, END] = code
        self.games.status[index, WINNER] = -1 if winner is None else winner

    def _settle(self, which: npt.NDArray[np.int64]) -> None:
        settle_all(self.games, self.compiled_rules, self.work, which)
        overflowing = np.flatnonzero(self.games.status[which, END] == OVERFLOW)
        if overflowing.size:
            raise SimulationError(f"a position has more than {MAX_MOVES} legal moves")

    def seed(self, seed: int | None) -> None:
        """Seed every game's random generator (``None``: from the operating system)."""
        words = np.random.SeedSequence(seed).generate_state(self.size, np.uint64)
        self.games.rng[:] = words

    def reset(self, games: npt.ArrayLike | None = None) -> None:
        """Set the games (all, or those indexed) back to their starts; their generators go on."""
        which = np.arange(self.size) if games is None else np.asarray(games, np.int64).ravel()
        for index in which.tolist():
            reset_game(index, self.games, self.starts)
        self._settle(which)

    # -- reading the games ---------------------------------------------------------------------

    @property
    def ends(self) -> npt.NDArray[np.int64]:
        """Each game's end code (0 while it goes on; ``TERMINATIONS``)."""
        return self.games.status[:, END].copy()

    @property
    def winners(self) -> npt.NDArray[np.int64]:
        """0 Blue won, 1 Gray won, -1 a draw or going on."""
        return self.games.status[:, WINNER].copy()

    @property
    def plies(self) -> npt.NDArray[np.int64]:
        """Moves played in each game since it was set up or reset."""
        return self.games.status[:, PLIES].copy()

    @property
    def turns(self) -> npt.NDArray[np.int64]:
        """The side to act in each game (0 Blue, 1 Gray)."""
        return self.games.state[:, TURN].copy()

    def playouts(self, trajectories: Trajectories | None = None) -> Playouts:
        """How the games stand, as a ``Playouts``."""
        return Playouts(self.winners, self.ends, self.plies, trajectories)

    def outcome(self, game: int) -> Outcome | None:
        """Game ``game``'s outcome (``None`` while it goes on)."""
        status = self.games.status[game]
        return outcome_from_codes(int(status[END]), int(status[WINNER]), self.rules)

    def hash(self, game: int) -> int:
        """Game ``game``'s Zobrist hash (the rules core's ``Board.hash``)."""
        return int(self.games.history[game, self.games.state[game, HISTORY_LENGTH] - 1])

    def count(self, game: int) -> int:
        """Game ``game``'s no-progress count."""
        return int(self.games.state[game, COUNT])

    def legal_moves(self, game: int) -> list[MoveRecord]:
        """Game ``game``'s legal moves as records, in the rules core's order."""
        return [MoveRecord.from_row(row) for row in self.legal_rows(game).tolist()]

    def legal_rows(self, game: int) -> npt.NDArray[np.int64]:
        """Game ``game``'s legal moves as move rows (``records``), in the rules core's order."""
        n = regenerate(game, self.games, self.compiled_rules, self.work)
        return self.work.moves[:n].copy()

    def action_masks(self, out: npt.NDArray[np.int8] | None = None) -> npt.NDArray[np.int8]:
        """The legal actions of every game, ``(N, 973)`` int8 (a row of 0 once a game is over);
        during a capture in progress, the jumps that continue it."""
        masks = np.zeros((self.size, NUM_ACTIONS), np.int8) if out is None else out
        fill_masks(self.games, self.compiled_rules, TABLES, self.work, masks)
        return masks

    def observations(self, out: npt.NDArray[np.float32] | None = None) -> npt.NDArray[np.float32]:
        """The observation planes of every game, ``(N, 19, 9, 9)`` float32 (docs/rl.md)."""
        planes = np.zeros((self.size, *OBSERVATION_SHAPE), np.float32) if out is None else out
        flat = planes.reshape(self.size, NUM_PLANES, 81)
        want = np.ones(self.size, np.bool_)
        board = np.zeros((0, 81), np.int8)
        observe_all(self.games, self.compiled_rules, self.work, flat, board, want)
        return planes

    # -- playing ---------------------------------------------------------------------------------

    def push(self, game: int, move: MoveRecord | Move) -> None:
        """Play a legal move (a record, or a ``Move``) in game ``game``; raises
        ``SimulationError`` for a move that is not legal there."""
        legal = self.legal_moves(game)
        if isinstance(move, Move):
            raws = [record.raw() for record in legal]
            found = [r for r, raw in zip(legal, raws, strict=True) if move_from_raw(raw) == move]
        else:
            found = [record for record in legal if record == move]
        if not found:
            raise SimulationError(f"{move} is not a legal move in game {game}")
        self.push_record(game, found[0])

    def push_record(self, game: int, record: MoveRecord) -> None:
        """Play a move record known to be legal in game ``game`` (one of its ``legal_moves``)."""
        row = np.zeros(MOVE_WIDTH, np.int64)
        row[0], row[1], row[2] = record.frm, record.to, len(record.taken)
        row[3 : 3 + len(record.taken)] = record.taken
        self.push_row(game, row)

    def push_row(self, game: int, row: npt.NDArray[np.int64]) -> None:
        """Play a move row known to be legal in game ``game`` (one of its ``legal_rows``)."""
        play(game, row, self.games, self.compiled_rules, self.work)

    def apply(
        self, actions: npt.ArrayLike, masks: npt.NDArray[np.int8] | None = None
    ) -> npt.NDArray[np.int8]:
        """Take one action in each game (-1: none); per game 1 when a move was completed, 0 for
        a jump of a capture that goes on, -1 for an illegal action (nothing changed), 2 where
        no action was given. ``masks``, when given, is refreshed for the games that acted."""
        chosen = np.asarray(actions, dtype=np.int64).reshape(self.size)
        results = np.zeros(self.size, np.int8)
        apply_actions(
            self.games,
            self.compiled_rules,
            TABLES,
            self.work,
            chosen,
            results,
            self._no_masks if masks is None else masks,
        )
        return results

    def play_random(self, max_plies: int | None = None, *, trajectories: bool = False) -> Playouts:
        """Play every unfinished game on with uniformly random legal moves until it ends (or
        for ``max_plies`` more plies), recording the ``trajectories`` if asked."""
        plies = self.games.status[:, PLIES]
        stop_at = (
            np.full(self.size, np.iinfo(np.int64).max, np.int64)
            if max_plies is None
            else plies + max_plies
        )
        active = self.games.status[:, END] == 0
        recorded = np.zeros(self.size, np.int64)
        if not trajectories:
            compiled_batch.random_playouts(
                self.games,
                self.compiled_rules,
                self.work,
                active,
                stop_at,
                _empty_trace(self.size),
                recorded,
            )
            return self.playouts()
        room = FIRST_TRACE if max_plies is None else max(1, min(FIRST_TRACE, max_plies))
        trace = _trace(self.size, room)
        while True:
            compiled_batch.random_playouts(
                self.games, self.compiled_rules, self.work, active, stop_at, trace, recorded
            )
            status = self.games.status
            active = (status[:, END] == 0) & (status[:, PLIES] < stop_at)
            if not active.any():
                break
            room *= 2
            trace = Trace(*(_grown(array, room) for array in trace))
        lengths = recorded.copy()
        return self.playouts(Trajectories(*trace, lengths=lengths))

    def play_policy(self, policy: Policy, max_actions: int | None = None) -> Playouts:
        """Play every unfinished game on, one action at a time, each drawn from ``policy``'s
        probabilities over the legal actions (a capture is one action per jump), until every
        game ends (or each has taken ``max_actions`` more actions)."""
        masks = self.action_masks()
        planes = np.zeros((self.size, *OBSERVATION_SHAPE), np.float32)
        flat = planes.reshape(self.size, NUM_PLANES, 81)
        no_board = np.zeros((0, 81), np.int8)
        actions = np.zeros(self.size, np.int64)
        results = np.zeros(self.size, np.int8)
        taken = 0
        while max_actions is None or taken < max_actions:
            active = self.games.status[:, END] == 0
            if not active.any():
                break
            observe_all(self.games, self.compiled_rules, self.work, flat, no_board, active)
            probabilities = np.asarray(policy(planes, masks), dtype=np.float64)
            if probabilities.shape != (self.size, NUM_ACTIONS):
                raise SimulationError(
                    f"a policy must give ({self.size}, {NUM_ACTIONS}) probabilities, not "
                    f"{probabilities.shape}"
                )
            policy_actions(self.games, probabilities, masks, active, actions)
            apply_actions(
                self.games, self.compiled_rules, TABLES, self.work, actions, results, masks
            )
            taken += 1
        return self.playouts()


def _widened(history: npt.NDArray[np.uint64], room: int) -> npt.NDArray[np.uint64]:
    wider = np.zeros((history.shape[0], room), np.uint64)
    wider[:, : history.shape[1]] = history
    return wider


def _grown(array: npt.NDArray[np.generic], room: int) -> npt.NDArray[np.generic]:
    grown = np.zeros((array.shape[0], room, *array.shape[2:]), array.dtype)
    grown[:, : array.shape[1]] = array
    return grown


def random_playouts(
    start: Start | Sequence[Start] = None,
    count: int | None = None,
    *,
    rules: RuleSet | str | None = None,
    seed: int | None = None,
    max_plies: int | None = None,
    trajectories: bool = False,
) -> Playouts:
    """Play ``count`` uniformly random games from ``start`` (or one from each start) to the end.

    >>> result = random_playouts(None, 8, rules="classic-light", seed=3)
    >>> result.plies.shape, bool((result.ends > 0).all())
    ((8,), True)
    """
    rules_of = start.rules if isinstance(start, Game) and rules is None else rules
    batch = Simulation(rules_of, count, start=start, seed=seed)
    return batch.play_random(max_plies, trajectories=trajectories)


def action_masks(
    starts: Sequence[Start], rules: RuleSet | str | None = None
) -> npt.NDArray[np.int8]:
    """The legal-action masks of several games or positions, ``(N, 973)`` int8."""
    return Simulation(rules, start=starts, seed=0).action_masks()


def observations(
    starts: Sequence[Start], rules: RuleSet | str | None = None
) -> npt.NDArray[np.float32]:
    """The observation planes of several games or positions, ``(N, 19, 9, 9)`` float32."""
    return Simulation(rules, start=starts, seed=0).observations()


def random_walk(rules: RuleSet, rng: random.Random, plies: int) -> list[Move] | None:
    """``plies`` moves from the rule set's start, each ``rng.choice`` of the legal moves in the
    order of their notation, as a walk through ``Game.legal_moves`` draws them; ``None`` when the
    game ends on the way (or with the last move)."""
    batch = Simulation(rules, 1, seed=0)
    moves = []
    for _ in range(plies):
        rows = batch.legal_rows(0)
        if not len(rows):
            return None
        order = notation_ranks(rows)
        row = rows[order[rng.randrange(len(order))]]
        batch.push_row(0, row)
        moves.append(move_from_raw(MoveRecord.from_row(row.tolist()).raw()))
    return None if batch.ends[0] else moves


def warm_up() -> None:
    """Load (or compile) the simulation's compiled functions by using each once."""
    batch = Simulation("cooper", 2, seed=0)
    masks = batch.action_masks()
    batch.observations()
    batch.apply([int(np.flatnonzero(masks[0])[0]), -1], masks)
    batch.play_policy(lambda planes, masks: masks, max_actions=1)
    batch.play_random(2, trajectories=True)
    batch.play_random(1)
    batch.reset()
    random_walk(batch.rules, random.Random(0), 1)
