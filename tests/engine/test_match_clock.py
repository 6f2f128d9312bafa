"""Matches on a clock: ``bluegray match --clock MIN+INC``, each side's game clock, a flag that
loses the game, the flags in the report, and engine players that get the clocks through the
protocol."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

import pytest

from bluegray import Game, Move, RuleSet, read_records
from bluegray.cli.main import main
from bluegray.cli.match import describe_limits
from bluegray.engine import player as player_module
from bluegray.engine.limits import Limits
from bluegray.engine.match import InvalidMatchError, MatchSettings, play_game, run_match
from bluegray.engine.player import Player, PlayerKind, legal_moves
from bluegray.engine.players import RandomPlayer, player_from_spec
from bluegray.engine.time_manager import Clock, TimeControl
from bluegray.outcome import Termination
from bluegray.pieces import Side
from bluegray.protocol.player import EnginePlayer

COOPER = RuleSet.parse("cooper")
ENGINE_SPEC = "engine:" + shlex.join([sys.executable, "-m", "bluegray", "engine"])


class SlowPlayer(Player):
    """Thinks longer than any short clock allows: it always loses on time."""

    def __init__(self, seconds: float) -> None:
        self.spec = "slow"
        self.seconds = seconds
        self.clocks: list[Clock] = []

    def choose(self, game: Game, limits: Limits | None = None) -> Move:
        time.sleep(self.seconds)  # the fault: a move slower than the clock holds
        return legal_moves(game)[0]

    def choose_on_clock(self, game: Game, own: Clock, other: Clock) -> Move:
        self.clocks.append(own)
        return super().choose_on_clock(game, own, other)


def slow_player(spec: str, seed: int) -> Player:
    """The ``slow`` kind's player (a function of the module: a match's worker processes unpickle
    the registry's kinds)."""
    return SlowPlayer(0.2)


@pytest.fixture
def slow_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``slow`` kind of player, registered for one test only: the registry is the process's,
    and a kind left in it travels with every later match to its worker processes."""
    monkeypatch.setitem(
        player_module._KINDS, "slow", PlayerKind("slow", slow_player, "slow (for tests)")
    )


def test_a_side_whose_clock_runs_out_loses_on_time() -> None:
    slow = SlowPlayer(0.2)
    control = TimeControl(0.005, 0.01)  # 0.3 s each, 10 ms a move
    result = play_game(RandomPlayer(1), slow, COOPER, clock=control)
    assert result.flagged and result.reason == "time" and result.winner is Side.BLUE
    assert slow.clocks[0] == Clock(0.3, 0.01)
    assert slow.clocks[1].remaining == pytest.approx(0.11, abs=0.05)  # 0.3 - 0.2 + 0.01
    game = result.game()  # the record ends on time, the flagging side's move not played
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.TIME
    assert game.ply == result.plies and game.turn is Side.GRAY


@pytest.mark.usefixtures("slow_kind")
def test_the_match_counts_each_players_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "games.pgn"
    args = ["match", "slow", "random", "-n", "2", "-j", "1", "--clock", "0.005+0", "--json"]
    assert main([*args, "--opening-plies", "0", "--out", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["flags"] == {"a": 2, "b": 0} and data["reasons"] == {"time": 2}
    assert data["b"]["wins"] == 2 and data["settings"]["clock"] == "0.005+0"
    records = list(read_records(out.read_text(encoding="utf-8")))
    assert [record.tags["TimeControl"] for record in records] == ["0.3+0", "0.3+0"]
    assert [record.tags["Result"] for record in records] == ["0-1", "1-0"]  # lost as Blue, Gray


def test_a_tiny_match_on_a_clock_runs_without_flags(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["match", "level:6", "level:3", "-n", "2", "-j", "1", "--max-plies", "16"]
    assert main([*args, "--clock", "0.1+0.05"]) == 0
    report = capsys.readouterr().out
    assert "a clock of 0.1 min + 0.05 s a move each, except level:3" in report
    assert "Flags (games lost on time): 0: level:6 0, level:3 0" in report


@pytest.mark.parametrize(
    ("clock", "message"),
    [
        ("x", "--clock: invalid clock 'x': expected MINUTES[+INCREMENT]"),
        ("1+", "expected MINUTES[+INCREMENT], e.g. 5 or 3+2"),
        ("0+2", "the minutes must be more than 0"),
        ("-1+0", "expected MINUTES[+INCREMENT]"),
    ],
)
def test_a_bad_clock_is_one_line_and_exit_2(
    clock: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["match", "random", "random", "-n", "2", f"--clock={clock}"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1
    assert err.startswith("bluegray: error: ") and message in err


def test_a_clock_and_a_limit_a_move_do_not_go_together(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["match", "random", "random", "-n", "2", "--clock", "1+0", "--time", "1"]) == 2
    assert "give --clock or a limit a move (--time, --nodes), not both" in capsys.readouterr().err
    with pytest.raises(InvalidMatchError, match="a clock or limits a move, not both"):
        MatchSettings(
            "random", "random", COOPER, 2, limits=Limits(time=1.0), clock=TimeControl(1.0)
        )


def test_the_help_teaches_the_clock(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["match", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--clock MIN+INC" in text and "loses the game ('time')" in text
    assert "go btime/gtime/binc/ginc" in text


def test_describe_limits_names_the_clock() -> None:
    settings = MatchSettings("level:8", "greedy", COOPER, 2, clock=TimeControl(1.0, 2.0))
    assert describe_limits(settings) == (
        "a clock of 1 min + 2 s a move each, except greedy (no search)"
    )


@pytest.mark.slow
def test_engine_players_get_the_clocks_through_the_protocol() -> None:
    engine = player_from_spec(ENGINE_SPEC + ";level=8", seed=1)
    assert isinstance(engine, EnginePlayer)
    level = player_from_spec("level:6", seed=2)
    try:
        result = play_game(engine, level, COOPER, max_plies=10, clock=TimeControl(0.2, 0.1))
        assert not result.flagged and result.plies == 10
        assert engine.last_result is not None and engine.last_result.last is not None
        searched = engine.last_result.last.time
        assert searched is not None and 0 < searched <= 12_000 * 0.5  # a share of its clock
    finally:
        engine.close()
        level.close()


@pytest.mark.slow
def test_a_match_of_engine_players_on_a_clock() -> None:
    settings = MatchSettings(
        ENGINE_SPEC, "level:6", COOPER, 2, max_plies=12, clock=TimeControl(0.1, 0.05)
    )
    summary = run_match(settings)
    assert summary.stats.games == 2 and summary.flags == (0, 0)
    for match_game in summary.games:
        assert match_game.result.plies > len(match_game.result.opening)
        match_game.result.game()
