"""The ``Position`` value type: placement, side to move and the two counters, under a rule set.

Its text is the §6 position notation; :meth:`Position.parse` and ``str()`` are exact inverses.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from bluegray import bitboard, steps
from bluegray.errors import (
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidNumberError,
    InvalidPositionError,
    quoted,
)
from bluegray.moves import Move
from bluegray.numerals import MAX_NOTATION_NUMBER, parse_number, shown_value
from bluegray.outcome import Outcome, outcome_of
from bluegray.pieces import Piece, Side
from bluegray.points import (
    E1,
    E9,
    POINT_NAMES,
    SIZE,
    Point,
    point_name,
    rotate_point,
)
from bluegray.rules import Army, Capture, RuleSet, Soldiers, Start, as_rules


def _rotate_bits(bits: int) -> int:
    """A bitboard turned 180 degrees: bit p goes to bit 80 - p."""
    return int(format(bits, "081b")[::-1], 2)


@dataclass(frozen=True)
class Position:
    """A position: where every piece stands, who moves, and the two counters, under a rule set.

    Positions are immutable values; :class:`bluegray.Game` plays moves and keeps the history.

    >>> position = Position.start("sackson")
    >>> str(position)
    'ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 0 1'
    >>> len(position.legal_moves())
    11
    """

    rules: RuleSet
    guards: tuple[int, int]
    """Bitboards of each side's guards (Blue, Gray); bit ``p`` is point ``p``."""
    privates: tuple[int, int]
    """Bitboards of each side's privates (Blue, Gray)."""
    captains: tuple[Point, Point]
    """The points of the Blue and Gray captains."""
    turn: Side = Side.BLUE
    count: int = 0
    """The no-progress count: plies since the last capture, captain move or forward private move."""
    number: int = 1
    """The move number: 1 at the start, increased after each Gray move."""
    # Derived lazily and kept: positions are immutable, so neither can go stale.
    _board: bitboard.Board | None = field(default=None, init=False, repr=False, compare=False)
    _symbol_cache: dict[Point, str] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        _validate(self)

    @classmethod
    def _unchecked(
        cls,
        rules: RuleSet,
        guards: tuple[int, int],
        privates: tuple[int, int],
        captains: tuple[Point, Point],
        turn: Side,
        count: int,
        number: int,
    ) -> Position:
        """A position known to be valid (one the move generator reached): built without the
        checks, which cost more than everything else a game does per move."""
        position = object.__new__(cls)
        for name, value in (
            ("rules", rules),
            ("guards", guards),
            ("privates", privates),
            ("captains", captains),
            ("turn", turn),
            ("count", count),
            ("number", number),
            ("_board", None),
            ("_symbol_cache", None),
        ):
            object.__setattr__(position, name, value)
        return position

    @classmethod
    def _of_board(cls, rules: RuleSet, board: bitboard.Board) -> Position:
        """The position on a board of the move generator (so a valid one)."""
        return cls._unchecked(
            rules,
            (board.guards[0], board.guards[1]),
            (board.privates[0], board.privates[1]),
            (board.captains[0], board.captains[1]),
            (Side.BLUE, Side.GRAY)[board.turn],
            board.count,
            board.number,
        )

    # -- construction and notation ---------------------------------------------------------

    @classmethod
    def start(cls, rules: RuleSet | str | None = None) -> Position:
        """The start position of a rule set (§2)."""
        rules = as_rules(rules)
        rank1 = (1 << SIZE) - 1
        soldiers = [rank1 << SIZE, rank1 << (7 * SIZE)]
        if rules.army is Army.FULL:
            soldiers[0] |= rank1 & ~(1 << E1)
            soldiers[1] |= (rank1 << (8 * SIZE)) & ~(1 << E9)
        captains = (E1, E9) if rules.start is Start.HOME else (E9, E1)
        if rules.soldiers is Soldiers.PRIVATE:
            return cls(rules, (0, 0), (soldiers[0], soldiers[1]), captains)
        return cls(rules, (soldiers[0], soldiers[1]), (0, 0), captains)

    @classmethod
    def parse(cls, text: str, rules: RuleSet | str | None = None) -> Position:
        """The position written ``text`` in §6 notation, validated under ``rules`` (default
        ``sackson``)."""
        rules = as_rules(rules)
        if not isinstance(text, str):
            raise InvalidPositionError(f"invalid position {text!r}: expected text")
        fields = text.split(" ")
        if len(fields) != 4 or not all(fields):
            raise InvalidPositionError(
                f"invalid position {quoted(text)}: expected four fields separated by single spaces "
                "(placement, side to move, no-progress count, move number)"
            )
        placement, turn, count, number = fields
        guards, privates, captains = _parse_placement(placement, text)
        side = Side.from_letter(turn) if turn in ("b", "g") else None
        if side is None:
            raise InvalidPositionError(
                f"invalid position {quoted(text)}: side to move {quoted(turn)} must be 'b' or 'g'"
            )
        return cls(
            rules,
            guards,
            privates,
            captains,
            side,
            _parse_counter(count, "no-progress count", 0, text),
            _parse_counter(number, "move number", 1, text),
        )

    def placement_text(self) -> str:
        """The first field of the notation: ranks 9 down to 1, files a to i."""
        symbols = self._symbols()
        ranks = []
        for rank in range(SIZE - 1, -1, -1):
            text = ""
            empty = 0
            for file in range(SIZE):
                symbol = symbols.get(rank * SIZE + file)
                if symbol is None:
                    empty += 1
                    continue
                if empty:
                    text += str(empty)
                    empty = 0
                text += symbol
            if empty:
                text += str(empty)
            ranks.append(text)
        return "/".join(ranks)

    def __str__(self) -> str:
        return f"{self.placement_text()} {self.turn.letter} {self.count} {self.number}"

    # -- what stands where -----------------------------------------------------------------

    def _symbols(self) -> dict[Point, str]:
        cached = self._symbol_cache
        if cached is not None:
            return cached
        symbols: dict[Point, str] = {}
        for side, letters in ((0, "CGP"), (1, "cgp")):
            symbols[self.captains[side]] = letters[0]
            for point in bitboard.bits(self.guards[side]):
                symbols[point] = letters[1]
            for point in bitboard.bits(self.privates[side]):
                symbols[point] = letters[2]
        object.__setattr__(self, "_symbol_cache", symbols)
        return symbols

    def piece_at(self, point: Point) -> Piece | None:
        """The piece on a point, or ``None`` if it is empty."""
        symbol = self._symbols().get(point)
        return None if symbol is None else Piece.from_symbol(symbol)

    def pieces(self) -> dict[Point, Piece]:
        """Every piece on the board by its point."""
        return {point: Piece.from_symbol(symbol) for point, symbol in self._symbols().items()}

    def soldiers(self, side: Side) -> int:
        """A bitboard of a side's soldiers (guards and privates)."""
        return self.guards[side.index] | self.privates[side.index]

    def captain(self, side: Side) -> Point:
        """The point of a side's captain."""
        return self.captains[side.index]

    def path(self, side: Side) -> tuple[Point, ...]:
        """The path a side's captain follows under the rule set, from its start to the centre."""
        return bitboard.rule_tables(self.rules).paths[side.index]

    def advancement(self, side: Side) -> int:
        """How far a side's captain has come along its path: 0 at its start, 17 on the centre."""
        index = side.index
        return bitboard.rule_tables(self.rules).advancement[index][self.captains[index]]

    # -- moves and the end of the game ---------------------------------------------------------

    def board(self) -> bitboard.Board:
        """A fresh mutable bitboard at this position (for the engine and the game)."""
        cached = self._board
        if cached is None:
            cached = bitboard.Board(
                self.rules,
                self.guards,
                self.privates,
                self.captains,
                self.turn.index,
                self.count,
                self.number,
            )
            object.__setattr__(self, "_board", cached)
        return cached.copy()

    @property
    def zobrist_hash(self) -> int:
        """A 64-bit hash of placement and side to move (what the repetition rule compares)."""
        if self._board is None:
            self.board()
        assert self._board is not None
        return self._board.hash

    def outcome(self) -> Outcome | None:
        """How a game set up here would already be over (§4 rules 1, 2 and 5), or ``None``."""
        board = self.board()
        return outcome_of(board, board.end_at_start())

    def is_finished(self) -> bool:
        """Whether a game set up here is already over."""
        return self.outcome() is not None

    def legal_moves(self) -> list[Move]:
        """The legal moves, sorted by their text; none when the position is finished."""
        if self.is_finished():
            return []
        return sorted((move_from_raw(raw) for raw in self.board().moves()), key=str)

    def push(self, move: Move | str) -> Position:
        """The position after a legal move (for a game with history, use :class:`bluegray.Game`).

        A rejected move raises (``InvalidMoveError``, ``IllegalMoveError`` or ``GameOverError``)
        as ``Game.push`` does."""
        if isinstance(move, str):
            move = Move.parse(move)
        elif not isinstance(move, Move):
            raise InvalidMoveError(f"invalid move {move!r}: expected a Move or move text")
        outcome = self.outcome()
        if outcome is not None:
            raise GameOverError(
                f"illegal move {str(move)!r}: the game is over ({outcome.describe()})"
            )
        board = self.board()
        board.push(legal_raw_move(self, board, move))
        return Position._of_board(self.rules, board)

    # -- symmetry ----------------------------------------------------------------------------

    def rotated(self) -> Position:
        """The position turned 180 degrees with the colours swapped: the same game seen from the
        other side (the two paths are each other's rotation, so the rule set is unchanged)."""
        return Position(
            self.rules,
            (_rotate_bits(self.guards[1]), _rotate_bits(self.guards[0])),
            (_rotate_bits(self.privates[1]), _rotate_bits(self.privates[0])),
            (rotate_point(self.captains[1]), rotate_point(self.captains[0])),
            self.turn.other,
            self.count,
            self.number,
        )

    def _repr_svg_(self) -> str:
        # The drawing code (some 700 lines) loads only when a notebook draws a position, as
        # python-chess does: every engine process imports this module and never draws.
        from bluegray.svg import board_svg  # noqa: PLC0415 - lazily, for the load time alone

        return board_svg(self)

    def __iter__(self) -> Iterator[tuple[Point, Piece]]:
        return iter(sorted(self.pieces().items()))


