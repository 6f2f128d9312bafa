"""Puzzles: positions where exactly one move wins clearly, mined from games and verified.

A candidate position is searched move by move: each legal move is played and the position after
it searched to a node limit, which gives every root move an expected score for the side to move
(1 a sure win, 0.5 even, 0 a sure loss). The position is a puzzle when the best move's expected
score exceeds the second best's by at least ``CLEAR_MARGIN`` ("clearly"), and still does, with
the same best move, when every move is searched again with ``VERIFY_FACTOR`` times the nodes.

The solution is the winning move, then the opponent's best reply and the next winning move, as
long as the position stays one with a single clearly winning move (at most ``MOST_MOVES`` moves
of the solver). Its themes come from the detectors of ``themes``. Puzzles are told apart by
their position (placement and side to move) and rule set.

Candidates come from engine self-play (``self_play_positions``: games between searchers that
now and then play a random move, the kind of slip a puzzle punishes) and from game records
(``record_positions``). ``mine`` turns one job (a self-play game or a record) into puzzles; the
command ``bluegray puzzles generate`` runs jobs here or on a Ray cluster (``cluster_puzzles``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from bluegray import bitboard
from bluegray.engine.evaluation import expected_score
from bluegray.engine.limits import DECIDED, Limits
from bluegray.engine.search import Searcher
from bluegray.engine.themes import THEMES, themes_of
from bluegray.errors import BlueGrayError
from bluegray.game import Game
from bluegray.moves import Move
from bluegray.position import Position, move_from_raw
from bluegray.record_reader import read_records
from bluegray.rules import RuleSet, as_rules

CLEAR_MARGIN: Final = 0.3
"""How much the best move's expected score must exceed the second best's."""
VERIFY_FACTOR: Final = 4
"""The verification searches this many times the generation's nodes."""
MOST_MOVES: Final = 3
"""The most moves of the solver in a solution."""
UNTAGGED_SHARE: Final = 0.2
"""The largest share of a generated set that may have no theme."""
HASH_ENTRIES: Final = 1 << 16
SELF_PLAY_NODES: Final = 300
"""The nodes a move of the self-play games searches (they only need to look plausible)."""
SLIP_CHANCE: Final = 0.5
"""How often a self-play move is a random legal move."""
OPENING_PLIES: Final = 4
"""Random moves that open a self-play game, so that the games differ."""
MOST_PLIES: Final = 200
"""The longest self-play game mined."""
FIRST_PLY: Final = 6
"""Positions before this ply are not candidates (the opening's random moves)."""
TAIL_PLIES: Final = 24
"""The candidates of a self-play game: its last positions, where the game is decided."""


class PuzzleError(BlueGrayError):
    """A puzzle file or a puzzle request that cannot be used."""


@dataclass(frozen=True)
class MoveValue:
    """One root move with what the search after it found, from the mover's point of view."""

    move: Move
    expected: float
    line: tuple[Move, ...]
    """The move, then the principal variation after it."""


@dataclass(frozen=True)
class Puzzle:
    """A position with exactly one clearly winning move, and its solution."""

    rules: str
    position: str
    solution: tuple[str, ...]
    """The solver's moves and the opponent's replies, alternating, the solver's first and last."""
    themes: tuple[str, ...]
    margin: float
    """Best minus second best expected score at the verification."""
    expected: float
    """The winning move's expected score for the solver at the verification."""
    source: str
    """``self-play`` or ``record``."""

    @property
    def key(self) -> str:
        """What tells puzzles apart: the rule set, the placement and the side to move."""
        placement, side = self.position.split()[:2]
        return f"{self.rules} {placement} {side}"

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "position": self.position,
            "solution": list(self.solution),
            "themes": list(self.themes),
            "margin": round(self.margin, 3),
            "expected": round(self.expected, 3),
            "source": self.source,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Puzzle:
        """A puzzle from its JSON object, checked: the position parses under the rules and the
        solution is legal from it."""
        try:
            rules = as_rules(str(data["rules"]))
            game = Game(rules, str(data["position"]))
            solution = tuple(str(move) for move in data["solution"])
            game.push_all(solution)
            themes = tuple(str(theme) for theme in data.get("themes", ()))
            puzzle = cls(
                str(rules),
                str(data["position"]),
                solution,
                themes,
                float(data.get("margin", 0.0)),
                float(data.get("expected", 0.0)),
                str(data.get("source", "")),
            )
        except (KeyError, TypeError, ValueError, BlueGrayError) as error:
            raise PuzzleError(f"not a puzzle: {error}") from None
        if not solution or len(solution) % 2 == 0:
            raise PuzzleError("a puzzle's solution has an odd number of moves")
        unknown = set(themes) - set(THEMES)
        if unknown:
            raise PuzzleError(f"unknown themes: {', '.join(sorted(unknown))}")
        return puzzle


