"""The ``Game``: a position you push moves onto and pop them off, with its history and outcome."""

from __future__ import annotations

from collections.abc import Iterable

from bluegray import bitboard
from bluegray.errors import GameOverError, IllegalMoveError, InvalidMoveError, InvalidOutcomeError
from bluegray.moves import Move
from bluegray.outcome import Outcome, Termination, outcome_of
from bluegray.pieces import Side
from bluegray.position import Position, legal_raw_move, move_from_raw, raw_move_of
from bluegray.rules import RuleSet, as_rules

__all__ = ["Game", "outcome_of"]


class Game:
    """A game under a rule set, from its start or from any valid position.

    >>> game = Game("cooper")
    >>> game.push("d2-d3")
    Move.parse('d2-d3')
    >>> game.push("f8-f7")
    Move.parse('f8-f7')
    >>> str(game.position)
    'ggggcgggg/ggggg1ggg/5g3/9/9/9/3G5/GGG1GGGGG/GGGGCGGGG b 2 2'
    >>> game.pop()
    Move.parse('f8-f7')
    >>> game.outcome() is None
    True
    """

    def __init__(
        self,
        rules: RuleSet | str | None = None,
        position: Position | str | None = None,
    ) -> None:
        self.rules = as_rules(rules)
        if position is None:
            start = Position.start(self.rules)
        elif isinstance(position, str):
            start = Position.parse(position, self.rules)
        else:
            if position.rules != self.rules:
                start = Position.parse(str(position), self.rules)
            else:
                start = position
        self.start = start
        self._board = start.board()
        self._moves: list[Move] = []
        self._raw: list[bitboard.RawMove] = []
        self._declared: Outcome | None = None
        self._outcome_cache: tuple[int, Outcome | None] | None = None
        # What is derived from the current position, kept until the next push or pop.
        self._position_cache: Position | None = None
        self._moves_cache: list[Move] | None = None

    # -- state -----------------------------------------------------------------------------

    @property
    def moves(self) -> list[Move]:
        """The moves played since the start, in order (a copy)."""
        return self._moves[:]

    @property
    def ply(self) -> int:
        """How many moves have been played."""
        return len(self._moves)

    @property
    def turn(self) -> Side:
        """The side to move."""
        return (Side.BLUE, Side.GRAY)[self._board.turn]

    @property
    def position(self) -> Position:
        """The current position."""
        cached = self._position_cache
        if cached is None:
            cached = self._position_cache = Position._of_board(self.rules, self._board)
        return cached

    def positions(self) -> list[Position]:
        """Every position of the game, the start first and the current one last."""
        replay = Game(self.rules, self.start)
        result = [replay.position]
        for move in self._moves:
            replay._push_unchecked(move)
            result.append(replay.position)
        return result

    @property
    def last_move(self) -> Move | None:
        return self._moves[-1] if self._moves else None

    def board(self) -> bitboard.Board:
        """A copy of the bitboard core at the current position, with the game's history (for
        engines: it carries the repetition history)."""
        return self._board.copy()

    def copy(self) -> Game:
        """An independent game with the same history."""
        game = Game.__new__(Game)
        game.rules = self.rules
        game.start = self.start
        game._board = self._board.copy()
        game._moves = self._moves[:]
        game._raw = self._raw[:]
        game._declared = self._declared
        game._outcome_cache = self._outcome_cache
        game._position_cache = self._position_cache
        game._moves_cache = self._moves_cache
        return game

    # -- moves -------------------------------------------------------------------------------

    def _raw_moves(self) -> list[bitboard.RawMove]:
        if self.outcome() is not None:
            return []
        return self._board.moves()

    @property
    def legal_moves(self) -> list[Move]:
        """The legal moves, sorted by their text (none once the game is over)."""
        cached = self._moves_cache
        if cached is None:
            cached = self._moves_cache = sorted(
                (move_from_raw(raw) for raw in self._raw_moves()), key=str
            )
        return cached[:]

    def _find(self, move: Move) -> bitboard.RawMove | None:
        return raw_move_of(self._raw_moves(), move)

    def is_legal(self, move: Move | str) -> bool:
        """Whether a move (or move text) is legal now."""
        try:
            self.parse_move(move if isinstance(move, str) else str(move))
        except (InvalidMoveError, IllegalMoveError):
            return False
        return True

    def parse_move(self, text: str) -> Move:
        """The legal move written ``text``; raises ``InvalidMoveError`` for malformed text and
        ``IllegalMoveError`` for a move that is not legal here."""
        move = Move.parse(text)
        self._require_legal(move)
        return move

    def _require_legal(self, move: Move) -> bitboard.RawMove:
        outcome = self.outcome()
        if outcome is not None:
            raise GameOverError(
                f"illegal move {str(move)!r}: the game is over ({outcome.describe()})"
            )
        return legal_raw_move(self.position, self._board, move)

    def push(self, move: Move | str) -> Move:
        """Play a legal move, given as a ``Move`` or as its text; return the ``Move``.

        A rejected move raises (``InvalidMoveError``, ``IllegalMoveError`` or ``GameOverError``)
        and leaves the game exactly as it was.
        """
        if isinstance(move, str):
            move = Move.parse(move)
        elif not isinstance(move, Move):
            raise InvalidMoveError(f"invalid move {move!r}: expected a Move or move text")
        raw = self._require_legal(move)
        self._board.push(raw)
        self._moves.append(move)
        self._raw.append(raw)
        self._outcome_cache = None
        self._position_cache = None
        self._moves_cache = None
        return move

    def push_all(self, moves: Iterable[Move | str]) -> None:
        """Play several moves; if one is rejected, the game is left as it was before the first."""
        played = 0
        try:
            for move in moves:
                self.push(move)
                played += 1
        except Exception:
            for _ in range(played):
                self.pop()
            raise

    def _push_unchecked(self, move: Move) -> None:
        raw = self._find(move)
        assert raw is not None, f"replaying a move that was legal: {move}"
        self._board.push(raw)
        self._moves.append(move)
        self._raw.append(raw)
        self._outcome_cache = None
        self._position_cache = None
        self._moves_cache = None

    def pop(self) -> Move:
        """Take back the last move, and any resignation, agreement or time-out declared after it."""
        if not self._moves:
            raise IllegalMoveError("cannot take back a move: no move has been played")
        self._board.pop()
        self._raw.pop()
        self._declared = None
        self._outcome_cache = None
        self._position_cache = None
        self._moves_cache = None
        return self._moves.pop()

    undo = pop

    # -- the end -------------------------------------------------------------------------------

    def outcome(self) -> Outcome | None:
        """How the game ended, checked in the order of docs/rules-reference.md §4, or ``None``
        while it goes on."""
        if self._declared is not None:
            return self._declared
        cache = self._outcome_cache
        if cache is not None and cache[0] == len(self._moves):
            return cache[1]
        board = self._board
        outcome = outcome_of(board, board.end())
        self._outcome_cache = (len(self._moves), outcome)
        return outcome

    def is_over(self) -> bool:
        return self.outcome() is not None

    def _declare(self, outcome: Outcome) -> Outcome:
        current = self.outcome()
        if current is not None:
            raise GameOverError(f"the game is already over ({current.describe()})")
        self._declared = outcome
        self._moves_cache = None
        return outcome

    def resign(self, side: Side | None = None) -> Outcome:
        """A side (by default the side to move) resigns: the other side wins."""
        loser = self.turn if side is None else side
        return self._declare(Outcome(Termination.RESIGN, loser.other))

    def agree(self, winner: Side | None = None) -> Outcome:
        """The players agree a result: a draw, or a win for ``winner``."""
        return self._declare(Outcome(Termination.AGREEMENT, winner))

    def time_out(self, side: Side | None = None) -> Outcome:
        """A side's clock (by default the side to move's) ran out: the other side wins."""
        loser = self.turn if side is None else side
        return self._declare(Outcome(Termination.TIME, loser.other))

    def declare(self, outcome: Outcome) -> Outcome:
        """End the game outside the rules of play (resignation, agreement or time)."""
        if outcome.termination.by_rules:
            raise InvalidOutcomeError(
                f"cannot declare {outcome.termination.value!r}: the rules decide that ending"
            )
        return self._declare(outcome)

    def __repr__(self) -> str:
        return f"<Game {self.rules} ply={self.ply} position={str(self.position)!r}>"

    def _repr_svg_(self) -> str:
        # The drawing code loads only when a notebook draws a game (see ``Position._repr_svg_``).
        from bluegray.svg import board_svg  # noqa: PLC0415 - lazily, for the load time alone

        return board_svg(self.position, last_move=self.last_move)
