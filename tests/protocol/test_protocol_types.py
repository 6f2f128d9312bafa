"""The value types both ends of the engine protocol share: commands and info lines read and
written back exactly, numbers past their bounds refused, scores, clocks."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bluegray import Game, RuleSet
from bluegray.engine.limits import WIN
from bluegray.engine.time_manager import Clock, MoveTime, allocate
from bluegray.pieces import Side
from bluegray.protocol import Go, Info, Limit, Option, PositionCommand, ProtocolError, Score
from bluegray.protocol.server import move_time, protocol_score
from tests.protocol.engine_session import CUSTOM

# -- the shared value types ---------------------------------------------------------------------


def test_go_commands_round_trip() -> None:
    for text in (
        "go",
        "go depth 3",
        "go movetime 250",
        "go btime -20 gtime 900 binc 10 ginc 10 movestogo 5",
        "go nodes 500 infinite",
    ):
        assert str(Go.parse(text.split()[1:])) == text
    assert Go.from_limit(Limit(time=0.25)) == Go(movetime=250)
    assert Go.from_limit(Limit(depth=4, nodes=90)) == Go(depth=4, nodes=90)
    assert Go.from_limit(None) == Go()


def test_info_and_option_lines_round_trip() -> None:
    line = "info depth 3 seldepth 5 score loss 4 nodes 812 nps 40000 time 20 pv d2-d3 f8-f7"
    info = Info.parse(line)
    assert str(info) == line and info.score == Score("loss", 4)
    assert Info.parse("info depth 2 currmove d2-d3 nodes 7").nodes == 7  # unknown keys skipped
    assert Info.parse("info string error  two  spaces").error == " two  spaces"
    assert Info.parse("info depth 4 string deep  thought").string == "deep  thought"
    assert Info.parse("info string").string == ""
    with pytest.raises(ProtocolError, match="info 'nodes' without its value"):
        Info.parse("info nodes")
    option = Option.parse(
        "option name Skill Level type combo default Very Hard var Easy var Very Hard"
    )
    assert (option.name, option.default, option.vars) == (
        "Skill Level",
        "Very Hard",
        ("Easy", "Very Hard"),
    )
    assert Option.parse(str(option)) == option


@pytest.mark.parametrize(
    "line",
    [
        "info depth 1 string x",
        "info depth 3 score cp -7 pv d2-d3 f8-f7 string two  spaces kept",
        "info nodes 9223372036854775807 string",
        "info pv d2-d3",
    ],
)
def test_info_lines_print_back_as_they_were_read(line: str) -> None:
    info = Info.parse(line)
    assert str(info) == line and Info.parse(str(info)) == info


@pytest.mark.parametrize(
    "read",
    [
        lambda: Go.parse(["nodes", "9223372036854775808"]),
        lambda: Go.parse(["depth", "9" * 5000]),
        lambda: Info.parse("info nodes " + "9" * 5000),
        lambda: Info.parse("info time 9223372036854775808"),
        lambda: Info.parse("info score cp -" + "9" * 5000),
        lambda: Option.parse("option name X type spin default 1 min 0 max " + "9" * 5000),
        lambda: PositionCommand.parse(["rules", "sackson", "impasse-plies=" + "9" * 5000]),
        lambda: PositionCommand.parse(
            ["rules", "cooper", "fen", "4c4/9/9/9/9/9/9/9/4C4", "b", "9" * 5000, "1"]
        ),
    ],
)
def test_numbers_beyond_their_bounds_are_protocol_errors(read: Callable[[], object]) -> None:
    """Every number of the protocol fits a signed 64-bit integer (the rules' numbers less):
    a larger one, or one too long for Python to convert, is the protocol's own error."""
    with pytest.raises(ProtocolError, match=r"must be|expected"):
        read()


def test_position_commands_round_trip() -> None:
    game = Game(CUSTOM, "4c4/ppppppppp/9/9/9/9/P8/1PPPPPPPP/4C4 g 0 1")
    game.push_all(["a8-a7", "b2-b3"])
    command = PositionCommand.from_game(game)
    text = str(command)
    assert text.startswith(f"position rules {game.rules} fen ")
    assert PositionCommand.parse(text.split()[1:]) == command
    assert command.game().position == game.position
    assert str(PositionCommand.from_game(Game("cooper"))) == "position rules cooper startpos"


def test_scores_say_who_wins_in_how_many_plies() -> None:
    assert protocol_score(35) == Score("cp", 35)
    assert protocol_score(WIN - 3) == Score("win", 3)
    assert protocol_score(-(WIN - 4)) == Score("loss", 4)
    assert Score("cp", 0).expected == 0.5 and Score("win", 3).expected == 1.0


def test_go_with_clocks_asks_the_time_manager_for_the_movers_clock() -> None:
    cooper = RuleSet.parse("cooper")
    blue = move_time(Go(btime=30000, gtime=3000, binc=1000), Side.BLUE, 50, ply=10, rules=cooper)
    assert blue == allocate(Clock(30.0, 1.0), ply=10, rules=cooper, overhead=0.05)
    gray = move_time(Go(btime=30000, gtime=3000, binc=1000), Side.GRAY, 50, ply=10, rules=cooper)
    assert gray == allocate(Clock(3.0, 0.0), ply=10, rules=cooper, overhead=0.05)
    last = move_time(Go(btime=600, movestogo=1), Side.BLUE, 50)
    assert last is not None  # the last move before the control: all but the margin
    assert last.soft == pytest.approx(0.55) and last.hard == pytest.approx(0.55)
    assert move_time(Go(btime=-10), Side.BLUE, 50) == MoveTime(0.01, 0.01)  # the floor
    both = move_time(Go(movetime=100, btime=60000), Side.BLUE, 50)
    assert both is not None and both.hard == pytest.approx(0.1) and both.soft <= 0.1
    assert move_time(Go(movetime=300, gtime=3000), Side.BLUE, 50) == MoveTime(0.3, 0.3)
    assert move_time(Go(depth=5), Side.BLUE, 50) is None