def move_from_raw(raw: bitboard.RawMove) -> Move:
    """The ``Move`` of a raw move of the bitboard core."""
    frm, to, _, path = raw
    if path is None:
        return Move((frm, to))
    return Move(path, True)


def _parse_counter(text: str, what: str, least: int, whole: str) -> int:
    try:
        return parse_number(text, least=least, most=MAX_NOTATION_NUMBER, leading_zeros=False)
    except InvalidNumberError:
        raise InvalidPositionError(
            f"invalid position {quoted(whole)}: {what} {quoted(text)} must be a whole number "
            f"from {least} to {MAX_NOTATION_NUMBER} without leading zeros"
        ) from None


def _parse_placement(
    placement: str, whole: str
) -> tuple[tuple[int, int], tuple[int, int], tuple[Point, Point]]:
    ranks = placement.split("/")
    if len(ranks) != SIZE:
        raise InvalidPositionError(
            f"invalid position {quoted(whole)}: the placement has {len(ranks)} ranks, expected 9 "
            "separated by '/'"
        )
    guards = [0, 0]
    privates = [0, 0]
    captains: list[list[Point]] = [[], []]
    for row, rank_text in enumerate(ranks):
        rank = SIZE - 1 - row
        file = 0
        previous_digit = False
        for char in rank_text:
            if char in "123456789":
                if previous_digit:
                    raise InvalidPositionError(
                        f"invalid position {quoted(whole)}: rank {rank + 1} "
                        f"({quoted(rank_text)}) has two digits next to each other"
                    )
                previous_digit = True
                file += int(char)
                continue
            previous_digit = False
            if char not in "CGPcgp":
                raise InvalidPositionError(
                    f"invalid position {quoted(whole)}: {char!r} in rank {rank + 1} is not a "
                    "piece letter (C, G, P upper case for Blue, lower case for Gray) or a digit 1-9"
                )
            if file >= SIZE:
                file += 1
                continue
            point = rank * SIZE + file
            side = 0 if char.isupper() else 1
            kind = char.upper()
            if kind == "C":
                captains[side].append(point)
            elif kind == "G":
                guards[side] |= 1 << point
            else:
                privates[side] |= 1 << point
            file += 1
        if file != SIZE:
            raise InvalidPositionError(
                f"invalid position {quoted(whole)}: rank {rank + 1} ({quoted(rank_text)}) "
                f"describes {_described_points(rank_text)} points, expected exactly 9"
            )
    for side, name in ((0, "Blue"), (1, "Gray")):
        if len(captains[side]) != 1:
            raise InvalidPositionError(
                f"invalid position {quoted(whole)}: {name} has {len(captains[side])} captains, "
                "expected exactly one"
            )
    return (guards[0], guards[1]), (privates[0], privates[1]), (captains[0][0], captains[1][0])


