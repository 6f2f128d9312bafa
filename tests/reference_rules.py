"""A slow, plain reference implementation of docs/rules-reference.md §3 (moves) and §4 (the end of the game).

It is written from the rules alone, with a position as a dict of point -> §6 letter, so that the
bitboard move generator can be tested against it (STYLE.md: a hot path is compared with the plain
version). Only the standard library and the geometry constants of ``bluegray.points`` and the
settings of ``bluegray.rules`` are used.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from bluegray.points import BLUE_PATH, CENTER, DIAGONAL_LINES, GRAY_PATH, SIZE
from bluegray.rules import Army, Captain, Capture, Impasse, RuleSet, Soldiers, Stalemate, Start

Point = int
Placement = dict[Point, str]
"""Where the pieces stand: point -> §6 letter (``C G P`` Blue, ``c g p`` Gray)."""

BLUE = "b"
GRAY = "g"
WINNER_NAMES = {BLUE: "blue", GRAY: "gray"}

FILES = "abcdefghi"
RANKS = "123456789"


# -- geometry ------------------------------------------------------------------------------------


def name(point: Point) -> str:
    """The §1 name of a point, e.g. ``e5``."""
    return FILES[point % SIZE] + RANKS[point // SIZE]


def parse_point(text: str) -> Point:
    """The point named ``text``, e.g. ``e5``."""
    return RANKS.index(text[1]) * SIZE + FILES.index(text[0])


def point_at(file: int, rank: int) -> Point | None:
    """The point on a file and rank counted from zero, or ``None`` off the board."""
    if 0 <= file < SIZE and 0 <= rank < SIZE:
        return rank * SIZE + file
    return None


def coordinates(point: Point) -> tuple[int, int]:
    """The file and rank of a point, counted from zero."""
    return point % SIZE, point // SIZE


ORTHOGONAL = ((0, 1), (0, -1), (1, 0), (-1, 0))


def joined(point: Point) -> list[Point]:
    """Every point joined to ``point`` by a line: orthogonal neighbours and path diagonals."""
    file, rank = coordinates(point)
    result = []
    for df, dr in ORTHOGONAL:
        other = point_at(file + df, rank + dr)
        if other is not None:
            result.append(other)
    for a, b in DIAGONAL_LINES:
        if a == point:
            result.append(b)
        elif b == point:
            result.append(a)
    return result


def side_of(letter: str) -> str:
    """The side a piece letter belongs to: ``b`` for upper case, ``g`` for lower case."""
    return BLUE if letter.isupper() else GRAY


def other(side: str) -> str:
    """The opponent of a side."""
    return GRAY if side == BLUE else BLUE


def forward(side: str) -> int:
    """The rank step that is forward for a side: Blue goes up, Gray goes down."""
    return 1 if side == BLUE else -1


def far_rank(side: str) -> int:
    """The rank (from zero) on which a side's privates are promoted."""
    return SIZE - 1 if side == BLUE else 0


def captain_path(rules: RuleSet, side: str) -> tuple[Point, ...]:
    """The path a side's captain follows: its own, or in POW games the enemy's (§2)."""
    own = BLUE_PATH if side == BLUE else GRAY_PATH
    enemy = GRAY_PATH if side == BLUE else BLUE_PATH
    return own if rules.start is Start.HOME else enemy


# -- positions -----------------------------------------------------------------------------------


@dataclass
class RefPosition:
    """A position: placement, side to move (``b`` or ``g``), no-progress count and move number."""

    placement: Placement
    turn: str = BLUE
    count: int = 0
    number: int = 1

    def key(self) -> str:
        """What the repetition rule compares: placement and side to move."""
        return f"{placement_text(self.placement)} {self.turn}"

    def __str__(self) -> str:
        return f"{placement_text(self.placement)} {self.turn} {self.count} {self.number}"


def placement_text(placement: Placement) -> str:
    """The first field of the §6 notation: ranks 9 down to 1, files a to i."""
    rows = []
    for rank in range(SIZE - 1, -1, -1):
        row = ""
        empty = 0
        for file in range(SIZE):
            letter = placement.get(rank * SIZE + file)
            if letter is None:
                empty += 1
            else:
                row += (str(empty) if empty else "") + letter
                empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)


def parse_position(text: str) -> RefPosition:
    """A position from its §6 text (trusted to be valid: this is for tests)."""
    placement_field, turn, count, number = text.split(" ")
    placement: Placement = {}
    for row, row_text in enumerate(placement_field.split("/")):
        rank = SIZE - 1 - row
        file = 0
        for char in row_text:
            if char.isdigit():
                file += int(char)
            else:
                placement[rank * SIZE + file] = char
                file += 1
    return RefPosition(placement, turn, int(count), int(number))


