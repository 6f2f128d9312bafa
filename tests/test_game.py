"""Games: push and pop, history, legality errors that change nothing, and every ending (§4)."""

from __future__ import annotations

import pytest

from bluegray import Game, Move, Position, Side, Termination
from bluegray.errors import (
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidOutcomeError,
    InvalidPositionError,
    UnknownRulesError,
)
from bluegray.outcome import Outcome


def snapshot(game: Game) -> tuple[object, ...]:
    """Everything observable about a game, to check that a rejected call changed nothing."""
    return (
        str(game.position),
        game.position.zobrist_hash,
        tuple(game.moves),
        tuple(game.legal_moves),
        game.outcome(),
        game.board().history,
        game.ply,
    )


def test_push_and_pop() -> None:
    game = Game()
    before = snapshot(game)
    assert game.push("d2-d3") == Move.parse("d2-d3")
    assert game.push(Move.parse("f8-f7")) == Move.parse("f8-f7")
    assert game.turn is Side.BLUE and game.ply == 2
    assert str(game.position) == "ggggcgggg/ggggg1ggg/5g3/9/9/9/3G5/GGG1GGGGG/GGGGCGGGG b 2 2"
    assert [str(m) for m in game.moves] == ["d2-d3", "f8-f7"]
    assert game.last_move == Move.parse("f8-f7")
    assert game.pop() == Move.parse("f8-f7")
    assert game.undo() == Move.parse("d2-d3")
    assert snapshot(game) == before


def test_positions_history() -> None:
    game = Game("cooper")
    game.push_all(["d2-d3", "f8-f7", "e1-d2"])
    positions = game.positions()
    assert len(positions) == 4
    assert positions[0] == Position.start("cooper")
    assert positions[-1] == game.position
    assert positions[-1].count == 0  # a captain move resets the no-progress count


def test_captain_moves_and_counters() -> None:
    game = Game()
    game.push_all(["d2-d3", "f8-f7", "e1-d2", "f7-e7"])
    position = game.position
    assert position.advancement(Side.BLUE) == 1
    assert position.count == 1 and position.number == 3


def test_turbo_captain_slides_as_far_as_it_can() -> None:
    game = Game("classic-light-turbo")
    game.push_all(["d2-d3", "f8-f7", "d3-c3", "f7-f6"])
    # The path is empty from d2 to b7; b8 holds a Gray guard, so the captain stops on b7.
    captain_moves = [
        m for m in game.legal_moves if m.from_point == game.position.captain(Side.BLUE)
    ]
    assert [str(m) for m in captain_moves] == ["e1-b7"]
    game.push("e1-b7")
    assert game.position.advancement(Side.BLUE) == 10
    assert game.position.count == 0
    with pytest.raises(IllegalMoveError):
        Game("classic-light-turbo", str(game.positions()[-2])).push("e1-d2")


def test_rejected_moves_change_nothing() -> None:
    game = Game("sackson", "4c4/9/9/9/9/9/1g7/g1g6/Gg2C4 b 0 1")
    before = snapshot(game)
    cases: list[tuple[str, type[Exception], str]] = [
        ("e1-d2", IllegalMoveError, "capturing is compulsory"),
        ("a1xa3", IllegalMoveError, "must go on while the piece can jump again"),
        ("e1xe3", IllegalMoveError, "cannot move there"),
        ("a1xc1", IllegalMoveError, "must go on"),
        ("b1xb3", IllegalMoveError, "that is a Gray piece"),
        ("c1-c2", IllegalMoveError, "no piece on c1"),
        ("a1-b2", IllegalMoveError, "capturing is compulsory"),
        ("a1xa3xc3", IllegalMoveError, "must go on"),
        ("a1-a9-", InvalidMoveError, "invalid point ''"),
        ("nonsense", InvalidMoveError, "expected points joined"),
    ]
    for text, error, message in cases:
        with pytest.raises(error) as raised:
            game.push(text)
        assert message in str(raised.value), text
        assert repr(text) in str(raised.value)
        assert snapshot(game) == before
    game.push("a1xa3xc3xc1xa1")
    assert str(game.position) == "4c4/9/9/9/9/9/9/9/G3C4 g 0 1"


def test_maximal_capture_refuses_smaller_captures() -> None:
    # a1 can take two pieces (a1xa3xa5), c1 only one (c1xc3); maximal capture takes the most.
    position = "4c4/9/9/9/9/g8/9/g1g6/G1G1C4 b 0 1"
    free = Game("sackson", position)
    maximal = Game("classic", position)
    assert sorted(str(m) for m in free.legal_moves) == ["a1xa3xa5", "c1xc3"]
    free_moves = {str(m) for m in free.legal_moves}
    maximal_moves = {str(m) for m in maximal.legal_moves}
    assert maximal_moves < free_moves
    most = max(len(Move.parse(m).points) for m in free_moves)
    assert all(len(Move.parse(m).points) == most for m in maximal_moves)
    smaller = sorted(free_moves - maximal_moves)[0]
    before = snapshot(maximal)
    with pytest.raises(IllegalMoveError, match="maximal capture"):
        maximal.push(smaller)
    assert snapshot(maximal) == before


def test_push_all_is_all_or_nothing() -> None:
    game = Game()
    before = snapshot(game)
    with pytest.raises(IllegalMoveError, match="'a2-a4'"):
        game.push_all(["a2-a3", "a8-a7", "a2-a4"])
    assert snapshot(game) == before