def read_puzzles(lines: Iterable[str]) -> list[Puzzle]:
    """The puzzles of a JSON Lines text (blank lines skipped)."""
    puzzles = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            raise PuzzleError(f"line {number}: not JSON: {error.msg}") from None
        if not isinstance(data, dict):
            raise PuzzleError(f"line {number}: expected a JSON object")
        puzzles.append(Puzzle.from_json(data))
    return puzzles


def write_puzzle(puzzle: Puzzle) -> str:
    """One line of a puzzle file."""
    return json.dumps(puzzle.to_json(), separators=(",", ":"))


# -- valuing the root moves ---------------------------------------------------------------------


def move_values(game: Game, nodes: int, searcher: Searcher) -> list[MoveValue]:
    """Every legal move with its expected score for the side to move, best first: the move is
    played and the position after it searched to ``nodes`` (a move that ends the game is valued
    by its end)."""
    board = game.board()
    mover = board.turn
    values = []
    for raw in board.moves():
        move = move_from_raw(raw)
        board.push(raw)
        code = board.end()
        if code != bitboard.ONGOING:
            winner = board.winner(code)
            expected = 0.5 if winner is None else (1.0 if winner == mover else 0.0)
            values.append(MoveValue(move, expected, (move,)))
        else:
            result = searcher.search(board, Limits(nodes=nodes))
            score = -result.score
            if score > DECIDED:
                expected = 1.0
            elif score < -DECIDED:
                expected = 0.0
            else:
                expected = expected_score(score)
            values.append(MoveValue(move, expected, (move, *result.pv)))
        board.pop()
    values.sort(key=_negated_expected)
    return values


def _negated_expected(value: MoveValue) -> float:
    return -value.expected


def clear_winner(values: Sequence[MoveValue]) -> MoveValue | None:
    """The one clearly best move: at least ``CLEAR_MARGIN`` above the second best (a move that
    wins where the others only draw, or the one move that holds where the others lose);
    ``None`` if there is no such move."""
    if len(values) < 2:
        return None
    best, second = values[0], values[1]
    if best.expected - second.expected < CLEAR_MARGIN:
        return None
    return best


def _verified(game: Game, nodes: int, searcher: Searcher) -> tuple[MoveValue, float] | None:
    """The clear winner at ``nodes`` confirmed at ``VERIFY_FACTOR`` times as many, with its
    margin there."""
    first = clear_winner(move_values(game, nodes, searcher))
    if first is None:
        return None
    values = move_values(game, nodes * VERIFY_FACTOR, searcher)
    best = clear_winner(values)
    if best is None or best.move != first.move:
        return None
    return best, best.expected - values[1].expected


def find_puzzle(
    position: Position | str,
    rules: RuleSet | str,
    nodes: int,
    searcher: Searcher | None = None,
    source: str = "self-play",
) -> Puzzle | None:
    """The puzzle at ``position`` if it has exactly one clearly winning move (found at ``nodes``
    and verified at ``VERIFY_FACTOR`` times as many), else ``None``."""
    rules = as_rules(rules)
    game = Game(rules, position)
    start = game.position
    if game.is_over() or len(game.legal_moves) < 2:
        return None
    searcher = searcher or Searcher(rules, hash_entries=HASH_ENTRIES)
    found = _verified(game, nodes, searcher)
    if found is None:
        return None
    best, margin = found
    solution = [best.move]
    line = best.line
    game.push(best.move)
    while len(solution) < 2 * MOST_MOVES - 1 and not game.is_over():
        reply = line[1] if len(line) > 1 else None
        if reply is None or not game.is_legal(reply):
            break
        game.push(reply)
        if game.is_over() or len(game.legal_moves) < 2:
            game.pop()
            break
        values = move_values(game, nodes * VERIFY_FACTOR, searcher)
        next_best = clear_winner(values)
        if next_best is None:
            game.pop()
            break
        solution += [reply, next_best.move]
        line = next_best.line
        game.push(next_best.move)
    full_line = (*solution, *line[1:])
    return Puzzle(
        str(rules),
        str(start),
        tuple(str(move) for move in solution),
        themes_of(start, full_line),
        round(margin, 3),
        round(best.expected, 3),
        source,
    )


