"""Property-based tests: notation round trips, push and pop, the 180° symmetry, the centre, and
compulsory and complete captures, on random positions reached by random play."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bluegray import Game, Kind, Move, Position
from bluegray.outcome import Outcome
from bluegray.points import CENTER, point_rank, rotate_point
from bluegray.rules import PRESETS, Capture, RuleSet
from tests import reference_rules as ref

RULE_SETS: dict[str, RuleSet] = {
    **PRESETS,
    "sackson impasse-plies=12": RuleSet.parse("sackson impasse-plies=12"),
    "cooper soldiers=private": RuleSet.parse("cooper soldiers=private"),
    "super-light capture=free": RuleSet.parse("super-light capture=free"),
    "classic-light-turbo impasse-plies=16": RuleSet.parse("classic-light-turbo impasse-plies=16"),
}

MAX_PLIES = 300

EXAMPLES = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@st.composite
def games(draw: st.DrawFn) -> Game:
    """A game of a random rule set after some random moves (it may have ended). Half of them
    stop at the first position with a capture to make after the chosen number of moves, so that
    capture positions are common."""
    rules = RULE_SETS[draw(st.sampled_from(sorted(RULE_SETS)))]
    plies = draw(st.integers(min_value=0, max_value=160))
    seek_capture = draw(st.booleans())
    rng = random.Random(draw(st.integers(min_value=0, max_value=2**32 - 1)))
    game = Game(rules)
    while True:
        moves = game.legal_moves
        if not moves or game.ply >= (MAX_PLIES if seek_capture else plies):
            break
        if seek_capture and game.ply >= plies and any(move.capture for move in moves):
            break
        game.push(rng.choice(moves))
    return game


def _rotated(move: Move) -> Move:
    return Move(tuple(rotate_point(point) for point in move.points), move.capture)


def _letters(position: Position) -> dict[int, str]:
    return {point: piece.symbol for point, piece in position.pieces().items()}


@EXAMPLES
@given(games())
def test_notation_round_trips(game: Game) -> None:
    position = game.position
    text = str(position)
    parsed = Position.parse(text, game.rules)
    assert str(parsed) == text
    assert parsed == position
    for move in [*game.legal_moves, *position.legal_moves()]:
        assert Move.parse(str(move)) == move


@EXAMPLES
@given(games(), st.integers(min_value=1, max_value=12), st.integers(min_value=0, max_value=2**32))
def test_push_then_pop_restores_everything(game: Game, k: int, seed: int) -> None:
    rules = game.rules
    rng = random.Random(seed)
    before = (
        game.position,
        game.position.zobrist_hash,
        game.board().hash,
        game.moves,
        game.legal_moves,
        game.outcome(),
    )
    pushed = 0
    for _ in range(k):
        moves = game.legal_moves
        if not moves:
            break
        game.push(rng.choice(moves))
        pushed += 1
        fresh = Position.parse(str(game.position), rules).zobrist_hash
        assert game.board().hash == fresh
        assert game.position.zobrist_hash == fresh
    for _ in range(pushed):
        game.pop()
    after = (
        game.position,
        game.position.zobrist_hash,
        game.board().hash,
        game.moves,
        game.legal_moves,
        game.outcome(),
    )
    assert after == before


def _other_winner(outcome: Outcome | None) -> Outcome | None:
    if outcome is None or outcome.winner is None:
        return outcome
    return Outcome(outcome.termination, outcome.winner.other, outcome.impasse)


@EXAMPLES
@given(games())
def test_rotation_is_the_same_game_from_the_other_side(game: Game) -> None:
    position = game.position
    rotated = position.rotated()
    assert rotated.rotated() == position
    assert _letters(rotated) == {
        rotate_point(point): letter.swapcase() for point, letter in _letters(position).items()
    }
    assert rotated.outcome() == _other_winner(position.outcome())
    if position.outcome() is None:
        expected = sorted((_rotated(move) for move in position.legal_moves()), key=str)
        assert rotated.legal_moves() == expected


@EXAMPLES
@given(games())
def test_no_move_puts_a_soldier_on_the_centre(game: Game) -> None:
    for move in game.legal_moves:
        game.push(move)
        piece = game.position.piece_at(CENTER)
        assert piece is None or piece.kind is Kind.CAPTAIN, move
        game.pop()


@EXAMPLES
@given(games())
def test_captures_are_compulsory(game: Game) -> None:
    moves = game.legal_moves
    if any(move.capture for move in moves):
        assert all(move.capture for move in moves)
    if game.outcome() is None:
        captures = ref.capture_moves(ref.parse_position(str(game.position)))
        assert bool(captures) == any(move.capture for move in moves)
        if captures:
            assert moves and all(move.capture for move in moves)


@EXAMPLES
@given(games())
def test_captures_are_complete_and_maximal_when_required(game: Game) -> None:
    captures = [move for move in game.legal_moves if move.capture]
    if not captures:
        return
    if game.rules.capture is Capture.MAXIMAL:
        possible = ref.capture_moves(ref.parse_position(str(game.position)))
        most = max(move.captured for move in possible)
        assert {len(move.captured_points) for move in captures} == {most}
    for move in captures:
        piece = game.position.piece_at(move.from_point)
        assert piece is not None
        far = 8 if piece.side.value == "blue" else 0
        if piece.kind is Kind.PRIVATE and point_rank(move.to_point) == far:
            continue  # promoted on landing: the capture ends there
        game.push(move)
        letters = _letters(game.position)
        assert list(ref.jumps(letters, move.to_point, letters[move.to_point])) == [], move
        game.pop()