def start_position(rules: RuleSet) -> RefPosition:
    """The start of a rule set (§2)."""
    soldier = "P" if rules.soldiers is Soldiers.PRIVATE else "G"
    ranks = (1, 7) if rules.army is Army.LIGHT else (0, 1, 7, 8)
    placement: Placement = {}
    for rank in ranks:
        for file in range(SIZE):
            placement[rank * SIZE + file] = soldier if rank < SIZE // 2 else soldier.lower()
    # the captains' points are the e1 and e9 gaps of the back ranks, whichever way round
    placement[captain_path(rules, BLUE)[0]] = "C"
    placement[captain_path(rules, GRAY)[0]] = "c"
    return RefPosition(placement)


def advancement(position: RefPosition, rules: RuleSet, side: str) -> int:
    """The index of a side's captain on the path it follows: 0 at its start, 17 on the centre."""
    letter = "C" if side == BLUE else "c"
    path = captain_path(rules, side)
    for point, piece in position.placement.items():
        if piece == letter:
            return path.index(point)
    raise ValueError(f"no {letter} captain in {position}")


# -- moves ---------------------------------------------------------------------------------------


@dataclass
class RefMove:
    """A legal move: its §6 text, the position after it, and how many pieces it captures."""

    text: str
    after: RefPosition
    captured: int = 0


def _after(
    position: RefPosition, placement: Placement, progress: bool, text: str, captured: int = 0
) -> RefMove:
    """Wrap up a move: flip the turn, update the two counters."""
    count = 0 if progress else position.count + 1
    number = position.number + (1 if position.turn == GRAY else 0)
    return RefMove(text, RefPosition(placement, other(position.turn), count, number), captured)


def _promoted(letter: str, point: Point) -> str:
    """A private on its far rank becomes a guard; anything else stays as it is."""
    if letter in "Pp" and coordinates(point)[1] == far_rank(side_of(letter)):
        return "G" if letter == "P" else "g"
    return letter


def captain_moves(position: RefPosition, rules: RuleSet) -> Iterator[RefMove]:
    """The side to move's captain: one step, or a turbo slide as far as it can (§3)."""
    side = position.turn
    path = captain_path(rules, side)
    letter = "C" if side == BLUE else "c"
    start = next(p for p, piece in position.placement.items() if piece == letter)
    index = path.index(start)
    end = index
    while end < len(path) - 1 and path[end + 1] not in position.placement:
        end += 1
        if rules.captain is Captain.STANDARD:
            break
    if end == index:
        return
    placement = dict(position.placement)
    del placement[start]
    placement[path[end]] = letter
    yield _after(position, placement, True, f"{name(start)}-{name(path[end])}")


def step_moves(position: RefPosition, rules: RuleSet) -> Iterator[RefMove]:
    """Every soldier step of the side to move: guards along any line, privates forward or
    sideways (§3)."""
    side = position.turn
    for start, letter in position.placement.items():
        if side_of(letter) != side or letter in "Cc":
            continue
        if letter in "Gg":
            targets = [(p, False) for p in joined(start)]
        else:
            file, rank = coordinates(start)
            targets = []
            for df, dr in ((0, forward(side)), (1, 0), (-1, 0)):
                target = point_at(file + df, rank + dr)
                if target is not None:
                    targets.append((target, dr != 0))
        for target, is_forward in targets:
            if target == CENTER or target in position.placement:
                continue
            placement = dict(position.placement)
            del placement[start]
            placement[target] = _promoted(letter, target)
            yield _after(position, placement, is_forward, f"{name(start)}-{name(target)}")


def jumps(placement: Placement, point: Point, letter: str) -> Iterator[tuple[Point, Point]]:
    """The single jumps a soldier on ``point`` could make: (jumped point, landing point)."""
    side = side_of(letter)
    directions = ORTHOGONAL if letter in "Gg" else ((0, forward(side)), (1, 0), (-1, 0))
    file, rank = coordinates(point)
    for df, dr in directions:
        over = point_at(file + df, rank + dr)
        land = point_at(file + 2 * df, rank + 2 * dr)
        if over is None or land is None or land == CENTER or land in placement:
            continue
        victim = placement.get(over)
        if victim is None or victim in "Cc" or side_of(victim) == side:
            continue
        yield over, land


def capture_moves(position: RefPosition) -> list[RefMove]:
    """Every complete capture sequence of the side to move (§3), whatever its length."""
    found: dict[str, RefMove] = {}

    def extend(placement: Placement, point: Point, letter: str, visited: list[Point]) -> None:
        available = list(jumps(placement, point, letter))
        if not available or (len(visited) > 1 and letter != _promoted(letter, point)):
            # no further jump, or a private just reached its far rank: the capture ends here
            if len(visited) > 1:
                final = dict(placement)
                final[point] = _promoted(letter, point)
                text = "x".join(name(p) for p in visited)
                found[text] = _after(position, final, True, text, len(visited) - 1)
            return
        for over, land in available:
            after = dict(placement)
            del after[over]
            extend(after, land, letter, [*visited, land])

    for start, letter in position.placement.items():
        if side_of(letter) != position.turn or letter in "Cc":
            continue
        placement = dict(position.placement)
        del placement[start]
        extend(placement, start, letter, [start])
    return list(found.values())


