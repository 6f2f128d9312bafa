"""The puzzle generator: its themes' detectors, the test of "one clearly winning move", the
solution line, the puzzle file and the command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bluegray.cli.main import main
from bluegray.engine.puzzles import (
    CLEAR_MARGIN,
    Collection,
    Job,
    Puzzle,
    PuzzleError,
    find_puzzle,
    mine,
    read_puzzles,
    write_puzzle,
)
from bluegray.engine.themes import (
    CAPTAINS_RUN,
    CAPTURE_CHAIN,
    IMPASSE,
    LEAD,
    RACE,
    is_captains_run,
    is_capture_chain,
    is_impasse,
    is_lead,
    is_race,
    themes_of,
)
from bluegray.moves import Move
from bluegray.position import Position

RACE_POSITION = "8g/9/9/3C5/9/5c3/9/9/G8 b 0 1"
"""Both captains one step from the centre, Blue to move: only d6-e5 wins, anything else loses."""
TWO_WINS = "4c3g/9/9/3C5/9/9/9/9/G8 b 0 1"
"""Blue's captain one step from the centre and Gray's far: every Blue move wins."""
CHAIN = "4c4/9/9/9/9/9/1g7/g8/G3C4 b 0 1"
"""Blue's guard on a1 takes both Gray guards: a1xa3xc3."""
BLOCKADE = "4c4/6G2/9/9/9/9/9/3C5/9 b 0 1"
"""Sackson: Gray has only its captain, on e9; Blue's guard g8-f8 blocks its step, Gray cannot
move, and Blue's captain (d2, 1) is farther advanced than Gray's (0)."""


def line(*moves: str) -> list[Move]:
    return [Move.parse(move) for move in moves]


def position(text: str, rules: str = "sackson") -> Position:
    return Position.parse(text, rules)


class TestThemes:
    def test_capture_chain_takes_two_and_wins_material(self) -> None:
        start = position(CHAIN)
        assert is_capture_chain(start, line("a1xa3xc3"))
        assert themes_of(start, line("a1xa3xc3")) == (CAPTURE_CHAIN,)

    def test_a_single_capture_is_no_chain(self) -> None:
        start = position("4c4/9/9/9/9/9/9/g8/G3C4 b 0 1")
        assert not is_capture_chain(start, line("a1xa3"))

    def test_race_ends_on_the_centre(self) -> None:
        start = position(RACE_POSITION)
        assert is_race(start, line("d6-e5"))
        assert not is_race(start, line("a1-a2", "f4-e5"))

    def test_captains_run_moves_the_captain(self) -> None:
        start = position(RACE_POSITION)
        assert is_captains_run(start, line("d6-e5"))
        assert not is_captains_run(start, line("a1-a2"))

    def test_lead_wins_by_the_lead_rule_only_where_there_is_one(self) -> None:
        cooper = position("4c4/9/9/9/9/9/3C5/9/G8 b 0 1", "cooper")  # Blue on d3: 2 ahead
        assert is_lead(cooper, line("d3-d4"))
        assert not is_lead(cooper, line("a1-a2"))
        sackson = position("4c4/9/9/9/9/9/3C5/9/G8 b 0 1")
        assert not is_lead(sackson, line("d3-d4"))

    def test_impasse_the_opponent_cannot_move(self) -> None:
        blocked = position(BLOCKADE)
        assert is_impasse(blocked, line("g8-f8"))
        assert IMPASSE in themes_of(blocked, line("g8-f8"))
        assert not is_impasse(blocked, line("g8-g7"))

    def test_an_impasse_the_mover_loses_is_not_the_theme(self) -> None:
        # Gray's captain (f3, 14) is farther advanced than Blue's (e1, 0): blockading it by
        # g2-f2 ends the game in an impasse that Gray wins.
        start = position("9/9/9/9/9/9/5c3/6G2/4C4 b 0 1")
        assert is_impasse(start, line("g2-f2")) is False