# -- where the candidates come from -----------------------------------------------------------


def self_play_positions(rules: RuleSet, seed: int, searcher: Searcher) -> Iterator[Position]:
    """The last ``TAIL_PLIES`` positions of one self-play game: searchers at
    ``SELF_PLAY_NODES`` that open with ``OPENING_PLIES`` random moves and then play a random
    move ``SLIP_CHANCE`` of the time (the positions where a game is decided hold most of the
    puzzles: a quiet middlegame's moves rarely differ by a clear margin)."""
    rng = random.Random(seed)
    game = Game(rules)
    searcher.new_game()
    positions: list[Position] = []
    while not game.is_over() and game.ply < MOST_PLIES:
        if game.ply >= FIRST_PLY:
            positions.append(game.position)
        legal = game.legal_moves
        if game.ply < OPENING_PLIES or rng.random() < SLIP_CHANCE:
            game.push(rng.choice(legal))
        else:
            game.push(searcher.search(game.board(), Limits(nodes=SELF_PLAY_NODES)).move)
    yield from positions[-TAIL_PLIES:]


def record_positions(rules: str, start: str, moves: Sequence[str]) -> Iterator[Position]:
    """The positions of a recorded game (from its start to before its last move)."""
    game = Game(rules, start)
    for move in moves:
        if game.is_over():
            return
        if game.ply >= FIRST_PLY or game.start != Position.start(game.rules):
            yield game.position
        game.push(move)


@dataclass(frozen=True)
class Job:
    """One game to mine: a self-play game by its seed, or a recorded game by its moves."""

    rules: str
    nodes: int
    seed: int = 0
    start: str = ""
    moves: tuple[str, ...] = ()

    @property
    def source(self) -> str:
        return "record" if self.moves else "self-play"


@dataclass(frozen=True)
class Mined:
    """What one job gave: its puzzles and how many positions it looked at."""

    puzzles: tuple[Puzzle, ...]
    positions: int


def mine(job: Job, searcher: Searcher | None = None) -> Mined:
    """The puzzles of one job's positions (each position's best puzzle, duplicates left in)."""
    rules = as_rules(job.rules)
    searcher = searcher or Searcher(rules, hash_entries=HASH_ENTRIES)
    if job.moves:
        positions: Iterator[Position] = record_positions(job.rules, job.start, job.moves)
    else:
        positions = self_play_positions(rules, job.seed, Searcher(rules, hash_entries=1 << 14))
    found = []
    looked = 0
    for position in positions:
        looked += 1
        puzzle = find_puzzle(position, rules, job.nodes, searcher, job.source)
        if puzzle is not None:
            found.append(puzzle)
    return Mined(tuple(found), looked)


def record_jobs(text: str, nodes: int, rules: str | None = None) -> list[Job]:
    """A job for every record in a records text (of ``rules`` only, when given)."""
    jobs = []
    for record in read_records(text):
        game = record.game
        if rules is not None and str(game.rules) != rules:
            continue
        moves = tuple(str(move) for move in game.moves)
        if moves:
            jobs.append(Job(str(game.rules), nodes, start=str(game.start), moves=moves))
    return jobs


class Collection:
    """The puzzles kept so far: one per position, at most ``count``, and never more than
    ``UNTAGGED_SHARE`` of them untagged (an untagged puzzle is kept only when the share allows
    it, so a run stopped at any point keeps the share)."""

    def __init__(self, count: int, known: Iterable[Puzzle] = ()) -> None:
        self.count = count
        self.puzzles: list[Puzzle] = []
        self._keys = {puzzle.key for puzzle in known}
        self.duplicates = 0
        self.untagged_dropped = 0

    @property
    def full(self) -> bool:
        return len(self.puzzles) >= self.count

    @property
    def untagged(self) -> int:
        return sum(1 for puzzle in self.puzzles if not puzzle.themes)

    def add(self, puzzle: Puzzle) -> bool:
        """Keep ``puzzle`` if it is new, there is room, and (untagged) it fits the share."""
        if self.full:
            return False
        if puzzle.key in self._keys:
            self.duplicates += 1
            return False
        if not puzzle.themes and self.untagged + 1 > UNTAGGED_SHARE * (len(self.puzzles) + 1):
            self.untagged_dropped += 1
            return False
        self._keys.add(puzzle.key)
        self.puzzles.append(puzzle)
        return True