def generate_moves(position: RefPosition, rules: RuleSet) -> list[RefMove]:
    """The moves the rules allow in a position, ignoring whether the game has ended, by text."""
    captures = capture_moves(position)
    if captures:
        if rules.capture is Capture.MAXIMAL:
            most = max(move.captured for move in captures)
            captures = [move for move in captures if move.captured == most]
        return sorted(captures, key=lambda move: move.text)
    moves = [*captain_moves(position, rules), *step_moves(position, rules)]
    return sorted(moves, key=lambda move: move.text)


# -- the end of the game -------------------------------------------------------------------------


@dataclass(frozen=True)
class RefOutcome:
    """How a game ended: the §4 reason, the winner (``blue``, ``gray`` or ``None``) and whether
    it was an impasse."""

    reason: str
    winner: str | None
    impasse: bool = False


def _impasse(position: RefPosition, rules: RuleSet, reason: str) -> RefOutcome:
    """An impasse, decided by the rule set's ``impasse`` setting."""
    if rules.impasse is Impasse.DRAW:
        return RefOutcome(reason, None, True)
    blue = advancement(position, rules, BLUE)
    gray = advancement(position, rules, GRAY)
    winner = None if blue == gray else "blue" if blue > gray else "gray"
    return RefOutcome(reason, winner, True)


def end_of(
    position: RefPosition,
    rules: RuleSet,
    history: list[str] | None,
    moves: list[RefMove] | None = None,
) -> RefOutcome | None:
    """The §4 checks in order. ``history`` holds the repetition keys of every position of the
    game, the start first and this one last; ``None`` before the first move, when only rules 1,
    2 and 5 are checked. ``moves`` may pass the already generated moves of the position."""
    captain = position.placement.get(CENTER)
    if captain is not None:
        return RefOutcome("center", WINNER_NAMES[side_of(captain)])
    if rules.lead is not None:
        blue = advancement(position, rules, BLUE)
        gray = advancement(position, rules, GRAY)
        if blue - gray >= rules.lead:
            return RefOutcome("lead", "blue")
        if gray - blue >= rules.lead:
            return RefOutcome("lead", "gray")
    if history is not None:
        if history.count(position.key()) >= 3:
            return _impasse(position, rules, "repetition")
        if position.count >= rules.impasse_plies:
            return _impasse(position, rules, "no-progress")
    if moves is None:
        moves = generate_moves(position, rules)
    if not moves:
        if rules.stalemate is Stalemate.IMPASSE:
            return _impasse(position, rules, "stalemate")
        return RefOutcome("stalemate", WINNER_NAMES[other(position.turn)])
    return None


# -- games and perft -----------------------------------------------------------------------------


@dataclass
class RefGame:
    """A game you push move texts onto and pop them off, from the start or a set-up position."""

    rules: RuleSet
    positions: list[RefPosition] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    _keys: list[str] = field(default_factory=list)
    _generated: list[list[RefMove] | None] = field(default_factory=list)

    @classmethod
    def new(cls, rules: RuleSet, start: str | None = None) -> RefGame:
        """A game from the rule set's start, or from the position written ``start``."""
        position = start_position(rules) if start is None else parse_position(start)
        return cls(rules, [position], [], [position.key()], [None])

    @property
    def position(self) -> RefPosition:
        """The current position."""
        return self.positions[-1]

    def _all_moves(self) -> list[RefMove]:
        generated = self._generated[-1]
        if generated is None:
            generated = generate_moves(self.position, self.rules)
            self._generated[-1] = generated
        return generated

    def outcome(self) -> RefOutcome | None:
        """How the game has ended (§4), or ``None`` while it goes on."""
        history = self._keys if self.moves else None
        return end_of(self.position, self.rules, history, self._all_moves())

    def legal_moves(self) -> list[str]:
        """The legal moves as sorted §6 text; none once the game is over."""
        if self.outcome() is not None:
            return []
        return [move.text for move in self._all_moves()]

    def push(self, text: str) -> None:
        """Play the legal move written ``text``."""
        if self.outcome() is not None:
            raise ValueError(f"the game is over; cannot play {text}")
        for move in self._all_moves():
            if move.text == text:
                self.positions.append(move.after)
                self.moves.append(text)
                self._keys.append(move.after.key())
                self._generated.append(None)
                return
        raise ValueError(f"illegal move {text} in {self.position}")

    def pop(self) -> str:
        """Take back the last move."""
        self.positions.pop()
        self._keys.pop()
        self._generated.pop()
        return self.moves.pop()


def perft(game: RefGame, depth: int) -> int:
    """The number of move sequences of exactly ``depth`` legal moves from the game's position."""
    moves = game.legal_moves()
    if depth <= 1:
        return len(moves) if depth == 1 else 1
    total = 0
    for text in moves:
        game.push(text)
        total += perft(game, depth - 1)
        game.pop()
    return total


def legal_moves(text: str, rules: RuleSet) -> list[str]:
    """The legal moves of a game set up from the position written ``text``."""
    return RefGame.new(rules, text).legal_moves()