class TestFinding:
    def test_the_only_winning_move_is_found_and_verified(self) -> None:
        puzzle = find_puzzle(RACE_POSITION, "sackson", 200)
        assert puzzle is not None
        assert puzzle.solution == ("d6-e5",)
        assert puzzle.margin >= CLEAR_MARGIN
        assert puzzle.expected == 1.0
        assert RACE in puzzle.themes and CAPTAINS_RUN in puzzle.themes
        assert LEAD not in puzzle.themes

    def test_two_good_moves_make_no_puzzle(self) -> None:
        assert find_puzzle(TWO_WINS, "sackson", 200) is None

    def test_a_forced_move_is_no_puzzle(self) -> None:
        # The capture is compulsory and goes on while it can: a1xa3xc3 is the only move.
        assert Position.parse(CHAIN, "sackson").legal_moves() == line("a1xa3xc3")
        assert find_puzzle(CHAIN, "sackson", 200) is None

    def test_mining_a_self_play_game_gives_verified_puzzles(self) -> None:
        mined = mine(Job("super", 200, seed=2))
        assert mined.positions > 0
        for puzzle in mined.puzzles:
            assert puzzle.margin >= CLEAR_MARGIN
            assert Puzzle.from_json(json.loads(write_puzzle(puzzle))) == puzzle


class TestFiles:
    def test_a_bad_puzzle_is_refused(self) -> None:
        good = {"rules": "sackson", "position": RACE_POSITION, "solution": ["d6-e5"]}
        assert read_puzzles([json.dumps(good)])[0].solution == ("d6-e5",)
        with pytest.raises(PuzzleError):
            read_puzzles([json.dumps({**good, "solution": ["d6-d7"]})])
        with pytest.raises(PuzzleError):
            read_puzzles([json.dumps({**good, "themes": ["nonsense"]})])
        with pytest.raises(PuzzleError):
            read_puzzles(["not json"])

    def test_the_collection_keeps_a_position_once_and_few_untagged(self) -> None:
        tagged = Puzzle("sackson", RACE_POSITION, ("d6-e5",), (RACE,), 1.0, 1.0, "self-play")
        untagged = Puzzle("sackson", TWO_WINS, ("a1-a2",), (), 0.3, 1.0, "self-play")
        collection = Collection(6)
        assert collection.add(tagged)
        assert not collection.add(tagged)  # the same position again
        assert not collection.add(untagged)  # 1 of 2 would be untagged
        for number in range(2, 6):  # four more tagged puzzles
            position = RACE_POSITION.replace("b 0 1", f"b 0 {number}").replace(
                "G8", f"{number - 1}G{9 - number}"
            )
            assert collection.add(
                Puzzle("sackson", position, ("d6-e5",), (RACE,), 1, 1, "self-play")
            )
        assert collection.add(untagged)  # 1 of 6 may be untagged
        assert collection.full
        assert (collection.duplicates, collection.untagged_dropped) == (1, 1)
        assert collection.untagged / len(collection.puzzles) <= 0.2


def test_the_command_writes_puzzles_and_extends_its_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "super.jsonl"
    assert main(["puzzles", "generate", "--rules", "super", "--count", "2", "--nodes", "200",
                 "--out", str(out)]) == 0  # fmt: skip
    first = read_puzzles(out.read_text().splitlines())
    assert len(first) == 2
    assert "positions/s" in capsys.readouterr().err
    assert main(["puzzles", "generate", "--rules", "super", "--count", "1", "--nodes", "200",
                 "--out", str(out)]) == 0  # fmt: skip
    second = read_puzzles(out.read_text().splitlines())
    assert len(second) == 3
    assert len({puzzle.key for puzzle in second}) == 3


def test_the_command_mines_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "games.txt"
    records.write_text(
        '[Rules "sackson"]\n[Position "8g/9/9/3C5/9/5c3/9/9/G8 b 0 1"]\n\n1. d6-e5 1-0\n'
    )
    assert main(["puzzles", "generate", "--rules", "sackson", "--count", "1", "--nodes", "100",
                 "--games-from", str(records), "--games", "0"]) == 0  # fmt: skip
    printed = read_puzzles(capsys.readouterr().out.splitlines())
    assert [(p.solution, p.source) for p in printed] == [(("d6-e5",), "record")]


def test_the_command_refuses_bad_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["puzzles", "generate", "--rules", "nonsense", "--count", "1"]) == 2
    assert main(["puzzles", "generate", "--rules", "super", "--count", "0"]) == 2
    assert "--count" in capsys.readouterr().err