def test_a_board_passes_the_turn_for_a_search_and_takes_it_back() -> None:
    from bluegray.bitboard import ZOBRIST_GRAY_TO_MOVE

    game = Game("cooper")
    game.push_all(["d2-d3", "f8-f7", "d3-e3"])
    board = game.board()
    before = (list(board.guards), board.turn, board.count, board.number, board.hash)
    history = list(board.history)
    board.push_null()
    assert board.turn == before[1] ^ 1
    assert board.hash == before[4] ^ ZOBRIST_GRAY_TO_MOVE  # the same placement, the other side
    assert board.count == 0  # so that no repetition is looked for across the pass
    assert board.history == [*history, board.hash]
    placement, _side, count, number = str(game.position).split()
    other_side = Position.parse(f"{placement} b {count} {number}", "cooper")
    assert game.turn is Side.GRAY
    assert sorted(board.moves()) == sorted(other_side.board().moves())
    board.pop()
    assert (list(board.guards), board.turn, board.count, board.number, board.hash) == before
    assert board.history == history


def test_pop_on_a_fresh_game() -> None:
    game = Game()
    with pytest.raises(IllegalMoveError, match="no move has been played"):
        game.pop()


def test_push_something_else() -> None:
    with pytest.raises(InvalidMoveError, match="expected a Move or move text"):
        Game().push(12)  # type: ignore[arg-type]


def test_bad_game_setup() -> None:
    with pytest.raises(UnknownRulesError):
        Game("checkers")
    with pytest.raises(InvalidPositionError):
        Game("sackson", "not a position")


def test_centre_ends_the_game() -> None:
    game = Game("sackson", "9/9/9/9/9/5c3/9/9/4C4 g 0 40")
    assert game.outcome() is None
    assert [str(m) for m in game.legal_moves] == ["f4-e5"]
    game.push("f4-e5")
    assert game.outcome() == Outcome(Termination.CENTER, Side.GRAY)
    assert game.position.count == 0 and game.position.number == 41


def test_repetition_is_an_impasse_won_by_the_farther_captain_under_sackson() -> None:
    opening = ["d2-d3", "a8-a7", "e1-d2", "a7-a8"]
    shuffle = ["a2-a3", "a8-a7", "a3-a2", "a7-a8"]
    game = Game("sackson")
    # The position after e1-d2 (Gray to move) comes back after each shuffle's third move.
    game.push_all(opening + shuffle + shuffle[:2])
    assert game.outcome() is None
    game.push(shuffle[2])
    outcome = game.outcome()
    assert outcome == Outcome(Termination.REPETITION, Side.BLUE, impasse=True)
    assert outcome.result == "1-0"
    assert game.legal_moves == []
    with pytest.raises(GameOverError, match="the game is over"):
        game.push("a2-a3")
    cooper = Game("cooper")
    cooper.push_all(opening + shuffle + shuffle[:3])
    assert cooper.outcome() == Outcome(Termination.REPETITION, None, impasse=True)


def test_no_progress_count() -> None:
    game = Game("cooper impasse-plies=4")
    game.push_all(["a2-a3", "a8-a7", "b2-b3"])
    assert game.outcome() is None
    game.push("b8-b7")
    assert game.position.count == 4
    assert game.outcome() == Outcome(Termination.NO_PROGRESS, None, impasse=True)


def test_lead_rule() -> None:
    game = Game("cooper")
    game.push_all(["d2-d3", "a8-a7", "e1-d2", "a7-a8", "d3-c3", "a8-a7", "d2-d3", "a7-a8"])
    assert game.outcome() is None  # advancement 2 against 0
    game.push("d3-d4")
    assert game.outcome() == Outcome(Termination.LEAD, Side.BLUE)
    sackson = Game("sackson", str(game.positions()[-2]))
    sackson.push("d3-d4")
    assert sackson.outcome() is None  # Sackson's rules have no lead rule


def test_stalemate_loses_or_is_an_impasse() -> None:
    # Gray to move and blocked: its captain's next point is taken and it has no soldiers.
    text = "4c4/5G3/9/9/9/9/9/9/G3C4 g 0 30"
    loss = Game("cooper", text).outcome()
    impasse = Game("sackson", text).outcome()
    assert loss == Outcome(Termination.STALEMATE, Side.BLUE)
    assert impasse == Outcome(Termination.STALEMATE, None, impasse=True)


def test_declared_endings() -> None:
    game = Game()
    game.push("d2-d3")
    assert game.resign() == Outcome(Termination.RESIGN, Side.BLUE)
    assert game.is_over() and game.legal_moves == []
    with pytest.raises(GameOverError, match="already over"):
        game.agree()
    game.pop()  # a takeback reopens the game
    assert not game.is_over()
    assert game.agree() == Outcome(Termination.AGREEMENT, None)
    fresh = Game()
    assert fresh.time_out(Side.GRAY) == Outcome(Termination.TIME, Side.BLUE)
    with pytest.raises(InvalidOutcomeError, match="the rules decide"):
        Game().declare(Outcome(Termination.CENTER, Side.BLUE))


def test_copy_is_independent() -> None:
    game = Game()
    game.push("d2-d3")
    copy = game.copy()
    copy.push("f8-f7")
    assert game.ply == 1 and copy.ply == 2


def test_game_from_a_position_in_another_rule_set_object() -> None:
    position = Position.start("sackson")
    game = Game("cooper", position)
    assert game.position.rules.name == "cooper"
    assert Game("super", position).position.rules.name == "super"  # guards may stand there
    with pytest.raises(InvalidPositionError, match="not on the path it follows"):
        Game("pow-classic", position)