def _described_points(rank_text: str) -> int:
    return sum(int(char) if char.isdigit() else 1 for char in rank_text)


def _validate(position: Position) -> None:
    """Check the §6 validity rules that depend on the rule set, and the value's own consistency."""
    rules = position.rules
    if not isinstance(rules, RuleSet):
        raise InvalidPositionError(f"invalid position: {rules!r} is not a rule set")
    if not isinstance(position.turn, Side):
        raise InvalidPositionError(f"invalid position: side to move {position.turn!r}")
    full = steps.FULL
    boards = [*position.guards, *position.privates]
    if len(position.guards) != 2 or len(position.privates) != 2 or len(position.captains) != 2:
        raise InvalidPositionError("invalid position: expected one value per side for each kind")
    if any(not isinstance(b, int) or b < 0 or b & ~full for b in boards):
        raise InvalidPositionError("invalid position: a bitboard has points off the board")
    seen = 0
    for b in boards:
        if seen & b:
            raise InvalidPositionError(
                "invalid position: two pieces on " + point_name(bitboard.bits(seen & b)[0])
            )
        seen |= b
    for side, name in ((0, "Blue"), (1, "Gray")):
        captain = position.captains[side]
        if not isinstance(captain, int) or not 0 <= captain < 81:
            raise InvalidPositionError(f"invalid position: {name} captain point {captain!r}")
        if seen >> captain & 1:
            raise InvalidPositionError(
                f"invalid position: {name}'s captain shares {point_name(captain)} "
                "with another piece"
            )
        seen |= 1 << captain
    if position.captains[0] == position.captains[1]:
        raise InvalidPositionError("invalid position: both captains on one point")
    text = position.placement_text()
    paths = bitboard.rule_tables(rules).paths
    for side, name in ((0, "Blue"), (1, "Gray")):
        captain = position.captains[side]
        if captain not in paths[side]:
            which = "its own" if rules.start is Start.HOME else "the enemy's"
            raise InvalidPositionError(
                f"invalid position {text!r}: {name}'s captain on {point_name(captain)} is not on "
                f"the path it follows under these rules ({which} path)"
            )
    if seen & ~(1 << position.captains[0]) & ~(1 << position.captains[1]) & steps.CENTER_BB:
        raise InvalidPositionError(
            f"invalid position {text!r}: a soldier stands on the centre e5, where only a captain "
            "may stand"
        )
    if position.privates[0] | position.privates[1]:
        if rules.soldiers is not Soldiers.PRIVATE:
            point = bitboard.bits(position.privates[0] | position.privates[1])[0]
            raise InvalidPositionError(
                f"invalid position {text!r}: a private on {POINT_NAMES[point]}, but the soldiers "
                "of this rule set are guards"
            )
        for side, name, rank in ((0, "Blue", "9"), (1, "Gray", "1")):
            on_far_rank = position.privates[side] & steps.FAR_RANK[side]
            if on_far_rank:
                point = bitboard.bits(on_far_rank)[0]
                raise InvalidPositionError(
                    f"invalid position {text!r}: a {name} private on {POINT_NAMES[point]}, the "
                    f"rank {rank} it would have been promoted on"
                )
    for value, what, least in (
        (position.count, "no-progress count", 0),
        (position.number, "move number", 1),
    ):
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or not least <= value <= MAX_NOTATION_NUMBER
        ):
            raise InvalidPositionError(
                f"invalid position {text!r}: {what} must be a whole number from {least} to "
                f"{MAX_NOTATION_NUMBER}, not {shown_value(value)}"
            )


def raw_move_of(raws: list[bitboard.RawMove], move: Move) -> bitboard.RawMove | None:
    """Which of the raw moves ``raws`` (a position's legal moves) ``move`` is, if any."""
    for raw in raws:
        if raw[3] is None:
            if not move.capture and move.points == (raw[0], raw[1]):
                return raw
        elif move.capture and move.points == raw[3]:
            return raw
    return None


def legal_raw_move(position: Position, board: bitboard.Board, move: Move) -> bitboard.RawMove:
    """The raw move of ``move`` on ``board`` (at ``position``, an unfinished one); raises
    ``IllegalMoveError`` saying why when it is not legal there."""
    raws = board.moves()
    raw = raw_move_of(raws, move)
    if raw is None:
        raise IllegalMoveError(
            f"illegal move {str(move)!r} in {position}: {_why_illegal(position, raws, move)}"
        )
    return raw


def _why_illegal(position: Position, raws: list[bitboard.RawMove], move: Move) -> str:
    piece = position.piece_at(move.from_point)
    if piece is None:
        return f"no piece on {str(move).split('x')[0].split('-')[0]}"
    if piece.side is not position.turn:
        return f"it is {position.turn.title}'s move, and that is a {piece.side.title} piece"
    if raws and raws[0][2] and not move.capture:
        return "a capture is available, and capturing is compulsory"
    if move.capture:
        longer = [raw for raw in raws if raw[3] and raw[3][: len(move.points)] == move.points]
        if longer:
            return "the capture must go on while the piece can jump again"
        if position.rules.capture is Capture.MAXIMAL and raws and raws[0][2]:
            return "under maximal capture only the sequences taking the most pieces are legal"
    return "that piece cannot move there"
